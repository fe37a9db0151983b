//! Esper 5's own data window, `ORDER BY` and select-clause tests (`regression/view` of espertechinc/esper, each class
//! at the commit its table names; for the first-event views, which Esper 5 tests only chained, and the time batch,
//! unique, last-event, length and grouped length and time windows, whose single-view tests Esper 5 mostly lacks,
//! Esper 8's) through the reference, each statement with Esper's events, its clock moves and the rows its assertions
//! expect, and where Esper asserts a column's type, that type. This module holds the cases' shape
//! and the code that runs them; the tables are in modules by Esper class, and the dataflow's tests run the same cases
//! on one, two and four workers.
//!
//! Only what the subset and the planner hold is transcribed: no chained views but under `std:groupwin`, no
//! joins, iterators, object models, engine settings, stop and start, or nested properties.
//! Statements are Esper's but for the `INSERT INTO Out` our outputs need, the `.win:` names of views a later Esper
//! spells `#`, and an alias where Esper's column has none. Where Esper asserts new and old rows, the new ones are
//! kept, and of a `SELECT RSTREAM` statement the old ones its listener receives as new. Six cases gave other rows
//! than Esper's when first run (`\u` escapes in text; a pattern's matches of one event not sorted); the runtimes were
//! mended (`benches/results/cep.md`, seventy-first session).

/// Esper's `createAndSend` of `TestOrderBySimple` (and the events of
/// `TestOrderByAggregateAll.testAggregateAllOrderFunction`): six `SupportMarketDataBean`s, symbol and price, volume
/// 0, no feed, the clock at 0; Esper asserts only the delivery of the sixth, `$last` (`?` before it). Under `output
/// every 6 events` the sixth releases the six rows; with `win:length(5)` the first, pushed out by the sixth, is among
/// them.
macro_rules! created_and_sent {
    ($last:expr) => {
        [
            (0, MD, "symbol='IBM',price=2,volume=0", "?"),
            (0, MD, "symbol='KGB',price=1,volume=0", "?"),
            (0, MD, "symbol='CMU',price=3,volume=0", "?"),
            (0, MD, "symbol='IBM',price=6,volume=0", "?"),
            (0, MD, "symbol='CAT',price=6,volume=0", "?"),
            (0, MD, "symbol='CAT',price=5,volume=0", $last),
        ]
    };
}

mod after;
mod counted;
mod ext_timed;
mod ext_timed_batch;
mod first;
mod having;
mod ordered;
mod previous;
mod prior;
mod selects;
mod sorted;
mod time_accum;
mod time_length_batch;
mod time_order;
mod timebatch;
mod unique;
mod windows;

use self::after::AFTER_EVENTS;
use self::counted::{
    DISTINCT_COUNTED, GROUP_BY_UNBOUND, ORDER_BY_AGGREGATE_ALL, ORDER_BY_EVENT_PER_GROUP, ORDER_BY_EVENT_PER_ROW,
    ORDER_BY_SIMPLE_COUNTED, OUTPUT_LIMIT_AGGREGATE_ALL, OUTPUT_LIMIT_EVENT_PER_GROUP, OUTPUT_LIMIT_EVENT_PER_ROW,
    OUTPUT_LIMIT_ROW_FOR_ALL, OUTPUT_LIMIT_SIMPLE, SUBSCRIBER_BIND,
};
use self::ext_timed::{EXT_TIMED_WIN, EXT_TIMED_WINDOW_VIEW, PREVIOUS_EXT_TIMED, PRIOR_EXT_TIMED, TIME_INTERVAL};
use self::ext_timed_batch::{EXTERNALLY_BATCHED, PREVIOUS_EXT_TIMED_BATCH};
use self::first::{FIRST_EVENT, FIRST_LENGTH, FIRST_TIME, FIRST_UNIQUE};
use self::having::HAVING_ALONE_VIEWS;
use self::ordered::ORDER_BY_SIMPLE;
use self::previous::PREVIOUS;
use self::prior::PRIOR;
use self::selects::{ISTREAM_RSTREAM, SELECT_EXPR};
use self::sorted::{RANKED, SORTED};
use self::time_accum::{TIME_ACCUM, TIME_ACCUM_FLUSHES};
use self::time_length_batch::TIME_LENGTH_BATCH;
use self::time_order::{TIME_ORDER, TIME_ORDER_RELEASES};
use self::timebatch::TIME_BATCH;
use self::unique::{GROUPWIN, GROUPWIN_TIME, LAST_EVENT, LENGTH_WIN, UNIQUE};
use self::windows::{LENGTH_BATCH, SIMPLE_FILTER, TIME_WIN, WHERE_CLAUSE};
use super::esper_exprs::{Case, PRIMITIVES, expr_config, plan_of, planned_columns, shown_row, value};
use crate::cep::runtime::{Engine, Output, Row, Val};

/// One step of a case: its millisecond, the type of the event sent (empty for a clock move to that millisecond), the
/// event's properties (`name=value` by commas, text in single quotes, `id` the event's identity; an absent property
/// is null, `SupportBean`'s primitives not given are Java's defaults), and the rows Esper expects of it: `-` none,
/// `?` whatever (Esper asserts nothing of this step), else each row's columns (`name=value` in
/// [`ViewCase::columns`]' order, as in `esper_exprs`), rows split by ` | `.
pub(crate) type Step = (i64, &'static str, &'static str, &'static str);

/// One of Esper's statements: its test (class and method), what follows `INSERT INTO Out SELECT`, the columns of
/// `Out` (`name type`, by commas), whether Esper asserts those types, and its steps from the statement's start.
pub(crate) struct ViewCase {
    pub test: &'static str,
    pub select: &'static str,
    pub columns: &'static str,
    pub typed: bool,
    pub steps: &'static [Step],
}

const SB: &str = "SupportBean";
const MD: &str = "SupportMarketDataBean";

/// The declared types of the properties the cases send.
const TYPES: [(&str, &str); 18] = [
    ("id", "string"),
    ("timestamp", "long"),
    ("groupId", "string"),
    ("theString", "string"),
    ("symbol", "string"),
    ("feed", "string"),
    ("intPrimitive", "int"),
    ("intBoxed", "int"),
    ("longPrimitive", "long"),
    ("longBoxed", "long"),
    ("doubleBoxed", "double"),
    ("volume", "long"),
    ("doublePrimitive", "double"),
    ("price", "double"),
    ("floatPrimitive", "float"),
    ("floatBoxed", "float"),
    ("boolPrimitive", "boolean"),
    ("boolBoxed", "boolean"),
];

/// Every case of the view, order-by and select classes.
pub(crate) fn view_cases() -> impl Iterator<Item = &'static ViewCase> {
    let tables: [&[ViewCase]; 47] = [
        &TIME_WIN,
        &TIME_BATCH,
        &TIME_LENGTH_BATCH,
        &UNIQUE,
        &LAST_EVENT,
        &LENGTH_WIN,
        &GROUPWIN,
        &GROUPWIN_TIME,
        &LENGTH_BATCH,
        &WHERE_CLAUSE,
        &SIMPLE_FILTER,
        &FIRST_EVENT,
        &FIRST_LENGTH,
        &FIRST_UNIQUE,
        &FIRST_TIME,
        &ORDER_BY_SIMPLE,
        &ISTREAM_RSTREAM,
        &SELECT_EXPR,
        &PRIOR,
        &PREVIOUS,
        &OUTPUT_LIMIT_SIMPLE,
        &HAVING_ALONE_VIEWS,
        &AFTER_EVENTS,
        &OUTPUT_LIMIT_ROW_FOR_ALL,
        &OUTPUT_LIMIT_AGGREGATE_ALL,
        &OUTPUT_LIMIT_EVENT_PER_GROUP,
        &OUTPUT_LIMIT_EVENT_PER_ROW,
        &DISTINCT_COUNTED,
        &ORDER_BY_SIMPLE_COUNTED,
        &ORDER_BY_AGGREGATE_ALL,
        &ORDER_BY_EVENT_PER_ROW,
        &ORDER_BY_EVENT_PER_GROUP,
        &SUBSCRIBER_BIND,
        &GROUP_BY_UNBOUND,
        &EXT_TIMED_WIN,
        &TIME_INTERVAL,
        &EXT_TIMED_WINDOW_VIEW,
        &PRIOR_EXT_TIMED,
        &PREVIOUS_EXT_TIMED,
        &EXTERNALLY_BATCHED,
        &PREVIOUS_EXT_TIMED_BATCH,
        &SORTED,
        &RANKED,
        &TIME_ORDER,
        &TIME_ORDER_RELEASES,
        &TIME_ACCUM,
        &TIME_ACCUM_FLUSHES,
    ];
    tables.into_iter().flatten()
}

impl ViewCase {
    /// The case as `esper_exprs` runs its own: its whole statement and columns, no runs.
    fn as_expr(&self) -> Case {
        let statement = format!("INSERT INTO Out SELECT {}", self.select);
        Case { test: self.test, statement, columns: self.columns, typed: self.typed, runs: Vec::new() }
    }

    /// Whether the statement orders its rows: if not, the rows of one step are a set.
    fn ordered(&self) -> bool {
        self.select.to_lowercase().contains("order by")
    }
}

/// The configuration running `case`: the types of `esper_exprs` in, `Out` with the case's columns out.
pub(crate) fn view_config(case: &ViewCase) -> String {
    expr_config(&case.as_expr())
}

/// The steps of `case` through `e` (running [`view_config`] of it): what each gave, in the notation of [`Step`],
/// `?` where Esper asserts nothing.
pub(crate) fn view_results(e: &mut dyn Engine, case: &ViewCase) -> Vec<String> {
    let each = |(ms, stream, props, expected): &Step| {
        let out = if stream.is_empty() { advance(e, *ms) } else { e.push(*ms, stream, event(stream, props)) };
        if *expected == "?" { "?".to_string() } else { shown(&out, case) }
    };
    case.steps.iter().map(each).collect()
}

/// What `case` should give by Esper's assertions, each step's rows sorted unless the statement orders them.
pub(crate) fn expected_view_results(case: &ViewCase) -> Vec<String> {
    let rows = |expected: &str| expected.split(" | ").map(str::to_string).collect::<Vec<_>>();
    case.steps.iter().map(|(_, _, _, expected)| in_order(rows(expected), case)).collect()
}

/// Every timer due by `ms` in turn, then the clock at `ms`.
fn advance(e: &mut dyn Engine, ms: i64) -> Vec<Output> {
    let mut out = Vec::new();
    while let Some(due) = e.next_timer().filter(|t| *t <= ms) {
        out.extend(e.advance(due));
    }
    out.extend(e.advance(ms));
    out
}

fn shown(out: &[Output], case: &ViewCase) -> String {
    if out.is_empty() {
        return "-".into();
    }
    in_order(out.iter().map(|o| shown_row(&o.row, case.columns)).collect(), case)
}

fn in_order(mut rows: Vec<String>, case: &ViewCase) -> String {
    if !case.ordered() {
        rows.sort();
    }
    rows.join(" | ")
}

/// An event of `stream` with `props` (see [`Step`]), each value of its declared type.
fn event(stream: &str, props: &str) -> Row {
    let mut row: Vec<(String, Val)> = Vec::new();
    if stream == SB {
        row.extend(PRIMITIVES.iter().map(|(n, v)| (n.to_string(), v.clone())));
    }
    for (name, text) in props.split(',').filter(|p| !p.is_empty()).map(|p| p.split_once('=').expect("name=value")) {
        let (_, ty) = TYPES.iter().find(|(n, _)| *n == name).expect("a declared property");
        row.retain(|(n, _)| n != name);
        row.push((name.to_string(), value(ty, text)));
    }
    row.into_iter().collect()
}

/// `case` through the reference: the planned types where Esper asserts them, then each step's results.
fn reference_results(case: &ViewCase) -> (String, Vec<String>) {
    let expr = case.as_expr();
    let plan = plan_of(&expr_config(&expr));
    let types = if case.typed { planned_columns(&plan, &expr) } else { case.columns.to_string() };
    let mut reference = super::Reference::new(&plan, 0).expect("runs");
    (types, view_results(&mut reference, case))
}

/// What `case` should give: its columns' types and each step's results.
fn esper_results(case: &ViewCase) -> (String, Vec<String>) {
    (case.columns.to_string(), expected_view_results(case))
}

#[test]
fn esper_view_cases_through_the_reference() {
    for case in view_cases() {
        assert_eq!(reference_results(case), esper_results(case), "{}: {}", case.test, case.select);
    }
}

//! Esper 5's own expression tests (`regression/expr` of espertechinc/esper, each class at the commit its table names)
//! through the reference, each statement with Esper's events and the values its assertions expect, and where Esper
//! asserts a column's type, that type. This module holds the cases' shape, their types and the code that runs them
//! (which [`super::esper_aggregates`] shares, with its clock moves); the tables are in modules by Esper class, and the
//! dataflow's tests run the same cases on one, two and four workers.
//!
//! Only what the subset holds is transcribed: no short, byte, char or big numbers, Java classes (but for `Math`),
//! methods or enums, arrays, bit-wise operators, ranges (`in [a:b]`), object models (the same statement as
//! text is here once), nor what the planner refuses. Esper's statements are kept as written but for the `INSERT INTO
//! Out` our outputs need, `*` over a pattern (the last tag's `.*` here), a name given with `as` to a column Esper
//! names by its text (`TestStaticFunctions`) and, where a select list also has columns out of the subset, those
//! columns. Eleven cases gave other values than Esper's when first run (a `case` or `coalesce` result not widened to
//! its double type, `null` in a `case` switch, in an `in` list and as a `between` bound); the runtimes were mended and
//! the cases run with the rest (`benches/results/cep.md`, seventy-first session).

mod filter_in;
mod filters;
mod functions;
mod in_between;
mod statics;
mod trials;

use self::filter_in::IN_AND_BETWEEN;
use self::filters::FILTER_EXPRESSIONS;
use self::functions::{CASE_EXPR, CAST, LIKE, MATH, PER_ROW, TIMESTAMP};
use self::in_between::IN_BETWEEN_LIKE;
use self::statics::{STATIC_FUNCTIONS, STRING_METHODS};
use self::trials::TRIALS;
use crate::cep::config::CepConfig;
use crate::cep::explain::plan_config;
use crate::cep::plan::{Plan, PlanNode};
use crate::cep::runtime::{Engine, Output, Row, Val};

/// One event sent: its type, its properties (`name=value` by commas, text in single quotes; an absent property is
/// null, and `SupportBean`'s primitives not given are Java's defaults), and what Esper expects it to give: `-` no row,
/// `+` a row whose values Esper does not assert, `*` one row or more, unasserted, `?` anything (Esper asserts nothing
/// there), else the rows by ` | ` (in any order but where the statement orders them), each its columns (`name=value`
/// in [`ExprCase::columns`]' order, `null` for null, text quoted, a double with its point, `~` before a double Esper
/// compares to the thousandth). The type [`CLOCK`] moves the clock to the millisecond its properties give instead:
/// each event goes at the clock, which then moves a millisecond on, and the rows of a step are those its event or
/// clock move gave.
pub(crate) type Sent = (&'static str, &'static str, &'static str);

/// The type of a [`Sent`] that moves the clock.
pub(crate) const CLOCK: &str = "clock";

/// A [`Sent`] with its properties as owned text, since trials build theirs.
pub(crate) type Event = (&'static str, String, &'static str);

/// One of Esper's statements: its test (class and method), what follows `INSERT INTO Out SELECT`, the columns of
/// `Out` (`name type`, by commas), whether Esper asserts those types, and the events sent, in runs that each start a
/// fresh statement.
pub(crate) struct ExprCase {
    pub test: &'static str,
    pub select: &'static str,
    pub columns: &'static str,
    pub typed: bool,
    pub runs: &'static [&'static [Sent]],
}

/// A case made ready to run: its whole statement, and its runs of [`Event`]s.
pub(crate) struct Case {
    pub test: &'static str,
    pub statement: String,
    pub columns: &'static str,
    pub typed: bool,
    pub runs: Vec<Vec<Event>>,
}

impl ExprCase {
    pub(super) fn ready(&self) -> Case {
        let runs = self.runs.iter().map(|run| run.iter().map(|(t, p, e)| (*t, p.to_string(), *e)).collect());
        let statement = format!("INSERT INTO Out SELECT {}", self.select);
        Case { test: self.test, statement, columns: self.columns, typed: self.typed, runs: runs.collect() }
    }
}

/// The event types of the cases and their attributes, a boxed property of the same type as its primitive. Esper's
/// `SupportTradeEvent` is `SupportEvent`, as `TestFilterExpressions` names it, its `id` `n`; `TestEvent` is
/// `TestFilterExpressions.TestEvent`, and `TestCastExpr.testCastMapStringInt`'s map type `TestEvent` is `CastEvent`.
const TYPES: [(&str, &[(&str, &str)]); 8] = [
    (
        "SupportBean",
        &[
            ("theString", "string"),
            ("intPrimitive", "int"),
            ("intBoxed", "int"),
            ("longPrimitive", "long"),
            ("longBoxed", "long"),
            ("doublePrimitive", "double"),
            ("doubleBoxed", "double"),
            ("floatPrimitive", "float"),
            ("floatBoxed", "float"),
            ("boolPrimitive", "boolean"),
            ("boolBoxed", "boolean"),
        ],
    ),
    ("SupportMarketDataBean", &[("symbol", "string"), ("price", "double"), ("volume", "long"), ("feed", "string")]),
    ("SupportBean_S0", &[("p00", "string"), ("p01", "string"), ("p02", "string"), ("p03", "string")]),
    ("SupportBeanNumeric", &[("intOne", "int"), ("intTwo", "int")]),
    ("SupportEvent", &[("n", "int"), ("userId", "string"), ("amount", "int")]),
    ("TestEvent", &[("x", "int")]),
    ("SupportBeanTimestamp", &[("timestamp", "long"), ("groupId", "string")]),
    (
        "CastEvent",
        &[
            ("anInt", "string"),
            ("anDouble", "string"),
            ("anLong", "string"),
            ("anFloat", "string"),
            ("intPrimitive", "int"),
            ("intBoxed", "int"),
        ],
    ),
];

/// `SupportBean`'s primitives, which a Java bean holds even when a test does not set them.
pub(super) const PRIMITIVES: [(&str, Val); 5] = [
    ("intPrimitive", Val::Int(0)),
    ("longPrimitive", Val::Int(0)),
    ("doublePrimitive", Val::Double(0.0)),
    ("floatPrimitive", Val::Double(0.0)),
    ("boolPrimitive", Val::Bool(false)),
];

pub(super) const SB: &str = "SupportBean";
pub(super) const MD: &str = "SupportMarketDataBean";
const S0: &str = "SupportBean_S0";
const NUM: &str = "SupportBeanNumeric";
const TR: &str = "SupportEvent";
const TE: &str = "TestEvent";
const CE: &str = "CastEvent";

/// Every case of the expression and filter classes, ready to run.
pub(crate) fn expr_cases() -> Vec<Case> {
    let tables = [
        &CASE_EXPR[..],
        &IN_BETWEEN_LIKE,
        &LIKE,
        &MATH,
        &TIMESTAMP,
        &STATIC_FUNCTIONS,
        &STRING_METHODS,
        &CAST,
        &PER_ROW,
        &IN_AND_BETWEEN,
        &FILTER_EXPRESSIONS,
    ];
    let cases = tables.into_iter().flatten().map(ExprCase::ready);
    cases.chain(TRIALS.iter().map(|t| t.ready())).collect()
}

/// The configuration running `case`'s statement: every type of [`TYPES`] in, `Out` with the case's columns out.
pub(crate) fn expr_config(case: &Case) -> String {
    let attributes = |names: &mut dyn Iterator<Item = (&str, &str)>| {
        let each: Vec<String> = names.map(|(n, t)| format!(r#"{{"name":"{n}","type":"{t}"}}"#)).collect();
        each.join(",")
    };
    let ins: Vec<String> = (TYPES.iter())
        .map(|(t, a)| {
            let a = attributes(&mut a.iter().copied());
            format!(r#"{{"id":"{t}.*","type":"{t}","isPattern":true,"attributes":[{a}]}}"#)
        })
        .collect();
    let out = attributes(&mut columns(case.columns));
    let statement = serde_json::to_string(&case.statement).expect("text");
    format!(
        r#"{{"host":"h","in":[{}],"out":[{{"id":"O","type":"Out","attributes":[{out}]}}],"statements":[{statement}]}}"#,
        ins.join(",")
    )
}

fn columns(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.split(", ").map(|c| c.rsplit_once(' ').expect("`name type`"))
}

/// The columns `plan`'s statement gives `Out`, as `name type` by commas, in `case`'s order.
pub(super) fn planned_columns(plan: &Plan, case: &Case) -> String {
    let Some(PlanNode::Query(query)) = plan.statements.first().map(|s| &s.node) else {
        panic!("a query: {}", case.statement);
    };
    let ty = |name: &str| query.sink.columns.iter().find(|c| c.name == name).map(|c| c.ty.to_string());
    let each: Vec<String> =
        columns(case.columns).map(|(n, _)| format!("{n} {}", ty(n).unwrap_or_else(|| "missing".into()))).collect();
    each.join(", ")
}

/// The steps of `run` through `e` (running [`expr_config`] of `case`): what each gave, in the notation of [`Sent`].
pub(crate) fn expr_results(e: &mut dyn Engine, case: &Case, run: &[Event]) -> Vec<String> {
    let mut now = 0;
    let step = |(stream, props, expected): &Event| {
        let rows = if *stream == CLOCK {
            let to = props.parse().expect("a millisecond");
            assert!(to >= now, "the clock moves back to {to}: {}", case.statement);
            now = to;
            e.advance(now)
        } else {
            now += 1;
            e.push(now - 1, stream, event(stream, props))
        };
        shown_step(case, &rows, expected)
    };
    run.iter().map(step).collect()
}

/// The rows of one step as [`Sent`] writes them, against what Esper `expected` of it.
fn shown_step(case: &Case, rows: &[Output], expected: &str) -> String {
    let shown: Vec<String> = rows.iter().map(|o| shown_row_near(&o.row, case.columns, expected)).collect();
    match (shown.len(), expected) {
        (_, "?") => "?".into(),
        (0, _) => "-".into(),
        (1, "+") => "+".into(),
        (_, "*") => "*".into(),
        _ => in_order(case, shown),
    }
}

/// `rows` by ` | `, sorted unless `case`'s statement orders them.
fn in_order(case: &Case, mut rows: Vec<String>) -> String {
    if !case.statement.to_lowercase().contains(" order by ") {
        rows.sort();
    }
    rows.join(" | ")
}

/// What `run` should give by Esper's assertions.
pub(crate) fn expected_results(case: &Case, run: &[Event]) -> Vec<String> {
    let rows = |expected: &str| in_order(case, expected.split(" | ").map(str::to_string).collect());
    run.iter().map(|(_, _, expected)| rows(expected)).collect()
}

/// `row`'s columns, as [`shown_row_near`] shows them when nothing is compared to the thousandth.
pub(super) fn shown_row(row: &Row, columns_text: &str) -> String {
    shown_row_near(row, columns_text, "")
}

/// `row`'s columns; a double whose column Esper compares to the thousandth (`~` in `expected`) as Esper's value when
/// it rounds to it.
fn shown_row_near(row: &Row, columns_text: &str, expected: &str) -> String {
    let column = |(n, _): (&str, &str)| {
        let value = shown(row.get(n));
        let approx = format!("{n}=~");
        let near = |at: usize| expected[at + approx.len()..].split([' ', '|']).next().unwrap_or_default();
        let same = |x: f64, y: f64| (x * 1000.0).round() == (y * 1000.0).round();
        let esper = (expected.match_indices(&approx).map(|(at, _)| near(at)))
            .find(|e| matches!((e.parse::<f64>(), value.parse::<f64>()), (Ok(x), Ok(y)) if same(x, y)));
        format!("{n}={}", esper.map_or(value, |e| format!("~{e}")))
    };
    columns(columns_text).map(column).collect::<Vec<_>>().join(" ")
}

fn shown(value: Option<&Val>) -> String {
    match value {
        None | Some(Val::Null) => "null".into(),
        Some(Val::String(s)) => format!("'{s}'"),
        Some(Val::Int(n)) => n.to_string(),
        Some(Val::Double(x)) => format!("{x:?}"),
        Some(Val::Bool(b)) => b.to_string(),
        Some(other) => format!("{other:?}"),
    }
}

/// An event of `stream` with `props` (see [`Sent`]), each value of its declared type.
fn event(stream: &str, props: &str) -> Row {
    let (_, declared) = TYPES.iter().find(|(t, _)| *t == stream).expect("a type of the cases");
    let mut row: Vec<(String, Val)> = Vec::new();
    if stream == "SupportBean" {
        row.extend(PRIMITIVES.iter().map(|(n, v)| (n.to_string(), v.clone())));
    }
    for (name, text) in split_props(props) {
        let (_, ty) = declared.iter().find(|(n, _)| *n == name).expect("a declared property");
        row.retain(|(n, _)| n != name);
        row.push((name.to_string(), value(ty, text)));
    }
    row.into_iter().collect()
}

/// `name=value` pairs, split at commas outside quotes (an empty piece is no pair).
fn split_props(props: &str) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (at, c) in props.char_indices().chain([(props.len(), ',')]) {
        match c {
            '\'' => quoted = !quoted,
            ',' if !quoted => {
                pairs.extend(props[start..at].split_once('='));
                start = at + 1;
            }
            _ => {}
        }
    }
    pairs
}

/// The value `text` writes for a property of type `ty` (a string in single quotes).
pub(super) fn value(ty: &str, text: &str) -> Val {
    match ty {
        "string" => Val::String(text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).expect("quoted").into()),
        "int" | "long" => Val::Int(text.parse().expect("an integer")),
        "double" | "float" => Val::Double(text.parse().expect("a number")),
        "boolean" => Val::Bool(text.parse().expect("a boolean")),
        other => panic!("no such type {other}"),
    }
}

pub(super) fn plan_of(config: &str) -> Plan {
    let config: CepConfig = serde_json::from_str(config).expect("test configuration");
    plan_config(&config, true).expect("plans")
}

/// `case` through the reference: the planned types where Esper asserts them, then each run's results.
fn reference_results(case: &Case) -> (String, Vec<Vec<String>>) {
    let plan = plan_of(&expr_config(case));
    let types = if case.typed { planned_columns(&plan, case) } else { case.columns.to_string() };
    let runs = case.runs.iter().map(|run| {
        let mut reference = super::Reference::new(&plan, 0).expect("runs");
        expr_results(&mut reference, case, run)
    });
    (types, runs.collect())
}

/// What `case` should give: its columns' types and each run's results.
fn esper_results(case: &Case) -> (String, Vec<Vec<String>>) {
    (case.columns.to_string(), case.runs.iter().map(|run| expected_results(case, run)).collect())
}

/// `case` through the reference when it does not give Esper's results: the case, Esper's results and the reference's.
fn unlike_esper(case: &Case) -> Option<String> {
    let (got, expected) = (reference_results(case), esper_results(case));
    let shown = format!("{}: {}\n  esper:     {expected:?}\n  reference: {got:?}", case.test, case.statement);
    (got != expected).then_some(shown)
}

/// Every case of `cases` gives Esper's results through the reference.
pub(super) fn assert_like_esper(cases: &[Case]) {
    let unlike: Vec<String> = cases.iter().filter_map(unlike_esper).collect();
    assert!(unlike.is_empty(), "{} cases:\n{}", unlike.len(), unlike.join("\n"));
}

#[test]
fn esper_expr_cases_through_the_reference() {
    assert_like_esper(&expr_cases());
}

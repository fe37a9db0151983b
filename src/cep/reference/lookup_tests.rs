//! The lookup views of joins against a plain model of each view: random states and commands through a join statement
//! per kind of view, each command's rows compared with those the model holds at that moment and `ON` accepts. The
//! dataflow runtime shares the views and what a trigger computes from them (`LookupView`, `Joiner`, and the
//! aggregation of a trigger's rows), so its agreement with the reference cannot catch a mistake in them; this can.
//! The values mix what `=` treats specially: an integer and a double of one number, zero and negative zero, two longs
//! that are one double apart, NaN, null and text. Each case runs the join driven by the commands or by a pattern's
//! matches of them, with or without `ORDER BY`; and the aggregating joins of [`Tally`] likewise.

use proptest::prelude::*;

use super::tests::engine;
use crate::cep::runtime::{Engine, Row, Val};

/// Each view as written in the statement, and its model.
const VIEWS: [(&str, Model); 8] = [
    ("std:unique(code)", Model::Unique("code")),
    ("std:unique(id)", Model::Unique("id")),
    ("std:lastevent()", Model::Length { count: 1, by: None }),
    ("std:groupwin(id).std:lastevent()", Model::Unique("id")),
    ("win:length(3)", Model::Length { count: 3, by: None }),
    ("std:groupwin(id).win:length(2)", Model::Length { count: 2, by: Some("id") }),
    ("win:time(3 sec)", Model::Time(3_000)),
    ("std:groupwin(id).win:time(3 sec)", Model::Time(3_000)),
];

#[derive(Debug, Clone, Copy)]
enum Model {
    /// The last row per value of the property, values told apart by [`Val::key`] as the view's key is.
    Unique(&'static str),
    /// The last `count` rows, of each value of `by` when grouped.
    Length { count: usize, by: Option<&'static str> },
    /// The rows of the last `millis`.
    Time(i64),
}

fn values() -> Vec<Val> {
    vec![
        Val::Int(1),
        Val::Double(1.0),
        Val::Double(0.0),
        Val::Double(-0.0),
        Val::Int(0),
        Val::Double(f64::NAN),
        Val::Null,
        Val::Double(2.5),
        Val::String("1".into()),
        Val::Int(9_007_199_254_740_992),
        Val::Int(9_007_199_254_740_993),
    ]
}

/// The join's `ON`: an equality, which the view probes by, and the same test in a form it cannot probe by, so that a
/// trigger reads every row.
const ONS: [&str; 2] = ["c.code = S.code", "c.code = S.code OR false"];

/// The join statement over `view` with `ON` `on` and `ORDER BY` `order` (none when empty).
pub(crate) fn config(view: &str, on: &str, order: &str) -> String {
    with_statement(&format!(
        "INSERT INTO Log SELECT c.n as n, S.n as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.{view} as S \
         ON {on}{order}"
    ))
}

/// The configuration of the commands, the states and the log, with `statement`.
fn with_statement(statement: &str) -> String {
    format!(
        r#"{{"host":"h",
  "in":[{{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{{"name":"code","type":"double"}},{{"name":"n","type":"int"}}]}},
    {{"id":"S.*","type":"State","isPattern":true,"attributes":[{{"name":"code","type":"double"}},{{"name":"n","type":"int"}}]}}],
  "out":[{{"id":"L","type":"Log","attributes":[{{"name":"n","type":"int"}},{{"name":"seen","type":"int"}}]}}],
  "statements":["{statement}"]}}"#
    )
}

/// One event: a state (of shutter `id`) or a command, with a code from [`values`], `delta` ms after the last.
#[derive(Debug, Clone)]
struct Step {
    state: bool,
    id: u8,
    code: usize,
    delta: i64,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = (any::<bool>(), 0..3u8, 0..values().len(), prop_oneof![Just(0i64), 1..2_000i64]);
    prop::collection::vec(step.prop_map(|(state, id, code, delta)| Step { state, id, code, delta }), 0..80)
}

/// A row's property `p`, null when missing.
fn get(r: &Row, p: &str) -> Val {
    r.get(p).cloned().unwrap_or_default()
}

/// What the model's view holds: `(arrival ms, row)` in arrival order.
fn insert(model: Model, view: &mut Vec<(i64, Row)>, now: i64, row: &Row) {
    match model {
        Model::Unique(p) => view.retain(|(_, r)| get(r, p).key() != get(row, p).key()),
        Model::Length { .. } | Model::Time(_) => {}
    }
    view.push((now, row.clone()));
    if let Model::Length { count, by } = model {
        let same = |r: &Row| by.is_none_or(|p| get(r, p).key() == get(row, p).key());
        while view.iter().filter(|(_, r)| same(r)).count() > count {
            let oldest = view.iter().position(|(_, r)| same(r)).expect("a row of the group");
            view.remove(oldest);
        }
    }
}

/// Commands' `(n, seen)` rows.
type Seen = Vec<(Val, Val)>;

/// The rows in view at `now` whose code equals `code`, in arrival order.
fn matching<'v>(model: Model, view: &'v [(i64, Row)], now: i64, code: &Val) -> Vec<&'v Row> {
    let alive = |at: i64| match model {
        Model::Time(d) => now < at + d,
        _ => true,
    };
    view.iter()
        .filter(|(at, r)| alive(*at) && r.get("code").is_some_and(|c| code.equals(c) == Some(true)))
        .map(|(_, r)| r)
        .collect()
}

/// The `(n, seen)` rows of a command of `code` at `now`: one per row in view whose code equals it, in arrival order or
/// by `seen` descending when `ordered`, else one null.
fn lookup(model: Model, (view, ordered): (&[(i64, Row)], bool), now: i64, n: i64, code: &Val) -> Seen {
    let mut seen: Vec<Val> = matching(model, view, now, code).into_iter().map(|r| get(r, "n")).collect();
    if ordered {
        // Every `seen` is an integer; a stable sort keeps arrival order among equal ones.
        seen.sort_by_key(|s| {
            std::cmp::Reverse(match s {
                Val::Int(n) => *n,
                other => panic!("an integer `seen`: {other:?}"),
            })
        });
    }
    if seen.is_empty() {
        return vec![(Val::Int(n), Val::Null)];
    }
    seen.into_iter().map(|s| (Val::Int(n), s)).collect()
}

/// An aggregating join statement over the views, and what it makes of a command's matching rows.
#[derive(Debug, Clone, Copy)]
enum Tally {
    /// With an ungrouped column, so one row per joined row that passes `WHERE`, each with the aggregates over all of
    /// them; a trigger none of whose rows pass makes none.
    PerRow,
    /// Grouped by the looked-up row's id: one row per group in order of first sight (by `n` descending when
    /// ordered), those of exactly three rows dropped by `HAVING`, and those whose last row's `n` is 1 modulo 4 (which
    /// only the last row decides: it is neither grouped nor aggregated).
    PerGroup { ordered: bool },
}

impl Tally {
    fn statement(self, view: &str, on: &str) -> String {
        let join = format!("FROM Cmd as c unidirectional LEFT OUTER JOIN State.{view} as S ON {on}");
        match self {
            Tally::PerRow => format!(
                "INSERT INTO Log SELECT c.n as n, count(S.n) as seen, max(S.n) as top {join} \
                 WHERE S is null OR S.n > 2"
            ),
            Tally::PerGroup { ordered } => format!(
                "INSERT INTO Log SELECT max(S.n) as n, count(*) as seen, S.id as top {join} GROUP BY S.id \
                 HAVING count(*) != 3 AND (S is null OR S.n % 4 != 1){}",
                if ordered { " ORDER BY n DESC" } else { "" }
            ),
        }
    }

    /// The `(n, seen, top)` rows of command `n` whose matching rows are `matched`.
    fn rows(self, n: i64, matched: &[&Row]) -> Vec<[Val; 3]> {
        let max = |rows: &[&Row]| rows.iter().map(|r| get(r, "n")).max_by_key(|v| v.as_f64().map(|x| x as i64));
        match self {
            Tally::PerRow if matched.is_empty() => vec![[Val::Int(n), Val::Int(0), Val::Null]],
            Tally::PerRow => {
                let passed: Vec<&Row> = matched.iter().copied().filter(|r| get(r, "n").as_f64() > Some(2.0)).collect();
                let top = max(&passed).unwrap_or_default();
                passed.iter().map(|_| [Val::Int(n), Val::Int(passed.len() as i64), top.clone()]).collect()
            }
            Tally::PerGroup { .. } if matched.is_empty() => vec![[Val::Null, Val::Int(1), Val::Null]],
            Tally::PerGroup { ordered } => {
                let mut ids: Vec<Val> = Vec::new();
                matched.iter().map(|r| get(r, "id")).for_each(|id| {
                    if !ids.contains(&id) {
                        ids.push(id)
                    }
                });
                let mut rows: Vec<[Val; 3]> = ids
                    .into_iter()
                    .map(|id| {
                        let group: Vec<&Row> = matched.iter().copied().filter(|r| get(r, "id") == id).collect();
                        let last = group.last().map(|r| get(r, "n"));
                        (last, [max(&group).unwrap_or_default(), Val::Int(group.len() as i64), id])
                    })
                    .filter(|(last, [_, count, _])| {
                        *count != Val::Int(3) && last.as_ref().and_then(Val::as_f64).is_none_or(|x| x as i64 % 4 != 1)
                    })
                    .map(|(_, row)| row)
                    .collect();
                if ordered {
                    rows.sort_by_key(|[n, ..]| std::cmp::Reverse(n.as_f64().map(|x| x as i64)));
                }
                rows
            }
        }
    }
}

/// The `(n, seen, top)` rows of `steps` through `tally`'s statement over view `text` (`ON` `on`, driven by a
/// pattern's matches when `matches`) and the rows its model gives.
fn run_tally(
    text: &str,
    (on, tally, matches): (&str, Tally, bool),
    model: Model,
    steps: &[Step],
) -> [Vec<[Val; 3]>; 2] {
    let config = with_statement(&tally.statement(text, on));
    let mut reference = engine(&if matches { pattern_driven(&config) } else { config });
    let (mut view, mut now, mut got, mut expected) = (Vec::new(), 0, Vec::new(), Vec::new());
    let values = values();
    for (n, step) in steps.iter().enumerate() {
        now += step.delta;
        let id = Val::String(format!("s{}", step.id).into());
        let code = values[step.code].clone();
        let row: Row = [("code", code.clone()), ("id", id), ("n", Val::Int(n as i64))].into_iter().collect();
        let stream = if step.state { "State" } else { "Cmd" };
        let out = reference.push(now, stream, row.clone());
        got.extend(out.iter().map(|o| [get(&o.row, "n"), get(&o.row, "seen"), get(&o.row, "top")]));
        match step.state {
            true => insert(model, &mut view, now, &row),
            false => expected.extend(tally.rows(n as i64, &matching(model, &view, now, &code))),
        }
    }
    [got, expected]
}

/// The join statement of [`config`] driven by the matches of `pattern [every c=Cmd]` instead of the commands.
pub(crate) fn pattern_driven(config: &str) -> String {
    let driven = config.replace("Cmd as c unidirectional", "pattern [every c=Cmd] as P unidirectional");
    driven.replace("c.n as n", "P.c.n as n").replace("c.code = S.code", "P.c.code = S.code")
}

/// The rows of `steps` through the join over view `text` (`ON` `on`, by `seen` descending when `ordered`, driven by
/// a pattern's matches when `matches`) and the rows its model gives.
fn run(text: &str, (on, ordered, matches): (&str, bool, bool), model: Model, steps: &[Step]) -> (Seen, Seen) {
    let order = if ordered { " ORDER BY seen DESC" } else { "" };
    let config = config(text, on, order);
    let mut reference = engine(&if matches { pattern_driven(&config) } else { config });
    let (mut view, mut now, mut got, mut expected) = (Vec::new(), 0, Vec::new(), Vec::new());
    let values = values();
    for (n, step) in steps.iter().enumerate() {
        now += step.delta;
        let n = n as i64;
        let id = Val::String(format!("s{}", step.id).into());
        let code = values[step.code].clone();
        let row: Row = [("code", code.clone()), ("id", id), ("n", Val::Int(n))].into_iter().collect();
        let stream = if step.state { "State" } else { "Cmd" };
        let out = reference.push(now, stream, row.clone());
        got.extend(out.iter().map(|o| (get(&o.row, "n"), get(&o.row, "seen"))));
        if step.state {
            insert(model, &mut view, now, &row);
        } else {
            expected.extend(lookup(model, (&view, ordered), now, n, &code));
        }
    }
    (got, expected)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_view_answers_a_lookup_as_its_model_does(steps in steps(), ordered in any::<bool>(), matches in any::<bool>()) {
        for ((text, model), on) in VIEWS.into_iter().flat_map(|v| ONS.map(|on| (v, on))) {
            let (got, expected) = run(text, (on, ordered, matches), model, &steps);
            prop_assert_eq!(got, expected, "{} ON {} ordered {} pattern-driven {}", text, on, ordered, matches);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn an_aggregating_join_aggregates_each_trigger_afresh_as_its_model_does(
        steps in steps(), ordered in any::<bool>(), matches in any::<bool>(),
    ) {
        let tallies = [Tally::PerRow, Tally::PerGroup { ordered }];
        for ((text, model), tally) in VIEWS.into_iter().flat_map(|v| tallies.map(|t| (v, t))) {
            for on in ONS {
                let [got, expected] = run_tally(text, (on, tally, matches), model, &steps);
                prop_assert_eq!(got, expected, "{} ON {} {:?} pattern-driven {}", text, on, tally, matches);
            }
        }
    }
}

#[test]
fn an_integer_finds_the_double_of_its_number_and_zero_finds_negative_zero() {
    let step = |state, code, delta| Step { state, id: 0, code, delta };
    // Values 0: Int(1), 1: Double(1.0), 2: 0.0, 3: -0.0, 5: NaN. State 0 is 1.0, state 2 is -0.0, state 5 is NaN.
    let steps =
        [step(true, 1, 0), step(false, 0, 1), step(true, 3, 1), step(false, 2, 1), step(true, 5, 1), step(false, 5, 1)];
    let (got, expected) = run("std:unique(code)", (ONS[0], false, false), Model::Unique("code"), &steps);
    assert_eq!(got, expected);
    let seen: Vec<Val> = got.into_iter().map(|(_, seen)| seen).collect();
    assert_eq!(seen, [Val::Int(0), Val::Int(2), Val::Null], "1 finds 1.0; 0.0 finds -0.0; NaN finds nothing");
}

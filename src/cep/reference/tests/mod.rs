//! Fixed traces through the reference evaluator: Esper's `ResultSetOutputLimitRowPerGroup` conformance trace
//! (cep-epl.md section 3) and the trace statements of every construct, the pattern instance example, and the seed
//! geofence configuration. This module holds the trace and the helpers that run it; the tables of statements and
//! their expected rows are in modules by construct, re-exported here for the dataflow's tests, which run the same
//! tables on one, two and four workers.

mod after;
mod aggregates;
mod aggregating_joins;
mod batches;
mod distinct;
mod esper_aggregates;
mod esper_exprs;
mod esper_merges;
mod esper_patterns;
mod esper_results;
mod esper_scripted;
mod esper_views;
mod having;
mod joins;
mod refusals;
mod removed;
mod seeds;
mod snapshots;

pub(crate) use self::after::*;
pub(crate) use self::aggregates::*;
pub(crate) use self::aggregating_joins::{GROUPED, after_events, grouped_events};
pub(crate) use self::batches::*;
pub(crate) use self::distinct::DISTINCT_CASES;
pub(crate) use self::esper_aggregates::{aggregate_cases, differing_cases};
pub(crate) use self::esper_exprs::{Case, expected_results, expr_cases, expr_config, expr_results};
pub(crate) use self::esper_merges::{
    MERGE_FLOW, UPDATE_ORDERS, merge_expected, merge_rows, update_order_config, update_order_expected,
    update_order_rows,
};
pub(crate) use self::esper_patterns::{ESPER_PATTERNS, expected_matches, patterns_config, set_matches};
pub(crate) use self::esper_scripted::{SCRIPTED, Scripted, scripted_config, scripted_rows};
pub(crate) use self::esper_views::{ViewCase, expected_view_results, view_cases, view_config, view_results};
pub(crate) use self::having::HAVING_ALONE;
pub(crate) use self::joins::written_elsewhere;
pub(crate) use self::refusals::*;
pub(crate) use self::removed::*;
pub(crate) use self::snapshots::*;

use super::Reference;
use crate::cep::config::CepConfig;
use crate::cep::explain::plan_config;
use crate::cep::runtime::{Engine, Output, Row, Val};

pub(super) fn engine(config: &str) -> Reference {
    let config: CepConfig = serde_json::from_str(config).expect("test configuration");
    Reference::new(&plan_config(&config, true).expect("plans"), 0).expect("runs")
}

fn text(v: &str) -> Val {
    Val::String(v.into())
}

fn row(props: &[(&str, Val)]) -> Row {
    props.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// The conformance trace's statement; the dataflow runtime's tests run it too.
pub(crate) const TRACE: &str = r#"{"host":"h","in":[{"id":"S.*","type":"S","isPattern":true,"attributes":[
    {"name":"symbol","type":"string"},{"name":"price","type":"double"}]}],
  "out":[{"id":"O","type":"Out","attributes":[{"name":"symbol","type":"string"},{"name":"total","type":"double"}]}],
  "statements":["INSERT INTO Out SELECT symbol, sum(price) as total FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT LAST EVERY 1 sec"]}"#;

/// The trace's `(ms, symbol, price)` events.
pub(crate) const TRACE_EVENTS: [(i64, &str, f64); 9] = [
    (200, "IBM", 25.0),
    (800, "MSFT", 9.0),
    (1500, "IBM", 24.0),
    (1500, "YAH", 1.0),
    (2100, "IBM", 26.0),
    (3500, "YAH", 2.0),
    (4300, "IBM", 22.0),
    (4900, "YAH", 3.0),
    (5900, "YAH", 1.0),
];

/// Esper's `(ms, symbol, total)` outputs for [`TRACE_EVENTS`] until 7.2 s.
pub(crate) fn trace_expected() -> Vec<(i64, String, Option<f64>)> {
    let s = |t: i64, sym: &str, v: Option<f64>| (t, sym.to_string(), v);
    vec![
        s(1200, "IBM", Some(25.0)),
        s(1200, "MSFT", Some(9.0)),
        s(2200, "IBM", Some(75.0)),
        s(2200, "YAH", Some(1.0)),
        s(4200, "YAH", Some(3.0)),
        s(5200, "IBM", Some(97.0)),
        s(5200, "YAH", Some(6.0)),
        s(6200, "IBM", Some(72.0)),
        s(6200, "YAH", Some(7.0)),
        s(7200, "IBM", Some(48.0)),
        s(7200, "MSFT", None),
        s(7200, "YAH", Some(6.0)),
    ]
}

/// Runs [`TRACE_EVENTS`] through `e` (running [`TRACE`]) and collects `(ms, symbol, total)` outputs until `until`,
/// ordered by time, then symbol (the outputs of one timestamp are a set).
pub(crate) fn run_trace(e: &mut dyn Engine, until: i64) -> Vec<(i64, String, Option<f64>)> {
    let mut out: Vec<Output> = Vec::new();
    for (ms, symbol, price) in TRACE_EVENTS {
        let event = row(&[
            ("id", Val::String("S1".into())),
            ("symbol", Val::String(symbol.into())),
            ("price", Val::Double(price)),
        ]);
        out.extend(e.push(ms, "S", event));
    }
    out.extend(e.advance(until));
    let text = |v: Option<&Val>| match v {
        Some(Val::String(s)) => s.to_string(),
        other => panic!("{other:?}"),
    };
    let mut rows: Vec<_> = out
        .into_iter()
        .map(|o| (o.time, text(o.row.get("symbol")), o.row.get("total").and_then(Val::as_f64)))
        .collect();
    rows.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    rows
}

/// A `(ms, symbol, price)` event fed after the trace's.
pub(crate) type TraceEvent = (i64, &'static str, f64);

/// An expected `(ms, symbol, value)` output of a statement over the trace.
pub(crate) type TraceRow = (i64, &'static str, Option<f64>);

/// The trace's configuration with `statement` in place of its own: it reads `S` and writes `Out`, whose columns are
/// `symbol` and `value`.
pub(crate) fn trace_config(statement: &str) -> String {
    let own = "INSERT INTO Out SELECT symbol, sum(price) as total FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT LAST \
        EVERY 1 sec";
    TRACE.replace(own, statement).replace(r#"{"name":"total""#, r#"{"name":"value""#)
}

/// The trace's events and then `later` ones through `e` (running a [`trace_config`]), until `until`: `(ms, symbol,
/// value)` in the order they came out.
pub(crate) fn trace_outputs(
    e: &mut dyn Engine,
    later: &[(i64, &str, f64)],
    until: i64,
) -> Vec<(i64, String, Option<f64>)> {
    outputs_of(e, TRACE_EVENTS.iter().chain(later), until)
}

/// `events` through `e` (running a [`trace_config`]), until `until`: `(ms, symbol, value)` in the order they came
/// out.
pub(crate) fn outputs_of<'e>(
    e: &mut dyn Engine,
    events: impl IntoIterator<Item = &'e (i64, &'e str, f64)>,
    until: i64,
) -> Vec<(i64, String, Option<f64>)> {
    let mut out: Vec<Output> = Vec::new();
    for (ms, symbol, price) in events {
        let event = row(&[("symbol", Val::String((*symbol).into())), ("price", Val::Double(*price))]);
        out.extend(e.push(*ms, "S", event));
    }
    out.extend(e.advance(until));
    out.into_iter().map(|o| (o.time, symbol(o.row.get("symbol")), o.row.get("value").and_then(Val::as_f64))).collect()
}

/// [`trace_outputs`] of the reference running `statement`, each timestamp's rows sorted (a set).
fn trace_through(statement: &str, later: &[(i64, &str, f64)], until: i64) -> Vec<(i64, String, Option<f64>)> {
    let mut rows = trace_outputs(&mut engine(&trace_config(statement)), later, until);
    rows.sort_by(|a, b| (a.0, &a.1, a.2.map(f64::to_bits)).cmp(&(b.0, &b.1, b.2.map(f64::to_bits))));
    rows
}

fn symbol(v: Option<&Val>) -> String {
    match v {
        Some(Val::String(s)) => s.to_string(),
        other => panic!("a symbol: {other:?}"),
    }
}

/// Each statement of `table` over the trace until `until` gives its rows.
fn assert_traces(table: &[(&str, &[TraceRow])], until: i64) {
    for (statement, rows) in table {
        assert_eq!(trace_through(statement, &[], until), out(rows), "{statement}");
    }
}

fn out(rows: &[(i64, &str, Option<f64>)]) -> Vec<(i64, String, Option<f64>)> {
    rows.iter().map(|(t, s, v)| (*t, s.to_string(), *v)).collect()
}

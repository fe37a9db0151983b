//! The dataflow against the reference evaluator: fixed traces and random event streams through both, with 1, 2 and
//! 4 workers, must give the same outputs per timestamp (as multisets; doubles equal to 9 significant digits, since
//! running sums and recomputed sums may differ in the last bits).

mod agreement;
mod configs;
mod ordering;
mod pool;
mod replacement;
mod traces;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;

use super::{Dataflow, InputEvent, PoolError, Program, Slot, Source, Workers};
use crate::cep::config::CepConfig;
use crate::cep::explain::plan_config;
use crate::cep::plan::Plan;
use crate::cep::reference::Reference;
use crate::cep::reference::lookup_tests::{config as lookup_config, pattern_driven};
use crate::cep::reference::tests::{
    AFTER, ALL_AND_FIRST, ALL_GROUPS, BATCH_PACED, COLUMN_EVERY, COLUMN_SNAPSHOTS, Case, DISTINCT_CASES, EMPTY_COUNTS,
    ESPER_PATTERNS, EVERY_GROUPS, FIRST_GROUPS, GROUPED, GROUPWIN_TOTALS, GROUPWIN_TRACES, HAVING_ALONE,
    ITERATED_SNAPSHOTS, MERGE_FLOW, ORDERED, ORDERED_MATCHES, OwnEventsCase, PACED, PACED_ORDERED, QUIET, REMOVED,
    REMOVED_AGGREGATES, REMOVED_PACED, REMOVED_POLICIES, ROW_SNAPSHOTS, SCRIPTED, SNAPSHOT, STARTED, Scripted, TRACE,
    TURNING, TURNING_LATER, TraceEvent, TraceRow, UPDATE_ORDERS, ViewCase, after_events, aggregate_cases,
    differing_cases, expected_matches, expected_results, expected_view_results, expr_cases, expr_config, expr_results,
    grouped_events, merge_expected, merge_rows, outputs_of, patterns_config, run_trace, scripted_config, scripted_rows,
    set_matches, snapshot_expected, trace_config, trace_expected, trace_outputs, update_order_config,
    update_order_expected, update_order_rows, view_cases, view_config, view_results, written_elsewhere,
};
use crate::cep::runtime::value::watched_shape;
use crate::cep::runtime::{Engine, Incoming, Output, Row, Val, spare};

/// One pool per worker count, shared by the tests.
fn pool(workers: usize) -> Arc<Workers> {
    static POOLS: OnceLock<Vec<(usize, Arc<Workers>)>> = OnceLock::new();
    let pools =
        POOLS.get_or_init(|| [1, 2, 4].iter().map(|n| (*n, Workers::start(*n).expect("workers start"))).collect());
    pools.iter().find(|(n, _)| *n == workers).expect("a pool of that size").1.clone()
}

fn plan(config: &str) -> Plan {
    let config: CepConfig = serde_json::from_str(config).expect("test configuration");
    plan_config(&config, true).expect("plans")
}

/// A step of a scripted run: events at a millisecond (one batch), or time moving on.
#[derive(Debug, Clone)]
enum Step {
    Push(i64, Vec<Incoming>),
    Advance(i64),
}

fn run(engine: &mut dyn Engine, steps: &[Step]) -> Vec<Output> {
    let mut out = Vec::new();
    for step in steps {
        match step {
            Step::Push(ms, events) => out.extend(engine.push_batch(*ms, events.clone())),
            Step::Advance(ms) => {
                while let Some(due) = engine.next_timer().filter(|t| t <= ms) {
                    out.extend(engine.advance(due));
                }
                out.extend(engine.advance(*ms));
            }
        }
    }
    out
}

/// As `run`, but the pushes between two advances go to the engine together, as the service's feeder sends what
/// queued up while the workers were busy.
fn run_pipelined(engine: &mut dyn Engine, steps: &[Step]) -> Vec<Output> {
    let mut out = Vec::new();
    let mut queued = Vec::new();
    for step in steps {
        match step {
            Step::Push(ms, events) => queued.push((*ms, events.clone())),
            Step::Advance(_) => {
                out.extend(engine.push_batches(std::mem::take(&mut queued)));
                out.extend(run(engine, std::slice::from_ref(step)));
            }
        }
    }
    out.extend(engine.push_batches(queued));
    out
}

/// As `run`, but each push is sent while up to two rounds before it may still run on the workers, and the rounds are
/// received later, as the service's feeder and the bench keep rounds in flight.
fn run_queued(dataflow: &mut Dataflow, steps: &[Step]) -> Vec<Output> {
    let mut out = Vec::new();
    for step in steps {
        match step {
            Step::Push(ms, events) => {
                dataflow.send(vec![(*ms, events.clone())]);
                while dataflow.in_flight() > 2 {
                    out.extend(dataflow.receive().into_iter().flatten());
                }
            }
            Step::Advance(_) => {
                out.extend(std::iter::from_fn(|| dataflow.receive()).flatten());
                out.extend(run(dataflow, std::slice::from_ref(step)));
            }
        }
    }
    out.extend(std::iter::from_fn(|| dataflow.receive()).flatten());
    out
}

fn canonical(v: &Val) -> String {
    match v {
        Val::Double(x) => format!("{x:.8e}"),
        other => format!("{other:?}"),
    }
}

/// Outputs by timestamp, each timestamp's rows sorted.
fn by_time(outputs: Vec<Output>) -> BTreeMap<i64, Vec<String>> {
    let mut map: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for o in outputs {
        let row: Vec<String> = o.row.iter().map(|(k, v)| format!("{k}={}", canonical(v))).collect();
        map.entry(o.time).or_default().push(format!("{} {}", o.stream, row.join(",")));
    }
    map.values_mut().for_each(|rows| rows.sort());
    map
}

/// Runs `steps` through the reference and the dataflow: on 1, 2 and 4 workers taking events on the configuration's
/// incoming types only, as the service runs it, each round waited for and then with rounds in flight; and on 2
/// workers taking them on every stream, with pushes pipelined.
fn compare(config: &str, steps: &[Step]) -> Result<(), TestCaseError> {
    let plan = plan(config);
    let expected = by_time(run(&mut Reference::new(&plan, 0).expect("reference runs"), steps));
    let parsed: CepConfig = serde_json::from_str(config).expect("test configuration");
    let incoming = Arc::new(Program::new(&plan).expect("checks").receiving(parsed.incoming_types()));
    for workers in [1, 2, 4] {
        let mut dataflow = Dataflow::install(pool(workers), incoming.clone(), 0);
        let got = by_time(run(&mut dataflow, steps));
        prop_assert_eq!(&got, &expected, "{} workers", workers);
        let mut queued = Dataflow::install(pool(workers), incoming.clone(), 0);
        prop_assert_eq!(&by_time(run_queued(&mut queued, steps)), &expected, "{} workers, rounds queued", workers);
    }
    let mut pipelined = Dataflow::new(pool(2), &plan, 0).expect("dataflow runs");
    prop_assert_eq!(&by_time(run_pipelined(&mut pipelined, steps)), &expected, "2 workers, batches pipelined");
    Ok(())
}

fn row(props: &[(&str, Val)]) -> Row {
    props.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// `config` with `statement` put first, so every statement of `config` keeps its text and changes its number.
fn with_first(config: &str, statement: &str) -> String {
    let mut value: serde_json::Value = serde_json::from_str(config).expect("test configuration");
    value["statements"].as_array_mut().expect("statements").insert(0, serde_json::json!(statement));
    value.to_string()
}

/// `config` with `statements` after its own.
fn with_last(config: &str, statements: &[&str]) -> String {
    let mut value: serde_json::Value = serde_json::from_str(config).expect("test configuration");
    value["statements"].as_array_mut().expect("statements").extend(statements.iter().map(|s| serde_json::json!(s)));
    value.to_string()
}

/// Runs `steps` on `config`, replacing it after step `at` by `config` with one more statement (whose rows are left
/// out): the kept statements' state moves to the new dataflow, so the outputs are the reference's for `config` alone.
/// The millisecond `steps` end at (0 for none).
fn reached(steps: &[Step]) -> i64 {
    steps.last().map_or(0, |step| match step {
        Step::Push(ms, _) | Step::Advance(ms) => *ms,
    })
}

fn compare_across_a_replacement(config: &str, extra: &str, steps: &[Step], at: usize) -> Result<(), TestCaseError> {
    compare_replaced(config, &with_first(config, extra), steps, at)
}

/// Runs `first` and replaces it by `second` after step `at`, against the reference running `first` throughout: the
/// two must mean the same but for the rows of `Extra`, which are not compared.
fn compare_replaced(first: &str, second: &str, steps: &[Step], at: usize) -> Result<(), TestCaseError> {
    let original = plan(first);
    let expected = by_time(run(&mut Reference::new(&original, 0).expect("reference runs"), steps));
    let program = Arc::new(Program::new(&plan(second)).expect("checks"));
    let at = at.min(steps.len());
    for workers in [1, 2, 4] {
        let mut first = Dataflow::new(pool(workers), &original, 0).expect("dataflow runs");
        let mut out = run(&mut first, &steps[..at]);
        // Replaced at the time the steps reached: a kept statement still counts `OUTPUT AFTER` from its creation.
        let mut second = first.replace(program.clone(), &[], reached(&steps[..at]));
        drop(first);
        out.extend(run(&mut second, &steps[at..]));
        out.retain(|o| o.stream != "Extra");
        prop_assert_eq!(&by_time(out), &expected, "{} workers, replaced after step {}", workers, at);
    }
    Ok(())
}

//! The window aggregations of `benches/window.rs` (differential `reduce`, differential `count` of (sum, count)
//! differences, the hand-written operator; compiled here from the bench's own files) against the engine on the floor
//! configuration: at every output tick, for two windows' worth of batches, each floor the engine reports has the same
//! average in all of them, and they agree on every floor's count (exactly) and sum (to 1e-9; running sums and
//! recomputed sums may differ in the last bits).

#[path = "../../benches/window/dd.rs"]
mod dd;
#[path = "../../benches/window/hand.rs"]
mod hand;
#[path = "../../benches/window/workload.rs"]
mod workload;

use std::collections::BTreeMap;

use fluxgate::bench::cep::seed_engine;
use fluxgate::bench::cep_workload::Scenario;
use fluxgate::cep::dataflow::Workers;
use fluxgate::cep::runtime::{Engine, Output, Val};

use dd::{DdWindow, Update};
use hand::{Change, HandWindow};
use workload::{Batches, START_MS, WINDOW_MS};

/// Per floor: (sum, count).
type Aggregates = BTreeMap<u32, (f64, i64)>;

/// What each side produced for the same batches.
struct Run {
    dd: Vec<Update>,
    diffs: Vec<Update>,
    hand: Vec<Change>,
    engine: Vec<Output>,
}

fn run(rooms: u32, size: u32) -> Run {
    timely::execute_directly(move |worker| {
        let mut engine = seed_engine(Scenario::Floor, Workers::start(1).expect("workers")).expect("installs");
        let (mut dd, mut diffs) = (DdWindow::reduce(worker), DdWindow::diffs(worker));
        let mut hand = HandWindow::new(worker);
        let mut batches = Batches::new(rooms, size);
        let mut out = Run { dd: Vec::new(), diffs: Vec::new(), hand: Vec::new(), engine: Vec::new() };
        for _ in 0..2 * batches.per_window() {
            let (at_ms, events) = batches.next_batch();
            out.dd.extend(dd.push(worker, at_ms, &events));
            out.diffs.extend(diffs.push(worker, at_ms, &events));
            out.hand.extend(hand.push(worker, at_ms, &events));
            let rows = events.iter().map(|e| (Scenario::Floor.stream().into(), batches.row(e))).collect();
            out.engine.extend(engine.push_batch(at_ms, rows));
        }
        dd.drop_from(worker);
        diffs.drop_from(worker);
        hand.drop_from(worker);
        out
    })
}

/// The epoch whose collection is the window an output tick at `ms` reads (see `benches/window/workload.rs`).
fn read_epoch(ms: i64) -> u64 {
    2 * ms as u64
}

/// Differential's collection at `epoch`: the updates up to it, accumulated.
fn dd_at(updates: &[Update], epoch: u64) -> Aggregates {
    let mut weights: BTreeMap<(u32, (dd::Temp, i64)), isize> = BTreeMap::new();
    for (record, _, diff) in updates.iter().filter(|(_, t, _)| *t <= epoch) {
        *weights.entry(*record).or_default() += diff;
    }
    let mut aggregates = Aggregates::new();
    for ((floor, (sum, count)), weight) in weights.into_iter().filter(|(_, w)| *w != 0) {
        assert_eq!(weight, 1, "floor {floor} holds one value at a time");
        aggregates.insert(floor, (sum.0, count));
    }
    aggregates
}

/// The hand-written operator's aggregates at `epoch`: the last change of each floor up to it.
fn hand_at(changes: &[Change], epoch: u64) -> Aggregates {
    let mut latest = Aggregates::new();
    for (_, floor, sum, count) in changes.iter().filter(|(t, ..)| *t <= epoch) {
        latest.insert(*floor, (*sum, *count));
    }
    latest.retain(|_, (_, count)| *count > 0);
    latest
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

/// The engine's tick rows by time: (floor, average).
fn ticks(outputs: &[Output]) -> BTreeMap<i64, Vec<(u32, f64)>> {
    let mut by_time: BTreeMap<i64, Vec<(u32, f64)>> = BTreeMap::new();
    for output in outputs {
        let (Some(Val::String(id)), Some(Val::Double(avg))) = (output.row.get("id"), output.row.get("temperature"))
        else {
            panic!("a floor row: {output:?}");
        };
        by_time.entry(output.time).or_default().push((id.parse().expect("a floor number"), *avg));
    }
    by_time
}

fn agree(dd: &Aggregates, hand: &Aggregates) -> bool {
    dd.len() == hand.len() && dd.iter().zip(hand).all(|((f, (s, n)), (g, (t, m)))| f == g && n == m && close(*s, *t))
}

#[test]
fn differential_and_the_hand_written_operator_give_the_engine_s_floor_averages_at_every_tick() {
    let run = run(300, 7);
    let ticks = ticks(&run.engine);
    assert!(ticks.keys().filter(|t| **t > START_MS + WINDOW_MS).count() > 50, "ticks after the first window");
    for (time, rows) in &ticks {
        let epoch = read_epoch(*time);
        let (dd, diffs, hand) = (dd_at(&run.dd, epoch), dd_at(&run.diffs, epoch), hand_at(&run.hand, epoch));
        assert!(agree(&dd, &hand), "at {time}: differential {dd:?}, hand-written {hand:?}");
        assert!(agree(&diffs, &hand), "at {time}: differences {diffs:?}, hand-written {hand:?}");
        for (floor, avg) in rows {
            let (sum, count) = dd.get(floor).copied().unwrap_or_else(|| panic!("floor {floor} at {time}"));
            assert!(
                close(*avg, sum / count as f64),
                "floor {floor} at {time}: engine {avg}, differential {sum}/{count}"
            );
        }
    }
}

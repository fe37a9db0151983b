//! The grouped sliding-window aggregation of `queries/floor-average.json` (`avg(temperature)` per floor over
//! `win:time(10 min)`, 100 floors, 10,000 rooms reporting once a minute, so 100,000 events in the window) four ways,
//! each on one timely worker, batch after batch, with the window filled before measuring:
//!
//! - `differential reduce`: differential-dataflow 0.26, each event inserted at its epoch and retracted at epoch +
//!   10 min (`update_at`), `reduce` per floor to (sum, count), changes collected by an inspect (`window/dd.rs`);
//! - `differential count of diffs`: the same, but the difference of each record `floor` carries (temperature, 1), so
//!   differential's `count` reads sum and count without recomputing them from the window (`window/dd.rs`);
//! - `hand-written operator`: the project's structure (expiry queue, running sum and count per floor, the next expiry
//!   held as a capability) as one timely operator on the same typed events (`window/hand.rs`);
//! - `engine`: the real `Dataflow` on the floor configuration (`fluxgate::bench::cep::seed_engine`, one worker
//!   thread), fed the rows ingest would build (built outside the timing): the aggregation plus everything else the
//!   statement does (dynamic rows, group keys, `OUTPUT LAST EVERY 10 sec`, a round trip to the worker per batch).
//!
//! One iteration is one batch (one epoch) of 10, 100 or 1,000 events; criterion reports events/s.
//! Run: `cargo bench --bench window -- --warm-up-time 1 --measurement-time 5`; results go to
//! `benches/results/window.md`. `tests/it/window.rs` checks that the four agree.

#[path = "window/dd.rs"]
mod dd;
#[path = "window/hand.rs"]
mod hand;
#[path = "support/one_worker.rs"]
mod one_worker;
#[path = "window/workload.rs"]
mod workload;

use criterion::{BatchSize, BenchmarkGroup, Criterion, Throughput, measurement::WallTime};
use fluxgate::bench::cep::seed_engine;
use fluxgate::bench::cep_workload::{Event, Scenario};
use fluxgate::cep::dataflow::Workers;
use fluxgate::cep::runtime::{Engine, Incoming};
use timely::worker::Worker;

use dd::DdWindow;
use hand::HandWindow;
use workload::Batches;

const ROOMS: u32 = 10_000;
const SIZES: [u32; 3] = [10, 100, 1_000];

/// Fills the window, then measures one batch per iteration.
fn measure<T>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    size: u32,
    mut prepare: impl FnMut(&Batches, Vec<Event>) -> T,
    mut push: impl FnMut(i64, T) -> usize,
) {
    let mut batches = Batches::new(ROOMS, size);
    for _ in 0..batches.per_window() {
        let (at_ms, events) = batches.next_batch();
        push(at_ms, prepare(&batches, events));
    }
    group.bench_function(name, |b| {
        b.iter_batched(
            || {
                let (at_ms, events) = batches.next_batch();
                (at_ms, prepare(&batches, events))
            },
            |(at_ms, input)| push(at_ms, input),
            BatchSize::SmallInput,
        )
    });
}

fn rows(batches: &Batches, events: Vec<Event>) -> Vec<Incoming> {
    events.iter().map(|e| (Scenario::Floor.stream().into(), batches.row(e))).collect()
}

fn bench_size(c: &mut Criterion, worker: &mut Worker, size: u32) {
    let mut group = c.benchmark_group(format!("window/{size} events per epoch"));
    group.throughput(Throughput::Elements(u64::from(size)));

    let mut dd = DdWindow::reduce(worker);
    measure(&mut group, "differential reduce", size, |_, e| e, |ms, e| dd.push(worker, ms, &e).len());
    dd.drop_from(worker);

    let mut dd = DdWindow::diffs(worker);
    measure(&mut group, "differential count of diffs", size, |_, e| e, |ms, e| dd.push(worker, ms, &e).len());
    dd.drop_from(worker);

    let mut hand = HandWindow::new(worker);
    measure(&mut group, "hand-written operator", size, |_, e| e, |ms, e| hand.push(worker, ms, &e).len());
    hand.drop_from(worker);

    let workers = Workers::start(1).expect("a timely worker starts");
    let mut engine = seed_engine(Scenario::Floor, workers).expect("the floor configuration installs");
    measure(&mut group, "engine", size, rows, |ms, rows| engine.push_batch(ms, rows).len());
    group.finish();
}

fn main() {
    one_worker::run(&SIZES, bench_size);
}

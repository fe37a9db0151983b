//! The lookup of the one-sided outer join (`Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON
//! c.shutter = S.id`: each command reads its shutter's last state) three ways, each on one timely worker, batch after
//! batch, after a first batch that gives all 10,000 shutters a state:
//!
//! - `differential upsert arrangement`: differential-dataflow 0.26, the last state per shutter arranged from upserts
//!   and the commands, a collection inserted at their epoch and retracted at the next, joined with it (`join/dd.rs`);
//! - `hand-written operator`: one timely operator with a hash map of the last state per shutter (`join/hand.rs`);
//! - `engine`: the statement on the real `Dataflow` (`join/engine.rs`), fed the rows ingest would build (built
//!   outside the timing): the join's view, its evaluation of `ON` and the select list, and a round trip to the worker
//!   per batch.
//!
//! One iteration is one batch (one epoch) of 10, 100 or 1,000 events, about half states and half commands; criterion
//! reports events/s. Run: `cargo bench --bench join -- --warm-up-time 1 --measurement-time 5`; results go to
//! `benches/results/join.md`. `tests/it/join_lookup.rs` checks each against a plain replay.

#[path = "join/dd.rs"]
mod dd;
#[path = "join/engine.rs"]
mod engine;
#[path = "join/hand.rs"]
mod hand;
#[path = "support/one_worker.rs"]
mod one_worker;
#[path = "join/workload.rs"]
mod workload;

use std::convert::identity;

use criterion::{BatchSize, BenchmarkGroup, Criterion, Throughput, measurement::WallTime};
use timely::worker::Worker;

use dd::DdJoin;
use engine::EngineJoin;
use hand::HandJoin;
use workload::{Batches, Event};

const SIZES: [u32; 3] = [10, 100, 1_000];

/// Gives every shutter a state, then measures one batch per iteration; `prepare` runs outside the timing.
fn measure<T>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    size: u32,
    prepare: impl Fn(Vec<Event>) -> T,
    mut push: impl FnMut(u64, T) -> usize,
) {
    let mut batches = Batches::new(size);
    let (epoch, states) = batches.first_states();
    push(epoch, prepare(states));
    group.bench_function(name, |b| {
        b.iter_batched(
            || {
                let (epoch, events) = batches.next_batch();
                (epoch, prepare(events))
            },
            |(epoch, input)| push(epoch, input),
            BatchSize::SmallInput,
        )
    });
}

fn bench_size(c: &mut Criterion, worker: &mut Worker, size: u32) {
    let mut group = c.benchmark_group(format!("join/{size} events per epoch"));
    group.throughput(Throughput::Elements(u64::from(size)));

    let mut dd = DdJoin::new(worker);
    measure(&mut group, "differential upsert arrangement", size, identity, |epoch, e| dd.push(worker, epoch, &e).len());
    dd.drop_from(worker);

    let mut hand = HandJoin::new(worker);
    measure(&mut group, "hand-written operator", size, identity, |epoch, e| hand.push(worker, epoch, &e).len());
    hand.drop_from(worker);

    let mut engine = EngineJoin::new();
    let rows = |e: Vec<Event>| EngineJoin::rows(&e);
    measure(&mut group, "engine", size, rows, |epoch, rows| engine.push(epoch, rows).len());
    group.finish();
}

fn main() {
    one_worker::run(&SIZES, bench_size);
}

//! The lookup of the one-sided outer join (`Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON
//! c.shutter = S.id`: each command reads its shutter's last state) two ways, each on one timely worker, batch after
//! batch, after a first batch that gives all 10,000 shutters a state:
//!
//! - `differential upsert arrangement`: differential-dataflow 0.26, the last state per shutter arranged from upserts
//!   and the commands, a collection inserted at their epoch and retracted at the next, joined with it (`join/dd.rs`);
//! - `hand-written operator`: one timely operator with a hash map of the last state per shutter (`join/hand.rs`; the
//!   project's join views are not indexed so yet: they read all their rows for each trigger).
//!
//! One iteration is one batch (one epoch) of 10, 100 or 1,000 events, about half states and half commands; criterion
//! reports events/s. Run: `cargo bench --bench join -- --warm-up-time 1 --measurement-time 5`; results go to
//! `benches/results/join.md`. `tests/it/join_lookup.rs` checks that the two agree.

#[path = "join/dd.rs"]
mod dd;
#[path = "join/hand.rs"]
mod hand;
#[path = "support/one_worker.rs"]
mod one_worker;
#[path = "join/workload.rs"]
mod workload;

use criterion::{BatchSize, BenchmarkGroup, Criterion, Throughput, measurement::WallTime};
use timely::worker::Worker;

use dd::DdJoin;
use hand::HandJoin;
use workload::{Batches, Event};

const SIZES: [u32; 3] = [10, 100, 1_000];

/// Gives every shutter a state, then measures one batch per iteration.
fn measure(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    size: u32,
    mut push: impl FnMut(u64, &[Event]) -> usize,
) {
    let mut batches = Batches::new(size);
    let (epoch, states) = batches.first_states();
    push(epoch, &states);
    group.bench_function(name, |b| {
        b.iter_batched(|| batches.next_batch(), |(epoch, events)| push(epoch, &events), BatchSize::SmallInput)
    });
}

fn bench_size(c: &mut Criterion, worker: &mut Worker, size: u32) {
    let mut group = c.benchmark_group(format!("join/{size} events per epoch"));
    group.throughput(Throughput::Elements(u64::from(size)));

    let mut dd = DdJoin::new(worker);
    measure(&mut group, "differential upsert arrangement", size, |epoch, e| dd.push(worker, epoch, e).len());
    dd.drop_from(worker);

    let mut hand = HandJoin::new(worker);
    measure(&mut group, "hand-written operator", size, |epoch, e| hand.push(worker, epoch, e).len());
    hand.drop_from(worker);
    group.finish();
}

fn main() {
    one_worker::run(&SIZES, bench_size);
}

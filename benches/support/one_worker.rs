//! The `main` of the criterion benches that run on one timely worker (`window`, `join`): one benchmark group per
//! batch size, all on the same worker.

use criterion::Criterion;
use timely::worker::Worker;

/// Runs `bench` for each of `sizes` on one timely worker, with criterion configured from the command line.
pub fn run(sizes: &'static [u32], bench: fn(&mut Criterion, &mut Worker, u32)) {
    timely::execute_directly(move |worker| {
        let mut criterion = Criterion::default().configure_from_args();
        for &size in sizes {
            bench(&mut criterion, worker, size);
        }
        criterion.final_summary();
    });
}

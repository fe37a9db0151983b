//! The window aggregation in differential dataflow: each event is inserted at its entry epoch and retracted at its
//! exit epoch (`update_at`, the temporal-filter idiom), in two forms:
//!
//! - [`DdWindow::reduce`]: records `(floor, temperature)`, and a `reduce` per floor that recomputes the floor's sum
//!   and count from the values in the window whenever the floor changes;
//! - [`DdWindow::diffs`]: records `floor` whose difference is `(temperature in units of 2^-49, 1)`, so the window's
//!   sum and count are the accumulated difference (exact integers), which `count` reads without visiting the
//!   floor's values.
//!
//! Both answer the changes of `(floor, (sum, count))`, collected by an inspect; the worker steps until a probe has
//! passed the batch.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::rc::Rc;

use differential_dataflow::Data;
use differential_dataflow::difference::Semigroup;
use differential_dataflow::input::InputSession;
use fluxgate::bench::cep_workload::Event;
use serde::{Deserialize, Serialize};
use timely::dataflow::operators::probe::Handle as Probe;
use timely::worker::Worker;

use super::workload::{Batches, entry_epoch, exit_epoch};

/// A temperature or a sum of them, totally ordered so that differential can sort it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Temp(pub f64);

impl PartialEq for Temp {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Temp {}

impl PartialOrd for Temp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Temp {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// One change of a floor's aggregates: `((floor, (sum, count)), epoch, diff)`.
pub type Update = ((u32, (Temp, i64)), u64, isize);

/// Temperatures are integers of this unit in [`DdWindow::diffs`]: every double in [8, 32) is one exactly.
const SCALE: f64 = (1u64 << 49) as f64;

/// A differential dataflow on one worker, fed records `D` with differences `R`.
pub struct DdWindow<D: Data, R: Semigroup + 'static> {
    input: InputSession<u64, D, R>,
    /// The record of an event, with its difference on entry and on exit.
    record: fn(&Event) -> (D, R, R),
    probe: Probe<u64>,
    changes: Sink,
    dataflow: usize,
}

impl DdWindow<(u32, Temp), isize> {
    /// `reduce` per floor over the temperatures in the window, built on `worker`.
    pub fn reduce(worker: &mut Worker) -> Self {
        let mut input = InputSession::new();
        let (changes, sink) = sink();
        let dataflow = worker.next_dataflow_index();
        let probe = worker.dataflow::<u64, _, _>(|scope| {
            input
                .to_collection(scope)
                .reduce(|_floor, temps, out| out.push((sum_count(temps), 1)))
                .inspect(move |update| sink.borrow_mut().push(*update))
                .probe()
                .0
        });
        let record = |e: &Event| ((Batches::floor(e), Temp(e.x)), 1, -1);
        DdWindow { input, record, probe, changes, dataflow }
    }
}

impl DdWindow<u32, (i128, i64)> {
    /// `count` per floor of differences that carry (sum, count), built on `worker`.
    pub fn diffs(worker: &mut Worker) -> Self {
        let mut input = InputSession::new();
        let (changes, sink) = sink();
        let dataflow = worker.next_dataflow_index();
        let probe = worker.dataflow::<u64, _, _>(|scope| {
            input
                .to_collection(scope)
                .count_core::<isize>()
                .map(|(floor, (sum, count))| (floor, (Temp(sum as f64 / SCALE), count)))
                .inspect(move |update| sink.borrow_mut().push(*update))
                .probe()
                .0
        });
        let record = |e: &Event| {
            let units = (e.x * SCALE).round() as i128;
            (Batches::floor(e), (units, 1), (-units, -1))
        };
        DdWindow { input, record, probe, changes, dataflow }
    }
}

impl<D: Data, R: Semigroup + 'static> DdWindow<D, R> {
    /// Feeds one batch of millisecond `at_ms`, steps until it is processed, and answers the changes it caused
    /// (including those of the retractions due since the previous batch).
    pub fn push(&mut self, worker: &mut Worker, at_ms: i64, events: &[Event]) -> Vec<Update> {
        let epoch = entry_epoch(at_ms);
        self.input.advance_to(epoch);
        for event in events {
            let (record, enter, exit) = (self.record)(event);
            self.input.update_at(record.clone(), exit_epoch(at_ms), exit);
            self.input.update(record, enter);
        }
        self.input.advance_to(epoch + 1);
        self.input.flush();
        worker.step_while(|| self.probe.less_than(&(epoch + 1)));
        std::mem::take(&mut *self.changes.borrow_mut())
    }

    /// Removes the dataflow from `worker`, so that its pending retractions cost the next measurement nothing.
    pub fn drop_from(self, worker: &mut Worker) {
        worker.drop_dataflow(self.dataflow);
    }
}

/// The changes the inspect collects.
type Sink = Rc<RefCell<Vec<Update>>>;

/// Two handles on one sink: one the window keeps, one moved into the inspect.
fn sink() -> (Sink, Sink) {
    let changes = Sink::default();
    (changes.clone(), changes)
}

/// The sum and count of a floor's values (each with its multiplicity).
fn sum_count(temps: &[(&Temp, isize)]) -> (Temp, i64) {
    let (sum, count) = temps.iter().fold((0.0, 0), |(s, c), (t, n)| (s + t.0 * *n as f64, c + *n as i64));
    (Temp(sum), count)
}

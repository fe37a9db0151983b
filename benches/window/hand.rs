//! The window aggregation as the project writes it (`src/cep/dataflow/query.rs` and `aggregate.rs`, in the stateful
//! operator of `operator.rs`), on typed events: one timely operator that stashes each epoch's events until the
//! frontier passes it, keeps the window as a queue of expiries in arrival order with a running sum and count per
//! floor (restarting from exact zero when a floor empties), and holds one capability at the earliest expiry, so
//! expiries are timers. After each epoch it emits the new `(sum, count)` of every floor that changed.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use fluxgate::bench::cep_workload::Event;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::probe::Handle as Probe;
use timely::dataflow::operators::{Capability, Input, Inspect, Probe as _};
use timely::dataflow::{InputHandle, Stream};
use timely::worker::Worker;

use super::workload::{Batches, FLOORS, entry_epoch, exit_epoch};

/// The new aggregates of a floor after an epoch: `(epoch, floor, sum, count)`.
pub type Change = (u64, u32, f64, i64);

/// What enters the operator: `(exit epoch, floor, temperature)`.
type Entry = (u64, u32, f64);

/// The window and its aggregates.
struct State {
    expiries: VecDeque<Entry>,
    sums: Vec<(f64, i64)>,
    changed: Vec<bool>,
}

impl State {
    fn new() -> Self {
        let floors = FLOORS as usize;
        State { expiries: VecDeque::new(), sums: vec![(0.0, 0); floors], changed: vec![false; floors] }
    }

    fn next_expiry(&self) -> Option<u64> {
        self.expiries.front().map(|(at, _, _)| *at)
    }

    fn expire(&mut self, epoch: u64) {
        while let Some(&(_, floor, t)) = self.expiries.front().filter(|(at, _, _)| *at <= epoch) {
            self.expiries.pop_front();
            let sum = &mut self.sums[floor as usize];
            *sum = if sum.1 == 1 { (0.0, 0) } else { (sum.0 - t, sum.1 - 1) };
            self.changed[floor as usize] = true;
        }
    }

    fn enter(&mut self, entries: Vec<Entry>) {
        for entry @ (_, floor, t) in entries {
            let sum = &mut self.sums[floor as usize];
            *sum = (sum.0 + t, sum.1 + 1);
            self.changed[floor as usize] = true;
            self.expiries.push_back(entry);
        }
    }

    /// Fires the expiries due at `epoch`, adds its events, and answers the floors that changed.
    fn run(&mut self, epoch: u64, entries: Vec<Entry>) -> Vec<Change> {
        self.expire(epoch);
        self.enter(entries);
        let mut out = Vec::new();
        for (floor, changed) in self.changed.iter_mut().enumerate().filter(|(_, c)| **c) {
            *changed = false;
            let (sum, count) = self.sums[floor];
            out.push((epoch, floor as u32, sum, count));
        }
        out
    }
}

/// The operator: the project's stateful operator specialised to the window.
fn window<'s>(input: Stream<'s, u64, Vec<Entry>>) -> Stream<'s, u64, Vec<Change>> {
    input.unary_frontier::<CapacityContainerBuilder<Vec<Change>>, _, _, _>(Pipeline, "Window", |initial, _| {
        drop(initial);
        let mut state = State::new();
        let mut stash: BTreeMap<u64, (Capability<u64>, Vec<Entry>)> = BTreeMap::new();
        let mut timer: Option<Capability<u64>> = None;
        move |(input, frontier), output| {
            input.for_each(|cap, data| {
                if let Some(held) = cap.retain_least(0) {
                    stash.entry(*held.time()).or_insert_with(|| (held, Vec::new())).1.append(data);
                }
            });
            while let Some(epoch) = next_epoch(&stash, &state).filter(|e| !frontier.less_equal(e)) {
                let (cap, entries) = stash.remove(&epoch).unwrap_or_else(|| {
                    (timer.as_ref().expect("an expiry is due, so its capability is held").delayed(&epoch), Vec::new())
                });
                let mut changes = state.run(epoch, entries);
                timer = state.next_expiry().map(|due| cap.delayed(&due.max(epoch)));
                if !changes.is_empty() {
                    output.session(&cap).give_container(&mut changes);
                }
            }
        }
    })
}

fn next_epoch(stash: &BTreeMap<u64, (Capability<u64>, Vec<Entry>)>, state: &State) -> Option<u64> {
    match (stash.keys().next().copied(), state.next_expiry()) {
        (Some(d), Some(t)) => Some(d.min(t)),
        (d, t) => d.or(t),
    }
}

/// The hand-written dataflow on one worker.
pub struct HandWindow {
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Entry>>>,
    probe: Probe<u64>,
    changes: Rc<RefCell<Vec<Change>>>,
    dataflow: usize,
}

impl HandWindow {
    /// Builds the dataflow on `worker`.
    pub fn new(worker: &mut Worker) -> Self {
        let changes = Rc::new(RefCell::new(Vec::new()));
        let sink = changes.clone();
        let dataflow = worker.next_dataflow_index();
        let (input, probe) = worker.dataflow::<u64, _, _>(|scope| {
            let (input, stream) = scope.new_input::<Vec<Entry>>();
            let probe = window(stream).inspect(move |change| sink.borrow_mut().push(*change)).probe().0;
            (input, probe)
        });
        HandWindow { input, probe, changes, dataflow }
    }

    /// Feeds one batch of millisecond `at_ms`, steps until it is processed, and answers the changes it caused
    /// (including those of the expiries due since the previous batch).
    pub fn push(&mut self, worker: &mut Worker, at_ms: i64, events: &[Event]) -> Vec<Change> {
        let epoch = entry_epoch(at_ms);
        self.input.advance_to(epoch);
        for event in events {
            self.input.send((exit_epoch(at_ms), Batches::floor(event), event.x));
        }
        self.input.advance_to(epoch + 1);
        worker.step_while(|| self.probe.less_than(&(epoch + 1)));
        std::mem::take(&mut *self.changes.borrow_mut())
    }

    /// Removes the dataflow from `worker`.
    pub fn drop_from(self, worker: &mut Worker) {
        worker.drop_dataflow(self.dataflow);
    }
}

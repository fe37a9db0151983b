//! The one timely operator every stateful statement runs in: it stashes what arrives by epoch, and once the input
//! frontier has passed an epoch it fires the statement's timers due then and hands it the epoch's records in stamp
//! order. A statement's behaviour is a [`Logic`]; timers are the logic's own (it says when the next one is due), and
//! the operator holds one capability at that time, so the dataflow's frontier cannot pass a timer before it fired and
//! nothing is held once the logic has no timer left.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

use timely::dataflow::Stream;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::Capability;
use timely::dataflow::operators::generic::Operator;

use super::record::{Record, Stamp};

/// Records a statement sends downstream while it handles an epoch.
#[derive(Debug, Default)]
pub struct Emit {
    records: Vec<Record>,
}

impl Emit {
    pub fn event(&mut self, stamp: Stamp, stream: u32, row: crate::cep::runtime::Row) {
        self.records.push(Record::Event { stamp, stream, row });
    }

    pub fn matched(&mut self, stamp: Stamp, stream: u32, n: usize, bindings: Vec<(String, crate::cep::runtime::Row)>) {
        self.records.push(Record::Match { stamp, stream, n: n as u32, bindings });
    }

    pub fn take(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.records)
    }
}

/// A stateful statement.
pub trait Logic: 'static {
    /// Puts the records of one epoch in the order they are handled in.
    fn sort(&self, records: &mut [Record]) {
        records.sort_by(Record::order);
    }
    /// Handles one record of epoch `epoch`, in the order of [`Logic::sort`].
    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record);
    /// The epoch of the earliest pending timer.
    fn next_timer(&self) -> Option<u64>;
    /// Fires every timer due at `epoch` (earlier ones have fired). Timers it sets are due after `epoch`.
    fn fire(&mut self, emit: &mut Emit, epoch: u64);
    /// Drops all state and timers: the dataflow is being removed.
    fn stop(&mut self);
}

/// Where an operator publishes its next timer and hears that its dataflow is stopping.
#[derive(Debug, Clone, Default)]
pub struct Control {
    pub next_timer: Rc<Cell<Option<u64>>>,
    pub stopping: Rc<Cell<bool>>,
}

/// Runs `logic` over `input` (already exchanged as the statement's partitioning requires).
pub fn stateful<'s, L: Logic>(
    input: Stream<'s, u64, Vec<Record>>,
    name: &str,
    control: Control,
    mut logic: L,
) -> Stream<'s, u64, Vec<Record>> {
    input.unary_frontier(Pipeline, name, move |initial, _info| {
        drop(initial);
        let mut stash: BTreeMap<u64, (Capability<u64>, Vec<Record>)> = BTreeMap::new();
        let mut timer: Option<Capability<u64>> = None;
        move |(input, frontier), output| {
            input.for_each(|cap, data| {
                if let Some(held) = cap.retain_least(0) {
                    let time = *held.time();
                    stash.entry(time).or_insert_with(|| (held, Vec::new())).1.append(data);
                }
            });
            if control.stopping.get() {
                logic.stop();
                stash.clear();
                timer = None;
                control.next_timer.set(None);
                return;
            }
            while let Some(epoch) = next_epoch(&stash, &logic) {
                if frontier.less_equal(&epoch) {
                    break;
                }
                let (cap, records) = match stash.remove(&epoch) {
                    Some(entry) => entry,
                    None => {
                        (timer.as_ref().expect("a timer is due, so its capability is held").delayed(&epoch), Vec::new())
                    }
                };
                let mut emit = Emit::default();
                run_epoch(&mut logic, &mut emit, epoch, records);
                timer = logic.next_timer().map(|due| cap.delayed(&due.max(epoch)));
                if !emit.records.is_empty() {
                    output.session(&cap).give_container(&mut emit.records);
                }
            }
            control.next_timer.set(logic.next_timer());
        }
    })
}

fn next_epoch<L: Logic>(stash: &BTreeMap<u64, (Capability<u64>, Vec<Record>)>, logic: &L) -> Option<u64> {
    let data = stash.keys().next().copied();
    match (data, logic.next_timer()) {
        (Some(d), Some(t)) => Some(d.min(t)),
        (d, t) => d.or(t),
    }
}

fn run_epoch<L: Logic>(logic: &mut L, emit: &mut Emit, epoch: u64, mut records: Vec<Record>) {
    if logic.next_timer().is_some_and(|due| due <= epoch) {
        logic.fire(emit, epoch);
    }
    logic.sort(&mut records);
    for record in records {
        logic.record(emit, epoch, record);
    }
}

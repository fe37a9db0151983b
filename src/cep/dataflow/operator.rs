//! The one timely operator every stateful statement runs in: it stashes what arrives by epoch, and once the input
//! frontier has passed an epoch it fires the statement's timers due then and hands it the epoch's records in stamp
//! order. A statement's behaviour is a [`Logic`]; timers are the logic's own (it says when the next one is due), and
//! the operator holds one capability at that time, so the dataflow's frontier cannot pass a timer before it fired and
//! nothing is held once the logic has no timer left.
//!
//! A statement's state can move from a dataflow that is being replaced to the same statement in its replacement
//! ([`Control::export`], [`Control::adopt`]): the worker does it between rounds, when no operator runs, and the
//! replacement's operator turns its initial capability into the capability of the adopted timers on its first run.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use timely::dataflow::Stream;
use timely::dataflow::channels::pact::ParallelizationContract;
use timely::dataflow::operators::Capability;
use timely::dataflow::operators::generic::Operator;

use super::record::{Record, Stamp};
use super::watch::Mirror;

/// Records a statement sends downstream while it handles an epoch.
#[derive(Debug, Default)]
pub struct Emit {
    records: Vec<Record>,
}

impl Emit {
    pub fn event(&mut self, stamp: Stamp, stream: u32, row: crate::cep::runtime::Row) {
        self.records.push(Record::Event { stamp, stream, row });
    }

    pub fn matched(&mut self, stamp: Stamp, stream: u32, n: usize, bindings: crate::cep::reference::pattern::Bindings) {
        self.records.push(Record::Match { stamp, stream, n: n as u32, bindings: Box::new(bindings) });
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
    /// The epoch's timers and records are handled: a statement that kept rows for the worker's reaper hands them over.
    fn epoch_done(&mut self) {}
    /// The epoch of the earliest pending timer.
    fn next_timer(&self) -> Option<u64>;
    /// Fires every timer due at `epoch` (earlier ones have fired). Timers it sets are due after `epoch`.
    fn fire(&mut self, emit: &mut Emit, epoch: u64);
    /// Drops all state and timers: the dataflow is being removed.
    fn stop(&mut self);
    /// Takes the statement's state out (its windows, groups, pattern instances and their timers), for the same
    /// statement in the dataflow replacing this one; `None` when it keeps nothing worth carrying.
    fn export(&mut self) -> Option<State> {
        None
    }
    /// Takes over the state the same statement exported from the dataflow this one replaces.
    fn adopt(&mut self, _state: State) {}
}

/// A statement's state on its way from a replaced dataflow to its replacement (on the same worker).
pub type State = Box<dyn Any>;

/// The logic of a running operator, reachable from its worker between rounds.
trait Carry {
    fn export(&self) -> Option<State>;
    /// Adopts `state`; answers the epoch of the earliest adopted timer.
    fn adopt(&self, state: State) -> Option<u64>;
}

impl<L: Logic> Carry for RefCell<L> {
    fn export(&self) -> Option<State> {
        self.borrow_mut().export()
    }

    fn adopt(&self, state: State) -> Option<u64> {
        let mut logic = self.borrow_mut();
        logic.adopt(state);
        logic.next_timer()
    }
}

/// Where an operator publishes its next timer and hears that its dataflow is stopping; it also names the statement
/// the operator runs and reaches its logic, so its state can be carried into a replacing dataflow.
#[derive(Clone, Default)]
pub struct Control {
    /// The statement (its number in the configuration) whose state the operator holds.
    pub statement: usize,
    pub next_timer: Rc<Cell<Option<u64>>>,
    pub stopping: Rc<Cell<bool>>,
    logic: Rc<RefCell<Option<Rc<dyn Carry>>>>,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control").field("statement", &self.statement).finish_non_exhaustive()
    }
}

impl Control {
    pub fn new(statement: usize) -> Self {
        Control { statement, ..Control::default() }
    }

    /// Takes the operator's state out; only between rounds, when no operator runs.
    pub fn export(&self) -> Option<State> {
        self.logic.borrow().as_ref().and_then(|logic| logic.export())
    }

    /// Hands the operator a carried state; only before the operator's first run.
    pub fn adopt(&self, state: State) {
        if let Some(logic) = self.logic.borrow().as_ref() {
            self.next_timer.set(logic.adopt(state));
        }
    }
}

/// Where the rows of a statement that nothing reads end, in the statement's own operator: `take` has them, and
/// `mirror` publishes the operator's output frontier to the dataflow's watch, as an operator ending its edge would.
pub struct Ending {
    pub mirror: Mirror,
    pub take: Take,
}

/// What has the records an operator ends, with their epoch.
pub type Take = Box<dyn FnMut(u64, &mut Vec<Record>)>;

/// Runs `logic` over `input`, which reaches it through `pact`: the exchange the statement's partitioning requires,
/// taken by this operator's input rather than by an operator of its own (each operator costs every epoch). With an
/// `ending`, its rows end here instead of going downstream.
pub fn stateful<'s, L: Logic, P: ParallelizationContract<u64, Vec<Record>>>(
    input: Stream<'s, u64, Vec<Record>>,
    pact: P,
    name: &str,
    (control, mut ending): (Control, Option<Ending>),
    logic: L,
) -> Stream<'s, u64, Vec<Record>> {
    let shared = Rc::new(RefCell::new(logic));
    *control.logic.borrow_mut() = Some(shared.clone());
    input.unary_frontier(pact, name, move |initial, _info| {
        // Kept until the first run, which turns it into the capability of adopted timers (or drops it).
        let mut initial = Some(initial);
        let mut stash: BTreeMap<u64, (Capability<u64>, Vec<Vec<Record>>)> = BTreeMap::new();
        let mut timer: Option<Capability<u64>> = None;
        move |(input, frontier), output| {
            let mut logic = shared.borrow_mut();
            if let Some(initial) = initial.take() {
                timer = logic.next_timer().map(|due| initial.delayed(&due));
            }
            input.for_each(|cap, data| {
                if let Some(held) = cap.retain_least(0) {
                    let time = *held.time();
                    stash.entry(time).or_insert_with(|| (held, Vec::new())).1.push(std::mem::take(data));
                }
            });
            if control.stopping.get() {
                logic.stop();
                stash.clear();
                timer = None;
                control.next_timer.set(None);
                if let Some(ending) = &mut ending {
                    ending.mirror.publish(frontier.frontier().to_owned());
                }
                return;
            }
            while let Some(epoch) = next_epoch(&stash, &*logic) {
                if frontier.less_equal(&epoch) {
                    break;
                }
                let (cap, records) = match stash.remove(&epoch) {
                    Some((cap, chunks)) => (cap, concat(chunks)),
                    None => {
                        (timer.as_ref().expect("a timer is due, so its capability is held").delayed(&epoch), Vec::new())
                    }
                };
                let mut emit = Emit::default();
                run_epoch(&mut *logic, &mut emit, epoch, records);
                // A timer capability already at the due epoch is kept: replacing it by an equal one would still cost
                // timely two progress updates (a drop and a new hold) for every epoch.
                let due = logic.next_timer().map(|due| due.max(epoch));
                if timer.as_ref().map(|held| *held.time()) != due {
                    timer = due.map(|due| cap.delayed(&due));
                }
                match &mut ending {
                    Some(ending) => (ending.take)(epoch, &mut emit.records),
                    None if !emit.records.is_empty() => output.session(&cap).give_container(&mut emit.records),
                    None => {}
                }
            }
            control.next_timer.set(logic.next_timer());
            if let Some(ending) = &mut ending {
                // What it may still send: records at its input's frontier or later, and its stash and timer.
                let pending = [stash.keys().next().copied(), timer.as_ref().map(|held| *held.time())];
                let least = frontier.frontier().iter().copied().chain(pending.into_iter().flatten()).min();
                ending.mirror.publish(least.into_iter().collect());
            }
        }
    })
}

/// The records of an epoch in one vector, each moved once: the containers are kept as they arrived, since appending
/// them to one growing vector copied the records again at every doubling (a tenth of the floor bench's work).
fn concat(mut chunks: Vec<Vec<Record>>) -> Vec<Record> {
    if chunks.len() == 1 {
        return chunks.pop().unwrap_or_default();
    }
    let mut all = Vec::with_capacity(chunks.iter().map(Vec::len).sum());
    for mut chunk in chunks {
        all.append(&mut chunk);
    }
    all
}

fn next_epoch<L: Logic>(stash: &BTreeMap<u64, (Capability<u64>, Vec<Vec<Record>>)>, logic: &L) -> Option<u64> {
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
    logic.epoch_done();
}

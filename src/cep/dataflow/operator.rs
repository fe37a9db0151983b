//! The one timely operator every stateful statement runs in: it stashes what arrives by epoch, and once the input
//! frontier has passed an epoch it fires the statement's timers due then and hands it the epoch's records in stamp
//! order. A statement's behaviour is a [`Logic`]; timers are the logic's own (it says when the next one is due), and
//! the operator holds one capability at that time, so the dataflow's frontier cannot pass a timer before it fired and
//! nothing is held once the logic has no timer left. The records are handled in groups, and the logic is shown each
//! event three times before its turn ([`Logic::seek`], [`Logic::find`], [`Logic::load`]), so that it can ask memory
//! for its state while others are handled; the operator asks for the events' rows the same way, a group before the
//! logic's first look.
//!
//! A statement's state can move from a dataflow that is being replaced to the same statement in its replacement
//! ([`Control::export`], [`Control::adopt`]): the worker does it between rounds, when no operator runs, and the
//! replacement's operator sends what the adopted state opens with ([`Logic::opening`]) at its initial capability and
//! turns that capability into the capability of the adopted timers on its first run.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;
use std::rc::Rc;

use timely::dataflow::Stream;
use timely::dataflow::channels::pact::ParallelizationContract;
use timely::dataflow::operators::Capability;
use timely::dataflow::operators::generic::Operator;

use super::record::{Record, Stamp};
use super::watch::Mirror;
use crate::cep::runtime::Row;
use crate::cep::runtime::props::Props;

/// Records a statement sends downstream while it handles an epoch.
#[derive(Debug, Default)]
pub struct Emit {
    records: Vec<Record>,
}

impl Emit {
    pub fn event(&mut self, stamp: Stamp, stream: u32, row: Row) {
        self.records.push(Record::Event { stamp, stream, row });
    }

    pub fn matched(&mut self, stamp: Stamp, stream: u32, n: usize, bindings: crate::cep::reference::pattern::Bindings) {
        self.records.push(Record::Match { stamp, stream, n: n as u32, bindings: Box::new(bindings) });
    }

    /// Where the next record goes: what [`Emit::truncate`] drops the records after.
    pub fn mark(&self) -> usize {
        self.records.len()
    }

    /// Drops the records after the first `len`.
    pub fn truncate(&mut self, len: usize) {
        self.records.truncate(len);
    }

    /// Takes the records after the first `len`.
    pub fn split_off(&mut self, len: usize) -> Vec<Record> {
        self.records.split_off(len)
    }

    /// Keeps, of the records after the first `len`, those `keep` accepts, in their order.
    pub fn retain_after(&mut self, len: usize, mut keep: impl FnMut(&Record) -> bool) {
        let taken = self.records.split_off(len);
        self.records.extend(taken.into_iter().filter(|record| keep(record)));
    }
}

/// What a statement found for an event before its turn, handed back with the event's later calls: the pattern's,
/// the hash of the event's key ([`Logic::seek`]), then the slot of the key's automaton ([`Logic::find`]). Only a
/// hint: the statement checks it before it relies on it.
pub type Hint = Option<usize>;

/// Records a group holds. Records are handled in groups, and before a group the logic is asked to seek and find the
/// state of the events of later groups and to load the state it found for the next one, each in a loop of its own,
/// so that the cache misses of a group's lookups overlap rather than stall the worker one at a time. One worker of
/// `bench geofence` at 2,000 events an epoch ran 10–20 % more events a second with groups of 8, 16 or 32 than without
/// (the three within the machine's noise of each other); a smaller group leaves fewer of a small epoch's first
/// records without a lead (`benches/results/cep.md`, thirty-sixth session).
const GROUP: usize = 16;

/// A stateful statement.
pub trait Logic: 'static {
    /// Whether it seeks, finds and loads state ahead ([`Logic::seek`], [`Logic::find`], [`Logic::load`]); the
    /// others' records are handled
    /// one after the other, without the groups' bookkeeping (6.7 % of the floor bench's worker instructions).
    const AHEAD: bool = false;
    /// Puts the records of one epoch in the order they are handled in.
    fn sort(&self, records: &mut [Record]) {
        if !Record::in_arrival_order(records) {
            records.sort_by(Record::order);
        }
    }
    /// Epoch `epoch` is about to be handled: its timers, its records, then [`Logic::records_done`]. A statement
    /// reading the engine's time (`current_timestamp()`) takes it here, once an epoch rather than at every record.
    fn begin(&mut self, _epoch: u64) {}
    /// Handles one record of epoch `epoch`, in the order of [`Logic::sort`].
    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record);
    /// Handles one record, with what [`Logic::find`] found for it.
    fn hinted(&mut self, emit: &mut Emit, epoch: u64, record: Record, _hint: Hint) {
        self.record(emit, epoch, record);
    }
    /// The event `row` of stream `stream` will be handled three groups of records from now: the statement may start
    /// loading what looking up its state reads.
    fn seek(&mut self, _stream: u32, _row: &Row) -> Hint {
        None
    }
    /// The event `row`, for which [`Logic::seek`] answered `sought`, will be handled two groups from now: the
    /// statement may look up the state it will read for it and start loading it.
    fn find(&mut self, _stream: u32, _row: &Row, _sought: Hint) -> Hint {
        None
    }
    /// The event `row`, for which [`Logic::find`] found `hint`, will be handled a group from now: the statement may
    /// start loading what that state points to, loaded itself by now.
    fn load(&self, _stream: u32, _row: &Row, _hint: Hint) {}
    /// Records it sends before any other, at the first epoch of the dataflow it runs in: a named window kept from
    /// the dataflow this one replaces sends the rows it holds to the joins that start looking it up here.
    fn opening(&mut self, _emit: &mut Emit) {}
    /// The epoch's records are handled: timers that go after them fire now (a join member's output tick, which the
    /// member fires among its records in stamp order, after the rows of the timers that fired before it).
    fn records_done(&mut self, _emit: &mut Emit, _epoch: u64) {}
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
    /// Takes out the state of statement `statement` alone, in an operator that runs several (a join group).
    fn export_member(&mut self, _statement: usize) -> Option<State> {
        None
    }
    /// Takes over the state statement `statement` exported, in an operator that runs several.
    fn adopt_member(&mut self, _statement: usize, _state: State) {}
}

/// A statement's state on its way from a replaced dataflow to its replacement (on the same worker).
pub type State = Box<dyn Any>;

/// The logic of a running operator, reachable from its worker between rounds: the whole operator's state, or one
/// member's (`Some` statement) in an operator that runs several.
trait Carry {
    fn export(&self, member: Option<usize>) -> Option<State>;
    /// Adopts `state`; answers the epoch of the earliest adopted timer.
    fn adopt(&self, member: Option<usize>, state: State) -> Option<u64>;
}

impl<L: Logic> Carry for RefCell<L> {
    fn export(&self, member: Option<usize>) -> Option<State> {
        let mut logic = self.borrow_mut();
        match member {
            Some(statement) => logic.export_member(statement),
            None => logic.export(),
        }
    }

    fn adopt(&self, member: Option<usize>, state: State) -> Option<u64> {
        let mut logic = self.borrow_mut();
        match member {
            Some(statement) => logic.adopt_member(statement, state),
            None => logic.adopt(state),
        }
        logic.next_timer()
    }
}

/// Where an operator publishes its next timer and hears that its dataflow is stopping; it also names the statement
/// the operator runs and reaches its logic, so its state can be carried into a replacing dataflow. An operator that
/// runs several statements has a control of its own and one per member ([`Control::member`]), each carrying that
/// member's state.
#[derive(Clone, Default)]
pub struct Control {
    /// The statement (its number in the configuration) whose state the operator holds.
    pub statement: usize,
    /// Whether the statement is one member of the operator's.
    member: bool,
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

    /// The control of member `statement` of the operator `group` controls.
    pub fn member(group: &Control, statement: usize) -> Self {
        Control { statement, member: true, ..group.clone() }
    }

    /// What names the state it carries: its statement, and whether that is a member of the operator's (a pattern
    /// driving a join is an operator of the same statement).
    pub fn carries(&self) -> (usize, bool) {
        (self.statement, self.member)
    }

    /// The member whose state it carries, if it carries one member's.
    fn part(&self) -> Option<usize> {
        self.member.then_some(self.statement)
    }

    /// Takes the operator's state out; only between rounds, when no operator runs.
    pub fn export(&self) -> Option<State> {
        self.logic.borrow().as_ref().and_then(|logic| logic.export(self.part()))
    }

    /// Hands the operator a carried state; only before the operator's first run.
    pub fn adopt(&self, state: State) {
        if let Some(logic) = self.logic.borrow().as_ref() {
            self.next_timer.set(logic.adopt(self.part(), state));
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
    // A statement may set timers as it is created (a pattern of timers alone): the dataflow's first round is due then.
    control.next_timer.set(logic.next_timer());
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
                let mut emit = Emit::default();
                logic.opening(&mut emit);
                match &mut ending {
                    _ if emit.records.is_empty() => {}
                    Some(ending) => (ending.take)(*initial.time(), &mut emit.records),
                    None => output.session(&initial).give_container(&mut emit.records),
                }
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
    logic.begin(epoch);
    if logic.next_timer().is_some_and(|due| due <= epoch) {
        logic.fire(emit, epoch);
    }
    logic.sort(&mut records);
    if L::AHEAD {
        run_ahead(logic, emit, epoch, records);
    } else {
        records.into_iter().for_each(|record| logic.record(emit, epoch, record));
    }
    logic.records_done(emit, epoch);
    logic.epoch_done();
}

/// Handles `records` in groups, seeking, finding and loading each one's state ahead of its turn.
fn run_ahead<L: Logic>(logic: &mut L, emit: &mut Emit, epoch: u64, records: Vec<Record>) {
    let mut hints = VecDeque::with_capacity(4 * GROUP);
    let mut records = records.into_iter();
    rows_ahead(records.as_slice(), 0..4 * GROUP, Props::load_ends);
    seek_ahead(logic, records.as_slice(), &mut hints, 3 * GROUP);
    find_ahead(logic, records.as_slice(), &mut hints, 0..2 * GROUP);
    rows_ahead(records.as_slice(), 0..2 * GROUP, Props::load_entries);
    load_ahead(logic, records.as_slice(), &hints, 0..GROUP);
    while !records.as_slice().is_empty() {
        rows_ahead(records.as_slice(), 4 * GROUP..5 * GROUP, Props::load_ends);
        seek_ahead(logic, records.as_slice(), &mut hints, 4 * GROUP);
        find_ahead(logic, records.as_slice(), &mut hints, 2 * GROUP..3 * GROUP);
        rows_ahead(records.as_slice(), 2 * GROUP..3 * GROUP, Props::load_entries);
        load_ahead(logic, records.as_slice(), &hints, GROUP..2 * GROUP);
        for record in records.by_ref().take(GROUP) {
            let hint = hints.pop_front().flatten();
            logic.hinted(emit, epoch, record, hint);
        }
    }
}

/// Starts loading, with `load`, part of the rows of the records ahead in `range`. A row comes from the thread that
/// made it, its lines in another core's cache, and the logic reads it (its key, first of all) and writes it (its
/// count, a column a fused select adds). Loading the row's two ends three groups ahead (now four, a group before the
/// logic seeks its state) and the rest two, with the queue keeping the row it is handed rather than a new reference to
/// it, made one worker of `bench geofence` at 2,000 events an epoch run 31 and 33 % more events a second in two runs
/// against the code before (`benches/results/cep.md`, thirty-seventh session).
fn rows_ahead(records: &[Record], range: Range<usize>, load: fn(&Props)) {
    for record in records.iter().take(range.end).skip(range.start) {
        if let Record::Event { row, .. } = record {
            load(row);
        }
    }
}

/// Asks `logic` to seek the state of the records ahead up to `upto`, from the first it has no hint for (`hints`
/// holds one for each record ahead, in order; none for a record that is not an event).
fn seek_ahead<L: Logic>(logic: &mut L, records: &[Record], hints: &mut VecDeque<Hint>, upto: usize) {
    let upcoming = records.get(hints.len()..upto.min(records.len())).unwrap_or_default();
    for record in upcoming {
        hints.push_back(match record {
            Record::Event { stream, row, .. } => logic.seek(*stream, row),
            _ => None,
        });
    }
}

/// Asks `logic` to find the state of the records ahead in `range`, with what it sought for each.
fn find_ahead<L: Logic>(logic: &mut L, records: &[Record], hints: &mut VecDeque<Hint>, range: Range<usize>) {
    for (record, hint) in records.iter().zip(hints.iter_mut()).take(range.end).skip(range.start) {
        if let Record::Event { stream, row, .. } = record {
            *hint = logic.find(*stream, row, *hint);
        }
    }
}

/// Asks `logic` to load what it found for the records ahead in `range`.
fn load_ahead<L: Logic>(logic: &L, records: &[Record], hints: &VecDeque<Hint>, range: Range<usize>) {
    for (record, hint) in records.iter().zip(hints).take(range.end).skip(range.start) {
        if let Record::Event { stream, row, .. } = record {
            logic.load(*stream, row, *hint);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::runtime::Val;

    /// A logic that writes down what it is told and handed, by event number.
    #[derive(Default)]
    struct Told {
        calls: RefCell<Vec<(&'static str, i64)>>,
    }

    impl Told {
        fn call(&self, kind: &'static str, n: i64) {
            self.calls.borrow_mut().push((kind, n));
        }
    }

    fn number(row: &Row) -> i64 {
        match row.get("n") {
            Some(Val::Int(n)) => *n,
            other => panic!("a numbered row, not {other:?}"),
        }
    }

    impl Logic for Told {
        const AHEAD: bool = true;

        fn record(&mut self, _emit: &mut Emit, _epoch: u64, record: Record) {
            let n = match &record {
                Record::Event { row, .. } => number(row),
                _ => -1,
            };
            self.call("record", n);
        }
        fn hinted(&mut self, emit: &mut Emit, epoch: u64, record: Record, hint: Hint) {
            if let Record::Event { row, .. } = &record {
                assert_eq!(hint, Some(number(row) as usize), "the hint found for the event comes with it");
            }
            self.record(emit, epoch, record);
        }
        fn seek(&mut self, _stream: u32, row: &Row) -> Hint {
            self.call("seek", number(row));
            Some(2 * number(row) as usize)
        }
        fn find(&mut self, _stream: u32, row: &Row, sought: Hint) -> Hint {
            assert_eq!(sought, Some(2 * number(row) as usize), "what was sought for the event comes with it");
            self.call("find", number(row));
            Some(number(row) as usize)
        }
        fn load(&self, _stream: u32, row: &Row, hint: Hint) {
            assert_eq!(hint, Some(number(row) as usize), "the hint found for the event comes with it");
            self.call("load", number(row));
        }
        fn next_timer(&self) -> Option<u64> {
            None
        }
        fn fire(&mut self, _emit: &mut Emit, _epoch: u64) {}
        fn stop(&mut self) {}
    }

    /// The calls of one kind, in order.
    fn of(calls: &[(&'static str, i64)], kind: &str) -> Vec<i64> {
        calls.iter().filter(|(k, _)| *k == kind).map(|(_, n)| *n).collect()
    }

    #[test]
    fn every_event_is_sought_found_then_loaded_ahead_and_handled_with_its_hint() {
        // Not a whole number of groups, unsorted, with records that are not events (told nothing ahead).
        let mut records: Vec<Record> = (0..75i64)
            .rev()
            .map(|n| Record::Event { stamp: Stamp::input(n as u64), stream: 0, row: Row::from([("n", Val::Int(n))]) })
            .collect();
        records.extend(Record::starts(Some(3), 2, 0));
        let mut logic = Told::default();
        run_epoch(&mut logic, &mut Emit::default(), 1, records);
        let calls = logic.calls.into_inner();
        let handled: Vec<i64> = of(&calls, "record").into_iter().filter(|n| *n >= 0).collect();
        assert_eq!(handled, (0..75).collect::<Vec<_>>());
        assert_eq!(of(&calls, "seek"), handled, "sought once each, in order");
        assert_eq!(of(&calls, "find"), handled, "found once each, in order");
        assert_eq!(of(&calls, "load"), handled, "loaded once each, in order");
        let at = |kind: &str, n: i64| calls.iter().position(|c| *c == (kind, n));
        let handled_between = |from: usize, to: usize| calls[from..to].iter().filter(|(k, _)| *k == "record").count();
        for n in handled {
            assert!(at("seek", n) < at("find", n), "event {n}");
            assert!(at("find", n) < at("load", n) && at("load", n) < at("record", n), "event {n}");
            // Sought three groups ahead, found two and loaded one, but in the epoch's first groups.
            let (seek, find) = (at("seek", n).unwrap(), at("find", n).unwrap());
            let (load, record) = (at("load", n).unwrap(), at("record", n).unwrap());
            assert!(n < 3 * GROUP as i64 || handled_between(seek, record) >= 3 * GROUP, "event {n} sought late");
            assert!(n < 2 * GROUP as i64 || handled_between(find, record) >= 2 * GROUP, "event {n} found late");
            assert!(n < GROUP as i64 || handled_between(load, record) >= GROUP, "event {n} loaded late");
        }
    }
}

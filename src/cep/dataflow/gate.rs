//! A statement's logic behind a gate on what it emits: `OUTPUT AFTER d` alone (`quiet`) drops its rows for a while,
//! `DISTINCT` (`distinct`) its repeated ones, an output policy on a pattern (`rated`) paces them, and an aggregating
//! pattern's matches are made rows (`tally`); [`stateful_behind`] puts a statement behind the first two.
//! [`Gated`] hands the logic everything as it comes and the gate what the logic emitted each time, fires the gate's
//! own timer (an output tick) after the logic's timers, among the epoch's records in stamp order (after what other
//! statements' timers and the ticks of statements listed before it made at its millisecond; that millisecond's
//! events come in a later epoch), and carries the gate's state with the logic's into a replacing dataflow.

use timely::dataflow::Stream;
use timely::dataflow::channels::pact::ParallelizationContract;

use super::distinct::Distinct;
use super::operator::{Control, Emit, Ending, Hint, Logic, State, stateful};
use super::quiet::Quiet;
use super::record::{Record, Stamp, due_epoch, millis};
use crate::cep::plan::QueryPlan;
use crate::cep::runtime::Row;

/// What stands between a statement's logic and its output.
pub trait Gate: 'static {
    /// What the gate keeps between epochs, carried into a replacement.
    type Kept: Default + 'static;

    /// The logic emitted the records of `emit` after `mark` in `epoch`: the gate keeps, drops or lets them through.
    fn take(&mut self, emit: &mut Emit, epoch: u64, mark: usize);

    /// The epoch of the gate's next timer.
    fn next_timer(&self) -> Option<u64> {
        None
    }

    /// The stamp of the gate's timer, if it is due by `epoch`.
    fn due(&self, _epoch: u64) -> Option<Stamp> {
        None
    }

    /// Fires the gate's timer if it is due by `epoch`.
    fn fire(&mut self, _emit: &mut Emit, _epoch: u64) {}

    fn kept(&mut self) -> &mut Self::Kept;
}

/// A gate's output clock (`rated`, `tally`): started by the statement's first row, it ticks every period from there.
#[derive(Debug, Default)]
pub struct Clock {
    /// The epoch of the next tick.
    next: Option<u64>,
    ticks: u64,
}

impl Clock {
    /// Starts the clock at `epoch`, ticking every `every` milliseconds, unless it runs.
    pub fn start(&mut self, epoch: u64, every: i64) {
        if self.next.is_none() {
            self.next = Some(due_epoch(millis(epoch) + every, epoch));
        }
    }

    pub fn next(&self) -> Option<u64> {
        self.next
    }

    /// The stamp of `statement`'s tick, if it is due by `epoch`.
    pub fn due(&self, epoch: u64, statement: usize) -> Option<Stamp> {
        self.next.filter(|due| *due <= epoch)?;
        Some(Stamp::tick(statement, self.ticks))
    }

    /// The tick, if it is due by `epoch`: its stamp, and the next one set `every` milliseconds on.
    pub fn tick(&mut self, epoch: u64, statement: usize, every: i64) -> Option<Stamp> {
        let stamp = self.due(epoch, statement)?;
        self.next = Some(due_epoch(millis(epoch) + every, epoch));
        self.ticks += 1;
        Some(stamp)
    }
}

/// `logic` behind `gate`.
pub struct Gated<G, L> {
    pub gate: G,
    pub logic: L,
}

impl<G: Gate, L: Logic> Gated<G, L> {
    /// Fires the gate's timer first if it is due and goes before `record` ([`Stamp::goes_before`]).
    fn before(&mut self, emit: &mut Emit, epoch: u64, record: &Record) {
        if Stamp::goes_before(self.gate.due(epoch), record) {
            self.gate.fire(emit, epoch);
        }
    }

    /// Runs `handle` on the logic and hands the gate what it emitted.
    fn through(&mut self, emit: &mut Emit, epoch: u64, handle: impl FnOnce(&mut L, &mut Emit)) {
        let mark = emit.mark();
        handle(&mut self.logic, emit);
        if emit.mark() > mark {
            self.gate.take(emit, epoch, mark);
        }
    }
}

impl<G: Gate, L: Logic> Logic for Gated<G, L> {
    const AHEAD: bool = L::AHEAD;

    fn sort(&self, records: &mut [Record]) {
        self.logic.sort(records);
    }

    fn begin(&mut self, epoch: u64) {
        self.logic.begin(epoch);
    }

    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        self.before(emit, epoch, &record);
        self.through(emit, epoch, |logic, emit| logic.record(emit, epoch, record));
    }

    fn hinted(&mut self, emit: &mut Emit, epoch: u64, record: Record, hint: Hint) {
        self.before(emit, epoch, &record);
        self.through(emit, epoch, |logic, emit| logic.hinted(emit, epoch, record, hint));
    }

    fn records_done(&mut self, emit: &mut Emit, epoch: u64) {
        self.through(emit, epoch, |logic, emit| logic.records_done(emit, epoch));
        self.gate.fire(emit, epoch);
    }

    fn seek(&mut self, stream: u32, row: &Row) -> Hint {
        self.logic.seek(stream, row)
    }

    fn find(&mut self, stream: u32, row: &Row, sought: Hint) -> Hint {
        self.logic.find(stream, row, sought)
    }

    fn load(&self, stream: u32, row: &Row, hint: Hint) {
        self.logic.load(stream, row, hint);
    }

    fn epoch_done(&mut self) {
        self.logic.epoch_done();
    }

    fn next_timer(&self) -> Option<u64> {
        [self.logic.next_timer(), self.gate.next_timer()].into_iter().flatten().min()
    }

    /// The logic's timers; the gate's fires among the records or after them ([`Logic::records_done`]): what the
    /// logic's make at the gate's millisecond goes through the gate before its timer fires, as the reference fires a
    /// pattern's timers before an output tick due with them.
    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        if self.logic.next_timer().is_some_and(|due| due <= epoch) {
            self.through(emit, epoch, |logic, emit| logic.fire(emit, epoch));
        }
    }

    fn stop(&mut self) {
        *self.gate.kept() = G::Kept::default();
        self.logic.stop();
    }

    fn export(&mut self) -> Option<State> {
        let carried: (G::Kept, Option<State>) = (std::mem::take(self.gate.kept()), self.logic.export());
        Some(Box::new(carried))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(carried) = state.downcast::<(G::Kept, Option<State>)>() {
            let (kept, state) = *carried;
            *self.gate.kept() = kept;
            state.into_iter().for_each(|state| self.logic.adopt(state));
        }
    }
}

/// The gates at a statement's exit that its plan asks for, whatever its logic: `OUTPUT AFTER` alone drops its
/// first rows ([`Quiet`]), and `DISTINCT` its repeated ones ([`Distinct`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Exits {
    /// What `OUTPUT AFTER` alone holds back.
    quiet: Option<Quiet>,
    /// The stream whose rows are compared.
    distinct: Option<u32>,
}

impl Exits {
    /// The exits of `q`, created at `created_ms`, writing stream `sink`.
    pub fn of(q: &QueryPlan, created_ms: i64, sink: u32) -> Self {
        Exits { quiet: Quiet::of(q, created_ms), distinct: q.distinct.then_some(sink) }
    }
}

/// Runs `logic` over `input` as [`stateful`] does, behind the gates of `exits`.
pub fn stateful_behind<'s, L: Logic, P: ParallelizationContract<u64, Vec<Record>>>(
    exits: Exits,
    (input, pact): (Stream<'s, u64, Vec<Record>>, P),
    name: &str,
    controls: (Control, Option<Ending>),
    logic: L,
) -> Stream<'s, u64, Vec<Record>> {
    match (exits.quiet, exits.distinct) {
        (None, None) => stateful(input, pact, name, controls, logic),
        (Some(quiet), None) => stateful(input, pact, name, controls, Gated { gate: quiet, logic }),
        (None, Some(sink)) => stateful(input, pact, name, controls, Gated { gate: Distinct::new(sink), logic }),
        // `DISTINCT` takes what the quiet gate lets through: Esper's after view counts the rows before it.
        (Some(quiet), Some(sink)) => {
            let logic = Gated { gate: quiet, logic };
            stateful(input, pact, name, controls, Gated { gate: Distinct::new(sink), logic })
        }
    }
}

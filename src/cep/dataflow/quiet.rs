//! `OUTPUT AFTER d` without a period on a query, a pattern or a batch window: the rows the statement emits in its first
//! `d` are dropped as they are made, its state kept all along, as Esper's after view drops them before they reach the
//! listeners or an insert-into stream. The time they end at is state: a statement kept across a replacement keeps its
//! own. (The members of a join share one operator, so each checks its own time, `join`.)

use timely::dataflow::Stream;
use timely::dataflow::channels::pact::ParallelizationContract;

use super::operator::{Control, Emit, Ending, Hint, Logic, State, stateful};
use super::record::{Record, millis};
use crate::cep::plan::QueryPlan;
use crate::cep::runtime::Row;

/// The millisecond before which the rows of `q`, created at `created_ms`, are dropped: with `OUTPUT AFTER d` alone.
pub fn quiet_until(q: &QueryPlan, created_ms: i64) -> Option<i64> {
    q.quiet_millis.map(|d| created_ms.saturating_add(d as i64))
}

/// Runs `logic` over `input` as [`stateful`] does, behind [`Quiet`] when `until` is set.
pub fn stateful_until<'s, L: Logic, P: ParallelizationContract<u64, Vec<Record>>>(
    until: Option<i64>,
    (input, pact): (Stream<'s, u64, Vec<Record>>, P),
    name: &str,
    controls: (Control, Option<Ending>),
    logic: L,
) -> Stream<'s, u64, Vec<Record>> {
    match until {
        Some(until) => stateful(input, pact, name, controls, Quiet { until, logic }),
        None => stateful(input, pact, name, controls, logic),
    }
}

/// `logic`, whose rows before the millisecond `until` are dropped.
pub struct Quiet<L> {
    pub until: i64,
    pub logic: L,
}

/// What a quiet statement carries into its replacement: its time and its logic's state.
type Carried = (i64, Option<State>);

impl<L: Logic> Quiet<L> {
    /// Runs `handle` on the logic, dropping what it emitted if `epoch` is before the statement's time.
    fn quietly(&mut self, emit: &mut Emit, epoch: u64, handle: impl FnOnce(&mut L, &mut Emit)) {
        let before = emit.mark();
        handle(&mut self.logic, emit);
        if millis(epoch) < self.until {
            emit.truncate(before);
        }
    }
}

impl<L: Logic> Logic for Quiet<L> {
    const AHEAD: bool = L::AHEAD;

    fn sort(&self, records: &mut [Record]) {
        self.logic.sort(records);
    }

    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        self.quietly(emit, epoch, |logic, emit| logic.record(emit, epoch, record));
    }

    fn hinted(&mut self, emit: &mut Emit, epoch: u64, record: Record, hint: Hint) {
        self.quietly(emit, epoch, |logic, emit| logic.hinted(emit, epoch, record, hint));
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
        self.logic.next_timer()
    }

    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        self.quietly(emit, epoch, |logic, emit| logic.fire(emit, epoch));
    }

    fn stop(&mut self) {
        self.logic.stop();
    }

    fn export(&mut self) -> Option<State> {
        let carried: Carried = (self.until, self.logic.export());
        Some(Box::new(carried))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(carried) = state.downcast::<Carried>() {
            let (until, state) = *carried;
            self.until = until;
            state.into_iter().for_each(|state| self.logic.adopt(state));
        }
    }
}

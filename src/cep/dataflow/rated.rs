//! `OUTPUT [ALL|FIRST|LAST] EVERY p [AFTER d]` on a pattern without aggregates: the reference evaluator's `rate`
//! module (which states the meaning), a [`Gate`] before the pattern's logic. The rows the pattern makes are taken as it emits
//! them: `FIRST` lets the interval's first through and drops the rest, `LAST` keeps the last and `ALL` every one until
//! the tick releases them. The clock is the statement's own: it starts at its first row (at or after `d`, before which
//! rows are dropped) and ticks every `p` from there. A statement with an output policy runs on one worker (the
//! planner's partition), so its rows and its clock are all in one place.

use std::mem;

use super::gate::Gate;
use super::operator::Emit;
use super::record::{Record, Stamp, due_epoch, millis};
use crate::cep::plan::{OutputKind, QueryPlan};
use crate::cep::reference::TimerOrder;
use crate::cep::reference::query::not_before;
use crate::cep::runtime::Row;

/// A statement's output policy: its rows go out at its pace.
pub struct Rated {
    statement: usize,
    sink: u32,
    kind: OutputKind,
    every: i64,
    state: RateState,
}

/// What the policy keeps between epochs, and carries into the dataflow replacing its own.
#[derive(Debug, Default)]
pub struct RateState {
    /// With `AFTER d`, the millisecond before which rows are dropped and the clock does not start.
    not_before: Option<i64>,
    /// The next tick: its epoch, and when and by what position the clock was started (for stamps).
    clock: Option<(u64, (u64, u64))>,
    ticks: u64,
    /// Whether the interval's first row went out (`FIRST`).
    first_out: bool,
    /// The rows the next tick releases, oldest first.
    held: Vec<Row>,
}

impl Rated {
    /// The policy of statement `statement` (created at `created_ms`, writing stream `sink`), from `plan`.
    pub fn new(statement: usize, sink: u32, (plan, created_ms): (&QueryPlan, i64)) -> Self {
        let (kind, every) = plan.output.as_ref().map_or((OutputKind::All, 1), |o| (o.kind, o.every_millis));
        let state = RateState { not_before: not_before(plan, created_ms), ..RateState::default() };
        Rated { statement, sink, kind, every: every.max(1) as i64, state }
    }

    /// One row the statement made at `stamp`: it starts the clock, then goes out, is kept or is dropped.
    fn offer(&mut self, emit: &mut Emit, epoch: u64, stamp: Stamp, row: Row) {
        if self.state.clock.is_none() {
            let due = due_epoch(millis(epoch) + self.every, epoch);
            self.state.clock = Some((due, (epoch, stamp.position())));
        }
        match self.kind {
            OutputKind::First if self.state.first_out => {}
            OutputKind::First => {
                self.state.first_out = true;
                emit.event(stamp, self.sink, row);
            }
            OutputKind::Last => self.state.held = vec![row],
            // A snapshot of a pattern is refused (it has no view to iterate).
            OutputKind::All | OutputKind::Default | OutputKind::Snapshot => self.state.held.push(row),
        }
    }
}

impl Gate for Rated {
    type Kept = RateState;

    /// The rows the statement made in `epoch`, each offered in turn; dropped before `AFTER`'s time.
    fn take(&mut self, emit: &mut Emit, epoch: u64, mark: usize) {
        let made = emit.split_off(mark);
        if self.state.not_before.is_some_and(|at| millis(epoch) < at) {
            return;
        }
        for record in made {
            if let Record::Event { stamp, row, .. } = record {
                self.offer(emit, epoch, stamp, row);
            }
        }
    }

    fn next_timer(&self) -> Option<u64> {
        self.state.clock.map(|(due, _)| due)
    }

    /// Releases what the interval kept, if the tick is due by `epoch`, and sets the next one.
    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        let Some((_, set)) = self.state.clock.filter(|(due, _)| *due <= epoch) else {
            return;
        };
        self.state.clock = Some((due_epoch(millis(epoch) + self.every, epoch), (epoch, set.1)));
        let stamp = Stamp::timer(TimerOrder::Output, set, self.statement, self.state.ticks);
        self.state.ticks += 1;
        self.state.first_out = false;
        for (i, row) in mem::take(&mut self.state.held).into_iter().enumerate() {
            emit.event(stamp.child(self.statement, i), self.sink, row);
        }
    }

    fn kept(&mut self) -> &mut RateState {
        &mut self.state
    }
}

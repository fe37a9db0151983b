//! `OUTPUT [ALL|FIRST|LAST] EVERY p [AFTER d]` on a pattern, or a join without aggregates or whose columns are all
//! aggregates (the last trigger's row standing between triggers), or `LAST` and the default on an aggregating join
//! with `GROUP BY` (each group's row picked at the tick, `reference::join::last`): the reference evaluator's `rate`
//! module (which states the meaning), a [`Gate`] before a pattern's logic, and in a join group a member's own.
//! The rows the statement makes are taken as it emits them, in batches (a pattern's match, a join's rows for one
//! trigger): `FIRST` lets the interval's first batch through and drops the rest, `LAST` keeps the last row and `ALL`
//! every one until the tick releases them; with `ORDER BY`, what goes out is sorted. The clock is the statement's own:
//! it starts at its first row (at or after `d`, before which rows are dropped; a batch window's query under `SELECT
//! RSTREAM` starts it at its first release with new rows, [`Rated::start`]) and ticks every `p` from there. A
//! statement with an output policy runs on one worker (the planner's partition; a join group with such a member is
//! not split), so its rows and its clock are all in one place.

use std::mem;

use super::gate::{Clock, Gate};
use super::operator::Emit;
use super::record::{Record, Stamp, millis};
use crate::cep::plan::{OutputKind, PlanExpr, QueryPlan};
use crate::cep::reference::join::{GroupRows, LastByGroup};
use crate::cep::reference::query::{aggregates_triggers, fully_aggregated, lasts_by_group, not_before, stands};
use crate::cep::runtime::{Row, order};

/// A statement's output policy: its rows go out at its pace.
#[derive(Debug)]
pub struct Rated {
    statement: usize,
    sink: u32,
    kind: OutputKind,
    every: i64,
    /// The statement's `ORDER BY`: what goes out at once or at a tick is sorted by it (`runtime::order::release`).
    order_by: Vec<(PlanExpr, bool)>,
    /// For an aggregating join not under `FIRST`, whether the statement keeps every trigger for the tick, as the
    /// reference's `Rate::buffers` says ([`aggregates_triggers`]).
    buffers: bool,
    state: RateState,
}

/// What the policy keeps between epochs, and carries into the dataflow replacing its own.
#[derive(Debug, Default)]
pub struct RateState {
    /// With `AFTER d`, the millisecond before which rows are dropped and the clock does not start.
    not_before: Option<i64>,
    clock: Clock,
    /// Whether the interval's first row went out (`FIRST`).
    first_out: bool,
    /// The rows the next tick releases, oldest first.
    held: Vec<Row>,
    /// For a join that [`stands`] under `LAST`, `ALL` or the default, the last trigger's rows (released by a tick
    /// whose interval had no trigger); `None` for other statements.
    standing: Option<Vec<Row>>,
    /// Whether a trigger came in the interval.
    handed: bool,
    /// For an aggregating join with `GROUP BY` under `LAST`, the groups of the interval.
    by_group: Option<LastByGroup>,
}

impl Rated {
    /// The policy of statement `statement` (created at `created_ms`, writing stream `sink`), from `plan`.
    pub fn new(statement: usize, sink: u32, (plan, created_ms): (&QueryPlan, i64)) -> Self {
        let (kind, every) = plan.output.as_ref().map_or((OutputKind::All, 1), |o| (o.kind, o.every_millis));
        let standing = (stands(plan) && kind != OutputKind::First).then(Vec::new);
        let by_group = lasts_by_group(plan).then(|| LastByGroup::new(fully_aggregated(plan)));
        let state = RateState { not_before: not_before(plan, created_ms), standing, by_group, ..RateState::default() };
        let buffers = aggregates_triggers(plan) && kind != OutputKind::First;
        let order_by = plan.order_by.clone();
        Rated { statement, sink, kind, every: every.max(1) as i64, order_by, buffers, state }
    }

    /// One batch of rows the statement made in `epoch`, each with its stamp: the first starts the clock, then they go
    /// out, are kept or are dropped. An empty batch is no batch, and a batch before `AFTER`'s time is dropped, but
    /// for an aggregating join (not under `FIRST`), which keeps both.
    pub fn offer(&mut self, emit: &mut Emit, epoch: u64, batch: Vec<(Stamp, Row)>) {
        let early = self.state.not_before.is_some_and(|at| millis(epoch) < at);
        if (batch.is_empty() || early) && !self.buffers {
            return;
        }
        self.start(epoch);
        if let Some(standing) = &mut self.state.standing {
            *standing = batch.iter().map(|(_, row)| row.clone()).collect();
            self.state.handed = true;
        }
        match self.kind {
            OutputKind::First if self.state.first_out => {}
            OutputKind::First => {
                self.state.first_out = true;
                let (stamps, rows): (Vec<Stamp>, Vec<Row>) = batch.into_iter().unzip();
                let rows = order::release(rows, &self.order_by);
                stamps.into_iter().zip(rows).for_each(|(stamp, row)| emit.event(stamp, self.sink, row));
            }
            // As the reference's: an empty batch of an aggregating join that does not stand keeps the last row.
            OutputKind::Last if batch.is_empty() && self.state.standing.is_none() => {}
            OutputKind::Last => {
                self.state.held = batch.into_iter().last().map(|(_, row)| vec![row]).unwrap_or_default()
            }
            OutputKind::All | OutputKind::Default => self.state.held.extend(batch.into_iter().map(|(_, row)| row)),
            // A snapshot is of the statement's view, which only a batch window's query has (`batch`); a pattern's
            // or a join's is refused.
            OutputKind::Snapshot => {}
        }
    }

    /// One trigger's groups, made in `epoch`, under `OUTPUT LAST` on an aggregating join with `GROUP BY`: it starts
    /// the clock (but before `AFTER`'s time), and the tick picks each group's row (`reference::join::last`).
    pub fn offer_groups(&mut self, epoch: u64, groups: Vec<GroupRows>) {
        self.start(epoch);
        if let Some(by_group) = &mut self.state.by_group {
            by_group.take(groups);
        }
    }

    /// Starts the clock in `epoch` unless it runs (or `AFTER`'s time has not come).
    pub fn start(&mut self, epoch: u64) {
        if self.state.not_before.is_none_or(|at| millis(epoch) >= at) {
            self.state.clock.start(epoch, self.every);
        }
    }

    /// As [`Gate::fire`], releasing `snapshot` (rows in order) after what the interval kept.
    pub fn fire_with(&mut self, emit: &mut Emit, epoch: u64, snapshot: Vec<Row>) {
        let Some(stamp) = self.state.clock.tick(epoch, self.statement, self.every) else {
            return;
        };
        let state = &mut self.state;
        state.first_out = false;
        if !mem::take(&mut state.handed)
            && let Some(standing) = &state.standing
        {
            state.held.clone_from(standing);
        }
        if let Some(by_group) = &mut state.by_group {
            state.held = by_group.release();
        }
        let kept = order::release(mem::take(&mut self.state.held), &self.order_by);
        for (i, row) in kept.into_iter().chain(snapshot).enumerate() {
            emit.event(stamp.child(self.statement, i), self.sink, row);
        }
    }
}

impl Gate for Rated {
    type Kept = RateState;

    /// The rows the pattern made in `epoch`, each match's a batch of its own.
    fn take(&mut self, emit: &mut Emit, epoch: u64, mark: usize) {
        for record in emit.split_off(mark) {
            if let Record::Event { stamp, row, .. } = record {
                self.offer(emit, epoch, vec![(stamp, row)]);
            }
        }
    }

    fn next_timer(&self) -> Option<u64> {
        self.state.clock.next()
    }

    /// The stamp of the tick, if it is due by `epoch`: it fires among the records, in stamp order (a join's too).
    fn due(&self, epoch: u64) -> Option<Stamp> {
        self.state.clock.due(epoch, self.statement)
    }

    /// Releases what the interval kept, if the tick is due by `epoch`, and sets the next one.
    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        self.fire_with(emit, epoch, Vec::new());
    }

    fn kept(&mut self) -> &mut RateState {
        &mut self.state
    }
}

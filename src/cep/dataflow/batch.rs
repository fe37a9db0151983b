//! A query over a batch window, `win:length_batch(n)` or `win:time_batch(d)`: the reference evaluator's `batch` module
//! (which states the meaning) as an operator. A batch is one order of events across all keys (the n-th event of the
//! stream releases it), so the statement runs on one worker (`Partitioning::Single`).
//!
//! The operator keeps the rows of the batch it collects and of the one it released last that passed WHERE, with
//! their group keys, and the number of events in each (those failing WHERE count towards a batch's length and keep a
//! time batch's clock running). A release adds the new batch's rows to fresh running aggregates per group
//! ([`Accumulators`]), once each, rather than recomputing a group's aggregates from its rows for each row out.

use std::collections::HashMap;
use std::mem;
use std::sync::Arc;

use foldhash::fast::RandomState;

use super::aggregate::Accumulators;
use super::operator::{Emit, Logic, State};
use super::query::PerEvent;
use super::reaper::Leftovers;
use super::record::{Record, Stamp, due_epoch, millis};
use crate::cep::plan::{AggregateCall, AggregationKind, QueryPlan, StreamInput, WindowSpec};
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::eval::{Scope, holds, project};
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{Row, Val, order};

/// When a batch is released.
#[derive(Debug, Clone, Copy)]
enum Release {
    /// When it holds this many events.
    Length(usize),
    /// At the end of each period of this many milliseconds.
    Time(i64),
}

/// A batch's rows that passed WHERE, with their groups, and how many events it holds in all.
#[derive(Debug, Default)]
struct Batch {
    rows: Vec<(Key, Row)>,
    events: usize,
}

/// What the statement keeps between events, and carries into the dataflow replacing its own.
#[derive(Debug, Default)]
struct BatchState {
    collected: Batch,
    released: Batch,
    /// A time batch's first event's millisecond, from which its periods count.
    start: Option<i64>,
    /// The epoch of a time batch's next release.
    clock: Option<u64>,
    releases: u64,
}

pub struct BatchLogic {
    statement: usize,
    plan: Arc<QueryPlan>,
    label: Name,
    stream: u32,
    sink: u32,
    vars: Arc<Row>,
    release: Release,
    per_event: PerEvent,
    state: BatchState,
    /// Rows that left, kept for the worker's reaper until the epoch ends.
    done: Leftovers,
}

impl BatchLogic {
    /// The query `plan` over `input`, whose window is a batch window not inside `std:groupwin` (the reference
    /// evaluator refuses the others, and the program is checked by it first).
    pub fn new(statement: usize, plan: Arc<QueryPlan>, input: &StreamInput, ids: (u32, u32), vars: Arc<Row>) -> Self {
        let release = match input.window {
            Some(WindowSpec::TimeBatch { millis }) => Release::Time(millis.max(1) as i64),
            Some(WindowSpec::LengthBatch { count }) => Release::Length(count.max(1) as usize),
            _ => unreachable!("a batch window, checked by the reference evaluator"),
        };
        BatchLogic {
            statement,
            label: input.label.clone(),
            stream: ids.0,
            sink: ids.1,
            release,
            per_event: PerEvent::new(&plan, input, &vars),
            state: BatchState::default(),
            done: Leftovers::for_this_thread(),
            plan,
            vars,
        }
    }

    fn event(&mut self, emit: &mut Emit, epoch: u64, stamp: Stamp, row: Row) {
        let rows = [&row];
        let holds = |e: &Option<RowExpr>| e.as_ref().is_none_or(|e| e.holds(&rows, &[], &self.vars));
        if !holds(&self.per_event.filter) {
            self.done.add(std::iter::once(row));
            return;
        }
        let counts = holds(&self.per_event.where_);
        self.collect(row, counts);
        match self.release {
            Release::Length(n) if self.state.collected.events >= n => {
                for (i, out) in self.release().into_iter().enumerate() {
                    emit.event(stamp.child(self.statement, i), self.sink, out);
                }
            }
            Release::Length(_) => {}
            Release::Time(period) => self.start_clock(epoch, period),
        }
    }

    /// Adds an event to the collected batch, keeping its row if it `counts` (passed WHERE).
    fn collect(&mut self, row: Row, counts: bool) {
        self.state.collected.events += 1;
        if !counts {
            self.done.add(std::iter::once(row));
            return;
        }
        let by = &self.per_event.group_by;
        let group = key::of_values(by.len(), by.iter().map(|e| e.eval(&[&row], &[], &self.vars)));
        self.state.collected.rows.push((group, row));
    }

    /// Sets a time batch's next release, unless it is set: at the first period end after `epoch`, counted from the
    /// statement's first event.
    fn start_clock(&mut self, epoch: u64, period: i64) {
        let now = millis(epoch);
        let start = *self.state.start.get_or_insert(now);
        if self.state.clock.is_none() {
            let end = start + ((now - start).div_euclid(period) + 1) * period;
            self.state.clock = Some(due_epoch(end, epoch));
        }
    }

    /// Ends a time batch's period, if one ends by `epoch`: releases the batch unless neither it nor the one before
    /// holds an event, which stops the clock instead.
    fn fire_period(&mut self, emit: &mut Emit, epoch: u64) {
        let (Release::Time(period), Some(at)) = (self.release, self.state.clock) else {
            return;
        };
        if at > epoch {
            return;
        }
        self.state.clock = None;
        if self.state.collected.events == 0 && self.state.released.events == 0 {
            return;
        }
        self.state.clock = Some(due_epoch(millis(epoch) + period, epoch));
        let stamp = Stamp::tick(self.statement, self.state.releases);
        self.state.releases += 1;
        for (i, out) in self.release().into_iter().enumerate() {
            emit.event(stamp.child(self.statement, i), self.sink, out);
        }
    }

    /// The collected batch becomes the view's contents, and the one it replaces leaves: the rows this gives, in
    /// `ORDER BY` order.
    fn release(&mut self) -> Vec<Row> {
        let old = mem::replace(&mut self.state.released, mem::take(&mut self.state.collected));
        let new = &self.state.released.rows;
        let rows = match self.plan.aggregation.as_ref().map(|a| (&a.kind, &a.aggregates[..])) {
            None => new.iter().filter_map(|(_, row)| self.row(row, &[])).collect(),
            Some((kind, calls)) => {
                let groups = self.groups(calls, &old.rows);
                match kind {
                    AggregationKind::FullyAggregated => {
                        groups.rows.iter().filter_map(|g| self.row(&g.event, &g.values(calls))).collect()
                    }
                    AggregationKind::WithUngroupedColumns(_) => {
                        let values: Vec<Vec<Val>> = groups.rows.iter().map(|g| g.values(calls)).collect();
                        new.iter().filter_map(|(group, row)| self.row(row, &values[groups.index[group]])).collect()
                    }
                }
            }
        };
        self.done.add(old.rows.into_iter().map(|(_, row)| row));
        order::ordered(rows, &self.plan.order_by)
    }

    /// The groups of the released batch's rows and then of `old`'s, in order of first sight, each with its aggregates
    /// over the released rows and the last of its events seen in that order.
    fn groups(&self, calls: &[AggregateCall], old: &[(Key, Row)]) -> Groups {
        let mut groups = Groups::default();
        for (group, row) in &self.state.released.rows {
            let g = groups.see(group, row);
            let args = self.per_event.args(row, &self.vars);
            g.acc.get_or_insert_with(|| Accumulators::new(calls)).add(calls, args);
        }
        for (group, row) in old {
            groups.see(group, row);
        }
        groups
    }

    /// The row of `event` with `aggregates` and its `ORDER BY` keys, if it passes HAVING.
    fn row(&self, event: &Row, aggregates: &[Val]) -> Option<(Vec<Val>, Row)> {
        let having = self.plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
        let binding = [(self.label.as_str(), event)];
        let scope = Scope { rows: &binding, aggregates, vars: &self.vars, pinned: &[] };
        holds(having, &scope)
            .then(|| (order::keys(&self.plan.order_by, &scope), project(&self.plan.projection, &scope)))
    }
}

/// The groups a release sees, in order of first sight.
#[derive(Default)]
struct Groups {
    index: HashMap<Key, usize, RandomState>,
    rows: Vec<GroupRow>,
}

/// A group's last event seen and its running aggregates over the released rows (none when it has no such row).
struct GroupRow {
    event: Row,
    acc: Option<Accumulators>,
}

impl GroupRow {
    /// Its aggregates: null when no released row is in it.
    fn values(&self, calls: &[AggregateCall]) -> Vec<Val> {
        self.acc.as_ref().map_or_else(|| vec![Val::Null; calls.len()], |acc| acc.values(calls))
    }
}

impl Groups {
    /// `group`, with `row` as its last event seen (added without aggregates if it is new).
    fn see(&mut self, group: &Key, row: &Row) -> &mut GroupRow {
        match self.index.get(group) {
            Some(&at) => {
                self.rows[at].event = row.clone();
                &mut self.rows[at]
            }
            None => {
                self.index.insert(group.clone(), self.rows.len());
                self.rows.push(GroupRow { event: row.clone(), acc: None });
                self.rows.last_mut().expect("just pushed")
            }
        }
    }
}

impl Logic for BatchLogic {
    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        let due = self.state.clock.filter(|at| *at <= epoch);
        if Stamp::goes_before(due.map(|_| Stamp::tick(self.statement, self.state.releases)), &record) {
            self.fire_period(emit, epoch);
        }
        match record {
            Record::Event { stamp, stream, row } if stream == self.stream => self.event(emit, epoch, stamp, row),
            Record::Event { .. } | Record::Match { .. } | Record::Start { .. } => {}
        }
    }

    fn epoch_done(&mut self) {
        self.done.reap();
    }

    fn next_timer(&self) -> Option<u64> {
        self.state.clock
    }

    /// A time batch's period ends among the epoch's records ([`Stamp::goes_before`]), or after them.
    fn fire(&mut self, _emit: &mut Emit, _epoch: u64) {}

    fn records_done(&mut self, emit: &mut Emit, epoch: u64) {
        self.fire_period(emit, epoch);
    }

    fn export(&mut self) -> Option<State> {
        Some(Box::new(mem::take(&mut self.state)))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(carried) = state.downcast::<BatchState>() {
            self.state = *carried;
        }
    }

    fn stop(&mut self) {
        self.state = BatchState::default();
    }
}

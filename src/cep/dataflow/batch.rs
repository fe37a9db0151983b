//! A query over a batch window, `win:length_batch(n)`, `win:time_batch(d)`, `win:time_length_batch(d, n)` or
//! `win:ext_timed_batch(timestamp, d[, reference])`, alone or inside `std:groupwin`: the reference evaluator's `batch`
//! module (which states the meaning) as an operator. A batch is one order of events across all keys (the n-th event
//! of the stream releases it), and inside `std:groupwin` the releases of keys whose periods end together go in the
//! order of the keys' first events, so the statement runs on one worker (`Partitioning::Single`).
//!
//! For each `std:groupwin` key (one, without it) the operator keeps the rows of the batch it collects and of the one
//! it released last that passed WHERE, with their group keys, and the number of events in each (those failing WHERE
//! count towards a batch's length and keep a time batch's clock running). Each group's aggregates run over the
//! view's contents, every key's released rows ([`Accumulators`]): a release takes the rows it replaces out and adds
//! its own, once each, rather than recomputing a group's aggregates from its rows for each row out. A query without
//! aggregates (or with ungrouped columns) hands each release's rows to its output policy, if it has one ([`Rated`],
//! which the statement's own snapshot rows join at its tick); a fully aggregated one the groups each release touched
//! ([`BatchPace`]), whose rows it makes from their running aggregates when a tick names them, and a grouped one with
//! ungrouped columns under `FIRST`, `LAST` or `ALL` the release's events, new and replaced, to the same policy.
//! A statement reading `prior` keeps a batch's events as they came and posts them at its release
//! ([`PriorBuffer`]), and one reading `prev` and its kin reads them off the batch then ([`Prevs`]): `WHERE` and the
//! groups read them after. The rows a release replaces read the latter as null.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::mem;
use std::sync::Arc;

use foldhash::fast::RandomState;

use super::aggregate::Accumulators;
use super::gate::{Clock, Gate};
use super::operator::{Emit, Logic, State};
use super::query::PerEvent;
use super::rated::{RateState, Rated};
use super::reaper::Leftovers;
use super::record::{Record, Stamp, due_epoch, millis};
use crate::cep::plan::{AggregateCall, AggregationKind, OutputKind, QueryPlan, StreamInput, WindowSpec};
use crate::cep::reference::query::{StampedBatch, by_tick_rank, key_of, not_before, removes, view_state_key};
use crate::cep::runtime::batch_pace::{BatchPace, Offer, Ticked, Touch};
use crate::cep::runtime::eval::{Scope, holds, over_no_rows, project};
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::previous::Prevs;
use crate::cep::runtime::prior::PriorBuffer;
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{Row, Val, order};

/// When a batch is released.
#[derive(Debug, Clone, Copy)]
enum Release {
    /// When it holds this many events.
    Length(usize),
    /// At the end of each period of this many milliseconds.
    Time(i64),
    /// When it holds `count` events, or `period` milliseconds after its clock started, whichever is first.
    TimeLength { period: i64, count: usize },
    /// When an event arrives whose timestamp reaches the end of the period of this many milliseconds its oldest
    /// event's is in; the periods count from the reference given, else from the key's first timestamp.
    Stamped { period: i64, reference: Option<i64> },
}

/// A batch's rows that passed WHERE, with their groups, and how many events it holds in all. A statement reading
/// `prior` keeps its collected events unposted until the release posts them.
#[derive(Debug, Default)]
struct Batch {
    rows: Vec<(Key, Row)>,
    events: usize,
    unposted: Vec<Row>,
    /// Which release of the statement's let it in: a group's rows enter in the order of the releases, each batch's
    /// in its order, which numbers them for `first` and `last` ([`Batch::number_of`]).
    release_number: u64,
}

impl Batch {
    /// The arrival number of its `i`-th row.
    fn number_of(&self, i: usize) -> u64 {
        (self.release_number << 32) | i as u64
    }
}

/// The batches of one `std:groupwin` key (of the one empty key, without it).
#[derive(Debug, Default)]
struct Batches {
    collected: Batch,
    /// The batch released last: this key's part of the view's contents.
    released: Batch,
    /// A time batch's first event's millisecond, from which its periods count.
    start: Option<i64>,
    /// The epoch of a time or time-length batch's next release, while its clock runs.
    due: Option<u64>,
    /// An externally timed batch's reference point and oldest timestamp.
    stamped: StampedBatch,
}

/// What the statement keeps between events, and carries into the dataflow replacing its own.
#[derive(Debug, Default)]
struct BatchState {
    /// Each key's batches, in the order of the keys' first events.
    keys: Vec<Batches>,
    /// Where each key's batches are in `keys`.
    index: HashMap<Key, usize, RandomState>,
    /// Each group's running aggregates over the view's contents (every key's released rows), while it has a row.
    groups: HashMap<Key, Accumulators, RandomState>,
    /// The time batches' next releases as (epoch, place in `keys`): by epoch, then by the keys' first events.
    clocks: BTreeSet<(u64, usize)>,
    releases: u64,
    /// The batches released so far, which number them.
    released: u64,
    /// The `prior` values of the events a release posts: then `WHERE` and the groups read them.
    priors: Option<PriorBuffer>,
}

pub struct BatchLogic {
    statement: usize,
    plan: Arc<QueryPlan>,
    label: Name,
    /// The batch window, inside any `std:groupwin`: each key's events batch apart.
    window: WindowSpec,
    stream: u32,
    sink: u32,
    vars: Arc<Row>,
    /// The engine millisecond of the epoch being handled ([`Logic::begin`]), which `current_timestamp()` reads.
    now: i64,
    release: Release,
    per_event: PerEvent,
    state: BatchState,
    /// The previous-event functions a release reads off its batch: then `WHERE` and the groups read them.
    prevs: Option<Prevs>,
    /// The output policy of a query without aggregates, each release a batch of rows for it.
    rate: Option<Rated>,
    /// The output policy of a fully aggregated query, each release touching groups.
    paced: Option<PacedGroups>,
    /// Rows that left, kept for the worker's reaper until the epoch ends.
    done: Leftovers,
}

impl BatchLogic {
    /// The query `plan` over `input`, whose window is a batch window, alone or inside `std:groupwin`, created at
    /// `created_ms`.
    pub fn new(
        statement: usize,
        (plan, created_ms): (Arc<QueryPlan>, i64),
        input: &StreamInput,
        ids: (u32, u32),
        vars: Arc<Row>,
    ) -> Self {
        let window = input.window.clone().expect("a batch window: WindowSpec::batches");
        let release = match batch_window(&window) {
            WindowSpec::TimeBatch { millis } => Release::Time((*millis).max(1) as i64),
            WindowSpec::LengthBatch { count } => Release::Length((*count).max(1) as usize),
            WindowSpec::TimeLengthBatch { millis, count } => {
                Release::TimeLength { period: (*millis).max(1) as i64, count: (*count).max(1) as usize }
            }
            WindowSpec::ExtTimedBatch { millis, reference, .. } => {
                Release::Stamped { period: (*millis).max(1) as i64, reference: *reference }
            }
            _ => unreachable!("a batch window: WindowSpec::batches"),
        };
        let paced = PacedGroups::of(&plan, created_ms);
        let rate =
            (plan.output.is_some() && paced.is_none()).then(|| Rated::new(statement, ids.1, (&plan, created_ms)));
        BatchLogic {
            statement,
            label: input.label.clone(),
            window,
            stream: ids.0,
            sink: ids.1,
            release,
            per_event: PerEvent::new(&plan, input, &vars),
            state: BatchState { priors: PriorBuffer::of(input), ..BatchState::default() },
            prevs: Prevs::of(input),
            rate,
            paced,
            done: Leftovers::for_this_thread(),
            plan,
            vars,
            now: 0,
        }
    }

    fn event(&mut self, emit: &mut Emit, epoch: u64, stamp: Stamp, row: Row) {
        if !self.per_event.filter.as_ref().is_none_or(|e| e.holds(&[&row], &[], &self.vars, Some(self.now))) {
            self.done.add(std::iter::once(row));
            return;
        }
        let at_stamp = self.per_event.stamp(&row, &self.vars);
        if at_stamp == Some(None) {
            self.done.add(std::iter::once(row));
            return;
        }
        let at = self.place(&row);
        let statement = self.statement;
        if let (Release::Stamped { period, reference }, Some(Some(at_stamp))) = (self.release, at_stamp)
            && self.state.keys[at].stamped.releases(at_stamp, period, reference)
        {
            self.release_out(emit, epoch, at, |i| stamp.child(statement, i));
        }
        self.collect(at, row);
        match self.release {
            Release::Length(n) if self.state.keys[at].collected.events >= n => {
                self.release_out(emit, epoch, at, |i| stamp.child(statement, i));
            }
            Release::TimeLength { period, count } if self.state.keys[at].collected.events >= count => {
                self.stop_clock(at);
                self.release_out(emit, epoch, at, |i| stamp.child(statement, i));
                self.set_clock(at, epoch, millis(epoch) + period);
            }
            Release::TimeLength { period, .. } if self.state.keys[at].due.is_none() => {
                self.set_clock(at, epoch, millis(epoch) + period);
            }
            Release::Length(_) | Release::TimeLength { .. } | Release::Stamped { .. } => {}
            Release::Time(period) => self.start_clock(at, epoch, period),
        }
    }

    /// The state of a statement that has seen nothing: no batches, its `prior` buffer empty.
    fn fresh_state(&self) -> BatchState {
        let priors = self.state.priors.as_ref().map(PriorBuffer::emptied);
        BatchState { priors, ..BatchState::default() }
    }

    /// Where the batches of `row`'s key are, made if it is the key's first event.
    fn place(&mut self, row: &Row) -> usize {
        let key = view_state_key(Some(&self.window), self.label.as_str(), row, &self.vars);
        let BatchState { keys, index, .. } = &mut self.state;
        *index.entry(key).or_insert_with(|| {
            keys.push(Batches::default());
            keys.len() - 1
        })
    }

    /// Adds an event to key `at`'s collected batch: unposted, if the statement reads `prior`, else [`Self::keep`].
    fn collect(&mut self, at: usize, row: Row) {
        let collected = &mut self.state.keys[at].collected;
        collected.events += 1;
        match self.state.priors.is_some() || self.prevs.is_some() {
            true => collected.unposted.push(row),
            false => self.keep(at, row),
        }
    }

    /// Keeps a row of key `at`'s collected batch, with its group, if it passes WHERE.
    fn keep(&mut self, at: usize, row: Row) {
        if !self.passes_where(&row) {
            self.done.add(std::iter::once(row));
            return;
        }
        let group = self.group_of(&row);
        self.state.keys[at].collected.rows.push((group, row));
    }

    fn passes_where(&self, row: &Row) -> bool {
        self.per_event.where_.as_ref().is_none_or(|e| e.holds(&[row], &[], &self.vars, Some(self.now)))
    }

    fn group_of(&self, row: &Row) -> Key {
        let by = &self.per_event.group_by;
        key::of_values(by.len(), by.iter().map(|e| e.eval(&[row], &[], &self.vars, None)))
    }

    /// The events collected since their keys' last releases that pass WHERE, with their groups: keys in the order of
    /// their first events, each batch in arrival order. A statement reading `prior` or `prev` keeps them unposted, so
    /// in a snapshot `prior` reads null on them (`prev` is refused under an output policy), as Esper's prior view
    /// has not seen them.
    fn collected(&self) -> Vec<(Key, &Row)> {
        let mut rows = Vec::new();
        for Batches { collected, .. } in &self.state.keys {
            rows.extend(collected.rows.iter().map(|(group, row)| (group.clone(), row)));
            let unposted = collected.unposted.iter().filter(|row| self.passes_where(row));
            rows.extend(unposted.map(|row| (self.group_of(row), row)));
        }
        rows
    }

    /// Posts key `at`'s collected events, in order, as its release does: each given its priors, then [`Self::keep`]
    /// reads `WHERE` and its group (Esper's prior view counts a batch's events as the batch window posts them).
    fn post_collected(&mut self, at: usize) {
        let unposted = mem::take(&mut self.state.keys[at].collected.unposted);
        let posted: Vec<Row> = match self.state.priors.as_mut() {
            Some(priors) => unposted.iter().map(|row| priors.post(row)).collect(),
            None => unposted.clone(),
        };
        self.done.add(unposted.into_iter());
        let Some(prevs) = self.prevs.take() else {
            posted.into_iter().for_each(|row| self.keep(at, row));
            return;
        };
        for i in 0..posted.len() {
            let read = prevs.read(&posted[i], |j| &posted[j], posted.len(), i);
            self.keep(at, read);
        }
        self.prevs = Some(prevs);
        self.done.add(posted.into_iter());
    }

    /// Sets the next release of key `at`'s time batch, unless it is set: at the first period end after `epoch`,
    /// counted from the key's first event.
    fn start_clock(&mut self, at: usize, epoch: u64, period: i64) {
        let now = millis(epoch);
        let batches = &mut self.state.keys[at];
        let start = *batches.start.get_or_insert(now);
        if batches.due.is_none() {
            self.set_clock(at, epoch, start + ((now - start).div_euclid(period) + 1) * period);
        }
    }

    /// Sets key `at`'s next release, which it lacks, at `end`.
    fn set_clock(&mut self, at: usize, epoch: u64, end: i64) {
        let due = due_epoch(end, epoch);
        self.state.keys[at].due = Some(due);
        self.state.clocks.insert((due, at));
    }

    /// Stops key `at`'s clock, if it runs.
    fn stop_clock(&mut self, at: usize) {
        if let Some(due) = self.state.keys[at].due.take() {
            self.state.clocks.remove(&(due, at));
        }
    }

    /// Fires what is due by `epoch`: the periods that end, then the output policy's tick.
    fn fire_due(&mut self, emit: &mut Emit, epoch: u64) {
        self.fire_periods(emit, epoch);
        self.fire_rate(emit, epoch);
        self.fire_paced(emit, epoch);
    }

    /// Ends the periods due by `epoch`, in the order of the keys' first events: each releases its key's batch
    /// unless neither it nor the one before holds an event, which stops the key's clock instead. The rows of all
    /// the releases go under one tick stamp, in order.
    fn fire_periods(&mut self, emit: &mut Emit, epoch: u64) {
        let (Release::Time(period) | Release::TimeLength { period, .. }) = self.release else {
            return;
        };
        let (stamp, statement) = (Stamp::tick(self.statement, self.state.releases), self.statement);
        let mut made = 0;
        while let Some((_, at)) = self.state.clocks.first().copied().filter(|(due, _)| *due <= epoch) {
            self.state.clocks.remove(&(self.state.keys[at].due.take().expect("a running clock"), at));
            let batches = &mut self.state.keys[at];
            if batches.collected.events == 0 && batches.released.events == 0 {
                continue;
            }
            let due = due_epoch(millis(epoch) + period, epoch);
            batches.due = Some(due);
            self.state.clocks.insert((due, at));
            let first = made;
            made += self.release_out(emit, epoch, at, |i| stamp.child(statement, first + i));
        }
        if made > 0 {
            self.state.releases += 1;
        }
    }

    /// Releases key `at`'s batch: what goes out now is stamped by `stamp(i)`, and the rest goes to the output policy.
    /// Answers how many stamps it used.
    fn release_out(&mut self, emit: &mut Emit, epoch: u64, at: usize, stamp: impl Fn(usize) -> Stamp) -> usize {
        let released = self.release(at);
        // The rows a release replaces (`SELECT RSTREAM`) run on the clock its new rows would have started.
        let started = removes(&self.plan) && !self.state.keys[at].released.rows.is_empty();
        if let Some(rate) = self.rate.as_mut().filter(|_| started) {
            rate.start(epoch);
        }
        let offer = match (released, self.paced.take()) {
            (Released::Offered(offer), Some(paced)) => (offer, paced),
            (Released::Offered(Offer::Groups(touches)), None) => {
                let rows = touches.into_iter().filter_map(|touch| touch.row).collect();
                return self.send(emit, epoch, rows, stamp);
            }
            (Released::Offered(Offer::Events { .. }), None) => unreachable!("events are offered to a policy"),
            (Released::Rows(rows), paced) => {
                self.paced = paced;
                return self.send(emit, epoch, rows, stamp);
            }
        };
        let (offer, mut paced) = offer;
        let calls = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
        let rows = paced.offer(offer, epoch, |group, event| self.row(event, &self.values(calls, group)));
        self.paced = Some(paced);
        let rows = order::ordered(rows, &self.plan.order_by);
        let made = rows.len();
        for (i, row) in rows.into_iter().enumerate() {
            emit.event(stamp(i), self.sink, row);
        }
        made
    }

    /// The rows of one release, with their `ORDER BY` keys, each stamped by `stamp(i)`: out in `ORDER BY` order, or
    /// to the output policy as one batch. Answers how many stamps it used.
    fn send(
        &mut self,
        emit: &mut Emit,
        epoch: u64,
        rows: Vec<(Vec<Val>, Row)>,
        stamp: impl Fn(usize) -> Stamp,
    ) -> usize {
        let made = rows.len();
        match &mut self.rate {
            None => {
                for (i, row) in order::ordered(rows, &self.plan.order_by).into_iter().enumerate() {
                    emit.event(stamp(i), self.sink, row);
                }
            }
            Some(rate) => {
                let batch = rows.into_iter().enumerate();
                let stamped = batch.map(|(i, (keys, row))| (stamp(i), order::with_keys(row, keys)));
                rate.offer(emit, epoch, stamped.collect());
            }
        }
        made
    }

    /// A fully aggregated query's output tick, if it is due by `epoch`: the rows its policy kept, then the rows of
    /// the groups it names as they stand, ranked as the reference ranks them ([`by_tick_rank`]), or its snapshot
    /// ([`BatchLogic::snapshot_groups`]), all in `ORDER BY` order.
    fn fire_paced(&mut self, emit: &mut Emit, epoch: u64) {
        let Some(mut paced) = self.paced.take() else {
            return;
        };
        if let Some(stamp) = paced.clock.tick(epoch, self.statement, paced.every) {
            let Ticked { mut rows, groups } = paced.policy.tick(|group| self.state.groups.contains_key(group));
            let calls = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
            let by = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
            let ranked = by_tick_rank(groups, |(_, event)| Some(key_of(by, self.label.as_str(), event, &self.vars)));
            rows.extend(ranked.iter().filter_map(|(_, (group, event))| self.row(event, &self.values(calls, group))));
            if self.snapshots() {
                rows.extend(self.snapshot_groups(calls));
            }
            for (i, row) in order::ordered(rows, &self.plan.order_by).into_iter().enumerate() {
                emit.event(stamp.child(self.statement, i), self.sink, row);
            }
        }
        self.paced = Some(paced);
    }

    /// The output policy's tick, if it is due by `epoch`: what the policy kept, or under `OUTPUT SNAPSHOT` a row of
    /// every collected event that passes WHERE ([`BatchLogic::collected`]), each with its group's aggregates as they
    /// stand, as the reference's.
    fn fire_rate(&mut self, emit: &mut Emit, epoch: u64) {
        if self.rate.as_ref().and_then(|rate| rate.due(epoch)).is_none() {
            return;
        }
        let snapshot = match self.snapshots() {
            true => {
                let calls = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
                let collected = self.collected().into_iter();
                let rows = collected.filter_map(|(group, row)| self.row(row, &self.values(calls, &group)));
                order::ordered(rows.collect(), &self.plan.order_by)
            }
            false => Vec::new(),
        };
        if let Some(rate) = &mut self.rate {
            rate.fire_with(emit, epoch, snapshot);
        }
    }

    /// Key `at`'s collected batch becomes its part of the view's contents, and the one it replaces leaves: the rows
    /// this gives, with their `ORDER BY` keys; fully aggregated, the groups it touched, each with its row.
    fn release(&mut self, at: usize) -> Released {
        self.post_collected(at);
        if self.plan.forgets_emptied_groups() && !self.state.keys[at].collected.rows.is_empty() {
            // Rows enter the aggregates before the released ones leave: the groups earlier releases emptied start
            // afresh, their ever forms too (Esper's refcounted groups).
            self.state.groups.retain(|_, acc| !acc.is_empty());
        }
        let batches = &mut self.state.keys[at];
        let mut old = mem::replace(&mut batches.released, mem::take(&mut batches.collected));
        batches.released.release_number = self.state.released;
        self.state.released += 1;
        if let Some(prevs) = &self.prevs {
            old.rows.iter_mut().for_each(|(_, row)| *row = prevs.nulled(row));
        }
        let plan = self.plan.clone();
        let released = match plan.aggregation.as_ref().map(|a| (&a.kind, &a.aggregates[..])) {
            // `SELECT RSTREAM`: the rows the release replaced.
            None if removes(&plan) => {
                Released::Rows(old.rows.iter().filter_map(|(_, row)| self.row(row, &[])).collect())
            }
            None => Released::Rows(
                self.state.keys[at].released.rows.iter().filter_map(|(_, row)| self.row(row, &[])).collect(),
            ),
            // `SELECT RSTREAM` of a fully aggregated query: the rows of the groups the release touches, before it.
            Some((AggregationKind::FullyAggregated, calls)) if removes(&plan) => {
                let groups = Groups::seen(&self.state.keys[at].released.rows, &old.rows);
                let before =
                    groups.rows.iter().filter_map(|(group, event)| self.row(event, &self.values(calls, group)));
                let rows = Released::Rows(before.collect());
                self.leave(&old);
                self.enter(calls, at);
                rows
            }
            Some((kind, calls)) => {
                self.leave(&old);
                self.enter(calls, at);
                let new = &self.state.keys[at].released.rows;
                let groups = Groups::seen(new, &old.rows);
                let values: Vec<Vec<Val>> = groups.rows.iter().map(|(group, _)| self.values(calls, group)).collect();
                match kind {
                    AggregationKind::FullyAggregated => {
                        let touch = |((group, event), values): ((Key, Row), Vec<Val>)| Touch {
                            row: self.row(&event, &values),
                            emptied: !self.state.groups.contains_key(&group),
                            group,
                            event,
                        };
                        Released::Offered(Offer::Groups(groups.rows.into_iter().zip(values).map(touch).collect()))
                    }
                    AggregationKind::WithUngroupedColumns(_) if self.paced.is_some() => {
                        let touch = |(group, event): &(Key, Row)| Touch {
                            row: self.row(event, &values[groups.index[group]]),
                            emptied: !self.state.groups.contains_key(group),
                            group: group.clone(),
                            event: event.clone(),
                        };
                        let new = new.iter().map(touch).collect();
                        Released::Offered(Offer::Events { new, old: old.rows.iter().map(touch).collect() })
                    }
                    // Under `SELECT RSTREAM`, the replaced rows, with the aggregates over the new batch.
                    AggregationKind::WithUngroupedColumns(_) => {
                        let events = if removes(&plan) { &old.rows } else { new };
                        let rows = events.iter().filter_map(|(group, row)| self.row(row, &values[groups.index[group]]));
                        Released::Rows(rows.collect())
                    }
                }
            }
        };
        self.done.add(old.rows.into_iter().map(|(_, row)| row));
        released
    }

    /// The rows of a released batch leave their groups' aggregates; a group left with none is forgotten, unless its
    /// ever forms keep values.
    fn leave(&mut self, batch: &Batch) {
        for (i, (group, row)) in batch.rows.iter().enumerate() {
            let Some(acc) = self.state.groups.get_mut(group) else {
                continue;
            };
            let args: Vec<Val> = self.per_event.args(row, &self.vars).map(Cow::into_owned).collect();
            acc.remove(batch.number_of(i), &args);
            if acc.is_empty() && !acc.keeps_ever() {
                self.state.groups.remove(group);
            }
        }
    }

    /// The rows key `at` released enter their groups' aggregates. After [`BatchLogic::leave`]: a batch alone empties
    /// its groups first, so their sums restart from zero and add up in order, as the reference evaluator's do.
    fn enter(&mut self, calls: &[AggregateCall], at: usize) {
        let BatchState { keys, groups, .. } = &mut self.state;
        let released = &keys[at].released;
        for (i, (group, row)) in released.rows.iter().enumerate() {
            let acc = groups.entry(group.clone()).or_insert_with(|| Accumulators::new(calls));
            acc.add(released.number_of(i), self.per_event.args(row, &self.vars));
        }
    }

    fn snapshots(&self) -> bool {
        self.plan.output.as_ref().is_some_and(|o| o.kind == OutputKind::Snapshot)
    }

    /// `OUTPUT SNAPSHOT` of a fully aggregated query, as the reference's: without `GROUP BY` its one row as it stands;
    /// with it, the row of each group of the collected events, once, from the first of its events whose row passes
    /// HAVING.
    fn snapshot_groups(&self, calls: &[AggregateCall]) -> Vec<(Vec<Val>, Row)> {
        if self.per_event.group_by.is_empty() {
            let group = self.group_of(&Row::default());
            return self.row(&Row::default(), &self.values(calls, &group)).into_iter().collect();
        }
        let mut seen = HashSet::new();
        let collected = self.collected().into_iter();
        let row = |(group, row): (Key, &Row)| self.row(row, &self.values(calls, &group)).filter(|_| seen.insert(group));
        collected.filter_map(row).collect()
    }

    /// `group`'s aggregates over the view's contents: a count 0 and other aggregates null when it has no row there.
    fn values(&self, calls: &[AggregateCall], group: &Key) -> Vec<Val> {
        self.state.groups.get(group).map_or_else(|| over_no_rows(calls), |acc| acc.values(calls))
    }

    /// The row of `event` with `aggregates` and its `ORDER BY` keys, if it passes HAVING.
    fn row(&self, event: &Row, aggregates: &[Val]) -> Option<(Vec<Val>, Row)> {
        let having = self.plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
        let binding = [(self.label.as_str(), event)];
        let scope = Scope { rows: &binding, aggregates, vars: &self.vars, pinned: &[], now: Some(self.now) };
        holds(having, &scope)
            .then(|| (order::keys(&self.plan.order_by, &scope), project(&self.plan.projection, &scope)))
    }
}

/// What a release gives: rows, or what it offers an output policy (fully aggregated, the groups it touched, each with
/// its row, also without one).
enum Released {
    Rows(Vec<(Vec<Val>, Row)>),
    Offered(Offer<Key>),
}

/// What a replacing dataflow's statement adopts: the state, its output policy's, if any.
type Carried = (BatchState, Option<RateState>, Option<PacedGroups>);

/// A fully aggregated query's output policy ([`BatchPace`]) and its clock, which the first release touching a group at
/// or after `AFTER`'s time starts.
#[derive(Debug)]
struct PacedGroups {
    policy: BatchPace<Key>,
    clock: Clock,
    every: i64,
    not_before: Option<i64>,
}

impl PacedGroups {
    fn of(plan: &QueryPlan, created_ms: i64) -> Option<Self> {
        let every = plan.output.as_ref().map_or(1, |o| o.every_millis.max(1) as i64);
        let not_before = not_before(plan, created_ms);
        BatchPace::of(plan).map(|policy| PacedGroups { policy, clock: Clock::default(), every, not_before })
    }

    /// A release in `epoch` offered `offer`: the rows that go out now (`make` makes a group's row from an event).
    fn offer(
        &mut self,
        offer: Offer<Key>,
        epoch: u64,
        make: impl Fn(&Key, &Row) -> Option<(Vec<Val>, Row)>,
    ) -> Vec<(Vec<Val>, Row)> {
        let early = self.not_before.is_some_and(|at| millis(epoch) < at);
        if !early && !offer.is_empty() {
            self.clock.start(epoch, self.every);
        }
        self.policy.offer(offer, millis(epoch), early, make)
    }
}

/// The batch window inside any `std:groupwin`.
fn batch_window(window: &WindowSpec) -> &WindowSpec {
    match window {
        WindowSpec::Grouped { inner, .. } => batch_window(inner),
        window => window,
    }
}

/// The groups a release sees, in order of first sight, each with the last of its events seen.
#[derive(Default)]
struct Groups {
    index: HashMap<Key, usize, RandomState>,
    rows: Vec<(Key, Row)>,
}

impl Groups {
    /// The groups of the released batch's rows `new` and then of `old`'s.
    fn seen(new: &[(Key, Row)], old: &[(Key, Row)]) -> Self {
        let mut groups = Groups::default();
        for (group, row) in new.iter().chain(old) {
            match groups.index.get(group) {
                Some(&at) => groups.rows[at].1 = row.clone(),
                None => {
                    groups.index.insert(group.clone(), groups.rows.len());
                    groups.rows.push((group.clone(), row.clone()));
                }
            }
        }
        groups
    }
}

impl Logic for BatchLogic {
    /// A time batch's periods end, and then the output policy ticks, among the epoch's records
    /// ([`Stamp::goes_before`]) or after them: a release due with a tick goes in the tick's interval, as the
    /// reference fires a batch's period end before its statement's tick due with it.
    fn begin(&mut self, epoch: u64) {
        self.now = millis(epoch);
    }

    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        let due = self.next_timer().filter(|at| *at <= epoch);
        if Stamp::goes_before(due.map(|_| Stamp::tick(self.statement, self.state.releases)), &record) {
            self.fire_due(emit, epoch);
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
        let period = self.state.clocks.first().map(|(due, _)| *due);
        let ticks = [self.rate.as_ref().and_then(Rated::next_timer), self.paced.as_ref().and_then(|p| p.clock.next())];
        [period].into_iter().chain(ticks).flatten().min()
    }

    /// See [`BatchLogic::record`].
    fn fire(&mut self, _emit: &mut Emit, _epoch: u64) {}

    fn records_done(&mut self, emit: &mut Emit, epoch: u64) {
        self.fire_due(emit, epoch);
    }

    fn export(&mut self) -> Option<State> {
        let rate = self.rate.as_mut().map(|rate| mem::take(rate.kept()));
        let fresh = self.fresh_state();
        Some(Box::new((mem::replace(&mut self.state, fresh), rate, self.paced.take())))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(carried) = state.downcast::<Carried>() {
            let (state, kept, paced) = *carried;
            self.state = state;
            if paced.is_some() {
                self.paced = paced;
            }
            if let (Some(rate), Some(kept)) = (&mut self.rate, kept) {
                *rate.kept() = kept;
            }
        }
    }

    fn stop(&mut self) {
        self.state = self.fresh_state();
        self.paced = None;
        if let Some(rate) = &mut self.rate {
            *rate.kept() = RateState::default();
        }
    }
}

//! The join statements that look up one stream `B`, run together in one operator. Each statement (a member) keeps
//! its own lookup view of `B` (the reference's [`Joiner`], so a lookup, and the aggregation of a trigger's rows, mean
//! the same in both runtimes; `reference::lookup_tests` checks them against a model); the operator hands them, in
//! stamp order, `B`'s events from outside the group, the driving events or pattern matches of every member, and the
//! rows the members themselves insert into `B`.
//!
//! Those self-inserted rows are what makes this one operator rather than a cycle in the graph: a member's row is
//! stamped as a child of its trigger, so it sorts after that trigger and before the next input, exactly where the
//! reference's insert-into queue delivers it. The operator keeps such rows pending and applies each to every
//! member's view just before the first record stamped after it (or at the next epoch), so the trigger that produced
//! a row never sees it and the next one does. When the group is keyed, a member's row carries its trigger's key
//! (the compiler checks the projection), so the row belongs to the worker that produced it.
//!
//! Each member has a control of its own ([`Control::member`](super::operator::Control::member)), so a member whose
//! statement is kept across a replacement carries its view (and its quiet time) into the replacing dataflow's group,
//! as long as that group is split over the workers by the same key (`Program::kept_from`). A member that starts
//! there while the named window it looks up is kept fills its view from the rows the window holds, which the window
//! sends once, stamped as their last writes (`join::held_by`): the view it would have had reading them all along.
//!
//! Hand-written rather than differential-dataflow's arrangement of the last row per key (`arrange_from_upsert`)
//! joined with the triggers: differential could give the order above only with a timestamp per event.
//! `benches/join.rs` (`benches/results/join.md`, 2026-12-02) looked up the last state of 10,000 keys for batches of
//! 10, 100 and 1,000 events, half of them updates: the upsert arrangement did 142 k / 427 k / 717 k events/s, a hash
//! map of the last state in one timely operator 2.2 M / 13.8 M / 31.7 M. The views here are indexed so (by view key,
//! and by the looked-up column `ON` equates with the trigger): the same bench's `engine` form, this operator with the
//! ingest rows and a round trip to its worker, ran 139 k–348 k events/s in four runs, where the views that read all
//! their rows for each insert and each trigger ran 1.5 k–3.4 k (`join.md`, forty-eighth session). With a
//! stream-driven statement's expressions compiled and the rows in a slab, it ran 235 k–504 k in two full runs,
//! 0.58–1.77 times the upsert arrangement's rate in the same runs (forty-ninth session).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::distinct::first_of_each;
use super::gate::Gate;
use super::operator::{Emit, Logic, State};
use super::rated::{RateState, Rated};
use super::record::{Record, Stamp, millis};
use crate::cep::plan::{JoinPlan, PlanExpr, QueryPlan, WindowSpec};
use crate::cep::reference::join::{Batch, Handed, Joiner, LookupView};
use crate::cep::runtime::Row;

/// One join statement of the group.
#[derive(Debug)]
pub struct Member {
    pub statement: usize,
    /// The member's private stream: its driving events (retagged) or its pattern's matches.
    pub trigger: u32,
    pub joiner: Joiner,
    pub sink: u32,
    /// With `OUTPUT AFTER d` alone, the millisecond before which its rows are dropped (`quiet`).
    pub quiet_until: Option<i64>,
    /// Its output policy, which its rows go through (`rated`).
    pub rate: Option<Rated>,
    /// Whether it is `SELECT DISTINCT`.
    pub distinct: bool,
}

#[derive(Debug)]
pub struct JoinLogic {
    members: Vec<Member>,
    /// The looked-up stream.
    lookup: u32,
    /// The rows deleted from it, when it is a named window (`join::removed_from`).
    removed: Option<u32>,
    /// The rows it holds, when it is a named window kept across a replacement (`join::held_by`).
    held: Option<u32>,
    /// Whether a member has an output policy, whose ticks fire among the records.
    paced: bool,
    /// The `DISTINCT` members, as (statement, sink): their rows of a batch are compared once the epoch's are made.
    distinct: Vec<(usize, u32)>,
    vars: Arc<Row>,
    /// Rows members inserted into the looked-up stream, not yet in the views: by stamp, with their millisecond.
    pending: BTreeMap<Stamp, (i64, Row)>,
    epoch: u64,
}

impl JoinLogic {
    /// The group of `members` looking up stream `lookup`, whose deleted rows and held rows (of a named window) come
    /// on `removed` and `held`.
    pub fn new(members: Vec<Member>, (lookup, removed, held): (u32, Option<u32>, Option<u32>), vars: Arc<Row>) -> Self {
        let paced = members.iter().any(|m| m.rate.is_some());
        let distinct = members.iter().filter(|m| m.distinct).map(|m| (m.statement, m.sink)).collect();
        JoinLogic { members, lookup, removed, held, paced, distinct, vars, pending: BTreeMap::new(), epoch: 0 }
    }

    fn enter(&mut self, ms: i64, row: &Row) {
        for member in &mut self.members {
            member.joiner.view.insert(ms, row, &self.vars);
        }
    }

    /// Applies the pending rows stamped before `stamp` (all of them when the epoch changed).
    fn catch_up(&mut self, epoch: u64, stamp: &Stamp) {
        if epoch != self.epoch {
            self.epoch = epoch;
            let all = std::mem::take(&mut self.pending);
            all.into_values().for_each(|(ms, row)| self.enter(ms, &row));
        }
        while let Some(entry) = self.pending.first_entry().filter(|e| e.key() < stamp) {
            let (ms, row) = entry.remove();
            self.enter(ms, &row);
        }
    }

    /// Emits the rows trigger `n` of `stamp` (a driving event's, or a pattern's `n`th match) of member `m` hands on,
    /// or offers them to its output policy as one batch.
    fn emit(&mut self, emit: &mut Emit, epoch: u64, stamp: &Stamp, (m, n): (usize, u32), handed: Handed) {
        let Some(batch) = handed else {
            return;
        };
        let member = &mut self.members[m];
        if member.quiet_until.is_some_and(|until| millis(epoch) < until) {
            return;
        }
        let rows = match (batch, &mut member.rate) {
            (Batch::Groups(groups), Some(rate)) => return rate.offer_groups(epoch, groups),
            (batch, _) => batch.into_rows(),
        };
        let (statement, sink) = (member.statement, member.sink);
        // Match-major, row-minor: the order the reference numbers one trigger's rows in.
        let child = |i: usize| stamp.child(statement, ((n.min(0xff_ffff) as usize) << 24) | i.min(0xff_ffff));
        let stamped = rows.into_iter().enumerate().map(|(i, row)| (child(i), row));
        if let Some(rate) = &mut member.rate {
            // A member with a policy does not write the stream it looks up (`rate`).
            return rate.offer(emit, epoch, stamped.collect());
        }
        for (child, row) in stamped {
            if sink == self.lookup {
                self.pending.insert(child.clone(), (millis(epoch), row.clone()));
            }
            emit.event(child, sink, row);
        }
    }

    /// Fires the members' output ticks due by `epoch` whose stamps sort before `before` (every due one without it),
    /// in stamp order.
    fn tick(&mut self, emit: &mut Emit, epoch: u64, before: Option<&Stamp>) {
        while let Some((_, m)) = self.next_tick(epoch).filter(|(due, _)| before.is_none_or(|b| due < b)) {
            if let Some(rate) = &mut self.members[m].rate {
                rate.fire(emit, epoch);
            }
        }
    }

    /// The stamp of the first output tick due by `epoch`, and its member.
    fn next_tick(&self, epoch: u64) -> Option<(Stamp, usize)> {
        let due = |(m, member): (usize, &Member)| Some((member.rate.as_ref()?.due(epoch)?, m));
        self.members.iter().enumerate().filter_map(due).min()
    }

    fn member(&self, stream: u32) -> Option<usize> {
        self.members.iter().position(|m| m.trigger == stream)
    }
}

impl Logic for JoinLogic {
    /// By stamp; one trigger stamp can drive several members (in statement order, as tags are numbered) and complete
    /// several matches of one pattern.
    ///
    /// The standard library's stable sort, which finds runs already in order and merges them: sorting unstably by
    /// cached keys, which copied every stamp, had 7 % of the worker's samples in a profile of `benches/join.rs`
    /// (`benches/results/join.md`, forty-ninth session).
    fn sort(&self, records: &mut [Record]) {
        let rest = |r: &Record| (r.stream(), if let Record::Match { n, .. } = r { *n } else { 0 });
        records.sort_by(|a, b| Record::order(a, b).then_with(|| rest(a).cmp(&rest(b))));
    }

    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        let Some(stamp) = record.stamp().cloned() else {
            return;
        };
        if self.paced {
            self.tick(emit, epoch, Some(&stamp));
        }
        self.catch_up(epoch, &stamp);
        match record {
            Record::Event { stream, row, .. } if stream == self.lookup => self.enter(millis(epoch), &row),
            Record::Event { stream, row, .. } if Some(stream) == self.removed => {
                self.members.iter_mut().for_each(|m| m.joiner.view.remove(&row, &self.vars));
            }
            // A new member's view begins with the held rows; a kept member's has them, and taking them again in the
            // order they were written leaves it as it was.
            Record::Event { stream, row, .. } if Some(stream) == self.held => self.enter(millis(epoch), &row),
            Record::Event { stream, row, .. } => {
                if let Some(m) = self.member(stream) {
                    let rows = self.members[m].joiner.on_driving_event(millis(epoch), &row, &self.vars);
                    self.emit(emit, epoch, &stamp, (m, 0), rows);
                }
            }
            Record::Match { stream, n, bindings, .. } => {
                if let Some(m) = self.member(stream) {
                    let rows = self.members[m].joiner.rows(millis(epoch), &bindings, &self.vars);
                    self.emit(emit, epoch, &stamp, (m, n), rows);
                }
            }
            Record::Start { .. } => {}
        }
    }

    /// With the epoch's rows all made, those of the `DISTINCT` members are compared ([`first_of_each`]): the rows of
    /// a pattern's several matches at one event come from several records.
    fn records_done(&mut self, emit: &mut Emit, epoch: u64) {
        if self.paced {
            self.tick(emit, epoch, None);
        }
        if !self.distinct.is_empty() {
            let compared =
                |stamp: &Stamp, stream| stamp.statement().is_some_and(|s| self.distinct.contains(&(s, stream)));
            first_of_each(emit, 0, compared);
        }
    }

    /// Lookup views expire lazily: the only timers are the members' output ticks.
    fn next_timer(&self) -> Option<u64> {
        self.members.iter().filter_map(|m| m.rate.as_ref()?.next_timer()).min()
    }

    /// The ticks fire among the records ([`JoinLogic::tick`]), after the rows of the timers that fired before them.
    fn fire(&mut self, _emit: &mut Emit, _epoch: u64) {}

    fn stop(&mut self) {
        self.pending.clear();
        self.members.iter_mut().for_each(|m| m.joiner.view.clear());
    }

    /// A member's lookup view and quiet time. Between rounds the rows members inserted may still be pending, to be
    /// applied before the next epoch's first record: they are applied now, which is the same to every later trigger.
    fn export_member(&mut self, statement: usize) -> Option<State> {
        for (_, (ms, row)) in std::mem::take(&mut self.pending) {
            self.enter(ms, &row);
        }
        let member = self.members.iter_mut().find(|m| m.statement == statement)?;
        let rate = member.rate.as_mut().map(|r| std::mem::take(r.kept()));
        Some(Box::new(Carried { view: member.joiner.view.take(), quiet_until: member.quiet_until, rate }))
    }

    fn adopt_member(&mut self, statement: usize, state: State) {
        let Ok(carried) = state.downcast::<Carried>() else {
            return;
        };
        if let Some(member) = self.members.iter_mut().find(|m| m.statement == statement) {
            member.joiner.view = carried.view;
            member.quiet_until = carried.quiet_until;
            if let (Some(rate), Some(state)) = (&mut member.rate, carried.rate) {
                *rate.kept() = state;
            }
        }
    }
}

/// What a member carries into the dataflow replacing its own.
struct Carried {
    view: LookupView,
    quiet_until: Option<i64>,
    rate: Option<RateState>,
}

/// How a group is spread over workers when it can be: the looked-up column every member's `ON` equates with a
/// driving expression, and that expression per member.
#[derive(Debug)]
pub struct GroupKey {
    pub column: PlanExpr,
    pub drivers: Vec<PlanExpr>,
}

/// The group's key, when every member has one on the same looked-up column, every member's view splits by it, and
/// every member that writes the looked-up stream writes its trigger's key in that column (so its rows stay on the
/// worker that produced them). Otherwise the group runs on one worker.
pub fn group_key(members: &[(&QueryPlan, &JoinPlan)]) -> Option<GroupKey> {
    let (_, first) = members.first()?;
    first.keys.iter().find_map(|(_, column)| {
        let PlanExpr::Column { name, .. } = column else {
            return None;
        };
        let drivers = members.iter().map(|(q, j)| member_key(q, j, name)).collect::<Option<Vec<_>>>()?;
        Some(GroupKey { column: column.clone(), drivers })
    })
}

fn member_key(q: &QueryPlan, j: &JoinPlan, column: &str) -> Option<PlanExpr> {
    let looked_up = |e: &PlanExpr| matches!(e, PlanExpr::Column { source, name, .. } if *source == j.lookup.label && name == column);
    let (driver, lookup) = j.keys.iter().find(|(_, l)| looked_up(l))?;
    // Equal values must hash equal: both sides columns of one type.
    let same_type =
        matches!((driver, lookup), (PlanExpr::Column { ty: a, .. }, PlanExpr::Column { ty: b, .. }) if a == b);
    let splits = view_splits(j.lookup.window.as_ref(), &looked_up);
    if q.output.is_some() || q.distinct {
        // A policy's clock and rows are in one place, and so are the rows `DISTINCT` compares.
        return None;
    }
    let feeds = q.sink.stream == j.lookup.stream;
    let keeps_key = !feeds || q.projection.iter().any(|p| *p.name == *column && p.expr == *driver);
    (same_type && splits && keeps_key).then(|| driver.clone())
}

/// Whether rows that differ in the key column never displace each other in the view.
fn view_splits(window: Option<&WindowSpec>, is_key: &dyn Fn(&PlanExpr) -> bool) -> bool {
    match window {
        Some(WindowSpec::Time { .. }) => true,
        Some(WindowSpec::Grouped { inner, .. }) if matches!(**inner, WindowSpec::Time { .. }) => true,
        Some(WindowSpec::Unique { keys } | WindowSpec::Grouped { keys, .. }) => keys.iter().any(is_key),
        _ => false,
    }
}

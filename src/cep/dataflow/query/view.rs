//! The query's view and its groups. A row enters its group's aggregates and the view; a later row displaces it, or its
//! time runs out, and it leaves the aggregates.
//!
//! Rows in the view are entries in a slab, named by their slot; each remembers its group, whether it counts (passed
//! WHERE) and its aggregate arguments, so leaving the view is one subtraction. (A slab in place of a hash map by id:
//! the floor bench ran at 467 k events/s against 384 k, benches/results/cep.md, ninth session.) Groups are a slab too,
//! found by key through one hash lookup per arrival; an entry names its group by slot, so an expiry finds its group
//! without hashing. A time window's expiries are a queue in arrival order, `ext:time_order`'s a map by the epoch each
//! leaves at, `win:time_accum`'s a queue of its view keys' timers; the view's other displacements are maps from view
//! key to entry, or to its entries in arrival order (or, sorted, in sort order). In a time window the rows of one group
//! that arrive in one epoch leave together, so they are one entry, a pane holding their running aggregates, which
//! leaves by one subtraction: the window's memory grows with the groups and epochs it spans rather than with its rows.
//! No row in a view is read again on its own, only subtracted, so this changes nothing but the rounding of sums of
//! doubles. A group's open pane joins the group's aggregates only when its next pane opens or they are read, so a row
//! is added once, not to both: on `bench floor --per-ms 5000` the worker ran 7.5 % fewer instructions (twenty-eighth
//! session).

use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::{
    Accumulators, Args, Entry, Group, PerEvent, QueryLogic, QueryState, View, calls, count, fold, mark, millis_of,
};
use crate::cep::dataflow::operator::Emit;
use crate::cep::dataflow::record::{Stamp, due_epoch, timer_epoch};
use crate::cep::reference::TimerOrder;
use crate::cep::reference::query::{expires_before, view_state_key};
use crate::cep::runtime::eval::over_no_rows;
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::{Row, Val, order};

impl QueryLogic {
    /// Puts the row that `set` stamped in the view and then in its group (made if the displaced rows left none),
    /// dropping what it displaces; answers the group's slot, and the groups of the displaced rows that counted (in
    /// arrival order) that [`QueryLogic::remove`] answers.
    pub(super) fn enter(&mut self, set: (u64, u64), row: &Row, counts: bool) -> (usize, Vec<Key>) {
        let epoch = set.0;
        let seq = self.next_arrival() as u64;
        let leaves = match &self.state.view {
            View::All => None,
            View::Time { millis, .. } => Some(timer_epoch(millis_of(epoch) + *millis).max(epoch + 1)),
            View::Length { .. }
            | View::ExtTimed { .. }
            | View::Last { .. }
            | View::Sorted(_)
            | View::TimeOrdered { .. }
            | View::Accumulating(_) => {
                let args = Args::of_row(self.per_event.args(row, &self.vars));
                return self.enter_displacing((set, row), self.group_key(row), (counts, seq), args);
            }
        };
        let slot = match self.known_group(row) {
            Some(slot) => slot,
            None => self.group(self.group_key(row)),
        };
        let args = || self.per_event.args(row, &self.vars);
        match leaves {
            // Without a window a row never leaves, so nothing of it is kept but its part in the aggregates.
            None => count(&mut self.state.groups[slot], calls(&self.plan), (counts, seq), args()),
            Some(due) => {
                self.state.groups[slot].entries += 1;
                let at = (due, counts, (self.rows_at_changes() || self.counted).then_some(set));
                match &self.per_event.columns {
                    Some(columns) => {
                        let columns = || PerEvent::column_args(columns, row);
                        self.state.join(calls(&self.plan), (slot, seq), at, columns)
                    }
                    None => self.state.join(calls(&self.plan), (slot, seq), at, args),
                }
            }
        }
        (slot, Vec::new())
    }

    /// [`QueryLogic::enter`] for a view whose rows later rows displace. The group is found once the displaced rows
    /// are gone: they may end it. Out of line, as is [`QueryLogic::displace`]: a time window's arrivals take neither
    /// (`benches/results/cep.md`, seventy-ninth session).
    #[inline(never)]
    fn enter_displacing(
        &mut self,
        (set, row): ((u64, u64), &Row),
        group: Key,
        (counts, seq): (bool, u64),
        args: Args,
    ) -> (usize, Vec<Key>) {
        let entry = Entry { group: usize::MAX, counts, rows: 1, folded: true, due: 0, seq, args };
        let id = self.state.entries.insert(entry);
        let displaced = self.displace(id, row, set);
        let others = displaced.iter().filter(|gone| **gone != id);
        let mut left: Vec<Key> = others.filter_map(|gone| self.remove(*gone)).collect();
        let slot = self.group(group);
        let QueryState { entries, groups, .. } = &mut self.state;
        let entry = &mut entries[id];
        entry.group = slot;
        if let Some(args) = entry.args.row() {
            count(&mut groups[slot], calls(&self.plan), (counts, seq), args);
        }
        // Lengths and periods are positive, so only a sorted or time-ordered window pushes out the arrival itself.
        if displaced.contains(&id) {
            self.push_out_arrival(id, counts, &mut left);
        }
        (slot, left)
    }

    /// The arrival `id` entered the aggregates and the view pushed it out at once (a sorted or time-ordered window), as
    /// Esper enters and leaves it: it leaves them, answering its group as [`QueryLogic::remove`] would. A group it
    /// counts in stays for the arrival's rows, to end once they are made (`pushed_out`).
    #[cold]
    fn push_out_arrival(&mut self, id: usize, counts: bool, left: &mut Vec<Key>) {
        if !counts {
            return left.extend(self.remove(id));
        }
        if let Some((answer, slot)) = self.take_out(id) {
            left.extend(answer);
            self.state.pushed_out = Some(slot);
        }
    }

    /// The slot of the group of `key`, made if it has none.
    pub(super) fn group(&mut self, key: Key) -> usize {
        let QueryState { index, groups, .. } = &mut self.state;
        *index.entry(key).or_insert_with_key(|key| groups.insert(Group::new(key.clone())))
    }

    /// The slot of `row`'s group, found without making its key, when the query groups by one column and the row's
    /// value there is a text that is its own key (a floor), and the group exists: the usual case. Reading the
    /// column into a key, hashing it as a `SmolStr` and dropping it cost `bench floor` about 200 instructions an
    /// event more than this (`benches/results/cep.md`, twenty-ninth session).
    fn known_group(&self, row: &Row) -> Option<usize> {
        let [by] = self.per_event.group_by.as_slice() else {
            return None;
        };
        let key = key::own_text(by.column_of(row)?)?;
        self.state.index.get(key).copied()
    }

    /// The key of the group of `row` ([`key::of_values`]); a text key is the value itself, not formatted.
    pub(super) fn group_key(&self, row: &Row) -> Key {
        match self.per_event.group_by.as_slice() {
            [] => self.empty.clone(),
            exprs => key::of_values(exprs.len(), exprs.iter().map(|e| e.eval(&[row], &[], &self.vars, None))),
        }
    }

    /// The key of the row's place in a keyed view ([`view_state_key`]).
    pub(super) fn view_key(&self, row: &Row) -> Key {
        view_state_key(self.input.window.as_ref(), &self.input.label, row, &self.vars)
    }

    /// Records entry `id`, of `row`, arriving at epoch and position `set`, in the view; answers the entries it pushes
    /// out.
    #[inline(never)]
    pub(super) fn displace(&mut self, id: usize, row: &Row, set: (u64, u64)) -> Vec<usize> {
        let key = &self.view_key(row);
        match &mut self.state.view {
            // Their rows never come here: they stay for good, or join a time window's panes.
            View::All | View::Time { .. } => Vec::new(),
            View::Length { count, queues } => {
                let queue = queues.entry(key.clone()).or_default();
                queue.push_back(id);
                let excess = queue.len().saturating_sub(*count);
                queue.drain(..excess).collect()
            }
            View::ExtTimed { millis, queues } => {
                let stamp = self.per_event.stamp(row, &self.vars).flatten().expect("only stamped events enter");
                let queue = queues.entry(key.clone()).or_default();
                queue.push_back((stamp, id));
                let before = expires_before(stamp, *millis);
                let expired = queue.iter().take_while(|(at, _)| *at < before).count();
                queue.drain(..expired).map(|(_, id)| id).collect()
            }
            View::Last { current } => current.insert(key.clone(), id).into_iter().collect(),
            View::Sorted(sorted) => sorted.enter(key, (&self.input.label, row, &self.vars), id),
            View::TimeOrdered { millis, due } => {
                let stamp = self.per_event.stamp(row, &self.vars).flatten().expect("only stamped events enter");
                if stamp < expires_before(millis_of(set.0), *millis) {
                    return vec![id];
                }
                // A timestamp past the last millisecond an epoch can name leaves no sooner than never.
                let at = stamp.saturating_add(*millis as i64).min(millis_of(u64::MAX));
                due.insert((due_epoch(at, set.0), set), id);
                Vec::new()
            }
            View::Accumulating(accumulating) => {
                accumulating.enter(key, id, set);
                Vec::new()
            }
        }
    }

    /// Takes entry `id` out of the view and its group; when the statement's rows go by its changes (or `OUTPUT FIRST`
    /// forgets emptied groups, or rows stand for its groups), answers the group's key if the entry counted.
    pub(super) fn remove(&mut self, id: usize) -> Option<Key> {
        let (left, slot) = self.take_out(id)?;
        self.end_if_empty(slot);
        left
    }

    /// Ends group `slot`, if it is still there, when no entry is left in it and no tick will read it: without an
    /// output policy a group's last event is only read on its next arrival, which replaces it.
    pub(super) fn end_if_empty(&mut self, slot: usize) {
        let Some(g) = self.state.groups.get(slot) else {
            return;
        };
        if g.entries == 0 && (g.last_event.is_none() || self.plan.output.is_none()) {
            self.end_group(slot);
        }
    }

    /// [`QueryLogic::remove`] but for ending the group: answers what that answers, and the group's slot.
    #[inline(always)]
    fn take_out(&mut self, id: usize) -> Option<(Option<Key>, usize)> {
        // Only the output tick of a fully aggregated query reads (and empties) the list of changed groups; one whose
        // rows go by its changes keeps none.
        let at_changes = self.rows_at_changes();
        let listed = self.plan.output.is_some() && self.fully_aggregated() && !at_changes;
        let mut entry = self.state.entries.try_remove(id)?;
        let g = self.state.groups.get_mut(entry.group)?;
        if self.ever {
            // The ever forms keep the rows of a pane that leaves before it joined the group's aggregates.
            fold(&mut entry, g, calls(&self.plan));
        }
        let answers = at_changes || self.state.first.is_some() || self.represents;
        let left = (entry.counts && answers).then(|| g.key.clone());
        g.entries -= entry.rows as usize;
        if g.pane == Some(id) {
            g.pane = None;
        }
        if entry.counts {
            if let Some(count) = self.state.count.as_mut() {
                count.leave(entry.rows as usize);
            }
            if let Some(acc) = g.acc.as_mut().filter(|_| entry.folded) {
                entry.args.leave(entry.seq, acc);
                if self.forgets && acc.is_empty() {
                    self.state.emptied.push(g.key.clone());
                }
            }
            if listed {
                mark(&mut self.state.changed, g, entry.group);
            }
            g.changed |= self.represents;
        }
        Some((left, entry.group))
    }

    /// A row enters the aggregates of a statement that forgets emptied groups, before the rows it pushes out leave:
    /// the groups still with no row that counts start afresh, their ever forms too (Esper's refcounted groups, removed
    /// at the next entry), and those with no row at all end as they would have.
    pub(super) fn start_emptied_afresh(&mut self) {
        for key in std::mem::take(&mut self.state.emptied) {
            if let Some(&slot) = self.state.index.get(&key) {
                // Rows of its open pane count, though not yet in its aggregates.
                self.fold_open(slot);
                let g = &mut self.state.groups[slot];
                if g.acc.as_ref().is_some_and(Accumulators::is_empty) {
                    g.acc = None;
                    if g.entries == 0 && (g.last_event.is_none() || self.plan.output.is_none()) {
                        self.end_group(slot);
                    }
                }
            }
            if self.state.kept_aggregates.get(&key).is_some_and(Accumulators::is_empty) {
                self.state.kept_aggregates.remove(&key);
            }
        }
    }

    /// Forgets group `slot`, unless its ever forms keep values: those outlive the group's rows, without `GROUP BY`
    /// for good, with it until the statement's next row entering the aggregates ([`Self::start_emptied_afresh`]),
    /// the group gone but for them.
    pub(super) fn end_group(&mut self, slot: usize) {
        let g = &mut self.state.groups[slot];
        if g.acc.as_ref().is_some_and(Accumulators::keeps_ever) {
            if self.forgets {
                (g.last_event, g.changed) = (None, false);
            }
            return;
        }
        let group = self.state.groups.remove(slot);
        self.state.index.remove(&group.key);
    }

    /// Folds the group's open pane into its aggregates, which are about to be read.
    pub(super) fn fold_open(&mut self, slot: usize) {
        let QueryState { entries, groups, .. } = &mut self.state;
        let g = &mut groups[slot];
        if let Some(pane) = g.open_pane(entries, slot) {
            fold(pane, g, calls(&self.plan));
        }
    }

    pub(super) fn aggregates(&self, slot: usize) -> Vec<Val> {
        let calls = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
        match self.state.groups.get(slot).and_then(|g| g.acc.as_ref()) {
            Some(acc) => acc.values(calls),
            None => over_no_rows(calls),
        }
    }

    /// Lets the time window's (or `ext:time_order`'s, `win:time_accum`'s) entries due by `epoch` leave, together.
    /// With `OUTPUT FIRST`, the rows of the groups they leave go out as the reference's do at its first expiry timer,
    /// in the order of the groups' first rows to leave: each stamped by the arrival of that row, so that groups on
    /// other workers fall in between as they do there; with `ORDER BY` (on one worker) all stamped by the first to
    /// arrive, in their order.
    pub(super) fn expire(&mut self, emit: &mut Emit, epoch: u64) {
        let mut left: Vec<(Key, (u64, u64))> = Vec::new();
        let mut removed: Vec<((u64, u64), Row)> = Vec::new();
        let mut leaving: Vec<((u64, u64), usize, Row)> = Vec::new();
        let mut first_set = None;
        while let Some((id, set)) = pop_due(&mut self.state.view, epoch) {
            // Without a time window's `sets` (a statement whose expiries give no rows), the groups' keys only are read.
            let set = set.unwrap_or_default();
            first_set.get_or_insert(set);
            if self.paced_before() {
                leaving.extend(self.state.kept.remove(&id).flatten().map(|row| (set, id, row)));
            } else if self.snapshots_rows() || self.tallies() || self.keeps_to_count() {
                let row = self.state.kept.remove(&id).flatten();
                if let Some(count) = self.state.count.as_mut().filter(|_| row.is_some()) {
                    count.leave(1);
                }
                let row = row.filter(|_| self.tallies());
                if let Some(row) = &row {
                    self.tally_kept(id, row, false);
                }
                removed.extend(row.map(|row| (set, row)));
            } else {
                left.extend(self.remove(id).map(|key| (key, set)));
            }
        }
        if self.paced_before() {
            return self.expire_before_paced(emit, epoch, leaving);
        }
        if let Some(&(set, _)) = removed.first() {
            // One remove stream (or rows leaving under `OUTPUT FIRST`), stamped by the first of its rows' expiry
            // timers, as the reference lets them go.
            let batch = Stamp::timer(TimerOrder::Expiry, set, self.statement, 0);
            let gone: Vec<Row> = removed.into_iter().map(|(_, row)| row).collect();
            let rows = match self.firsts_leaving {
                true => self.first_rows(None, &gone, millis_of(epoch)),
                false => self.removed_rows(gone, millis_of(epoch)),
            };
            for (i, row) in rows.into_iter().enumerate() {
                emit.event(batch.child(self.statement, i), self.sink, row);
            }
        }
        let keys: Vec<Key> = left.iter().map(|(key, _)| key.clone()).collect();
        if self.rows_at_changes() {
            let passed = self.group_rows(millis_of(epoch), keys.clone());
            self.emit_expiry_rows(emit, &left, passed);
        }
        if !keys.is_empty() {
            self.after_leaving(&keys);
        }
        if let Some(set) = first_set.filter(|_| self.counted) {
            let released = Stamp::timer(TimerOrder::Expiry, set, self.statement, 0);
            for (i, row) in self.end_update(0).into_iter().enumerate() {
                emit.event(released.child(self.statement, i), self.sink, row);
            }
        }
    }

    /// Sends the rows a statement's expiry gives ([`QueryLogic::expire`]); `left` has each group's first row to leave.
    fn emit_expiry_rows(&self, emit: &mut Emit, left: &[(Key, (u64, u64))], passed: Vec<(Key, (Vec<Val>, Row))>) {
        let stamp = |set| Stamp::timer(TimerOrder::Expiry, set, self.statement, 0);
        if self.plan.order_by.is_empty() {
            let mut sets: HashMap<&Key, (u64, u64), RandomState> = HashMap::default();
            for (key, set) in left {
                sets.entry(key).or_insert(*set);
            }
            for (key, (_, row)) in passed {
                let set = sets.get(&key).copied().unwrap_or_default();
                emit.event(stamp(set).into_child(self.statement, 0), self.sink, row);
            }
            return;
        }
        let Some((_, set)) = left.first() else {
            return;
        };
        let batch = stamp(*set);
        let rows = order::ordered(passed.into_iter().map(|(_, row)| row).collect(), &self.plan.order_by);
        for (i, row) in rows.into_iter().enumerate() {
            emit.event(batch.child(self.statement, i), self.sink, row);
        }
    }
}

/// The next entry of a time window, `ext:time_order` or `win:time_accum` due to leave by `epoch`, taken out of the
/// view's queue, with the place of the arrival whose timer lets it go when the view keeps that.
fn pop_due(view: &mut View, epoch: u64) -> Option<(usize, Option<(u64, u64)>)> {
    match view {
        View::Time { queue, sets, .. } => {
            let (_, id) = queue.front().filter(|(at, _)| *at <= epoch).copied()?;
            queue.pop_front();
            Some((id, sets.pop_front()))
        }
        View::TimeOrdered { due, .. } => {
            let first = due.first_entry().filter(|first| first.key().0 <= epoch)?;
            let ((_, set), id) = first.remove_entry();
            Some((id, Some(set)))
        }
        View::Accumulating(accumulating) => accumulating.pop_due(epoch).map(|(id, set)| (id, Some(set))),
        _ => None,
    }
}

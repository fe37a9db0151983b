//! The rows a query gives at an arrival or at a change of its groups, at once or held for the output tick as its policy
//! says: an arrival's row without `OUTPUT`, the first of a group's under `OUTPUT FIRST`, the interval's under `ALL` and
//! the default, each group's last under `LAST`. Under `OUTPUT ALL` a grouped query with ungrouped columns keeps each
//! group's last arrival, whose row stands for the group when rows of it leave and at ticks the interval left it
//! untouched.

use std::collections::HashSet;

use foldhash::fast::RandomState;

use super::{QueryLogic, QueryState, mark};
use crate::cep::dataflow::aggregate::Accumulators;
use crate::cep::plan::{Aggregation, AggregationKind, OutputKind};
use crate::cep::runtime::eval::{Scope, holds, project};
use crate::cep::runtime::key::Key;
use crate::cep::runtime::{Row, Val, order};

impl QueryLogic {
    /// What rows of the groups of `keys` leaving the view (each counted) leave to do: the groups' rows kept for the
    /// tick ([`QueryLogic::hold_group_rows`]), and the groups they emptied forgotten. Nothing, mostly, which its
    /// callers check first: an arrival that pushes no row out made a call all the same, 17 instructions an event of
    /// `bench floor` (the compiler does not inline it).
    pub(super) fn after_leaving(&mut self, keys: &[Key]) {
        self.hold_group_rows(keys);
        self.forget_emptied(keys);
    }

    /// Keeps for the tick the rows of the groups of `keys` (each once, in the order they lost rows) of a query that
    /// [`represents_groups`](crate::cep::reference::query::represents_groups), once the rows that leave together have
    /// left.
    fn hold_group_rows(&mut self, keys: &[Key]) {
        if !self.represents {
            return;
        }
        let mut seen: HashSet<&Key, RandomState> = HashSet::default();
        for key in keys.iter().filter(|k| seen.insert(*k)) {
            let Some(&slot) = self.state.index.get(key) else {
                continue;
            };
            self.fold_open(slot);
            let row = self.keyed_group_row(slot);
            self.state.interval.extend(row);
        }
    }

    /// Notes a fully aggregated group's row that counted; answers the group's key.
    pub(super) fn note_row(&mut self, row: &Row, slot: usize) -> Key {
        self.keep_group_row(row, slot);
        self.state.groups[slot].key.clone()
    }

    /// The rows, with their `ORDER BY` keys, of the groups of `keys` (in the order they changed, each once) at a
    /// change: those `OUTPUT FIRST` lets out at `now`, in that order (none before `OUTPUT AFTER`'s time); under the
    /// other policies none now, all kept for the tick.
    pub(super) fn group_rows(&mut self, now: i64, mut keys: Vec<Key>) -> Vec<(Key, (Vec<Val>, Row))> {
        if keys.is_empty() {
            return Vec::new();
        }
        self.state.updated = true;
        let mut seen: HashSet<Key, RandomState> = HashSet::default();
        keys.retain(|k| seen.insert(k.clone()));
        let mut rows = Vec::with_capacity(keys.len());
        for key in keys {
            let Some(&slot) = self.state.index.get(&key) else {
                continue;
            };
            self.fold_open(slot);
            rows.extend(self.keyed_group_row(slot).map(|row| (key, row)));
        }
        let Some(first) = self.state.first.as_mut() else {
            self.state.interval.extend(rows.into_iter().map(|(_, row)| row));
            return Vec::new();
        };
        if self.state.not_before.is_some_and(|at| now < at) {
            return Vec::new();
        }
        rows.retain(|(key, _)| first.passes(key, now));
        rows
    }

    /// Forgets the `OUTPUT FIRST` state of the groups of `keys` left with no row that counts in the view, and ends
    /// those left with no row at all.
    fn forget_emptied(&mut self, keys: &[Key]) {
        for key in keys {
            let slot = self.state.index.get(key).copied();
            if let Some(slot) = slot {
                self.fold_open(slot);
            }
            let QueryState { first, groups, .. } = &mut self.state;
            let g = slot.map(|slot| &groups[slot]);
            if let Some(first) =
                first.as_mut().filter(|_| g.is_none_or(|g| g.acc.as_ref().is_none_or(Accumulators::is_empty)))
            {
                first.forget(key);
            }
            if let Some(slot) = slot.filter(|slot| groups[*slot].entries == 0) {
                self.end_group(slot);
            }
        }
    }

    /// The rows an arrival in group `slot` (none when the query does not aggregate) gives now. A fully aggregated
    /// query under an output policy gives none, and only marks its group changed, inline: calling out for that cost
    /// `bench floor`'s worker 15 instructions an event more (`benches/results/cep.md`, seventieth session).
    #[inline(always)]
    pub(super) fn arrive(&mut self, row: &Row, slot: Option<usize>, now: i64) -> Vec<Row> {
        let fully = |a: &Aggregation| matches!(a.kind, AggregationKind::FullyAggregated);
        match slot {
            Some(slot) if self.plan.output.is_some() && self.plan.aggregation.as_ref().is_some_and(fully) => {
                self.keep_group_row(row, slot);
                let QueryState { changed, groups, .. } = &mut self.state;
                mark(changed, &mut groups[slot], slot);
                Vec::new()
            }
            _ => self.arrive_giving(row, slot, now),
        }
    }

    /// Keeps `row` as its group's row, unless the group has one and its first serves ([`PerEvent`]'s `latest_row`).
    #[inline(always)]
    fn keep_group_row(&mut self, row: &Row, slot: usize) {
        let g = &mut self.state.groups[slot];
        if g.last_event.is_none() || self.per_event.latest_row {
            g.last_event = Some(row.clone());
        }
    }

    /// [`QueryLogic::arrive`] where rows may come now.
    #[inline(never)]
    fn arrive_giving(&mut self, row: &Row, slot: Option<usize>, now: i64) -> Vec<Row> {
        let (Some(aggregation), Some(slot)) = (&self.plan.aggregation, slot) else {
            return self.emit_or_hold(self.empty.clone(), row, &[], now);
        };
        match aggregation.kind {
            AggregationKind::FullyAggregated => {
                self.keep_group_row(row, slot);
                self.fold_open(slot);
                self.group_row(slot).into_iter().collect()
            }
            AggregationKind::WithUngroupedColumns(_) => {
                if self.represents {
                    let g = &mut self.state.groups[slot];
                    g.last_event = Some(row.clone());
                    g.changed = true;
                }
                self.fold_open(slot);
                let aggregates = self.aggregates(slot);
                match self.having(row, &aggregates) {
                    true => self.emit_or_hold(self.state.groups[slot].key.clone(), row, &aggregates, now),
                    false => Vec::new(),
                }
            }
        }
    }

    /// The row of `event` at once, or without it until the next output tick.
    pub(super) fn emit_or_hold(&mut self, group: Key, event: &Row, aggregates: &[Val], now: i64) -> Vec<Row> {
        // Before `OUTPUT AFTER`'s time, a query without aggregates keeps nothing for its first tick, and `OUTPUT
        // FIRST` lets nothing out.
        let waiting = self.state.not_before.is_some() && self.state.tick.is_none();
        let drops = self.plan.aggregation.is_none() || self.state.first.is_some();
        if self.plan.output.is_some() && waiting && drops {
            return Vec::new();
        }
        let row = self.project(event, aggregates);
        match self.plan.output.as_ref().map(|o| o.kind) {
            None => return vec![row],
            Some(OutputKind::First) => {
                if self.state.first.as_mut().is_some_and(|first| first.passes(&group, now)) {
                    return vec![row];
                }
            }
            Some(OutputKind::All | OutputKind::Default) => {
                self.state.interval.push((self.order_keys(event, aggregates), row));
            }
            // The tick releases the view's rows.
            Some(OutputKind::Snapshot) => {}
            Some(OutputKind::Last) => {
                let keys = self.order_keys(event, aggregates);
                self.state.held.insert(group, (keys, row));
            }
        }
        Vec::new()
    }

    fn group_row(&self, slot: usize) -> Option<Row> {
        self.keyed_group_row(slot).map(|(_, row)| row)
    }

    /// [`QueryLogic::group_row`] with its `ORDER BY` keys.
    pub(super) fn keyed_group_row(&self, slot: usize) -> Option<(Vec<Val>, Row)> {
        let event = self.state.groups.get(slot)?.last_event.as_ref()?;
        let aggregates = self.aggregates(slot);
        let row = self.having(event, &aggregates).then(|| self.project(event, &aggregates))?;
        Some((self.order_keys(event, &aggregates), row))
    }

    pub(super) fn having(&self, event: &Row, aggregates: &[Val]) -> bool {
        let having = self.plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
        let binding = [(self.input.label.as_str(), event)];
        holds(having, &Scope { rows: &binding, aggregates, vars: &self.vars, pinned: &[], now: Some(self.now) })
    }

    pub(super) fn project(&self, event: &Row, aggregates: &[Val]) -> Row {
        let binding = [(self.input.label.as_str(), event)];
        let scope = Scope { rows: &binding, aggregates, vars: &self.vars, pinned: &[], now: Some(self.now) };
        project(&self.plan.projection, &scope)
    }

    /// The `ORDER BY` keys of the row of `event`, which only the rows of an output tick need.
    pub(super) fn order_keys(&self, event: &Row, aggregates: &[Val]) -> Vec<Val> {
        let binding = [(self.input.label.as_str(), event)];
        order::keys(
            &self.plan.order_by,
            &Scope { rows: &binding, aggregates, vars: &self.vars, pinned: &[], now: Some(self.now) },
        )
    }
}

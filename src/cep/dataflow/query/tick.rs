//! The output tick: the rows it releases, by policy, and where it falls among an epoch's records. The tick fires among
//! the epoch's records in stamp order, after the rows that timers firing before it at its millisecond (another
//! query's expiry, a pattern's timer) sent.

use super::{Group, QueryLogic, calls, millis_of};
use crate::cep::dataflow::aggregate::Accumulators;
use crate::cep::dataflow::operator::Emit;
use crate::cep::dataflow::record::{Record, Stamp, timer_epoch};
use crate::cep::plan::OutputKind;
use crate::cep::reference::query::{by_tick_rank, key_of};
use crate::cep::runtime::eval::over_no_rows;
use crate::cep::runtime::{Row, Val, order};

impl QueryLogic {
    /// Whether the output tick is due at `epoch` and goes before `record`: the rows of the timers that fire before
    /// it at its millisecond (window expiries, pattern timers, the ticks of statements listed before this one) reach
    /// the query in the tick's epoch, and go first, as they do in the reference evaluator.
    pub(super) fn tick_precedes(&self, epoch: u64, record: &Record) -> bool {
        // The usual case, at every record: no tick due.
        if self.state.tick.is_none_or(|at| at > epoch) {
            return false;
        }
        Stamp::goes_before(Some(Stamp::tick(self.statement, self.state.ticks)), record)
    }

    pub(super) fn fire_tick(&mut self, emit: &mut Emit, epoch: u64) {
        if self.state.tick.is_none_or(|at| at > epoch) {
            return;
        }
        let stamp = Stamp::tick(self.statement, self.state.ticks);
        self.state.ticks += 1;
        let every = self.every().unwrap_or(1);
        self.state.tick = Some(timer_epoch(millis_of(epoch) + every).max(epoch + 1));
        for (position, row) in self.tick_rows() {
            emit.event(stamp.child(self.statement, position), self.sink, row);
        }
    }

    /// An update (an arrival, `entered` rows that count, or the rows leaving together, which the view counted) is
    /// over: under `OUTPUT ... EVERY n EVENTS`, the rows it releases if the count is due (`runtime::counted`), in the order
    /// of a tick's; under `OUTPUT FIRST` one that reached the output closes the count's first.
    #[inline(never)]
    pub(super) fn end_update(&mut self, entered: usize) -> Vec<Row> {
        let Some(count) = self.state.count.as_mut() else {
            return Vec::new();
        };
        count.enter(entered);
        let counted = count.end_update();
        if let Some(first) = self.state.first.as_mut().filter(|_| counted.reached) {
            first.close();
        }
        if !counted.due {
            return Vec::new();
        }
        let mut rows = self.tick_rows();
        rows.sort_by_key(|(position, _)| *position);
        rows.into_iter().map(|(_, row)| row).collect()
    }

    /// The rows of an output tick, each with its place among them: its position, or for a group's row without `ORDER
    /// BY` the group's rank (`tick_rank`), which every worker computes alike for the groups it holds.
    fn tick_rows(&mut self) -> Vec<(usize, Row)> {
        if self.paced_before() {
            return self.before_tick_rows();
        }
        let numbered = |rows: Vec<Row>| rows.into_iter().enumerate().collect();
        if self.snapshots_rows() {
            // Every row that counts in the view, in arrival order, as the reference evaluator gives them, with its
            // group's aggregates, if HAVING holds.
            let groups = self.kept_groups();
            let rows = self.state.kept.values().flatten().filter_map(|row| {
                let aggregates = match groups.get(&self.group_key(row)) {
                    Some(acc) => acc.values(calls(&self.plan)),
                    None => Vec::new(),
                };
                self.having(row, &aggregates)
                    .then(|| (self.order_keys(row, &aggregates), self.project(row, &aggregates)))
            });
            return numbered(order::ordered(rows.collect(), &self.plan.order_by));
        }
        if let Some(first) = self.state.first.as_mut() {
            // Its rows went out as they came.
            first.tick();
            return Vec::new();
        }
        if self.rows_at_changes() {
            let mut rows = std::mem::take(&mut self.state.interval);
            if !std::mem::take(&mut self.state.updated) && self.per_event.group_by.is_empty() && self.state.hosts {
                rows.extend(self.current_row());
            }
            return numbered(order::ordered(rows, &self.plan.order_by));
        }
        if !self.fully_aggregated() {
            let mut rows = std::mem::take(&mut self.state.interval);
            if self.represents {
                rows.extend(self.untouched_group_rows());
            }
            rows.extend(std::mem::take(&mut self.state.held).into_values());
            return numbered(order::ordered(rows, &self.plan.order_by));
        }
        self.group_tick_rows()
    }

    /// The rows of a fully aggregated query's output tick: by the groups' rank, or in `ORDER BY` order.
    fn group_tick_rows(&mut self) -> Vec<(usize, Row)> {
        let mut changed = std::mem::take(&mut self.state.changed);
        changed.sort_unstable();
        changed.dedup();
        // The groups still marked; a slot listed for a group that ended may hold an unmarked one.
        let groups = &self.state.groups;
        let due: Vec<usize> = changed.into_iter().filter(|s| groups.get(*s).is_some_and(|g| g.changed)).collect();
        for slot in &due {
            self.fold_open(*slot);
        }
        let kind = self.plan.output.as_ref().map(|o| o.kind);
        let ungrouped = self.per_event.group_by.is_empty();
        let released = match kind {
            Some(OutputKind::Snapshot) if ungrouped => Vec::new(),
            Some(OutputKind::Snapshot) => self.groups_where(|g| g.acc.as_ref().is_some_and(|acc| !acc.is_empty())),
            Some(OutputKind::All) => self.groups_where(|g| g.last_event.is_some()),
            _ => due.clone(),
        };
        let mut rows: Vec<(u64, (Vec<Val>, Row))> = self
            .ranked(released)
            .into_iter()
            .filter_map(|(rank, slot)| Some((rank, self.keyed_group_row(slot)?)))
            .collect();
        // Without groups, `LAST` after an interval with no change releases the row as it stands, as the reference's,
        // and `SNAPSHOT` always does.
        let last = kind == Some(OutputKind::Last) && due.is_empty();
        if ungrouped && (last || kind == Some(OutputKind::Snapshot)) && self.state.hosts {
            rows.extend(self.current_row().map(|row| (0, row)));
        }
        for slot in due {
            let g = &mut self.state.groups[slot];
            g.changed = false;
            if g.entries == 0 {
                self.end_group(slot);
            }
        }
        match self.plan.order_by.is_empty() {
            true => rows.into_iter().map(|(rank, (_, row))| (rank as usize, row)).collect(),
            false => order::ordered(rows.into_iter().map(|(_, row)| row).collect(), &self.plan.order_by)
                .into_iter()
                .enumerate()
                .collect(),
        }
    }

    /// The groups of `slots` in the reference's order of a tick's rows, each with its rank: by `tick_rank` of the
    /// group's key as the reference writes it ([`key_of`] of its row), then by that key.
    fn ranked(&self, slots: Vec<usize>) -> Vec<(u64, usize)> {
        let by = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
        by_tick_rank(slots, |slot| {
            let row = self.state.groups.get(*slot)?.last_event.as_ref()?;
            Some(key_of(by, &self.input.label, row, &self.vars))
        })
    }

    /// The groups `released` picks, their open panes folded: with a row that counts in the view, what `OUTPUT
    /// SNAPSHOT` releases; with a row that counted since the last tick, what `OUTPUT ALL` does.
    fn groups_where(&mut self, released: impl Fn(&Group) -> bool) -> Vec<usize> {
        let slots: Vec<usize> = self.state.groups.iter().map(|(slot, _)| slot).collect();
        slots.into_iter().for_each(|slot| self.fold_open(slot));
        self.state.groups.iter().filter(|(_, g)| released(g)).map(|(slot, _)| slot).collect()
    }

    /// At a tick of a query that [`represents_groups`](crate::cep::reference::query::represents_groups), the rows of
    /// the groups no arrival or leaving row touched in the interval, by `tick_rank`; then every group is untouched
    /// again, and those with no row that counts are forgotten.
    fn untouched_group_rows(&mut self) -> Vec<(Vec<Val>, Row)> {
        let untouched = self.groups_where(|g| g.last_event.is_some() && !g.changed);
        let rows: Vec<(Vec<Val>, Row)> =
            self.ranked(untouched).into_iter().filter_map(|(_, slot)| self.keyed_group_row(slot)).collect();
        let mut ended = Vec::new();
        for (slot, g) in self.state.groups.iter_mut() {
            g.changed = false;
            if g.acc.as_ref().is_none_or(Accumulators::is_empty) {
                g.last_event = None;
                if g.entries == 0 {
                    ended.push(slot);
                }
            }
        }
        ended.into_iter().for_each(|slot| self.end_group(slot));
        rows
    }

    /// The row of a fully aggregated query without groups as it stands, read with no event (as the reference's).
    fn current_row(&mut self) -> Option<(Vec<Val>, Row)> {
        let slot = self.state.index.get(&self.empty).copied();
        if let Some(slot) = slot {
            self.fold_open(slot);
        }
        let calls = calls(&self.plan);
        let aggregates = slot.map_or_else(|| over_no_rows(calls), |slot| self.aggregates(slot));
        let event = Row::default();
        let row = self.having(&event, &aggregates).then(|| self.project(&event, &aggregates))?;
        Some((self.order_keys(&event, &aggregates), row))
    }
}

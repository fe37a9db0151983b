//! The rows a query keeps to give back: `OUTPUT SNAPSHOT` of a query not fully aggregated, and `SELECT RSTREAM`.
//!
//! A snapshot is the one policy that reads rows back from the view: its rows are kept by arrival number and displaced
//! and expired by the same view that moves the aggregating queries' entries, and its groups' aggregates are summed
//! from them at the tick. `SELECT RSTREAM` keeps its rows so too, to give them back as they leave, with running
//! aggregates of its own for the kept rows' groups when it has ungrouped columns; fully aggregated, it keeps no rows,
//! and reads an arrival's group's row before the arrival enters.

use std::borrow::Cow;
use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::{QueryLogic, View, calls, millis_of};
use crate::cep::dataflow::aggregate::Accumulators;
use crate::cep::dataflow::record::timer_epoch;
use crate::cep::runtime::eval::over_no_rows;
use crate::cep::runtime::key::Key;
use crate::cep::runtime::{Row, Val, order};

impl QueryLogic {
    /// Puts the row of a query whose ticks release its view's rows (or that removes rows) in the view, dropping the
    /// rows it displaces; answers those of them that counted, in arrival order, each with its arrival number. A time
    /// window keeps the arrival's place of a query that removes rows, for the stamp of its expiry's rows.
    pub(super) fn keep(&mut self, set: (u64, u64), row: &Row, counts: bool) -> Vec<(usize, Row)> {
        if self.forgets && counts {
            self.start_emptied_afresh();
        }
        let id = self.next_arrival();
        // A view that keeps every row lets none go: nothing to keep (a fully aggregated remove stream without one).
        if matches!(self.state.view, View::All) {
            return Vec::new();
        }
        self.state.kept.insert(id, counts.then(|| row.clone()));
        let tallies = self.tallies();
        if counts && tallies {
            self.tally_kept(id, row, true);
        }
        if let View::Time { millis, queue, sets } = &mut self.state.view {
            queue.push_back((timer_epoch(millis_of(set.0) + *millis).max(set.0 + 1), id));
            sets.extend((tallies || self.state.before_pace.is_some() || self.state.count.is_some()).then_some(set));
            return Vec::new();
        }
        let displaced = self.displace(id, row, set).into_iter();
        let gone: Vec<(usize, Row)> =
            displaced.filter_map(|gone| Some((gone, self.state.kept.remove(&gone).flatten()?))).collect();
        if tallies {
            gone.iter().for_each(|(id, row)| self.tally_kept(*id, row, false));
        }
        if let Some(count) = self.state.count.as_mut() {
            count.leave(gone.len());
        }
        gone
    }

    /// Whether the kept rows count in aggregates of their own as they come and go: `SELECT RSTREAM` with ungrouped
    /// columns, and `OUTPUT FIRST` of rows leaving ([`QueryLogic::arrive_first`]).
    pub(super) fn tallies(&self) -> bool {
        self.removes || self.firsts_leaving
    }

    /// An arrival of a grouped query with ungrouped columns under `OUTPUT FIRST`, which lets out the rows of the rows
    /// leaving the view too (`reference::query::firsts_leaving`): the rows out now.
    pub(super) fn arrive_first(&mut self, set: (u64, u64), row: &Row, counts: bool) -> Vec<Row> {
        let gone = rows_of(self.keep(set, row, counts));
        self.first_rows(counts.then_some(row), &gone, millis_of(set.0))
    }

    /// The rows of a change under `OUTPUT FIRST` ([`QueryLogic::arrive_first`]) that go out at `now`: of its arrival
    /// and then of the rows `gone` from the view, each with its group's aggregates after the change, if it passes
    /// HAVING and its group let none out in the last `p`, in `ORDER BY` order (none before `OUTPUT AFTER`'s time);
    /// then the groups `gone` left with no row are done with.
    pub(super) fn first_rows(&mut self, arrival: Option<&Row>, gone: &[Row], now: i64) -> Vec<Row> {
        let waiting = self.state.not_before.is_some() && self.state.tick.is_none();
        let mut rows = Vec::new();
        for event in arrival.into_iter().chain(gone).filter(|_| !waiting) {
            let key = self.group_key(event);
            let aggregates = self.kept_values_of(&key);
            if !self.having(event, &aggregates) {
                continue;
            }
            if self.state.first.as_mut().expect("OUTPUT FIRST has its gate").passes(&key, now) {
                rows.push((self.order_keys(event, &aggregates), self.project(event, &aggregates)));
            }
        }
        for event in gone {
            let key = self.group_key(event);
            if !self.kept_counts(&key) {
                self.state.first.as_mut().expect("OUTPUT FIRST has its gate").forget(&key);
            }
        }
        order::ordered(rows, &self.plan.order_by)
    }

    /// Adds a kept row that counts, arrival number `id`, to its group's aggregates under `SELECT RSTREAM` (`enters`),
    /// or takes it out as it leaves the view; a group left with no row is forgotten. Nothing when the query does not
    /// aggregate.
    pub(super) fn tally_kept(&mut self, id: usize, row: &Row, enters: bool) {
        let Some(aggregation) = &self.plan.aggregation else {
            return;
        };
        let calls = &aggregation.aggregates[..];
        let key = self.group_key(row);
        let QueryLogic { per_event, vars, state, .. } = self;
        let args = per_event.args(row, vars);
        if enters {
            state.kept_aggregates.entry(key).or_insert_with(|| Accumulators::new(calls)).add(id as u64, args);
            return;
        }
        let args: Vec<Val> = args.map(Cow::into_owned).collect();
        if let Some(acc) = state.kept_aggregates.get_mut(&key) {
            acc.remove(id as u64, &args);
            match (acc.is_empty(), acc.keeps_ever()) {
                (true, false) => _ = state.kept_aggregates.remove(&key),
                (true, true) if self.forgets => state.emptied.push(key),
                _ => {}
            }
        }
    }

    /// The rows of `SELECT RSTREAM` when `gone` left the view together at `now`, each with its group's aggregates
    /// once they left (if the query has some, and the row passes HAVING), in `ORDER BY` order; under an output policy,
    /// none now: each is kept for the tick, in the order they were in the view (under `LAST`, the last of each group).
    pub(super) fn removed_rows(&mut self, gone: Vec<Row>, now: i64) -> Vec<Row> {
        let passed: Vec<(Row, Vec<Val>)> = gone
            .into_iter()
            .map(|row| {
                let aggregates = self.kept_values(&row);
                (row, aggregates)
            })
            .filter(|(row, aggregates)| self.having(row, aggregates))
            .collect();
        if self.plan.output.is_some() {
            let mut rows = Vec::new();
            for (row, aggregates) in &passed {
                rows.extend(self.emit_or_hold(self.group_key(row), row, aggregates, now));
            }
            return rows;
        }
        let rows =
            passed.iter().map(|(row, aggregates)| (self.order_keys(row, aggregates), self.project(row, aggregates)));
        order::ordered(rows.collect(), &self.plan.order_by)
    }

    /// The aggregates of the kept rows of `row`'s group (none when the query does not aggregate; null when the
    /// group has no row that counts).
    fn kept_values(&self, row: &Row) -> Vec<Val> {
        self.kept_values_of(&self.group_key(row))
    }

    /// `SELECT RSTREAM` of a fully aggregated query at the arrival of `row` (which counts), before it enters: its
    /// group's row as it stands (for a group with no row that counts, a count 0 and other aggregates null), projected
    /// from `row`, if it passes HAVING.
    pub(super) fn row_before(&mut self, row: &Row) -> Option<Row> {
        let slot = self.state.index.get(&self.group_key(row)).copied();
        let aggregates = match slot {
            Some(slot) => {
                self.fold_open(slot);
                self.aggregates(slot)
            }
            None => over_no_rows(calls(&self.plan)),
        };
        self.having(row, &aggregates).then(|| self.project(row, &aggregates))
    }

    /// The aggregates of the groups of the rows a snapshot keeps, when the query has some.
    pub(super) fn kept_groups(&self) -> HashMap<Key, Accumulators, RandomState> {
        let mut groups: HashMap<Key, Accumulators, RandomState> = HashMap::default();
        if self.plan.aggregation.is_none() {
            return groups;
        }
        let calls = calls(&self.plan);
        for (id, row) in self.state.kept.iter().filter_map(|(id, row)| Some((id, row.as_ref()?))) {
            let acc = groups.entry(self.group_key(row)).or_insert_with(|| Accumulators::new(calls));
            acc.add(*id as u64, self.per_event.args(row, &self.vars));
        }
        groups
    }
}

/// The rows of `numbered`, without their arrival numbers.
pub(super) fn rows_of(numbered: Vec<(usize, Row)>) -> Vec<Row> {
    numbered.into_iter().map(|(_, row)| row).collect()
}

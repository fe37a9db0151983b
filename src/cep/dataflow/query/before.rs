//! `SELECT RSTREAM` of a fully aggregated query under an output policy, as the reference evaluator's `query::before`:
//! at each change of the view's contents, the row of each group it touches as it stood before, handed to the policy
//! (`runtime::before_pace`). The query keeps its rows as `SELECT RSTREAM` with ungrouped columns does (`kept`), with
//! running aggregates of its own per group, so the rows before a change are read before the change is counted; and
//! each group's last arrival, which the tick's rows as they stand are projected from. Such a query runs on one worker.

use std::collections::HashSet;

use foldhash::fast::RandomState;

use super::{QueryLogic, millis_of};
use crate::cep::dataflow::operator::Emit;
use crate::cep::dataflow::record::Stamp;
use crate::cep::reference::TimerOrder;
use crate::cep::reference::query::{by_tick_rank, key_of};
use crate::cep::runtime::eval::over_no_rows;
use crate::cep::runtime::key::Key;
use crate::cep::runtime::order::{self, Keyed};
use crate::cep::runtime::{Row, Val};

impl QueryLogic {
    /// Whether the query's remove stream goes to a policy, which this module runs.
    pub(super) fn paced_before(&self) -> bool {
        self.state.before_pace.is_some()
    }

    /// The arrival of `row`, which `set` stamped: the rows out now (`FIRST`), in `ORDER BY` order.
    pub(super) fn arrive_before_paced(&mut self, set: (u64, u64), row: &Row, counts: bool) -> Vec<Row> {
        let key = self.group_key(row);
        let mut touched = Vec::new();
        if counts {
            touched.push((key.clone(), self.kept_row(row, &key)));
        }
        // The arrival number `keep` gives the row.
        let id = self.state.arrivals;
        let gone = self.keep(set, row, counts);
        touched.extend(self.rows_before_leaving(&gone, &touched));
        if counts {
            self.tally_kept(id, row, true);
            self.state.kept_last.insert(key, row.clone());
        }
        self.offer_before(touched, &gone, millis_of(set.0))
    }

    /// A time window's rows `leaving` together at `epoch`, each with the stamp of its arrival: the rows out now
    /// (`FIRST`), stamped by the first of their expiry timers, as the reference lets them go.
    pub(super) fn expire_before_paced(&mut self, emit: &mut Emit, epoch: u64, leaving: Vec<((u64, u64), usize, Row)>) {
        let Some(&(set, _, _)) = leaving.first() else {
            return;
        };
        let rows: Vec<(usize, Row)> = leaving.into_iter().map(|(_, id, row)| (id, row)).collect();
        let touched = self.rows_before_leaving(&rows, &[]);
        let batch = Stamp::timer(TimerOrder::Expiry, set, self.statement, 0);
        for (i, row) in self.offer_before(touched, &rows, millis_of(epoch)).into_iter().enumerate() {
            emit.event(batch.child(self.statement, i), self.sink, row);
        }
    }

    /// The rows before the change of the groups of `gone`, rows leaving the view and not yet counted out, but those
    /// already `touched`: each projected from the first of its rows to leave.
    fn rows_before_leaving(
        &self,
        gone: &[(usize, Row)],
        touched: &[(Key, Option<Keyed>)],
    ) -> Vec<(Key, Option<Keyed>)> {
        let mut seen: HashSet<Key, RandomState> = touched.iter().map(|(key, _)| key.clone()).collect();
        let mut rows: Vec<(Key, Option<Keyed>)> = Vec::new();
        for (_, row) in gone {
            let key = self.group_key(row);
            if seen.insert(key.clone()) {
                let before = self.kept_row(row, &key);
                rows.push((key, before));
            }
        }
        rows
    }

    /// The row of group `key` as it stands, projected from `event`, if it passes HAVING (for a group with no
    /// row that counts, a count 0 and other aggregates null), with its `ORDER BY` keys.
    fn kept_row(&self, event: &Row, key: &Key) -> Option<Keyed> {
        let aggregates = self.kept_values_of(key);
        self.having(event, &aggregates).then(|| (self.order_keys(event, &aggregates), self.project(event, &aggregates)))
    }

    /// Hands the policy a change's rows, `gone` being the rows that left the view: those out now, in `ORDER BY`
    /// order (none before `OUTPUT AFTER`'s time). Then `gone` is counted out of its groups, and under `FIRST` the
    /// groups it left with no row are done with.
    fn offer_before(&mut self, touched: Vec<(Key, Option<Keyed>)>, gone: &[(usize, Row)], now: i64) -> Vec<Row> {
        let early = self.state.not_before.is_some_and(|at| now < at);
        let pace = self.state.before_pace.as_mut().expect("a remove stream under a policy");
        let out = pace.offer(touched, now, early);
        for (id, row) in gone {
            self.tally_kept(*id, row, false);
            let key = self.group_key(row);
            if !self.kept_counts(&key) {
                self.state.before_pace.as_mut().expect("a remove stream under a policy").forget(&key);
            }
        }
        order::ordered(out, &self.plan.order_by)
    }

    /// The rows of an output tick, numbered: what the policy kept, then the groups' rows in the reference's order
    /// of them (`tick_rank`), then the row as it stands when the policy asks (on the worker that holds the query).
    /// Groups with no row that counts are forgotten.
    pub(super) fn before_tick_rows(&mut self) -> Vec<(usize, Row)> {
        let ticked = self.state.before_pace.as_mut().expect("a remove stream under a policy").tick();
        let mut rows = ticked.rows;
        let mut groups: Vec<(Key, Option<Keyed>)> = Vec::new();
        if ticked.untouched {
            let untouched = self.state.kept_last.iter().filter(|(key, _)| !ticked.touched.contains_key(*key));
            groups.extend(untouched.map(|(key, row)| (key.clone(), self.kept_row(row, key))));
        }
        groups.extend(ticked.touched);
        let by = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
        let ranked = by_tick_rank(groups, |(key, _)| {
            let row = self.state.kept_last.get(key)?;
            Some(key_of(by, &self.input.label, row, &self.vars))
        });
        rows.extend(ranked.into_iter().filter_map(|(_, (_, row))| row));
        if ticked.current && self.state.hosts {
            rows.extend(self.kept_row(&Row::default(), &self.empty));
        }
        let QueryLogic { state, .. } = self;
        state.kept_last.retain(|key, _| state.kept_aggregates.get(key).is_some_and(|acc| !acc.is_empty()));
        order::ordered(rows, &self.plan.order_by).into_iter().enumerate().collect()
    }

    /// Whether group `key` has a kept row that counts (its aggregates may be kept without one, for their ever forms).
    pub(super) fn kept_counts(&self, key: &Key) -> bool {
        self.state.kept_aggregates.get(key).is_some_and(|acc| !acc.is_empty())
    }

    /// The aggregates of the kept rows of group `key` (null when it has no row that counts).
    pub(super) fn kept_values_of(&self, key: &Key) -> Vec<Val> {
        let calls = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
        match self.state.kept_aggregates.get(key) {
            Some(acc) => acc.values(calls),
            None => over_no_rows(calls),
        }
    }
}

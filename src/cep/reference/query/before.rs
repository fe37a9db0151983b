//! `SELECT RSTREAM` of a fully aggregated query under an output policy: at each change of the view's contents (an
//! arrival with the rows it pushes out, a time window's rows leaving together), the row of each group it touches as
//! it stood before, handed to the policy (`runtime::before_pace`, which says what goes out and when). A group touched
//! by the arrival is projected from the arriving event, one touched only by rows leaving from the first of them; the
//! tick adds the rows as they stand that the policy asks for, projected from each group's last arrival.

use std::collections::BTreeSet;

use super::{Entry, StreamQuery, groups_of, tick_rank};
use crate::cep::reference::Ctx;
use crate::cep::runtime::order::{self, Keyed};
use crate::cep::runtime::{Row, Val};

impl StreamQuery {
    /// An arrival of a query whose remove stream goes to a policy: the rows out now (`FIRST`).
    pub(super) fn arrive_before_paced(
        &mut self,
        ctx: &mut Ctx<'_>,
        event: &Row,
        group: &str,
        counts: bool,
    ) -> Vec<Row> {
        let vars = ctx.vars;
        let mut touched: Vec<(String, Option<Keyed>)> = Vec::new();
        if counts {
            touched.push((group.to_owned(), self.keyed_row_before(event, group, &[], vars)));
        }
        let displaced = self.enter(ctx, event, group, counts);
        if counts {
            self.last_event.insert(group.to_owned(), event.clone());
        }
        touched.extend(self.rows_before_leaving(&displaced, &touched, vars));
        self.offer_before(ctx, touched, &groups_of(&displaced))
    }

    /// A time window's rows at `positions` leave together: the rows out now (`FIRST`).
    pub(super) fn expire_before_paced(&mut self, ctx: &mut Ctx<'_>, positions: Vec<usize>) -> Vec<Row> {
        let leaving: Vec<&Entry> = positions.iter().map(|i| &self.rows[*i]).filter(|e| e.counts).collect();
        let groups: Vec<String> = leaving.iter().map(|e| e.group.clone()).collect();
        let mut seen = BTreeSet::new();
        let touched: Vec<(String, Option<Keyed>)> = leaving
            .iter()
            .filter(|e| seen.insert(e.group.clone()))
            .map(|e| (e.group.clone(), self.keyed_row_before(&e.row, &e.group, &[], ctx.vars)))
            .collect();
        self.remove_at(positions);
        self.offer_before(ctx, touched, &groups)
    }

    /// The rows before the change of the groups of `gone`, which left the view, but those already `touched`: each
    /// from the group's rows still in the view and those of `gone`, projected from the first of them.
    fn rows_before_leaving(
        &self,
        gone: &[Entry],
        touched: &[(String, Option<Keyed>)],
        vars: &Row,
    ) -> Vec<(String, Option<Keyed>)> {
        let mut seen: BTreeSet<&str> = touched.iter().map(|(g, _)| g.as_str()).collect();
        let firsts: Vec<&Entry> = gone.iter().filter(|e| seen.insert(&e.group)).collect();
        firsts.into_iter().map(|e| (e.group.clone(), self.keyed_row_before(&e.row, &e.group, gone, vars))).collect()
    }

    /// The row of `group` projected from `event`, with the aggregates of the group's rows in the view and those of
    /// `gone`, if it passes HAVING (a count 0 and other aggregates null for a group with no row that counts), with its
    /// `ORDER BY` keys.
    pub(super) fn keyed_row_before(&self, event: &Row, group: &str, gone: &[Entry], vars: &Row) -> Option<Keyed> {
        let aggregates: Vec<Val> = self.aggregates_with(group, gone, vars);
        self.having(event, &aggregates, vars)
            .then(|| (self.order_keys(event, &aggregates, vars), self.project(event, &aggregates, vars)))
    }

    /// Hands the policy the change's rows; then the groups among `left` with no row that counts are done with
    /// under `FIRST`.
    fn offer_before(&mut self, ctx: &Ctx<'_>, touched: Vec<(String, Option<Keyed>)>, left: &[String]) -> Vec<Row> {
        let early = self.not_before.is_some_and(|at| ctx.now < at);
        let pace = self.before_pace.as_mut().expect("a remove stream under a policy");
        let out = pace.offer(touched, ctx.now, early);
        for group in left.iter().filter(|g| !self.rows.iter().any(|e| e.counts && e.group == **g)) {
            pace.forget(group);
        }
        order::ordered(out, &self.plan.order_by)
    }

    /// The tick of a query whose remove stream goes to a policy: what it kept, then the groups' rows by
    /// [`tick_rank`], then the row as it stands when the policy asks. Groups with no row that counts are forgotten.
    pub(super) fn tick_before_paced(&mut self, vars: &Row) -> Vec<Row> {
        self.changed.clear();
        let ticked = self.before_pace.as_mut().expect("a remove stream under a policy").tick();
        let mut rows = ticked.rows;
        let mut groups: Vec<(String, Option<Keyed>)> = Vec::new();
        if ticked.untouched {
            let untouched = self.last_event.keys().filter(|g| !ticked.touched.contains_key(*g));
            groups.extend(untouched.map(|g| (g.clone(), self.keyed_group_row(g, vars))));
        }
        groups.extend(ticked.touched);
        groups.sort_by_cached_key(|(g, _)| (tick_rank(g), g.clone()));
        rows.extend(groups.into_iter().filter_map(|(_, row)| row));
        if ticked.current {
            rows.extend(self.current_row(vars));
        }
        let counting: BTreeSet<String> = self.rows.iter().filter(|e| e.counts).map(|e| e.group.clone()).collect();
        self.last_event.retain(|g, _| counting.contains(g));
        order::ordered(rows, &self.plan.order_by)
    }
}

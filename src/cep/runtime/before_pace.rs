//! `SELECT RSTREAM` of a fully aggregated query over a stream under `OUTPUT [ALL|FIRST|LAST] EVERY p [AFTER d]`: which
//! of its groups' rows from before a change go out, and when. Esper's `ResultSetProcessorRowPerGroup` and `RowForAll`
//! make a group's remove-stream row before each change of the view's contents reaches its aggregates (an arrival that
//! counts, the rows it pushes out, a time window's rows leaving together), and its output view hands Cepheus's
//! listener that stream (`OutputStrategyPostProcess` swaps it in for `RSTREAM`). Under a policy (Esper 5.3's buffered
//! `OutputProcessViewConditionDefault`, checked against the remove streams of Esper's `ResultSetOutputLimitRowPerGroup`
//! and `RowForAll` traces):
//!
//! - the default `OUTPUT EVERY` (and without `GROUP BY` `ALL`) releases at the tick every such row of the interval, a
//!   row per group a change touched, in the order made; without `GROUP BY`, after an interval with no change, the
//!   row as it stands;
//! - `LAST` releases a row per group the interval touched: its row before the interval's first change of it (if that
//!   fails `HAVING`, none: Esper keeps the group's first touch); without `GROUP BY`, the first row of the interval
//!   that passes `HAVING` (Esper tries again at each change), or after an interval with no change the row as it stands;
//! - grouped `ALL` releases a row for every group known: one touched by the interval as `LAST` does, the others as
//!   they stand (a group the query forgets, as under the insert stream's `ALL`, goes with it);
//! - grouped `FIRST` lets out a group's row from before a change when none of the group's went out in the last `p`
//!   (Esper's per-group condition, forgotten when the group empties). With `HAVING` Esper 5 makes those rows after
//!   the change, so they are the insert stream's (`reference::query::removes` says so); `FIRST` without `GROUP BY`
//!   and `SNAPSHOT` are refused (`reference::query::check_query`).
//!
//! Changes before `AFTER`'s time are kept for the first tick, except under `FIRST`, which lets none out then. Both
//! runtimes keep one, by their own group keys: they make the rows before each change (the reference from its rows,
//! the dataflow from its running aggregates), hand them here, and at the tick order the groups' rows by
//! [`crate::cep::reference::query::tick_rank`] and add the rows as they stand that [`Ticked`] asks for.

use std::collections::HashMap;
use std::hash::Hash;

use super::first::First;
use super::order::Keyed;
use crate::cep::plan::{AggregationKind, OutputKind, QueryPlan};
use crate::cep::reference::query::removes;

/// What a tick releases.
#[derive(Debug)]
pub struct Ticked<K> {
    /// Rows kept as they are, in the order made.
    pub rows: Vec<Keyed>,
    /// The groups the interval touched, each with its row from before the interval's first change of it when that
    /// passed `HAVING` (`LAST` and grouped `ALL`).
    pub touched: HashMap<K, Option<Keyed>>,
    /// Whether the row as it stands of the query without `GROUP BY` goes too.
    pub current: bool,
    /// Whether every group known and not touched goes too, as it stands (grouped `ALL`).
    pub untouched: bool,
}

/// The policy of an aggregating query's remove stream, and what it keeps for the tick.
#[derive(Debug)]
pub struct BeforePace<K> {
    kind: OutputKind,
    grouped: bool,
    first: Option<First<K>>,
    held: Vec<Keyed>,
    touched: HashMap<K, Option<Keyed>>,
    /// Whether a change reached the groups since the last tick.
    changed: bool,
}

impl<K: Hash + Eq + Clone> BeforePace<K> {
    /// The policy of `q`, if it selects the remove stream of a fully aggregated query under one.
    pub fn of(q: &QueryPlan) -> Option<Self> {
        let output = q.output.as_ref()?;
        let aggregation = q.aggregation.as_ref().filter(|a| a.kind == AggregationKind::FullyAggregated)?;
        if !removes(q) {
            return None;
        }
        Some(BeforePace {
            kind: output.kind,
            grouped: !aggregation.group_by.is_empty(),
            first: First::of(q),
            held: Vec::new(),
            touched: HashMap::new(),
            changed: false,
        })
    }

    /// A change touched `rows`' groups, each with its row from before the change if that passes `HAVING`, in the
    /// order the change touched them: the rows that go out now (`FIRST`; none before `AFTER`'s time, when `early`).
    pub fn offer(&mut self, rows: Vec<(K, Option<Keyed>)>, now: i64, early: bool) -> Vec<Keyed> {
        if rows.is_empty() {
            return Vec::new();
        }
        self.changed = true;
        let mut out = Vec::new();
        for (group, row) in rows {
            match self.kind {
                OutputKind::First if early => {}
                OutputKind::First => {
                    let first = self.first.as_mut().expect("OUTPUT FIRST has its gate");
                    out.extend(row.filter(|_| first.passes(&group, now)));
                }
                OutputKind::Last | OutputKind::All if self.grouped => {
                    self.touched.entry(group).or_insert(row);
                }
                OutputKind::Last => {
                    let kept = self.touched.entry(group).or_insert(None);
                    if kept.is_none() {
                        *kept = row;
                    }
                }
                OutputKind::Default | OutputKind::All => self.held.extend(row),
                OutputKind::Snapshot => unreachable!("SELECT RSTREAM under OUTPUT SNAPSHOT is refused"),
            }
        }
        out
    }

    /// The group `group` has no row left that counts: under `FIRST` it forgets when its last row went out.
    pub fn forget(&mut self, group: &K) {
        if let Some(first) = self.first.as_mut() {
            first.forget(group);
        }
    }

    /// The output clock ticked: what goes out.
    pub fn tick(&mut self) -> Ticked<K> {
        let quiet = !std::mem::take(&mut self.changed);
        if let Some(first) = self.first.as_mut() {
            first.tick();
        }
        Ticked {
            rows: std::mem::take(&mut self.held),
            touched: std::mem::take(&mut self.touched),
            current: !self.grouped && quiet && self.kind != OutputKind::First,
            untouched: self.grouped && self.kind == OutputKind::All,
        }
    }
}

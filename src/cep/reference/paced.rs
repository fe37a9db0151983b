//! `OUTPUT [ALL|FIRST|LAST|SNAPSHOT] EVERY p [AFTER d]` on a pattern that aggregates its matches, with the meaning the
//! policies have on a query over a stream (`query`), for an input whose rows only enter: each match that passes `WHERE`
//! is a change of its group (its aggregates over every match so far, its row projected from the match, if it passes
//! `HAVING`), and no group ever empties. The output clock starts at the first such match at or after `d` and ticks
//! every `p` from there. Fully aggregated (Esper's `ResultSetProcessorRowPerGroup` and `RowForAll`): `FIRST` lets a
//! match's row out as it comes when none of its group did in the last `p` (without groups, the interval's first), the
//! default releases at the tick every match's row of the interval (without groups, after an interval with no match, the
//! row as it stands), `LAST` the row of each group that changed (without groups, the row as it stands, changed or not),
//! `ALL` (grouped) and `SNAPSHOT` the row of every group, each as it stands then. With ungrouped columns (Esper's
//! `ResultSetProcessorAggregateAll` and `AggregateGrouped`): `FIRST` as above, the default and `ALL` every match's row
//! of the interval, grouped `ALL` also the row of every group no match of the interval touched, from its last match
//! with its aggregates then, and `LAST` the interval's last row, of each group when grouped; `SNAPSHOT` has no view to
//! iterate and is refused (`query::check_query`). Rows made before `d` are kept for the first tick, except under
//! `FIRST`, which lets none out then. A group's row at a tick is found by [`tick_rank`], as the dataflow finds it; with
//! `ORDER BY` what goes out together is sorted.

use std::collections::{BTreeMap, BTreeSet};

use super::query::{not_before, tick_rank};
use super::{Ctx, TimerKind, TimerOrder};
use crate::cep::plan::{AggregationKind, OutputKind, QueryPlan};
use crate::cep::runtime::first::First;
use crate::cep::runtime::{Row, Val};

/// What a tick releases: rows kept as they are, and groups whose rows are made with their aggregates as they stand.
#[derive(Debug, Default)]
pub struct Release {
    pub rows: Vec<(Vec<Val>, Row)>,
    pub groups: Vec<String>,
    /// Whether the row as it stands of a fully aggregated pattern without groups goes too.
    pub current: bool,
}

/// An aggregating pattern statement's output policy and what it holds.
#[derive(Debug)]
pub struct Paced {
    kind: OutputKind,
    every: i64,
    fully: bool,
    grouped: bool,
    /// With `AFTER d`, the millisecond before which the clock does not start: the statement's creation plus `d`.
    not_before: Option<i64>,
    ticking: bool,
    first: Option<First<String>>,
    /// Every group a match counted in.
    known: BTreeSet<String>,
    /// The groups a match counted in since the last tick.
    changed: BTreeSet<String>,
    /// The rows the next tick releases as they are, oldest first.
    held: Vec<(Vec<Val>, Row)>,
    /// `LAST` with ungrouped columns: the interval's last row of each group.
    last: BTreeMap<String, (Vec<Val>, Row)>,
}

impl Paced {
    /// The policy of `q`, an aggregating pattern created at `created_ms`, if it has one.
    pub fn of(q: &QueryPlan, created_ms: i64) -> Option<Self> {
        let (output, aggregation) = (q.output.as_ref()?, q.aggregation.as_ref()?);
        Some(Paced {
            kind: output.kind,
            every: output.every_millis.max(1) as i64,
            fully: aggregation.kind == AggregationKind::FullyAggregated,
            grouped: !aggregation.group_by.is_empty(),
            not_before: not_before(q, created_ms),
            ticking: false,
            first: First::of(q),
            known: BTreeSet::new(),
            changed: BTreeSet::new(),
            held: Vec::new(),
            last: BTreeMap::new(),
        })
    }

    /// A match counted in `group`, making `row` (with its `ORDER BY` keys) if it passed `HAVING`: the row if it goes
    /// out now (`FIRST`); else it is kept or dropped.
    pub fn offer(&mut self, ctx: &mut Ctx<'_>, group: String, row: Option<(Vec<Val>, Row)>) -> Option<Row> {
        let early = self.not_before.is_some_and(|at| ctx.now < at);
        if !self.ticking && !early {
            self.ticking = true;
            ctx.schedule(ctx.now + self.every, TimerOrder::Output, TimerKind::Tick);
        }
        self.known.insert(group.clone());
        self.changed.insert(group.clone());
        let (keys, row) = row?;
        match self.kind {
            OutputKind::First => {
                let first = self.first.as_mut().expect("OUTPUT FIRST has its gate");
                return (!early && first.passes(&group, ctx.now)).then_some(row);
            }
            OutputKind::Last if !self.fully => {
                self.last.insert(group, (keys, row));
            }
            OutputKind::Default => self.held.push((keys, row)),
            OutputKind::All if !self.fully || !self.grouped => self.held.push((keys, row)),
            OutputKind::Last | OutputKind::All | OutputKind::Snapshot => {}
        }
        None
    }

    /// The output clock ticked: what goes out, in order before `ORDER BY` sorts it. The next tick is set.
    pub fn tick(&mut self, ctx: &mut Ctx<'_>) -> Release {
        ctx.schedule(ctx.now + self.every, TimerOrder::Output, TimerKind::Tick);
        let changed = std::mem::take(&mut self.changed);
        let ranked = |groups: Vec<&String>| {
            let mut groups: Vec<String> = groups.into_iter().cloned().collect();
            groups.sort_by_cached_key(|g| (tick_rank(g), g.clone()));
            groups
        };
        let mut release = Release { rows: std::mem::take(&mut self.held), ..Release::default() };
        match (self.kind, self.fully) {
            (OutputKind::First, _) => {
                if let Some(first) = self.first.as_mut() {
                    first.tick();
                }
            }
            (OutputKind::Last, true) => {
                release.current = !self.grouped && changed.is_empty();
                release.groups = ranked(changed.iter().collect());
            }
            (OutputKind::Last, false) => {
                let mut last = std::mem::take(&mut self.last);
                for group in ranked(last.keys().collect()) {
                    release.rows.extend(last.remove(&group));
                }
            }
            (OutputKind::All, true) if self.grouped => release.groups = ranked(self.known.iter().collect()),
            (OutputKind::Snapshot, _) => release.groups = ranked(self.known.iter().collect()),
            (OutputKind::All, false) if self.grouped => {
                release.groups = ranked(self.known.iter().filter(|g| !changed.contains(*g)).collect());
            }
            (OutputKind::Default | OutputKind::All, _) => {
                release.current = self.fully && !self.grouped && changed.is_empty();
            }
        }
        release
    }
}

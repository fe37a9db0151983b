//! `OUTPUT [ALL|FIRST|LAST] EVERY p [AFTER d]` on a pattern or a join (an aggregating join's below), with the meaning
//! the stream queries' policies have (`query`): the statement's output clock starts at its first row (at or after `d`;
//! before that its rows are dropped) and ticks every `p` from there, with or without rows. `FIRST` lets the interval's
//! first batch of rows through as it is made and drops the rest; `LAST` releases the interval's last row at the tick,
//! `ALL` (and the default) every row of the interval in the order made. A batch is what Esper hands the statement at
//! once: a pattern's match (two matches of one event are two batches), a join's rows for one trigger (Esper's
//! `ResultSetProcessorSimple` releases a join's first result whole). A row made at a tick's millisecond by a timer (a
//! pattern's, or another statement's that fired before this tick) is in that tick's interval; one made by an event is
//! in the next. With `ORDER BY`, what goes out at once or at a tick is sorted, as Esper's processor sorts what the
//! policy hands it: the first batch, the interval's last row, or all the interval's rows together (their keys travel
//! hidden in them, `runtime::order`). Neither has a view: `OUTPUT SNAPSHOT` is refused (Esper cannot iterate a
//! unidirectional join), and so is a policy on a join writing the stream it looks up. (An aggregating pattern's policy
//! is `paced`.)
//!
//! A join whose columns are all aggregates, without `GROUP BY`, aggregates each trigger's rows afresh (`join`);
//! Esper's `ResultSetProcessorRowForAll` under a policy clears and applies its aggregation at each trigger handed to
//! it, any of whose joined rows passed `WHERE`, so under `LAST`, `ALL` and the default a trigger whose row fails
//! `HAVING` still starts the clock and is the interval's last (`LAST` then releases nothing), and a tick with no
//! trigger in its interval releases the row as it stands: the last trigger's (`standing`). `FIRST` is the rows'
//! (Esper's `OutputProcessViewConditionFirst` returns before the clock for a trigger with no row). With a column not
//! aggregated and no `GROUP BY` (Esper's `ResultSetProcessorAggregateAll`), each trigger's rows are made afresh, one a
//! joined row, and go as a pattern's or a plain join's would, but that a tick with no trigger releases nothing and
//! `LAST` keeps the last row that passed `HAVING` over later triggers whose rows all fail it. With `GROUP BY`, the
//! default releases every trigger's rows, each made afresh, and `LAST` a row per group (`join::last`). A trigger
//! whose rows all fail `HAVING` starts the clock, but under `FIRST`. These are Esper 5's meanings (Cepheus runs
//! 5.3.0), whose output view keeps the interval's triggers for the tick; Esper 6 and later, by default, run `LAST`
//! and `ALL` without `ORDER BY` on helpers that never clear a unidirectional join's aggregates. With `AFTER d`, the
//! triggers before its time are kept for the first tick without starting the clock (but under `FIRST`, which drops
//! them). Refused: `FIRST` and `ALL` with `GROUP BY` (Esper 5 never clears the first's groups and releases every
//! group ever seen at each tick of the second).
//!
//! A query over a batch window without aggregates or with ungrouped columns paces its releases so too, each release
//! a batch (`batch`, which makes its own snapshots); under `SELECT RSTREAM` a release's batch is the rows it
//! replaced, on the clock its new rows started ([`Rate::start`]).

use super::join::{Batch, LastByGroup};
use super::query::{aggregates_triggers, fully_aggregated, lasts_by_group, not_before, stands};
use super::{Ctx, TimerKind, TimerOrder};
use crate::cep::plan::{Input, OutputKind, PlanExpr, QueryPlan};
use crate::cep::runtime::{EngineError, Row, order};

/// A pattern statement's output policy and what it holds.
#[derive(Debug)]
pub struct Rate {
    kind: OutputKind,
    every: i64,
    /// With `AFTER d`, the millisecond before which rows are dropped: the statement's creation plus `d`.
    not_before: Option<i64>,
    ticking: bool,
    first_out: bool,
    /// The rows the next tick releases, oldest first, each with its `ORDER BY` keys hidden in it when the statement
    /// sorts (`order::with_keys`).
    held: Vec<Row>,
    order_by: Vec<(PlanExpr, bool)>,
    /// For a join whose columns are all aggregates ([`stands`]) under `LAST`, `ALL` or the default, the last trigger's
    /// rows: what a tick releases when no trigger came in its interval. `None` for other statements.
    standing: Option<Vec<Row>>,
    /// Whether a trigger came in the interval.
    handed: bool,
    /// For an aggregating join not under `FIRST`, whether the statement keeps every trigger handed to it for the
    /// tick, as Esper 5's `OutputProcessViewConditionDefault` does ([`aggregates_triggers`]): one whose rows all fail
    /// `HAVING` starts the clock, and one before `AFTER`'s time goes to the first tick without starting it.
    buffers: bool,
    /// For an aggregating join with `GROUP BY` under `LAST`, the groups of the interval ([`LastByGroup`]); boxed, as
    /// few statements have them and every pattern's state holds a `Rate`.
    by_group: Option<Box<LastByGroup>>,
}

/// Why the policy of an aggregating join with `GROUP BY` is refused, if it is: Esper 5's `FIRST` on one never clears
/// its aggregates, nor forgets a group, and its `ALL` releases every group the join ever saw at every tick.
fn refused_on_groups(q: &QueryPlan) -> Option<&'static str> {
    let aggregation = q.aggregation.as_ref()?;
    if aggregation.group_by.is_empty() || !matches!(q.input, Input::Join(_)) {
        return None;
    }
    match q.output.as_ref()?.kind {
        OutputKind::First => Some("OUTPUT FIRST on an aggregating join with GROUP BY (Esper never clears its groups)"),
        OutputKind::All => Some("OUTPUT ALL on an aggregating join with GROUP BY (Esper releases every group it saw)"),
        _ => None,
    }
}

impl Rate {
    /// The policy of pattern or join statement `number` created at `created_ms`, if it has one it can run.
    pub fn of(number: usize, q: &QueryPlan, created_ms: i64) -> Result<Option<Rate>, EngineError> {
        let unsupported = |c: &str| Err(EngineError::Unsupported { statement: number, construct: c.into() });
        if q.output.is_none() {
            return Ok(None);
        }
        // An aggregating pattern's policy is `paced`'s: what aggregates here is a join.
        if let Some(refused) = refused_on_groups(q) {
            return unsupported(refused);
        }
        if q.output.as_ref().is_some_and(|o| o.kind == OutputKind::Snapshot) {
            return unsupported("OUTPUT SNAPSHOT of a join (Esper cannot iterate a unidirectional join)");
        }
        if let Input::Join(j) = &q.input
            && j.lookup.stream == q.sink.stream
        {
            return unsupported("an OUTPUT policy on a join writing the stream it looks up");
        }
        Ok(Rate::of_rows(q, created_ms))
    }

    /// The policy of `q`, created at `created_ms`, over the rows it makes as they come, if it has one: what
    /// [`Rate::of`] makes once its checks pass, and a batch window's query has (`batch`).
    pub fn of_rows(q: &QueryPlan, created_ms: i64) -> Option<Rate> {
        let output = q.output.as_ref()?;
        Some(Rate {
            kind: output.kind,
            every: output.every_millis.max(1) as i64,
            not_before: not_before(q, created_ms),
            ticking: false,
            first_out: false,
            held: Vec::new(),
            order_by: q.order_by.clone(),
            standing: (stands(q) && output.kind != OutputKind::First).then(Vec::new),
            handed: false,
            buffers: aggregates_triggers(q) && output.kind != OutputKind::First,
            by_group: lasts_by_group(q).then(|| Box::new(LastByGroup::new(fully_aggregated(q)))),
        })
    }

    /// The rows of the batches the statement made at `ctx.now` that go out now; the others are kept for the tick or
    /// dropped. An empty batch is no batch, and a batch before `AFTER`'s time is dropped, but for an aggregating join
    /// (not under `FIRST`), which keeps both ([`Rate::buffers`]).
    pub fn offer<B: Into<Batch>>(&mut self, ctx: &mut Ctx<'_>, batches: impl IntoIterator<Item = B>) -> Vec<Row> {
        let (mut out, buffers) = (Vec::new(), self.buffers);
        for batch in batches.into_iter().map(Into::into).filter(|b| buffers || !b.is_empty()) {
            if self.not_before.is_some_and(|at| ctx.now < at) && !buffers {
                return Vec::new();
            }
            self.start(ctx);
            let batch = match (batch, &mut self.by_group) {
                (Batch::Groups(groups), Some(by_group)) => {
                    by_group.take(groups);
                    continue;
                }
                (batch, _) => batch.into_rows(),
            };
            if let Some(standing) = &mut self.standing {
                standing.clone_from(&batch);
                self.handed = true;
            }
            match self.kind {
                OutputKind::First if self.first_out => {}
                OutputKind::First => {
                    self.first_out = true;
                    out.extend(order::release(batch, &self.order_by));
                }
                // A trigger whose rows all fail `HAVING` is the last of a join of aggregates (`standing`); of
                // another aggregating join, it leaves the last row that passed (Esper's `AggregateAll`).
                OutputKind::Last if batch.is_empty() && self.standing.is_none() => {}
                OutputKind::Last => self.held = batch.into_iter().last().into_iter().collect(),
                OutputKind::All | OutputKind::Default => self.held.extend(batch),
                // A snapshot is of the statement's view, which only a batch window's query has (`batch`).
                OutputKind::Snapshot => {}
            }
        }
        out
    }

    /// Starts the clock at `ctx.now` unless it runs (or `AFTER`'s time has not come).
    pub fn start(&mut self, ctx: &mut Ctx<'_>) {
        if !self.ticking && self.not_before.is_none_or(|at| ctx.now >= at) {
            self.ticking = true;
            ctx.schedule(ctx.now + self.every, TimerOrder::Output, TimerKind::Tick);
        }
    }

    /// The rows a tick releases; the next tick is set.
    pub fn tick(&mut self, ctx: &mut Ctx<'_>) -> Vec<Row> {
        ctx.schedule(ctx.now + self.every, TimerOrder::Output, TimerKind::Tick);
        self.first_out = false;
        if !std::mem::take(&mut self.handed)
            && let Some(standing) = &self.standing
        {
            self.held.clone_from(standing);
        }
        if let Some(by_group) = &mut self.by_group {
            self.held = by_group.release();
        }
        order::release(std::mem::take(&mut self.held), &self.order_by)
    }
}

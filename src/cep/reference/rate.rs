//! `OUTPUT [ALL|FIRST|LAST] EVERY p [AFTER d]` on a pattern without aggregates, with the meaning the stream queries'
//! policies have (`query`): the statement's output clock starts at its first row (at or after `d`; before that its
//! rows are dropped) and ticks every `p` from there, with or without rows. `FIRST` lets the interval's first row
//! through as it is made and drops the rest; `LAST` releases the interval's last row at the tick, `ALL` (and the
//! default) every row of the interval in the order made. A row made at a tick's millisecond by a pattern's timer is in
//! that tick's interval (pattern timers fire before output ticks); one made by an event is in the next. Esper hands each
//! match to the statement alone, so two rows of one event are two rows of the interval. A pattern has no view: its
//! `OUTPUT SNAPSHOT` is refused, as its `ORDER BY` under a policy (no rows are sorted here), and so is a policy on an
//! aggregating pattern.

use super::query::not_before;
use super::{Ctx, TimerKind, TimerOrder};
use crate::cep::plan::{OutputKind, QueryPlan};
use crate::cep::runtime::{EngineError, Row};

/// A pattern statement's output policy and what it holds.
#[derive(Debug)]
pub struct Rate {
    kind: OutputKind,
    every: i64,
    /// With `AFTER d`, the millisecond before which rows are dropped: the statement's creation plus `d`.
    not_before: Option<i64>,
    ticking: bool,
    first_out: bool,
    held: Vec<Row>,
}

impl Rate {
    /// The policy of pattern statement `number` created at `created_ms`, if it has one it can run.
    pub fn of(number: usize, q: &QueryPlan, created_ms: i64) -> Result<Option<Rate>, EngineError> {
        let unsupported = |c: &str| Err(EngineError::Unsupported { statement: number, construct: c.into() });
        let Some(output) = &q.output else {
            return Ok(None);
        };
        if q.aggregation.is_some() {
            return unsupported("an OUTPUT policy on an aggregating pattern");
        }
        if !q.order_by.is_empty() {
            return unsupported("ORDER BY on a pattern with an OUTPUT policy");
        }
        Ok(Some(Rate {
            kind: output.kind,
            every: output.every_millis.max(1) as i64,
            not_before: not_before(q, created_ms),
            ticking: false,
            first_out: false,
            held: Vec::new(),
        }))
    }

    /// The rows the statement made at `ctx.now` that go out now; the others are kept for the tick or dropped.
    pub fn offer(&mut self, ctx: &mut Ctx<'_>, rows: Vec<Row>) -> Vec<Row> {
        if rows.is_empty() || self.not_before.is_some_and(|at| ctx.now < at) {
            return Vec::new();
        }
        if !self.ticking {
            self.ticking = true;
            ctx.schedule(ctx.now + self.every, TimerOrder::Output, TimerKind::Tick);
        }
        match self.kind {
            OutputKind::First if self.first_out => Vec::new(),
            OutputKind::First => {
                self.first_out = true;
                rows.into_iter().take(1).collect()
            }
            OutputKind::Last => {
                self.held = rows.into_iter().last().into_iter().collect();
                Vec::new()
            }
            OutputKind::All | OutputKind::Default | OutputKind::Snapshot => {
                self.held.extend(rows);
                Vec::new()
            }
        }
    }

    /// The rows a tick releases; the next tick is set.
    pub fn tick(&mut self, ctx: &mut Ctx<'_>) -> Vec<Row> {
        ctx.schedule(ctx.now + self.every, TimerOrder::Output, TimerKind::Tick);
        self.first_out = false;
        std::mem::take(&mut self.held)
    }
}

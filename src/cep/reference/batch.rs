//! A query over a batch window, `win:length_batch(n)` or `win:time_batch(d)`, with Esper's meaning (its
//! `LengthBatchView`, `TimeBatchView` and result-set processors).
//!
//! The view collects the events that pass the stream filter and releases them together: when the n-th arrives, or
//! when a period ends. The released batch is then the view's contents until the next release replaces it, so at a
//! release the statement sees the new batch arrive and the one before it leave, both filtered by WHERE. It emits:
//!
//! - without aggregates, one row per new event, in arrival order;
//! - fully aggregated, one row per group with an event in either batch, its aggregates over the new batch (null for a
//!   group the new batch left empty, as an emptied group's row under `OUTPUT LAST`), projected from the group's last
//!   event seen, old ones seen after new ones (Esper 8's `generateGroupKeysKeepEvent`; only HAVING can tell, when it
//!   reads a column that is neither grouped nor aggregated);
//! - with ungrouped columns, one row per new event with its group's aggregates over the whole new batch.
//!
//! HAVING filters each row. A time batch's periods start at its first event and follow on from it: each ends at the
//! start plus a whole number of periods. A period that ends with neither the collected batch nor the last released one
//! holding an event releases nothing and stops the clock; the next event starts it again, due at the next period end
//! after it. So after its last events a time batch releases once more with nothing new (its groups' null rows), and
//! then stops.

use std::collections::BTreeMap;

use super::aggregate;
use super::query::{check_query, key_of};
use super::{Ctx, TimerKind, TimerOrder};
use crate::cep::plan::{AggregationKind, QueryPlan, StreamInput, WindowSpec};
use crate::cep::runtime::eval::{Scope, holds, project};
use crate::cep::runtime::{EngineError, Row, Val, order};

/// An event in a batch: its row, its group and whether it passed WHERE.
#[derive(Debug)]
struct Entry {
    row: Row,
    group: String,
    counts: bool,
}

/// When a batch is released.
#[derive(Debug, Clone, Copy)]
enum Release {
    /// When it holds this many events.
    Length(usize),
    /// At the end of each period of this many milliseconds.
    Time(i64),
}

#[derive(Debug)]
pub struct BatchQuery {
    plan: QueryPlan,
    input: StreamInput,
    release: Release,
    /// The events collected since the last release, oldest first.
    collected: Vec<Entry>,
    /// The batch released last: the view's contents.
    released: Vec<Entry>,
    /// A time batch's first event's millisecond, from which its periods count.
    start: Option<i64>,
    /// Whether a time batch's clock runs (a release is scheduled).
    ticking: bool,
}

impl BatchQuery {
    /// The query of `q`, reading `input` through its batch window.
    pub fn new(number: usize, q: &QueryPlan, input: &StreamInput) -> Result<Self, EngineError> {
        check_query(number, q)?;
        let unsupported = |c: &str| Err(EngineError::Unsupported { statement: number, construct: c.into() });
        let release = match input.window.as_ref() {
            Some(WindowSpec::LengthBatch { count }) => Release::Length((*count).max(1) as usize),
            Some(WindowSpec::TimeBatch { millis }) => Release::Time((*millis).max(1) as i64),
            _ => return unsupported("a batch window inside std:groupwin"),
        };
        if q.output.is_some() {
            return unsupported("an OUTPUT policy on a batch window");
        }
        Ok(BatchQuery {
            plan: q.clone(),
            input: input.clone(),
            release,
            collected: Vec::new(),
            released: Vec::new(),
            start: None,
            ticking: false,
        })
    }

    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, stream: &str, event: &Row) -> Vec<Row> {
        if stream != self.input.stream {
            return Vec::new();
        }
        let binding = [(self.input.label.as_str(), event)];
        let scope = Scope::new(&binding, ctx.vars);
        if !holds(self.input.filter.as_ref(), &scope) {
            return Vec::new();
        }
        let counts = holds(self.plan.filter.as_ref(), &scope);
        let exprs = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
        let group = key_of(exprs, &self.input.label, event, ctx.vars);
        self.collected.push(Entry { row: event.clone(), group, counts });
        match self.release {
            Release::Length(n) if self.collected.len() >= n => self.release(ctx.vars),
            Release::Length(_) => Vec::new(),
            Release::Time(period) => {
                let start = *self.start.get_or_insert(ctx.now);
                if !self.ticking {
                    self.ticking = true;
                    let end = start + ((ctx.now - start).div_euclid(period) + 1) * period;
                    ctx.schedule(end, TimerOrder::Output, TimerKind::Batch);
                }
                Vec::new()
            }
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx<'_>, kind: TimerKind) -> Vec<Row> {
        let (TimerKind::Batch, Release::Time(period)) = (kind, self.release) else {
            return Vec::new();
        };
        self.ticking = !self.collected.is_empty() || !self.released.is_empty();
        if !self.ticking {
            return Vec::new();
        }
        ctx.schedule(ctx.now + period, TimerOrder::Output, TimerKind::Batch);
        self.release(ctx.vars)
    }

    /// The collected events become the view's contents, and the ones they replace leave: the rows this gives, in
    /// `ORDER BY` order.
    fn release(&mut self, vars: &Row) -> Vec<Row> {
        let rows = self.released_rows(vars);
        order::ordered(rows, &self.plan.order_by)
    }

    /// The rows of a release, with their `ORDER BY` keys, in the order they are made.
    fn released_rows(&mut self, vars: &Row) -> Vec<(Vec<Val>, Row)> {
        let old = std::mem::replace(&mut self.released, std::mem::take(&mut self.collected));
        let new: Vec<&Entry> = self.released.iter().filter(|e| e.counts).collect();
        let old: Vec<&Entry> = old.iter().filter(|e| e.counts).collect();
        let Some(aggregation) = &self.plan.aggregation else {
            return new.iter().map(|e| self.project(&e.row, &[], vars)).collect();
        };
        let calls = &aggregation.aggregates;
        let aggregates = |group: &str| {
            let rows: Vec<&Row> = new.iter().filter(|e| e.group == group).map(|e| &e.row).collect();
            match rows.is_empty() {
                true => vec![Val::Null; calls.len()],
                false => aggregate::compute(calls, &self.input.label, &rows, vars),
            }
        };
        match aggregation.kind {
            AggregationKind::FullyAggregated => {
                // Each group's last event seen, the new batch's seen before the old one's; groups in order of first
                // sight.
                let mut order: Vec<&str> = Vec::new();
                let mut last: BTreeMap<&str, &Row> = BTreeMap::new();
                for e in new.iter().chain(&old) {
                    if last.insert(&e.group, &e.row).is_none() {
                        order.push(&e.group);
                    }
                }
                let row = |group: &str| {
                    let event = last[group];
                    let aggregates = aggregates(group);
                    self.having(event, &aggregates, vars).then(|| self.project(event, &aggregates, vars))
                };
                order.into_iter().filter_map(row).collect()
            }
            AggregationKind::WithUngroupedColumns(_) => {
                let mut by_group: BTreeMap<&str, Vec<Val>> = BTreeMap::new();
                for e in &new {
                    by_group.entry(&e.group).or_insert_with(|| aggregates(&e.group));
                }
                let row = |e: &&Entry| {
                    let aggregates = &by_group[e.group.as_str()];
                    self.having(&e.row, aggregates, vars).then(|| self.project(&e.row, aggregates, vars))
                };
                new.iter().filter_map(row).collect()
            }
        }
    }

    fn having(&self, event: &Row, aggregates: &[Val], vars: &Row) -> bool {
        let having = self.plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
        let binding = [(self.input.label.as_str(), event)];
        holds(having, &Scope { rows: &binding, aggregates, vars, pinned: &[] })
    }

    /// The row of `event` with its `ORDER BY` keys.
    fn project(&self, event: &Row, aggregates: &[Val], vars: &Row) -> (Vec<Val>, Row) {
        let binding = [(self.input.label.as_str(), event)];
        let scope = Scope { rows: &binding, aggregates, vars, pinned: &[] };
        (order::keys(&self.plan.order_by, &scope), project(&self.plan.projection, &scope))
    }
}

//! The one-sided outer join `A unidirectional LEFT OUTER JOIN B.<view> AS b ON c` (cep-epl.md, tier 1 item 16), as
//! Esper runs it: only the driving side (a stream's events or a pattern's matches) triggers; each trigger looks up
//! the rows B's view holds at that moment that satisfy `ON`: none gives one row with `b` null, several give one row
//! each; then `WHERE` and the select list. B's view is fed by every event of B, the statement's own output included;
//! that output is routed like any inserted event (after the trigger that produced it), so the next trigger sees it
//! and the current one does not. This module does not route events: the engine hands it B's events in order.
//!
//! [`LookupView`] and [`Joiner`] are shared with the dataflow runtime, so what a lookup means is written once. The
//! view keeps rows in arrival order; a time window expires lazily (a row is visible while `now < arrival + d`),
//! which is exactly what expiry timers firing before a millisecond's events give, since leaving a lookup view
//! produces nothing.

use std::sync::Arc;

use super::pattern::{Bindings, PatternQuery, streams_of};
use super::query::{check_query, time_window, view_key};
use super::{Ctx, TimerKind};
use crate::cep::plan::{Input, JoinPlan, QueryPlan, StreamInput, WindowSpec};
use crate::cep::runtime::eval::{Scope, holds, project};
use crate::cep::runtime::{EngineError, Row};

/// The rows the looked-up side's view holds, in arrival order.
#[derive(Debug, Clone)]
pub struct LookupView {
    input: StreamInput,
    rows: Vec<Held>,
}

#[derive(Debug, Clone)]
struct Held {
    arrived: i64,
    key: String,
    row: Row,
}

impl LookupView {
    pub fn new(input: &StreamInput) -> Self {
        LookupView { input: input.clone(), rows: Vec::new() }
    }

    /// An event of the looked-up stream at `now`: it enters the view if it passes the stream's filter, displacing
    /// what the view says it displaces.
    pub fn insert(&mut self, now: i64, row: &Row, vars: &Row) {
        let label = self.input.label.as_str();
        if !holds(self.input.filter.as_ref(), &Scope::new(&[(label, row)], vars)) {
            return;
        }
        let key = self.input.window.as_ref().map_or(String::new(), |w| view_key(w, label, row, vars));
        self.expire(now);
        if self.replaces() {
            self.rows.retain(|h| h.key != key);
        }
        self.rows.push(Held { arrived: now, key, row: row.clone() });
        self.trim();
    }

    /// The rows in view at `now`.
    pub fn visible(&self, now: i64) -> impl Iterator<Item = &Row> {
        let lifetime = self.lifetime();
        self.rows.iter().filter(move |h| lifetime.is_none_or(|d| now < h.arrived.saturating_add(d))).map(|h| &h.row)
    }

    pub fn clear(&mut self) {
        self.rows.clear();
    }

    pub fn label(&self) -> &str {
        &self.input.label
    }

    pub fn stream(&self) -> &str {
        &self.input.stream
    }

    fn lifetime(&self) -> Option<i64> {
        self.input.window.as_ref().and_then(time_window).map(|d| d as i64)
    }

    fn expire(&mut self, now: i64) {
        if let Some(d) = self.lifetime() {
            self.rows.retain(|h| now < h.arrived.saturating_add(d));
        }
    }

    /// Whether a new row replaces the held one of its view key (unique and last-event views, grouped or not).
    fn replaces(&self) -> bool {
        match &self.input.window {
            Some(WindowSpec::Unique { .. } | WindowSpec::LastEvent) => true,
            Some(WindowSpec::Grouped { inner, .. }) => {
                matches!(**inner, WindowSpec::Unique { .. } | WindowSpec::LastEvent)
            }
            _ => false,
        }
    }

    /// A length view keeps the last `count` rows of the newest row's view key.
    fn trim(&mut self) {
        let count = match &self.input.window {
            Some(WindowSpec::Length { count }) => *count as usize,
            Some(WindowSpec::Grouped { inner, .. }) => match **inner {
                WindowSpec::Length { count } => count as usize,
                _ => return,
            },
            _ => return,
        };
        let Some(key) = self.rows.last().map(|h| h.key.clone()) else {
            return;
        };
        let mut excess = self.rows.iter().filter(|h| h.key == key).count().saturating_sub(count);
        self.rows.retain(|h| {
            let drop = excess > 0 && h.key == key;
            excess -= usize::from(drop);
            !drop
        });
    }
}

/// What a join statement computes for one trigger: the lookup, `WHERE` and the select list.
#[derive(Debug, Clone)]
pub struct Joiner {
    plan: Arc<QueryPlan>,
    join: Arc<JoinPlan>,
    pub view: LookupView,
}

impl Joiner {
    pub fn new(plan: Arc<QueryPlan>, join: &JoinPlan) -> Self {
        Joiner { plan, view: LookupView::new(&join.lookup), join: Arc::new(join.clone()) }
    }

    /// The rows of one trigger (a driving event or match bound as `bindings`) at `now`.
    pub fn rows(&self, now: i64, bindings: &Bindings, vars: &Row) -> Vec<Row> {
        let label = self.view.label();
        let mut scope: Vec<(&str, &Row)> = bindings.iter().map(|(t, r)| (&**t, r)).collect();
        let matched: Vec<&Row> = self
            .view
            .visible(now)
            .filter(|row| {
                scope.push((label, row));
                let on = holds(Some(&self.join.on), &Scope::new(&scope, vars));
                scope.pop();
                on
            })
            .collect();
        if matched.is_empty() {
            return self.project(&scope, vars).into_iter().collect();
        }
        let mut out = Vec::with_capacity(matched.len());
        for row in matched {
            scope.push((label, row));
            out.extend(self.project(&scope, vars));
            scope.pop();
        }
        out
    }

    fn project(&self, rows: &[(&str, &Row)], vars: &Row) -> Option<Row> {
        let scope = Scope::new(rows, vars);
        holds(self.plan.filter.as_ref(), &scope).then(|| project(&self.plan.projection, &scope))
    }
}

/// A driving stream's event as the trigger's bindings, when it passes the stream's filter.
pub fn stream_trigger(input: &StreamInput, event: &Row, vars: &Row) -> Option<Bindings> {
    let binding = [(input.label.as_str(), event)];
    holds(input.filter.as_ref(), &Scope::new(&binding, vars))
        .then(|| smallvec::smallvec![(input.label.as_str().into(), event.clone())])
}

/// Checks what the runtimes do not run, and answers the join.
pub fn check_join(number: usize, q: &QueryPlan) -> Result<&JoinPlan, EngineError> {
    let unsupported = |c: &str| Err(EngineError::Unsupported { statement: number, construct: c.into() });
    check_query(number, q)?;
    let Input::Join(join) = &q.input else {
        return unsupported("this input");
    };
    if q.aggregation.is_some() || q.output.is_some() {
        return unsupported("aggregating or rate-limiting a join");
    }
    if join.lookup.named_window {
        return unsupported("a join looking up a named window");
    }
    if driver_streams(join).contains(&join.lookup.stream) {
        return unsupported("a join whose driving side reads its looked-up stream");
    }
    if join.lookup.window.as_ref().is_some_and(batch) {
        return unsupported("a batch window on a join's looked-up stream");
    }
    Ok(join)
}

fn batch(w: &WindowSpec) -> bool {
    match w {
        WindowSpec::TimeBatch { .. } | WindowSpec::LengthBatch { .. } => true,
        WindowSpec::Grouped { inner, .. } => batch(inner),
        _ => false,
    }
}

/// The streams whose events can trigger the join.
pub fn driver_streams(join: &JoinPlan) -> Vec<String> {
    match &join.driver {
        Input::Stream(s) => vec![s.stream.clone()],
        Input::Pattern(p) => streams_of(&p.root),
        Input::Join(j) => driver_streams(j),
    }
}

#[derive(Debug)]
enum Driver {
    Stream(StreamInput),
    Pattern(Box<PatternQuery>),
}

/// A join statement in the reference evaluator.
#[derive(Debug)]
pub struct JoinQuery {
    driver: Driver,
    joiner: Joiner,
}

impl JoinQuery {
    pub fn new(number: usize, q: &QueryPlan) -> Result<Self, EngineError> {
        let join = check_join(number, q)?;
        let driver = match &join.driver {
            Input::Stream(s) => Driver::Stream(s.clone()),
            Input::Pattern(p) => Driver::Pattern(Box::new(PatternQuery::driver(number, q, p)?)),
            Input::Join(_) => {
                return Err(EngineError::Unsupported { statement: number, construct: "a nested join".into() });
            }
        };
        Ok(JoinQuery { driver, joiner: Joiner::new(Arc::new(q.clone()), join) })
    }

    /// Triggers on a driving event; then, if the event is of the looked-up stream, it enters the view (a stream is
    /// never both: see [`check_join`]).
    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, stream: &str, event: &Row) -> Vec<Row> {
        let triggers = match &mut self.driver {
            Driver::Stream(s) if s.stream == stream => stream_trigger(s, event, ctx.vars).into_iter().collect(),
            Driver::Stream(_) => Vec::new(),
            Driver::Pattern(p) => p.matches_on_event(ctx, stream, event),
        };
        let rows = self.rows(ctx, &triggers);
        if stream == self.joiner.view.stream() {
            self.joiner.view.insert(ctx.now, event, ctx.vars);
        }
        rows
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx<'_>, kind: TimerKind) -> Vec<Row> {
        let triggers = match &mut self.driver {
            Driver::Pattern(p) => p.matches_on_timer(ctx, kind),
            Driver::Stream(_) => Vec::new(),
        };
        self.rows(ctx, &triggers)
    }

    fn rows(&self, ctx: &Ctx<'_>, triggers: &[Bindings]) -> Vec<Row> {
        triggers.iter().flat_map(|b| self.joiner.rows(ctx.now, b, ctx.vars)).collect()
    }
}

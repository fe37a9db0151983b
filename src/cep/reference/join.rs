//! The one-sided outer join `A unidirectional LEFT OUTER JOIN B.<view> AS b ON c` (cep-epl.md, tier 1 item 16), as
//! Esper runs it: only the driving side (a stream's events or a pattern's matches) triggers; each trigger looks up
//! the rows B's view holds at that moment that satisfy `ON`: none gives one row with `b` null, several give one row
//! each; then `WHERE` and the select list. B's view is fed by every event of B, the statement's own output included;
//! that output is routed like any inserted event (after the trigger that produced it), so the next trigger sees it
//! and the current one does not. This module does not route events: the engine hands it B's events in order. A named
//! window is looked up the same way, B being the window's insert stream read through the window's own view (the
//! planner gives the join that view); [`check_window_lookups`] refuses what that stream cannot show.
//!
//! [`LookupView`] (module `lookup`: the view, its indexes and its expiry) and [`Joiner`] are shared with the
//! dataflow runtime, so what a lookup means is written once. A stream-driven join's expressions are compiled
//! (`runtime::compiled`) for its two layouts of rows, the driving event alone and the event with a looked-up row; a
//! pattern's matches bind varying tags, and are interpreted.
//!
//! `ORDER BY` sorts the rows of one trigger, which Esper's join hands its result set processor together; a pattern's
//! matches are triggers of their own (Esper inserts each into the join's stream alone), so rows of two matches of one
//! event keep the order of the matches. An aggregating join aggregates a trigger's rows that pass `WHERE` afresh
//! (`aggregate::fresh`): Esper's result set processors clear a unidirectional join's aggregation at every trigger, and
//! a trigger none of whose rows pass is not handed to them at all, so it gives no row.

mod last;
mod lookup;

pub use self::last::{GroupRows, LastByGroup};
pub use self::lookup::{Equal, LookupView, Reach};

use std::sync::Arc;

use super::aggregate;
use super::pattern::{Bindings, PatternQuery, streams_of};
use super::query::{check_query, lasts_by_group};
use super::rate::Rate;
use super::{Ctx, TimerKind};
use crate::cep::plan::{Input, JoinPlan, MergeActionPlan, Plan, PlanExpr, PlanNode, QueryPlan, WindowSpec};
use crate::cep::runtime::compiled::{RowExpr, RowProjection};
use crate::cep::runtime::eval::{Scope, holds, project};
use crate::cep::runtime::{EngineError, Row, Val, order};

/// What one trigger hands the statement's result set, as Esper's join does: nothing when no joined row passes
/// `WHERE`, else what it makes (an aggregating join's rows none when they fail `HAVING`).
pub type Handed = Option<Batch>;

/// A trigger's rows: as made, or by group for `OUTPUT LAST` on an aggregating join with `GROUP BY` (`last`).
#[derive(Debug)]
pub enum Batch {
    Rows(Vec<Row>),
    Groups(Vec<GroupRows>),
}

impl From<Vec<Row>> for Batch {
    fn from(rows: Vec<Row>) -> Self {
        Batch::Rows(rows)
    }
}

impl Batch {
    /// Whether the trigger made nothing (its rows failed `HAVING`).
    pub fn is_empty(&self) -> bool {
        match self {
            Batch::Rows(rows) => rows.is_empty(),
            Batch::Groups(groups) => groups.is_empty(),
        }
    }

    /// The rows as made (a group's with the trigger's aggregates).
    pub fn into_rows(self) -> Vec<Row> {
        match self {
            Batch::Rows(rows) => rows,
            Batch::Groups(groups) => groups.into_iter().filter_map(|g| g.fresh).collect(),
        }
    }
}

/// What a join statement computes for one trigger: the lookup, `WHERE` and the select list.
#[derive(Debug, Clone)]
pub struct Joiner {
    plan: Arc<QueryPlan>,
    join: Arc<JoinPlan>,
    pub view: LookupView,
    /// A stream-driven join's expressions, compiled.
    stream: Option<StreamJoin>,
}

/// A stream-driven join's expressions compiled for their rows: over the driving event alone (its stream's filter,
/// the trigger's side of the probed equality, and the output of a trigger that matches nothing) and over the event
/// and a looked-up row (`ON`, and the output of each match).
#[derive(Debug, Clone)]
struct StreamJoin {
    filter: Option<RowExpr>,
    reach: Option<RowExpr>,
    on: RowExpr,
    matched: Output,
    alone: Output,
}

/// `WHERE` and the select list over one layout of rows.
#[derive(Debug, Clone)]
struct Output {
    filter: Option<RowExpr>,
    projection: RowProjection,
}

impl Output {
    fn new(plan: &QueryPlan, labels: &[&str], vars: &Row) -> Self {
        let filter = plan.filter.as_ref().map(|f| RowExpr::new(f, labels, vars));
        Output { filter, projection: RowProjection::new(&plan.projection, labels, vars) }
    }

    fn row(&self, rows: &[&Row], (vars, now): (&Row, i64)) -> Option<Row> {
        let passes = self.filter.as_ref().is_none_or(|f| f.holds(rows, &[], vars, Some(now)));
        passes.then(|| self.projection.project(rows, vars, Some(now)))
    }
}

impl Joiner {
    pub fn new(plan: Arc<QueryPlan>, join: &JoinPlan, vars: &Row) -> Self {
        let view = LookupView::new(&join.lookup, &join.keys, vars);
        let stream = match &join.driver {
            Input::Stream(driver) => {
                let alone = [driver.label.as_str()];
                let both = [driver.label.as_str(), join.lookup.label.as_str()];
                Some(StreamJoin {
                    filter: driver.filter.as_ref().map(|f| RowExpr::new(f, &alone, vars)),
                    reach: view.probe_value().map(|v| RowExpr::new(v, &alone, vars)),
                    on: RowExpr::new(&join.on, &both, vars),
                    matched: Output::new(&plan, &both, vars),
                    alone: Output::new(&plan, &alone, vars),
                })
            }
            _ => None,
        };
        Joiner { plan, join: Arc::new(join.clone()), view, stream }
    }

    /// What a driving event at `now` hands on: nothing when the join is driven by a pattern or the stream's filter
    /// refuses the event.
    pub fn on_driving_event(&self, now: i64, event: &Row, vars: &Row) -> Handed {
        let stream = self.stream.as_ref()?;
        let alone = [event];
        if !stream.filter.as_ref().is_none_or(|f| f.holds(&alone, &[], vars, Some(now))) {
            return None;
        }
        let reach = match &stream.reach {
            Some(value) => Reach::Class(Equal::of(&value.eval(&alone, &[], vars, Some(now)))),
            None => Reach::All,
        };
        let driver = self.driver_label();
        if self.plan.aggregation.is_some() {
            let on = |row: &&Row| stream.on.holds(&[event, row], &[], vars, Some(now));
            let matched = self.view.visible(now, &reach).filter(on);
            let joined: Vec<Vec<(&str, &Row)>> =
                matched.map(|row| vec![(driver, event), (self.view.label(), row)]).collect();
            return self.aggregated(joined, &[(driver, event)], (vars, now));
        }
        let (mut out, mut matched) = (TriggerRows::new(&self.plan), false);
        for row in self.view.visible(now, &reach) {
            let both = [event, row];
            if stream.on.holds(&both, &[], vars, Some(now)) {
                matched = true;
                let of = [(driver, event), (self.view.label(), row)];
                out.push(stream.matched.row(&both, (vars, now)), &of, (vars, now));
            }
        }
        if !matched {
            out.push(stream.alone.row(&alone, (vars, now)), &[(driver, event)], (vars, now));
        }
        out.handed()
    }

    /// The label of a stream-driven join's driving stream.
    fn driver_label(&self) -> &str {
        match &self.join.driver {
            Input::Stream(driver) => &driver.label,
            _ => "",
        }
    }

    /// What a pattern's match, bound as `bindings`, hands on at `now`.
    pub fn rows(&self, now: i64, bindings: &Bindings, vars: &Row) -> Handed {
        let label = self.view.label();
        let mut scope: Vec<(&str, &Row)> = bindings.iter().map(|(t, r)| (&**t, r)).collect();
        let reach = self.view.reach(&Scope::new(&scope, vars, Some(now)));
        let matched: Vec<&Row> = self
            .view
            .visible(now, &reach)
            .filter(|row| {
                scope.push((label, row));
                let on = holds(Some(&self.join.on), &Scope::new(&scope, vars, Some(now)));
                scope.pop();
                on
            })
            .collect();
        if self.plan.aggregation.is_some() {
            let joined = matched.into_iter().map(|row| [&scope[..], &[(label, row)]].concat()).collect();
            return self.aggregated(joined, &scope, (vars, now));
        }
        let mut out = TriggerRows::new(&self.plan);
        if matched.is_empty() {
            out.push(self.project(&scope, (vars, now)), &scope, (vars, now));
        }
        for row in matched {
            scope.push((label, row));
            out.push(self.project(&scope, (vars, now)), &scope, (vars, now));
            scope.pop();
        }
        out.handed()
    }

    /// What an aggregating join hands on of a trigger's `joined` rows (the trigger `alone` when nothing matched):
    /// those that pass `WHERE`, aggregated afresh, as Esper's unidirectional join clears its aggregation at every
    /// trigger; nothing when none passes. Under an output policy the rows carry their `ORDER BY` keys, hidden, since
    /// the policy sorts rows of several triggers together (`rate`).
    fn aggregated<'r>(
        &self,
        mut joined: Vec<Vec<(&'r str, &'r Row)>>,
        alone: &[(&'r str, &'r Row)],
        (vars, now): (&Row, i64),
    ) -> Handed {
        if joined.is_empty() {
            joined.push(alone.to_vec());
        }
        let passed: Vec<&[(&str, &Row)]> = joined
            .iter()
            .map(Vec::as_slice)
            .filter(|row| holds(self.plan.filter.as_ref(), &Scope::new(row, vars, Some(now))))
            .collect();
        if passed.is_empty() {
            return None;
        }
        if lasts_by_group(&self.plan) {
            return Some(Batch::Groups(aggregate::fresh_groups(&self.plan, &passed, vars, now)));
        }
        if self.plan.output.is_none() || self.plan.order_by.is_empty() {
            return Some(Batch::Rows(aggregate::fresh(&self.plan, &passed, vars, now)));
        }
        let made = aggregate::fresh_keyed(&self.plan, &passed, vars, now);
        Some(Batch::Rows(made.into_iter().map(|(keys, row)| order::with_keys(row, keys)).collect()))
    }

    fn project(&self, rows: &[(&str, &Row)], (vars, now): (&Row, i64)) -> Option<Row> {
        let scope = Scope::new(rows, vars, Some(now));
        holds(self.plan.filter.as_ref(), &scope).then(|| project(&self.plan.projection, &scope))
    }
}

/// The rows of one trigger, with their `ORDER BY` keys when the statement has any. Under an output policy the keys
/// go into the rows, hidden, since the policy sorts rows of several triggers together (`rate`).
struct TriggerRows<'p> {
    order_by: &'p [(PlanExpr, bool)],
    paced: bool,
    rows: Vec<Row>,
    keys: Vec<Vec<Val>>,
}

impl<'p> TriggerRows<'p> {
    fn new(plan: &'p QueryPlan) -> Self {
        TriggerRows { order_by: &plan.order_by, paced: plan.output.is_some(), rows: Vec::new(), keys: Vec::new() }
    }

    /// Adds `row`, if the trigger made one, of the rows `of` (its keys are read from them).
    fn push(&mut self, row: Option<Row>, of: &[(&str, &Row)], (vars, now): (&Row, i64)) {
        let Some(row) = row else {
            return;
        };
        if self.order_by.is_empty() {
            return self.rows.push(row);
        }
        let keys = order::keys(self.order_by, &Scope::new(of, vars, Some(now)));
        match self.paced {
            true => self.rows.push(order::with_keys(row, keys)),
            false => {
                self.keys.push(keys);
                self.rows.push(row);
            }
        }
    }

    /// The rows in `ORDER BY`'s order, or as they were made without it or under a policy: nothing handed on when
    /// no row passed `WHERE`.
    fn handed(self) -> Handed {
        if self.rows.is_empty() {
            return None;
        }
        Some(Batch::Rows(match self.keys.is_empty() {
            true => self.rows,
            false => order::ordered(self.keys.into_iter().zip(self.rows).collect(), self.order_by),
        }))
    }
}

/// Checks what the runtimes do not run, and answers the join.
pub fn check_join(number: usize, q: &QueryPlan) -> Result<&JoinPlan, EngineError> {
    let unsupported = |c: &str| Err(EngineError::Unsupported { statement: number, construct: c.into() });
    check_query(number, q)?;
    let Input::Join(join) = &q.input else {
        return unsupported("this input");
    };
    if driver_streams(join).contains(&join.lookup.stream) {
        return unsupported("a join whose driving side reads its looked-up stream");
    }
    if join.lookup.window.as_ref().is_some_and(WindowSpec::batches) {
        return unsupported("a batch window on a join's looked-up stream");
    }
    Ok(join)
}

/// Checks the joins that look up a named window. Such a join reads the window through its insert stream (with the
/// window's own view, `planner::query`), which carries each row the window takes in and each updated row's new
/// version, and the rows statements delete from it ([`removed_from`]): so a join is refused only when a statement
/// updates a column of the window's key (the old version would stay in the join's view, filed under its old key). A
/// join writing the window it looks up is a cycle to the planner.
pub fn check_window_lookups(plan: &Plan) -> Result<(), EngineError> {
    for s in &plan.statements {
        let Some(join) = window_lookup(&s.node) else {
            continue;
        };
        let window = join.lookup.stream.as_str();
        let refuse = |construct: String| Err(EngineError::Unsupported { statement: s.number, construct });
        let keys = key_columns(join.lookup.window.as_ref());
        for writer in &plan.statements {
            if let Some(column) = key_update(&writer.node, window, &keys) {
                let n = writer.number;
                return refuse(format!("a join looking up {window}, whose key column {column} statement {n} updates"));
            }
        }
    }
    Ok(())
}

/// The join of a join statement that looks up a named window.
pub fn window_lookup(node: &PlanNode) -> Option<&JoinPlan> {
    match node {
        PlanNode::Query(q) => match &q.input {
            Input::Join(j) if j.lookup.named_window => Some(j),
            _ => None,
        },
        _ => None,
    }
}

/// The stream of the rows statements delete from named window `window`, which only the joins looking it up read. Its
/// name is no identifier, so no statement can name it.
pub fn removed_from(window: &str) -> String {
    format!("{window} (removed)")
}

/// The stream of the rows named window `window` holds when a dataflow replacing its own keeps it, sent once to the
/// joins starting to look it up there (the dataflow's; the reference has no replacements): an Esper join reads the
/// window's rows as they are, not only those inserted after it started. Named as [`removed_from`]'s.
pub fn held_by(window: &str) -> String {
    format!("{window} (held)")
}

/// The columns a unique view's keys read.
fn key_columns(window: Option<&WindowSpec>) -> Vec<String> {
    let mut columns = Vec::new();
    if let Some(WindowSpec::Unique { keys }) = window {
        for key in keys {
            key.visit(&mut |e| {
                if let PlanExpr::Column { name, .. } = e {
                    columns.push(name.to_string());
                }
            });
        }
    }
    columns
}

/// The first of `window`'s `keys` columns that `node` updates, if any.
fn key_update<'p>(node: &'p PlanNode, window: &str, keys: &[String]) -> Option<&'p str> {
    let key = |assignments: &'p [(String, PlanExpr)]| {
        assignments.iter().find(|(column, _)| keys.contains(column)).map(|(column, _)| column.as_str())
    };
    match node {
        PlanNode::Update(a) if a.window == window => key(&a.assignments),
        PlanNode::Merge(m) if m.window == window => m.clauses.iter().find_map(|c| match &c.action {
            MergeActionPlan::Update(assignments) => key(assignments),
            MergeActionPlan::Delete | MergeActionPlan::Insert(_) => None,
        }),
        _ => None,
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
    /// The driving stream's name.
    Stream(String),
    Pattern(Box<PatternQuery>),
}

/// A join statement in the reference evaluator.
#[derive(Debug)]
pub struct JoinQuery {
    driver: Driver,
    joiner: Joiner,
    rate: Option<Rate>,
}

impl JoinQuery {
    /// The join of statement `number`, created at `created_ms`.
    pub fn new(number: usize, q: &QueryPlan, vars: &Row, created_ms: i64) -> Result<Self, EngineError> {
        let join = check_join(number, q)?;
        let rate = Rate::of(number, q, created_ms)?;
        let driver = match &join.driver {
            Input::Stream(s) => Driver::Stream(s.stream.clone()),
            Input::Pattern(p) => Driver::Pattern(Box::new(PatternQuery::driver(q, p))),
            Input::Join(_) => {
                return Err(EngineError::Unsupported { statement: number, construct: "a nested join".into() });
            }
        };
        Ok(JoinQuery { driver, joiner: Joiner::new(Arc::new(q.clone()), join, vars), rate })
    }

    /// Starts its driving pattern, if it has one, when the statement is created ([`PatternQuery::create`]).
    pub fn create(&mut self, ctx: &mut Ctx<'_>) {
        if let Driver::Pattern(p) = &mut self.driver {
            p.create(ctx);
        }
    }

    /// Triggers on a driving event; then, if the event is of the looked-up stream, it enters the view (a stream is
    /// never both: see [`check_join`]).
    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, stream: &str, event: &Row) -> Vec<Row> {
        let rows = match &mut self.driver {
            Driver::Stream(s) if s == stream => {
                let handed = self.joiner.on_driving_event(ctx.now, event, ctx.vars);
                self.paced(ctx, vec![handed])
            }
            Driver::Stream(_) => Vec::new(),
            Driver::Pattern(p) => {
                let matches = p.matches_on_event(ctx, stream, event);
                self.rows(ctx, &matches)
            }
        };
        if stream == self.joiner.view.stream() {
            self.joiner.view.insert(ctx.now, event, ctx.vars);
        } else if stream == removed_from(self.joiner.view.stream()) {
            self.joiner.view.remove(event, ctx.vars);
        }
        rows
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx<'_>, kind: TimerKind) -> Vec<Row> {
        if let (TimerKind::Tick, Some(rate)) = (kind, &mut self.rate) {
            return rate.tick(ctx);
        }
        let triggers = match &mut self.driver {
            Driver::Pattern(p) => p.matches_on_timer(ctx, kind),
            Driver::Stream(_) => Vec::new(),
        };
        self.rows(ctx, &triggers)
    }

    /// The rows of the pattern's matches, each match's a batch.
    fn rows(&mut self, ctx: &mut Ctx<'_>, triggers: &[Bindings]) -> Vec<Row> {
        let batches = triggers.iter().map(|b| self.joiner.rows(ctx.now, b, ctx.vars)).collect();
        self.paced(ctx, batches)
    }

    /// The rows of the triggers' `handed` batches that go out now: all of them without an output policy.
    fn paced(&mut self, ctx: &mut Ctx<'_>, handed: Vec<Handed>) -> Vec<Row> {
        let batches = handed.into_iter().flatten();
        match &mut self.rate {
            Some(rate) => rate.offer(ctx, batches),
            None => batches.flat_map(Batch::into_rows).collect(),
        }
    }
}

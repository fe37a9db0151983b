//! The one-sided outer join `A unidirectional LEFT OUTER JOIN B.<view> AS b ON c` (cep-epl.md, tier 1 item 16), as
//! Esper runs it: only the driving side (a stream's events or a pattern's matches) triggers; each trigger looks up
//! the rows B's view holds at that moment that satisfy `ON`: none gives one row with `b` null, several give one row
//! each; then `WHERE` and the select list. B's view is fed by every event of B, the statement's own output included;
//! that output is routed like any inserted event (after the trigger that produced it), so the next trigger sees it
//! and the current one does not. This module does not route events: the engine hands it B's events in order. A named
//! window is looked up the same way, B being the window's insert stream read through the window's own view (the
//! planner gives the join that view); [`check_window_lookups`] refuses what that stream cannot show.
//!
//! [`LookupView`] and [`Joiner`] are shared with the dataflow runtime, so what a lookup means is written once. The
//! view numbers rows in arrival order and answers them in it; a time window expires lazily (a row is visible while
//! `now < arrival + d`), which is exactly what expiry timers firing before a millisecond's events give, since leaving a
//! lookup view produces nothing. Two indexes keep an insert and a trigger from reading every row: the rows of each
//! view key (those a unique, last-event or length view displaces), and, when `ON` equates a looked-up column with a
//! value of the trigger, the rows of each value of that column (the only rows a trigger can match). A stream-driven
//! join's expressions are compiled (`runtime::compiled`) for its two layouts of rows, the driving event alone and the
//! event with a looked-up row; a pattern's matches bind varying tags, and are interpreted.
//!
//! `ORDER BY` sorts the rows of one trigger, which Esper's join hands its result set processor together; a pattern's
//! matches are triggers of their own (Esper inserts each into the join's stream alone), so rows of two matches of one
//! event keep the order of the matches. An aggregating join aggregates a trigger's rows that pass `WHERE` afresh
//! (`aggregate::fresh`): Esper's result set processors clear a unidirectional join's aggregation at every trigger, and
//! a trigger none of whose rows pass is not handed to them at all, so it gives no row.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use foldhash::fast::RandomState;
use slab::Slab;
use smallvec::SmallVec;

use super::aggregate;
use super::pattern::{Bindings, PatternQuery, streams_of};
use super::query::{check_query, time_window, view_state_key};
use super::rate::Rate;
use super::{Ctx, TimerKind};
use crate::cep::plan::{
    Input, JoinPlan, MergeActionPlan, Plan, PlanExpr, PlanNode, QueryPlan, StreamInput, WindowSpec,
};
use crate::cep::runtime::compiled::{RowExpr, RowProjection};
use crate::cep::runtime::eval::{Scope, eval, holds, project};
use crate::cep::runtime::key::Key;
use crate::cep::runtime::value::Text;
use crate::cep::runtime::{EngineError, Row, Val, order};

/// The rows the looked-up side's view holds, indexed. Each row has a slot, which the indexes hold: reading or
/// removing a row is one index into the slab, where an ordered map of arrival numbers descended its nodes for each.
#[derive(Debug, Clone)]
pub struct LookupView {
    input: StreamInput,
    /// The stream's filter, over its own rows.
    filter: Option<RowExpr>,
    rows: Slab<Held>,
    /// Numbers the rows in arrival order.
    arrivals: u64,
    /// A time window's slots, oldest first: its rows leave only as they expire, oldest first.
    expiring: Option<VecDeque<usize>>,
    /// Any other view's slots by arrival number when there is no probe, so that a trigger, which then reads every
    /// row, reads them in arrival order without sorting them.
    ordered: Option<BTreeMap<u64, usize>>,
    /// When the view displaces rows by key: unique, last-event and length views (which have no lifetime).
    by_key: Option<ByKey>,
    probe: Option<Probe>,
}

#[derive(Debug, Clone)]
struct Held {
    arrival: u64,
    arrived: i64,
    value: Option<Equal>,
    row: Row,
}

/// Slots of rows, oldest first: one or two in the common lists (a unique view's key, a looked-up value held once).
type Slots = SmallVec<[usize; 2]>;

/// The slots of each view key's rows, and how many rows a key keeps. This map and the probe's are hashed
/// with foldhash (seeded per map), as the dataflow's keyed state is: with SipHash, hashing had about 4 % of the
/// worker's samples in a profile of `benches/join.rs` (`benches/results/join.md`, forty-ninth session).
#[derive(Debug, Clone)]
struct ByKey {
    keep: usize,
    rows: HashMap<Key, Slots, RandomState>,
}

impl ByKey {
    /// Adds a row of `key` and answers the rows it displaces.
    fn push(&mut self, key: Key, slot: usize) -> Slots {
        let list = self.rows.entry(key).or_default();
        list.push(slot);
        let excess = list.len().saturating_sub(self.keep);
        list.drain(..excess).collect()
    }
}

/// The equality of `ON` that a trigger's matches must satisfy: the looked-up `column` (over the looked-up row) equal
/// to `value`, an expression of the trigger alone; and the slots of the rows of each value of the column, oldest
/// first.
#[derive(Debug, Clone)]
struct Probe {
    column: RowExpr,
    value: PlanExpr,
    rows: HashMap<Equal, Slots, RandomState>,
}

impl Probe {
    /// Files the row in `slot`, of class `value`, as the rows `gone` leave: one of the same class leaves the list the
    /// new row joins (one lookup for both, as when a unique view's key keeps its value), any other leaves its own.
    fn file(&mut self, slot: usize, value: Option<Equal>, gone: &[(usize, Held)]) {
        for (g, h) in gone.iter().filter(|(_, h)| value.is_none() || h.value != value) {
            self.forget(*g, h.value.as_ref());
        }
        if let Some(value) = value {
            // A slot is in one list only: those of this list among `gone` are the rows of this class.
            let list = self.rows.entry(value).or_default();
            list.retain(|s| !gone.iter().any(|(g, _)| g == s));
            list.push(slot);
        }
    }

    /// Takes `slot` out of the list of class `value`.
    fn forget(&mut self, slot: usize, value: Option<&Equal>) {
        let Some(value) = value else {
            return;
        };
        if let Some(list) = self.rows.get_mut(value) {
            list.retain(|s| *s != slot);
            if list.is_empty() {
                self.rows.remove(value);
            }
        }
    }
}

/// A value's class under `=`: values that are equal fall in one class (an integer and a double of the same number,
/// zero and negative zero); values that are not may share one (two longs one double apart, any two points). Null and
/// NaN equal nothing and have none.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Equal {
    Number(u64),
    Date(i64),
    Bool(bool),
    Text(Text),
    Other,
}

impl Equal {
    pub fn of(value: &Val) -> Option<Equal> {
        let number = |x: f64| (!x.is_nan()).then(|| Equal::Number((x + 0.0).to_bits()));
        match value {
            Val::Null => None,
            Val::Int(i) => number(*i as f64),
            Val::Double(x) => number(*x),
            Val::Date(ms) => Some(Equal::Date(*ms)),
            Val::Bool(b) => Some(Equal::Bool(*b)),
            Val::String(s) => Some(Equal::Text(s.clone())),
            Val::Point(..) | Val::Polygon(_) | Val::Array(_) => Some(Equal::Other),
        }
    }
}

/// Which rows a trigger can match: all of them, or those of one class of the probed column (none when the trigger's
/// value is null).
#[derive(Debug)]
pub enum Reach {
    All,
    Class(Option<Equal>),
}

impl LookupView {
    /// The view of `input`, probed by the first of `keys` (the equalities of `ON`, trigger side first) whose trigger
    /// side does not read the looked-up row.
    pub fn new(input: &StreamInput, keys: &[(PlanExpr, PlanExpr)], vars: &Row) -> Self {
        let labels = [input.label.as_str()];
        let probe = keys.iter().find(|(value, _)| !reads(value, &input.label)).map(|(value, column)| Probe {
            column: RowExpr::new(column, &labels, vars),
            value: value.clone(),
            rows: HashMap::default(),
        });
        let keep = input.window.as_ref().and_then(|w| if displaces(w) { Some(1) } else { length(w) });
        let by_key = keep.map(|keep| ByKey { keep, rows: HashMap::default() });
        let filter = input.filter.as_ref().map(|f| RowExpr::new(f, &labels, vars));
        let expiring = input.window.as_ref().and_then(time_window).map(|_| VecDeque::new());
        let ordered = (expiring.is_none() && probe.is_none()).then(BTreeMap::new);
        LookupView { input: input.clone(), filter, rows: Slab::new(), arrivals: 0, expiring, ordered, by_key, probe }
    }

    /// An event of the looked-up stream at `now`: it enters the view if it passes the stream's filter, displacing
    /// what the view says it displaces.
    pub fn insert(&mut self, now: i64, row: &Row, vars: &Row) {
        self.expire(now);
        let rows = [row];
        if !self.filter.as_ref().is_none_or(|f| f.holds(&rows, &[], vars)) {
            return;
        }
        let value = self.probe.as_ref().and_then(|p| Equal::of(&p.column.eval(&rows, &[], vars)));
        let arrival = self.arrivals;
        self.arrivals += 1;
        let slot = self.rows.insert(Held { arrival, arrived: now, value: value.clone(), row: row.clone() });
        self.expiring.iter_mut().for_each(|queue| queue.push_back(slot));
        self.ordered.iter_mut().for_each(|order| _ = order.insert(arrival, slot));
        let displaced = match &mut self.by_key {
            Some(by_key) => by_key.push(view_state_key(self.input.window.as_ref(), &self.input.label, row, vars), slot),
            None => Slots::new(),
        };
        let gone: SmallVec<[(usize, Held); 1]> =
            displaced.into_iter().filter_map(|g| self.rows.try_remove(g).map(|h| (g, h))).collect();
        if let Some(order) = &mut self.ordered {
            gone.iter().for_each(|(_, h)| _ = order.remove(&h.arrival));
        }
        if let Some(probe) = &mut self.probe {
            probe.file(slot, value, &gone);
        }
    }

    /// A row the looked-up named window removed: the view's rows of its key leave (a window keeps one row a key, as
    /// its view here does, so that is the row removed).
    pub fn remove(&mut self, row: &Row, vars: &Row) {
        let Some(by_key) = &mut self.by_key else {
            return;
        };
        let key = view_state_key(self.input.window.as_ref(), &self.input.label, row, vars);
        let Some(slots) = by_key.rows.remove(&key) else {
            return;
        };
        for (slot, held) in slots.into_iter().filter_map(|g| self.rows.try_remove(g).map(|h| (g, h))) {
            if let Some(order) = &mut self.ordered {
                order.remove(&held.arrival);
            }
            if let Some(probe) = &mut self.probe {
                probe.forget(slot, held.value.as_ref());
            }
        }
    }

    /// Where the matches of a trigger (seen as `trigger`) can be.
    pub fn reach(&self, trigger: &Scope<'_>) -> Reach {
        match &self.probe {
            Some(p) => Reach::Class(Equal::of(&eval(&p.value, trigger))),
            None => Reach::All,
        }
    }

    /// The trigger's side of the equality the view is probed by, if any.
    pub fn probe_value(&self) -> Option<&PlanExpr> {
        self.probe.as_ref().map(|p| &p.value)
    }

    /// The rows in view at `now` within `reach`, in arrival order.
    pub fn visible(&self, now: i64, reach: &Reach) -> impl Iterator<Item = &Row> {
        let slots = match (reach, &self.probe) {
            (Reach::Class(Some(value)), Some(p)) => p.rows.get(value).cloned().unwrap_or_default(),
            (Reach::Class(_), _) => Slots::new(),
            (Reach::All, _) => self.in_arrival_order(),
        };
        let lifetime = self.lifetime();
        slots
            .into_iter()
            .filter_map(|slot| self.rows.get(slot))
            .filter(move |h| lifetime.is_none_or(|d| now < h.arrived.saturating_add(d)))
            .map(|h| &h.row)
    }

    /// Every slot, oldest row first (sorted only for a probed view, whose triggers read one class).
    fn in_arrival_order(&self) -> Slots {
        match (&self.expiring, &self.ordered) {
            (Some(queue), _) => queue.iter().copied().collect(),
            (None, Some(order)) => order.values().copied().collect(),
            (None, None) => {
                let mut held: Vec<(u64, usize)> = self.rows.iter().map(|(slot, h)| (h.arrival, slot)).collect();
                held.sort_unstable();
                held.into_iter().map(|(_, slot)| slot).collect()
            }
        }
    }

    /// The view as it is, leaving this one empty: for a statement carried into a replacing dataflow.
    pub fn take(&mut self) -> LookupView {
        let taken = self.clone();
        self.clear();
        taken
    }

    pub fn clear(&mut self) {
        self.rows.clear();
        self.expiring.iter_mut().for_each(VecDeque::clear);
        self.ordered.iter_mut().for_each(BTreeMap::clear);
        self.by_key.iter_mut().for_each(|b| b.rows.clear());
        self.probe.iter_mut().for_each(|p| p.rows.clear());
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

    /// Drops the rows that have expired at `now`, oldest first (rows arrive in time order).
    fn expire(&mut self, now: i64) {
        let (Some(d), Some(queue)) = (self.lifetime(), &mut self.expiring) else {
            return;
        };
        while let Some(&slot) = queue.front().filter(|s| now >= self.rows[**s].arrived.saturating_add(d)) {
            queue.pop_front();
            let held = self.rows.remove(slot);
            if let Some(probe) = &mut self.probe {
                probe.forget(slot, held.value.as_ref());
            }
        }
    }
}

/// Whether `e` reads the row labelled `label`.
fn reads(e: &PlanExpr, label: &str) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        found |= matches!(x, PlanExpr::Column { source, .. } if *source == label)
            || matches!(x, PlanExpr::Row(l) if l == label);
    });
    found
}

/// Whether a new row replaces the held one of its view key (unique and last-event views, grouped or not).
fn displaces(w: &WindowSpec) -> bool {
    match w {
        WindowSpec::Unique { .. } | WindowSpec::LastEvent => true,
        WindowSpec::Grouped { inner, .. } => displaces(inner),
        _ => false,
    }
}

/// How many rows of the newest row's view key a length view keeps.
fn length(w: &WindowSpec) -> Option<usize> {
    match w {
        WindowSpec::Length { count } => Some(*count as usize),
        WindowSpec::Grouped { inner, .. } => length(inner),
        _ => None,
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

    fn row(&self, rows: &[&Row], vars: &Row) -> Option<Row> {
        let passes = self.filter.as_ref().is_none_or(|f| f.holds(rows, &[], vars));
        passes.then(|| self.projection.project(rows, vars))
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

    /// The rows of a driving event at `now`: none when the join is driven by a pattern or the stream's filter
    /// refuses the event.
    pub fn on_driving_event(&self, now: i64, event: &Row, vars: &Row) -> Vec<Row> {
        let Some(stream) = &self.stream else {
            return Vec::new();
        };
        let alone = [event];
        if !stream.filter.as_ref().is_none_or(|f| f.holds(&alone, &[], vars)) {
            return Vec::new();
        }
        let reach = match &stream.reach {
            Some(value) => Reach::Class(Equal::of(&value.eval(&alone, &[], vars))),
            None => Reach::All,
        };
        let driver = self.driver_label();
        if self.plan.aggregation.is_some() {
            let matched = self.view.visible(now, &reach).filter(|row| stream.on.holds(&[event, row], &[], vars));
            let joined: Vec<Vec<(&str, &Row)>> =
                matched.map(|row| vec![(driver, event), (self.view.label(), row)]).collect();
            return self.aggregated(joined, &[(driver, event)], vars);
        }
        let (mut out, mut matched) = (TriggerRows::new(&self.plan), false);
        for row in self.view.visible(now, &reach) {
            let both = [event, row];
            if stream.on.holds(&both, &[], vars) {
                matched = true;
                out.push(stream.matched.row(&both, vars), &[(driver, event), (self.view.label(), row)], vars);
            }
        }
        if !matched {
            out.push(stream.alone.row(&alone, vars), &[(driver, event)], vars);
        }
        out.sorted()
    }

    /// The label of a stream-driven join's driving stream.
    fn driver_label(&self) -> &str {
        match &self.join.driver {
            Input::Stream(driver) => &driver.label,
            _ => "",
        }
    }

    /// The rows of a pattern's match, bound as `bindings`, at `now`.
    pub fn rows(&self, now: i64, bindings: &Bindings, vars: &Row) -> Vec<Row> {
        let label = self.view.label();
        let mut scope: Vec<(&str, &Row)> = bindings.iter().map(|(t, r)| (&**t, r)).collect();
        let reach = self.view.reach(&Scope::new(&scope, vars));
        let matched: Vec<&Row> = self
            .view
            .visible(now, &reach)
            .filter(|row| {
                scope.push((label, row));
                let on = holds(Some(&self.join.on), &Scope::new(&scope, vars));
                scope.pop();
                on
            })
            .collect();
        if self.plan.aggregation.is_some() {
            let joined = matched.into_iter().map(|row| [&scope[..], &[(label, row)]].concat()).collect();
            return self.aggregated(joined, &scope, vars);
        }
        let mut out = TriggerRows::new(&self.plan);
        if matched.is_empty() {
            out.push(self.project(&scope, vars), &scope, vars);
        }
        for row in matched {
            scope.push((label, row));
            out.push(self.project(&scope, vars), &scope, vars);
            scope.pop();
        }
        out.sorted()
    }

    /// The rows an aggregating join makes of a trigger's `joined` rows (the trigger `alone` when nothing matched):
    /// those that pass `WHERE`, aggregated afresh, as Esper's unidirectional join clears its aggregation at every
    /// trigger. A trigger none of whose rows pass makes none.
    fn aggregated<'r>(
        &self,
        mut joined: Vec<Vec<(&'r str, &'r Row)>>,
        alone: &[(&'r str, &'r Row)],
        vars: &Row,
    ) -> Vec<Row> {
        if joined.is_empty() {
            joined.push(alone.to_vec());
        }
        let passed: Vec<&[(&str, &Row)]> = joined
            .iter()
            .map(Vec::as_slice)
            .filter(|row| holds(self.plan.filter.as_ref(), &Scope::new(row, vars)))
            .collect();
        aggregate::fresh(&self.plan, &passed, vars)
    }

    fn project(&self, rows: &[(&str, &Row)], vars: &Row) -> Option<Row> {
        let scope = Scope::new(rows, vars);
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
    fn push(&mut self, row: Option<Row>, of: &[(&str, &Row)], vars: &Row) {
        let Some(row) = row else {
            return;
        };
        if self.order_by.is_empty() {
            return self.rows.push(row);
        }
        let keys = order::keys(self.order_by, &Scope::new(of, vars));
        match self.paced {
            true => self.rows.push(order::with_keys(row, keys)),
            false => {
                self.keys.push(keys);
                self.rows.push(row);
            }
        }
    }

    /// The rows in `ORDER BY`'s order, or as they were made without it or under a policy.
    fn sorted(self) -> Vec<Row> {
        match self.keys.is_empty() {
            true => self.rows,
            false => order::ordered(self.keys.into_iter().zip(self.rows).collect(), self.order_by),
        }
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
                let rows = self.joiner.on_driving_event(ctx.now, event, ctx.vars);
                self.paced(ctx, vec![rows])
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

    /// The rows of `batches` that go out now: all of them without an output policy.
    fn paced(&mut self, ctx: &mut Ctx<'_>, batches: Vec<Vec<Row>>) -> Vec<Row> {
        match &mut self.rate {
            Some(rate) => rate.offer(ctx, batches),
            None => batches.into_iter().flatten().collect(),
        }
    }
}

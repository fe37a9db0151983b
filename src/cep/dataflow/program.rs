//! A plan made ready for the workers: stream names numbered (records carry numbers, not names), the configuration's
//! variables evaluated once, and the plan checked against what the runtime runs (the same refusals as the reference
//! evaluator, so both engines accept the same configurations).

mod checks;

pub use self::checks::join_members;
use self::checks::{check_join_groups, check_window_order, join_of, join_split, reads, shape_of, variables, writers};

use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::pattern::KeyOf;
use crate::cep::plan::{
    Input, PartitionKey, Partitioning, PatternNodeKind, PatternPlan, Plan, PlanExpr, PlanNode, Projection, QueryPlan,
    SinkKind, StatementPlan, StreamInput, WindowSpec,
};
use crate::cep::reference::join::{driver_streams, held_by, removed_from};
pub use crate::cep::reference::pattern::streams_of;
use crate::cep::reference::{Reference, reads_and_writes};
use crate::cep::runtime::eval::{Scope, eval};
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{EngineError, Row, Val};

/// Per stream id, the column the feeder deals its events by ([`Program::dealing`]).
pub type Dealing = Vec<Option<Name>>;

/// Everything every worker needs to build the same dataflow.
#[derive(Debug)]
pub struct Program {
    pub plan: Plan,
    /// The plan without what only publishing reads (output entity ids, attribute mappings, brokers): two programs
    /// with the same shape compute the same rows.
    shape: Plan,
    pub vars: Row,
    names: Vec<String>,
    /// Looked up at every input event, on the feeder's thread while the workers wait: hashed with foldhash, not
    /// SipHash (which took 200 of the 360 instructions the feeder spent numbering an event).
    ids: HashMap<String, u32, RandomState>,
    /// The streams events come in on from outside, by number (a configuration's incoming types); `None` when any
    /// stream may.
    incoming: Option<Vec<bool>>,
    /// By stream id, [`Program::clocks_after`]; looked up at every input event.
    clocks_after: Vec<bool>,
}

impl Program {
    pub fn new(plan: &Plan) -> Result<Self, EngineError> {
        // What the reference runs, the dataflow runs: built only to be checked, at any time.
        Reference::new(plan, 0)?;
        check_window_order(plan)?;
        check_join_groups(plan)?;
        let shape = shape_of(plan);
        let mut program = Program {
            plan: plan.clone(),
            shape,
            vars: Row::new(),
            names: Vec::new(),
            ids: HashMap::default(),
            incoming: None,
            clocks_after: Vec::new(),
        };
        for statement in &plan.statements {
            program.declare(&statement.node);
        }
        program.mark_clocks_after(plan);
        Ok(program)
    }

    /// Marks the streams a statement with `OUTPUT AFTER` reads ([`Program::clocks_after`]).
    fn mark_clocks_after(&mut self, plan: &Plan) {
        self.clocks_after = vec![false; self.names.len()];
        for statement in &plan.statements {
            let PlanNode::Query(q) = &statement.node else {
                continue;
            };
            if let (Input::Stream(input), Some(_)) = (&q.input, q.output.as_ref().and_then(|o| o.after_millis)) {
                let id = self.intern(&input.stream);
                self.clocks_after[id as usize] = true;
            }
        }
    }

    fn declare(&mut self, node: &PlanNode) {
        match node {
            PlanNode::Variable(v) => {
                let value = v.init.as_ref().map(|e| eval(e, &Scope::new(&[], &self.vars, None))).unwrap_or_default();
                self.vars.insert(v.name.clone(), value);
            }
            PlanNode::NamedWindow(w) => {
                self.intern(&w.name);
            }
            PlanNode::Query(q) => {
                match &q.input {
                    Input::Stream(s) => {
                        self.intern(&s.stream);
                    }
                    Input::Pattern(p) => {
                        for stream in streams_of(&p.root) {
                            self.intern(&stream);
                        }
                    }
                    Input::Join(j) => {
                        for stream in driver_streams(j) {
                            self.intern(&stream);
                        }
                        self.intern(&j.lookup.stream);
                        if j.lookup.named_window {
                            self.intern(&removed_from(&j.lookup.stream));
                            self.intern(&held_by(&j.lookup.stream));
                        }
                    }
                }
                self.intern(&q.sink.stream);
            }
            PlanNode::Merge(m) => {
                self.intern(&m.trigger.stream);
                self.intern(&m.window);
            }
            PlanNode::Delete(a) | PlanNode::Update(a) => {
                self.intern(&a.trigger.stream);
                self.intern(&a.window);
            }
        }
    }

    /// Per stream, the expression that gives the correlation key, when the pattern is keyed: the plan found one key
    /// for every stream, and the pattern starts with `every a=S` (so every `S` event starts an instance, and each
    /// key's instances are independent of the others').
    pub fn pattern_keys(&self, partition: &Partitioning, p: &PatternPlan) -> KeyOf {
        let Partitioning::Key(keys) = partition else {
            return KeyOf::default();
        };
        if !starts_with_every_match(&p.root) {
            return KeyOf::default();
        }
        let [key] = keys.as_slice() else {
            return KeyOf::default();
        };
        let mut out = KeyOf::default();
        for input in &key.inputs {
            let PlanExpr::Column { source, .. } = input else {
                return KeyOf::default();
            };
            let stream = p.tags.iter().find(|(tag, _)| tag == source).map_or(source.as_str(), |(_, s)| s.as_str());
            let Some(id) = self.id(stream) else {
                return KeyOf::default();
            };
            out.insert(id, (source.clone(), input.clone()));
        }
        let all = streams_of(&p.root).iter().all(|s| self.id(s).is_some_and(|id| out.contains_key(&id)));
        if all { out } else { KeyOf::default() }
    }

    /// Per stream id, the column by whose value the feeder deals the stream's events to the workers (`None`: in turn):
    /// the column the first keyed statement reading the stream exchanges its events by, followed back through
    /// stateless statements that copy it, or the column a merge it triggers looks its window row up by. That exchange
    /// then finds each event on its own worker already. Where an exchange remains, any dealing would be correct; an
    /// operator whose input is placed by this dealing ([`Program::placed_by`]) has none, and relies on it.
    pub fn dealing(&self) -> Dealing {
        (0..self.stream_count()).map(|id| self.deal_column(self.name(id), 0)).collect()
    }

    fn deal_column(&self, stream: &str, depth: usize) -> Option<Name> {
        if depth > self.plan.statements.len() {
            return None;
        }
        self.plan.statements.iter().find_map(|statement| {
            let PlanNode::Query(q) = &statement.node else {
                return self.trigger_column(&statement.node, stream);
            };
            self.key_column(q, stream).or_else(|| {
                let s = q.stateless_input().filter(|s| s.stream == stream && !s.named_window)?;
                let column = self.deal_column(&q.sink.stream, depth + 1)?;
                q.projection.iter().any(|p| p.name == column && p.copies(&s.label)).then_some(column)
            })
        })
    }

    /// Whether every record of `stream` is on the worker that its `column`'s value picks ([`route_hash`], as the
    /// exchanges and the feeder's dealing take it), so a keyed operator reading the stream by that column finds each
    /// record on its own worker already and needs no exchange. It holds when the feeder deals the stream by that
    /// column and every statement inserting into it keeps the column where it found it ([`Program::keeps`]). A
    /// named window's rows, a join's and an aggregation's may move, so a stream any of them writes is not placed.
    pub fn placed_by(&self, stream: &str, column: &str) -> bool {
        self.placed(stream, column, 0)
    }

    fn placed(&self, stream: &str, column: &str, depth: usize) -> bool {
        if depth > self.plan.statements.len() || self.deal_column(stream, 0).as_deref() != Some(column) {
            return false;
        }
        self.plan.statements.iter().all(|statement| match &statement.node {
            PlanNode::Query(q) => q.sink.stream != stream || self.keeps_at(q, column, depth),
            PlanNode::NamedWindow(w) => w.name != stream,
            PlanNode::Merge(m) => m.window != stream,
            PlanNode::Delete(a) | PlanNode::Update(a) => a.window != stream,
            PlanNode::Variable(_) => true,
        })
    }

    /// Whether query `q` emits each row on the worker its `column`'s value picks: a stateless query copying the
    /// column from a stream placed by it (its rows stay where their events were), or a keyed pattern copying it
    /// from a tag whose key is that column (its rows are made where the key's automaton lives).
    pub fn keeps(&self, q: &QueryPlan, column: &str) -> bool {
        self.keeps_at(q, column, 0)
    }

    fn keeps_at(&self, q: &QueryPlan, column: &str, depth: usize) -> bool {
        let named: Vec<&Projection> = q.projection.iter().filter(|p| *p.name == *column).collect();
        let copied_from = |label: &str| !named.is_empty() && named.iter().all(|p| p.copies(label));
        match (&q.input, q.stateless_input()) {
            (Input::Stream(_), Some(s)) => {
                !s.named_window && copied_from(&s.label) && self.placed(&s.stream, column, depth + 1)
            }
            (Input::Stream(_), None) => false,
            (Input::Pattern(p), _) => {
                let keys = self.pattern_keys(&q.partition, p);
                let keyed_by_column = |stream: &str| {
                    let key = self.id(stream).and_then(|id| keys.get(&id));
                    matches!(key, Some((_, PlanExpr::Column { name, .. })) if **name == *column)
                };
                p.tags.iter().any(|(tag, stream)| copied_from(tag) && keyed_by_column(stream))
            }
            (Input::Join(_), _) => false,
        }
    }

    /// The column of `stream` by which a merge, update or delete it triggers finds its row of a keyed named window,
    /// as the window's operator exchanges the triggers.
    fn trigger_column(&self, node: &PlanNode, stream: &str) -> Option<Name> {
        let (trigger, window, partition) = match node {
            PlanNode::Merge(m) => (&m.trigger, &m.window, &m.partition),
            PlanNode::Delete(a) | PlanNode::Update(a) => (&a.trigger, &a.window, &a.partition),
            _ => return None,
        };
        let key = self.plan.statements.iter().find_map(|s| match &s.node {
            PlanNode::NamedWindow(w) if w.name == *window => match &w.window {
                WindowSpec::Unique { keys } if keys.len() == 1 => keys.first(),
                _ => None,
            },
            _ => None,
        });
        match merge_lookup(partition, key?)? {
            PlanExpr::Column { source, name, .. } if trigger.stream == stream && source == trigger.label => Some(name),
            _ => None,
        }
    }

    /// The one column of `stream` by which query `q` exchanges its events, as its operator does.
    fn key_column(&self, q: &QueryPlan, stream: &str) -> Option<Name> {
        let column = |e: &PlanExpr| match e {
            PlanExpr::Column { name, .. } => Some(name.clone()),
            _ => None,
        };
        match (&q.input, &q.partition) {
            (Input::Stream(s), Partitioning::Key(keys)) if s.stream == stream => match stream_key(keys).as_slice() {
                [key] => column(key),
                _ => None,
            },
            (Input::Pattern(p), partition) => {
                let (_, key) = self.pattern_keys(partition, p).remove(&self.id(stream)?)?;
                column(&key)
            }
            _ => None,
        }
    }

    /// Takes events from outside on the streams `types` name only (a configuration's incoming types). A stream that
    /// statements produce and no event comes in on then needs no edge from the input joined to theirs: one operator
    /// fewer for every epoch to pass (`compile`), and events pushed on it are ignored, as on an unknown stream.
    pub fn receiving<'t>(mut self, types: impl IntoIterator<Item = &'t str>) -> Self {
        let mut incoming = vec![false; self.names.len()];
        for id in types.into_iter().filter_map(|t| self.id(t)) {
            incoming[id as usize] = true;
        }
        self.incoming = Some(incoming);
        self
    }

    /// Whether stateless query `q` (statement `number`) may run inside the operator of the one statement reading its
    /// rows: they go into a stream only statements read (no `out` type, no window, no listeners), no event comes in
    /// on it, no other statement inserts into it, and the one statement reading it comes later and is a pattern over
    /// that stream alone. The compiler still builds the query on its own when that pattern does not read its input
    /// where it is.
    pub fn fuses(&self, number: usize, q: &QueryPlan) -> bool {
        let stream = q.sink.stream.as_str();
        let internal =
            matches!(q.sink.kind, SinkKind::Internal) && self.id(stream).is_some_and(|id| !self.receives(id));
        let inserts = |node: &PlanNode| matches!(node, PlanNode::Query(other) if other.sink.stream == stream);
        let statements = &self.plan.statements;
        let mut readers = self.readers(stream);
        let reader = readers.next().filter(|_| readers.next().is_none());
        let pattern_after = reader.is_some_and(|r| {
            r.number > number
                && matches!(&r.node, PlanNode::Query(p) if matches!(&p.input, Input::Pattern(pattern)
                    if streams_of(&pattern.root) == [stream]))
        });
        internal && statements.iter().filter(|s| inserts(&s.node)).count() == 1 && pattern_after
    }

    /// Whether the rows of query `q` end where it makes them: its sink is an `out` type or listeners, and no
    /// statement reads that stream. The compiler then collects them in the query's own operator (a stateless query's
    /// is the one that watches its input edge), with no operator of their own.
    pub fn ends(&self, q: &QueryPlan) -> bool {
        let unread = self.readers(&q.sink.stream).next().is_none();
        matches!(q.sink.kind, SinkKind::Out(_) | SinkKind::Listeners) && unread
    }

    /// Whether statement `number`, reading `input`, is the only statement reading that stream, and no event comes in
    /// on it: then every record of the stream goes to that statement.
    pub fn only_reads(&self, number: usize, input: &StreamInput) -> bool {
        let incoming = self.id(&input.stream).is_none_or(|id| self.receives(id));
        !incoming && self.readers(&input.stream).all(|s| s.number == number)
    }

    /// The statements reading `stream`, in plan order.
    fn readers<'a>(&'a self, stream: &'a str) -> impl Iterator<Item = &'a StatementPlan> {
        self.plan.statements.iter().filter(move |s| reads_and_writes(&s.node).0.iter().any(|r| r == stream))
    }

    /// Whether a statement reading stream `id` waits with `OUTPUT AFTER`: its output clock starts at the first event of
    /// the stream at or after a time, not at the first event, so every worker is told of the stream's events in every
    /// epoch that has some, and each such statement starts its clock at the first one it may.
    pub fn clocks_after(&self, id: u32) -> bool {
        self.clocks_after.get(id as usize).copied().unwrap_or(false)
    }

    /// Whether events of stream `id` may come in from outside.
    pub fn receives(&self, id: u32) -> bool {
        self.incoming.as_ref().is_none_or(|incoming| incoming.get(id as usize).copied().unwrap_or(false))
    }

    /// Whether `other` computes the same rows from the same incoming streams, so a running dataflow of this program
    /// can run it.
    pub fn same_dataflow(&self, other: &Program) -> bool {
        self.shape == other.shape && self.incoming == other.incoming
    }

    /// The statements this program shares with `previous`, as (previous number, number) pairs, whose state can move
    /// to this program's dataflow: the same statement (as planned, so the same text over the same types) with the same
    /// variables, reading no event type in `changed` (declared differently now); for a named window, also the same
    /// `ON` writers, which decide how its rows are partitioned; for an outer join, split over the workers the same
    /// way (its group's key, which every join on the same stream decides), and a named window it looks up kept too
    /// (its view mirrors the window's rows).
    pub fn kept_from(&self, previous: &Program, changed: &[String]) -> Vec<(usize, usize)> {
        if variables(&self.shape) != variables(&previous.shape) {
            return Vec::new();
        }
        let mut taken = vec![false; previous.shape.statements.len()];
        let mut kept: Vec<(usize, usize)> = Vec::new();
        for statement in &self.shape.statements {
            if reads(&self.shape, statement).iter().any(|r| changed.contains(r)) {
                continue;
            }
            let join = join_of(&statement.node);
            if join.is_some_and(|j| j.lookup.named_window && !self.kept_window(&j.lookup.stream, &kept)) {
                continue;
            }
            let split = |plan: &Plan, number: usize| join.and_then(|j| join_split(plan, number, &j.lookup.stream));
            let same = |old: &StatementPlan| {
                old.node == statement.node
                    && writers(&previous.shape, old) == writers(&self.shape, statement)
                    && split(&previous.shape, old.number) == split(&self.shape, statement.number)
            };
            let found = (previous.shape.statements.iter().enumerate()).find(|(i, old)| !taken[*i] && same(old));
            if let Some((i, old)) = found {
                taken[i] = true;
                kept.push((old.number, statement.number));
            }
        }
        kept
    }

    /// Whether the statement creating named window `name` is among the `kept` (previous, new number) pairs.
    fn kept_window(&self, name: &str, kept: &[(usize, usize)]) -> bool {
        let creates = |s: &&StatementPlan| matches!(&s.node, PlanNode::NamedWindow(w) if w.name == name);
        let number = self.shape.statements.iter().find(creates).map(|s| s.number);
        number.is_some_and(|n| kept.iter().any(|(_, new)| *new == n))
    }

    /// The number of stream `name`, given a new one if it has none.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The number of a stream some statement reads or writes.
    pub fn id(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    pub fn stream_count(&self) -> u32 {
        self.names.len() as u32
    }

    /// The most columns a stateless statement reading event stream `stream` adds to its rows (`SELECT *, e AS x`
    /// adds one). That statement extends the row it owns in place, so a row built with this much spare room is
    /// not reallocated on the worker.
    pub fn room(&self, stream: &str) -> usize {
        let added = |node: &PlanNode| match node {
            PlanNode::Query(q) => match q.stateless_input() {
                Some(s) if s.stream == stream && !s.named_window => {
                    Some(q.projection.iter().filter(|p| !p.copies(&s.label)).count())
                }
                _ => None,
            },
            _ => None,
        };
        self.plan.statements.iter().filter_map(|s| added(&s.node)).max().unwrap_or(0)
    }
}

/// The trigger-side expression a writer's condition equates with the window's key column.
pub fn merge_lookup(partition: &Partitioning, window_key: &PlanExpr) -> Option<PlanExpr> {
    let Partitioning::Key(keys) = partition else {
        return None;
    };
    let PlanExpr::Column { name: key_name, .. } = window_key else {
        return None;
    };
    keys.iter().find_map(|k| match k.inputs.as_slice() {
        [trigger, PlanExpr::Column { name, .. }] if name == key_name => Some(trigger.clone()),
        _ => None,
    })
}

/// The hash of a partition key's values, which picks the worker: equal values (as `Val::key` sees them) hash equal.
/// Foldhash with a fixed seed: the same on every worker (and in every process of one build), and a fraction of
/// SipHash's cost on the short keys records are routed by.
pub fn route_hash<V: std::borrow::Borrow<Val>>(values: impl IntoIterator<Item = V>) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = foldhash::fast::FixedState::with_seed(ROUTE_SEED).build_hasher();
    for value in values {
        hash_val(value.borrow(), &mut hasher);
    }
    hasher.finish()
}

/// Any constant: only its being the same everywhere matters.
const ROUTE_SEED: u64 = 0x5eed_f1a9_0a7e_0001;

fn hash_val(value: &Val, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;

    use geo::CoordsIter;
    std::mem::discriminant(value).hash(h);
    match value {
        Val::Null => {}
        Val::Bool(b) => b.hash(h),
        Val::Int(i) | Val::Date(i) => i.hash(h),
        Val::Double(x) => x.to_bits().hash(h),
        Val::String(s) => s.hash(h),
        Val::Point(x, y) => (x.to_bits(), y.to_bits()).hash(h),
        Val::Polygon(polygon) => polygon.coords_iter().for_each(|c| (c.x.to_bits(), c.y.to_bits()).hash(h)),
        Val::Array(items) => items.iter().for_each(|v| hash_val(v, h)),
    }
}

/// The expressions a query over one stream exchanges its events by: each partition key as that stream sees it.
pub fn stream_key(keys: &[PartitionKey]) -> Vec<PlanExpr> {
    keys.iter().filter_map(|k| k.inputs.first().cloned()).collect()
}

/// `every a=S ...` or `every a=S -> ...`: an instance starts at each `S` event, whatever happens to the others.
fn starts_with_every_match(root: &crate::cep::plan::PatternNode) -> bool {
    let first = match &root.kind {
        PatternNodeKind::FollowedBy(steps) => steps.first(),
        _ => Some(root),
    };
    matches!(first.map(|n| &n.kind), Some(PatternNodeKind::Every(inner)) if matches!(inner.kind, PatternNodeKind::Match { .. }))
}

#[cfg(test)]
mod tests;

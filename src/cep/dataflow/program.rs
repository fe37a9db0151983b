//! A plan made ready for the workers: stream names numbered (records carry numbers, not names), the configuration's
//! variables evaluated once, and the plan checked against what the runtime runs (the same refusals as the reference
//! evaluator, so both engines accept the same configurations).

use std::collections::HashMap;

use crate::cep::plan::{Input, PatternNode, PatternNodeKind, Plan, PlanNode, SinkKind};
use crate::cep::reference::Reference;
use crate::cep::runtime::eval::{Scope, eval};
use crate::cep::runtime::{EngineError, Row, Val};

/// Everything every worker needs to build the same dataflow.
#[derive(Debug)]
pub struct Program {
    pub plan: Plan,
    /// The plan without what only publishing reads (output entity ids, attribute mappings, brokers): two programs
    /// with the same shape compute the same rows.
    shape: Plan,
    pub vars: Row,
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Program {
    pub fn new(plan: &Plan) -> Result<Self, EngineError> {
        Reference::new(plan)?;
        let shape = shape_of(plan);
        let mut program =
            Program { plan: plan.clone(), shape, vars: Row::new(), names: Vec::new(), ids: HashMap::new() };
        for statement in &plan.statements {
            program.declare(&statement.node);
        }
        Ok(program)
    }

    fn declare(&mut self, node: &PlanNode) {
        match node {
            PlanNode::Variable(v) => {
                let value = v.init.as_ref().map_or(Val::Null, |e| eval(e, &Scope::new(&[], &self.vars)));
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
                    Input::Join(_) => {}
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

    /// Whether `other` computes the same rows, so a running dataflow of this program can run it.
    pub fn same_dataflow(&self, other: &Program) -> bool {
        self.shape == other.shape
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
}

fn shape_of(plan: &Plan) -> Plan {
    let mut shape = plan.clone();
    for statement in &mut shape.statements {
        if let PlanNode::Query(q) = &mut statement.node
            && let SinkKind::Out(mapping) = &mut q.sink.kind
        {
            mapping.fallback_id.clear();
            mapping.attributes.clear();
            mapping.brokers.clear();
        }
    }
    shape
}

/// The streams a pattern's event matches read, each once, in order of appearance.
pub fn streams_of(node: &PatternNode) -> Vec<String> {
    let mut out = Vec::new();
    collect(node, &mut out);
    out
}

fn collect(node: &PatternNode, out: &mut Vec<String>) {
    match &node.kind {
        PatternNodeKind::Every(c) | PatternNodeKind::Not(c) | PatternNodeKind::Within { inner: c, .. } => {
            collect(c, out)
        }
        PatternNodeKind::FollowedBy(cs) | PatternNodeKind::And(cs) | PatternNodeKind::Or(cs) => {
            cs.iter().for_each(|c| collect(c, out));
        }
        PatternNodeKind::Timer { .. } => {}
        PatternNodeKind::Match { stream, .. } => {
            if !out.contains(stream) {
                out.push(stream.clone());
            }
        }
    }
}

/// The hash of a partition key's values, which picks the worker: equal values (as `Val::key` sees them) hash equal.
pub fn route_hash(values: impl Iterator<Item = Val>) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hasher};
    let mut hasher = BuildHasherDefault::<DefaultHasher>::default().build_hasher();
    for value in values {
        hash_val(&value, &mut hasher);
    }
    hasher.finish()
}

fn hash_val(value: &Val, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    std::mem::discriminant(value).hash(h);
    match value {
        Val::Null => {}
        Val::Bool(b) => b.hash(h),
        Val::Int(i) | Val::Date(i) => i.hash(h),
        Val::Double(x) => x.to_bits().hash(h),
        Val::String(s) => s.hash(h),
        Val::Point(x, y) => (x.to_bits(), y.to_bits()).hash(h),
        Val::Polygon(points) => points.iter().for_each(|(x, y)| (x.to_bits(), y.to_bits()).hash(h)),
        Val::Array(items) => items.iter().for_each(|v| hash_val(v, h)),
    }
}

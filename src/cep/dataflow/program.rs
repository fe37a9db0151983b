//! A plan made ready for the workers: stream names numbered (records carry numbers, not names), the configuration's
//! variables evaluated once, and the plan checked against what the runtime runs (the same refusals as the reference
//! evaluator, so both engines accept the same configurations).

use std::collections::HashMap;

use crate::cep::plan::{Input, PatternNode, PatternNodeKind, Plan, PlanNode, SinkKind, StatementPlan};
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
        check_window_order(plan)?;
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

    /// The statements this program shares with `previous`, as (previous number, number) pairs, whose state can move
    /// to this program's dataflow: the same statement (as planned, so the same text over the same types) with the same
    /// variables, reading no event type in `changed` (declared differently now); for a named window, also the same
    /// `ON` writers, which decide how its rows are partitioned.
    pub fn kept_from(&self, previous: &Program, changed: &[String]) -> Vec<(usize, usize)> {
        if variables(&self.shape) != variables(&previous.shape) {
            return Vec::new();
        }
        let mut taken = vec![false; previous.shape.statements.len()];
        let mut kept = Vec::new();
        for statement in &self.shape.statements {
            if reads(&self.shape, statement).iter().any(|r| changed.contains(r)) {
                continue;
            }
            let same = |old: &StatementPlan| {
                old.node == statement.node && writers(&previous.shape, old) == writers(&self.shape, statement)
            };
            let found = (previous.shape.statements.iter().enumerate()).find(|(i, old)| !taken[*i] && same(old));
            if let Some((i, old)) = found {
                taken[i] = true;
                kept.push((old.number, statement.number));
            }
        }
        kept
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

/// A named window's operator is built where it is first read, with every writer known by then: a statement that
/// writes a window after another has read it cannot be wired (the planner orders producers first, so this only
/// guards against a plan that does not).
fn check_window_order(plan: &Plan) -> Result<(), EngineError> {
    let windows: Vec<&str> = plan
        .statements
        .iter()
        .filter_map(|s| match &s.node {
            PlanNode::NamedWindow(w) => Some(w.name.as_str()),
            _ => None,
        })
        .collect();
    let mut read: Vec<String> = Vec::new();
    for statement in &plan.statements {
        let (reads, writes) = reads_and_writes(&statement.node);
        if let Some(window) = writes.filter(|w| read.iter().any(|r| r == w)) {
            let construct = format!("writing window {window} after a statement that reads it");
            return Err(EngineError::Unsupported { statement: statement.number, construct });
        }
        read.extend(reads.into_iter().filter(|r| windows.contains(&r.as_str())));
    }
    Ok(())
}

/// The plan's `CREATE VARIABLE` statements, in order.
fn variables(plan: &Plan) -> Vec<&PlanNode> {
    plan.statements.iter().map(|s| &s.node).filter(|n| matches!(n, PlanNode::Variable(_))).collect()
}

/// The `ON` statements writing the named window `statement` creates (none for other statements).
fn writers<'p>(plan: &'p Plan, statement: &StatementPlan) -> Vec<&'p PlanNode> {
    let PlanNode::NamedWindow(w) = &statement.node else {
        return Vec::new();
    };
    let writes = |node: &PlanNode| match node {
        PlanNode::Merge(m) => m.window == w.name,
        PlanNode::Delete(a) | PlanNode::Update(a) => a.window == w.name,
        _ => false,
    };
    plan.statements.iter().map(|s| &s.node).filter(|n| writes(n)).collect()
}

/// The streams whose events reach a statement's state: what it reads, and for a named window what its writers read.
fn reads(plan: &Plan, statement: &StatementPlan) -> Vec<String> {
    let mut all = reads_and_writes(&statement.node).0;
    for writer in writers(plan, statement) {
        all.extend(reads_and_writes(writer).0);
    }
    all
}

/// The streams a statement reads and the named window it writes, if any.
fn reads_and_writes(node: &PlanNode) -> (Vec<String>, Option<&str>) {
    match node {
        PlanNode::Query(q) => {
            let reads = match &q.input {
                Input::Stream(s) => vec![s.stream.clone()],
                Input::Pattern(p) => streams_of(&p.root),
                Input::Join(_) => Vec::new(),
            };
            let writes = matches!(q.sink.kind, SinkKind::NamedWindow).then_some(q.sink.stream.as_str());
            (reads, writes)
        }
        PlanNode::Merge(m) => (vec![m.trigger.stream.clone()], Some(m.window.as_str())),
        PlanNode::Delete(a) | PlanNode::Update(a) => (vec![a.trigger.stream.clone()], Some(a.window.as_str())),
        PlanNode::Variable(_) | PlanNode::NamedWindow(_) => (Vec::new(), None),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::config::CepConfig;
    use crate::cep::explain::plan_config;

    const CONFIG: &str = r#"{"host":"h",
      "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[{"name":"temperature","type":"double"}]}],
      "out":[{"id":"S","type":"Seen","attributes":[{"name":"temperature","type":"double"}]}],
      "statements":["CREATE WINDOW W.std:unique(id) as Room", "INSERT INTO W SELECT * FROM Room",
        "INSERT INTO Seen SELECT id, temperature FROM W"]}"#;

    #[test]
    fn a_window_written_after_it_is_read_is_refused_rather_than_wired_without_the_writer() {
        let config: CepConfig = serde_json::from_str(CONFIG).unwrap();
        let mut plan = plan_config(&config, true).unwrap();
        assert!(Program::new(&plan).is_ok());
        let position = |plan: &Plan, text: &str| plan.statements.iter().position(|s| s.text.starts_with(text)).unwrap();
        let (writer, reader) = (position(&plan, "INSERT INTO W"), position(&plan, "INSERT INTO Seen"));
        plan.statements.swap(writer, reader);
        let error = Program::new(&plan).unwrap_err();
        assert!(error.to_string().contains("writing window W after a statement that reads it"), "{error}");
    }
}

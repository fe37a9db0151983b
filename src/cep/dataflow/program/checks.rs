//! What the program reads of the plan's statements as a whole: whether the workers can build it (a named window
//! written after it is read; join groups whose members split their looked-up stream alike), the join groups'
//! members, the variables and the reads and writes a replacement compares, and the plan's shape, the plan without
//! its output mappings.

use crate::cep::dataflow::join::group_key;
use crate::cep::plan::{Input, JoinPlan, Plan, PlanExpr, PlanNode, QueryPlan, SinkKind, StatementPlan};
use crate::cep::reference::join::driver_streams;
use crate::cep::reference::reads_and_writes;
use crate::cep::runtime::EngineError;

/// A named window's operator is built where it is first read, with every writer known by then: a statement that
/// writes a window after another has read it cannot be wired (the planner orders producers first, so this only
/// guards against a plan that does not).
pub(super) fn check_window_order(plan: &Plan) -> Result<(), EngineError> {
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
pub(super) fn variables(plan: &Plan) -> Vec<&PlanNode> {
    plan.statements.iter().map(|s| &s.node).filter(|n| matches!(n, PlanNode::Variable(_))).collect()
}

/// The `ON` statements writing the named window `statement` creates (none for other statements).
pub(super) fn writers<'p>(plan: &'p Plan, statement: &StatementPlan) -> Vec<&'p PlanNode> {
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
pub(super) fn reads(plan: &Plan, statement: &StatementPlan) -> Vec<String> {
    let mut all = reads_and_writes(&statement.node).0;
    for writer in writers(plan, statement) {
        all.extend(reads_and_writes(writer).0);
    }
    all
}

/// The join statements looking up one stream run as one operator (see `join`) built where the first of them stands,
/// fed by what was built before it. So every other statement writing a stream the group reads (the looked-up stream
/// or a driving one) must come earlier and must not depend on the group's output: the rows the group writes into
/// its looked-up stream are fed back inside the operator, other loops cannot be.
pub(super) fn check_join_groups(plan: &Plan) -> Result<(), EngineError> {
    let mut lookups: Vec<&str> = Vec::new();
    for s in &plan.statements {
        if let Some(j) = join_of(&s.node).filter(|j| !lookups.contains(&j.lookup.stream.as_str())) {
            lookups.push(&j.lookup.stream);
        }
    }
    lookups.into_iter().try_for_each(|lookup| check_group(plan, lookup))
}

/// The join of a join statement.
pub(super) fn join_of(node: &PlanNode) -> Option<&JoinPlan> {
    join_query(node).map(|(_, j)| j)
}

/// The join statements looking up `lookup`, in plan order.
pub fn join_members<'p>(plan: &'p Plan, lookup: &str) -> Vec<(usize, &'p QueryPlan, &'p JoinPlan)> {
    let member = |s: &'p StatementPlan| {
        join_query(&s.node).filter(|(_, j)| j.lookup.stream == lookup).map(|(q, j)| (s.number, q, j))
    };
    plan.statements.iter().filter_map(member).collect()
}

/// How join statement `number` of `plan`, looking up `lookup`, is split over workers: its group's key column and its
/// own driving key ([`group_key`]); `None` when the group runs on one worker.
pub(super) fn join_split(plan: &Plan, number: usize, lookup: &str) -> Option<(PlanExpr, PlanExpr)> {
    let members = join_members(plan, lookup);
    let pairs: Vec<(&QueryPlan, &JoinPlan)> = members.iter().map(|(_, q, j)| (*q, *j)).collect();
    let key = group_key(&pairs)?;
    let at = members.iter().position(|(n, _, _)| *n == number)?;
    Some((key.column, key.drivers[at].clone()))
}

/// A join statement's query and its join.
fn join_query(node: &PlanNode) -> Option<(&QueryPlan, &JoinPlan)> {
    match node {
        PlanNode::Query(q) => match &q.input {
            Input::Join(j) => Some((&**q, &**j)),
            _ => None,
        },
        _ => None,
    }
}

fn check_group(plan: &Plan, lookup: &str) -> Result<(), EngineError> {
    let member = |node: &PlanNode| join_of(node).is_some_and(|j| j.lookup.stream == lookup);
    let first = plan.statements.iter().position(|s| member(&s.node)).unwrap_or(0);
    let mut inputs: Vec<String> = vec![lookup.to_owned()];
    let mut tainted: Vec<String> = Vec::new();
    for s in plan.statements.iter().filter(|s| member(&s.node)) {
        inputs.extend(join_of(&s.node).map(driver_streams).unwrap_or_default());
        tainted.extend(writes(&s.node));
    }
    let others: Vec<(usize, &StatementPlan)> =
        plan.statements.iter().enumerate().filter(|(_, s)| !member(&s.node)).collect();
    spread(&others, &mut tainted);
    let refuse = |number: usize, construct: String| Err(EngineError::Unsupported { statement: number, construct });
    for (position, s) in &others {
        let Some(written) = writes(&s.node).filter(|w| inputs.contains(w)) else {
            continue;
        };
        let number = plan.statements[first].number;
        if *position > first {
            return refuse(number, format!("a join reading {written}, which statement {} writes after it", s.number));
        }
        if reads_and_writes(&s.node).0.iter().any(|r| tainted.contains(r)) {
            return refuse(number, format!("a join reading {written}, which depends on the join's own output"));
        }
    }
    let fed = inputs.iter().skip(1).find(|i| tainted.contains(i));
    fed.map_or(Ok(()), |i| refuse(plan.statements[first].number, format!("a join driven by {i}, which it writes")))
}

/// Adds to `tainted` every stream written by a statement that reads a tainted one, until nothing changes.
fn spread(statements: &[(usize, &StatementPlan)], tainted: &mut Vec<String>) {
    loop {
        let before = tainted.len();
        for (_, s) in statements {
            let written = writes(&s.node).filter(|w| !tainted.contains(w));
            if let Some(w) = written.filter(|_| reads_and_writes(&s.node).0.iter().any(|r| tainted.contains(r))) {
                tainted.push(w);
            }
        }
        if tainted.len() == before {
            return;
        }
    }
}

/// The stream or named window a statement's rows go to.
fn writes(node: &PlanNode) -> Option<String> {
    match node {
        PlanNode::Query(q) if !matches!(q.sink.kind, SinkKind::Listeners) => Some(q.sink.stream.clone()),
        PlanNode::Merge(m) => Some(m.window.clone()),
        PlanNode::Delete(a) | PlanNode::Update(a) => Some(a.window.clone()),
        _ => None,
    }
}

pub(super) fn shape_of(plan: &Plan) -> Plan {
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

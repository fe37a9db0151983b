//! The pattern the automaton of a text key runs: the filters' tests that restate the key (`id = a.id`) left out,
//! since they hold by construction there.

use super::KeyOf;
use crate::cep::plan::{BinaryOp, PatternNode, PatternNodeKind, PlanExpr};
use crate::cep::runtime::value::Name;

/// The pattern the automaton of a text key runs, when it differs: a filter's test that the event's key equals the
/// start tag's (`id = a.id`) holds there by construction, since the automaton sees only events whose key is that
/// text and bound its start tag from one of them, so the test is left out. The automata of other keys (null, a
/// number) run the pattern as written.
pub(super) fn keyed(root: &PatternNode, keys: &KeyOf, names: &[Name]) -> Option<PatternNode> {
    let key_of = |stream: &str| {
        let id = names.iter().position(|n| n == stream)?;
        match &keys.get(&(id as u32))?.1 {
            PlanExpr::Column { source, name, .. } if source == stream => Some(name.clone()),
            _ => None,
        }
    };
    let (tag, start) = start_match(root)?;
    let start_key = key_of(start)?;
    let implied = |stream: &str, conjunct: &PlanExpr| {
        let PlanExpr::Binary { op: BinaryOp::Eq, lhs, rhs, .. } = conjunct else {
            return false;
        };
        let own = key_of(stream);
        let is = |e: &PlanExpr, label: &str, column: Option<&Name>| matches!(e, PlanExpr::Column { source, name, .. } if source == label && Some(name) == column);
        (is(lhs, stream, own.as_ref()) && is(rhs, tag, Some(&start_key)))
            || (is(rhs, stream, own.as_ref()) && is(lhs, tag, Some(&start_key)))
    };
    let stripped = strip(root, &implied);
    (stripped != *root).then_some(stripped)
}

/// The tag and stream of the `every a=S` a keyed pattern starts with.
fn start_match(root: &PatternNode) -> Option<(&str, &str)> {
    let first = match &root.kind {
        PatternNodeKind::FollowedBy(steps) => steps.first()?,
        _ => root,
    };
    let PatternNodeKind::Every(inner) = &first.kind else {
        return None;
    };
    match &inner.kind {
        PatternNodeKind::Match { tag: Some(tag), stream, .. } => Some((tag, stream)),
        _ => None,
    }
}

/// `node` with the conjuncts `implied` accepts left out of every match's filter.
fn strip(node: &PatternNode, implied: &dyn Fn(&str, &PlanExpr) -> bool) -> PatternNode {
    let each = |nodes: &[PatternNode]| nodes.iter().map(|n| strip(n, implied)).collect();
    let kind = match &node.kind {
        PatternNodeKind::Every(c) => PatternNodeKind::Every(Box::new(strip(c, implied))),
        PatternNodeKind::Not(c) => PatternNodeKind::Not(Box::new(strip(c, implied))),
        PatternNodeKind::Within { inner, millis } => {
            PatternNodeKind::Within { inner: Box::new(strip(inner, implied)), millis: *millis }
        }
        PatternNodeKind::FollowedBy(cs) => PatternNodeKind::FollowedBy(each(cs)),
        PatternNodeKind::And(cs) => PatternNodeKind::And(each(cs)),
        PatternNodeKind::Or(cs) => PatternNodeKind::Or(each(cs)),
        PatternNodeKind::Match { tag, stream, filter } => {
            let kept = filter.as_ref().map(|f| f.conjuncts().into_iter().filter(|c| !implied(stream, c)).cloned());
            let filter = kept.and_then(|kept| kept.reduce(PlanExpr::and));
            PatternNodeKind::Match { tag: tag.clone(), stream: stream.clone(), filter }
        }
        timer @ PatternNodeKind::Timer { .. } => timer.clone(),
    };
    PatternNode { id: node.id, kind }
}

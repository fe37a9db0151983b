//! Patterns → automaton trees: numbers the states, binds tags in order (a filter may only name tags
//! bound before it; tags under `not` are never visible after it), checks timers, and finds the
//! correlation (`id = a.id`) that lets independent instances run partitioned by key.

use super::super::ast::{BinaryOp, PatternExpr, PatternFilter, PatternKind};
use super::super::catalog::Catalog;
use super::super::error::{CepError, did_you_mean};
use super::super::plan::{DataType, PartitionKey, Partitioning, PatternNode, PatternNodeKind, PatternPlan, PlanExpr};
use super::Ctx;
use super::expr::ExprPlanner;
use super::scope::{Binding, Scope, Tag, unknown};
use super::window::positive_millis;

/// A planned pattern, the tags its select list sees, and how its instances partition.
pub(super) struct PlannedPattern {
    pub plan: PatternPlan,
    pub visible: Vec<Tag>,
    pub partition: Partitioning,
}

pub(super) fn plan_pattern(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    pattern: &PatternExpr,
    label: Option<&str>,
) -> Result<PlannedPattern, CepError> {
    let mut all_tags = Vec::new();
    collect_tags(pattern, &mut all_tags);
    let mut builder = Builder { ctx, catalog, next_id: 0, bound: Vec::new(), visible: Vec::new(), all_tags };
    let root = builder.node(pattern, false)?;
    let partition = correlation(&root);
    let tags = builder.visible.iter().map(|t| (t.name.clone(), t.stream.clone())).collect();
    let plan = PatternPlan { label: label.map(str::to_string), root, tags };
    Ok(PlannedPattern { plan, visible: builder.visible, partition })
}

fn collect_tags(p: &PatternExpr, out: &mut Vec<String>) {
    match &p.kind {
        PatternKind::FollowedBy(items) | PatternKind::Or(items) | PatternKind::And(items) => {
            items.iter().for_each(|i| collect_tags(i, out));
        }
        PatternKind::Every(inner) | PatternKind::Not(inner) | PatternKind::Within(inner, _) => collect_tags(inner, out),
        PatternKind::Interval(_) => {}
        PatternKind::Filter(f) => out.extend(f.tag.as_ref().map(|t| t.text.clone())),
    }
}

struct Builder<'a> {
    ctx: &'a Ctx<'a>,
    catalog: &'a dyn Catalog,
    next_id: usize,
    /// Tags bound so far on the current path, in order.
    bound: Vec<Tag>,
    /// Tags the select list may use (bound outside any `not`).
    visible: Vec<Tag>,
    all_tags: Vec<String>,
}

impl Builder<'_> {
    fn node(&mut self, p: &PatternExpr, under_not: bool) -> Result<PatternNode, CepError> {
        let id = self.next_id;
        self.next_id += 1;
        let kind = match &p.kind {
            PatternKind::FollowedBy(items) => {
                PatternNodeKind::FollowedBy(items.iter().map(|i| self.node(i, under_not)).collect::<Result<_, _>>()?)
            }
            PatternKind::And(items) => PatternNodeKind::And(self.siblings(items, under_not)?),
            PatternKind::Or(items) => PatternNodeKind::Or(self.siblings(items, under_not)?),
            PatternKind::Every(inner) => PatternNodeKind::Every(Box::new(self.node(inner, under_not)?)),
            PatternKind::Not(inner) => {
                let saved = self.bound.len();
                let inner = self.node(inner, true)?;
                self.bound.truncate(saved);
                PatternNodeKind::Not(Box::new(inner))
            }
            PatternKind::Within(inner, period) => {
                let millis = positive_millis(self.ctx, period)?;
                PatternNodeKind::Within { inner: Box::new(self.node(inner, under_not)?), millis }
            }
            PatternKind::Interval(period) => PatternNodeKind::Timer { millis: positive_millis(self.ctx, period)? },
            PatternKind::Filter(f) => self.filter(f, under_not)?,
        };
        Ok(PatternNode { id, kind })
    }

    /// Operands of `and`/`or` do not see each other's tags; all are bound afterwards.
    fn siblings(&mut self, items: &[PatternExpr], under_not: bool) -> Result<Vec<PatternNode>, CepError> {
        let saved = self.bound.len();
        let mut added = Vec::new();
        let mut nodes = Vec::with_capacity(items.len());
        for item in items {
            self.bound.truncate(saved);
            nodes.push(self.node(item, under_not)?);
            added.extend(self.bound.drain(saved..));
        }
        self.bound.extend(added);
        Ok(nodes)
    }

    fn filter(&mut self, f: &PatternFilter, under_not: bool) -> Result<PatternNodeKind, CepError> {
        let Some(stream) = self.catalog.stream(&f.stream.text) else {
            let hint = did_you_mean(&f.stream.text, self.catalog.stream_names());
            return Err(unknown(self.ctx, "stream", &f.stream, hint));
        };
        let columns = stream.columns.clone();
        let own = f.tag.as_ref().map(|t| t.text.as_str());
        // The filter's own tag names the event it tests, as the stream's name does (`b=S(b.v <= a.v)`, as Esper
        // reads it).
        let names = std::iter::once(&f.stream.text).chain(f.tag.as_ref().map(|t| &t.text)).cloned().collect();
        let scope = Scope {
            bindings: vec![Binding::stream(&f.stream.text, names, columns.clone())],
            tags: self.bound.clone(),
            later_tags: self
                .all_tags
                .iter()
                .filter(|t| Some(t.as_str()) != own && !self.is_bound(t))
                .cloned()
                .collect(),
        };
        let mut planner = ExprPlanner::new(self.ctx, self.catalog, &scope, Some("a pattern filter"));
        let mut conjuncts = Vec::with_capacity(f.filter.len());
        for e in &f.filter {
            conjuncts.push(planner.condition(e, "a pattern filter")?);
        }
        if let Some(tag) = &f.tag {
            if self.is_bound(&tag.text) {
                return Err(self.ctx.invalid(tag.span, format!("tag `{}` is bound twice", tag.text)));
            }
            let bound = Tag { name: tag.text.clone(), stream: f.stream.text.clone(), columns };
            if !under_not {
                self.visible.push(bound.clone());
            }
            self.bound.push(bound);
        }
        Ok(PatternNodeKind::Match {
            tag: f.tag.as_ref().map(|t| t.text.clone()),
            stream: f.stream.text.clone(),
            filter: and_all(conjuncts),
        })
    }

    fn is_bound(&self, tag: &str) -> bool {
        self.bound.iter().any(|t| t.name == tag)
    }
}

/// `a and b and c`, or `None` when there is nothing to test.
pub(super) fn and_all(conjuncts: Vec<PlanExpr>) -> Option<PlanExpr> {
    conjuncts.into_iter().reduce(|l, r| PlanExpr::Binary {
        op: BinaryOp::And,
        lhs: Box::new(l),
        rhs: Box::new(r),
        ty: DataType::Boolean,
    })
}

fn matches_of(n: &PatternNode, out: &mut Vec<(Option<String>, String, Option<PlanExpr>)>) {
    if let PatternNodeKind::Match { tag, stream, filter } = &n.kind {
        out.push((tag.clone(), stream.clone(), filter.clone()));
    }
    n.children().iter().for_each(|c| matches_of(c, out));
}

/// The key that correlates every later filter with the first tagged event (`id = a.id`).
fn correlation(root: &PatternNode) -> Partitioning {
    let mut matches = Vec::new();
    matches_of(root, &mut matches);
    let Some((Some(start), start_stream, _)) = matches.first().cloned() else {
        return Partitioning::Single;
    };
    let mut key: Option<(String, DataType)> = None;
    let mut inputs = Vec::new();
    for (_, stream, filter) in matches.iter().skip(1) {
        let Some((own, tagged)) = filter.as_ref().and_then(|f| correlated(f, stream, &start)) else {
            return Partitioning::Single;
        };
        if key.get_or_insert_with(|| tagged.clone()).0 != tagged.0 {
            return Partitioning::Single;
        }
        inputs.push(own);
    }
    let Some((key, ty)) = key else {
        return Partitioning::Single;
    };
    let start_input = PlanExpr::Column { source: start_stream.into(), name: key.as_str().into(), ty };
    inputs.insert(0, start_input);
    inputs.dedup();
    Partitioning::Key(vec![PartitionKey { name: format!("{start}.{key}"), inputs }])
}

/// In `filter`, an equality between a column of `stream` and a column of `tag`.
fn correlated(filter: &PlanExpr, stream: &str, tag: &str) -> Option<(PlanExpr, (String, DataType))> {
    filter.conjuncts().into_iter().find_map(|c| {
        let PlanExpr::Binary { op: BinaryOp::Eq, lhs, rhs, .. } = c else {
            return None;
        };
        let pair = [(lhs.as_ref(), rhs.as_ref()), (rhs.as_ref(), lhs.as_ref())];
        pair.into_iter().find_map(|(own, other)| match (own, other) {
            (PlanExpr::Column { source: s, .. }, PlanExpr::Column { source: t, name, ty })
                if s == stream && t == tag =>
            {
                Some((own.clone(), (name.to_string(), ty.clone())))
            }
            _ => None,
        })
    })
}

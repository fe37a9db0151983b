//! Orders statements so that every stream, named window and variable a statement reads is defined by
//! an earlier one, keeping configuration order where there is no dependency; rejects cycles, naming
//! the statements on the cycle. Types declared by `in`/`out` need no producer, but a statement that writes one still
//! goes before the others that read it (the dataflow wires a reader to the writers built before it), except a
//! statement's reads of its own output and the joins looking up the same stream, which one operator runs.

use std::collections::{BTreeMap, BTreeSet};

use super::super::ast::*;
use super::super::catalog::Catalog;
use super::super::error::{CepError, Position};
use super::Parsed;

/// Indexes into `statements`, producers first.
pub fn dependency_order(statements: &[Parsed], catalog: &dyn Catalog) -> Result<Vec<usize>, CepError> {
    let mut producers: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in statements.iter().enumerate() {
        if let Some(name) = produced(&s.ast) {
            producers.entry(name).or_default().push(i);
        }
    }
    let looked_up: Vec<Vec<String>> = statements.iter().map(|s| lookups(&s.ast)).collect();
    let reads: Vec<Vec<(usize, Name)>> = statements
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // Writers of a declared type that need not come first: the reader itself, for a looked-up stream the other
            // joins looking it up (one operator runs them all), and any writer when the type only gives a window its
            // columns.
            let schema = |name: &str| matches!(&s.ast.kind, StatementKind::CreateWindow(w) if w.as_type.text == name);
            let exempt = |p: usize, name: &str| {
                let joined = looked_up[i].iter().any(|l| l == name) && looked_up[p].iter().any(|l| l == name);
                catalog.stream(name).is_some() && (p == i || joined || schema(name))
            };
            consumed(&s.ast)
                .into_iter()
                .flat_map(|n| {
                    let from = producers.get(&n.text).cloned().unwrap_or_default();
                    from.into_iter().filter(|p| !exempt(*p, &n.text)).map(|p| (p, n.clone())).collect::<Vec<_>>()
                })
                .collect()
        })
        .collect();
    topological(statements, &reads)
}

/// The streams a statement's joins look up.
fn lookups(ast: &Statement) -> Vec<String> {
    let StatementKind::Select(s) = &ast.kind else {
        return Vec::new();
    };
    let streams = s.from.joins.iter().filter_map(|j| match &j.source.kind {
        SourceKind::Stream(r) => Some(r.name.text.clone()),
        SourceKind::Pattern(_) => None,
    });
    streams.collect()
}

/// Kahn's algorithm, always taking the lowest ready index.
fn topological(statements: &[Parsed], reads: &[Vec<(usize, Name)>]) -> Result<Vec<usize>, CepError> {
    let n = reads.len();
    let mut pending: Vec<usize> = reads.iter().map(Vec::len).collect();
    let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (consumer, edges) in reads.iter().enumerate() {
        for (producer, _) in edges {
            consumers[*producer].push(consumer);
        }
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(next) = ready.pop_first() {
        order.push(next);
        for &c in &consumers[next] {
            pending[c] -= 1;
            if pending[c] == 0 {
                ready.insert(c);
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    let stuck = (0..n).find(|&i| pending[i] > 0).expect("a statement is left");
    Err(cycle_error(statements, reads, &pending, stuck))
}

/// Follows unresolved reads from `start` until a statement repeats, and describes that loop.
fn cycle_error(statements: &[Parsed], reads: &[Vec<(usize, Name)>], pending: &[usize], start: usize) -> CepError {
    let mut path: Vec<(usize, Name)> = Vec::new();
    let mut current = start;
    loop {
        if let Some(pos) = path.iter().position(|(s, _)| *s == current) {
            path.drain(..pos);
            break;
        }
        let (producer, name) = reads[current]
            .iter()
            .find(|(p, _)| pending[*p] > 0)
            .cloned()
            .expect("a stuck statement reads from another stuck one");
        path.push((current, name));
        current = producer;
    }
    let number = |i: usize| statements[i].number;
    let steps: Vec<String> = path
        .iter()
        .enumerate()
        .map(|(k, (s, name))| {
            let producer = path[(k + 1) % path.len()].0;
            format!("statement {} reads `{name}` produced by statement {}", number(*s), number(producer))
        })
        .collect();
    let (s, name) = &path[0];
    CepError::Cycle { at: Position::locate(number(*s), &statements[*s].text, name.span), path: steps.join(", ") }
}

/// The stream, window or variable a statement defines.
pub(super) fn produced(ast: &Statement) -> Option<String> {
    match &ast.kind {
        StatementKind::Select(s) => s.insert_into.as_ref().map(|n| n.text.clone()),
        StatementKind::CreateVariable(v) => Some(v.name.text.clone()),
        StatementKind::CreateWindow(w) => Some(w.name.text.clone()),
        StatementKind::OnMerge(_) | StatementKind::OnDelete(_) | StatementKind::OnUpdate(_) => None,
    }
}

/// Every stream, window and first path segment (which may name a variable) a statement reads.
pub(super) fn consumed(ast: &Statement) -> Vec<Name> {
    let mut names = Vec::new();
    match &ast.kind {
        StatementKind::Select(s) => select_names(s, &mut names),
        StatementKind::CreateVariable(v) => v.init.iter().for_each(|e| expr_names(e, &mut names)),
        StatementKind::CreateWindow(w) => names.push(w.as_type.clone()),
        StatementKind::OnMerge(m) => {
            on_names(&m.trigger, &m.window, m.condition.as_ref(), &mut names);
            for clause in &m.clauses {
                clause.condition.iter().for_each(|e| expr_names(e, &mut names));
                merge_action_names(&clause.action, &mut names);
            }
        }
        StatementKind::OnDelete(d) => on_names(&d.trigger, &d.window, d.condition.as_ref(), &mut names),
        StatementKind::OnUpdate(u) => {
            on_names(&u.trigger, &u.window, u.condition.as_ref(), &mut names);
            u.assignments.iter().for_each(|a| expr_names(&a.value, &mut names));
        }
    }
    names
}

fn merge_action_names(action: &MergeAction, names: &mut Vec<Name>) {
    match action {
        MergeAction::Insert { items, .. } => items.iter().for_each(|i| item_names(i, names)),
        MergeAction::Update(sets) => sets.iter().for_each(|a| expr_names(&a.value, names)),
        MergeAction::Delete => {}
    }
}

fn on_names(trigger: &OnSource, window: &Name, condition: Option<&Expr>, names: &mut Vec<Name>) {
    names.push(trigger.stream.clone());
    trigger.filter.iter().for_each(|e| expr_names(e, names));
    names.push(window.clone());
    condition.iter().for_each(|e| expr_names(e, names));
}

fn select_names(s: &SelectStmt, names: &mut Vec<Name>) {
    source_names(&s.from.first, names);
    for join in &s.from.joins {
        source_names(&join.source, names);
        join.on.iter().for_each(|e| expr_names(e, names));
    }
    s.items.iter().for_each(|i| item_names(i, names));
    let exprs = s.where_clause.iter().chain(&s.group_by).chain(&s.having);
    exprs.for_each(|e| expr_names(e, names));
}

fn item_names(item: &SelectItem, names: &mut Vec<Name>) {
    if let SelectItem::Expr { expr, .. } = item {
        expr_names(expr, names);
    }
}

fn source_names(source: &Source, names: &mut Vec<Name>) {
    match &source.kind {
        SourceKind::Stream(s) => {
            names.push(s.name.clone());
            s.filter.iter().for_each(|e| expr_names(e, names));
        }
        SourceKind::Pattern(p) => pattern_names(p, names),
    }
}

fn pattern_names(p: &PatternExpr, names: &mut Vec<Name>) {
    match &p.kind {
        PatternKind::FollowedBy(items) | PatternKind::Or(items) | PatternKind::And(items) => {
            items.iter().for_each(|i| pattern_names(i, names));
        }
        PatternKind::Every(inner) | PatternKind::Not(inner) | PatternKind::Within(inner, _) => {
            pattern_names(inner, names);
        }
        PatternKind::Interval(_) => {}
        PatternKind::Filter(f) => {
            names.push(f.stream.clone());
            f.filter.iter().for_each(|e| expr_names(e, names));
        }
    }
}

/// First path segments of every property in `e` (candidates for variables).
fn expr_names(e: &Expr, names: &mut Vec<Name>) {
    match &e.kind {
        ExprKind::Property(path) => names.extend(path.first().cloned()),
        ExprKind::Literal(_) => {}
        ExprKind::Binary { lhs, rhs, .. } => {
            expr_names(lhs, names);
            expr_names(rhs, names);
        }
        ExprKind::Not(x) | ExprKind::Neg(x) | ExprKind::IsNull { operand: x, .. } => expr_names(x, names),
        ExprKind::Cast { operand, .. } => expr_names(operand, names),
        ExprKind::InList { operand, list, .. } => {
            expr_names(operand, names);
            list.iter().for_each(|x| expr_names(x, names));
        }
        ExprKind::Between { operand, low, high, .. } => {
            [operand, low, high].into_iter().for_each(|x| expr_names(x, names));
        }
        ExprKind::Like { operand, pattern, .. } | ExprKind::Regexp { operand, pattern, .. } => {
            expr_names(operand, names);
            expr_names(pattern, names);
        }
        ExprKind::Call { args, .. } | ExprKind::Array(args) => args.iter().for_each(|x| expr_names(x, names)),
        ExprKind::Method { target, args, .. } => {
            expr_names(target, names);
            args.iter().for_each(|x| expr_names(x, names));
        }
        ExprKind::Case { operand, whens, otherwise } => {
            operand.iter().chain(otherwise).for_each(|x| expr_names(x, names));
            for (w, t) in whens {
                expr_names(w, names);
                expr_names(t, names);
            }
        }
    }
}

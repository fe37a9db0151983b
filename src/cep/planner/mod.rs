//! AST → [`Plan`]: resolves every name through the [`Catalog`], checks types, validates windows and
//! time periods, chooses each stateful operator's partition key, and orders statements so producers
//! come before consumers. Split by kind: `order` (dependencies and cycles), `scope` (name
//! resolution), `expr` and `functions` (typing), `window`, `pattern`, `query` (select statements),
//! `define` (variables, named windows, `ON` statements) and `sink` (`INSERT INTO` types).
//! It never sees text except to locate errors, and never runs anything.

mod define;
mod expr;
mod functions;
mod java;
mod order;
mod pattern;
mod previous;
mod query;
mod scope;
mod sink;
mod window;

pub(crate) use self::query::has_ungrouped_column;

use std::collections::BTreeSet;

use super::ast::{Span, Statement, StatementKind};
use super::catalog::Catalog;
use super::error::{CepError, Position};
use super::plan::{Plan, PlanNode, StatementPlan};

/// One parsed statement with its number (1-based) and text.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub number: usize,
    pub text: String,
    pub ast: Statement,
}

/// Plans `statements` against `catalog`, which grows with the types they define. Every statement that fails gives
/// its error, by statement number; one reading what a failed statement would define (a stream, a named window, a
/// variable not declared otherwise) is left unplanned rather than reported as reading an unknown name.
pub fn plan(statements: &[Parsed], catalog: &mut dyn Catalog) -> Result<Plan, Vec<CepError>> {
    let order = order::dependency_order(statements, &*catalog).map_err(|e| vec![e])?;
    let mut planned = Vec::with_capacity(order.len());
    let (mut errors, mut undefined) = (Vec::new(), BTreeSet::new());
    for index in order {
        let parsed = &statements[index];
        let defined = order::produced(&parsed.ast).filter(|name| !known(&*catalog, name));
        if order::consumed(&parsed.ast).iter().any(|name| undefined.contains(&name.text)) {
            undefined.extend(defined);
            continue;
        }
        let ctx = Ctx { number: parsed.number, text: &parsed.text };
        match plan_statement(&ctx, &parsed.ast, catalog) {
            Ok(node) => planned.push(StatementPlan { number: parsed.number, text: parsed.text.clone(), node }),
            Err(error) => {
                errors.push((parsed.number, error));
                undefined.extend(defined);
            }
        }
    }
    if errors.is_empty() {
        return Ok(Plan { statements: planned });
    }
    errors.sort_by_key(|(number, _)| *number);
    Err(errors.into_iter().map(|(_, error)| error).collect())
}

/// Whether `name` is a stream or a variable `catalog` knows.
fn known(catalog: &dyn Catalog, name: &str) -> bool {
    catalog.stream(name).is_some() || catalog.variable(name).is_some()
}

fn plan_statement(ctx: &Ctx<'_>, ast: &Statement, catalog: &mut dyn Catalog) -> Result<PlanNode, CepError> {
    match &ast.kind {
        StatementKind::Select(s) => query::plan_select(ctx, s, catalog).map(|q| PlanNode::Query(Box::new(q))),
        StatementKind::CreateVariable(v) => define::variable(ctx, v, catalog).map(PlanNode::Variable),
        StatementKind::CreateWindow(w) => define::named_window(ctx, w, catalog).map(PlanNode::NamedWindow),
        StatementKind::OnMerge(m) => define::merge(ctx, m, &*catalog).map(PlanNode::Merge),
        StatementKind::OnDelete(d) => define::on_delete(ctx, d, &*catalog).map(PlanNode::Delete),
        StatementKind::OnUpdate(u) => define::on_update(ctx, u, &*catalog).map(PlanNode::Update),
    }
}

/// The statement being planned, for locating errors.
pub(crate) struct Ctx<'a> {
    pub number: usize,
    pub text: &'a str,
}

impl Ctx<'_> {
    pub fn at(&self, span: Span) -> Position {
        Position::locate(self.number, self.text, span)
    }

    pub fn invalid(&self, span: Span, message: impl Into<String>) -> CepError {
        CepError::Invalid { at: self.at(span), message: message.into() }
    }

    pub fn type_error(&self, span: Span, message: impl Into<String>) -> CepError {
        CepError::Type { at: self.at(span), message: message.into() }
    }

    pub fn unsupported(&self, span: Span, construct: impl Into<String>) -> CepError {
        CepError::Unsupported { at: self.at(span), construct: construct.into() }
    }
}

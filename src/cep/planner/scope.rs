//! Name resolution: which input a property path such as `temperature`, `S.status`, `a.id` or
//! `R.r.shutter` refers to, in the inputs a clause can see (streams, pattern tags, variables). Errors
//! name the nearest known property.

use super::super::ast::{Name, Span};
use super::super::catalog::Catalog;
use super::super::error::{CepError, did_you_mean};
use super::super::plan::{Column, DataType, PlanExpr};
use super::Ctx;

/// A pattern tag: the event bound to `name`, of `stream`.
#[derive(Debug, Clone)]
pub struct Tag {
    pub name: String,
    pub stream: String,
    pub columns: Vec<Column>,
}

/// An input visible to expressions: a stream (or named window) under its label and names, or a
/// pattern (whose columns are its tags).
#[derive(Debug, Clone)]
pub struct Binding {
    pub label: String,
    pub names: Vec<String>,
    pub columns: Vec<Column>,
    pub tags: Vec<Tag>,
    /// Whether its columns are read only by name with its label (`initial.c`), never bare.
    pub qualified_only: bool,
}

impl Binding {
    pub fn stream(label: &str, names: Vec<String>, columns: Vec<Column>) -> Self {
        Self { label: label.to_string(), names, columns, tags: Vec::new(), qualified_only: false }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub bindings: Vec<Binding>,
    /// Tags usable without a prefix (`a.id`).
    pub tags: Vec<Tag>,
    /// Tags bound later in the pattern: naming one here is an unbound-tag error.
    pub later_tags: Vec<String>,
}

impl Scope {
    pub fn tag(&self, name: &str) -> Option<&Tag> {
        self.tags.iter().find(|t| t.name == name)
    }

    pub(super) fn binding(&self, name: &str) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.names.iter().any(|n| n == name))
    }

    fn column_names(&self) -> Vec<&str> {
        let columns = self.bindings.iter().flat_map(|b| &b.columns);
        columns.map(|c| c.name.as_str()).collect()
    }

    /// Resolves `path` to a column, a whole event or a variable.
    pub fn resolve(&self, ctx: &Ctx<'_>, catalog: &dyn Catalog, path: &[Name]) -> Result<PlanExpr, CepError> {
        match path {
            [single] => self.resolve_single(ctx, catalog, single),
            [first, rest @ ..] => self.resolve_qualified(ctx, catalog, first, rest),
            [] => Err(ctx.invalid(Span::default(), "empty property")),
        }
    }

    fn resolve_single(&self, ctx: &Ctx<'_>, catalog: &dyn Catalog, name: &Name) -> Result<PlanExpr, CepError> {
        let text = name.as_str();
        let owners: Vec<&Binding> =
            self.bindings.iter().filter(|b| !b.qualified_only && has_column(&b.columns, text)).collect();
        match owners.as_slice() {
            [one] => return Ok(column(&one.label, &one.columns, text)),
            [a, b, ..] => {
                let message = format!("property `{text}` is ambiguous: both `{}` and `{}` have it", a.label, b.label);
                return Err(ctx.invalid(name.span, message));
            }
            [] => {}
        }
        if let Some(b) = self.binding(text) {
            return Ok(PlanExpr::Row(b.label.clone()));
        }
        if self.tag(text).is_some() {
            return Ok(PlanExpr::Row(text.to_string()));
        }
        if let Some(v) = catalog.variable(text) {
            return Ok(PlanExpr::Variable { name: v.name.as_str().into(), ty: v.ty.clone() });
        }
        Err(self.unknown(ctx, name, self.column_names()))
    }

    fn resolve_qualified(
        &self,
        ctx: &Ctx<'_>,
        catalog: &dyn Catalog,
        first: &Name,
        rest: &[Name],
    ) -> Result<PlanExpr, CepError> {
        if let Some(b) = self.binding(first.as_str()) {
            if b.tags.is_empty() {
                return one_column(ctx, &b.label, &b.columns, rest);
            }
            let tag = &rest[0];
            let Some(t) = b.tags.iter().find(|t| t.name == tag.text) else {
                let tags = b.tags.iter().map(|t| t.name.as_str());
                return Err(unknown(ctx, "tag", tag, did_you_mean(&tag.text, tags)));
            };
            return match &rest[1..] {
                [] => Ok(PlanExpr::Row(t.name.clone())),
                more => one_column(ctx, &t.name, &t.columns, more),
            };
        }
        if let Some(t) = self.tag(first.as_str()) {
            return one_column(ctx, &t.name, &t.columns, rest);
        }
        if self.later_tags.contains(&first.text) {
            return Err(CepError::UnboundTag { at: ctx.at(first.span), tag: first.text.clone() });
        }
        if catalog.variable(first.as_str()).is_some() {
            return Err(ctx.unsupported(first.span, "reading a property of a variable"));
        }
        let names = self.bindings.iter().flat_map(|b| b.names.iter().map(String::as_str));
        let candidates: Vec<&str> = names.chain(self.tags.iter().map(|t| t.name.as_str())).collect();
        Err(unknown(ctx, "stream, alias or tag", first, did_you_mean(&first.text, candidates)))
    }

    fn unknown(&self, ctx: &Ctx<'_>, name: &Name, candidates: Vec<&str>) -> CepError {
        if self.later_tags.contains(&name.text) {
            return CepError::UnboundTag { at: ctx.at(name.span), tag: name.text.clone() };
        }
        let mut hint = did_you_mean(&name.text, candidates.iter().copied());
        if hint.is_empty() && !candidates.is_empty() {
            hint = format!("; known properties: {}", candidates.join(", "));
        }
        unknown(ctx, "property", name, hint)
    }
}

fn has_column(columns: &[Column], name: &str) -> bool {
    columns.iter().any(|c| c.name == name)
}

fn column(source: &str, columns: &[Column], name: &str) -> PlanExpr {
    let ty = columns.iter().find(|c| c.name == name).map_or(DataType::Null, |c| c.ty.clone());
    PlanExpr::Column { source: source.into(), name: name.into(), ty }
}

/// `rest` must be exactly one column name of `columns`.
fn one_column(ctx: &Ctx<'_>, source: &str, columns: &[Column], rest: &[Name]) -> Result<PlanExpr, CepError> {
    let name = &rest[0];
    if rest.len() > 1 {
        return Err(ctx.unsupported(rest[1].span, "nested properties"));
    }
    if has_column(columns, &name.text) {
        return Ok(column(source, columns, &name.text));
    }
    let names = columns.iter().map(|c| c.name.as_str());
    let mut hint = did_you_mean(&name.text, names.clone());
    if hint.is_empty() {
        hint = format!("; `{source}` has {}", names.collect::<Vec<_>>().join(", "));
    }
    Err(unknown(ctx, "property", name, hint))
}

pub fn unknown(ctx: &Ctx<'_>, what: &'static str, name: &Name, hint: String) -> CepError {
    CepError::Unknown { at: ctx.at(name.span), what, name: name.text.clone(), hint }
}

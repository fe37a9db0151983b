//! `INSERT INTO T`: checks the select list against what `T` already is (an `out` declaration must get
//! every declared attribute, a named window only its own columns, a type another statement created
//! the same columns), or defines `T` in the catalog for the statements that read it.

use super::super::ast::Name;
use super::super::catalog::{Catalog, Origin, StreamType};
use super::super::error::CepError;
use super::super::plan::{Column, DataType, Projection, Sink, SinkKind};
use super::Ctx;
use super::expr::{compatible, is_numeric};

pub(super) fn sink(
    ctx: &Ctx<'_>,
    into: Option<&Name>,
    projection: &[Projection],
    catalog: &mut dyn Catalog,
) -> Result<Sink, CepError> {
    let columns: Vec<Column> =
        projection.iter().map(|p| Column { name: p.name.to_string(), ty: p.ty.clone() }).collect();
    let Some(into) = into else {
        return Ok(Sink { stream: String::new(), columns, kind: SinkKind::Listeners });
    };
    let Some(existing) = catalog.stream(&into.text).cloned() else {
        let origin = Origin::Inserted(ctx.number);
        catalog.define_stream(StreamType { name: into.text.clone(), columns: columns.clone(), origin });
        return Ok(Sink { stream: into.text.clone(), columns, kind: SinkKind::Internal });
    };
    let kind = match &existing.origin {
        Origin::Out(mapping) => {
            let required: Vec<&str> = mapping.attributes.iter().map(|(name, _, _)| name.as_str()).collect();
            let origin = format!("the `out` declaration of `{}`", into.text);
            check_declared(ctx, into, &existing, &columns, &required, &origin)?;
            SinkKind::Out(mapping.clone())
        }
        Origin::In => {
            check_declared(ctx, into, &existing, &columns, &[], "")?;
            SinkKind::Internal
        }
        Origin::NamedWindow { .. } => {
            check_declared(ctx, into, &existing, &columns, &[], "")?;
            SinkKind::NamedWindow
        }
        Origin::Inserted(number) => {
            check_agree(ctx, into, &existing.columns, &columns, *number)?;
            SinkKind::Internal
        }
    };
    Ok(Sink { stream: into.text.clone(), columns, kind })
}

/// Whether a value of `from` may be stored where `to` is declared.
pub(super) fn assignable(from: &DataType, to: &DataType) -> bool {
    from == to || *from == DataType::Null || (is_numeric(from) && is_numeric(to))
}

/// Every `required` column is provided; every provided column the type declares has a fitting type.
pub(super) fn check_declared(
    ctx: &Ctx<'_>,
    into: &Name,
    declared: &StreamType,
    columns: &[Column],
    required: &[&str],
    origin: &str,
) -> Result<(), CepError> {
    if let Some(missing) = required.iter().find(|r| !columns.iter().any(|c| c.name == **r)) {
        return Err(CepError::MissingColumn {
            at: ctx.at(into.span),
            stream: into.text.clone(),
            column: (*missing).to_string(),
            origin: origin.to_string(),
        });
    }
    for column in columns {
        let Some(target) = declared.column(&column.name) else {
            continue;
        };
        if !assignable(&column.ty, &target.ty) {
            let message =
                format!("column `{}` is {} but `{}` declares it {}", column.name, column.ty, into.text, target.ty);
            return Err(ctx.type_error(into.span, message));
        }
    }
    Ok(())
}

fn describe(columns: &[Column]) -> String {
    let cols: Vec<String> = columns.iter().map(|c| format!("{} {}", c.name, c.ty)).collect();
    format!("({})", cols.join(", "))
}

/// A second `INSERT INTO T` must produce the same column names with compatible types.
fn check_agree(
    ctx: &Ctx<'_>,
    into: &Name,
    existing: &[Column],
    columns: &[Column],
    number: usize,
) -> Result<(), CepError> {
    let same_names =
        existing.len() == columns.len() && columns.iter().all(|c| existing.iter().any(|e| e.name == c.name));
    let same_types = columns.iter().all(|c| existing.iter().any(|e| e.name == c.name && compatible(&e.ty, &c.ty)));
    if same_names && same_types {
        return Ok(());
    }
    Err(CepError::TypeDisagreement {
        at: ctx.at(into.span),
        stream: into.text.clone(),
        message: format!(
            "statement {number} inserts {}, this statement inserts {}",
            describe(existing),
            describe(columns)
        ),
    })
}

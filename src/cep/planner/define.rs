//! Statements that define or change state: `CREATE VARIABLE`, `CREATE WINDOW`, and the `ON` forms
//! (`MERGE`, `DELETE`, `UPDATE`) that change a named window's rows when a trigger event arrives.

use super::super::ast::{
    Assignment, CreateVariable, CreateWindow, Expr, MergeAction, MergeClause, Name, OnDelete, OnMerge, OnSource,
    OnUpdate, StreamRef,
};
use super::super::catalog::{Catalog, Origin, StreamType, VariableInfo, variable_type};
use super::super::error::{CepError, did_you_mean};
use super::super::plan::*;
use super::Ctx;
use super::expr::ExprPlanner;
use super::query::{project_items, stream_input};
use super::scope::{Binding, Scope, unknown};
use super::sink::{assignable, check_declared};
use super::window::window_of;

pub(super) fn variable(ctx: &Ctx<'_>, v: &CreateVariable, catalog: &mut dyn Catalog) -> Result<VariablePlan, CepError> {
    let ty = variable_type(&v.ty.text).ok_or_else(|| {
        unknown(
            ctx,
            "variable type",
            &v.ty,
            "; expected Geometry, int, long, double, float, string, boolean or date".to_string(),
        )
    })?;
    if catalog.variable(&v.name.text).is_some() {
        return Err(ctx.invalid(v.name.span, format!("variable `{}` is defined twice", v.name.text)));
    }
    let scope = Scope::default();
    let init = match &v.init {
        Some(e) => {
            let (planned, init_ty) = ExprPlanner::new(ctx, &*catalog, &scope, Some("a variable's value")).plan(e)?;
            if !assignable(&init_ty, &ty) {
                return Err(
                    ctx.type_error(e.span, format!("variable `{}` is {ty} but its value is {init_ty}", v.name.text))
                );
            }
            Some(planned)
        }
        None => None,
    };
    catalog.define_variable(VariableInfo { name: v.name.text.clone(), ty: ty.clone(), statement: ctx.number });
    Ok(VariablePlan { name: v.name.text.clone(), ty, init })
}

pub(super) fn named_window(
    ctx: &Ctx<'_>,
    w: &CreateWindow,
    catalog: &mut dyn Catalog,
) -> Result<NamedWindowPlan, CepError> {
    if catalog.stream(&w.name.text).is_some() {
        return Err(ctx.invalid(w.name.span, format!("`{}` is already a stream or window", w.name.text)));
    }
    let Some(as_type) = catalog.stream(&w.as_type.text).cloned() else {
        return Err(unknown(ctx, "stream", &w.as_type, did_you_mean(&w.as_type.text, catalog.stream_names())));
    };
    let binding = Binding::stream(&w.name.text, vec![w.name.text.clone()], as_type.columns.clone());
    let scope = Scope { bindings: vec![binding], ..Scope::default() };
    let window = window_of(&mut ExprPlanner::new(ctx, &*catalog, &scope, Some("a view")), &w.views)?;
    let Some(window) = window else {
        return Err(ctx.invalid(w.name.span, "a named window needs a data window such as `.std:unique(id)`"));
    };
    let partition = match &window {
        WindowSpec::Unique { keys } => Partitioning::Key(
            keys.iter().map(|k| PartitionKey { name: k.to_string(), inputs: vec![k.clone()] }).collect(),
        ),
        _ => Partitioning::Single,
    };
    let origin = Origin::NamedWindow { statement: ctx.number, as_type: w.as_type.text.clone(), views: w.views.clone() };
    catalog.define_stream(StreamType { name: w.name.text.clone(), columns: as_type.columns.clone(), origin });
    Ok(NamedWindowPlan {
        name: w.name.text.clone(),
        as_type: w.as_type.text.clone(),
        columns: as_type.columns,
        window,
        partition,
    })
}

/// The trigger input, the window's type, and the bindings of both.
struct OnContext {
    trigger: StreamInput,
    trigger_binding: Binding,
    window: StreamType,
    window_binding: Binding,
}

fn on_context(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    trigger: &OnSource,
    window: &Name,
    alias: Option<&Name>,
) -> Result<OnContext, CepError> {
    let stream = StreamRef { name: trigger.stream.clone(), filter: trigger.filter.clone(), views: Vec::new() };
    let (trigger_input, trigger_binding) =
        stream_input(ctx, catalog, &stream, trigger.alias.as_ref().map(|a| a.text.as_str()))?;
    let Some(window_type) = catalog.stream(&window.text).cloned() else {
        return Err(unknown(ctx, "named window", window, did_you_mean(&window.text, catalog.stream_names())));
    };
    if !matches!(window_type.origin, Origin::NamedWindow { .. }) {
        return Err(ctx.invalid(window.span, format!("`{}` is a stream, not a named window", window.text)));
    }
    let label = alias.map_or(&window.text, |a| &a.text);
    let mut names = vec![window.text.clone()];
    names.extend(alias.map(|a| a.text.clone()));
    let window_binding = Binding::stream(label, names, window_type.columns.clone());
    Ok(OnContext { trigger: trigger_input, trigger_binding, window: window_type, window_binding })
}

impl OnContext {
    fn both(&self) -> Scope {
        Scope { bindings: vec![self.trigger_binding.clone(), self.window_binding.clone()], ..Scope::default() }
    }

    fn trigger_only(&self) -> Scope {
        Scope { bindings: vec![self.trigger_binding.clone()], ..Scope::default() }
    }

    /// Equalities between a window column and a trigger expression: the partition key. Not one reading
    /// `current_timestamp()`, which the router of the trigger's events cannot read.
    fn partition(&self, condition: Option<&PlanExpr>) -> Partitioning {
        let label = &self.window_binding.label;
        let is_window = |e: &PlanExpr| matches!(e, PlanExpr::Column { source, .. } if source == label);
        let keys: Vec<PartitionKey> = condition
            .map(PlanExpr::conjuncts)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|c| match c {
                PlanExpr::Binary { op: BinaryOp::Eq, lhs, rhs, .. }
                    if is_window(lhs) != is_window(rhs) && !c.reads_clock() =>
                {
                    let (w, t) = if is_window(lhs) { (lhs, rhs) } else { (rhs, lhs) };
                    Some(PartitionKey { name: w.to_string(), inputs: vec![*t.clone(), *w.clone()] })
                }
                _ => None,
            })
            .collect();
        if keys.is_empty() { Partitioning::Single } else { Partitioning::Key(keys) }
    }
}

pub(super) fn merge(ctx: &Ctx<'_>, m: &OnMerge, catalog: &dyn Catalog) -> Result<MergePlan, CepError> {
    let on = on_context(ctx, catalog, &m.trigger, &m.window, m.window_alias.as_ref())?;
    let both = on.both();
    let condition = m
        .condition
        .as_ref()
        .map(|c| ExprPlanner::new(ctx, catalog, &both, Some("ON MERGE")).condition(c, "ON MERGE"))
        .transpose()?;
    let clauses = m.clauses.iter().map(|c| merge_clause(ctx, catalog, &on, c)).collect::<Result<_, _>>()?;
    let partition = on.partition(condition.as_ref());
    Ok(MergePlan {
        trigger: on.trigger,
        window: m.window.text.clone(),
        window_label: on.window_binding.label.as_str().into(),
        condition,
        clauses,
        partition,
    })
}

fn merge_clause(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    on: &OnContext,
    c: &MergeClause,
) -> Result<MergeClausePlan, CepError> {
    let scope = if c.matched { on.both() } else { on.trigger_only() };
    let condition = c
        .condition
        .as_ref()
        .map(|e| ExprPlanner::new(ctx, catalog, &scope, Some("WHEN")).condition(e, "WHEN"))
        .transpose()?;
    let action = match &c.action {
        MergeAction::Insert { into: Some(into), .. } => {
            return Err(ctx.unsupported(into.span, "inserting into another stream from a merge"));
        }
        MergeAction::Insert { into: None, items } => {
            let trigger = on.trigger_only();
            let projection =
                project_items(&mut ExprPlanner::new(ctx, catalog, &trigger, Some("a merge insert")), &trigger, items)?;
            let columns: Vec<Column> =
                projection.iter().map(|p| Column { name: p.name.to_string(), ty: p.ty.clone() }).collect();
            let window = Name { text: on.window.name.clone(), span: c.span };
            check_declared(ctx, &window, &on.window, &columns, &[], "")?;
            if let Some(extra) = columns.iter().find(|col| on.window.column(&col.name).is_none()) {
                return Err(
                    ctx.invalid(c.span, format!("named window `{}` has no column `{}`", on.window.name, extra.name))
                );
            }
            MergeActionPlan::Insert(projection)
        }
        MergeAction::Update(sets) => MergeActionPlan::Update(assignments(ctx, catalog, on, sets)?),
        MergeAction::Delete => MergeActionPlan::Delete,
    };
    Ok(MergeClausePlan { matched: c.matched, condition, action })
}

/// `SET col = value, ...`: each target a column of the window, each value fitting it.
fn assignments(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    on: &OnContext,
    sets: &[Assignment],
) -> Result<Vec<(String, PlanExpr)>, CepError> {
    let mut both = on.both();
    // `initial.c` reads the row before the update, as in Esper, unless a stream or alias has that name.
    if both.binding(INITIAL).is_none() {
        let initial = Binding::stream(INITIAL, vec![INITIAL.to_string()], on.window.columns.clone());
        both.bindings.push(Binding { qualified_only: true, ..initial });
    }
    let mut out = Vec::with_capacity(sets.len());
    for a in sets {
        let target = match a.target.as_slice() {
            [col] => col,
            [alias, col] if on.window_binding.names.contains(&alias.text) => col,
            _ => {
                return Err(ctx.invalid(a.span, "the target of `SET` must be a column of the named window"));
            }
        };
        let Some(column) = on.window.column(&target.text) else {
            let names = on.window.columns.iter().map(|c| c.name.as_str());
            return Err(unknown(ctx, "column", target, did_you_mean(&target.text, names)));
        };
        let (value, ty) = ExprPlanner::new(ctx, catalog, &both, Some("SET")).plan(&a.value)?;
        if !assignable(&ty, &column.ty) {
            return Err(ctx
                .type_error(a.value.span, format!("column `{}` is {} but the value is {ty}", column.name, column.ty)));
        }
        // A number of another type takes the column's, as Esper's update coerces it (`SET d = initial.i` is 1.0).
        let value = match ty != column.ty && ty != DataType::Null {
            true => PlanExpr::Cast { operand: Box::new(value), ty: column.ty.clone() },
            false => value,
        };
        out.push((column.name.clone(), value));
    }
    Ok(out)
}

pub(super) fn on_delete(ctx: &Ctx<'_>, d: &OnDelete, catalog: &dyn Catalog) -> Result<WindowActionPlan, CepError> {
    window_action(ctx, catalog, &d.trigger, &d.window, d.window_alias.as_ref(), d.condition.as_ref(), &[])
}

pub(super) fn on_update(ctx: &Ctx<'_>, u: &OnUpdate, catalog: &dyn Catalog) -> Result<WindowActionPlan, CepError> {
    window_action(ctx, catalog, &u.trigger, &u.window, u.window_alias.as_ref(), u.condition.as_ref(), &u.assignments)
}

fn window_action(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    trigger: &OnSource,
    window: &Name,
    alias: Option<&Name>,
    condition: Option<&Expr>,
    sets: &[Assignment],
) -> Result<WindowActionPlan, CepError> {
    let on = on_context(ctx, catalog, trigger, window, alias)?;
    let both = on.both();
    let condition =
        condition.map(|c| ExprPlanner::new(ctx, catalog, &both, Some("WHERE")).condition(c, "WHERE")).transpose()?;
    let assignments = assignments(ctx, catalog, &on, sets)?;
    let partition = on.partition(condition.as_ref());
    Ok(WindowActionPlan {
        trigger: on.trigger,
        window: window.text.clone(),
        window_label: on.window_binding.label.as_str().into(),
        condition,
        assignments,
        partition,
    })
}

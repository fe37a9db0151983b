//! `[INSERT INTO] SELECT` statements: input (stream, pattern or one-sided outer join), `WHERE`, the
//! select list, aggregation kind (fully aggregated or with ungrouped columns), output policy, order,
//! partitioning, and the sink.

use super::super::ast::{
    self, Expr, ExprKind, Join, JoinKind, OutputClause, OutputEvery, OutputKind, SelectItem, SelectStmt, Source,
    SourceKind, StreamRef, StreamSelector,
};
use super::super::catalog::{Catalog, Origin};
use super::super::error::{CepError, did_you_mean};
use super::super::plan::*;
use super::Ctx;
use super::expr::{Ends, ExprPlanner, Priors};
use super::pattern::plan_pattern;
use super::previous::Prevs;
use super::scope::{Binding, Scope, unknown};
use super::window::{positive_millis, window_of};

pub(super) fn plan_select(ctx: &Ctx<'_>, s: &SelectStmt, catalog: &mut dyn Catalog) -> Result<QueryPlan, CepError> {
    let (mut input, scope, input_partition) = plan_input(ctx, &*catalog, s)?;
    let cat: &dyn Catalog = &*catalog;
    let priors = priors_of(&input);
    let prevs = Prevs::of(&input, s.output.as_ref());
    let mut where_planner =
        ExprPlanner::new(ctx, cat, &scope, Some("WHERE")).with_priors(priors.clone()).with_prevs(prevs.clone());
    let filter = s.where_clause.as_ref().map(|w| where_planner.condition(w, "WHERE")).transpose()?;
    let batched = matches!(&input, Input::Stream(s) if s.window.as_ref().is_some_and(WindowSpec::batches));
    if let Some(at) = where_planner.reads_clock.filter(|_| batched) {
        let construct = "`current_timestamp` in WHERE over a batch window (the runtimes read it as events arrive, \
            Esper as the batch is released)";
        return Err(ctx.unsupported(at, construct));
    }
    let prev_in_where = where_planner.prevs.take_read_at();
    let mut planner = ExprPlanner::new(ctx, cat, &scope, None)
        .with_priors(priors.clone())
        .with_prevs(prevs)
        .with_ends(ends_of(&input));
    let projection = project_items(&mut planner, &scope, &s.items)?;
    planner.prevs.take_read_at();
    let having = s.having.as_ref().map(|h| planner.condition(h, "HAVING")).transpose()?;
    let having_alone = s.having.is_some() && planner.aggregates.is_empty() && s.group_by.is_empty();
    if let Some(name) = planner.prevs.take_read_at() {
        return Err(match having_alone {
            true => ctx.unsupported(name.span, format!("`{}` in HAVING without aggregates", name.text)),
            false => ctx.invalid(name.span, no_remove_stream(&name, "HAVING")),
        });
    }
    planner.aliases = projection.iter().map(|p| (p.name.to_string(), (p.expr.clone(), p.ty.clone()))).collect();
    let order_by = s
        .order_by
        .iter()
        .map(|o| Ok((order_key(&mut planner, &projection, &o.expr)?, o.descending)))
        .collect::<Result<Vec<_>, CepError>>()?;
    if let Some(name) = planner.prevs.take_read_at() {
        return Err(ctx.unsupported(name.span, format!("`{}` in ORDER BY", name.text)));
    }
    let aggregates = std::mem::take(&mut planner.aggregates);
    let mut group_planner = ExprPlanner::new(ctx, cat, &scope, Some("GROUP BY"))
        .with_priors(priors)
        .with_prevs(Prevs::Unsupported("in GROUP BY"));
    let group_by = s.group_by.iter().map(|g| Ok(group_planner.plan(g)?.0)).collect::<Result<Vec<_>, CepError>>()?;
    if let Some(name) = planner.keyed_rate.take() {
        rate_grouped_by_keys(ctx, &name, &input, &group_by)?;
    }
    let clock_read = planner.reads_clock;
    let prevs_read = Prevs::read_by([&where_planner, &planner, &group_planner]);
    let read = Priors::read_by([where_planner, planner, group_planner]);
    if let Input::Stream(s) = &mut input {
        s.priors = read;
        s.prevs = prevs_read;
    }
    let aggregation = aggregation(&projection, group_by, aggregates, having);
    match (prev_in_where, &aggregation, s.selector) {
        (Some(name), Some(_), _) if having_alone => {
            return Err(ctx.unsupported(name.span, format!("`{}` in WHERE of a statement with HAVING", name.text)));
        }
        (Some(name), Some(_), _) => return Err(ctx.invalid(name.span, no_remove_stream(&name, "WHERE"))),
        (Some(name), None, Some(StreamSelector::RStream)) => {
            let construct = format!("`{}` in WHERE of a statement with a remove stream", name.text);
            return Err(ctx.unsupported(name.span, construct));
        }
        _ => {}
    }
    let rate = s.output.as_ref().filter(|o| o.every.is_some());
    let removed = s.selector == Some(StreamSelector::RStream);
    let output = rate.map(|o| output(ctx, o, aggregation.as_ref(), (&input, removed))).transpose()?;
    let counted = output.as_ref().is_some_and(|o| o.every_events.is_some());
    let quiet = s.output.as_ref().filter(|o| o.every.is_none()).and_then(|o| o.after.as_ref());
    let (quiet_millis, quiet_rows) = match quiet {
        Some(OutputEvery::Period(p)) => (Some(positive_millis(ctx, p)?), None),
        Some(OutputEvery::Events { count, span }) => {
            if let Some(refused) = refused_quiet_rows(s.selector, &input) {
                return Err(ctx.unsupported(*span, refused));
            }
            (None, Some(*count))
        }
        None => (None, None),
    };
    // The default `OUTPUT EVERY` of an aggregating query releases its groups' changes of the interval in the order
    // they came, and `OUTPUT ALL` and a snapshot of one with ungrouped columns its rows in the order they came or
    // are in the view, across groups.
    let with_columns = aggregation.as_ref().is_some_and(|a| a.kind != AggregationKind::FullyAggregated);
    let in_order = match output.as_ref().map(|o| o.kind) {
        Some(OutputKind::Default) => aggregation.is_some(),
        Some(OutputKind::Snapshot | OutputKind::All) => with_columns,
        _ => false,
    };
    let emits = match s.selector {
        Some(StreamSelector::IrStream) => Emits::InsertedAndRemoved,
        Some(StreamSelector::RStream) => Emits::Removed,
        _ => Emits::Inserted,
    };
    // An output tick's rows come from every group at once, and ORDER BY sorts them all; the rows a time window lets
    // go at one millisecond are one remove stream.
    // A count of events or rows is the statement's across keys.
    let counted = counted || quiet_rows.is_some();
    let partition = match output.is_some() && !order_by.is_empty() || in_order || emits == Emits::Removed || counted {
        true => Partitioning::Single,
        false => partition(&aggregation, output.is_some() || quiet_millis.is_some(), input_partition),
    };
    if let Some(at) = s.distinct.filter(|_| emits == Emits::InsertedAndRemoved) {
        return Err(ctx.unsupported(at, "`DISTINCT` with `IRSTREAM` (Esper sets the inserted and removed rows apart)"));
    }
    let sink = super::sink::sink(ctx, s.insert_into.as_ref(), &projection, catalog)?;
    if let (Some(at), Input::Join(join)) = (s.distinct, &input)
        && join.lookup.stream == sink.stream
    {
        return Err(ctx.unsupported(at, "`DISTINCT` on a join that inserts into the stream it looks up"));
    }
    let distinct = s.distinct.is_some();
    let partition = match &input {
        Input::Stream(s) if !s.priors.is_empty() || !s.prevs.is_empty() => Partitioning::Single,
        _ => partition,
    };
    let plan = QueryPlan {
        input,
        filter,
        aggregation,
        projection,
        output,
        quiet_millis,
        quiet_rows,
        order_by,
        emits,
        distinct,
        sink,
        partition,
    };
    if let Some(at) = clock_read.filter(|_| !made_when_released(&plan)) {
        let construct = "`current_timestamp` in the rows of an output policy that keeps them from when they are made \
            (Esper reads it as they go out)";
        return Err(ctx.unsupported(at, construct));
    }
    Ok(groups_on_one_worker(distinct_on_one_worker(plan)))
}

/// Whether `plan`'s rows are made when they go out, so that `current_timestamp()` in its select list, `HAVING` and
/// `ORDER BY` reads the time they go out, as Esper's output does: without an output policy, under `OUTPUT FIRST` of
/// the insert stream, and the rows of a fully aggregated query on a stream (no batch window) that each clock tick
/// makes from its groups (`LAST`, `SNAPSHOT`, and `ALL` with groups). The other policies keep the rows made at each
/// change for the tick.
fn made_when_released(plan: &QueryPlan) -> bool {
    let Some(output) = &plan.output else {
        return true;
    };
    let grouped = plan.aggregation.as_ref().is_some_and(|a| !a.group_by.is_empty());
    let fully = plan.aggregation.as_ref().is_some_and(|a| a.kind == AggregationKind::FullyAggregated);
    let stream = matches!(&plan.input, Input::Stream(s) if !s.window.as_ref().is_some_and(WindowSpec::batches));
    let at_tick = fully && stream && plan.emits == Emits::Inserted && output.every_events.is_none();
    match output.kind {
        OutputKind::First => plan.emits == Emits::Inserted,
        OutputKind::Last | OutputKind::Snapshot => at_tick,
        OutputKind::All => at_tick && grouped,
        OutputKind::Default => false,
    }
}

/// Why a previous-event function `name` cannot be in `clause` of a statement with aggregates: Esper's reason.
fn no_remove_stream(name: &ast::Name, clause: &str) -> String {
    format!("`{}` cannot be used in {clause} of a statement with aggregates: it gives no remove stream", name.text)
}

/// Whether the statement over `input` may read `prior(n, x)`: the subset holds it over one stream. Its priors count
/// the stream's events in order, so such a statement runs on one worker.
fn priors_of(input: &Input) -> Priors {
    match input {
        Input::Stream(_) => Priors::Read(Vec::new()),
        Input::Pattern(_) => Priors::Unsupported("over a pattern"),
        Input::Join(_) => Priors::Unsupported("in a join"),
    }
}

/// What `first` and `last` read over `input` ([`Ends`]), and the ever forms: where these read the window, every row the
/// group had since it last had none. A join's and a named window's read rows in orders the subset does not keep:
/// Esper's joins hold each event once however many rows it joins, and its named windows start with the rows they hold.
fn ends_of(input: &Input) -> Ends {
    match input {
        Input::Stream(s) if s.named_window => Ends::Unsupported("over a named window"),
        Input::Stream(StreamInput { window: None, .. }) => Ends::Ever,
        Input::Stream(StreamInput { window: Some(window), .. }) => {
            let per_key = matches!(window, WindowSpec::Grouped { inner, .. } if inner.shuffles().is_none());
            Ends::Window { shuffled: window.shuffles(), per_key }
        }
        Input::Pattern(_) => Ends::Ever,
        Input::Join(_) => Ends::Unordered("in a join"),
    }
}

/// `rate` over `std:groupwin` needs the keys among the statement's `GROUP BY`: a group's rows then leave in the
/// order they came, as they do within a key.
fn rate_grouped_by_keys(ctx: &Ctx<'_>, name: &ast::Name, input: &Input, group_by: &[PlanExpr]) -> Result<(), CepError> {
    let Input::Stream(StreamInput { window: Some(WindowSpec::Grouped { keys, .. }), .. }) = input else {
        return Ok(());
    };
    if keys.iter().all(|key| group_by.contains(key)) {
        return Ok(());
    }
    let why = "a group's rows may leave out of arrival order";
    let construct = format!("`{}` over `std:groupwin` without its keys in GROUP BY ({why})", name.text);
    Err(ctx.unsupported(name.span, construct))
}

/// A statement whose groups' ever forms start afresh at the statement's next row after their last left
/// ([`QueryPlan::forgets_emptied_groups`]) runs on one worker, where every row reaches the groups.
fn groups_on_one_worker(mut plan: QueryPlan) -> QueryPlan {
    if plan.forgets_emptied_groups() {
        plan.partition = Partitioning::Single;
    }
    plan
}

/// A `DISTINCT` statement that makes several rows at once (a batch, a tick, an expiry, a pattern's or a join's
/// matches) makes them on one worker, where they are compared: routed by no key (a join's group is placed by its
/// members, `dataflow::join`). One that keeps nothing between events makes a row at a time, and stays where it is.
fn distinct_on_one_worker(mut plan: QueryPlan) -> QueryPlan {
    if plan.distinct && plan.stateless_input().is_none() {
        plan.partition = Partitioning::Single;
    }
    plan
}

/// An `ORDER BY` item: a select-list alias names that column, as in Esper; else an expression.
fn order_key(planner: &mut ExprPlanner<'_>, projection: &[Projection], e: &Expr) -> Result<PlanExpr, CepError> {
    if let ExprKind::Property(path) = &e.kind
        && let [name] = path.as_slice()
        && let Some(p) = projection.iter().find(|p| *p.name == *name.text)
    {
        return Ok(p.expr.clone());
    }
    Ok(planner.plan(e)?.0)
}

/// The input, the scope its expressions see, and the partitioning the input itself imposes.
fn plan_input(ctx: &Ctx<'_>, catalog: &dyn Catalog, s: &SelectStmt) -> Result<(Input, Scope, Partitioning), CepError> {
    match s.from.joins.as_slice() {
        [] => plan_source(ctx, catalog, &s.from.first),
        [join] => plan_join(ctx, catalog, &s.from.first, join),
        [_, extra, ..] => Err(ctx.unsupported(extra.span, "joining more than two streams")),
    }
}

fn plan_source(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    source: &Source,
) -> Result<(Input, Scope, Partitioning), CepError> {
    let label = source.alias.as_ref().map(|a| a.text.as_str());
    match &source.kind {
        SourceKind::Stream(stream) => {
            let (input, binding) = stream_input(ctx, catalog, stream, label)?;
            let partition = window_partition(input.window.as_ref());
            Ok((Input::Stream(input), Scope { bindings: vec![binding], ..Scope::default() }, partition))
        }
        SourceKind::Pattern(p) => {
            let planned = plan_pattern(ctx, catalog, p, label)?;
            let mut scope = Scope { tags: planned.visible.clone(), ..Scope::default() };
            if let Some(label) = label {
                let binding = Binding {
                    label: label.to_string(),
                    names: vec![label.to_string()],
                    columns: Vec::new(),
                    tags: planned.visible,
                    qualified_only: false,
                };
                scope.bindings.push(binding);
            }
            Ok((Input::Pattern(planned.plan), scope, planned.partition))
        }
    }
}

/// A stream with its filter and window, and the binding that names it.
pub(super) fn stream_input(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    s: &StreamRef,
    alias: Option<&str>,
) -> Result<(StreamInput, Binding), CepError> {
    let Some(ty) = catalog.stream(&s.name.text) else {
        return Err(unknown(ctx, "stream", &s.name, did_you_mean(&s.name.text, catalog.stream_names())));
    };
    let label = alias.unwrap_or(&s.name.text);
    let mut names = vec![s.name.text.clone()];
    names.extend(alias.map(str::to_string));
    let binding = Binding::stream(label, names, ty.columns.clone());
    let scope = Scope { bindings: vec![binding.clone()], ..Scope::default() };
    let mut planner = ExprPlanner::new(ctx, catalog, &scope, Some("a stream filter"));
    let mut filters = Vec::with_capacity(s.filter.len());
    for f in &s.filter {
        filters.push(planner.condition(f, "a stream filter")?);
    }
    let window = window_of(&mut ExprPlanner::new(ctx, catalog, &scope, Some("a view")), &s.views)?;
    let input = StreamInput {
        stream: s.name.text.clone(),
        label: label.into(),
        filter: super::pattern::and_all(filters),
        window,
        named_window: matches!(ty.origin, Origin::NamedWindow { .. }),
        priors: Vec::new(),
        prevs: Vec::new(),
    };
    Ok((input, binding))
}

/// How a stream's view can be split: rows of a time window or a time-ordered one live and leave independently of
/// each other, so any split works; a unique view splits by its keys; the other views displace rows across any key.
/// Batches inside `std:groupwin` are each key's own, but keys whose periods end together release in the order of
/// their first events, which no worker alone knows.
fn window_partition(window: Option<&WindowSpec>) -> Partitioning {
    let independent = |w: &WindowSpec| matches!(w, WindowSpec::Time { .. } | WindowSpec::TimeOrder { .. });
    let keys = match window {
        None | Some(WindowSpec::KeepAll | WindowSpec::FirstTime { .. }) => return Partitioning::Stateless,
        Some(w) if independent(w) => return Partitioning::Stateless,
        Some(WindowSpec::Grouped { inner, .. }) if independent(inner) => return Partitioning::Stateless,
        Some(w @ WindowSpec::Grouped { .. }) if w.batches() => return Partitioning::Single,
        Some(WindowSpec::Unique { keys } | WindowSpec::FirstUnique { keys } | WindowSpec::Grouped { keys, .. }) => keys,
        Some(_) => return Partitioning::Single,
    };
    Partitioning::Key(keys.iter().map(|k| PartitionKey { name: k.to_string(), inputs: vec![k.clone()] }).collect())
}

/// `A unidirectional LEFT OUTER JOIN B.<window> AS b ON ...`: the only join in the subset.
fn plan_join(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    first: &Source,
    join: &Join,
) -> Result<(Input, Scope, Partitioning), CepError> {
    let supported = join.kind == JoinKind::LeftOuter && first.unidirectional && !join.source.unidirectional;
    if !supported {
        let construct = match join.kind {
            JoinKind::Comma => "a join of comma-separated streams",
            JoinKind::Inner => "an inner join",
            JoinKind::FullOuter => "a full outer join",
            JoinKind::RightOuter => "a right outer join",
            JoinKind::LeftOuter => "a left outer join without `unidirectional` on its first stream only",
        };
        return Err(ctx.unsupported(
            join.span,
            format!("{construct} (the subset has `A unidirectional LEFT OUTER JOIN B ... ON ...`)"),
        ));
    }
    let (driver, mut scope, driver_partition) = plan_source(ctx, catalog, first)?;
    let SourceKind::Stream(lookup_ref) = &join.source.kind else {
        return Err(ctx.unsupported(join.source.span, "a pattern on the looked-up side of a join"));
    };
    let alias = join.source.alias.as_ref().map(|a| a.text.as_str());
    let (mut lookup, binding) = stream_input(ctx, catalog, lookup_ref, alias)?;
    if lookup.named_window {
        lookup.window = named_window_view(ctx, catalog, lookup_ref, &binding)?;
    }
    if lookup.window.is_none() {
        return Err(
            ctx.invalid(join.source.span, "the looked-up stream needs a data window such as `.std:lastevent()`")
        );
    }
    let kept = |input: &StreamInput| input.window.as_ref().is_some_and(|w| !w.lets_go());
    if kept(&lookup) || matches!(&driver, Input::Stream(s) if kept(s)) {
        let construct = "a view that keeps its rows for good (`win:keepall`, a first-event view) in a join";
        return Err(ctx.unsupported(join.span, construct));
    }
    let stamped = |input: &StreamInput| {
        let window = input.window.as_ref().filter(|w| w.timestamp().is_some() && w.time_order().is_none())?;
        Some(if window.batches() { "win:ext_timed_batch" } else { "win:ext_timed" })
    };
    let driver_stamped = match &driver {
        Input::Stream(s) => stamped(s),
        _ => None,
    };
    // Views whose order is not their arrival's, and `win:time_accum`.
    let unjoined = |input: &StreamInput| {
        let window = input.window.as_ref()?;
        let accumulating = window.accumulates().map(|_| "win:time_accum");
        window.ordering_view().map(|(view, _)| view).or(accumulating)
    };
    let driver_unjoined = match &driver {
        Input::Stream(s) => unjoined(s),
        _ => None,
    };
    if let Some(view) = stamped(&lookup).or(driver_stamped).or(unjoined(&lookup)).or(driver_unjoined) {
        return Err(ctx.unsupported(join.span, format!("`{view}` in a join")));
    }
    scope.bindings.push(binding);
    let on_expr = join.on.as_ref().ok_or_else(|| ctx.invalid(join.span, "a join needs `ON`"))?;
    let on = ExprPlanner::new(ctx, catalog, &scope, Some("ON")).condition(on_expr, "ON")?;
    let keys = join_keys(&on, &lookup.label);
    let partition = match keys.as_slice() {
        [] => Partitioning::Single,
        keys => Partitioning::Key(
            keys.iter()
                .map(|(d, l)| PartitionKey { name: l.to_string(), inputs: vec![d.clone(), l.clone()] })
                .collect(),
        ),
    };
    Ok((Input::Join(Box::new(JoinPlan { driver, lookup, on, keys, driver_partition })), scope, partition))
}

/// The view a join reads a named window through: the window's own, planned against the join's name for it, so the
/// join sees the rows the window keeps (fed by its insert stream, which holds each row it takes in and each updated
/// row's new version, and by the rows statements delete). A view of the join's own on the window is refused: Esper's
/// would also take every row the window drops or replaces (its remove stream), which reaches a join here only for
/// deletes.
fn named_window_view(
    ctx: &Ctx<'_>,
    catalog: &dyn Catalog,
    s: &StreamRef,
    binding: &Binding,
) -> Result<Option<WindowSpec>, CepError> {
    if let Some(view) = s.views.first() {
        return Err(ctx.unsupported(view.span, "a view on a named window a join looks up"));
    }
    let views = match catalog.stream(&s.name.text).map(|ty| &ty.origin) {
        Some(Origin::NamedWindow { views, .. }) => views.as_slice(),
        _ => &[],
    };
    let scope = Scope { bindings: vec![binding.clone()], ..Scope::default() };
    window_of(&mut ExprPlanner::new(ctx, catalog, &scope, Some("a view")), views)
}

/// Equalities of `on` with the lookup side's column on one side only (and no `current_timestamp()`).
fn join_keys(on: &PlanExpr, lookup: &str) -> Vec<(PlanExpr, PlanExpr)> {
    let from_lookup = |e: &PlanExpr| matches!(e, PlanExpr::Column { source, .. } if source == lookup);
    on.conjuncts()
        .into_iter()
        .filter(|c| !c.reads_clock())
        .filter_map(|c| match c {
            PlanExpr::Binary { op: BinaryOp::Eq, lhs, rhs, .. } if from_lookup(rhs) && !from_lookup(lhs) => {
                Some((*lhs.clone(), *rhs.clone()))
            }
            PlanExpr::Binary { op: BinaryOp::Eq, lhs, rhs, .. } if from_lookup(lhs) && !from_lookup(rhs) => {
                Some((*rhs.clone(), *lhs.clone()))
            }
            _ => None,
        })
        .collect()
}

pub(super) fn project_items(
    planner: &mut ExprPlanner<'_>,
    scope: &Scope,
    items: &[SelectItem],
) -> Result<Vec<Projection>, CepError> {
    let mut out: Vec<Projection> = Vec::new();
    for item in items {
        for p in project_item(planner, scope, item)? {
            if out.iter().any(|o| o.name == p.name) {
                let span = match item {
                    SelectItem::Wildcard(s) => *s,
                    SelectItem::StreamWildcard(n) => n.span,
                    SelectItem::Expr { expr, alias } => alias.as_ref().map_or(expr.span, |a| a.span),
                };
                return Err(planner.ctx.invalid(span, format!("column `{}` is selected twice", p.name)));
            }
            out.push(p);
        }
    }
    Ok(out)
}

fn project_item(planner: &mut ExprPlanner<'_>, scope: &Scope, item: &SelectItem) -> Result<Vec<Projection>, CepError> {
    let ctx = planner.ctx;
    match item {
        SelectItem::Wildcard(span) => match scope.bindings.as_slice() {
            [b] if b.tags.is_empty() => Ok(columns_of(&b.label, &b.columns)),
            [] | [_] => Err(ctx.invalid(*span, "`*` over a pattern: select `tag.*` or name the properties")),
            _ => Err(ctx.invalid(*span, "`*` over a join: name the properties to select")),
        },
        SelectItem::StreamWildcard(name) => {
            if let Some(t) = scope.tag(&name.text) {
                return Ok(columns_of(&t.name, &t.columns));
            }
            match scope.bindings.iter().find(|b| b.names.contains(&name.text) && b.tags.is_empty()) {
                Some(b) => Ok(columns_of(&b.label, &b.columns)),
                None => Err(unknown(ctx, "stream, alias or tag", name, String::new())),
            }
        }
        SelectItem::Expr { expr, alias } => {
            let (planned, ty) = planner.plan(expr)?;
            if ty == DataType::Row {
                return Err(ctx.type_error(
                    expr.span,
                    format!("`{}` is a whole event: select `{}.*` or one of its properties", planned, planned),
                ));
            }
            let name = alias.as_ref().map_or_else(|| default_name(&planned, expr), |a| a.text.clone());
            Ok(vec![Projection { name: name.into(), expr: planned, ty }])
        }
    }
}

fn columns_of(source: &str, columns: &[Column]) -> Vec<Projection> {
    columns
        .iter()
        .map(|c| Projection {
            name: c.name.as_str().into(),
            expr: PlanExpr::Column { source: source.into(), name: c.name.as_str().into(), ty: c.ty.clone() },
            ty: c.ty.clone(),
        })
        .collect()
}

/// A property keeps its name; anything else is named by its text, as Esper does.
fn default_name(planned: &PlanExpr, expr: &Expr) -> String {
    match planned {
        PlanExpr::Column { name, .. } => name.to_string(),
        _ => expr.to_string(),
    }
}

fn aggregation(
    projection: &[Projection],
    group_by: Vec<PlanExpr>,
    aggregates: Vec<AggregateCall>,
    having: Option<PlanExpr>,
) -> Option<Aggregation> {
    if aggregates.is_empty() && group_by.is_empty() {
        // `HAVING` alone: Esper's processor without aggregation reads it on each row as it makes it, inserted or
        // removed, as one with ungrouped columns and no aggregates does.
        let columns = projection.iter().map(|p| p.name.to_string()).collect();
        return having.map(|having| Aggregation {
            kind: AggregationKind::WithUngroupedColumns(columns),
            group_by,
            aggregates,
            having: Some(having),
        });
    }
    let ungrouped: Vec<String> = projection
        .iter()
        .filter(|p| !group_by.contains(&p.expr) && has_ungrouped_column(&p.expr, &group_by))
        .map(|p| p.name.to_string())
        .collect();
    let kind = if ungrouped.is_empty() {
        AggregationKind::FullyAggregated
    } else {
        AggregationKind::WithUngroupedColumns(ungrouped)
    };
    Some(Aggregation { kind, group_by, aggregates, having })
}

/// Whether `e` reads a column outside any aggregate that is not a group key.
pub(crate) fn has_ungrouped_column(e: &PlanExpr, group_by: &[PlanExpr]) -> bool {
    if group_by.contains(e) {
        return false;
    }
    match e {
        PlanExpr::Column { .. } | PlanExpr::Row(_) => true,
        PlanExpr::Binary { lhs, rhs, .. } => has_ungrouped_column(lhs, group_by) || has_ungrouped_column(rhs, group_by),
        PlanExpr::Not(x)
        | PlanExpr::Neg(x)
        | PlanExpr::Cast { operand: x, .. }
        | PlanExpr::IsNull { operand: x, .. } => has_ungrouped_column(x, group_by),
        PlanExpr::Call { args, .. } | PlanExpr::Array(args) => args.iter().any(|a| has_ungrouped_column(a, group_by)),
        PlanExpr::InList { operand, list, .. } => {
            has_ungrouped_column(operand, group_by) || list.iter().any(|a| has_ungrouped_column(a, group_by))
        }
        PlanExpr::Between { operand, low, high, .. } => {
            [operand, low, high].iter().any(|a| has_ungrouped_column(a, group_by))
        }
        PlanExpr::Like { operand, pattern, .. } | PlanExpr::Regexp { operand, pattern, .. } => {
            has_ungrouped_column(operand, group_by) || has_ungrouped_column(pattern, group_by)
        }
        PlanExpr::Case { operand, whens, otherwise, .. } => {
            operand.iter().chain(otherwise).any(|a| has_ungrouped_column(a, group_by))
                || whens.iter().any(|(w, t)| has_ungrouped_column(w, group_by) || has_ungrouped_column(t, group_by))
        }
        PlanExpr::Literal(_) | PlanExpr::Variable { .. } | PlanExpr::Aggregate(_) => false,
    }
}

/// The rate limit of `o`, which has a period or a count of events.
fn output(
    ctx: &Ctx<'_>,
    o: &OutputClause,
    aggregation: Option<&Aggregation>,
    over: (&Input, bool),
) -> Result<OutputPolicy, CepError> {
    let (every_millis, every_events) = match o.every.as_ref().expect("a rate limit has a period") {
        OutputEvery::Period(p) => (positive_millis(ctx, p)?, None),
        OutputEvery::Events { count, span } => {
            if let Some(refused) = refused_count(o, aggregation, over) {
                return Err(ctx.unsupported(*span, refused));
            }
            (0, Some(*count))
        }
    };
    let after_millis = match &o.after {
        Some(OutputEvery::Period(p)) => Some(positive_millis(ctx, p)?),
        Some(OutputEvery::Events { span, .. }) => {
            return Err(ctx.unsupported(*span, "`OUTPUT AFTER n EVENTS` with a rate (`EVERY`)"));
        }
        None => None,
    };
    let grouped = aggregation.is_some_and(|a| !a.group_by.is_empty());
    let fully = aggregation.is_some_and(|a| a.kind == AggregationKind::FullyAggregated);
    let ever = aggregation.is_some_and(|a| a.aggregates.iter().any(|c| c.function.is_ever()));
    let ordering = match over.0 {
        Input::Stream(s) => s.window.as_ref().and_then(WindowSpec::ordering_view),
        _ => None,
    };
    if let Some((view, order)) = ordering.filter(|_| o.kind == OutputKind::Snapshot) {
        let construct = format!("`OUTPUT SNAPSHOT` over `{view}` (Esper iterates it in its {order})");
        return Err(ctx.unsupported(o.span, construct));
    }
    if o.kind == OutputKind::Snapshot && ever && !fully {
        // Such a snapshot's aggregates are summed from the rows in the view at the tick, which the ever forms outlive.
        let construct = "an aggregate of the rows that left (an ever form, `leaving()`, `rate`) in `OUTPUT SNAPSHOT` of \
            rows with ungrouped columns";
        return Err(ctx.unsupported(o.span, construct));
    }
    let releases = match (o.kind, aggregation.is_some(), grouped, fully) {
        (OutputKind::Last, true, true, true) => {
            "one row per group that changed (arrival or expiry) during the interval, with current aggregates; an emptied group counts 0, its other aggregates null"
        }
        (OutputKind::Last, true, true, false) => {
            "the last row of each group seen during the interval; expiries release nothing"
        }
        (OutputKind::Last, _, _, _) => "only the last row of the interval",
        (OutputKind::First, _, true, _) => "the first row of each group during the interval",
        (OutputKind::First, false, _, _) => "the first row of each interval, as it arrives",
        (OutputKind::First, _, _, _) => "the first row of the interval",
        (OutputKind::Snapshot, true, false, true) => "the one row as it stands, the window empty too",
        (OutputKind::Snapshot, true, true, true) => "one row per group with a row in the window, changed or not",
        (OutputKind::Snapshot, _, _, _) => "the current result of the whole window",
        (OutputKind::All, true, true, true) => {
            "one row per group with a row in the window or emptied during the interval, changed or not; an emptied group counts 0, its other aggregates null"
        }
        (OutputKind::All, true, true, false) => {
            "the row of every arrival of the interval with the aggregates it left, of each group as rows of it leave, and of every other group at the tick, each group's from its last arrival; an emptied group counts 0, its other aggregates null"
        }
        (OutputKind::All | OutputKind::Default, true, _, false) => {
            "the row of every arrival of the interval, with the aggregates it left"
        }
        (OutputKind::Default, true, _, _) => "every row the interval's arrivals and expiries make",
        (OutputKind::All | OutputKind::Default, _, _, _) => "every row of the interval, in arrival order",
    };
    Ok(OutputPolicy { kind: o.kind, every_millis, every_events, after_millis, releases: releases.to_string() })
}

/// Why `EVERY n EVENTS` is refused on a statement over `input` (and giving its remove stream, `removed`), if it is.
/// The subset counts the events of a query over one stream's view; Esper counts a pattern's matches, a join's
/// triggers and a batch's releases, each grouped `FIRST` row per group, and under `FIRST` with `HAVING` only from the
/// first row that passes.
fn refused_count(
    o: &OutputClause,
    aggregation: Option<&Aggregation>,
    (input, removed): (&Input, bool),
) -> Option<&'static str> {
    let grouped = aggregation.is_some_and(|a| !a.group_by.is_empty());
    let having = aggregation.is_some_and(|a| a.having.is_some());
    match input {
        Input::Pattern(_) => return Some("`OUTPUT ... EVERY n EVENTS` on a pattern"),
        Input::Join(_) => return Some("`OUTPUT ... EVERY n EVENTS` on a join"),
        Input::Stream(s) if s.named_window => return Some("`OUTPUT ... EVERY n EVENTS` on a named window's rows"),
        Input::Stream(s) if s.window.as_ref().is_some_and(WindowSpec::batches) => {
            return Some("`OUTPUT ... EVERY n EVENTS` over a batch window");
        }
        Input::Stream(_) => {}
    }
    match o.kind {
        _ if o.after.is_some() => Some("`OUTPUT AFTER ... EVERY n EVENTS`"),
        _ if removed => Some("`SELECT RSTREAM` under `OUTPUT ... EVERY n EVENTS`"),
        OutputKind::First if grouped || having => Some("`OUTPUT FIRST EVERY n EVENTS` with GROUP BY or HAVING"),
        _ => None,
    }
}

/// Why `OUTPUT AFTER n EVENTS` alone is refused on a statement, if it is: Esper counts the rows of the insert stream
/// and then lets the remove stream's through too, and on a join each of its triggers' rows, which the subset does not
/// count apart.
fn refused_quiet_rows(selector: Option<StreamSelector>, input: &Input) -> Option<&'static str> {
    match (selector, input) {
        (Some(StreamSelector::RStream | StreamSelector::IrStream), _) => {
            Some("`OUTPUT AFTER n EVENTS` with a remove stream (Esper counts the inserted rows only)")
        }
        (_, Input::Join(_)) => Some("`OUTPUT AFTER n EVENTS` on a join"),
        _ => None,
    }
}

/// Groups split a query only when its view does not displace rows across groups.
fn partition(aggregation: &Option<Aggregation>, has_output: bool, from_input: Partitioning) -> Partitioning {
    match aggregation {
        Some(a) if !a.group_by.is_empty() && from_input == Partitioning::Stateless => Partitioning::Key(
            a.group_by.iter().map(|g| PartitionKey { name: g.to_string(), inputs: vec![g.clone()] }).collect(),
        ),
        Some(_) => Partitioning::Single,
        None if has_output => Partitioning::Single,
        None => from_input,
    }
}

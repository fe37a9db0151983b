//! View chains (`.win:time(10 min)`, `.std:unique(id)`, `.std:groupwin(id).std:lastevent()`, ...)
//! → one [`WindowSpec`], with their arguments checked: positive periods and lengths, key expressions
//! resolved against the stream.

use super::super::ast::{Expr, ExprKind, Literal, Name, Span, TimePeriod, View, ViewArg};
use super::super::error::{CepError, did_you_mean};
use super::super::plan::{Criterion, DataType, PlanExpr, WindowSpec};
use super::Ctx;
use super::expr::{ExprPlanner, is_numeric};
use super::scope::unknown;

const VIEWS: [&str; 20] = [
    "win:time",
    "win:length",
    "win:ext_timed",
    "win:ext_timed_batch",
    "win:time_batch",
    "win:length_batch",
    "win:time_length_batch",
    "std:unique",
    "std:lastevent",
    "std:groupwin",
    "win:firstlength",
    "std:firstevent",
    "std:firstunique",
    "win:keepall",
    "win:firsttime",
    "ext:sort",
    "ext:rank",
    "ext:time_order",
    "ext:timetolive",
    "win:time_accum",
];

/// Esper views outside the subset (Esper 5's data windows and derived-value views): refused by name rather than
/// called unknown.
const ESPER_VIEWS: [&str; 8] = [
    "win:firstevent",
    "win:expr",
    "win:expr_batch",
    "std:size",
    "stat:uni",
    "stat:linest",
    "stat:correl",
    "stat:weighted_avg",
];

/// The window a view chain keeps, if any.
pub(super) fn window_of(planner: &mut ExprPlanner<'_>, views: &[View]) -> Result<Option<WindowSpec>, CepError> {
    let Some((first, rest)) = views.split_first() else {
        return Ok(None);
    };
    let full = format!("{}:{}", first.namespace, first.name);
    if full == "std:groupwin" {
        let keys = keys(planner, first)?;
        let [inner] = rest else {
            let message = "`std:groupwin(...)` must be followed by exactly one data window, such as `.std:lastevent()`";
            return Err(planner.ctx.invalid(first.span, message));
        };
        let inner = Box::new(single_view(planner, inner)?);
        return Ok(Some(WindowSpec::Grouped { keys, inner }));
    }
    if let Some(second) = rest.first() {
        return Err(planner.ctx.unsupported(second.span, "combining two data windows on one stream"));
    }
    single_view(planner, first).map(Some)
}

fn single_view(planner: &mut ExprPlanner<'_>, view: &View) -> Result<WindowSpec, CepError> {
    let ctx = planner.ctx;
    let full = format!("{}:{}", view.namespace, view.name);
    Ok(match full.as_str() {
        "win:time" => WindowSpec::Time { millis: period(ctx, view)? },
        "win:time_batch" => WindowSpec::TimeBatch { millis: period(ctx, view)? },
        "win:time_accum" => WindowSpec::TimeAccum { millis: period(ctx, view)? },
        "win:length" => WindowSpec::Length { count: length(ctx, view)? },
        "win:ext_timed" => ext_timed(planner, view)?,
        "win:ext_timed_batch" => ext_timed_batch(planner, view)?,
        "win:length_batch" => WindowSpec::LengthBatch { count: length(ctx, view)? },
        "win:time_length_batch" => time_length_batch(ctx, view)?,
        "std:unique" => WindowSpec::Unique { keys: keys(planner, view)? },
        "ext:sort" => sorted(planner, view)?,
        "ext:rank" => ranked(planner, view)?,
        "ext:time_order" => time_order(planner, view)?,
        "ext:timetolive" => {
            let what = "a timestamp expression, such as a property holding the milliseconds the event leaves at";
            let ViewArg::Expr(stamp) = single_arg(planner.ctx, view, what)? else {
                return Err(planner.ctx.invalid(view.span, format!("`ext:timetolive` takes one argument: {what}")));
            };
            WindowSpec::TimeOrder { timestamp: timestamp(planner, view, stamp)?, millis: 0 }
        }
        "std:lastevent" => {
            no_arguments(ctx, view)?;
            WindowSpec::LastEvent
        }
        "win:firstlength" => WindowSpec::FirstLength { count: length(ctx, view)? },
        "std:firstevent" => {
            no_arguments(ctx, view)?;
            WindowSpec::FirstLength { count: 1 }
        }
        "std:firstunique" => WindowSpec::FirstUnique { keys: keys(planner, view)? },
        "win:firsttime" => WindowSpec::FirstTime { millis: period(ctx, view)? },
        "win:keepall" => {
            no_arguments(ctx, view)?;
            WindowSpec::KeepAll
        }
        "std:groupwin" => {
            return Err(ctx.invalid(view.span, "`std:groupwin` must come first in a view chain"));
        }
        other if ESPER_VIEWS.contains(&other) => {
            return Err(ctx.unsupported(view.span, format!("the view `{other}`")));
        }
        other => {
            let name = Name { text: other.to_string(), span: view.span };
            return Err(unknown(ctx, "view", &name, did_you_mean(other, VIEWS)));
        }
    })
}

/// `win:ext_timed(timestamp, period)`: a timestamp ([`timestamp`]) and a positive period.
fn ext_timed(planner: &mut ExprPlanner<'_>, view: &View) -> Result<WindowSpec, CepError> {
    let [ViewArg::Expr(stamp), period_arg] = view.args.as_slice() else {
        let message = "`win:ext_timed` takes two arguments: a timestamp expression and a time period such as `10 sec`";
        return Err(planner.ctx.invalid(view.span, message));
    };
    let timestamp = timestamp(planner, view, stamp)?;
    let millis = period_of(planner.ctx, period_arg)?;
    Ok(WindowSpec::ExtTimed { timestamp, millis })
}

/// `ext:time_order(timestamp, period)`: a timestamp ([`timestamp`]) and a positive period.
fn time_order(planner: &mut ExprPlanner<'_>, view: &View) -> Result<WindowSpec, CepError> {
    let [ViewArg::Expr(stamp), period_arg] = view.args.as_slice() else {
        let message = "`ext:time_order` takes two arguments: a timestamp expression and a time period such as `10 sec`";
        return Err(planner.ctx.invalid(view.span, message));
    };
    let timestamp = timestamp(planner, view, stamp)?;
    let millis = period_of(planner.ctx, period_arg)?;
    Ok(WindowSpec::TimeOrder { timestamp, millis })
}

/// `win:ext_timed_batch(timestamp, period[, reference])`: a timestamp ([`timestamp`]), a positive period, and the
/// millisecond the periods count from, a whole number (Esper's "Long-typed reference point in msec").
fn ext_timed_batch(planner: &mut ExprPlanner<'_>, view: &View) -> Result<WindowSpec, CepError> {
    let (stamp, period_arg, reference_arg) = match view.args.as_slice() {
        [ViewArg::Expr(stamp), period] => (stamp, period, None),
        [ViewArg::Expr(stamp), period, reference] => (stamp, period, Some(reference)),
        _ => {
            let message = "`win:ext_timed_batch` takes a timestamp expression, a time period such as `10 sec` and, \
                           optionally, the millisecond its periods count from";
            return Err(planner.ctx.invalid(view.span, message));
        }
    };
    let timestamp = timestamp(planner, view, stamp)?;
    let millis = period_of(planner.ctx, period_arg)?;
    let reference = match reference_arg {
        None => None,
        Some(arg) => {
            let message = "`win:ext_timed_batch`'s reference point must be a whole number of milliseconds";
            let number = match arg {
                ViewArg::Expr(e) => whole_number(e),
                ViewArg::Time(_) | ViewArg::Ordered(_) => None,
            };
            Some(number.ok_or_else(|| planner.ctx.invalid(arg_span(arg), message))?)
        }
    };
    Ok(WindowSpec::ExtTimedBatch { timestamp, millis, reference })
}

/// A whole number written as one, negative or not (Esper takes any `long` constant).
fn whole_number(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Literal(Literal::Int(n) | Literal::Long(n)) => Some(*n),
        ExprKind::Neg(inner) => whole_number(inner)?.checked_neg(),
        _ => None,
    }
}

/// An externally timed view's timestamp: a number read off each event (Esper requires a numeric expression that is
/// not a constant) or a date (its epoch milliseconds, as the contract's dates are; Esper's `java.util.Date` is not a
/// number, and there one writes `date.getTime()`).
fn timestamp(planner: &mut ExprPlanner<'_>, view: &View, stamp: &Expr) -> Result<PlanExpr, CepError> {
    let stamps = |t: &DataType| is_numeric(t) || *t == DataType::Date;
    let what = format!("`{}:{}`'s timestamp", view.namespace, view.name);
    let (timestamp, _) = planner.expect(stamp, &what, stamps, "a number or a date")?;
    let mut reads_event = false;
    timestamp.visit(&mut |e| reads_event |= matches!(e, PlanExpr::Column { .. } | PlanExpr::Row(_)));
    if !reads_event {
        let message = format!(
            "`{}:{}`'s timestamp must read the event, such as a property holding milliseconds",
            view.namespace, view.name
        );
        return Err(planner.ctx.invalid(stamp.span, message));
    }
    Ok(timestamp)
}

/// `win:time_length_batch(period, count)`: a positive period and a positive whole number of events. Esper's third
/// argument, its control keywords (`FORCE_UPDATE`, `START_EAGER`), is refused by name.
fn time_length_batch(ctx: &Ctx<'_>, view: &View) -> Result<WindowSpec, CepError> {
    match view.args.as_slice() {
        [period, count] => {
            Ok(WindowSpec::TimeLengthBatch { millis: period_of(ctx, period)?, count: count_of(ctx, count)? })
        }
        [_, _, keywords, ..] => {
            Err(ctx.unsupported(arg_span(keywords), "`win:time_length_batch` with control keywords"))
        }
        _ => {
            let message = "`win:time_length_batch` takes two arguments: a time period such as `10 sec` and a number of \
                           events";
            Err(ctx.invalid(view.span, message))
        }
    }
}

/// `ext:sort(n, criteria)`: a positive whole number of events, then one or more expressions of the event to sort by
/// ([`criteria`]).
fn sorted(planner: &mut ExprPlanner<'_>, view: &View) -> Result<WindowSpec, CepError> {
    let Some((size, written)) = view.args.split_first().filter(|(_, criteria)| !criteria.is_empty()) else {
        let message = "`ext:sort` takes a number of events and then one or more expressions to sort by, such as \
                       `ext:sort(10, price desc)`";
        return Err(planner.ctx.invalid(view.span, message));
    };
    let count = count_of(planner.ctx, size)?;
    Ok(WindowSpec::Sorted { unique: Vec::new(), count, criteria: criteria(planner, written)? })
}

/// `ext:rank(unique, n, criteria)`: one or more key expressions, the first whole number written as one (the number of
/// events, positive), then one or more expressions to sort by ([`criteria`]).
fn ranked(planner: &mut ExprPlanner<'_>, view: &View) -> Result<WindowSpec, CepError> {
    let is_size = |arg: &ViewArg| matches!(arg, ViewArg::Expr(e) if whole_number(e).is_some());
    let split = view.args.iter().position(is_size).filter(|at| *at > 0 && at + 1 < view.args.len());
    let Some(at) = split else {
        let message = "`ext:rank` takes one or more unique keys, a number of events and then one or more expressions \
                       to sort by, such as `ext:rank(id, 10, price desc)`";
        return Err(planner.ctx.invalid(view.span, message));
    };
    let written_keys = View { args: view.args[..at].to_vec(), ..view.clone() };
    let (unique, count) = (keys(planner, &written_keys)?, count_of(planner.ctx, &view.args[at])?);
    Ok(WindowSpec::Sorted { unique, count, criteria: criteria(planner, &view.args[at + 1..])? })
}

/// Sort criteria: expressions of the event, each with `asc` (the default) or `desc`.
fn criteria(planner: &mut ExprPlanner<'_>, written: &[ViewArg]) -> Result<Vec<Criterion>, CepError> {
    let mut criteria = Vec::with_capacity(written.len());
    for arg in written {
        let (expr, descending) = match arg {
            ViewArg::Expr(e) => (e, false),
            ViewArg::Ordered(item) => (&item.expr, item.descending),
            ViewArg::Time(t) => return Err(planner.ctx.invalid(t.span, "a sort criterion cannot be a time period")),
        };
        criteria.push((planner.plan(expr)?.0, descending));
    }
    Ok(criteria)
}

fn no_arguments(ctx: &Ctx<'_>, view: &View) -> Result<(), CepError> {
    if view.args.is_empty() {
        return Ok(());
    }
    Err(ctx.invalid(view.span, format!("`{}:{}` takes no arguments", view.namespace, view.name)))
}

fn single_arg<'v>(ctx: &Ctx<'_>, view: &'v View, what: &str) -> Result<&'v ViewArg, CepError> {
    match view.args.as_slice() {
        [arg] => Ok(arg),
        _ => Err(ctx.invalid(view.span, format!("`{}:{}` takes one argument: {what}", view.namespace, view.name))),
    }
}

/// A window period in milliseconds; a bare number means seconds, as in Esper.
fn period(ctx: &Ctx<'_>, view: &View) -> Result<u64, CepError> {
    period_of(ctx, single_arg(ctx, view, "a time period such as `10 sec`")?)
}

fn period_of(ctx: &Ctx<'_>, arg: &ViewArg) -> Result<u64, CepError> {
    match arg {
        ViewArg::Time(t) => positive_millis(ctx, t),
        ViewArg::Expr(e) => match constant(e) {
            Some(seconds) if seconds > 0.0 => Ok((seconds * 1000.0).round() as u64),
            _ => Err(ctx.invalid(e.span, "a window needs a positive time period such as `10 sec`")),
        },
        ViewArg::Ordered(item) => Err(ctx.invalid(item.expr.span, "a time period cannot be sorted `asc` or `desc`")),
    }
}

/// A time period that must be longer than zero, in whole milliseconds.
pub(super) fn positive_millis(ctx: &Ctx<'_>, t: &TimePeriod) -> Result<u64, CepError> {
    let millis = t.millis();
    if millis >= 1.0 && millis.is_finite() && millis < u64::MAX as f64 {
        return Ok(millis.round() as u64);
    }
    Err(ctx.invalid(t.span, "a time period must be at least 1 millisecond"))
}

fn length(ctx: &Ctx<'_>, view: &View) -> Result<u64, CepError> {
    count_of(ctx, single_arg(ctx, view, "a number of events")?)
}

fn count_of(ctx: &Ctx<'_>, arg: &ViewArg) -> Result<u64, CepError> {
    match arg {
        ViewArg::Expr(Expr { kind: ExprKind::Literal(Literal::Int(n) | Literal::Long(n)), .. }) if *n > 0 => {
            Ok(*n as u64)
        }
        other => Err(ctx.invalid(arg_span(other), "a length window needs a positive whole number of events")),
    }
}

fn arg_span(arg: &ViewArg) -> Span {
    match arg {
        ViewArg::Time(t) => t.span,
        ViewArg::Expr(e) => e.span,
        ViewArg::Ordered(item) => item.expr.span,
    }
}

fn keys(planner: &mut ExprPlanner<'_>, view: &View) -> Result<Vec<PlanExpr>, CepError> {
    if view.args.is_empty() {
        let message = format!("`{}:{}` needs at least one key", view.namespace, view.name);
        return Err(planner.ctx.invalid(view.span, message));
    }
    let mut keys = Vec::with_capacity(view.args.len());
    for arg in &view.args {
        match arg {
            ViewArg::Expr(e) => keys.push(planner.plan(e)?.0),
            ViewArg::Time(t) => {
                return Err(planner.ctx.invalid(t.span, "a key must be a property, not a time period"));
            }
            ViewArg::Ordered(item) => {
                return Err(planner
                    .ctx
                    .invalid(item.expr.span, "a key is not sorted: `asc` and `desc` are for sort criteria"));
            }
        }
    }
    Ok(keys)
}

fn constant(e: &Expr) -> Option<f64> {
    match &e.kind {
        ExprKind::Literal(Literal::Int(i) | Literal::Long(i)) => Some(*i as f64),
        ExprKind::Literal(Literal::Float(x)) => Some(*x),
        _ => None,
    }
}

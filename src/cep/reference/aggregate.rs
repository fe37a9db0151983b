//! Aggregate functions over a group's rows, recomputed from scratch each time they are read: `avg`, `count`, `sum`,
//! `min`, `max`, `stddev` (sample), `median` and `avedev` (the mean absolute deviation), each ignoring nulls and null
//! over no values, as in Esper; and `first`, `last` and `nth`, the argument as one row gives it, null too. The rows
//! come in the order they entered the group (for a stream without a data window, all it ever had). The ever forms
//! (`firstever`, `lastever`, `minever`, `maxever`, `countever`) read every row the group ever had instead, those that
//! left the window too, `leaving()` whether it has more of them than the window, and `rate` the rows in the window per
//! second between the timestamps of the row that left last and of the newest. A row is one event seen under its
//! stream's label, or a set of labelled rows: a join's event with its looked-up row, a pattern's match.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::join::GroupRows;
use crate::cep::plan::{AggregateCall, AggregateFunction, AggregationKind, DataType, PlanExpr, QueryPlan, StreamInput};
use crate::cep::runtime::eval::{self, Scope, eval, holds, project, rate_point};
use crate::cep::runtime::{Row, Val, order};

/// One row of a join or one match of a pattern: rows by label.
pub type Bound<'a> = [(&'a str, &'a Row)];

/// The value of every aggregate over `rows`, each row seen under `label`, and of the ever forms over `history`:
/// every row the group had, those that left the window too.
pub fn compute(calls: &[AggregateCall], label: &str, rows: &[&Row], history: &[&Row], vars: &Row) -> Vec<Val> {
    let (bound, ever) = (bind(label, rows), bind(label, history));
    let sets: Vec<&Bound<'_>> = bound.iter().map(|b| &b[..]).collect();
    let history: Vec<&Bound<'_>> = ever.iter().map(|b| &b[..]).collect();
    calls.iter().map(|call| one(call, &sets, &history, vars)).collect()
}

/// Every row that counted in a group, for the ever forms, if `plan` reads them over `input`'s data window (without
/// one, the group's rows are all it ever had already).
pub fn history(plan: &QueryPlan, input: &StreamInput) -> Option<Vec<(String, Row)>> {
    let calls = plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
    (input.window.is_some() && calls.iter().any(|call| call.function.is_ever())).then(Vec::new)
}

/// The rows of `group` in `history`, if there is one; else `rows`.
pub fn of_group<'r>(history: Option<&'r [(String, Row)]>, group: &str, rows: &[&'r Row]) -> Vec<&'r Row> {
    match history {
        Some(history) => history.iter().filter(|(g, _)| g == group).map(|(_, row)| row).collect(),
        None => rows.to_vec(),
    }
}

/// Each of `rows` seen under `label`.
fn bind<'r>(label: &'r str, rows: &[&'r Row]) -> Vec<[(&'r str, &'r Row); 1]> {
    rows.iter().map(|row| [(label, *row)]).collect()
}

/// The value of every aggregate over `rows`, each a set of labelled rows, which no row leaves: the ever forms are
/// read over them too.
pub fn over(calls: &[AggregateCall], rows: &[&Bound<'_>], vars: &Row) -> Vec<Val> {
    calls.iter().map(|call| one(call, rows, rows, vars)).collect()
}

/// The text of the group of `row`: its `GROUP BY` values' keys, joined.
pub fn group_of(plan: &QueryPlan, row: &Bound<'_>, vars: &Row) -> String {
    let exprs = plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
    let scope = Scope::new(row, vars, None);
    exprs.iter().map(|e| eval(e, &scope).key()).collect::<Vec<_>>().join("\u{1f}")
}

/// The row `plan` makes of `row` with `aggregates`, with its `ORDER BY` keys, if it passes HAVING.
pub fn having_row(
    plan: &QueryPlan,
    row: &Bound<'_>,
    aggregates: &[Val],
    (vars, now): (&Row, i64),
) -> Option<(Vec<Val>, Row)> {
    let having = plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
    let scope = Scope { rows: row, aggregates, vars, pinned: &[], now: Some(now) };
    holds(having, &scope).then(|| (order::keys(&plan.order_by, &scope), project(&plan.projection, &scope)))
}

/// The rows an aggregating `plan` makes of `rows` that arrive together, over aggregates that start afresh with them
/// (Esper's unidirectional join clears its aggregation at every trigger): fully aggregated, one row per group in order
/// of first sight, projected from the group's last row; with ungrouped columns, one row per row, each with its
/// group's aggregates over all of `rows`. Every row goes through HAVING; they come in `ORDER BY` order. `now` is the
/// engine's time.
pub fn fresh(plan: &QueryPlan, rows: &[&Bound<'_>], vars: &Row, now: i64) -> Vec<Row> {
    order::ordered(fresh_keyed(plan, rows, vars, now), &plan.order_by)
}

/// The rows [`fresh`] makes, each with its `ORDER BY` keys, in the order made.
pub fn fresh_keyed(plan: &QueryPlan, rows: &[&Bound<'_>], vars: &Row, now: i64) -> Vec<(Vec<Val>, Row)> {
    let Some(aggregation) = &plan.aggregation else {
        return Vec::new();
    };
    let Grouped { groups, of_row, .. } = Grouped::new(plan, rows, vars);
    let aggregates: Vec<Vec<Val>> = groups.iter().map(|members| over(&aggregation.aggregates, members, vars)).collect();
    match aggregation.kind {
        AggregationKind::FullyAggregated => (groups.iter().zip(&aggregates))
            .filter_map(|(members, values)| members.last().and_then(|last| having_row(plan, last, values, (vars, now))))
            .collect(),
        AggregationKind::WithUngroupedColumns(_) => (rows.iter().zip(&of_row))
            .filter_map(|(row, at)| having_row(plan, row, &aggregates[*at], (vars, now)))
            .collect(),
    }
}

/// What [`fresh`] would make of `rows`, by group, for `OUTPUT LAST` on a join with `GROUP BY` (`join::last`): fully
/// aggregated, each group's row with the aggregates over its rows and with empty ones, both projected from its last
/// row; with ungrouped columns, each row's with its group's aggregates. A row failing `HAVING` is `None`; under
/// `ORDER BY` each row carries its keys hidden.
pub fn fresh_groups(plan: &QueryPlan, rows: &[&Bound<'_>], vars: &Row, now: i64) -> Vec<GroupRows> {
    let Some(aggregation) = &plan.aggregation else {
        return Vec::new();
    };
    let Grouped { keys, groups, of_row } = Grouped::new(plan, rows, vars);
    let aggregates: Vec<Vec<Val>> = groups.iter().map(|members| over(&aggregation.aggregates, members, vars)).collect();
    let made = |row: &Bound<'_>, values: &[Val]| {
        having_row(plan, row, values, (vars, now)).map(|(keys, made)| match plan.order_by.is_empty() {
            true => made,
            false => order::with_keys(made, keys),
        })
    };
    match aggregation.kind {
        AggregationKind::FullyAggregated => {
            let empty = over(&aggregation.aggregates, &[], vars);
            let last = groups.iter().map(|members| *members.last().expect("a group has a row"));
            (keys.into_iter().zip(last).zip(&aggregates))
                .map(|((group, last), values)| GroupRows {
                    group,
                    fresh: made(last, values),
                    empty: made(last, &empty),
                })
                .collect()
        }
        AggregationKind::WithUngroupedColumns(_) => (rows.iter().zip(of_row))
            .map(|(row, at)| GroupRows { group: keys[at].clone(), fresh: made(row, &aggregates[at]), empty: None })
            .collect(),
    }
}

/// Rows by group: each group's key and rows, groups in order of first sight, and each row's group. One pass, so a
/// trigger of many rows (a time window's, in the dataflow too) is not read once per row.
struct Grouped<'r, 'b> {
    keys: Vec<String>,
    groups: Vec<Vec<&'r Bound<'b>>>,
    of_row: Vec<usize>,
}

impl<'r, 'b> Grouped<'r, 'b> {
    fn new(plan: &QueryPlan, rows: &[&'r Bound<'b>], vars: &Row) -> Self {
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut grouped = Grouped { keys: Vec::new(), groups: Vec::new(), of_row: Vec::with_capacity(rows.len()) };
        for row in rows {
            let next = grouped.groups.len();
            let key = group_of(plan, row, vars);
            let at = *index.entry(key.clone()).or_insert(next);
            if at == next {
                grouped.keys.push(key);
                grouped.groups.push(Vec::new());
            }
            grouped.groups[at].push(row);
            grouped.of_row.push(at);
        }
        grouped
    }
}

fn one(call: &AggregateCall, rows: &[&Bound<'_>], history: &[&Bound<'_>], vars: &Row) -> Val {
    if call.function == AggregateFunction::Leaving {
        return Val::Bool(history.len() > rows.len());
    }
    if let (AggregateFunction::Rate, Some(arg)) = (call.function, &call.arg) {
        return rate(arg, rows, history, vars);
    }
    let rows = if call.function.is_ever() { history } else { rows };
    let Some(arg) = &call.arg else {
        return Val::Int(rows.len() as i64);
    };
    let end = match call.function {
        AggregateFunction::First(n) => Some(rows.get(n as usize)),
        AggregateFunction::Last(n) | AggregateFunction::Nth(n) => {
            Some(rows.len().checked_sub(n as usize + 1).and_then(|at| rows.get(at)))
        }
        AggregateFunction::FirstEver => Some(rows.first()),
        AggregateFunction::LastEver => Some(rows.last()),
        _ => None,
    };
    if let Some(row) = end {
        return row.map_or(Val::Null, |row| eval(arg, &Scope::new(row, vars, None)));
    }
    let values: Vec<Val> =
        rows.iter().map(|row| eval(arg, &Scope::new(row, vars, None))).filter(|v| !v.is_null()).collect();
    let values = if call.distinct { distinct(values) } else { values };
    match call.function {
        AggregateFunction::Count | AggregateFunction::CountEver => Val::Int(values.len() as i64),
        AggregateFunction::Sum => sum(&values, &call.ty),
        AggregateFunction::Avg => mean(&values).map_or(Val::Null, Val::Double),
        AggregateFunction::Min | AggregateFunction::MinEver => extreme(values, Ordering::Less),
        AggregateFunction::Max | AggregateFunction::MaxEver => extreme(values, Ordering::Greater),
        AggregateFunction::Stddev => stddev(&values).map_or(Val::Null, Val::Double),
        AggregateFunction::Median => median(&values).map_or(Val::Null, Val::Double),
        AggregateFunction::Avedev => avedev(&values).map_or(Val::Null, Val::Double),
        AggregateFunction::First(_)
        | AggregateFunction::Last(_)
        | AggregateFunction::FirstEver
        | AggregateFunction::LastEver
        | AggregateFunction::Nth(_)
        | AggregateFunction::Leaving
        | AggregateFunction::Rate => unreachable!("read off one row above, or off the rows' numbers"),
    }
}

/// `rate(timestamp[, value])` of the group whose window holds `rows` and which had `history`: the rows that left are
/// the first of `history`, as the planner takes `rate` only over a window whose rows leave in the order they came.
fn rate(arg: &PlanExpr, rows: &[&Bound<'_>], history: &[&Bound<'_>], vars: &Row) -> Val {
    let point = |row: &&Bound<'_>| rate_point(&eval(arg, &Scope::new(row, vars, None)));
    let left = &history[..history.len() - rows.len()];
    let Some((oldest, _)) = left.iter().rev().find_map(point) else {
        return Val::Null;
    };
    let (latest, _) = history.iter().rev().find_map(point).expect("the row that left has a point");
    let amount = rows.iter().filter_map(point).map(|(_, amount)| amount).sum();
    eval::rate(amount, latest, oldest)
}

/// Each value once, in the order first seen. Two values are one when `min` and `max` do not order them
/// ([`Val::extreme_order`]), as Java's `equals` finds two doubles one: every NaN the same, `-0.0` not `0.0`.
fn distinct(values: Vec<Val>) -> Vec<Val> {
    let mut once: Vec<Val> = Vec::with_capacity(values.len());
    for v in values {
        if !once.iter().any(|seen| seen.extreme_order(&v) == Ordering::Equal) {
            once.push(v);
        }
    }
    once
}

fn sum(values: &[Val], ty: &DataType) -> Val {
    if values.is_empty() {
        return Val::Null;
    }
    // Esper sums `int`s and `long`s as a `long`, wrapping on overflow.
    if matches!(ty, DataType::Int | DataType::Long) {
        return Val::Int(values.iter().filter_map(Val::as_long).fold(0, i64::wrapping_add));
    }
    Val::Double(values.iter().filter_map(Val::as_f64).sum())
}

fn mean(values: &[Val]) -> Option<f64> {
    let numbers: Vec<f64> = values.iter().filter_map(Val::as_f64).collect();
    (!numbers.is_empty()).then(|| numbers.iter().sum::<f64>() / numbers.len() as f64)
}

fn stddev(values: &[Val]) -> Option<f64> {
    let numbers: Vec<f64> = values.iter().filter_map(Val::as_f64).collect();
    let n = numbers.len() as f64;
    if numbers.len() < 2 {
        return None;
    }
    let m = numbers.iter().sum::<f64>() / n;
    Some((numbers.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt())
}

/// The middle number; of an even count, the mean of the two middle ones. Esper's `median` leaves NaN out (its
/// `SortedDoubleVector`), so only NaNs make null.
fn median(values: &[Val]) -> Option<f64> {
    let mut numbers: Vec<f64> = values.iter().filter_map(Val::as_f64).filter(|x| !x.is_nan()).collect();
    numbers.sort_by(f64::total_cmp);
    let middle = numbers.len() / 2;
    match numbers.len() {
        0 => None,
        n if n.is_multiple_of(2) => Some((numbers[middle - 1] + numbers[middle]) / 2.0),
        _ => Some(numbers[middle]),
    }
}

/// The mean of the numbers' distances from their mean, as Esper's `avedev`.
fn avedev(values: &[Val]) -> Option<f64> {
    let m = mean(values)?;
    let numbers: Vec<f64> = values.iter().filter_map(Val::as_f64).collect();
    Some(numbers.iter().map(|x| (x - m).abs()).sum::<f64>() / numbers.len() as f64)
}

fn extreme(values: Vec<Val>, wanted: Ordering) -> Val {
    values.into_iter().reduce(|best, v| if v.extreme_order(&best) == wanted { v } else { best }).unwrap_or(Val::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::plan::PlanExpr;

    #[test]
    fn longs_sum_exactly_and_wrap_as_esper_s_do() {
        let arg = Some(PlanExpr::Column { source: "r".into(), name: "n".into(), ty: DataType::Long });
        let calls = [AggregateCall { function: AggregateFunction::Sum, arg, ty: DataType::Long, distinct: false }];
        let rows: Vec<Row> = [(1 << 53) + 1, 2, i64::MAX].iter().map(|n| Row::from([("n", Val::Int(*n))])).collect();
        let sum = |rows: &[Row]| {
            let rows: Vec<&Row> = rows.iter().collect();
            compute(&calls, "r", &rows, &rows, &Row::new())
        };
        assert_eq!(sum(&rows[..2]), [Val::Int((1 << 53) + 3)], "as a double, 2^53 + 1 is 2^53");
        assert_eq!(sum(&rows), [Val::Int(((1i64 << 53) + 3).wrapping_add(i64::MAX))]);
    }
}

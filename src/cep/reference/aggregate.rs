//! Aggregate functions over a group's rows, recomputed from scratch each time they are read: `avg`, `count`,
//! `sum`, `min`, `max` and `stddev` (sample), each ignoring nulls and null over no values, as in Esper.

use std::cmp::Ordering;

use crate::cep::plan::{AggregateCall, AggregateFunction, DataType};
use crate::cep::runtime::eval::{Scope, eval};
use crate::cep::runtime::{Row, Val};

/// The value of every aggregate over `rows`, each row seen under `label`.
pub fn compute(calls: &[AggregateCall], label: &str, rows: &[&Row], vars: &Row) -> Vec<Val> {
    calls.iter().map(|call| one(call, label, rows, vars)).collect()
}

fn one(call: &AggregateCall, label: &str, rows: &[&Row], vars: &Row) -> Val {
    let Some(arg) = &call.arg else {
        return Val::Int(rows.len() as i64);
    };
    let values: Vec<Val> =
        rows.iter().map(|row| eval(arg, &Scope::new(&[(label, row)], vars))).filter(|v| !v.is_null()).collect();
    match call.function {
        AggregateFunction::Count => Val::Int(values.len() as i64),
        AggregateFunction::Sum => sum(&values, &call.ty),
        AggregateFunction::Avg => mean(&values).map_or(Val::Null, Val::Double),
        AggregateFunction::Min => extreme(values, Ordering::Less),
        AggregateFunction::Max => extreme(values, Ordering::Greater),
        AggregateFunction::Stddev => stddev(&values).map_or(Val::Null, Val::Double),
    }
}

fn sum(values: &[Val], ty: &DataType) -> Val {
    if values.is_empty() {
        return Val::Null;
    }
    if matches!(ty, DataType::Int | DataType::Long) {
        return Val::Int(values.iter().filter_map(|v| v.as_f64()).map(|x| x as i64).sum());
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

fn extreme(values: Vec<Val>, wanted: Ordering) -> Val {
    values.into_iter().reduce(|best, v| if v.compare(&best) == Some(wanted) { v } else { best }).unwrap_or(Val::Null)
}

//! `ORDER BY`: the rows one output gives together (a batch window's release, an `OUTPUT` tick) sorted by their keys,
//! each ascending or descending, as Esper's order-by processor sorts them: a null key is equal to another null and
//! smaller than any other value (so first ascending, last descending); numbers compare by value across integers and
//! doubles, texts, dates and booleans among themselves; values that do not compare (a text and a number) by their text
//! keys, so that the order is total. The sort is stable: rows with equal keys keep the order they were made in.
//! A row that an output policy holds until its tick (a pattern's or a join's) carries its keys as hidden columns
//! ([`with_keys`]), since the tick sorts rows made at different times; [`release`] sorts by them and drops them.

use std::cmp::Ordering;

use super::eval::{Scope, eval};
use super::{Row, Val};
use crate::cep::plan::PlanExpr;

/// A row with its `ORDER BY` keys, as [`ordered`] takes it.
pub type Keyed = (Vec<Val>, Row);

/// The keys of `order_by` for the row made over `scope`.
pub fn keys(order_by: &[(PlanExpr, bool)], scope: &Scope<'_>) -> Vec<Val> {
    order_by.iter().map(|(e, _)| eval(e, scope)).collect()
}

/// `rows`, each with its keys, in the order of `order_by`.
pub fn ordered(mut rows: Vec<Keyed>, order_by: &[(PlanExpr, bool)]) -> Vec<Row> {
    if !order_by.is_empty() {
        let descending: Vec<bool> = order_by.iter().map(|(_, d)| *d).collect();
        sort(&mut rows, &descending);
    }
    rows.into_iter().map(|(_, row)| row).collect()
}

/// The name of a row's `i`-th hidden key: a NUL first, which no NGSI attribute name holds.
fn hidden(i: usize) -> String {
    format!("\0order{i}")
}

/// `row` carrying `keys` as hidden columns, until [`release`] sorts it among the rows released with it.
pub fn with_keys(mut row: Row, keys: Vec<Val>) -> Row {
    let props = row.edit(keys.len());
    for (i, key) in keys.into_iter().enumerate() {
        props.insert(hidden(i), key);
    }
    row
}

/// `rows` made by [`with_keys`], in the order of `order_by`, without their hidden keys.
pub fn release(rows: Vec<Row>, order_by: &[(PlanExpr, bool)]) -> Vec<Row> {
    if order_by.is_empty() {
        return rows;
    }
    let keyed = rows.into_iter().map(|mut row| {
        let props = row.edit(0);
        let keys = (0..order_by.len()).map(|i| props.remove(&hidden(i)).unwrap_or_default()).collect();
        (keys, row)
    });
    ordered(keyed.collect(), order_by)
}

/// Sorts `rows` by their keys, the i-th key descending when `descending[i]`.
fn sort<T>(rows: &mut [(Vec<Val>, T)], descending: &[bool]) {
    rows.sort_by(|(a, _), (b, _)| compare(a, b, descending));
}

/// The order of two rows' keys.
pub fn compare(a: &[Val], b: &[Val], descending: &[bool]) -> Ordering {
    let keys = a.iter().zip(b).zip(descending);
    keys.map(|((x, y), desc)| if *desc { value(y, x) } else { value(x, y) })
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

fn value(x: &Val, y: &Val) -> Ordering {
    match (x.is_null(), y.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => x.compare(y).unwrap_or_else(|| x.key().cmp(&y.key())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_come_first_ascending_and_last_descending_and_ties_keep_their_order() {
        let mut rows = vec![
            (vec![Val::Int(2), Val::String("b".into())], 0),
            (vec![Val::Null, Val::String("a".into())], 1),
            (vec![Val::Double(1.5), Val::String("c".into())], 2),
            (vec![Val::Int(2), Val::String("a".into())], 3),
            (vec![Val::Int(2), Val::String("b".into())], 4),
        ];
        sort(&mut rows, &[false, true]);
        assert_eq!(rows.iter().map(|(_, i)| *i).collect::<Vec<_>>(), vec![1, 2, 0, 4, 3]);
        sort(&mut rows, &[true, false]);
        assert_eq!(rows.iter().map(|(_, i)| *i).collect::<Vec<_>>(), vec![3, 0, 4, 2, 1]);
    }

    #[test]
    fn values_that_do_not_compare_still_order_totally() {
        let (number, text) = ([Val::Int(1)], [Val::String("x".into())]);
        assert_eq!(compare(&number, &text, &[false]), number[0].key().cmp(&text[0].key()));
        assert_eq!(compare(&text, &number, &[false]), text[0].key().cmp(&number[0].key()));
    }
}

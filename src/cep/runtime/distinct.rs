//! `SELECT DISTINCT`: of the rows a statement makes at once, the first of each set of equal rows goes on, in the order
//! they came, as Esper's `EventBeanUtility.getDistinctByProp` keeps them (a linked set of the rows' property values,
//! which keeps the first it is given). Both runtimes compare rows by [`key`]; what "at once" means is each runtime's:
//! the rows of one event, timer or output tick.

use std::collections::HashSet;

use super::{Name, Row};

/// What two rows share exactly when they are equal: the same properties, with values equal as Java's `equals` finds
/// them, which [`Val::key`](super::Val::key) writes (a `NaN` equals a `NaN`, `0.0` does not equal `-0.0`).
pub fn key(row: &Row) -> Vec<(Name, String)> {
    row.iter().map(|(name, value)| (name.clone(), value.key())).collect()
}

/// The first of each set of equal rows of `rows`, in their order.
pub fn first_of_each(rows: Vec<Row>) -> Vec<Row> {
    let mut seen = HashSet::new();
    rows.into_iter().filter(|row| seen.insert(key(row))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::runtime::Val;

    fn row(pairs: &[(&str, Val)]) -> Row {
        pairs.iter().map(|(name, value)| (*name, value.clone())).collect()
    }

    #[test]
    fn keeps_the_first_of_each_equal_set_in_order() {
        let a = row(&[("s", Val::String("E1".into())), ("n", Val::Int(1))]);
        let b = row(&[("s", Val::String("E2".into())), ("n", Val::Int(1))]);
        let rows = vec![a.clone(), b.clone(), a.clone(), b.clone(), a.clone()];
        assert_eq!(first_of_each(rows), vec![a, b]);
    }

    #[test]
    fn compares_values_as_java_equals_does() {
        let of = |x: f64| row(&[("x", Val::Double(x))]);
        assert_eq!(first_of_each(vec![of(f64::NAN), of(f64::NAN)]).len(), 1, "NaN equals NaN");
        assert_eq!(first_of_each(vec![of(0.0), of(-0.0)]).len(), 2, "0.0 is not -0.0");
        let text = |s: &str| row(&[("x", Val::String(s.into()))]);
        assert_eq!(first_of_each(vec![text("1"), row(&[("x", Val::Int(1))])]).len(), 2, "a text is not a number");
        assert_eq!(first_of_each(vec![row(&[("x", Val::Null)]), row(&[("x", Val::Null)])]).len(), 1);
    }

    #[test]
    fn rows_with_other_properties_differ() {
        let one = row(&[("a", Val::Int(1))]);
        let other = row(&[("b", Val::Int(1))]);
        assert_eq!(first_of_each(vec![one, other]).len(), 2);
    }
}

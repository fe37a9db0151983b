//! `OUTPUT LAST EVERY` on an aggregating join with `GROUP BY`, as Esper 5 (Cepheus's 5.3.0) runs it: its output view
//! keeps the interval's triggers and hands them to the result set processor at the tick, which clears the aggregates
//! at each trigger of a unidirectional join before applying it (`processOutputLimitedJoin`).
//!
//! Fully aggregated (Esper's `ResultSetProcessorRowPerGroup`), the tick releases one row for each group a trigger of
//! the interval touched, in order of first touch, projected from the group's last joined row and read with the
//! aggregates as they stand after the last trigger: a group of the last trigger with that trigger's, any other with
//! empty ones (a count of 0, other aggregates null), since the last trigger's clear emptied it; `HAVING` is read then.
//! Both rows are made at the trigger ([`GroupRows`]), so the tick only picks. With columns neither grouped nor
//! aggregated (Esper's `ResultSetProcessorAggregateGrouped`), each joined row that passes `HAVING` is made at its
//! trigger with the trigger's aggregates and replaces its group's row, which keeps its place; a row that fails leaves
//! the group's earlier one. (Esper 6 and later, whose output-limit optimisation is on by default, run `LAST` without
//! `ORDER BY` on helpers that never clear a unidirectional join's aggregates; Cepheus's Esper does not.)

use std::collections::HashMap;

use crate::cep::runtime::Row;

/// What one trigger made of one group (one joined row, with ungrouped columns), each row with its `ORDER BY` keys
/// hidden in it when the statement sorts (`runtime::order::with_keys`).
#[derive(Debug)]
pub struct GroupRows {
    pub group: String,
    /// The row with the trigger's aggregates, if it passes `HAVING`.
    pub fresh: Option<Row>,
    /// Fully aggregated, the row with empty aggregates, if it passes `HAVING`: the group's row at a tick after a
    /// later trigger of the interval that did not touch it.
    pub empty: Option<Row>,
}

/// The groups `OUTPUT LAST` holds until its tick.
#[derive(Debug, Default)]
pub struct LastByGroup {
    /// Fully aggregated: a group's row depends on whether the last trigger touched it.
    by_last_trigger: bool,
    /// Groups in order of first touch in the interval.
    order: Vec<String>,
    kept: HashMap<String, Kept>,
    /// The number of triggers taken in the interval.
    triggers: u64,
}

#[derive(Debug)]
struct Kept {
    fresh: Option<Row>,
    empty: Option<Row>,
    trigger: u64,
}

impl LastByGroup {
    /// For a fully aggregated statement (`by_last_trigger`) or one with ungrouped columns.
    pub fn new(by_last_trigger: bool) -> Self {
        LastByGroup { by_last_trigger, ..LastByGroup::default() }
    }

    /// Takes one trigger's groups.
    pub fn take(&mut self, groups: Vec<GroupRows>) {
        self.triggers += 1;
        for GroupRows { group, fresh, empty } in groups {
            if !self.by_last_trigger && fresh.is_none() {
                continue;
            }
            let trigger = self.triggers;
            match self.kept.get_mut(&group) {
                Some(kept) => *kept = Kept { fresh, empty, trigger },
                None => {
                    self.order.push(group.clone());
                    self.kept.insert(group, Kept { fresh, empty, trigger });
                }
            }
        }
    }

    /// The rows the tick releases, in order of first touch; the interval starts afresh.
    pub fn release(&mut self) -> Vec<Row> {
        let (last, by_last_trigger) = (self.triggers, self.by_last_trigger);
        let mut kept = std::mem::take(&mut self.kept);
        self.triggers = 0;
        let pick = |k: Kept| if k.trigger == last || !by_last_trigger { k.fresh } else { k.empty };
        std::mem::take(&mut self.order).into_iter().filter_map(|g| kept.remove(&g).and_then(pick)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::runtime::Val;

    fn row(n: i64) -> Row {
        Row::from_iter([("n".to_string(), Val::Int(n))])
    }

    fn rows(group: &str, fresh: Option<i64>, empty: Option<i64>) -> GroupRows {
        GroupRows { group: group.into(), fresh: fresh.map(row), empty: empty.map(row) }
    }

    /// Fully aggregated: the last trigger's groups with their rows, the others touched in the interval empty, in
    /// order of first touch; a group of the last trigger whose row fails `HAVING` gives nothing.
    #[test]
    fn the_last_trigger_decides_which_row_a_group_gives() {
        let mut last = LastByGroup::new(true);
        last.take(vec![rows("a", Some(1), Some(0)), rows("b", Some(2), Some(0))]);
        last.take(vec![rows("c", None, Some(0)), rows("a", Some(3), Some(0))]);
        last.take(vec![rows("c", None, Some(0)), rows("d", Some(4), None)]);
        assert_eq!(last.release(), [row(0), row(0), row(4)]);
        assert_eq!(last.release(), Vec::<Row>::new(), "an interval without triggers releases nothing");
        last.take(vec![rows("b", Some(5), Some(0))]);
        assert_eq!(last.release(), [row(5)]);
    }

    /// With ungrouped columns: each group's last row that passed `HAVING`, in order of first such row.
    #[test]
    fn a_row_failing_having_leaves_its_groups_earlier_row() {
        let mut last = LastByGroup::new(false);
        last.take(vec![rows("a", None, None), rows("b", Some(1), None), rows("a", Some(2), None)]);
        last.take(vec![rows("b", None, None), rows("a", Some(3), None)]);
        assert_eq!(last.release(), [row(1), row(3)]);
    }
}

//! `OUTPUT FIRST EVERY p` of a query over one stream: which of its rows go out as they come. Without `GROUP BY` it is
//! the statement's first row in each interval of its output clock (Esper's `OutputProcessViewConditionFirst`: a flag
//! the clock's tick clears). With `GROUP BY` and aggregates each group has its own: a row of the group goes out when
//! none of the group did in the last `p` (Esper's `OutputConditionPolledTime`, one per group; the clock's ticks do
//! nothing to it), and the group forgets when its last row that counts leaves the view, as Esper drops the condition
//! with the group's aggregation row. The reference evaluator and the dataflow keep one each, by their own group keys.

use std::collections::HashMap;
use std::hash::Hash;

use crate::cep::plan::{OutputKind, QueryPlan};

#[derive(Debug)]
pub enum First<K> {
    /// Whether the interval's first row went out.
    Interval { out: bool },
    /// When each group's last row went out.
    PerGroup { every: i64, last: HashMap<K, i64> },
}

impl<K: Hash + Eq + Clone> First<K> {
    /// The gate of `q`, when it is `OUTPUT FIRST`.
    pub fn of(q: &QueryPlan) -> Option<Self> {
        let output = q.output.as_ref().filter(|o| o.kind == OutputKind::First)?;
        let grouped = q.aggregation.as_ref().is_some_and(|a| !a.group_by.is_empty());
        Some(match grouped {
            false => First::Interval { out: false },
            true => First::PerGroup { every: output.every_millis as i64, last: HashMap::new() },
        })
    }

    /// Whether a row of `group` goes out at `now`; if so, it is the one that did.
    pub fn passes(&mut self, group: &K, now: i64) -> bool {
        match self {
            First::Interval { out } => !std::mem::replace(out, true),
            First::PerGroup { every, last } => match last.get_mut(group) {
                Some(at) if now - *at < *every => false,
                Some(at) => {
                    *at = now;
                    true
                }
                None => {
                    last.insert(group.clone(), now);
                    true
                }
            },
        }
    }

    /// An update of a count of events went by (`runtime::counted`): whether or not it let a row out, the count's
    /// first went by, for the statement's flag.
    pub fn close(&mut self) {
        if let First::Interval { out } = self {
            *out = true;
        }
    }

    /// The output clock ticked: a new interval begins, for the statement's flag.
    pub fn tick(&mut self) {
        if let First::Interval { out } = self {
            *out = false;
        }
    }

    /// The last row of `group` that counts left the view.
    pub fn forget(&mut self, group: &K) {
        if let First::PerGroup { last, .. } = self {
            last.remove(group);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_passes_again_a_full_period_after_its_last_row_or_once_forgotten() {
        let mut gate: First<&str> = First::PerGroup { every: 1000, last: HashMap::new() };
        assert!(gate.passes(&"IBM", 200));
        assert!(gate.passes(&"MSFT", 800), "groups are apart");
        assert!(!gate.passes(&"IBM", 1199));
        assert!(gate.passes(&"IBM", 1200), "a full period later");
        assert!(!gate.passes(&"IBM", 1500), "counted from the last row that went out");
        gate.forget(&"IBM");
        assert!(gate.passes(&"IBM", 1500));
        gate.tick();
        assert!(!gate.passes(&"MSFT", 1000), "a group's clock is its own");
    }

    #[test]
    fn without_groups_one_row_passes_per_interval_whatever_its_group() {
        let mut gate: First<&str> = First::Interval { out: false };
        assert!(gate.passes(&"", 0));
        assert!(!gate.passes(&"", 5000), "until the clock ticks");
        gate.forget(&"");
        assert!(!gate.passes(&"", 5000), "an emptied view keeps the interval's flag");
        gate.tick();
        assert!(gate.passes(&"", 5001));
    }
}

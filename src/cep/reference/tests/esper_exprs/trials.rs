//! The pattern trials of Esper's `TestFilterExpressions` (at `08fc7cb1`, `testPatternFunc` and
//! `testPatternFunc3Stream`): each trial a fresh `a -> b(filter)` (or `-> c`) statement and one `SupportBean` per tag.

use super::{Case, SB};

/// Esper's pattern trials (`tryPattern`, `tryPattern3Stream` of `TestFilterExpressions`): each trial a fresh statement
/// `a=SupportBean -> b=SupportBean(...)` (or to `c`) and one `SupportBean` per tag, of each tag's `intBoxed` (`None`
/// for null) and `doubleBoxed`; whether the statement fired.
pub(super) struct Trials {
    pub test: &'static str,
    pub select: &'static str,
    pub tags: &'static [(&'static [Option<i64>], &'static [f64])],
    pub fired: &'static [bool],
}

impl Trials {
    pub(super) fn ready(&self) -> Case {
        let runs = self.fired.iter().enumerate().map(|(trial, fired)| {
            let last = self.tags.len() - 1;
            let events = self.tags.iter().enumerate().map(|(tag, (ints, doubles))| {
                let int = ints[trial].map(|n| format!("intBoxed={n}")).unwrap_or_default();
                let props = format!("{int},doubleBoxed={:?}", doubles[trial]);
                let expected = if tag == last && *fired { "+" } else { "-" };
                (SB, props, expected)
            });
            events.collect()
        });
        let statement = format!("INSERT INTO Out SELECT {}", self.select);
        Case { test: self.test, statement, columns: "theString string", typed: false, runs: runs.collect() }
    }
}

/// `testPatternFunc3Stream` and `testPatternFunc`, without their ranges (not in the subset), `is` and `is not` as
/// equality (refused by the parser) and static methods.
pub(super) const TRIALS: [Trials; 16] = [
    Trials {
        test: "TestFilterExpressions.testPatternFunc3Stream",
        select: "c.* FROM pattern [a=SupportBean -> b=SupportBean -> c=SupportBean(intBoxed=a.intBoxed, \
                 intBoxed=b.intBoxed and intBoxed != null)]",
        tags: &[
            (&[None, Some(2), Some(1), None, Some(8), Some(1), Some(2)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(4), Some(-2)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(5), None], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ],
        fired: &[false, false, false, false, false, false, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc3Stream",
        select: "c.* FROM pattern [a=SupportBean -> b=SupportBean -> c=SupportBean(intBoxed=a.intBoxed or \
                 intBoxed=b.intBoxed)]",
        tags: &[
            (&[None, Some(2), Some(1), None, Some(8), Some(1), Some(2)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(4), Some(-2)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(5), None], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ],
        fired: &[false, true, true, true, false, false, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc3Stream",
        select: "c.* FROM pattern [a=SupportBean -> b=SupportBean -> c=SupportBean(intBoxed=a.intBoxed, \
                 intBoxed=b.intBoxed)]",
        tags: &[
            (&[None, Some(2), Some(1), None, Some(8), Some(1), Some(2)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(4), Some(-2)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(5), None], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ],
        fired: &[false, false, true, false, false, false, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc3Stream",
        select: "c.* FROM pattern [a=SupportBean -> b=SupportBean -> c=SupportBean(intBoxed!=a.intBoxed, \
                 intBoxed!=b.intBoxed)]",
        tags: &[
            (&[None, Some(2), Some(1), None, Some(8), Some(1), Some(2)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(4), Some(-2)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(5), None], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ],
        fired: &[false, false, false, false, false, true, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc3Stream",
        select: "c.* FROM pattern [a=SupportBean -> b=SupportBean -> c=SupportBean(intBoxed!=a.intBoxed)]",
        tags: &[
            (&[Some(2), Some(8), None, Some(2), Some(1), None, Some(1)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[Some(-2), None, None, Some(3), Some(1), Some(8), Some(4)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[None, None, None, Some(3), Some(1), Some(8), Some(5)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ],
        fired: &[false, false, false, true, false, false, true],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc3Stream",
        select: "c.* FROM pattern [a=SupportBean -> b=SupportBean -> c=SupportBean(intBoxed=a.intBoxed, \
                 doubleBoxed=b.doubleBoxed)]",
        tags: &[
            (&[Some(2), Some(2), Some(1), Some(2), Some(1), Some(7), Some(1)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[Some(0), Some(0), Some(0), Some(0), Some(0), Some(0), Some(0)], &[1.0, 2.0, 0.0, 2.0, 0.0, 1.0, 0.0]),
            (&[Some(2), Some(2), Some(3), Some(2), Some(1), Some(7), Some(5)], &[1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0]),
        ],
        fired: &[true, false, false, true, false, true, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc3Stream",
        select: "c.* FROM pattern [a=SupportBean -> b=SupportBean -> c=SupportBean(intBoxed in (a.intBoxed, \
                 b.intBoxed))]",
        tags: &[
            (&[Some(2), Some(1), Some(1), None, Some(1), None, Some(1)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[Some(1), Some(2), Some(1), None, None, Some(2), Some(0)], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (&[Some(2), Some(2), Some(3), None, Some(1), None, None], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ],
        fired: &[true, true, false, false, true, false, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(intBoxed = a.intBoxed and doubleBoxed = \
                 a.doubleBoxed)]",
        tags: &[
            (&[None, Some(2), Some(1), None, Some(8), Some(1), Some(2)], &[2.0, 2.0, 2.0, 1.0, 5.0, 6.0, 7.0]),
            (&[None, Some(3), Some(1), Some(8), None, Some(1), Some(2)], &[2.0, 3.0, 2.0, 1.0, 5.0, 6.0, 8.0]),
        ],
        fired: &[false, false, true, false, false, true, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(a.doubleBoxed = doubleBoxed)]",
        tags: &[(&[Some(0), Some(0)], &[2.0, 2.0]), (&[Some(0), Some(0)], &[2.0, 3.0])],
        fired: &[true, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(a.doubleBoxed = b.doubleBoxed)]",
        tags: &[(&[Some(0), Some(0)], &[2.0, 2.0]), (&[Some(0), Some(0)], &[2.0, 3.0])],
        fired: &[true, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(a.doubleBoxed != doubleBoxed)]",
        tags: &[(&[Some(0), Some(0)], &[2.0, 2.0]), (&[Some(0), Some(0)], &[2.0, 3.0])],
        fired: &[false, true],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(a.doubleBoxed != b.doubleBoxed)]",
        tags: &[(&[Some(0), Some(0)], &[2.0, 2.0]), (&[Some(0), Some(0)], &[2.0, 3.0])],
        fired: &[false, true],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(doubleBoxed not in (a.doubleBoxed, a.intBoxed, 9))]",
        tags: &[
            (&[Some(1), Some(1), Some(1), Some(1), Some(1), Some(1)], &[10.0, 10.0, 10.0, 10.0, 10.0, 10.0]),
            (&[Some(0), Some(0), Some(0), Some(0), Some(0), Some(0)], &[0.0, 1.0, 2.0, 9.0, 10.0, 11.0]),
        ],
        fired: &[true, false, true, false, false, true],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(doubleBoxed in (a.doubleBoxed, a.intBoxed, 9))]",
        tags: &[
            (&[Some(1), Some(1), Some(1), Some(1), Some(1), Some(1)], &[10.0, 10.0, 10.0, 10.0, 10.0, 10.0]),
            (&[Some(0), Some(0), Some(0), Some(0), Some(0), Some(0)], &[0.0, 1.0, 2.0, 9.0, 10.0, 11.0]),
        ],
        fired: &[false, true, false, true, true, false],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(b.doubleBoxed in (doubleBoxed, a.intBoxed, 9))]",
        tags: &[
            (&[Some(1), Some(1), Some(1), Some(1), Some(1), Some(1)], &[10.0, 10.0, 10.0, 10.0, 10.0, 10.0]),
            (&[Some(0), Some(0), Some(0), Some(0), Some(0), Some(0)], &[0.0, 1.0, 2.0, 9.0, 10.0, 11.0]),
        ],
        fired: &[true, true, true, true, true, true],
    },
    Trials {
        test: "TestFilterExpressions.testPatternFunc",
        select: "b.* FROM pattern [a=SupportBean -> b=SupportBean(doubleBoxed not in (doubleBoxed, a.intBoxed, 9))]",
        tags: &[
            (&[Some(1), Some(1), Some(1), Some(1), Some(1), Some(1)], &[10.0, 10.0, 10.0, 10.0, 10.0, 10.0]),
            (&[Some(0), Some(0), Some(0), Some(0), Some(0), Some(0)], &[0.0, 1.0, 2.0, 9.0, 10.0, 11.0]),
        ],
        fired: &[false, false, false, false, false, false],
    },
];

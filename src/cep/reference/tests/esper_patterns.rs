//! Esper's own pattern regression cases (Esper 5's `TestEveryOperator`, `TestFollowedByOperator`, `TestAndOperator`,
//! `TestOrOperator`, `TestNotOperator`, `TestTimerWithinGuard` and `TestTimerIntervalObserver`, their `testOp`), run
//! over Esper's event set one (`EventCollectionFactory.getEventSetOne(0, 1000)`): twelve events of types `A` to `G`,
//! one a second, each with only its `id`. Esper's harness sets its clock to 0, creates the statements, then before each
//! event moves the clock to the event's time; a match is expected under the event whose step made it, whether the
//! event or the move of the clock to its time made it, and the clock stops at the last event. Cases Esper builds from
//! an object model, and those using `-[N]>`, are left out; those of `timer:interval(0)` are refused. Transcribed from
//! espertechinc/esper at `aaa35756` (`esper/src/test/java/com/espertech/esper/regression/pattern`). The cases of
//! `TestOperators` and `TestUseResultPattern`, the latter over Esper's event sets three and four, are in
//! [`super::esper_results`]; [`ESPER_PATTERNS`] lists them all with their sets.
//!
//! A match is written as its tags bound to their events' ids, in tag order (`b=B1 d=D1`); a match that binds no tag
//! is empty. Each expected match comes with how many times Esper's case expects it at that event.

use super::esper_results::{OPERATORS, SET_FOUR, SET_THREE, USE_RESULT_NUMERIC, USE_RESULT_OBJECT_ID};
use super::{engine, row, text};
use crate::cep::config::CepConfig;
use crate::cep::error::CepError;
use crate::cep::explain::plan_config;
use crate::cep::runtime::{Engine, Output, Row, Val};

/// Esper's event set one: `(ms, type, id)`.
pub(crate) const SET_ONE: [(i64, &str, &str); 12] = [
    (1000, "A", "A1"),
    (2000, "B", "B1"),
    (3000, "C", "C1"),
    (4000, "B", "B2"),
    (5000, "A", "A2"),
    (6000, "D", "D1"),
    (7000, "E", "E1"),
    (8000, "F", "F1"),
    (9000, "D", "D2"),
    (10000, "B", "B3"),
    (11000, "G", "G1"),
    (12000, "D", "D3"),
];

/// Which of Esper's event sets a table runs over.
#[derive(Debug, Clone, Copy)]
pub(crate) enum EventSet {
    One,
    Three,
    Four,
}

impl EventSet {
    /// The set's events `(ms, type, row)`, each row's `id` its name.
    fn events(self) -> Vec<(i64, &'static str, Row)> {
        let id = |name: &str| ("id", text(name));
        match self {
            EventSet::One => SET_ONE.iter().map(|(ms, t, name)| (*ms, *t, row(&[id(name)]))).collect(),
            EventSet::Three => (1000..)
                .step_by(1000)
                .zip(SET_THREE)
                .map(|(ms, (name, int, boxed, double, double_boxed, boolean, bool_boxed))| {
                    let props = [
                        id(name),
                        ("intPrimitive", Val::Int(int)),
                        ("intBoxed", Val::Int(boxed)),
                        ("doublePrimitive", Val::Double(double)),
                        ("doubleBoxed", Val::Double(double_boxed)),
                        ("boolPrimitive", Val::Bool(boolean)),
                        ("boolBoxed", Val::Bool(bool_boxed)),
                    ];
                    (ms, "SupportBean_N", row(&props))
                })
                .collect(),
            EventSet::Four => (1000..)
                .step_by(1000)
                .zip(SET_FOUR)
                .map(|(ms, (name, p00))| (ms, "SupportBean_S0", row(&[id(name), ("p00", text(p00))])))
                .collect(),
        }
    }
}

/// An expected match: the event whose step made it, the match, and how many times.
pub(crate) type Expected = (&'static str, &'static str, usize);

/// A pattern and its expected matches.
pub(crate) type PatternCase = (&'static str, &'static [Expected]);

/// The tags the cases bind, in the order a match is written; the output type has a column for each.
const TAGS: [&str; 16] = ["a", "a1", "a2", "a_1", "a_2", "b", "b3", "c", "d", "e", "g", "na", "nb", "nc", "X1", "X2"];

/// `TestEveryOperator.testOp`.
pub(crate) const EVERY: [PatternCase; 5] = [
    ("every b=B", &[("B1", "b=B1", 1), ("B2", "b=B2", 1), ("B3", "b=B3", 1)]),
    ("b=B", &[("B1", "b=B1", 1)]),
    ("every (every (every b=B))", &[("B1", "b=B1", 1), ("B2", "b=B2", 3), ("B3", "b=B3", 9)]),
    ("every (every b=B())", &[("B1", "b=B1", 1), ("B2", "b=B2", 2), ("B3", "b=B3", 4)]),
    ("every( every (every (every b=B())))", &[("B1", "b=B1", 1), ("B2", "b=B2", 4), ("B3", "b=B3", 16)]),
];

/// `TestFollowedByOperator.testOp`, without its `-[N]>` cases.
pub(crate) const FOLLOWED_BY: [PatternCase; 12] = [
    ("b=B -> (d=D or not d=D)", &[("B1", "b=B1", 1), ("D1", "b=B1 d=D1", 1)]),
    ("b=B -> every d=D", &[("D1", "b=B1 d=D1", 1), ("D2", "b=B1 d=D2", 1), ("D3", "b=B1 d=D3", 1)]),
    ("b=B -> d=D", &[("D1", "b=B1 d=D1", 1)]),
    ("b=B -> not d=D", &[("B1", "b=B1", 1)]),
    (
        "every b=B -> every d=D",
        &[
            ("D1", "b=B1 d=D1", 1),
            ("D1", "b=B2 d=D1", 1),
            ("D2", "b=B1 d=D2", 1),
            ("D2", "b=B2 d=D2", 1),
            ("D3", "b=B1 d=D3", 1),
            ("D3", "b=B2 d=D3", 1),
            ("D3", "b=B3 d=D3", 1),
        ],
    ),
    ("every b=B -> d=D", &[("D1", "b=B1 d=D1", 1), ("D1", "b=B2 d=D1", 1), ("D3", "b=B3 d=D3", 1)]),
    (
        "every (b=B -> every d=D)",
        &[("D1", "b=B1 d=D1", 1), ("D2", "b=B1 d=D2", 1), ("D3", "b=B1 d=D3", 1), ("D3", "b=B3 d=D3", 2)],
    ),
    ("every (a_1=A() -> b=B -> a_2=A)", &[("A2", "a_1=A1 a_2=A2 b=B1", 1)]),
    ("c=C() -> d=D -> a=A", &[]),
    ("every (a_1=A() -> b=B() -> a_2=A())", &[("A2", "a_1=A1 a_2=A2 b=B1", 1)]),
    (
        "every ( every a=A -> every b=B)",
        &[("B1", "a=A1 b=B1", 1), ("B2", "a=A1 b=B2", 1), ("B3", "a=A1 b=B3", 1), ("B3", "a=A2 b=B3", 3)],
    ),
    (
        "every (a=A() -> every b=B())",
        &[("B1", "a=A1 b=B1", 1), ("B2", "a=A1 b=B2", 1), ("B3", "a=A1 b=B3", 1), ("B3", "a=A2 b=B3", 2)],
    ),
];

/// `TestAndOperator.testOp`, without its object model case.
pub(crate) const AND: [PatternCase; 15] = [
    ("b=B and every d=D", &[("D1", "b=B1 d=D1", 1), ("D2", "b=B1 d=D2", 1), ("D3", "b=B1 d=D3", 1)]),
    ("every b=B and d=D", &[("D1", "b=B1 d=D1", 1), ("D1", "b=B2 d=D1", 1), ("B3", "b=B3 d=D1", 1)]),
    ("b=B and d=D", &[("D1", "b=B1 d=D1", 1)]),
    ("every(b=B and d=D)", &[("D1", "b=B1 d=D1", 1), ("B3", "b=B3 d=D2", 1)]),
    (
        "every( b=B and every d=D)",
        &[
            ("D1", "b=B1 d=D1", 1),
            ("D2", "b=B1 d=D2", 1),
            ("B3", "b=B3 d=D2", 1),
            ("D3", "b=B1 d=D3", 1),
            ("D3", "b=B3 d=D3", 2),
        ],
    ),
    (
        "every b=B and every d=D",
        &[
            ("D1", "b=B1 d=D1", 1),
            ("D1", "b=B2 d=D1", 1),
            ("D2", "b=B1 d=D2", 1),
            ("D2", "b=B2 d=D2", 1),
            ("B3", "b=B3 d=D1", 1),
            ("B3", "b=B3 d=D2", 1),
            ("D3", "b=B1 d=D3", 1),
            ("D3", "b=B2 d=D3", 1),
            ("D3", "b=B3 d=D3", 1),
        ],
    ),
    (
        "every( every b=B and d=D)",
        &[("D1", "b=B1 d=D1", 1), ("D1", "b=B2 d=D1", 1), ("B3", "b=B3 d=D1", 1), ("B3", "b=B3 d=D2", 2)],
    ),
    ("every a=A and d=D and b=B", &[("D1", "a=A1 b=B1 d=D1", 1), ("D1", "a=A2 b=B1 d=D1", 1)]),
    (
        "every( every b=B and every d=D)",
        &[
            ("D1", "b=B1 d=D1", 1),
            ("D1", "b=B2 d=D1", 1),
            ("D2", "b=B1 d=D2", 1),
            ("D2", "b=B2 d=D2", 1),
            ("B3", "b=B3 d=D1", 1),
            ("B3", "b=B3 d=D2", 3),
            ("D3", "b=B1 d=D3", 1),
            ("D3", "b=B2 d=D3", 1),
            ("D3", "b=B3 d=D3", 5),
        ],
    ),
    ("a=A and d=D and b=B", &[("D1", "a=A1 b=B1 d=D1", 1)]),
    (
        "every a=A and every d=D and b=B",
        &[
            ("D1", "a=A1 b=B1 d=D1", 1),
            ("D1", "a=A2 b=B1 d=D1", 1),
            ("D2", "a=A1 b=B1 d=D2", 1),
            ("D2", "a=A2 b=B1 d=D2", 1),
            ("D3", "a=A1 b=B1 d=D3", 1),
            ("D3", "a=A2 b=B1 d=D3", 1),
        ],
    ),
    ("b=B and b=B", &[("B1", "b=B1", 1)]),
    (
        "every a=A and every d=D and every b=B",
        &[
            ("D1", "a=A1 b=B1 d=D1", 1),
            ("D1", "a=A2 b=B1 d=D1", 1),
            ("D1", "a=A1 b=B2 d=D1", 1),
            ("D1", "a=A2 b=B2 d=D1", 1),
            ("D2", "a=A1 b=B1 d=D2", 1),
            ("D2", "a=A2 b=B1 d=D2", 1),
            ("D2", "a=A1 b=B2 d=D2", 1),
            ("D2", "a=A2 b=B2 d=D2", 1),
            ("B3", "a=A1 b=B3 d=D1", 1),
            ("B3", "a=A2 b=B3 d=D1", 1),
            ("B3", "a=A1 b=B3 d=D2", 1),
            ("B3", "a=A2 b=B3 d=D2", 1),
            ("D3", "a=A1 b=B1 d=D3", 1),
            ("D3", "a=A2 b=B1 d=D3", 1),
            ("D3", "a=A1 b=B2 d=D3", 1),
            ("D3", "a=A2 b=B2 d=D3", 1),
            ("D3", "a=A1 b=B3 d=D3", 1),
            ("D3", "a=A2 b=B3 d=D3", 1),
        ],
    ),
    (
        "every (a=A and every d=D and b=B)",
        &[("D1", "a=A1 b=B1 d=D1", 1), ("D2", "a=A1 b=B1 d=D2", 1), ("D3", "a=A1 b=B1 d=D3", 1)],
    ),
    ("every (b=B and b=B)", &[("B1", "b=B1", 1), ("B2", "b=B2", 1), ("B3", "b=B3", 1)]),
];

/// `TestOrOperator.testOp`.
pub(crate) const OR: [PatternCase; 9] = [
    ("a=A or a=A", &[("A1", "a=A1", 1)]),
    ("a=A or b=B or c=C", &[("A1", "a=A1", 1)]),
    (
        "every b=B or every d=D",
        &[
            ("B1", "b=B1", 1),
            ("B2", "b=B2", 1),
            ("D1", "d=D1", 1),
            ("D2", "d=D2", 1),
            ("B3", "b=B3", 1),
            ("D3", "d=D3", 1),
        ],
    ),
    ("a=A or b=B", &[("A1", "a=A1", 1)]),
    ("a=A or every b=B", &[("A1", "a=A1", 1)]),
    ("every a=A or d=D", &[("A1", "a=A1", 1), ("A2", "a=A2", 1), ("D1", "d=D1", 1)]),
    (
        "every (every b=B() or d=D())",
        &[
            ("B1", "b=B1", 1),
            ("B2", "b=B2", 2),
            ("D1", "d=D1", 4),
            ("D2", "d=D2", 4),
            ("B3", "b=B3", 4),
            ("D3", "d=D3", 8),
        ],
    ),
    (
        "every (b=B() or every d=D())",
        &[
            ("B1", "b=B1", 1),
            ("B2", "b=B2", 1),
            ("D1", "d=D1", 1),
            ("D2", "d=D2", 2),
            ("B3", "b=B3", 4),
            ("D3", "d=D3", 4),
        ],
    ),
    (
        "every (every d=D() or every b=B())",
        &[
            ("B1", "b=B1", 1),
            ("B2", "b=B2", 2),
            ("D1", "d=D1", 4),
            ("D2", "d=D2", 8),
            ("B3", "b=B3", 16),
            ("D3", "d=D3", 32),
        ],
    ),
];

/// `TestNotOperator.testOp`, without its object model case.
pub(crate) const NOT: [PatternCase; 13] = [
    ("b=B and not d=D", &[("B1", "b=B1", 1)]),
    ("every b=B and not g=G", &[("B1", "b=B1", 1), ("B2", "b=B2", 1), ("B3", "b=B3", 1)]),
    ("every b=B and not d=D", &[("B1", "b=B1", 1), ("B2", "b=B2", 1)]),
    ("b=B and not a=A(id='A1')", &[]),
    ("b=B and not a2=A(id='A2')", &[("B1", "b=B1", 1)]),
    ("every (b=B and not b3=B(id='B3'))", &[("B1", "b=B1", 1), ("B2", "b=B2", 1)]),
    ("every (b=B or not D())", &[]),
    ("every (every b=B and not B(id='B2'))", &[("B1", "b=B1", 1), ("B3", "b=B3", 2)]),
    ("every (b=B and not B(id='B2'))", &[("B1", "b=B1", 1), ("B3", "b=B3", 1)]),
    ("(b=B -> d=D) and  not A", &[]),
    ("(b=B -> d=D) and  not G", &[("D1", "b=B1 d=D1", 1)]),
    ("every (b=B -> d=D) and  not G", &[("D1", "b=B1 d=D1", 1)]),
    ("every (b=B -> d=D) and  not G(id='x')", &[("D1", "b=B1 d=D1", 1), ("D3", "b=B3 d=D3", 1)]),
];

/// `TestTimerWithinGuard.testOp`, without its object model case.
pub(crate) const WITHIN: [PatternCase; 33] = [
    (r#"b=B(id="B1") where timer:within(2 sec)"#, &[]),
    (r#"b=B(id="B1") where timer:within(2001 msec)"#, &[("B1", "b=B1", 1)]),
    (r#"b=B(id="B1") where timer:within(1999 msec)"#, &[]),
    (r#"b=B(id="B3") where timer:within(10001 msec)"#, &[("B3", "b=B3", 1)]),
    (r#"b=B(id="B3") where timer:within(10 sec)"#, &[]),
    (r#"b=B(id="B3") where timer:within(9.999)"#, &[]),
    ("(every b=B) where timer:within(2.001)", &[("B1", "b=B1", 1)]),
    ("(every b=B) where timer:within(4.001)", &[("B1", "b=B1", 1), ("B2", "b=B2", 1)]),
    ("every b=B where timer:within(2.001)", &[("B1", "b=B1", 1), ("B2", "b=B2", 1), ("B3", "b=B3", 1)]),
    ("every (b=B where timer:within(2001 msec))", &[("B1", "b=B1", 1), ("B2", "b=B2", 1), ("B3", "b=B3", 1)]),
    ("every ((every b=B) where timer:within(2.001))", &[("B1", "b=B1", 1), ("B2", "b=B2", 2), ("B3", "b=B3", 4)]),
    ("every ((every b=B) where timer:within(6.001))", &[("B1", "b=B1", 1), ("B2", "b=B2", 2), ("B3", "b=B3", 4)]),
    ("(every b=B) where timer:within(11.001)", &[("B1", "b=B1", 1), ("B2", "b=B2", 1), ("B3", "b=B3", 1)]),
    ("(every b=B) where timer:within(4001 milliseconds)", &[("B1", "b=B1", 1), ("B2", "b=B2", 1)]),
    ("every (b=B) where timer:within(6.001)", &[("B1", "b=B1", 1), ("B2", "b=B2", 1), ("B3", "b=B3", 1)]),
    ("b=B -> d=D where timer:within(4001 milliseconds)", &[("D1", "b=B1 d=D1", 1)]),
    ("b=B() -> d=D() where timer:within(4 sec)", &[]),
    (
        "every (b=B() where timer:within (4.001) and d=D() where timer:within(6.001))",
        &[("D1", "b=B1 d=D1", 1), ("B3", "b=B3 d=D2", 1)],
    ),
    ("b=B() where timer:within (2001 msec) and d=D() where timer:within(6001 msec)", &[("D1", "b=B1 d=D1", 1)]),
    ("b=B() where timer:within (2001 msec) and d=D() where timer:within(6000 msec)", &[]),
    ("b=B() where timer:within (2000 msec) and d=D() where timer:within(6001 msec)", &[]),
    ("every b=B -> d=D where timer:within(4000 msec)", &[("D1", "b=B2 d=D1", 1), ("D3", "b=B3 d=D3", 1)]),
    (
        "every b=B() -> every d=D where timer:within(4000 msec)",
        &[
            ("D1", "b=B1 d=D1", 1),
            ("D1", "b=B2 d=D1", 1),
            ("D2", "b=B1 d=D2", 1),
            ("D2", "b=B2 d=D2", 1),
            ("D3", "b=B1 d=D3", 1),
            ("D3", "b=B2 d=D3", 1),
            ("D3", "b=B3 d=D3", 1),
        ],
    ),
    ("b=B() -> d=D() where timer:within(3999 msec)", &[]),
    ("every b=B() -> (every d=D) where timer:within(2001 msec)", &[("D1", "b=B2 d=D1", 1), ("D3", "b=B3 d=D3", 1)]),
    ("every (b=B() -> d=D()) where timer:within(6001 msec)", &[("D1", "b=B1 d=D1", 1), ("D3", "b=B3 d=D3", 1)]),
    ("b=B() where timer:within (2000 msec) or d=D() where timer:within(6000 msec)", &[]),
    (
        "(b=B() where timer:within (2000 msec) or d=D() where timer:within(6000 msec)) where timer:within (1999 msec)",
        &[],
    ),
    (
        "every (b=B() where timer:within (2001 msec) and d=D() where timer:within(6001 msec))",
        &[("D1", "b=B1 d=D1", 1), ("B3", "b=B3 d=D2", 1)],
    ),
    ("b=B() where timer:within (2001 msec) or d=D() where timer:within(6001 msec)", &[("B1", "b=B1", 1)]),
    ("b=B() where timer:within (2000 msec) or d=D() where timer:within(6001 msec)", &[("D1", "d=D1", 1)]),
    (
        "every b=B() where timer:within (2001 msec) and every d=D() where timer:within(6001 msec)",
        &[
            ("D1", "b=B1 d=D1", 1),
            ("D1", "b=B2 d=D1", 1),
            ("D2", "b=B1 d=D2", 1),
            ("D2", "b=B2 d=D2", 1),
            ("B3", "b=B3 d=D1", 1),
            ("B3", "b=B3 d=D2", 1),
            ("D3", "b=B1 d=D3", 1),
            ("D3", "b=B2 d=D3", 1),
            ("D3", "b=B3 d=D3", 1),
        ],
    ),
    ("(every b=B) where timer:within (2000 msec) and every d=D() where timer:within(6001 msec)", &[]),
];

/// `TestTimerIntervalObserver.testOp`, without its object model case and the two of `timer:interval(0)`, which is
/// refused ([`ZERO_INTERVALS`]). One case differs by design: `every timer:interval(3.001 sec)` restarts its timer when
/// it fires, at 3,001, 6,002 and 9,003 ms (the steps of B2, E1 and B3), where Esper's harness, whose clock jumps from
/// event to event, restarts it at the time it jumped to (B2, F1 and D3); this engine's clock goes through every
/// millisecond.
pub(crate) const INTERVAL: [PatternCase; 28] = [
    ("timer:interval(1999 msec)", &[("B1", "", 1)]),
    ("timer:interval(2 sec)", &[("B1", "", 1)]),
    ("timer:interval(2.001)", &[("C1", "", 1)]),
    ("timer:interval(2999 milliseconds)", &[("C1", "", 1)]),
    ("timer:interval(3 seconds)", &[("C1", "", 1)]),
    ("timer:interval(3.001 seconds)", &[("B2", "", 1)]),
    ("every timer:interval(3.001 sec)", &[("B2", "", 1), ("E1", "", 1), ("B3", "", 1)]),
    ("every timer:interval(5000 msec)", &[("A2", "", 1), ("B3", "", 1)]),
    ("timer:interval(3.999 second) -> b=B", &[("B2", "b=B2", 1)]),
    ("timer:interval(4 sec) -> b=B", &[("B2", "b=B2", 1)]),
    ("timer:interval(4.001 sec) -> b=B", &[("B3", "b=B3", 1)]),
    ("b=B -> timer:interval(0.001)", &[("C1", "b=B1", 1)]),
    ("b=B -> timer:interval(1 sec)", &[("C1", "b=B1", 1)]),
    ("b=B -> timer:interval(1.001)", &[("B2", "b=B1", 1)]),
    ("b=B() -> timer:interval(6.000) -> d=D", &[("D2", "b=B1 d=D2", 1)]),
    ("every (b=B() -> timer:interval(2.001) -> d=D())", &[("D1", "b=B1 d=D1", 1)]),
    ("every (b=B() -> timer:interval(2.000) -> d=D())", &[("D1", "b=B1 d=D1", 1), ("D3", "b=B3 d=D3", 1)]),
    ("b=B() or timer:interval(1.001)", &[("B1", "", 1)]),
    ("b=B() or timer:interval(2.001)", &[("B1", "b=B1", 1)]),
    ("b=B(id='B3') or timer:interval(8.500)", &[("D2", "", 1)]),
    ("timer:interval(8.500) or timer:interval(7.500)", &[("F1", "", 1)]),
    ("timer:interval(999999 msec) or g=G", &[("G1", "g=G1", 1)]),
    ("b=B() and timer:interval(4000 msec)", &[("B2", "b=B1", 1)]),
    ("b=B() and timer:interval(4001 msec)", &[("A2", "b=B1", 1)]),
    ("timer:interval(9999999 msec) and b=B", &[]),
    (r#"timer:interval(1 msec) and b=B(id="B2")"#, &[("B2", "b=B2", 1)]),
    ("timer:interval(3.000) where timer:within(2.000)", &[]),
    ("timer:interval(3.000) where timer:within (3.000)", &[]),
];

/// Esper's cases of a zero interval, which fires as it starts (at B1: `b=B1` both): refused, with the position of
/// the period.
pub(crate) const ZERO_INTERVALS: [&str; 2] = ["timer:interval(0) -> b=B", "b=B -> timer:interval(0)"];

/// Every table of Esper's cases, with the event set it runs over.
pub(crate) const ESPER_PATTERNS: [(EventSet, &[PatternCase]); 10] = [
    (EventSet::One, &EVERY),
    (EventSet::One, &FOLLOWED_BY),
    (EventSet::One, &AND),
    (EventSet::One, &OR),
    (EventSet::One, &NOT),
    (EventSet::One, &WITHIN),
    (EventSet::One, &INTERVAL),
    (EventSet::One, &OPERATORS),
    (EventSet::Three, &USE_RESULT_NUMERIC),
    (EventSet::Four, &USE_RESULT_OBJECT_ID),
];

/// A configuration reading types `A` to `G`, `SupportBean_N` and `SupportBean_S0`, and writing `Out`, running the statement that selects each tag `pattern`
/// binds outside a `not` by its id (`m` when it binds none), into a column of that name.
pub(crate) fn patterns_config(pattern: &str) -> String {
    let attributes = |names: &[(&str, &str)]| {
        let each: Vec<String> = names.iter().map(|(n, t)| format!(r#"{{"name":"{n}","type":"{t}"}}"#)).collect();
        each.join(",")
    };
    let letters = ["A", "B", "C", "D", "E", "F", "G"].map(|t| (t, attributes(&[("x", "string")])));
    let n = attributes(&[
        ("intPrimitive", "int"),
        ("intBoxed", "int"),
        ("doublePrimitive", "double"),
        ("doubleBoxed", "double"),
        ("boolPrimitive", "boolean"),
        ("boolBoxed", "boolean"),
    ]);
    let beans = [("SupportBean_N", n), ("SupportBean_S0", attributes(&[("p00", "string")]))];
    let ins: Vec<String> = (letters.iter().chain(&beans))
        .map(|(t, a)| format!(r#"{{"id":"{t}.*","type":"{t}","isPattern":true,"attributes":[{a}]}}"#))
        .collect();
    let bound: Vec<&str> = TAGS.iter().copied().filter(|t| binds(pattern, t)).collect();
    let (columns, selected) = match bound.is_empty() {
        true => (vec!["m"], "'x' as m".to_string()),
        false => (bound.clone(), bound.iter().map(|t| format!("{t}.id as {t}")).collect::<Vec<_>>().join(", ")),
    };
    let outs: Vec<String> = columns.iter().map(|t| format!(r#"{{"name":"{t}","type":"string"}}"#)).collect();
    let statement =
        serde_json::to_string(&format!("INSERT INTO Out SELECT {selected} FROM pattern [{pattern}]")).expect("text");
    format!(
        r#"{{"host":"h","in":[{}],"out":[{{"id":"O","type":"Out","attributes":[{}]}}],"statements":[{statement}]}}"#,
        ins.join(","),
        outs.join(",")
    )
}

/// Whether `pattern` binds `tag` (`tag=` before a type's name) outside a `not`.
fn binds(pattern: &str, tag: &str) -> bool {
    pattern.match_indices(&format!("{tag}=")).any(|(at, _)| {
        let before = pattern[..at].chars().next_back();
        let after = pattern[at + tag.len() + 1..].chars().next();
        let negated = pattern[..at].trim_end().ends_with("not");
        before.is_none_or(|c| !c.is_alphanumeric() && c != '_')
            && after.is_some_and(|c| c.is_ascii_uppercase())
            && !negated
    })
}

/// The events of `set` through `e` (running a [`patterns_config`]), with no time after the last event: each match
/// with the event whose step made it, sorted.
pub(crate) fn set_matches(e: &mut dyn Engine, set: EventSet) -> Vec<(String, String)> {
    let events = set.events();
    let mut out: Vec<Output> = Vec::new();
    for (ms, stream, event) in &events {
        out.extend(e.push(*ms, stream, event.clone()));
    }
    let name = |event: &Row| match event.get("id") {
        Some(Val::String(id)) => id.to_string(),
        other => panic!("an event named by its id: {other:?}"),
    };
    let step = |time: i64| events.iter().find(|(ms, _, _)| *ms >= time).map_or("after".into(), |(_, _, e)| name(e));
    let mut matches: Vec<_> = out.iter().map(|o| (step(o.time), tags_of(o))).collect();
    matches.sort();
    matches
}

/// The tags an output bound, as `tag=id` in tag order.
fn tags_of(output: &Output) -> String {
    let bound = TAGS.iter().filter_map(|t| match output.row.get(t) {
        Some(Val::String(id)) => Some(format!("{t}={id}")),
        _ => None,
    });
    bound.collect::<Vec<_>>().join(" ")
}

/// A case's expected matches, as [`set_matches`] gives them.
pub(crate) fn expected_matches(expected: &[Expected]) -> Vec<(String, String)> {
    let mut matches: Vec<_> = expected
        .iter()
        .flat_map(|(event, tags, times)| std::iter::repeat_n((event.to_string(), tags.to_string()), *times))
        .collect();
    matches.sort();
    matches
}

#[test]
fn esper_pattern_cases_over_their_event_sets() {
    for (set, (pattern, expected)) in ESPER_PATTERNS.iter().flat_map(|(set, table)| table.iter().map(|c| (*set, c))) {
        let got = set_matches(&mut engine(&patterns_config(pattern)), set);
        assert_eq!(got, expected_matches(expected), "{pattern}");
    }
}

#[test]
fn zero_intervals_are_refused_where_the_period_is() {
    for pattern in ZERO_INTERVALS {
        let config: CepConfig = serde_json::from_str(&patterns_config(pattern)).expect("test configuration");
        let errors = plan_config(&config, true).expect_err("refused");
        let [CepError::Invalid { at, message }] = errors.as_slice() else {
            panic!("{pattern}: {errors:?}");
        };
        assert_eq!(message, "a time period must be at least 1 millisecond", "{pattern}");
        let statement = format!("INSERT INTO Out SELECT b.id as b FROM pattern [{pattern}]");
        assert_eq!(&statement[at.span.0..at.span.1], "0", "{pattern}");
    }
}

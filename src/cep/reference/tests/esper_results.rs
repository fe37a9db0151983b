//! More of Esper's own pattern cases (Esper 5's `TestOperators` and `TestUseResultPattern`, their harness tests, from
//! espertechinc/esper at `aaa35756`), and the event sets three and four the latter runs over: operator precedence,
//! and filters that read the events earlier tags bound. They join the tables of [`super::esper_patterns`].

use super::esper_patterns::PatternCase;

/// Esper's event set three (`getSetThreeExternalClock(0, 1000)`), `SupportBean_N` events one a second: name,
/// `intPrimitive`, `intBoxed`, `doublePrimitive`, `doubleBoxed`, `boolPrimitive`, `boolBoxed`.
pub(crate) const SET_THREE: [(&str, i64, i64, f64, f64, bool, bool); 8] = [
    ("N1", 1, -56, 44.0, -60.5, true, true),
    ("N2", 66, 59, 48.0, 70.999, true, false),
    ("N3", 87, -5, 44.5, -23.5, false, true),
    ("N4", 86, -98, 42.1, -79.5, true, true),
    ("N5", 0, -33, 48.0, 44.45, true, false),
    ("N6", 55, -55, 44.0, -60.5, false, true),
    ("N7", 34, 92, 39.0, -66.5, false, true),
    ("N8", 100, 66, 47.5, 45.0, true, false),
];

/// Esper's event set four (`getSetFourExternalClock(0, 1000)`), `SupportBean_S0` events one a second: name, `p00`.
pub(crate) const SET_FOUR: [(&str, &str); 12] = [
    ("e1", "A"),
    ("e2", "B"),
    ("e3", "C"),
    ("e4", "D"),
    ("e5", "E"),
    ("e6", "B"),
    ("e7", "F"),
    ("e8", "C"),
    ("e9", "G"),
    ("e10", "G"),
    ("e11", "B"),
    ("e12", "F"),
];

/// `TestOperators.testOp`, without its object model case: `and` binds tighter than `or`, `or` than `->`.
pub(crate) const OPERATORS: [PatternCase; 6] = [
    ("(b=B -> d=D)  and (a=A -> e=E)", &[("E1", "a=A1 b=B1 d=D1 e=E1", 1)]),
    ("b=B -> (d=D() or a=A)", &[("A2", "a=A2 b=B1", 1)]),
    ("b=B() -> ((d=D() -> a=A()) or (a=A() -> e=E()))", &[("E1", "a=A2 b=B1 e=E1", 1)]),
    ("b=B() and d=D() or a=A", &[("A1", "a=A1", 1)]),
    ("(b=B() -> d=D()) or a=A", &[("A1", "a=A1", 1)]),
    ("(b=B() and d=D()) or a=A", &[("A1", "a=A1", 1)]),
];

/// `TestUseResultPattern.testNumeric` over set three, filters reading earlier tags; without its four cases of
/// Esper's ranges (`doublePrimitive in [0:na.doublePrimitive]`), which are not in the subset.
pub(crate) const USE_RESULT_NUMERIC: [PatternCase; 13] = [
    ("na=SupportBean_N -> nb=SupportBean_N(doublePrimitive = na.doublePrimitive)", &[("N6", "na=N1 nb=N6", 1)]),
    (
        "na=SupportBean_N(intPrimitive=87) -> nb=SupportBean_N(intPrimitive > na.intPrimitive)",
        &[("N8", "na=N3 nb=N8", 1)],
    ),
    (
        "na=SupportBean_N(intPrimitive=87) -> nb=SupportBean_N(intPrimitive < na.intPrimitive)",
        &[("N4", "na=N3 nb=N4", 1)],
    ),
    (
        "na=SupportBean_N(intPrimitive=66) -> every nb=SupportBean_N(intPrimitive >= na.intPrimitive)",
        &[("N3", "na=N2 nb=N3", 1), ("N4", "na=N2 nb=N4", 1), ("N8", "na=N2 nb=N8", 1)],
    ),
    (
        "na=SupportBean_N(boolBoxed=false) -> every nb=SupportBean_N(boolPrimitive = na.boolPrimitive)",
        &[("N4", "na=N2 nb=N4", 1), ("N5", "na=N2 nb=N5", 1), ("N8", "na=N2 nb=N8", 1)],
    ),
    ("every na=SupportBean_N -> every nb=SupportBean_N(intPrimitive=na.intPrimitive)", &[]),
    (
        "every na=SupportBean_N() -> every nb=SupportBean_N(doublePrimitive=na.doublePrimitive)",
        &[("N5", "na=N2 nb=N5", 1), ("N6", "na=N1 nb=N6", 1)],
    ),
    (
        "every na=SupportBean_N(boolBoxed=false) -> every nb=SupportBean_N(boolBoxed=na.boolBoxed)",
        &[("N5", "na=N2 nb=N5", 1), ("N8", "na=N2 nb=N8", 1), ("N8", "na=N5 nb=N8", 1)],
    ),
    (
        "na=SupportBean_N(boolBoxed=false) -> nb=SupportBean_N(intPrimitive<na.intPrimitive) -> \
         nc=SupportBean_N(intPrimitive > nb.intPrimitive)",
        &[("N6", "na=N2 nb=N5 nc=N6", 1)],
    ),
    (
        "na=SupportBean_N(intPrimitive=86) -> nb=SupportBean_N(intPrimitive<na.intPrimitive) -> \
         nc=SupportBean_N(intPrimitive > na.intPrimitive)",
        &[("N8", "na=N4 nb=N5 nc=N8", 1)],
    ),
    (
        "na=SupportBean_N(intPrimitive=86) -> (nb=SupportBean_N(intPrimitive<na.intPrimitive) or \
         nc=SupportBean_N(intPrimitive > na.intPrimitive))",
        &[("N5", "na=N4 nb=N5", 1)],
    ),
    (
        "na=SupportBean_N(intPrimitive=86) -> (nb=SupportBean_N(intPrimitive>na.intPrimitive) or \
         nc=SupportBean_N(intBoxed < na.intBoxed))",
        &[("N8", "na=N4 nb=N8", 1)],
    ),
    (
        "na=SupportBean_N(intPrimitive=86) -> (nb=SupportBean_N(intPrimitive>na.intPrimitive) and \
         nc=SupportBean_N(intBoxed < na.intBoxed))",
        &[],
    ),
];

/// `TestUseResultPattern.testObjectId` over set four: a later event of the first one's `p00`.
pub(crate) const USE_RESULT_OBJECT_ID: [PatternCase; 6] = [
    ("X1=SupportBean_S0() -> X2=SupportBean_S0(p00=X1.p00)", &[]),
    ("X1=SupportBean_S0(p00='B') -> X2=SupportBean_S0(p00=X1.p00)", &[("e6", "X1=e2 X2=e6", 1)]),
    (
        "X1=SupportBean_S0(p00='B') -> every X2=SupportBean_S0(p00=X1.p00)",
        &[("e6", "X1=e2 X2=e6", 1), ("e11", "X1=e2 X2=e11", 1)],
    ),
    (
        "every X1=SupportBean_S0(p00='B') -> every X2=SupportBean_S0(p00=X1.p00)",
        &[("e6", "X1=e2 X2=e6", 1), ("e11", "X1=e2 X2=e11", 1), ("e11", "X1=e6 X2=e11", 1)],
    ),
    (
        "every X1=SupportBean_S0() -> X2=SupportBean_S0(p00=X1.p00)",
        &[
            ("e6", "X1=e2 X2=e6", 1),
            ("e8", "X1=e3 X2=e8", 1),
            ("e10", "X1=e9 X2=e10", 1),
            ("e11", "X1=e6 X2=e11", 1),
            ("e12", "X1=e7 X2=e12", 1),
        ],
    ),
    (
        "every X1=SupportBean_S0() -> every X2=SupportBean_S0(p00=X1.p00)",
        &[
            ("e6", "X1=e2 X2=e6", 1),
            ("e8", "X1=e3 X2=e8", 1),
            ("e10", "X1=e9 X2=e10", 1),
            ("e11", "X1=e2 X2=e11", 1),
            ("e11", "X1=e6 X2=e11", 1),
            ("e12", "X1=e7 X2=e12", 1),
        ],
    ),
];

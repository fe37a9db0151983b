//! Esper's `TestIStreamRStreamKeywords` and `TestSelectExpr` (both at `aaa35756`): the stream selectors over a length
//! window, and select lists of constants, escaped text and widened sums. Not the engine-wide default selectors,
//! `insert rstream into`, joins, nested or keyword-named properties.

use super::{SB, ViewCase};

/// The four events of `testRStreamOnly` and `testRStreamInsertInto` (the second `a` is `e2`), Esper's identities
/// by `id`: only `d` pushes one out, the first `a`.
const A_A_B_D: [(i64, &str, &str); 4] = [
    (1, "id='e1',theString='a',intPrimitive=-1", "-"),
    (2, "id='e2',theString='a',intPrimitive=-1", "-"),
    (3, "id='e3',theString='b',intPrimitive=-1", "-"),
    (4, "id='e4',theString='d',intPrimitive=-1", "id='e1' theString='a'"),
];

/// `A_A_B_D` as steps of `SupportBean`.
macro_rules! steps {
    ($events:expr) => {{
        let [(t1, p1, e1), (t2, p2, e2), (t3, p3, e3), (t4, p4, e4)] = $events;
        [(t1, SB, p1, e1), (t2, SB, p2, e2), (t3, SB, p3, e3), (t4, SB, p4, e4)]
    }};
}

/// `SELECT RSTREAM` gives what leaves the window, `SELECT ISTREAM` what enters it.
pub(super) const ISTREAM_RSTREAM: [ViewCase; 3] = [
    ViewCase {
        test: "TestIStreamRStreamKeywords.testRStreamOnly",
        select: "rstream * FROM SupportBean.win:length(3)",
        columns: "id string, theString string",
        typed: false,
        steps: &steps!(A_A_B_D),
    },
    ViewCase {
        test: "TestIStreamRStreamKeywords.testRStreamInsertInto",
        select: "rstream s0.theString as theString FROM SupportBean.win:length(3) as s0",
        columns: "theString string",
        typed: false,
        steps: &[
            (1, SB, "theString='a',intPrimitive=-1", "-"),
            (2, SB, "theString='b',intPrimitive=-1", "-"),
            (3, SB, "theString='c',intPrimitive=-1", "-"),
            (4, SB, "theString='d',intPrimitive=-1", "theString='a'"),
        ],
    },
    ViewCase {
        test: "TestIStreamRStreamKeywords.testIStreamOnly",
        select: "istream * FROM SupportBean.win:length(1)",
        columns: "id string, theString string",
        typed: false,
        steps: &[
            (1, SB, "id='e1',theString='a',intPrimitive=-1", "id='e1' theString='a'"),
            (2, SB, "id='e2',theString='b',intPrimitive=-1", "id='e2' theString='b'"),
        ],
    },
];

/// A `SupportBean` `E1` with `intPrimitive` 1, as `tryPrecedenceNoColumnName` sends.
const E1: &str = "theString='E1',intPrimitive=1";

/// Constants by precedence (named `c` here, Esper names them by their text), text escaped in filters, and widened
/// sums of floats.
pub(super) const SELECT_EXPR: [ViewCase; 15] = [
    ViewCase {
        test: "TestSelectExpr.testPrecedenceNoColumnName",
        select: "3*2+1 as c FROM SupportBean",
        columns: "c int",
        typed: true,
        steps: &[(1, SB, E1, "c=7")],
    },
    ViewCase {
        test: "TestSelectExpr.testPrecedenceNoColumnName",
        select: "(3*2)+1 as c FROM SupportBean",
        columns: "c int",
        typed: true,
        steps: &[(1, SB, E1, "c=7")],
    },
    ViewCase {
        test: "TestSelectExpr.testPrecedenceNoColumnName",
        select: "3*(2+1) as c FROM SupportBean",
        columns: "c int",
        typed: true,
        steps: &[(1, SB, E1, "c=9")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r#"* FROM SupportBean(theString="A'B")"#,
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, "theString='A'B',intPrimitive=1", "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r"* FROM SupportBean(theString='A\'B')",
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, "theString='A'B',intPrimitive=1", "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r#"* FROM SupportBean(theString='A"B')"#,
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, r#"theString='A"B',intPrimitive=1"#, "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r#"* FROM SupportBean(theString='A\"B')"#,
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, r#"theString='A"B',intPrimitive=1"#, "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r"* FROM SupportBean(theString='John\'s')",
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, "theString='John's',intPrimitive=1", "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r#"* FROM SupportBean(theString like "Quote \"Hello\"")"#,
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, r#"theString='Quote "Hello"',intPrimitive=1"#, "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testWindowStats",
        select: "theString, boolBoxed as aBool, 3*intPrimitive as threeInt, floatBoxed+floatPrimitive as result FROM \
                 SupportBean.win:length(3) where boolBoxed = true",
        columns: "theString string, aBool boolean, result float",
        typed: false,
        steps: &[
            (1, SB, "theString='a',boolBoxed=false,intPrimitive=0,floatPrimitive=0,floatBoxed=0", "-"),
            (2, SB, "theString='b',boolBoxed=false,intPrimitive=0,floatPrimitive=0,floatBoxed=0", "-"),
            (
                3,
                SB,
                "theString='c',boolBoxed=true,intPrimitive=3,floatPrimitive=10,floatBoxed=20",
                "theString='c' \
                                                                                                   aBool=true \
                                                                                                   result=30.0",
            ),
        ],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r"* FROM SupportBean(theString='A\u0027B')",
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, "theString='A'B',intPrimitive=1", "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r"* FROM SupportBean(theString='A\u0022B')",
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, r#"theString='A"B',intPrimitive=1"#, "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r#"'volume' as field1, "sleep" as field2, "\u0041" as unicodeA FROM SupportBean"#,
        columns: "field1 string, field2 string, unicodeA string",
        typed: false,
        steps: &[(1, SB, "", "field1='volume' field2='sleep' unicodeA='A'")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r"* FROM SupportBean(theString='John\u0027s')",
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, "theString='John's',intPrimitive=1", "intPrimitive=1")],
    },
    ViewCase {
        test: "TestSelectExpr.testEscapeString",
        select: r#"* FROM SupportBean(theString like "Quote \u0022Hello\u0022")"#,
        columns: "intPrimitive int",
        typed: false,
        steps: &[(1, SB, r#"theString='Quote "Hello"',intPrimitive=1"#, "intPrimitive=1")],
    },
];

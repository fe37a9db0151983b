//! The cases of Esper's view classes whose rows differ from what Esper's assertions expect, each with Esper's
//! expectation: run only by the ignored tests, so that the others pass. A pattern's rows at one event not ordered
//! by `order by ... desc` (`TestOrderBySimple` at `aaa35756`), and `\u` escapes in text constants read as the
//! letter `u` and its digits, not the character they name (`TestSelectExpr` at `aaa35756`).

use super::{SB, ViewCase};

/// The cases of [`super::ordered`] and [`super::selects`] that differ, each as Esper expects it.
pub(crate) const VIEWS_DIFFERING: [ViewCase; 6] = [
    ViewCase {
        test: "TestOrderBySimple.testOrderByMultiDelivery",
        select: "a.theString as theString FROM pattern [every a=SupportBean(theString like 'A%') -> \
                 b=SupportBean(theString like 'B%')] order by a.theString desc",
        columns: "theString string",
        typed: false,
        steps: &[
            (0, SB, "theString='A1',intPrimitive=1", "-"),
            (0, SB, "theString='A2',intPrimitive=2", "-"),
            (0, SB, "theString='B',intPrimitive=3", "theString='A2' | theString='A1'"),
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

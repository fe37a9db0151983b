//! Esper's `TestStaticFunctions` (at `aaa35756`): the calls of Java's `Math`, `String.valueOf`, `Integer.valueOf` and
//! `Long.parseLong` in a select list, `WHERE`, `GROUP BY` and `HAVING`; and Esper 8's `ZoneFox` (at `da003729`), a
//! `String` method in `WHERE`.

use super::{ExprCase, MD, S0};

/// `TestStaticFunctions` (at `aaa35756`), its stream `SupportMarketDataBean.win:length(5)` and its event `("IBM",
/// 10d, 4l)`; each column named with `as` where Esper names it by its text. Without its calls of other methods
/// (`Integer.toBinaryString`, `System.currentTimeMillis`, the test library's), and `testOtherClauses`' `ORDER BY`
/// under `OUTPUT EVERY 3 EVENTS` (refused by name).
pub(super) const STATIC_FUNCTIONS: [ExprCase; 13] = [
    ExprCase {
        test: "TestStaticFunctions.testSingleParameter",
        select: "Integer.valueOf(\"6\") as v FROM SupportMarketDataBean.win:length(5)",
        columns: "v int",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "v=6")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testSingleParameter",
        select: "java.lang.String.valueOf('a') as v FROM SupportMarketDataBean.win:length(5)",
        columns: "v string",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "v='a'")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testTwoParameters",
        select: "Long.parseLong(\"123\",10) as v FROM SupportMarketDataBean.win:length(5)",
        columns: "v long",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "v=123")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testComplexParameters",
        select: "String.valueOf(price) as v FROM SupportMarketDataBean.win:length(5)",
        columns: "v string",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "v='10.0'")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testComplexParameters",
        select: "String.valueOf(2 + 3*5) as v FROM SupportMarketDataBean.win:length(5)",
        columns: "v string",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "v='17'")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testComplexParameters",
        select: "String.valueOf(price*volume +volume) as v FROM SupportMarketDataBean.win:length(5)",
        columns: "v string",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "v='44.0'")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testComplexParameters",
        select: "String.valueOf(Math.pow(price,Integer.valueOf(\"2\"))) as v FROM SupportMarketDataBean.win:length(5)",
        columns: "v string",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "v='100.0'")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testTwoParameters",
        select: "Math.max(2,3) as m FROM SupportMarketDataBean.win:length(5)",
        columns: "m int",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "m=3")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testTwoParameters",
        select: "java.lang.Math.max(2,3d) as m FROM SupportMarketDataBean.win:length(5)",
        columns: "m double",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "m=3.0")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testMultipleMethodInvocations",
        select: "Math.max(2d,price) as m1, Math.max(volume,4d) as m2 FROM SupportMarketDataBean.win:length(5)",
        columns: "m1 double, m2 double",
        typed: true,
        runs: &[&[(MD, "symbol='IBM',price=10,volume=4", "m1=10.0 m2=4.0")]],
    },
    ExprCase {
        test: "TestStaticFunctions.testOtherClauses",
        select: "* FROM SupportMarketDataBean.win:length(5) where Math.pow(price, .5) > 2",
        columns: "symbol string",
        typed: false,
        runs: &[&[
            (MD, "symbol='IBM',price=10,volume=4", "symbol='IBM'"),
            (MD, "symbol='CAT',price=4,volume=100", "-"),
        ]],
    },
    ExprCase {
        test: "TestStaticFunctions.testOtherClauses",
        select: "symbol, sum(price) as total FROM SupportMarketDataBean.win:length(5) group by String.valueOf(symbol)",
        columns: "symbol string, total double",
        typed: false,
        runs: &[&[
            (MD, "symbol='IBM',price=10,volume=4", "symbol='IBM' total=10.0"),
            (MD, "symbol='IBM',price=4,volume=100", "symbol='IBM' total=14.0"),
        ]],
    },
    ExprCase {
        test: "TestStaticFunctions.testOtherClauses",
        select: "symbol, sum(price) as total FROM SupportMarketDataBean.win:length(5) having Math.pow(sum(price), .5) > 3",
        columns: "symbol string, total double",
        typed: false,
        runs: &[&[
            (MD, "symbol='IBM',price=10,volume=4", "symbol='IBM' total=10.0"),
            (MD, "symbol='IBM',price=100,volume=100", "symbol='IBM' total=110.0"),
        ]],
    },
];

/// Esper 8's `ZoneFox` (at `da003729`), `@name('s0')` left out: `startsWith` of a text with backslashes.
pub(super) const STRING_METHODS: [ExprCase; 1] = [ExprCase {
    test: "ZoneFox",
    select: "p00 as result FROM SupportBean_S0 where p00.startsWith('\\\\user\\\\bob')",
    columns: "result string",
    typed: false,
    runs: &[&[(S0, "p00='\\user\\bob'", "result='\\user\\bob'")]],
}];

//! Esper's `TestAccessAggFirstLastWindow` (`regression/view` at `aaa35756`): `first(x)` and `last(x)`, the value of `x`
//! of the oldest and of the newest event in the group's data window, and `first(x, n)` and `last(x, n)`, of the event
//! `n` places in from either end; over a stream without a data window they are Esper's `firstever` and `lastever`. With
//! them `nth(x, n)`, which reads as `last(x, n)` (`testPrevNthIndexedFirstLast`, and Esper's `TestAggregateNTh`). Then
//! one case of the subset's own, on nulls, which no test of Esper's sends.

use super::{ExprCase, SB, Sent};

/// `TestAccessAggFirstLastWindow`, `SupportBean` sent as `(theString, intPrimitive)` (`testUnboundedStream`'s also with
/// `doublePrimitive`). Esper asserts each event's new row (and `testBatchWindow`'s old rows, which are not delivered
/// here); it asserts no column types. Without `window(...)`'s columns (`allint`, `ws`, `wi`: their values are lists,
/// which the subset refuses), the object models (the same statements), the reclaim hints of `testWindowedGrouped` (the
/// same rows), `testFirstLastIndexed`'s join and variable index (the subset's first and last take no join and a
/// constant index only), the `*` and `sb.*` forms (an event as a value), and the statements Esper compiles and asserts
/// nothing of. Without the other tests: `testNoParamChainedAndProperty` (methods on the event), `testInvalid` (errors,
/// no rows), `testSubquery`, `testMethodAndAccessTogether`, `testOutputRateLimiting` and
/// `testTypeAndColNameAndEquivalency` (`window`, events as values, a Java method), `testStar` (events as values),
/// `testJoin2Access` and `testOuterJoin1Access` (joins), `testLateInitialize`, `testOnDelete` and
/// `testLastMaxMixedOnSelect` (named windows), and `testOnDemandQuery` (fire-and-forget queries). Nor
/// `TestAggregateLocalGroupBy` (`group_by:`); `TestDistinct.testBatchWindow`'s `first` is among the `DISTINCT` cases.
/// `testWindowedGrouped` is here up to its last event, which gives a row for the group an event left as well as the
/// arriving event's: the whole test is in [`FIRST_LAST_DIFFERING`]. The last case is the subset's own: Esper 5's
/// `AggregationStateImpl` returns the value of the oldest or newest event as it is, null too.
pub(super) const FIRST_LAST: [ExprCase; 9] = [
    ExprCase {
        test: "TestAccessAggFirstLastWindow.testWindowedUnGrouped",
        select: "first(theString) as firststring, last(theString) as laststring, first(intPrimitive) as firstint, \
                 last(intPrimitive) as lastint from SupportBean.win:length(2)",
        columns: "firststring string, laststring string, firstint int, lastint int",
        typed: false,
        runs: &[&[
            (SB, "theString='E1',intPrimitive=10", "firststring='E1' laststring='E1' firstint=10 lastint=10"),
            (SB, "theString='E2',intPrimitive=11", "firststring='E1' laststring='E2' firstint=10 lastint=11"),
            (SB, "theString='E3',intPrimitive=12", "firststring='E2' laststring='E3' firstint=11 lastint=12"),
            (SB, "theString='E4',intPrimitive=13", "firststring='E3' laststring='E4' firstint=12 lastint=13"),
        ]],
    },
    // The first six events of the test: at the sixth, E1/10 leaves the window, out of the arriving event's group.
    ExprCase {
        test: "TestAccessAggFirstLastWindow.testWindowedGrouped",
        select: "theString, first(theString) as firststring, last(theString) as laststring, first(intPrimitive) as \
                 firstint, last(intPrimitive) as lastint from SupportBean.win:length(5) group by theString order by \
                 theString",
        columns: "theString string, firststring string, laststring string, firstint int, lastint int",
        typed: false,
        runs: &[WINDOWED_GROUPED.split_at(6).0],
    },
    // The first statement, over a length window alone.
    ExprCase {
        test: "TestAccessAggFirstLastWindow.testFirstLastIndexed",
        select: "first(intPrimitive, 0) as f0, first(intPrimitive, 1) as f1, first(intPrimitive, 2) as f2, \
                 first(intPrimitive, 3) as f3, last(intPrimitive, 0) as l0, last(intPrimitive, 1) as l1, \
                 last(intPrimitive, 2) as l2, last(intPrimitive, 3) as l3 from SupportBean.win:length(3)",
        columns: "f0 int, f1 int, f2 int, f3 int, l0 int, l1 int, l2 int, l3 int",
        typed: false,
        runs: &[&[
            (SB, "theString='E1',intPrimitive=10", "f0=10 f1=null f2=null f3=null l0=10 l1=null l2=null l3=null"),
            (SB, "theString='E2',intPrimitive=11", "f0=10 f1=11 f2=null f3=null l0=11 l1=10 l2=null l3=null"),
            (SB, "theString='E3',intPrimitive=12", "f0=10 f1=11 f2=12 f3=null l0=12 l1=11 l2=10 l3=null"),
            (SB, "theString='E4',intPrimitive=13", "f0=11 f1=12 f2=13 f3=null l0=13 l1=12 l2=11 l3=null"),
        ]],
    },
    ExprCase {
        test: "TestAccessAggFirstLastWindow.testPrevNthIndexedFirstLast",
        select: "prev(intPrimitive, 0) as p0, prev(intPrimitive, 1) as p1, prev(intPrimitive, 2) as p2, \
                 nth(intPrimitive, 0) as n0, nth(intPrimitive, 1) as n1, nth(intPrimitive, 2) as n2, \
                 last(intPrimitive, 0) as l1, last(intPrimitive, 1) as l2, last(intPrimitive, 2) as l3 from \
                 SupportBean.win:length(3)",
        columns: "p0 int, p1 int, p2 int, n0 int, n1 int, n2 int, l1 int, l2 int, l3 int",
        typed: false,
        runs: &[&[
            (SB, "theString='E1',intPrimitive=10", "p0=10 p1=null p2=null n0=10 n1=null n2=null l1=10 l2=null l3=null"),
            (SB, "theString='E2',intPrimitive=11", "p0=11 p1=10 p2=null n0=11 n1=10 n2=null l1=11 l2=10 l3=null"),
            (SB, "theString='E3',intPrimitive=12", "p0=12 p1=11 p2=10 n0=12 n1=11 n2=10 l1=12 l2=11 l3=10"),
            (SB, "theString='E4',intPrimitive=13", "p0=13 p1=12 p2=11 n0=13 n1=12 n2=11 l1=13 l2=12 l3=11"),
        ]],
    },
    // Without the `first(sb.*) as f2`, `first(*) as f3`, `last(sb.*) as l2` and `last(*) as l3` columns: no data
    // window, so `first` is the first event's value ever and `last` the latest's.
    ExprCase {
        test: "TestAccessAggFirstLastWindow.testUnboundedStream",
        select: "first(theString) as f1, last(theString) as l1 from SupportBean as sb",
        columns: "f1 string, l1 string",
        typed: false,
        runs: &[&[
            (SB, "theString='E1',intPrimitive=1,doublePrimitive=1", "f1='E1' l1='E1'"),
            (SB, "theString='E2',intPrimitive=2,doublePrimitive=2", "f1='E1' l1='E2'"),
            (SB, "theString='E3',intPrimitive=3,doublePrimitive=3", "f1='E1' l1='E3'"),
        ]],
    },
    // Without `window(theString) as ws`; the old rows (the batch before) are not delivered here.
    ExprCase {
        test: "TestAccessAggFirstLastWindow.testBatchWindow",
        select: "irstream first(theString) as fs, last(theString) as ls from SupportBean.win:length_batch(2) as sb",
        columns: "fs string, ls string",
        typed: false,
        runs: &[&[
            (SB, "theString='E1'", "-"),
            (SB, "theString='E2'", "fs='E1' ls='E2'"),
            (SB, "theString='E3'", "-"),
            (SB, "theString='E4'", "fs='E3' ls='E4'"),
            (SB, "theString='E5'", "-"),
            (SB, "theString='E6'", "fs='E5' ls='E6'"),
        ]],
    },
    // Without `window(intPrimitive) as wi`: the second release gives the groups it emptied, null.
    ExprCase {
        test: "TestAccessAggFirstLastWindow.testBatchWindowGrouped",
        select: "theString, first(intPrimitive) as fi, last(intPrimitive) as li from SupportBean.win:length_batch(6) \
                 as sb group by theString order by theString asc",
        columns: "theString string, fi int, li int",
        typed: false,
        runs: &[&[
            (SB, "theString='E1',intPrimitive=10", "-"),
            (SB, "theString='E2',intPrimitive=20", "-"),
            (SB, "theString='E1',intPrimitive=11", "-"),
            (SB, "theString='E3',intPrimitive=30", "-"),
            (SB, "theString='E3',intPrimitive=31", "-"),
            (
                SB,
                "theString='E1',intPrimitive=12",
                "theString='E1' fi=10 li=12 | theString='E2' fi=20 li=20 | theString='E3' fi=30 li=31",
            ),
            (SB, "theString='E1',intPrimitive=13", "-"),
            (SB, "theString='E1',intPrimitive=14", "-"),
            (SB, "theString='E1',intPrimitive=15", "-"),
            (SB, "theString='E1',intPrimitive=16", "-"),
            (SB, "theString='E1',intPrimitive=17", "-"),
            (
                SB,
                "theString='E1',intPrimitive=18",
                "theString='E1' fi=13 li=18 | theString='E2' fi=null li=null | theString='E3' fi=null li=null",
            ),
        ]],
    },
    ExprCase {
        test: "TestAggregateNTh.testNth",
        select: "theString, nth(intPrimitive, 0) as int1, nth(intPrimitive, 1) as int2 from \
                 SupportBean.win:keepall() group by theString output last every 3 events order by theString",
        columns: "theString string, int1 int, int2 int",
        typed: false,
        runs: &[&[
            (SB, "theString='G1',intPrimitive=10", "-"),
            (SB, "theString='G2',intPrimitive=11", "-"),
            (SB, "theString='G1',intPrimitive=12", "theString='G1' int1=12 int2=10 | theString='G2' int1=11 int2=null"),
            (SB, "theString='G2',intPrimitive=30", "-"),
            (SB, "theString='G2',intPrimitive=20", "-"),
            (SB, "theString='G2',intPrimitive=25", "theString='G2' int1=25 int2=20"),
            (SB, "theString='G1',intPrimitive=-1", "-"),
            (SB, "theString='G1',intPrimitive=-2", "-"),
            (SB, "theString='G2',intPrimitive=8", "theString='G1' int1=-2 int2=-1 | theString='G2' int1=8 int2=25"),
        ]],
    },
    // `intBoxed` is null where the event does not give it: a null value is the oldest's or the newest's as well.
    ExprCase {
        test: "nulls (the subset's own, by Esper 5's AggregationStateImpl)",
        select: "first(intBoxed) as f, last(intBoxed) as l from SupportBean.win:length(2)",
        columns: "f int, l int",
        typed: false,
        runs: &[&[
            (SB, "theString='E1'", "f=null l=null"),
            (SB, "theString='E2',intBoxed=5", "f=null l=5"),
            (SB, "theString='E3'", "f=5 l=null"),
        ]],
    },
];

/// `TestAccessAggFirstLastWindow.testWindowedGrouped` whole, without `allint` as in [`FIRST_LAST`]. At the seventh
/// event E2/11 leaves the window, and Esper gives E2's new row along with E1's, the arriving event's; the contract's
/// "Without OUTPUT" rule gives the arriving event's group alone. So this case belongs with [`super::DIFFERING`],
/// its rows Esper's and its test ignored.
pub(super) const FIRST_LAST_DIFFERING: [ExprCase; 1] = [ExprCase {
    test: "TestAccessAggFirstLastWindow.testWindowedGrouped",
    select: "theString, first(theString) as firststring, last(theString) as laststring, first(intPrimitive) as \
             firstint, last(intPrimitive) as lastint from SupportBean.win:length(5) group by theString order by \
             theString",
    columns: "theString string, firststring string, laststring string, firstint int, lastint int",
    typed: false,
    runs: &[WINDOWED_GROUPED],
}];

/// `testWindowedGrouped`'s events and the rows Esper asserts: the first six in [`FIRST_LAST`], all seven in
/// [`FIRST_LAST_DIFFERING`].
const WINDOWED_GROUPED: &[Sent] = &[
    (SB, "theString='E1',intPrimitive=10", "theString='E1' firststring='E1' laststring='E1' firstint=10 lastint=10"),
    (SB, "theString='E2',intPrimitive=11", "theString='E2' firststring='E2' laststring='E2' firstint=11 lastint=11"),
    (SB, "theString='E1',intPrimitive=12", "theString='E1' firststring='E1' laststring='E1' firstint=10 lastint=12"),
    (SB, "theString='E2',intPrimitive=13", "theString='E2' firststring='E2' laststring='E2' firstint=11 lastint=13"),
    (SB, "theString='E2',intPrimitive=14", "theString='E2' firststring='E2' laststring='E2' firstint=11 lastint=14"),
    (SB, "theString='E1',intPrimitive=15", "theString='E1' firststring='E1' laststring='E1' firstint=12 lastint=15"),
    (
        SB,
        "theString='E1',intPrimitive=16",
        "theString='E1' firststring='E1' laststring='E1' firstint=12 lastint=16 | theString='E2' \
         firststring='E2' laststring='E2' firstint=13 lastint=14",
    ),
];

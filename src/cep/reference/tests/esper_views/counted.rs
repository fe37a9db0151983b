//! Esper 5's tests of output rate limiting counted in events, `OUTPUT [ALL|FIRST|LAST|SNAPSHOT] EVERY n EVENTS`
//! (`regression/view` and `regression/client` of espertechinc/esper, all at `aaa35756`): `TestOutputLimitSimple`,
//! `TestOutputLimitRowForAll`, `TestOutputLimitAggregateAll`, `TestOutputLimitEventPerGroup`,
//! `TestOutputLimitEventPerRow`, `TestDistinct`, `TestOrderBySimple`, `TestOrderByAggregateAll`,
//! `TestOrderByEventPerRow`, `TestOrderByEventPerGroup`, `TestSubscriberBind` and `TestGroupByEventPerGroup`, each
//! statement over one stream of `SupportBean` or `SupportMarketDataBean`, under `win:length`, `win:time`,
//! `win:keepall` or no view. Esper's `win:time(10)` (seconds) is written `win:time(10 sec)`, its class names are the
//! simple ones, `irstream` is dropped (the new rows Esper asserts are kept; its old rows are not delivered here), and
//! a column Esper names by its text and asserts by that name is named `v` with `as` (as `TestStaticFunctions`' are in
//! `esper_exprs`); a column Esper does not assert is left out of `Out`, and then keeps its text.
//!
//! Each step is one event or one clock move, at Esper's clock (0 where the test never sets it). `-` is a step Esper's
//! assertions find silent: `assertFalse(isInvoked())` or a false `getAndClearIsInvoked()` covers every step since the
//! listener's last reset, as does a `getNewDataListFlattened()`/`getDataListsFlattened()` of the rows since then. `?`
//! is a step Esper asserts nothing of: an event before one whose `getLastNewData()` Esper reads (it sees only the last
//! delivery), and every event of `TestOrderBy*` but the one that releases the batch. Where Esper accepts the rows of a
//! step in either order, the rows are sorted here (every such statement is without `ORDER BY`).
//!
//! Left out: every join (`testAggAllHavingJoin`, `testLimitEventJoin`, `testSimpleJoinAll`, `testSimpleJoinLast`,
//! `testLimitSnapshotJoin`, `testAggregateAllJoin*`, `testJoinLast`, `testJoinAll`, `testJoinDefault`,
//! `testHavingJoin`, `testNoOutputClauseJoin`, the `*Join*` methods of the `TestOrderBy*` classes, the join halves of
//! `TestDistinct`'s two methods, `TestSubscriberBind.testOutputLimitJoin`); the named windows
//! (`testOutputFirstEveryNEvents`, `testOutputFirstHavingJoinNoJoin` of `TestOutputLimitEventPerGroup` and
//! `TestOutputLimitEventPerRow`); `OUTPUT FIRST` with `GROUP BY` or `HAVING` (those same methods,
//! `TestOutputLimitFirstHaving`), which the subset refuses; the pattern under `output every 2 events`
//! (`TestOrderBySimple.testOrderByMultiDelivery`); variables (`every myvar events`, `TestRowLimit`'s variables);
//! `output after` (`TestOutputLimitAfter`); `limit` (`TestRowLimit.testOrderBy`); the plug-in aggregation of
//! `TestOutputLimitRowForAll.testOutputSnapshotGetValue`; the `@Hint('reclaim_group_aged...')` statement of
//! `TestGroupByEventPerGroup.testUnboundStreamIterate`; the object models (`TestOrderBySimple.testDescending_OM`,
//! `TestOrderByEventPerRow.testAliasesAggregationOM`: the same statements as text are here once); iterator
//! assertions; the invalid statements (`TestOrderBySimple.testInvalid`); every test whose rate is a time period
//! (the `test1`..`test18` `ResultAssert` tables and the others), which the time-based tables hold; and two the
//! subset refuses: a snapshot of `win:keepall` (`TestDistinct.testOutputRateSnapshotColumn`) and a nested aggregate
//! (`TestOrderByAggregateAll.testAggregateAllMaxSum`).

use super::{MD, SB, ViewCase};

/// `TestOutputLimitSimple`'s `sendEvent(longBoxed)`: `theString` `KEY`, `intBoxed` 0 (and `shortBoxed` 0, a short,
/// left out: no statement reads it), `longBoxed` 1 then 2; Esper asserts the second's delivery: both rows.
const KEY_1_2_ALL: [(i64, &str, &str, &str); 2] = [
    (0, SB, "theString='KEY',longBoxed=1,intBoxed=0", "-"),
    (0, SB, "theString='KEY',longBoxed=2,intBoxed=0", "longBoxed=1 | longBoxed=2"),
];

/// [`KEY_1_2_ALL`] where the second's delivery is its own row only.
const KEY_1_2_LAST: [(i64, &str, &str, &str); 2] = [
    (0, SB, "theString='KEY',longBoxed=1,intBoxed=0", "-"),
    (0, SB, "theString='KEY',longBoxed=2,intBoxed=0", "longBoxed=2"),
];

/// `TestOutputLimitSimple`: un-aggregated statements. `testAggAllHaving` (no join, for all its name) filters with a
/// `HAVING` of no aggregate. The three statements of `testSimpleNoJoinAll` and the two of `testSimpleNoJoinLast` each
/// start on a fresh engine. `testLimitEventSimple`'s three statements live together and each hears the same events
/// (`sendEvent(s)`: `theString`, `doubleBoxed` 0.0, `intPrimitive` 0, `intBoxed` 0); Esper asserts only how many new
/// rows each delivery holds (and no old), the rows here being those events'. `testLimitSnapshot`'s snapshot is the
/// time window's content whenever three events have come or three have left since the last: at 14 s, `YAH`, `s4` and
/// `s5` leave together (Esper's one expiry at the clock), at 23 s `s6`..`s9` (Esper's one expiry; the reference's
/// timers at 20 s and 21 s give the same release at the second). The clock moves at 2 s and 10 s are not asserted.
pub(super) const OUTPUT_LIMIT_SIMPLE: [ViewCase; 10] = [
    ViewCase {
        test: "TestOutputLimitSimple.testSimpleNoJoinAll (output all)",
        select: "longBoxed FROM SupportBean.win:length(3) output all every 2 events",
        columns: "longBoxed long",
        typed: false,
        steps: &KEY_1_2_ALL,
    },
    ViewCase {
        test: "TestOutputLimitSimple.testSimpleNoJoinAll (output every)",
        select: "longBoxed FROM SupportBean.win:length(3) output every 2 events",
        columns: "longBoxed long",
        typed: false,
        steps: &KEY_1_2_ALL,
    },
    ViewCase {
        test: "TestOutputLimitSimple.testSimpleNoJoinAll (select *)",
        select: "* FROM SupportBean.win:length(3) output every 2 events",
        columns: "longBoxed long",
        typed: false,
        steps: &KEY_1_2_ALL,
    },
    ViewCase {
        test: "TestOutputLimitSimple.testSimpleNoJoinLast",
        select: "longBoxed FROM SupportBean.win:length(3) output last every 2 events",
        columns: "longBoxed long",
        typed: false,
        steps: &KEY_1_2_LAST,
    },
    ViewCase {
        test: "TestOutputLimitSimple.testSimpleNoJoinLast (select *)",
        select: "* FROM SupportBean.win:length(3) output last every 2 events",
        columns: "longBoxed long",
        typed: false,
        steps: &KEY_1_2_LAST,
    },
    ViewCase {
        test: "TestOutputLimitSimple.testLimitEventSimple (every 1)",
        select: "* FROM SupportBean.win:length(5) output every 1 events",
        columns: "theString string",
        typed: false,
        steps: &[
            (0, SB, "theString='IBM',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "theString='IBM'"),
            (0, SB, "theString='MSFT',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "theString='MSFT'"),
            (0, SB, "theString='YAH',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "theString='YAH'"),
        ],
    },
    ViewCase {
        test: "TestOutputLimitSimple.testLimitEventSimple (every 2)",
        select: "* FROM SupportBean.win:length(5) output every 2 events",
        columns: "theString string",
        typed: false,
        steps: &[
            (0, SB, "theString='IBM',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (0, SB, "theString='MSFT',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "theString='IBM' | theString='MSFT'"),
            (0, SB, "theString='YAH',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
        ],
    },
    ViewCase {
        test: "TestOutputLimitSimple.testLimitEventSimple (every 3)",
        select: "* FROM SupportBean.win:length(5) output every 3 events",
        columns: "theString string",
        typed: false,
        steps: &[
            (0, SB, "theString='IBM',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (0, SB, "theString='MSFT',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (
                0,
                SB,
                "theString='YAH',doubleBoxed=0.0,intPrimitive=0,intBoxed=0",
                "theString='IBM' | theString='MSFT' | theString='YAH'",
            ),
        ],
    },
    ViewCase {
        test: "TestOutputLimitSimple.testAggAllHaving",
        select: "symbol, volume FROM SupportMarketDataBean.win:length(10) as two having volume > 0 output every 5 events",
        columns: "symbol string, volume long",
        typed: false,
        steps: &[
            (0, MD, "symbol='S0',volume=20", "-"),
            (0, MD, "symbol='IBM',volume=-1", "-"),
            (0, MD, "symbol='MSFT',volume=-2", "-"),
            (0, MD, "symbol='YAH',volume=10", "-"),
            (0, MD, "symbol='IBM',volume=0", "symbol='S0' volume=20 | symbol='YAH' volume=10"),
        ],
    },
    ViewCase {
        test: "TestOutputLimitSimple.testLimitSnapshot",
        select: "* FROM SupportBean.win:time(10 sec) output snapshot every 3 events",
        columns: "theString string",
        typed: false,
        steps: &[
            (1_000, "", "", "-"),
            (1_000, SB, "theString='IBM',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (1_000, SB, "theString='MSFT',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (2_000, "", "", "?"),
            (
                2_000,
                SB,
                "theString='YAH',doubleBoxed=0.0,intPrimitive=0,intBoxed=0",
                "theString='IBM' | theString='MSFT' | theString='YAH'",
            ),
            (3_000, "", "", "-"),
            (3_000, SB, "theString='s4',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (3_000, SB, "theString='s5',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (10_000, "", "", "?"),
            (
                10_000,
                SB,
                "theString='s6',doubleBoxed=0.0,intPrimitive=0,intBoxed=0",
                "theString='IBM' | theString='MSFT' | theString='YAH' | theString='s4' | theString='s5' | \
                 theString='s6'",
            ),
            (11_000, "", "", "-"),
            (11_000, SB, "theString='s7',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (11_000, SB, "theString='s8',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (
                11_000,
                SB,
                "theString='s9',doubleBoxed=0.0,intPrimitive=0,intBoxed=0",
                "theString='YAH' | theString='s4' | theString='s5' | theString='s6' | theString='s7' | \
                 theString='s8' | theString='s9'",
            ),
            (14_000, "", "", "theString='s6' | theString='s7' | theString='s8' | theString='s9'"),
            (14_000, SB, "theString='s10',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (14_000, SB, "theString='s11',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
            (23_000, "", "", "theString='s10' | theString='s11'"),
            (23_000, SB, "theString='s12',doubleBoxed=0.0,intPrimitive=0,intBoxed=0", "-"),
        ],
    },
];

/// `TestOutputLimitRowForAll.testAggAllHaving`: one row per event of the five, each with the sum as that event left
/// it (20, -80, -80, -80, -80), and only the first passes the `HAVING`. Esper's `sendMDEvent(volume)`: symbol `S0`,
/// price 0, no feed.
pub(super) const OUTPUT_LIMIT_ROW_FOR_ALL: [ViewCase; 1] = [ViewCase {
    test: "TestOutputLimitRowForAll.testAggAllHaving",
    select: "sum(volume) as result FROM SupportMarketDataBean.win:length(10) as two having sum(volume) > 0 output \
             every 5 events",
    columns: "result long",
    typed: false,
    steps: &[
        (0, MD, "symbol='S0',price=0,volume=20", "-"),
        (0, MD, "symbol='S0',price=0,volume=-100", "-"),
        (0, MD, "symbol='S0',price=0,volume=0", "-"),
        (0, MD, "symbol='S0',price=0,volume=0", "-"),
        (0, MD, "symbol='S0',price=0,volume=0", "result=20"),
    ],
}];

/// `TestOutputLimitAggregateAll`: `testAggregateAllNoJoinLast`'s two statements (with and without a `HAVING`, each on
/// a fresh engine, the events of [`KEY_1_2_LAST`]): the last row, with the sum of both; and `testCount`, `OUTPUT
/// FIRST EVERY 3 EVENTS` without groups: the first event of each three goes out as it comes, with the sum over the
/// window (`DELL` events, price 0, no feed), the next two are only summed. Esper asserts `testCount`'s column by its
/// text, `sum(volume)`, and not `symbol`.
pub(super) const OUTPUT_LIMIT_AGGREGATE_ALL: [ViewCase; 3] = [
    ViewCase {
        test: "TestOutputLimitAggregateAll.testAggregateAllNoJoinLast (having)",
        select: "longBoxed, sum(longBoxed) as result FROM SupportBean.win:length(3) having sum(longBoxed) > 0 output \
                 last every 2 events",
        columns: "longBoxed long, result long",
        typed: false,
        steps: &[
            (0, SB, "theString='KEY',longBoxed=1,intBoxed=0", "-"),
            (0, SB, "theString='KEY',longBoxed=2,intBoxed=0", "longBoxed=2 result=3"),
        ],
    },
    ViewCase {
        test: "TestOutputLimitAggregateAll.testAggregateAllNoJoinLast",
        select: "longBoxed, sum(longBoxed) as result FROM SupportBean.win:length(3) output last every 2 events",
        columns: "longBoxed long, result long",
        typed: false,
        steps: &[
            (0, SB, "theString='KEY',longBoxed=1,intBoxed=0", "-"),
            (0, SB, "theString='KEY',longBoxed=2,intBoxed=0", "longBoxed=2 result=3"),
        ],
    },
    ViewCase {
        test: "TestOutputLimitAggregateAll.testCount",
        select: "symbol, sum(volume) as v FROM SupportMarketDataBean.win:length(5) output first every 3 events",
        columns: "v long",
        typed: false,
        steps: &[
            (0, MD, "symbol='DELL',price=0,volume=10", "v=10"),
            (0, MD, "symbol='DELL',price=0,volume=20", "-"),
            (0, MD, "symbol='DELL',price=0,volume=30", "-"),
            (0, MD, "symbol='DELL',price=0,volume=40", "v=100"),
            (0, MD, "symbol='DELL',price=0,volume=50", "-"),
        ],
    },
];

/// The five events of `testGroupBy_All` and `testGroupBy_Default` (`sendMDEvent(symbol, price)`: volume 0, no feed):
/// Esper asserts only the fifth's delivery, after `assertTrue(getAndClearIsInvoked())`.
macro_rules! ibm_hp_mac {
    ($rows:expr) => {
        &[
            (0, MD, "symbol='IBM',price=1,volume=0", "?"),
            (0, MD, "symbol='IBM',price=2,volume=0", "?"),
            (0, MD, "symbol='HP',price=1,volume=0", "?"),
            (0, MD, "symbol='IBM',price=3,volume=0", "?"),
            (0, MD, "symbol='MAC',price=1,volume=0", $rows),
        ]
    };
}

/// `TestOutputLimitEventPerGroup`: fully aggregated and grouped. `OUTPUT ALL` gives every group seen so far with its
/// current sum, the default every event's group row as that event left it, `LAST` each group's row at the batch's
/// end. `testNoJoinAll` matches its two groups' rows by their old rows' symbols, in either order; it and
/// `testNoJoinLast` assert the columns' types. `testWildcardEventPerGroup` is two statements, one after the other,
/// `SELECT *` grouped without aggregates, asserted through `getNewDataListFlattened()`: `LAST` gives each group's last
/// event, in `ORDER BY` order; `ALL` every event ("All means each event").
pub(super) const OUTPUT_LIMIT_EVENT_PER_GROUP: [ViewCase; 6] = [
    ViewCase {
        test: "TestOutputLimitEventPerGroup.testGroupBy_All",
        select: "symbol, sum(price) as v FROM SupportMarketDataBean.win:length(5) group by symbol output all every 5 \
                 events",
        columns: "symbol string, v double",
        typed: false,
        steps: ibm_hp_mac!("symbol='IBM' v=6.0 | symbol='HP' v=1.0 | symbol='MAC' v=1.0"),
    },
    ViewCase {
        test: "TestOutputLimitEventPerGroup.testGroupBy_Default",
        select: "symbol, sum(price) as v FROM SupportMarketDataBean.win:length(5) group by symbol output every 5 events",
        columns: "symbol string, v double",
        typed: false,
        steps: ibm_hp_mac!(
            "symbol='IBM' v=1.0 | symbol='IBM' v=3.0 | symbol='HP' v=1.0 | symbol='IBM' v=6.0 | symbol='MAC' v=1.0"
        ),
    },
    ViewCase {
        test: "TestOutputLimitEventPerGroup.testNoJoinLast",
        select: "symbol, sum(price) as mySum, avg(price) as myAvg FROM SupportMarketDataBean.win:length(3) where \
                 symbol='DELL' or symbol='IBM' or symbol='GE' group by symbol output last every 2 events",
        columns: "symbol string, mySum double, myAvg double",
        typed: true,
        steps: &[
            (0, MD, "symbol='DELL',price=10,volume=0", "-"),
            (0, MD, "symbol='DELL',price=20,volume=0", "symbol='DELL' mySum=30.0 myAvg=15.0"),
            (0, MD, "symbol='DELL',price=100,volume=0", "-"),
            (0, MD, "symbol='DELL',price=50,volume=0", "symbol='DELL' mySum=170.0 myAvg=56.666666666666664"),
        ],
    },
    ViewCase {
        test: "TestOutputLimitEventPerGroup.testNoJoinAll",
        select: "symbol, sum(price) as mySum, avg(price) as myAvg FROM SupportMarketDataBean.win:length(5) where \
                 symbol='DELL' or symbol='IBM' or symbol='GE' group by symbol output all every 2 events",
        columns: "symbol string, mySum double, myAvg double",
        typed: true,
        steps: &[
            (0, MD, "symbol='IBM',price=70,volume=0", "-"),
            (
                0,
                MD,
                "symbol='DELL',price=10,volume=0",
                "symbol='IBM' mySum=70.0 myAvg=70.0 | symbol='DELL' mySum=10.0 myAvg=10.0",
            ),
            (0, MD, "symbol='DELL',price=20,volume=0", "-"),
            (
                0,
                MD,
                "symbol='DELL',price=100,volume=0",
                "symbol='IBM' mySum=70.0 myAvg=70.0 | symbol='DELL' mySum=130.0 myAvg=43.333333333333336",
            ),
        ],
    },
    ViewCase {
        test: "TestOutputLimitEventPerGroup.testWildcardEventPerGroup (output last)",
        select: "* FROM SupportBean group by theString output last every 3 events order by theString asc",
        columns: "theString string, intPrimitive int",
        typed: false,
        steps: &[
            (0, SB, "theString='IBM',intPrimitive=10", "-"),
            (0, SB, "theString='ATT',intPrimitive=11", "-"),
            (
                0,
                SB,
                "theString='IBM',intPrimitive=100",
                "theString='ATT' intPrimitive=11 | theString='IBM' intPrimitive=100",
            ),
        ],
    },
    ViewCase {
        test: "TestOutputLimitEventPerGroup.testWildcardEventPerGroup (output all)",
        select: "* FROM SupportBean group by theString output all every 3 events",
        columns: "theString string, intPrimitive int",
        typed: false,
        steps: &[
            (0, SB, "theString='IBM',intPrimitive=10", "-"),
            (0, SB, "theString='ATT',intPrimitive=11", "-"),
            (
                0,
                SB,
                "theString='IBM',intPrimitive=100",
                "theString='IBM' intPrimitive=10 | theString='ATT' intPrimitive=11 | theString='IBM' intPrimitive=100",
            ),
        ],
    },
];

/// `TestOutputLimitEventPerRow`: aggregated and grouped with an ungrouped column, one row per event. Esper's
/// `sendEvent(symbol, volume, price)`, no feed. `testHaving` is over a ten-second time window: its rows pass the
/// `HAVING` on the sum as their event left it; by 11 s the three events sent at 0 have left (at 10 s), three old
/// events that release the buffer: Esper asserts only the old rows then (by the code the new stream is null). `testNoJoinDefault` and `testNoJoinAll` assert the columns' types and accept the first delivery's
/// rows in either order, `testNoJoinAll` its last's too (`IBM` first or last), and `testNoJoinLast` its second's.
pub(super) const OUTPUT_LIMIT_EVENT_PER_ROW: [ViewCase; 4] = [
    ViewCase {
        test: "TestOutputLimitEventPerRow.testHaving",
        select: "symbol, volume, sum(price) as sumprice FROM SupportMarketDataBean.win:time(10 sec) group by symbol \
                 having sum(price) >= 10 output every 3 events",
        columns: "symbol string, volume long, sumprice double",
        typed: false,
        steps: &[
            (0, MD, "symbol='IBM',price=5,volume=1", "-"),
            (0, MD, "symbol='IBM',price=6,volume=2", "-"),
            (0, MD, "symbol='IBM',price=-3,volume=3", "symbol='IBM' volume=2 sumprice=11.0"),
            (5_000, "", "", "-"),
            (5_000, MD, "symbol='IBM',price=10,volume=4", "-"),
            (5_000, MD, "symbol='IBM',price=0,volume=5", "-"),
            (
                5_000,
                MD,
                "symbol='IBM',price=1,volume=6",
                "symbol='IBM' volume=4 sumprice=18.0 | symbol='IBM' volume=5 sumprice=18.0 | symbol='IBM' volume=6 \
                 sumprice=19.0",
            ),
            (11_000, "", "", "?"),
        ],
    },
    ViewCase {
        test: "TestOutputLimitEventPerRow.testNoJoinDefault",
        select: "symbol, volume, sum(price) as mySum FROM SupportMarketDataBean.win:length(5) where symbol='DELL' or \
                 symbol='IBM' or symbol='GE' group by symbol output every 2 events",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        steps: &[
            (0, MD, "symbol='IBM',price=20,volume=500", "-"),
            (
                0,
                MD,
                "symbol='DELL',price=51,volume=10000",
                "symbol='IBM' volume=500 mySum=20.0 | symbol='DELL' volume=10000 mySum=51.0",
            ),
            (0, MD, "symbol='DELL',price=52,volume=20000", "-"),
            (
                0,
                MD,
                "symbol='DELL',price=45,volume=40000",
                "symbol='DELL' volume=20000 mySum=103.0 | symbol='DELL' volume=40000 mySum=148.0",
            ),
        ],
    },
    ViewCase {
        test: "TestOutputLimitEventPerRow.testNoJoinAll",
        select: "symbol, volume, sum(price) as mySum FROM SupportMarketDataBean.win:length(5) where symbol='DELL' or \
                 symbol='IBM' or symbol='GE' group by symbol output all every 2 events",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        steps: &[
            (0, MD, "symbol='IBM',price=20,volume=500", "-"),
            (
                0,
                MD,
                "symbol='DELL',price=51,volume=10000",
                "symbol='IBM' volume=500 mySum=20.0 | symbol='DELL' volume=10000 mySum=51.0",
            ),
            (0, MD, "symbol='DELL',price=52,volume=20000", "-"),
            (
                0,
                MD,
                "symbol='DELL',price=45,volume=40000",
                "symbol='IBM' volume=500 mySum=20.0 | symbol='DELL' volume=20000 mySum=103.0 | symbol='DELL' \
                 volume=40000 mySum=148.0",
            ),
        ],
    },
    ViewCase {
        test: "TestOutputLimitEventPerRow.testNoJoinLast",
        select: "symbol, volume, sum(price) as mySum FROM SupportMarketDataBean.win:length(5) where symbol='DELL' or \
                 symbol='IBM' or symbol='GE' group by symbol output last every 2 events",
        columns: "symbol string, volume long, mySum double",
        typed: false,
        steps: &[
            (0, MD, "symbol='DELL',price=51,volume=10000", "-"),
            (0, MD, "symbol='DELL',price=52,volume=20000", "symbol='DELL' volume=20000 mySum=103.0"),
            (0, MD, "symbol='DELL',price=70,volume=30000", "-"),
            (
                0,
                MD,
                "symbol='IBM',price=20,volume=10000",
                "symbol='DELL' volume=30000 mySum=173.0 | symbol='IBM' volume=10000 mySum=20.0",
            ),
        ],
    },
];

/// `TestDistinct`'s statements without a join: `testOutputLimitEveryColumn` (its `@IterableUnbound` dropped: it
/// changes only the iterator) gives the distinct rows of each three events, in the order they first came;
/// `testOutputRateSnapshotColumn` the distinct rows of the whole window at each third event. Esper reads only the
/// last delivery after the second and third batches, `?` before it.
pub(super) const DISTINCT_COUNTED: [ViewCase; 1] = [ViewCase {
    test: "TestDistinct.testOutputLimitEveryColumn",
    select: "distinct theString, intPrimitive FROM SupportBean output every 3 events",
    columns: "theString string, intPrimitive int",
    typed: false,
    steps: &[
        (0, SB, "theString='E1',intPrimitive=1", "-"),
        (0, SB, "theString='E1',intPrimitive=1", "-"),
        (0, SB, "theString='E2',intPrimitive=2", "theString='E1' intPrimitive=1 | theString='E2' intPrimitive=2"),
        (0, SB, "theString='E2',intPrimitive=2", "?"),
        (0, SB, "theString='E1',intPrimitive=1", "?"),
        (0, SB, "theString='E2',intPrimitive=2", "theString='E2' intPrimitive=2 | theString='E1' intPrimitive=1"),
        (0, SB, "theString='E2',intPrimitive=3", "?"),
        (0, SB, "theString='E2',intPrimitive=3", "?"),
        (0, SB, "theString='E2',intPrimitive=3", "theString='E2' intPrimitive=3"),
    ],
}];

/// `createAndSend`'s symbols by price (`orderValuesByPrice`): ties in arrival order.
const BY_PRICE: &str = "symbol='KGB' | symbol='IBM' | symbol='CMU' | symbol='CAT' | symbol='IBM' | symbol='CAT'";

/// `createAndSend`'s symbols by symbol (`orderValuesBySymbol`, `orderValuesBySymbolPrice`).
const BY_SYMBOL: &str = "symbol='CAT' | symbol='CAT' | symbol='CMU' | symbol='IBM' | symbol='IBM' | symbol='KGB'";

/// `TestOrderBySimple`'s statements under `output every 6 events` without a join: the six rows of `createAndSend`,
/// ordered (a stable sort, ties in arrival order). Esper asserts each of its `assertValues` columns only, and the rest
/// are left out of `Out` (`price` of `testExpressions`' second statement, `1+volume*23`, `myPrice`, `myVol`, and
/// `volume*2` but in `testSimple`, which asserts it). `testDescending` keeps its statements alive together, each
/// created (with its listener) before its six events; `symbol desc` is asserted as the reverse of the ascending order,
/// of which ties change nothing Esper asserts. `testAliasesSimple` has `testAliases`' first four statements (its
/// fifth, without an output clause, is in `ordered.rs`), here once; `testDescending_OM` builds `testDescending`'s
/// first statement.
pub(super) const ORDER_BY_SIMPLE_COUNTED: [ViewCase; 25] = [
    ViewCase {
        test: "TestOrderBySimple.testSimple",
        select: "symbol FROM SupportMarketDataBean.win:length(5) output every 6 events order by price",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_PRICE),
    },
    ViewCase {
        test: "TestOrderBySimple.testSimple (symbol, price)",
        select: "symbol, price FROM SupportMarketDataBean.win:length(5) output every 6 events order by price",
        columns: "symbol string, price double",
        typed: false,
        steps: &created_and_sent!(
            "symbol='KGB' price=1.0 | symbol='IBM' price=2.0 | symbol='CMU' price=3.0 | symbol='CAT' price=5.0 | \
             symbol='IBM' price=6.0 | symbol='CAT' price=6.0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testSimple (symbol, volume)",
        select: "symbol, volume FROM SupportMarketDataBean.win:length(5) output every 6 events order by price",
        columns: "symbol string, volume long",
        typed: false,
        steps: &created_and_sent!(
            "symbol='KGB' volume=0 | symbol='IBM' volume=0 | symbol='CMU' volume=0 | symbol='CAT' volume=0 | \
             symbol='IBM' volume=0 | symbol='CAT' volume=0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testSimple (symbol, volume*2)",
        select: "symbol, volume*2 as v FROM SupportMarketDataBean.win:length(5) output every 6 events order by price",
        columns: "symbol string, v long",
        typed: false,
        steps: &created_and_sent!(
            "symbol='KGB' v=0 | symbol='IBM' v=0 | symbol='CMU' v=0 | symbol='CAT' v=0 | symbol='IBM' v=0 | \
             symbol='CAT' v=0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testSimple (order by symbol)",
        select: "symbol, volume FROM SupportMarketDataBean.win:length(5) output every 6 events order by symbol",
        columns: "symbol string, volume long",
        typed: false,
        steps: &created_and_sent!(
            "symbol='CAT' volume=0 | symbol='CAT' volume=0 | symbol='CMU' volume=0 | symbol='IBM' volume=0 | \
             symbol='IBM' volume=0 | symbol='KGB' volume=0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testSimple (price by symbol)",
        select: "price FROM SupportMarketDataBean.win:length(5) output every 6 events order by symbol",
        columns: "price double",
        typed: false,
        steps: &created_and_sent!("price=6.0 | price=5.0 | price=3.0 | price=2.0 | price=6.0 | price=1.0"),
    },
    ViewCase {
        test: "TestOrderBySimple.testDescending",
        select: "symbol FROM SupportMarketDataBean.win:length(5) output every 6 events order by price desc",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(
            "symbol='IBM' | symbol='CAT' | symbol='CAT' | symbol='CMU' | symbol='IBM' | symbol='KGB'"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testDescending (price desc, symbol asc)",
        select: "symbol FROM SupportMarketDataBean.win:length(5) output every 6 events order by price desc, symbol asc",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(
            "symbol='CAT' | symbol='IBM' | symbol='CAT' | symbol='CMU' | symbol='IBM' | symbol='KGB'"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testDescending (price asc)",
        select: "symbol FROM SupportMarketDataBean.win:length(5) output every 6 events order by price asc",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_PRICE),
    },
    ViewCase {
        test: "TestOrderBySimple.testDescending (symbol desc)",
        select: "symbol, volume FROM SupportMarketDataBean.win:length(5) output every 6 events order by symbol desc",
        columns: "symbol string, volume long",
        typed: false,
        steps: &created_and_sent!(
            "symbol='KGB' volume=0 | symbol='IBM' volume=0 | symbol='IBM' volume=0 | symbol='CMU' volume=0 | \
             symbol='CAT' volume=0 | symbol='CAT' volume=0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testDescending (symbol desc, price desc)",
        select: "symbol, price FROM SupportMarketDataBean.win:length(5) output every 6 events order by symbol desc, \
                 price desc",
        columns: "symbol string, price double",
        typed: false,
        steps: &created_and_sent!(
            "symbol='KGB' price=1.0 | symbol='IBM' price=6.0 | symbol='IBM' price=2.0 | symbol='CMU' price=3.0 | \
             symbol='CAT' price=6.0 | symbol='CAT' price=5.0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testDescending (symbol, price)",
        select: "symbol, price FROM SupportMarketDataBean.win:length(5) output every 6 events order by symbol, price",
        columns: "symbol string, price double",
        typed: false,
        steps: &created_and_sent!(
            "symbol='CAT' price=5.0 | symbol='CAT' price=6.0 | symbol='CMU' price=3.0 | symbol='IBM' price=2.0 | \
             symbol='IBM' price=6.0 | symbol='KGB' price=1.0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testExpressions",
        select: "symbol FROM SupportMarketDataBean.win:length(10) output every 6 events order by (price * 6) + 5",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_PRICE),
    },
    ViewCase {
        test: "TestOrderBySimple.testExpressions (symbol, price)",
        select: "symbol, price FROM SupportMarketDataBean.win:length(10) output every 6 events order by (price * 6) + \
                 5, price",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_PRICE),
    },
    ViewCase {
        test: "TestOrderBySimple.testExpressions (symbol, 1+volume*23)",
        select: "symbol, 1+volume*23 FROM SupportMarketDataBean.win:length(10) output every 6 events order by (price \
                 * 6) + 5, price, volume",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_PRICE),
    },
    ViewCase {
        test: "TestOrderBySimple.testExpressions (order by volume*price, symbol)",
        select: "symbol FROM SupportMarketDataBean.win:length(10) output every 6 events order by volume*price, symbol",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_SYMBOL),
    },
    ViewCase {
        test: "TestOrderBySimple.testAliases",
        select: "symbol as mySymbol FROM SupportMarketDataBean.win:length(5) output every 6 events order by mySymbol",
        columns: "mySymbol string",
        typed: false,
        steps: &created_and_sent!(
            "mySymbol='CAT' | mySymbol='CAT' | mySymbol='CMU' | mySymbol='IBM' | mySymbol='IBM' | mySymbol='KGB'"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testAliases (mySymbol, myPrice)",
        select: "symbol as mySymbol, price as myPrice FROM SupportMarketDataBean.win:length(5) output every 6 events \
                 order by myPrice",
        columns: "mySymbol string, myPrice double",
        typed: false,
        steps: &created_and_sent!(
            "mySymbol='KGB' myPrice=1.0 | mySymbol='IBM' myPrice=2.0 | mySymbol='CMU' myPrice=3.0 | mySymbol='CAT' \
             myPrice=5.0 | mySymbol='IBM' myPrice=6.0 | mySymbol='CAT' myPrice=6.0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testAliases (order by (myPrice * 6) + 5, price)",
        select: "symbol, price as myPrice FROM SupportMarketDataBean.win:length(10) output every 6 events order by \
                 (myPrice * 6) + 5, price",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_PRICE),
    },
    ViewCase {
        test: "TestOrderBySimple.testAliases (myVol)",
        select: "symbol, 1+volume*23 as myVol FROM SupportMarketDataBean.win:length(10) output every 6 events order \
                 by (price * 6) + 5, price, myVol",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_PRICE),
    },
    ViewCase {
        test: "TestOrderBySimple.testMultipleKeys",
        select: "symbol FROM SupportMarketDataBean.win:length(10) output every 6 events order by symbol, price",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_SYMBOL),
    },
    ViewCase {
        test: "TestOrderBySimple.testMultipleKeys (price, symbol, volume)",
        select: "symbol FROM SupportMarketDataBean.win:length(10) output every 6 events order by price, symbol, \
                 volume",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(
            "symbol='KGB' | symbol='IBM' | symbol='CMU' | symbol='CAT' | symbol='CAT' | symbol='IBM'"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testMultipleKeys (symbol, volume*2)",
        select: "symbol, volume*2 FROM SupportMarketDataBean.win:length(10) output every 6 events order by price, \
                 volume",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_PRICE),
    },
    ViewCase {
        test: "TestOrderBySimple.testWildcard",
        select: "* FROM SupportMarketDataBean.win:length(5) output every 6 events order by price",
        columns: "symbol string, price double, volume long",
        typed: false,
        steps: &created_and_sent!(
            "symbol='KGB' price=1.0 volume=0 | symbol='IBM' price=2.0 volume=0 | symbol='CMU' price=3.0 volume=0 | \
             symbol='CAT' price=5.0 volume=0 | symbol='IBM' price=6.0 volume=0 | symbol='CAT' price=6.0 volume=0"
        ),
    },
    ViewCase {
        test: "TestOrderBySimple.testWildcard (order by symbol)",
        select: "* FROM SupportMarketDataBean.win:length(5) output every 6 events order by symbol",
        columns: "symbol string, price double, volume long",
        typed: false,
        steps: &created_and_sent!(
            "symbol='CAT' price=6.0 volume=0 | symbol='CAT' price=5.0 volume=0 | symbol='CMU' price=3.0 volume=0 | \
             symbol='IBM' price=2.0 volume=0 | symbol='IBM' price=6.0 volume=0 | symbol='KGB' price=1.0 volume=0"
        ),
    },
];

/// The six events of `TestOrderByAggregateAll` (but `testAggregateAllOrderFunction`) and of the first batch of
/// `TestOrderByEventPerGroup`: symbol and price, volume 0, no feed, the clock at 0; Esper asserts only the delivery of
/// the sixth, `$rows` (`?` before it).
macro_rules! summed {
    ($rows:expr) => {
        &[
            (0, MD, "symbol='IBM',price=3,volume=0", "?"),
            (0, MD, "symbol='IBM',price=4,volume=0", "?"),
            (0, MD, "symbol='CMU',price=1,volume=0", "?"),
            (0, MD, "symbol='CMU',price=2,volume=0", "?"),
            (0, MD, "symbol='CAT',price=5,volume=0", "?"),
            (0, MD, "symbol='CAT',price=6,volume=0", $rows),
        ]
    };
}

/// The rows of [`summed!`]'s events in `TestOrderByAggregateAll`, `symbol` and the sum as each event left it, by
/// symbol (`v` for Esper's `sum(price)` and `max(sum(price))`).
const SUMS_BY_SYMBOL: &str = "symbol='CAT' v=15.0 | symbol='CAT' v=21.0 | symbol='CMU' v=8.0 | symbol='CMU' v=10.0 | \
                              symbol='IBM' v=3.0 | symbol='IBM' v=7.0";

/// `TestOrderByAggregateAll`'s statements without a join: aggregated without groups, one row per event with the sum
/// over the window as that event left it, released at the sixth event and ordered by symbol (ties in arrival order).
/// `testAggregateAllOrderFunction` orders by `volume*sum(price)`, zero for every row, then symbol, and asserts the
/// symbols only.
pub(super) const ORDER_BY_AGGREGATE_ALL: [ViewCase; 5] = [
    ViewCase {
        test: "TestOrderByAggregateAll.testAliases",
        select: "symbol as mySymbol, sum(price) as mySum FROM SupportMarketDataBean.win:length(10) output every 6 \
                 events order by mySymbol",
        columns: "mySymbol string, mySum double",
        typed: false,
        steps: summed!(
            "mySymbol='CAT' mySum=15.0 | mySymbol='CAT' mySum=21.0 | mySymbol='CMU' mySum=8.0 | mySymbol='CMU' \
             mySum=10.0 | mySymbol='IBM' mySum=3.0 | mySymbol='IBM' mySum=7.0"
        ),
    },
    ViewCase {
        test: "TestOrderByAggregateAll.testAggregateAllOrderFunction",
        select: "symbol, sum(price) FROM SupportMarketDataBean.win:length(10) output every 6 events order by \
                 volume*sum(price), symbol",
        columns: "symbol string",
        typed: false,
        steps: &created_and_sent!(BY_SYMBOL),
    },
    ViewCase {
        test: "TestOrderByAggregateAll.testAggregateAllSum",
        select: "symbol, sum(price) as v FROM SupportMarketDataBean.win:length(10) output every 6 events order by \
                 symbol",
        columns: "symbol string, v double",
        typed: false,
        steps: summed!(SUMS_BY_SYMBOL),
    },
    ViewCase {
        test: "TestOrderByAggregateAll.testAggregateAllSumHaving",
        select: "symbol, sum(price) as v FROM SupportMarketDataBean.win:length(10) having sum(price) > 0 output every \
                 6 events order by symbol",
        columns: "symbol string, v double",
        typed: false,
        steps: summed!(SUMS_BY_SYMBOL),
    },
    ViewCase {
        test: "TestOrderByAggregateAll.testAggOrderWithSum",
        select: "symbol, sum(price) as v FROM SupportMarketDataBean.win:length(10) output every 6 events order by \
                 symbol, sum(price)",
        columns: "symbol string, v double",
        typed: false,
        steps: summed!(SUMS_BY_SYMBOL),
    },
];

/// `TestOrderByEventPerRow`'s `runAssertionDefault` events (`sendEvent(symbol, volume, price)`, no feed, the clock at
/// 0); Esper asserts only the delivery of the sixth, `$rows` (`?` before it).
macro_rules! with_volumes {
    ($rows:expr) => {
        &[
            (0, MD, "symbol='IBM',price=3,volume=110", "?"),
            (0, MD, "symbol='IBM',price=4,volume=120", "?"),
            (0, MD, "symbol='CMU',price=1,volume=130", "?"),
            (0, MD, "symbol='CMU',price=2,volume=140", "?"),
            (0, MD, "symbol='CAT',price=5,volume=150", "?"),
            (0, MD, "symbol='CAT',price=6,volume=160", $rows),
        ]
    };
}

/// `runAssertionDefault`'s rows: each event's, with its group's sum as it left it, by that sum and symbol.
const PER_ROW_BY_SUM: &str = "symbol='CMU' volume=130 mySum=1.0 | symbol='CMU' volume=140 mySum=3.0 | symbol='IBM' \
                              volume=110 mySum=3.0 | symbol='CAT' volume=150 mySum=5.0 | symbol='IBM' volume=120 \
                              mySum=7.0 | symbol='CAT' volume=160 mySum=11.0";

/// `TestOrderByEventPerRow`'s statements without a join: grouped with an ungrouped column (`volume`, or in
/// `testGroupBySwitch` only in the `ORDER BY`), one row per event. `testAliasesAggregationCompile` creates its
/// statement from the text's object model (`testAliasesAggregationOM` builds the same statement). `testLast` gives
/// each group's last event of each six, with its sum; Esper reads the delivery of the sixth and of the twelfth.
pub(super) const ORDER_BY_EVENT_PER_ROW: [ViewCase; 4] = [
    ViewCase {
        test: "TestOrderByEventPerRow.testAliasesAggregationCompile",
        select: "symbol, volume, sum(price) as mySum FROM SupportMarketDataBean.win:length(20) group by symbol output \
                 every 6 events order by sum(price), symbol",
        columns: "symbol string, volume long, mySum double",
        typed: false,
        steps: with_volumes!(PER_ROW_BY_SUM),
    },
    ViewCase {
        test: "TestOrderByEventPerRow.testAliases",
        select: "symbol, volume, sum(price) as mySum FROM SupportMarketDataBean.win:length(20) group by symbol output \
                 every 6 events order by mySum, symbol",
        columns: "symbol string, volume long, mySum double",
        typed: false,
        steps: with_volumes!(PER_ROW_BY_SUM),
    },
    ViewCase {
        test: "TestOrderByEventPerRow.testGroupBySwitch",
        select: "symbol, sum(price) as v FROM SupportMarketDataBean.win:length(20) group by symbol output every 6 \
                 events order by sum(price), symbol, volume",
        columns: "symbol string, v double",
        typed: false,
        steps: with_volumes!(
            "symbol='CMU' v=1.0 | symbol='CMU' v=3.0 | symbol='IBM' v=3.0 | symbol='CAT' v=5.0 | symbol='IBM' v=7.0 \
             | symbol='CAT' v=11.0"
        ),
    },
    ViewCase {
        test: "TestOrderByEventPerRow.testLast",
        select: "symbol, volume, sum(price) as v FROM SupportMarketDataBean.win:length(20) group by symbol output last \
                 every 6 events order by sum(price)",
        columns: "symbol string, volume long, v double",
        typed: false,
        steps: &[
            (0, MD, "symbol='IBM',price=3,volume=101", "?"),
            (0, MD, "symbol='IBM',price=4,volume=102", "?"),
            (0, MD, "symbol='CMU',price=1,volume=103", "?"),
            (0, MD, "symbol='CMU',price=2,volume=104", "?"),
            (0, MD, "symbol='CAT',price=5,volume=105", "?"),
            (
                0,
                MD,
                "symbol='CAT',price=6,volume=106",
                "symbol='CMU' volume=104 v=3.0 | symbol='IBM' volume=102 v=7.0 | symbol='CAT' volume=106 v=11.0",
            ),
            (0, MD, "symbol='IBM',price=3,volume=201", "?"),
            (0, MD, "symbol='IBM',price=4,volume=202", "?"),
            (0, MD, "symbol='CMU',price=5,volume=203", "?"),
            (0, MD, "symbol='CMU',price=5,volume=204", "?"),
            (0, MD, "symbol='DOG',price=0,volume=205", "?"),
            (
                0,
                MD,
                "symbol='DOG',price=1,volume=206",
                "symbol='DOG' volume=206 v=1.0 | symbol='CMU' volume=204 v=13.0 | symbol='IBM' volume=202 v=14.0",
            ),
        ],
    },
];

/// [`summed!`]'s six events, then six more (`IBM` 3 and 4, `CMU` 5 and 5, `DOG` 0 and 1), as
/// `TestOrderByEventPerGroup` sends them; Esper asserts the deliveries of the sixth and the twelfth, `$first` and
/// `$second` (`?` before each).
macro_rules! twice_summed {
    ($first:expr, $second:expr) => {
        &[
            (0, MD, "symbol='IBM',price=3,volume=0", "?"),
            (0, MD, "symbol='IBM',price=4,volume=0", "?"),
            (0, MD, "symbol='CMU',price=1,volume=0", "?"),
            (0, MD, "symbol='CMU',price=2,volume=0", "?"),
            (0, MD, "symbol='CAT',price=5,volume=0", "?"),
            (0, MD, "symbol='CAT',price=6,volume=0", $first),
            (0, MD, "symbol='IBM',price=3,volume=0", "?"),
            (0, MD, "symbol='IBM',price=4,volume=0", "?"),
            (0, MD, "symbol='CMU',price=5,volume=0", "?"),
            (0, MD, "symbol='CMU',price=5,volume=0", "?"),
            (0, MD, "symbol='DOG',price=0,volume=0", "?"),
            (0, MD, "symbol='DOG',price=1,volume=0", $second),
        ]
    };
}

/// The first six rows of `TestOrderByEventPerGroup`'s default and `HAVING` statements: each event's group with its
/// sum as the event left it, by that sum and symbol.
const PER_GROUP_BY_SUM: &str = "symbol='CMU' mysum=1.0 | symbol='CMU' mysum=3.0 | symbol='IBM' mysum=3.0 | \
                                symbol='CAT' mysum=5.0 | symbol='IBM' mysum=7.0 | symbol='CAT' mysum=11.0";

/// `TestOrderByEventPerGroup`'s statements without a join: fully aggregated and grouped (`irstream` dropped; Esper's
/// old rows are not kept), one row per event's group (the default), or per group at the batch's end (`LAST`).
pub(super) const ORDER_BY_EVENT_PER_GROUP: [ViewCase; 3] = [
    ViewCase {
        test: "TestOrderByEventPerGroup.testNoHavingNoJoin",
        select: "symbol, sum(price) as mysum FROM SupportMarketDataBean.win:length(20) group by symbol output every 6 \
                 events order by sum(price), symbol",
        columns: "symbol string, mysum double",
        typed: false,
        steps: twice_summed!(
            PER_GROUP_BY_SUM,
            "symbol='DOG' mysum=0.0 | symbol='DOG' mysum=1.0 | symbol='CMU' mysum=8.0 | symbol='IBM' mysum=10.0 | \
             symbol='CMU' mysum=13.0 | symbol='IBM' mysum=14.0"
        ),
    },
    ViewCase {
        test: "TestOrderByEventPerGroup.testHavingNoJoin",
        select: "symbol, sum(price) as mysum FROM SupportMarketDataBean.win:length(20) group by symbol having \
                 sum(price) > 0 output every 6 events order by sum(price), symbol",
        columns: "symbol string, mysum double",
        typed: false,
        steps: twice_summed!(
            PER_GROUP_BY_SUM,
            "symbol='DOG' mysum=1.0 | symbol='CMU' mysum=8.0 | symbol='IBM' mysum=10.0 | symbol='CMU' mysum=13.0 | \
             symbol='IBM' mysum=14.0"
        ),
    },
    ViewCase {
        test: "TestOrderByEventPerGroup.testLast",
        select: "symbol, sum(price) as mysum FROM SupportMarketDataBean.win:length(20) group by symbol output last \
                 every 6 events order by sum(price), symbol",
        columns: "symbol string, mysum double",
        typed: false,
        steps: twice_summed!(
            "symbol='CMU' mysum=3.0 | symbol='IBM' mysum=7.0 | symbol='CAT' mysum=11.0",
            "symbol='DOG' mysum=1.0 | symbol='CMU' mysum=13.0 | symbol='IBM' mysum=14.0"
        ),
    },
];

/// `TestSubscriberBind.testOutputLimitNoJoin` (`regression/client`): one statement, run three times in Esper under
/// three event representation annotations that change nothing of its rows (here once, without the annotation); its
/// subscriber gets nothing at the first event and both rows, in order (sorted here, no `ORDER BY`), at the second.
pub(super) const SUBSCRIBER_BIND: [ViewCase; 1] = [ViewCase {
    test: "TestSubscriberBind.testOutputLimitNoJoin",
    select: "theString, intPrimitive FROM SupportBean output every 2 events",
    columns: "theString string, intPrimitive int",
    typed: false,
    steps: &[
        (0, SB, "theString='E1',intPrimitive=1", "-"),
        (0, SB, "theString='E2',intPrimitive=2", "theString='E1' intPrimitive=1 | theString='E2' intPrimitive=2"),
    ],
}];

/// `TestGroupByEventPerGroup.testUnboundStreamIterate`: `OUTPUT SNAPSHOT EVERY 3 EVENTS` over a stream with no data
/// window, fully aggregated: grouped, the snapshot is every group seen so far with its sum (in the order the groups
/// first came, or by `ORDER BY`); without groups, the one aggregate row. Three statements one after the other on one
/// listener (the fourth, with a `reclaim_group` hint, is left out). The second's first two events are not asserted
/// (Esper reads the third's delivery only).
pub(super) const GROUP_BY_UNBOUND: [ViewCase; 3] = [
    ViewCase {
        test: "TestGroupByEventPerGroup.testUnboundStreamIterate",
        select: "theString as c0, sum(intPrimitive) as c1 FROM SupportBean group by theString output snapshot every 3 \
                 events",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=10", "-"),
            (0, SB, "theString='E2',intPrimitive=20", "-"),
            (0, SB, "theString='E1',intPrimitive=11", "c0='E1' c1=21 | c0='E2' c1=20"),
            (0, SB, "theString='E0',intPrimitive=30", "-"),
        ],
    },
    ViewCase {
        test: "TestGroupByEventPerGroup.testUnboundStreamIterate (order by)",
        select: "theString as c0, sum(intPrimitive) as c1 FROM SupportBean group by theString output snapshot every 3 \
                 events order by theString asc",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=10", "?"),
            (0, SB, "theString='E2',intPrimitive=20", "?"),
            (0, SB, "theString='E1',intPrimitive=11", "c0='E1' c1=21 | c0='E2' c1=20"),
            (0, SB, "theString='E0',intPrimitive=30", "-"),
            (0, SB, "theString='E3',intPrimitive=40", "-"),
        ],
    },
    ViewCase {
        test: "TestGroupByEventPerGroup.testUnboundStreamIterate (ungrouped)",
        select: "null as c0, sum(intPrimitive) as c1 FROM SupportBean output snapshot every 3 events",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=10", "-"),
            (0, SB, "theString='E2',intPrimitive=20", "-"),
            (0, SB, "theString='E1',intPrimitive=11", "c0=null c1=41"),
        ],
    },
];

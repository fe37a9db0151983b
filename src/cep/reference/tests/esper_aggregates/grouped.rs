//! Esper's `TestGroupByCount`, `TestGroupByEventPerGroup`, `TestGroupByEventPerGroupHaving`, `TestGroupByEventPerRow`,
//! `TestGroupByEventPerRowHaving`, `TestGroupByMaxMin` and `TestGroupByMedianAndDeviation` (`regression/view` at
//! `aaa35756`): `GROUP BY`, a row per group or one per event, with and without `HAVING`, over length windows.

use super::{ExprCase, MD, SB};

/// `TestGroupByCount`'s `runAssertion`: `SupportMarketDataBean` sent as `(symbol, volume)`.
const COUNTS: &[super::Sent] = &[
    (MD, "symbol='DELL',price=0,volume=50", "symbol='DELL' countAll=1 countDistVol=1 countVol=1"),
    (MD, "symbol='DELL',price=0", "symbol='DELL' countAll=2 countDistVol=1 countVol=1"),
    (MD, "symbol='DELL',price=0,volume=25", "symbol='DELL' countAll=3 countDistVol=2 countVol=2"),
    (MD, "symbol='DELL',price=0,volume=25", "symbol='DELL' countAll=3 countDistVol=1 countVol=2"),
    (MD, "symbol='DELL',price=0,volume=25", "symbol='DELL' countAll=3 countDistVol=1 countVol=3"),
    (MD, "symbol='IBM',price=0,volume=1", "?"),
    (MD, "symbol='IBM',price=0", "?"),
    (MD, "symbol='IBM',price=0", "?"),
    (MD, "symbol='IBM',price=0", "symbol='IBM' countAll=3 countDistVol=0 countVol=0"),
];

/// `runAssertion`'s old rows, the group's row before each event: a group with no row in the window counts 0, as a
/// fresh Esper aggregator does, where the other aggregates are null.
const COUNTS_BEFORE: &[super::Sent] = &[
    (MD, "symbol='DELL',price=0,volume=50", "symbol='DELL' countAll=0 countDistVol=0 countVol=0"),
    (MD, "symbol='DELL',price=0", "symbol='DELL' countAll=1 countDistVol=1 countVol=1"),
    (MD, "symbol='DELL',price=0,volume=25", "symbol='DELL' countAll=2 countDistVol=1 countVol=1"),
    (MD, "symbol='DELL',price=0,volume=25", "symbol='DELL' countAll=3 countDistVol=2 countVol=2"),
    (MD, "symbol='DELL',price=0,volume=25", "symbol='DELL' countAll=3 countDistVol=1 countVol=2"),
    (MD, "symbol='IBM',price=0,volume=1", "?"),
    (MD, "symbol='IBM',price=0", "?"),
    (MD, "symbol='IBM',price=0", "?"),
    (MD, "symbol='IBM',price=0", "symbol='IBM' countAll=3 countDistVol=1 countVol=1"),
];

/// `TestGroupByCount`, `testCountOneViewCompile` and `testCountOneView` (the same with `count(all volume)` and single
/// quotes), the latter also for its old rows (`rstream`). Without the object model (`testCountOneViewOM`, the same
/// statement), the join (`testCountJoin`) and the nested aggregate of `testGroupByCountNestedAggregationAvg`
/// (refused).
pub(super) const GROUP_BY_COUNT: [ExprCase; 3] = [
    ExprCase {
        test: "TestGroupByCount.testCountOneViewCompile",
        select: "irstream symbol, count(*) as countAll, count(distinct volume) as countDistVol, count(volume) as \
                 countVol from SupportMarketDataBean.win:length(3) where symbol=\"DELL\" or symbol=\"IBM\" or \
                 symbol=\"GE\" group by symbol",
        columns: "symbol string, countAll long, countDistVol long, countVol long",
        typed: true,
        runs: &[COUNTS],
    },
    ExprCase {
        test: "TestGroupByCount.testCountOneView",
        select: "irstream symbol, count(*) as countAll,count(distinct volume) as countDistVol,count(all volume) as \
                 countVol from SupportMarketDataBean.win:length(3) where symbol='DELL' or symbol='IBM' or \
                 symbol='GE' group by symbol",
        columns: "symbol string, countAll long, countDistVol long, countVol long",
        typed: true,
        runs: &[COUNTS],
    },
    ExprCase {
        test: "TestGroupByCount.testCountOneView (its old rows)",
        select: "rstream symbol, count(*) as countAll,count(distinct volume) as countDistVol,count(all volume) as \
                 countVol from SupportMarketDataBean.win:length(3) where symbol='DELL' or symbol='IBM' or \
                 symbol='GE' group by symbol",
        columns: "symbol string, countAll long, countDistVol long, countVol long",
        typed: true,
        runs: &[COUNTS_BEFORE],
    },
];

/// `TestGroupByEventPerGroup`, `SupportMarketDataBean` sent as `(symbol, price, 0)`. Without Java methods
/// (`testCriteriaByDotMethod`), hints (`testUnboundStreamUnlimitedKey`), `output snapshot every 3 events`
/// (`testUnboundStreamIterate`, refused), `win:keepall` named windows (`testNamedWindowDelete`), the join
/// (`testSumJoin`) and `testUniqueInBatch` (two statements, the second over `win:time_batch(1 sec).std:unique`);
/// `testAggregationOverGroupedProps` and `testSumOneView` are in [`super::DIFFERING`].
pub(super) const EVENT_PER_GROUP: [ExprCase; 2] = [
    ExprCase {
        test: "TestGroupByEventPerGroup.testAggregateGroupedProps",
        select: "irstream count(price) as mycount from SupportMarketDataBean.win:length(5) group by price",
        columns: "mycount long",
        typed: false,
        runs: &[&[
            (MD, "symbol='DELL',price=10,volume=0", "mycount=1"),
            (MD, "symbol='DELL',price=11,volume=0", "mycount=1"),
            (MD, "symbol='IBM',price=10,volume=0", "mycount=2"),
        ]],
    },
    ExprCase {
        test: "TestGroupByEventPerGroup.testAggregateGroupedPropsPerGroup",
        select: "irstream count(price) as mycount from SupportMarketDataBean.win:length(5) group by symbol, price",
        columns: "mycount long",
        typed: false,
        runs: &[&[
            (MD, "symbol='DELL',price=10,volume=0", "mycount=1"),
            (MD, "symbol='DELL',price=11,volume=0", "mycount=1"),
            (MD, "symbol='DELL',price=10,volume=0", "mycount=2"),
            (MD, "symbol='IBM',price=10,volume=0", "mycount=1"),
        ]],
    },
];

/// `TestGroupByEventPerGroupHaving`, without the join (`testSumJoin`).
pub(super) const EVENT_PER_GROUP_HAVING: [ExprCase; 2] = [
    ExprCase {
        test: "TestGroupByEventPerGroupHaving.testHavingCount",
        select: "* from SupportBean(intPrimitive = 3).win:length(10) as e1 group by theString having count(*) > 2",
        columns: "theString string",
        typed: false,
        runs: &[&[
            (SB, "theString='A1',intPrimitive=3", "-"),
            (SB, "theString='A1',intPrimitive=3", "-"),
            (SB, "theString='A1',intPrimitive=3", "*"),
        ]],
    },
    ExprCase {
        test: "TestGroupByEventPerGroupHaving.testSumOneView",
        select: "irstream symbol, sum(price) as mySum from SupportMarketDataBean.win:length(3) where symbol='DELL' or \
                 symbol='IBM' or symbol='GE' group by symbol having sum(price) >= 100",
        columns: "symbol string, mySum double",
        typed: false,
        runs: &[&[
            (MD, "symbol='DELL',price=10,volume=0", "-"),
            (MD, "symbol='DELL',price=60,volume=0", "-"),
            (MD, "symbol='DELL',price=30,volume=0", "symbol='DELL' mySum=100.0"),
            (MD, "symbol='IBM',price=30,volume=0", "-"),
            (MD, "symbol='IBM',price=80,volume=0", "symbol='IBM' mySum=110.0"),
        ]],
    },
];

/// `TestGroupByEventPerRow`, `SupportMarketDataBean` sent as `(symbol, price, volume)`. Without Java methods
/// (`testCriteriaByDotMethod`), iteration alone (`testIterateUnbound`) and the join (`testSumJoin`);
/// `testInsertInto`'s statement runs twice, as its first listener saw it and as its `insert into` copy, made after
/// the first event, did.
pub(super) const EVENT_PER_ROW: [ExprCase; 5] = [
    ExprCase {
        test: "TestGroupByEventPerRow.testUnaggregatedHaving",
        select: "theString from SupportBean group by theString having intPrimitive > 5",
        columns: "theString string",
        typed: false,
        runs: &[&[
            (SB, "theString='E1',intPrimitive=3", "-"),
            (SB, "theString='E2',intPrimitive=5", "-"),
            (SB, "theString='E1',intPrimitive=6", "theString='E1'"),
            (SB, "theString='E3',intPrimitive=7", "theString='E3'"),
        ]],
    },
    ExprCase {
        test: "TestGroupByEventPerRow.testWildcard",
        select: "*, min(intPrimitive) as minval from SupportBean.win:length(2) group by theString",
        columns: "theString string, intPrimitive int, minval int",
        typed: false,
        runs: &[&[
            (SB, "theString='G1',intPrimitive=10", "theString='G1' intPrimitive=10 minval=10"),
            (SB, "theString='G1',intPrimitive=9", "theString='G1' intPrimitive=9 minval=9"),
            (SB, "theString='G1',intPrimitive=11", "theString='G1' intPrimitive=11 minval=9"),
        ]],
    },
    ExprCase {
        test: "TestGroupByEventPerRow.testAggregationOverGroupedProps",
        select: "irstream volume,symbol,price,count(price) as mycount from SupportMarketDataBean.win:length(5) group \
                 by symbol, price",
        columns: "volume long, symbol string, price double, mycount long",
        typed: false,
        runs: &[&[
            (MD, "symbol='DELL',price=10,volume=1000", "volume=1000 symbol='DELL' price=10.0 mycount=1"),
            (MD, "symbol='DELL',price=11,volume=900", "volume=900 symbol='DELL' price=11.0 mycount=1"),
            (MD, "symbol='DELL',price=10,volume=1500", "volume=1500 symbol='DELL' price=10.0 mycount=2"),
            (MD, "symbol='IBM',price=5,volume=500", "volume=500 symbol='IBM' price=5.0 mycount=1"),
            (MD, "symbol='IBM',price=5,volume=600", "volume=600 symbol='IBM' price=5.0 mycount=2"),
            (MD, "symbol='IBM',price=5,volume=500", "volume=500 symbol='IBM' price=5.0 mycount=3"),
            (MD, "symbol='IBM',price=5,volume=600", "volume=600 symbol='IBM' price=5.0 mycount=4"),
        ]],
    },
    ExprCase {
        test: "TestGroupByEventPerRow.testSumOneView",
        select: "irstream symbol, volume, sum(price) as mySum from SupportMarketDataBean.win:length(3) where \
                 symbol='DELL' or symbol='IBM' or symbol='GE' group by symbol",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        runs: &[&[
            (MD, "symbol='DELL',price=51,volume=10000", "symbol='DELL' volume=10000 mySum=51.0"),
            (MD, "symbol='DELL',price=52,volume=20000", "symbol='DELL' volume=20000 mySum=103.0"),
            (MD, "symbol='IBM',price=70,volume=30000", "symbol='IBM' volume=30000 mySum=70.0"),
            (MD, "symbol='IBM',price=20,volume=10000", "symbol='IBM' volume=10000 mySum=90.0"),
            (MD, "symbol='DELL',price=45,volume=40000", "symbol='DELL' volume=40000 mySum=45.0"),
        ]],
    },
    ExprCase {
        test: "TestGroupByEventPerRow.testInsertInto",
        select: "symbol as symbol, avg(price) as average, sum(volume) as sumation from \
                 SupportMarketDataBean.win:length(3000)",
        columns: "symbol string, average double, sumation long",
        typed: false,
        runs: &[
            &[
                (MD, "symbol='IBM',price=10,volume=20000", "symbol='IBM' average=10.0 sumation=20000"),
                (MD, "symbol='IBM',price=20,volume=40000", "symbol='IBM' average=15.0 sumation=60000"),
            ],
            &[(MD, "symbol='IBM',price=20,volume=40000", "symbol='IBM' average=20.0 sumation=40000")],
        ],
    },
];

/// `TestGroupByEventPerRowHaving`, without the join (`testSumJoin`).
pub(super) const EVENT_PER_ROW_HAVING: [ExprCase; 1] = [ExprCase {
    test: "TestGroupByEventPerRowHaving.testSumOneView",
    select: "irstream symbol, volume, sum(price) as mySum from SupportMarketDataBean.win:length(3) where \
             symbol='DELL' or symbol='IBM' or symbol='GE' group by symbol having sum(price) >= 50",
    columns: "symbol string, volume long, mySum double",
    typed: true,
    runs: &[&[
        (MD, "symbol='DELL',price=49,volume=10000", "-"),
        (MD, "symbol='DELL',price=54,volume=20000", "symbol='DELL' volume=20000 mySum=103.0"),
        (MD, "symbol='IBM',price=10,volume=1000", "-"),
        (MD, "symbol='IBM',price=20,volume=5000", "-"),
        (MD, "symbol='IBM',price=5,volume=6000", "-"),
    ]],
}];

/// `TestGroupByMaxMin`'s `runAssertion`: `SupportMarketDataBean` sent as `(symbol, volume)`.
const MIN_MAX: &[super::Sent] = &[
    (MD, "symbol='DELL',price=0,volume=50", "symbol='DELL' minVol=50 maxVol=50 minDistVol=50 maxDistVol=50"),
    (MD, "symbol='DELL',price=0,volume=30", "symbol='DELL' minVol=30 maxVol=50 minDistVol=30 maxDistVol=50"),
    (MD, "symbol='DELL',price=0,volume=30", "symbol='DELL' minVol=30 maxVol=50 minDistVol=30 maxDistVol=50"),
    (MD, "symbol='DELL',price=0,volume=90", "symbol='DELL' minVol=30 maxVol=90 minDistVol=30 maxDistVol=90"),
    (MD, "symbol='DELL',price=0,volume=100", "symbol='DELL' minVol=30 maxVol=100 minDistVol=30 maxDistVol=100"),
    (MD, "symbol='IBM',price=0,volume=20", "?"),
    (MD, "symbol='IBM',price=0,volume=5", "?"),
    (MD, "symbol='IBM',price=0,volume=15", "?"),
    (MD, "symbol='IBM',price=0,volume=18", "symbol='IBM' minVol=5 maxVol=18 minDistVol=5 maxDistVol=18"),
    (MD, "symbol='IBM',price=0", "symbol='IBM' minVol=15 maxVol=18 minDistVol=15 maxDistVol=18"),
    (MD, "symbol='IBM',price=0", "symbol='IBM' minVol=18 maxVol=18 minDistVol=18 maxDistVol=18"),
    (MD, "symbol='IBM',price=0", "symbol='IBM' minVol=null maxVol=null minDistVol=null maxDistVol=null"),
];

/// `TestGroupByMaxMin`, `testMinMaxView_Compile` and `testMinMaxView` (the same with `min(all volume)`, `max(all
/// volume)` and single quotes): `distinct` changes nothing for `min` and `max`. Without the object model
/// (`testMinMaxView_OM`, the same statement) and the join (`testMinMaxJoin`).
pub(super) const MAX_MIN: [ExprCase; 4] = [
    ExprCase {
        test: "TestGroupByMaxMin.testMinMaxView_Compile",
        select: "irstream symbol, min(volume) as minVol, max(volume) as maxVol, min(distinct volume) as minDistVol, \
                 max(distinct volume) as maxDistVol from SupportMarketDataBean.win:length(3) where symbol=\"DELL\" \
                 or symbol=\"IBM\" or symbol=\"GE\" group by symbol",
        columns: "symbol string, minVol long, maxVol long, minDistVol long, maxDistVol long",
        typed: true,
        runs: &[MIN_MAX],
    },
    ExprCase {
        test: "TestGroupByMaxMin.testMinMaxView",
        select: "irstream symbol, min(all volume) as minVol,max(all volume) as maxVol,min(distinct volume) as \
                 minDistVol,max(distinct volume) as maxDistVol from SupportMarketDataBean.win:length(3) where \
                 symbol='DELL' or symbol='IBM' or symbol='GE' group by symbol",
        columns: "symbol string, minVol long, maxVol long, minDistVol long, maxDistVol long",
        typed: true,
        runs: &[MIN_MAX],
    },
    ExprCase {
        test: "TestGroupByMaxMin.testMinNoGroupHaving",
        select: "symbol from SupportMarketDataBean.win:time(5 sec) having volume > min(volume) * 1.3",
        columns: "symbol string",
        typed: false,
        runs: &[&[
            (MD, "symbol='DELL',price=0,volume=100", "-"),
            (MD, "symbol='DELL',price=0,volume=105", "-"),
            (MD, "symbol='DELL',price=0,volume=100", "-"),
            (MD, "symbol='DELL',price=0,volume=131", "symbol='DELL'"),
            (MD, "symbol='DELL',price=0,volume=132", "symbol='DELL'"),
            (MD, "symbol='DELL',price=0,volume=129", "-"),
        ]],
    },
    ExprCase {
        test: "TestGroupByMaxMin.testMinNoGroupSelectHaving",
        select: "symbol, min(volume) as mymin from SupportMarketDataBean.win:length(5) having volume > min(volume) * \
                 1.3",
        columns: "symbol string, mymin long",
        typed: false,
        runs: &[&[
            (MD, "symbol='DELL',price=0,volume=100", "-"),
            (MD, "symbol='DELL',price=0,volume=105", "-"),
            (MD, "symbol='DELL',price=0,volume=100", "-"),
            (MD, "symbol='DELL',price=0,volume=131", "symbol='DELL' mymin=100"),
            (MD, "symbol='DELL',price=0,volume=132", "symbol='DELL' mymin=100"),
            (MD, "symbol='DELL',price=0,volume=129", "-"),
            (MD, "symbol='DELL',price=0,volume=125", "-"),
            (MD, "symbol='DELL',price=0,volume=125", "-"),
            (MD, "symbol='DELL',price=0,volume=170", "symbol='DELL' mymin=125"),
        ]],
    },
];

/// `TestGroupByMedianAndDeviation.testSumOneView`: Esper compares `stddev` to the thousandth, the others exactly.
/// Without the joins (`testSumJoin`, `testSumJoin_OM`); the NaN check is in [`super::DIFFERING`].
pub(super) const DEVIATION: [ExprCase; 1] = [ExprCase {
    test: "TestGroupByMedianAndDeviation.testSumOneView",
    select: "irstream symbol,median(all price) as myMedian,median(distinct price) as myDistMedian,stddev(all \
             price) as myStdev,avedev(all price) as myAvedev from SupportMarketDataBean.win:length(5) where \
             symbol='DELL' or symbol='IBM' or symbol='GE' group by symbol",
    columns: "symbol string, myMedian double, myDistMedian double, myStdev double, myAvedev double",
    typed: true,
    runs: &[&[
        (
            MD,
            "symbol='DELL',price=10,volume=0",
            "symbol='DELL' myMedian=10.0 myDistMedian=10.0 myStdev=null myAvedev=0.0",
        ),
        (
            MD,
            "symbol='DELL',price=20,volume=0",
            "symbol='DELL' myMedian=15.0 myDistMedian=15.0 myStdev=~7.071067812 myAvedev=5.0",
        ),
        (
            MD,
            "symbol='DELL',price=20,volume=0",
            "symbol='DELL' myMedian=20.0 myDistMedian=15.0 myStdev=~5.773502692 myAvedev=4.444444444444444",
        ),
        (
            MD,
            "symbol='DELL',price=90,volume=0",
            "symbol='DELL' myMedian=20.0 myDistMedian=20.0 myStdev=~36.96845502 myAvedev=27.5",
        ),
        (
            MD,
            "symbol='DELL',price=5,volume=0",
            "symbol='DELL' myMedian=20.0 myDistMedian=15.0 myStdev=~34.71310992 myAvedev=24.4",
        ),
        (
            MD,
            "symbol='DELL',price=90,volume=0",
            "symbol='DELL' myMedian=20.0 myDistMedian=20.0 myStdev=~41.53311931 myAvedev=36.0",
        ),
        (
            MD,
            "symbol='DELL',price=30,volume=0",
            "symbol='DELL' myMedian=30.0 myDistMedian=25.0 myStdev=~40.24922359 myAvedev=34.4",
        ),
    ]],
}];

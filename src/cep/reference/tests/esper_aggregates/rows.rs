//! Esper's `TestAggregateRowForAll`, `TestAggregateRowForAllHaving`, `TestAggregateRowPerEvent`,
//! `TestAggregateRowPerEventDistinct`, `TestHavingNoGroupBy`, `TestCountAll` and `TestAggregateExtLeaving`
//! (`regression/view` at `aaa35756`): aggregates without `GROUP BY`, one row for all events or one per event, with and
//! without `HAVING`.

use super::{CLOCK, ExprCase, MD, SB};

/// `TestAggregateRowForAll` and `TestAggregateRowForAllHaving.testAvgGroupWindow`, `SupportMarketDataBean` sent as
/// `(symbol, price)`. Without the joins (`testSumJoin`), `testAvgPerSym` (`SupportPriceEvent`, and old rows) and
/// `testSelectAvgStdGroupByUni` (`stat:uni`); `testSumOneView` and `testSelectAvgExprGroupBy` are in
/// [`super::DIFFERING`].
pub(super) const ROW_FOR_ALL: [ExprCase; 4] = [
    ExprCase {
        test: "TestAggregateRowForAll.testSelectStarStdGroupBy",
        select: "istream * from SupportMarketDataBean.std:groupwin(symbol).win:length(2)",
        columns: "price double",
        typed: false,
        runs: &[&[(MD, "symbol='A',price=1", "price=1.0")]],
    },
    ExprCase {
        test: "TestAggregateRowForAll.testSelectExprStdGroupBy",
        select: "istream price from SupportMarketDataBean.std:groupwin(symbol).win:length(2)",
        columns: "price double",
        typed: false,
        runs: &[&[(MD, "symbol='A',price=1", "price=1.0")]],
    },
    ExprCase {
        test: "TestAggregateRowForAll.testSelectAvgExprStdGroupBy",
        select: "istream avg(price) as aprice from SupportMarketDataBean.std:groupwin(symbol).win:length(2)",
        columns: "aprice double",
        typed: false,
        runs: &[&[(MD, "symbol='A',price=1", "aprice=1.0"), (MD, "symbol='B',price=3", "aprice=2.0")]],
    },
    ExprCase {
        test: "TestAggregateRowForAllHaving.testAvgGroupWindow",
        select: "istream avg(price) as aprice from SupportMarketDataBean.std:unique(symbol) having avg(price) <= 0",
        columns: "aprice double",
        typed: false,
        runs: &[&[
            (MD, "symbol='A',price=-1", "aprice=-1.0"),
            (MD, "symbol='A',price=5", "-"),
            (MD, "symbol='B',price=-6", "aprice=-0.5"),
            (MD, "symbol='C',price=2", "-"),
            (MD, "symbol='C',price=3", "-"),
            (MD, "symbol='C',price=-2", "aprice=-1.0"),
        ]],
    },
];

/// `TestAggregateRowForAllHaving.testSumOneView`, `SupportBean` sent as its `sendEvent(longBoxed)` (`theString`
/// `KEY`).
pub(super) const ROW_FOR_ALL_HAVING: [ExprCase; 1] = [ExprCase {
    test: "TestAggregateRowForAllHaving.testSumOneView",
    select: "irstream sum(longBoxed) as mySum from SupportBean.win:time(10 seconds) having sum(longBoxed) > 10",
    columns: "mySum long",
    typed: true,
    runs: &[&[
        (CLOCK, "0", "?"),
        (SB, "theString='KEY',longBoxed=10,intBoxed=0", "-"),
        (CLOCK, "5000", "?"),
        (SB, "theString='KEY',longBoxed=15,intBoxed=0", "mySum=25"),
        (CLOCK, "8000", "?"),
        (SB, "theString='KEY',longBoxed=-5,intBoxed=0", "mySum=20"),
        (CLOCK, "10000", "-"),
    ]],
}];

/// `TestAggregateRowPerEvent`: `SupportBean` of `testSumOneView` sent as `sendEvent(longBoxed)` (`theString` `KEY`,
/// `longPrimitive` counting the events, as Esper's iterator shows), `SupportMarketDataBean` as `(symbol, volume)`.
/// Without `testAggregatedSelectTriggerEvent` (`window`, a join) and `testSumJoin`. Then
/// `TestAggregateRowPerEventDistinct.testSumOneView` (without its join, `testSumJoin`): a sum of the distinct volumes.
pub(super) const ROW_PER_EVENT: [ExprCase; 4] = [
    ExprCase {
        test: "TestAggregateRowPerEvent.testAggregatedSelectUnaggregatedHaving",
        select: "max(intPrimitive) as val from SupportBean.win:time(1) having max(intPrimitive) > intBoxed",
        columns: "val int",
        typed: false,
        runs: &[&[
            (SB, "theString='E1',intPrimitive=10,intBoxed=1", "val=10"),
            (SB, "theString='E2',intPrimitive=10,intBoxed=11", "-"),
            (SB, "theString='E3',intPrimitive=15,intBoxed=11", "val=15"),
            (SB, "theString='E4',intPrimitive=20,intBoxed=11", "val=20"),
            (SB, "theString='E5',intPrimitive=25,intBoxed=25", "-"),
        ]],
    },
    ExprCase {
        test: "TestAggregateRowPerEvent.testSumOneView",
        select: "irstream longPrimitive, sum(longBoxed) as mySum from SupportBean.win:length(3)",
        columns: "longPrimitive long, mySum long",
        typed: true,
        runs: &[&[
            (SB, "theString='KEY',longBoxed=10,intBoxed=0,longPrimitive=1", "longPrimitive=1 mySum=10"),
            (SB, "theString='KEY',longBoxed=15,intBoxed=0,longPrimitive=2", "longPrimitive=2 mySum=25"),
            (SB, "theString='KEY',longBoxed=-5,intBoxed=0,longPrimitive=3", "longPrimitive=3 mySum=20"),
            (SB, "theString='KEY',longBoxed=-2,intBoxed=0,longPrimitive=4", "longPrimitive=4 mySum=8"),
            (SB, "theString='KEY',longBoxed=100,intBoxed=0,longPrimitive=5", "longPrimitive=5 mySum=93"),
            (SB, "theString='KEY',longBoxed=1000,intBoxed=0,longPrimitive=6", "longPrimitive=6 mySum=1098"),
        ]],
    },
    ExprCase {
        test: "TestAggregateRowPerEvent.testSumAvgWithWhere",
        select: "'IBM stats' as title, volume, avg(volume) as myAvg, sum(volume) as mySum from \
                 SupportMarketDataBean.win:length(3)where symbol='IBM'",
        columns: "title string, myAvg double, mySum long",
        typed: false,
        runs: &[&[
            (MD, "symbol='GE',price=0,volume=10", "-"),
            (MD, "symbol='IBM',price=0,volume=20", "title='IBM stats' myAvg=20.0 mySum=20"),
            (MD, "symbol='XXX',price=0,volume=10000", "-"),
            (MD, "symbol='IBM',price=0,volume=30", "title='IBM stats' myAvg=25.0 mySum=50"),
        ]],
    },
    ExprCase {
        test: "TestAggregateRowPerEventDistinct.testSumOneView",
        select: "irstream symbol, sum(distinct volume) as volSum from SupportMarketDataBean.win:length(3)",
        columns: "symbol string, volSum long",
        typed: true,
        runs: &[&[
            (MD, "symbol='DELL',price=0,volume=10000", "symbol='DELL' volSum=10000"),
            (MD, "symbol='DELL',price=0,volume=10000", "symbol='DELL' volSum=10000"),
            (MD, "symbol='DELL',price=0,volume=20000", "symbol='DELL' volSum=30000"),
            (MD, "symbol='IBM',price=0,volume=1000", "symbol='IBM' volSum=31000"),
            (MD, "symbol='IBM',price=0,volume=1000", "symbol='IBM' volSum=21000"),
            (MD, "symbol='IBM',price=0,volume=1000", "symbol='IBM' volSum=1000"),
        ]],
    },
];

/// `TestHavingNoGroupBy`, `SupportMarketDataBean` sent as `(symbol, price, 0)`, `SupportBean` of `testHavingSum*` with
/// `intPrimitive` alone. Without the joins (`testSumJoin`, `testNoAggregationJoin*`, which also call `Math`), the
/// object model (`testSumOneViewOM`, `testSumOneView`'s statement) and `testSumHavingNoAggregatedProp`, which sends
/// nothing.
pub(super) const HAVING_NO_GROUP_BY: [ExprCase; 5] = [
    ExprCase {
        test: "TestHavingNoGroupBy.testHavingWildcardSelect",
        select: "* from SupportBean.win:length_batch(2) where intPrimitive>0 having count(*)=2",
        columns: "theString string",
        typed: false,
        runs: &[&[
            (SB, "theString='E1',intPrimitive=0", "-"),
            (SB, "theString='E2',intPrimitive=0", "-"),
            (SB, "theString='E3',intPrimitive=1", "?"),
            (SB, "theString='E4',intPrimitive=1", "*"),
            (SB, "theString='E3',intPrimitive=0", "-"),
            (SB, "theString='E4',intPrimitive=1", "-"),
        ]],
    },
    ExprCase {
        test: "TestHavingNoGroupBy.testSumOneView",
        select: "irstream symbol, price, avg(price) as avgPrice from SupportMarketDataBean.win:length(5) having \
                 price < avg(price)",
        columns: "symbol string, price double, avgPrice double",
        typed: true,
        runs: &[&[
            (MD, "symbol='DELL',price=10,volume=0", "-"),
            (MD, "symbol='DELL',price=5,volume=0", "symbol='DELL' price=5.0 avgPrice=7.5"),
            (MD, "symbol='DELL',price=15,volume=0", "-"),
            (MD, "symbol='DELL',price=8,volume=0", "symbol='DELL' price=8.0 avgPrice=9.5"),
            (MD, "symbol='DELL',price=10,volume=0", "-"),
            (MD, "symbol='DELL',price=6,volume=0", "symbol='DELL' price=6.0 avgPrice=8.8"),
            (MD, "symbol='DELL',price=12,volume=0", "-"),
        ]],
    },
    ExprCase {
        test: "TestHavingNoGroupBy.testSubstreamSelectHaving",
        select: "quote.* from SupportBean.win:length(14) quote having avg(intPrimitive) >= 3",
        columns: "theString string",
        typed: false,
        runs: &[&[
            (SB, "theString='abc',intPrimitive=2", "-"),
            (SB, "theString='abc',intPrimitive=2", "-"),
            (SB, "theString='abc',intPrimitive=3", "-"),
            (SB, "theString='abc',intPrimitive=5", "*"),
        ]],
    },
    ExprCase {
        test: "TestHavingNoGroupBy.testHavingSum",
        select: "irstream sum(myEvent.intPrimitive) as mysum from pattern [every myEvent=SupportBean] having \
                 sum(myEvent.intPrimitive) = 2",
        columns: "mysum int",
        typed: false,
        runs: &[&[(SB, "intPrimitive=1", "-"), (SB, "intPrimitive=1", "mysum=2"), (SB, "intPrimitive=1", "-")]],
    },
    ExprCase {
        test: "TestHavingNoGroupBy.testHavingSumIStream",
        select: "istream sum(myEvent.intPrimitive) as mysum from pattern [every myEvent=SupportBean] having \
                 sum(myEvent.intPrimitive) = 2",
        columns: "mysum int",
        typed: false,
        runs: &[&[(SB, "intPrimitive=1", "-"), (SB, "intPrimitive=1", "mysum=2"), (SB, "intPrimitive=1", "-")]],
    },
];

/// `TestCountAll`, `SupportMarketDataBean` sent as `(symbol, 0, volume, 'f1')` and `SupportBean` as `('', 1)`.
/// Without `testSize` (`std:size`, which the planner refuses).
pub(super) const COUNT_ALL: [ExprCase; 4] = [
    ExprCase {
        test: "TestCountAll.testCountPlusStar",
        select: "*, count(*) as cnt from SupportMarketDataBean",
        columns: "symbol string, cnt long",
        typed: false,
        runs: &[&[
            (MD, "symbol='S0',price=0,volume=1,feed='f1'", "symbol='S0' cnt=1"),
            (MD, "symbol='S1',price=0,volume=1,feed='f1'", "symbol='S1' cnt=2"),
            (MD, "symbol='S2',price=0,volume=1,feed='f1'", "symbol='S2' cnt=3"),
        ]],
    },
    ExprCase {
        test: "TestCountAll.testCount",
        select: "count(*) as cnt from SupportMarketDataBean.win:time(1)",
        columns: "cnt long",
        typed: false,
        runs: &[&[
            (MD, "symbol='DELL',price=0,volume=1,feed='f1'", "cnt=1"),
            (MD, "symbol='DELL',price=0,volume=1,feed='f1'", "cnt=2"),
            (MD, "symbol='DELL',price=0,volume=1,feed='f1'", "cnt=3"),
        ]],
    },
    ExprCase {
        test: "TestCountAll.testCountHaving",
        select: "irstream sum(intPrimitive) as mysum from SupportBean having sum(intPrimitive) = 2",
        columns: "mysum int",
        typed: false,
        runs: &[&[
            (SB, "theString='',intPrimitive=1", "-"),
            (SB, "theString='',intPrimitive=1", "mysum=2"),
            (SB, "theString='',intPrimitive=1", "-"),
        ]],
    },
    ExprCase {
        test: "TestCountAll.testSumHaving",
        select: "irstream count(*) as mysum from SupportBean having count(*) = 2",
        columns: "mysum long",
        typed: false,
        runs: &[&[
            (SB, "theString='',intPrimitive=1", "-"),
            (SB, "theString='',intPrimitive=1", "mysum=2"),
            (SB, "theString='',intPrimitive=1", "-"),
        ]],
    },
];

/// `TestAggregateExtLeaving.testLeaving`: `leaving()` turns true at the fourth event, the first to push one out of
/// the window.
pub(super) const LEAVING: [ExprCase; 1] = [ExprCase {
    test: "TestAggregateExtLeaving.testLeaving",
    select: "leaving() as val from SupportBean.win:length(3)",
    columns: "val boolean",
    typed: true,
    runs: &[&[
        (SB, "theString='E1',intPrimitive=1", "val=false"),
        (SB, "theString='E2',intPrimitive=2", "val=false"),
        (SB, "theString='E3',intPrimitive=3", "val=false"),
        (SB, "theString='E4',intPrimitive=4", "val=true"),
    ]],
}];

/// `TestAggregateRate.testRateDataWindowed` (Esper 8's `ResultSetAggregateRateDataWindowed`): null until the fourth
/// event pushes the first out of `win:length(3)`; then the three rows (and the sum of their `intPrimitive`) per second
/// between the `longPrimitive` of the row that left and that of the newest: 3 * 1000 / 500, 14 * 1000 / 500, then
/// 3 * 1000 / 800 and 25 * 1000 / 800. Esper's `testRateNonWindowed` (`rate(10)`, by the engine's clock) is refused.
pub(super) const RATE: [ExprCase; 1] = [ExprCase {
    test: "TestAggregateRate.testRateDataWindowed",
    select: "RATE(longPrimitive) as myrate, RATE(longPrimitive, intPrimitive) as myqtyrate from \
             SupportBean.win:length(3)",
    columns: "myrate double, myqtyrate double",
    typed: true,
    runs: &[&[
        (SB, "longPrimitive=1000,intPrimitive=10", "myrate=null myqtyrate=null"),
        (SB, "longPrimitive=1200,intPrimitive=0", "myrate=null myqtyrate=null"),
        (SB, "longPrimitive=1300,intPrimitive=0", "myrate=null myqtyrate=null"),
        (SB, "longPrimitive=1500,intPrimitive=14", "myrate=6.0 myqtyrate=28.0"),
        (SB, "longPrimitive=2000,intPrimitive=11", "myrate=3.75 myqtyrate=31.25"),
    ]],
}];

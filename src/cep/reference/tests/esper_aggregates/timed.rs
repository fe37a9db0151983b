//! Esper's `TestSumWinTime` and `TestGroupByTimeBatch` (`regression/view` at `aaa35756`): aggregates over time
//! windows and time batches, the clock moved as Esper's tests move it.

use super::{CLOCK, ExprCase, MD};

/// `TestSumWinTime`, `SupportMarketDataBean` sent as `(symbol, price, volume)`; Esper asserts nothing when the clock
/// moves.
pub(super) const SUM_WIN_TIME: [ExprCase; 3] = [
    ExprCase {
        test: "TestSumWinTime.testWinTimeSum",
        select: "symbol, volume, sum(price) as mySum from SupportMarketDataBean.win:time(30)",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        runs: &[&[
            (CLOCK, "0", "?"),
            (MD, "symbol='DELL',price=51,volume=10000", "symbol='DELL' volume=10000 mySum=51.0"),
            (MD, "symbol='IBM',price=52,volume=20000", "symbol='IBM' volume=20000 mySum=103.0"),
            (MD, "symbol='DELL',price=45,volume=40000", "symbol='DELL' volume=40000 mySum=148.0"),
            (CLOCK, "35000", "?"),
            (MD, "symbol='IBM',price=70,volume=30000", "symbol='IBM' volume=30000 mySum=70.0"),
            (MD, "symbol='DELL',price=20,volume=10000", "symbol='DELL' volume=10000 mySum=90.0"),
        ]],
    },
    ExprCase {
        test: "TestSumWinTime.testWinTimeSumGroupBy",
        select: "symbol, volume, sum(price) as mySum from SupportMarketDataBean.win:time(30) group by symbol",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        runs: &[&[
            (CLOCK, "0", "?"),
            (MD, "symbol='DELL',price=51,volume=10000", "symbol='DELL' volume=10000 mySum=51.0"),
            (MD, "symbol='IBM',price=70,volume=30000", "symbol='IBM' volume=30000 mySum=70.0"),
            (MD, "symbol='DELL',price=52,volume=20000", "symbol='DELL' volume=20000 mySum=103.0"),
            (MD, "symbol='IBM',price=70,volume=30000", "symbol='IBM' volume=30000 mySum=140.0"),
            (CLOCK, "35000", "?"),
            (MD, "symbol='DELL',price=90,volume=10000", "symbol='DELL' volume=10000 mySum=90.0"),
            (MD, "symbol='IBM',price=120,volume=30000", "symbol='IBM' volume=30000 mySum=120.0"),
            (MD, "symbol='DELL',price=90,volume=20000", "symbol='DELL' volume=20000 mySum=180.0"),
            (MD, "symbol='IBM',price=120,volume=30000", "symbol='IBM' volume=30000 mySum=240.0"),
        ]],
    },
    ExprCase {
        test: "TestSumWinTime.testWinTimeSumSingle",
        select: "symbol, volume, sum(price) as mySum from SupportMarketDataBean(symbol = 'IBM').win:time(30)",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        runs: &[&[
            (CLOCK, "0", "?"),
            (MD, "symbol='IBM',price=52,volume=20000", "symbol='IBM' volume=20000 mySum=52.0"),
            (MD, "symbol='IBM',price=100,volume=20000", "symbol='IBM' volume=20000 mySum=152.0"),
            (CLOCK, "35000", "?"),
            (MD, "symbol='IBM',price=252,volume=20000", "symbol='IBM' volume=20000 mySum=252.0"),
            (MD, "symbol='IBM',price=100,volume=20000", "symbol='IBM' volume=20000 mySum=352.0"),
        ]],
    },
];

/// The first batch of `TestGroupByTimeBatch`'s tests without `volume`, and their second; Esper asserts the rows of
/// each clock move.
const fn batches(first: &'static str, second: &'static str) -> [super::Sent; 7] {
    [
        (CLOCK, "0", "?"),
        (MD, "symbol='DELL',price=10,volume=0", "?"),
        (MD, "symbol='IBM',price=15,volume=0", "?"),
        (MD, "symbol='DELL',price=20,volume=0", "?"),
        (CLOCK, "1000", first),
        (MD, "symbol='IBM',price=20,volume=600", "?"),
        (CLOCK, "2000", second),
    ]
}

/// `TestGroupByTimeBatch` (its type `MarketData` is `SupportMarketDataBean`), without the joins (`*Join`).
pub(super) const TIME_BATCH: [ExprCase; 4] = [
    ExprCase {
        test: "TestGroupByTimeBatch.testTimeBatchRowForAllNoJoin",
        select: "irstream sum(price) as sumPrice from SupportMarketDataBean.win:time_batch(1 sec)",
        columns: "sumPrice double",
        typed: false,
        runs: &[&batches("sumPrice=45.0", "sumPrice=20.0")],
    },
    ExprCase {
        test: "TestGroupByTimeBatch.testTimeBatchAggregateAllNoJoin",
        select: "irstream symbol, sum(price) as sumPrice from SupportMarketDataBean.win:time_batch(1 sec)",
        columns: "symbol string, sumPrice double",
        typed: false,
        runs: &[&batches(
            "symbol='DELL' sumPrice=45.0 | symbol='IBM' sumPrice=45.0 | symbol='DELL' sumPrice=45.0",
            "symbol='IBM' sumPrice=20.0",
        )],
    },
    ExprCase {
        test: "TestGroupByTimeBatch.testTimeBatchRowPerGroupNoJoin",
        select: "irstream symbol, sum(price) as sumPrice from SupportMarketDataBean.win:time_batch(1 sec) group by \
                 symbol order by symbol asc",
        columns: "symbol string, sumPrice double",
        typed: false,
        runs: &[&batches(
            "symbol='DELL' sumPrice=30.0 | symbol='IBM' sumPrice=15.0",
            "symbol='DELL' sumPrice=null | symbol='IBM' sumPrice=20.0",
        )],
    },
    ExprCase {
        test: "TestGroupByTimeBatch.testTimeBatchAggrGroupedNoJoin",
        select: "irstream symbol, sum(price) as sumPrice, volume from SupportMarketDataBean.win:time_batch(1 sec) \
                 group by symbol",
        columns: "symbol string, sumPrice double, volume long",
        typed: false,
        runs: &[&[
            (CLOCK, "0", "?"),
            (MD, "symbol='DELL',price=10,volume=200", "?"),
            (MD, "symbol='IBM',price=15,volume=500", "?"),
            (MD, "symbol='DELL',price=20,volume=250", "?"),
            (
                CLOCK,
                "1000",
                "symbol='DELL' sumPrice=30.0 volume=200 | symbol='IBM' sumPrice=15.0 volume=500 | symbol='DELL' \
                 sumPrice=30.0 volume=250",
            ),
            (MD, "symbol='IBM',price=20,volume=600", "?"),
            (CLOCK, "2000", "symbol='IBM' sumPrice=20.0 volume=600"),
        ]],
    },
];

//! Esper's data window tests: `TestViewTimeWin` (at `645a97e4`), `TestViewLengthBatch` (at `699d62b7`, its views
//! spelled `#length_batch` there), `TestViewWhereClause` (at `699d62b7`, `#length` there) and `TestViewSimpleFilter`
//! (at `aaa35756`). Esper's beans are told apart by identity; here by their `id`, `e0` for Esper's `events[0]`.

use super::{MD, SB, ViewCase};

/// `TestViewTimeWin`'s three statements over `win:time(30)` (seconds), the clock at 0 and then at 35 s: each event
/// gives a row with its symbol and volume and the sum over the window (the sums start again after the clock move).
pub(super) const TIME_WIN: [ViewCase; 3] = [
    ViewCase {
        test: "TestViewTimeWin.testWinTimeSum",
        select: "symbol, volume, sum(price) as mySum FROM SupportMarketDataBean.win:time(30)",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        steps: &[
            (0, MD, "symbol='DELL',volume=10000,price=51", "symbol='DELL' volume=10000 mySum=51.0"),
            (0, MD, "symbol='IBM',volume=20000,price=52", "symbol='IBM' volume=20000 mySum=103.0"),
            (0, MD, "symbol='DELL',volume=40000,price=45", "symbol='DELL' volume=40000 mySum=148.0"),
            (35_000, "", "", "?"),
            (35_000, MD, "symbol='IBM',volume=30000,price=70", "symbol='IBM' volume=30000 mySum=70.0"),
            (35_000, MD, "symbol='DELL',volume=10000,price=20", "symbol='DELL' volume=10000 mySum=90.0"),
        ],
    },
    ViewCase {
        test: "TestViewTimeWin.testWinTimeSumGroupBy",
        select: "symbol, volume, sum(price) as mySum FROM SupportMarketDataBean.win:time(30) group by symbol",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        steps: &[
            (0, MD, "symbol='DELL',volume=10000,price=51", "symbol='DELL' volume=10000 mySum=51.0"),
            (0, MD, "symbol='IBM',volume=30000,price=70", "symbol='IBM' volume=30000 mySum=70.0"),
            (0, MD, "symbol='DELL',volume=20000,price=52", "symbol='DELL' volume=20000 mySum=103.0"),
            (0, MD, "symbol='IBM',volume=30000,price=70", "symbol='IBM' volume=30000 mySum=140.0"),
            (35_000, "", "", "?"),
            (35_000, MD, "symbol='DELL',volume=10000,price=90", "symbol='DELL' volume=10000 mySum=90.0"),
            (35_000, MD, "symbol='IBM',volume=30000,price=120", "symbol='IBM' volume=30000 mySum=120.0"),
            (35_000, MD, "symbol='DELL',volume=20000,price=90", "symbol='DELL' volume=20000 mySum=180.0"),
            (35_000, MD, "symbol='IBM',volume=30000,price=120", "symbol='IBM' volume=30000 mySum=240.0"),
        ],
    },
    ViewCase {
        test: "TestViewTimeWin.testWinTimeSumSingle",
        select: "symbol, volume, sum(price) as mySum FROM SupportMarketDataBean(symbol = 'IBM').win:time(30)",
        columns: "symbol string, volume long, mySum double",
        typed: true,
        steps: &[
            (0, MD, "symbol='IBM',volume=20000,price=52", "symbol='IBM' volume=20000 mySum=52.0"),
            (0, MD, "symbol='IBM',volume=20000,price=100", "symbol='IBM' volume=20000 mySum=152.0"),
            (35_000, "", "", "?"),
            (35_000, MD, "symbol='IBM',volume=20000,price=252", "symbol='IBM' volume=20000 mySum=252.0"),
            (35_000, MD, "symbol='IBM',volume=20000,price=100", "symbol='IBM' volume=20000 mySum=352.0"),
        ],
    },
];

/// `TestViewLengthBatch`'s batches of one, two and three (not `testLengthBatchSize3And2Staggered`, two views
/// chained): each full batch gives its events, as Esper asserts of the new rows.
pub(super) const LENGTH_BATCH: [ViewCase; 3] = [
    ViewCase {
        test: "TestViewLengthBatch.testLengthBatchSize2",
        select: "irstream * FROM SupportBean.win:length_batch(2)",
        columns: "id string",
        typed: false,
        steps: &[
            (1, SB, "id='e0'", "-"),
            (2, SB, "id='e1'", "id='e0' | id='e1'"),
            (3, SB, "id='e2'", "-"),
            (4, SB, "id='e3'", "id='e2' | id='e3'"),
            (5, SB, "id='e4'", "-"),
            (6, SB, "id='e5'", "id='e4' | id='e5'"),
        ],
    },
    ViewCase {
        test: "TestViewLengthBatch.testLengthBatchSize1",
        select: "irstream * FROM SupportBean.win:length_batch(1)",
        columns: "id string",
        typed: false,
        steps: &[(1, SB, "id='e0'", "id='e0'"), (2, SB, "id='e1'", "id='e1'"), (3, SB, "id='e2'", "id='e2'")],
    },
    ViewCase {
        test: "TestViewLengthBatch.testLengthBatchSize3",
        select: "irstream * FROM SupportBean.win:length_batch(3)",
        columns: "id string",
        typed: false,
        steps: &[
            (1, SB, "id='e0'", "-"),
            (2, SB, "id='e1'", "-"),
            (3, SB, "id='e2'", "id='e0' | id='e1' | id='e2'"),
            (4, SB, "id='e3'", "-"),
            (5, SB, "id='e4'", "-"),
            (6, SB, "id='e5'", "id='e3' | id='e4' | id='e5'"),
        ],
    },
];

/// `TestViewWhereClause`: a `WHERE` after a length window (Esper asserts only whether the listener heard each event,
/// `+` here), and numeric types widened in the select list.
pub(super) const WHERE_CLAUSE: [ViewCase; 2] = [
    ViewCase {
        test: "TestViewWhereClause.testWhere",
        select: "* FROM SupportMarketDataBean.win:length(3) where symbol='CSCO'",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='IBM',price=0,volume=0,feed=''", "-"),
            (2, MD, "symbol='CSCO',price=0,volume=0,feed=''", "symbol='CSCO'"),
            (3, MD, "symbol='IBM',price=0,volume=0,feed=''", "-"),
            (4, MD, "symbol='CSCO',price=0,volume=0,feed=''", "symbol='CSCO'"),
        ],
    },
    ViewCase {
        test: "TestViewWhereClause.testWhereNumericType",
        select: "intPrimitive + longPrimitive as p1, intPrimitive * doublePrimitive as p2, floatPrimitive / \
                 doublePrimitive as p3 FROM SupportBean.win:length(3) where intPrimitive=longPrimitive and \
                 intPrimitive=doublePrimitive and floatPrimitive=doublePrimitive",
        columns: "p1 long, p2 double, p3 double",
        typed: true,
        steps: &[
            (1, SB, "intPrimitive=1,longPrimitive=2,floatPrimitive=3,doublePrimitive=4", "-"),
            (2, SB, "intPrimitive=2,longPrimitive=2,floatPrimitive=2,doublePrimitive=2", "p1=4 p2=4.0 p3=1.0"),
        ],
    },
];

/// `TestViewSimpleFilter`: `!=` in a stream's filter, alone and with an equality, over null text.
pub(super) const SIMPLE_FILTER: [ViewCase; 2] = [
    ViewCase {
        test: "TestViewSimpleFilter.testNotEqualsOp",
        select: "* FROM SupportBean(theString != 'a')",
        columns: "id string",
        typed: false,
        steps: &[
            (1, SB, "id='e1',theString='a',intPrimitive=-1", "-"),
            (2, SB, "id='e2',theString='b',intPrimitive=-1", "id='e2'"),
            (3, SB, "id='e3',theString='a',intPrimitive=-1", "-"),
            (4, SB, "id='e4',intPrimitive=-1", "-"),
        ],
    },
    ViewCase {
        test: "TestViewSimpleFilter.testCombinationEqualsOp",
        select: "* FROM SupportBean(theString != 'a', intPrimitive=0)",
        columns: "id string",
        typed: false,
        steps: &[
            (1, SB, "id='e1',theString='b',intPrimitive=1", "-"),
            (2, SB, "id='e2',theString='a',intPrimitive=0", "-"),
            (3, SB, "id='e3',theString='x',intPrimitive=0", "id='e3'"),
            (4, SB, "id='e4',intPrimitive=0", "-"),
        ],
    },
];

//! Esper's tests of the previous-event functions: Esper 5's `TestPreviousFunction` (`regression/view`, at
//! `aaa35756`) and Esper 8's `ExprCorePrevious`, `ViewTimeWin`, `ViewLengthWin` and `ViewLengthBatch`
//! (`regression-lib`), the cases in the subset: `prev`, `prevtail` and `prevcount` over `win:length`, `win:time`,
//! their batches and `std:groupwin`, with a constant index or one each row reads. Esper's `prevwindow` columns are
//! left out (refused by name: no attribute takes its array). Where Esper asserts a statement's new and old rows, the
//! new ones are its case here and the old ones a second case of the same statement under `SELECT RSTREAM` ("its old
//! rows"), where every function reads null, as Esper evaluates them on the remove stream
//! (`testPreviousTimeBatchWindow`'s and `testPrevCountStar`'s old rows, which Esper asserts in part, are what its
//! code gives). Not here: the whole event (`testPrevStream`), `ext:sort`, `win:ext_timed` and the join. Esper's
//! `sendMarketEvent(symbol, price)` has volume 0 and no feed; its tests that send no clock event run at 0. The last
//! case is not Esper's test but its time window's: an event at `t` leaves when the clock reaches `t + d`, before an
//! event arriving then.

use super::{MD, SB, Step, ViewCase};

/// Each case's statement, columns and steps, as the module's header says.
pub(super) const PREVIOUS: [ViewCase; 27] = [
    ViewCase {
        test: "TestPreviousFunction.testPreviousLengthWindow",
        select: "irstream symbol as currSymbol, prev(0, symbol) as prev0Symbol, prev(1, symbol) as prev1Symbol, \
                 prev(2, symbol) as prev2Symbol, prev(0, price) as prev0Price, prev(1, price) as prev1Price, \
                 prev(2, price) as prev2Price, prevtail(0, symbol) as prevTail0Symbol, prevtail(0, price) as \
                 prevTail0Price, prevtail(1, symbol) as prevTail1Symbol, prevtail(1, price) as prevTail1Price, \
                 prevcount(price) as prevCountPrice FROM SupportMarketDataBean.win:length(3)",
        columns: "currSymbol string, prev0Symbol string, prev1Symbol string, prev2Symbol string, prev0Price \
                  double, prev1Price double, prev2Price double, prevTail0Symbol string, prevTail0Price double, \
                  prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (
                0,
                MD,
                "symbol='A',price=1,volume=0",
                "currSymbol='A' prev0Symbol='A' prev1Symbol=null prev2Symbol=null prev0Price=1.0 prev1Price=null \
                 prev2Price=null prevTail0Symbol='A' prevTail0Price=1.0 prevTail1Symbol=null prevTail1Price=null \
                 prevCountPrice=1",
            ),
            (
                0,
                MD,
                "symbol='B',price=2,volume=0",
                "currSymbol='B' prev0Symbol='B' prev1Symbol='A' prev2Symbol=null prev0Price=2.0 prev1Price=1.0 \
                 prev2Price=null prevTail0Symbol='A' prevTail0Price=1.0 prevTail1Symbol='B' prevTail1Price=2.0 \
                 prevCountPrice=2",
            ),
            (
                0,
                MD,
                "symbol='C',price=3,volume=0",
                "currSymbol='C' prev0Symbol='C' prev1Symbol='B' prev2Symbol='A' prev0Price=3.0 prev1Price=2.0 \
                 prev2Price=1.0 prevTail0Symbol='A' prevTail0Price=1.0 prevTail1Symbol='B' prevTail1Price=2.0 \
                 prevCountPrice=3",
            ),
            (
                0,
                MD,
                "symbol='D',price=4,volume=0",
                "currSymbol='D' prev0Symbol='D' prev1Symbol='C' prev2Symbol='B' prev0Price=4.0 prev1Price=3.0 \
                 prev2Price=2.0 prevTail0Symbol='B' prevTail0Price=2.0 prevTail1Symbol='C' prevTail1Price=3.0 \
                 prevCountPrice=3",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousLengthWindow (its old rows)",
        select: "rstream symbol as currSymbol, prev(0, symbol) as prev0Symbol, prev(1, symbol) as prev1Symbol, \
                 prev(2, symbol) as prev2Symbol, prev(0, price) as prev0Price, prev(1, price) as prev1Price, \
                 prev(2, price) as prev2Price, prevtail(0, symbol) as prevTail0Symbol, prevtail(0, price) as \
                 prevTail0Price, prevtail(1, symbol) as prevTail1Symbol, prevtail(1, price) as prevTail1Price, \
                 prevcount(price) as prevCountPrice FROM SupportMarketDataBean.win:length(3)",
        columns: "currSymbol string, prev0Symbol string, prev1Symbol string, prev2Symbol string, prev0Price \
                  double, prev1Price double, prev2Price double, prevTail0Symbol string, prevTail0Price double, \
                  prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (0, MD, "symbol='A',price=1,volume=0", "-"),
            (0, MD, "symbol='B',price=2,volume=0", "-"),
            (0, MD, "symbol='C',price=3,volume=0", "-"),
            (
                0,
                MD,
                "symbol='D',price=4,volume=0",
                "currSymbol='A' prev0Symbol=null prev1Symbol=null prev2Symbol=null prev0Price=null prev1Price=null \
                 prev2Price=null prevTail0Symbol=null prevTail0Price=null prevTail1Symbol=null prevTail1Price=null \
                 prevCountPrice=null",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousLengthBatch",
        select: "irstream symbol as currSymbol, prev(0, symbol) as prev0Symbol, prev(1, symbol) as prev1Symbol, \
                 prev(2, symbol) as prev2Symbol, prev(0, price) as prev0Price, prev(1, price) as prev1Price, \
                 prev(2, price) as prev2Price, prevtail(0, symbol) as prevTail0Symbol, prevtail(0, price) as \
                 prevTail0Price, prevtail(1, symbol) as prevTail1Symbol, prevtail(1, price) as prevTail1Price, \
                 prevcount(price) as prevCountPrice FROM SupportMarketDataBean.win:length_batch(3)",
        columns: "currSymbol string, prev0Symbol string, prev1Symbol string, prev2Symbol string, prev0Price \
                  double, prev1Price double, prev2Price double, prevTail0Symbol string, prevTail0Price double, \
                  prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (0, MD, "symbol='A',price=1,volume=0", "-"),
            (0, MD, "symbol='B',price=2,volume=0", "-"),
            (
                0,
                MD,
                "symbol='C',price=3,volume=0",
                "currSymbol='A' prev0Symbol='A' prev1Symbol=null prev2Symbol=null prev0Price=1.0 prev1Price=null \
                 prev2Price=null prevTail0Symbol='A' prevTail0Price=1.0 prevTail1Symbol='B' prevTail1Price=2.0 \
                 prevCountPrice=3 | currSymbol='B' prev0Symbol='B' prev1Symbol='A' prev2Symbol=null prev0Price=2.0 \
                 prev1Price=1.0 prev2Price=null prevTail0Symbol='A' prevTail0Price=1.0 prevTail1Symbol='B' \
                 prevTail1Price=2.0 prevCountPrice=3 | currSymbol='C' prev0Symbol='C' prev1Symbol='B' \
                 prev2Symbol='A' prev0Price=3.0 prev1Price=2.0 prev2Price=1.0 prevTail0Symbol='A' \
                 prevTail0Price=1.0 prevTail1Symbol='B' prevTail1Price=2.0 prevCountPrice=3",
            ),
            (0, MD, "symbol='D',price=4,volume=0", "-"),
            (0, MD, "symbol='E',price=5,volume=0", "-"),
            (
                0,
                MD,
                "symbol='F',price=6,volume=0",
                "currSymbol='D' prev0Symbol='D' prev1Symbol=null prev2Symbol=null prev0Price=4.0 prev1Price=null \
                 prev2Price=null prevTail0Symbol='D' prevTail0Price=4.0 prevTail1Symbol='E' prevTail1Price=5.0 \
                 prevCountPrice=3 | currSymbol='E' prev0Symbol='E' prev1Symbol='D' prev2Symbol=null prev0Price=5.0 \
                 prev1Price=4.0 prev2Price=null prevTail0Symbol='D' prevTail0Price=4.0 prevTail1Symbol='E' \
                 prevTail1Price=5.0 prevCountPrice=3 | currSymbol='F' prev0Symbol='F' prev1Symbol='E' \
                 prev2Symbol='D' prev0Price=6.0 prev1Price=5.0 prev2Price=4.0 prevTail0Symbol='D' \
                 prevTail0Price=4.0 prevTail1Symbol='E' prevTail1Price=5.0 prevCountPrice=3",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousLengthBatch (its old rows)",
        select: "rstream symbol as currSymbol, prev(0, symbol) as prev0Symbol, prev(1, symbol) as prev1Symbol, \
                 prev(2, symbol) as prev2Symbol, prev(0, price) as prev0Price, prev(1, price) as prev1Price, \
                 prev(2, price) as prev2Price, prevtail(0, symbol) as prevTail0Symbol, prevtail(0, price) as \
                 prevTail0Price, prevtail(1, symbol) as prevTail1Symbol, prevtail(1, price) as prevTail1Price, \
                 prevcount(price) as prevCountPrice FROM SupportMarketDataBean.win:length_batch(3)",
        columns: "currSymbol string, prev0Symbol string, prev1Symbol string, prev2Symbol string, prev0Price \
                  double, prev1Price double, prev2Price double, prevTail0Symbol string, prevTail0Price double, \
                  prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (0, MD, "symbol='A',price=1,volume=0", "-"),
            (0, MD, "symbol='B',price=2,volume=0", "-"),
            (0, MD, "symbol='C',price=3,volume=0", "-"),
            (0, MD, "symbol='D',price=4,volume=0", "-"),
            (0, MD, "symbol='E',price=5,volume=0", "-"),
            (
                0,
                MD,
                "symbol='F',price=6,volume=0",
                "currSymbol='A' prev0Symbol=null prev1Symbol=null prev2Symbol=null prev0Price=null prev1Price=null \
                 prev2Price=null prevTail0Symbol=null prevTail0Price=null prevTail1Symbol=null prevTail1Price=null \
                 prevCountPrice=null | currSymbol='B' prev0Symbol=null prev1Symbol=null prev2Symbol=null \
                 prev0Price=null prev1Price=null prev2Price=null prevTail0Symbol=null prevTail0Price=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null | currSymbol='C' prev0Symbol=null \
                 prev1Symbol=null prev2Symbol=null prev0Price=null prev1Price=null prev2Price=null \
                 prevTail0Symbol=null prevTail0Price=null prevTail1Symbol=null prevTail1Price=null \
                 prevCountPrice=null",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousTimeWindow",
        select: "irstream symbol as currSymbol, prev(2, symbol) as prevSymbol, prev(2, price) as prevPrice, \
                 prevtail(0, symbol) as prevTailSymbol, prevtail(0, price) as prevTailPrice, prevtail(1, symbol) \
                 as prevTail1Symbol, prevtail(1, price) as prevTail1Price, prevcount(price) as prevCountPrice FROM \
                 SupportMarketDataBean.win:time(1 min)",
        columns: "currSymbol string, prevSymbol string, prevPrice double, prevTailSymbol string, prevTailPrice \
                  double, prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (
                0,
                MD,
                "symbol='D1',price=1,volume=0",
                "currSymbol='D1' prevSymbol=null prevPrice=null prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=1",
            ),
            (1000, "", "", "-"),
            (
                1000,
                MD,
                "symbol='D2',price=2,volume=0",
                "currSymbol='D2' prevSymbol=null prevPrice=null prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=2",
            ),
            (2000, "", "", "-"),
            (
                2000,
                MD,
                "symbol='D3',price=3,volume=0",
                "currSymbol='D3' prevSymbol='D1' prevPrice=1.0 prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=3",
            ),
            (3000, "", "", "-"),
            (
                3000,
                MD,
                "symbol='D4',price=4,volume=0",
                "currSymbol='D4' prevSymbol='D2' prevPrice=2.0 prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=4",
            ),
            (4000, "", "", "-"),
            (
                4000,
                MD,
                "symbol='D5',price=5,volume=0",
                "currSymbol='D5' prevSymbol='D3' prevPrice=3.0 prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=5",
            ),
            (30_000, "", "", "-"),
            (
                30_000,
                MD,
                "symbol='D6',price=6,volume=0",
                "currSymbol='D6' prevSymbol='D4' prevPrice=4.0 prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=6",
            ),
            (60_000, "", "", "-"),
            (61_000, "", "", "-"),
            (62_000, "", "", "-"),
            (63_000, "", "", "-"),
            (64_000, "", "", "-"),
            (90_000, "", "", "-"),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousTimeWindow (its old rows)",
        select: "rstream symbol as currSymbol, prev(2, symbol) as prevSymbol, prev(2, price) as prevPrice, \
                 prevtail(0, symbol) as prevTailSymbol, prevtail(0, price) as prevTailPrice, prevtail(1, symbol) \
                 as prevTail1Symbol, prevtail(1, price) as prevTail1Price, prevcount(price) as prevCountPrice FROM \
                 SupportMarketDataBean.win:time(1 min)",
        columns: "currSymbol string, prevSymbol string, prevPrice double, prevTailSymbol string, prevTailPrice \
                  double, prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='D1',price=1,volume=0", "-"),
            (1000, "", "", "-"),
            (1000, MD, "symbol='D2',price=2,volume=0", "-"),
            (2000, "", "", "-"),
            (2000, MD, "symbol='D3',price=3,volume=0", "-"),
            (3000, "", "", "-"),
            (3000, MD, "symbol='D4',price=4,volume=0", "-"),
            (4000, "", "", "-"),
            (4000, MD, "symbol='D5',price=5,volume=0", "-"),
            (30_000, "", "", "-"),
            (30_000, MD, "symbol='D6',price=6,volume=0", "-"),
            (
                60_000,
                "",
                "",
                "currSymbol='D1' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
            (
                61_000,
                "",
                "",
                "currSymbol='D2' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
            (
                62_000,
                "",
                "",
                "currSymbol='D3' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
            (
                63_000,
                "",
                "",
                "currSymbol='D4' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
            (
                64_000,
                "",
                "",
                "currSymbol='D5' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
            (
                90_000,
                "",
                "",
                "currSymbol='D6' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousTimeBatchWindow",
        select: "irstream symbol as currSymbol, prev(2, symbol) as prevSymbol, prev(2, price) as prevPrice, \
                 prevtail(0, symbol) as prevTailSymbol, prevtail(0, price) as prevTailPrice, prevtail(1, symbol) \
                 as prevTail1Symbol, prevtail(1, price) as prevTail1Price, prevcount(price) as prevCountPrice FROM \
                 SupportMarketDataBean.win:time_batch(1 min)",
        columns: "currSymbol string, prevSymbol string, prevPrice double, prevTailSymbol string, prevTailPrice \
                  double, prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='A',price=1,volume=0", "-"),
            (0, MD, "symbol='B',price=2,volume=0", "-"),
            (
                60_000,
                "",
                "",
                "currSymbol='A' prevSymbol=null prevPrice=null prevTailSymbol='A' prevTailPrice=1.0 \
                 prevTail1Symbol='B' prevTail1Price=2.0 prevCountPrice=2 | currSymbol='B' prevSymbol=null \
                 prevPrice=null prevTailSymbol='A' prevTailPrice=1.0 prevTail1Symbol='B' prevTail1Price=2.0 \
                 prevCountPrice=2",
            ),
            (80_000, "", "", "-"),
            (80_000, MD, "symbol='C',price=3,volume=0", "-"),
            (
                120_000,
                "",
                "",
                "currSymbol='C' prevSymbol=null prevPrice=null prevTailSymbol='C' prevTailPrice=3.0 \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=1",
            ),
            (300_000, "", "", "-"),
            (300_000, MD, "symbol='D',price=4,volume=0", "-"),
            (300_000, MD, "symbol='E',price=5,volume=0", "-"),
            (300_000, MD, "symbol='F',price=6,volume=0", "-"),
            (300_000, MD, "symbol='G',price=7,volume=0", "-"),
            (
                360_000,
                "",
                "",
                "currSymbol='D' prevSymbol=null prevPrice=null prevTailSymbol='D' prevTailPrice=4.0 \
                 prevTail1Symbol='E' prevTail1Price=5.0 prevCountPrice=4 | currSymbol='E' prevSymbol=null \
                 prevPrice=null prevTailSymbol='D' prevTailPrice=4.0 prevTail1Symbol='E' prevTail1Price=5.0 \
                 prevCountPrice=4 | currSymbol='F' prevSymbol='D' prevPrice=4.0 prevTailSymbol='D' \
                 prevTailPrice=4.0 prevTail1Symbol='E' prevTail1Price=5.0 prevCountPrice=4 | currSymbol='G' \
                 prevSymbol='E' prevPrice=5.0 prevTailSymbol='D' prevTailPrice=4.0 prevTail1Symbol='E' \
                 prevTail1Price=5.0 prevCountPrice=4",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousTimeBatchWindow (its old rows)",
        select: "rstream symbol as currSymbol, prev(2, symbol) as prevSymbol, prev(2, price) as prevPrice, \
                 prevtail(0, symbol) as prevTailSymbol, prevtail(0, price) as prevTailPrice, prevtail(1, symbol) \
                 as prevTail1Symbol, prevtail(1, price) as prevTail1Price, prevcount(price) as prevCountPrice FROM \
                 SupportMarketDataBean.win:time_batch(1 min)",
        columns: "currSymbol string, prevSymbol string, prevPrice double, prevTailSymbol string, prevTailPrice \
                  double, prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='A',price=1,volume=0", "-"),
            (0, MD, "symbol='B',price=2,volume=0", "-"),
            (60_000, "", "", "-"),
            (80_000, "", "", "-"),
            (80_000, MD, "symbol='C',price=3,volume=0", "-"),
            (
                120_000,
                "",
                "",
                "currSymbol='A' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null | currSymbol='B' prevSymbol=null \
                 prevPrice=null prevTailSymbol=null prevTailPrice=null prevTail1Symbol=null prevTail1Price=null \
                 prevCountPrice=null",
            ),
            (
                300_000,
                "",
                "",
                "currSymbol='C' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
            (300_000, MD, "symbol='D',price=4,volume=0", "-"),
            (300_000, MD, "symbol='E',price=5,volume=0", "-"),
            (300_000, MD, "symbol='F',price=6,volume=0", "-"),
            (300_000, MD, "symbol='G',price=7,volume=0", "-"),
            (360_000, "", "", "-"),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousLengthWindowWhere",
        select: "prev(2, symbol) as currSymbol FROM SupportMarketDataBean.win:length(100) where prev(2, price) > \
                 100",
        columns: "currSymbol string",
        typed: true,
        steps: &[
            (0, MD, "symbol='A',price=1,volume=0", "-"),
            (0, MD, "symbol='B',price=130,volume=0", "-"),
            (0, MD, "symbol='C',price=10,volume=0", "-"),
            (0, MD, "symbol='D',price=5,volume=0", "currSymbol='B'"),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPerGroupTwoCriteria",
        select: "symbol, feed, prev(1, price) as prevPrice, prevtail(price) as tailPrice, prevcount(price) as \
                 countPrice FROM SupportMarketDataBean.std:groupwin(symbol, feed).win:length(2)",
        columns: "symbol string, feed string, prevPrice double, tailPrice double, countPrice long",
        typed: true,
        steps: &[
            (
                0,
                MD,
                "symbol='IBM',price=10,volume=0,feed='F1'",
                "symbol='IBM' feed='F1' prevPrice=null tailPrice=10.0 countPrice=1",
            ),
            (
                0,
                MD,
                "symbol='IBM',price=11,volume=0,feed='F1'",
                "symbol='IBM' feed='F1' prevPrice=10.0 tailPrice=10.0 countPrice=2",
            ),
            (
                0,
                MD,
                "symbol='MSFT',price=100,volume=0,feed='F2'",
                "symbol='MSFT' feed='F2' prevPrice=null tailPrice=100.0 countPrice=1",
            ),
            (
                0,
                MD,
                "symbol='IBM',price=12,volume=0,feed='F2'",
                "symbol='IBM' feed='F2' prevPrice=null tailPrice=12.0 countPrice=1",
            ),
            (
                0,
                MD,
                "symbol='IBM',price=13,volume=0,feed='F1'",
                "symbol='IBM' feed='F1' prevPrice=11.0 tailPrice=11.0 countPrice=2",
            ),
            (
                0,
                MD,
                "symbol='MSFT',price=101,volume=0,feed='F2'",
                "symbol='MSFT' feed='F2' prevPrice=100.0 tailPrice=100.0 countPrice=2",
            ),
            (
                0,
                MD,
                "symbol='IBM',price=17,volume=0,feed='F2'",
                "symbol='IBM' feed='F2' prevPrice=12.0 tailPrice=12.0 countPrice=2",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPerGroupTwoCriteria (the window's length)",
        select: "prev(5,intPrimitive) as val0 FROM SupportBean.std:groupwin(theString).win:length(5)",
        columns: "val0 int",
        typed: true,
        steps: &[
            (0, SB, "theString='A',intPrimitive=11", "val0=null"),
            (0, SB, "theString='A',intPrimitive=12", "val0=null"),
            (0, SB, "theString='A',intPrimitive=13", "val0=null"),
            (0, SB, "theString='A',intPrimitive=14", "val0=null"),
            (0, SB, "theString='A',intPrimitive=15", "val0=null"),
            (0, SB, "theString='C',intPrimitive=20", "val0=null"),
            (0, SB, "theString='C',intPrimitive=21", "val0=null"),
            (0, SB, "theString='C',intPrimitive=22", "val0=null"),
            (0, SB, "theString='C',intPrimitive=23", "val0=null"),
            (0, SB, "theString='C',intPrimitive=24", "val0=null"),
            (0, SB, "theString='B',intPrimitive=31", "val0=null"),
            (0, SB, "theString='C',intPrimitive=25", "val0=null"),
            (0, SB, "theString='A',intPrimitive=16", "val0=null"),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testTimeWindowPerGroup",
        select: "symbol, prev(1, price) as prevPrice, prev(2, price) as prevPrevPrice, prevtail(0, price) as \
                 prevTail0Price, prevtail(1, price) as prevTail1Price, prevcount(price) as countPrice FROM \
                 SupportMarketDataBean.std:groupwin(symbol).win:time(20 sec)",
        columns: "symbol string, prevPrice double, prevPrevPrice double, prevTail0Price double, prevTail1Price \
                  double, countPrice long",
        typed: true,
        steps: PER_GROUP,
    },
    ViewCase {
        test: "TestPreviousFunction.testLengthWindowPerGroup",
        select: "symbol, prev(1, price) as prevPrice, prev(2, price) as prevPrevPrice, prevtail(price, 0) as \
                 prevTail0Price, prevtail(price, 1) as prevTail1Price, prevcount(price) as countPrice FROM \
                 SupportMarketDataBean.std:groupwin(symbol).win:length(10)",
        columns: "symbol string, prevPrice double, prevPrevPrice double, prevTail0Price double, prevTail1Price \
                  double, countPrice long",
        typed: true,
        steps: PER_GROUP,
    },
    ViewCase {
        test: "TestPreviousFunction.testTimeBatchPerGroup",
        select: "symbol, prev(1, price) as prevPrice, prev(2, price) as prevPrevPrice, prevtail(0, price) as \
                 prevTail0Price, prevtail(1, price) as prevTail1Price, prevcount(price) as countPrice FROM \
                 SupportMarketDataBean.std:groupwin(symbol).win:time_batch(1 sec)",
        columns: "symbol string, prevPrice double, prevPrevPrice double, prevTail0Price double, prevTail1Price \
                  double, countPrice long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='IBM',price=75,volume=0", "-"),
            (0, MD, "symbol='MSFT',price=40,volume=0", "-"),
            (0, MD, "symbol='IBM',price=76,volume=0", "-"),
            (0, MD, "symbol='CIC',price=1,volume=0", "-"),
            (
                1000,
                "",
                "",
                "symbol='IBM' prevPrice=null prevPrevPrice=null prevTail0Price=75.0 prevTail1Price=76.0 \
                 countPrice=2 | symbol='IBM' prevPrice=75.0 prevPrevPrice=null prevTail0Price=75.0 \
                 prevTail1Price=76.0 countPrice=2 | symbol='MSFT' prevPrice=null prevPrevPrice=null \
                 prevTail0Price=40.0 prevTail1Price=null countPrice=1 | symbol='CIC' prevPrice=null \
                 prevPrevPrice=null prevTail0Price=1.0 prevTail1Price=null countPrice=1",
            ),
            (1000, MD, "symbol='MSFT',price=41,volume=0", "-"),
            (1000, MD, "symbol='IBM',price=77,volume=0", "-"),
            (1000, MD, "symbol='IBM',price=78,volume=0", "-"),
            (1000, MD, "symbol='CIC',price=2,volume=0", "-"),
            (1000, MD, "symbol='MSFT',price=42,volume=0", "-"),
            (1000, MD, "symbol='CIC',price=3,volume=0", "-"),
            (1000, MD, "symbol='CIC',price=4,volume=0", "-"),
            (
                2000,
                "",
                "",
                "symbol='IBM' prevPrice=null prevPrevPrice=null prevTail0Price=77.0 prevTail1Price=78.0 \
                 countPrice=2 | symbol='IBM' prevPrice=77.0 prevPrevPrice=null prevTail0Price=77.0 \
                 prevTail1Price=78.0 countPrice=2 | symbol='MSFT' prevPrice=null prevPrevPrice=null \
                 prevTail0Price=41.0 prevTail1Price=42.0 countPrice=2 | symbol='MSFT' prevPrice=41.0 \
                 prevPrevPrice=null prevTail0Price=41.0 prevTail1Price=42.0 countPrice=2 | symbol='CIC' \
                 prevPrice=null prevPrevPrice=null prevTail0Price=2.0 prevTail1Price=3.0 countPrice=3 | \
                 symbol='CIC' prevPrice=2.0 prevPrevPrice=null prevTail0Price=2.0 prevTail1Price=3.0 countPrice=3 \
                 | symbol='CIC' prevPrice=3.0 prevPrevPrice=2.0 prevTail0Price=2.0 prevTail1Price=3.0 countPrice=3",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testLengthBatchPerGroup",
        select: "irstream symbol, prev(price) as prevPrice, prev(price, 2) as prevPrevPrice, prevtail(price, 0) as \
                 prevTail0Price, prevtail(price, 1) as prevTail1Price, prevcount(price) as countPrice FROM \
                 SupportMarketDataBean.std:groupwin(symbol).win:length_batch(3)",
        columns: "symbol string, prevPrice double, prevPrevPrice double, prevTail0Price double, prevTail1Price \
                  double, countPrice long",
        typed: true,
        steps: &[
            (0, MD, "symbol='IBM',price=75,volume=0", "-"),
            (0, MD, "symbol='MSFT',price=50,volume=0", "-"),
            (0, MD, "symbol='IBM',price=76,volume=0", "-"),
            (0, MD, "symbol='CIC',price=1,volume=0", "-"),
            (
                0,
                MD,
                "symbol='IBM',price=77,volume=0",
                "symbol='IBM' prevPrice=null prevPrevPrice=null prevTail0Price=75.0 prevTail1Price=76.0 \
                 countPrice=3 | symbol='IBM' prevPrice=75.0 prevPrevPrice=null prevTail0Price=75.0 \
                 prevTail1Price=76.0 countPrice=3 | symbol='IBM' prevPrice=76.0 prevPrevPrice=75.0 \
                 prevTail0Price=75.0 prevTail1Price=76.0 countPrice=3",
            ),
            (0, MD, "symbol='MSFT',price=51,volume=0", "-"),
            (0, MD, "symbol='IBM',price=78,volume=0", "-"),
            (0, MD, "symbol='IBM',price=79,volume=0", "-"),
            (0, MD, "symbol='CIC',price=2,volume=0", "-"),
            (
                0,
                MD,
                "symbol='CIC',price=3,volume=0",
                "symbol='CIC' prevPrice=null prevPrevPrice=null prevTail0Price=1.0 prevTail1Price=2.0 countPrice=3 \
                 | symbol='CIC' prevPrice=1.0 prevPrevPrice=null prevTail0Price=1.0 prevTail1Price=2.0 \
                 countPrice=3 | symbol='CIC' prevPrice=2.0 prevPrevPrice=1.0 prevTail0Price=1.0 prevTail1Price=2.0 \
                 countPrice=3",
            ),
            (
                0,
                MD,
                "symbol='MSFT',price=52,volume=0",
                "symbol='MSFT' prevPrice=null prevPrevPrice=null prevTail0Price=50.0 prevTail1Price=51.0 \
                 countPrice=3 | symbol='MSFT' prevPrice=50.0 prevPrevPrice=null prevTail0Price=50.0 \
                 prevTail1Price=51.0 countPrice=3 | symbol='MSFT' prevPrice=51.0 prevPrevPrice=50.0 \
                 prevTail0Price=50.0 prevTail1Price=51.0 countPrice=3",
            ),
            (
                0,
                MD,
                "symbol='IBM',price=80,volume=0",
                "symbol='IBM' prevPrice=null prevPrevPrice=null prevTail0Price=78.0 prevTail1Price=79.0 \
                 countPrice=3 | symbol='IBM' prevPrice=78.0 prevPrevPrice=null prevTail0Price=78.0 \
                 prevTail1Price=79.0 countPrice=3 | symbol='IBM' prevPrice=79.0 prevPrevPrice=78.0 \
                 prevTail0Price=78.0 prevTail1Price=79.0 countPrice=3",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testLengthBatchPerGroup (its old rows)",
        select: "rstream symbol, prev(price) as prevPrice, prev(price, 2) as prevPrevPrice, prevtail(price, 0) as \
                 prevTail0Price, prevtail(price, 1) as prevTail1Price, prevcount(price) as countPrice FROM \
                 SupportMarketDataBean.std:groupwin(symbol).win:length_batch(3)",
        columns: "symbol string, prevPrice double, prevPrevPrice double, prevTail0Price double, prevTail1Price \
                  double, countPrice long",
        typed: true,
        steps: &[
            (0, MD, "symbol='IBM',price=75,volume=0", "-"),
            (0, MD, "symbol='MSFT',price=50,volume=0", "-"),
            (0, MD, "symbol='IBM',price=76,volume=0", "-"),
            (0, MD, "symbol='CIC',price=1,volume=0", "-"),
            (0, MD, "symbol='IBM',price=77,volume=0", "-"),
            (0, MD, "symbol='MSFT',price=51,volume=0", "-"),
            (0, MD, "symbol='IBM',price=78,volume=0", "-"),
            (0, MD, "symbol='IBM',price=79,volume=0", "-"),
            (0, MD, "symbol='CIC',price=2,volume=0", "-"),
            (0, MD, "symbol='CIC',price=3,volume=0", "-"),
            (0, MD, "symbol='MSFT',price=52,volume=0", "-"),
            (
                0,
                MD,
                "symbol='IBM',price=80,volume=0",
                "symbol='IBM' prevPrice=null prevPrevPrice=null prevTail0Price=null prevTail1Price=null \
                 countPrice=null | symbol='IBM' prevPrice=null prevPrevPrice=null prevTail0Price=null \
                 prevTail1Price=null countPrice=null | symbol='IBM' prevPrice=null prevPrevPrice=null \
                 prevTail0Price=null prevTail1Price=null countPrice=null",
            ),
        ],
    },
    ViewCase {
        test: "ExprCorePrevious time batch (Esper 8)",
        select: "irstream symbol, prev(1, symbol) as prev1, prevtail(symbol) as prevtail, prevcount(symbol) as \
                 prevCountSym FROM SupportMarketDataBean.win:time_batch(1 sec)",
        columns: "symbol string, prev1 string, prevtail string, prevCountSym long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (1500, "", "", "-"),
            (1500, MD, "symbol='E1',price=0,volume=0", "-"),
            (1700, "", "", "-"),
            (1700, MD, "symbol='E2',price=0,volume=0", "-"),
            (2499, "", "", "?"),
            (
                2500,
                "",
                "",
                "symbol='E1' prev1=null prevtail='E1' prevCountSym=2 | symbol='E2' prev1='E1' prevtail='E1' \
                 prevCountSym=2",
            ),
            (2500, MD, "symbol='E3',price=0,volume=0", "-"),
            (2500, MD, "symbol='E4',price=0,volume=0", "-"),
            (2600, "", "", "-"),
            (2600, MD, "symbol='E5',price=0,volume=0", "-"),
            (
                3500,
                "",
                "",
                "symbol='E3' prev1=null prevtail='E3' prevCountSym=3 | symbol='E4' prev1='E3' prevtail='E3' \
                 prevCountSym=3 | symbol='E5' prev1='E4' prevtail='E3' prevCountSym=3",
            ),
        ],
    },
    ViewCase {
        test: "ExprCorePrevious time batch (Esper 8, its old rows)",
        select: "rstream symbol, prev(1, symbol) as prev1, prevtail(symbol) as prevtail, prevcount(symbol) as \
                 prevCountSym FROM SupportMarketDataBean.win:time_batch(1 sec)",
        columns: "symbol string, prev1 string, prevtail string, prevCountSym long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (1500, "", "", "-"),
            (1500, MD, "symbol='E1',price=0,volume=0", "-"),
            (1700, "", "", "-"),
            (1700, MD, "symbol='E2',price=0,volume=0", "-"),
            (2499, "", "", "?"),
            (2500, "", "", "-"),
            (2500, MD, "symbol='E3',price=0,volume=0", "-"),
            (2500, MD, "symbol='E4',price=0,volume=0", "-"),
            (2600, "", "", "-"),
            (2600, MD, "symbol='E5',price=0,volume=0", "-"),
            (
                3500,
                "",
                "",
                "symbol='E1' prev1=null prevtail=null prevCountSym=null | symbol='E2' prev1=null prevtail=null \
                 prevCountSym=null",
            ),
        ],
    },
    ViewCase {
        test: "ViewTimeWin.ViewTimeWindowWPrev (Esper 8)",
        select: "irstream symbol, prev(1, symbol) as prev1, prevtail(symbol) as prevtail, prevcount(symbol) as \
                 prevCountSym FROM SupportMarketDataBean.win:time(1 sec)",
        columns: "symbol string, prev1 string, prevtail string, prevCountSym long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (500, "", "", "-"),
            (500, MD, "symbol='E1',price=0,volume=0", "symbol='E1' prev1=null prevtail='E1' prevCountSym=1"),
            (500, MD, "symbol='E2',price=0,volume=0", "symbol='E2' prev1='E1' prevtail='E1' prevCountSym=2"),
            (500, MD, "symbol='E3',price=0,volume=0", "symbol='E3' prev1='E2' prevtail='E1' prevCountSym=3"),
            (1200, "", "", "-"),
            (1200, MD, "symbol='E4',price=0,volume=0", "symbol='E4' prev1='E3' prevtail='E1' prevCountSym=4"),
            (1200, MD, "symbol='E5',price=0,volume=0", "symbol='E5' prev1='E4' prevtail='E1' prevCountSym=5"),
            (1600, "", "", "-"),
            (1600, MD, "symbol='E6',price=0,volume=0", "symbol='E6' prev1='E5' prevtail='E4' prevCountSym=3"),
        ],
    },
    ViewCase {
        test: "ViewTimeWin.ViewTimeWindowWPrev (Esper 8, its old rows)",
        select: "rstream symbol, prev(1, symbol) as prev1, prevtail(symbol) as prevtail, prevcount(symbol) as \
                 prevCountSym FROM SupportMarketDataBean.win:time(1 sec)",
        columns: "symbol string, prev1 string, prevtail string, prevCountSym long",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (500, "", "", "-"),
            (500, MD, "symbol='E1',price=0,volume=0", "-"),
            (500, MD, "symbol='E2',price=0,volume=0", "-"),
            (500, MD, "symbol='E3',price=0,volume=0", "-"),
            (1200, "", "", "-"),
            (1200, MD, "symbol='E4',price=0,volume=0", "-"),
            (1200, MD, "symbol='E5',price=0,volume=0", "-"),
            (
                1600,
                "",
                "",
                "symbol='E1' prev1=null prevtail=null prevCountSym=null | symbol='E2' prev1=null prevtail=null \
                 prevCountSym=null | symbol='E3' prev1=null prevtail=null prevCountSym=null",
            ),
            (1600, MD, "symbol='E6',price=0,volume=0", "-"),
        ],
    },
    ViewCase {
        test: "ViewLengthWin.ViewLengthWindowWPrevPrior (Esper 8)",
        select: "irstream symbol, prev(1, symbol) as prev1, prior(1, symbol) as prio1, prevtail(symbol) as \
                 prevtail0, prevcount(symbol) as prevCountSym FROM SupportMarketDataBean.win:length(2)",
        columns: "symbol string, prev1 string, prio1 string, prevtail0 string, prevCountSym long",
        typed: true,
        steps: &[
            (0, MD, "symbol='E1',price=0,volume=0", "symbol='E1' prev1=null prio1=null prevtail0='E1' prevCountSym=1"),
            (0, MD, "symbol='E2',price=0,volume=0", "symbol='E2' prev1='E1' prio1='E1' prevtail0='E1' prevCountSym=2"),
            (0, MD, "symbol='E3',price=0,volume=0", "symbol='E3' prev1='E2' prio1='E2' prevtail0='E2' prevCountSym=2"),
            (0, MD, "symbol='E4',price=0,volume=0", "symbol='E4' prev1='E3' prio1='E3' prevtail0='E3' prevCountSym=2"),
            (0, MD, "symbol='E5',price=0,volume=0", "symbol='E5' prev1='E4' prio1='E4' prevtail0='E4' prevCountSym=2"),
            (0, MD, "symbol='E6',price=0,volume=0", "symbol='E6' prev1='E5' prio1='E5' prevtail0='E5' prevCountSym=2"),
            (0, MD, "symbol='E7',price=0,volume=0", "symbol='E7' prev1='E6' prio1='E6' prevtail0='E6' prevCountSym=2"),
            (0, MD, "symbol='E8',price=0,volume=0", "symbol='E8' prev1='E7' prio1='E7' prevtail0='E7' prevCountSym=2"),
            (0, MD, "symbol='E9',price=0,volume=0", "symbol='E9' prev1='E8' prio1='E8' prevtail0='E8' prevCountSym=2"),
        ],
    },
    ViewCase {
        test: "ViewLengthWin.ViewLengthWindowWPrevPrior (Esper 8, its old rows)",
        select: "rstream symbol, prev(1, symbol) as prev1, prior(1, symbol) as prio1, prevtail(symbol) as \
                 prevtail0, prevcount(symbol) as prevCountSym FROM SupportMarketDataBean.win:length(2)",
        columns: "symbol string, prev1 string, prio1 string, prevtail0 string, prevCountSym long",
        typed: true,
        steps: &[
            (0, MD, "symbol='E1',price=0,volume=0", "-"),
            (0, MD, "symbol='E2',price=0,volume=0", "-"),
            (
                0,
                MD,
                "symbol='E3',price=0,volume=0",
                "symbol='E1' prev1=null prio1=null prevtail0=null prevCountSym=null",
            ),
            (
                0,
                MD,
                "symbol='E4',price=0,volume=0",
                "symbol='E2' prev1=null prio1='E1' prevtail0=null prevCountSym=null",
            ),
            (
                0,
                MD,
                "symbol='E5',price=0,volume=0",
                "symbol='E3' prev1=null prio1='E2' prevtail0=null prevCountSym=null",
            ),
            (
                0,
                MD,
                "symbol='E6',price=0,volume=0",
                "symbol='E4' prev1=null prio1='E3' prevtail0=null prevCountSym=null",
            ),
            (
                0,
                MD,
                "symbol='E7',price=0,volume=0",
                "symbol='E5' prev1=null prio1='E4' prevtail0=null prevCountSym=null",
            ),
            (
                0,
                MD,
                "symbol='E8',price=0,volume=0",
                "symbol='E6' prev1=null prio1='E5' prevtail0=null prevCountSym=null",
            ),
            (
                0,
                MD,
                "symbol='E9',price=0,volume=0",
                "symbol='E7' prev1=null prio1='E6' prevtail0=null prevCountSym=null",
            ),
        ],
    },
    ViewCase {
        test: "ViewLengthBatch.ViewLengthBatchNormal (Esper 8)",
        select: "irstream theString, prev(1, theString) as prevString FROM SupportBean.win:length_batch(3)",
        columns: "theString string, prevString string",
        typed: true,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=0", "-"),
            (0, SB, "theString='E2',intPrimitive=0", "-"),
            (
                0,
                SB,
                "theString='E3',intPrimitive=0",
                "theString='E1' prevString=null | theString='E2' prevString='E1' | theString='E3' prevString='E2'",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousLengthWindowDynamic",
        select: "prev(intPrimitive, theString) as sPrev FROM SupportBean.win:length(100)",
        columns: "sPrev string",
        typed: true,
        steps: &[
            (0, SB, "theString='A',intPrimitive=1", "sPrev=null"),
            (0, SB, "theString='B',intPrimitive=0", "sPrev='B'"),
            (0, SB, "theString='C',intPrimitive=2", "sPrev='A'"),
            (0, SB, "theString='D',intPrimitive=1", "sPrev='C'"),
            (0, SB, "theString='E',intPrimitive=4", "sPrev='A'"),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPrevCountStar",
        select: "irstream count(*) as total, prev(count(*) - 1, price) as firstPrice FROM \
                 SupportMarketDataBean.win:time(60)",
        columns: "total long, firstPrice double",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='IBM',price=75,volume=0", "total=1 firstPrice=75.0"),
            (0, MD, "symbol='IBM',price=76,volume=0", "total=2 firstPrice=75.0"),
            (10_000, "", "", "-"),
            (10_000, MD, "symbol='IBM',price=77,volume=0", "total=3 firstPrice=75.0"),
            (20_000, "", "", "-"),
            (20_000, MD, "symbol='IBM',price=78,volume=0", "total=4 firstPrice=75.0"),
            (50_000, "", "", "-"),
            (50_000, MD, "symbol='IBM',price=79,volume=0", "total=5 firstPrice=75.0"),
            (60_000, "", "", "-"),
            (60_000, MD, "symbol='IBM',price=80,volume=0", "total=4 firstPrice=77.0"),
            (65_000, "", "", "-"),
            (70_000, "", "", "-"),
            (80_000, "", "", "-"),
            (80_000, MD, "symbol='IBM',price=81,volume=0", "total=3 firstPrice=79.0"),
            (120_000, "", "", "-"),
            (120_000, MD, "symbol='IBM',price=82,volume=0", "total=2 firstPrice=81.0"),
            (300_000, "", "", "-"),
            (300_000, MD, "symbol='IBM',price=83,volume=0", "total=1 firstPrice=83.0"),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPrevCountStar (its old rows)",
        select: "rstream count(*) as total, prev(count(*) - 1, price) as firstPrice FROM \
                 SupportMarketDataBean.win:time(60)",
        columns: "total long, firstPrice double",
        typed: true,
        steps: &[
            (0, "", "", "-"),
            (0, MD, "symbol='IBM',price=75,volume=0", "-"),
            (0, MD, "symbol='IBM',price=76,volume=0", "-"),
            (10_000, "", "", "-"),
            (10_000, MD, "symbol='IBM',price=77,volume=0", "-"),
            (20_000, "", "", "-"),
            (20_000, MD, "symbol='IBM',price=78,volume=0", "-"),
            (50_000, "", "", "-"),
            (50_000, MD, "symbol='IBM',price=79,volume=0", "-"),
            (60_000, "", "", "total=3 firstPrice=null | total=3 firstPrice=null"),
            (60_000, MD, "symbol='IBM',price=80,volume=0", "-"),
            (65_000, "", "", "-"),
            (70_000, "", "", "total=3 firstPrice=null"),
        ],
    },
    ViewCase {
        test: "A time window's event leaving as another arrives (the semantics)",
        select: "symbol, prevcount(price) as cnt, prevtail(0, symbol) as oldest, prev(1, symbol) as before FROM \
                 SupportMarketDataBean.win:time(1 sec)",
        columns: "symbol string, cnt long, oldest string, before string",
        typed: true,
        steps: &[
            (0, MD, "symbol='A',price=1,volume=0", "symbol='A' cnt=1 oldest='A' before=null"),
            (500, MD, "symbol='B',price=2,volume=0", "symbol='B' cnt=2 oldest='A' before='A'"),
            (1000, MD, "symbol='C',price=3,volume=0", "symbol='C' cnt=2 oldest='B' before='B'"),
            (1500, MD, "symbol='D',price=4,volume=0", "symbol='D' cnt=2 oldest='C' before='C'"),
            (3000, MD, "symbol='E',price=5,volume=0", "symbol='E' cnt=1 oldest='E' before=null"),
        ],
    },
];

/// The steps of Esper's `assertPerGroup`, which runs them through a time and a length window per group.
pub(super) const PER_GROUP: &[Step] = &[
    (
        0,
        MD,
        "symbol='IBM',price=75,volume=0",
        "symbol='IBM' prevPrice=null prevPrevPrice=null prevTail0Price=75.0 prevTail1Price=null countPrice=1",
    ),
    (
        0,
        MD,
        "symbol='MSFT',price=40,volume=0",
        "symbol='MSFT' prevPrice=null prevPrevPrice=null prevTail0Price=40.0 prevTail1Price=null countPrice=1",
    ),
    (
        0,
        MD,
        "symbol='IBM',price=76,volume=0",
        "symbol='IBM' prevPrice=75.0 prevPrevPrice=null prevTail0Price=75.0 prevTail1Price=76.0 countPrice=2",
    ),
    (
        0,
        MD,
        "symbol='CIC',price=1,volume=0",
        "symbol='CIC' prevPrice=null prevPrevPrice=null prevTail0Price=1.0 prevTail1Price=null countPrice=1",
    ),
    (
        0,
        MD,
        "symbol='MSFT',price=41,volume=0",
        "symbol='MSFT' prevPrice=40.0 prevPrevPrice=null prevTail0Price=40.0 prevTail1Price=41.0 countPrice=2",
    ),
    (
        0,
        MD,
        "symbol='IBM',price=77,volume=0",
        "symbol='IBM' prevPrice=76.0 prevPrevPrice=75.0 prevTail0Price=75.0 prevTail1Price=76.0 countPrice=3",
    ),
    (
        0,
        MD,
        "symbol='IBM',price=78,volume=0",
        "symbol='IBM' prevPrice=77.0 prevPrevPrice=76.0 prevTail0Price=75.0 prevTail1Price=76.0 countPrice=4",
    ),
    (
        0,
        MD,
        "symbol='CIC',price=2,volume=0",
        "symbol='CIC' prevPrice=1.0 prevPrevPrice=null prevTail0Price=1.0 prevTail1Price=2.0 countPrice=2",
    ),
    (
        0,
        MD,
        "symbol='MSFT',price=42,volume=0",
        "symbol='MSFT' prevPrice=41.0 prevPrevPrice=40.0 prevTail0Price=40.0 prevTail1Price=41.0 countPrice=3",
    ),
    (
        0,
        MD,
        "symbol='CIC',price=3,volume=0",
        "symbol='CIC' prevPrice=2.0 prevPrevPrice=1.0 prevTail0Price=1.0 prevTail1Price=2.0 countPrice=3",
    ),
];

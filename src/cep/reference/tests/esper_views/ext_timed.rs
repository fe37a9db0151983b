//! Esper's tests of the externally timed window `win:ext_timed(timestamp, period)`: the events in arrival order, each
//! arriving event with timestamp `T` pushing out, from the oldest on, those whose timestamp is below `T - period + 1`
//! (only the front: an older event behind a newer one stays), as old rows of its own update. The engine's clock plays
//! no part, and none of these tests sets it: each step's millisecond is its index.
//! Esper 5 (`aaa35756`) tests the view in `TestViewTimeInterval.testExternallyTimed`,
//! `TestPriorFunction.testPriorExtTimedWindow`, `TestPreviousFunction.testPreviousExtTimedWindow` and
//! `testExtTimeWindowPerGroup` (`regression/view`), and in the unit test
//! `view/window/TestExternallyTimedWindowView.testViewPush`, which feeds the view directly (transcribed here as a
//! statement over it). Esper 8's `regression-lib` class `ViewExternallyTimedWin` (at `978293f2`; the same statements,
//! events and rows at `2905b854`) holds the same `testExternallyTimed` (`ViewExternallyTimedWinSceneShort`) and three
//! scenes more, its `#ext_timed(...)` spelled `.win:ext_timed(...)` here, its `@name('s0')` dropped and its milestones
//! (engine state checkpoints, no events) ignored; its `ExprCorePrior` (at `7cb4d691`) and `ExprCorePrevious` (at
//! `316e8d5a`) hold the Esper 5 prior and previous cases unchanged (`ExprCorePriorExtTimedWindow`,
//! `ExprCorePreviousExtTimedWindow`, `ExprCorePreviousExtTimeWindowPerGroup`).
//! Where Esper asserts a statement's new and old rows, the new ones are its case here and the old ones a second case of
//! the same statement under `SELECT RSTREAM` ("its old rows"), as its listener would receive them (as `prior.rs` and
//! `previous.rs` do); a step whose new rows Esper asserts but whose old ones it does not (`assertOneGetNewAndReset`) is
//! `?` there, one where it asserts none (`assertNewOldData(.., null)`, a null `getLastOldData`) is `-`. Esper's beans
//! are told apart by identity; here by their `id`.
//! Skipped: every iterator assertion; the `prevwindow` columns (refused by name, as in `previous.rs`);
//! `ViewExternallyTimedTimedMonthScoped` (Esper 5's `TestViewTimeInterval.testExternallyTimedMonthScoped`: a period of
//! `1 month`, a calendar unit the subset lacks, over timestamps Esper parses in the JVM's time zone; it expects
//! `rstream` to give `E1`, at `2002-02-01T09:00`, only when `E3` arrives at `2002-03-01T09:00`, not at `E2`, one
//! millisecond earlier); `TestExternallyTimedWindowView.testIncorrectUse` and `TestExternallyTimedWindowViewFactory`
//! (the view's constructor and parameters, no rows); `win:ext_timed` over named windows (`TestNamedWindowViews`, Esper
//! 8's `InfraNamedWindowViews`) and parameterized by a context (`TestViewParameterizedByContext`). The batch view
//! `win:ext_timed_batch` has its own tests (`ext_timed_batch.rs`).

use super::previous::PER_GROUP;
use super::{MD, SB, ViewCase};

/// `ViewExternallyTimedWin` (Esper 8 `regression-lib`, at `978293f2`): its scenes over one window. Esper's
/// `makeMarketDataEvent(symbol, volume)` is `SupportMarketDataBean(symbol, 0, volume, null)` (no feed here), the
/// volume the timestamp; `sendSupportBeanWLong(string, long)` is `SupportBean(string, 0)` with that `longPrimitive`.
/// `ViewExternallyTimedWindowSceneOne` (a one-second window): Esper asserts each event's new row and, of each, its old
/// rows (`E1` at `E3`, `E2` at `E4`, `E3`, `E4` and `E5` at `E8`, `E6`, `E7` and `E8` at `E9`, none else); skipped
/// its iterator assertion (`E3` to `E7` after `E7`). `ViewExternallyTimedBatchSceneTwo` (so named, but of
/// `#ext_timed`; ten seconds): Esper asserts the new row of each event, and old rows only at `E3` (`E1`), `E5` (`E2`,
/// `E3`) and `E6` (`E4`); skipped its iterator assertions (empty, `E1`, `E1,E2`, `E2,E3`, `E2,E3,E4`, any order).
/// `ViewExternallyTimedWindowPrev` (one second; its `prevwindow(symbol)` column left out: `{E1}`, `{E2,E1}`,
/// `{E3,E2}`, `{E4,E3}`): Esper asserts the new rows and that `E1` and `E2` push nothing out; from `E3` on the window
/// holds two events (`E1` leaves at `E3`, `E2` at `E4`), which Esper does not assert as old rows.
pub(super) const EXT_TIMED_WIN: [ViewCase; 6] = [
    ViewCase {
        test: "ViewExternallyTimedWin.ViewExternallyTimedWindowSceneOne",
        select: "irstream * FROM SupportMarketDataBean.win:ext_timed(volume, 1 sec)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E1',price=0,volume=500", "symbol='E1'"),
            (2, MD, "symbol='E2',price=0,volume=600", "symbol='E2'"),
            (3, MD, "symbol='E3',price=0,volume=1500", "symbol='E3'"),
            (4, MD, "symbol='E4',price=0,volume=1600", "symbol='E4'"),
            (5, MD, "symbol='E5',price=0,volume=1700", "symbol='E5'"),
            (6, MD, "symbol='E6',price=0,volume=1800", "symbol='E6'"),
            (7, MD, "symbol='E7',price=0,volume=1900", "symbol='E7'"),
            (8, MD, "symbol='E8',price=0,volume=2700", "symbol='E8'"),
            (9, MD, "symbol='E9',price=0,volume=3700", "symbol='E9'"),
        ],
    },
    ViewCase {
        test: "ViewExternallyTimedWin.ViewExternallyTimedWindowSceneOne (its old rows)",
        select: "rstream * FROM SupportMarketDataBean.win:ext_timed(volume, 1 sec)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E1',price=0,volume=500", "-"),
            (2, MD, "symbol='E2',price=0,volume=600", "-"),
            (3, MD, "symbol='E3',price=0,volume=1500", "symbol='E1'"),
            (4, MD, "symbol='E4',price=0,volume=1600", "symbol='E2'"),
            (5, MD, "symbol='E5',price=0,volume=1700", "-"),
            (6, MD, "symbol='E6',price=0,volume=1800", "-"),
            (7, MD, "symbol='E7',price=0,volume=1900", "-"),
            (8, MD, "symbol='E8',price=0,volume=2700", "symbol='E3' | symbol='E4' | symbol='E5'"),
            (9, MD, "symbol='E9',price=0,volume=3700", "symbol='E6' | symbol='E7' | symbol='E8'"),
        ],
    },
    ViewCase {
        test: "ViewExternallyTimedWin.ViewExternallyTimedBatchSceneTwo",
        select: "irstream theString as c0 FROM SupportBean.win:ext_timed(longPrimitive, 10 sec)",
        columns: "c0 string",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=0,longPrimitive=1000", "c0='E1'"),
            (2, SB, "theString='E2',intPrimitive=0,longPrimitive=5000", "c0='E2'"),
            (3, SB, "theString='E3',intPrimitive=0,longPrimitive=11000", "c0='E3'"),
            (4, SB, "theString='E4',intPrimitive=0,longPrimitive=14000", "c0='E4'"),
            (5, SB, "theString='E5',intPrimitive=0,longPrimitive=21000", "c0='E5'"),
            (6, SB, "theString='E6',intPrimitive=0,longPrimitive=24000", "c0='E6'"),
        ],
    },
    ViewCase {
        test: "ViewExternallyTimedWin.ViewExternallyTimedBatchSceneTwo (its old rows)",
        select: "rstream theString as c0 FROM SupportBean.win:ext_timed(longPrimitive, 10 sec)",
        columns: "c0 string",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=0,longPrimitive=1000", "?"),
            (2, SB, "theString='E2',intPrimitive=0,longPrimitive=5000", "?"),
            (3, SB, "theString='E3',intPrimitive=0,longPrimitive=11000", "c0='E1'"),
            (4, SB, "theString='E4',intPrimitive=0,longPrimitive=14000", "?"),
            (5, SB, "theString='E5',intPrimitive=0,longPrimitive=21000", "c0='E2' | c0='E3'"),
            (6, SB, "theString='E6',intPrimitive=0,longPrimitive=24000", "c0='E4'"),
        ],
    },
    ViewCase {
        test: "ViewExternallyTimedWin.ViewExternallyTimedWindowPrev",
        select: "irstream symbol, prev(1, symbol) as prev1, prevtail(0, symbol) as prevTail0, prevtail(1, symbol) as \
                 prevTail1, prevcount(symbol) as prevCountSym FROM SupportMarketDataBean.win:ext_timed(volume, 1 sec)",
        columns: "symbol string, prev1 string, prevTail0 string, prevTail1 string, prevCountSym long",
        typed: false,
        steps: &[
            (
                1,
                MD,
                "symbol='E1',price=0,volume=500",
                "symbol='E1' prev1=null prevTail0='E1' prevTail1=null prevCountSym=1",
            ),
            (
                2,
                MD,
                "symbol='E2',price=0,volume=600",
                "symbol='E2' prev1='E1' prevTail0='E1' prevTail1='E2' prevCountSym=2",
            ),
            (
                3,
                MD,
                "symbol='E3',price=0,volume=1500",
                "symbol='E3' prev1='E2' prevTail0='E2' prevTail1='E3' prevCountSym=2",
            ),
            (
                4,
                MD,
                "symbol='E4',price=0,volume=1600",
                "symbol='E4' prev1='E3' prevTail0='E3' prevTail1='E4' prevCountSym=2",
            ),
        ],
    },
    ViewCase {
        test: "ViewExternallyTimedWin.ViewExternallyTimedWindowPrev (its old rows)",
        select: "rstream symbol, prev(1, symbol) as prev1, prevtail(0, symbol) as prevTail0, prevtail(1, symbol) as \
                 prevTail1, prevcount(symbol) as prevCountSym FROM SupportMarketDataBean.win:ext_timed(volume, 1 sec)",
        columns: "symbol string, prev1 string, prevTail0 string, prevTail1 string, prevCountSym long",
        typed: false,
        steps: &[
            (1, MD, "symbol='E1',price=0,volume=500", "-"),
            (2, MD, "symbol='E2',price=0,volume=600", "-"),
            (3, MD, "symbol='E3',price=0,volume=1500", "?"),
            (4, MD, "symbol='E4',price=0,volume=1600", "?"),
        ],
    },
];

/// `TestViewTimeInterval.testExternallyTimed` (Esper 5, at `aaa35756`; Esper 8's
/// `ViewExternallyTimedWin.ViewExternallyTimedWinSceneShort` the same): `irstream *` over a ten-minute window of
/// `new SupportBean()`s (no `theString`) with `longPrimitive` 0, 599999 and 600001. Esper asserts only old rows: none
/// at the second event, and one at the third (its count: the event at 0 is the one its code pushes out, the second
/// staying), after nothing asserted of the first. Its new rows, which Esper never asserts, are not a case here.
pub(super) const TIME_INTERVAL: [ViewCase; 1] = [ViewCase {
    test: "TestViewTimeInterval.testExternallyTimed (its old rows)",
    select: "rstream * FROM SupportBean.win:ext_timed(longPrimitive, 10 minutes)",
    columns: "id string",
    typed: false,
    steps: &[
        (1, SB, "id='e0',longPrimitive=0", "?"),
        (2, SB, "id='e1',longPrimitive=599999", "-"),
        (3, SB, "id='e2',longPrimitive=600001", "id='e0'"),
    ],
}];

/// `TestExternallyTimedWindowView.testViewPush` (Esper 5 unit test, `view/window`, at `aaa35756`): the view itself,
/// over `longPrimitive` with a period of 1000 ms, fed arrays of `SupportBean`s (`makeBeans(id, timestamp, n)`: `n`
/// beans with that `longPrimitive` and `theString` `id + 1`, so `a1`, `b1`, `b1`..), the new and old events of each
/// array checked by identity. Here a statement over the view, each bean one event (`id` `b0`, `b1` for the array
/// `b`), each array's beans one step each: the new rows are each bean's own; the old ones, which Esper asserts per
/// array (`a0` at `e`, `b0, b1` at `f`, `c0, d0` at `h`, `e0, e1, f0, g0, h0, h1, h2` at `i`, none else), come with
/// the array's first bean, the others, of the same timestamp, pushing nothing more out. Skipped: the iterator
/// assertions (the window in arrival order after each array).
pub(super) const EXT_TIMED_WINDOW_VIEW: [ViewCase; 2] = [
    ViewCase {
        test: "TestExternallyTimedWindowView.testViewPush",
        select: "irstream * FROM SupportBean.win:ext_timed(longPrimitive, 1 sec)",
        columns: "id string",
        typed: false,
        steps: &[
            (1, SB, "id='a0',theString='a1',longPrimitive=10000", "id='a0'"),
            (2, SB, "id='b0',theString='b1',longPrimitive=10500", "id='b0'"),
            (3, SB, "id='b1',theString='b1',longPrimitive=10500", "id='b1'"),
            (4, SB, "id='c0',theString='c1',longPrimitive=10900", "id='c0'"),
            (5, SB, "id='d0',theString='d1',longPrimitive=10999", "id='d0'"),
            (6, SB, "id='e0',theString='e1',longPrimitive=11000", "id='e0'"),
            (7, SB, "id='e1',theString='e1',longPrimitive=11000", "id='e1'"),
            (8, SB, "id='f0',theString='f1',longPrimitive=11500", "id='f0'"),
            (9, SB, "id='g0',theString='g1',longPrimitive=11899", "id='g0'"),
            (10, SB, "id='h0',theString='h1',longPrimitive=11999", "id='h0'"),
            (11, SB, "id='h1',theString='h1',longPrimitive=11999", "id='h1'"),
            (12, SB, "id='h2',theString='h1',longPrimitive=11999", "id='h2'"),
            (13, SB, "id='i0',theString='i1',longPrimitive=13001", "id='i0'"),
        ],
    },
    ViewCase {
        test: "TestExternallyTimedWindowView.testViewPush (its old rows)",
        select: "rstream * FROM SupportBean.win:ext_timed(longPrimitive, 1 sec)",
        columns: "id string",
        typed: false,
        steps: &[
            (1, SB, "id='a0',theString='a1',longPrimitive=10000", "-"),
            (2, SB, "id='b0',theString='b1',longPrimitive=10500", "-"),
            (3, SB, "id='b1',theString='b1',longPrimitive=10500", "-"),
            (4, SB, "id='c0',theString='c1',longPrimitive=10900", "-"),
            (5, SB, "id='d0',theString='d1',longPrimitive=10999", "-"),
            (6, SB, "id='e0',theString='e1',longPrimitive=11000", "id='a0'"),
            (7, SB, "id='e1',theString='e1',longPrimitive=11000", "-"),
            (8, SB, "id='f0',theString='f1',longPrimitive=11500", "id='b0' | id='b1'"),
            (9, SB, "id='g0',theString='g1',longPrimitive=11899", "-"),
            (10, SB, "id='h0',theString='h1',longPrimitive=11999", "id='c0' | id='d0'"),
            (11, SB, "id='h1',theString='h1',longPrimitive=11999", "-"),
            (12, SB, "id='h2',theString='h1',longPrimitive=11999", "-"),
            (
                13,
                SB,
                "id='i0',theString='i1',longPrimitive=13001",
                "id='e0' | id='e1' | id='f0' | id='g0' | id='h0' | id='h1' | id='h2'",
            ),
        ],
    },
];

/// `TestPriorFunction.testPriorExtTimedWindow` (Esper 5, at `aaa35756`; Esper 8's
/// `ExprCorePrior.ExprCorePriorExtTimedWindow` the same, but for the type it asserts of `priorPrice`, `Double` there,
/// `double` here): a one-minute window over `volume`, Esper's `sendMarketEvent(symbol, price, volume)` with no feed.
/// Each old row reads the priors its event arrived with. Esper asserts no new row of the last event (`D10` again, at
/// 150 s: `?`), and of its six old rows (the whole window, `D5` to `D10`) their count and the first; the other five
/// are what its code gives, matching the new rows Esper asserts of those events.
pub(super) const PRIOR_EXT_TIMED: [ViewCase; 2] = [
    ViewCase {
        test: "TestPriorFunction.testPriorExtTimedWindow",
        select: "irstream symbol as currSymbol, prior(2, symbol) as priorSymbol, prior(3, price) as priorPrice FROM \
                 SupportMarketDataBean.win:ext_timed(volume, 1 min)",
        columns: "currSymbol string, priorSymbol string, priorPrice double",
        typed: true,
        steps: &[
            (1, MD, "symbol='D1',price=1,volume=0", "currSymbol='D1' priorSymbol=null priorPrice=null"),
            (2, MD, "symbol='D2',price=2,volume=1000", "currSymbol='D2' priorSymbol=null priorPrice=null"),
            (3, MD, "symbol='D3',price=3,volume=3000", "currSymbol='D3' priorSymbol='D1' priorPrice=null"),
            (4, MD, "symbol='D4',price=4,volume=4000", "currSymbol='D4' priorSymbol='D2' priorPrice=1.0"),
            (5, MD, "symbol='D5',price=5,volume=5000", "currSymbol='D5' priorSymbol='D3' priorPrice=2.0"),
            (6, MD, "symbol='D6',price=6,volume=30000", "currSymbol='D6' priorSymbol='D4' priorPrice=3.0"),
            (7, MD, "symbol='D7',price=7,volume=60000", "currSymbol='D7' priorSymbol='D5' priorPrice=4.0"),
            (8, MD, "symbol='D8',price=8,volume=61000", "currSymbol='D8' priorSymbol='D6' priorPrice=5.0"),
            (9, MD, "symbol='D9',price=9,volume=63000", "currSymbol='D9' priorSymbol='D7' priorPrice=6.0"),
            (10, MD, "symbol='D10',price=10,volume=64000", "currSymbol='D10' priorSymbol='D8' priorPrice=7.0"),
            (11, MD, "symbol='D10',price=10,volume=150000", "?"),
        ],
    },
    ViewCase {
        test: "TestPriorFunction.testPriorExtTimedWindow (its old rows)",
        select: "rstream symbol as currSymbol, prior(2, symbol) as priorSymbol, prior(3, price) as priorPrice FROM \
                 SupportMarketDataBean.win:ext_timed(volume, 1 min)",
        columns: "currSymbol string, priorSymbol string, priorPrice double",
        typed: true,
        steps: &[
            (1, MD, "symbol='D1',price=1,volume=0", "-"),
            (2, MD, "symbol='D2',price=2,volume=1000", "-"),
            (3, MD, "symbol='D3',price=3,volume=3000", "-"),
            (4, MD, "symbol='D4',price=4,volume=4000", "-"),
            (5, MD, "symbol='D5',price=5,volume=5000", "-"),
            (6, MD, "symbol='D6',price=6,volume=30000", "-"),
            (7, MD, "symbol='D7',price=7,volume=60000", "currSymbol='D1' priorSymbol=null priorPrice=null"),
            (8, MD, "symbol='D8',price=8,volume=61000", "currSymbol='D2' priorSymbol=null priorPrice=null"),
            (9, MD, "symbol='D9',price=9,volume=63000", "currSymbol='D3' priorSymbol='D1' priorPrice=null"),
            (10, MD, "symbol='D10',price=10,volume=64000", "currSymbol='D4' priorSymbol='D2' priorPrice=1.0"),
            (
                11,
                MD,
                "symbol='D10',price=10,volume=150000",
                "currSymbol='D5' priorSymbol='D3' priorPrice=2.0 | currSymbol='D6' priorSymbol='D4' priorPrice=3.0 | \
                 currSymbol='D7' priorSymbol='D5' priorPrice=4.0 | currSymbol='D8' priorSymbol='D6' priorPrice=5.0 | \
                 currSymbol='D9' priorSymbol='D7' priorPrice=6.0 | currSymbol='D10' priorSymbol='D8' priorPrice=7.0",
            ),
        ],
    },
];

/// `TestPreviousFunction`'s two tests over `win:ext_timed` (Esper 5, at `aaa35756`; Esper 8's `ExprCorePrevious`
/// `ExprCorePreviousExtTimedWindow` and `ExprCorePreviousExtTimeWindowPerGroup` the same), their `prevwindow(price)`
/// columns left out. `testPreviousExtTimedWindow`: a one-minute window over `volume`, Esper's
/// `sendMarketEvent(symbol, price, volume)` with no feed; each event's new row, and its old rows, where every function
/// reads null, as Esper evaluates them on the remove stream (`D1` at `D7`, `D2` at `D8`, none before). Skipped: the
/// `prevWindowPrice` values (`{1.0}`, `{2.0, 1.0}`, .., `{7.0, 6.0, 5.0, 4.0, 3.0, 2.0}` at `D7`,
/// `{8.0, 7.0, 6.0, 5.0, 4.0, 3.0}` at `D8`, newest first). `testExtTimeWindowPerGroup`: Esper's `assertPerGroup`
/// (`previous.rs`'s `PER_GROUP` steps, all at the clock's 0, which this view does not read) under
/// `std:groupwin(symbol)`, over `sendMarketEvent(symbol, price)`, whose volume is 0: every timestamp is 0 and nothing
/// leaves a group's window.
pub(super) const PREVIOUS_EXT_TIMED: [ViewCase; 3] = [
    ViewCase {
        test: "TestPreviousFunction.testPreviousExtTimedWindow",
        select: "irstream symbol as currSymbol, prev(2, symbol) as prevSymbol, prev(2, price) as prevPrice, \
                 prevtail(0, symbol) as prevTailSymbol, prevtail(0, price) as prevTailPrice, prevtail(1, symbol) \
                 as prevTail1Symbol, prevtail(1, price) as prevTail1Price, prevcount(price) as prevCountPrice FROM \
                 SupportMarketDataBean.win:ext_timed(volume, 1 min)",
        columns: "currSymbol string, prevSymbol string, prevPrice double, prevTailSymbol string, prevTailPrice \
                  double, prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (
                1,
                MD,
                "symbol='D1',price=1,volume=0",
                "currSymbol='D1' prevSymbol=null prevPrice=null prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=1",
            ),
            (
                2,
                MD,
                "symbol='D2',price=2,volume=1000",
                "currSymbol='D2' prevSymbol=null prevPrice=null prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=2",
            ),
            (
                3,
                MD,
                "symbol='D3',price=3,volume=3000",
                "currSymbol='D3' prevSymbol='D1' prevPrice=1.0 prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=3",
            ),
            (
                4,
                MD,
                "symbol='D4',price=4,volume=4000",
                "currSymbol='D4' prevSymbol='D2' prevPrice=2.0 prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=4",
            ),
            (
                5,
                MD,
                "symbol='D5',price=5,volume=5000",
                "currSymbol='D5' prevSymbol='D3' prevPrice=3.0 prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=5",
            ),
            (
                6,
                MD,
                "symbol='D6',price=6,volume=30000",
                "currSymbol='D6' prevSymbol='D4' prevPrice=4.0 prevTailSymbol='D1' prevTailPrice=1.0 \
                 prevTail1Symbol='D2' prevTail1Price=2.0 prevCountPrice=6",
            ),
            (
                7,
                MD,
                "symbol='D7',price=7,volume=60000",
                "currSymbol='D7' prevSymbol='D5' prevPrice=5.0 prevTailSymbol='D2' prevTailPrice=2.0 \
                 prevTail1Symbol='D3' prevTail1Price=3.0 prevCountPrice=6",
            ),
            (
                8,
                MD,
                "symbol='D8',price=8,volume=61000",
                "currSymbol='D8' prevSymbol='D6' prevPrice=6.0 prevTailSymbol='D3' prevTailPrice=3.0 \
                 prevTail1Symbol='D4' prevTail1Price=4.0 prevCountPrice=6",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousExtTimedWindow (its old rows)",
        select: "rstream symbol as currSymbol, prev(2, symbol) as prevSymbol, prev(2, price) as prevPrice, \
                 prevtail(0, symbol) as prevTailSymbol, prevtail(0, price) as prevTailPrice, prevtail(1, symbol) \
                 as prevTail1Symbol, prevtail(1, price) as prevTail1Price, prevcount(price) as prevCountPrice FROM \
                 SupportMarketDataBean.win:ext_timed(volume, 1 min)",
        columns: "currSymbol string, prevSymbol string, prevPrice double, prevTailSymbol string, prevTailPrice \
                  double, prevTail1Symbol string, prevTail1Price double, prevCountPrice long",
        typed: true,
        steps: &[
            (1, MD, "symbol='D1',price=1,volume=0", "-"),
            (2, MD, "symbol='D2',price=2,volume=1000", "-"),
            (3, MD, "symbol='D3',price=3,volume=3000", "-"),
            (4, MD, "symbol='D4',price=4,volume=4000", "-"),
            (5, MD, "symbol='D5',price=5,volume=5000", "-"),
            (6, MD, "symbol='D6',price=6,volume=30000", "-"),
            (
                7,
                MD,
                "symbol='D7',price=7,volume=60000",
                "currSymbol='D1' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
            (
                8,
                MD,
                "symbol='D8',price=8,volume=61000",
                "currSymbol='D2' prevSymbol=null prevPrice=null prevTailSymbol=null prevTailPrice=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testExtTimeWindowPerGroup",
        select: "symbol, prev(1, price) as prevPrice, prev(2, price) as prevPrevPrice, prevtail(0, price) as \
                 prevTail0Price, prevtail(1, price) as prevTail1Price, prevcount(price) as countPrice FROM \
                 SupportMarketDataBean.std:groupwin(symbol).win:ext_timed(volume, 20 sec)",
        columns: "symbol string, prevPrice double, prevPrevPrice double, prevTail0Price double, prevTail1Price \
                  double, countPrice long",
        typed: true,
        steps: PER_GROUP,
    },
];

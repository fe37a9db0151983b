//! Esper's tests of the keyed and count data windows: `std:unique(keys)`, `std:lastevent()`, `win:length(n)`, and
//! `win:length(n)` and `win:time(d)` under `std:groupwin(k)`.
//! Esper 5 (`aaa35756`) has no assertion-bearing regression test of a single one of these views but for
//! `TestViewUniqueSorted.testReuseUnique` (the same statement and events as `ViewUnique`'s `ViewUniqueTwoWindows`,
//! transcribed from Esper 8 here) and the uses already in `windows.rs` and `selects.rs`; its `TestViewGroupBy` holds
//! no `std:groupwin` test in the subset (`testLengthWindowGrouped` asserts nothing, `testObjectArrayEvent` is over an
//! object-array type). The tables are Esper 8's `regression-lib` classes `ViewUnique`, `ViewLastEvent`, `ViewLengthWin`
//! and `ViewGroup` (at `978293f2`), their `#unique(k)`, `#lastevent()`, `#length(n)` and `#groupwin(k)` spelled
//! `.std:unique(k)`, `.std:lastevent()`, `.win:length(n)` and `.std:groupwin(k)` here, their `@Name('s0')` dropped
//! and their milestones (engine state checkpoints, no events) ignored. Every iterator assertion (`env.iterator("s0")`,
//! `env.statement("s0").iterator()`) is skipped. Where Esper asserts an event's new and old rows (`assertNewOldData`,
//! `assertGetAndResetIRPair`), the new row is kept: each of these windows gives the arriving event as its one new row,
//! and what it pushes out (the event of the same key, the last event, the oldest of the window or of the group) only as
//! old. No Esper test of either version asserts rows of `std:lastevent()` under `std:groupwin`.

use super::{MD, SB, ViewCase};

/// `ViewUnique` (Esper 8 `regression-lib`, at `978293f2`): each event gives its row, whether its key is new or
/// replaces (and pushes out as old) the event of its key. Esper's `SupportMarketDataBean(symbol, price, 0L, "")`, or
/// with the feed given where the key holds it; `SupportBean(theString, intPrimitive)`, `intBoxed` null. Skipped: the
/// iterator assertions (`ViewLastUniqueSceneOne`: prices `102.0, 5.0`; `ViewLastUniqueSceneTwo`: `101.0, 102.0`, then
/// `101.0, 6.0, 102.0`, any order; `ViewLastUniqueWithAnnotationPrefix`: empty, `{E1,1}`, `{E1,1},{E2,20}`,
/// `{E1,2},{E2,20}`, `{E1,2},{E2,21}`), and `ViewUniqueExpressionParameter` (a `Math.abs` key, iterator only). The
/// `optionalAnnotation` of the scenes is null in `executions()`. `ViewUniqueTwoWindows` is two statements: `s0` from
/// the start, and `s1`, deployed after `E1`, which hears `E2` alone (new, no old); both keys are null (the same key).
pub(super) const UNIQUE: [ViewCase; 5] = [
    ViewCase {
        test: "ViewUnique.ViewLastUniqueSceneOne",
        select: "irstream symbol, price FROM SupportMarketDataBean.std:unique(symbol) order by symbol",
        columns: "symbol string, price double",
        typed: false,
        steps: &[
            (1, MD, "symbol='S1',price=100,volume=0,feed=''", "symbol='S1' price=100.0"),
            (2, MD, "symbol='S2',price=5,volume=0,feed=''", "symbol='S2' price=5.0"),
            (3, MD, "symbol='S1',price=101,volume=0,feed=''", "symbol='S1' price=101.0"),
            (4, MD, "symbol='S1',price=102,volume=0,feed=''", "symbol='S1' price=102.0"),
            (5, MD, "symbol='S2',price=6,volume=0,feed=''", "symbol='S2' price=6.0"),
        ],
    },
    ViewCase {
        test: "ViewUnique.ViewLastUniqueSceneTwo",
        select: "irstream symbol, feed, price FROM SupportMarketDataBean.std:unique(symbol, feed) order by symbol, \
                 feed",
        columns: "symbol string, feed string, price double",
        typed: false,
        steps: &[
            (1, MD, "symbol='S1',price=100,volume=0,feed='F1'", "symbol='S1' feed='F1' price=100.0"),
            (2, MD, "symbol='S2',price=5,volume=0,feed='F1'", "symbol='S2' feed='F1' price=5.0"),
            (3, MD, "symbol='S1',price=101,volume=0,feed='F1'", "symbol='S1' feed='F1' price=101.0"),
            (4, MD, "symbol='S2',price=102,volume=0,feed='F1'", "symbol='S2' feed='F1' price=102.0"),
            (5, MD, "symbol='S1',price=6,volume=0,feed='F2'", "symbol='S1' feed='F2' price=6.0"),
        ],
    },
    ViewCase {
        test: "ViewUnique.ViewLastUniqueWithAnnotationPrefix",
        select: "irstream theString as c0, intPrimitive as c1 FROM SupportBean.std:unique(theString)",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=1", "c0='E1' c1=1"),
            (2, SB, "theString='E2',intPrimitive=20", "c0='E2' c1=20"),
            (3, SB, "theString='E1',intPrimitive=2", "c0='E1' c1=2"),
            (4, SB, "theString='E2',intPrimitive=21", "c0='E2' c1=21"),
            (5, SB, "theString='E2',intPrimitive=22", "c0='E2' c1=22"),
            (6, SB, "theString='E1',intPrimitive=3", "c0='E1' c1=3"),
            (7, SB, "theString='E3',intPrimitive=30", "c0='E3' c1=30"),
        ],
    },
    ViewCase {
        test: "ViewUnique.ViewUniqueTwoWindows",
        select: "irstream * FROM SupportBean.std:unique(intBoxed)",
        columns: "id string, theString string",
        typed: false,
        steps: &[
            (1, SB, "id='e1',theString='E1',intPrimitive=1", "id='e1' theString='E1'"),
            (2, SB, "id='e2',theString='E2',intPrimitive=2", "id='e2' theString='E2'"),
        ],
    },
    ViewCase {
        test: "ViewUnique.ViewUniqueTwoWindows",
        select: "irstream * FROM SupportBean.std:unique(intBoxed)",
        columns: "id string, theString string",
        typed: false,
        steps: &[(2, SB, "id='e2',theString='E2',intPrimitive=2", "id='e2' theString='E2'")],
    },
];

/// `ViewLastEvent` (Esper 8 `regression-lib`, at `978293f2`): every event gives its row (and pushes the one before it
/// out as old). Esper's `SupportBean(theString, intPrimitive)` and `SupportMarketDataBean(symbol, 0, 0L, null)` (a null
/// feed, absent here). Skipped: the iterator assertions (empty, then the last event only).
pub(super) const LAST_EVENT: [ViewCase; 2] = [
    ViewCase {
        test: "ViewLastEvent.ViewLastEventSceneOne",
        select: "irstream theString as c0, intPrimitive as c1 FROM SupportBean.std:lastevent()",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=1", "c0='E1' c1=1"),
            (2, SB, "theString='E2',intPrimitive=2", "c0='E2' c1=2"),
            (3, SB, "theString='E3',intPrimitive=3", "c0='E3' c1=3"),
            (4, SB, "theString='E4',intPrimitive=4", "c0='E4' c1=4"),
        ],
    },
    ViewCase {
        test: "ViewLastEvent.ViewLastEventMarketData",
        select: "irstream * FROM SupportMarketDataBean.std:lastevent()",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E1',price=0,volume=0", "symbol='E1'"),
            (2, MD, "symbol='E2',price=0,volume=0", "symbol='E2'"),
            (3, MD, "symbol='E3',price=0,volume=0", "symbol='E3'"),
            (4, MD, "symbol='E4',price=0,volume=0", "symbol='E4'"),
            (5, MD, "symbol='E5',price=0,volume=0", "symbol='E5'"),
            (6, MD, "symbol='E6',price=0,volume=0", "symbol='E6'"),
            (7, MD, "symbol='E7',price=0,volume=0", "symbol='E7'"),
            (8, MD, "symbol='E8',price=0,volume=0", "symbol='E8'"),
            (9, MD, "symbol='E9',price=0,volume=0", "symbol='E9'"),
        ],
    },
];

/// `ViewLengthWin` (Esper 8 `regression-lib`, at `978293f2`): every event gives its row (from the third on, pushing
/// the oldest out as old). Esper's `SupportBean(theString, 0)`. Skipped: the iterator assertions (in arrival order:
/// empty, `E1`, `E1,E2`, `E2,E3`, `E3,E4`), `ViewLengthWindowWPrevPrior` (`prev`, `prior`, `prevtail`, `prevcount`,
/// `prevwindow`), `ViewLengthWinWPropertyDetail` (mapped, indexed and nested properties of `SupportBeanComplexProps`)
/// and `ViewLengthWindowIterator` (iterator only; Esper 5's `TestViewLengthWindowStats.testIterator` the same).
pub(super) const LENGTH_WIN: [ViewCase; 1] = [ViewCase {
    test: "ViewLengthWin.ViewLengthWindowSceneOne",
    select: "irstream * FROM SupportBean.win:length(2)",
    columns: "theString string",
    typed: false,
    steps: &[
        (1, SB, "theString='E1',intPrimitive=0", "theString='E1'"),
        (2, SB, "theString='E2',intPrimitive=0", "theString='E2'"),
        (3, SB, "theString='E3',intPrimitive=0", "theString='E3'"),
        (4, SB, "theString='E4',intPrimitive=0", "theString='E4'"),
    ],
}];

/// `ViewGroup.ViewGroupLengthWin` (Esper 8 `regression-lib`, at `978293f2`): a length window of three per
/// `theString`, every event giving its row (the fourth of a group pushing that group's oldest out as old: `E2`/20 at
/// `E2`/23, `E1`/1 at `E1`/-1). Esper sends `E1`/2, `E2`/21, `E2`/22 and `E1`/3 before one assertion of the four new
/// rows flattened, in that order, and no old row: one row a step here. Skipped: the iterator assertions. The time
/// window under `std:groupwin` is [`GROUPWIN_TIME`]; the other `ViewGroup` tests are of the batch windows under it
/// (the same events and rows as the first two `GROUPWIN_TRACES` of `batches.rs`), of views outside the subset
/// (`time_accum`, `time_order`, `time_length_batch`, `expr_batch`, `keepall` with reclaim hints, `stat:` views), over
/// other types (`OAEventStringInt`, `SupportBeanTimestamp`, `SupportSensorEvent`) or without rows asserted.
pub(super) const GROUPWIN: [ViewCase; 1] = [ViewCase {
    test: "ViewGroup.ViewGroupLengthWin",
    select: "irstream theString as c0, intPrimitive as c1 FROM SupportBean.std:groupwin(theString).win:length(3)",
    columns: "c0 string, c1 int",
    typed: false,
    steps: &[
        (1, SB, "theString='E1',intPrimitive=1", "c0='E1' c1=1"),
        (2, SB, "theString='E2',intPrimitive=20", "c0='E2' c1=20"),
        (3, SB, "theString='E1',intPrimitive=2", "c0='E1' c1=2"),
        (4, SB, "theString='E2',intPrimitive=21", "c0='E2' c1=21"),
        (5, SB, "theString='E2',intPrimitive=22", "c0='E2' c1=22"),
        (6, SB, "theString='E1',intPrimitive=3", "c0='E1' c1=3"),
        (7, SB, "theString='E2',intPrimitive=23", "c0='E2' c1=23"),
        (8, SB, "theString='E1',intPrimitive=-1", "c0='E1' c1=-1"),
    ],
}];

/// `ViewGroup.ViewGroupTimeWin` (Esper 8 `regression-lib`, at `978293f2`; the same statement, events, clock moves and
/// rows in the later stored versions `f6b4270c` and `2905b854`): a ten-second time window per `symbol`, every event
/// giving its row, each event leaving its group's window ten seconds after it came, as an old row only (`S1`/10 at
/// 11 s, `S1`/20 at 15 s, `S2`/30 at 20 s: Esper asserts a null new stream at each, `-` here). Esper's
/// `SupportMarketDataBean(symbol, price, -1L, "")`; it asserts `price` alone. Esper sets its clock to 1 s before the
/// statement and again after it (a step `-` here: the `assertOneGetNewAndReset` of the next event covers it); the
/// statement starts at 0 here, which a time window, counting from each event's arrival, does not see. Esper 8's
/// `ViewGroup` has no `std:lastevent()` or `std:unique` under `std:groupwin`.
pub(super) const GROUPWIN_TIME: [ViewCase; 1] = [ViewCase {
    test: "ViewGroup.ViewGroupTimeWin",
    select: "irstream * FROM SupportMarketDataBean.std:groupwin(symbol).win:time(10 sec)",
    columns: "price double",
    typed: false,
    steps: &[
        (1_000, "", "", "-"),
        (1_000, MD, "symbol='S1',price=10,volume=-1,feed=''", "price=10.0"),
        (5_000, "", "", "-"),
        (5_000, MD, "symbol='S1',price=20,volume=-1,feed=''", "price=20.0"),
        (10_000, "", "", "-"),
        (10_000, MD, "symbol='S2',price=30,volume=-1,feed=''", "price=30.0"),
        (10_999, "", "", "-"),
        (11_000, "", "", "-"),
        (15_000, "", "", "-"),
        (20_000, "", "", "-"),
    ],
}];

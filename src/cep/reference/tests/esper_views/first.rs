//! Esper's tests of the "first" data windows: `std:firstevent()`, `win:firstlength(n)`, `std:firstunique(keys)` and
//! `win:firsttime(d)`.
//! Esper 5 (`aaa35756`) has no regression class of its own for these views (its only assertion-bearing uses of them
//! are intersections and unions of two views, in `TestDataWindowIntersectExpiry` and `TestDataWindowUnionExpiry`,
//! outside the subset); the single-view tests are Esper 8's `regression-lib` classes
//! `ViewFirstEvent`, `ViewFirstLength` and `ViewFirstUnique` (at `978293f2`, the same data at `2905b854`), their
//! `#firstevent()`, `#firstlength(n)` and `#firstunique(k)` spelled `.std:firstevent()`, `.win:firstlength(n)` and
//! `.std:firstunique(k)` here, their `@Name('s0')` dropped and their milestones (engine state checkpoints, no events)
//! ignored. No Esper test of either version asserts rows of a first view under `std:groupwin`, nor of a first view
//! under an aggregate (the agreement tests' configurations have both). Every iterator assertion (`env.iterator("s0")`,
//! `stmt.iterator()`) is skipped. Where Esper asserts the old rows, the first views give none
//! (`assertNewOldData(.., null)`): an event they refuse is dropped without output, and an event they keep is never
//! pushed out again.

use super::{MD, SB, ViewCase};

/// `ViewFirstEvent` (Esper 8 `regression-lib`, at `978293f2`; same data at `2905b854`): only the very first event
/// enters the window and gives a row, every later one nothing. Skipped: the iterator assertions (empty before `E1`,
/// then `E1` only).
pub(super) const FIRST_EVENT: [ViewCase; 2] = [
    ViewCase {
        test: "ViewFirstEvent.ViewFirstEventSceneOne",
        select: "irstream theString as c0, intPrimitive as c1 FROM SupportBean.std:firstevent()",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=1", "c0='E1' c1=1"),
            (2, SB, "theString='E2',intPrimitive=2", "-"),
            (3, SB, "theString='E3',intPrimitive=3", "-"),
        ],
    },
    ViewCase {
        test: "ViewFirstEvent.ViewFirstEventMarketData",
        select: "irstream * FROM SupportMarketDataBean.std:firstevent()",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E1',price=0,volume=0", "symbol='E1'"),
            (2, MD, "symbol='E2',price=0,volume=0", "-"),
            (3, MD, "symbol='E3',price=0,volume=0", "-"),
        ],
    },
];

/// `ViewFirstLength` (Esper 8 `regression-lib`, at `978293f2`; same data at `2905b854`): the first `n` events give
/// their rows, every later one nothing (Esper's `SupportMarketDataBean(symbol, 0, 0L, null)`: a null feed, absent
/// here). Skipped: the iterator assertions (the first `n` events, in arrival order).
pub(super) const FIRST_LENGTH: [ViewCase; 2] = [
    ViewCase {
        test: "ViewFirstLength.ViewFirstLengthSceneOne",
        select: "irstream theString as c0 FROM SupportBean.win:firstlength(2)",
        columns: "c0 string",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=0", "c0='E1'"),
            (2, SB, "theString='E2',intPrimitive=0", "c0='E2'"),
            (3, SB, "theString='E3',intPrimitive=0", "-"),
            (4, SB, "theString='E4',intPrimitive=0", "-"),
        ],
    },
    ViewCase {
        test: "ViewFirstLength.ViewFirstLengthMarketData",
        select: "irstream * FROM SupportMarketDataBean.win:firstlength(3)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E1',price=0,volume=0", "symbol='E1'"),
            (2, MD, "symbol='E2',price=0,volume=0", "symbol='E2'"),
            (3, MD, "symbol='E3',price=0,volume=0", "symbol='E3'"),
            (4, MD, "symbol='E4',price=0,volume=0", "-"),
        ],
    },
];

/// `ViewFirstUnique` (Esper 8 `regression-lib`, at `978293f2`; same data at `2905b854`): the first event of each key
/// gives its row, a later event of a key already held nothing (`ViewFirstUniqueSimple` sends `E2`/22 and `E1`/3
/// before one "not invoked" check: neither gave a row). Esper's `SupportMarketDataBean(symbol, price, 0L, "")`.
/// Skipped: the iterator assertions (`{E1,1},{E2,20}`; prices `100.0, 5.0` in symbol order).
pub(super) const FIRST_UNIQUE: [ViewCase; 2] = [
    ViewCase {
        test: "ViewFirstUnique.ViewFirstUniqueSimple",
        select: "irstream theString as c0, intPrimitive as c1 FROM SupportBean.std:firstunique(theString)",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (1, SB, "theString='E1',intPrimitive=1", "c0='E1' c1=1"),
            (2, SB, "theString='E2',intPrimitive=20", "c0='E2' c1=20"),
            (3, SB, "theString='E1',intPrimitive=2", "-"),
            (4, SB, "theString='E2',intPrimitive=21", "-"),
            (5, SB, "theString='E2',intPrimitive=22", "-"),
            (6, SB, "theString='E1',intPrimitive=3", "-"),
            (7, SB, "theString='E3',intPrimitive=30", "c0='E3' c1=30"),
        ],
    },
    ViewCase {
        test: "ViewFirstUnique.ViewFirstUniqueSceneOne",
        select: "irstream symbol, price FROM SupportMarketDataBean.std:firstunique(symbol) order by symbol",
        columns: "symbol string, price double",
        typed: false,
        steps: &[
            (1, MD, "symbol='S1',price=100,volume=0,feed=''", "symbol='S1' price=100.0"),
            (2, MD, "symbol='S2',price=5,volume=0,feed=''", "symbol='S2' price=5.0"),
            (3, MD, "symbol='S1',price=101,volume=0,feed=''", "-"),
            (4, MD, "symbol='S1',price=102,volume=0,feed=''", "-"),
            (5, MD, "symbol='S3',price=6,volume=0,feed=''", "symbol='S3' price=6.0"),
        ],
    },
];

/// `ViewFirstTime` (Esper 8 `regression-lib`, at `2905b854`), the clock at 0 when the statement starts: the events of
/// its first period give their rows, and from the period's end (an event at exactly 10 s already) none does (Esper's
/// `SupportMarketDataBean(symbol, 0, 0L, null)`). Skipped: the iterator assertions, and `ViewFirstTimeSimple`, which
/// has no other (and a period of `1 month`).
pub(super) const FIRST_TIME: [ViewCase; 2] = [
    ViewCase {
        test: "ViewFirstTime.ViewFirstTimeSceneOne",
        select: "irstream theString as c0, intPrimitive as c1 FROM SupportBean.win:firsttime(10 sec)",
        columns: "c0 string, c1 int",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=1", "c0='E1' c1=1"),
            (2_000, SB, "theString='E2',intPrimitive=20", "c0='E2' c1=20"),
            (9_999, "", "", "?"),
            (10_000, "", "", "?"),
            (10_000, SB, "theString='E3',intPrimitive=30", "-"),
            (10_000, SB, "theString='E4',intPrimitive=40", "-"),
        ],
    },
    ViewCase {
        test: "ViewFirstTime.ViewFirstTimeSceneTwo",
        select: "irstream * FROM SupportMarketDataBean.win:firsttime(1 sec)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (500, MD, "symbol='E1',price=0,volume=0", "symbol='E1'"),
            (600, MD, "symbol='E2',price=0,volume=0", "symbol='E2'"),
            (1_500, "", "", "-"),
            (1_600, MD, "symbol='E3',price=0,volume=0", "-"),
            (2_000, MD, "symbol='E4',price=0,volume=0", "-"),
        ],
    },
];

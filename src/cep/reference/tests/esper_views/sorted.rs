//! Esper's tests of the sorted window `ext:sort(n, criteria)`: the `n` events that sort first, those alike newest
//! first; an arrival past `n` pushes out the event that sorts last (of those alike the oldest), which may be the
//! arrival itself, then given as new and as old. The tables are Esper 8's `regression-lib` class `ViewSort` (read at
//! `8f740416`), its `#sort(...)` spelled `.ext:sort(...)` here, its `@name('s0')` dropped and its milestones ignored.
//! Where Esper asserts an event's new and old rows, the new rows are the case and the old ones a second case of the
//! same statement under `SELECT RSTREAM` ("its old rows"). Skipped: every iterator assertion (the view's events in
//! their sort order), `ViewSortedMultikey` (its second criterion is a Java enum, which no type here holds) and
//! `ViewSortedPrev` (`prev` and its kin over `ext:sort` read the sort order; refused by name).

use super::{MD, SB, ViewCase};

/// `ViewSort.ViewSortSceneOne`, `ViewSortSceneTwo`, `ViewSortedSingleKeyBuiltin` and `ViewSortedPrimitiveKey`, each
/// with its old rows. `SupportBean(theString, intPrimitive)` with `longPrimitive` set; `SupportMarketDataBean(symbol,
/// 0, 0L, null)` or `("IBM", price, 0L, null)`.
pub(super) const SORTED: [ViewCase; 8] = [
    ViewCase {
        test: "ViewSort.ViewSortSceneOne",
        select: "irstream * FROM SupportBean.ext:sort(3, intPrimitive desc, longPrimitive)",
        columns: "theString string, intPrimitive int, longPrimitive long",
        typed: false,
        steps: &[
            (
                0,
                SB,
                "theString='E1',intPrimitive=100,longPrimitive=0",
                "theString='E1' intPrimitive=100 longPrimitive=0",
            ),
            (0, SB, "theString='E2',intPrimitive=99,longPrimitive=5", "theString='E2' intPrimitive=99 longPrimitive=5"),
            (
                0,
                SB,
                "theString='E3',intPrimitive=100,longPrimitive=-1",
                "theString='E3' intPrimitive=100 longPrimitive=-1",
            ),
            (
                0,
                SB,
                "theString='E4',intPrimitive=100,longPrimitive=1",
                "theString='E4' intPrimitive=100 longPrimitive=1",
            ),
            (
                0,
                SB,
                "theString='E5',intPrimitive=101,longPrimitive=10",
                "theString='E5' intPrimitive=101 longPrimitive=10",
            ),
            (
                0,
                SB,
                "theString='E6',intPrimitive=101,longPrimitive=11",
                "theString='E6' intPrimitive=101 longPrimitive=11",
            ),
            (
                0,
                SB,
                "theString='E6',intPrimitive=100,longPrimitive=0",
                "theString='E6' intPrimitive=100 longPrimitive=0",
            ),
        ],
    },
    ViewCase {
        test: "ViewSort.ViewSortSceneOne (its old rows)",
        select: "rstream * FROM SupportBean.ext:sort(3, intPrimitive desc, longPrimitive)",
        columns: "theString string, intPrimitive int, longPrimitive long",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=100,longPrimitive=0", "-"),
            (0, SB, "theString='E2',intPrimitive=99,longPrimitive=5", "-"),
            (0, SB, "theString='E3',intPrimitive=100,longPrimitive=-1", "-"),
            (
                0,
                SB,
                "theString='E4',intPrimitive=100,longPrimitive=1",
                "theString='E2' intPrimitive=99 longPrimitive=5",
            ),
            (
                0,
                SB,
                "theString='E5',intPrimitive=101,longPrimitive=10",
                "theString='E4' intPrimitive=100 longPrimitive=1",
            ),
            (
                0,
                SB,
                "theString='E6',intPrimitive=101,longPrimitive=11",
                "theString='E1' intPrimitive=100 longPrimitive=0",
            ),
            (
                0,
                SB,
                "theString='E6',intPrimitive=100,longPrimitive=0",
                "theString='E6' intPrimitive=100 longPrimitive=0",
            ),
        ],
    },
    ViewCase {
        test: "ViewSort.ViewSortSceneTwo",
        select: "irstream * FROM SupportBean.ext:sort(3, theString)",
        columns: "theString string, intPrimitive int",
        typed: false,
        steps: &[
            (0, SB, "theString='G',intPrimitive=1", "theString='G' intPrimitive=1"),
            (0, SB, "theString='E',intPrimitive=2", "theString='E' intPrimitive=2"),
            (0, SB, "theString='H',intPrimitive=3", "theString='H' intPrimitive=3"),
            (0, SB, "theString='I',intPrimitive=4", "theString='I' intPrimitive=4"),
            (0, SB, "theString='A',intPrimitive=5", "theString='A' intPrimitive=5"),
            (0, SB, "theString='C',intPrimitive=6", "theString='C' intPrimitive=6"),
            (0, SB, "theString='C',intPrimitive=7", "theString='C' intPrimitive=7"),
            (0, SB, "theString='C',intPrimitive=8", "theString='C' intPrimitive=8"),
        ],
    },
    ViewCase {
        test: "ViewSort.ViewSortSceneTwo (its old rows)",
        select: "rstream * FROM SupportBean.ext:sort(3, theString)",
        columns: "theString string, intPrimitive int",
        typed: false,
        steps: &[
            (0, SB, "theString='G',intPrimitive=1", "-"),
            (0, SB, "theString='E',intPrimitive=2", "-"),
            (0, SB, "theString='H',intPrimitive=3", "-"),
            (0, SB, "theString='I',intPrimitive=4", "theString='I' intPrimitive=4"),
            (0, SB, "theString='A',intPrimitive=5", "theString='H' intPrimitive=3"),
            (0, SB, "theString='C',intPrimitive=6", "theString='G' intPrimitive=1"),
            (0, SB, "theString='C',intPrimitive=7", "theString='E' intPrimitive=2"),
            (0, SB, "theString='C',intPrimitive=8", "theString='C' intPrimitive=6"),
        ],
    },
    ViewCase {
        test: "ViewSort.ViewSortedSingleKeyBuiltin",
        select: "irstream symbol FROM SupportMarketDataBean.ext:sort(3, symbol)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (0, MD, "symbol='B1',price=0,volume=0", "symbol='B1'"),
            (0, MD, "symbol='D1',price=0,volume=0", "symbol='D1'"),
            (0, MD, "symbol='C1',price=0,volume=0", "symbol='C1'"),
            (0, MD, "symbol='A1',price=0,volume=0", "symbol='A1'"),
            (0, MD, "symbol='F1',price=0,volume=0", "symbol='F1'"),
            (0, MD, "symbol='B2',price=0,volume=0", "symbol='B2'"),
        ],
    },
    ViewCase {
        test: "ViewSort.ViewSortedSingleKeyBuiltin (its old rows)",
        select: "rstream symbol FROM SupportMarketDataBean.ext:sort(3, symbol)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (0, MD, "symbol='B1',price=0,volume=0", "-"),
            (0, MD, "symbol='D1',price=0,volume=0", "-"),
            (0, MD, "symbol='C1',price=0,volume=0", "-"),
            (0, MD, "symbol='A1',price=0,volume=0", "symbol='D1'"),
            (0, MD, "symbol='F1',price=0,volume=0", "symbol='F1'"),
            (0, MD, "symbol='B2',price=0,volume=0", "symbol='C1'"),
        ],
    },
    ViewCase {
        test: "ViewSort.ViewSortedPrimitiveKey",
        select: "irstream price FROM SupportMarketDataBean.ext:sort(1, price)",
        columns: "price double",
        typed: false,
        steps: &[
            (0, MD, "symbol='IBM',price=10.5,volume=0", "price=10.5"),
            (0, MD, "symbol='IBM',price=10,volume=0", "price=10.0"),
            (0, MD, "symbol='IBM',price=11,volume=0", "price=11.0"),
        ],
    },
    ViewCase {
        test: "ViewSort.ViewSortedPrimitiveKey (its old rows)",
        select: "rstream price FROM SupportMarketDataBean.ext:sort(1, price)",
        columns: "price double",
        typed: false,
        steps: &[
            (0, MD, "symbol='IBM',price=10.5,volume=0", "-"),
            (0, MD, "symbol='IBM',price=10,volume=0", "price=10.5"),
            (0, MD, "symbol='IBM',price=11,volume=0", "price=11.0"),
        ],
    },
];

//! Esper's tests of the sorted windows. `ext:sort(n, criteria)` keeps the `n` events that sort first, those alike
//! newest first; an arrival past `n` pushes out the event that sorts last (of those alike the oldest), which may be the
//! arrival itself, then given as new and as old. `ext:rank(unique, n, criteria)` keeps so the last event of each
//! unique key: an arrival of a key it holds replaces that key's event. The tables are Esper 8's `regression-lib`
//! classes `ViewSort` and `ViewRank` (read at `8f740416`), their `#sort(...)` and `#rank(...)` spelled `.ext:sort(...)`
//! and `.ext:rank(...)` here, their `@name('s0')` dropped and their milestones ignored. Where Esper asserts an event's
//! new and old rows, the new rows are the case and the old ones a second case of the same statement under `SELECT
//! RSTREAM` ("its old rows"). Skipped: every iterator assertion (the view's events in their sort order),
//! `ViewSortedMultikey` (its second criterion is a Java enum, which no type here holds), and `ViewSortedPrev` (`prev` and
//! its kin over `ext:sort` read the sort order; refused by name).

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

/// `ViewRank.ViewRankedSceneOne`, `ViewRankMultiexpression`, `ViewRankRanked` and the `std:groupwin` statement of
/// `ViewRankPrevAndGroupWin`, each with its old rows (Esper 8's `ViewRank`, read at `8f740416`): an arrival of a key
/// the window holds replaces that key's event, which leaves; one of a new key past `n` pushes out the event that sorts
/// last, of those alike the oldest, or itself. `SupportBean(theString, intPrimitive)` with `longPrimitive` (and
/// `doublePrimitive`) set. Skipped: the iterator assertions, `ViewRankedPrev` and the first statement of
/// `ViewRankPrevAndGroupWin` (`prev` and `prevwindow` over `ext:rank`, refused by name), `ViewRankRemoveStream` (a
/// named window over `ext:rank`, which the subset refuses) and `ViewRankInvalid` (Esper's messages).
pub(super) const RANKED: [ViewCase; 8] = [
    ViewCase {
        test: "ViewRank.ViewRankedSceneOne",
        select: "irstream * FROM SupportBean.ext:rank(theString, 3, intPrimitive)",
        columns: "theString string, intPrimitive int, longPrimitive long",
        typed: false,
        steps: &[
            (
                0,
                SB,
                "theString='A',intPrimitive=10,longPrimitive=100",
                "theString='A' intPrimitive=10 longPrimitive=100",
            ),
            (
                0,
                SB,
                "theString='B',intPrimitive=20,longPrimitive=101",
                "theString='B' intPrimitive=20 longPrimitive=101",
            ),
            (0, SB, "theString='A',intPrimitive=8,longPrimitive=102", "theString='A' intPrimitive=8 longPrimitive=102"),
            (
                0,
                SB,
                "theString='C',intPrimitive=15,longPrimitive=103",
                "theString='C' intPrimitive=15 longPrimitive=103",
            ),
            (
                0,
                SB,
                "theString='D',intPrimitive=21,longPrimitive=104",
                "theString='D' intPrimitive=21 longPrimitive=104",
            ),
            (
                0,
                SB,
                "theString='A',intPrimitive=16,longPrimitive=105",
                "theString='A' intPrimitive=16 longPrimitive=105",
            ),
            (
                0,
                SB,
                "theString='C',intPrimitive=16,longPrimitive=106",
                "theString='C' intPrimitive=16 longPrimitive=106",
            ),
            (
                0,
                SB,
                "theString='C',intPrimitive=16,longPrimitive=107",
                "theString='C' intPrimitive=16 longPrimitive=107",
            ),
            (0, SB, "theString='E',intPrimitive=1,longPrimitive=108", "theString='E' intPrimitive=1 longPrimitive=108"),
        ],
    },
    ViewCase {
        test: "ViewRank.ViewRankedSceneOne (its old rows)",
        select: "rstream * FROM SupportBean.ext:rank(theString, 3, intPrimitive)",
        columns: "theString string, intPrimitive int, longPrimitive long",
        typed: false,
        steps: &[
            (0, SB, "theString='A',intPrimitive=10,longPrimitive=100", "-"),
            (0, SB, "theString='B',intPrimitive=20,longPrimitive=101", "-"),
            (
                0,
                SB,
                "theString='A',intPrimitive=8,longPrimitive=102",
                "theString='A' intPrimitive=10 longPrimitive=100",
            ),
            (0, SB, "theString='C',intPrimitive=15,longPrimitive=103", "-"),
            (
                0,
                SB,
                "theString='D',intPrimitive=21,longPrimitive=104",
                "theString='D' intPrimitive=21 longPrimitive=104",
            ),
            (
                0,
                SB,
                "theString='A',intPrimitive=16,longPrimitive=105",
                "theString='A' intPrimitive=8 longPrimitive=102",
            ),
            (
                0,
                SB,
                "theString='C',intPrimitive=16,longPrimitive=106",
                "theString='C' intPrimitive=15 longPrimitive=103",
            ),
            (
                0,
                SB,
                "theString='C',intPrimitive=16,longPrimitive=107",
                "theString='C' intPrimitive=16 longPrimitive=106",
            ),
            (
                0,
                SB,
                "theString='E',intPrimitive=1,longPrimitive=108",
                "theString='B' intPrimitive=20 longPrimitive=101",
            ),
        ],
    },
    ViewCase {
        test: "ViewRank.ViewRankMultiexpression",
        select: "irstream * FROM SupportBean.ext:rank(theString, intPrimitive, 3, longPrimitive, doublePrimitive)",
        columns: "theString string, intPrimitive int, longPrimitive long, doublePrimitive double",
        typed: false,
        steps: &[
            (
                0,
                SB,
                "theString='E1',intPrimitive=100,longPrimitive=1,doublePrimitive=10",
                "theString='E1' intPrimitive=100 longPrimitive=1 doublePrimitive=10.0",
            ),
            (
                0,
                SB,
                "theString='E1',intPrimitive=200,longPrimitive=1,doublePrimitive=9",
                "theString='E1' intPrimitive=200 longPrimitive=1 doublePrimitive=9.0",
            ),
            (
                0,
                SB,
                "theString='E1',intPrimitive=150,longPrimitive=1,doublePrimitive=11",
                "theString='E1' intPrimitive=150 longPrimitive=1 doublePrimitive=11.0",
            ),
            (
                0,
                SB,
                "theString='E1',intPrimitive=100,longPrimitive=1,doublePrimitive=8",
                "theString='E1' intPrimitive=100 longPrimitive=1 doublePrimitive=8.0",
            ),
            (
                0,
                SB,
                "theString='E2',intPrimitive=300,longPrimitive=2,doublePrimitive=7",
                "theString='E2' intPrimitive=300 longPrimitive=2 doublePrimitive=7.0",
            ),
            (
                0,
                SB,
                "theString='E3',intPrimitive=300,longPrimitive=1,doublePrimitive=8.5",
                "theString='E3' intPrimitive=300 longPrimitive=1 doublePrimitive=8.5",
            ),
            (
                0,
                SB,
                "theString='E4',intPrimitive=400,longPrimitive=1,doublePrimitive=9",
                "theString='E4' intPrimitive=400 longPrimitive=1 doublePrimitive=9.0",
            ),
        ],
    },
    ViewCase {
        test: "ViewRank.ViewRankMultiexpression (its old rows)",
        select: "rstream * FROM SupportBean.ext:rank(theString, intPrimitive, 3, longPrimitive, doublePrimitive)",
        columns: "theString string, intPrimitive int, longPrimitive long, doublePrimitive double",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=100,longPrimitive=1,doublePrimitive=10", "-"),
            (0, SB, "theString='E1',intPrimitive=200,longPrimitive=1,doublePrimitive=9", "-"),
            (0, SB, "theString='E1',intPrimitive=150,longPrimitive=1,doublePrimitive=11", "-"),
            (
                0,
                SB,
                "theString='E1',intPrimitive=100,longPrimitive=1,doublePrimitive=8",
                "theString='E1' intPrimitive=100 longPrimitive=1 doublePrimitive=10.0",
            ),
            (
                0,
                SB,
                "theString='E2',intPrimitive=300,longPrimitive=2,doublePrimitive=7",
                "theString='E2' intPrimitive=300 longPrimitive=2 doublePrimitive=7.0",
            ),
            (
                0,
                SB,
                "theString='E3',intPrimitive=300,longPrimitive=1,doublePrimitive=8.5",
                "theString='E1' intPrimitive=150 longPrimitive=1 doublePrimitive=11.0",
            ),
            (
                0,
                SB,
                "theString='E4',intPrimitive=400,longPrimitive=1,doublePrimitive=9",
                "theString='E1' intPrimitive=200 longPrimitive=1 doublePrimitive=9.0",
            ),
        ],
    },
    ViewCase {
        test: "ViewRank.ViewRankRanked",
        select: "irstream * FROM SupportBean.ext:rank(theString, 4, intPrimitive desc)",
        columns: "theString string, intPrimitive int, longPrimitive long",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=10,longPrimitive=0", "theString='E1' intPrimitive=10 longPrimitive=0"),
            (0, SB, "theString='E2',intPrimitive=30,longPrimitive=0", "theString='E2' intPrimitive=30 longPrimitive=0"),
            (0, SB, "theString='E1',intPrimitive=50,longPrimitive=0", "theString='E1' intPrimitive=50 longPrimitive=0"),
            (0, SB, "theString='E3',intPrimitive=40,longPrimitive=0", "theString='E3' intPrimitive=40 longPrimitive=0"),
            (0, SB, "theString='E2',intPrimitive=45,longPrimitive=0", "theString='E2' intPrimitive=45 longPrimitive=0"),
            (0, SB, "theString='E1',intPrimitive=43,longPrimitive=0", "theString='E1' intPrimitive=43 longPrimitive=0"),
            (0, SB, "theString='E3',intPrimitive=50,longPrimitive=0", "theString='E3' intPrimitive=50 longPrimitive=0"),
            (0, SB, "theString='E3',intPrimitive=10,longPrimitive=0", "theString='E3' intPrimitive=10 longPrimitive=0"),
            (0, SB, "theString='E4',intPrimitive=43,longPrimitive=0", "theString='E4' intPrimitive=43 longPrimitive=0"),
            (0, SB, "theString='E4',intPrimitive=43,longPrimitive=1", "theString='E4' intPrimitive=43 longPrimitive=1"),
            (0, SB, "theString='E2',intPrimitive=45,longPrimitive=1", "theString='E2' intPrimitive=45 longPrimitive=1"),
            (0, SB, "theString='E1',intPrimitive=43,longPrimitive=1", "theString='E1' intPrimitive=43 longPrimitive=1"),
            (0, SB, "theString='E5',intPrimitive=10,longPrimitive=2", "theString='E5' intPrimitive=10 longPrimitive=2"),
            (0, SB, "theString='E5',intPrimitive=11,longPrimitive=3", "theString='E5' intPrimitive=11 longPrimitive=3"),
            (0, SB, "theString='E6',intPrimitive=43,longPrimitive=0", "theString='E6' intPrimitive=43 longPrimitive=0"),
            (0, SB, "theString='E7',intPrimitive=50,longPrimitive=0", "theString='E7' intPrimitive=50 longPrimitive=0"),
            (0, SB, "theString='E8',intPrimitive=45,longPrimitive=0", "theString='E8' intPrimitive=45 longPrimitive=0"),
            (0, SB, "theString='E8',intPrimitive=46,longPrimitive=1", "theString='E8' intPrimitive=46 longPrimitive=1"),
        ],
    },
    ViewCase {
        test: "ViewRank.ViewRankRanked (its old rows)",
        select: "rstream * FROM SupportBean.ext:rank(theString, 4, intPrimitive desc)",
        columns: "theString string, intPrimitive int, longPrimitive long",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=10,longPrimitive=0", "-"),
            (0, SB, "theString='E2',intPrimitive=30,longPrimitive=0", "-"),
            (0, SB, "theString='E1',intPrimitive=50,longPrimitive=0", "theString='E1' intPrimitive=10 longPrimitive=0"),
            (0, SB, "theString='E3',intPrimitive=40,longPrimitive=0", "-"),
            (0, SB, "theString='E2',intPrimitive=45,longPrimitive=0", "theString='E2' intPrimitive=30 longPrimitive=0"),
            (0, SB, "theString='E1',intPrimitive=43,longPrimitive=0", "theString='E1' intPrimitive=50 longPrimitive=0"),
            (0, SB, "theString='E3',intPrimitive=50,longPrimitive=0", "theString='E3' intPrimitive=40 longPrimitive=0"),
            (0, SB, "theString='E3',intPrimitive=10,longPrimitive=0", "theString='E3' intPrimitive=50 longPrimitive=0"),
            (0, SB, "theString='E4',intPrimitive=43,longPrimitive=0", "-"),
            (0, SB, "theString='E4',intPrimitive=43,longPrimitive=1", "theString='E4' intPrimitive=43 longPrimitive=0"),
            (0, SB, "theString='E2',intPrimitive=45,longPrimitive=1", "theString='E2' intPrimitive=45 longPrimitive=0"),
            (0, SB, "theString='E1',intPrimitive=43,longPrimitive=1", "theString='E1' intPrimitive=43 longPrimitive=0"),
            (0, SB, "theString='E5',intPrimitive=10,longPrimitive=2", "theString='E3' intPrimitive=10 longPrimitive=0"),
            (0, SB, "theString='E5',intPrimitive=11,longPrimitive=3", "theString='E5' intPrimitive=10 longPrimitive=2"),
            (0, SB, "theString='E6',intPrimitive=43,longPrimitive=0", "theString='E5' intPrimitive=11 longPrimitive=3"),
            (0, SB, "theString='E7',intPrimitive=50,longPrimitive=0", "theString='E4' intPrimitive=43 longPrimitive=1"),
            (0, SB, "theString='E8',intPrimitive=45,longPrimitive=0", "theString='E1' intPrimitive=43 longPrimitive=1"),
            (0, SB, "theString='E8',intPrimitive=46,longPrimitive=1", "theString='E8' intPrimitive=45 longPrimitive=0"),
        ],
    },
    ViewCase {
        test: "ViewRank.ViewRankPrevAndGroupWin (std:groupwin)",
        select: "irstream * FROM SupportBean.std:groupwin(theString).ext:rank(intPrimitive, 2, doublePrimitive)",
        columns: "theString string, intPrimitive int, longPrimitive long, doublePrimitive double",
        typed: false,
        steps: &[
            (
                0,
                SB,
                "theString='E1',intPrimitive=100,longPrimitive=0,doublePrimitive=1",
                "theString='E1' intPrimitive=100 longPrimitive=0 doublePrimitive=1.0",
            ),
            (
                0,
                SB,
                "theString='E2',intPrimitive=100,longPrimitive=0,doublePrimitive=2",
                "theString='E2' intPrimitive=100 longPrimitive=0 doublePrimitive=2.0",
            ),
            (
                0,
                SB,
                "theString='E1',intPrimitive=200,longPrimitive=0,doublePrimitive=0.5",
                "theString='E1' intPrimitive=200 longPrimitive=0 doublePrimitive=0.5",
            ),
            (
                0,
                SB,
                "theString='E2',intPrimitive=200,longPrimitive=0,doublePrimitive=2.5",
                "theString='E2' intPrimitive=200 longPrimitive=0 doublePrimitive=2.5",
            ),
            (
                0,
                SB,
                "theString='E1',intPrimitive=300,longPrimitive=0,doublePrimitive=0.1",
                "theString='E1' intPrimitive=300 longPrimitive=0 doublePrimitive=0.1",
            ),
        ],
    },
    ViewCase {
        test: "ViewRank.ViewRankPrevAndGroupWin (std:groupwin, its old rows)",
        select: "rstream * FROM SupportBean.std:groupwin(theString).ext:rank(intPrimitive, 2, doublePrimitive)",
        columns: "theString string, intPrimitive int, longPrimitive long, doublePrimitive double",
        typed: false,
        steps: &[
            (0, SB, "theString='E1',intPrimitive=100,longPrimitive=0,doublePrimitive=1", "-"),
            (0, SB, "theString='E2',intPrimitive=100,longPrimitive=0,doublePrimitive=2", "-"),
            (0, SB, "theString='E1',intPrimitive=200,longPrimitive=0,doublePrimitive=0.5", "-"),
            (0, SB, "theString='E2',intPrimitive=200,longPrimitive=0,doublePrimitive=2.5", "-"),
            (
                0,
                SB,
                "theString='E1',intPrimitive=300,longPrimitive=0,doublePrimitive=0.1",
                "theString='E1' intPrimitive=100 longPrimitive=0 doublePrimitive=1.0",
            ),
        ],
    },
];

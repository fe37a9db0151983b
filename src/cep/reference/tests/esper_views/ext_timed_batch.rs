//! Esper's tests of the externally timed batch window `win:ext_timed_batch(timestamp, period[, reference])`: the
//! events collected in arrival order, and released together when one arrives whose timestamp reaches the end of the
//! period the batch's oldest timestamp is in; that one starts the next batch. The periods count from the reference
//! point (in milliseconds), else from the first event's timestamp. The engine's clock plays no part: each step's
//! millisecond is its index.
//! Esper 5 (`aaa35756`) tests the view in `TestViewExternallyBatched` (`regression/view`) and
//! `TestPreviousFunction.testPreviousExtTimedBatch`. Its `MyEvent(id, mytimestamp)` is a `SupportMarketDataBean` here,
//! its `id` the symbol and its timestamp the volume; Esper's times (`makeTime("E1", "8:00:00.000")`, parsed as
//! `2002-05-1T8:00:00.000` in the JVM's time zone) are milliseconds since the epoch of that time in UTC, which keeps
//! the reference points (`5000`, `65000`: five seconds past each minute) where Esper's are in any zone whose offset is
//! whole minutes. Where Esper asserts a statement's new and old rows, the new ones are its case here and the old ones
//! a second case of the same statement under `SELECT RSTREAM` ("its old rows"), as in `ext_timed.rs`.
//! Skipped: the `prevwindow` column of `testPreviousExtTimedBatch` (refused by name, as in `previous.rs`), and
//! `TestViewTimeInterval.testExternallyTimedBatchMonthScoped` (a period of `1 month`, a calendar unit the subset
//! lacks).

use super::{MD, Step, ViewCase};

/// `testExtBatchedWithRefTime`'s events and the new rows of each release, whatever the reference among those a whole
/// number of periods from 5000.
const REF_TIME_NEW: &[Step] = &[
    (1, MD, "symbol='E1',price=0,volume=1020240000000", "-"),
    (2, MD, "symbol='E2',price=0,volume=1020240004999", "-"),
    (3, MD, "symbol='E3',price=0,volume=1020240005000", "symbol='E1' | symbol='E2'"),
    (4, MD, "symbol='E4',price=0,volume=1020240004000", "-"),
    (5, MD, "symbol='E5',price=0,volume=1020236400000", "-"),
    (6, MD, "symbol='E6',price=0,volume=1020240064999", "-"),
    (7, MD, "symbol='E7',price=0,volume=1020240065000", "symbol='E3' | symbol='E4' | symbol='E5' | symbol='E6'"),
    (8, MD, "symbol='E8',price=0,volume=1020240235000", "symbol='E7'"),
    (9, MD, "symbol='E9',price=0,volume=1020211200000", "-"),
    (10, MD, "symbol='E10',price=0,volume=1020240244999", "-"),
    (11, MD, "symbol='E11',price=0,volume=1020240245000", "symbol='E8' | symbol='E9' | symbol='E10'"),
];

/// Its old rows, as its listener receives them under `SELECT RSTREAM`.
const REF_TIME_OLD: &[Step] = &[
    (1, MD, "symbol='E1',price=0,volume=1020240000000", "-"),
    (2, MD, "symbol='E2',price=0,volume=1020240004999", "-"),
    (3, MD, "symbol='E3',price=0,volume=1020240005000", "-"),
    (4, MD, "symbol='E4',price=0,volume=1020240004000", "-"),
    (5, MD, "symbol='E5',price=0,volume=1020236400000", "-"),
    (6, MD, "symbol='E6',price=0,volume=1020240064999", "-"),
    (7, MD, "symbol='E7',price=0,volume=1020240065000", "symbol='E1' | symbol='E2'"),
    (8, MD, "symbol='E8',price=0,volume=1020240235000", "symbol='E3' | symbol='E4' | symbol='E5' | symbol='E6'"),
    (9, MD, "symbol='E9',price=0,volume=1020211200000", "-"),
    (10, MD, "symbol='E10',price=0,volume=1020240244999", "-"),
    (11, MD, "symbol='E11',price=0,volume=1020240245000", "symbol='E7'"),
];

/// `TestViewExternallyBatched`: `testExtBatchedNoReference` (a one-minute batch from the first timestamp) and
/// `testExtBatchedWithRefTime`, run by Esper with the reference points 5000 and 65000, one period apart, which give the
/// same rows; there events older than the batch's oldest (`E4`, `E5`, `E9`) join it and release nothing. A case of
/// our own takes the reference a period before 5000, written negative, which gives the same rows again.
pub(super) const EXTERNALLY_BATCHED: [ViewCase; 7] = [
    ViewCase {
        test: "TestViewExternallyBatched.testExtBatchedNoReference",
        select: "irstream * FROM SupportMarketDataBean.win:ext_timed_batch(volume, 1 minute)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E1',price=0,volume=1020240000000", "-"),
            (2, MD, "symbol='E2',price=0,volume=1020240030000", "-"),
            (3, MD, "symbol='E3',price=0,volume=1020240059999", "-"),
            (4, MD, "symbol='E4',price=0,volume=1020240060000", "symbol='E1' | symbol='E2' | symbol='E3'"),
            (5, MD, "symbol='E5',price=0,volume=1020240062000", "-"),
            (6, MD, "symbol='E6',price=0,volume=1020240065000", "-"),
            (7, MD, "symbol='E7',price=0,volume=1020240120000", "symbol='E4' | symbol='E5' | symbol='E6'"),
            (8, MD, "symbol='E8',price=0,volume=1020240239000", "symbol='E7'"),
            (9, MD, "symbol='E9',price=0,volume=1020240239000", "-"),
            (10, MD, "symbol='E10',price=0,volume=1020240240000", "symbol='E8' | symbol='E9'"),
            (11, MD, "symbol='E11',price=0,volume=1020240390000", "symbol='E10'"),
            (12, MD, "symbol='E12',price=0,volume=1020240419999", "-"),
            (13, MD, "symbol='E13',price=0,volume=1020240420001", "symbol='E11' | symbol='E12'"),
        ],
    },
    ViewCase {
        test: "TestViewExternallyBatched.testExtBatchedNoReference (its old rows)",
        select: "rstream * FROM SupportMarketDataBean.win:ext_timed_batch(volume, 1 minute)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1, MD, "symbol='E1',price=0,volume=1020240000000", "-"),
            (2, MD, "symbol='E2',price=0,volume=1020240030000", "-"),
            (3, MD, "symbol='E3',price=0,volume=1020240059999", "-"),
            (4, MD, "symbol='E4',price=0,volume=1020240060000", "-"),
            (5, MD, "symbol='E5',price=0,volume=1020240062000", "-"),
            (6, MD, "symbol='E6',price=0,volume=1020240065000", "-"),
            (7, MD, "symbol='E7',price=0,volume=1020240120000", "symbol='E1' | symbol='E2' | symbol='E3'"),
            (8, MD, "symbol='E8',price=0,volume=1020240239000", "symbol='E4' | symbol='E5' | symbol='E6'"),
            (9, MD, "symbol='E9',price=0,volume=1020240239000", "-"),
            (10, MD, "symbol='E10',price=0,volume=1020240240000", "symbol='E7'"),
            (11, MD, "symbol='E11',price=0,volume=1020240390000", "symbol='E8' | symbol='E9'"),
            (12, MD, "symbol='E12',price=0,volume=1020240419999", "-"),
            (13, MD, "symbol='E13',price=0,volume=1020240420001", "symbol='E10'"),
        ],
    },
    ViewCase {
        test: "TestViewExternallyBatched.testExtBatchedWithRefTime, reference 5000",
        select: "irstream * FROM SupportMarketDataBean.win:ext_timed_batch(volume, 1 minute, 5000)",
        columns: "symbol string",
        typed: false,
        steps: REF_TIME_NEW,
    },
    ViewCase {
        test: "TestViewExternallyBatched.testExtBatchedWithRefTime, reference 5000 (its old rows)",
        select: "rstream * FROM SupportMarketDataBean.win:ext_timed_batch(volume, 1 minute, 5000)",
        columns: "symbol string",
        typed: false,
        steps: REF_TIME_OLD,
    },
    ViewCase {
        test: "TestViewExternallyBatched.testExtBatchedWithRefTime, reference 65000",
        select: "irstream * FROM SupportMarketDataBean.win:ext_timed_batch(volume, 1 minute, 65000)",
        columns: "symbol string",
        typed: false,
        steps: REF_TIME_NEW,
    },
    ViewCase {
        test: "TestViewExternallyBatched.testExtBatchedWithRefTime, reference 65000 (its old rows)",
        select: "rstream * FROM SupportMarketDataBean.win:ext_timed_batch(volume, 1 minute, 65000)",
        columns: "symbol string",
        typed: false,
        steps: REF_TIME_OLD,
    },
    ViewCase {
        test: "TestViewExternallyBatched.testExtBatchedWithRefTime, reference -55000 (ours: a period before 5000)",
        select: "irstream * FROM SupportMarketDataBean.win:ext_timed_batch(volume, 1 minute, -55000)",
        columns: "symbol string",
        typed: false,
        steps: REF_TIME_NEW,
    },
];

/// The statement of `TestPreviousFunction.testPreviousExtTimedBatch` after its stream selector.
macro_rules! previous_select {
    ($stream:literal) => {
        concat!(
            $stream,
            " symbol as currSymbol, prev(0, symbol) as prev0Symbol, prev(0, price) as prev0Price, prev(1, symbol) as \
             prev1Symbol, prev(1, price) as prev1Price, prev(2, symbol) as prev2Symbol, prev(2, price) as prev2Price, \
             prevtail(0, symbol) as prevTail0Symbol, prevtail(0, price) as prevTail0Price, prevtail(1, symbol) as \
             prevTail1Symbol, prevtail(1, price) as prevTail1Price, prevcount(price) as prevCountPrice FROM \
             SupportMarketDataBean.win:ext_timed_batch(volume, 10, 0L)"
        )
    };
}

/// The columns of [`previous_select!`]'s rows.
const PREVIOUS_COLUMNS: &str = "currSymbol string, prev0Symbol string, prev0Price double, prev1Symbol string, \
                                prev1Price double, prev2Symbol string, prev2Price double, prevTail0Symbol string, \
                                prevTail0Price double, prevTail1Symbol string, prevTail1Price double, prevCountPrice \
                                long";

/// `TestPreviousFunction.testPreviousExtTimedBatch` (a ten-second batch from the reference point 0): the functions read
/// off the released batch, and as null for the rows a release replaces.
pub(super) const PREVIOUS_EXT_TIMED_BATCH: [ViewCase; 2] = [
    ViewCase {
        test: "TestPreviousFunction.testPreviousExtTimedBatch",
        select: previous_select!("irstream"),
        columns: PREVIOUS_COLUMNS,
        typed: true,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=1000", "-"),
            (2, MD, "symbol='B',price=2,volume=1001", "-"),
            (3, MD, "symbol='C',price=3,volume=1002", "-"),
            (
                4,
                MD,
                "symbol='D',price=4,volume=10000",
                "currSymbol='A' prev0Symbol='A' prev0Price=1.0 prev1Symbol=null prev1Price=null \
                 prev2Symbol=null prev2Price=null prevTail0Symbol='A' prevTail0Price=1.0 \
                 prevTail1Symbol='B' prevTail1Price=2.0 prevCountPrice=3 | currSymbol='B' prev0Symbol='B' \
                 prev0Price=2.0 prev1Symbol='A' prev1Price=1.0 prev2Symbol=null prev2Price=null \
                 prevTail0Symbol='A' prevTail0Price=1.0 prevTail1Symbol='B' prevTail1Price=2.0 \
                 prevCountPrice=3 | currSymbol='C' prev0Symbol='C' prev0Price=3.0 prev1Symbol='B' \
                 prev1Price=2.0 prev2Symbol='A' prev2Price=1.0 prevTail0Symbol='A' prevTail0Price=1.0 \
                 prevTail1Symbol='B' prevTail1Price=2.0 prevCountPrice=3",
            ),
            (
                5,
                MD,
                "symbol='E',price=5,volume=20000",
                "currSymbol='D' prev0Symbol='D' prev0Price=4.0 prev1Symbol=null prev1Price=null \
                 prev2Symbol=null prev2Price=null prevTail0Symbol='D' prevTail0Price=4.0 \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=1",
            ),
        ],
    },
    ViewCase {
        test: "TestPreviousFunction.testPreviousExtTimedBatch (its old rows)",
        select: previous_select!("rstream"),
        columns: PREVIOUS_COLUMNS,
        typed: true,
        steps: &[
            (1, MD, "symbol='A',price=1,volume=1000", "-"),
            (2, MD, "symbol='B',price=2,volume=1001", "-"),
            (3, MD, "symbol='C',price=3,volume=1002", "-"),
            (4, MD, "symbol='D',price=4,volume=10000", "-"),
            (
                5,
                MD,
                "symbol='E',price=5,volume=20000",
                "currSymbol='A' prev0Symbol=null prev0Price=null prev1Symbol=null prev1Price=null \
                 prev2Symbol=null prev2Price=null prevTail0Symbol=null prevTail0Price=null \
                 prevTail1Symbol=null prevTail1Price=null prevCountPrice=null | currSymbol='B' \
                 prev0Symbol=null prev0Price=null prev1Symbol=null prev1Price=null prev2Symbol=null \
                 prev2Price=null prevTail0Symbol=null prevTail0Price=null prevTail1Symbol=null \
                 prevTail1Price=null prevCountPrice=null | currSymbol='C' prev0Symbol=null \
                 prev0Price=null prev1Symbol=null prev1Price=null prev2Symbol=null prev2Price=null \
                 prevTail0Symbol=null prevTail0Price=null prevTail1Symbol=null prevTail1Price=null \
                 prevCountPrice=null",
            ),
        ],
    },
];

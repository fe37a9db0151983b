//! Esper's tests of the time batch window, `win:time_batch(d)`: Esper 8's `regression-lib` class `ViewTimeBatch`
//! (at `978293f2`; the same statements, events and clock moves in the later stored version, whose assertions go
//! through `env.assertListener`, `env.assertPropsPerRowIRPair` and the like), its `#time_batch(d)` spelled
//! `.win:time_batch(d)` here, its `@name('s0')` dropped and its milestones (engine state checkpoints, no events)
//! ignored. Every statement's clock is at 0 when it starts (Esper sets 0 before each but `ViewTimeBatchNoRefPoint`,
//! which sets 0 right after the statement, before its first event), so no times are shifted. Esper 5's
//! `TestViewTimeBatch` (at `aaa35756`) holds only `testMonthScoped` (a `1 month` period) and
//! `testStartEagerForceUpdate` (the `START_EAGER,FORCE_UPDATE` flags), both outside the subset and the same as Esper
//! 8's `ViewTimeBatchMonthScoped` and `ViewTimeBatchStartEagerForceUpdate`; its `TestViewTimeBatchMean` chains a
//! `uni(volume)` view and runs on the system clock. Skipped as well: `ViewTimeBatchStartEagerForceUpdateSceneTwo`
//! (the flags), `ViewTimeBatchLonger` (random numbers of events, no assertion), `ViewTimeBatchRefPoint` (a reference
//! point, `time_batch(10 minutes, 10L)`), `ViewTimeBatchWSystemTime` (chained `#uni`, system clock), and every
//! iterator assertion. Where Esper asserts the new and old rows of a release, the new ones are kept: a release
//! with only old rows (the batch before leaving, nothing new) gives `-`.
//!
//! A step is `-` where Esper's listener assertions cover it though they come later: `assertFalse(isInvoked())`
//! covers every step since the listener's last reset, as does a `getNewDataListFlattened()` of every row since then
//! (`ViewTimeBatchSceneOne`), and the later version's `assertPropsPerRowIRPair` asserts a single invocation since the
//! last reset (`ViewTimeBatch10Sec`, `ViewTimeBatchMultirow`, `ViewTimeBatchMultiBatch`).

use super::{MD, SB, ViewCase};

/// `ViewTimeBatch` (Esper 8 `regression-lib`, at `978293f2`; same data in the later version): each period's events
/// released together at its end, the periods counted from the first event (1.5 s in `ViewTimeBatchSceneOne`, 1 s in
/// the others), nothing released when both the period's batch and the one before are empty, and the next event then
/// due at the next period end counted from that first event (`E6` at 5.5 s, released at 6.5 s; `E5` at 31 s,
/// released at 41 s). Esper's `SupportMarketDataBean(symbol, 0, 0L, null)` (no feed, absent here) and
/// `SupportBean(theString, 0)`; `ViewTimeBatchNoRefPoint` sends `new SupportBean()` (no text) and asserts only that
/// its listener is invoked at 10 minutes: the one row its batch can give, the statement's insert stream only, is
/// that event's.
pub(super) const TIME_BATCH: [ViewCase; 5] = [
    ViewCase {
        test: "ViewTimeBatch.ViewTimeBatchSceneOne",
        select: "irstream * FROM SupportMarketDataBean.win:time_batch(1 sec)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1_500, "", "", "-"),
            (1_500, "", "", "-"),
            (1_500, MD, "symbol='E1',price=0,volume=0", "-"),
            (1_700, "", "", "-"),
            (1_700, MD, "symbol='E2',price=0,volume=0", "-"),
            (2_499, "", "", "-"),
            (2_500, "", "", "symbol='E1' | symbol='E2'"),
            (2_500, MD, "symbol='E3',price=0,volume=0", "-"),
            (2_500, MD, "symbol='E4',price=0,volume=0", "-"),
            (2_600, "", "", "-"),
            (2_600, MD, "symbol='E5',price=0,volume=0", "-"),
            (3_500, "", "", "symbol='E3' | symbol='E4' | symbol='E5'"),
            (4_500, "", "", "-"),
            (5_500, "", "", "-"),
            (5_500, MD, "symbol='E6',price=0,volume=0", "-"),
            (6_500, "", "", "symbol='E6'"),
            (7_500, "", "", "-"),
            (7_500, MD, "symbol='E7',price=0,volume=0", "-"),
            (8_500, "", "", "symbol='E7'"),
        ],
    },
    ViewCase {
        test: "ViewTimeBatch.ViewTimeBatch10Sec",
        select: "irstream * FROM SupportBean.win:time_batch(10 sec)",
        columns: "theString string",
        typed: false,
        steps: &[
            (1_000, "", "", "-"),
            (1_000, SB, "theString='E1',intPrimitive=0", "-"),
            (2_000, "", "", "-"),
            (2_000, SB, "theString='E2',intPrimitive=0", "-"),
            (10_999, "", "", "-"),
            (11_000, "", "", "theString='E1' | theString='E2'"),
            (11_000, SB, "theString='E3',intPrimitive=0", "-"),
            (21_000, "", "", "theString='E3'"),
            (31_000, "", "", "-"),
            (41_000, "", "", "-"),
        ],
    },
    ViewCase {
        test: "ViewTimeBatch.ViewTimeBatchMultirow",
        select: "irstream * FROM SupportBean.win:time_batch(10 sec)",
        columns: "theString string",
        typed: false,
        steps: &[
            (1_000, "", "", "-"),
            (1_000, SB, "theString='E1',intPrimitive=0", "-"),
            (1_000, SB, "theString='E2',intPrimitive=0", "-"),
            (2_000, "", "", "-"),
            (2_000, SB, "theString='E3',intPrimitive=0", "-"),
            (3_000, "", "", "-"),
            (3_000, SB, "theString='E4',intPrimitive=0", "-"),
            (11_000, "", "", "theString='E1' | theString='E2' | theString='E3' | theString='E4'"),
            (21_000, "", "", "-"),
            (31_000, "", "", "-"),
            (31_000, SB, "theString='E5',intPrimitive=0", "-"),
            (41_000, "", "", "theString='E5'"),
        ],
    },
    ViewCase {
        test: "ViewTimeBatch.ViewTimeBatchMultiBatch",
        select: "irstream * FROM SupportBean.win:time_batch(10 sec)",
        columns: "theString string",
        typed: false,
        steps: &[
            (1_000, "", "", "-"),
            (1_000, SB, "theString='E1',intPrimitive=0", "-"),
            (1_000, SB, "theString='E2',intPrimitive=0", "-"),
            (11_000, "", "", "theString='E1' | theString='E2'"),
            (11_000, SB, "theString='E3',intPrimitive=0", "-"),
            (11_000, SB, "theString='E4',intPrimitive=0", "-"),
            (21_000, "", "", "theString='E3' | theString='E4'"),
            (21_000, SB, "theString='E5',intPrimitive=0", "-"),
            (21_000, SB, "theString='E6',intPrimitive=0", "-"),
            (31_000, "", "", "theString='E5' | theString='E6'"),
            (31_000, SB, "theString='E7',intPrimitive=0", "-"),
            (31_000, SB, "theString='E8',intPrimitive=0", "-"),
            (41_000, "", "", "theString='E7' | theString='E8'"),
            (51_000, "", "", "-"),
            (61_000, "", "", "-"),
        ],
    },
    ViewCase {
        test: "ViewTimeBatch.ViewTimeBatchNoRefPoint",
        select: "* FROM SupportBean.win:time_batch(10 minutes)",
        columns: "theString string, intPrimitive int",
        typed: false,
        steps: &[(0, SB, "", "-"), (599_999, "", "", "-"), (600_000, "", "", "theString=null intPrimitive=0")],
    },
];

//! Esper's test of the time-length batch window `win:time_length_batch(d, n)`: the events collected and released
//! together when the n-th arrives or when its clock runs out, whichever is first. The clock starts at an event when it
//! is stopped, and again at each release, from that release's millisecond: a release by count restarts it, and a
//! release by time that leaves either batch holding an event sets the next one `d` later; one with both empty stops it.
//! Esper tests the view in `TestViewTimeLengthBatch` (`regression/view`; read at `699d62b7`, whose statements spell it
//! `#time_length_batch`, `.win:time_length_batch` here). Its events are `SupportMarketDataBean("S" + i, "id_" + i, i)`
//! (symbol, id, price). Each statement starts with the clock at 1 s, before any event, so no times are shifted. Where
//! Esper asserts a release's new and old rows, the new ones are the case and the old ones a second case of the same
//! statement under `SELECT RSTREAM` ("its old rows"); a release with no new row gives `-` in the first. Skipped:
//! `testTimeLengthBatchForceOutput`, `testTimeLengthBatchForceOutputSum`, `testForceOutputStartEagerSum`,
//! `testForceOutputStartNoEagerSum` and `testGroupBySumStartEager` (the `FORCE_UPDATE` and `START_EAGER` keywords,
//! refused by name), and every iterator assertion.

use super::{MD, ViewCase};

/// `TestViewTimeLengthBatch.testTimeLengthBatch` (10 seconds or 3 events): two releases by count at 1 s, whose
/// clock then runs out at 11 s with the second batch leaving; a lone event released by the clock it found running; a
/// release by count at 40 s restarting the clock (due at 50 s, not 41 s); the clock stopped after 60 s, when both
/// batches are empty at 70 s, and started again by an event at 91 s.
pub(super) const TIME_LENGTH_BATCH: [ViewCase; 3] = [
    ViewCase {
        test: "TestViewTimeLengthBatch.testTimeLengthBatch",
        select: "irstream * FROM SupportMarketDataBean.win:time_length_batch(10 sec, 3)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1_000, MD, "symbol='S0',id='id_0',price=0,volume=0", "-"),
            (1_000, MD, "symbol='S1',id='id_1',price=1,volume=0", "-"),
            (1_000, MD, "symbol='S2',id='id_2',price=2,volume=0", "symbol='S0' | symbol='S1' | symbol='S2'"),
            (1_000, MD, "symbol='S3',id='id_3',price=3,volume=0", "-"),
            (1_000, MD, "symbol='S4',id='id_4',price=4,volume=0", "-"),
            (1_000, MD, "symbol='S5',id='id_5',price=5,volume=0", "symbol='S3' | symbol='S4' | symbol='S5'"),
            (10_999, "", "", "-"),
            (11_000, "", "", "-"),
            (11_001, "", "", "-"),
            (11_100, "", "", "-"),
            (11_100, MD, "symbol='S6',id='id_6',price=6,volume=0", "-"),
            (20_999, "", "", "-"),
            (21_000, "", "", "symbol='S6'"),
            (21_001, "", "", "-"),
            (30_998, "", "", "-"),
            (30_998, MD, "symbol='S7',id='id_7',price=7,volume=0", "-"),
            (30_998, MD, "symbol='S8',id='id_8',price=8,volume=0", "-"),
            (30_999, "", "", "-"),
            (31_000, "", "", "symbol='S7' | symbol='S8'"),
            (31_001, "", "", "-"),
            (31_001, MD, "symbol='S9',id='id_9',price=9,volume=0", "-"),
            (31_001, MD, "symbol='S10',id='id_10',price=10,volume=0", "-"),
            (40_000, "", "", "-"),
            (40_000, MD, "symbol='S11',id='id_11',price=11,volume=0", "symbol='S9' | symbol='S10' | symbol='S11'"),
            (49_999, "", "", "-"),
            (49_999, MD, "symbol='S12',id='id_12',price=12,volume=0", "-"),
            (50_000, "", "", "symbol='S12'"),
            (50_001, "", "", "-"),
            (59_999, "", "", "-"),
            (60_000, "", "", "-"),
            (60_001, "", "", "-"),
            (69_999, "", "", "-"),
            (70_000, "", "", "-"),
            (70_001, "", "", "-"),
            (91_000, "", "", "-"),
            (91_000, MD, "symbol='S13',id='id_13',price=13,volume=0", "-"),
            (100_999, "", "", "-"),
            (101_000, "", "", "symbol='S13'"),
        ],
    },
    ViewCase {
        test: "TestViewTimeLengthBatch.testTimeLengthBatch (its old rows)",
        select: "rstream * FROM SupportMarketDataBean.win:time_length_batch(10 sec, 3)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1_000, MD, "symbol='S0',id='id_0',price=0,volume=0", "-"),
            (1_000, MD, "symbol='S1',id='id_1',price=1,volume=0", "-"),
            (1_000, MD, "symbol='S2',id='id_2',price=2,volume=0", "-"),
            (1_000, MD, "symbol='S3',id='id_3',price=3,volume=0", "-"),
            (1_000, MD, "symbol='S4',id='id_4',price=4,volume=0", "-"),
            (1_000, MD, "symbol='S5',id='id_5',price=5,volume=0", "symbol='S0' | symbol='S1' | symbol='S2'"),
            (10_999, "", "", "-"),
            (11_000, "", "", "symbol='S3' | symbol='S4' | symbol='S5'"),
            (11_001, "", "", "-"),
            (11_100, "", "", "-"),
            (11_100, MD, "symbol='S6',id='id_6',price=6,volume=0", "-"),
            (20_999, "", "", "-"),
            (21_000, "", "", "-"),
            (21_001, "", "", "-"),
            (30_998, "", "", "-"),
            (30_998, MD, "symbol='S7',id='id_7',price=7,volume=0", "-"),
            (30_998, MD, "symbol='S8',id='id_8',price=8,volume=0", "-"),
            (30_999, "", "", "-"),
            (31_000, "", "", "symbol='S6'"),
            (31_001, "", "", "-"),
            (31_001, MD, "symbol='S9',id='id_9',price=9,volume=0", "-"),
            (31_001, MD, "symbol='S10',id='id_10',price=10,volume=0", "-"),
            (40_000, "", "", "-"),
            (40_000, MD, "symbol='S11',id='id_11',price=11,volume=0", "symbol='S7' | symbol='S8'"),
            (49_999, "", "", "-"),
            (49_999, MD, "symbol='S12',id='id_12',price=12,volume=0", "-"),
            (50_000, "", "", "symbol='S9' | symbol='S10' | symbol='S11'"),
            (50_001, "", "", "-"),
            (59_999, "", "", "-"),
            (60_000, "", "", "symbol='S12'"),
            (60_001, "", "", "-"),
            (69_999, "", "", "-"),
            (70_000, "", "", "-"),
            (70_001, "", "", "-"),
            (91_000, "", "", "-"),
            (91_000, MD, "symbol='S13',id='id_13',price=13,volume=0", "-"),
            (100_999, "", "", "-"),
            (101_000, "", "", "-"),
        ],
    },
    ViewCase {
        test: "TestViewTimeLengthBatch.testPreviousAndPrior",
        select: "price, prev(1, price) as prevPrice, prior(1, price) as priorPrice FROM \
                 SupportMarketDataBean.win:time_length_batch(10 sec, 3)",
        columns: "price double, prevPrice double, priorPrice double",
        typed: true,
        steps: &[
            (1_000, MD, "symbol='S0',id='id_0',price=0,volume=0", "-"),
            (1_000, MD, "symbol='S1',id='id_1',price=1,volume=0", "-"),
            (
                1_000,
                MD,
                "symbol='S2',id='id_2',price=2,volume=0",
                "price=0.0 prevPrice=null priorPrice=null | price=1.0 prevPrice=0.0 priorPrice=0.0 | price=2.0 \
                 prevPrice=1.0 priorPrice=1.0",
            ),
        ],
    },
];

//! Esper's tests of the accumulating time window `win:time_accum(d)`: every arriving event is in the insert stream, and
//! the events stay until `d` passes without an arrival (of their `std:groupwin` key), when all leave together, in
//! arrival order. The tables are Esper 8's `regression-lib` class `ViewTimeAccum` (read at `8f740416`), its
//! `#time_accum(...)` spelled `.win:time_accum(...)` here, its `@name('s0')` dropped and its milestones ignored. Its
//! `get100Events()` are `SupportMarketDataBean("S" + i % 10, "id_" + i, i)`: the `i`-th of symbol `S(i % 10)` and price
//! `i`. Esper asserts each event's new row (every arrival's own) and the old rows of the flushes: those are the cases
//! here, as `SELECT RSTREAM` statements ("its old rows"), with the new rows of one. Skipped: every iterator assertion;
//! `ViewTimeAccumMonthScoped` (a period of `1 month`, a calendar unit the subset lacks); the `prevwindow` column of
//! `ViewTimeAccumPreviousAndPriorSceneTwo` (refused by name); and in `ViewTimeAccumSum`, the flush's row (`sumPrice`
//! null), which Esper's listener gets and the contract does not give: without an `OUTPUT` policy an aggregated
//! statement writes at arrivals only (`cep-epl.md`, "Without OUTPUT").

use super::{MD, SB, ViewCase};

/// `ViewTimeAccumSceneOne`, `ViewTimeAccumSceneTwo` and `ViewTimeAccumSceneThree`, each with its old rows.
pub(super) const TIME_ACCUM: [ViewCase; 4] = [
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumSceneOne (its old rows)",
        select: "rstream symbol, price FROM SupportMarketDataBean.win:time_accum(10 sec)",
        columns: "symbol string, price double",
        typed: false,
        steps: &[
            (11_000, "", "", "-"),
            (11_000, MD, "id='id_0',symbol='S0',price=0", "-"),
            (15_000, MD, "id='id_1',symbol='S1',price=1", "-"),
            (15_000, MD, "id='id_2',symbol='S2',price=2", "-"),
            (24_000, MD, "id='id_3',symbol='S3',price=3", "-"),
            (33_999, "", "", "-"),
            (
                34_000,
                "",
                "",
                "symbol='S0' price=0.0 | symbol='S1' price=1.0 | symbol='S2' price=2.0 | symbol='S3' price=3.0",
            ),
            (51_000, "", "", "-"),
            (56_000, MD, "id='id_4',symbol='S4',price=4", "-"),
            (56_000, MD, "id='id_5',symbol='S5',price=5", "-"),
            (65_999, "", "", "-"),
            (66_000, "", "", "symbol='S4' price=4.0 | symbol='S5' price=5.0"),
            (66_000, MD, "id='id_6',symbol='S6',price=6", "-"),
            (75_999, MD, "id='id_7',symbol='S7',price=7", "-"),
            (85_999, "", "", "symbol='S6' price=6.0 | symbol='S7' price=7.0"),
        ],
    },
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumSceneTwo",
        select: "irstream symbol FROM SupportMarketDataBean.win:time_accum(10 sec)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1_000, MD, "symbol='E1',price=0,volume=0", "symbol='E1'"),
            (5_000, MD, "symbol='E2',price=0,volume=0", "symbol='E2'"),
            (15_000, "", "", "-"),
            (31_000, MD, "symbol='E3',price=0,volume=0", "symbol='E3'"),
            (31_000, MD, "symbol='E4',price=0,volume=0", "symbol='E4'"),
        ],
    },
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumSceneTwo (its old rows)",
        select: "rstream symbol FROM SupportMarketDataBean.win:time_accum(10 sec)",
        columns: "symbol string",
        typed: false,
        steps: &[
            (1_000, MD, "symbol='E1',price=0,volume=0", "-"),
            (5_000, MD, "symbol='E2',price=0,volume=0", "-"),
            (14_999, "", "", "-"),
            (15_000, "", "", "symbol='E1' | symbol='E2'"),
            (30_000, "", "", "-"),
            (31_000, MD, "symbol='E3',price=0,volume=0", "-"),
            (31_000, MD, "symbol='E4',price=0,volume=0", "-"),
            (40_999, "", "", "-"),
            (41_000, "", "", "symbol='E3' | symbol='E4'"),
            (41_000, MD, "symbol='E5',price=0,volume=0", "-"),
            (41_000, MD, "symbol='E6',price=0,volume=0", "-"),
            (49_000, MD, "symbol='E7',price=0,volume=0", "-"),
            (59_000, "", "", "symbol='E5' | symbol='E6' | symbol='E7'"),
        ],
    },
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumSceneThree (its old rows)",
        select: "rstream theString FROM SupportBean.win:time_accum(10 sec)",
        columns: "theString string",
        typed: false,
        steps: &[
            (1_000, SB, "theString='E1'", "-"),
            (5_000, SB, "theString='E2'", "-"),
            (14_999, "", "", "-"),
            (15_000, "", "", "theString='E1' | theString='E2'"),
            (18_000, SB, "theString='E3'", "-"),
            (18_000, SB, "theString='E4'", "-"),
            (19_000, SB, "theString='E5'", "-"),
            (28_999, "", "", "-"),
            (29_000, "", "", "theString='E3' | theString='E4' | theString='E5'"),
            (39_000, "", "", "-"),
            (99_000, "", "", "-"),
        ],
    },
];

/// `ViewTimeAccumRStream`, `ViewTimeAccumSum` (but its flush), `ViewTimeAccumGroupedWindow`'s old rows (its windows
/// per symbol: `S2`'s leave at 28 seconds, `S1`'s at 31, `S2`'s next at 39), and the `PreviousAndPrior` scenes (the
/// old rows of the first; the previous-event functions of a row leaving are null, its `prior` not).
pub(super) const TIME_ACCUM_FLUSHES: [ViewCase; 6] = [
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumRStream",
        select: "rstream symbol, price FROM SupportMarketDataBean.win:time_accum(10 sec)",
        columns: "symbol string, price double",
        typed: false,
        steps: &[
            (11_000, "", "", "-"),
            (11_000, MD, "id='id_0',symbol='S0',price=0", "-"),
            (11_000, MD, "id='id_1',symbol='S1',price=1", "-"),
            (11_000, MD, "id='id_2',symbol='S2',price=2", "-"),
            (21_000, "", "", "symbol='S0' price=0.0 | symbol='S1' price=1.0 | symbol='S2' price=2.0"),
        ],
    },
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumSum",
        select: "irstream sum(price) as sumPrice FROM SupportMarketDataBean.win:time_accum(10 sec)",
        columns: "sumPrice double",
        typed: false,
        steps: &[
            (21_000, MD, "id='id_5',symbol='S5',price=5", "sumPrice=5.0"),
            (26_000, MD, "id='id_6',symbol='S6',price=6", "sumPrice=11.0"),
            (35_999, "", "", "-"),
            (36_000, "", "", "?"),
        ],
    },
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumGroupedWindow (its old rows)",
        select: "rstream symbol, price FROM SupportMarketDataBean.std:groupwin(symbol).win:time_accum(10 sec)",
        columns: "symbol string, price double",
        typed: false,
        steps: &[
            (11_000, MD, "id='id_1',symbol='S1',price=1", "-"),
            (13_000, MD, "id='id_2',symbol='S2',price=2", "-"),
            (16_000, MD, "id='id_11',symbol='S1',price=11", "-"),
            (19_000, MD, "id='id_12',symbol='S2',price=12", "-"),
            (22_000, MD, "id='id_21',symbol='S1',price=21", "-"),
            (29_000, "", "", "symbol='S2' price=2.0 | symbol='S2' price=12.0"),
            (30_000, MD, "id='id_32',symbol='S2',price=32", "-"),
            (32_000, "", "", "symbol='S1' price=1.0 | symbol='S1' price=11.0 | symbol='S1' price=21.0"),
            (40_000, "", "", "symbol='S2' price=32.0"),
        ],
    },
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumPreviousAndPriorSceneOne",
        select: "irstream price, prev(1, price) as prevPrice, prior(1, price) as priorPrice FROM \
                 SupportMarketDataBean.win:time_accum(10 sec)",
        columns: "price double, prevPrice double, priorPrice double",
        typed: false,
        steps: &[
            (21_000, MD, "id='id_5',symbol='S5',price=5", "price=5.0 prevPrice=null priorPrice=null"),
            (26_000, MD, "id='id_6',symbol='S6',price=6", "price=6.0 prevPrice=5.0 priorPrice=5.0"),
            (35_000, MD, "id='id_7',symbol='S7',price=7", "price=7.0 prevPrice=6.0 priorPrice=6.0"),
        ],
    },
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumPreviousAndPriorSceneOne (its old rows)",
        select: "rstream price, prev(1, price) as prevPrice, prior(1, price) as priorPrice FROM \
                 SupportMarketDataBean.win:time_accum(10 sec)",
        columns: "price double, prevPrice double, priorPrice double",
        typed: false,
        steps: &[
            (21_000, MD, "id='id_5',symbol='S5',price=5", "-"),
            (26_000, MD, "id='id_6',symbol='S6',price=6", "-"),
            (35_000, MD, "id='id_7',symbol='S7',price=7", "-"),
            (44_999, "", "", "-"),
            (
                45_000,
                "",
                "",
                "price=5.0 prevPrice=null priorPrice=null | price=6.0 prevPrice=null priorPrice=5.0 | price=7.0 \
                 prevPrice=null priorPrice=6.0",
            ),
        ],
    },
    ViewCase {
        test: "ViewTimeAccum.ViewTimeAccumPreviousAndPriorSceneTwo",
        select: "irstream price, prev(1, price) as prevPrice, prior(1, price) as priorPrice, prevtail(price) as \
                 prevtailPrice, prevcount(price) as prevCountPrice FROM SupportMarketDataBean.win:time_accum(10 sec)",
        columns: "price double, prevPrice double, priorPrice double, prevtailPrice double, prevCountPrice long",
        typed: false,
        steps: &[
            (
                1_000,
                MD,
                "symbol='S1',price=10,volume=0",
                "price=10.0 prevPrice=null priorPrice=null prevtailPrice=10.0 prevCountPrice=1",
            ),
            (
                5_000,
                MD,
                "symbol='S1',price=20,volume=0",
                "price=20.0 prevPrice=10.0 priorPrice=10.0 prevtailPrice=10.0 prevCountPrice=2",
            ),
            (
                10_000,
                MD,
                "symbol='S2',price=30,volume=0",
                "price=30.0 prevPrice=20.0 priorPrice=20.0 prevtailPrice=10.0 prevCountPrice=3",
            ),
            (20_000, "", "", "-"),
        ],
    },
];

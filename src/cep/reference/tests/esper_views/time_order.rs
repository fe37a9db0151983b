//! Esper's tests of the time-ordered windows. `ext:time_order(timestamp, d)` takes every arriving event into the insert
//! stream and keeps it until the engine's clock reaches its timestamp plus `d`; those due together leave in timestamp
//! order (of one timestamp, in arrival order), and an arrival already due leaves at once, as new and as old.
//! `ext:timetolive(timestamp)` is the same with `d` 0. The tables are Esper 8's `regression-lib` class
//! `ViewTimeOrderAndTimeToLive` (read at `8f740416`), its `#time_order(...)` and `#timetolive(...)` spelled
//! `.ext:time_order(...)` and `.ext:timetolive(...)`, its `@name('s0')` dropped and its milestones ignored.
//! `SupportBeanTimestamp(id, timestamp[, groupId])` is an event of that type with those properties; Esper moves its
//! clock before each event it sends at another time. Esper asserts each event's new row (every arrival's own), and the
//! old rows of the releases: those are the cases here, as `SELECT RSTREAM` statements ("its old rows"), with one case
//! of new rows. Skipped: `ViewTimeOrderTTLTimeOrderRemoveStream`, whose events and old rows are those of
//! `ViewTimeOrderTTLTimeOrder` up to 38 seconds (its `insert rstream into` a second statement is `SELECT RSTREAM`
//! here); every iterator assertion (the events in timestamp order); `ViewTimeOrderTTLMonthScoped` (a period of `1
//! month`, a calendar unit the subset lacks); `ViewTimeOrderTTLInvalid` (Esper's messages; ours are the error files
//! `time-order-*`); and the `PreviousAndPrior` scenes (`prev` and its kin over the view read the timestamp order;
//! refused by name).

use super::ViewCase;

const TS: &str = "SupportBeanTimestamp";

/// `ViewTimeOrderSceneOne`'s new rows, and the old rows of it, `ViewTimeOrderSceneTwo` and
/// `ViewTimeOrderTTLTimeToLive`.
pub(super) const TIME_ORDER: [ViewCase; 4] = [
    ViewCase {
        test: "ViewTimeOrderAndTimeToLive.ViewTimeOrderSceneOne",
        select: "irstream * FROM SupportBeanTimestamp.ext:time_order(timestamp, 10 sec)",
        columns: "id string",
        typed: false,
        steps: &[
            (1_000, TS, "id='E1',timestamp=3000", "id='E1'"),
            (2_000, TS, "id='E2',timestamp=2000", "id='E2'"),
            (3_000, TS, "id='E3',timestamp=3000", "id='E3'"),
            (4_000, TS, "id='E4',timestamp=2500", "id='E4'"),
            (12_000, "", "", "-"),
            (14_000, TS, "id='E5',timestamp=14200", "id='E5'"),
            (14_000, TS, "id='E6',timestamp=14100", "id='E6'"),
            (25_000, TS, "id='E9',timestamp=15000", "id='E9'"),
        ],
    },
    ViewCase {
        test: "ViewTimeOrderAndTimeToLive.ViewTimeOrderSceneOne (its old rows)",
        select: "rstream * FROM SupportBeanTimestamp.ext:time_order(timestamp, 10 sec)",
        columns: "id string",
        typed: false,
        steps: &[
            (1_000, TS, "id='E1',timestamp=3000", "-"),
            (2_000, TS, "id='E2',timestamp=2000", "-"),
            (3_000, TS, "id='E3',timestamp=3000", "-"),
            (4_000, TS, "id='E4',timestamp=2500", "-"),
            (11_999, "", "", "-"),
            (12_000, "", "", "id='E2'"),
            (12_499, "", "", "-"),
            (12_500, "", "", "id='E4'"),
            (13_000, "", "", "id='E1' | id='E3'"),
            (14_000, TS, "id='E5',timestamp=14200", "-"),
            (14_000, TS, "id='E6',timestamp=14100", "-"),
            (15_000, TS, "id='E7',timestamp=15000", "-"),
            (15_000, TS, "id='E8',timestamp=14150", "-"),
            (24_500, "", "", "id='E6' | id='E8' | id='E5'"),
            (25_000, "", "", "id='E7'"),
            (25_000, TS, "id='E9',timestamp=15000", "id='E9'"),
            (26_000, TS, "id='E10',timestamp=26000", "-"),
            (27_000, TS, "id='E11',timestamp=27000", "-"),
            (28_000, TS, "id='E12',timestamp=25000", "-"),
            (28_000, TS, "id='E13',timestamp=25000", "-"),
            (35_000, "", "", "id='E12' | id='E13'"),
            (35_000, TS, "id='E14',timestamp=26500", "-"),
            (36_000, "", "", "id='E10'"),
        ],
    },
    ViewCase {
        test: "ViewTimeOrderAndTimeToLive.ViewTimeOrderSceneTwo (its old rows)",
        select: "rstream id, timestamp FROM SupportBeanTimestamp.ext:time_order(timestamp, 10 sec)",
        columns: "id string, timestamp long",
        typed: false,
        steps: &[
            (1_000, TS, "id='E1',timestamp=5000", "-"),
            (2_000, TS, "id='E2',timestamp=4000", "-"),
            (13_999, "", "", "-"),
            (14_000, "", "", "id='E2' timestamp=4000"),
            (14_000, TS, "id='E3',timestamp=5000", "-"),
            (14_999, "", "", "-"),
            (15_000, "", "", "id='E1' timestamp=5000 | id='E3' timestamp=5000"),
            (15_000, TS, "id='E4',timestamp=2500", "id='E4' timestamp=2500"),
            (99_999, "", "", "-"),
        ],
    },
    ViewCase {
        test: "ViewTimeOrderAndTimeToLive.ViewTimeOrderTTLTimeToLive (its old rows)",
        select: "rstream * FROM SupportBeanTimestamp.ext:timetolive(timestamp)",
        columns: "id string",
        typed: false,
        steps: &[
            (0, TS, "id='E1',timestamp=1000", "-"),
            (0, TS, "id='E2',timestamp=500", "-"),
            (499, "", "", "-"),
            (500, "", "", "id='E2'"),
            (500, TS, "id='E3',timestamp=200", "id='E3'"),
            (500, TS, "id='E4',timestamp=1200", "-"),
            (500, TS, "id='E5',timestamp=1000", "-"),
            (999, "", "", "-"),
            (1_000, "", "", "id='E1' | id='E5'"),
            (1_199, "", "", "-"),
            (1_200, "", "", "id='E4'"),
            (1_200, TS, "id='E6',timestamp=1200", "id='E6'"),
        ],
    },
];

/// The old rows of `ViewTimeOrderTTLTimeOrder` and `ViewTimeOrderTTLGroupedWindow` (its windows per `groupId`; at 30
/// seconds Esper asserts one update of `E4` and `E3`, in any order).
pub(super) const TIME_ORDER_RELEASES: [ViewCase; 2] = [
    ViewCase {
        test: "ViewTimeOrderAndTimeToLive.ViewTimeOrderTTLTimeOrder (its old rows)",
        select: "rstream * FROM SupportBeanTimestamp.ext:time_order(timestamp, 10 sec)",
        columns: "id string",
        typed: false,
        steps: &[
            (21_000, "", "", "-"),
            (21_000, TS, "id='E1',timestamp=21000", "-"),
            (22_000, TS, "id='E2',timestamp=22000", "-"),
            (28_000, TS, "id='E3',timestamp=28000", "-"),
            (30_000, TS, "id='E4',timestamp=27000", "-"),
            (30_000, TS, "id='E5',timestamp=22000", "-"),
            (30_999, "", "", "-"),
            (31_000, "", "", "id='E1'"),
            (31_000, TS, "id='E6',timestamp=21000", "id='E6'"),
            (31_000, TS, "id='E7',timestamp=21300", "-"),
            (31_299, "", "", "-"),
            (31_300, "", "", "id='E7'"),
            (31_999, "", "", "-"),
            (32_000, "", "", "id='E2' | id='E5'"),
            (36_999, "", "", "-"),
            (37_000, "", "", "id='E4'"),
            (37_000, TS, "id='E8',timestamp=21000", "id='E8'"),
            (37_000, TS, "id='E9',timestamp=28000", "-"),
            (37_999, "", "", "-"),
            (38_000, "", "", "id='E3' | id='E9'"),
            (38_000, TS, "id='E10',timestamp=38000", "-"),
            (47_999, "", "", "-"),
            (48_000, "", "", "id='E10'"),
            (48_000, TS, "id='E11',timestamp=70000", "-"),
            (80_000, "", "", "id='E11'"),
            (100_000, "", "", "-"),
        ],
    },
    ViewCase {
        test: "ViewTimeOrderAndTimeToLive.ViewTimeOrderTTLGroupedWindow (its old rows)",
        select: "rstream * FROM SupportBeanTimestamp.std:groupwin(groupId).ext:time_order(timestamp, 10 sec)",
        columns: "id string",
        typed: false,
        steps: &[
            (20_000, TS, "id='E1',groupId='G1',timestamp=10000", "id='E1'"),
            (20_000, TS, "id='E2',groupId='G2',timestamp=10001", "-"),
            (20_000, TS, "id='E3',groupId='G3',timestamp=20000", "-"),
            (20_000, TS, "id='E4',groupId='G2',timestamp=20000", "-"),
            (20_001, "", "", "id='E2'"),
            (22_000, TS, "id='E5',groupId='G2',timestamp=19000", "-"),
            (29_000, "", "", "id='E5'"),
            (30_000, "", "", "id='E4' | id='E3'"),
            (100_000, "", "", "-"),
        ],
    },
];

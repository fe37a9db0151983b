//! Esper's output-policy traces of aggregating queries and patterns: `SNAPSHOT`, `ALL`, `FIRST`, the default
//! `EVERY`, and a time batch's releases.

use super::*;

/// A time batch's periods run from its first event (200 ms): each release gives a row per group in the new or the
/// last batch, its sum null for a group the new one left empty; after an empty release the clock stops, and an event
/// starts it again at the next period end on the same grid (9.7 s: due at 10.2 s).
#[test]
fn a_time_batch_releases_each_period_per_group_and_stops_when_empty() {
    let statement = "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time_batch(1 sec) GROUP BY symbol";
    let expected = out(&[
        (1200, "IBM", Some(25.0)),
        (1200, "MSFT", Some(9.0)),
        (2200, "IBM", Some(50.0)),
        (2200, "MSFT", None),
        (2200, "YAH", Some(1.0)),
        (3200, "IBM", None),
        (3200, "YAH", None),
        (4200, "YAH", Some(2.0)),
        (5200, "IBM", Some(22.0)),
        (5200, "YAH", Some(3.0)),
        (6200, "IBM", None),
        (6200, "YAH", Some(1.0)),
        (7200, "YAH", None),
        (10_200, "YAH", Some(5.0)),
        (11_200, "YAH", None),
    ]);
    assert_eq!(trace_through(statement, &[(9700, "YAH", 5.0)], 12_000), expected);
}

/// `count` over no rows is 0, as Esper's fresh aggregator reads (where `sum` is null): the conformance trace with
/// `count(*)` in place of `sum(price)` (MSFT's emptied group at 7.2 s), the time batch above (each group the new
/// batch left empty), and the trace's rows in a window of a second, ungrouped (empty at 3.1 s and 6.9 s).
pub(crate) const EMPTY_COUNTS: [(&str, &[TraceRow]); 3] = [
    (
        "INSERT INTO Out SELECT symbol, count(*) * 1.0 as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT LAST \
         EVERY 1 sec",
        &[
            (1200, "IBM", Some(1.0)),
            (1200, "MSFT", Some(1.0)),
            (2200, "IBM", Some(3.0)),
            (2200, "YAH", Some(1.0)),
            (4200, "YAH", Some(2.0)),
            (5200, "IBM", Some(4.0)),
            (5200, "YAH", Some(3.0)),
            (6200, "IBM", Some(3.0)),
            (6200, "YAH", Some(4.0)),
            (7200, "IBM", Some(2.0)),
            (7200, "MSFT", Some(0.0)),
            (7200, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, count(*) * 1.0 as value FROM S.win:time_batch(1 sec) GROUP BY symbol",
        &[
            (1200, "IBM", Some(1.0)),
            (1200, "MSFT", Some(1.0)),
            (2200, "IBM", Some(2.0)),
            (2200, "MSFT", Some(0.0)),
            (2200, "YAH", Some(1.0)),
            (3200, "IBM", Some(0.0)),
            (3200, "YAH", Some(0.0)),
            (4200, "YAH", Some(1.0)),
            (5200, "IBM", Some(1.0)),
            (5200, "YAH", Some(1.0)),
            (6200, "IBM", Some(0.0)),
            (6200, "YAH", Some(1.0)),
            (7200, "YAH", Some(0.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'all' as symbol, count(*) * 1.0 as value FROM S.win:time(1 sec) OUTPUT LAST EVERY 1 sec",
        SECOND_COUNTS,
    ),
];

/// The trace's rows in a window of a second counted at each tick from 1.2 s, its last row in each second under
/// `OUTPUT LAST` and the window as it stands under `OUTPUT SNAPSHOT`: empty at 3.1 s and 6.9 s.
pub(crate) const SECOND_COUNTS: &[TraceRow] = &[
    (1200, "all", Some(1.0)),
    (2200, "all", Some(3.0)),
    (3200, "all", Some(0.0)),
    (4200, "all", Some(1.0)),
    (5200, "all", Some(2.0)),
    (6200, "all", Some(1.0)),
    (7200, "all", Some(0.0)),
];

#[test]
fn a_count_over_no_rows_is_zero() {
    assert_traces(&EMPTY_COUNTS, 8000);
}

/// The snapshot statement of Esper's `ResultSetOutputLimitRowPerGroup` (its `tryAssertion18`, over the trace's
/// events), and what it gives there: at every tick each group with a row in the window, changed or not.
pub(crate) const SNAPSHOT: &str = "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY \
    symbol OUTPUT SNAPSHOT EVERY 1 sec";

pub(crate) fn snapshot_expected() -> Vec<(i64, String, Option<f64>)> {
    out(&[
        (1200, "IBM", Some(25.0)),
        (1200, "MSFT", Some(9.0)),
        (2200, "IBM", Some(75.0)),
        (2200, "MSFT", Some(9.0)),
        (2200, "YAH", Some(1.0)),
        (3200, "IBM", Some(75.0)),
        (3200, "MSFT", Some(9.0)),
        (3200, "YAH", Some(1.0)),
        (4200, "IBM", Some(75.0)),
        (4200, "MSFT", Some(9.0)),
        (4200, "YAH", Some(3.0)),
        (5200, "IBM", Some(97.0)),
        (5200, "MSFT", Some(9.0)),
        (5200, "YAH", Some(6.0)),
        (6200, "IBM", Some(72.0)),
        (6200, "MSFT", Some(9.0)),
        (6200, "YAH", Some(7.0)),
        (7200, "IBM", Some(48.0)),
        (7200, "YAH", Some(6.0)),
    ])
}

#[test]
fn esper_output_snapshot_per_group_trace() {
    assert_eq!(trace_through(SNAPSHOT, &[], 7200), snapshot_expected());
}

/// The `OUTPUT ALL` statements of Esper's `ResultSetOutputLimitRowPerGroup` over the trace (`tryAssertion9_10`,
/// `tryAssertion11_12`) and what they give there: at every tick a row for each group it knows, changed or not, MSFT
/// null at 7.2 s once its window emptied. After that the emptied group is gone (8.2 s), where Esper's helper keeps
/// it: our own rule, which keeps a statement's groups bounded by its window.
pub(crate) const ALL_GROUPS: [(&str, &[TraceRow]); 2] = [
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT ALL EVERY \
         1 sec ORDER BY symbol",
        &[
            (1200, "IBM", Some(25.0)),
            (1200, "MSFT", Some(9.0)),
            (2200, "IBM", Some(75.0)),
            (2200, "MSFT", Some(9.0)),
            (2200, "YAH", Some(1.0)),
            (3200, "IBM", Some(75.0)),
            (3200, "MSFT", Some(9.0)),
            (3200, "YAH", Some(1.0)),
            (4200, "IBM", Some(75.0)),
            (4200, "MSFT", Some(9.0)),
            (4200, "YAH", Some(3.0)),
            (5200, "IBM", Some(97.0)),
            (5200, "MSFT", Some(9.0)),
            (5200, "YAH", Some(6.0)),
            (6200, "IBM", Some(72.0)),
            (6200, "MSFT", Some(9.0)),
            (6200, "YAH", Some(7.0)),
            (7200, "IBM", Some(48.0)),
            (7200, "MSFT", None),
            (7200, "YAH", Some(6.0)),
            (8200, "IBM", Some(22.0)),
            (8200, "YAH", Some(6.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol HAVING sum(price) \
         > 50 OUTPUT ALL EVERY 1 sec",
        &[
            (2200, "IBM", Some(75.0)),
            (3200, "IBM", Some(75.0)),
            (4200, "IBM", Some(75.0)),
            (5200, "IBM", Some(97.0)),
            (6200, "IBM", Some(72.0)),
        ],
    ),
];

#[test]
fn esper_output_all_per_group_traces() {
    assert_traces(&ALL_GROUPS, 8200);
}

/// The `OUTPUT ALL` (Esper's default, `OUTPUT EVERY`, too) and `OUTPUT FIRST` statements of Esper's
/// `ResultSetOutputLimitSimple` over the trace's events, and what it gives there (`tryAssertion56`,
/// `tryAssertion17IStream`): every row of the interval at its tick; the interval's first row as it arrives.
pub(crate) const ALL_AND_FIRST: [(&str, &[TraceRow]); 3] = [
    ("INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) OUTPUT ALL EVERY 1 sec", ALL_ROWS),
    ("INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) OUTPUT EVERY 1 sec", ALL_ROWS),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) OUTPUT FIRST EVERY 1 sec",
        &[
            (200, "IBM", Some(25.0)),
            (1500, "IBM", Some(24.0)),
            (3500, "YAH", Some(2.0)),
            (4300, "IBM", Some(22.0)),
            (5900, "YAH", Some(1.0)),
        ],
    ),
];

const ALL_ROWS: &[TraceRow] = &[
    (1200, "IBM", Some(25.0)),
    (1200, "MSFT", Some(9.0)),
    (2200, "IBM", Some(24.0)),
    (2200, "IBM", Some(26.0)),
    (2200, "YAH", Some(1.0)),
    (4200, "YAH", Some(2.0)),
    (5200, "IBM", Some(22.0)),
    (5200, "YAH", Some(3.0)),
    (6200, "YAH", Some(1.0)),
];

#[test]
fn esper_output_all_and_first_without_aggregates_traces() {
    assert_traces(&ALL_AND_FIRST, 7200);
}

/// `OUTPUT FIRST` of aggregating statements over the trace. The first three are Esper's
/// (`ResultSetOutputLimitRowPerGroup`, `RowForAll` and `AggregateGrouped`, `tryAssertion17`): grouped, a group's row
/// goes out when none of the group did in the last second, at arrivals and at expiries (5.7 s, 6.3 s: MSFT's emptied
/// group, null; 7 s); without groups, the first row of each interval of the clock started at 200 ms; with an ungrouped
/// column (each row's value its group's sum less its price), at expiries the row of the row leaving (IBM's 25 at 5.7 s:
/// 72 less 25). The last two were worked out by hand: in a length-one window each arrival empties the group of the row
/// it pushes out, which forgets its last row, so only YAH at 5.9 s, which pushes out its own group's row, is held back
/// by the ten seconds; a fully aggregated statement's pushed-out group has its (null) row tested too, and held back.
pub(crate) const FIRST_GROUPS: [(&str, &[TraceRow]); 5] = [
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT FIRST EVERY \
         1 sec",
        &[
            (200, "IBM", Some(25.0)),
            (800, "MSFT", Some(9.0)),
            (1500, "IBM", Some(49.0)),
            (1500, "YAH", Some(1.0)),
            (3500, "YAH", Some(3.0)),
            (4300, "IBM", Some(97.0)),
            (4900, "YAH", Some(6.0)),
            (5700, "IBM", Some(72.0)),
            (5900, "YAH", Some(7.0)),
            (6300, "MSFT", None),
            (7000, "IBM", Some(48.0)),
            (7000, "YAH", Some(6.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'ALL' as symbol, sum(price) as value FROM S.win:time(5.5 sec) OUTPUT FIRST EVERY 1 sec",
        &[
            (200, "ALL", Some(25.0)),
            (1500, "ALL", Some(58.0)),
            (3500, "ALL", Some(87.0)),
            (4300, "ALL", Some(109.0)),
            (5700, "ALL", Some(87.0)),
            (6300, "ALL", Some(79.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT \
         FIRST EVERY 1 sec",
        &[
            (200, "IBM", Some(0.0)),
            (800, "MSFT", Some(0.0)),
            (1500, "IBM", Some(25.0)),
            (1500, "YAH", Some(0.0)),
            (3500, "YAH", Some(1.0)),
            (4300, "IBM", Some(75.0)),
            (4900, "YAH", Some(3.0)),
            (5700, "IBM", Some(47.0)),
            (5900, "YAH", Some(6.0)),
            (6300, "MSFT", None),
            (7000, "IBM", Some(24.0)),
            (7000, "YAH", Some(5.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:length(1) GROUP BY symbol HAVING count(*) > 0 OUTPUT \
         FIRST EVERY 10 sec",
        FIRST_IN_LENGTH_ONE,
    ),
    (
        "INSERT INTO Out SELECT symbol, count(*) as value FROM S.win:length(1) GROUP BY symbol OUTPUT FIRST EVERY 10 sec",
        &[
            (200, "IBM", Some(1.0)),
            (800, "MSFT", Some(1.0)),
            (1500, "IBM", Some(1.0)),
            (1500, "YAH", Some(1.0)),
            (2100, "IBM", Some(1.0)),
            (3500, "YAH", Some(1.0)),
            (4300, "IBM", Some(1.0)),
            (4900, "YAH", Some(1.0)),
        ],
    ),
];

/// The default `OUTPUT EVERY` (and without groups `OUTPUT ALL`) of fully aggregated statements over the trace, and
/// what Esper gives there (`ResultSetOutputLimitRowPerGroup` and `RowForAll`, `tryAssertion56` and `tryAssertion78`):
/// at each tick the rows of the interval's changes, each group's row as each arrival or expiry left it (HAVING
/// applied then); without groups, in an interval with no change (3.2 s), the row as it stands. Last, `OUTPUT LAST`
/// without groups (`RowForAll`, `tryAssertion13_14` and `15_16`): the row as it stands at every tick, changed or not.
pub(crate) const EVERY_GROUPS: [(&str, &[TraceRow]); 7] = [
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT EVERY 1 sec",
        &[
            (1200, "IBM", Some(25.0)),
            (1200, "MSFT", Some(9.0)),
            (2200, "IBM", Some(49.0)),
            (2200, "IBM", Some(75.0)),
            (2200, "YAH", Some(1.0)),
            (4200, "YAH", Some(3.0)),
            (5200, "IBM", Some(97.0)),
            (5200, "YAH", Some(6.0)),
            (6200, "IBM", Some(72.0)),
            (6200, "YAH", Some(7.0)),
            (7200, "IBM", Some(48.0)),
            (7200, "MSFT", None),
            (7200, "YAH", Some(6.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol HAVING sum(price) \
         > 50 OUTPUT EVERY 1 sec",
        &[(2200, "IBM", Some(75.0)), (5200, "IBM", Some(97.0)), (6200, "IBM", Some(72.0))],
    ),
    ("INSERT INTO Out SELECT 'ALL' as symbol, sum(price) as value FROM S.win:time(5.5 sec) OUTPUT EVERY 1 sec", SUMS),
    (
        "INSERT INTO Out SELECT 'ALL' as symbol, sum(price) as value FROM S.win:time(5.5 sec) OUTPUT ALL EVERY 1 sec",
        SUMS,
    ),
    (
        "INSERT INTO Out SELECT 'ALL' as symbol, sum(price) as value FROM S.win:time(5.5 sec) HAVING sum(price) > 100 \
         OUTPUT EVERY 1 sec",
        &[(5200, "ALL", Some(109.0)), (5200, "ALL", Some(112.0))],
    ),
    (
        "INSERT INTO Out SELECT 'ALL' as symbol, sum(price) as value FROM S.win:time(5.5 sec) OUTPUT LAST EVERY 1 sec",
        &[
            (1200, "ALL", Some(34.0)),
            (2200, "ALL", Some(85.0)),
            (3200, "ALL", Some(85.0)),
            (4200, "ALL", Some(87.0)),
            (5200, "ALL", Some(112.0)),
            (6200, "ALL", Some(88.0)),
            (7200, "ALL", Some(54.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'ALL' as symbol, sum(price) as value FROM S.win:time(5.5 sec) HAVING sum(price) > 100 \
         OUTPUT LAST EVERY 1 sec",
        &[(5200, "ALL", Some(112.0))],
    ),
];

const SUMS: &[TraceRow] = &[
    (1200, "ALL", Some(25.0)),
    (1200, "ALL", Some(34.0)),
    (2200, "ALL", Some(58.0)),
    (2200, "ALL", Some(59.0)),
    (2200, "ALL", Some(85.0)),
    (3200, "ALL", Some(85.0)),
    (4200, "ALL", Some(87.0)),
    (5200, "ALL", Some(109.0)),
    (5200, "ALL", Some(112.0)),
    (6200, "ALL", Some(87.0)),
    (6200, "ALL", Some(88.0)),
    (7200, "ALL", Some(54.0)),
    (7200, "ALL", Some(79.0)),
];

#[test]
fn esper_output_every_of_fully_aggregated_traces() {
    assert_traces(&EVERY_GROUPS, 7200);
}

/// The default `OUTPUT EVERY` and `OUTPUT ALL` of statements with an ungrouped column over the trace, until 8.2 s.
/// Without groups, Esper's `ResultSetOutputLimitRowPerEvent` traces (`tryAssertion56` and `tryAssertion78`, default
/// and `all`): each arrival's row with the sum its arrival left, at the tick. Grouped, with each row's value its
/// group's sum less its price: Esper's `ResultSetOutputLimitAggregateGrouped` traces (`tryAssertion56`, `9_10` and
/// `11_12`): the default gives the arrivals' rows; `ALL` also a row per group as rows of it leave (MSFT at 6.3 s,
/// null; IBM and YAH at 7 s, after both left) and at each tick per group the interval did not touch, each from the
/// group's last arrival with its sum then. At 8.2 s the emptied MSFT is forgotten; IBM's row is the one its leaving
/// row at 7.6 s made, YAH's the untouched group's.
pub(crate) const COLUMN_EVERY: [(&str, &[TraceRow]); 6] = [
    ("INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) OUTPUT EVERY 1 sec", ARRIVALS),
    ("INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) OUTPUT ALL EVERY 1 sec", ARRIVALS),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) HAVING sum(price) > 100 OUTPUT \
         EVERY 1 sec",
        &[(5200, "IBM", Some(109.0)), (5200, "YAH", Some(112.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT \
         EVERY 1 sec",
        &[
            (1200, "IBM", Some(0.0)),
            (1200, "MSFT", Some(0.0)),
            (2200, "IBM", Some(25.0)),
            (2200, "IBM", Some(49.0)),
            (2200, "YAH", Some(0.0)),
            (4200, "YAH", Some(1.0)),
            (5200, "IBM", Some(75.0)),
            (5200, "YAH", Some(3.0)),
            (6200, "YAH", Some(6.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT \
         ALL EVERY 1 sec",
        &[
            (1200, "IBM", Some(0.0)),
            (1200, "MSFT", Some(0.0)),
            (2200, "IBM", Some(25.0)),
            (2200, "IBM", Some(49.0)),
            (2200, "MSFT", Some(0.0)),
            (2200, "YAH", Some(0.0)),
            (3200, "IBM", Some(49.0)),
            (3200, "MSFT", Some(0.0)),
            (3200, "YAH", Some(0.0)),
            (4200, "IBM", Some(49.0)),
            (4200, "MSFT", Some(0.0)),
            (4200, "YAH", Some(1.0)),
            (5200, "IBM", Some(75.0)),
            (5200, "MSFT", Some(0.0)),
            (5200, "YAH", Some(3.0)),
            (6200, "IBM", Some(50.0)),
            (6200, "MSFT", Some(0.0)),
            (6200, "YAH", Some(6.0)),
            (7200, "IBM", Some(26.0)),
            (7200, "MSFT", None),
            (7200, "YAH", Some(5.0)),
            (8200, "IBM", Some(0.0)),
            (8200, "YAH", Some(5.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:time(5.5 sec) GROUP BY symbol HAVING \
         sum(price) > 50 OUTPUT ALL EVERY 1 sec",
        &[
            (2200, "IBM", Some(49.0)),
            (3200, "IBM", Some(49.0)),
            (4200, "IBM", Some(49.0)),
            (5200, "IBM", Some(75.0)),
            (6200, "IBM", Some(50.0)),
        ],
    ),
];

const ARRIVALS: &[TraceRow] = &[
    (1200, "IBM", Some(25.0)),
    (1200, "MSFT", Some(34.0)),
    (2200, "IBM", Some(58.0)),
    (2200, "IBM", Some(85.0)),
    (2200, "YAH", Some(59.0)),
    (4200, "YAH", Some(87.0)),
    (5200, "IBM", Some(109.0)),
    (5200, "YAH", Some(112.0)),
    (6200, "YAH", Some(88.0)),
];

#[test]
fn esper_output_every_and_all_of_queries_with_ungrouped_columns_traces() {
    assert_traces(&COLUMN_EVERY, 8200);
}

/// Output policies on patterns aggregating the trace's events (`every a=S`: each event a match), worked out by hand:
/// a pattern's matches only enter, so each group's sum grows with its matches and no group empties. The clock starts
/// at the first match (0.2 s; with `AFTER 2 sec`, at the first match after it, 2.1 s, the earlier changes kept for
/// its first tick). Fully aggregated: `LAST` gives each changed group's sum, `ALL` and `SNAPSHOT` every group's,
/// the default every match's row, `FIRST` a group's row when none went out in the last second, without groups after
/// an interval with no match the row as it stands (3.2 s, 7.2 s). With ungrouped columns (each row's value its
/// group's sum less its price): `ALL` every match's row and each untouched group's from its last match, `LAST` each
/// group's last row of the interval, the default without groups each match's.
pub(crate) const PACED: [(&str, &[TraceRow]); 12] = [
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) as value FROM pattern [every a=S] GROUP BY a.symbol \
         OUTPUT LAST EVERY 1 sec",
        &[
            (1200, "IBM", Some(25.0)),
            (1200, "MSFT", Some(9.0)),
            (2200, "IBM", Some(75.0)),
            (2200, "YAH", Some(1.0)),
            (4200, "YAH", Some(3.0)),
            (5200, "IBM", Some(97.0)),
            (5200, "YAH", Some(6.0)),
            (6200, "YAH", Some(7.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) as value FROM pattern [every a=S] GROUP BY a.symbol \
         OUTPUT ALL EVERY 1 sec",
        EVERY_GROUP_SUM,
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) as value FROM pattern [every a=S] GROUP BY a.symbol \
         OUTPUT SNAPSHOT EVERY 1 sec ORDER BY value DESC",
        EVERY_GROUP_SUM,
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) as value FROM pattern [every a=S] GROUP BY a.symbol \
         OUTPUT EVERY 1 sec",
        &[
            (1200, "IBM", Some(25.0)),
            (1200, "MSFT", Some(9.0)),
            (2200, "IBM", Some(49.0)),
            (2200, "IBM", Some(75.0)),
            (2200, "YAH", Some(1.0)),
            (4200, "YAH", Some(3.0)),
            (5200, "IBM", Some(97.0)),
            (5200, "YAH", Some(6.0)),
            (6200, "YAH", Some(7.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) as value FROM pattern [every a=S] GROUP BY a.symbol \
         OUTPUT FIRST EVERY 1 sec",
        &[
            (200, "IBM", Some(25.0)),
            (800, "MSFT", Some(9.0)),
            (1500, "IBM", Some(49.0)),
            (1500, "YAH", Some(1.0)),
            (3500, "YAH", Some(3.0)),
            (4300, "IBM", Some(97.0)),
            (4900, "YAH", Some(6.0)),
            (5900, "YAH", Some(7.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'ALL' as symbol, sum(a.price) as value FROM pattern [every a=S] OUTPUT EVERY 1 sec",
        &[
            (1200, "ALL", Some(25.0)),
            (1200, "ALL", Some(34.0)),
            (2200, "ALL", Some(58.0)),
            (2200, "ALL", Some(59.0)),
            (2200, "ALL", Some(85.0)),
            (3200, "ALL", Some(85.0)),
            (4200, "ALL", Some(87.0)),
            (5200, "ALL", Some(109.0)),
            (5200, "ALL", Some(112.0)),
            (6200, "ALL", Some(113.0)),
            (7200, "ALL", Some(113.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'ALL' as symbol, sum(a.price) as value FROM pattern [every a=S] OUTPUT LAST EVERY 1 sec",
        &[
            (1200, "ALL", Some(34.0)),
            (2200, "ALL", Some(85.0)),
            (3200, "ALL", Some(85.0)),
            (4200, "ALL", Some(87.0)),
            (5200, "ALL", Some(112.0)),
            (6200, "ALL", Some(113.0)),
            (7200, "ALL", Some(113.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) - a.price as value FROM pattern [every a=S] GROUP BY \
         a.symbol OUTPUT ALL EVERY 1 sec",
        &[
            (1200, "IBM", Some(0.0)),
            (1200, "MSFT", Some(0.0)),
            (2200, "IBM", Some(25.0)),
            (2200, "IBM", Some(49.0)),
            (2200, "MSFT", Some(0.0)),
            (2200, "YAH", Some(0.0)),
            (3200, "IBM", Some(49.0)),
            (3200, "MSFT", Some(0.0)),
            (3200, "YAH", Some(0.0)),
            (4200, "IBM", Some(49.0)),
            (4200, "MSFT", Some(0.0)),
            (4200, "YAH", Some(1.0)),
            (5200, "IBM", Some(75.0)),
            (5200, "MSFT", Some(0.0)),
            (5200, "YAH", Some(3.0)),
            (6200, "IBM", Some(75.0)),
            (6200, "MSFT", Some(0.0)),
            (6200, "YAH", Some(6.0)),
            (7200, "IBM", Some(75.0)),
            (7200, "MSFT", Some(0.0)),
            (7200, "YAH", Some(6.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) - a.price as value FROM pattern [every a=S] GROUP BY \
         a.symbol OUTPUT LAST EVERY 1 sec",
        &[
            (1200, "IBM", Some(0.0)),
            (1200, "MSFT", Some(0.0)),
            (2200, "IBM", Some(49.0)),
            (2200, "YAH", Some(0.0)),
            (4200, "YAH", Some(1.0)),
            (5200, "IBM", Some(75.0)),
            (5200, "YAH", Some(3.0)),
            (6200, "YAH", Some(6.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) as value FROM pattern [every a=S] OUTPUT EVERY 1 sec",
        &[
            (1200, "IBM", Some(25.0)),
            (1200, "MSFT", Some(34.0)),
            (2200, "IBM", Some(58.0)),
            (2200, "IBM", Some(85.0)),
            (2200, "YAH", Some(59.0)),
            (4200, "YAH", Some(87.0)),
            (5200, "IBM", Some(109.0)),
            (5200, "YAH", Some(112.0)),
            (6200, "YAH", Some(113.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) as value FROM pattern [every a=S] GROUP BY a.symbol \
         HAVING sum(a.price) > 50 OUTPUT LAST EVERY 1 sec",
        &[(2200, "IBM", Some(75.0)), (5200, "IBM", Some(97.0))],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) as value FROM pattern [every a=S] GROUP BY a.symbol \
         OUTPUT AFTER 2 sec LAST EVERY 1 sec",
        &[
            (3100, "IBM", Some(75.0)),
            (3100, "MSFT", Some(9.0)),
            (3100, "YAH", Some(1.0)),
            (4100, "YAH", Some(3.0)),
            (5100, "IBM", Some(97.0)),
            (5100, "YAH", Some(6.0)),
            (6100, "YAH", Some(7.0)),
        ],
    ),
];

const EVERY_GROUP_SUM: &[TraceRow] = &[
    (1200, "IBM", Some(25.0)),
    (1200, "MSFT", Some(9.0)),
    (2200, "IBM", Some(75.0)),
    (2200, "MSFT", Some(9.0)),
    (2200, "YAH", Some(1.0)),
    (3200, "IBM", Some(75.0)),
    (3200, "MSFT", Some(9.0)),
    (3200, "YAH", Some(1.0)),
    (4200, "IBM", Some(75.0)),
    (4200, "MSFT", Some(9.0)),
    (4200, "YAH", Some(3.0)),
    (5200, "IBM", Some(97.0)),
    (5200, "MSFT", Some(9.0)),
    (5200, "YAH", Some(6.0)),
    (6200, "IBM", Some(97.0)),
    (6200, "MSFT", Some(9.0)),
    (6200, "YAH", Some(7.0)),
    (7200, "IBM", Some(97.0)),
    (7200, "MSFT", Some(9.0)),
    (7200, "YAH", Some(7.0)),
];

#[test]
fn output_policies_of_aggregating_patterns_traces() {
    assert_traces(&PACED, 7200);
}

const FIRST_IN_LENGTH_ONE: &[TraceRow] = &[
    (200, "IBM", Some(25.0)),
    (800, "MSFT", Some(9.0)),
    (1500, "IBM", Some(24.0)),
    (1500, "YAH", Some(1.0)),
    (2100, "IBM", Some(26.0)),
    (3500, "YAH", Some(2.0)),
    (4300, "IBM", Some(22.0)),
    (4900, "YAH", Some(3.0)),
];

#[test]
fn esper_output_first_of_aggregates_traces() {
    assert_traces(&FIRST_GROUPS, 7200);
}

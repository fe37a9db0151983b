//! `OUTPUT SNAPSHOT` of queries without aggregates and with ungrouped columns, in `ORDER BY` order, and as Esper's
//! iterators read a batch window and a query without groups.

use super::*;

/// `OUTPUT SNAPSHOT` without aggregates over the trace: Esper's `ResultSetOutputLimitSimple` (`tryAssertion18`), at
/// every tick each row in the 5.5 s window; and a unique view with WHERE, worked out by hand: a row failing WHERE
/// (YAH at 1 at 1.5 s and 5.9 s) takes its key's place in the view but is not released.
pub(crate) const ROW_SNAPSHOTS: [(&str, &[TraceRow]); 2] = [
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) OUTPUT SNAPSHOT EVERY 1 sec",
        &[
            (1200, "IBM", Some(25.0)),
            (1200, "MSFT", Some(9.0)),
            (2200, "IBM", Some(24.0)),
            (2200, "IBM", Some(25.0)),
            (2200, "IBM", Some(26.0)),
            (2200, "MSFT", Some(9.0)),
            (2200, "YAH", Some(1.0)),
            (3200, "IBM", Some(24.0)),
            (3200, "IBM", Some(25.0)),
            (3200, "IBM", Some(26.0)),
            (3200, "MSFT", Some(9.0)),
            (3200, "YAH", Some(1.0)),
            (4200, "IBM", Some(24.0)),
            (4200, "IBM", Some(25.0)),
            (4200, "IBM", Some(26.0)),
            (4200, "MSFT", Some(9.0)),
            (4200, "YAH", Some(1.0)),
            (4200, "YAH", Some(2.0)),
            (5200, "IBM", Some(22.0)),
            (5200, "IBM", Some(24.0)),
            (5200, "IBM", Some(25.0)),
            (5200, "IBM", Some(26.0)),
            (5200, "MSFT", Some(9.0)),
            (5200, "YAH", Some(1.0)),
            (5200, "YAH", Some(2.0)),
            (5200, "YAH", Some(3.0)),
            (6200, "IBM", Some(22.0)),
            (6200, "IBM", Some(24.0)),
            (6200, "IBM", Some(26.0)),
            (6200, "MSFT", Some(9.0)),
            (6200, "YAH", Some(1.0)),
            (6200, "YAH", Some(1.0)),
            (6200, "YAH", Some(2.0)),
            (6200, "YAH", Some(3.0)),
            (7200, "IBM", Some(22.0)),
            (7200, "IBM", Some(26.0)),
            (7200, "YAH", Some(1.0)),
            (7200, "YAH", Some(2.0)),
            (7200, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.std:unique(symbol) WHERE price > 1 OUTPUT SNAPSHOT EVERY \
         1 sec ORDER BY value DESC",
        &[
            (1200, "IBM", Some(25.0)),
            (1200, "MSFT", Some(9.0)),
            (2200, "IBM", Some(26.0)),
            (2200, "MSFT", Some(9.0)),
            (3200, "IBM", Some(26.0)),
            (3200, "MSFT", Some(9.0)),
            (4200, "IBM", Some(26.0)),
            (4200, "MSFT", Some(9.0)),
            (4200, "YAH", Some(2.0)),
            (5200, "IBM", Some(22.0)),
            (5200, "MSFT", Some(9.0)),
            (5200, "YAH", Some(3.0)),
            (6200, "IBM", Some(22.0)),
            (6200, "MSFT", Some(9.0)),
            (7200, "IBM", Some(22.0)),
            (7200, "MSFT", Some(9.0)),
        ],
    ),
];

/// `OUTPUT SNAPSHOT` of a grouped query that also selects an ungrouped column, over the trace (Esper's
/// `ResultSetAggregateGroupedIterator`: every row in the view with its group's aggregates), worked out by hand from
/// the window's rows at each tick (the first table of [`ROW_SNAPSHOTS`]): each row's value is its group's sum less its
/// own price.
pub(crate) const COLUMN_SNAPSHOTS: [(&str, &[TraceRow]); 1] = [(
    "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT \
     SNAPSHOT EVERY 1 sec",
    &[
        (1200, "IBM", Some(0.0)),
        (1200, "MSFT", Some(0.0)),
        (2200, "IBM", Some(49.0)),
        (2200, "IBM", Some(50.0)),
        (2200, "IBM", Some(51.0)),
        (2200, "MSFT", Some(0.0)),
        (2200, "YAH", Some(0.0)),
        (3200, "IBM", Some(49.0)),
        (3200, "IBM", Some(50.0)),
        (3200, "IBM", Some(51.0)),
        (3200, "MSFT", Some(0.0)),
        (3200, "YAH", Some(0.0)),
        (4200, "IBM", Some(49.0)),
        (4200, "IBM", Some(50.0)),
        (4200, "IBM", Some(51.0)),
        (4200, "MSFT", Some(0.0)),
        (4200, "YAH", Some(1.0)),
        (4200, "YAH", Some(2.0)),
        (5200, "IBM", Some(71.0)),
        (5200, "IBM", Some(72.0)),
        (5200, "IBM", Some(73.0)),
        (5200, "IBM", Some(75.0)),
        (5200, "MSFT", Some(0.0)),
        (5200, "YAH", Some(3.0)),
        (5200, "YAH", Some(4.0)),
        (5200, "YAH", Some(5.0)),
        (6200, "IBM", Some(46.0)),
        (6200, "IBM", Some(48.0)),
        (6200, "IBM", Some(50.0)),
        (6200, "MSFT", Some(0.0)),
        (6200, "YAH", Some(4.0)),
        (6200, "YAH", Some(5.0)),
        (6200, "YAH", Some(6.0)),
        (6200, "YAH", Some(6.0)),
        (7200, "IBM", Some(22.0)),
        (7200, "IBM", Some(26.0)),
        (7200, "YAH", Some(3.0)),
        (7200, "YAH", Some(4.0)),
        (7200, "YAH", Some(5.0)),
    ],
)];

#[test]
fn output_snapshot_of_a_query_with_ungrouped_columns_trace() {
    assert_traces(&COLUMN_SNAPSHOTS, 7200);
}

#[test]
fn esper_output_snapshot_without_aggregates_traces() {
    assert_traces(&ROW_SNAPSHOTS, 7200);
}

/// The ordered snapshot's ticks come out in its order: by value, descending.
#[test]
fn an_ordered_snapshot_releases_the_view_in_its_order() {
    let (statement, _) = ROW_SNAPSHOTS[1];
    let got = trace_outputs(&mut engine(&trace_config(statement)), &[], 5200);
    let expected = [(4200, "IBM", 26.0), (4200, "MSFT", 9.0), (4200, "YAH", 2.0)].into_iter().chain([
        (5200, "IBM", 22.0),
        (5200, "MSFT", 9.0),
        (5200, "YAH", 3.0),
    ]);
    let expected: Vec<TraceRow> = expected.map(|(t, s, v)| (t, s, Some(v))).collect();
    assert_eq!(got[got.len() - 6..], out(&expected)[..]);
}

/// `OUTPUT SNAPSHOT` as Esper's result-set processors iterate the view (worked out by hand over the trace, rows in the
/// order they come out). A batch window's iterator hands over the batch it is collecting (Esper's `LengthBatchView`,
/// `TimeBatchView`): a length batch of two releases at 0.8, 1.5, 3.5 and 4.9 s, so the ticks from 1.8 s find IBM's 26
/// collected at 2.8 s, IBM's 22 at 4.8 s and YAH's 1 from 5.9 s on, each reading `prior` as null (the prior view has
/// not seen them); under `std:groupwin(symbol)` each key's collected batch, keys in the order of their first events
/// (MSFT's 9 is never released). Grouped and fully aggregated, each group of the collected events once, in the order
/// of their first events, with the aggregates of the batch released last: a length batch of three releases IBM 2 and
/// MSFT 1 at 1.5 s, YAH 2 and IBM 1 at 3.5 s, so YAH, collected at 1.5 s and not yet released, counts 0 at 2.5 s
/// (`ResultSetRowPerGroupIterator`); in a batch of four, IBM's two collected events give one row. Without groups, the
/// one row as it stands at every tick, the view empty too (`ResultSetProcessorRowForAll`): a time batch of a second
/// releases nothing new at 3.2 and 7.2 s, and a time window of a second is empty at 3.2 and 7.2 s.
pub(crate) const ITERATED_SNAPSHOTS: [(&str, &[TraceRow]); 7] = [
    (
        "INSERT INTO Out SELECT symbol, prior(1, price) as value FROM S.win:length_batch(2) OUTPUT SNAPSHOT EVERY 1 sec",
        &[(2800, "IBM", None), (4800, "IBM", None), (6800, "YAH", None), (7800, "YAH", None)],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.std:groupwin(symbol).win:length_batch(2) OUTPUT SNAPSHOT \
         EVERY 1 sec",
        &[
            (2500, "IBM", Some(26.0)),
            (2500, "MSFT", Some(9.0)),
            (2500, "YAH", Some(1.0)),
            (3500, "IBM", Some(26.0)),
            (3500, "MSFT", Some(9.0)),
            (3500, "YAH", Some(1.0)),
            (4500, "MSFT", Some(9.0)),
            (5500, "MSFT", Some(9.0)),
            (5500, "YAH", Some(3.0)),
            (6500, "MSFT", Some(9.0)),
            (7500, "MSFT", Some(9.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, count(*) * 1.0 as value FROM S.win:length_batch(3) GROUP BY symbol OUTPUT \
         SNAPSHOT EVERY 1 sec",
        &[
            (2500, "YAH", Some(0.0)),
            (2500, "IBM", Some(2.0)),
            (3500, "YAH", Some(0.0)),
            (3500, "IBM", Some(2.0)),
            (4500, "IBM", Some(1.0)),
            (5500, "IBM", Some(1.0)),
            (5500, "YAH", Some(2.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(4) GROUP BY symbol OUTPUT SNAPSHOT \
         EVERY 1 sec",
        &[
            (2500, "IBM", Some(49.0)),
            (3500, "IBM", Some(49.0)),
            (4500, "IBM", Some(49.0)),
            (4500, "YAH", Some(1.0)),
            (6500, "YAH", Some(5.0)),
            (7500, "YAH", Some(5.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(3) GROUP BY symbol HAVING \
         sum(price) > 20 OUTPUT SNAPSHOT EVERY 1 sec",
        &[(2500, "IBM", Some(49.0)), (3500, "IBM", Some(49.0)), (4500, "IBM", Some(26.0)), (5500, "IBM", Some(26.0))],
    ),
    (
        "INSERT INTO Out SELECT 'all' as symbol, count(*) * 1.0 as value FROM S.win:time_batch(1 sec) OUTPUT SNAPSHOT \
         EVERY 1 sec",
        &[
            (2200, "all", Some(3.0)),
            (3200, "all", Some(0.0)),
            (4200, "all", Some(1.0)),
            (5200, "all", Some(2.0)),
            (6200, "all", Some(1.0)),
            (7200, "all", Some(0.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'all' as symbol, count(*) * 1.0 as value FROM S.win:time(1 sec) OUTPUT SNAPSHOT EVERY 1 \
         sec",
        SECOND_COUNTS,
    ),
];

#[test]
fn snapshots_read_the_view_as_esper_s_iterators_do() {
    for (statement, rows) in ITERATED_SNAPSHOTS {
        let got = trace_outputs(&mut engine(&trace_config(statement)), &[], 8000);
        assert_eq!(got, out(rows), "{statement}");
    }
}

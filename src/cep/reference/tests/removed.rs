//! `SELECT RSTREAM`: the rows each data window lets go, with and without aggregates, and under output policies.

use super::*;

/// `SELECT RSTREAM` over the trace (worked out by hand): the rows each data window lets go, as they go. A time
/// window of 2 s lets each row go 2 s after it came, IBM's 24 and YAH's 1 together at 3.5 s (in `ORDER BY` order
/// when sorted); a length window of two pushes out the oldest row at each arrival from the third; a unique window the
/// row of the symbol it replaces, if it passed `WHERE` (YAH's never do); a length batch of two the batch its next
/// release replaces; `std:groupwin(symbol).win:length(1)` each symbol's last row at its next; `std:lastevent()` each
/// row at the next.
pub(crate) const REMOVED: [(&str, &[TraceRow]); 7] = [
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(2 sec)",
        &[
            (2200, "IBM", Some(25.0)),
            (2800, "MSFT", Some(9.0)),
            (3500, "IBM", Some(24.0)),
            (3500, "YAH", Some(1.0)),
            (4100, "IBM", Some(26.0)),
            (5500, "YAH", Some(2.0)),
            (6300, "IBM", Some(22.0)),
            (6900, "YAH", Some(3.0)),
            (7900, "YAH", Some(1.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(2 sec) ORDER BY price",
        &[
            (2200, "IBM", Some(25.0)),
            (2800, "MSFT", Some(9.0)),
            (3500, "YAH", Some(1.0)),
            (3500, "IBM", Some(24.0)),
            (4100, "IBM", Some(26.0)),
            (5500, "YAH", Some(2.0)),
            (6300, "IBM", Some(22.0)),
            (6900, "YAH", Some(3.0)),
            (7900, "YAH", Some(1.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:length(2)",
        &[
            (1500, "IBM", Some(25.0)),
            (1500, "MSFT", Some(9.0)),
            (2100, "IBM", Some(24.0)),
            (3500, "YAH", Some(1.0)),
            (4300, "IBM", Some(26.0)),
            (4900, "YAH", Some(2.0)),
            (5900, "IBM", Some(22.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.std:unique(symbol) WHERE price > 5",
        &[(1500, "IBM", Some(25.0)), (2100, "IBM", Some(24.0)), (4300, "IBM", Some(26.0))],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:length_batch(2)",
        &[
            (1500, "IBM", Some(25.0)),
            (1500, "MSFT", Some(9.0)),
            (3500, "IBM", Some(24.0)),
            (3500, "YAH", Some(1.0)),
            (4900, "IBM", Some(26.0)),
            (4900, "YAH", Some(2.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.std:groupwin(symbol).win:length(1)",
        &[
            (1500, "IBM", Some(25.0)),
            (2100, "IBM", Some(24.0)),
            (3500, "YAH", Some(1.0)),
            (4300, "IBM", Some(26.0)),
            (4900, "YAH", Some(2.0)),
            (5900, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.std:lastevent()",
        &[
            (800, "IBM", Some(25.0)),
            (1500, "MSFT", Some(9.0)),
            (1500, "IBM", Some(24.0)),
            (2100, "YAH", Some(1.0)),
            (3500, "IBM", Some(26.0)),
            (4300, "YAH", Some(2.0)),
            (4900, "IBM", Some(22.0)),
            (5900, "YAH", Some(3.0)),
        ],
    ),
];

#[test]
fn select_rstream_gives_the_rows_each_data_window_lets_go() {
    for (statement, rows) in REMOVED {
        let got = trace_outputs(&mut engine(&trace_config(statement)), &[], 8000);
        assert_eq!(got, out(rows), "{statement}");
    }
}

/// `SELECT RSTREAM` with aggregates over the trace (worked out by hand), as Esper's result-set processors make the
/// remove stream: fully aggregated, at each arrival its group's row as it stood before (null aggregates for a group
/// with no row; at 3.5 s YAH's 1 has expired before YAH's 2 arrives), HAVING read on those aggregates, with or
/// without a data window, and at a batch's release the row of each group it touches over the contents before it;
/// with ungrouped columns, each row the window lets go with its group's aggregates once it left (IBM's 24 and YAH's 1
/// together at 3.5 s, sorted when the query sorts), or a replaced batch's rows with the aggregates over the new one.
pub(crate) const REMOVED_AGGREGATES: [(&str, &[TraceRow]); 8] = [
    (
        "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S.win:time(2 sec) GROUP BY symbol",
        &[
            (200, "IBM", None),
            (800, "MSFT", None),
            (1500, "IBM", Some(25.0)),
            (1500, "YAH", None),
            (2100, "IBM", Some(49.0)),
            (3500, "YAH", None),
            (4300, "IBM", None),
            (4900, "YAH", Some(2.0)),
            (5900, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM 'ALL' as symbol, sum(price) as value FROM S",
        &[
            (200, "ALL", None),
            (800, "ALL", Some(25.0)),
            (1500, "ALL", Some(34.0)),
            (1500, "ALL", Some(58.0)),
            (2100, "ALL", Some(59.0)),
            (3500, "ALL", Some(85.0)),
            (4300, "ALL", Some(87.0)),
            (4900, "ALL", Some(109.0)),
            (5900, "ALL", Some(112.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S.win:length(3) GROUP BY symbol HAVING \
         sum(price) > 20",
        &[(1500, "IBM", Some(25.0)), (2100, "IBM", Some(24.0)), (4300, "IBM", Some(26.0))],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, sum(price) - price as value FROM S.win:time(2 sec) GROUP BY symbol",
        &[
            (2200, "IBM", Some(25.0)),
            (2800, "MSFT", None),
            (3500, "IBM", Some(2.0)),
            (3500, "YAH", None),
            (4100, "IBM", None),
            (5500, "YAH", Some(1.0)),
            (6300, "IBM", None),
            (6900, "YAH", Some(-2.0)),
            (7900, "YAH", None),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, sum(price) - price as value FROM S.win:time(2 sec) GROUP BY symbol \
         ORDER BY symbol DESC",
        &[
            (2200, "IBM", Some(25.0)),
            (2800, "MSFT", None),
            (3500, "YAH", None),
            (3500, "IBM", Some(2.0)),
            (4100, "IBM", None),
            (5500, "YAH", Some(1.0)),
            (6300, "IBM", None),
            (6900, "YAH", Some(-2.0)),
            (7900, "YAH", None),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S.std:unique(symbol) HAVING sum(price) > 33",
        &[(2100, "IBM", Some(36.0)), (3500, "YAH", Some(37.0)), (4900, "YAH", Some(34.0))],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S.win:length_batch(2) GROUP BY symbol",
        &[
            (800, "IBM", None),
            (800, "MSFT", None),
            (1500, "IBM", Some(25.0)),
            (1500, "YAH", None),
            (1500, "MSFT", Some(9.0)),
            (3500, "IBM", Some(24.0)),
            (3500, "YAH", Some(1.0)),
            (4900, "IBM", Some(26.0)),
            (4900, "YAH", Some(2.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S.win:length_batch(2)",
        &[
            (1500, "IBM", Some(25.0)),
            (1500, "MSFT", Some(25.0)),
            (3500, "IBM", Some(28.0)),
            (3500, "YAH", Some(28.0)),
            (4900, "IBM", Some(25.0)),
            (4900, "YAH", Some(25.0)),
        ],
    ),
];

/// `SELECT RSTREAM` without aggregates under an output policy (worked out by hand from [`REMOVED`]'s rows): the
/// rows leaving go to the policy as the insert stream's would, on the clock the first event started (the first
/// release, for a batch): the default `OUTPUT EVERY` releases every row that left in the interval (an expiry at a
/// tick's millisecond goes first), `LAST` the last to leave, `ALL` with `ORDER BY` the interval's rows sorted; after
/// `OUTPUT AFTER 3 sec` the rows that left before the clock started (at YAH's 2, 3.5 s, after the rows expiring
/// then) are dropped.
pub(crate) const REMOVED_PACED: [(&str, &[TraceRow]); 4] = [
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(2 sec) OUTPUT EVERY 1 sec",
        &[
            (2200, "IBM", Some(25.0)),
            (3200, "MSFT", Some(9.0)),
            (4200, "IBM", Some(24.0)),
            (4200, "YAH", Some(1.0)),
            (4200, "IBM", Some(26.0)),
            (6200, "YAH", Some(2.0)),
            (7200, "IBM", Some(22.0)),
            (7200, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:length(2) OUTPUT LAST EVERY 1 sec",
        &[(2200, "IBM", Some(24.0)), (4200, "YAH", Some(1.0)), (5200, "YAH", Some(2.0)), (6200, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:length_batch(2) OUTPUT ALL EVERY 2 sec \
         ORDER BY price",
        &[
            (2800, "MSFT", Some(9.0)),
            (2800, "IBM", Some(25.0)),
            (4800, "YAH", Some(1.0)),
            (4800, "IBM", Some(24.0)),
            (6800, "YAH", Some(2.0)),
            (6800, "IBM", Some(26.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(2 sec) OUTPUT AFTER 3 sec LAST EVERY \
         1 sec",
        &[(4500, "IBM", Some(26.0)), (5500, "YAH", Some(2.0)), (6500, "IBM", Some(22.0)), (7500, "YAH", Some(3.0))],
    ),
];

#[test]
fn select_rstream_under_an_output_policy_paces_the_rows_leaving() {
    for (statement, rows) in REMOVED_PACED {
        let got = trace_outputs(&mut engine(&trace_config(statement)), &[], 8000);
        assert_eq!(got, out(rows), "{statement}");
    }
}

#[test]
fn select_rstream_with_aggregates_gives_the_rows_before_a_change_or_those_it_lets_go() {
    for (statement, rows) in REMOVED_AGGREGATES {
        let got = trace_outputs(&mut engine(&trace_config(statement)), &[], 8000);
        assert_eq!(got, out(rows), "{statement}");
    }
}

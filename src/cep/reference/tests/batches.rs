//! Batch windows (`win:length_batch`, `std:groupwin` over batches) with and without output policies, and
//! `SELECT IRSTREAM` into a stream.

use super::*;

/// `SELECT IRSTREAM` into a stream gives what `SELECT` gives, for every kind of query over the trace: the stream and
/// its publishing take the insert stream only.
#[test]
fn select_irstream_into_a_stream_gives_the_insert_stream() {
    let statements = [SNAPSHOT, ALL_AND_FIRST[0].0, ALL_AND_FIRST[2].0, AFTER[0].0, ORDERED[2]]
        .into_iter()
        .chain(["INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(2 sec) GROUP BY symbol"]);
    for statement in statements {
        let irstream = statement.replacen("SELECT", "SELECT IRSTREAM", 1);
        assert_ne!(irstream, statement);
        let rows = trace_through(statement, &[], 10_000);
        assert!(!rows.is_empty(), "{statement}");
        assert_eq!(trace_through(&irstream, &[], 10_000), rows, "{irstream}");
    }
}

/// A length batch is released by its n-th event, which WHERE does not decide: the events failing it count towards
/// the length but give no row.
#[test]
fn a_length_batch_releases_every_n_events_filtered_by_where() {
    let statement = "INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(3) WHERE price > 5";
    let expected = out(&[
        (1500, "IBM", Some(24.0)),
        (1500, "IBM", Some(25.0)),
        (1500, "MSFT", Some(9.0)),
        (3500, "IBM", Some(26.0)),
        (5900, "IBM", Some(22.0)),
    ]);
    assert_eq!(trace_through(statement, &[], 10_000), expected);
}

/// With an ungrouped column a release gives a row per new event, each with its group's aggregates over the whole
/// batch, and HAVING filters them.
#[test]
fn a_length_batch_with_ungrouped_columns_gives_each_event_its_group_s_batch_total() {
    let statement = "INSERT INTO Out SELECT symbol, sum(price) as value, price FROM S.win:length_batch(4) GROUP BY \
        symbol HAVING sum(price) > 5";
    let expected = out(&[
        (1500, "IBM", Some(49.0)),
        (1500, "IBM", Some(49.0)),
        (1500, "MSFT", Some(9.0)),
        (4900, "IBM", Some(48.0)),
        (4900, "IBM", Some(48.0)),
    ]);
    assert_eq!(trace_through(statement, &[], 10_000), expected);
}

/// A statement over the trace's configuration with its own events, and the rows it gives until a time, in the order
/// they come out (a batch window inside `std:groupwin` below; `SELECT DISTINCT` in `distinct`).
pub(crate) type OwnEventsCase = (&'static str, &'static [TraceEvent], i64, &'static [TraceRow]);

/// Esper's `ViewGroupLengthBatch` and `ViewGroupTimeBatch` (`select irstream *`, whose insert stream these are: the
/// first's events 100 ms apart), the second with a sum per symbol worked on by hand: each symbol's batches are its
/// own, and its periods run from its own first event (S1's from 1 s, S2's from 10 s), so S1's empty release at 21 s
/// gives its null row and stops its clock, and S1's next event, at 33 s, is released on S1's grid, at 41 s.
pub(crate) const GROUPWIN_TRACES: [OwnEventsCase; 3] = [
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.std:groupwin(symbol).win:length_batch(3) ORDER BY symbol",
        &[
            (100, "S1", 1.0),
            (200, "S2", 20.0),
            (300, "S2", 21.0),
            (400, "S1", 2.0),
            (500, "S2", 22.0),
            (600, "S2", 23.0),
            (700, "S1", 3.0),
            (800, "S2", 24.0),
            (900, "S2", 25.0),
            (1000, "S1", 4.0),
            (1100, "S1", 5.0),
            (1200, "S1", 6.0),
        ],
        2000,
        &[
            (500, "S2", Some(20.0)),
            (500, "S2", Some(21.0)),
            (500, "S2", Some(22.0)),
            (700, "S1", Some(1.0)),
            (700, "S1", Some(2.0)),
            (700, "S1", Some(3.0)),
            (900, "S2", Some(23.0)),
            (900, "S2", Some(24.0)),
            (900, "S2", Some(25.0)),
            (1200, "S1", Some(4.0)),
            (1200, "S1", Some(5.0)),
            (1200, "S1", Some(6.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.std:groupwin(symbol).win:time_batch(10 sec)",
        &[(1000, "S1", 10.0), (5000, "S1", 20.0), (10_000, "S2", 30.0)],
        30_000,
        &[(11_000, "S1", Some(10.0)), (11_000, "S1", Some(20.0)), (20_000, "S2", Some(30.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.std:groupwin(symbol).win:time_batch(10 sec) GROUP BY \
         symbol",
        &[(1000, "S1", 10.0), (5000, "S1", 20.0), (10_000, "S2", 30.0), (33_000, "S1", 5.0)],
        60_000,
        &[
            (11_000, "S1", Some(30.0)),
            (20_000, "S2", Some(30.0)),
            (21_000, "S1", None),
            (30_000, "S2", None),
            (41_000, "S1", Some(5.0)),
            (51_000, "S1", None),
        ],
    ),
];

/// Statements over the trace whose aggregates run over every symbol's released batch (worked out by hand): IBM's
/// first two events go at 1.5 s, YAH's at 3.5 s, IBM's next two replace its first at 4.3 s and YAH's next two its
/// first at 5.9 s; MSFT's one event is never released. Per symbol, then over all symbols with an ungrouped column
/// (a row per new event) and fully aggregated (a row per release).
pub(crate) const GROUPWIN_TOTALS: [(&str, &[TraceRow]); 3] = [
    (
        "INSERT INTO Out SELECT symbol, avg(price) as value FROM S.std:groupwin(symbol).win:length_batch(2) GROUP BY \
         symbol",
        &[(1500, "IBM", Some(24.5)), (3500, "YAH", Some(1.5)), (4300, "IBM", Some(24.0)), (5900, "YAH", Some(2.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.std:groupwin(symbol).win:length_batch(2)",
        &[
            (1500, "IBM", Some(49.0)),
            (1500, "IBM", Some(49.0)),
            (3500, "YAH", Some(52.0)),
            (3500, "YAH", Some(52.0)),
            (4300, "IBM", Some(51.0)),
            (4300, "IBM", Some(51.0)),
            (5900, "YAH", Some(52.0)),
            (5900, "YAH", Some(52.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'all' as symbol, avg(price) as value FROM S.std:groupwin(symbol).win:length_batch(2)",
        &[(1500, "all", Some(24.5)), (3500, "all", Some(13.0)), (4300, "all", Some(12.75)), (5900, "all", Some(13.0))],
    ),
];

#[test]
fn esper_groupwin_batch_traces() {
    for (statement, events, until, rows) in GROUPWIN_TRACES {
        let got = outputs_of(&mut engine(&trace_config(statement)), events, until);
        assert_eq!(got, out(rows), "{statement}");
    }
}

#[test]
fn aggregates_over_groupwin_batches_run_over_every_key_s_released_batch() {
    for (statement, rows) in GROUPWIN_TOTALS {
        let got = trace_outputs(&mut engine(&trace_config(statement)), &[], 10_000);
        assert_eq!(got, out(rows), "{statement}");
    }
}

/// Output policies on batch windows without aggregates over the trace (worked out by hand), each release a batch of
/// rows for the policy. A length batch of two releases at 0.8, 1.5, 3.5 and 4.9 s, whose first rows start the clock
/// (ticks at 1.8, 2.8, ...): the default and `ALL` let out every row at the tick, `LAST` the interval's last, `FIRST`
/// the interval's first release whole, as it comes, and `SNAPSHOT` the view's contents (the last batch) at every tick
/// (to 7.8 s here). A time batch of a second releases at 1.2, 2.2, ... s; its clock starts at its first rows (1.2 s),
/// so its ticks fall with its releases, which go first and reach the tick. Per symbol, the releases are IBM's at 1.5
/// and 4.3 s and YAH's at 3.5 and 5.9 s; YAH's at 3.5 s comes after the tick due then. With `AFTER 2 sec`, the releases
/// before 2 s are dropped and the clock starts at 3.5 s. Fully aggregated, per symbol, the releases touch IBM and MSFT
/// at 0.8 s, IBM, YAH and MSFT (emptied) at 1.5 s, IBM and YAH at 3.5 and 4.9 s: the default keeps each release's rows,
/// `LAST` makes each touched group's row at the tick, `ALL` every known group's (MSFT's null once), `SNAPSHOT` those in
/// the view, `FIRST` lets a group's row out when none of its group did in the last second; without groups, an interval
/// with no release gives the row as it stands, under `LAST` too; with `AFTER 2 sec` the clock starts at 3.5 s and its
/// first tick takes the changes from before (MSFT's, which `HAVING` drops with YAH's). With an ungrouped column and no
/// groups, each release's rows (one per new event, with the batch's sum) are a batch for the policy, as rows without
/// aggregates are; grouped, the default keeps every release's rows, and `SNAPSHOT` makes each row of the view with its
/// group's aggregates (a length batch of four: IBM's sum 49 at 1.5 s, 48 at 4.9 s, when MSFT is emptied). Grouped with
/// an ungrouped column, `sum(price) - price` tells which event a row is of: `LAST` keeps each group's row of its last
/// new event (IBM24's 25 at 1.5 s, IBM22's 26 at 4.9 s; MSFT's 0 stays), in the order the groups first had one; `ALL`
/// keeps every new event's row, then a row of each group that lost rows from its last new event (MSFT's null), and at
/// the ticks between releases a row of every group known, until MSFT is forgotten; `FIRST` lets out a group's first row
/// in a second, of the new events and then of the replaced ones (MSFT's null at 4.9 s), and with `HAVING` only rows
/// that pass take a group's turn; before `AFTER`'s time `LAST` keeps its rows for the first tick. A time batch of a
/// second under `LAST EVERY 2 sec` (its clock from 1.2 s) releases IBM 25, MSFT 9; IBM 50 and YAH 1; nothing new at 3.2
/// s; YAH 2; IBM 22 and YAH 3; YAH 1.
pub(crate) const BATCH_PACED: [(&str, &[TraceRow]); 26] = [
    ("INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(2) OUTPUT EVERY 1 sec", PAIRS_EVERY),
    ("INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(2) OUTPUT ALL EVERY 1 sec", PAIRS_EVERY),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(2) OUTPUT LAST EVERY 1 sec",
        &[(1800, "YAH", Some(1.0)), (3800, "YAH", Some(2.0)), (5800, "YAH", Some(3.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(2) OUTPUT FIRST EVERY 1 sec",
        &[
            (800, "IBM", Some(25.0)),
            (800, "MSFT", Some(9.0)),
            (3500, "IBM", Some(26.0)),
            (3500, "YAH", Some(2.0)),
            (4900, "IBM", Some(22.0)),
            (4900, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(2) OUTPUT SNAPSHOT EVERY 1 sec ORDER BY \
         price",
        &[(2800, "IBM", Some(26.0)), (4800, "IBM", Some(22.0)), (6800, "YAH", Some(1.0)), (7800, "YAH", Some(1.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:time_batch(1 sec) OUTPUT EVERY 1 sec",
        &[
            (2200, "IBM", Some(25.0)),
            (2200, "MSFT", Some(9.0)),
            (2200, "IBM", Some(24.0)),
            (2200, "YAH", Some(1.0)),
            (2200, "IBM", Some(26.0)),
            (4200, "YAH", Some(2.0)),
            (5200, "IBM", Some(22.0)),
            (5200, "YAH", Some(3.0)),
            (6200, "YAH", Some(1.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.std:groupwin(symbol).win:length_batch(2) OUTPUT LAST \
         EVERY 2 sec",
        &[(3500, "IBM", Some(24.0)), (5500, "IBM", Some(22.0)), (7500, "YAH", Some(1.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(2) OUTPUT AFTER 2 sec EVERY 1 sec",
        &[(4500, "IBM", Some(26.0)), (4500, "YAH", Some(2.0)), (5500, "IBM", Some(22.0)), (5500, "YAH", Some(3.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(2) GROUP BY symbol OUTPUT EVERY 1 \
         sec",
        &[
            (1800, "IBM", Some(25.0)),
            (1800, "MSFT", Some(9.0)),
            (1800, "IBM", Some(24.0)),
            (1800, "YAH", Some(1.0)),
            (1800, "MSFT", None),
            (3800, "IBM", Some(26.0)),
            (3800, "YAH", Some(2.0)),
            (5800, "IBM", Some(22.0)),
            (5800, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(2) GROUP BY symbol OUTPUT LAST \
         EVERY 1 sec ORDER BY symbol",
        &[
            (1800, "IBM", Some(24.0)),
            (1800, "MSFT", None),
            (1800, "YAH", Some(1.0)),
            (3800, "IBM", Some(26.0)),
            (3800, "YAH", Some(2.0)),
            (5800, "IBM", Some(22.0)),
            (5800, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(2) GROUP BY symbol OUTPUT ALL \
         EVERY 1 sec ORDER BY symbol",
        &[
            (1800, "IBM", Some(24.0)),
            (1800, "MSFT", None),
            (1800, "YAH", Some(1.0)),
            (2800, "IBM", Some(24.0)),
            (2800, "YAH", Some(1.0)),
            (3800, "IBM", Some(26.0)),
            (3800, "YAH", Some(2.0)),
            (4800, "IBM", Some(26.0)),
            (4800, "YAH", Some(2.0)),
            (5800, "IBM", Some(22.0)),
            (5800, "YAH", Some(3.0)),
            (6800, "IBM", Some(22.0)),
            (6800, "YAH", Some(3.0)),
            (7800, "IBM", Some(22.0)),
            (7800, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(2) GROUP BY symbol OUTPUT \
         SNAPSHOT EVERY 1 sec ORDER BY symbol",
        &[(2800, "IBM", Some(24.0)), (4800, "IBM", Some(26.0)), (6800, "YAH", Some(3.0)), (7800, "YAH", Some(3.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(2) GROUP BY symbol OUTPUT FIRST \
         EVERY 1 sec",
        &[
            (800, "IBM", Some(25.0)),
            (800, "MSFT", Some(9.0)),
            (1500, "YAH", Some(1.0)),
            (3500, "IBM", Some(26.0)),
            (3500, "YAH", Some(2.0)),
            (4900, "IBM", Some(22.0)),
            (4900, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'all' as symbol, sum(price) as value FROM S.win:length_batch(2) OUTPUT EVERY 1 sec",
        &[
            (1800, "all", Some(34.0)),
            (1800, "all", Some(25.0)),
            (2800, "all", Some(25.0)),
            (3800, "all", Some(28.0)),
            (4800, "all", Some(28.0)),
            (5800, "all", Some(25.0)),
            (6800, "all", Some(25.0)),
            (7800, "all", Some(25.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(2) GROUP BY symbol HAVING \
         sum(price) > 20 OUTPUT AFTER 2 sec LAST EVERY 1 sec ORDER BY symbol",
        &[(4500, "IBM", Some(26.0)), (5500, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(2) OUTPUT LAST EVERY 1 sec",
        &[(1800, "YAH", Some(25.0)), (3800, "YAH", Some(28.0)), (5800, "YAH", Some(25.0))],
    ),
    (
        "INSERT INTO Out SELECT 'ALL' as symbol, sum(price) as value FROM S.win:length_batch(2) OUTPUT LAST EVERY 1 sec",
        &[
            (1800, "ALL", Some(25.0)),
            (2800, "ALL", Some(25.0)),
            (3800, "ALL", Some(28.0)),
            (4800, "ALL", Some(28.0)),
            (5800, "ALL", Some(25.0)),
            (6800, "ALL", Some(25.0)),
            (7800, "ALL", Some(25.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:length_batch(2) OUTPUT FIRST EVERY 1 sec",
        &[
            (800, "IBM", Some(34.0)),
            (800, "MSFT", Some(34.0)),
            (3500, "IBM", Some(28.0)),
            (3500, "YAH", Some(28.0)),
            (4900, "IBM", Some(25.0)),
            (4900, "YAH", Some(25.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:length_batch(4) GROUP BY symbol OUTPUT \
         EVERY 1 sec",
        &[
            (2500, "IBM", Some(24.0)),
            (2500, "MSFT", Some(0.0)),
            (2500, "IBM", Some(25.0)),
            (2500, "YAH", Some(0.0)),
            (5500, "IBM", Some(22.0)),
            (5500, "YAH", Some(3.0)),
            (5500, "IBM", Some(26.0)),
            (5500, "YAH", Some(2.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:length_batch(4) GROUP BY symbol OUTPUT \
         SNAPSHOT EVERY 1 sec",
        &[
            (2500, "IBM", Some(23.0)),
            (3500, "IBM", Some(23.0)),
            (4500, "IBM", Some(23.0)),
            (4500, "YAH", Some(-1.0)),
            (4500, "IBM", Some(27.0)),
            (6500, "YAH", Some(4.0)),
            (7500, "YAH", Some(4.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:length_batch(4) GROUP BY symbol OUTPUT \
         LAST EVERY 1 sec",
        &[
            (2500, "IBM", Some(25.0)),
            (2500, "MSFT", Some(0.0)),
            (2500, "YAH", Some(0.0)),
            (5500, "IBM", Some(26.0)),
            (5500, "YAH", Some(2.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:length_batch(4) GROUP BY symbol OUTPUT \
         ALL EVERY 1 sec ORDER BY symbol",
        &[
            (2500, "IBM", Some(24.0)),
            (2500, "IBM", Some(25.0)),
            (2500, "MSFT", Some(0.0)),
            (2500, "YAH", Some(0.0)),
            (3500, "IBM", Some(25.0)),
            (3500, "MSFT", Some(0.0)),
            (3500, "YAH", Some(0.0)),
            (4500, "IBM", Some(25.0)),
            (4500, "MSFT", Some(0.0)),
            (4500, "YAH", Some(0.0)),
            (5500, "IBM", Some(22.0)),
            (5500, "IBM", Some(26.0)),
            (5500, "IBM", Some(26.0)),
            (5500, "MSFT", None),
            (5500, "YAH", Some(3.0)),
            (5500, "YAH", Some(2.0)),
            (5500, "YAH", Some(2.0)),
            (6500, "IBM", Some(26.0)),
            (6500, "YAH", Some(2.0)),
            (7500, "IBM", Some(26.0)),
            (7500, "YAH", Some(2.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:length_batch(4) GROUP BY symbol OUTPUT \
         FIRST EVERY 1 sec",
        &[
            (1500, "IBM", Some(24.0)),
            (1500, "MSFT", Some(0.0)),
            (1500, "YAH", Some(0.0)),
            (4900, "IBM", Some(22.0)),
            (4900, "YAH", Some(3.0)),
            (4900, "MSFT", None),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:length_batch(4) GROUP BY symbol HAVING \
         sum(price) > 20 OUTPUT FIRST EVERY 1 sec",
        &[(1500, "IBM", Some(24.0)), (4900, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) - price as value FROM S.win:length_batch(4) GROUP BY symbol OUTPUT \
         AFTER 2 sec LAST EVERY 1 sec",
        &[(5900, "IBM", Some(26.0)), (5900, "MSFT", Some(0.0)), (5900, "YAH", Some(2.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value, price FROM S.win:time_batch(1 sec) GROUP BY symbol OUTPUT \
         LAST EVERY 2 sec",
        &[
            (3200, "IBM", Some(50.0)),
            (3200, "MSFT", Some(9.0)),
            (3200, "YAH", Some(1.0)),
            (5200, "YAH", Some(3.0)),
            (5200, "IBM", Some(22.0)),
            (7200, "YAH", Some(1.0)),
        ],
    ),
];

/// The default and `ALL` rows of [`BATCH_PACED`]'s length batch.
const PAIRS_EVERY: &[TraceRow] = &[
    (1800, "IBM", Some(25.0)),
    (1800, "MSFT", Some(9.0)),
    (1800, "IBM", Some(24.0)),
    (1800, "YAH", Some(1.0)),
    (3800, "IBM", Some(26.0)),
    (3800, "YAH", Some(2.0)),
    (5800, "IBM", Some(22.0)),
    (5800, "YAH", Some(3.0)),
];

#[test]
fn output_policies_pace_the_releases_of_batch_windows() {
    for (statement, rows) in BATCH_PACED {
        let got = trace_outputs(&mut engine(&trace_config(statement)), &[], 8000);
        assert_eq!(got, out(rows), "{statement}");
    }
}

//! `SELECT DISTINCT`: Esper's `TestDistinct` cases that fall in the subset, their `output every 3 events` read as a
//! period of a second, and cases the semantics give (`getDistinctByProp` over each update, or each release, alone):
//! Esper's `SupportBean` (`theString`, `intPrimitive`) is `S` (`symbol`, `price`).

use super::*;

/// `(statement, events, until, rows in the order they come out)`: the dataflow's tests run them too.
pub(crate) const DISTINCT_CASES: [OwnEventsCase; 8] = [
    // `testBatchWindow`'s first half: each release is one update, its repeats dropped.
    (
        "INSERT INTO Out SELECT DISTINCT symbol, price as value FROM S.win:length_batch(3)",
        &[
            (100, "E1", 1.0),
            (200, "E1", 1.0),
            (300, "E2", 2.0),
            (400, "E2", 2.0),
            (500, "E1", 1.0),
            (600, "E2", 2.0),
            (700, "E2", 3.0),
            (800, "E2", 3.0),
            (900, "E2", 3.0),
        ],
        2000,
        &[
            (300, "E1", Some(1.0)),
            (300, "E2", Some(2.0)),
            (600, "E2", Some(2.0)),
            (600, "E1", Some(1.0)),
            (900, "E2", Some(3.0)),
        ],
    ),
    // Its second half: a row per event, compared after the aggregates; the empty next release gives nothing.
    (
        "INSERT INTO Out SELECT DISTINCT symbol, first(price) as value FROM S.win:time_batch(1 sec)",
        &[(0, "E1", 1.0), (0, "E2", 2.0)],
        2500,
        &[(1000, "E1", Some(1.0)), (1000, "E2", Some(1.0))],
    ),
    // `testOutputSimpleColumn`: an event at a time is one row at a time, given again when it repeats.
    (
        "INSERT INTO Out SELECT DISTINCT symbol, price as value FROM S.win:keepall()",
        &[
            (100, "E1", 1.0),
            (200, "E1", 1.0),
            (300, "E2", 1.0),
            (400, "E1", 2.0),
            (500, "E2", 2.0),
            (600, "E2", 2.0),
            (700, "E1", 1.0),
        ],
        1000,
        &[
            (100, "E1", Some(1.0)),
            (200, "E1", Some(1.0)),
            (300, "E2", Some(1.0)),
            (400, "E1", Some(2.0)),
            (500, "E2", Some(2.0)),
            (600, "E2", Some(2.0)),
            (700, "E1", Some(1.0)),
        ],
    ),
    // `testOutputLimitEveryColumn` with a period: each release is compared alone.
    (
        "INSERT INTO Out SELECT DISTINCT symbol, price as value FROM S OUTPUT EVERY 1 sec",
        &[
            (100, "E1", 1.0),
            (200, "E1", 1.0),
            (300, "E2", 2.0),
            (1200, "E2", 2.0),
            (1300, "E1", 1.0),
            (1400, "E2", 2.0),
            (2200, "E2", 3.0),
            (2300, "E2", 3.0),
            (2400, "E2", 3.0),
        ],
        3500,
        &[
            (1100, "E1", Some(1.0)),
            (1100, "E2", Some(2.0)),
            (2100, "E2", Some(2.0)),
            (2100, "E1", Some(1.0)),
            (3100, "E2", Some(3.0)),
        ],
    ),
    // `testOutputRateSnapshotColumn` with a period, and a length window holding every event (a snapshot of
    // `win:keepall()` is refused): the whole window compared at each tick, in ORDER BY's order.
    (
        "INSERT INTO Out SELECT DISTINCT symbol, price as value FROM S.win:length(100) OUTPUT SNAPSHOT EVERY 1 sec \
         ORDER BY symbol",
        &[
            (100, "E1", 1.0),
            (200, "E1", 1.0),
            (300, "E2", 2.0),
            (1200, "E2", 2.0),
            (1300, "E1", 1.0),
            (1400, "E2", 2.0),
            (2200, "E3", 3.0),
            (2300, "E1", 1.0),
            (2400, "E2", 2.0),
        ],
        3500,
        &[
            (1100, "E1", Some(1.0)),
            (1100, "E2", Some(2.0)),
            (2100, "E1", Some(1.0)),
            (2100, "E2", Some(2.0)),
            (3100, "E1", Some(1.0)),
            (3100, "E2", Some(2.0)),
            (3100, "E3", Some(3.0)),
        ],
    ),
    // The remove stream of a release, the batch before it, compared as Esper compares a release's old rows.
    (
        "INSERT INTO Out SELECT RSTREAM DISTINCT symbol, price as value FROM S.win:length_batch(3)",
        &[(100, "E1", 1.0), (200, "E1", 1.0), (300, "E2", 2.0), (400, "E3", 3.0), (500, "E3", 3.0), (600, "E3", 3.0)],
        1000,
        &[(600, "E1", Some(1.0)), (600, "E2", Some(2.0))],
    ),
    // Two matches completed by one event are one update: equal rows once.
    (
        "INSERT INTO Out SELECT DISTINCT b.symbol as symbol, b.price as value FROM pattern [every a=S(price > 5) -> \
         b=S(symbol = a.symbol, price < 5)]",
        &[(100, "IBM", 10.0), (200, "IBM", 11.0), (300, "MSFT", 12.0), (400, "IBM", 1.0), (500, "MSFT", 2.0)],
        1000,
        &[(400, "IBM", Some(1.0)), (500, "MSFT", Some(2.0))],
    ),
    // Two events of one millisecond are two updates, each compared alone: their equal rows both go on.
    (
        "INSERT INTO Out SELECT DISTINCT 'all' as symbol, max(price) as value FROM S.win:time(1 sec) GROUP BY symbol",
        &[(100, "A", 5.0), (100, "B", 5.0), (200, "C", 7.0)],
        1500,
        &[(100, "all", Some(5.0)), (100, "all", Some(5.0)), (200, "all", Some(7.0))],
    ),
];

/// Each case's rows, in the order they come out.
#[test]
fn esper_distinct_cases_give_their_rows() {
    for (statement, events, until, rows) in DISTINCT_CASES {
        let got = outputs_of(&mut engine(&trace_config(statement)), events, until);
        assert_eq!(got, out(rows), "{statement}");
    }
}

/// `testBatchWindowInsertInto`: the rows a statement reading the stream gets are the distinct ones.
#[test]
fn a_distinct_release_inserts_each_row_once() {
    let writer = "INSERT INTO Mid SELECT DISTINCT symbol, price FROM S.win:length_batch(3)";
    let reader = "INSERT INTO Out SELECT symbol, price as value FROM Mid";
    let config = trace_config(writer).replace(r#""statements":["#, &format!(r#""statements":["{reader}","#));
    let events =
        [(100, "E1", 1.0), (200, "E1", 1.0), (300, "E1", 1.0), (400, "E2", 2.0), (500, "E3", 3.0), (600, "E2", 2.0)];
    let got = outputs_of(&mut engine(&config), &events, 1000);
    assert_eq!(got, out(&[(300, "E1", Some(1.0)), (600, "E2", Some(2.0)), (600, "E3", Some(3.0))]));
}

/// Rows that differ in one column are both kept; `NaN` equals `NaN`, as Java's `Double.equals` has it.
#[test]
fn rows_equal_but_for_one_column_are_both_kept_and_nan_equals_nan() {
    let statement = "INSERT INTO Out SELECT DISTINCT symbol, price as value FROM S.win:length_batch(4)";
    let events = [(100, "E1", f64::NAN), (200, "E1", f64::NAN), (300, "E1", 0.0), (400, "E1", -0.0)];
    let got = outputs_of(&mut engine(&trace_config(statement)), &events, 1000);
    let values: Vec<String> = got.iter().map(|(_, _, v)| format!("{v:?}")).collect();
    assert_eq!(values, ["Some(NaN)", "Some(0.0)", "Some(-0.0)"]);
}

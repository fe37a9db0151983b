//! Constructs the runtime refuses by name, and `ORDER BY` over patterns, policies and windows.

use super::*;

#[test]
fn constructs_the_runtime_does_not_run_are_refused_by_name() {
    for (statement, construct) in [
        (
            "INSERT INTO Out SELECT symbol, price as value, sum(price) as total FROM S OUTPUT SNAPSHOT EVERY 1 sec",
            "OUTPUT SNAPSHOT of a stream without a data window (Esper's is always empty)",
        ),
        (
            "INSERT INTO Out SELECT symbol, price as value FROM S OUTPUT SNAPSHOT EVERY 1 sec",
            "OUTPUT SNAPSHOT of a stream without a data window (Esper's is always empty)",
        ),
        (
            "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S] OUTPUT SNAPSHOT \
             EVERY 1 sec",
            "OUTPUT SNAPSHOT of a pattern or a join not fully aggregated",
        ),
        (
            "INSERT INTO Out SELECT a.symbol as symbol, sum(a.price) - a.price as value FROM pattern [every a=S] GROUP \
             BY a.symbol OUTPUT SNAPSHOT EVERY 1 sec",
            "OUTPUT SNAPSHOT of a pattern or a join not fully aggregated",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S",
            "SELECT RSTREAM of a stream without a data window (its remove stream is empty)",
        ),
        (
            "INSERT INTO Out SELECT symbol, price as value FROM S.std:firstunique(symbol) OUTPUT SNAPSHOT EVERY 1 sec",
            "OUTPUT SNAPSHOT of a view that keeps its rows for good (`win:keepall`, a first-event view)",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.std:groupwin(symbol).win:firstlength(2)",
            "SELECT RSTREAM of a view no row leaves (`win:keepall`, a first-event view)",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:keepall()",
            "SELECT RSTREAM of a view no row leaves (`win:keepall`, a first-event view)",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S",
            "SELECT RSTREAM of a stream without a data window (its remove stream is empty)",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(1 sec) OUTPUT FIRST EVERY 1 sec",
            FIRST_REMOVED,
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, sum(price) - price as value FROM S.win:time(1 sec) GROUP BY symbol \
             OUTPUT FIRST EVERY 1 sec",
            FIRST_REMOVED,
        ),
        (
            "INSERT INTO Out SELECT RSTREAM 'ALL' as symbol, sum(price) as value FROM S.win:time(1 sec) OUTPUT FIRST \
             EVERY 1 sec",
            FIRST_REMOVED,
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(1 sec) OUTPUT SNAPSHOT EVERY 1 sec",
            "SELECT RSTREAM under OUTPUT SNAPSHOT (a snapshot has no remove stream)",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S.win:length_batch(2) GROUP BY symbol \
             OUTPUT LAST EVERY 1 sec",
            "SELECT RSTREAM with aggregates under an OUTPUT policy over a batch window",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM a.symbol as symbol, a.price as value FROM pattern [every a=S]",
            "SELECT RSTREAM of a pattern or a join (neither has a remove stream)",
        ),
        (
            r#"INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(1 sec)","INSERT INTO Again SELECT symbol FROM Out"#,
            "SELECT RSTREAM into Out, which statement 2 reads (it would get the insert stream)",
        ),
    ] {
        let config: CepConfig = serde_json::from_str(&trace_config(statement)).expect("test configuration");
        let error = Reference::new(&plan_config(&config, true).expect("plans"), 0).unwrap_err();
        assert_eq!(error.to_string(), format!("statement 1: {construct} is not supported"));
    }
}

/// A pattern whose one event completes two matches, ordered by a value the matches have in the other order: the
/// matches of one event reach the statement together and `ORDER BY` sorts them (at 1.5 s, the instance IBM at 25
/// began before the one at 24; Esper's `ResultSetOrderByMultiDelivery`, ESPER-409).
pub(crate) const ORDERED_MATCHES: (&str, &[TraceRow]) = (
    "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S(symbol = 'IBM') -> \
     S(symbol = 'YAH')] ORDER BY value",
    &[(1500, "IBM", Some(24.0)), (1500, "IBM", Some(25.0)), (3500, "IBM", Some(26.0)), (4900, "IBM", Some(22.0))],
);

#[test]
fn order_by_on_a_pattern_sorts_the_matches_of_one_event() {
    let (statement, rows) = ORDERED_MATCHES;
    assert_eq!(trace_outputs(&mut engine(&trace_config(statement)), &[], 7200), out(rows));
}

/// Patterns under an output policy with `ORDER BY`, as Esper's processor sorts what the policy hands it: every row
/// of an interval together (ticks from the first row, at 0.2 s: 2.2, 4.2 and 6.2 s), by value descending and by
/// symbol then value; the interval's last row alone; and the first match of each interval at once.
pub(crate) const PACED_ORDERED: [(&str, &[TraceRow]); 4] = [
    (
        "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S] OUTPUT EVERY 2 sec ORDER \
         BY value DESC",
        &[
            (2200, "IBM", Some(26.0)),
            (2200, "IBM", Some(25.0)),
            (2200, "IBM", Some(24.0)),
            (2200, "MSFT", Some(9.0)),
            (2200, "YAH", Some(1.0)),
            (4200, "YAH", Some(2.0)),
            (6200, "IBM", Some(22.0)),
            (6200, "YAH", Some(3.0)),
            (6200, "YAH", Some(1.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S] OUTPUT ALL EVERY 2 sec \
         ORDER BY a.symbol, a.price",
        &[
            (2200, "IBM", Some(24.0)),
            (2200, "IBM", Some(25.0)),
            (2200, "IBM", Some(26.0)),
            (2200, "MSFT", Some(9.0)),
            (2200, "YAH", Some(1.0)),
            (4200, "YAH", Some(2.0)),
            (6200, "IBM", Some(22.0)),
            (6200, "YAH", Some(1.0)),
            (6200, "YAH", Some(3.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S] OUTPUT LAST EVERY 2 sec \
         ORDER BY value",
        &[(2200, "IBM", Some(26.0)), (4200, "YAH", Some(2.0)), (6200, "YAH", Some(1.0))],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S] OUTPUT FIRST EVERY 2 sec \
         ORDER BY value",
        &[(200, "IBM", Some(25.0)), (3500, "YAH", Some(2.0)), (4300, "IBM", Some(22.0))],
    ),
];

#[test]
fn rows_a_pattern_s_policy_releases_are_sorted_by_order_by() {
    for (statement, rows) in PACED_ORDERED {
        assert_eq!(trace_outputs(&mut engine(&trace_config(statement)), &[], 7200), out(rows), "{statement}");
        // The keys the policy sorted by are gone from what it released.
        let mut e = engine(&trace_config(statement));
        let event = |symbol: &str, price: f64| row(&[("symbol", text(symbol)), ("price", Val::Double(price))]);
        let mut made: Vec<Output> = TRACE_EVENTS.iter().flat_map(|(ms, s, p)| e.push(*ms, "S", event(s, *p))).collect();
        made.extend(e.advance(7200));
        assert!(made.iter().all(|o| o.row.keys().map(|k| &**k).eq(["symbol", "value"])), "{statement}: {made:?}");
    }
}

/// The statements of [`rows_sorted_by_order_by_come_out_in_its_order`]: output ticks, both ways, and a batch release.
pub(crate) const ORDERED: [&str; 3] = [
    "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT LAST EVERY 1 sec \
        ORDER BY value DESC",
    "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT LAST EVERY 1 sec \
        ORDER BY value",
    "INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(4) ORDER BY symbol, price DESC",
];

/// An output tick's rows by their total, descending (a null total last) and ascending (first), and a batch's by
/// symbol and then price descending, ties of both keys in arrival order.
#[test]
fn rows_sorted_by_order_by_come_out_in_its_order() {
    let [tick, ascending, batch] = ORDERED;
    let expected = out(&[
        (1200, "IBM", Some(25.0)),
        (1200, "MSFT", Some(9.0)),
        (2200, "IBM", Some(75.0)),
        (2200, "YAH", Some(1.0)),
        (4200, "YAH", Some(3.0)),
        (5200, "IBM", Some(97.0)),
        (5200, "YAH", Some(6.0)),
        (6200, "IBM", Some(72.0)),
        (6200, "YAH", Some(7.0)),
        (7200, "IBM", Some(48.0)),
        (7200, "YAH", Some(6.0)),
        (7200, "MSFT", None),
    ]);
    assert_eq!(trace_outputs(&mut engine(&trace_config(tick)), &[], 7200), expected);
    let mut ascending_expected = expected;
    for tick in ascending_expected.chunk_by_mut(|a, b| a.0 == b.0) {
        tick.reverse();
    }
    assert_eq!(trace_outputs(&mut engine(&trace_config(ascending)), &[], 7200), ascending_expected);
    let expected = out(&[
        (1500, "IBM", Some(25.0)),
        (1500, "IBM", Some(24.0)),
        (1500, "MSFT", Some(9.0)),
        (1500, "YAH", Some(1.0)),
        (4900, "IBM", Some(26.0)),
        (4900, "IBM", Some(22.0)),
        (4900, "YAH", Some(3.0)),
        (4900, "YAH", Some(2.0)),
    ]);
    assert_eq!(trace_outputs(&mut engine(&trace_config(batch)), &[], 10_000), expected);
}

/// Why `SELECT RSTREAM` under `OUTPUT FIRST` is refused but for a fully aggregated query with `GROUP BY`.
const FIRST_REMOVED: &str = "SELECT RSTREAM under OUTPUT FIRST without GROUP BY or with columns not aggregated";

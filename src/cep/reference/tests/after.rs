//! `OUTPUT AFTER`, patterns that start with their statement, and parts of patterns that turn false.

use super::*;

/// `OUTPUT AFTER 3 sec` over the trace (statements created at 0), worked out by hand from Esper's
/// `OutputProcessViewConditionDefault`: the clock starts at the first event at or after 3 s (YAH at 3.5 s), so ticks
/// fall at 4.5, 5.5 and 6.5 s. The aggregating statement's first tick gives every group changed since the start, as
/// Esper keeps the changes before that time for it; the statements without aggregates drop the rows before it.
pub(crate) const AFTER: [(&str, &[TraceRow]); 3] = [
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT AFTER \
         3 sec LAST EVERY 1 sec",
        &[
            (4500, "IBM", Some(97.0)),
            (4500, "MSFT", Some(9.0)),
            (4500, "YAH", Some(3.0)),
            (5500, "YAH", Some(6.0)),
            (6500, "IBM", Some(72.0)),
            (6500, "MSFT", None),
            (6500, "YAH", Some(7.0)),
            (7500, "IBM", Some(48.0)),
            (7500, "YAH", Some(6.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) OUTPUT AFTER 3 sec EVERY 1 sec",
        &[(4500, "IBM", Some(22.0)), (4500, "YAH", Some(2.0)), (5500, "YAH", Some(3.0)), (6500, "YAH", Some(1.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S OUTPUT AFTER 3 sec FIRST EVERY 1 sec",
        &[(3500, "YAH", Some(2.0)), (4900, "YAH", Some(3.0)), (5900, "YAH", Some(1.0))],
    ),
];

#[test]
fn output_after_starts_the_clock_at_the_first_event_past_its_time() {
    assert_traces(&AFTER, 8000);
}

/// `OUTPUT AFTER` alone: as Esper's `ResultSetOutputLimitAfter` (`ResultSetDirectTimePeriod`: created at 0, `output
/// after 20 seconds`), events before 20 s give nothing and those at 20 and 21 s come out as they arrive (here after
/// the trace's events, so the first at 6 s rather than 1 ms); an aggregating query over the trace after 3 s, its
/// sums counting the rows before then; and a pattern, a time batch and a length batch, whose rows before their time
/// are the ones [`order_by_on_a_pattern_keeps_the_order_of_its_matches`],
/// [`a_time_batch_releases_each_period_per_group_and_stops_when_empty`] and
/// [`a_length_batch_releases_every_n_events_filtered_by_where`] give (worked out by hand).
pub(crate) const QUIET: [(&str, &[TraceEvent], &[TraceRow]); 5] = [
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S(symbol LIKE 'E%') OUTPUT AFTER 20 sec",
        &[(6000, "E1", 1.0), (12_000, "E2", 2.0), (19_999, "E3", 3.0), (20_000, "E4", 4.0), (21_000, "E5", 5.0)],
        &[(20_000, "E4", Some(4.0)), (21_000, "E5", Some(5.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT AFTER 3 sec",
        &[],
        &[(3500, "YAH", Some(3.0)), (4300, "IBM", Some(97.0)), (4900, "YAH", Some(6.0)), (5900, "YAH", Some(7.0))],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S(symbol = 'IBM') -> \
         S(symbol = 'YAH')] OUTPUT AFTER 2 sec",
        &[],
        &[(3500, "IBM", Some(26.0)), (4900, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, sum(price) as value FROM S.win:time_batch(1 sec) GROUP BY symbol OUTPUT AFTER \
         3 sec",
        &[(9700, "YAH", 5.0)],
        &[
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
        ],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:length_batch(3) WHERE price > 5 OUTPUT AFTER 2 sec",
        &[],
        &[(3500, "IBM", Some(26.0)), (5900, "IBM", Some(22.0))],
    ),
];

#[test]
fn output_after_alone_drops_the_rows_of_the_first_period() {
    for (statement, later, rows) in QUIET {
        assert_eq!(trace_through(statement, later, 30_000), out(rows), "{statement}");
    }
}

/// Patterns start when their statement is created (at 0 here), as Esper's do: a pattern of timers alone fires with
/// no event, every 2 s; one counting its matches every 3 s; a leading timer lets through only the trace's events
/// after 2 s (IBM at 2.1 and 4.3 s, not at 0.2 and 1.5 s); a timer alone, once; and one that `OUTPUT LAST EVERY`
/// paces, its clock started by its first row (at 1.5 s; ticks at 4.5 and 7.5 s).
pub(crate) const STARTED: [(&str, &[TraceRow]); 5] = [
    (
        "INSERT INTO Out SELECT 'tick' as symbol, 0.0 as value FROM pattern [every timer:interval(2 sec)]",
        &[(2000, "tick", Some(0.0)), (4000, "tick", Some(0.0)), (6000, "tick", Some(0.0)), (8000, "tick", Some(0.0))],
    ),
    (
        "INSERT INTO Out SELECT 'n' as symbol, count(*) as value FROM pattern [every timer:interval(3 sec)]",
        &[(3000, "n", Some(1.0)), (6000, "n", Some(2.0))],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [timer:interval(2 sec) -> every \
         a=S(price > 20)]",
        &[(2100, "IBM", Some(26.0)), (4300, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT 'once' as symbol, 0.0 as value FROM pattern [timer:interval(2500 msec)]",
        &[(2500, "once", Some(0.0))],
    ),
    (
        "INSERT INTO Out SELECT 'paced' as symbol, 0.0 as value FROM pattern [every timer:interval(1500 msec)] \
         OUTPUT LAST EVERY 3 sec",
        &[(4500, "paced", Some(0.0)), (7500, "paced", Some(0.0))],
    ),
];

#[test]
fn patterns_start_with_their_statement() {
    assert_traces(&STARTED, 8000);
}

/// Patterns whose parts turn false, as Esper's state nodes pass it up (`evaluateFalse`), over the trace and IBM at 6
/// and 6.5 s. A quiet second with no IBM, `every` restarting it whenever IBM ends it: at 1.2, 3.1, 4.1 and 5.3 s,
/// then 7.5 s. Each IBM within a second of the last restart, the `within` ending false and the `every` restarting
/// it: every IBM. An `every` inside an `and`: each IBM so far with the first YAH, then each later IBM with it. An
/// `every` over an `and` of `not`s, true as it starts, quits it rather than looping: nothing. A `not` alone, true at
/// the start (0 s) until MSFT arrives. `a -> not S` matches at `a` at once. An `or` with a `not`: at each IBM at
/// once, then again with the next YAH (MSFT ends only the `not`). An instance that YAH ends restarts its `every`, so
/// IBM at 6 and 6.5 s make a pair. Joins (YAH's last price) driven by an `every` over an `and` that its `not`'s timer
/// does not end (each second), and by a `not` of a timer, true at the start.
pub(crate) const TURNING: [(&str, &[TraceRow]); 10] = [
    (
        "INSERT INTO Out SELECT 'quiet' as symbol, 0.0 as value FROM pattern [every (timer:interval(1 sec) and not \
         S(symbol = 'IBM'))]",
        &[
            (1200, "quiet", Some(0.0)),
            (3100, "quiet", Some(0.0)),
            (4100, "quiet", Some(0.0)),
            (5300, "quiet", Some(0.0)),
            (7500, "quiet", Some(0.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every (a=S(symbol = 'IBM') where \
         timer:within(1 sec))]",
        &[
            (200, "IBM", Some(25.0)),
            (1500, "IBM", Some(24.0)),
            (2100, "IBM", Some(26.0)),
            (4300, "IBM", Some(22.0)),
            (6000, "IBM", Some(30.0)),
            (6500, "IBM", Some(31.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT b.symbol as symbol, a.price as value FROM pattern [(every a=S(symbol = 'IBM')) and \
         b=S(symbol = 'YAH')]",
        &[
            (1500, "YAH", Some(24.0)),
            (1500, "YAH", Some(25.0)),
            (2100, "YAH", Some(26.0)),
            (4300, "YAH", Some(22.0)),
            (6000, "YAH", Some(30.0)),
            (6500, "YAH", Some(31.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'x' as symbol, 0.0 as value FROM pattern [every (not S(symbol = 'A') and not \
         S(symbol = 'B'))]",
        &[],
    ),
    (
        "INSERT INTO Out SELECT 'none' as symbol, 0.0 as value FROM pattern [not S(symbol = 'MSFT')]",
        &[(0, "none", Some(0.0))],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S(symbol = 'IBM') -> not \
         S(symbol = 'YAH')]",
        &[
            (200, "IBM", Some(25.0)),
            (1500, "IBM", Some(24.0)),
            (2100, "IBM", Some(26.0)),
            (4300, "IBM", Some(22.0)),
            (6000, "IBM", Some(30.0)),
            (6500, "IBM", Some(31.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT a.symbol as symbol, b.price as value FROM pattern [every a=S(symbol = 'IBM') -> \
         (b=S(symbol = 'YAH') or not S(symbol = 'MSFT'))]",
        &[
            (200, "IBM", None),
            (1500, "IBM", None),
            (1500, "IBM", Some(1.0)),
            (1500, "IBM", Some(1.0)),
            (2100, "IBM", None),
            (3500, "IBM", Some(2.0)),
            (4300, "IBM", None),
            (4900, "IBM", Some(3.0)),
            (6000, "IBM", None),
            (6500, "IBM", None),
        ],
    ),
    (
        "INSERT INTO Out SELECT b.symbol as symbol, a.price as value FROM pattern [every (a=S(symbol = 'IBM') -> \
         (b=S(symbol = 'IBM') and not S(symbol = 'YAH')))]",
        &[(1500, "IBM", Some(25.0)), (6500, "IBM", Some(30.0))],
    ),
    (
        "INSERT INTO Out SELECT 'YAH' as symbol, y.price as value FROM pattern [every (timer:interval(1 sec) and not \
         timer:interval(1500 msec))] unidirectional LEFT OUTER JOIN S.std:unique(symbol) as y ON y.symbol = 'YAH'",
        &[
            (1000, "YAH", None),
            (2000, "YAH", Some(1.0)),
            (3000, "YAH", Some(1.0)),
            (4000, "YAH", Some(2.0)),
            (5000, "YAH", Some(3.0)),
            (6000, "YAH", Some(1.0)),
            (7000, "YAH", Some(1.0)),
            (8000, "YAH", Some(1.0)),
        ],
    ),
    (
        "INSERT INTO Out SELECT 'YAH' as symbol, y.price as value FROM pattern [not timer:interval(3 sec)] \
         unidirectional LEFT OUTER JOIN S.std:unique(symbol) as y ON y.symbol = 'YAH'",
        &[(0, "YAH", None)],
    ),
];

/// The later events [`TURNING`]'s traces run after the trace's own.
pub(crate) const TURNING_LATER: [(i64, &str, f64); 2] = [(6000, "IBM", 30.0), (6500, "IBM", 31.0)];

#[test]
fn parts_turning_false_pass_it_up_as_esper_s_do() {
    for (statement, rows) in &TURNING {
        assert_eq!(trace_through(statement, &TURNING_LATER, 8000), out(rows), "{statement}");
    }
}

/// Esper's `ResultSetOutputLimitAfter` (`ResultSetEveryPolicy`): `output after 20 seconds every 5 seconds`, created
/// at 0; the events at 1 ms, 6 and 16 s give nothing, those at 20 s and 24.999 s come out together at 25 s, the one
/// at 27 s at 30 s.
#[test]
fn esper_output_after_every_policy() {
    let statement = "INSERT INTO Out SELECT symbol, price as value FROM S OUTPUT AFTER 20 sec EVERY 5 sec";
    let mut e = engine(&trace_config(statement));
    let mut outputs = Vec::new();
    for (ms, name) in [(1, "E1"), (6000, "E2"), (16_000, "E3"), (20_000, "E4"), (24_999, "E5"), (27_000, "E6")] {
        let event = row(&[("symbol", Val::String(name.into())), ("price", Val::Double(1.0))]);
        outputs.extend(e.push(ms, "S", event));
    }
    outputs.extend(e.advance(40_000));
    let got: Vec<(i64, String)> = outputs.iter().map(|o| (o.time, symbol(o.row.get("symbol")))).collect();
    let expected = [(25_000, "E4"), (25_000, "E5"), (30_000, "E6")].map(|(t, s)| (t, s.to_owned()));
    assert_eq!(got, expected);
}

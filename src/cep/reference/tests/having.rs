//! `HAVING` without aggregates or `GROUP BY`: each row the statement makes, inserted or removed, passes it or is
//! dropped, as Esper's processor without aggregation has it (`ResultSetProcessorSimple`; `processOutputLimitedView`
//! for the default policy and `ALL`, its last-row helper for `LAST`, keeping the last row that passed).

use super::*;

/// Esper's un-aggregated traces with `having price > 10` (`ResultSetOutputLimitSimple` of Esper 8's regression-lib,
/// `tryAssertion34`, `tryAssertion78`, `tryAssertion15_16`; Esper 5's `TestOutputLimitSimple` `test3`, `test7`,
/// `test11`, `test15`), `price as value` in place of `volume, price`: the insert stream, and under `SELECT RSTREAM` the
/// remove stream Esper asserts with it. Only IBM's prices pass, and the rows leaving are filtered as those entering.
pub(crate) const HAVING_ALONE: [(&str, &[TraceRow]); 7] = [
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) HAVING price > 10",
        &[(200, "IBM", Some(25.0)), (1500, "IBM", Some(24.0)), (2100, "IBM", Some(26.0)), (4300, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(5.5 sec) HAVING price > 10",
        &[(5700, "IBM", Some(25.0)), (7000, "IBM", Some(24.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) HAVING price > 10 OUTPUT EVERY 1 sec",
        &[(1200, "IBM", Some(25.0)), (2200, "IBM", Some(24.0)), (2200, "IBM", Some(26.0)), (5200, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(5.5 sec) HAVING price > 10 OUTPUT \
         EVERY 1 sec",
        &[(6200, "IBM", Some(25.0)), (7200, "IBM", Some(24.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) HAVING price > 10 OUTPUT ALL EVERY 1 \
         sec",
        &[(1200, "IBM", Some(25.0)), (2200, "IBM", Some(24.0)), (2200, "IBM", Some(26.0)), (5200, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT symbol, price as value FROM S.win:time(5.5 sec) HAVING price > 10 OUTPUT LAST EVERY \
         1 sec",
        &[(1200, "IBM", Some(25.0)), (2200, "IBM", Some(26.0)), (5200, "IBM", Some(22.0))],
    ),
    (
        "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(5.5 sec) HAVING price > 10 OUTPUT \
         LAST EVERY 1 sec",
        &[(6200, "IBM", Some(25.0)), (7200, "IBM", Some(24.0))],
    ),
];

#[test]
fn esper_having_without_aggregates_traces() {
    assert_traces(&HAVING_ALONE, 7200);
}

/// Without a remove stream or a policy, `HAVING` alone gives the rows `WHERE` would.
#[test]
fn having_alone_on_the_insert_stream_is_where() {
    let statement = |clause: &str| {
        format!(
            "INSERT INTO Out SELECT symbol, price as value FROM S.win:length(2) {clause} price > 5 AND symbol != 'YAH'"
        )
    };
    let having = trace_through(&statement("HAVING"), &[], 8000);
    assert_eq!(having, trace_through(&statement("WHERE"), &[], 8000));
    assert_eq!(having.len(), 5, "IBM's four prices and MSFT's pass: {having:?}");
}

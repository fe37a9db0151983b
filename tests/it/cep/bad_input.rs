//! Every bad-input case of issue 3: each gives one precise message at the right column, never a
//! panic. Messages are compared whole, so the position is part of each assertion.

use fluxgate::cep::config::CepConfig;
use fluxgate::cep::error::CepError;
use fluxgate::cep::explain::plan_config;
use fluxgate::cep::parser::{MAX_NESTING, parse_statement};

/// A configuration with `Room` and `tracker` inputs and the `Alert` output.
fn config(statements: &[&str]) -> CepConfig {
    let mut config: CepConfig = serde_json::from_str(
        r#"{"host":"http://localhost:8080",
            "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[
                     {"name":"temperature","type":"double","metadata":[{"name":"unit","type":"string"}]},
                     {"name":"floor","type":"string"}]},
                  {"id":"T.*","type":"tracker","isPattern":true,"attributes":[
                     {"name":"time","type":"date"},{"name":"position","type":"geo:point"}]}],
            "out":[{"id":"Fence1","type":"Alert","attributes":[
                     {"name":"time","type":"date"},{"name":"position","type":"geo:point"},
                     {"name":"inside","type":"boolean"}],"brokers":[{"url":"http://localhost:8081"}]}],
            "statements":[]}"#,
    )
    .expect("test configuration");
    config.statements = statements.iter().map(|s| s.to_string()).collect();
    config
}

/// The single error `statements` produce, as displayed (position and message).
fn error(statements: &[&str]) -> String {
    let errors = plan_config(&config(statements), true).expect_err("must fail");
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors[0].to_string()
}

#[test]
fn empty_statement() {
    assert_eq!(
        error(&["SELECT * FROM Room", " /* nothing */ "]),
        "statement 2, line 1, column 1: the statement is empty"
    );
}

#[test]
fn unterminated_string() {
    assert_eq!(
        error(&["SELECT * FROM Room WHERE floor = 'one"]),
        "statement 1, line 1, column 34: unterminated string: the quote opened here is never closed"
    );
}

#[test]
fn unbalanced_parentheses() {
    assert_eq!(
        error(&["SELECT * FROM Room WHERE (temperature > 1"]),
        "statement 1, line 1, column 26: unbalanced parentheses: this `(` is never closed"
    );
    assert_eq!(
        error(&["SELECT * FROM Room WHERE temperature > 1)"]),
        "statement 1, line 1, column 41: unbalanced parentheses: this `)` closes nothing"
    );
}

#[test]
fn unknown_keyword() {
    assert_eq!(
        error(&["SELEC * FROM Room"]),
        "statement 1, line 1, column 1: unknown keyword `SELEC`; did you mean `SELECT`?"
    );
    assert_eq!(
        error(&["INSERT INTO Hot SELECT * FORM Room"]),
        "statement 1, line 1, column 26: unknown keyword `FORM`; did you mean `FROM`?"
    );
}

#[test]
fn misspelt_property_names_the_nearest() {
    assert_eq!(
        error(&["SELECT floor, temprature FROM Room"]),
        "statement 1, line 1, column 15: unknown property `temprature`; did you mean `temperature`?"
    );
    assert_eq!(
        error(&["SELECT r.flor FROM Room as r"]),
        "statement 1, line 1, column 10: unknown property `flor`; did you mean `floor`?"
    );
}

#[test]
fn aggregate_in_where() {
    assert_eq!(
        error(&["SELECT floor FROM Room WHERE max(temperature) > 3"]),
        "statement 1, line 1, column 30: aggregate function `max` is not allowed in WHERE"
    );
}

#[test]
fn polygon_open_ring_or_too_few_points() {
    assert_eq!(
        error(&["CREATE VARIABLE Geometry g = polygon({point(0, 0), point(0, 1), point(1, 1), point(1, 0)})"]),
        "statement 1, line 1, column 30: bad polygon: the ring is not closed: it starts at (0, 0) but ends at (1, 0)"
    );
    assert_eq!(
        error(&["CREATE VARIABLE Geometry g = polygon({point(0, 0), point(1, 1), point(0, 0)})"]),
        "statement 1, line 1, column 30: bad polygon: a polygon needs a closed ring of at least 4 points, found 3"
    );
}

#[test]
fn negative_timer_interval() {
    assert_eq!(
        error(&["SELECT a.* FROM pattern [every a=Room -> timer:interval(-1 sec)]"]),
        "statement 1, line 1, column 57: a time period must not be negative"
    );
    assert_eq!(
        error(&["SELECT a.* FROM pattern [every a=Room -> (timer:interval(4) and not Room) where timer:within(-2.5)]"]),
        "statement 1, line 1, column 94: a time period must not be negative"
    );
}

#[test]
fn unknown_time_unit() {
    assert_eq!(
        error(&["SELECT * FROM Room.win:time(10 fortnights)"]),
        "statement 1, line 1, column 32: unknown time unit `fortnights`; expected msec, sec, min, hour or day (or their long forms)"
    );
}

#[test]
fn pattern_filter_with_unbound_tag() {
    assert_eq!(
        error(&["SELECT a.* FROM pattern [every a=Room(floor = b.floor) -> b=Room]"]),
        "statement 1, line 1, column 47: pattern tag `b` is not bound before this point"
    );
}

#[test]
fn insert_into_out_type_with_missing_column() {
    assert_eq!(
        error(&["INSERT INTO Alert SELECT id, position FROM tracker"]),
        "statement 1, line 1, column 13: `INSERT INTO Alert` does not provide column `time` declared by the `out` declaration of `Alert`"
    );
}

#[test]
fn two_statements_disagree_on_a_type() {
    assert_eq!(
        error(&["INSERT INTO Hot SELECT id, temperature FROM Room", "INSERT INTO Hot SELECT id FROM Room"]),
        "statement 2, line 1, column 13: statements disagree on the type of `Hot`: statement 1 inserts (id string, temperature double), this statement inserts (id string)"
    );
}

/// Every statement that fails planning is reported, in statement order; one reading a stream that a failed statement
/// would define is not reported as reading an unknown stream.
#[test]
fn every_planning_error_is_reported_once() {
    let errors = plan_config(
        &config(&[
            "SELECT tempertaure FROM Room",
            "INSERT INTO Hot SELECT id, temperature FROM Rooms",
            "SELECT * FROM Hot",
            "SELECT floor FROM tracker",
        ]),
        true,
    )
    .expect_err("must fail");
    let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "statement 1, line 1, column 8: unknown property `tempertaure`; did you mean `temperature`?",
            "statement 2, line 1, column 45: unknown stream `Rooms`; did you mean `Room`?",
            "statement 4, line 1, column 8: unknown property `floor`; known properties: id, time, position",
        ]
    );
}

#[test]
fn dependency_cycle() {
    assert_eq!(
        error(&[
            "SELECT * FROM Room",
            "INSERT INTO A SELECT * FROM C",
            "INSERT INTO B SELECT * FROM A",
            "INSERT INTO C SELECT * FROM B"
        ]),
        "statement 2, line 1, column 29: dependency cycle: statement 2 reads `C` produced by statement 4, statement 4 reads `B` produced by statement 3, statement 3 reads `A` produced by statement 2"
    );
}

#[test]
fn one_mebibyte_statement() {
    let huge = format!("SELECT * FROM Room WHERE floor = '{}'", "x".repeat(1 << 20));
    assert_eq!(
        error(&[&huge]),
        "statement 1, line 1, column 65537: the statement is 1048611 bytes long; the limit is 65536 bytes"
    );
}

#[test]
fn deeply_nested_parentheses_do_not_overflow() {
    let deep = format!("SELECT * FROM Room WHERE {}temperature > 1{}", "(".repeat(30_000), ")".repeat(30_000));
    assert_eq!(
        error(&[&deep]),
        format!(
            "statement 1, line 1, column {}: parentheses are nested more than {MAX_NESTING} levels deep",
            26 + MAX_NESTING
        )
    );
    let deepest =
        format!("SELECT * FROM Room WHERE {}temperature > 1{}", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
    assert!(plan_config(&config(&[&deepest]), true).is_ok());
}

#[test]
fn long_operator_chains_are_refused_not_overflowed() {
    let chain = format!("SELECT * FROM Room WHERE temperature > 0{}", " or temperature > 0".repeat(3_000));
    let message = error(&[&chain]);
    assert!(message.contains("the expression is too deeply nested"), "{message}");
    let prefixes = format!("SELECT * FROM Room WHERE {}temperature > 0", "not ".repeat(10_000));
    assert!(error(&[&prefixes]).contains("too deeply nested"));
}

#[test]
fn errors_render_with_a_caret_under_the_column() {
    let text = "SELECT *\nFROM Room.win:tme(1 sec)";
    assert!(parse_statement(1, text).is_ok());
    let errors = plan_config(&config(&[text]), true).expect_err("unknown view");
    let CepError::Unknown { at, .. } = &errors[0] else {
        panic!("expected an unknown-view error, got {errors:?}");
    };
    assert_eq!((at.line, at.column), (2, 10));
    assert_eq!(at.excerpt(), "  |\n2 | FROM Room.win:tme(1 sec)\n  |          ^^^^^^^^^^^^^^^");
}

/// Found by the `epl_parser` fuzz target: a syntax error just after a multi-byte character (here U+032D after
/// `//tb/`, inside a comment-like prefix) made the error reporter slice inside the character and panic.
#[test]
fn regression_multibyte_character_before_a_syntax_error() {
    let input = std::str::from_utf8(b"//tb/\xcc\xad\xd5\xb1b4\nb4\nbt\nt").unwrap();
    let result = std::panic::catch_unwind(|| parse_statement(1, input).map(|_| ()));
    assert!(matches!(result, Ok(Err(_))), "the parser must refuse this input with an error, not panic: {result:?}");
}

/// Esper's closed and open ranges are named; a half-open one (`(20:25]`) is refused earlier, as unbalanced.
#[test]
fn esper_ranges_are_refused_by_name() {
    for (statement, column) in [
        ("SELECT * FROM Room WHERE temperature in [20:25]", 38),
        ("SELECT * FROM Room WHERE temperature not in (20:25)", 38),
    ] {
        assert_eq!(
            error(&[statement]),
            format!("statement 1, line 1, column {column}: a range (`in [low:high]`) is not supported"),
            "{statement}"
        );
    }
}

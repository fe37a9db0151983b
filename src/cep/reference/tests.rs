//! Fixed traces: Esper's `ResultSetOutputLimitRowPerGroup` conformance trace (cep-epl.md section 3), the pattern
//! instance example, and the seed geofence configuration.

use super::Reference;
use crate::cep::config::CepConfig;
use crate::cep::explain::plan_config;
use crate::cep::runtime::{Engine, Output, Row, Val};

pub(super) fn engine(config: &str) -> Reference {
    let config: CepConfig = serde_json::from_str(config).expect("test configuration");
    Reference::new(&plan_config(&config, true).expect("plans"), 0).expect("runs")
}

fn row(props: &[(&str, Val)]) -> Row {
    props.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// The conformance trace's statement; the dataflow runtime's tests run it too.
pub(crate) const TRACE: &str = r#"{"host":"h","in":[{"id":"S.*","type":"S","isPattern":true,"attributes":[
    {"name":"symbol","type":"string"},{"name":"price","type":"double"}]}],
  "out":[{"id":"O","type":"Out","attributes":[{"name":"symbol","type":"string"},{"name":"total","type":"double"}]}],
  "statements":["INSERT INTO Out SELECT symbol, sum(price) as total FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT LAST EVERY 1 sec"]}"#;

/// The trace's `(ms, symbol, price)` events.
pub(crate) const TRACE_EVENTS: [(i64, &str, f64); 9] = [
    (200, "IBM", 25.0),
    (800, "MSFT", 9.0),
    (1500, "IBM", 24.0),
    (1500, "YAH", 1.0),
    (2100, "IBM", 26.0),
    (3500, "YAH", 2.0),
    (4300, "IBM", 22.0),
    (4900, "YAH", 3.0),
    (5900, "YAH", 1.0),
];

/// Esper's `(ms, symbol, total)` outputs for [`TRACE_EVENTS`] until 7.2 s.
pub(crate) fn trace_expected() -> Vec<(i64, String, Option<f64>)> {
    let s = |t: i64, sym: &str, v: Option<f64>| (t, sym.to_string(), v);
    vec![
        s(1200, "IBM", Some(25.0)),
        s(1200, "MSFT", Some(9.0)),
        s(2200, "IBM", Some(75.0)),
        s(2200, "YAH", Some(1.0)),
        s(4200, "YAH", Some(3.0)),
        s(5200, "IBM", Some(97.0)),
        s(5200, "YAH", Some(6.0)),
        s(6200, "IBM", Some(72.0)),
        s(6200, "YAH", Some(7.0)),
        s(7200, "IBM", Some(48.0)),
        s(7200, "MSFT", None),
        s(7200, "YAH", Some(6.0)),
    ]
}

/// Runs [`TRACE_EVENTS`] through `e` (running [`TRACE`]) and collects `(ms, symbol, total)` outputs until `until`,
/// ordered by time, then symbol (the outputs of one timestamp are a set).
pub(crate) fn run_trace(e: &mut dyn Engine, until: i64) -> Vec<(i64, String, Option<f64>)> {
    let mut out: Vec<Output> = Vec::new();
    for (ms, symbol, price) in TRACE_EVENTS {
        let event = row(&[
            ("id", Val::String("S1".into())),
            ("symbol", Val::String(symbol.into())),
            ("price", Val::Double(price)),
        ]);
        out.extend(e.push(ms, "S", event));
    }
    out.extend(e.advance(until));
    let text = |v: Option<&Val>| match v {
        Some(Val::String(s)) => s.to_string(),
        other => panic!("{other:?}"),
    };
    let mut rows: Vec<_> = out
        .into_iter()
        .map(|o| (o.time, text(o.row.get("symbol")), o.row.get("total").and_then(Val::as_f64)))
        .collect();
    rows.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    rows
}

#[test]
fn esper_output_last_per_group_trace() {
    assert_eq!(run_trace(&mut engine(TRACE), 7200), trace_expected());
}

fn geofence() -> Reference {
    engine(include_str!("../../../queries/geofence.json"))
}

fn reading(id: &str, lat: f64) -> Row {
    row(&[
        ("id", Val::String(id.into())),
        ("position", Val::Point(lat, 1.44)),
        ("time", Val::Date(0)),
        ("temperature", Val::Null),
        ("levelBattery", Val::Null),
        ("position_location", Val::Null),
    ])
}

const INSIDE: f64 = 43.60;
const OUTSIDE: f64 = 43.70;

#[test]
fn three_readings_then_an_opposite_one_kill_all_instances() {
    let mut e = geofence();
    let mut alerts = Vec::new();
    for s in 0..3 {
        alerts.extend(e.push(s * 1000, "tracker", reading("T1", INSIDE)));
    }
    alerts.extend(e.push(3000, "tracker", reading("T1", OUTSIDE)));
    alerts.extend(e.advance(6500));
    assert!(alerts.is_empty(), "{alerts:?}");
    alerts.extend(e.advance(7000));
    assert_eq!(alerts.iter().map(|a| a.time).collect::<Vec<_>>(), vec![7000]);
}

#[test]
fn three_readings_fire_three_instances_four_seconds_later() {
    let mut e = geofence();
    for s in 0..3 {
        assert!(e.push(s * 1000, "tracker", reading("T1", INSIDE)).is_empty());
    }
    // The first instance inserts the window row (an Alert); the next two change nothing.
    let alerts = e.advance(6000);
    assert_eq!(alerts.iter().map(|a| a.time).collect::<Vec<_>>(), vec![4000]);
    let Some(super::Statement::Pattern(p)) = e.statements.get(3) else { panic!("statement 4 is the pattern") };
    assert_eq!(p.live(), 1, "only the `every` leaf is left once the timers fired");
}

#[test]
fn geofence_alerts_outside_inside_outside() {
    let mut e = geofence();
    let mut alerts = Vec::new();
    // Each state is held six seconds, one reading a second.
    let path = [OUTSIDE, INSIDE, OUTSIDE].iter().flat_map(|lat| [*lat; 6]);
    for (i, lat) in path.enumerate() {
        alerts.extend(e.push(i as i64 * 1000, "tracker", reading("T1", lat)));
    }
    alerts.extend(e.advance(30_000));
    let seen: Vec<(i64, Option<&Val>, Option<&Val>)> =
        alerts.iter().map(|a| (a.time, a.row.get("id"), a.row.get("inside"))).collect();
    let t1 = Val::String("T1".into());
    assert_eq!(
        seen,
        vec![
            (4000, Some(&t1), Some(&Val::Bool(false))),
            (10_000, Some(&t1), Some(&Val::Bool(true))),
            (16_000, Some(&t1), Some(&Val::Bool(false))),
        ]
    );
    assert!(alerts.iter().all(|a| a.stream == "Alert"));
}

/// Commands driving a join over an `in` stream of shutter states (so B's events come from outside).
const LOOKUP: &str = r#"{"host":"h",
  "in":[{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"}]}],
  "out":[{"id":"L","type":"Log","attributes":[{"name":"seen","type":"string"}]}],
  "statements":["INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken'"]}"#;

fn text(v: &str) -> Val {
    Val::String(v.into())
}

/// A command for shutter `shutter`.
fn cmd(shutter: &str) -> Row {
    row(&[("id", text("c")), ("shutter", text(shutter))])
}

/// Shutter `id`'s state.
fn state(id: &str, status: &str) -> Row {
    row(&[("id", text(id)), ("status", text(status))])
}

fn seen(outputs: &[Output]) -> Vec<(i64, Val, Val)> {
    let get = |o: &Output, k: &str| o.row.get(k).cloned().unwrap_or(Val::Null);
    outputs.iter().map(|o| (o.time, get(o, "id"), get(o, "seen"))).collect()
}

#[test]
fn a_join_outputs_one_row_per_matching_lookup_row_and_a_null_side_when_none_matches() {
    let mut e = engine(LOOKUP);
    let mut out = e.push(1_000, "Cmd", cmd("sh1"));
    for (ms, id, status) in [(2_000, "sh1", "opened"), (3_000, "sh1", "closed"), (3_500, "sh1", "broken")] {
        out.extend(e.push(ms, "State", state(id, status)));
    }
    out.extend(e.push(3_600, "State", state("sh2", "opened")));
    out.extend(e.push(4_000, "Cmd", cmd("sh1")));
    // 12.5 s: the 2 s row has expired; 13.2 s: only the broken one is left, which `ON` matches and `WHERE` refuses,
    // so no row (not one with a null side); 13.6 s: every sh1 row has expired.
    out.extend(e.push(12_500, "Cmd", cmd("sh1")));
    out.extend(e.push(13_200, "Cmd", cmd("sh1")));
    out.extend(e.push(13_600, "Cmd", cmd("sh1")));
    let sh1 = text("sh1");
    assert_eq!(
        seen(&out),
        vec![
            (1_000, sh1.clone(), Val::Null),
            (4_000, sh1.clone(), text("opened")),
            (4_000, sh1.clone(), text("closed")),
            (12_500, sh1.clone(), text("closed")),
            (13_600, sh1, Val::Null),
        ]
    );
}

/// A join that aggregates each command's rows, and a pattern that aggregates its matches by shutter.
const TALLIES: &str = r#"{"host":"h",
  "in":[{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"},{"name":"load","type":"int"}]}],
  "out":[{"id":"L","type":"Load","attributes":[{"name":"n","type":"int"},{"name":"total","type":"int"}]},
    {"id":"R","type":"Repeats","attributes":[{"name":"n","type":"int"},{"name":"total","type":"int"}]}],
  "statements":[
    "INSERT INTO Load SELECT c.shutter as id, count(S.load) as n, sum(S.load) as total FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken' GROUP BY c.shutter",
    "INSERT INTO Repeats SELECT a.shutter as id, count(*) as n, sum(b.load) as total FROM pattern [every a=Cmd -> b=State(id = a.shutter)] GROUP BY a.shutter HAVING count(*) != 2"]}"#;

/// A join's aggregates start afresh at each trigger, over the rows that pass `WHERE` (Esper's unidirectional join
/// clears them); a pattern's grow with each match of its group, and `HAVING` drops a group's second.
#[test]
fn an_aggregating_join_counts_each_trigger_alone_and_a_pattern_counts_every_match() {
    let mut e = engine(TALLIES);
    let state = |id: &str, status: &str, load: i64| {
        row(&[("id", text(id)), ("status", text(status)), ("load", Val::Int(load))])
    };
    let mut out = e.push(1_000, "Cmd", cmd("sh1"));
    out.extend(e.push(2_000, "State", state("sh1", "opened", 3)));
    out.extend(e.push(2_500, "State", state("sh1", "broken", 50)));
    out.extend(e.push(3_000, "Cmd", cmd("sh1")));
    out.extend(e.push(3_100, "Cmd", cmd("sh2")));
    out.extend(e.push(4_000, "State", state("sh1", "closed", 4)));
    out.extend(e.push(5_000, "State", state("sh2", "opened", 1)));
    out.extend(e.push(6_000, "Cmd", cmd("sh1")));
    out.extend(e.push(7_000, "State", state("sh1", "opened", 6)));
    // 12.6 s: the 2 s row has expired, the broken one is refused by WHERE, the 4 s and 7 s rows count.
    out.extend(e.push(12_600, "Cmd", cmd("sh1")));
    let got: Vec<(i64, &str, Val, Val, Val)> = out
        .iter()
        .map(|o| (o.time, o.stream.as_str(), o.row["id"].clone(), o.row["n"].clone(), o.row["total"].clone()))
        .collect();
    let (sh1, sh2) = (text("sh1"), text("sh2"));
    assert_eq!(
        got,
        vec![
            (1_000, "Load", sh1.clone(), Val::Int(0), Val::Null),
            (2_000, "Repeats", sh1.clone(), Val::Int(1), Val::Int(3)),
            (3_000, "Load", sh1.clone(), Val::Int(1), Val::Int(3)),
            (3_100, "Load", sh2.clone(), Val::Int(0), Val::Null),
            // sh1's second match (the 3 s command with the 4 s state) is dropped by HAVING.
            (5_000, "Repeats", sh2.clone(), Val::Int(1), Val::Int(1)),
            (6_000, "Load", sh1.clone(), Val::Int(2), Val::Int(7)),
            (7_000, "Repeats", sh1.clone(), Val::Int(3), Val::Int(13)),
            (12_600, "Load", sh1, Val::Int(2), Val::Int(10)),
        ]
    );
}

/// Two statements writing the stream they look up, both driven by the same command.
const SELF_FED: &str = r#"{"host":"h",
  "in":[{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]}],
  "out":[{"id":"S","type":"Shutter","attributes":[{"name":"status","type":"string"}]}],
  "statements":[
    "INSERT INTO Shutter SELECT c.shutter as id, 'a' as status FROM Cmd as c unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON c.shutter = S.id WHERE S is null",
    "INSERT INTO Shutter SELECT c.shutter as id, 'b' as status FROM Cmd as c unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON c.shutter = S.id WHERE S is null OR S.status = 'b'"]}"#;

#[test]
fn a_row_inserted_into_the_looked_up_stream_is_seen_by_the_next_trigger_not_the_current_one() {
    let mut e = engine(SELF_FED);
    let statuses = |out: Vec<Output>| -> Vec<Val> { out.iter().map(|o| o.row["status"].clone()).collect() };
    // Statement 2 does not see statement 1's `a`, inserted after the command was handled.
    assert_eq!(statuses(e.push(1_000, "Cmd", cmd("sh1"))), vec![text("a"), text("b")]);
    // Now the last sh1 row is `b`: statement 1 finds a row, statement 2 finds its own `b`.
    assert_eq!(statuses(e.push(2_000, "Cmd", cmd("sh1"))), vec![text("b")]);
    assert_eq!(statuses(e.push(3_000, "Cmd", cmd("sh2"))), vec![text("a"), text("b")]);
}

fn room(temperature: f64) -> Row {
    row(&[("id", text("Room1")), ("temperature", Val::Double(temperature)), ("shutter", text("sh1"))])
}

#[test]
fn the_shutter_closes_once_while_hot_and_opens_when_cool() {
    let mut e = engine(include_str!("../../../queries/cepheus-close-shutters.json"));
    let mut out = Vec::new();
    for (ms, t) in [(1_000, 27.0), (2_000, 28.0), (3_000, 30.0), (10_000, 20.0), (20_000, 30.0)] {
        out.extend(e.push(ms, "Room", room(t)));
    }
    out.extend(e.advance(40_000));
    let got: Vec<(i64, Val, Val)> =
        out.iter().map(|o| (o.time, o.row["id"].clone(), o.row["status"].clone())).collect();
    let sh1 = text("sh1");
    assert_eq!(
        got,
        vec![
            (6_000, sh1.clone(), text("closed")),
            (15_000, sh1.clone(), text("opened")),
            (25_000, sh1, text("closed"))
        ]
    );
}

#[test]
fn a_join_driven_by_its_looked_up_stream_is_refused() {
    let config = SELF_FED.replace("FROM Cmd as c", "FROM Shutter as c").replace("c.shutter", "c.id");
    let config: CepConfig = serde_json::from_str(&config).expect("test configuration");
    let error = Reference::new(&plan_config(&config, true).expect("plans"), 0).unwrap_err();
    assert!(error.to_string().contains("a join whose driving side reads its looked-up stream"), "{error}");
}

/// Commands looking up a named window of shutter states that a merge keeps: it takes a shutter's first state and
/// later ones unless they say `broken`.
const WINDOW_LOOKUP: &str = r#"{"host":"h",
  "in":[{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"}]}],
  "out":[{"id":"L","type":"Log","attributes":[{"name":"seen","type":"string"}]}],
  "statements":[
    "CREATE WINDOW Latest.std:unique(id) as State",
    "ON State s MERGE Latest l WHERE s.id = l.id WHEN NOT MATCHED THEN INSERT SELECT * WHEN MATCHED AND s.status != 'broken' THEN UPDATE SET status = s.status",
    "INSERT INTO Log SELECT c.shutter as id, l.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN Latest as l ON c.shutter = l.id"]}"#;

/// `SELECT RSTREAM` of a named window's rows, and into a named window (which takes the insert stream), are refused by
/// name.
#[test]
fn select_rstream_of_or_into_a_named_window_is_refused() {
    let join = "INSERT INTO Log SELECT c.shutter as id, l.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN \
        Latest as l ON c.shutter = l.id";
    for (statement, construct) in [
        ("INSERT INTO Log SELECT RSTREAM id, status as seen FROM Latest", "SELECT RSTREAM of a named window's rows"),
        (
            "INSERT INTO Latest SELECT RSTREAM id, status FROM State.win:time(1 sec)",
            "SELECT RSTREAM into the named window Latest",
        ),
    ] {
        let config: CepConfig = serde_json::from_str(&WINDOW_LOOKUP.replace(join, statement)).expect("configuration");
        let error = Reference::new(&plan_config(&config, true).expect("plans"), 0).unwrap_err();
        assert!(error.to_string().contains(construct), "{error}");
    }
}

/// An output policy on a join that aggregates is refused by name (its rows are each trigger's afresh).
#[test]
fn an_output_policy_on_an_aggregating_join_is_refused() {
    let join = "INSERT INTO Log SELECT c.shutter as id, l.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN \
        Latest as l ON c.shutter = l.id";
    let aggregating = "INSERT INTO Log SELECT c.shutter as id, max(l.status) as seen FROM Cmd as c unidirectional LEFT \
        OUTER JOIN Latest as l ON c.shutter = l.id GROUP BY c.shutter OUTPUT LAST EVERY 1 sec";
    let config: CepConfig = serde_json::from_str(&WINDOW_LOOKUP.replace(join, aggregating)).expect("configuration");
    let error = Reference::new(&plan_config(&config, true).expect("plans"), 0).unwrap_err();
    let expected = "statement 3: an OUTPUT policy on an aggregating join is not supported by the runtime yet (issue 6)";
    assert_eq!(error.to_string(), expected);
}

/// A join reads a named window's rows as the window keeps them: one per shutter (its unique view), updated in
/// place, and not replaced by the state the merge leaves out.
#[test]
fn a_join_looking_up_a_named_window_reads_the_rows_the_window_keeps() {
    let mut e = engine(WINDOW_LOOKUP);
    let mut out = e.push(1_000, "Cmd", cmd("sh1"));
    for (ms, id, status) in [(2_000, "sh1", "opened"), (3_000, "sh1", "closed"), (3_500, "sh1", "broken")] {
        out.extend(e.push(ms, "State", state(id, status)));
    }
    out.extend(e.push(3_600, "State", state("sh2", "broken")));
    out.extend(e.push(4_000, "Cmd", cmd("sh1")));
    out.extend(e.push(4_100, "Cmd", cmd("sh2")));
    out.extend(e.push(4_200, "Cmd", cmd("sh3")));
    let (sh1, sh2) = (text("sh1"), text("sh2"));
    assert_eq!(
        seen(&out),
        vec![
            (1_000, sh1.clone(), Val::Null),
            (4_000, sh1, text("closed")),
            (4_100, sh2, text("broken")),
            (4_200, text("sh3"), Val::Null),
        ]
    );
}

/// [`WINDOW_LOOKUP`] with `statement` added last.
fn window_lookup_with(statement: &str) -> String {
    WINDOW_LOOKUP.replace(r#"l.id"]}"#, &format!(r#"l.id", "{statement}"]}}"#))
}

/// Rows deleted from a named window leave the join's view: by the merge (a `gone` state) and by `ON ... DELETE` (a
/// command for sh2, which the join it drives does not see done yet, as it sees no change of its own event).
#[test]
fn a_row_deleted_from_a_named_window_leaves_the_view_of_a_join_looking_it_up() {
    let deleting = window_lookup_with("ON Cmd(shutter = 'sh2') as c DELETE FROM Latest as l WHERE l.id = c.shutter")
        .replace(
            "WHEN MATCHED AND s.status !=",
            "WHEN MATCHED AND s.status = 'gone' THEN DELETE WHEN MATCHED AND s.status !=",
        );
    let mut e = engine(&deleting);
    let mut out = e.push(1_500, "State", state("sh2", "opened"));
    out.extend(e.push(2_000, "State", state("sh1", "opened")));
    out.extend(e.push(3_000, "Cmd", cmd("sh1")));
    out.extend(e.push(4_000, "State", state("sh1", "gone")));
    out.extend(e.push(5_000, "Cmd", cmd("sh1")));
    out.extend(e.push(6_000, "State", state("sh1", "closed")));
    out.extend(e.push(7_000, "Cmd", cmd("sh1")));
    out.extend(e.push(8_000, "Cmd", cmd("sh2")));
    out.extend(e.push(9_000, "Cmd", cmd("sh2")));
    let (sh1, sh2) = (text("sh1"), text("sh2"));
    assert_eq!(
        seen(&out),
        vec![
            (3_000, sh1.clone(), text("opened")),
            (5_000, sh1.clone(), Val::Null),
            (7_000, sh1, text("closed")),
            (8_000, sh2.clone(), text("opened")),
            (9_000, sh2, Val::Null),
        ]
    );
}

/// An update of a named window's key column is refused for a join looking the window up, naming the statement that
/// does it, and a join writing the window it looks up is a cycle to the planner.
#[test]
fn a_join_looking_up_a_named_window_whose_key_is_updated_is_refused() {
    let config = window_lookup_with("ON Cmd c UPDATE Latest l SET id = c.shutter WHERE l.id = 'x'");
    let config: CepConfig = serde_json::from_str(&config).expect("test configuration");
    let error = Reference::new(&plan_config(&config, true).expect("plans"), 0).unwrap_err();
    let message = "statement 3: a join looking up Latest, whose key column id statement 4 updates";
    assert!(error.to_string().contains(message), "{error}");
    let writing = WINDOW_LOOKUP.replace(
        "INSERT INTO Log SELECT c.shutter as id, l.status as seen",
        "INSERT INTO Latest SELECT c.shutter as id, 'x' as status",
    );
    let config: CepConfig = serde_json::from_str(&writing).expect("test configuration");
    let errors = plan_config(&config, true).unwrap_err();
    assert!(errors[0].to_string().contains("statement 3 reads `Latest` produced by statement 3"), "{errors:?}");
}

#[test]
fn geometry_reads_wkt_with_holes_refuses_an_open_ring_and_measures_distance() {
    let mut e = engine(
        r#"{"host":"h","in":[{"id":"T.*","type":"T","isPattern":true,"attributes":[
            {"name":"position","type":"geo:point"}]}],
          "out":[{"id":"O","type":"Out","attributes":[{"name":"inside","type":"boolean"},
            {"name":"open","type":"boolean"},{"name":"d","type":"double"}]}],
          "statements":["INSERT INTO Out SELECT geometry('POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0), (4 4, 4 6, 6 6, 6 4, 4 4))').contains(position) as inside, geometry('POLYGON ((0 0, 0 10, 10 10, 10 0))').contains(position) as open, polygon({point(0, 0), point(0, 10), point(10, 10), point(10, 0), point(0, 0)}).distance(position) as d FROM T"]}"#,
    );
    let seen = |e: &mut Reference, x: f64, y: f64| {
        let out = e.push(0, "T", row(&[("position", Val::Point(x, y))]));
        let row = &out.first().expect("one row per event").row;
        [row.get("inside").cloned(), row.get("open").cloned(), row.get("d").cloned()]
    };
    assert_eq!(seen(&mut e, 5.0, 5.0), [Some(Val::Bool(false)), Some(Val::Null), Some(Val::Double(0.0))], "hole");
    assert_eq!(seen(&mut e, 2.0, 5.0), [Some(Val::Bool(true)), Some(Val::Null), Some(Val::Double(0.0))]);
    assert_eq!(seen(&mut e, 13.0, 5.0), [Some(Val::Bool(false)), Some(Val::Null), Some(Val::Double(3.0))]);
}

/// The trace's configuration with `statement` in place of its own: it reads `S` and writes `Out`, whose columns are
/// `symbol` and `value`.
pub(crate) fn trace_config(statement: &str) -> String {
    let own = "INSERT INTO Out SELECT symbol, sum(price) as total FROM S.win:time(5.5 sec) GROUP BY symbol OUTPUT LAST \
        EVERY 1 sec";
    TRACE.replace(own, statement).replace(r#"{"name":"total""#, r#"{"name":"value""#)
}

/// The trace's events and then `later` ones through `e` (running a [`trace_config`]), until `until`: `(ms, symbol,
/// value)` in the order they came out.
pub(crate) fn trace_outputs(
    e: &mut dyn Engine,
    later: &[(i64, &str, f64)],
    until: i64,
) -> Vec<(i64, String, Option<f64>)> {
    outputs_of(e, TRACE_EVENTS.iter().chain(later), until)
}

/// `events` through `e` (running a [`trace_config`]), until `until`: `(ms, symbol, value)` in the order they came
/// out.
pub(crate) fn outputs_of<'e>(
    e: &mut dyn Engine,
    events: impl IntoIterator<Item = &'e (i64, &'e str, f64)>,
    until: i64,
) -> Vec<(i64, String, Option<f64>)> {
    let mut out: Vec<Output> = Vec::new();
    for (ms, symbol, price) in events {
        let event = row(&[("symbol", Val::String((*symbol).into())), ("price", Val::Double(*price))]);
        out.extend(e.push(*ms, "S", event));
    }
    out.extend(e.advance(until));
    out.into_iter().map(|o| (o.time, symbol(o.row.get("symbol")), o.row.get("value").and_then(Val::as_f64))).collect()
}

/// [`trace_outputs`] of the reference running `statement`, each timestamp's rows sorted (a set).
fn trace_through(statement: &str, later: &[(i64, &str, f64)], until: i64) -> Vec<(i64, String, Option<f64>)> {
    let mut rows = trace_outputs(&mut engine(&trace_config(statement)), later, until);
    rows.sort_by(|a, b| (a.0, &a.1, a.2.map(f64::to_bits)).cmp(&(b.0, &b.1, b.2.map(f64::to_bits))));
    rows
}

fn symbol(v: Option<&Val>) -> String {
    match v {
        Some(Val::String(s)) => s.to_string(),
        other => panic!("a symbol: {other:?}"),
    }
}

/// Each statement of `table` over the trace until `until` gives its rows.
fn assert_traces(table: &[(&str, &[TraceRow])], until: i64) {
    for (statement, rows) in table {
        assert_eq!(trace_through(statement, &[], until), out(rows), "{statement}");
    }
}

fn out(rows: &[(i64, &str, Option<f64>)]) -> Vec<(i64, String, Option<f64>)> {
    rows.iter().map(|(t, s, v)| (*t, s.to_string(), *v)).collect()
}

/// A time batch's periods run from its first event (200 ms): each release gives a row per group in the new or the
/// last batch, null for a group the new one left empty; after an empty release the clock stops, and an event starts
/// it again at the next period end on the same grid (9.7 s: due at 10.2 s).
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

/// A `(ms, symbol, price)` event fed after the trace's.
pub(crate) type TraceEvent = (i64, &'static str, f64);

/// An expected `(ms, symbol, value)` output of a statement over the trace.
pub(crate) type TraceRow = (i64, &'static str, Option<f64>);

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

/// `OUTPUT FIRST` of aggregating statements over the trace. The first two are Esper's (`ResultSetOutputLimitRowPerGroup`
/// and `ResultSetOutputLimitRowForAll`, `tryAssertion17`): grouped, a group's row goes out when none of the group did
/// in the last second, at arrivals and at expiries (5.7 s, 6.3 s: MSFT's emptied group, null; 7 s); without groups, the
/// first row of each interval of the clock started at 200 ms. The last two were worked out by hand: in a length-one
/// window each arrival empties the group of the row it pushes out, which forgets its last row, so only YAH at 5.9 s,
/// which pushes out its own group's row, is held back by the ten seconds; a fully aggregated statement's pushed-out
/// group has its (null) row tested too, and held back.
pub(crate) const FIRST_GROUPS: [(&str, &[TraceRow]); 4] = [
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
/// applied then); without groups, in an interval with no change (3.2 s), the row as it stands.
pub(crate) const EVERY_GROUPS: [(&str, &[TraceRow]); 5] = [
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
            (4200, "ALL", Some(87.0)),
            (5200, "ALL", Some(112.0)),
            (6200, "ALL", Some(113.0)),
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

/// A statement over a batch window inside `std:groupwin`, with its own events and the rows it gives until a time, in
/// the order they come out.
pub(crate) type GroupwinCase = (&'static str, &'static [TraceEvent], i64, &'static [TraceRow]);

/// Esper's `ViewGroupLengthBatch` and `ViewGroupTimeBatch` (`select irstream *`, whose insert stream these are: the
/// first's events 100 ms apart), the second with a sum per symbol worked on by hand: each symbol's batches are its
/// own, and its periods run from its own first event (S1's from 1 s, S2's from 10 s), so S1's empty release at 21 s
/// gives its null row and stops its clock, and S1's next event, at 33 s, is released on S1's grid, at 41 s.
pub(crate) const GROUPWIN_TRACES: [GroupwinCase; 3] = [
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
/// rows for the policy. A length batch of two releases at 0.8, 1.5, 3.5 and 4.9 s, whose first rows start the
/// clock (ticks at 1.8, 2.8, ...): the default and `ALL` let out every row at the tick, `LAST` the interval's last,
/// `FIRST` the interval's first release whole, as it comes, and `SNAPSHOT` the view's contents (the last batch) at
/// every tick (to 7.8 s here). A time batch of a second releases at 1.2, 2.2, ... s; its clock starts at its first rows (1.2 s), so
/// its ticks fall with its releases, which go first and reach the tick. Per symbol, the releases are IBM's at 1.5
/// and 4.3 s and YAH's at 3.5 and 5.9 s; YAH's at 3.5 s comes after the tick due then. With `AFTER 2 sec`, the
/// releases before 2 s are dropped and the clock starts at 3.5 s. Fully aggregated, per symbol, the releases touch
/// IBM and MSFT at 0.8 s, IBM, YAH and MSFT (emptied) at 1.5 s, IBM and YAH at 3.5 and 4.9 s: the default keeps each
/// release's rows, `LAST` makes each touched group's row at the tick, `ALL` every known group's (MSFT's null once),
/// `SNAPSHOT` those in the view, `FIRST` lets a group's row out when none of its group did in the last second;
/// without groups, an interval with no release gives the row as it stands; with `AFTER 2 sec` the clock starts at
/// 3.5 s and its first tick takes the changes from before (MSFT's, which `HAVING` drops with YAH's). With an
/// ungrouped column and no groups, each release's rows (one per new event, with the batch's sum) are a batch for the
/// policy, as rows without aggregates are; grouped, the default keeps every release's rows, and `SNAPSHOT` makes each
/// row of the view with its group's aggregates (a length batch of four: IBM's sum 49 at 1.5 s, 48 at 4.9 s, when MSFT
/// is emptied). Grouped with an ungrouped column, `sum(price) - price` tells which event a row is of: `LAST` keeps
/// each group's row of its last new event (IBM24's 25 at 1.5 s, IBM22's 26 at 4.9 s; MSFT's 0 stays), in the order
/// the groups first had one; `ALL` keeps every new event's row, then a row of each group that lost rows from its
/// last new event (MSFT's null), and at the ticks between releases a row of every group known, until MSFT is
/// forgotten; `FIRST` lets out a group's first row in a second, of the new events and then of the replaced ones
/// (MSFT's null at 4.9 s), and with `HAVING` only rows that pass take a group's turn; before `AFTER`'s time `LAST`
/// keeps its rows for the first tick. A time batch of a second under `LAST EVERY 2 sec` (its clock from 1.2 s)
/// releases IBM 25, MSFT 9; IBM 50 and YAH 1; nothing new at 3.2 s; YAH 2; IBM 22 and YAH 3; YAH 1.
pub(crate) const BATCH_PACED: [(&str, &[TraceRow]); 25] = [
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
        &[
            (1800, "YAH", Some(1.0)),
            (1800, "IBM", Some(24.0)),
            (2800, "YAH", Some(1.0)),
            (2800, "IBM", Some(24.0)),
            (3800, "YAH", Some(2.0)),
            (3800, "IBM", Some(26.0)),
            (4800, "YAH", Some(2.0)),
            (4800, "IBM", Some(26.0)),
            (5800, "YAH", Some(3.0)),
            (5800, "IBM", Some(22.0)),
            (6800, "YAH", Some(3.0)),
            (6800, "IBM", Some(22.0)),
            (7800, "YAH", Some(3.0)),
            (7800, "IBM", Some(22.0)),
        ],
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
        &[
            (1800, "IBM", Some(24.0)),
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
            (2500, "IBM", Some(24.0)),
            (2500, "MSFT", Some(0.0)),
            (2500, "IBM", Some(25.0)),
            (2500, "YAH", Some(0.0)),
            (3500, "IBM", Some(24.0)),
            (3500, "MSFT", Some(0.0)),
            (3500, "IBM", Some(25.0)),
            (3500, "YAH", Some(0.0)),
            (4500, "IBM", Some(24.0)),
            (4500, "MSFT", Some(0.0)),
            (4500, "IBM", Some(25.0)),
            (4500, "YAH", Some(0.0)),
            (5500, "IBM", Some(22.0)),
            (5500, "YAH", Some(3.0)),
            (5500, "IBM", Some(26.0)),
            (5500, "YAH", Some(2.0)),
            (6500, "IBM", Some(22.0)),
            (6500, "YAH", Some(3.0)),
            (6500, "IBM", Some(26.0)),
            (6500, "YAH", Some(2.0)),
            (7500, "IBM", Some(22.0)),
            (7500, "YAH", Some(3.0)),
            (7500, "IBM", Some(26.0)),
            (7500, "YAH", Some(2.0)),
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
            "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S",
            "SELECT RSTREAM of a stream without a data window (its remove stream is empty)",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(1 sec) OUTPUT FIRST EVERY 1 sec",
            "SELECT RSTREAM under OUTPUT FIRST or SNAPSHOT",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, price as value FROM S.win:time(1 sec) OUTPUT SNAPSHOT EVERY 1 sec",
            "SELECT RSTREAM under OUTPUT FIRST or SNAPSHOT",
        ),
        (
            "INSERT INTO Out SELECT RSTREAM symbol, sum(price) as value FROM S.win:time(1 sec) GROUP BY symbol OUTPUT \
             LAST EVERY 1 sec",
            "SELECT RSTREAM with aggregates under an OUTPUT policy",
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
        assert_eq!(
            error.to_string(),
            format!("statement 1: {construct} is not supported by the runtime yet (issue 6)")
        );
    }
}

/// A pattern whose one event completes two matches, ordered by a value the matches have in the other order: Esper
/// inserts each match into the statement's stream alone, so `ORDER BY` sorts a single row each time and the rows keep
/// the matches' order (at 1.5 s, the instance IBM at 25 began before the one at 24).
pub(crate) const ORDERED_MATCHES: (&str, &[TraceRow]) = (
    "INSERT INTO Out SELECT a.symbol as symbol, a.price as value FROM pattern [every a=S(symbol = 'IBM') -> \
     S(symbol = 'YAH')] ORDER BY value",
    &[(1500, "IBM", Some(25.0)), (1500, "IBM", Some(24.0)), (3500, "IBM", Some(26.0)), (4900, "IBM", Some(22.0))],
);

#[test]
fn order_by_on_a_pattern_keeps_the_order_of_its_matches() {
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

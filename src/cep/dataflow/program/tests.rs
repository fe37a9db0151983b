//! Tests of the program: the checks that refuse a plan, how streams are dealt and routed, what a replacement keeps.

use super::*;
use crate::cep::config::CepConfig;
use crate::cep::explain::plan_config;

const CONFIG: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[{"name":"temperature","type":"double"}]}],
  "out":[{"id":"S","type":"Seen","attributes":[{"name":"temperature","type":"double"}]}],
  "statements":["CREATE WINDOW W.std:unique(id) as Room", "INSERT INTO W SELECT * FROM Room",
    "INSERT INTO Seen SELECT id, temperature FROM W"]}"#;

#[test]
fn a_stream_needs_room_for_the_most_columns_a_stateless_statement_adds_to_its_rows() {
    let geofence: CepConfig = serde_json::from_str(include_str!("../../../../queries/geofence.json")).unwrap();
    let program = Program::new(&plan_config(&geofence, true).unwrap()).unwrap();
    // `SELECT *, fence.contains(position) as inside FROM tracker`; the pattern reading TrackerInside keeps state.
    let rooms: Vec<usize> = ["tracker", "TrackerInside", "FenceCross", "Nothing"].map(|s| program.room(s)).into();
    assert_eq!(rooms, [1, 0, 0, 0]);
    let statements = [
        "INSERT INTO Seen SELECT *, temperature * 2 as hot FROM Room",
        "INSERT INTO Seen SELECT *, temperature as a, temperature as b FROM Room WHERE temperature > 20",
        "INSERT INTO Seen SELECT temperature FROM Room",
    ];
    let config = CONFIG.replace(
        r#"["CREATE WINDOW W.std:unique(id) as Room", "INSERT INTO W SELECT * FROM Room",
    "INSERT INTO Seen SELECT id, temperature FROM W"]"#,
        &serde_json::to_string(&statements).unwrap(),
    );
    let program = Program::new(&plan_config(&serde_json::from_str(&config).unwrap(), true).unwrap()).unwrap();
    assert_eq!(program.room("Room"), 2);
}

#[test]
fn a_program_knows_which_streams_come_in_from_outside() {
    let geofence: CepConfig = serde_json::from_str(include_str!("../../../../queries/geofence.json")).unwrap();
    let plan = plan_config(&geofence, true).unwrap();
    let any = Program::new(&plan).unwrap();
    let incoming = Program::new(&plan).unwrap().receiving(["tracker", "Undeclared"]);
    let id = |name: &str| any.id(name).unwrap();
    assert!(any.receives(id("tracker")) && any.receives(id("FenceCross")), "without a list, any stream");
    assert!(incoming.receives(id("tracker")));
    assert!(!incoming.receives(id("TrackerInside")) && !incoming.receives(id("FenceCross")));
    assert!(!any.same_dataflow(&incoming), "their dataflows differ at the input");
    assert!(incoming.same_dataflow(&Program::new(&plan).unwrap().receiving(["tracker"])));
}

#[test]
fn a_window_written_after_it_is_read_is_refused_rather_than_wired_without_the_writer() {
    let config: CepConfig = serde_json::from_str(CONFIG).unwrap();
    let mut plan = plan_config(&config, true).unwrap();
    assert!(Program::new(&plan).is_ok());
    let position = |plan: &Plan, text: &str| plan.statements.iter().position(|s| s.text.starts_with(text)).unwrap();
    let (writer, reader) = (position(&plan, "INSERT INTO W"), position(&plan, "INSERT INTO Seen"));
    plan.statements.swap(writer, reader);
    let error = Program::new(&plan).unwrap_err();
    assert!(error.to_string().contains("writing window W after a statement that reads it"), "{error}");
}

#[test]
fn a_stateless_query_fuses_into_the_one_later_pattern_over_its_stream_alone() {
    // Whether the first statement of `statements` that is a stateless query fuses.
    let fuses = |statements: &[&str]| {
        let config = CONFIG.replace(
            r#"["CREATE WINDOW W.std:unique(id) as Room", "INSERT INTO W SELECT * FROM Room",
    "INSERT INTO Seen SELECT id, temperature FROM W"]"#,
            &serde_json::to_string(statements).unwrap(),
        );
        let program = Program::new(&plan_config(&serde_json::from_str(&config).unwrap(), true).unwrap()).unwrap();
        let program = program.receiving(["Room"]);
        let mut stateless = (program.plan.statements.iter()).filter_map(|s| match &s.node {
            PlanNode::Query(q) if q.stateless_input().is_some() => Some((s.number, q)),
            _ => None,
        });
        let (number, q) = stateless.next().expect("a stateless query");
        program.fuses(number, q)
    };
    let select = "INSERT INTO Hot SELECT * FROM Room WHERE temperature > 20";
    let pattern =
        "INSERT INTO Seen SELECT a.temperature as temperature FROM pattern [every a=Hot -> timer:interval(1 sec)]";
    assert!(fuses(&[select, pattern]));
    assert!(!fuses(&[pattern, select]), "read before it is written");
    assert!(!fuses(&[select, pattern, "INSERT INTO Seen SELECT temperature FROM Hot"]), "a second reader");
    assert!(!fuses(&[select, pattern, "INSERT INTO Hot SELECT * FROM Room"]), "a second writer");
    assert!(!fuses(&[select, "INSERT INTO Seen SELECT temperature FROM Hot"]), "a query reads it");
    let two = "INSERT INTO Seen SELECT a.temperature as temperature FROM pattern [every a=Hot -> Room]";
    assert!(!fuses(&[select, two]), "the pattern reads another stream too");
    let out = "INSERT INTO Seen SELECT * FROM Room";
    let reads_seen = pattern.replace("INSERT INTO Seen", "INSERT INTO Other").replace("a=Hot", "a=Seen");
    assert!(!fuses(&[out, &reads_seen]), "an `out` type's rows are published");

    let geofence: CepConfig = serde_json::from_str(include_str!("../../../../queries/geofence.json")).unwrap();
    let geofence = Program::new(&plan_config(&geofence, true).unwrap()).unwrap().receiving(["tracker"]);
    let stateless = (geofence.plan.statements.iter()).filter_map(|s| match &s.node {
        PlanNode::Query(q) if q.stateless_input().is_some() => Some((s.number, q)),
        _ => None,
    });
    let fused: Vec<&str> =
        stateless.clone().filter(|(n, q)| geofence.fuses(*n, q)).map(|(_, q)| q.sink.stream.as_str()).collect();
    assert_eq!(fused, ["TrackerInside"], "not the select from the window into Alert");
    let everything = Program::new(&geofence.plan).unwrap();
    assert!(!stateless.clone().any(|(n, q)| everything.fuses(n, q)), "events may come in on any stream");
}

#[test]
fn a_stateless_query_ends_where_its_rows_go_to_an_out_type_or_listeners_that_no_statement_reads() {
    // Whether the stateless query of `statements` writing `sink` (none: listeners) ends its rows.
    let ends = |statements: &[&str], sink: Option<&str>| {
        let config = CONFIG.replace(
            r#"["CREATE WINDOW W.std:unique(id) as Room", "INSERT INTO W SELECT * FROM Room",
    "INSERT INTO Seen SELECT id, temperature FROM W"]"#,
            &serde_json::to_string(statements).unwrap(),
        );
        let program = Program::new(&plan_config(&serde_json::from_str(&config).unwrap(), true).unwrap()).unwrap();
        let mut stateless = program.plan.statements.iter().filter_map(|s| match &s.node {
            PlanNode::Query(q) if q.stateless_input().is_some() => Some(q),
            _ => None,
        });
        let q = match sink {
            Some(sink) => stateless.find(|q| q.sink.stream == sink).expect("a stateless query into the sink"),
            None => stateless.find(|q| matches!(q.sink.kind, SinkKind::Listeners)).expect("a listeners' query"),
        };
        program.ends(q)
    };
    let (window, into_window) = ("CREATE WINDOW W.std:unique(id) as Room", "INSERT INTO W SELECT * FROM Room");
    let seen = "INSERT INTO Seen SELECT id, temperature FROM W";
    assert!(ends(&[window, into_window, seen], Some("Seen")), "an `out` type nothing reads");
    assert!(!ends(&[window, into_window, seen], Some("W")), "a named window's rows");
    assert!(!ends(&["INSERT INTO Seen SELECT * FROM Room", "INSERT INTO Hot SELECT * FROM Seen"], Some("Seen")));
    assert!(!ends(&["INSERT INTO Hot SELECT * FROM Seen", "INSERT INTO Seen SELECT * FROM Room"], Some("Seen")));
    assert!(!ends(&["INSERT INTO Hot SELECT * FROM Room"], Some("Hot")), "an internal stream");
    assert!(ends(&["SELECT * FROM Room"], None), "rows for listeners only");

    let geofence: CepConfig = serde_json::from_str(include_str!("../../../../queries/geofence.json")).unwrap();
    let geofence = Program::new(&plan_config(&geofence, true).unwrap()).unwrap();
    let ended: Vec<&str> = (geofence.plan.statements.iter())
        .filter_map(|s| match &s.node {
            PlanNode::Query(q) if q.stateless_input().is_some() && geofence.ends(q) => Some(q.sink.stream.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ended, ["Alert"]);
}

#[test]
fn a_statement_only_reads_a_stream_no_other_statement_reads_and_no_event_comes_in_on() {
    // Whether the last statement of `statements` (reading `W`) is the only reader of `W`.
    let only = |statements: &[&str], receiving: &[&str]| {
        let config = CONFIG.replace(
            r#"["CREATE WINDOW W.std:unique(id) as Room", "INSERT INTO W SELECT * FROM Room",
    "INSERT INTO Seen SELECT id, temperature FROM W"]"#,
            &serde_json::to_string(statements).unwrap(),
        );
        let program = Program::new(&plan_config(&serde_json::from_str(&config).unwrap(), true).unwrap()).unwrap();
        let program = program.receiving(receiving.iter().copied());
        let last = program.plan.statements.last().expect("statements");
        let PlanNode::Query(q) = &last.node else { panic!("a query") };
        program.only_reads(last.number, q.stateless_input().expect("over a stream"))
    };
    let (window, into_window) = ("CREATE WINDOW W.std:unique(id) as Room", "INSERT INTO W SELECT * FROM Room");
    let seen = "INSERT INTO Seen SELECT id, temperature FROM W";
    assert!(only(&[window, into_window, seen], &["Room"]));
    assert!(!only(&[window, into_window, seen], &["Room", "W"]), "events come in on W");
    let other = "INSERT INTO Hot SELECT * FROM W WHERE temperature > 20";
    assert!(!only(&[window, into_window, other, seen], &["Room"]), "another statement reads W");
    let merge = "ON W w MERGE W v WHERE w.id = v.id WHEN MATCHED THEN UPDATE SET temperature = w.temperature";
    assert!(!only(&[window, into_window, merge, seen], &["Room"]), "an `ON` statement triggered by W reads it");
}

#[test]
fn a_stream_is_placed_by_a_column_only_if_every_writer_keeps_it_where_the_feeder_dealt_it() {
    let program = |text: &str| {
        let config: CepConfig = serde_json::from_str(text).unwrap();
        Program::new(&plan_config(&config, true).unwrap()).unwrap()
    };
    // Dealt by id, copied by `SELECT *`, then by the pattern keyed by `id = a.id` from its tag.
    let geofence = program(include_str!("../../../../queries/geofence.json"));
    for stream in ["tracker", "TrackerInside", "FenceCross"] {
        assert!(geofence.placed_by(stream, "id"), "{stream}");
    }
    assert!(!geofence.placed_by("TrackerInside", "inside"), "dealt by id, not by inside");
    assert!(!geofence.placed_by("TrackerState", "id"), "a named window's rows");
    // Written by a named window, or by a query reading one.
    let windows = program(CONFIG);
    assert!(!windows.placed_by("W", "id") && !windows.placed_by("Seen", "id"));
    // Written by an aggregation.
    let floor = program(include_str!("../../../../queries/floor-average.json"));
    assert!(floor.placed_by("Room", "floor") && !floor.placed_by("Floor", "id"));
}

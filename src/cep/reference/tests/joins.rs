//! Joins over an `in` stream and over named windows: one row per matching row, aggregates per trigger, rows fed
//! back, and the joins refused.

use super::*;

const LOOKUP: &str = r#"{"host":"h",
  "in":[{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"}]}],
  "out":[{"id":"L","type":"Log","attributes":[{"name":"seen","type":"string"}]}],
  "statements":["INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken'"]}"#;

/// A command for shutter `shutter`.
pub(super) fn cmd(shutter: &str) -> Row {
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

/// A join looking up `Seen`, which another statement writes from the same commands, listed after the join or before.
pub(crate) fn written_elsewhere(writer_first: bool) -> String {
    let join = "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN \
                Seen.std:unique(id) as S ON c.shutter = S.id";
    let writer = "INSERT INTO Seen SELECT shutter as id, 'cmd' as status FROM Cmd";
    let statements = if writer_first { [writer, join] } else { [join, writer] };
    format!(
        r#"{{"host":"h",
  "in":[{{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{{"name":"shutter","type":"string"}}]}}],
  "out":[{{"id":"L","type":"Log","attributes":[{{"name":"seen","type":"string"}}]}}],
  "statements":["{}","{}"]}}"#,
        statements[0], statements[1]
    )
}

#[test]
fn a_join_sees_the_looked_up_stream_as_before_the_trigger_wherever_its_writer_is_listed() {
    for writer_first in [false, true] {
        let mut e = engine(&written_elsewhere(writer_first));
        let mut out = e.push(1_000, "Cmd", cmd("sh1"));
        out.extend(e.push(2_000, "Cmd", cmd("sh1")));
        out.extend(e.push(3_000, "Cmd", cmd("sh2")));
        let (sh1, sh2) = (text("sh1"), text("sh2"));
        let expected = vec![(1_000, sh1.clone(), Val::Null), (2_000, sh1, text("cmd")), (3_000, sh2, Val::Null)];
        assert_eq!(seen(&out), expected, "writer listed first: {writer_first}");
    }
}

fn room(temperature: f64) -> Row {
    row(&[("id", text("Room1")), ("temperature", Val::Double(temperature)), ("shutter", text("sh1"))])
}

#[test]
fn the_shutter_closes_once_while_hot_and_opens_when_cool() {
    let mut e = engine(include_str!("../../../../queries/cepheus-close-shutters.json"));
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

/// The commands' counts of states under each policy: a join whose columns are all aggregates, without `GROUP BY`.
const COUNTED: &str = r#"{"host":"h",
  "in":[{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"},{"name":"load","type":"int"}]}],
  "out":[{"id":"A","type":"ByLast","attributes":[{"name":"n","type":"int"},{"name":"total","type":"int"}]},
    {"id":"B","type":"ByAll","attributes":[{"name":"n","type":"int"},{"name":"total","type":"int"}]},
    {"id":"C","type":"ByEvery","attributes":[{"name":"n","type":"int"},{"name":"total","type":"int"}]},
    {"id":"D","type":"ByFirst","attributes":[{"name":"n","type":"int"},{"name":"total","type":"int"}]}],
  "statements":[
    "INSERT INTO ByLast SELECT count(S.load) as n, sum(S.load) as total FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken' HAVING count(S.load) != 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO ByAll SELECT count(S.load) as n, sum(S.load) as total FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken' HAVING count(S.load) != 1 OUTPUT ALL EVERY 2 sec",
    "INSERT INTO ByEvery SELECT count(S.load) as n, sum(S.load) as total FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken' HAVING count(S.load) != 1 OUTPUT EVERY 2 sec ORDER BY n DESC",
    "INSERT INTO ByFirst SELECT count(S.load) as n, sum(S.load) as total FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken' HAVING count(S.load) != 1 OUTPUT FIRST EVERY 2 sec"]}"#;

/// Under a policy, such a join clears and applies its aggregates at each trigger any of whose rows passed `WHERE`
/// (Esper's `ResultSetProcessorRowForAll`): that starts the clock and is the interval's last even when its row fails
/// `HAVING`, and `FIRST` waits for a row that passes; a tick with no such trigger in its interval releases the last
/// trigger's row under `LAST`, `ALL` and the default; a trigger none of whose rows passed `WHERE` changes nothing.
#[test]
fn a_policy_on_a_join_of_aggregates_releases_the_last_triggers_row_when_none_came() {
    let mut e = engine(COUNTED);
    let state = loaded;
    let mut out = e.push(1_000, "Cmd", cmd("sh1"));
    out.extend(e.push(2_000, "State", state("sh1", "opened", 3)));
    out.extend(e.push(2_500, "State", state("sh1", "broken", 50)));
    // One state passes WHERE: a count of 1, which HAVING refuses.
    out.extend(e.push(2_600, "Cmd", cmd("sh1")));
    out.extend(e.push(3_500, "State", state("sh1", "closed", 4)));
    out.extend(e.push(3_600, "Cmd", cmd("sh2")));
    out.extend(e.push(4_000, "Cmd", cmd("sh1")));
    out.extend(e.push(6_000, "State", state("sh1", "opened", 6)));
    out.extend(e.push(7_500, "Cmd", cmd("sh1")));
    out.extend(e.push(7_800, "State", state("sh2", "opened", 1)));
    out.extend(e.push(8_000, "Cmd", cmd("sh2")));
    out.extend(e.push(11_500, "Cmd", cmd("sh1")));
    // sh4's only state is broken: WHERE refuses every row of its commands, which hand nothing on.
    out.extend(e.push(12_000, "State", state("sh4", "broken", 9)));
    out.extend(e.push(12_500, "Cmd", cmd("sh4")));
    out.extend(e.push(14_000, "Cmd", cmd("sh4")));
    out.extend(e.advance(15_000));
    let got: Vec<(i64, &str, Val, Val)> =
        out.iter().map(|o| (o.time, o.stream.as_str(), o.row["n"].clone(), o.row["total"].clone())).collect();
    let (none, two, three) = ((Val::Int(0), Val::Null), (Val::Int(2), Val::Int(7)), (Val::Int(3), Val::Int(13)));
    let at = |ms: i64, stream: &'static str, (n, total): &(Val, Val)| (ms, stream, n.clone(), total.clone());
    let mut expected = vec![
        at(1_000, "ByFirst", &none),
        at(3_000, "ByAll", &none),
        at(3_000, "ByEvery", &none),
        at(3_600, "ByFirst", &none),
        at(5_000, "ByLast", &two),
        at(5_000, "ByAll", &none),
        at(5_000, "ByAll", &two),
        at(5_000, "ByEvery", &two),
        at(5_000, "ByEvery", &none),
        at(7_000, "ByLast", &two),
        at(7_000, "ByAll", &two),
        at(7_000, "ByEvery", &two),
        at(7_500, "ByFirst", &three),
        at(9_000, "ByAll", &three),
        at(9_000, "ByEvery", &three),
        at(11_500, "ByFirst", &three),
        at(13_000, "ByLast", &three),
        at(13_000, "ByAll", &three),
        at(13_000, "ByEvery", &three),
        at(15_000, "ByLast", &three),
        at(15_000, "ByAll", &three),
        at(15_000, "ByEvery", &three),
    ];
    let mut got = got;
    let key = |r: &(i64, &str, Val, Val)| (r.0, r.1.to_string());
    got.sort_by_key(key);
    expected.sort_by_key(key);
    assert_eq!(got, expected);
}

/// Shutter `id`'s state with a load.
pub(super) fn loaded(id: &str, status: &str, load: i64) -> Row {
    row(&[("id", text(id)), ("status", text(status)), ("load", Val::Int(load))])
}

/// `FIRST` on such a join goes by its rows: a trigger whose row fails `HAVING` does not start the clock (Esper's
/// `OutputProcessViewConditionFirst` returns before it), as it does under the other policies.
#[test]
fn a_trigger_whose_row_fails_having_starts_the_clock_but_under_first() {
    let mut e = engine(COUNTED);
    // sh1's one state: a count of 1, which HAVING refuses; sh2 has none: a count of 0, which it lets through.
    let mut out = e.push(100, "State", loaded("sh1", "opened", 3));
    out.extend(e.push(500, "Cmd", cmd("sh1")));
    out.extend(e.push(1_200, "Cmd", cmd("sh2")));
    out.extend(e.push(2_700, "Cmd", cmd("sh2")));
    out.extend(e.advance(4_000));
    let got: Vec<(i64, &str)> = out.iter().map(|o| (o.time, o.stream.as_str())).collect();
    // The others' clocks started at 500 ms and ticked at 2.5 s; FIRST's at 1.2 s, so 2.7 s is in its first interval.
    assert_eq!(got, [(1_200, "ByFirst"), (2_500, "ByLast"), (2_500, "ByAll"), (2_500, "ByEvery")]);
    assert!(out.iter().all(|o| o.row["n"] == Val::Int(0)), "{out:?}");
}

/// The policies an aggregating join cannot run are refused by name: `FIRST` and `ALL` with `GROUP BY`, and `SNAPSHOT`
/// (Esper cannot iterate the join).
#[test]
fn the_policies_an_aggregating_join_cannot_run_are_refused() {
    let join = "INSERT INTO Log SELECT c.shutter as id, l.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN \
        Latest as l ON c.shutter = l.id";
    let aggregating = "INSERT INTO Log SELECT c.shutter as id, max(l.status) as seen FROM Cmd as c unidirectional LEFT \
        OUTER JOIN Latest as l ON c.shutter = l.id";
    let counting = "INSERT INTO Log SELECT max(l.status) as seen FROM Cmd as c unidirectional LEFT OUTER JOIN Latest \
        as l ON c.shutter = l.id";
    for (statement, construct) in [
        (
            format!("{aggregating} GROUP BY c.shutter OUTPUT FIRST EVERY 1 sec"),
            "OUTPUT FIRST on an aggregating join with GROUP BY (Esper never clears its groups)",
        ),
        (
            format!("{aggregating} GROUP BY c.shutter OUTPUT ALL EVERY 1 sec"),
            "OUTPUT ALL on an aggregating join with GROUP BY (Esper releases every group it saw)",
        ),
        (
            format!("{counting} OUTPUT SNAPSHOT EVERY 1 sec"),
            "OUTPUT SNAPSHOT of a join (Esper cannot iterate a unidirectional join)",
        ),
    ] {
        let config: CepConfig = serde_json::from_str(&WINDOW_LOOKUP.replace(join, &statement)).expect("configuration");
        let error = Reference::new(&plan_config(&config, true).expect("plans"), 0).unwrap_err();
        let expected = format!("statement 3: {construct} is not supported");
        assert_eq!(error.to_string(), expected, "{statement}");
    }
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

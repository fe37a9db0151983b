//! Output policies on aggregating joins with `GROUP BY` or a column not aggregated, as Esper 5 runs them (`rate`,
//! `join::last`): the interval's triggers replayed at the tick, the aggregates cleared at each.

use super::joins::{cmd, loaded};
use super::*;

/// States counted by status for each command: fully aggregated under `LAST` and the default, and with a column not
/// aggregated under `LAST`; and counted for each command without `GROUP BY`, with columns not aggregated, under
/// `LAST`, `ALL` and `FIRST`. Each refuses a count of 1. Then, with `AFTER 2 sec` and no `HAVING`, counted for each
/// command under `ALL` and by status under `LAST`.
pub(crate) const GROUPED: &str = r#"{"host":"h",
  "in":[{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"},{"name":"load","type":"int"}]}],
  "out":[{"id":"A","type":"ByStatus","attributes":[{"name":"status","type":"string"},{"name":"n","type":"int"},{"name":"total","type":"int"}]},
    {"id":"B","type":"EveryStatus","attributes":[{"name":"status","type":"string"},{"name":"n","type":"int"},{"name":"total","type":"int"}]},
    {"id":"C","type":"ByShutter","attributes":[{"name":"shutter","type":"string"},{"name":"status","type":"string"},{"name":"load","type":"int"},{"name":"n","type":"int"}]},
    {"id":"D","type":"LastCmd","attributes":[{"name":"shutter","type":"string"},{"name":"load","type":"int"},{"name":"n","type":"int"}]},
    {"id":"E","type":"AllCmd","attributes":[{"name":"shutter","type":"string"},{"name":"status","type":"string"},{"name":"n","type":"int"}]},
    {"id":"F","type":"FirstCmd","attributes":[{"name":"shutter","type":"string"},{"name":"status","type":"string"},{"name":"n","type":"int"}]},
    {"id":"G","type":"AfterCount","attributes":[{"name":"n","type":"int"}]},
    {"id":"H","type":"AfterStatus","attributes":[{"name":"status","type":"string"},{"name":"n","type":"int"}]}],
  "statements":[
    "INSERT INTO ByStatus SELECT S.status as status, count(S.load) as n, sum(S.load) as total FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id GROUP BY S.status HAVING count(S.load) != 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO EveryStatus SELECT S.status as status, count(S.load) as n, sum(S.load) as total FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id GROUP BY S.status HAVING count(S.load) != 1 OUTPUT EVERY 2 sec ORDER BY n DESC",
    "INSERT INTO ByShutter SELECT c.shutter as shutter, S.status as status, S.load as load, count(S.load) as n FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id GROUP BY S.status HAVING count(S.load) != 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO LastCmd SELECT c.shutter as shutter, S.load as load, count(S.load) as n FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id HAVING count(S.load) != 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO AllCmd SELECT c.shutter as shutter, S.status as status, count(S.load) as n FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id HAVING count(S.load) != 1 OUTPUT ALL EVERY 2 sec ORDER BY status",
    "INSERT INTO FirstCmd SELECT c.shutter as shutter, S.status as status, count(S.load) as n FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id HAVING count(S.load) != 1 OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO AfterCount SELECT count(S.load) as n FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id OUTPUT AFTER 2 sec ALL EVERY 2 sec",
    "INSERT INTO AfterStatus SELECT S.status as status, count(*) as n FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id GROUP BY S.status OUTPUT AFTER 2 sec LAST EVERY 2 sec"]}"#;

/// The events of the scenario the tests below read, with the states the commands join, and when it ends. Every
/// trigger hands rows on (the join is outer and has no `WHERE`), so the clocks start at 1 s, with the first, whose
/// counts of 1 `HAVING` refuses.
pub(crate) fn grouped_events() -> (Vec<(i64, &'static str, Row)>, i64) {
    let state = |ms, id, status, load| (ms, "State", loaded(id, status, load));
    let events = vec![
        state(500, "sh1", "opened", 3),
        state(600, "sh1", "closed", 4),
        state(700, "sh2", "opened", 5),
        // sh1: opened {3}, closed {4}.
        (1_000, "Cmd", cmd("sh1")),
        state(1_500, "sh1", "opened", 6),
        // sh1: opened {3, 6}, closed {4}; then sh2: opened {5}.
        (2_000, "Cmd", cmd("sh1")),
        (2_500, "Cmd", cmd("sh2")),
        // sh3 has no state: one row, the status null and a count of 0; then sh1 as at 2 s.
        (3_200, "Cmd", cmd("sh3")),
        (3_400, "Cmd", cmd("sh1")),
    ];
    (events, 8_000)
}

/// [`grouped_events`] with a broken shutter's state and a command for it before `AFTER`'s time, the only trigger to
/// touch its group.
pub(crate) fn after_events() -> (Vec<(i64, &'static str, Row)>, i64) {
    let (mut events, end) = grouped_events();
    events.extend([(800, "State", loaded("sh4", "broken", 7)), (1_200, "Cmd", cmd("sh4"))]);
    events.sort_by_key(|(ms, _, _)| *ms);
    (events, end)
}

fn run() -> Vec<Output> {
    run_events(grouped_events())
}

fn run_events((events, end): (Vec<(i64, &'static str, Row)>, i64)) -> Vec<Output> {
    let mut e = engine(GROUPED);
    let mut out: Vec<Output> = events.into_iter().flat_map(|(ms, stream, row)| e.push(ms, stream, row)).collect();
    out.extend(e.advance(end));
    out
}

fn of<'o>(out: &'o [Output], stream: &str) -> Vec<(i64, &'o Row)> {
    out.iter().filter(|o| o.stream == stream).map(|o| (o.time, &o.row)).collect()
}

fn status(row: &Row) -> (Val, Val, Val) {
    let get = |k: &str| row.get(k).cloned().unwrap_or(Val::Null);
    (get("status"), get("n"), get("total"))
}

/// Fully aggregated under `LAST`: a row for each group the interval's triggers touched, read after the last one.
/// At 3 s the last trigger (sh2's) left `opened` a count of 1, which `HAVING` refuses, and `closed`, which it did not
/// touch, empty (a count of 0, a null sum); at 5 s `null`, touched by sh3 but not by sh1 after it, is empty too.
#[test]
fn last_releases_each_group_touched_with_the_aggregates_the_last_trigger_left() {
    let out = run();
    let got: Vec<(i64, (Val, Val, Val))> = of(&out, "ByStatus").into_iter().map(|(t, r)| (t, status(r))).collect();
    let (opened, closed) = (text("opened"), text("closed"));
    assert_eq!(
        got,
        [
            (3_000, (closed, Val::Int(0), Val::Null)),
            (5_000, (Val::Null, Val::Int(0), Val::Null)),
            (5_000, (opened, Val::Int(2), Val::Int(9))),
        ]
    );
}

/// The default policy releases the rows of every trigger of the interval, each made with its own aggregates, sorted
/// together; the first trigger, all of whose rows fail `HAVING`, started the clock (else it would tick at 4 s).
#[test]
fn the_default_releases_every_triggers_rows_sorted_together() {
    let out = run();
    let got: Vec<(i64, (Val, Val, Val))> = of(&out, "EveryStatus").into_iter().map(|(t, r)| (t, status(r))).collect();
    let opened = || (text("opened"), Val::Int(2), Val::Int(9));
    assert_eq!(got, [(3_000, opened()), (5_000, opened()), (5_000, (Val::Null, Val::Int(0), Val::Null))]);
}

/// With a column not aggregated, each group's last row that passed `HAVING`, made at its trigger: sh2's row at
/// 2.5 s fails and leaves sh1's (its last state of the group, load 6); groups in order of their first such row.
#[test]
fn last_with_ungrouped_columns_keeps_each_groups_last_row_that_passed() {
    let out = run();
    let get = |r: &Row, k: &str| r.get(k).cloned().unwrap_or(Val::Null);
    let got: Vec<(i64, [Val; 4])> = of(&out, "ByShutter")
        .into_iter()
        .map(|(t, r)| (t, [get(r, "shutter"), get(r, "status"), get(r, "load"), get(r, "n")]))
        .collect();
    let sh1_opened = || [text("sh1"), text("opened"), Val::Int(6), Val::Int(2)];
    assert_eq!(
        got,
        [(3_000, sh1_opened()), (5_000, [text("sh3"), Val::Null, Val::Null, Val::Int(0)]), (5_000, sh1_opened())]
    );
}

fn cmd_rows(out: &[Output], stream: &str) -> Vec<(i64, [Val; 3])> {
    let get = |r: &Row, k: &str| r.get(k).cloned().unwrap_or(Val::Null);
    of(out, stream).into_iter().map(|(t, r)| (t, [get(r, "shutter"), get(r, "status"), get(r, "n")])).collect()
}

/// Without `GROUP BY`, with columns not aggregated (Esper's `ResultSetProcessorAggregateAll`): a row for each joined
/// row, each with the count of its trigger's rows. `LAST` releases the last row that passed: at 3 s sh1's last of 2 s
/// (its state of load 6), which sh2's trigger, whose one row fails `HAVING`, leaves in place. `ALL` releases every
/// trigger's rows sorted together (a null status first); `FIRST` the rows of the first trigger whose rows pass, as it
/// comes. No tick releases anything after an interval without a trigger.
#[test]
fn policies_on_a_join_with_columns_not_aggregated_release_the_rows_of_its_triggers() {
    let out = run();
    let get = |r: &Row, k: &str| r.get(k).cloned().unwrap_or(Val::Null);
    let last: Vec<(i64, [Val; 3])> =
        of(&out, "LastCmd").into_iter().map(|(t, r)| (t, [get(r, "shutter"), get(r, "load"), get(r, "n")])).collect();
    let sh1_last = || [text("sh1"), Val::Int(6), Val::Int(3)];
    assert_eq!(last, [(3_000, sh1_last()), (5_000, sh1_last())]);
    let row = |ms: i64, shutter: &str, status: Option<&str>, n: i64| {
        (ms, [text(shutter), status.map_or(Val::Null, text), Val::Int(n)])
    };
    let (opened, closed) = (Some("opened"), Some("closed"));
    assert_eq!(
        cmd_rows(&out, "AllCmd"),
        [
            row(3_000, "sh1", closed, 2),
            row(3_000, "sh1", closed, 3),
            row(3_000, "sh1", opened, 2),
            row(3_000, "sh1", opened, 3),
            row(3_000, "sh1", opened, 3),
            row(5_000, "sh3", None, 0),
            row(5_000, "sh1", closed, 3),
            row(5_000, "sh1", opened, 3),
            row(5_000, "sh1", opened, 3),
        ]
    );
    assert_eq!(
        cmd_rows(&out, "FirstCmd"),
        [row(1_000, "sh1", opened, 2), row(1_000, "sh1", closed, 2), row(3_200, "sh3", None, 0)]
    );
}

/// `OUTPUT AFTER` with a policy on an aggregating join (Esper 5's `OutputProcessViewConditionDefault` with its after
/// time): the triggers before it are kept for the first tick without starting the clock, which the first at or after
/// 2 s starts; so the tick at 4 s releases every trigger's count from 1 s on under `ALL`, and under `LAST` the groups
/// every trigger touched, `broken` (touched only at 1.2 s) and `null` empty after sh1's last trigger. Later ticks
/// release the count as it stands, and no group.
#[test]
fn after_keeps_the_early_triggers_of_an_aggregating_join_for_its_first_tick() {
    let out = run_events(after_events());
    let counts: Vec<(i64, Val)> =
        of(&out, "AfterCount").into_iter().map(|(t, r)| (t, r.get("n").cloned().unwrap_or_default())).collect();
    let n = |ms: i64, n: i64| (ms, Val::Int(n));
    assert_eq!(
        counts,
        [n(4_000, 2), n(4_000, 1), n(4_000, 3), n(4_000, 1), n(4_000, 0), n(4_000, 3), n(6_000, 3), n(8_000, 3)]
    );
    let get = |r: &Row, k: &str| r.get(k).cloned().unwrap_or_default();
    let groups: Vec<(i64, Val, Val)> =
        of(&out, "AfterStatus").into_iter().map(|(t, r)| (t, get(r, "status"), get(r, "n"))).collect();
    let group = |status: Option<&str>, n: i64| (4_000, status.map_or(Val::Null, text), Val::Int(n));
    assert_eq!(groups, [group(Some("opened"), 2), group(Some("closed"), 1), group(Some("broken"), 0), group(None, 0)]);
}

/// The ever forms in a join are its plain aggregates: Esper clears a unidirectional join's aggregation at each
/// trigger, ever forms too, so each command reads the states of its own shutter alone and `leaving()` stays false.
#[test]
fn the_ever_forms_of_a_join_start_afresh_at_each_trigger() {
    let out = r#"{"id":"V","type":"Ever","attributes":[{"name":"most","type":"int"},{"name":"n","type":"long"}]},"#;
    let config = GROUPED.replace(r#""out":["#, &format!(r#""out":[{out}"#)).replace(
        r#""statements":["#,
        r#""statements":["INSERT INTO Ever SELECT maxever(S.load) as most, countever(S.load) as n, leaving() as gone FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(10 sec) as S ON c.shutter = S.id","#,
    );
    let (events, _) = grouped_events();
    let mut e = engine(&config);
    let out: Vec<Output> = events.into_iter().flat_map(|(ms, stream, row)| e.push(ms, stream, row)).collect();
    let read = |row: &Row| ["most", "n", "gone"].map(|k| row.get(k).cloned().unwrap_or(Val::Null));
    let ever: Vec<(i64, [Val; 3])> = of(&out, "Ever").into_iter().map(|(ms, row)| (ms, read(row))).collect();
    let (int, no) = (Val::Int, Val::Bool(false));
    assert_eq!(
        ever,
        [
            (1_000, [int(4), int(2), no.clone()]),
            (2_000, [int(6), int(3), no.clone()]),
            (2_500, [int(5), int(1), no.clone()]),
            (3_200, [Val::Null, int(0), no.clone()]),
            (3_400, [int(6), int(3), no]),
        ],
        "sh2's 5 after sh1's 6: nothing kept from the trigger before"
    );
}

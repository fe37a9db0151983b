//! A configuration replaced while it runs: the statements kept take their state over, the others start afresh.

use super::configs::*;
use super::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Covers an aggregating pattern's groups and a rate-limited one's clock and held rows.
    #[test]
    fn counting_and_rate_limited_patterns_keep_their_state_across_a_replacement(
        steps in steps(room_event()), at in 0..40usize,
    ) {
        let mut statements: Vec<&str> = AGGREGATING_PATTERNS.to_vec();
        statements.extend(rate_limited_patterns());
        statements.extend(PACED_PATTERNS);
        let config = room_to_seen(&statements).replace(r#""out":["#, PAIRS_OUT);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    #[test]
    fn patterns_started_with_their_statement_keep_their_state_across_a_replacement(
        steps in steps(room_event()), at in 0..40usize,
    ) {
        let config = room_to_seen(&STARTED_PATTERNS);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    #[test]
    fn rooms_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        compare_across_a_replacement(ROOMS, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// Covers the priors' buffers: each statement kept counts back over the events it posted before the replacement.
    #[test]
    fn priors_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&PRIORS);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// Covers the windows the previous-event functions read: each statement kept reads the events its window held
    /// before the replacement.
    #[test]
    fn prevs_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&PREVS);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its counts of events, and what it holds for their release.
    #[test]
    fn counts_of_events_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&COUNTED);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its externally timed window.
    #[test]
    fn externally_timed_windows_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&EXT_TIMED);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its time-length batches and their clocks.
    #[test]
    fn time_length_batches_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&TIME_LENGTH_BATCH);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its sorted windows.
    #[test]
    fn sorted_windows_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&SORTED);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its time-ordered windows and their timers.
    #[test]
    fn time_ordered_windows_keep_their_state_across_a_replacement(steps in stamped_steps(), at in 0..40usize) {
        let config = stamped_room_to_seen(&TIME_ORDER);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its rates: the timestamps of the newest row and of the one that left last.
    #[test]
    fn rates_keep_their_state_across_a_replacement(steps in stamped_steps(), at in 0..40usize) {
        let config = stamped_room_to_seen(&RATES);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its accumulating windows and their timers.
    #[test]
    fn accumulating_windows_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&TIME_ACCUM);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its externally timed batches: the one it collects, the one it released, and the
    /// oldest timestamp and reference point of each key.
    #[test]
    fn externally_timed_batches_keep_their_state_across_a_replacement(
        steps in steps(room_event()),
        at in 0..40usize,
    ) {
        let config = room_to_seen(&EXT_TIMED_BATCH);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    #[test]
    fn rows_of_many_writers_reach_a_ticking_reader_as_in_the_reference_across_a_replacement(
        steps in steps(room_event()),
        at in 0..40usize,
    ) {
        compare_across_a_replacement(WRITERS_READ, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// Covers the joins' lookup views (their own rows fed back among them), the quiet time of those with `OUTPUT
    /// AFTER`, the patterns driving them, and views of named windows.
    #[test]
    fn joins_keep_their_state_across_a_replacement(
        steps in steps(join_event()), at in 0..40usize, keyed in any::<bool>(),
    ) {
        let joins = if keyed { JOINS.to_owned() } else { unkeyed_joins() };
        compare_across_a_replacement(&joins, "INSERT INTO Extra SELECT id FROM Cmd", &steps, at)?;
        compare_across_a_replacement(&window_joins(keyed), "INSERT INTO Extra SELECT id FROM Cmd", &steps, at)?;
    }

    /// Covers pattern instances with their timers and the named window's rows (the merge inserts a tracker's row once
    /// and only updates it later, so a lost row shows as a second insert).
    #[test]
    fn geofence_keeps_its_state_across_a_replacement(steps in steps(tracker_event()), at in 0..40usize) {
        compare_across_a_replacement(GEOFENCE, "INSERT INTO Extra SELECT id FROM tracker", &steps, at)?;
    }
}

proptest! {
    // Fewer cases: each runs the reference and four dataflows, twice over for the replacement (or 16 statements).
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// A kept statement keeps the rows `first` and `last` read, and their arrival numbers.
    #[test]
    fn first_and_last_keep_their_rows_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&FIRST_LAST);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// A kept statement keeps its count of rows for `OUTPUT AFTER n EVENTS`.
    #[test]
    fn counts_of_rows_after_keep_their_state_across_a_replacement(steps in steps(room_event()), at in 0..40usize) {
        let config = room_to_seen(&AFTER_ROWS);
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Room", &steps, at)?;
    }

    /// Covers the joins' output policies, and their clocks and held rows across a replacement.
    #[test]
    fn joins_with_output_policies_agree_with_the_reference(
        steps in steps(join_event()), at in 0..40usize, keyed in any::<bool>(),
    ) {
        let config = rated_joins(keyed);
        compare(&config, &steps)?;
        compare_across_a_replacement(&config, "INSERT INTO Extra SELECT id FROM Cmd", &steps, at)?;
    }

    /// Covers the joins that start on kept named windows (every join's `ON` written the other way round): their views
    /// begin with the rows the windows hold, in the order they were written (a join reading every row of `Seen`,
    /// spread over the workers, lists them in that order).
    #[test]
    fn joins_starting_on_kept_windows_read_the_rows_they_hold(
        steps in steps(join_event()), at in 0..40usize, keyed in any::<bool>(),
    ) {
        let config = with_last(&window_joins(keyed), &["CREATE WINDOW Seen.std:unique(id) as State",
            "INSERT INTO Seen SELECT * FROM State",
            "INSERT INTO Log SELECT c.shutter as id, s.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN \
                Seen as s ON c.shutter != s.status"]);
        let reversed = [("c.shutter = l.id", "l.id = c.shutter"), ("R.r.shutter = l.id", "l.id = R.r.shutter"),
            ("c.shutter = o.id", "o.id = c.shutter"), ("l.status != 'broken'", "'broken' != l.status"),
            ("c.shutter != s.status", "s.status != c.shutter")]
            .into_iter()
            .fold(config.clone(), |text, (from, to)| text.replace(&format!("ON {from}"), &format!("ON {to}")));
        let kept = Program::new(&plan(&reversed)).expect("checks").kept_from(&Program::new(&plan(&config))
            .expect("checks"), &[]);
        prop_assert!(kept.iter().all(|(_, to)| ![8, 9, 10, 11, 16].contains(to)), "no join is kept: {:?}", kept);
        prop_assert!(kept.iter().any(|(_, to)| *to == 14), "Seen is kept: {:?}", kept);
        compare_replaced(&config, &reversed, &steps, at)?;
    }
}

#[test]
fn a_changed_statement_starts_afresh_while_the_others_keep_their_state() {
    let floor = include_str!("../../../../queries/floor-average.json");
    let maximum = "INSERT INTO Floor SELECT 'max' as id, max(temperature) as temperature FROM Room.win:time(1 min)";
    let both = with_first(floor, maximum);
    let changed = both.replace("1 min", "2 min");
    let room =
        |t: f64| vec![("Room".into(), row(&[("floor", Val::String("f1".into())), ("temperature", Val::Double(t))]))];
    let rows = |out: Vec<Output>| -> Vec<(i64, String)> {
        let text = |v: Option<&Val>| v.and_then(Val::to_ngsi).unwrap_or_default();
        out.iter().map(|o| (o.time, format!("{} {}", text(o.row.get("id")), text(o.row.get("temperature"))))).collect()
    };
    let mut first = Dataflow::new(pool(2), &plan(&both), 0).expect("runs");
    first.push_batch(1_000, room(20.0));
    let program = Arc::new(Program::new(&plan(&changed)).expect("checks"));
    assert_eq!(program.kept_from(&first.program, &[]), vec![(2, 2)], "only the floor average is kept");
    assert!(program.kept_from(&first.program, &["Room".to_owned()]).is_empty(), "nothing over a redeclared type");
    let mut second = first.replace(program, &[], 0);
    drop(first);
    assert_eq!(rows(second.push_batch(2_000, room(10.0))), [(2_000, "max 10.0".to_owned())], "a fresh window");
    let tick = run(&mut second, &[Step::Advance(11_000)]);
    assert_eq!(rows(tick), [(11_000, "f1 15.0".to_owned())], "the kept window averages both readings");
}

/// A join starting on a kept named window lists the window's rows (spread over the workers, and written in an order
/// no hash map keeps) as the reference's join, reading them all along, does: in the order they were last written.
#[test]
fn a_join_starting_on_a_kept_window_lists_its_rows_in_the_order_they_were_written() {
    let config = |on: &str| {
        format!(
            r#"{{"host":"h",
  "in":[{{"id":"S.*","type":"State","isPattern":true,"attributes":[{{"name":"status","type":"string"}}]}},
    {{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{{"name":"shutter","type":"string"}}]}}],
  "out":[{{"id":"L","type":"Log","attributes":[{{"name":"seen","type":"string"}}]}}],
  "statements":["CREATE WINDOW Seen.std:unique(id) as State", "INSERT INTO Seen SELECT * FROM State",
    "INSERT INTO Log SELECT s.id as id, s.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN Seen as s ON {on}"]}}"#
        )
    };
    let text = |s: &str| Val::String(s.into());
    let written = ["s7", "s3", "s5", "s0", "s6", "s1", "s4", "s2", "s3"];
    let states: Vec<Step> = (written.iter().enumerate())
        .map(|(i, id)| {
            Step::Push(1_000 + i as i64, vec![("State".into(), row(&[("id", text(id)), ("status", text("on"))]))])
        })
        .collect();
    let probe = [Step::Push(3_000, vec![("Cmd".into(), row(&[("id", text("c")), ("shutter", text("x"))]))])];
    let ids = |out: Vec<Output>| -> Vec<String> { out.iter().filter_map(|o| o.row.get("id")?.to_ngsi()).collect() };
    let first = plan(&config("c.shutter != s.status"));
    let mut reference = Reference::new(&first, 0).expect("reference runs");
    run(&mut reference, &states);
    let expected = ids(run(&mut reference, &probe));
    assert_eq!(expected, ["s7", "s5", "s0", "s6", "s1", "s4", "s2", "s3"], "the reference lists them as written");
    for workers in [1, 2, 4] {
        let mut dataflow = Dataflow::new(pool(workers), &first, 0).expect("runs");
        run(&mut dataflow, &states);
        let program = Arc::new(Program::new(&plan(&config("s.status != c.shutter"))).expect("checks"));
        assert_eq!(program.kept_from(&dataflow.program, &[]), vec![(1, 1), (2, 2)], "the window is kept, the join not");
        let mut second = dataflow.replace(program, &[], 2_000);
        drop(dataflow);
        assert_eq!(ids(run(&mut second, &probe)), expected, "{workers} workers");
    }
}

/// The shutter joins keep their views when their group is split as before; a new member whose view spans shutters
/// puts the group on one worker, and then they start afresh, as does a join whose named window is not kept.
#[test]
fn outer_joins_are_kept_while_their_group_is_split_the_same_way() {
    let shutters = include_str!("../../../../queries/cepheus-close-shutters.json");
    let previous = Program::new(&plan(shutters)).expect("checks");
    let kept = |config: &str, previous: &Program| Program::new(&plan(config)).expect("checks").kept_from(previous, &[]);
    let extra = with_first(shutters, "INSERT INTO Extra SELECT id FROM Room");
    assert_eq!(kept(&extra, &previous), vec![(1, 2), (2, 3)], "both joins, renumbered");
    let spanning = "INSERT INTO Extra SELECT c.id as id FROM Room as c unidirectional LEFT OUTER JOIN \
        Shutter.win:length(2) as S ON c.shutter = S.id";
    assert_eq!(kept(&with_first(shutters, spanning), &previous), vec![], "the group now runs on one worker");
    let windows = Program::new(&plan(&window_joins(true))).expect("checks");
    let merge = "WHEN MATCHED AND s.status != 'broken'";
    let rewritten = window_joins(true).replace(merge, "WHEN MATCHED AND s.status != 'opened'");
    let reads_latest = |(_, new): &(usize, usize)| [8, 9, 11].contains(new);
    assert!(!kept(&rewritten, &windows).iter().any(reads_latest), "Latest is not kept, nor are its joins");
    assert!(kept(&window_joins(true), &windows).iter().filter(|p| reads_latest(p)).count() == 3, "all kept");
}

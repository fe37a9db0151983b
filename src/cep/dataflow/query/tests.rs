//! Tests of the query's state: panes, rows kept for the reaper, windows that keep no rows.

use super::*;
use crate::cep::config::CepConfig;
use crate::cep::explain::plan_config;
use crate::cep::plan::{Input, PlanNode};

/// The seed's floor statement (`Room.win:time(10 min)`, grouped by floor), planned as the service plans it.
fn floor_query() -> QueryLogic {
    let config: CepConfig =
        serde_json::from_str(include_str!("../../../../queries/floor-average.json")).expect("the seed");
    let plan = plan_config(&config, true).expect("plans");
    let PlanNode::Query(q) = &plan.statements[0].node else { panic!("a query") };
    let Input::Stream(input) = &q.input else { panic!("over a stream") };
    QueryLogic::new(0, Arc::new((**q).clone()), input.clone(), (0, 1), Arc::new(Row::new()))
}

fn room(query: &mut QueryLogic, ms: i64, (floor, temperature): (&str, f64)) {
    let row = Row::from([("floor", Val::String(floor.into())), ("temperature", Val::Double(temperature))]);
    let record = Record::Event { stamp: Stamp::input(ms as u64), stream: 0, row };
    query.record(&mut Emit::default(), timer_epoch(ms), record);
}

/// A floor's aggregates as an output reads them, its open pane folded in first.
fn average(query: &mut QueryLogic, floor: &str) -> Option<Vec<Val>> {
    let slot = *query.state.index.get(floor)?;
    query.fold_open(slot);
    Some(query.aggregates(slot))
}

#[test]
fn a_handled_row_waits_for_the_reaper_until_the_epoch_is_done() {
    let mut query = floor_query();
    query.done = Leftovers::kept();
    room(&mut query, 1_000, ("f1", 20.0));
    assert_eq!(query.done.rows().map(<[Row]>::len), Some(1), "kept, its value in the window");
    query.epoch_done();
    assert_eq!(query.done.rows().map(<[Row]>::len), Some(0), "handed to the reaper");
    assert!(average(&mut query, "f1").is_some_and(|a| a.contains(&Val::Double(20.0))), "{:?}", query.state.groups);
}

/// `statement` in place of the seed's floor statement.
fn query_of(statement: &str) -> QueryLogic {
    let mut config: serde_json::Value =
        serde_json::from_str(include_str!("../../../../queries/floor-average.json")).expect("the seed");
    config["statements"] = serde_json::json!([statement]);
    let config: CepConfig = serde_json::from_value(config).expect("a configuration");
    let plan = plan_config(&config, true).expect("plans");
    let PlanNode::Query(q) = &plan.statements[0].node else { panic!("a query") };
    let Input::Stream(input) = &q.input else { panic!("over a stream") };
    QueryLogic::new(0, Arc::new((**q).clone()), input.clone(), (0, 1), Arc::new(Row::new()))
}

#[test]
fn rows_without_a_window_are_counted_not_kept() {
    let statement = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room GROUP BY floor";
    let mut query = query_of(statement);
    for (ms, t) in [(1_000, 20.0), (2_000, 21.0), (3_000, 25.0)] {
        room(&mut query, ms, ("1", t));
    }
    assert!(query.state.entries.is_empty());
    assert_eq!(average(&mut query, "1"), Some(vec![Val::Double(22.0)]));
}

#[test]
fn a_time_window_keeps_a_group_s_rows_of_one_epoch_as_one_entry_that_leaves_whole() {
    let mut query = floor_query();
    for room_of in [("1", 20.0), ("1", 21.0), ("2", 22.0), ("1", 22.0)] {
        room(&mut query, 1_000, room_of);
    }
    assert_eq!(query.state.entries.len(), 2, "one pane per floor");
    room(&mut query, 2_000, ("1", 25.0));
    assert_eq!(query.state.entries.len(), 3, "a later epoch starts a pane");
    assert_eq!(average(&mut query, "1"), Some(vec![Val::Double(22.0)]));

    // Ten minutes after the first epoch its panes leave whole; floor 2 has nothing left.
    query.fire(&mut Emit::default(), timer_epoch(1_000 + 600_000));
    assert_eq!(query.state.entries.len(), 1);
    assert_eq!(average(&mut query, "1"), Some(vec![Val::Double(25.0)]));
    assert_eq!(query.state.groups.iter().find(|(_, g)| &*g.key == "2").map(|(_, g)| g.entries), Some(0));
    query.fire(&mut Emit::default(), timer_epoch(2_000 + 600_000));
    assert!(query.state.entries.is_empty());
}

#[test]
fn the_events_prev_reads_in_a_time_window_leave_at_the_views_timers() {
    let statement = "INSERT INTO Floor SELECT floor as id, prev(1, temperature) as temperature FROM \
                     Room.std:groupwin(floor).win:time(10 min)";
    let mut query = query_of(statement);
    room(&mut query, 1_000, ("1", 20.0));
    room(&mut query, 2_000, ("2", 21.0));
    let held = |query: &QueryLogic| query.state.history.as_ref().map(|h| h.held());
    assert_eq!(held(&query), Some(2));
    query.fire(&mut Emit::default(), timer_epoch(1_000 + 600_000));
    assert_eq!(held(&query), Some(1));
    query.fire(&mut Emit::default(), timer_epoch(2_000 + 600_000));
    assert_eq!(held(&query), Some(0), "nothing outlives the view's last timer");
}

/// An arrival that `ext:sort` pushes out at once enters and leaves its group: the group's row reads it gone, and a
/// group it alone made ends with it, so the view's groups and entries stay those of its `n` rows.
#[test]
fn an_arrival_a_sorted_window_pushes_out_ends_the_group_it_made() {
    let statement = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM \
                     Room.ext:sort(2, temperature) GROUP BY floor";
    let mut query = query_of(statement);
    let temperatures = |query: &mut QueryLogic, room_of: (&str, f64)| {
        let mut emit = Emit::default();
        let row = Row::from([("floor", Val::String(room_of.0.into())), ("temperature", Val::Double(room_of.1))]);
        query.record(&mut emit, timer_epoch(1_000), Record::Event { stamp: Stamp::input(1), stream: 0, row });
        let rows = emit.split_off(0).into_iter().filter_map(|record| match record {
            Record::Event { row, .. } => row.get("temperature").cloned(),
            _ => None,
        });
        rows.collect::<Vec<Val>>()
    };
    temperatures(&mut query, ("1", 20.0));
    assert_eq!(temperatures(&mut query, ("2", 21.0)), [Val::Double(21.0)]);
    for floor in 3..50 {
        assert_eq!(temperatures(&mut query, (&floor.to_string(), 30.0)), [Val::Null], "its group's row, emptied");
    }
    assert_eq!((query.state.entries.len(), query.state.groups.len()), (2, 2), "{:?}", query.state.groups);
    assert_eq!(average(&mut query, "1"), Some(vec![Val::Double(20.0)]));
}

/// A window's memory is its entries: this keeps one within a cache line.
#[test]
fn an_entry_fits_in_64_bytes() {
    assert!(size_of::<Entry>() <= 64, "{} bytes", size_of::<Entry>());
}

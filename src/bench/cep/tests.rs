//! Tests of the CEP bench: the baseline does the same jobs, every worker count is measured, and the rounds carry
//! every event in order.

use super::*;
use crate::cep::runtime::Engine;

/// Both sides of a scenario on the same `count` events, `gap_ms` apart: (engine outputs, baseline outputs).
fn outputs(scenario: Scenario, keys: u32, gap_ms: i64, count: i64) -> (usize, usize) {
    let mut engine = seed_engine(scenario, Workers::start(1).unwrap()).unwrap();
    let mut plain: Box<dyn PlainJob> = match scenario {
        Scenario::Geofence => Box::new(PlainGeofence::default()),
        Scenario::Floor => Box::new(PlainFloor::default()),
    };
    let mut generator = Generator::new(scenario, keys, 1, START_MS);
    let (mut ours, mut theirs) = (0, 0);
    for i in 0..count {
        let event = Event { at_ms: START_MS + i * gap_ms, ..generator.next_event() };
        ours += engine.push(event.at_ms, scenario.stream(), generator.row(&event)).len();
        theirs += plain.push(&event);
    }
    (ours, theirs)
}

#[test]
fn the_baseline_does_the_same_geofence_job() {
    let (ours, theirs) = outputs(Scenario::Geofence, 10, 50, 3_000);
    assert!(ours > 10, "{ours} alerts");
    assert_eq!(ours, theirs);
}

#[test]
fn the_baseline_does_the_same_floor_job() {
    let (ours, theirs) = outputs(Scenario::Floor, 300, 40, 20_000);
    assert!(ours > 10, "{ours} floor averages");
    assert_eq!(ours, theirs);
}

/// A short run of `scenario` on one worker, with the pool's choice of rounds ahead.
fn small(scenario: Scenario) -> CepOptions {
    CepOptions {
        scenario,
        workers: vec![1],
        duration: Duration::from_secs(60),
        keys: 1_000,
        per_ms: 100,
        ms_per_round: 4,
        rounds_ahead: None,
        events: None,
        feed: Feed::Producer,
    }
}

#[test]
fn every_worker_count_is_measured_against_one_baseline() {
    let options = CepOptions { workers: vec![1, 2], duration: Duration::from_millis(30), ..small(Scenario::Floor) };
    let reports = run(&options).unwrap();
    assert_eq!(reports.iter().map(|r| r.workers).collect::<Vec<_>>(), vec![1, 2]);
    assert!(reports.iter().all(|r| r.events > 0 && r.baseline_events == reports[0].baseline_events));
    assert!(reports[0].p99_ms > 0.0001, "{:?}", reports[0]);
    assert!(reports[0].json().starts_with(r#"{"scenario":"floor","workers":1,"throughput_per_s":"#));
}

#[test]
fn the_queued_rounds_carry_every_event_in_order() {
    for (rounds_ahead, feed) in [(0, Feed::Producer), (1, Feed::Producer), (0, Feed::Workers), (1, Feed::Workers)] {
        // 256 events a round, so both sides stop at the same event and must give the same outputs.
        let options = CepOptions {
            workers: vec![2],
            keys: 500,
            per_ms: 1,
            ms_per_round: 256,
            rounds_ahead: Some(rounds_ahead),
            events: Some(256 * 200),
            feed,
            ..small(Scenario::Geofence)
        };
        let report = &run(&options).unwrap()[0];
        assert_eq!((report.events, report.baseline_events), (51_200, 51_200));
        assert!(report.outputs > 10, "{report:?}");
        assert_eq!((report.rounds_ahead, report.feed), (rounds_ahead, feed));
        assert_eq!(report.outputs, report.baseline_outputs, "{rounds_ahead} rounds ahead, {feed:?}");
    }
}

#[test]
fn each_worker_makes_the_share_the_feeder_would_deal_it() {
    for scenario in [Scenario::Geofence, Scenario::Floor] {
        let options = CepOptions { keys: 500, per_ms: 300, ..small(scenario) };
        let engine = seed_engine(scenario, Workers::start(2).unwrap()).unwrap();
        let makers = Makers::new(&options, &engine, 2);
        let (dealing, stream) = (engine.program().dealing(), engine.program().id(scenario.stream()).unwrap());
        let mut generator = Generator::new(scenario, options.keys, options.per_ms, START_MS);
        generator.leave_room(engine.program().room(scenario.stream()));
        for round in 0..4 {
            let slot = Slot { epoch: round + 1, first: 1 + round * 300, events: 300, stream, starts: Vec::new() };
            let mut dealt = [Vec::new(), Vec::new()];
            for i in 0..slot.events {
                let event = generator.next_event();
                let row = generator.row(&event);
                dealt[dealt_to(i as usize, stream, &row, 2, Some(&dealing))].push((stream, slot.first + i, row));
            }
            for (worker, share) in dealt.iter().enumerate() {
                assert!(share.len() > 100, "{scenario:?}: worker {worker} gets {} of 300", share.len());
                assert_eq!(&makers.share(worker, 2, &slot), share, "{scenario:?}, round {round}");
            }
        }
    }
}

#[test]
fn a_count_of_events_stops_both_sides_before_the_duration() {
    let options = CepOptions { events: Some(2_000), ..small(Scenario::Floor) };
    let reports = run(&options).unwrap();
    // The engine stops at the round (400 events) that reaches the count, the baseline at the sample (256).
    assert_eq!((reports[0].events, reports[0].baseline_events), (2_000, 2_048));
}

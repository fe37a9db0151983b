//! The worker pool: dataflows installed and removed beside each other, rows handed back to the threads that made
//! them, a worker's panic, rounds in flight, and how events are dealt to the workers.

use super::configs::*;
use super::*;

#[test]
fn a_removed_dataflow_leaves_the_others_running() {
    let floor = plan(include_str!("../../../../queries/floor-average.json"));
    let workers = pool(2);
    let mut kept = Dataflow::new(workers.clone(), &floor, 0).expect("runs");
    let removed = Dataflow::new(workers, &floor, 0).expect("runs");
    let event =
        |t: f64| vec![("Room".into(), row(&[("floor", Val::String("f1".into())), ("temperature", Val::Double(t))]))];
    kept.push_batch(1_000, event(20.0));
    drop(removed);
    kept.push_batch(2_000, event(22.0));
    let out = run(&mut kept, &[Step::Advance(11_000)]);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].time, 11_000);
    assert_eq!(out[0].row.get("temperature"), Some(&Val::Double(21.0)));
}

#[test]
fn rows_the_workers_are_done_with_wait_for_a_thread_that_reaps() {
    rows_wait_for_a_thread_that_reaps(1);
}

#[test]
fn a_pool_with_a_worker_on_every_core_queues_its_rows_too() {
    rows_wait_for_a_thread_that_reaps(std::thread::available_parallelism().map_or(1, usize::from));
}

/// Feeds the floor a row that the window is done with at once, on a pool of `peers` workers.
fn rows_wait_for_a_thread_that_reaps(peers: usize) {
    let workers = Workers::start(peers).expect("workers start");
    let mut floor =
        Dataflow::new(workers.clone(), &plan(include_str!("../../../../queries/floor-average.json")), 0).expect("runs");
    let (shape, watch) = watched_shape();
    let room = |t: f64, shape: Val| {
        ("Room".into(), row(&[("floor", Val::String("f1".into())), ("temperature", Val::Double(t)), ("shape", shape)]))
    };
    // The group keeps its first row for its output; the second is the one the window is done with.
    floor.push_batch(1_000, vec![room(20.0, Val::Null), room(22.0, shape)]);
    assert_eq!(watch.strong_count(), 1, "the round is over and its row kept, not dropped");
    // A worker queues the rows it kept just after it sends the round's reply, so the queue may still lack them here
    // (it did once, in a run beside two builds): this thread reaps until they come, for at most five seconds.
    let start = std::time::Instant::now();
    while watch.strong_count() > 0 && start.elapsed() < std::time::Duration::from_secs(5) {
        workers.reap();
        std::thread::yield_now();
    }
    assert_eq!(watch.strong_count(), 0, "dropped by the thread that reaped");
}

/// Rooms of floor `f1` at 20, 21, … degrees, made on the workers; each records how many spare rows its thread kept when
/// it began.
#[derive(Default)]
struct Rooms {
    spare_seen: std::sync::Mutex<Vec<usize>>,
}

impl Source for Rooms {
    fn share(&self, worker: usize, peers: usize, slot: &Slot) -> Vec<InputEvent> {
        self.spare_seen.lock().unwrap().push(spare::kept());
        let room = |i: u64| row(&[("floor", Val::String("f1".into())), ("temperature", Val::Double(20.0 + i as f64))]);
        let mine = (0..slot.events).filter(|i| *i as usize % peers == worker);
        mine.map(|i| (slot.stream, slot.first + i, room(i))).collect()
    }
}

#[test]
fn workers_making_their_own_rows_take_back_the_rows_done_with_first_and_run_them() {
    let workers = Workers::start(1).expect("workers start");
    let mut floor =
        Dataflow::new(workers.clone(), &plan(include_str!("../../../../queries/floor-average.json")), 0).expect("runs");
    workers.queue_dead(vec![Row::new(), Row::new(), Row::new()]);
    let rooms = Arc::new(Rooms::default());
    floor.send_made(&[(1_000, 2), (1_001, 1)], "Room", rooms.clone());
    floor.send_made(&[(1_002, 1)], "Unknown", rooms.clone());
    assert_eq!(floor.in_flight(), 1, "no round for a stream the dataflow does not receive");
    assert!(floor.receive().expect("a round in flight").is_empty());
    assert_eq!(*rooms.spare_seen.lock().unwrap(), [3, 3], "both slots made after the dead rows were taken back");
    // The three rooms (20, 21 and 20 degrees) average 20.33 at the floor's first output, 10 s after its first event.
    let outputs = floor.advance(11_000);
    assert_eq!(floors(&outputs), [(11_000, "String(\"f1\")".to_owned(), 61.0 / 3.0)]);
}

#[test]
fn a_worker_making_its_own_rows_keeps_those_it_is_done_with_for_its_next_ones() {
    let workers = Workers::start(1).expect("workers start");
    let mut floor =
        Dataflow::new(workers.clone(), &plan(include_str!("../../../../queries/floor-average.json")), 0).expect("runs");
    let rooms = Arc::new(Rooms::default());
    for ms in [1_000, 1_001] {
        floor.send_made(&[(ms, 3)], "Room", rooms.clone());
        floor.receive();
    }
    let recycled = std::thread::spawn(move || {
        workers.recycle();
        spare::kept()
    });
    assert_eq!(recycled.join().unwrap(), 0, "nothing queued for the threads that make rows");
    // The window is done with each room's row once it has taken its value.
    assert_eq!(*rooms.spare_seen.lock().unwrap(), [0, 3]);
}

fn room_on(floor: &str, temperature: f64) -> Vec<Incoming> {
    let props = [("floor", Val::String(floor.into())), ("temperature", Val::Double(temperature))];
    vec![("Room".into(), row(&props))]
}

/// The time, floor and temperature of each output.
fn floors(outputs: &[Output]) -> Vec<(i64, String, f64)> {
    let text = |v: Option<&Val>| v.map(canonical).unwrap_or_default();
    let temperature = |v: Option<&Val>| if let Some(Val::Double(t)) = v { *t } else { f64::NAN };
    outputs.iter().map(|o| (o.time, text(o.row.get("id")), temperature(o.row.get("temperature")))).collect()
}

#[test]
fn after_a_worker_panics_the_pool_restarts_and_every_dataflow_runs_again_without_its_state() {
    let floor = plan(include_str!("../../../../queries/floor-average.json"));
    let workers = Workers::start(2).expect("workers start");
    let mut struck = Dataflow::new(workers.clone(), &floor, 0).expect("runs");
    let mut other = Dataflow::new(workers.clone(), &floor, 0).expect("runs");
    struck.push_batch(1_000, room_on("f1", 30.0));
    other.push_batch(1_000, room_on("f1", 30.0));
    // A round of `other` is in flight before the one that fails, and a round of `struck` after it. Worker 1 panics
    // while worker 0 waits for it to finish the epoch.
    other.send(vec![(11_500, room_on("f1", 35.0))]);
    let batch = struck.number(12_000, room_on("f1", 40.0));
    let failed = workers.send_with_a_panic(struck.id, vec![batch], 1);
    struck.send(vec![(12_500, room_on("f1", 45.0))]);
    let failed = workers.collect(failed).map(|r| r.outputs);
    assert_eq!(failed, Err(PoolError::Panicked("a worker panic injected by a test".into())));
    let before = other.receive().expect("a round in flight");
    assert_eq!(floors(&before), [(11_000, "String(\"f1\")".to_owned(), 30.0)], "the round before the failure ran");
    assert_eq!(struck.receive().map(|o| o.len()), Some(0), "the round after the failure is lost");
    for dataflow in [&mut struck, &mut other] {
        dataflow.push_batch(13_000, room_on("f1", 20.0));
        dataflow.push_batch(14_000, room_on("f1", 22.0));
        let out = run(dataflow, &[Step::Advance(30_000)]);
        assert_eq!(floors(&out), [(23_000, "String(\"f1\")".to_owned(), 21.0)], "state starts afresh");
    }
}

#[test]
fn rounds_of_two_dataflows_in_flight_at_once_reach_their_own_dataflows() {
    let floor = plan(include_str!("../../../../queries/floor-average.json"));
    let mut first = Dataflow::new(pool(2), &floor, 0).expect("runs");
    let mut second = Dataflow::new(pool(2), &floor, 0).expect("runs");
    first.send(vec![(1_000, room_on("f1", 20.0))]);
    second.send(vec![(1_000, room_on("f2", 30.0))]);
    first.send(vec![(11_500, room_on("f1", 22.0))]);
    second.send(vec![(11_500, room_on("f2", 32.0))]);
    assert_eq!((first.in_flight(), second.in_flight()), (2, 2));
    // The second dataflow's rounds come first: reading them reads the first's, which wait for it.
    let rounds = |dataflow: &mut Dataflow| std::iter::from_fn(|| dataflow.receive()).map(|o| floors(&o)).collect();
    let (second_rounds, first_rounds): (Vec<_>, Vec<_>) = (rounds(&mut second), rounds(&mut first));
    assert_eq!(first_rounds, [vec![], vec![(11_000, "String(\"f1\")".to_owned(), 20.0)]]);
    assert_eq!(second_rounds, [vec![], vec![(11_000, "String(\"f2\")".to_owned(), 30.0)]]);
}

/// The column each declared stream of `config` is dealt by, by stream name.
fn dealing_of(config: &str) -> Vec<(String, Option<String>)> {
    let program = Program::new(&plan(config)).expect("checks");
    let dealing = program.dealing();
    (0..program.stream_count())
        .map(|id| (program.name(id).to_owned(), dealing[id as usize].as_deref().map(str::to_owned)))
        .collect()
}

#[test]
fn events_are_dealt_by_the_key_their_first_keyed_statement_exchanges_them_by() {
    let geofence = dealing_of(GEOFENCE);
    assert!(geofence.contains(&("tracker".into(), Some("id".into()))), "through the stateless SELECT *: {geofence:?}");
    assert!(geofence.contains(&("TrackerInside".into(), Some("id".into()))), "the pattern's key: {geofence:?}");
    let floor = dealing_of(include_str!("../../../../queries/floor-average.json"));
    assert!(floor.contains(&("Room".into(), Some("floor".into()))), "the GROUP BY: {floor:?}");
    // Joins are not followed: their streams are dealt in turn.
    let shutters = dealing_of(include_str!("../../../../queries/cepheus-close-shutters.json"));
    assert!(shutters.iter().all(|(_, column)| column.is_none()), "{shutters:?}");
}

#[test]
fn a_program_receiving_its_incoming_types_only_ignores_events_on_a_stream_statements_produce() {
    let config = room_to_seen(&[
        "INSERT INTO Hot SELECT * FROM Room WHERE temperature > 20",
        "INSERT INTO Seen SELECT people, temperature, flap FROM Hot",
    ]);
    let plan = plan(&config);
    let hot = |t: f64| row(&[("id", Val::String("Room1".into())), ("temperature", Val::Double(t))]);
    // As a multiset: two workers may answer rows of one millisecond in either order.
    let temperatures = |outputs: Vec<Output>| -> Vec<String> {
        let mut all: Vec<String> = outputs.iter().map(|o| format!("{:?}", o.row.get("temperature"))).collect();
        all.sort();
        all
    };
    for workers in [1, 2] {
        let any = Arc::new(Program::new(&plan).expect("checks"));
        let mut open = Dataflow::install(pool(workers), any, 0);
        let pushed = open.push_batch(1_000, vec![("Hot".into(), hot(30.0)), ("Room".into(), hot(25.0))]);
        assert_eq!(temperatures(pushed), ["Some(Double(25.0))", "Some(Double(30.0))"], "{workers} workers");

        let incoming = Arc::new(Program::new(&plan).expect("checks").receiving(["Room"]));
        let mut closed = Dataflow::install(pool(workers), incoming, 0);
        let pushed = closed.push_batch(1_000, vec![("Hot".into(), hot(30.0)), ("Room".into(), hot(25.0))]);
        assert_eq!(temperatures(pushed), ["Some(Double(25.0))"], "{workers} workers: Hot only from the statement");
    }
}

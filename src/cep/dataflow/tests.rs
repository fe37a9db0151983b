//! The dataflow against the reference evaluator: fixed traces and random event streams through both, with 1, 2 and
//! 4 workers, must give the same outputs per timestamp (as multisets; doubles equal to 9 significant digits, since
//! running sums and recomputed sums may differ in the last bits).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;

use super::{Dataflow, InputEvent, PoolError, Program, Slot, Source, Workers};
use crate::cep::config::CepConfig;
use crate::cep::explain::plan_config;
use crate::cep::plan::Plan;
use crate::cep::reference::Reference;
use crate::cep::reference::lookup_tests::{config as lookup_config, pattern_driven};
use crate::cep::reference::tests::{
    AFTER, ALL_AND_FIRST, ALL_GROUPS, BATCH_PACED, COLUMN_EVERY, COLUMN_SNAPSHOTS, EVERY_GROUPS, FIRST_GROUPS,
    GROUPWIN_TOTALS, GROUPWIN_TRACES, ORDERED, ORDERED_MATCHES, PACED, PACED_ORDERED, QUIET, REMOVED,
    REMOVED_AGGREGATES, REMOVED_PACED, ROW_SNAPSHOTS, SNAPSHOT, STARTED, TRACE, TURNING, TURNING_LATER, TraceEvent,
    TraceRow, outputs_of, run_trace, snapshot_expected, trace_config, trace_expected, trace_outputs,
};
use crate::cep::runtime::value::watched_shape;
use crate::cep::runtime::{Engine, Incoming, Output, Row, Val, spare};

/// One pool per worker count, shared by the tests.
fn pool(workers: usize) -> Arc<Workers> {
    static POOLS: OnceLock<Vec<(usize, Arc<Workers>)>> = OnceLock::new();
    let pools =
        POOLS.get_or_init(|| [1, 2, 4].iter().map(|n| (*n, Workers::start(*n).expect("workers start"))).collect());
    pools.iter().find(|(n, _)| *n == workers).expect("a pool of that size").1.clone()
}

fn plan(config: &str) -> Plan {
    let config: CepConfig = serde_json::from_str(config).expect("test configuration");
    plan_config(&config, true).expect("plans")
}

/// A step of a scripted run: events at a millisecond (one batch), or time moving on.
#[derive(Debug, Clone)]
enum Step {
    Push(i64, Vec<Incoming>),
    Advance(i64),
}

fn run(engine: &mut dyn Engine, steps: &[Step]) -> Vec<Output> {
    let mut out = Vec::new();
    for step in steps {
        match step {
            Step::Push(ms, events) => out.extend(engine.push_batch(*ms, events.clone())),
            Step::Advance(ms) => {
                while let Some(due) = engine.next_timer().filter(|t| t <= ms) {
                    out.extend(engine.advance(due));
                }
                out.extend(engine.advance(*ms));
            }
        }
    }
    out
}

/// As `run`, but the pushes between two advances go to the engine together, as the service's feeder sends what
/// queued up while the workers were busy.
fn run_pipelined(engine: &mut dyn Engine, steps: &[Step]) -> Vec<Output> {
    let mut out = Vec::new();
    let mut queued = Vec::new();
    for step in steps {
        match step {
            Step::Push(ms, events) => queued.push((*ms, events.clone())),
            Step::Advance(_) => {
                out.extend(engine.push_batches(std::mem::take(&mut queued)));
                out.extend(run(engine, std::slice::from_ref(step)));
            }
        }
    }
    out.extend(engine.push_batches(queued));
    out
}

/// As `run`, but each push is sent while up to two rounds before it may still run on the workers, and the rounds are
/// received later, as the service's feeder and the bench keep rounds in flight.
fn run_queued(dataflow: &mut Dataflow, steps: &[Step]) -> Vec<Output> {
    let mut out = Vec::new();
    for step in steps {
        match step {
            Step::Push(ms, events) => {
                dataflow.send(vec![(*ms, events.clone())]);
                while dataflow.in_flight() > 2 {
                    out.extend(dataflow.receive().into_iter().flatten());
                }
            }
            Step::Advance(_) => {
                out.extend(std::iter::from_fn(|| dataflow.receive()).flatten());
                out.extend(run(dataflow, std::slice::from_ref(step)));
            }
        }
    }
    out.extend(std::iter::from_fn(|| dataflow.receive()).flatten());
    out
}

fn canonical(v: &Val) -> String {
    match v {
        Val::Double(x) => format!("{x:.8e}"),
        other => format!("{other:?}"),
    }
}

/// Outputs by timestamp, each timestamp's rows sorted.
fn by_time(outputs: Vec<Output>) -> BTreeMap<i64, Vec<String>> {
    let mut map: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for o in outputs {
        let row: Vec<String> = o.row.iter().map(|(k, v)| format!("{k}={}", canonical(v))).collect();
        map.entry(o.time).or_default().push(format!("{} {}", o.stream, row.join(",")));
    }
    map.values_mut().for_each(|rows| rows.sort());
    map
}

/// Runs `steps` through the reference and the dataflow: on 1, 2 and 4 workers taking events on the configuration's
/// incoming types only, as the service runs it, each round waited for and then with rounds in flight; and on 2
/// workers taking them on every stream, with pushes pipelined.
fn compare(config: &str, steps: &[Step]) -> Result<(), TestCaseError> {
    let plan = plan(config);
    let expected = by_time(run(&mut Reference::new(&plan, 0).expect("reference runs"), steps));
    let parsed: CepConfig = serde_json::from_str(config).expect("test configuration");
    let incoming = Arc::new(Program::new(&plan).expect("checks").receiving(parsed.incoming_types()));
    for workers in [1, 2, 4] {
        let mut dataflow = Dataflow::install(pool(workers), incoming.clone(), 0);
        let got = by_time(run(&mut dataflow, steps));
        prop_assert_eq!(&got, &expected, "{} workers", workers);
        let mut queued = Dataflow::install(pool(workers), incoming.clone(), 0);
        prop_assert_eq!(&by_time(run_queued(&mut queued, steps)), &expected, "{} workers, rounds queued", workers);
    }
    let mut pipelined = Dataflow::new(pool(2), &plan, 0).expect("dataflow runs");
    prop_assert_eq!(&by_time(run_pipelined(&mut pipelined, steps)), &expected, "2 workers, batches pipelined");
    Ok(())
}

fn row(props: &[(&str, Val)]) -> Row {
    props.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

const ROOMS: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[
    {"name":"temperature","type":"double"},{"name":"floor","type":"string"},{"name":"people","type":"int"},
    {"name":"flap","type":"string"}]}],
  "out":[
    {"id":"F","type":"Floor","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"S","type":"Stats","attributes":[{"name":"n","type":"int"},{"name":"lo","type":"double"},
      {"name":"hi","type":"double"},{"name":"sd","type":"double"},{"name":"people","type":"int"}]},
    {"id":"H","type":"Hot","attributes":[{"name":"floor","type":"string"},{"name":"temperature","type":"double"},
      {"name":"mean","type":"double"}]},
    {"id":"L","type":"Warm","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"N","type":"Len","attributes":[{"name":"people","type":"int"}]},
    {"id":"P","type":"Flap","attributes":[{"name":"status","type":"string"}]},
    {"id":"U","type":"Upper","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"C","type":"Crowd","attributes":[{"name":"n","type":"int"}]},
    {"id":"B","type":"Brief","attributes":[{"name":"people","type":"int"},{"name":"lo","type":"double"}]},
    {"id":"G","type":"Batched","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"K","type":"Kept","attributes":[{"name":"people","type":"int"}]},
    {"id":"E","type":"Each","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"T","type":"Total","attributes":[{"name":"n","type":"int"}]},
    {"id":"Q","type":"Snap","attributes":[{"name":"n","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"V","type":"Above","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"W","type":"Firsts","attributes":[{"name":"people","type":"int"}]},
    {"id":"A","type":"Later","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"R","type":"Tardy","attributes":[{"name":"people","type":"int"}]},
    {"id":"Y","type":"Late","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"Z","type":"Early","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"X","type":"AllGroups","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"}]},
    {"id":"J","type":"Quiet","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"D","type":"Shot","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"M","type":"Recent","attributes":[{"name":"people","type":"int"}]},
    {"id":"I","type":"Hush","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"O","type":"Hushed","attributes":[{"name":"n","type":"int"}]},
    {"id":"FF","type":"FirstFloor","attributes":[{"name":"n","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"FA","type":"FirstAll","attributes":[{"name":"people","type":"int"}]},
    {"id":"FR","type":"FirstRoom","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"FO","type":"FirstOrdered","attributes":[{"name":"n","type":"int"}]},
    {"id":"EV","type":"Changes","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"}]},
    {"id":"EA","type":"ChangesAll","attributes":[{"name":"people","type":"int"}]},
    {"id":"CS","type":"ColumnShot","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"CA","type":"ColumnAll","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"CE","type":"ColumnEvery","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CU","type":"ColumnUnique","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CW","type":"ColumnWarm","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"RB","type":"RoomBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"FB","type":"FloorBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"MB","type":"RoomsBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"AB","type":"AllBatch","attributes":[{"name":"n","type":"int"},{"name":"people","type":"int"}]},
    {"id":"PB","type":"PacedBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"IB","type":"FirstBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"SB","type":"ShotBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"VB","type":"EveryBatch","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"LB","type":"LastBatch","attributes":[{"name":"people","type":"int"}]},
    {"id":"AF","type":"AllFloors","attributes":[{"name":"n","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"SF","type":"ShotFloors","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"IF","type":"FirstFloors","attributes":[{"name":"n","type":"int"}]},
    {"id":"ET","type":"EveryTotal","attributes":[{"name":"people","type":"int"}]},
    {"id":"DF","type":"DefaultFloors","attributes":[{"name":"people","type":"int"}]},
    {"id":"CB","type":"ColumnBatch","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CSB","type":"ColumnShotBatch","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CEB","type":"ColumnEveryBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"CLB","type":"ColumnLastBatch","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CAB","type":"ColumnAllBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"CFB","type":"ColumnFirstBatch","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"CTB","type":"ColumnLateBatch","attributes":[{"name":"people","type":"int"},{"name":"temperature","type":"double"}]},
    {"id":"GN","type":"Gone","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"RP","type":"Replaced","attributes":[{"name":"people","type":"int"}]},
    {"id":"PU","type":"Pushed","attributes":[{"name":"people","type":"int"}]},
    {"id":"UB","type":"Unbatched","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"GL","type":"GoneLater","attributes":[{"name":"people","type":"int"}]},
    {"id":"BF","type":"Before","attributes":[{"name":"people","type":"int"}]},
    {"id":"BA","type":"BeforeAll","attributes":[{"name":"n","type":"int"}]},
    {"id":"BU","type":"BeforeUnique","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"LW","type":"LeftWith","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"RW","type":"ReplacedWith","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"BB","type":"BatchBefore","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"BL","type":"BatchLeft","attributes":[{"name":"people","type":"int"},{"name":"n","type":"int"}]},
    {"id":"GE","type":"GoneEvery","attributes":[{"name":"temperature","type":"double"}]},
    {"id":"RL","type":"ReplacedLast","attributes":[{"name":"people","type":"int"}]},
    {"id":"UA","type":"UnbatchedAll","attributes":[{"name":"temperature","type":"double"}]}],
  "statements":[
    "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(10 sec) GROUP BY floor OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Stats SELECT floor as id, count(*) as n, min(temperature) as lo, max(temperature) as hi, stddev(temperature) as sd, sum(people) as people FROM Room.win:time(5 sec) WHERE temperature > 10 GROUP BY floor",
    "INSERT INTO Hot SELECT id, floor, temperature, avg(temperature) as mean FROM Room.std:unique(id) GROUP BY floor HAVING avg(temperature) > 20",
    "INSERT INTO Warm SELECT id, temperature FROM Room(temperature > 30) OUTPUT LAST EVERY 3 sec",
    "INSERT INTO Crowd SELECT floor as id, count(*) as n FROM Room.win:time(3 sec) GROUP BY floor HAVING people > 9",
    "INSERT INTO Brief SELECT floor as id, sum(people) as people, min(temperature) as lo FROM Room.win:time(1 sec) GROUP BY floor OUTPUT LAST EVERY 3 sec",
    "INSERT INTO Len SELECT floor as id, sum(people) as people FROM Room.win:length(5) GROUP BY floor",
    "INSERT INTO Batched SELECT floor as id, sum(people) as people, avg(temperature) as temperature FROM Room.win:time_batch(2 sec) GROUP BY floor HAVING count(*) > 1 OR people > 15",
    "INSERT INTO Kept SELECT id, people FROM Room.win:length_batch(3) WHERE people > 5",
    "INSERT INTO Each SELECT id, people, count(*) as n FROM Room(temperature > 10).win:length_batch(4) GROUP BY floor ORDER BY people DESC, id",
    "INSERT INTO Total SELECT count(*) as n FROM Room.win:time_batch(1500 msec)",
    "INSERT INTO Snap SELECT floor as id, count(*) as n, max(temperature) as temperature FROM Room.win:time(3 sec) WHERE people > 3 GROUP BY floor HAVING count(*) < 4 OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO Above SELECT id, temperature FROM Room(temperature > 25) OUTPUT ALL EVERY 2 sec ORDER BY temperature",
    "INSERT INTO Firsts SELECT id, people FROM Room.win:length(3) WHERE people > 10 OUTPUT FIRST EVERY 1500 msec",
    "INSERT INTO Warmish SELECT id, floor, temperature FROM Room(temperature > 20)",
    "INSERT INTO Upper SELECT floor as id, max(temperature) as temperature FROM Warmish GROUP BY floor OUTPUT LAST EVERY 4 sec ORDER BY temperature DESC",
    "INSERT INTO Later SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(4 sec) GROUP BY floor OUTPUT AFTER 5 sec LAST EVERY 2 sec",
    "INSERT INTO Tardy SELECT id, people FROM Room(people > 8) OUTPUT AFTER 4 sec EVERY 1500 msec",
    "INSERT INTO Late SELECT floor as id, max(temperature) as temperature FROM Warmish GROUP BY floor OUTPUT AFTER 6 sec LAST EVERY 2 sec",
    "INSERT INTO Early SELECT id, temperature FROM Warmish OUTPUT AFTER 3 sec FIRST EVERY 2 sec",
    "INSERT INTO AllGroups SELECT floor as id, count(*) as n, sum(people) as people FROM Room.win:time(3 sec) WHERE people > 2 GROUP BY floor HAVING count(*) < 5 OUTPUT ALL EVERY 2 sec",
    "INSERT INTO Quiet SELECT floor as id, max(temperature) as temperature FROM Room.win:time(2 sec) GROUP BY floor OUTPUT AFTER 4 sec",
    "INSERT INTO Shot SELECT id, temperature FROM Room.std:unique(id) WHERE temperature > 15 OUTPUT SNAPSHOT EVERY 2 sec ORDER BY temperature DESC",
    "INSERT INTO Hush SELECT a.id as id, a.temperature as temperature FROM pattern [every a=Room(temperature > 30) -> Room(id = a.id, temperature < 20)] OUTPUT AFTER 20 sec",
    "INSERT INTO Hushed SELECT floor as id, count(*) as n FROM Room.win:time_batch(2 sec) GROUP BY floor OUTPUT AFTER 15 sec",
    "INSERT INTO Recent SELECT id, people FROM Room(people > 2).std:groupwin(floor).win:length(2) WHERE people < 15 OUTPUT AFTER 2 sec SNAPSHOT EVERY 1500 msec",
    "INSERT INTO FirstFloor SELECT floor as id, count(*) as n, max(temperature) as temperature FROM Room.win:time(3 sec) WHERE people > 3 GROUP BY floor HAVING count(*) < 4 OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO FirstAll SELECT 'all' as id, sum(people) as people FROM Room.win:length(4) WHERE temperature > 12 OUTPUT FIRST EVERY 1500 msec",
    "INSERT INTO FirstRoom SELECT id, people, avg(temperature) as temperature FROM Room.std:unique(id) WHERE people > 1 GROUP BY floor OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO FirstOrdered SELECT floor as id, count(*) as n FROM Room.std:groupwin(id).win:length(2) GROUP BY floor OUTPUT AFTER 3 sec FIRST EVERY 1 sec ORDER BY n DESC",
    "INSERT INTO Changes SELECT floor as id, count(*) as n, sum(people) as people FROM Room.std:unique(id) WHERE temperature > 12 GROUP BY floor HAVING count(*) < 3 OUTPUT EVERY 1500 msec",
    "INSERT INTO ColumnShot SELECT id, people, avg(temperature) as temperature FROM Room.win:length(4) WHERE people > 2 GROUP BY floor HAVING count(*) > 1 OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO ColumnAll SELECT id, people, avg(temperature) as temperature FROM Room.win:time(3 sec) WHERE people > 2 GROUP BY floor HAVING count(*) > 1 OUTPUT ALL EVERY 2 sec",
    "INSERT INTO ColumnEvery SELECT id, people, sum(people) as n FROM Room.win:length(3) WHERE temperature > 10 OUTPUT EVERY 1500 msec",
    "INSERT INTO ColumnUnique SELECT id, people, count(*) as n FROM Room.std:unique(id) WHERE temperature > 12 GROUP BY floor OUTPUT AFTER 2 sec ALL EVERY 1 sec ORDER BY people DESC",
    "INSERT INTO ColumnWarm SELECT id, people, max(temperature) as temperature FROM Room.win:time(2 sec) HAVING max(temperature) > 20 OUTPUT ALL EVERY 1 sec",
    "INSERT INTO RoomBatch SELECT id, people FROM Room.std:groupwin(id).win:length_batch(2) WHERE people > 3 ORDER BY people DESC",
    "INSERT INTO FloorBatch SELECT floor as id, sum(people) as people, avg(temperature) as temperature FROM Room(temperature > 5).std:groupwin(id).win:time_batch(1500 msec) GROUP BY floor HAVING count(*) > 1 OR people > 12",
    "INSERT INTO RoomsBatch SELECT id, people, max(temperature) as temperature FROM Room.std:groupwin(id).win:length_batch(3) WHERE people > 1 GROUP BY floor",
    "INSERT INTO AllBatch SELECT 'all' as id, count(*) as n, min(people) as people FROM Room.std:groupwin(floor).win:time_batch(2 sec)",
    "INSERT INTO PacedBatch SELECT id, people FROM Room.win:length_batch(3) WHERE people > 4 OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO FirstBatch SELECT id, people FROM Room.std:groupwin(floor).win:time_batch(1 sec) OUTPUT FIRST EVERY 2 sec ORDER BY people DESC, id",
    "INSERT INTO ShotBatch SELECT id, people FROM Room(people > 2).std:groupwin(id).win:length_batch(2) OUTPUT SNAPSHOT EVERY 2 sec ORDER BY people, id",
    "INSERT INTO EveryBatch SELECT id, temperature FROM Room.win:time_batch(1 sec) WHERE temperature > 20 OUTPUT AFTER 3 sec EVERY 1 sec",
    "INSERT INTO LastBatch SELECT floor as id, sum(people) as people FROM Room.std:groupwin(id).win:length_batch(2) WHERE temperature > 8 GROUP BY floor HAVING count(*) > 1 OR people > 10 OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO AllFloors SELECT floor as id, count(*) as n, max(temperature) as temperature FROM Room.win:time_batch(1 sec) GROUP BY floor OUTPUT ALL EVERY 2 sec ORDER BY n DESC",
    "INSERT INTO ShotFloors SELECT floor as id, avg(temperature) as temperature FROM Room(people > 3).win:length_batch(3) GROUP BY floor OUTPUT AFTER 2 sec SNAPSHOT EVERY 1 sec",
    "INSERT INTO FirstFloors SELECT floor as id, count(*) as n FROM Room.std:groupwin(floor).win:time_batch(1 sec) GROUP BY floor HAVING count(*) < 4 OUTPUT FIRST EVERY 6 sec",
    "INSERT INTO EveryTotal SELECT 'all' as id, sum(people) as people FROM Room.win:length_batch(2) WHERE people > 2 OUTPUT EVERY 1 sec",
    "INSERT INTO DefaultFloors SELECT floor as id, sum(people) as people FROM Room.win:time_batch(1 sec) GROUP BY floor OUTPUT EVERY 1500 msec",
    "INSERT INTO ColumnBatch SELECT id, people, sum(people) as n FROM Room.win:length_batch(3) WHERE temperature > 10 OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO ColumnShotBatch SELECT id, people, count(*) as n FROM Room.std:groupwin(id).win:length_batch(2) GROUP BY floor HAVING count(*) > 1 OUTPUT SNAPSHOT EVERY 2 sec",
    "INSERT INTO ColumnEveryBatch SELECT id, people, max(temperature) as temperature FROM Room.win:time_batch(1 sec) GROUP BY floor OUTPUT EVERY 1500 msec ORDER BY temperature DESC",
    "INSERT INTO ColumnLastBatch SELECT id, people, sum(people) as n FROM Room.win:length_batch(3) WHERE temperature > 10 GROUP BY floor OUTPUT LAST EVERY 1500 msec",
    "INSERT INTO ColumnAllBatch SELECT id, people, max(temperature) as temperature FROM Room.std:groupwin(id).win:length_batch(2) GROUP BY floor HAVING count(*) > 1 OUTPUT ALL EVERY 2 sec",
    "INSERT INTO ColumnFirstBatch SELECT id, people, count(*) as n FROM Room.win:time_batch(1 sec) WHERE people > 2 GROUP BY floor OUTPUT FIRST EVERY 3 sec",
    "INSERT INTO ColumnLateBatch SELECT id, people, avg(temperature) as temperature FROM Room.win:time_batch(1500 msec) GROUP BY floor OUTPUT AFTER 3 sec LAST EVERY 2 sec ORDER BY people DESC, id",
    "INSERT INTO Gone SELECT RSTREAM id, temperature FROM Room.win:time(3 sec) WHERE people > 2",
    "INSERT INTO Replaced SELECT RSTREAM id, people FROM Room.std:unique(id) WHERE temperature > 12 ORDER BY people DESC",
    "INSERT INTO Pushed SELECT RSTREAM id, people FROM Room(people > 1).std:groupwin(floor).win:length(2)",
    "INSERT INTO Unbatched SELECT RSTREAM id, temperature FROM Room.win:time_batch(1 sec) WHERE temperature > 10",
    "INSERT INTO GoneLater SELECT RSTREAM id, people FROM Room.win:time(2 sec) OUTPUT AFTER 3 sec",
    "INSERT INTO Before SELECT RSTREAM floor as id, sum(people) as people FROM Room.win:time(2 sec) WHERE temperature > 10 GROUP BY floor",
    "INSERT INTO BeforeAll SELECT RSTREAM 'all' as id, count(*) as n FROM Room(people > 1)",
    "INSERT INTO BeforeUnique SELECT RSTREAM floor as id, max(temperature) as temperature FROM Room.std:unique(id) GROUP BY floor HAVING count(*) > 1",
    "INSERT INTO LeftWith SELECT RSTREAM id, people, sum(people) as n FROM Room.win:time(2 sec) WHERE temperature > 8 GROUP BY floor ORDER BY people DESC",
    "INSERT INTO ReplacedWith SELECT RSTREAM id, people, count(*) as n FROM Room.std:groupwin(floor).win:length(2) HAVING count(*) > 2",
    "INSERT INTO BatchBefore SELECT RSTREAM floor as id, avg(temperature) as temperature FROM Room.win:time_batch(1 sec) GROUP BY floor",
    "INSERT INTO BatchLeft SELECT RSTREAM id, people, sum(people) as n FROM Room.std:groupwin(floor).win:length_batch(2) GROUP BY floor",
    "INSERT INTO GoneEvery SELECT RSTREAM id, temperature FROM Room.win:time(2 sec) WHERE people > 1 OUTPUT EVERY 1500 msec ORDER BY temperature DESC",
    "INSERT INTO ReplacedLast SELECT RSTREAM id, people FROM Room.std:unique(id) OUTPUT AFTER 2 sec LAST EVERY 1 sec",
    "INSERT INTO UnbatchedAll SELECT RSTREAM id, temperature FROM Room(people > 2).win:time_batch(1 sec) OUTPUT ALL EVERY 2 sec",
    "INSERT INTO ChangesAll SELECT 'all' as id, sum(people) as people FROM Room.win:time(2 sec) HAVING sum(people) > 10 OUTPUT AFTER 2 sec ALL EVERY 1 sec",
    "INSERT INTO Flap SELECT a.flap as id, 'closed' as status FROM pattern [every a=Room(temperature > cast(25,double)) -> ( (Room(id=a.id, temperature > cast(25,double)) and not Room(id=a.id, temperature <= cast(25,double))) -> (Room(id=a.id, temperature > cast(25,double)) and not Room(id=a.id, temperature <= cast(25,double)))) where timer:within(10 seconds)]"
  ]}"#;

/// Two `OUTPUT FIRST` statements, one `OUTPUT EVERY`, a snapshot with an ungrouped column, grouped `LAST` and
/// `SNAPSHOT` ticks over workers, and `OUTPUT ALL` and `OUTPUT EVERY` of queries with ungrouped columns, writing one
/// stream with rows at their expiries and ticks, and readers of it that tick (a query, a pattern under `LAST`, an
/// aggregating pattern, a time batch) or see its order (a sum of each two rows): the rows of one millisecond reach
/// them in the reference's order, the groups on other workers in between, and before their ticks.
const WRITERS_READ: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[
    {"name":"temperature","type":"double"},{"name":"floor","type":"string"},{"name":"people","type":"int"},
    {"name":"flap","type":"string"}]}],
  "out":[{"id":"FL","type":"LastFirst","attributes":[{"name":"n","type":"int"}]},
    {"id":"PS","type":"Pairs","attributes":[{"name":"n","type":"int"}]},
    {"id":"FP","type":"FirstPaced","attributes":[{"name":"n","type":"int"}]},
    {"id":"CP","type":"Counted","attributes":[{"name":"n","type":"int"}]},
    {"id":"BT","type":"Batched","attributes":[{"name":"n","type":"int"}]},
    {"id":"BL","type":"BatchedLast","attributes":[{"name":"n","type":"int"}]}],
  "statements":[
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(3 sec) GROUP BY floor OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(2 sec) WHERE people > 5 GROUP BY floor OUTPUT FIRST EVERY 1 sec",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(1 sec) GROUP BY floor OUTPUT EVERY 2 sec",
    "INSERT INTO Firsted SELECT floor, count(*) - people as n FROM Room.win:time(2 sec) GROUP BY floor HAVING count(*) > 0 OUTPUT SNAPSHOT EVERY 2500 msec",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(2 sec) GROUP BY floor OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Firsted SELECT floor, sum(people) as n FROM Room.win:time(4 sec) WHERE people > 3 GROUP BY floor OUTPUT SNAPSHOT EVERY 1500 msec",
    "INSERT INTO Firsted SELECT floor, count(*) - people as n FROM Room.win:time(2 sec) GROUP BY floor OUTPUT ALL EVERY 1500 msec",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:length(3) WHERE people > 4 OUTPUT EVERY 2 sec",
    "INSERT INTO Firsted SELECT floor, people - count(*) as n FROM Room.std:groupwin(floor).win:time_batch(1 sec) GROUP BY floor",
    "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:length_batch(2) GROUP BY floor OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Firsted SELECT floor, people - count(*) as n FROM Room.win:length_batch(3) GROUP BY floor OUTPUT ALL EVERY 1500 msec",
    "INSERT INTO LastFirst SELECT floor as id, n FROM Firsted OUTPUT LAST EVERY 3 sec",
    "INSERT INTO Pairs SELECT 'pairs' as id, sum(n) as n FROM Firsted.win:length(2)",
    "INSERT INTO FirstPaced SELECT f.floor as id, f.n as n FROM pattern [every f=Firsted] OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Counted SELECT 'counted' as id, sum(f.n) as n FROM pattern [every f=Firsted] OUTPUT EVERY 1500 msec",
    "INSERT INTO Batched SELECT 'batched' as id, sum(n) as n FROM Firsted.win:time_batch(2 sec)",
    "INSERT INTO BatchedLast SELECT floor as id, n FROM Firsted.win:length_batch(2) OUTPUT LAST EVERY 1500 msec"
  ]}"#;

/// `config` with the statements that read the stream its other statements write (`Firsted`) listed first.
fn readers_first(config: &str) -> String {
    let mut value: serde_json::Value = serde_json::from_str(config).expect("test configuration");
    let statements = value["statements"].as_array_mut().expect("statements");
    let reads = |text: &str| text.contains("Firsted") && !text.starts_with("INSERT INTO Firsted");
    statements.sort_by_key(|s| !s.as_str().is_some_and(reads));
    value.to_string()
}

fn room_event() -> impl Strategy<Value = Incoming> {
    (0..6u8, 0..8u8, 0..45u8, 0..20i64).prop_map(|(room, floor, temperature, people)| {
        // Mostly text floors; now and then values whose text forms look alike, which must still group apart.
        let floor = match floor {
            4 => Val::Int(1),
            5 => Val::String("Int(1)".into()),
            6 => Val::Null,
            7 => Val::String("\0f1".into()),
            n => Val::String(format!("f{}", n % 3).into()),
        };
        let event = row(&[
            ("id", Val::String(format!("room{room}").into())),
            ("floor", floor),
            ("temperature", Val::Double(f64::from(temperature) + 0.25)),
            ("people", Val::Int(people)),
            ("flap", Val::String(format!("flap{room}").into())),
        ]);
        ("Room".into(), event)
    })
}

/// Batches at increasing milliseconds, several sharing one, with time moving on between some of them.
fn steps(event: impl Strategy<Value = Incoming>) -> impl Strategy<Value = Vec<Step>> {
    let batch = (0..2500i64, prop::collection::vec(event, 1..4), any::<bool>());
    prop::collection::vec(batch, 1..40).prop_map(|batches| {
        let mut ms = 1_000;
        let mut steps = Vec::new();
        for (delta, events, pause) in batches {
            ms += delta;
            steps.push(Step::Push(ms, events));
            if pause {
                ms += delta / 2;
                steps.push(Step::Advance(ms));
            }
        }
        steps.push(Step::Advance(ms + 30_000));
        steps
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn rooms_agree_with_the_reference(steps in steps(room_event())) {
        compare(ROOMS, &steps)?;
    }

    #[test]
    fn rows_of_many_writers_reach_a_ticking_reader_as_in_the_reference(steps in steps(room_event())) {
        compare(WRITERS_READ, &steps)?;
    }

    /// The same with the readers listed first: the ticks of one millisecond go in the configuration's order, so a
    /// reader's tick goes before its writers' there, and their rows reach its next interval.
    #[test]
    fn rows_of_many_writers_reach_readers_listed_before_them_as_in_the_reference(steps in steps(room_event())) {
        compare(&readers_first(WRITERS_READ), &steps)?;
    }

    #[test]
    fn geofence_agrees_with_the_reference(steps in steps(tracker_event())) {
        compare(GEOFENCE, &steps)?;
    }

    #[test]
    fn joins_agree_with_the_reference(steps in steps(join_event()), keyed in any::<bool>()) {
        let config = if keyed { JOINS.to_owned() } else { unkeyed_joins() };
        compare(&config, &steps)?;
    }

    #[test]
    fn named_window_lookups_agree_with_the_reference(steps in steps(join_event()), keyed in any::<bool>()) {
        compare(&window_joins(keyed), &steps)?;
    }

    #[test]
    fn unread_named_windows_agree_with_the_reference(steps in steps(room_event())) {
        compare(&unread_windows(), &steps)?;
    }

    #[test]
    fn named_window_writers_agree_with_the_reference(steps in steps(room_event()), keyed in any::<bool>()) {
        let config = if keyed { windows() } else { windows().replace(r#""INSERT INTO Seen"#, UNKEYED_MERGE) };
        compare(&config, &steps)?;
    }

    /// Patterns that aggregate their matches, grouped and not: the groups' aggregates grow with every match.
    #[test]
    fn aggregating_patterns_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&AGGREGATING_PATTERNS), &steps)?;
    }

    /// Patterns that aggregate their matches under each output policy ([`PACED_PATTERNS`]).
    #[test]
    fn aggregating_patterns_under_output_policies_agree_with_the_reference(steps in steps(room_event())) {
        compare(&paced_patterns(), &steps)?;
    }

    /// Patterns under each output policy without aggregates, one waiting with `AFTER`, one whose matches come at its
    /// timers' expiry as well as at events.
    #[test]
    fn rate_limited_patterns_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&rate_limited_patterns()), &steps)?;
    }

    /// An instance's second timer is due before its first: timers fire by due epoch, not in the order set.
    #[test]
    fn timers_due_out_of_the_order_set_agree_with_the_reference(steps in steps(room_event())) {
        let pattern = "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap \
            as flap FROM pattern [every a=Room(temperature > 20) -> (timer:interval(4 sec) or (timer:interval(1 sec) \
            and Room(id=a.id, temperature < 10)))]";
        compare(&room_to_seen(&[pattern]), &steps)?;
    }

    /// A key's instances form runs by the values they pinned, and an event ends the runs whose values it matches,
    /// the oldest or a later one: the start events written down for the queue's instances must last until their
    /// timers fire (`automaton::starts`).
    #[test]
    fn runs_ended_out_of_their_order_agree_with_the_reference(steps in steps(room_event())) {
        let pattern = "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap \
            as flap FROM pattern [every a=Room(temperature > 20) -> (timer:interval(4 sec) and not Room(id=a.id, \
            people < a.people))]";
        compare(&room_to_seen(&[pattern]), &steps)?;
    }

    /// A row found by its text key skips the key test of the merge's condition but not the rest of it; a writer
    /// that sets the key column keeps the whole condition.
    #[test]
    fn keyed_merges_test_the_rest_of_their_condition(steps in steps(room_event()), sets_key in any::<bool>()) {
        let mut config = windows().replace("WHERE w.id = r.id WHEN", "WHERE w.people > 2 AND r.id = w.id WHEN");
        if sets_key {
            config = config.replace("SET people = Cool.people * 2", "SET people = Cool.people * 2, id = Cool.id");
        }
        compare(&config, &steps)?;
    }
}

/// A configuration reading `Room` events and writing `Seen` rows, with `statements`.
/// Patterns that aggregate their matches: grouped, with `WHERE` and `HAVING`, and not, with a timer.
const AGGREGATING_PATTERNS: [&str; 2] = [
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, max(a.temperature - b.temperature) as temperature, \
     min(a.flap) as flap FROM pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] \
     WHERE b.people > 2 GROUP BY a.floor HAVING count(*) != 2",
    "INSERT INTO Seen SELECT b.id as id, count(*) as people, avg(b.temperature) as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 35) -> (b=Room(id = a.id, temperature < 25) or timer:interval(3 sec))]",
];

/// Patterns that aggregate their matches under each output policy: fully aggregated, grouped (`LAST` with `WHERE`
/// and `HAVING`, `ALL` sorted, `SNAPSHOT` waiting with `AFTER`, `FIRST`) and not (the default, matches made at
/// timers too; `LAST`); with ungrouped columns, grouped (`ALL`, `LAST` with `HAVING`) and not (the default, `FIRST`);
/// and a reader of their rows that sees their order (each row's sum with the one before).
const PACED_PATTERNS: [&str; 11] = [
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, max(b.temperature) as temperature, min(a.flap) as \
     flap FROM pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] WHERE b.people > 2 \
     GROUP BY a.floor HAVING count(*) != 2 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, avg(a.temperature) as temperature, max(a.flap) as \
     flap FROM pattern [every a=Room(temperature > 25)] GROUP BY a.floor OUTPUT ALL EVERY 2 sec ORDER BY people DESC",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, sum(a.temperature) as temperature, min(a.flap) as \
     flap FROM pattern [every a=Room(people > 12)] GROUP BY a.floor OUTPUT AFTER 3 sec SNAPSHOT EVERY 2500 msec",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, min(a.temperature) as temperature, max(a.flap) as \
     flap FROM pattern [every a=Room(temperature < 12)] GROUP BY a.floor OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Seen SELECT 'all' as id, count(*) as people, avg(b.temperature) as temperature, max(a.flap) as flap \
     FROM pattern [every a=Room(temperature > 35) -> (b=Room(id = a.id, temperature < 25) or timer:interval(3 sec))] \
     OUTPUT EVERY 1500 msec",
    "INSERT INTO Seen SELECT 'n' as id, count(*) as people, sum(a.temperature) as temperature, min(a.flap) as flap \
     FROM pattern [every a=Room(people > 15)] OUTPUT LAST EVERY 1 sec",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 28) -> b=Room(id = a.id, temperature < 22)] GROUP BY a.floor OUTPUT ALL \
     EVERY 1500 msec",
    "INSERT INTO Seen SELECT a.floor as id, count(*) as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(people > 10)] GROUP BY a.floor HAVING count(*) > 1 OUTPUT LAST EVERY 2 sec",
    "INSERT INTO Seen SELECT a.id as id, count(*) as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 20) -> b=Room(id = a.id, temperature < 15)] OUTPUT EVERY 1 sec",
    "INSERT INTO Seen SELECT a.id as id, sum(a.people) as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 38)] OUTPUT FIRST EVERY 1500 msec",
    "INSERT INTO Pairs SELECT sum(people) as n FROM Seen.win:length(2)",
];

/// [`PACED_PATTERNS`] in a configuration that publishes their reader's rows too.
fn paced_patterns() -> String {
    room_to_seen(&PACED_PATTERNS).replace(r#""out":["#, PAIRS_OUT)
}

const PAIRS_OUT: &str = r#""out":[{"id":"P","type":"Pairs","attributes":[{"name":"n","type":"int"}]},"#;

proptest! {
    // Their timers make an epoch every second or so: fewer cases than the others, for the time they take.
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn patterns_started_with_their_statement_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&STARTED_PATTERNS), &steps)?;
    }

    #[test]
    fn patterns_turning_false_agree_with_the_reference(steps in steps(room_event())) {
        compare(&room_to_seen(&TURNING_PATTERNS), &steps)?;
    }

    #[test]
    fn random_patterns_with_nots_anywhere_agree_with_the_reference(
        (keyed, loose) in (pattern_part(true), pattern_part(false)),
        steps in steps(room_event()),
    ) {
        let statements = [
            format!("INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as \
                flap FROM pattern [every a=Room(temperature > 30) -> {keyed}]"),
            format!("INSERT INTO Seen SELECT 'p' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern \
                [{loose}]"),
        ];
        compare(&room_to_seen(&statements.each_ref().map(String::as_str)), &steps)?;
    }
}

/// A random part of a pattern over rooms: followed-by, `and`, `or`, `not` anywhere, `within`, over room matches and
/// timers. With `keyed`, each match reads `id = a.id`, so the pattern is partitioned by room (after `every a=Room`);
/// without, none does. (No `every` inside: `every (every S)` doubles its instances at each event, in Esper too.)
fn pattern_part(keyed: bool) -> impl Strategy<Value = String> {
    let room = move |(t, hot): (u8, bool)| {
        let key = if keyed { "id = a.id, " } else { "" };
        format!("Room({key}temperature {} {t})", if hot { ">" } else { "<" })
    };
    let leaf =
        prop_oneof![(5..45u8, any::<bool>()).prop_map(room), (1..4u8).prop_map(|s| format!("timer:interval({s} sec)"))];
    leaf.prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} -> {r})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} and {r})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} or {r})")),
            inner.clone().prop_map(|p| format!("(not {p})")),
            (inner, 1..4u8).prop_map(|(p, s)| format!("({p} where timer:within({s} sec))")),
        ]
    })
}

/// Patterns whose parts turn false, among room events, keyed by room and not: a `not` outside an `and` (with an `or`,
/// and alone after the start), an `every` restarting what turned false (a quiet spell, a `within`), an `every`
/// inside an `and` and under a `within`, and a `not` alone, true at the start.
const TURNING_PATTERNS: [&str; 7] = [
    "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 30) -> (b=Room(id = a.id, temperature < 20) or not Room(id = a.id, people > \
     15))]",
    "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 40) -> not Room(id = a.id, temperature < 5)]",
    "INSERT INTO Seen SELECT 'calm' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern [every \
     (timer:interval(2 sec) and not Room(temperature > 38))]",
    "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [every (a=Room(temperature > 35) where timer:within(3 sec))]",
    "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, b.flap as flap FROM \
     pattern [(every a=Room(temperature > 40)) and b=Room(people > 18)]",
    "INSERT INTO Seen SELECT a.id as id, b.people as people, b.temperature as temperature, a.flap as flap FROM \
     pattern [every a=Room(temperature > 30) -> ((every b=Room(id = a.id, people > 15)) where timer:within(2 sec))]",
    "INSERT INTO Seen SELECT 'none' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern [not \
     Room(temperature > 42)]",
];

/// Patterns that start with their statement, among room events: timers alone (counted, paced, and driving a join that
/// lists a floor's rooms every 2.5 s), a leading timer, and a quiet spell repeated, which a hot room ends.
const STARTED_PATTERNS: [&str; 5] = [
    "INSERT INTO Seen SELECT 'tick' as id, count(*) as people, 0.0 as temperature, 'f' as flap FROM pattern [every \
     timer:interval(2300 msec)]",
    "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as flap FROM \
     pattern [timer:interval(2 sec) -> every a=Room(temperature > 30)]",
    "INSERT INTO Seen SELECT 'calm' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern [every \
     (timer:interval(3 sec) and not Room(temperature > 38))]",
    "INSERT INTO Seen SELECT 'paced' as id, 0 as people, 0.0 as temperature, 'f' as flap FROM pattern [every \
     timer:interval(1300 msec)] OUTPUT FIRST EVERY 3 sec",
    "INSERT INTO Seen SELECT r.id as id, r.people as people, r.temperature as temperature, r.flap as flap FROM \
     pattern [every timer:interval(2500 msec)] unidirectional LEFT OUTER JOIN Room.std:unique(id) as r ON \
     r.floor = 'f1'",
];

/// Patterns under each output policy without aggregates: `FIRST`, `LAST` with `WHERE`, the default waiting with
/// `AFTER`, and `ALL` over matches made by a timer.
fn rate_limited_patterns() -> [&'static str; 4] {
    [
        "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, b.flap as flap FROM \
         pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] OUTPUT FIRST EVERY 3 sec",
        "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, b.flap as flap FROM \
         pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] WHERE b.people > 4 \
         OUTPUT LAST EVERY 2 sec",
        "INSERT INTO Seen SELECT a.id as id, b.people as people, a.temperature as temperature, b.flap as flap FROM \
         pattern [every a=Room(temperature > 30) -> b=Room(id = a.id, temperature < 20)] OUTPUT AFTER 5 sec EVERY \
         1500 msec",
        "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, a.flap as flap FROM \
         pattern [every a=Room(temperature > 35) -> (timer:interval(2 sec) and not Room(id = a.id, temperature < 25))] \
         OUTPUT ALL EVERY 2 sec",
    ]
}

fn room_to_seen(statements: &[&str]) -> String {
    let statements = serde_json::to_string(statements).expect("text serializes");
    format!(
        r#"{{"host":"h",
  "in":[{{"id":"Room.*","type":"Room","isPattern":true,"attributes":[
    {{"name":"temperature","type":"double"}},{{"name":"floor","type":"string"}},{{"name":"people","type":"int"}},
    {{"name":"flap","type":"string"}}]}}],
  "out":[{{"id":"S","type":"Seen","attributes":[{{"name":"people","type":"int"}},
    {{"name":"temperature","type":"double"}},{{"name":"flap","type":"string"}}]}}],
  "statements":{statements}}}"#
    )
}

/// Inserts, deletes, updates and merges on one named window, all keyed by its key (so it is partitioned), and its
/// insert stream read back.
fn windows() -> String {
    room_to_seen(&[
        "CREATE WINDOW LastReading.std:unique(id) as Room",
        "INSERT INTO Busy SELECT id, people FROM Room(people > 15)",
        "INSERT INTO Cool SELECT id, people FROM Room(temperature < 10)",
        "INSERT INTO LastReading SELECT * FROM Room",
        "ON Busy b DELETE FROM LastReading lr WHERE lr.id = b.id",
        "ON Cool UPDATE LastReading as lr SET people = Cool.people * 2 WHERE lr.id = Cool.id",
        "ON Room(temperature > 40) r MERGE LastReading w WHERE w.id = r.id WHEN MATCHED AND w.people > 5 THEN UPDATE SET flap = 'hot' WHEN MATCHED THEN DELETE",
        "INSERT INTO Seen SELECT id, people, temperature, flap FROM LastReading",
    ])
}

/// Two named windows with writers and no reader: the compiler still builds them (in plan order on every worker), so
/// the edges into them end in their operators.
fn unread_windows() -> String {
    room_to_seen(&[
        "CREATE WINDOW LastReading.std:unique(id) as Room",
        "CREATE WINDOW Busiest.std:unique(floor) as Room",
        "INSERT INTO LastReading SELECT * FROM Room",
        "INSERT INTO Busiest SELECT * FROM Room(people > 10)",
        "ON Room(temperature > 40) r MERGE LastReading w WHERE w.id = r.id WHEN MATCHED THEN DELETE",
        "INSERT INTO Seen SELECT id, people, temperature, flap FROM Room(people > 15)",
    ])
}

/// A merge whose condition is not the window's key: the window then runs on one worker.
const UNKEYED_MERGE: &str = r#""ON Room(temperature > 35) r MERGE LastReading w WHERE w.floor = r.floor WHEN MATCHED THEN UPDATE SET flap = r.id", "INSERT INTO Seen"#;

const GEOFENCE: &str = include_str!("../../../queries/geofence.json");

/// Mostly text ids, as ingest makes them, and now and then a number or null: the automata of text keys leave out the
/// `id = a.id` test (`dataflow::pattern::keyed`), the others run it.
fn tracker_event() -> impl Strategy<Value = Incoming> {
    (0..4u8, 0..8u8, any::<bool>(), 0..100u8).prop_map(|(tracker, kind, inside, jitter)| {
        let offset = f64::from(jitter) / 10_000.0;
        let (x, y) = if inside { (43.60 + offset, 1.44) } else { (43.50 + offset, 1.40) };
        let id = match kind {
            0 => Val::Null,
            1 => Val::Int(i64::from(tracker)),
            _ => Val::String(format!("tracker{tracker}").into()),
        };
        ("tracker".into(), row(&[("id", id), ("position", Val::Point(x, y))]))
    })
}

#[test]
fn esper_output_last_per_group_trace_on_two_workers() {
    let mut dataflow = Dataflow::new(pool(2), &plan(TRACE), 0).expect("runs");
    assert_eq!(run_trace(&mut dataflow, 7200), trace_expected());
}

/// Esper's snapshot trace, its groups split over two and four workers.
#[test]
fn esper_output_snapshot_per_group_trace_on_two_and_four_workers() {
    for workers in [2, 4] {
        let mut dataflow = Dataflow::new(pool(workers), &plan(&trace_config(SNAPSHOT)), 0).expect("runs");
        let mut rows = trace_outputs(&mut dataflow, &[], 7200);
        rows.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        assert_eq!(rows, snapshot_expected(), "{workers} workers");
    }
}

/// The rows of `statement` over the trace and then `later` events on `workers` workers, created at 0, until `until`:
/// each timestamp's sorted.
fn trace_on(workers: usize, statement: &str, later: &[TraceEvent], until: i64) -> Vec<(i64, String, Option<f64>)> {
    let mut out = trace_in_order(workers, statement, later, until);
    out.sort_by(|a, b| (a.0, &a.1, a.2.map(f64::to_bits)).cmp(&(b.0, &b.1, b.2.map(f64::to_bits))));
    out
}

/// The trace's rows from `statement` on `workers` workers, in the order they come out.
fn trace_in_order(
    workers: usize,
    statement: &str,
    later: &[TraceEvent],
    until: i64,
) -> Vec<(i64, String, Option<f64>)> {
    let mut dataflow = Dataflow::new(pool(workers), &plan(&trace_config(statement)), 0).expect("runs");
    trace_outputs(&mut dataflow, later, until)
}

fn trace_rows(rows: &[TraceRow]) -> Vec<(i64, String, Option<f64>)> {
    rows.iter().map(|(t, s, v)| (*t, s.to_string(), *v)).collect()
}

/// Each statement of `table` over the trace and then `later` events gives its rows until `until`, on each worker
/// count of `workers`.
fn assert_traces_on(table: &[(&str, &[TraceRow])], workers: &[usize], (later, until): (&[TraceEvent], i64)) {
    for ((statement, rows), workers) in table.iter().flat_map(|s| workers.iter().map(move |w| (s, *w))) {
        assert_eq!(trace_on(workers, statement, later, until), trace_rows(rows), "{workers} workers: {statement}");
    }
}

/// Esper's `OUTPUT ALL`, default and `OUTPUT FIRST` traces of a query without aggregates, on two workers.
#[test]
fn esper_output_all_and_first_without_aggregates_traces_on_two_workers() {
    for (statement, rows) in ALL_AND_FIRST {
        assert_eq!(trace_on(2, statement, &[], 7200), trace_rows(rows), "{statement}");
    }
}

/// Esper's `OUTPUT FIRST` traces of aggregating queries, and the two worked out by hand ([`FIRST_GROUPS`]), their
/// groups split over two and four workers.
#[test]
fn esper_output_first_of_aggregates_traces_on_two_and_four_workers() {
    assert_traces_on(&FIRST_GROUPS, &[2, 4], (&[], 7200));
}

/// `OUTPUT SNAPSHOT` of a grouped query with an ungrouped column over the trace ([`COLUMN_SNAPSHOTS`]), on two and
/// four workers (the query runs on one of them).
#[test]
fn output_snapshot_of_a_query_with_ungrouped_columns_trace_on_two_and_four_workers() {
    assert_traces_on(&COLUMN_SNAPSHOTS, &[2, 4], (&[], 7200));
}

/// Esper's default `OUTPUT EVERY` traces of fully aggregated queries ([`EVERY_GROUPS`]), their groups split over two
/// and four workers.
#[test]
fn esper_output_every_of_fully_aggregated_traces_on_two_and_four_workers() {
    assert_traces_on(&EVERY_GROUPS, &[2, 4], (&[], 7200));
}

/// Each statement of `table` over the trace until 8 s on one, two and four workers gives its rows, in the order they
/// come out.
fn assert_in_order_on_one_two_and_four(table: &[(&str, &[TraceRow])]) {
    for (workers, (statement, rows)) in [1, 2, 4].into_iter().flat_map(|w| table.iter().map(move |case| (w, case))) {
        assert_eq!(trace_in_order(workers, statement, &[], 8000), trace_rows(rows), "{workers} workers: {statement}");
    }
}

/// `SELECT RSTREAM` over each kind of data window ([`REMOVED`]) on one, two and four workers, in the order the rows
/// come out.
#[test]
fn removed_rows_on_one_two_and_four_workers() {
    assert_in_order_on_one_two_and_four(&REMOVED);
}

/// `SELECT RSTREAM` with aggregates ([`REMOVED_AGGREGATES`]) on one, two and four workers, in the order the rows
/// come out.
#[test]
fn removed_rows_with_aggregates_on_one_two_and_four_workers() {
    assert_in_order_on_one_two_and_four(&REMOVED_AGGREGATES);
}

/// `SELECT RSTREAM` under output policies ([`REMOVED_PACED`]) on one, two and four workers, in the order the rows
/// come out.
#[test]
fn removed_rows_under_output_policies_on_one_two_and_four_workers() {
    assert_in_order_on_one_two_and_four(&REMOVED_PACED);
}

/// Output policies on batch windows ([`BATCH_PACED`]) on one, two and four workers, in the order they come out.
#[test]
fn output_policies_on_batch_windows_on_one_two_and_four_workers() {
    assert_in_order_on_one_two_and_four(&BATCH_PACED);
}

/// Esper's `std:groupwin` batch traces and the sums over every key's batch ([`GROUPWIN_TRACES`],
/// [`GROUPWIN_TOTALS`]), on one, two and four workers (each query runs on one of them), in the order they come out.
#[test]
fn esper_groupwin_batch_traces_on_one_two_and_four_workers() {
    for workers in [1, 2, 4] {
        for (statement, events, until, rows) in GROUPWIN_TRACES {
            let mut dataflow = Dataflow::new(pool(workers), &plan(&trace_config(statement)), 0).expect("runs");
            let got = outputs_of(&mut dataflow, events, until);
            assert_eq!(got, trace_rows(rows), "{workers} workers: {statement}");
        }
        for (statement, rows) in GROUPWIN_TOTALS {
            let got = trace_in_order(workers, statement, &[], 10_000);
            assert_eq!(got, trace_rows(rows), "{workers} workers: {statement}");
        }
    }
}

/// Esper's default `OUTPUT EVERY` and `OUTPUT ALL` traces of queries with an ungrouped column ([`COLUMN_EVERY`]), on
/// two and four workers (each query runs on one of them).
#[test]
fn esper_output_every_and_all_of_queries_with_ungrouped_columns_traces_on_two_and_four_workers() {
    assert_traces_on(&COLUMN_EVERY, &[2, 4], (&[], 8200));
}

/// The output policies of aggregating patterns over the trace ([`PACED`]), on one, two and four workers (each
/// statement runs on one of them).
#[test]
fn output_policies_of_aggregating_patterns_traces_on_one_two_and_four_workers() {
    assert_traces_on(&PACED, &[1, 2, 4], (&[], 7200));
}

/// Esper's `OUTPUT ALL` traces of a fully aggregated, grouped query, its groups split over two and four workers (the
/// ordered one on one of them).
#[test]
fn esper_output_all_per_group_traces_on_two_and_four_workers() {
    assert_traces_on(&ALL_GROUPS, &[2, 4], (&[], 8200));
}

/// `OUTPUT SNAPSHOT` without aggregates over the trace on two and four workers (the query runs on one of them), and
/// the ordered one's rows in the reference's order.
#[test]
fn esper_output_snapshot_without_aggregates_traces_on_two_and_four_workers() {
    assert_traces_on(&ROW_SNAPSHOTS, &[2, 4], (&[], 7200));
    let config = trace_config(ROW_SNAPSHOTS[1].0);
    let expected = trace_outputs(&mut Reference::new(&plan(&config), 0).expect("reference runs"), &[], 7200);
    let mut dataflow = Dataflow::new(pool(2), &plan(&config), 0).expect("runs");
    assert_eq!(trace_outputs(&mut dataflow, &[], 7200), expected);
}

/// Patterns that start with their statement ([`STARTED`]) on one, two and four workers: each runs once, on the
/// worker its events would go to.
#[test]
fn patterns_start_with_their_statement_on_every_worker_count() {
    assert_traces_on(&STARTED, &[1, 2, 4], (&[], 8000));
}

/// Patterns whose parts turn false ([`TURNING`]) on one, two and four workers: an `every` restarting what turned
/// false, a `not` outside an `and`, a pattern true at its start.
#[test]
fn parts_turning_false_pass_it_up_on_every_worker_count() {
    assert_traces_on(&TURNING, &[1, 2, 4], (&TURNING_LATER, 8000));
}

/// A pattern of timers alone kept across a replacement at 3 s keeps its clock (2 s, then 4 and 6 s), and one the
/// replacement adds starts with it (5 and 7 s).
#[test]
fn a_kept_pattern_of_timers_keeps_its_clock_and_a_new_one_starts_with_the_replacement() {
    let kept = trace_config(STARTED[0].0);
    let added = "INSERT INTO Out SELECT 'new' as symbol, 0.0 as value FROM pattern [every timer:interval(2 sec)]";
    let program = Arc::new(Program::new(&plan(&with_last(&kept, &[added]))).expect("checks"));
    for workers in [1, 2, 4] {
        let mut first = Dataflow::new(pool(workers), &plan(&kept), 0).expect("runs");
        let before = run(&mut first, &[Step::Advance(3000)]);
        let mut second = first.replace(program.clone(), &[], 3000);
        drop(first);
        let after = run(&mut second, &[Step::Advance(7000)]);
        assert_eq!(symbols(&before), [(2000, "tick".into())], "{workers} workers, before");
        let expected = [(4000, "tick"), (5000, "new"), (6000, "tick"), (7000, "new")];
        assert_eq!(symbols(&after), expected.map(|(t, s)| (t, s.into())), "{workers} workers, after");
    }
}

fn symbols(outputs: &[Output]) -> Vec<(i64, String)> {
    outputs.iter().map(|o| (o.time, o.row.get("symbol").and_then(Val::to_ngsi).unwrap_or_default())).collect()
}

/// `OUTPUT AFTER` alone, on two workers: the rows of the statement's first period dropped on every worker.
#[test]
fn output_after_alone_drops_the_rows_of_the_first_period_on_two_workers() {
    for (statement, later, rows) in QUIET {
        assert_eq!(trace_on(2, statement, later, 30_000), trace_rows(rows), "{statement}");
    }
}

/// `OUTPUT AFTER` over the trace, its groups split over two and four workers: every worker starts its clock at the
/// same first event past the time, whichever worker holds it.
#[test]
fn output_after_starts_every_worker_s_clock_at_the_same_event_on_two_and_four_workers() {
    assert_traces_on(&AFTER, &[2, 4], (&[], 8000));
}

/// An output tick sorts rows from every group, which several workers would hold apart, and a batch sorts its events:
/// both run on one worker, and their rows come out in the reference's order, not only the same set of them.
#[test]
fn rows_sorted_by_order_by_come_out_in_the_reference_order_on_two_and_four_workers() {
    for (statement, workers) in ORDERED.iter().flat_map(|s| [(s, 2), (s, 4)]) {
        let config = trace_config(statement);
        let expected = trace_outputs(&mut Reference::new(&plan(&config), 0).expect("reference runs"), &[], 10_000);
        let mut dataflow = Dataflow::new(pool(workers), &plan(&config), 0).expect("runs");
        assert_eq!(trace_outputs(&mut dataflow, &[], 10_000), expected, "{workers} workers: {statement}");
    }
}

/// `values` as integers.
fn ints(values: &[i64]) -> Vec<Val> {
    values.iter().map(|n| Val::Int(*n)).collect()
}

/// Twelve states of shutter `s` alternating codes 0 and 1 (`n` 0 to 11) from 1 s, then four commands with codes 0, 1,
/// 2, 0 (`n` 100 to 103) from 2 s, `gap` ms apart, and time moving on to 10 s.
fn lookup_steps(gap: i64) -> Vec<Step> {
    let event = |stream: &str, code: f64, n: i64| -> Incoming {
        (stream.into(), row(&[("code", Val::Double(code)), ("id", Val::String("s".into())), ("n", Val::Int(n))]))
    };
    let mut steps: Vec<Step> =
        (0..12).map(|n| Step::Push(1_000 + n, vec![event("State", (n % 2) as f64, n)])).collect();
    steps.extend((0..4).map(|n| Step::Push(2_000 + n * gap, vec![event("Cmd", (n % 3) as f64, 100 + n)])));
    steps.push(Step::Advance(10_000));
    steps
}

/// `ORDER BY` on a join sorts each trigger's rows where the trigger's key lives, so the dataflow gives the reference's
/// rows in the reference's order, the join driven by a stream or by a pattern's matches; a pattern's rows keep the
/// order of its matches.
#[test]
fn ordered_joins_and_patterns_give_the_reference_order_on_two_and_four_workers() {
    let join = lookup_config("win:length(5)", "c.code = S.code", " ORDER BY seen DESC, n");
    let steps = lookup_steps(1);
    for (config, workers) in [join.clone(), pattern_driven(&join)].iter().flat_map(|c| [(c, 2), (c, 4)]) {
        let expected = run(&mut Reference::new(&plan(config), 0).expect("reference runs"), &steps);
        assert_eq!(expected.len(), 8, "triggers of 2, 3, 1 and 2 rows: {expected:?}");
        let mut dataflow = Dataflow::new(pool(workers), &plan(config), 0).expect("runs");
        assert_eq!(run(&mut dataflow, &steps), expected, "{workers} workers: {config}");
    }
    let config = trace_config(ORDERED_MATCHES.0);
    let mut dataflow = Dataflow::new(pool(2), &plan(&config), 0).expect("runs");
    assert_eq!(trace_outputs(&mut dataflow, &[], 7200), trace_rows(ORDERED_MATCHES.1));
}

/// `ORDER BY` under an output policy: a pattern's released rows ([`PACED_ORDERED`]) on one, two and four workers, and
/// a join's, driven by a stream and by a pattern, whose tick sorts the rows of several triggers together (by the row
/// looked up, and by the trigger, whose row with no match keeps its key), on two and four workers; each in the
/// reference's order.
#[test]
fn rows_a_policy_releases_come_out_in_the_reference_order_on_every_worker_count() {
    for ((statement, rows), workers) in PACED_ORDERED.iter().flat_map(|s| [(s, 1), (s, 2), (s, 4)]) {
        let mut dataflow = Dataflow::new(pool(workers), &plan(&trace_config(statement)), 0).expect("runs");
        assert_eq!(trace_outputs(&mut dataflow, &[], 7200), trace_rows(rows), "{workers} workers: {statement}");
    }
    let join = lookup_config("win:length(5)", "c.code = S.code", " OUTPUT EVERY 1 sec ORDER BY seen DESC, n");
    let steps = lookup_steps(400);
    for (config, workers) in [join.clone(), pattern_driven(&join)].iter().flat_map(|c| [(c, 2), (c, 4)]) {
        let expected = run(&mut Reference::new(&plan(config), 0).expect("reference runs"), &steps);
        let times: Vec<i64> = expected.iter().map(|o| o.time).collect();
        assert_eq!(times, [3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 4_000, 4_000], "two ticks: {expected:?}");
        // The first tick's rows, of three triggers, interleaved by `seen` (a null last), and nothing else in them.
        let seen: Vec<Val> = expected.iter().map(|o| o.row.get("seen").cloned().unwrap_or_default()).collect();
        assert_eq!(seen[..5], ints(&[11, 10, 9, 8, 7]), "{expected:?}");
        assert_eq!(seen[5], Val::Null);
        assert!(expected.iter().all(|o| o.row.keys().map(|k| &**k).eq(["n", "seen"])), "{expected:?}");
        let mut dataflow = Dataflow::new(pool(workers), &plan(config), 0).expect("runs");
        assert_eq!(run(&mut dataflow, &steps), expected, "{workers} workers: {config}");
    }
    // By the trigger first, descending: the trigger that matched nothing (102) has its key too.
    let by_trigger = lookup_config("win:length(5)", "c.code = S.code", " OUTPUT EVERY 1 sec ORDER BY n DESC, seen");
    for (config, workers) in [by_trigger.clone(), pattern_driven(&by_trigger)].iter().flat_map(|c| [(c, 2), (c, 4)]) {
        let expected = run(&mut Reference::new(&plan(config), 0).expect("reference runs"), &steps);
        let n: Vec<Val> = expected.iter().map(|o| o.row.get("n").cloned().unwrap_or_default()).collect();
        assert_eq!(n, ints(&[102, 101, 101, 101, 100, 100, 103, 103]), "{config}: {expected:?}");
        let mut dataflow = Dataflow::new(pool(workers), &plan(config), 0).expect("runs");
        assert_eq!(run(&mut dataflow, &steps), expected, "{workers} workers: {config}");
    }
}

#[test]
fn a_removed_dataflow_leaves_the_others_running() {
    let floor = plan(include_str!("../../../queries/floor-average.json"));
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
        Dataflow::new(workers.clone(), &plan(include_str!("../../../queries/floor-average.json")), 0).expect("runs");
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
        Dataflow::new(workers.clone(), &plan(include_str!("../../../queries/floor-average.json")), 0).expect("runs");
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
        Dataflow::new(workers.clone(), &plan(include_str!("../../../queries/floor-average.json")), 0).expect("runs");
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
    let floor = plan(include_str!("../../../queries/floor-average.json"));
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
    let floor = plan(include_str!("../../../queries/floor-average.json"));
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

#[test]
fn window_writers_insert_update_delete_and_merge_in_the_reference_order() {
    let room = |ms: i64, temperature: f64, people: i64| {
        let event = row(&[
            ("id", Val::String("room1".into())),
            ("floor", Val::String("f1".into())),
            ("temperature", Val::Double(temperature)),
            ("people", Val::Int(people)),
        ]);
        Step::Push(ms, vec![("Room".into(), event)])
    };
    let steps = [room(1_000, 20.0, 3), room(2_000, 5.0, 4), room(3_000, 20.0, 20), room(4_000, 45.0, 9)];
    let seen = |t: i64, people: i64, temperature: &str, flap: &str| {
        (t, format!("Seen flap={flap},id=String(\"room1\"),people=Int({people}),temperature={temperature}"))
    };
    let expected = vec![
        seen(1_000, 3, "2.00000000e1", "Null"),
        seen(2_000, 4, "5.00000000e0", "Null"),
        seen(2_000, 8, "5.00000000e0", "Null"),
        seen(3_000, 20, "2.00000000e1", "Null"),
        seen(4_000, 9, "4.50000000e1", "Null"),
        seen(4_000, 9, "4.50000000e1", "String(\"hot\")"),
    ];
    let flat = |m: BTreeMap<i64, Vec<String>>| -> Vec<(i64, String)> {
        m.into_iter().flat_map(|(t, rows)| rows.into_iter().map(move |r| (t, r))).collect()
    };
    let plan = plan(&windows());
    assert_eq!(flat(by_time(run(&mut Reference::new(&plan, 0).unwrap(), &steps))), expected);
    assert_eq!(flat(by_time(run(&mut Dataflow::new(pool(2), &plan, 0).unwrap(), &steps))), expected);
}

/// The shutter example's two statements plus a third writer of `Shutter` driven by a stream (one group of three,
/// keyed by shutter, fed by its own rows), four joins looking up an `in` stream (a time window and a unique view,
/// keyed; two of them aggregating each trigger's rows), and a stateless reader of `Shutter`.
const JOINS: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[{"name":"temperature","type":"double"},
      {"name":"shutter","type":"string"}]},
    {"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"}]}],
  "out":[{"id":"X","type":"Shutter","attributes":[{"name":"status","type":"string"}]},
    {"id":"L","type":"Log","attributes":[{"name":"seen","type":"string"}]},
    {"id":"K","type":"Closed","attributes":[{"name":"status","type":"string"}]},
    {"id":"T","type":"Tally","attributes":[{"name":"count","type":"int"}]}],
  "statements":[
    "INSERT INTO Shutter SELECT R.r.shutter as id, 'closed' as status FROM pattern [ every r=Room(temperature > 26.0) -> (timer:interval(5 sec) and not Room(temperature < 26.0 and id=r.id))] as R unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON R.r.shutter = S.id WHERE S is null OR S.status = 'opened'",
    "INSERT INTO Shutter SELECT R.r.shutter as id, 'opened' as status FROM pattern [ every r=Room(temperature < 24.0) -> (timer:interval(5 sec) and not Room(temperature > 24.0 and id=r.id))] as R unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON R.r.shutter = S.id WHERE S is null OR S.status = 'closed' OUTPUT AFTER 12 sec",
    "INSERT INTO Shutter SELECT c.shutter as id, 'manual' as status FROM Cmd as c unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent() as S ON c.shutter = S.id WHERE S is null OR S.status != 'manual'",
    "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(3 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken'",
    "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd(shutter != 'sh2') as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id OUTPUT AFTER 10 sec",
    "INSERT INTO Closed SELECT id, status FROM Shutter(status = 'closed')",
    "INSERT INTO Tally SELECT c.shutter as id, count(S.status) as count, max(S.status) as top FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(3 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'opened'",
    "INSERT INTO Tally SELECT R.r.shutter as id, count(*) as count FROM pattern [every r=Room(temperature > 29.0)] as R unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON R.r.shutter = S.id GROUP BY S.status HAVING count(*) > 0 ORDER BY count DESC"
  ]}"#;

/// Joins with output policies: a first batch of several rows, driven by a pattern's matches, and driven by rows a
/// pattern's timer makes at the ticks' own milliseconds (the pattern's timer fires first: its row is in the interval
/// the tick closes). Their group runs on one worker (the join without an equality spans shutters): [`rated_joins`].
const RATED_JOINS: &str = r#"{"host":"h",
  "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[{"name":"temperature","type":"double"},
      {"name":"shutter","type":"string"}]},
    {"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{"name":"shutter","type":"string"}]},
    {"id":"S.*","type":"State","isPattern":true,"attributes":[{"name":"status","type":"string"}]}],
  "out":[{"id":"L","type":"Log","attributes":[{"name":"seen","type":"string"}]}],
  "statements":[
    "INSERT INTO Late SELECT a.shutter as shutter FROM pattern [a=Cmd -> every timer:interval(2 sec)]",
    "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON c.shutter = S.id OUTPUT LAST EVERY 3 sec",
    "INSERT INTO Log SELECT S.id as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:length(3) as S ON c.shutter != S.status OUTPUT FIRST EVERY 2 sec",
    "INSERT INTO Log SELECT S.id as id, c.shutter as seen FROM Cmd as c unidirectional LEFT OUTER JOIN State.win:time(4 sec) as S ON c.shutter = S.id WHERE S is null OR S.status != 'broken' OUTPUT AFTER 5 sec ALL EVERY 2 sec",
    "INSERT INTO Log SELECT R.r.shutter as id, S.status as seen FROM pattern [every r=Room(temperature > 27.0)] as R unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON R.r.shutter = S.id OUTPUT ALL EVERY 2 sec",
    "INSERT INTO Log SELECT l.shutter as id, S.status as seen FROM Late as l unidirectional LEFT OUTER JOIN State.std:unique(id) as S ON l.shutter = S.id OUTPUT LAST EVERY 2 sec"
  ]}"#;

/// [`RATED_JOINS`], or with every join's view split by shutter: a group that could be split over the workers, but for
/// the policies, whose clocks and rows are the statement's own.
fn rated_joins(keyed: bool) -> String {
    match keyed {
        false => RATED_JOINS.to_owned(),
        true => {
            RATED_JOINS.lines().filter(|line| !line.contains("ON c.shutter != S.status")).collect::<Vec<_>>().join("\n")
        }
    }
}

/// [`JOINS`] with views that do not split by shutter, so both groups run on one worker.
fn unkeyed_joins() -> String {
    JOINS
        .replace(
            "Cmd as c unidirectional LEFT OUTER JOIN Shutter.std:groupwin(id).std:lastevent()",
            "Cmd as c unidirectional LEFT OUTER JOIN Shutter.win:length(2)",
        )
        .replace("State.std:unique(id)", "State.std:lastevent()")
}

/// Joins looking up named windows: one kept by a merge (which leaves out broken states, or deletes a closed shutter's
/// row at one), updated and deleted from by commands, one of the last state not `opened`, which hot rooms delete;
/// driven by commands and by a pattern, one aggregating; and a query and a pattern reading a window's insert stream. Keyed by shutter, or with
/// the aggregating join's `ON` reading every row, so that the `Latest` group runs on one worker.
fn window_joins(keyed: bool) -> String {
    let tally_on = if keyed { "c.shutter = l.id" } else { "l.status != 'broken'" };
    format!(
        r#"{{"host":"h",
  "in":[{{"id":"Room.*","type":"Room","isPattern":true,"attributes":[{{"name":"temperature","type":"double"}},
      {{"name":"shutter","type":"string"}}]}},
    {{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{{"name":"shutter","type":"string"}}]}},
    {{"id":"S.*","type":"State","isPattern":true,"attributes":[{{"name":"status","type":"string"}}]}}],
  "out":[{{"id":"L","type":"Log","attributes":[{{"name":"seen","type":"string"}}]}},
    {{"id":"T","type":"Tally","attributes":[{{"name":"count","type":"int"}}]}}],
  "statements":[
    "CREATE WINDOW Latest.std:unique(id) as State",
    "ON State s MERGE Latest l WHERE s.id = l.id WHEN NOT MATCHED THEN INSERT SELECT * WHEN MATCHED AND s.status = 'broken' AND l.status = 'closed' THEN DELETE WHEN MATCHED AND s.status != 'broken' THEN UPDATE SET status = s.status",
    "ON Cmd(shutter = 'sh2') as c UPDATE Latest as l SET status = 'manual' WHERE l.id = c.shutter",
    "ON Cmd(shutter = 'sh1') as c DELETE FROM Latest as l WHERE l.id = c.shutter",
    "CREATE WINDOW Odd.std:lastevent() as State",
    "INSERT INTO Odd SELECT * FROM State(status != 'opened')",
    "ON Room(temperature > 30.0) as r DELETE FROM Odd as o WHERE o.id = r.shutter",
    "INSERT INTO Log SELECT c.shutter as id, l.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN Latest as l ON c.shutter = l.id",
    "INSERT INTO Log SELECT R.r.shutter as id, l.status as seen FROM pattern [every r=Room(temperature > 29.0)] as R unidirectional LEFT OUTER JOIN Latest as l ON R.r.shutter = l.id WHERE l is null OR l.status != 'opened'",
    "INSERT INTO Log SELECT c.shutter as id, o.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN Odd as o ON c.shutter = o.id",
    "INSERT INTO Tally SELECT c.shutter as id, count(l.status) as count FROM Cmd as c unidirectional LEFT OUTER JOIN Latest as l ON {tally_on} GROUP BY l.status",
    "INSERT INTO Log SELECT id, status as seen FROM Latest(status = 'manual' or status = 'closed')",
    "INSERT INTO Log SELECT a.id as id, b.status as seen FROM pattern [every a=Latest(status = 'closed') -> b=Latest(id = a.id)]"
  ]}}"#
    )
}

fn join_event() -> impl Strategy<Value = Incoming> {
    let text = |s: String| Val::String(s.into());
    prop_oneof![
        3 => (0..4u8, 18..32u8).prop_map(move |(room, t)| {
            let props = [("id", text(format!("room{room}"))), ("temperature", Val::Double(f64::from(t) + 0.5)),
                ("shutter", text(format!("sh{}", room % 3)))];
            ("Room".into(), row(&props))
        }),
        1 => (0..3u8).prop_map(move |s| ("Cmd".into(), row(&[("id", text("c".into())), ("shutter", text(format!("sh{s}")))]))),
        1 => (0..3u8, 0..3usize).prop_map(move |(s, k)| {
            let status = ["opened", "closed", "broken"][k];
            ("State".into(), row(&[("id", text(format!("sh{s}"))), ("status", text(status.into()))]))
        }),
    ]
}

/// Regression: a pattern automaton dropped as idle (its instance killed) left its timers queued, and a new automaton
/// of the same key, whose leaf ids restart, had its own timer leaf fired by them (room0's close came at 6 s, not 6.159 s).
#[test]
fn a_stale_timer_of_a_dropped_pattern_automaton_does_not_fire_its_successor() {
    let room = |id: &str, sh: &str, t: f64| {
        (
            "Room".into(),
            row(&[
                ("id", Val::String(id.into())),
                ("shutter", Val::String(sh.into())),
                ("temperature", Val::Double(t)),
            ]),
        )
    };
    let steps = vec![
        Step::Push(1000, vec![room("room0", "sh0", 26.5)]),
        Step::Push(1000, vec![room("room0", "sh0", 18.5)]),
        Step::Push(1000, vec![room("room1", "sh1", 18.5)]),
        Step::Push(1159, vec![room("room0", "sh0", 27.5), room("room3", "sh0", 28.5)]),
        Step::Advance(1238),
        Step::Push(2649, vec![room("room2", "sh2", 28.5), room("room3", "sh0", 24.5)]),
        Step::Advance(32649),
    ];
    let plain = r#"{"host":"h","in":[{"id":"R.*","type":"Room","isPattern":true,"attributes":[{"name":"temperature","type":"double"},{"name":"shutter","type":"string"}]}],
      "out":[{"id":"X","type":"Shutter","attributes":[{"name":"status","type":"string"}]}],
      "statements":["INSERT INTO Shutter SELECT r.shutter as id, 'closed' as status FROM pattern [ every r=Room(temperature > 26.0) -> (timer:interval(5 sec) and not Room(temperature < 26.0 and id=r.id))]"]}"#;
    for config in [plain.to_owned(), include_str!("../../../queries/cepheus-close-shutters.json").to_owned()] {
        let plan = plan(&config);
        let expected = by_time(run(&mut Reference::new(&plan, 0).unwrap(), &steps));
        assert_eq!(by_time(run(&mut Dataflow::new(pool(2), &plan, 0).unwrap(), &steps)), expected);
    }
}

/// The pattern's operator finds a key's automaton two groups of records before the key's event (`Logic::find`). Here
/// tracker A's automaton is dropped in between (its match left it idle) and B's new one takes its slot: A's second
/// event must not reach B's instance through the slot found for A.
#[test]
fn a_slot_found_ahead_for_a_key_whose_automaton_went_meanwhile_is_not_trusted() {
    let s = |id: &str, v: i64| ("S".into(), row(&[("id", Val::String(id.into())), ("v", Val::Int(v))]));
    let config = r#"{"host":"h","in":[{"id":"S.*","type":"S","isPattern":true,"attributes":[{"name":"v","type":"int"}]}],
      "out":[{"id":"P","type":"Pair","attributes":[{"name":"v","type":"int"}]}],
      "statements":["INSERT INTO Pair SELECT a.id as id, b.v as v FROM pattern [ every a=S(v=1) -> b=S(id=a.id, v=2) ]"]}"#;
    let steps = vec![
        Step::Push(1000, vec![s("SA", 1)]),
        Step::Push(2000, vec![s("SA", 2), s("SB", 1), s("SA", 2)]),
        Step::Advance(3000),
    ];
    let plan = plan(config);
    let expected = by_time(run(&mut Reference::new(&plan, 0).unwrap(), &steps));
    assert_eq!(expected.values().flatten().count(), 1, "A's one pair: {expected:?}");
    for workers in [1, 2] {
        assert_eq!(by_time(run(&mut Dataflow::new(pool(workers), &plan, 0).unwrap(), &steps)), expected);
    }
}

#[test]
fn the_shutter_group_is_keyed_by_shutter_unless_a_view_spans_shutters() {
    use crate::cep::plan::{Input, PlanNode};
    for (config, keyed) in [(JOINS.to_owned(), true), (unkeyed_joins(), false)] {
        let plan = plan(&config);
        let members: Vec<_> = plan
            .statements
            .iter()
            .filter_map(|s| match &s.node {
                PlanNode::Query(q) => match &q.input {
                    Input::Join(j) if j.lookup.stream == "Shutter" => Some((&**q, &**j)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(members.len(), 3);
        assert_eq!(super::join::group_key(&members).is_some(), keyed);
    }
}

/// Statements reading a declared type that a later-listed statement writes: the planner puts the writer first, so
/// the dataflow sees its rows as the reference does (it used to wire the reader before the writer and miss them).
#[test]
fn a_reader_listed_before_the_writer_of_a_declared_type_sees_its_rows() {
    let config = |reader: &str| {
        format!(
            r#"{{"host":"h",
      "in":[{{"id":"C.*","type":"Cmd","isPattern":true,"attributes":[{{"name":"shutter","type":"string"}}]}}],
      "out":[{{"id":"X","type":"Shutter","attributes":[{{"name":"status","type":"string"}}]}},
        {{"id":"L","type":"Log","attributes":[{{"name":"seen","type":"string"}}]}}],
      "statements":["{reader}", "INSERT INTO Shutter SELECT shutter as id, 'manual' as status FROM Cmd"]}}"#
        )
    };
    let join = "INSERT INTO Log SELECT c.shutter as id, S.status as seen FROM Cmd as c unidirectional LEFT OUTER JOIN Shutter.std:unique(id) as S ON c.shutter = S.id";
    let plain = "INSERT INTO Log SELECT id, status as seen FROM Shutter";
    let cmd = |id: &str| ("Cmd".into(), row(&[("id", Val::String(id.into())), ("shutter", Val::String("s1".into()))]));
    let steps = [Step::Push(1_000, vec![cmd("C1")]), Step::Push(2_000, vec![cmd("C2")])];
    for reader in [join, plain] {
        let plan = plan(&config(reader));
        let expected = by_time(run(&mut Reference::new(&plan, 0).expect("runs"), &steps));
        let logged = expected.values().flatten().filter(|r| r.starts_with("Log ")).count();
        assert_eq!(logged, 2, "{reader}: {expected:?}");
        for workers in [1, 2] {
            let got = by_time(run(&mut Dataflow::new(pool(workers), &plan, 0).expect("runs"), &steps));
            assert_eq!(got, expected, "{reader} on {workers} workers");
        }
    }
}

/// `config` with `statement` put first, so every statement of `config` keeps its text and changes its number.
fn with_first(config: &str, statement: &str) -> String {
    let mut value: serde_json::Value = serde_json::from_str(config).expect("test configuration");
    value["statements"].as_array_mut().expect("statements").insert(0, serde_json::json!(statement));
    value.to_string()
}

/// `config` with `statements` after its own.
fn with_last(config: &str, statements: &[&str]) -> String {
    let mut value: serde_json::Value = serde_json::from_str(config).expect("test configuration");
    value["statements"].as_array_mut().expect("statements").extend(statements.iter().map(|s| serde_json::json!(s)));
    value.to_string()
}

/// Runs `steps` on `config`, replacing it after step `at` by `config` with one more statement (whose rows are left
/// out): the kept statements' state moves to the new dataflow, so the outputs are the reference's for `config` alone.
/// The millisecond `steps` end at (0 for none).
fn reached(steps: &[Step]) -> i64 {
    steps.last().map_or(0, |step| match step {
        Step::Push(ms, _) | Step::Advance(ms) => *ms,
    })
}

fn compare_across_a_replacement(config: &str, extra: &str, steps: &[Step], at: usize) -> Result<(), TestCaseError> {
    compare_replaced(config, &with_first(config, extra), steps, at)
}

/// Runs `first` and replaces it by `second` after step `at`, against the reference running `first` throughout: the
/// two must mean the same but for the rows of `Extra`, which are not compared.
fn compare_replaced(first: &str, second: &str, steps: &[Step], at: usize) -> Result<(), TestCaseError> {
    let original = plan(first);
    let expected = by_time(run(&mut Reference::new(&original, 0).expect("reference runs"), steps));
    let program = Arc::new(Program::new(&plan(second)).expect("checks"));
    let at = at.min(steps.len());
    for workers in [1, 2, 4] {
        let mut first = Dataflow::new(pool(workers), &original, 0).expect("dataflow runs");
        let mut out = run(&mut first, &steps[..at]);
        // Replaced at the time the steps reached: a kept statement still counts `OUTPUT AFTER` from its creation.
        let mut second = first.replace(program.clone(), &[], reached(&steps[..at]));
        drop(first);
        out.extend(run(&mut second, &steps[at..]));
        out.retain(|o| o.stream != "Extra");
        prop_assert_eq!(&by_time(out), &expected, "{} workers, replaced after step {}", workers, at);
    }
    Ok(())
}

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
    // Fewer cases: each runs the reference and four dataflows, twice over for the replacement.
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

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
    let floor = include_str!("../../../queries/floor-average.json");
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
    let shutters = include_str!("../../../queries/cepheus-close-shutters.json");
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
    let floor = dealing_of(include_str!("../../../queries/floor-average.json"));
    assert!(floor.contains(&("Room".into(), Some("floor".into()))), "the GROUP BY: {floor:?}");
    // Joins are not followed: their streams are dealt in turn.
    let shutters = dealing_of(include_str!("../../../queries/cepheus-close-shutters.json"));
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

/// A pattern under `OUTPUT ALL EVERY 2 sec` whose timer makes a row at the millisecond of a tick: the row is in that
/// tick's interval, as the reference fires a pattern's timers before the output tick due with them. Under
/// `OUTPUT FIRST EVERY 2 sec` that row is the interval's second, dropped, and the next interval's first goes out as it
/// is made.
#[test]
fn a_pattern_row_made_by_a_timer_at_a_tick_is_released_by_that_tick() {
    let hot = |id: &str, t: f64| {
        let props = [("id", Val::String(id.into())), ("temperature", Val::Double(t)), ("people", Val::Int(1))];
        ("Room".into(), row(&props))
    };
    let config = room_to_seen(&[
        "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, 'all' as flap FROM \
         pattern [every a=Room(temperature > 35) -> timer:interval(2 sec)] OUTPUT ALL EVERY 2 sec",
        "INSERT INTO Seen SELECT a.id as id, a.people as people, a.temperature as temperature, 'first' as flap FROM \
         pattern [every a=Room(temperature > 35) -> timer:interval(2 sec)] OUTPUT FIRST EVERY 2 sec",
    ]);
    // Rows at 3 s (room1, starting both clocks), 5 s (room2, at the tick) and 5.5 s (room3).
    let steps = vec![
        Step::Push(1_000, vec![hot("room1", 36.0)]),
        Step::Push(3_000, vec![hot("room2", 37.0)]),
        Step::Push(3_500, vec![hot("room3", 38.0)]),
        Step::Advance(9_000),
    ];
    let seen = |outputs: Vec<Output>| -> Vec<(i64, String, String)> {
        let text = |o: &Output, k: &str| o.row.get(k).map(Val::key).unwrap_or_default();
        let mut rows: Vec<_> = outputs.iter().map(|o| (o.time, text(o, "flap"), text(o, "id"))).collect();
        rows.sort();
        rows
    };
    let expected: Vec<(i64, String, String)> = [
        (3_000, "first", "room1"),
        (5_000, "all", "room1"),
        (5_000, "all", "room2"),
        (5_500, "first", "room3"),
        (7_000, "all", "room3"),
    ]
    .iter()
    .map(|(t, flap, id)| (*t, Val::String((*flap).into()).key(), Val::String((*id).into()).key()))
    .collect();
    let plan = plan(&config);
    assert_eq!(seen(run(&mut Reference::new(&plan, 0).unwrap(), &steps)), expected);
    for workers in [1, 2] {
        assert_eq!(seen(run(&mut Dataflow::new(pool(workers), &plan, 0).unwrap(), &steps)), expected);
    }
}

/// A query ticking at the millisecond another's expiry gives a row: the row goes in before the tick, as in the
/// reference, where expiries fire before output ticks.
#[test]
fn a_row_an_expiry_gives_reaches_a_tick_of_the_same_millisecond_first() {
    let config = r#"{"host":"h",
      "in":[{"id":"Room.*","type":"Room","isPattern":true,"attributes":[
        {"name":"floor","type":"string"},{"name":"people","type":"int"}]}],
      "out":[{"id":"FL","type":"LastFirst","attributes":[{"name":"n","type":"int"}]}],
      "statements":[
        "INSERT INTO Firsted SELECT floor, count(*) as n FROM Room.win:time(3 sec) GROUP BY floor OUTPUT FIRST EVERY 2 sec",
        "INSERT INTO LastFirst SELECT floor as id, n FROM Firsted OUTPUT LAST EVERY 3 sec"
      ]}"#;
    let event =
        row(&[("id", Val::String("room1".into())), ("floor", Val::String("f0".into())), ("people", Val::Int(0))]);
    let steps = [Step::Push(1000, vec![("Room".into(), event)]), Step::Advance(8000)];
    compare(config, &steps).expect("agrees");
}

/// After a replacement the first row on a stream in the new dataflow comes with a `Start` record for every worker: on
/// the worker of the query reading it, that record must not let the query's due tick go before the row (here an
/// expiry's, at the tick's millisecond), on one worker or two.
#[test]
fn after_a_replacement_a_tick_still_waits_for_the_rows_of_earlier_timers() {
    let room = |floor: &str| {
        let props =
            [("id", Val::String("room0".into())), ("floor", Val::String(floor.into())), ("people", Val::Int(0))];
        vec![("Room".into(), row(&props))]
    };
    let steps = [Step::Push(1000, room("f1")), Step::Advance(1000), Step::Push(1340, room("f0")), Step::Advance(9000)];
    compare_across_a_replacement(WRITERS_READ, "INSERT INTO Extra SELECT id FROM Room", &steps, 2).expect("agrees");
}

/// An aggregating pattern's output tick at a millisecond: the rows other statements' timers make then (here a
/// pattern's timer, feeding another tallied pattern) go into the interval it closes, the events of that millisecond
/// into the next; ticks due together go in statement order. Worked out by hand, and the same in the dataflow.
#[test]
fn a_tallied_pattern_s_tick_takes_the_rows_of_timers_before_it_and_leaves_the_events_of_its_millisecond() {
    let config = room_to_seen(&[
        "INSERT INTO Later SELECT a.id as id, a.people as people FROM pattern [every a=Room -> timer:interval(1 sec)]",
        "INSERT INTO Seen SELECT 'later' as id, count(*) as people, 0.0 as temperature, 'f' as flap FROM \
         pattern [every b=Later] OUTPUT EVERY 1 sec",
        "INSERT INTO Seen SELECT 'rooms' as id, count(*) as people, 0.0 as temperature, 'f' as flap FROM \
         pattern [every r=Room] OUTPUT EVERY 1 sec",
    ]);
    let room = |ms: i64| {
        let event = row(&[("id", Val::String("room1".into())), ("people", Val::Int(1)), ("floor", Val::Null)]);
        Step::Push(ms, vec![("Room".into(), event)])
    };
    let steps = [room(1000), room(2000), room(3000), Step::Advance(6000)];
    let counts = |out: Vec<Output>| -> Vec<(i64, String, Option<f64>)> {
        let text = |v: Option<&Val>| v.map(|v| format!("{v:?}")).unwrap_or_default();
        out.into_iter().map(|o| (o.time, text(o.row.get("id")), o.row.get("people").and_then(Val::as_f64))).collect()
    };
    let plan = plan(&config);
    let seen = |(t, id, n): (i64, &str, f64)| (t, format!("String({id:?})"), Some(n));
    let expected: Vec<_> = [
        (2000, "rooms", 1.0),
        (3000, "later", 1.0),
        (3000, "later", 2.0),
        (3000, "rooms", 2.0),
        (4000, "later", 3.0),
        (4000, "rooms", 3.0),
        (5000, "later", 3.0),
        (5000, "rooms", 3.0),
        (6000, "later", 3.0),
        (6000, "rooms", 3.0),
    ]
    .into_iter()
    .map(seen)
    .collect();
    let reference = counts(run(&mut Reference::new(&plan, 0).expect("runs"), &steps));
    assert_eq!(reference.iter().filter(|(_, id, _)| id != "String(\"room1\")").cloned().collect::<Vec<_>>(), expected);
    compare(&config, &steps).expect("agrees");
}

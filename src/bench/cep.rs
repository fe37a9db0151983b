//! `fluxgate bench geofence` and `fluxgate bench floor`: the engine in service (the timely dataflow runtime on a pool
//! of `--workers` threads) fed directly (no HTTP, no ingest) by the generator of `cep_workload` on a synthetic clock,
//! then the plain baseline of `cep_plain` on the same events, for the same wall-clock duration, in the same
//! invocation:
//!
//! ```text
//! fluxgate bench geofence --workers 1,2 --duration 5 [--keys 100000] [--per-ms 1000] [--json]
//! fluxgate bench floor --workers 1 --duration 5 [--keys 10000] [--per-ms 1000] [--ms-per-round 1]
//!     [--rounds-ahead 1] [--feed producer|workers] [--json]
//! fluxgate bench geofence --duration 600 --events 200000   # the same work every run, e.g. under callgrind
//! ```
//!
//! The engine gets one batch per synthetic millisecond (`per_ms` events, one epoch), and `ms_per_round` of them per
//! round of the workers, run as pipelined epochs: 1 (the default) waits for the workers after every millisecond; more
//! is what the service's feeder does when notifications queue up while the workers are busy. As in the service, where
//! the callers' threads turn notifications into rows and queue them for the feeder, a producer thread builds the rows
//! and queues at most one round ahead while the workers run the last; the timed loop is the feeder. As the service's
//! feeder does while events keep coming, it leaves `rounds_ahead` rounds running on the workers while it gathers and
//! sends the next, so they find it queued when they finish one: by default the pool's choice
//! (`Workers::rounds_ahead`: one when the workers leave the machine a core, else none); 0 waits for each round before
//! it gathers the next. Throughput counts every event over the wall time of the feeder's loop. An event's latency runs
//! from its batch's queueing until the feeder has received the round holding it with its outputs (outputs are complete
//! then); the baseline's is per event,
//! timed on one event in 256 (timing every event would slow it down). Each round has exactly `ms_per_round`
//! batches, so a run with `--events` gives the workers the same work every time. The producer reuses the rows the
//! workers are done with, as the service's callers do (`cep::dataflow::reaper`); the report's `engine` says so.
//!
//! With `--feed workers` there is no producer: each worker makes its own share of each round's rows on its own thread
//! ([`Makers`]), as the feeder would have dealt them, so every core the engine uses is one of its workers', as in the
//! baseline's single thread. The feeder then only numbers and sends rounds; an event's latency runs from its round's
//! sending. The report's `feed` says which.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use hdrhistogram::Histogram;
use serde::Serialize;
use thiserror::Error;

use super::cep_plain::{PlainFloor, PlainGeofence, PlainJob};
use super::cep_workload::{Event, Generator, Scenario};
use crate::cep::config::CepConfig;
use crate::cep::dataflow::{Dataflow, InputEvent, Program, Slot, Source, Workers, dealt_to};
use crate::cep::explain::{details, plan_config};
use crate::cep::runtime::{EngineError, Incoming, Name};

/// The synthetic clock's start: 2023-11-14T22:13:20Z.
const START_MS: i64 = 1_700_000_000_000;
/// The largest latency recorded exactly (one minute); longer ones count as one minute.
const MAX_LATENCY_NS: u64 = 60_000_000_000;
/// Rounds of batches the producer may have queued ahead of the feeder: one, built while the workers run the last.
const QUEUED_ROUNDS: usize = 1;
/// Baseline events per timed one (and between two looks at the wall clock).
const LATENCY_SAMPLE: u64 = 256;

#[derive(Debug, Error)]
pub enum CepBenchError {
    #[error("the seed configuration does not parse: {0}")]
    Config(#[from] serde_json::Error),
    #[error("the seed configuration does not plan: {0}")]
    Plan(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("the timely workers did not start: {0}")]
    Workers(String),
}

/// The flags of `fluxgate bench geofence|floor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CepOptions {
    pub scenario: Scenario,
    pub workers: Vec<usize>,
    /// Wall time of the engine's run, and again of the baseline's.
    pub duration: Duration,
    /// Trackers or rooms.
    pub keys: u32,
    /// Events per synthetic millisecond.
    pub per_ms: u32,
    /// Synthetic milliseconds per round of the workers.
    pub ms_per_round: u32,
    /// Rounds the feeder leaves running on the workers while it gathers and sends the next; `None` for the pool's
    /// choice.
    pub rounds_ahead: Option<u32>,
    /// At most this many events per side (the engine stops at the round that reaches it).
    pub events: Option<u64>,
    /// Who makes the engine's rows.
    pub feed: Feed,
}

/// Who makes the engine's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Feed {
    /// A producer thread, as the service's callers do, and the feeder deals them to the workers.
    #[default]
    Producer,
    /// Each worker its own share, on its own thread ([`Makers`]): every core the engine uses is one of its workers'.
    /// The feeder then only sends rounds, and leaves one running on the workers by default whatever the pool: two
    /// workers of a two-core machine ran the geofence 8–26 % faster with one round ahead than with none in five
    /// interleaved pairs (`benches/results/cep.md`, forty-third session).
    Workers,
}

impl Feed {
    fn engine(self) -> &'static str {
        match self {
            Feed::Producer => "timely dataflow, its rows reused by the producer",
            Feed::Workers => "timely dataflow, each worker making its own rows",
        }
    }
}

/// One run: the engine on `workers` and the plain baseline, in the shape every `fluxgate bench` shares.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CepReport {
    pub scenario: String,
    pub workers: usize,
    pub throughput_per_s: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub baseline_per_s: f64,
    pub ratio: f64,
    pub events: u64,
    pub outputs: u64,
    pub baseline_events: u64,
    pub baseline_outputs: u64,
    pub baseline_p50_ms: f64,
    pub baseline_p99_ms: f64,
    pub keys: u32,
    pub per_ms: u32,
    pub ms_per_round: u32,
    pub rounds_ahead: u32,
    pub synthetic_s: f64,
    pub duration_s: f64,
    pub engine: String,
    pub feed: Feed,
}

/// One synthetic millisecond's events, as the engine takes them.
type Batch = (i64, Vec<Incoming>);

/// What a timed loop saw.
#[derive(Debug)]
struct Measured {
    events: u64,
    outputs: u64,
    elapsed: Duration,
    latency_ns: Histogram<u64>,
}

impl Measured {
    fn new() -> Self {
        // Fixed bounds: `saturating_record` clamps to the current range and never resizes.
        let latency_ns = Histogram::new_with_bounds(1, MAX_LATENCY_NS, 3).expect("valid bounds");
        Measured { events: 0, outputs: 0, elapsed: Duration::ZERO, latency_ns }
    }

    fn per_s(&self) -> f64 {
        self.events as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn ms(&self, quantile: f64) -> f64 {
        round(self.latency_ns.value_at_quantile(quantile) as f64 / 1e6, 6)
    }

    fn record(&mut self, started: Instant, outputs: usize) {
        self.record_batch(started, 1, outputs);
    }

    /// An event whose latency is not sampled.
    fn count(&mut self, outputs: usize) {
        self.outputs += outputs as u64;
        self.events += 1;
    }

    /// A batch of `events` that took from `started` until now, latency counted once per event.
    fn record_batch(&mut self, started: Instant, events: usize, outputs: usize) {
        let ns = started.elapsed().as_nanos() as u64;
        let _ = self.latency_ns.record_n(ns.clamp(1, MAX_LATENCY_NS), events as u64);
        self.outputs += outputs as u64;
        self.events += events as u64;
    }
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

/// Runs the engine for each worker count, and the baseline once.
pub fn run(options: &CepOptions) -> Result<Vec<CepReport>, CepBenchError> {
    let mut reports = Vec::new();
    let mut baseline = None;
    for &workers in &options.workers {
        let engine = measure_engine(options, workers)?;
        let plain = baseline.get_or_insert_with(|| measure_plain(options));
        reports.push(report(options, workers, &engine, plain));
    }
    Ok(reports)
}

fn report(options: &CepOptions, workers: usize, run: &EngineRun, plain: &Measured) -> CepReport {
    let engine = &run.measured;
    CepReport {
        scenario: options.scenario.name().to_owned(),
        workers,
        throughput_per_s: round(engine.per_s(), 1),
        p50_ms: engine.ms(0.5),
        p99_ms: engine.ms(0.99),
        baseline_per_s: round(plain.per_s(), 1),
        ratio: round(engine.per_s() / plain.per_s().max(1e-9), 6),
        events: engine.events,
        outputs: engine.outputs,
        baseline_events: plain.events,
        baseline_outputs: plain.outputs,
        baseline_p50_ms: plain.ms(0.5),
        baseline_p99_ms: plain.ms(0.99),
        keys: options.keys,
        per_ms: options.per_ms,
        ms_per_round: options.ms_per_round,
        rounds_ahead: run.rounds_ahead,
        synthetic_s: round(engine.events as f64 / f64::from(options.per_ms.max(1)) / 1e3, 3),
        duration_s: options.duration.as_secs_f64(),
        engine: options.feed.engine().to_owned(),
        feed: options.feed,
    }
}

/// The seed configuration of a scenario, installed on `workers`.
pub fn seed_engine(scenario: Scenario, workers: Arc<Workers>) -> Result<Dataflow, CepBenchError> {
    let text = match scenario {
        Scenario::Geofence => include_str!("../../queries/geofence.json"),
        Scenario::Floor => include_str!("../../queries/floor-average.json"),
    };
    let config: CepConfig = serde_json::from_str(text)?;
    let plan = plan_config(&config, false).map_err(|errors| CepBenchError::Plan(details(&errors)))?;
    let program = Program::new(&plan)?.receiving(config.incoming_types());
    Ok(Dataflow::install(workers, Arc::new(program), START_MS))
}

/// The engine's run on one pool of workers.
#[derive(Debug)]
struct EngineRun {
    measured: Measured,
    rounds_ahead: u32,
}

fn measure_engine(options: &CepOptions, workers: usize) -> Result<EngineRun, CepBenchError> {
    let workers = Workers::start(workers).map_err(CepBenchError::Workers)?;
    let rounds_ahead = options.rounds_ahead.unwrap_or(match options.feed {
        Feed::Producer => workers.rounds_ahead() as u32,
        Feed::Workers => 1,
    });
    let mut engine = seed_engine(options.scenario, workers.clone())?;
    let ahead = rounds_ahead as usize;
    let measured = match options.feed {
        Feed::Producer => produced(options, &mut engine, ahead, workers),
        Feed::Workers => made(options, &mut engine, ahead, workers.peers()),
    };
    Ok(EngineRun { measured, rounds_ahead })
}

/// The engine on `peers` workers making their own rows, rounds as `drive` sends them: each batch's latency runs from
/// its round's sending.
fn made(options: &CepOptions, engine: &mut Dataflow, ahead: usize, peers: usize) -> Measured {
    let makers: Arc<dyn Source> = Arc::new(Makers::new(options, engine, peers));
    let stream = options.scenario.stream();
    let mut ms = START_MS;
    drive(options, engine, ahead, |engine| {
        let counts: Vec<_> =
            (0..options.ms_per_round.max(1)).map(|k| (ms + i64::from(k), u64::from(options.per_ms))).collect();
        ms += counts.len() as i64;
        let sent = Instant::now();
        engine.send_made(&counts, stream, makers.clone());
        Some(counts.iter().map(|&(_, events)| (sent, events as usize)).collect())
    })
}

/// The engine fed by a producer thread, rounds as `drive` sends them.
fn produced(options: &CepOptions, engine: &mut Dataflow, ahead: usize, workers: Arc<Workers>) -> Measured {
    let per_round = options.ms_per_round.max(1) as usize;
    let (queue, queued) = crossbeam_channel::bounded(QUEUED_ROUNDS * per_round);
    let room = engine.program().room(options.scenario.stream());
    std::thread::scope(|scope| {
        scope.spawn(move || produce(options, room, &queue, &workers));
        // The closure owns `queued`: dropping it when `drive` returns stops the producer at its next send.
        drive(options, engine, ahead, move |engine| {
            let round = (0..per_round).map(|_| queued.recv()).collect::<Result<Vec<_>, _>>().ok()?;
            let (times, batches): (Vec<_>, Vec<_>) = round.into_iter().map(|(at, b)| ((at, b.1.len()), b)).unzip();
            engine.send(batches);
            Some(times)
        })
    })
}

/// Builds the engine's rows, one synthetic millisecond per batch stamped with the instant it was queued, until
/// nothing receives them: the part of the service that turns notifications into rows on the callers' threads, with
/// `room` for the columns the statements add, as ingest leaves it. Before each batch it takes back the rows the
/// workers are done with, to build the next rows in, as the service's callers do.
fn produce(options: &CepOptions, room: usize, queue: &Sender<(Instant, Batch)>, workers: &Workers) {
    let mut generator = Generator::new(options.scenario, options.keys, options.per_ms, START_MS);
    generator.leave_room(room);
    let stream = Name::from(options.scenario.stream());
    loop {
        workers.recycle();
        if queue.send((Instant::now(), next_batch(&mut generator, options, &stream))).is_err() {
            return;
        }
    }
}

/// The service's feeder: sends a round of `ms_per_round` batches (`send_round`, which answers when and how many
/// events each batch queued, or `None` when no more come), then receives the rounds sent before it but the last
/// `ahead`, counting each batch's events with the latency from its queueing to the round's outputs. It sends no more
/// once the events sent reach `--events`.
fn drive(
    options: &CepOptions,
    engine: &mut Dataflow,
    ahead: usize,
    mut send_round: impl FnMut(&mut Dataflow) -> Option<Vec<(Instant, usize)>>,
) -> Measured {
    let mut measured = Measured::new();
    // Each round in flight: when and how many events each of its batches queued.
    let mut rounds: VecDeque<Vec<(Instant, usize)>> = VecDeque::new();
    let (begin, mut sent) = (Instant::now(), 0);
    while begin.elapsed() < options.duration && options.events.is_none_or(|n| sent < n) {
        let Some(times) = send_round(engine) else {
            break;
        };
        sent += times.iter().map(|(_, events)| *events as u64).sum::<u64>();
        rounds.push_back(times);
        while rounds.len() > ahead {
            receive(engine, rounds.pop_front(), &mut measured);
        }
    }
    while !rounds.is_empty() {
        receive(engine, rounds.pop_front(), &mut measured);
    }
    measured.elapsed = begin.elapsed();
    measured
}

/// Receives the oldest round in flight, whose batches queued at `times`, and counts it.
fn receive(engine: &mut Dataflow, times: Option<Vec<(Instant, usize)>>, measured: &mut Measured) {
    let outputs = engine.receive().map_or(0, |outputs| outputs.len());
    for (n, (queued_at, events)) in times.into_iter().flatten().enumerate() {
        measured.record_batch(queued_at, events, if n == 0 { outputs } else { 0 });
    }
}

/// The bench's generator on every worker (`--feed workers`): each worker steps through the whole event sequence (a
/// random step an event) and builds the rows of the events that `dealt_to` gives it, as the feeder would have dealt
/// them.
struct Makers {
    /// One a worker, locked only by its worker.
    generators: Vec<Mutex<Generator>>,
    /// Each key's worker when the stream is dealt by a column: in both scenarios a value of the key alone (the
    /// tracker's `id`, the room's `floor`); otherwise events go in turn.
    owners: Option<Vec<u32>>,
}

impl Makers {
    fn new(options: &CepOptions, engine: &Dataflow, peers: usize) -> Self {
        let mut generator = Generator::new(options.scenario, options.keys, options.per_ms, START_MS);
        generator.leave_room(engine.program().room(options.scenario.stream()));
        let stream = engine.program().id(options.scenario.stream()).unwrap_or(0);
        let dealing = engine.program().dealing();
        let owners = dealing.get(stream as usize).and_then(Option::as_ref).map(|_| {
            let owner = |key| {
                let row = generator.row(&Event { at_ms: START_MS, key, x: 0.0, y: 0.0 });
                dealt_to(0, stream, &row, peers, Some(&dealing)) as u32
            };
            (0..options.keys.max(1)).map(owner).collect()
        });
        Makers { generators: (0..peers).map(|_| Mutex::new(generator.clone())).collect(), owners }
    }
}

impl Source for Makers {
    fn share(&self, worker: usize, peers: usize, slot: &Slot) -> Vec<InputEvent> {
        let mut generator = self.generators[worker].lock().unwrap_or_else(PoisonError::into_inner);
        let mut events = Vec::with_capacity(slot.events as usize / peers + 1);
        for i in 0..slot.events {
            let event = generator.next_event();
            let owner = self.owners.as_ref().map_or(i as usize % peers, |owners| owners[event.key as usize] as usize);
            if owner == worker {
                events.push((slot.stream, slot.first + i, generator.row(&event)));
            }
        }
        events
    }
}

/// The next synthetic millisecond's events, as the engine's rows.
fn next_batch(generator: &mut Generator, options: &CepOptions, stream: &Name) -> Batch {
    let mut batch = Vec::with_capacity(options.per_ms as usize);
    let mut at_ms = START_MS;
    for _ in 0..options.per_ms.max(1) {
        let event = generator.next_event();
        at_ms = event.at_ms;
        batch.push((stream.clone(), generator.row(&event)));
    }
    (at_ms, batch)
}

fn measure_plain(options: &CepOptions) -> Measured {
    let mut job: Box<dyn PlainJob> = match options.scenario {
        Scenario::Geofence => Box::new(PlainGeofence::default()),
        Scenario::Floor => Box::new(PlainFloor::default()),
    };
    let mut generator = Generator::new(options.scenario, options.keys, options.per_ms, START_MS);
    timed(options.duration, options.events, || {
        let event: Event = generator.next_event();
        job.push(&event)
    })
}

/// Runs `step` (which pushes one event and answers how many outputs it gave) for `duration`, or until `events`
/// (rounded up to a whole sample). Only every [`LATENCY_SAMPLE`]-th step is timed on its own: reading the clock twice
/// per event would cost about as much as the plain job's event and slow the baseline down.
fn timed(duration: Duration, events: Option<u64>, mut step: impl FnMut() -> usize) -> Measured {
    let mut measured = Measured::new();
    let begin = Instant::now();
    loop {
        let started = Instant::now();
        let outputs = step();
        measured.record(started, outputs);
        for _ in 1..LATENCY_SAMPLE {
            measured.count(step());
        }
        measured.elapsed = begin.elapsed();
        if measured.elapsed >= duration || events.is_some_and(|n| measured.events >= n) {
            return measured;
        }
    }
}

impl CepReport {
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("plain struct serializes")
    }
}

const HEADER: [&str; 9] =
    ["scenario", "workers", "events/s", "p50 ms", "p99 ms", "baseline/s", "ratio", "outputs", "baseline outputs"];

impl CepReport {
    fn cells(&self) -> [String; 9] {
        [
            self.scenario.clone(),
            self.workers.to_string(),
            format!("{:.0}", self.throughput_per_s),
            format!("{:.4}", self.p50_ms),
            format!("{:.4}", self.p99_ms),
            format!("{:.0}", self.baseline_per_s),
            format!("{:.4}", self.ratio),
            self.outputs.to_string(),
            self.baseline_outputs.to_string(),
        ]
    }
}

/// A parameter line, then header and row with aligned columns.
impl fmt::Display for CepReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "# engine: {}; {} keys, {} events/synthetic ms, {} ms/round, {} rounds ahead, {:.0} s per side; engine {} events ({:.1} synthetic s), baseline {} events",
            self.engine,
            self.keys,
            self.per_ms,
            self.ms_per_round,
            self.rounds_ahead,
            self.duration_s,
            self.events,
            self.synthetic_s,
            self.baseline_events
        )?;
        super::report::write_table(f, &HEADER, &[self.cells().to_vec()])
    }
}

#[cfg(test)]
mod tests;

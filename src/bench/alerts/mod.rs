//! `fluxgate bench alerts`: end to end over HTTP, how long after its 4 second confirmation ends a geofence alert is
//! written (issue 6: within 10 ms, p99, at 10,000 positions per second):
//!
//! ```text
//! fluxgate bench alerts --rate 10000 --duration 20 [--trackers 1000] [--crossers 200] [--connections 16]
//!     [--workers N] [--cep-workers N] [--json]
//! ```
//!
//! Method. A real Fluxgate starts in this process on loopback (`devices::OwnServer`: wall clock, scratch data dir,
//! `--workers` server threads, `--cep-workers` CEP workers or else as many as `fluxgate serve` would run). The seed
//! `queries/geofence.json` is posted through `POST /cep/v1/admin/config` with the service token, its `out` broker set
//! to this server's own `/cb`, so alerts are written in-process into its store. A subscription (`subscribeContext`,
//! ONCHANGE on `inside` of every `Alert`) points at a bare loopback receiver (`watch`) that timestamps each
//! notification when its body has arrived.
//!
//! Warm-up (not timed): one reading per tracker, then a wait for each tracker's first alert (the first confirmation
//! inserts it). Load (`pace`): `--connections` keep-alive connections post one NGSI notification per position to
//! `/cep/notify`, paced to `--rate` in total, for `--duration` seconds (`schedule`). Most trackers keep their side;
//! `--crossers` of them change side once, at send times spread over the run so that every confirmation ends at least
//! half a second before the schedule ends, and then hold the new side, so each crossing owes exactly one alert. The
//! send time of the reading that starts the new side is noted; the alert's deadline is that plus 4 s, and its latency
//! is the notification's arrival minus the deadline (`outcome`). If the server falls behind the pace, readings go out
//! late and the load runs on until every crossing sent is confirmed under load (`pace`): the report gives the wall
//! time of the load and the rate achieved.
//!
//! What the number includes, so it is an upper bound of "alert written": the request's trip to the engine, the engine
//! clock's whole milliseconds and its 1 ms timer tick (`cep::service`), the publisher's commit to the store,
//! subscription matching and the notification's HTTP delivery. Client, server and receiver share the machine. Engine
//! time is the wall clock cut to the millisecond, so a timer may fire up to 1 ms before the deadline measured from the
//! send: latencies can be slightly negative, and are reported as measured. Missing or unexpected alerts fail the run.

mod outcome;
mod pace;
mod report;
mod schedule;
mod watch;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use thiserror::Error;

pub use self::report::AlertsReport;
use self::schedule::{CONFIRMATION, SHORTEST_RUN, Schedule, reading};
use self::watch::Watch;
use super::devices::OwnServer;
use super::load::{Conn, Endpoint, Expect};
use super::{BenchError, runtime};

/// How long alerts still owed may take to arrive after the load stops, and the warm-up's after its confirmation.
const SETTLE: Duration = Duration::from_secs(10);

#[derive(Debug, Error)]
pub enum AlertBenchError {
    #[error("--duration {0:?} is too short: crossings need at least {SHORTEST_RUN:?} to be confirmed under load")]
    TooShort(Duration),
    #[error("--crossers {crossers} must be between 1 and --trackers {trackers}")]
    Crossers { crossers: u32, trackers: u32 },
    #[error("--rate {0} must be a positive number of positions per second")]
    Rate(f64),
    #[error("warm-up: {received} of the {expected} first alerts arrived")]
    WarmUp { received: usize, expected: usize },
    #[error("{missing} of {crossings} crossings got no alert, and {unexpected} alerts matched no crossing")]
    Incomplete { missing: usize, unexpected: usize, crossings: usize },
    #[error(transparent)]
    Bench(#[from] BenchError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The flags of `fluxgate bench alerts`.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertsOptions {
    /// Positions per second, all trackers together.
    pub rate: f64,
    pub duration: Duration,
    pub trackers: u32,
    /// Trackers that change side once during the run.
    pub crossers: u32,
    pub connections: usize,
    /// Threads of the started server.
    pub workers: usize,
    /// Its CEP workers; `None` leaves them to the service's default, as `fluxgate serve` does.
    pub cep_workers: Option<usize>,
}

impl AlertsOptions {
    fn validate(&self) -> Result<(), AlertBenchError> {
        if self.duration <= SHORTEST_RUN {
            return Err(AlertBenchError::TooShort(self.duration));
        }
        if self.crossers == 0 || self.crossers > self.trackers {
            return Err(AlertBenchError::Crossers { crossers: self.crossers, trackers: self.trackers });
        }
        if !(self.rate > 0.0 && self.rate.is_finite()) {
            return Err(AlertBenchError::Rate(self.rate));
        }
        Ok(())
    }
}

/// What the run measured.
#[derive(Debug)]
struct Measured {
    sent: pace::Sent,
    outcome: outcome::Outcome,
}

/// Starts the server and the receiver, runs warm-up and load, and reports.
pub fn run(options: &AlertsOptions) -> Result<AlertsReport, AlertBenchError> {
    options.validate()?;
    let client = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let side = runtime(1, "bench-receiver")?;
    let watch = side.block_on(Watch::start())?;
    let own = OwnServer::start(options.workers, options.cep_workers, false)?;
    let endpoint =
        Endpoint { authority: own.running.addr.to_string(), prefix: String::new(), token: Some(own.token.clone()) };
    let measured = client.block_on(measure(&endpoint, &watch, options));
    let cep_workers = own.cep_workers;
    own.stop()?;
    Ok(report(options, cep_workers, &measured?))
}

async fn measure(endpoint: &Endpoint, watch: &Watch, options: &AlertsOptions) -> Result<Measured, AlertBenchError> {
    let schedule = Arc::new(Schedule::new(options.trackers, options.crossers, options.rate, options.duration));
    let mut conn = Conn::open(endpoint).await?;
    configure(&mut conn, &endpoint.authority).await?;
    subscribe(&mut conn, &watch.reference()).await?;
    warm_up(&mut conn, &schedule, watch).await?;
    let mark = watch.count();
    let sent = pace::run(endpoint, schedule, options.connections, options.duration).await?;
    watch.wait_for(mark + sent.crossings.len(), SETTLE).await;
    let outcome = outcome::outcome(&sent.crossings, &watch.since(mark));
    Ok(Measured { sent, outcome })
}

/// Posts the seed geofence configuration with its alerts written to this server's own broker.
async fn configure(conn: &mut Conn, authority: &str) -> Result<(), BenchError> {
    let mut config: Value = serde_json::from_str(include_str!("../../../queries/geofence.json"))
        .map_err(|e| BenchError::Request(format!("queries/geofence.json: {e}")))?;
    config["out"][0]["brokers"] = json!([{ "url": format!("http://{authority}/cb") }]);
    let path = "/cep/v1/admin/config";
    let (status, answer) = conn.post(path, config.to_string().into()).await?;
    if status != hyper::StatusCode::CREATED {
        let body = String::from_utf8_lossy(&answer).into_owned();
        return Err(BenchError::Refused { path: path.to_owned(), status: status.as_u16(), body });
    }
    Ok(())
}

/// Subscribes `reference` to every change of `inside` of an `Alert`.
async fn subscribe(conn: &mut Conn, reference: &str) -> Result<(), BenchError> {
    let body = json!({"entities": [{"type": "Alert", "isPattern": "true", "id": ".*"}], "reference": reference,
        "duration": "P1D", "notifyConditions": [{"type": "ONCHANGE", "condValues": ["inside"]}]});
    let path = "/cb/v1/subscribeContext";
    let answer = conn.post_expecting(path, body.to_string().into(), Expect::Ngsi).await?;
    if !String::from_utf8_lossy(&answer).contains("subscriptionId") {
        let body = String::from_utf8_lossy(&answer).into_owned();
        return Err(BenchError::Refused { path: path.to_owned(), status: 200, body });
    }
    Ok(())
}

/// One reading per tracker on its starting side, then every tracker's first alert.
async fn warm_up(conn: &mut Conn, schedule: &Schedule, watch: &Watch) -> Result<(), AlertBenchError> {
    for tracker in 0..schedule.trackers() {
        let body = reading(tracker, schedule.starts_inside(tracker));
        conn.post_expecting(pace::NOTIFY_PATH, body, Expect::Ngsi).await?;
    }
    let expected = schedule.trackers() as usize;
    let received = watch.wait_for(expected, CONFIRMATION + SETTLE).await;
    if received < expected {
        return Err(AlertBenchError::WarmUp { received, expected });
    }
    Ok(())
}

fn report(options: &AlertsOptions, cep_workers: usize, measured: &Measured) -> AlertsReport {
    let (sent, outcome) = (&measured.sent, &measured.outcome);
    AlertsReport {
        scenario: "alerts".to_owned(),
        workers: options.workers,
        cep_workers,
        throughput_per_s: round(sent.per_s(), 1),
        p50_ms: round(outcome.ms(0.5), 3),
        p99_ms: round(outcome.ms(0.99), 3),
        max_ms: round(outcome.max_ms(), 3),
        min_ms: round(outcome.min_ms(), 3),
        target_per_s: options.rate,
        positions: sent.positions,
        errors: sent.errors,
        first_error: sent.first_error.clone(),
        crossings: sent.crossings.len(),
        alerts: outcome.latencies_ms.len(),
        missing: outcome.missing,
        unexpected: outcome.unexpected,
        trackers: options.trackers,
        connections: options.connections,
        duration_s: options.duration.as_secs_f64(),
        load_s: round(sent.elapsed.as_secs_f64(), 3),
        observed: "confirmation end to subscription notification (upper bound)".to_owned(),
    }
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

//! `fluxgate bench history`: how fast the historic store ingests and answers, on a fresh data dir.
//!
//! Command: `fluxgate bench history [--workers 8,64] [--duration 10] [--attributes 10] [--sizes 100000,10000000]
//! [--queries 300] [--synchronous full] [--json]`.
//!
//! Ingest: for each count in `--workers`, that many tasks post NGSI v1 notifications (one entity, `attributes` numbers, each with its own
//! TimeInstant) to `POST /sth/notify` through the real router (tokens, parsing, group-committed writes, no socket);
//! a notification counts when answered 200, which happens only after its commit, so the rate is of committed samples.
//! Queries: for each size, one series of one-second samples is generated directly through the store, then raw
//! lastN=100, aggregated minute over the last day and aggregated second over the last hour are timed one at a time
//! through the router. `baseline_per_s` is the rate the issue's target implies (100,000 samples/s; 1 ms per raw
//! query; 2 ms per minute-over-a-day query), so `ratio` >= 1 means the target is met; there is none for
//! second-over-an-hour.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;
use tower::ServiceExt;

use super::model::{AttrName, EntityRef, Sample, SeriesKey};
use super::time::Millis;
use crate::app::{AppOptions, AppState, router};
use crate::broker::model::EntityId;
use crate::broker::notify::DeliveryPolicy;
use crate::clock::WallClock;
use crate::store::StoreError;
use crate::store::sqlite::{SqliteOptions, Synchronous};
use crate::tenancy::{ServicePath, Tenant};

/// Flags of `fluxgate bench history`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Concurrent notifiers, one ingest run per count (comma list).
    #[arg(long, value_delimiter = ',', default_values_t = [8usize, 64])]
    pub workers: Vec<usize>,
    /// Seconds of ingest.
    #[arg(long, default_value_t = 10)]
    pub duration: u64,
    /// Numeric attributes per notification (samples per notification).
    #[arg(long, default_value_t = 10)]
    pub attributes: usize,
    /// Raw samples in the store for the query runs (comma list).
    #[arg(long, value_delimiter = ',', default_values_t = [100_000u64, 10_000_000])]
    pub sizes: Vec<u64>,
    /// Timed queries per kind and size.
    #[arg(long, default_value_t = 300)]
    pub queries: usize,
    /// SQLite synchronous mode: full or normal.
    #[arg(long, default_value = "full")]
    pub synchronous: String,
    /// One JSON object per run instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Error)]
pub enum BenchError {
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error(transparent)]
    Open(#[from] crate::app::OpenError),
    #[error("synchronous: {0:?} is not one of full, normal")]
    Synchronous(String),
    #[error("cannot prepare the data dir: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0} answered {1}: {2}")]
    Refused(String, StatusCode, String),
}

/// One run: the fields every `fluxgate bench` scenario shares, then this one's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub scenario: String,
    pub workers: usize,
    pub throughput_per_s: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub baseline_per_s: Option<f64>,
    pub ratio: Option<f64>,
    pub p90_ms: f64,
    pub max_ms: f64,
    /// Raw samples in the store (queries) or committed by the run (ingest).
    pub samples: u64,
    pub requests: u64,
    pub errors: u64,
    pub synchronous: String,
}

/// Runs every scenario on a fresh temporary data dir each; answers the reports in order.
pub fn run(args: &BenchArgs, mut each: impl FnMut(&Report)) -> Result<Vec<Report>, BenchError> {
    let synchronous = match args.synchronous.as_str() {
        "full" => Synchronous::Full,
        "normal" => Synchronous::Normal,
        other => return Err(BenchError::Synchronous(other.to_owned())),
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let mut reports = Vec::new();
    for &workers in &args.workers {
        let ingest = runtime.block_on(with_service(synchronous, |svc| ingest(svc, args, workers.max(1))))?;
        each(&ingest);
        reports.push(ingest);
    }
    for &size in &args.sizes {
        for report in runtime.block_on(with_service(synchronous, |svc| queries(svc, args, size)))? {
            each(&report);
            reports.push(report);
        }
    }
    Ok(reports)
}

/// The service under test: its router, token and state.
struct Service {
    router: Router,
    token: String,
    state: AppState,
    synchronous: Synchronous,
}

async fn with_service<F, Fut, T>(synchronous: Synchronous, body: F) -> Result<T, BenchError>
where
    F: FnOnce(Arc<Service>) -> Fut,
    Fut: Future<Output = Result<T, BenchError>>,
{
    let dir = scratch_dir()?;
    let options = AppOptions {
        store: SqliteOptions { data_dir: dir.clone(), readers: 2, synchronous },
        insecure: false,
        delivery: DeliveryPolicy::default(),
        history: super::HistoryOptions::default(),
        command_ttl: Duration::from_secs(3600),
        mqtt: None,
        cep_workers: 1,
    };
    let state = AppState::open(&options, Arc::new(WallClock)).await?;
    let token = crate::admin::ensure_default_service(state.store.as_ref()).await?.unwrap_or_default();
    let service = Arc::new(Service { router: router(state.clone()), token, state, synchronous });
    let result = body(service).await;
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn scratch_dir() -> Result<PathBuf, std::io::Error> {
    let dir =
        std::env::temp_dir().join(format!("fluxgate-bench-history-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

impl Service {
    async fn send(&self, method: Method, uri: &str, body: Option<String>) -> Result<(StatusCode, String), BenchError> {
        let mut builder = Request::builder()
            .method(method)
            .uri(uri)
            .header("platform-service", "default")
            .header("platform-servicepath", "/")
            .header("x-auth-token", self.token.as_str());
        if body.is_some() {
            builder = builder.header("content-type", "application/json");
        }
        let request = builder.body(Body::from(body.unwrap_or_default())).expect("a valid request");
        let response = self.router.clone().oneshot(request).await.expect("infallible router");
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap_or_default();
        Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
    }

    fn synchronous_name(&self) -> String {
        format!("{:?}", self.synchronous).to_lowercase()
    }
}

/// Latencies of a run, and what the percentiles of a report need.
#[derive(Debug, Default)]
struct Latencies(Vec<Duration>);

impl Latencies {
    fn percentile_ms(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        let index = ((self.0.len() - 1) as f64 * q).round() as usize;
        round(self.0[index].as_secs_f64() * 1000.0, 3)
    }

    fn report(mut self, scenario: String, workers: usize, per_s: f64, baseline: Option<f64>) -> Report {
        self.0.sort_unstable();
        Report {
            scenario,
            workers,
            throughput_per_s: round(per_s, 1),
            p50_ms: self.percentile_ms(0.5),
            p99_ms: self.percentile_ms(0.99),
            baseline_per_s: baseline,
            ratio: baseline.map(|b| round(per_s / b, 3)),
            p90_ms: self.percentile_ms(0.9),
            max_ms: self.percentile_ms(1.0),
            samples: 0,
            requests: self.0.len() as u64,
            errors: 0,
            synchronous: String::new(),
        }
    }
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

/// The instant of the `i`-th notification of a worker: its entities report once per second, 100 per second.
fn notification_time(i: u64) -> String {
    Millis(1_767_225_600_000 + (i / 100) as i64 * 1000).to_string()
}

/// The `i`-th notification of worker `w`: entity `w-(i mod 100)` at `time`, `attributes` numbers, each with its
/// TimeInstant. Written as text (what a broker sends), so the bench's own JSON building does not take the CPU the
/// server under test needs.
fn notification(w: usize, i: u64, attributes: usize, time: &str) -> String {
    use std::fmt::Write;
    let mut body = String::with_capacity(160 + attributes * 130);
    body.push_str(r#"{"subscriptionId":"bench","originator":"localhost","contextResponses":[{"contextElement":{"#);
    let _ = write!(body, r#""id":"Sensor-{w}-{}","type":"Sensor","isPattern":"false","attributes":["#, i % 100);
    for a in 0..attributes {
        let comma = if a > 0 { "," } else { "" };
        let _ = write!(
            body,
            r#"{comma}{{"name":"a{a}","type":"Number","value":"{}.{a}","metadatas":[{{"name":"TimeInstant","type":"ISO8601","value":"{time}"}}]}}"#,
            i % 97
        );
    }
    body.push_str(r#"]},"statusCode":{"code":"200","reasonPhrase":"OK"}}]}"#);
    body
}

async fn ingest(svc: Arc<Service>, args: &BenchArgs, workers: usize) -> Result<Report, BenchError> {
    let deadline = Instant::now() + Duration::from_secs(args.duration);
    let errors = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|w| tokio::spawn(notifier(svc.clone(), w, args.attributes, deadline, errors.clone())))
        .collect();
    let mut latencies = Latencies::default();
    for task in tasks {
        latencies.0.extend(task.await.map_err(std::io::Error::other)?.0);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let samples = latencies.0.len() as u64 * args.attributes as u64;
    let mut report = latencies.report("ingest".into(), workers, samples as f64 / elapsed, Some(100_000.0));
    report.samples = samples;
    report.errors = errors.load(Ordering::Relaxed);
    report.synchronous = svc.synchronous_name();
    Ok(report)
}

/// Posts notifications until the deadline; answers the latency of each committed one.
async fn notifier(
    svc: Arc<Service>,
    w: usize,
    attributes: usize,
    deadline: Instant,
    errors: Arc<AtomicU64>,
) -> Latencies {
    let mut latencies = Latencies::default();
    let mut i = 0u64;
    let mut time = notification_time(0);
    while Instant::now() < deadline {
        if i.is_multiple_of(100) {
            time = notification_time(i);
        }
        let body = notification(w, i, attributes, &time);
        let started = Instant::now();
        match svc.send(Method::POST, "/sth/notify", Some(body)).await {
            Ok((StatusCode::OK, _)) => latencies.0.push(started.elapsed()),
            _ => drop(errors.fetch_add(1, Ordering::Relaxed)),
        }
        i += 1;
    }
    latencies
}

/// The series the query runs read.
fn bench_series() -> SeriesKey {
    SeriesKey {
        entity: EntityRef {
            tenant: Tenant::default_tenant(),
            path: ServicePath::root(),
            id: EntityId("Meter".into()),
            entity_type: "Meter".into(),
        },
        attr: AttrName("power".into()),
    }
}

/// Where generated data ends: 2026-01-01T00:00:00Z.
const END: Millis = Millis(1_767_225_600_000);

/// Writes `size` one-second samples ending at [`END`] directly through the store; answers samples per second.
async fn generate(svc: &Service, size: u64) -> Result<f64, BenchError> {
    const CHUNK: u64 = 20_000;
    let key = bench_series();
    let started = Instant::now();
    let mut pending = Vec::new();
    for first in (0..size).step_by(CHUNK as usize) {
        let samples: Vec<Sample> = (first..(first + CHUNK).min(size))
            .map(|i| Sample {
                series: key.clone(),
                recv_time: Millis(END.0 - ((size - i) as i64) * 1000),
                attr_type: "Number".into(),
                value: Value::String(format!("{}.{}", 200 + i % 50, i % 10)),
            })
            .collect();
        pending.push(svc.state.history.store.ingest(samples));
        if pending.len() >= 2 {
            pending.remove(0).await?;
        }
    }
    for reply in pending {
        reply.await?;
    }
    Ok(size as f64 / started.elapsed().as_secs_f64())
}

/// The three timed queries at one store size, after a generation report.
async fn queries(svc: Arc<Service>, args: &BenchArgs, size: u64) -> Result<Vec<Report>, BenchError> {
    let per_s = generate(&svc, size).await?;
    let label = size_label(size);
    let mut generated = Latencies::default().report(format!("generate@{label}"), 1, per_s, None);
    generated.samples = size;
    let path = "/sth/type/Meter/id/Meter/attributes/power";
    let day = format!("dateFrom={}&dateTo={}", Millis(END.0 - 86_400_000), Millis(END.0 - 1));
    let hour = format!("dateFrom={}&dateTo={}", Millis(END.0 - 3_600_000), Millis(END.0 - 1));
    let kinds = [
        ("raw-lastN100", format!("{path}?lastN=100"), Some(1000.0)),
        ("aggr-minute-day", format!("{path}?aggrMethod=all&aggrPeriod=minute&{day}"), Some(500.0)),
        ("aggr-second-hour", format!("{path}?aggrMethod=all&aggrPeriod=second&{hour}"), None),
    ];
    let mut reports = vec![generated];
    for (name, uri, baseline) in kinds {
        let mut report = time_queries(&svc, &uri, args.queries).await?;
        report = Report { scenario: format!("{name}@{label}"), baseline_per_s: baseline, ..report };
        report.ratio = baseline.map(|b| round(report.throughput_per_s / b, 3));
        report.samples = size;
        reports.push(report);
    }
    for r in &mut reports {
        r.synchronous = svc.synchronous_name();
    }
    Ok(reports)
}

/// Runs one query `count` times one after the other (after a warm-up), timing each.
async fn time_queries(svc: &Service, uri: &str, count: usize) -> Result<Report, BenchError> {
    for _ in 0..10 {
        let (status, body) = svc.send(Method::GET, uri, None).await?;
        if status != StatusCode::OK {
            return Err(BenchError::Refused(uri.to_owned(), status, body));
        }
    }
    let mut latencies = Latencies::default();
    let started = Instant::now();
    for _ in 0..count.max(1) {
        let began = Instant::now();
        svc.send(Method::GET, uri, None).await?;
        latencies.0.push(began.elapsed());
    }
    let per_s = latencies.0.len() as f64 / started.elapsed().as_secs_f64();
    Ok(latencies.report(String::new(), 1, per_s, None))
}

fn size_label(size: u64) -> String {
    let exponent = (size as f64).log10();
    if size > 0 && exponent.fract() == 0.0 { format!("1e{exponent}") } else { size.to_string() }
}

/// The table of a list of reports.
#[derive(Debug)]
pub struct Table<'a>(pub &'a [Report]);

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = [
            "scenario",
            "workers",
            "throughput/s",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "baseline/s",
            "ratio",
            "samples",
            "errors",
        ];
        let rows: Vec<Vec<String>> = self.0.iter().map(|r| cells(r).to_vec()).collect();
        crate::bench::report::write_table(f, &header, &rows)
    }
}

fn cells(r: &Report) -> [String; 10] {
    let optional = |v: Option<f64>, digits: usize| v.map_or("-".to_owned(), |v| format!("{v:.digits$}"));
    [
        r.scenario.clone(),
        r.workers.to_string(),
        format!("{:.0}", r.throughput_per_s),
        format!("{:.3}", r.p50_ms),
        format!("{:.3}", r.p90_ms),
        format!("{:.3}", r.p99_ms),
        optional(r.baseline_per_s, 0),
        optional(r.ratio, 2),
        r.samples.to_string(),
        r.errors.to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn notifications_are_the_json_a_broker_sends() {
        let time = notification_time(250);
        let body: Value = serde_json::from_str(&notification(3, 250, 2, &time)).unwrap();
        let attr = |a: usize| {
            json!({"name": format!("a{a}"), "type": "Number", "value": format!("56.{a}"),
                "metadatas": [{"name": "TimeInstant", "type": "ISO8601", "value": "2026-01-01T00:00:02.000Z"}]})
        };
        let element =
            json!({"id": "Sensor-3-50", "type": "Sensor", "isPattern": "false", "attributes": [attr(0), attr(1)]});
        let expected = json!({"subscriptionId": "bench", "originator": "localhost",
            "contextResponses": [{"contextElement": element, "statusCode": {"code": "200", "reasonPhrase": "OK"}}]});
        assert_eq!(body, expected);
    }

    #[test]
    fn a_small_run_reports_every_scenario() {
        let args = BenchArgs {
            workers: vec![2],
            duration: 1,
            attributes: 3,
            sizes: vec![5_000],
            queries: 3,
            synchronous: "normal".into(),
            json: true,
        };
        let reports = run(&args, |_| {}).unwrap();
        let names: Vec<&str> = reports.iter().map(|r| r.scenario.as_str()).collect();
        assert_eq!(
            names,
            ["ingest", "generate@5000", "raw-lastN100@5000", "aggr-minute-day@5000", "aggr-second-hour@5000"]
        );
        assert!(reports[0].samples > 0 && reports[0].errors == 0, "{:?}", reports[0]);
        assert!(Table(&reports).to_string().lines().count() == 6);
    }
}

//! Built-in load generators. `fluxgate bench broker` drives the NGSI v1 broker with `updateContext` requests over
//! keep-alive connections for a fixed duration, and in the same invocation drives a bare hyper + serde_json server
//! with the same bodies, so the report gives Fluxgate's throughput, latency percentiles and its ratio to that
//! baseline:
//!
//! ```text
//! fluxgate bench broker --connections 32 --entities 10000 --attributes 3 --duration 10 [--subscriptions 100] [--json]
//! ```
//!
//! `fluxgate bench geofence` and `fluxgate bench floor` measure the CEP engine without HTTP against a plain
//! single-threaded baseline (`cep`, `cep_workload`, `cep_plain`). `fluxgate bench alerts` measures, end to end over
//! HTTP, how long after its confirmation a geofence alert is written (`alerts`).
//!
//! Without `--url` the bench starts its own server (`target`), so client and server share the machine, as a `wrk`
//! run on the same box would. Modules: `workload` (bodies), `load` (client), `target` (server under test and
//! preparation), `loopback`, `baseline` and `receiver` (the bare servers), `report` (table and JSON). Nothing here
//! changes how the server works; it only measures it.

pub mod alerts;
pub mod baseline;
pub mod cep;
pub mod cep_plain;
pub mod cep_workload;
pub mod devices;
pub mod load;
pub mod loopback;
pub mod mqtt;
pub mod receiver;
pub mod report;
pub mod target;
pub mod workload;

use std::time::Duration;

use thiserror::Error;
use tokio::runtime::Runtime;

use self::load::{Endpoint, Expect, Load, LoadResult};
use self::receiver::Receiver;
use self::report::{Measured, Report};
use self::target::Target;
use self::workload::Workload;
use crate::config::ConfigErrors;
use crate::server::ServerError;

/// The path every timed request goes to.
const UPDATE_PATH: &str = "/cb/v1/updateContext";

/// How long to wait for notifications still in flight when the load stops.
const NOTIFY_SETTLE: Duration = Duration::from_secs(10);

#[derive(Debug, Error)]
pub enum BenchError {
    #[error("--url {0:?} is not an http://host:port URL")]
    Url(String),
    #[error("the started server created no `default` service token (data dir not empty?)")]
    NoToken,
    #[error("cannot connect to {addr}")]
    Connect { addr: String, source: std::io::Error },
    #[error("cannot build a request: {0}")]
    Request(String),
    #[error("{path} answered {status}: {body}")]
    Refused { path: String, status: u16, body: String },
    #[error(transparent)]
    Http(#[from] hyper::Error),
    #[error(transparent)]
    Config(#[from] ConfigErrors),
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The flags of `fluxgate bench broker`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerOptions {
    /// A running server; `None` starts one.
    pub url: Option<String>,
    pub token: Option<String>,
    pub connections: usize,
    pub duration: Duration,
    pub workload: Workload,
    /// `full` or `normal`, for the server the bench starts.
    pub synchronous: Option<String>,
    /// Threads of the server's (and the baseline's) runtime; recorded in the report.
    pub workers: usize,
}

/// A tokio runtime of `threads` worker threads.
pub fn runtime(threads: usize, name: &str) -> Result<Runtime, BenchError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .thread_name(name)
        .enable_all()
        .build()?;
    Ok(runtime)
}

/// Runs the whole scenario: Fluxgate, then the baseline, and reports both.
pub fn broker(options: &BrokerOptions) -> Result<Report, BenchError> {
    // One thread drives every connection, like `wrk -t1`: no cross-thread wake-ups on the client side.
    let client = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (fluxgate, notifications) = measure_fluxgate(options, &client)?;
    let baseline = measure_baseline(options, &client)?;
    let measured = Measured { fluxgate: &fluxgate, baseline: &baseline, notifications };
    Ok(Report { workers: options.workers, ..parameters(options, Report::measured(measured)) })
}

fn parameters(options: &BrokerOptions, report: Report) -> Report {
    Report {
        connections: options.connections,
        duration_s: options.duration.as_secs_f64(),
        entities: options.workload.entities,
        attributes: options.workload.attributes,
        subscriptions: options.workload.subscriptions,
        synchronous: match &options.url {
            Some(_) => "as-configured".to_owned(),
            None => options.synchronous.clone().unwrap_or_else(|| "normal".to_owned()),
        },
        server: if options.url.is_some() { "remote" } else { "in-process" }.to_owned(),
        ..report
    }
}

/// `updateContext` requests over the workload's entities.
#[derive(Debug, Clone, Copy)]
struct Updates {
    workload: Workload,
    expect: Expect,
}

impl load::Requests for Updates {
    fn request(&self, seq: u64) -> load::Request {
        load::Request {
            path: UPDATE_PATH.to_owned(),
            content_type: "application/json",
            body: self.workload.update(seq),
        }
    }

    fn accepts(&self, status: hyper::StatusCode, body: &[u8]) -> bool {
        self.expect.accepts(status, body)
    }
}

fn load(options: &BrokerOptions, expect: Expect) -> Load<Updates> {
    let requests = std::sync::Arc::new(Updates { workload: options.workload, expect });
    Load { connections: options.connections, duration: options.duration, requests }
}

/// Prepares and loads the server under test; counts notifications when there are subscriptions.
fn measure_fluxgate(options: &BrokerOptions, client: &Runtime) -> Result<(LoadResult, Option<u64>), BenchError> {
    let target = Target::start(options)?;
    let side = runtime(1, "bench-receiver")?;
    let receiver = match options.workload.subscriptions {
        0 => None,
        _ => Some(side.block_on(Receiver::start())?),
    };
    let measured = client.block_on(load_fluxgate(&target.endpoint, options, receiver.as_ref()));
    target.stop()?;
    measured
}

async fn load_fluxgate(
    endpoint: &Endpoint,
    options: &BrokerOptions,
    receiver: Option<&Receiver>,
) -> Result<(LoadResult, Option<u64>), BenchError> {
    let reference = receiver.map(Receiver::reference);
    target::prepare(endpoint, &options.workload, reference.as_deref()).await?;
    let before = receiver.map_or(0, Receiver::received);
    let result = load::run(endpoint, load(options, Expect::Ngsi)).await?;
    let Some(receiver) = receiver else {
        return Ok((result, None));
    };
    let expected = before + result.requests - result.errors;
    let received = receiver.settle(expected, NOTIFY_SETTLE).await - before;
    Ok((result, Some(received)))
}

/// Loads the bare hyper + serde_json server with the same client and bodies.
fn measure_baseline(options: &BrokerOptions, client: &Runtime) -> Result<LoadResult, BenchError> {
    let server_side = runtime(options.workers, "bench-baseline")?;
    let server = server_side.block_on(baseline::start())?;
    let endpoint = Endpoint { authority: server.addr.to_string(), prefix: String::new(), token: None };
    client.block_on(load::run(&endpoint, load(options, Expect::Ok)))
}

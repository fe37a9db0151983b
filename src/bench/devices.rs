//! `fluxgate bench ul-http`: UltraLight observations over keep-alive HTTP, next to the bare hyper baseline of
//! `bench broker`:
//!
//! ```text
//! fluxgate bench ul-http --connections 32 --devices 10000 --measures 3 --duration 10 [--json]
//! ```
//!
//! Connection `c` of `n` sends observation `c, c + n, ...` to device `seq % devices` (`POST /ul/iot/d?k=&i=`, body
//! `m0|seq#m1|seq#...`). The server answers only once the entity update is committed (group commit, durable), so a
//! request's latency is the time from send to commit. Devices are unregistered: the first observation of each creates
//! its `thing:` entity, as for a fresh fleet. Also the in-process server both device benches start.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tempfile::TempDir;
use tokio::runtime::Runtime;

use super::load::{self, Endpoint, Load, LoadResult, Request, Requests};
use super::report::{Measured, Report};
use super::workload::Workload;
use super::{BenchError, BrokerOptions, measure_baseline, runtime};
use crate::app::AppOptions;
use crate::clock::WallClock;
use crate::config::{self, Settings};
use crate::mqtt::MqttMode;
use crate::server::{self, Running};

/// The flags of `fluxgate bench ul-http` and `fluxgate bench mqtt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceOptions {
    /// HTTP connections, or MQTT clients.
    pub connections: usize,
    pub devices: usize,
    /// Measures per observation.
    pub measures: usize,
    pub duration: Duration,
    pub workers: usize,
    /// MQTT: messages sent and not yet committed before the clients wait.
    pub window: usize,
}

/// A Fluxgate started in this process on loopback, with a temporary data dir.
#[derive(Debug)]
pub struct OwnServer {
    pub runtime: Runtime,
    pub running: Running,
    pub token: String,
    /// Its CEP workers, as its configuration settled them.
    pub cep_workers: usize,
    _data: TempDir,
}

impl OwnServer {
    /// Starts the server on `workers` runtime threads, with `cep_workers` CEP workers (the service's default when
    /// `None`) and the embedded MQTT broker on a free port when `mqtt`.
    pub fn start(workers: usize, cep_workers: Option<usize>, mqtt: bool) -> Result<Self, BenchError> {
        let data = tempfile::tempdir()?;
        let settings = Settings {
            listen: Some("127.0.0.1:0".to_owned()),
            data_dir: Some(data.path().to_path_buf()),
            workers: cep_workers,
            ..Settings::default()
        };
        let config = config::validate(settings)?;
        let mode = mqtt.then(|| MqttMode::Embedded(([127, 0, 0, 1], 0).into()));
        let options = AppOptions { mqtt: mode, ..server::app_options(&config) };
        let runtime = runtime(workers, "fluxgate-server")?;
        let running = runtime.block_on(server::start(&options, config.listen, Arc::new(WallClock)))?;
        let token = running.first_token.clone().ok_or(BenchError::NoToken)?;
        Ok(OwnServer { runtime, running, token, cep_workers: config.workers, _data: data })
    }

    pub fn stop(self) -> Result<(), BenchError> {
        self.runtime.block_on(self.running.stop())?;
        Ok(())
    }
}

/// The UltraLight body of observation `seq`: `measures` pairs, `m0` first.
pub fn observation(seq: u64, measures: usize, first: &str) -> String {
    let rest = (1..measures).map(|m| format!("#m{m}|{seq}"));
    std::iter::once(format!("m0|{first}")).chain(rest).collect()
}

/// Runs Fluxgate, then the baseline, and reports both.
pub fn ul_http(options: &DeviceOptions) -> Result<Report, BenchError> {
    let client = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let own = OwnServer::start(options.workers, Some(options.workers), false)?;
    let endpoint = Endpoint { authority: own.running.addr.to_string(), prefix: String::new(), token: None };
    let ours = client.block_on(run(&endpoint, &own.token, options));
    own.stop()?;
    let baseline = measure_baseline(&broker_like(options), &client)?;
    let measured = Measured { fluxgate: &ours?, baseline: &baseline, notifications: None };
    Ok(describe("ul-http", options, Report::measured(measured)))
}

/// `bench broker`'s options for the same connections, entity count, attributes and duration (for its baseline).
pub fn broker_like(options: &DeviceOptions) -> BrokerOptions {
    BrokerOptions {
        url: None,
        token: None,
        connections: options.connections,
        duration: options.duration,
        workload: Workload { entities: options.devices, attributes: options.measures, subscriptions: 0 },
        synchronous: None,
        workers: options.workers,
    }
}

/// Fills the scenario's parameters into a measured report.
pub fn describe(scenario: &str, options: &DeviceOptions, report: Report) -> Report {
    Report {
        scenario: scenario.to_owned(),
        workers: options.workers,
        connections: options.connections,
        duration_s: options.duration.as_secs_f64(),
        entities: options.devices,
        attributes: options.measures,
        synchronous: "normal".to_owned(),
        server: "in-process".to_owned(),
        ..report
    }
}

/// UltraLight observations from `devices` devices, `measures` measures each.
struct Observations {
    token: String,
    devices: u64,
    measures: usize,
}

impl Requests for Observations {
    fn request(&self, seq: u64) -> Request {
        let path = format!("/ul/iot/d?k={}&i=dev{}", self.token, seq % self.devices);
        let body = Bytes::from(observation(seq, self.measures, &seq.to_string()));
        Request { path, content_type: "text/plain", body }
    }

    fn accepts(&self, status: hyper::StatusCode, _body: &[u8]) -> bool {
        status.is_success()
    }
}

async fn run(endpoint: &Endpoint, token: &str, options: &DeviceOptions) -> Result<LoadResult, BenchError> {
    let requests =
        Arc::new(Observations { token: token.to_owned(), devices: options.devices as u64, measures: options.measures });
    load::run(endpoint, Load { connections: options.connections, duration: options.duration, requests }).await
}

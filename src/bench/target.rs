//! The server `fluxgate bench broker` measures: one given by `--url` (and `--token`), or, without it, a Fluxgate
//! started in this process by `server::start` on `127.0.0.1:0` with a temporary data dir, its own tokio runtime of
//! `--workers` threads, and the `default` service token the first start creates.
//!
//! It also prepares the run: pre-creates the entities and the subscriptions before timing starts. It never changes
//! the server's code or settings beyond what `fluxgate serve` flags can set.

use std::sync::Arc;

use tempfile::TempDir;
use tokio::runtime::Runtime;

use super::load::{Conn, Endpoint, Expect};
use super::workload::Workload;
use super::{BenchError, BrokerOptions, runtime};
use crate::app::AppOptions;
use crate::clock::WallClock;
use crate::config::{self, Settings};
use crate::server::{self, Running};

/// Entities created per `updateContext` while preparing.
const CREATE_BATCH: usize = 100;

/// A Fluxgate started by the bench, with what must outlive it.
#[derive(Debug)]
struct Own {
    runtime: Runtime,
    running: Running,
    _data: TempDir,
}

/// The server under test.
#[derive(Debug)]
pub struct Target {
    pub endpoint: Endpoint,
    own: Option<Own>,
}

impl Target {
    /// Connects to `--url`, or starts a Fluxgate of our own.
    pub fn start(options: &BrokerOptions) -> Result<Self, BenchError> {
        match &options.url {
            Some(url) => Ok(Target { endpoint: Endpoint::parse(url, options.token.clone())?, own: None }),
            None => start_own(options),
        }
    }

    /// Stops the server we started, if any; its data dir is removed.
    pub fn stop(self) -> Result<(), BenchError> {
        if let Some(own) = self.own {
            own.runtime.block_on(own.running.stop())?;
        }
        Ok(())
    }
}

fn start_own(options: &BrokerOptions) -> Result<Target, BenchError> {
    let data = tempfile::tempdir()?;
    let settings = Settings {
        listen: Some("127.0.0.1:0".to_owned()),
        data_dir: Some(data.path().to_path_buf()),
        workers: Some(options.workers),
        synchronous: options.synchronous.clone(),
        ..Settings::default()
    };
    let config = config::validate(settings)?;
    let runtime = runtime(options.workers, "fluxgate-server")?;
    let app = server::app_options(&config);
    let running =
        runtime.block_on(server::start(&AppOptions { mqtt: None, ..app }, config.listen, Arc::new(WallClock)))?;
    let token = running.first_token.clone().ok_or(BenchError::NoToken)?;
    let endpoint = Endpoint { authority: running.addr.to_string(), prefix: String::new(), token: Some(token) };
    Ok(Target { endpoint, own: Some(Own { runtime, running, _data: data }) })
}

/// Creates every entity, then the subscriptions pointing at `reference`.
pub async fn prepare(endpoint: &Endpoint, workload: &Workload, reference: Option<&str>) -> Result<(), BenchError> {
    let mut conn = Conn::open(endpoint).await?;
    for body in workload.creations(CREATE_BATCH) {
        conn.post_expecting("/cb/v1/updateContext", body, Expect::Ngsi).await?;
    }
    for body in reference.map(|r| workload.subscriptions(r)).unwrap_or_default() {
        let answer = conn.post_expecting("/cb/v1/subscribeContext", body, Expect::Ngsi).await?;
        if !String::from_utf8_lossy(&answer).contains("subscriptionId") {
            let body = String::from_utf8_lossy(&answer).into_owned();
            return Err(BenchError::Refused { path: "/cb/v1/subscribeContext".to_owned(), status: 200, body });
        }
    }
    Ok(())
}

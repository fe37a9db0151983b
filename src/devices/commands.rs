//! Delivering queued commands: pushed by HTTP to devices with an `endpoint` (the reply is the result), left in the
//! queue for polling devices, and expired when not delivered within the TTL.
//!
//! The dispatcher hears of queued commands after their commit (as a store listener) and works on tokio tasks, never
//! on the update path. A device that is down, slow or answers garbage turns the command to ERROR with the reason.

use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use super::registry::DeviceIndex;
use super::ul::parse_result;
use crate::clock::Clock;
use crate::store::{ChangeListener, CommandReport, CommandState, Origin, QueuedCommand, Store, UpdateOutcome};

type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// Sends queued commands to the devices that are pushed to.
pub struct CommandDispatcher {
    store: Weak<dyn Store>,
    index: Arc<DeviceIndex>,
    client: HttpClient,
    runtime: tokio::runtime::Handle,
    timeout: Duration,
}

impl std::fmt::Debug for CommandDispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandDispatcher").field("timeout", &self.timeout).finish_non_exhaustive()
    }
}

impl CommandDispatcher {
    /// A dispatcher on the current tokio runtime.
    pub fn new(store: &Arc<dyn Store>, index: Arc<DeviceIndex>, timeout: Duration) -> Self {
        CommandDispatcher {
            store: Arc::downgrade(store),
            index,
            client: Client::builder(TokioExecutor::new()).build_http(),
            runtime: tokio::runtime::Handle::current(),
            timeout,
        }
    }

    fn push(&self, command: QueuedCommand, endpoint: String, path: String) {
        let (client, store, timeout) = (self.client.clone(), self.store.clone(), self.timeout);
        self.runtime.spawn(async move {
            let report = push_one(&client, &command, &endpoint, &path, timeout).await;
            metrics::counter!("fluxgate_commands_pushed_total", "state" => report.state.as_str()).increment(1);
            if let Some(store) = store.upgrade()
                && let Err(e) = store.ingest(None, command.tenant.clone(), vec![report]).await
            {
                tracing::warn!(device = %command.device_id, error = %e, "could not record a command result");
            }
        });
    }
}

impl ChangeListener for CommandDispatcher {
    fn on_commit(&self, _origin: &Origin, outcome: &UpdateOutcome) {
        for command in &outcome.commands {
            let Some(registered) = self.index.get(&command.tenant, &command.device_id) else { continue };
            if let Some(endpoint) = &registered.device.endpoint {
                self.push(command.clone(), endpoint.clone(), registered.path.to_string());
            }
        }
    }
}

async fn push_one(
    client: &HttpClient,
    command: &QueuedCommand,
    endpoint: &str,
    path: &str,
    timeout: Duration,
) -> CommandReport {
    let report = |state, info: String| CommandReport {
        device_id: command.device_id.clone(),
        command: command.command.clone(),
        state,
        info,
    };
    match send(client, command, endpoint, path, timeout).await {
        Err(reason) => report(CommandState::Error, reason),
        Ok(body) => match parse_result(body.trim()) {
            Some(r) if r.device_id == command.device_id && r.command == command.command => {
                report(CommandState::Ok, r.result)
            }
            _ => report(CommandState::Error, format!("the device answered something that is not a result: {body:?}")),
        },
    }
}

/// POSTs the command text; the body of a 200 answer, or why there is none.
async fn send(
    client: &HttpClient,
    command: &QueuedCommand,
    endpoint: &str,
    path: &str,
    timeout: Duration,
) -> Result<String, String> {
    let request = hyper::Request::post(endpoint)
        .header("content-type", "text/plain")
        .header("platform-service", command.tenant.as_str())
        .header("platform-servicepath", path)
        .body(Full::new(Bytes::from(command.text.clone())))
        .map_err(|e| e.to_string())?;
    let response = match tokio::time::timeout(timeout, client.request(request)).await {
        Err(_) => return Err(format!("the device did not answer within {} ms", timeout.as_millis())),
        Ok(Err(e)) => return Err(format!("the device could not be reached: {e}")),
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    let body = tokio::time::timeout(timeout, response.into_body().collect()).await;
    let text = match body {
        Ok(Ok(collected)) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
        _ => return Err("the device's answer could not be read".to_owned()),
    };
    if status.is_success() { Ok(text) } else { Err(format!("the device answered {status}: {text}")) }
}

/// Expires commands not delivered within `ttl`, every `every`, until the store is gone.
pub async fn expire_periodically(store: Weak<dyn Store>, clock: Arc<dyn Clock>, ttl: Duration, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        let Some(store) = store.upgrade() else { return };
        if let Err(e) = expire_now(store.as_ref(), clock.as_ref(), ttl).await {
            tracing::warn!(error = %e, "command expiry failed");
        }
    }
}

/// Expires, once, every command queued more than `ttl` ago and never delivered.
pub async fn expire_now(
    store: &dyn Store,
    clock: &dyn Clock,
    ttl: Duration,
) -> Result<usize, crate::store::StoreError> {
    let before = clock.now_ms() - i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
    let outcome = store.expire_commands(before).await?;
    Ok(outcome.changes.len())
}

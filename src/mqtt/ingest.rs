//! MQTT ingest: every publish on a device topic, checked and written through the HTTP path's `write_items`.
//!
//! A publish is refused (counted in `fluxgate_mqtt_refused_total{reason}` and logged without its token) when its topic
//! is not a device topic, its token is unknown, its device is not registered in the token's service with protocol
//! `PDI-IoTA-MQTT-UltraLight`, or its payload is malformed; a refused publish writes nothing. Publishes are spread over
//! a fixed set of worker tasks by device, so one device's measures are written in order while many devices share the
//! store's group commit.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use bytes::Bytes;
use thiserror::Error;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::tokens::TokenBook;
use super::topic::{self, Kind};
use crate::app::AppState;
use crate::auth::Grant;
use crate::devices::api::{ApiError, write_items};
use crate::devices::model::MQTT_PROTOCOL;
use crate::devices::ul::{self, Group, Item, Measure};
use crate::store::Origin;

/// Worker tasks writing publishes; each owns the devices hashed to it.
const WORKERS: usize = 64;
/// Publishes queued per worker before the source waits.
const QUEUE: usize = 1024;

/// One publish as received from the broker.
#[derive(Debug, Clone)]
pub struct Inbound {
    pub topic: String,
    pub payload: Bytes,
}

/// Why a publish (or a connection) was refused; `reason` is the metric label.
#[derive(Debug, Error)]
pub enum Refusal {
    #[error("the user name is not a valid service token")]
    BadUser,
    #[error("the topic is not <token>/<device_id>/<attr|mul20|cmdexe>")]
    BadTopic,
    #[error("the topic's token is not a valid service token")]
    UnknownToken,
    #[error("device {0} is not registered with protocol {MQTT_PROTOCOL} in the token's service")]
    Unregistered(String),
    #[error("malformed payload: {0}")]
    Malformed(String),
    #[error("refused by the store: {0}")]
    Rejected(String),
}

impl Refusal {
    pub fn reason(&self) -> &'static str {
        match self {
            Refusal::BadUser => "bad_user",
            Refusal::BadTopic => "bad_topic",
            Refusal::UnknownToken => "unknown_token",
            Refusal::Unregistered(_) => "unregistered_device",
            Refusal::Malformed(_) => "malformed_payload",
            Refusal::Rejected(_) => "rejected",
        }
    }

    /// Counts and logs the refusal; the log names the device id only, never the token.
    pub fn record(&self) {
        metrics::counter!("fluxgate_mqtt_refused_total", "reason" => self.reason()).increment(1);
        tracing::info!(reason = self.reason(), detail = %self, "MQTT publish refused");
    }
}

impl From<ApiError> for Refusal {
    fn from(e: ApiError) -> Self {
        match e {
            ApiError::Parse(p) => Refusal::Malformed(p.to_string()),
            other => Refusal::Rejected(other.to_string()),
        }
    }
}

/// The entry point of publishes: routes each to the worker of its device.
#[derive(Debug, Clone)]
pub struct Sharded {
    workers: Arc<Vec<mpsc::Sender<Inbound>>>,
}

impl Sharded {
    fn worker(&self, inbound: &Inbound) -> &mpsc::Sender<Inbound> {
        let device = inbound.topic.rsplit_once('/').map_or(inbound.topic.as_str(), |(d, _)| d);
        let mut hasher = DefaultHasher::new();
        device.hash(&mut hasher);
        &self.workers[(hasher.finish() % self.workers.len() as u64) as usize]
    }

    /// Queues a publish from async code; false once ingest has stopped.
    pub async fn send(&self, inbound: Inbound) -> bool {
        self.worker(&inbound).send(inbound).await.is_ok()
    }

    /// Queues a publish from a plain thread; false once ingest has stopped.
    pub fn blocking_send(&self, inbound: Inbound) -> bool {
        self.worker(&inbound).blocking_send(inbound).is_ok()
    }
}

/// Starts the workers; their handles are for stopping them.
pub fn spawn(state: AppState, tokens: Arc<TokenBook>) -> (Sharded, Vec<JoinHandle<()>>) {
    let (senders, handles): (Vec<_>, Vec<_>) = (0..WORKERS)
        .map(|_| {
            let (tx, rx) = mpsc::channel(QUEUE);
            (tx, tokio::spawn(work(state.clone(), tokens.clone(), rx)))
        })
        .unzip();
    (Sharded { workers: Arc::new(senders) }, handles)
}

async fn work(state: AppState, tokens: Arc<TokenBook>, mut rx: mpsc::Receiver<Inbound>) {
    while let Some(inbound) = rx.recv().await {
        match handle(&state, &tokens, &inbound).await {
            Ok(()) => metrics::counter!("fluxgate_mqtt_accepted_total").increment(1),
            Err(refusal) => refusal.record(),
        }
    }
}

/// Checks and writes one publish.
pub async fn handle(state: &AppState, tokens: &TokenBook, inbound: &Inbound) -> Result<(), Refusal> {
    let topic = topic::parse(&inbound.topic).ok_or(Refusal::BadTopic)?;
    if topic.kind == Kind::Command {
        return Ok(());
    }
    let grant = state.auth.grant_of(topic.token).await.map_err(|_| Refusal::UnknownToken)?;
    check_device(state, &grant, topic.device_id)?;
    let items = items(&topic.kind, &inbound.payload)?;
    write_items(state, &grant, topic.device_id, items, Origin { token: None, correlator: String::new() }).await?;
    tokens.learn(&grant.service, topic.token);
    Ok(())
}

fn check_device(state: &AppState, grant: &Grant, device_id: &str) -> Result<(), Refusal> {
    match state.devices.get(&grant.service, device_id) {
        Some(d) if d.device.protocol == MQTT_PROTOCOL => Ok(()),
        _ => Err(Refusal::Unregistered(device_id.to_owned())),
    }
}

/// The observation items of a payload: one value for `<attr>`, an UltraLight payload for `mul20` and `cmdexe`.
fn items(kind: &Kind<'_>, payload: &[u8]) -> Result<Vec<Item>, Refusal> {
    match kind {
        Kind::Measure(alias) => single(alias, payload).map(|item| vec![item]),
        _ => ul::parse_bytes(payload).map_err(|e| Refusal::Malformed(e.to_string())),
    }
}

fn single(alias: &str, payload: &[u8]) -> Result<Item, Refusal> {
    let value = std::str::from_utf8(payload).map_err(|_| Refusal::Malformed("the value is not UTF-8".into()))?.trim();
    if value.is_empty() || value.contains(['|', '#']) || alias.contains(['@', '|', '#']) {
        return Err(Refusal::Malformed(format!("{value:?} is not a single value for attribute {alias:?}")));
    }
    let measure = Measure { alias: alias.to_owned(), value: value.to_owned() };
    Ok(Item::Measures(Group { timestamp: None, measures: vec![measure] }))
}

//! The assembled service: shared state every API router sees, built from a validated configuration.
//!
//! [`App::open`] opens the store, loads subscriptions into the live index, wires the index as the store's change
//! listener and returns the state; [`router`] mounts every API on it. Binding sockets is `server`'s job, so tests
//! can drive the router without a socket.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;

use crate::auth::Authenticator;
use crate::broker::matcher::SubscriptionIndex;
use crate::broker::notify::{DeliveryPolicy, Dispatcher, Sinks};
use crate::cep::publish::Publisher;
use crate::cep::service::{CepService, CepSink, CepStartError};
use crate::clock::Clock;
use crate::devices::commands::{self, CommandDispatcher};
use crate::devices::registry::DeviceIndex;
use crate::history::sink::{HistorySink, NOTIFY_PATH};
use crate::history::{History, HistoryOptions, retention};
use crate::mqtt::MqttMode;
use crate::store::sqlite::{SqliteOptions, SqliteStore};
use crate::store::{Store, StoreError};
use crate::{broker, cep, devices, history, http, ops};

/// What every handler can reach: one shared [`AppParts`], so that the clones axum makes of the state for every
/// request (the route's handler service, then the `State` extractor) cost one reference count, not one per part.
#[derive(Clone, Debug)]
pub struct AppState(Arc<AppParts>);

impl std::ops::Deref for AppState {
    type Target = AppParts;

    fn deref(&self) -> &AppParts {
        &self.0
    }
}

/// The parts of the state.
#[derive(Debug)]
pub struct AppParts {
    pub store: Arc<dyn Store>,
    pub auth: Arc<Authenticator>,
    pub subscriptions: Arc<SubscriptionIndex>,
    pub sinks: Arc<Sinks>,
    pub devices: Arc<DeviceIndex>,
    pub clock: Arc<dyn Clock>,
    pub history: History,
    pub cep: Arc<CepService>,
}

impl std::fmt::Debug for dyn Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

/// Everything needed to open the service state.
#[derive(Debug, Clone)]
pub struct AppOptions {
    pub store: SqliteOptions,
    pub insecure: bool,
    pub delivery: DeliveryPolicy,
    /// Commands not delivered within this time expire.
    pub command_ttl: Duration,
    pub history: HistoryOptions,
    /// MQTT for devices: an embedded broker or an external one; `None` runs without MQTT (router-level tests).
    pub mqtt: Option<MqttMode>,
    /// Timely workers of the CEP (`--workers`).
    pub cep_workers: usize,
}

/// Why the service state did not open.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Cep(#[from] CepStartError),
}

impl AppState {
    /// Opens the store, the subscription engine and the history (its sink and purge); must run inside a tokio
    /// runtime.
    pub async fn open(options: &AppOptions, clock: Arc<dyn Clock>) -> Result<Self, OpenError> {
        let sqlite = Arc::new(SqliteStore::open(&options.store, clock.clone())?);
        let store: Arc<dyn Store> = sqlite.clone();
        let history = History { store: sqlite, clock: clock.clone(), options: options.history.clone() };
        let sinks = Arc::new(Sinks::default());
        sinks.register(NOTIFY_PATH, HistorySink::new(history.clone()));
        retention::spawn_purge(history.clone());
        let dispatcher = Dispatcher::new(sinks.clone(), options.delivery.clone());
        let initial = store.subscriptions().await?;
        let subscriptions = Arc::new(SubscriptionIndex::new(dispatcher, clock.clone(), initial));
        store.add_listener(subscriptions.clone());
        let devices = Arc::new(DeviceIndex::new(store.devices().await?));
        store.set_rule(devices.clone());
        let dispatcher = CommandDispatcher::new(&store, devices.clone(), options.delivery.timeout);
        store.add_listener(Arc::new(dispatcher));
        let every = (options.command_ttl / 10).clamp(Duration::from_millis(100), Duration::from_secs(10));
        tokio::spawn(commands::expire_periodically(Arc::downgrade(&store), clock.clone(), options.command_ttl, every));
        let auth = Arc::new(Authenticator::new(store.clone(), options.insecure));
        let publisher = Publisher::new(store.clone(), auth.clone(), sinks.clone(), options.delivery.clone());
        let cep = CepService::start(&store, clock.clone(), publisher, options.cep_workers).await?;
        sinks.register("/cep/notify", Arc::new(CepSink(Arc::downgrade(&cep))));
        Ok(AppState(Arc::new(AppParts { store, auth, subscriptions, sinks, devices, clock, history, cep })))
    }
}

/// Every API, mounted under its prefix, with the common HTTP layers.
pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(broker::routes::router())
        .nest("/ul/iot", devices::api::router())
        .nest("/sth", history::routes::router())
        .nest("/cep", cep::api::router())
        .merge(ops::router())
        .with_state(state)
        .layer(http::CorrelatorLayer)
}

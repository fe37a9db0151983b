//! Binds the HTTP listener, mounts the routers on the opened state, and shuts down gracefully.
//!
//! [`start`] returns a [`Running`] server (its bound address and state) so integration tests and `fluxgate bench` run
//! the real service on a loopback port; [`serve`] is the `fluxgate serve` command on top of it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::app::{AppOptions, AppState, router};
use crate::clock::{Clock, WallClock};
use crate::config::Config;
use crate::mqtt::{self, Mqtt, MqttError, MqttMode};
use crate::store::StoreError;
use crate::store::sqlite::SqliteOptions;
use crate::{admin, ops};

#[derive(Debug, Error)]
pub enum ServerError {
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error(transparent)]
    Open(#[from] crate::app::OpenError),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error(transparent)]
    Mqtt(#[from] MqttError),
    #[error("server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// A server running on a tokio task.
#[derive(Debug)]
pub struct Running {
    pub addr: SocketAddr,
    pub state: AppState,
    /// The `default` service's token when this start created it.
    pub first_token: Option<String>,
    /// The MQTT side, when started; its `addr` is the embedded broker's.
    pub mqtt: Option<Mqtt>,
    shutdown: oneshot::Sender<()>,
    task: JoinHandle<Result<(), std::io::Error>>,
}

impl Running {
    /// Stops accepting, lets requests in flight finish, and waits.
    pub async fn stop(self) -> Result<(), ServerError> {
        let _ = self.shutdown.send(());
        if let Some(mqtt) = self.mqtt {
            mqtt.stop();
        }
        self.task.await.map_err(std::io::Error::other)??;
        Ok(())
    }
}

/// The store and delivery options a configuration implies.
pub fn app_options(config: &Config) -> AppOptions {
    AppOptions {
        store: SqliteOptions { data_dir: config.data_dir.clone(), readers: 4, synchronous: config.synchronous },
        insecure: config.insecure,
        delivery: config.delivery(),
        command_ttl: Duration::from_secs(config.command_ttl_secs),
        history: config.history(),
        mqtt: Some(match &config.mqtt_broker {
            Some(url) => MqttMode::External(url.clone()),
            None => MqttMode::Embedded(config.mqtt_listen),
        }),
        cep_workers: config.workers,
    }
}

/// Opens the state, binds `listen` and serves until stopped.
pub async fn start(options: &AppOptions, listen: SocketAddr, clock: Arc<dyn Clock>) -> Result<Running, ServerError> {
    ops::install_recorder();
    let state = AppState::open(options, clock).await?;
    let first_token = admin::ensure_default_service(state.store.as_ref()).await?;
    let mqtt = match &options.mqtt {
        Some(mode) => Some(mqtt::start(&state, mode).await?),
        None => None,
    };
    let listener = TcpListener::bind(listen).await.map_err(|source| ServerError::Bind { addr: listen, source })?;
    let addr = listener.local_addr()?;
    state.sinks.set_listener(addr);
    let (shutdown, stopped) = oneshot::channel::<()>();
    let app = router(state.clone());
    let task = tokio::spawn(async move {
        axum::serve(listener, app).with_graceful_shutdown(async move { drop(stopped.await) }).await
    });
    Ok(Running { addr, state, first_token, mqtt, shutdown, task })
}

/// `fluxgate serve`: runs until SIGINT or SIGTERM.
pub async fn serve(config: Config) -> Result<(), ServerError> {
    let running = start(&app_options(&config), config.listen, Arc::new(WallClock)).await?;
    if let Some(token) = &running.first_token {
        println!("Created service `default`. Its token (shown only this once):\n{token}");
    }
    match running.mqtt.as_ref().and_then(|m| m.addr) {
        Some(mqtt) => {
            println!("Listening on {} (HTTP) and {mqtt} (MQTT).", running.addr);
            tracing::info!(mqtt = %mqtt, "embedded MQTT broker listening");
        }
        None => {
            println!("Listening on {} (HTTP).", running.addr);
            tracing::info!(broker = ?config.mqtt_broker.as_ref().map(ToString::to_string), "MQTT client mode");
        }
    }
    tracing::info!(listen = %running.addr, data_dir = %config.data_dir.display(), "fluxgate is serving");
    if config.insecure {
        tokio::spawn(warn_insecure());
    }
    shutdown_signal().await;
    tracing::info!("shutting down");
    running.stop().await
}

async fn warn_insecure() {
    let mut every_minute = tokio::time::interval(Duration::from_secs(60));
    loop {
        every_minute.tick().await;
        tracing::warn!("authentication is OFF (--insecure): every request has every right");
    }
}

async fn shutdown_signal() {
    let ctrl_c = async { drop(tokio::signal::ctrl_c().await) };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => drop(s.recv().await),
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { () = ctrl_c => {}, () = term => {} }
}

//! The embedded broker: rumqttd in-process, on its own threads, listening on `--mqtt-listen`.
//!
//! Its connect hook admits only a user name that is a valid service token (the password may be empty or the token).
//! Fluxgate's side is an in-process link subscribed to `+/+/+`: a plain thread hands each publish to ingest, and the
//! link publishes commands. rumqttd's router does not tell a link who published a message, so the "user name equals
//! the topic's token" rule cannot be checked per publish: ingest checks that the topic's token is a valid token of the
//! device's service instead (see the crate README). rumqttd has no shutdown: the broker lives as long as the process.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttd::local::LinkRx;
use rumqttd::{Broker, Config, ConnectionSettings, Notification, RouterConfig, ServerSettings};

use super::MqttError;
use super::ingest::{Inbound, Refusal, Sharded};
use super::publisher::Publisher;
use super::tokens::TokenBook;
use crate::auth::Authenticator;

/// Largest publish accepted: an UltraLight body may be up to 1 MiB, like over HTTP.
const MAX_PAYLOAD: usize = (1 << 20) + 1024;
/// How long the broker may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(5);

/// What the connect hook needs.
#[derive(Debug, Clone)]
pub struct Gate {
    pub auth: Arc<Authenticator>,
    pub tokens: Arc<TokenBook>,
    pub runtime: tokio::runtime::Handle,
}

impl Gate {
    /// Admits a connection whose user name is a service token; the token is then known for commands.
    async fn admit(self, user: String, password: String) -> bool {
        let auth = self.auth.clone();
        let lookup = self.runtime.spawn(async move { auth.grant_of(&user).await.map(|grant| (grant, user)) });
        match lookup.await {
            Ok(Ok((grant, user))) if password.is_empty() || password == user => {
                self.tokens.learn(&grant.service, &user);
                true
            }
            _ => {
                Refusal::BadUser.record();
                false
            }
        }
    }
}

/// Starts the broker on `listen` (port 0 picks a free one) and the ingest link; returns the bound address and the
/// command publisher.
pub async fn start(listen: SocketAddr, gate: Gate, inbound: Sharded) -> Result<(SocketAddr, Publisher), MqttError> {
    let addr = reserve(listen)?;
    let mut broker = Broker::new(config(addr, gate));
    let (mut tx, rx) = broker.link("fluxgate-ingest").map_err(|e| MqttError::Link(e.to_string()))?;
    tx.subscribe("+/+/+").map_err(|e| MqttError::Link(e.to_string()))?;
    std::thread::Builder::new().name("mqtt-broker".into()).spawn(move || {
        if let Err(e) = broker.start() {
            tracing::error!(error = %e, "the embedded MQTT broker stopped");
        }
    })?;
    std::thread::Builder::new().name("mqtt-ingest".into()).spawn(move || forward(rx, &inbound))?;
    wait_listening(addr).await?;
    Ok((addr, Publisher::Embedded(Mutex::new(tx))))
}

/// Checks the address is free now (rumqttd only logs a failed bind), choosing a port when given 0.
fn reserve(listen: SocketAddr) -> Result<SocketAddr, MqttError> {
    let probe = TcpListener::bind(listen).map_err(|e| MqttError::Start { addr: listen, reason: e.to_string() })?;
    Ok(probe.local_addr()?)
}

async fn wait_listening(addr: SocketAddr) -> Result<(), MqttError> {
    let mut target = addr;
    if target.ip().is_unspecified() {
        target.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    let deadline = Instant::now() + START_TIMEOUT;
    while TcpStream::connect_timeout(&target, Duration::from_millis(200)).is_err() {
        if Instant::now() > deadline {
            return Err(MqttError::Start { addr, reason: "the broker did not start listening".into() });
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Hands every publish the link receives to ingest, until ingest stops.
///
/// When the link's buffer fills up (about 200 notifications), rumqttd's router sends `Unschedule` and stops
/// forwarding to the link until it reports `Ready`; without that answer, ingest stopped for good after the first
/// burst the link could not keep up with.
fn forward(mut rx: LinkRx, inbound: &Sharded) {
    while let Ok(notification) = rx.recv() {
        match notification {
            Some(Notification::Forward(forward)) => {
                let topic = String::from_utf8_lossy(&forward.publish.topic).into_owned();
                if !inbound.blocking_send(Inbound { topic, payload: forward.publish.payload }) {
                    return;
                }
            }
            Some(Notification::Unschedule) if rx.ready().is_err() => return,
            _ => {}
        }
    }
}

fn config(listen: SocketAddr, gate: Gate) -> Config {
    let mut config = bare_config(listen);
    let servers = config.v4.iter_mut().flat_map(|v4| v4.values_mut());
    servers.for_each(|server| {
        let gate = gate.clone();
        server.set_auth_handler(move |_client_id, user, password| gate.clone().admit(user, password));
    });
    config
}

/// The broker's settings without the connect hook (also the baseline of `fluxgate bench mqtt`).
pub fn bare_config(listen: SocketAddr) -> Config {
    let connections = ConnectionSettings {
        connection_timeout_ms: 10_000,
        max_payload_size: MAX_PAYLOAD,
        max_inflight_count: 100,
        auth: None,
        external_auth: None,
        dynamic_filters: true,
    };
    let server =
        ServerSettings { name: "fluxgate-v4".into(), listen, tls: None, next_connection_delay_ms: 0, connections };
    Config {
        router: RouterConfig {
            max_connections: 20_000,
            max_outgoing_packet_count: 1000,
            max_segment_size: 16 << 20,
            max_segment_count: 4,
            ..RouterConfig::default()
        },
        v4: Some([("fluxgate".to_owned(), server)].into()),
        ..Config::default()
    }
}

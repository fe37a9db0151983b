//! MQTT for devices: the embedded broker (rumqttd) or a client of an external one (rumqttc), ingest of device
//! publishes into entity updates, and commands published to devices.
//!
//! `topic` is pure parsing; `ingest` checks and writes publishes through the device API's `write_items`; `commands`
//! publishes queued commands once a token of the service is known (`tokens`); `embedded` and `client` are the two
//! transports, behind `publisher` for the way out. Nothing here renders HTTP.

pub mod client;
pub mod commands;
pub mod embedded;
pub mod ingest;
pub mod publisher;
pub mod tokens;
pub mod topic;

use std::net::SocketAddr;
use std::sync::Arc;

use thiserror::Error;
use tokio::task::JoinHandle;

use crate::app::AppState;
use crate::config::BrokerUrl;
use commands::MqttCommands;
use embedded::Gate;
use tokens::TokenBook;

/// Embed a broker, or use an external one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MqttMode {
    Embedded(SocketAddr),
    External(BrokerUrl),
}

#[derive(Debug, Error)]
pub enum MqttError {
    #[error("the embedded MQTT broker cannot listen on {addr}: {reason}")]
    Start { addr: SocketAddr, reason: String },
    #[error("the embedded MQTT broker's in-process link failed: {0}")]
    Link(String),
    #[error("an MQTT publish failed: {0}")]
    Publish(String),
    #[error("MQTT: {0}")]
    Io(#[from] std::io::Error),
}

/// The running MQTT side: where the embedded broker listens, and the tasks to stop.
#[derive(Debug)]
pub struct Mqtt {
    /// The embedded broker's address (none in client mode).
    pub addr: Option<SocketAddr>,
    tasks: Vec<JoinHandle<()>>,
}

impl Mqtt {
    /// Stops ingest and command sending (an embedded rumqttd keeps its port until the process ends).
    pub fn stop(self) {
        self.tasks.iter().for_each(JoinHandle::abort);
    }
}

/// Starts MQTT on the opened state; must run inside a tokio runtime.
pub async fn start(state: &AppState, mode: &MqttMode) -> Result<Mqtt, MqttError> {
    let (tokens, learnt) = TokenBook::new();
    let tokens = Arc::new(tokens);
    let (inbound, mut tasks) = ingest::spawn(state.clone(), tokens.clone());
    let (addr, publisher) = match mode {
        MqttMode::Embedded(listen) => {
            let gate =
                Gate { auth: state.auth.clone(), tokens: tokens.clone(), runtime: tokio::runtime::Handle::current() };
            let (addr, publisher) = embedded::start(*listen, gate, inbound).await?;
            (Some(addr), publisher)
        }
        MqttMode::External(url) => {
            let (publisher, task) = client::start(url, inbound);
            tasks.push(task);
            (None, publisher)
        }
    };
    let commands = MqttCommands::new(&state.store, state.devices.clone(), tokens, Arc::new(publisher));
    state.store.add_listener(Arc::new(commands.clone()));
    tasks.push(tokio::spawn(commands.flush_on_learnt(learnt)));
    Ok(Mqtt { addr, tasks })
}

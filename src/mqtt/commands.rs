//! MQTT commands: a command queued for a device with protocol `PDI-IoTA-MQTT-UltraLight` is published on
//! `<token>/<device_id>/cmd` and marked DELIVERED (with `<cmd>_status`, in one store transaction) once handed to the
//! broker. Results come back as publishes on `.../cmdexe`, handled by ingest like any UltraLight result.
//!
//! The token of a command topic is only known in memory (the store keeps hashes): commands stay PENDING until a token
//! of the device's service has been seen (see `tokens`), and are sent then. This listener runs after commit and only
//! spawns tasks; it never blocks the writer.

use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::mpsc;

use super::publisher::Publisher;
use super::tokens::TokenBook;
use super::topic::command_topic;
use crate::devices::model::MQTT_PROTOCOL;
use crate::devices::registry::DeviceIndex;
use crate::store::{ChangeListener, Origin, Store, UpdateOutcome};
use crate::tenancy::Tenant;

/// How long after a service's token is first seen its waiting commands are sent.
const SUBSCRIBE_GRACE: Duration = Duration::from_millis(500);

/// Sends queued commands of MQTT devices.
#[derive(Debug, Clone)]
pub struct MqttCommands {
    store: Weak<dyn Store>,
    index: Arc<DeviceIndex>,
    tokens: Arc<TokenBook>,
    publisher: Arc<Publisher>,
    runtime: tokio::runtime::Handle,
}

impl MqttCommands {
    /// A sender on the current tokio runtime.
    pub fn new(
        store: &Arc<dyn Store>,
        index: Arc<DeviceIndex>,
        tokens: Arc<TokenBook>,
        publisher: Arc<Publisher>,
    ) -> Self {
        let runtime = tokio::runtime::Handle::current();
        MqttCommands { store: Arc::downgrade(store), index, tokens, publisher, runtime }
    }

    fn is_mqtt(&self, tenant: &Tenant, device_id: &str) -> bool {
        self.index.get(tenant, device_id).is_some_and(|d| d.device.protocol == MQTT_PROTOCOL)
    }

    /// Takes the device's pending commands (now DELIVERED) and publishes them, when the service's token is known.
    fn deliver(&self, tenant: Tenant, device_id: String) {
        let Some(token) = self.tokens.get(&tenant) else { return };
        let (store, publisher) = (self.store.clone(), self.publisher.clone());
        self.runtime.spawn(async move {
            let Some(store) = store.upgrade() else { return };
            match store.take_pending(tenant, device_id.clone()).await {
                Ok((taken, _)) => taken.into_iter().for_each(|c| publish(&publisher, &token, &device_id, c.text)),
                Err(e) => tracing::warn!(device = %device_id, error = %e, "could not take MQTT commands"),
            }
        });
    }

    /// Sends what waited for a token of `tenant`, for every MQTT device of the service.
    fn flush(&self, tenant: &Tenant) {
        for registered in self.index.of_tenant(tenant) {
            if registered.device.protocol == MQTT_PROTOCOL {
                self.deliver(tenant.clone(), registered.device.device_id.clone());
            }
        }
    }

    /// Flushes each service whose first token is learnt, until the token book is gone. The short wait lets a device
    /// that just connected subscribe to its command topic first (QoS 0 reaches only current subscribers).
    pub async fn flush_on_learnt(self, mut learnt: mpsc::UnboundedReceiver<Tenant>) {
        while let Some(tenant) = learnt.recv().await {
            let this = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(SUBSCRIBE_GRACE).await;
                this.flush(&tenant);
            });
        }
    }
}

fn publish(publisher: &Publisher, token: &str, device_id: &str, text: String) {
    let state = match publisher.publish(command_topic(token, device_id), text) {
        Ok(()) => "published",
        Err(e) => {
            tracing::warn!(device = %device_id, error = %e, "could not publish an MQTT command");
            "failed"
        }
    };
    metrics::counter!("fluxgate_mqtt_commands_total", "state" => state).increment(1);
}

impl ChangeListener for MqttCommands {
    fn on_commit(&self, _origin: &Origin, outcome: &UpdateOutcome) {
        for command in &outcome.commands {
            if self.is_mqtt(&command.tenant, &command.device_id) {
                self.deliver(command.tenant.clone(), command.device_id.clone());
            }
        }
    }
}

//! Publishing command texts to devices, through the embedded broker's in-process link or the external broker's
//! client connection. QoS 0, not retained: a device receives a command only while it is subscribed.

use std::fmt;
use std::sync::Mutex;

use rumqttc::{AsyncClient, QoS};
use rumqttd::local::LinkTx;

use super::MqttError;

/// Where outgoing publishes go.
pub enum Publisher {
    Embedded(Mutex<LinkTx>),
    Client(AsyncClient),
}

impl fmt::Debug for Publisher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Publisher::Embedded(_) => "Publisher::Embedded",
            Publisher::Client(_) => "Publisher::Client",
        })
    }
}

impl Publisher {
    pub fn publish(&self, topic: String, payload: String) -> Result<(), MqttError> {
        match self {
            Publisher::Embedded(link) => {
                let mut link = link.lock().map_err(|_| MqttError::Publish("link lock poisoned".into()))?;
                link.publish(topic, payload).map(drop).map_err(|e| MqttError::Publish(e.to_string()))
            }
            Publisher::Client(client) => client
                .try_publish(topic, QoS::AtMostOnce, false, payload)
                .map_err(|e| MqttError::Publish(e.to_string())),
        }
    }
}

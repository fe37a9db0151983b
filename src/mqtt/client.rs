//! Client mode (`--mqtt-broker mqtt://host:port`): Fluxgate connects to an external broker (mosquitto, EMQX) with
//! rumqttc, subscribes to `+/+/+`, and hands publishes to the same ingest; commands go out on the same connection.
//!
//! Who may connect and publish is the external broker's decision (for example mosquitto's `pattern %u/#` ACL, which
//! gives "user name = the topic's token"); ingest still checks every topic's token and device. Lost connections are
//! retried every second, and the subscription is renewed on each CONNACK.

use std::time::Duration;

use rumqttc::{AsyncClient, Event, EventLoop, MqttOptions, Packet, QoS};

use super::ingest::{Inbound, Sharded};
use super::publisher::Publisher;
use crate::config::BrokerUrl;

/// Requests queued towards the broker before publishing commands fails.
const REQUESTS: usize = 1024;
/// Largest packet either way: UltraLight bodies up to 1 MiB.
const MAX_PACKET: usize = (1 << 20) + 1024;

/// Connects (in the background) and starts forwarding publishes; returns the command publisher and the task.
pub fn start(url: &BrokerUrl, inbound: Sharded) -> (Publisher, tokio::task::JoinHandle<()>) {
    let mut options = MqttOptions::new(format!("fluxgate-{}", uuid::Uuid::new_v4().simple()), &url.host, url.port);
    options.set_keep_alive(Duration::from_secs(30)).set_max_packet_size(MAX_PACKET, MAX_PACKET);
    let (client, eventloop) = AsyncClient::new(options, REQUESTS);
    let task = tokio::spawn(run(client.clone(), eventloop, inbound));
    (Publisher::Client(client), task)
}

async fn run(client: AsyncClient, mut eventloop: EventLoop, inbound: Sharded) {
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => subscribe(&client),
            Ok(Event::Incoming(Packet::Publish(p))) => {
                if !inbound.send(Inbound { topic: p.topic, payload: p.payload }).await {
                    return;
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, "MQTT broker connection lost; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

fn subscribe(client: &AsyncClient) {
    if let Err(e) = client.try_subscribe("+/+/+", QoS::AtMostOnce) {
        tracing::warn!(error = %e, "could not subscribe to device topics");
    }
}

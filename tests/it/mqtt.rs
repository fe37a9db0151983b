//! MQTT end to end: the real server (`server::start`) with its embedded broker on a loopback port, a real rumqttc
//! device, measures and commands through the broker, and every refusal counted with nothing written. The client-mode
//! case runs against the external broker named by `FLUXGATE_TEST_MQTT_BROKER` (`.ci/run` starts mosquitto) and is
//! skipped without it.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{Method, StatusCode};
use fluxgate::app::AppOptions;
use fluxgate::clock::WallClock;
use fluxgate::config::BrokerUrl;
use fluxgate::mqtt::MqttMode;
use fluxgate::server::{self, Running};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::sync::mpsc;

use crate::support::{attr_value, http, options, update_body};

const WAIT: Duration = Duration::from_secs(10);

struct Gateway {
    running: Running,
    token: String,
    _dir: TempDir,
}

impl Gateway {
    async fn start(mode: MqttMode) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let options = AppOptions { mqtt: Some(mode), ..options(dir.path()) };
        let running = server::start(&options, "127.0.0.1:0".parse().unwrap(), Arc::new(WallClock)).await.unwrap();
        let token = running.first_token.clone().unwrap();
        Gateway { running, token, _dir: dir }
    }

    async fn embedded() -> Self {
        Self::start(MqttMode::Embedded("127.0.0.1:0".parse().unwrap())).await
    }

    fn mqtt_port(&self) -> u16 {
        self.running.mqtt.as_ref().and_then(|m| m.addr).unwrap().port()
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let url = format!("http://{}{path}", self.running.addr);
        let headers =
            [("content-type", "application/json"), ("accept", "application/json"), ("x-auth-token", &self.token)];
        http(method, &url, &headers, body.map(|b| b.to_string()).as_deref()).await.unwrap()
    }

    async fn register(&self, device: Value) {
        let (status, body) = self.call(Method::POST, "/ul/iot/devices", Some(json!({ "devices": [device] }))).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }

    /// The entity's attribute, or `None` while the entity or attribute does not exist.
    async fn attr(&self, id: &str, name: &str) -> Option<Value> {
        let (_, body) = self.call(Method::GET, &format!("/cb/v1/contextEntities/{id}"), None).await;
        attr_value(&body["contextElement"], name)
    }

    /// Waits until the attribute has `value`, calling `again` (a publish to retry) between looks.
    async fn until(&self, id: &str, name: &str, value: &str, again: impl AsyncFn()) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while self.attr(id, name).await.as_ref().and_then(Value::as_str) != Some(value) {
            assert!(tokio::time::Instant::now() < deadline, "{id}.{name} never became {value}");
            tokio::time::sleep(Duration::from_millis(100)).await;
            again().await;
        }
    }

    async fn refused(&self, reason: &str) -> u64 {
        let url = format!("http://{}/metrics", self.running.addr);
        let client: hyper_util::client::legacy::Client<_, http_body_util::Full<bytes::Bytes>> =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new()).build_http();
        let response = client.get(url.parse().unwrap()).await.unwrap();
        let bytes = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
        let line = format!("fluxgate_mqtt_refused_total{{reason=\"{reason}\"}} ");
        let text = String::from_utf8_lossy(&bytes).into_owned();
        text.lines().find_map(|l| l.strip_prefix(&line)).map_or(0, |n| n.trim().parse().unwrap())
    }
}

fn tracker(id: &str, entity: &str, protocol: &str) -> Value {
    json!({"device_id": id, "entity_name": entity, "entity_type": "tracker", "protocol": protocol,
        "timezone": "Europe/Madrid",
        "attributes": [{"object_id": "t", "name": "temperature", "type": "double"}],
        "commands": [{"name": "SET_tracking", "type": "command", "value": format!("{id}@SET_tracking|%s")}]})
}

/// A device connection: the client, and what it receives (`None` marks a SUBACK).
struct Device {
    client: AsyncClient,
    inbox: mpsc::UnboundedReceiver<Option<(String, String)>>,
}

impl Device {
    /// Connects; `Err` when the broker refuses.
    async fn connect(host: &str, port: u16, user: Option<&str>) -> Result<Self, String> {
        let mut options = MqttOptions::new(format!("dev-{}", uuid::Uuid::new_v4().simple()), host, port);
        if let Some(user) = user {
            options.set_credentials(user, "");
        }
        let (client, mut eventloop) = AsyncClient::new(options, 100);
        match tokio::time::timeout(WAIT, eventloop.poll()).await {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {}
            other => return Err(format!("{other:?}")),
        }
        let (tx, inbox) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(event) = eventloop.poll().await {
                let got = match event {
                    Event::Incoming(Packet::Publish(p)) => Some((p.topic, String::from_utf8_lossy(&p.payload).into())),
                    Event::Incoming(Packet::SubAck(_)) => None,
                    _ => continue,
                };
                if tx.send(got).is_err() {
                    return;
                }
            }
        });
        Ok(Device { client, inbox })
    }

    async fn subscribe(&mut self, topic: &str) {
        self.client.subscribe(topic, QoS::AtMostOnce).await.unwrap();
        let ack = tokio::time::timeout(WAIT, self.inbox.recv()).await.unwrap().unwrap();
        assert_eq!(ack, None, "expected a SUBACK");
    }

    async fn publish(&self, topic: String, payload: &[u8]) {
        self.client.publish(topic, QoS::AtMostOnce, false, payload.to_vec()).await.unwrap();
    }

    async fn next(&mut self) -> (String, String) {
        tokio::time::timeout(WAIT, self.inbox.recv()).await.expect("nothing received").unwrap().unwrap()
    }
}

/// Measures (single and `mul20`), a command through `/cb/v1` received on `<token>/t1/cmd`, its result on `cmdexe`.
async fn tracker_round_trip(g: &Gateway, device: &mut Device, token: &str) {
    g.register(tracker("t1", "Tracker1", "PDI-IoTA-MQTT-UltraLight")).await;
    device.subscribe(&format!("{token}/t1/cmd")).await;
    g.until("Tracker1", "temperature", "21.5", async || device.publish(format!("{token}/t1/t"), b"21.5").await).await;
    device.publish(format!("{token}/t1/mul20"), b"t|22#h|40#").await;
    g.until("Tracker1", "h", "40", async || {}).await;
    assert_eq!(g.attr("Tracker1", "temperature").await, Some(json!("22")));
    let body = update_body("UPDATE", "Tracker1", "tracker", &[("SET_tracking", "string", "FASTTRACK")]);
    let (status, reply) = g.call(Method::POST, "/cb/v1/updateContext", Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(device.next().await, (format!("{token}/t1/cmd"), "t1@SET_tracking|FASTTRACK".to_owned()));
    g.until("Tracker1", "SET_tracking_status", "DELIVERED", async || {}).await;
    assert_eq!(g.attr("Tracker1", "tracking").await, Some(json!("FASTTRACK")));
    device.publish(format!("{token}/t1/cmdexe"), b"t1@SET_tracking|done").await;
    g.until("Tracker1", "SET_tracking_status", "OK", async || {}).await;
    assert_eq!(g.attr("Tracker1", "SET_tracking_info").await, Some(json!("done")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mqtt_tracker_measures_and_commands_through_the_embedded_broker() {
    let g = Gateway::embedded().await;
    let mut device = Device::connect("127.0.0.1", g.mqtt_port(), Some(&g.token)).await.unwrap();
    tracker_round_trip(&g, &mut device, &g.token.clone()).await;
    g.running.stop().await.unwrap();
}

/// rumqttd pauses a link that falls about 200 messages behind until the link answers `Ready`; ingest ignored that and
/// stopped for good after the first burst it could not keep up with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mqtt_ingest_keeps_going_after_the_broker_pauses_its_link() {
    let g = Gateway::embedded().await;
    g.register(tracker("b1", "Burst1", "PDI-IoTA-MQTT-UltraLight")).await;
    let device = Device::connect("127.0.0.1", g.mqtt_port(), Some(&g.token)).await.unwrap();
    for value in 0..5_000 {
        device.publish(format!("{}/b1/t", g.token), value.to_string().as_bytes()).await;
    }
    g.until("Burst1", "temperature", "4999", async || {}).await;
    g.running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mqtt_refusals_are_counted_and_write_nothing() {
    let g = Gateway::embedded().await;
    let other = fluxgate::auth::new_token();
    let other_service = fluxgate::tenancy::Tenant::parse("other").unwrap();
    g.running.state.store.add_service(other_service, fluxgate::auth::TokenHash::of(&other)).await.unwrap();
    g.register(tracker("t1", "Tracker1", "PDI-IoTA-MQTT-UltraLight")).await;
    g.register(tracker("h1", "HttpTracker", "PDI-IoTA-UltraLight")).await;
    let before =
        [g.refused("bad_user").await, g.refused("unregistered_device").await, g.refused("malformed_payload").await];
    let port = g.mqtt_port();
    assert!(Device::connect("127.0.0.1", port, Some("not-a-token")).await.is_err(), "wrong user name admitted");
    assert!(Device::connect("127.0.0.1", port, None).await.is_err(), "anonymous connection admitted");
    let device = Device::connect("127.0.0.1", port, Some(&g.token)).await.unwrap();
    let token = &g.token;
    device.publish(format!("{other}/t1/t"), b"5").await;
    device.publish(format!("{token}/ghost/t"), b"5").await;
    device.publish(format!("{token}/h1/t"), b"5").await;
    for bad in [&b"a|1|b"[..], b"##", b"\xff\xfe\x00", b""] {
        device.publish(format!("{token}/t1/mul20"), bad).await;
    }
    device.publish(format!("{token}/t1/t"), b"1|2").await;
    // rumqttd refuses a connect without a user name before calling the hook, so only the wrong user name counts.
    let expected = [before[0] + 1, before[1] + 3, before[2] + 5];
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now =
            [g.refused("bad_user").await, g.refused("unregistered_device").await, g.refused("malformed_payload").await];
        if now.iter().zip(expected).all(|(n, e)| *n >= e) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "refusals counted {now:?}, expected at least {expected:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for id in ["Tracker1", "HttpTracker"] {
        assert_eq!(g.attr(id, "temperature").await, None, "{id} was written");
    }
    let (_, ghost) = g.call(Method::GET, "/cb/v1/contextEntities/thing:ghost", None).await;
    assert_eq!(ghost["statusCode"]["code"], "404", "thing:ghost was written: {ghost}");
    g.running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mqtt_client_mode_against_an_external_broker() {
    let Ok(url) = std::env::var("FLUXGATE_TEST_MQTT_BROKER") else {
        println!("skipped: FLUXGATE_TEST_MQTT_BROKER is not set (.ci/run starts mosquitto and sets it)");
        return;
    };
    let broker = BrokerUrl::parse(&url).expect("FLUXGATE_TEST_MQTT_BROKER is mqtt://host:port");
    let g = Gateway::start(MqttMode::External(broker.clone())).await;
    let mut device = Device::connect(&broker.host, broker.port, None).await.unwrap();
    tracker_round_trip(&g, &mut device, &g.token.clone()).await;
    g.running.stop().await.unwrap();
}

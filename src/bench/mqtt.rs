//! `fluxgate bench mqtt`: many MQTT clients publishing UltraLight `mul20` payloads to the embedded broker, next to
//! the broker's raw publish-to-subscriber rate:
//!
//! ```text
//! fluxgate bench mqtt --connections 32 --devices 10000 --measures 3 --duration 10 [--window 512] [--json]
//! ```
//!
//! Each payload's first measure carries its send time (microseconds since the run's start). For Fluxgate, a store
//! listener sees every committed entity update and records commit time minus send time; for the baseline, a bare
//! rumqttd with an in-process subscriber on `+/+/+` records receive time minus send time. QoS 0 has no
//! acknowledgement, so the clients keep at most `--window` messages sent and not yet committed (received). The
//! throughput is committed messages over the time from the first send to the last commit; messages lost (never
//! committed within the settle time) are the errors. One message is `--measures` measures.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

use super::BenchError;
use super::devices::{DeviceOptions, OwnServer, describe, observation};
use super::load::LoadResult;
use super::report::{Measured, Report};
use crate::devices::model::RegisteredDevice;
use crate::devices::model::{Device, MQTT_PROTOCOL};
use crate::store::{ChangeListener, Origin, UpdateOutcome};
use crate::tenancy::{ServicePath, Tenant};

/// How long lagging messages may take to arrive once the clients stop.
const SETTLE: Duration = Duration::from_secs(5);

/// Counts sent and arrived messages and the latency of each arrival.
#[derive(Debug)]
struct Probe {
    epoch: Instant,
    sent: AtomicU64,
    done: AtomicU64,
    last: AtomicU64,
    latency: Mutex<Histogram<u64>>,
}

impl Probe {
    fn new() -> Arc<Self> {
        let latency = Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds");
        let (sent, done, last) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
        Arc::new(Probe { epoch: Instant::now(), sent, done, last, latency: Mutex::new(latency) })
    }

    fn now_us(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// A message sent at `sent_us` arrived now.
    fn arrived(&self, sent_us: u64) {
        let now = self.now_us();
        self.latency.lock().expect("probe lock").saturating_record(now.saturating_sub(sent_us).max(1));
        self.done.fetch_add(1, Ordering::Relaxed);
        self.last.fetch_max(now, Ordering::Relaxed);
    }

    /// The send time in a payload `m0|<us>#...`.
    fn arrived_payload(&self, payload: &[u8]) {
        let text = String::from_utf8_lossy(payload);
        if let Some(sent) = text.strip_prefix("m0|").and_then(|r| r.split('#').next()).and_then(|t| t.parse().ok()) {
            self.arrived(sent);
        }
    }
}

/// Records each committed update carrying a send time in `m0`.
#[derive(Debug)]
struct CommitProbe(Arc<Probe>);

impl ChangeListener for CommitProbe {
    fn on_commit(&self, _origin: &Origin, outcome: &UpdateOutcome) {
        for change in &outcome.changes {
            let sent = change.entity.attributes.get("m0").and_then(|a| a.value.as_str()?.parse().ok());
            if let Some(sent) = sent {
                self.0.arrived(sent);
            }
        }
    }
}

/// Runs Fluxgate, then the bare broker, and reports both.
pub fn mqtt(options: &DeviceOptions) -> Result<Report, BenchError> {
    let client = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let own = OwnServer::start(options.workers, Some(options.workers), true)?;
    own.runtime.block_on(register(&own, options.devices))?;
    let probe = Probe::new();
    own.running.state.store.add_listener(Arc::new(CommitProbe(probe.clone())));
    let addr = own.running.mqtt.as_ref().and_then(|m| m.addr).ok_or(BenchError::Request("no MQTT broker".into()))?;
    let ours = client.block_on(run(addr, Some(&own.token), options, &probe));
    own.stop()?;
    let base_probe = Probe::new();
    let base_addr = bare_broker(&base_probe)?;
    let baseline = client.block_on(run(base_addr, None, options, &base_probe))?;
    let measured = Measured { fluxgate: &ours?, baseline: &baseline, notifications: None };
    Ok(describe("mqtt", options, Report::measured(measured)))
}

async fn register(own: &OwnServer, count: usize) -> Result<(), BenchError> {
    let device = |i: usize| Device {
        device_id: format!("dev{i}"),
        entity_name: format!("dev{i}"),
        entity_type: "thing".to_owned(),
        protocol: MQTT_PROTOCOL.to_owned(),
        timezone: "UTC".to_owned(),
        endpoint: None,
        attributes: Vec::new(),
        commands: Vec::new(),
        static_attributes: Vec::new(),
    };
    let state = &own.running.state;
    let (tenant, path) = (Tenant::default_tenant(), ServicePath::root());
    for chunk in (0..count).collect::<Vec<_>>().chunks(1000) {
        let devices: Vec<Device> = chunk.iter().map(|i| device(*i)).collect();
        state.store.add_devices(tenant.clone(), path.clone(), devices.clone()).await.map_err(server_error)?;
        for device in devices {
            state.devices.put(RegisteredDevice { tenant: tenant.clone(), path: path.clone(), device });
        }
    }
    Ok(())
}

fn server_error(e: crate::store::StoreError) -> BenchError {
    BenchError::Server(e.into())
}

/// A rumqttd with the same settings and no auth, and a subscriber link that records arrivals.
fn bare_broker(probe: &Arc<Probe>) -> Result<SocketAddr, BenchError> {
    let probe = probe.clone();
    let addr = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let mut broker = rumqttd::Broker::new(crate::mqtt::embedded::bare_config(addr));
    let (mut tx, mut rx) = broker.link("bench-baseline").map_err(|e| BenchError::Request(e.to_string()))?;
    tx.subscribe("+/+/+").map_err(|e| BenchError::Request(e.to_string()))?;
    std::thread::spawn(move || {
        if let Err(e) = broker.start() {
            tracing::error!(error = %e, "the baseline MQTT broker stopped");
        }
    });
    std::thread::spawn(move || {
        while let Ok(notification) = rx.recv() {
            match notification {
                Some(rumqttd::Notification::Forward(f)) => probe.arrived_payload(&f.publish.payload),
                // The router pauses a link whose buffer filled up until the link says it is ready again.
                Some(rumqttd::Notification::Unschedule) if rx.ready().is_err() => return,
                _ => {}
            }
        }
    });
    std::thread::sleep(Duration::from_millis(200));
    Ok(addr)
}

async fn run(
    addr: SocketAddr,
    token: Option<&str>,
    options: &DeviceOptions,
    probe: &Arc<Probe>,
) -> Result<LoadResult, BenchError> {
    let mut clients = Vec::with_capacity(options.connections);
    for index in 0..options.connections {
        clients.push(connect(addr, token, index).await?);
    }
    let started = probe.now_us();
    let deadline = Instant::now() + options.duration;
    let topic_token = token.unwrap_or("bench").to_owned();
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, c)| tokio::spawn(publish(c, topic_token.clone(), options.clone(), i as u64, deadline, probe.clone())))
        .collect();
    for task in tasks {
        task.await.map_err(|e| BenchError::Request(e.to_string()))?;
    }
    settle(probe).await;
    Ok(result(probe, started))
}

async fn connect(addr: SocketAddr, token: Option<&str>, index: usize) -> Result<AsyncClient, BenchError> {
    let mut mqtt = MqttOptions::new(format!("bench-{index}"), addr.ip().to_string(), addr.port());
    if let Some(token) = token {
        mqtt.set_credentials(token, "");
    }
    mqtt.set_keep_alive(Duration::from_secs(60));
    let (client, mut eventloop) = AsyncClient::new(mqtt, 1000);
    match eventloop.poll().await {
        Ok(Event::Incoming(Packet::ConnAck(_))) => {}
        other => return Err(BenchError::Request(format!("MQTT connect: {other:?}"))),
    }
    tokio::spawn(async move { while eventloop.poll().await.is_ok() {} });
    Ok(client)
}

async fn publish(
    client: AsyncClient,
    token: String,
    options: DeviceOptions,
    first: u64,
    deadline: Instant,
    probe: Arc<Probe>,
) {
    let mut seq = first;
    while Instant::now() < deadline {
        let in_flight = probe.sent.load(Ordering::Relaxed).saturating_sub(probe.done.load(Ordering::Relaxed));
        if in_flight >= options.window as u64 {
            tokio::time::sleep(Duration::from_millis(1)).await;
            continue;
        }
        let topic = format!("{token}/dev{}/mul20", seq % options.devices as u64);
        let payload = observation(seq, options.measures, &probe.now_us().to_string());
        if client.publish(topic, QoS::AtMostOnce, false, payload).await.is_err() {
            return;
        }
        probe.sent.fetch_add(1, Ordering::Relaxed);
        seq += options.connections as u64;
    }
}

async fn settle(probe: &Probe) {
    let until = Instant::now() + SETTLE;
    while probe.done.load(Ordering::Relaxed) < probe.sent.load(Ordering::Relaxed) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn result(probe: &Probe, started_us: u64) -> LoadResult {
    let (sent, done) = (probe.sent.load(Ordering::Relaxed), probe.done.load(Ordering::Relaxed));
    let elapsed = Duration::from_micros(probe.last.load(Ordering::Relaxed).saturating_sub(started_us));
    let mut result = LoadResult::empty();
    result.latency = probe.latency.lock().expect("probe lock").clone();
    result.requests = sent.max(done);
    result.errors = sent.saturating_sub(done);
    if result.errors > 0 {
        result.first_error = Some(format!("{} messages never arrived", result.errors));
    }
    result.elapsed = elapsed;
    result
}

//! A real `fluxgate serve` process on loopback. Crash safety end to end: killed with SIGKILL in the middle of a write
//! load (entity updates, history notifications), restarted on the same data dir; every write that was answered 200
//! must be there, and a notification sent again after the restart must not be stored twice. And what it logs: never a
//! token, and no error for MQTT connections that end normally.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use crate::support::{http, update_body};
use axum::http::Method;

struct Server {
    child: Child,
    base: String,
    mqtt_port: u16,
    /// The token a first start prints.
    token: Option<String>,
}

impl Server {
    fn token(&self) -> String {
        self.token.clone().expect("a first start prints the token")
    }
}

/// How long `serve` may take to print the addresses it listens on.
const START_TIMEOUT: Duration = Duration::from_secs(30);

fn spawn(data: &str) -> Server {
    spawn_logging(data, Stdio::null(), Some("fluxgate=trace,info"))
}

/// Starts `fluxgate serve` on ports of its choosing, logging to `log`, with `RUST_LOG` set to `filter` or, for
/// `None`, unset; returns once it has printed the addresses it listens on.
fn spawn_logging(data: &str, log: Stdio, filter: Option<&str>) -> Server {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fluxgate"));
    command
        .args(["serve", "--data-dir", data, "--listen", "127.0.0.1:0", "--mqtt-listen", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(log);
    if let Some(filter) = filter {
        command.env("RUST_LOG", filter);
    }
    let mut child = command.spawn().expect("start fluxgate serve");
    let lines = lines_of(child.stdout.take().expect("stdout"));
    let mut token = None;
    loop {
        let line = match lines.recv_timeout(START_TIMEOUT) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("fluxgate serve ended: {:?}", child.wait()),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                drop(child.kill());
                panic!("fluxgate serve did not listen within {START_TIMEOUT:?}");
            }
        };
        if line.contains("Its token") {
            token = lines.recv_timeout(START_TIMEOUT).ok();
        } else if let Some((http, mqtt)) = listening(&line) {
            return Server { child, base: format!("http://{http}"), mqtt_port: mqtt.port(), token };
        }
    }
}

/// Each line `out` gives, read on a thread of its own until the process ends (so its writes never meet a closed or
/// full pipe).
fn lines_of(out: ChildStdout) -> mpsc::Receiver<String> {
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            drop(lines.send(line));
        }
    });
    received
}

/// The HTTP and MQTT addresses of the line `Listening on A (HTTP) and B (MQTT).`
fn listening(line: &str) -> Option<(SocketAddr, SocketAddr)> {
    let rest = line.strip_prefix("Listening on ")?;
    let (http, mqtt) = rest.strip_suffix(" (MQTT).")?.split_once(" (HTTP) and ")?;
    Some((http.parse().ok()?, mqtt.parse().ok()?))
}

/// Writes increasing values to its own entity until stopped; returns the last value answered 200.
async fn writer(base: String, token: String, id: String, stop: Arc<AtomicBool>) -> u64 {
    let mut acknowledged = 0;
    for value in 1.. {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let body = update_body("APPEND", &id, "T", &[("n", "integer", &value.to_string())]).to_string();
        let headers = [("content-type", "application/json"), ("x-auth-token", token.as_str())];
        match http(Method::POST, &format!("{base}/cb/v1/updateContext"), &headers, Some(&body)).await {
            Some((status, reply))
                if status.is_success() && reply["contextResponses"][0]["statusCode"]["code"] == "200" =>
            {
                acknowledged = value;
            }
            _ => break,
        }
    }
    acknowledged
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let mut server = spawn(&data);
    let token = server.token();
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..8)
        .map(|i| tokio::spawn(writer(server.base.clone(), token.clone(), format!("W{i}"), stop.clone())))
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.child.kill().expect("SIGKILL the server");
    server.child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    let mut acknowledged = Vec::new();
    for w in writers {
        acknowledged.push(w.await.unwrap());
    }
    assert!(acknowledged.iter().all(|&n| n > 0), "no write was acknowledged: {acknowledged:?}");
    let mut restarted = spawn(&data);
    for (i, &n) in acknowledged.iter().enumerate() {
        let url = format!("{}/cb/v1/contextEntities/W{i}/attributes/n", restarted.base);
        let (_, body) = http(Method::GET, &url, &[("x-auth-token", &token)], None).await.expect("read after restart");
        let stored: u64 = body["attributes"][0]["value"].as_str().and_then(|v| v.parse().ok()).unwrap_or(0);
        assert!(stored >= n, "W{i}: acknowledged {n}, found {stored} after the crash ({body})");
    }
    restarted.child.kill().unwrap();
    let _ = restarted.child.wait();
}

/// Posts history notifications (sample `i` of entity `id`: `ATTRS` attributes of value `i` at second `i`) until
/// stopped; returns the last `i` answered 200.
async fn notifier(base: String, token: String, id: String, stop: Arc<AtomicBool>) -> u64 {
    let mut acknowledged = 0;
    for i in 1.. {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let headers = [("content-type", "application/json"), ("x-auth-token", token.as_str())];
        let body = sth_notification(&id, i).to_string();
        match http(Method::POST, &format!("{base}/sth/notify"), &headers, Some(&body)).await {
            Some((status, _)) if status.is_success() => acknowledged = i,
            _ => break,
        }
    }
    acknowledged
}

const ATTRS: u64 = 5;

fn sth_notification(id: &str, i: u64) -> serde_json::Value {
    let time = format!("2026-01-01T{:02}:{:02}:{:02}Z", i / 3600, i / 60 % 60, i % 60);
    let attributes: Vec<_> = (0..ATTRS)
        .map(|a| {
            serde_json::json!({"name": format!("a{a}"), "type": "Number", "value": i.to_string(),
                "metadatas": [{"name": "TimeInstant", "type": "ISO8601", "value": time}]})
        })
        .collect();
    serde_json::json!({"subscriptionId": "s", "originator": "localhost", "contextResponses": [{"contextElement":
        {"id": id, "type": "T", "isPattern": "false", "attributes": attributes},
        "statusCode": {"code": "200", "reasonPhrase": "OK"}}]})
}

/// Every raw value of one attribute, oldest first, read page by page.
async fn history_values(base: &str, token: &str, id: &str, attr: &str) -> Vec<u64> {
    let mut all = Vec::new();
    loop {
        let url = format!("{base}/sth/type/T/id/{id}/attributes/{attr}?hLimit=100&hOffset={}", all.len());
        let (_, body) = http(Method::GET, &url, &[("x-auth-token", token)], None).await.expect("raw read");
        let values = body["contextResponses"][0]["contextElement"]["attributes"][0]["values"].as_array().cloned();
        let page: Vec<u64> =
            values.unwrap_or_default().iter().filter_map(|v| v["attrValue"].as_str()?.parse().ok()).collect();
        let done = page.len() < 100;
        all.extend(page);
        if done {
            return all;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_history_samples_survive_sigkill_and_stay_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let mut server = spawn(&data);
    let token = server.token();
    let stop = Arc::new(AtomicBool::new(false));
    let notifiers: Vec<_> = (0..8)
        .map(|i| tokio::spawn(notifier(server.base.clone(), token.clone(), format!("N{i}"), stop.clone())))
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.child.kill().expect("SIGKILL the server");
    server.child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    let mut acknowledged = Vec::new();
    for n in notifiers {
        acknowledged.push(n.await.unwrap());
    }
    assert!(acknowledged.iter().all(|&n| n > 0), "no notification was acknowledged: {acknowledged:?}");
    let mut restarted = spawn(&data);
    for (i, &n) in acknowledged.iter().enumerate() {
        let id = format!("N{i}");
        // The last notification may have been committed without its answer; sending it again stores nothing new.
        let headers = [("content-type", "application/json"), ("x-auth-token", token.as_str())];
        let again = sth_notification(&id, n).to_string();
        http(Method::POST, &format!("{}/sth/notify", restarted.base), &headers, Some(&again)).await.unwrap();
        for a in 0..ATTRS {
            let stored = history_values(&restarted.base, &token, &id, &format!("a{a}")).await;
            let first_n: Vec<u64> = stored.iter().copied().take(n as usize).collect();
            assert_eq!(first_n, (1..=n).collect::<Vec<_>>(), "{id} a{a}: acknowledged 1..={n}");
            assert!(stored.len() as u64 <= n + 1, "{id} a{a}: {} samples, at most {} sent", stored.len(), n + 1);
        }
    }
    restarted.child.kill().unwrap();
    let _ = restarted.child.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_never_reaches_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut server =
        spawn_logging(dir.path().join("data").to_str().unwrap(), Stdio::from(log), Some("fluxgate=trace,info"));
    let token = server.token();
    let headers = [("content-type", "application/json"), ("x-auth-token", token.as_str())];
    let subscribe = serde_json::json!({"entities": [{"id": "E1"}], "reference": "http://127.0.0.1:9/down"}).to_string();
    http(Method::POST, &format!("{}/cb/v1/subscribeContext", server.base), &headers, Some(&subscribe)).await.unwrap();
    let body = update_body("APPEND", "E1", "T", &[("n", "integer", "1")]).to_string();
    http(Method::POST, &format!("{}/cb/v1/updateContext", server.base), &headers, Some(&body)).await.unwrap();
    let wrong = [("content-type", "application/json"), ("x-auth-token", "wrong-secret-token")];
    http(Method::POST, &format!("{}/cb/v1/updateContext", server.base), &wrong, Some(&body)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let text = std::fs::read_to_string(&log_path).unwrap();
    assert!(text.contains("fluxgate is serving"), "nothing was logged: {text}");
    assert!(!text.contains(&token), "the token was logged");
    assert!(!text.contains("wrong-secret-token"), "a presented token was logged");
}

/// Connects to the embedded broker as `user`; true when it answered CONNACK, and then disconnects cleanly.
async fn mqtt_session(port: u16, user: &str) -> bool {
    let mut options = rumqttc::MqttOptions::new(format!("dev-{}", uuid::Uuid::new_v4().simple()), "127.0.0.1", port);
    options.set_credentials(user, "");
    let (client, mut eventloop) = rumqttc::AsyncClient::new(options, 10);
    let connected = matches!(
        tokio::time::timeout(Duration::from_secs(10), eventloop.poll()).await,
        Ok(Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(_))))
    );
    if connected {
        client.disconnect().await.unwrap();
        let drained = tokio::time::timeout(Duration::from_secs(10), async { while eventloop.poll().await.is_ok() {} });
        drained.await.expect("the connection ends after DISCONNECT");
    }
    connected
}

/// Publishes as `mosquitto_pub` does, in raw MQTT 3.1.1: CONNECT, PUBLISH (QoS 0), DISCONNECT, then closes at once.
fn publish_and_hang_up(port: u16, user: &str, topic: &str, payload: &str) {
    use std::io::{Read, Write};
    let text = |s: &str| [&(s.len() as u16).to_be_bytes()[..], s.as_bytes()].concat();
    let connect = [&b"\x00\x04MQTT\x04\x82\x00\x0a"[..], &text("hang-up"), &text(user)].concat();
    let publish = [text(topic), payload.as_bytes().to_vec()].concat();
    assert!(connect.len() < 128 && publish.len() < 128, "each remaining length fits in one byte");
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(&[&[0x10, connect.len() as u8][..], &connect].concat()).unwrap();
    let mut connack = [0u8; 4];
    stream.read_exact(&mut connack).unwrap();
    assert_eq!(connack, [0x20, 0x02, 0x00, 0x00], "the broker refused the connection");
    stream.write_all(&[&[0x30, publish.len() as u8][..], &publish, &[0xe0, 0x00]].concat()).unwrap();
}

/// What `fluxgate serve` logs, with `RUST_LOG` set to `filter` (or unset), for a clean MQTT session, a refused one and
/// three publishes that hang up at once.
async fn log_of_mqtt_sessions(filter: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut server = spawn_logging(dir.path().join("data").to_str().unwrap(), Stdio::from(log), filter);
    let token = server.token();
    assert!(mqtt_session(server.mqtt_port, &token).await, "the service token was refused");
    assert!(!mqtt_session(server.mqtt_port, "not-a-token").await, "a wrong user name was accepted");
    for _ in 0..3 {
        publish_and_hang_up(server.mqtt_port, &token, &format!("{token}/d1/t"), "21");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    std::fs::read_to_string(&log_path).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mqtt_connections_that_end_normally_log_no_error() {
    let default = log_of_mqtt_sessions(None).await;
    assert!(default.contains("fluxgate is serving"), "nothing was logged: {default}");
    assert!(default.contains("reason=\"bad_user\""), "the refusal was not logged: {default}");
    assert!(!default.contains("ERROR"), "an error was logged by default: {default}");
    let chosen = log_of_mqtt_sessions(Some("warn")).await;
    assert!(!chosen.contains("ERROR"), "an error was logged with RUST_LOG=warn: {chosen}");
}

//! The "Bad input, faults" cases of issue 6: notifications for undeclared types, ids that do not match, values that
//! do not convert and missing attributes; a configuration replaced while events flow; a DELETE while timers are
//! pending; a broker that is down or answers errors; a flood of events for one key; and another tenant that none of
//! this touches. Each answers with the contract's errors, never panics, and leaves no state that outlives its timers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{Method, StatusCode};
use fluxgate::bench::cep::seed_engine;
use fluxgate::bench::cep_workload::Scenario;
use fluxgate::cep::dataflow::Workers;
use fluxgate::cep::runtime::{Engine, Row, Val};
use serde_json::{Value, json};

use crate::support::{Harness, Receiver, Reply, attr_value, free_port};

const OWN: &str = "127.0.0.1:8080";

/// A seed configuration whose `out` brokers are `brokers`.
fn seed(name: &str, brokers: Value) -> Value {
    let text = std::fs::read_to_string(format!("{}/queries/{name}.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut config: Value = serde_json::from_str(&text).unwrap();
    config["out"][0]["brokers"] = brokers;
    config
}

fn own_broker() -> Value {
    json!([{"url": format!("http://{OWN}/cb")}])
}

/// A request as tenant `service` with its token.
async fn call(h: &Harness, token: &str, service: &str, method: Method, path: &str, body: Option<Value>) -> Reply {
    let headers = [("content-type", "application/json"), ("x-auth-token", token), ("platform-service", service)];
    let text = body.map(|b| b.to_string());
    h.send(method, path, &headers, text.as_deref()).await
}

fn element(id: &str, entity_type: &str, attributes: &[(&str, &str)]) -> Value {
    let attributes: Vec<Value> =
        attributes.iter().map(|(n, v)| json!({"name": n, "type": "string", "value": v})).collect();
    json!({"contextElement": {"id": id, "type": entity_type, "isPattern": "false", "attributes": attributes},
        "statusCode": {"code": "200", "reasonPhrase": "OK"}})
}

fn notification(elements: Vec<Value>) -> Value {
    json!({"subscriptionId": "s1", "originator": "localhost", "contextResponses": elements})
}

fn room(id: &str, temperature: &str, floor: &str) -> Value {
    element(id, "Room", &[("temperature", temperature), ("floor", floor)])
}

/// The `responseCode` of `/cep/notify` for the default tenant.
async fn notify(h: &Harness, elements: Vec<Value>) -> Value {
    h.post("/cep/notify", notification(elements)).await["responseCode"].clone()
}

/// The attribute of an entity of a tenant, once it has `expected`, waiting up to two seconds.
async fn wait_for(h: &Harness, (token, service): (&str, &str), id: &str, entity_type: &str, want: (&str, &str)) {
    let body = json!({"entities": [{"type": entity_type, "isPattern": "false", "id": id}]});
    for _ in 0..200 {
        let reply = call(h, token, service, Method::POST, "/cb/v1/queryContext", Some(body.clone())).await;
        if attr_value(&reply.body["contextResponses"][0]["contextElement"], want.0) == Some(json!(want.1)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{entity_type} {id} never had {} = {}", want.0, want.1);
}

async fn exists(h: &Harness, id: &str, entity_type: &str) -> bool {
    let body = json!({"entities": [{"type": entity_type, "isPattern": "false", "id": id}]});
    let reply = h.json(Method::POST, "/cb/v1/queryContext", &[], Some(body)).await;
    !reply.body["contextResponses"][0]["contextElement"].is_null()
}

/// Lets the CEP tick task (every 2 ms) see what was sent before the clock moves, then moves it.
async fn advance(h: &Harness, ms: i64) {
    tokio::time::sleep(Duration::from_millis(60)).await;
    h.clock.advance_ms(ms);
    tokio::time::sleep(Duration::from_millis(60)).await;
}

#[tokio::test]
async fn bad_elements_are_472_with_their_reason_and_the_others_are_processed() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let reply = h.json(Method::POST, "/cep/v1/admin/config", &[], Some(seed("floor-average", own_broker()))).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let code = notify(
        &h,
        vec![
            element("Shutter1", "Shutter", &[("open", "true")]),
            room("Pump1", "21", "1"),
            room("Room2", "warm", "1"),
            element("Room3", "Room", &[("temperature", "30")]),
            room("Room1", "21", "1"),
        ],
    )
    .await;
    assert_eq!(code["code"], "472");
    let details = code["details"].as_str().unwrap();
    assert!(details.contains("element 1: no `in` declaration has type Shutter"), "{details}");
    assert!(
        details.contains("element 2: entity id Pump1 does not match the `in` declarations of type Room"),
        "{details}"
    );
    assert!(details.contains("element 3: Failed to parse value warm for attribute temperature"), "{details}");
    assert!(!details.contains("element 4") && !details.contains("element 5"), "{details}");
    advance(&h, 10_000).await;
    wait_for(&h, (&h.token, "default"), "1", "Floor", ("temperature", "21.0")).await;
    // Room3 had no floor: it read as null and its group fell back to the `out` id.
    wait_for(&h, (&h.token, "default"), "Floor1", "Floor", ("temperature", "30.0")).await;
}

#[tokio::test]
async fn a_configuration_replaced_while_events_flow_loses_no_notification() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let config = seed("floor-average", own_broker());
    let mut faster = config.clone();
    faster["statements"] = json!([
        "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(1 min) GROUP BY floor OUTPUT LAST EVERY 5 sec"
    ]);
    let reply = h.json(Method::POST, "/cep/v1/admin/config", &[], Some(config.clone())).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let events = async {
        for i in 0..200 {
            let code = notify(&h, vec![room(&format!("Room{i}"), "20", "2")]).await;
            assert_eq!(code["code"], "200", "{code}");
            tokio::task::yield_now().await;
        }
    };
    let replacements = async {
        for round in 0..20 {
            let next = if round % 2 == 0 { &faster } else { &config };
            let reply = h.json(Method::POST, "/cep/v1/admin/config", &[], Some(next.clone())).await;
            assert_eq!(reply.status, StatusCode::CREATED);
            tokio::task::yield_now().await;
        }
    };
    tokio::join!(events, replacements);
    assert_eq!(h.get("/cep/v1/admin/config").await["statements"], config["statements"]);
    assert_eq!(notify(&h, vec![room("Room1", "24", "3")]).await["code"], "200");
    advance(&h, 10_000).await;
    wait_for(&h, (&h.token, "default"), "3", "Floor", ("temperature", "24.0")).await;
}

#[tokio::test]
async fn a_delete_while_timers_are_pending_fires_nothing_afterwards() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let reply = h.json(Method::POST, "/cep/v1/admin/config", &[], Some(seed("geofence", own_broker()))).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    for _ in 0..3 {
        let code = notify(&h, vec![element("Tracker1", "tracker", &[("position", "43.60, 1.44")])]).await;
        assert_eq!(code["code"], "200");
        advance(&h, 1_000).await;
    }
    assert_eq!(h.json(Method::DELETE, "/cep/v1/admin/config", &[], None).await.status, StatusCode::OK);
    advance(&h, 10_000).await;
    assert!(!exists(&h, "Tracker1", "Alert").await, "an alert was written after the DELETE");
    let code = notify(&h, vec![element("Tracker1", "tracker", &[("position", "43.60, 1.44")])]).await;
    assert_eq!(code["code"], "500", "{code}");
    assert!(code["details"].as_str().unwrap().contains("no CEP configuration"), "{code}");
}

/// Counts the attempts a receiver sees until it has been quiet for `quiet_ms`.
async fn attempts(receiver: &mut Receiver, quiet_ms: u64) -> usize {
    let mut count = 0;
    while tokio::time::timeout(Duration::from_millis(quiet_ms), receiver.next()).await.ok().flatten().is_some() {
        count += 1;
    }
    count
}

/// A log line writer that keeps what the test's thread logged.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

#[tokio::test]
async fn a_broker_down_or_answering_errors_is_retried_for_a_bounded_time_and_counted() {
    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt().with_ansi(false).with_writer(move || writer.clone()).finish();
    // The test's runtime runs the publisher's tasks on this thread, so they log here.
    let _guard = tracing::subscriber::set_default(subscriber);
    let h = Harness::new().await;
    let mut failing = Receiver::start(StatusCode::INTERNAL_SERVER_ERROR).await;
    let down = format!("http://127.0.0.1:{}", free_port());
    let brokers = json!([{"url": failing.url.clone()}, {"url": down}]);
    let reply = h.json(Method::POST, "/cep/v1/admin/config", &[], Some(seed("floor-average", brokers))).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    assert_eq!(notify(&h, vec![room("Room1", "20", "1")]).await["code"], "200");
    advance(&h, 10_000).await;
    let seen = attempts(&mut failing, 1_000).await;
    // retry_for is 600 ms from a 50 ms backoff that doubles: at most 5 attempts, then the update is dropped.
    assert!((2..=5).contains(&seen), "{seen} attempts");
    assert_eq!(notify(&h, vec![room("Room1", "21", "1")]).await["code"], "200", "the CEP still takes events");
    let metrics = h.send(Method::GET, "/metrics", &[], None).await.text;
    for counter in ["fluxgate_cep_updates_failed_total", "fluxgate_cep_updates_dropped_total"] {
        assert!(metrics.contains(counter), "{counter} missing from /metrics");
    }
    let dropped: Vec<String> =
        log.text().lines().filter(|l| l.contains("CEP update dropped")).map(String::from).collect();
    assert!(dropped.iter().any(|l| l.contains("WARN") && l.contains("broker answered 500")), "{dropped:?}");
    assert!(dropped.iter().any(|l| l.contains(&down)), "the unreachable broker's drop is not logged: {dropped:?}");
}

fn tracker_event(inside: bool, at: i64) -> Row {
    let position = if inside { Val::Point(43.60, 1.44) } else { Val::Point(43.70, 1.44) };
    Row::from([
        ("id".to_owned(), Val::String("Tracker1".into())),
        ("time".to_owned(), Val::Date(at)),
        ("position".to_owned(), position),
    ])
}

#[test]
fn a_flood_for_one_tracker_leaves_nothing_after_its_last_timer() {
    let mut engine = seed_engine(Scenario::Geofence, Workers::start(2).unwrap()).unwrap();
    let mut alerts = 0;
    for at in 0..1_000 {
        alerts += engine.push(at, "tracker", tracker_event(at % 400 < 200, at)).len();
    }
    assert_eq!(alerts, 0, "no side held 4 seconds");
    assert!(engine.next_timer().is_some_and(|t| t <= 999 + 4_000));
    alerts += engine.advance(6_000).len();
    assert_eq!(alerts, 1, "the last side is confirmed once");
    assert_eq!(engine.next_timer(), None, "a pattern instance outlived its last timer");
}

#[test]
fn a_flood_for_one_room_leaves_the_window_with_its_time() {
    let mut engine = seed_engine(Scenario::Floor, Workers::start(2).unwrap()).unwrap();
    let event = |temperature: f64| {
        Row::from([
            ("id".to_owned(), Val::String("Room1".into())),
            ("temperature".to_owned(), Val::Double(temperature)),
            ("floor".to_owned(), Val::String("1".into())),
        ])
    };
    for i in 0..5_000 {
        engine.push(i / 10, "Room", event(10.0));
    }
    engine.advance(11 * 60_000);
    engine.push(11 * 60_000, "Room", event(30.0));
    let outputs = engine.advance(11 * 60_000 + 10_000);
    let temperatures: Vec<&Val> = outputs.iter().filter_map(|o| o.row.get("temperature")).collect();
    assert_eq!(temperatures, [&Val::Double(30.0)], "the flooded rows must have left the window");
}

#[tokio::test]
async fn another_tenant_is_unaffected_by_bad_input_floods_and_deletes() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let other = h.service("other").await;
    let config = seed("floor-average", own_broker());
    for (token, service) in [(h.token.as_str(), "default"), (other.as_str(), "other")] {
        let reply = call(&h, token, service, Method::POST, "/cep/v1/admin/config", Some(config.clone())).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    }
    let reply =
        call(&h, &other, "other", Method::POST, "/cep/notify", Some(notification(vec![room("Room1", "25", "7")])))
            .await;
    assert_eq!(reply.body["responseCode"]["code"], "200");
    let flood: Vec<Value> = (0..500).map(|_| room("Room1", "5", "7")).collect();
    assert_eq!(notify(&h, flood).await["code"], "200");
    assert_eq!(notify(&h, vec![room("Room1", "cold", "7")]).await["code"], "472");
    assert_eq!(h.json(Method::DELETE, "/cep/v1/admin/config", &[], None).await.status, StatusCode::OK);
    advance(&h, 10_000).await;
    wait_for(&h, (&other, "other"), "7", "Floor", ("temperature", "25.0")).await;
    assert!(!exists(&h, "7", "Floor").await, "the deleted default configuration wrote a floor");
}

/// A read-only token reads the running statements, but not the configuration, which holds the brokers' tokens, and
/// changes nothing.
#[tokio::test]
async fn a_read_only_token_reads_the_statements_and_nothing_else() {
    let h = Harness::new().await;
    let config = seed("floor-average", own_broker());
    assert_eq!(
        h.json(Method::POST, "/cep/v1/admin/config", &[], Some(config.clone())).await.status,
        StatusCode::CREATED
    );
    let reader = h.scoped("default", "/", true).await;
    let reply = call(&h, &reader, "default", Method::GET, "/cep/v1/admin/statements", None).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body[0]["text"], config["statements"][0]);
    for (method, path, body) in [
        (Method::GET, "/cep/v1/admin/config", None),
        (Method::POST, "/cep/v1/admin/config", Some(config.clone())),
        (Method::DELETE, "/cep/v1/admin/config", None),
    ] {
        let reply = call(&h, &reader, "default", method.clone(), path, body).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{method} {path}");
    }
    assert_eq!(h.get("/cep/v1/admin/config").await["statements"], config["statements"]);
}

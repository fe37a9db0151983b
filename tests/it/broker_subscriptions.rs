//! Subscriptions and notifications through a real HTTP receiver: ONCHANGE, projection, throttling with the trailing
//! latest change, expiry on the manual clock, ordering, failing receivers, in-process sinks, and the error texts.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use fluxgate::broker::notify::{Notification, NotificationSink, SinkFuture};
use serde_json::{Value, json};

use crate::support::{Harness, Receiver, attr_value};

fn subscription(reference: &str, attributes: &[&str], conditions: &[&str]) -> Value {
    json!({"entities": [{"type": "Room", "isPattern": "false", "id": "Room1"}], "attributes": attributes,
        "reference": reference, "duration": "P1M",
        "notifyConditions": [{"type": "ONCHANGE", "condValues": conditions}]})
}

async fn subscribe(h: &Harness, body: Value) -> String {
    let reply = h.post("/cb/v1/subscribeContext", body).await;
    reply["subscribeResponse"]["subscriptionId"].as_str().unwrap_or_else(|| panic!("{reply}")).to_owned()
}

fn element(n: &crate::support::Received) -> &Value {
    &n.body["contextResponses"][0]["contextElement"]
}

#[tokio::test]
async fn subscribe_answers_id_duration_and_only_a_sent_throttling() {
    let h = Harness::new().await;
    let mut body = subscription("http://localhost:1028/accumulate", &[], &[]);
    body.as_object_mut().unwrap().remove("duration");
    let reply = h.post("/cb/v1/subscribeContext", body.clone()).await;
    let id = reply["subscribeResponse"]["subscriptionId"].as_str().unwrap();
    assert!(id.len() == 24 && id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(reply["subscribeResponse"]["duration"], "PT24H");
    assert!(reply["subscribeResponse"].get("throttling").is_none());
    body["throttling"] = json!("PT5S");
    let reply = h.post("/cb/v1/subscribeContext", body).await;
    assert_eq!(reply["subscribeResponse"]["throttling"], "PT5S");
}

#[tokio::test]
async fn onchange_notifies_real_changes_only_with_headers_and_projection() {
    let h = Harness::new().await;
    let mut rx = Receiver::start(StatusCode::OK).await;
    h.update("APPEND", "Room1", "Room", &[("temperature", "float", "20"), ("pressure", "integer", "700")]).await;
    let id = subscribe(&h, subscription(&rx.url, &["temperature"], &["pressure"])).await;
    rx.expect_none(200).await;
    let correlator = [("platform-correlator", "corr-123")];
    let body = crate::support::update_body("UPDATE", "Room1", "Room", &[("pressure", "integer", "710")]);
    h.json(Method::POST, "/cb/v1/updateContext", &correlator, Some(body)).await;
    let n = rx.next().await.expect("a notification");
    assert_eq!(n.body["subscriptionId"], id.as_str());
    assert_eq!(n.body["originator"], "localhost");
    assert_eq!(element(&n)["attributes"], json!([{"name": "temperature", "type": "float", "value": "20"}]));
    assert_eq!(n.headers["platform-service"], "default");
    assert_eq!(n.headers["platform-servicepath"], "/");
    assert_eq!(n.headers["platform-correlator"], "corr-123");
    assert_eq!(n.headers["x-auth-token"], h.token.as_str());
    h.update("UPDATE", "Room1", "Room", &[("pressure", "integer", "710")]).await;
    h.update("UPDATE", "Room1", "Room", &[("temperature", "float", "30")]).await;
    rx.expect_none(300).await;
}

fn with_units(units: &[&str]) -> Value {
    let metadatas: Vec<Value> = units.iter().map(|u| json!({"name": "unit", "type": "string", "value": u})).collect();
    json!({"contextElements": [{"type": "Room", "isPattern": "false", "id": "Room1", "attributes": [
        {"name": "temperature", "type": "float", "value": "20", "metadatas": metadatas}]}], "updateAction": "UPDATE"})
}

#[tokio::test]
async fn onchange_on_metadata_compares_the_last_of_a_repeated_name() {
    let h = Harness::new().await;
    let mut rx = Receiver::start(StatusCode::OK).await;
    h.update("APPEND", "Room1", "Room", &[("temperature", "float", "20")]).await;
    h.post("/cb/v1/updateContext", with_units(&["C"])).await;
    subscribe(&h, subscription(&rx.url, &["temperature"], &["temperature"])).await;
    rx.expect_none(200).await;
    h.post("/cb/v1/updateContext", with_units(&["F", "C"])).await;
    h.post("/cb/v1/updateContext", with_units(&["C"])).await;
    rx.expect_none(300).await;
    h.post("/cb/v1/updateContext", with_units(&["C", "F"])).await;
    let n = rx.next().await.expect("a notification for the changed unit");
    assert_eq!(element(&n)["attributes"][0]["metadatas"], json!([{"name": "unit", "type": "string", "value": "F"}]));
    rx.expect_none(300).await;
}

#[tokio::test]
async fn no_notification_when_no_projected_attribute_exists() {
    let h = Harness::new().await;
    let mut rx = Receiver::start(StatusCode::OK).await;
    subscribe(&h, subscription(&rx.url, &["humidity"], &[])).await;
    h.update("APPEND", "Room1", "Room", &[("temperature", "float", "20")]).await;
    rx.expect_none(300).await;
}

#[tokio::test]
async fn throttling_sends_the_latest_suppressed_change_when_the_interval_ends() {
    let h = Harness::new().await;
    let mut rx = Receiver::start(StatusCode::OK).await;
    let mut body = subscription(&rx.url, &[], &["temperature"]);
    body["throttling"] = json!("PT1S");
    subscribe(&h, body).await;
    for v in ["1", "2", "3", "4"] {
        h.update("APPEND", "Room1", "Room", &[("temperature", "float", v)]).await;
    }
    let first = rx.next().await.unwrap();
    let started = Instant::now();
    assert_eq!(attr_value(element(&first), "temperature"), Some(json!("1")));
    let trailing = rx.next().await.expect("the trailing notification");
    assert!(started.elapsed() >= Duration::from_millis(800), "sent before the interval ended");
    assert_eq!(attr_value(element(&trailing), "temperature"), Some(json!("4")));
    assert_eq!(trailing.body["contextResponses"].as_array().unwrap().len(), 1);
    rx.expect_none(1200).await;
}

#[tokio::test]
async fn notifications_of_one_subscription_arrive_in_order() {
    let h = Harness::new().await;
    let mut rx = Receiver::start(StatusCode::OK).await;
    subscribe(&h, subscription(&rx.url, &[], &[])).await;
    for v in 0..20 {
        h.update("APPEND", "Room1", "Room", &[("temperature", "float", &v.to_string())]).await;
    }
    for v in 0..20 {
        let n = rx.next().await.unwrap();
        assert_eq!(attr_value(element(&n), "temperature"), Some(json!(v.to_string())));
    }
}

#[tokio::test]
async fn expired_subscriptions_stop_and_can_be_renewed() {
    let h = Harness::new().await;
    let mut rx = Receiver::start(StatusCode::OK).await;
    let mut body = subscription(&rx.url, &[], &[]);
    body["duration"] = json!("PT10S");
    let id = subscribe(&h, body).await;
    h.clock.advance_ms(11_000);
    h.update("APPEND", "Room1", "Room", &[("temperature", "float", "1")]).await;
    rx.expect_none(300).await;
    let renewed = h.post("/cb/v1/updateContextSubscription", json!({"subscriptionId": id, "duration": "PT1M"})).await;
    assert_eq!(renewed, json!({"subscribeResponse": {"subscriptionId": id, "duration": "PT1M"}}));
    h.update("APPEND", "Room1", "Room", &[("temperature", "float", "2")]).await;
    assert!(rx.next().await.is_some());
}

#[tokio::test]
async fn unsubscribe_stops_notifications_and_unknown_ids_are_404() {
    let h = Harness::new().await;
    let mut rx = Receiver::start(StatusCode::OK).await;
    let id = subscribe(&h, subscription(&rx.url, &[], &[])).await;
    let reply = h.post("/cb/v1/unsubscribeContext", json!({"subscriptionId": id})).await;
    assert_eq!(reply, json!({"statusCode": {"code": "200", "reasonPhrase": "OK"}, "subscriptionId": id}));
    h.update("APPEND", "Room1", "Room", &[("temperature", "float", "1")]).await;
    rx.expect_none(300).await;
    let unknown = "012345678901234567890123";
    let reply = h.post("/cb/v1/unsubscribeContext", json!({"subscriptionId": unknown})).await;
    assert_eq!(
        reply,
        json!({"statusCode": {"code": "404", "reasonPhrase": "No context element found"}, "subscriptionId": unknown})
    );
    let empty = h.post("/cb/v1/unsubscribeContext", json!({"subscriptionId": ""})).await;
    assert_eq!(empty["subscriptionId"], "000000000000000000000000");
    let update =
        h.post("/cb/v1/updateContextSubscription", json!({"subscriptionId": unknown, "duration": "PT1M"})).await;
    assert_eq!(update["subscribeError"]["errorCode"]["code"], "404");
}

#[tokio::test]
async fn subscribe_errors_use_orion_texts() {
    let h = Harness::new().await;
    let base = subscription("http://localhost:1028/accumulate", &[], &[]);
    let cases = [
        ("duration", json!("PT99Y"), "invalid payload: syntax error in duration string"),
        ("duration", json!("P2W"), "invalid payload: syntax error in duration string"),
        ("throttling", json!("often"), "invalid payload: syntax error in throttling string"),
        ("entities", json!([]), "invalid payload: No entities"),
        ("reference", json!(""), "invalid payload: Empty Reference"),
        ("reference", json!("ftp://x/y"), "invalid payload: Invalid URL"),
        (
            "notifyConditions",
            json!([{"type": "ONTIMEINTERVAL"}]),
            "invalid payload: invalid notify condition type: /ONTIMEINTERVAL/",
        ),
        ("notifyConditions", json!([{"condValues": ["a"]}]), "invalid payload: empty type for NotifyCondition"),
        ("entities", json!([{"id": "R(", "isPattern": "true"}]), "invalid regex for entity id pattern"),
    ];
    for (field, value, details) in cases {
        let mut body = base.clone();
        body[field] = value;
        let reply = h.post("/cb/v1/subscribeContext", body).await;
        assert_eq!(reply["subscribeError"]["errorCode"]["details"], details, "{reply}");
    }
    let two_paths = [("platform-servicepath", "/a,/b")];
    let reply = h.json(Method::POST, "/cb/v1/subscribeContext", &two_paths, Some(base)).await;
    assert_eq!(reply.body["subscribeError"]["errorCode"]["details"], "max one service-path allowed for subscriptions");
}

#[tokio::test]
async fn a_failing_receiver_does_not_slow_updates_and_drops_are_counted() {
    let h = Harness::new().await;
    let rx = Receiver::start(StatusCode::INTERNAL_SERVER_ERROR).await;
    subscribe(&h, subscription(&rx.url, &[], &[])).await;
    subscribe(&h, subscription("http://127.0.0.1:9/refused", &[], &[])).await;
    let started = Instant::now();
    for v in 0..200 {
        h.update("APPEND", "Room1", "Room", &[("temperature", "float", &v.to_string())]).await;
    }
    assert!(started.elapsed() < Duration::from_secs(5), "updates waited for the receiver: {:?}", started.elapsed());
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let metrics = h.send(Method::GET, "/metrics", &[], None).await;
    assert_eq!(metrics.status, StatusCode::OK);
    let text = metrics.text;
    for name in [
        "fluxgate_notifications_failed_total",
        "fluxgate_notifications_retried_total",
        "fluxgate_notifications_dropped_total",
    ] {
        assert!(text.contains(name), "{name} missing from /metrics");
    }
}

/// An in-process receiver that records what it is given.
#[derive(Default)]
struct Recording(Mutex<Vec<Notification>>);

impl NotificationSink for Recording {
    fn deliver(&self, notification: Notification) -> SinkFuture {
        self.0.lock().unwrap().push(notification);
        Box::pin(async { Ok(()) })
    }
}

#[tokio::test]
async fn references_to_this_gateway_are_delivered_in_process() {
    let h = Harness::new().await;
    let sink = Arc::new(Recording::default());
    h.state.sinks.register("/sth/notify", sink.clone());
    h.state.sinks.set_listener("127.0.0.1:8666".parse().unwrap());
    subscribe(&h, subscription("/sth/notify", &[], &[])).await;
    subscribe(&h, subscription("http://localhost:8666/sth/notify", &[], &[])).await;
    h.update("APPEND", "Room1", "Room", &[("temperature", "float", "1")]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let got = sink.0.lock().unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].elements[0].id, "Room1");
}

#[tokio::test]
async fn a_slow_receiver_fills_a_bounded_queue_and_drops_are_counted() {
    let h = Harness::new().await;
    let mut rx = Receiver::answering_after(StatusCode::OK, Duration::from_millis(200)).await;
    subscribe(&h, subscription(&rx.url, &[], &[])).await;
    let started = Instant::now();
    for v in 0..120 {
        h.update("APPEND", "Room1", "Room", &[("temperature", "float", &v.to_string())]).await;
    }
    assert!(started.elapsed() < Duration::from_secs(5), "updates waited for a slow receiver: {:?}", started.elapsed());
    let metrics = h.send(Method::GET, "/metrics", &[], None).await.text;
    let queue_full =
        metrics.lines().find(|l| l.starts_with("fluxgate_notifications_dropped_total") && l.contains("queue_full"));
    assert!(queue_full.is_some(), "no queue_full drops counted:\n{metrics}");
    let first = rx.next().await.expect("the slow receiver still gets notifications");
    assert_eq!(attr_value(element(&first), "temperature"), Some(json!("0")));
}

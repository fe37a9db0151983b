//! The device API: registration, UltraLight observations over HTTP, commands by polling and by push, trackers,
//! expiry and restart, and every refusal of the issue with nothing written.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{Harness, attr_value};

fn tracker(endpoint: Option<&str>) -> Value {
    let mut device = json!({"device_id": "t1", "entity_name": "Tracker1", "entity_type": "tracker",
        "protocol": "PDI-IoTA-UltraLight", "timezone": "Europe/Madrid",
        "attributes": [{"object_id": "t", "name": "temperature", "type": "double"}],
        "commands": [{"name": "SET_tracking", "type": "command", "value": "t1@SET_tracking|%s"}],
        "static_attributes": [{"name": "mode", "type": "string", "value": "POSITION"}]});
    if let Some(url) = endpoint {
        device["endpoint"] = url.into();
    }
    device
}

async fn register(h: &Harness, devices: Value) -> crate::support::Reply {
    h.json(Method::POST, "/ul/iot/devices", &[], Some(json!({ "devices": devices }))).await
}

async fn entity(h: &Harness, id: &str) -> Value {
    h.get(&format!("/cb/v1/contextEntities/{id}")).await["contextElement"].clone()
}

fn d(h: &Harness, device: &str) -> String {
    format!("/ul/iot/d?k={}&i={device}", h.token)
}

async fn set_mode(h: &Harness, mode: &str) -> Value {
    h.update("UPDATE", "Tracker1", "tracker", &[("SET_tracking", "string", mode)]).await
}

#[tokio::test]
async fn registration_errors_and_registry_operations() {
    let h = Harness::new().await;
    assert_eq!(register(&h, json!([tracker(None)])).await.status, StatusCode::CREATED);
    let dup = register(&h, json!([tracker(None)])).await;
    assert_eq!(dup.status, StatusCode::CONFLICT);
    assert_eq!(
        dup.body,
        json!({"reason": "There are conflicts, entity already exists", "details": " [ device_id: t1]"})
    );
    let mut second = tracker(None);
    second["device_id"] = "t2".into();
    let all_or_nothing = register(&h, json!([second, tracker(None)])).await;
    assert_eq!(all_or_nothing.status, StatusCode::CONFLICT);
    let missing = register(
        &h,
        json!([{"device_id": "x", "entity_name": "X", "protocol": "PDI-IoTA-UltraLight", "timezone": "UTC"}]),
    )
    .await;
    assert_eq!(missing.body["details"], "Missing required property: entity_type [/devices[0]]");
    let mut bad_protocol = tracker(None);
    bad_protocol["protocol"] = "COAP".into();
    let refused = register(&h, json!([bad_protocol])).await;
    assert_eq!(
        refused.body,
        json!({"reason": "There are conflicts, protocol is not correct", "details": " [ protocol: COAP]"})
    );
    let bad_json = h
        .send(
            Method::POST,
            "/ul/iot/devices",
            &[("content-type", "application/json"), ("x-auth-token", &h.token)],
            Some("{\"devices\":"),
        )
        .await;
    assert_eq!(bad_json.status, StatusCode::BAD_REQUEST);
    let list = h.get("/ul/iot/devices").await;
    assert_eq!(list["count"], 1, "t2 of the refused batch was registered: {list}");
    assert_eq!(h.get("/ul/iot/devices/t1").await["entity_name"], "Tracker1");
    let absent = h.json(Method::GET, "/ul/iot/devices/zz", &[], None).await;
    assert_eq!(
        (absent.status, absent.body["reason"].as_str()),
        (StatusCode::NOT_FOUND, Some("The device does not exist"))
    );
    let mut changed = tracker(None);
    changed["entity_name"] = "Tracker9".into();
    assert_eq!(h.json(Method::PUT, "/ul/iot/devices/t1", &[], Some(changed)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(h.get("/ul/iot/devices/t1").await["entity_name"], "Tracker9");
    assert_eq!(h.json(Method::DELETE, "/ul/iot/devices/t1", &[], None).await.status, StatusCode::NO_CONTENT);
    assert_eq!(h.json(Method::DELETE, "/ul/iot/devices/t1", &[], None).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn observations_become_one_append_with_time_instant() {
    let h = Harness::new().await;
    let reply = h.text(Method::POST, &d(&h, "dev1"), "t|25#h|40|p|1000#").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let thing = entity(&h, "thing:dev1").await;
    assert_eq!(thing["type"], "thing");
    assert_eq!(attr_value(&thing, "t"), Some(json!("25")));
    assert_eq!(attr_value(&thing, "p"), Some(json!("1000")));
    let time = attr_value(&thing, "TimeInstant").unwrap();
    assert_eq!(time, json!("2023-11-14T22:13:20.000Z"), "TimeInstant is the manual clock's now");
    register(&h, json!([tracker(None)])).await;
    h.text(Method::POST, &d(&h, "t1"), "2016-06-13T00:35:30Z|t|21.5").await;
    let tracker = entity(&h, "Tracker1").await;
    let temperature =
        tracker["attributes"].as_array().unwrap().iter().find(|a| a["name"] == "temperature").unwrap().clone();
    assert_eq!(temperature["type"], "double");
    assert_eq!(
        temperature["metadatas"][0],
        json!({"name": "TimeInstant", "type": "ISO8601", "value": "2016-06-13T00:35:30.000Z"})
    );
    assert_eq!(attr_value(&tracker, "mode"), Some(json!("POSITION")));
}

#[tokio::test]
async fn bad_observations_are_refused_and_write_nothing() {
    let h = Harness::new().await;
    let cases = ["", "a|", "|b", "a|1|b", "t|1##h|2", "\u{1}\u{2}\u{0}|", "id|7", "x@cmd|done"];
    for text in cases {
        let reply = h.send(Method::POST, &d(&h, "dev1"), &[("content-type", "text/plain")], Some(text)).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{text:?}: {}", reply.text);
        assert!(reply.body["reason"].is_string() && reply.body["details"].is_string(), "{text:?}: {}", reply.text);
    }
    let parse = h.text(Method::POST, &d(&h, "dev1"), "t|1#a|").await;
    assert_eq!(parse.body["details"], "group 2 (`a|`): field 2 is empty; a group is alias|value pairs");
    let huge = "t|1#".repeat(300_000);
    assert_eq!(h.text(Method::POST, &d(&h, "dev1"), &huge).await.status, StatusCode::PAYLOAD_TOO_LARGE);
    let json = h.send(Method::POST, &d(&h, "dev1"), &[("content-type", "application/json")], Some("t|1")).await;
    assert_eq!(json.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let unknown = h.text(Method::POST, "/ul/iot/d?k=nope&i=dev1", "t|1").await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);
    let missing = h.text(Method::POST, &format!("/ul/iot/d?k={}", h.token), "t|1").await;
    assert_eq!(missing.body["details"], "missing query parameter i");
    let none = h.json(Method::GET, "/cb/v1/contextEntities/thing:dev1", &[], None).await;
    assert_eq!(none.body["statusCode"]["code"], "404", "a refused observation wrote: {}", none.body);
}

#[tokio::test]
async fn tracker_mode_by_polling_end_to_end() {
    let h = Harness::new().await;
    register(&h, json!([tracker(None)])).await;
    assert_eq!(attr_value(&entity(&h, "Tracker1").await, "SET_tracking_status"), Some(json!("UNKNOWN")));
    let reply = set_mode(&h, "FASTTRACK").await;
    assert_eq!(reply["contextResponses"][0]["statusCode"]["code"], "200");
    let e = entity(&h, "Tracker1").await;
    assert_eq!(attr_value(&e, "tracking"), Some(json!("FASTTRACK")));
    assert_eq!(attr_value(&e, "SET_tracking_status"), Some(json!("PENDING")));
    let polled = h.send(Method::GET, &d(&h, "t1"), &[], None).await;
    assert_eq!(polled.text, "t1@SET_tracking|FASTTRACK");
    assert_eq!(attr_value(&entity(&h, "Tracker1").await, "SET_tracking_status"), Some(json!("DELIVERED")));
    assert_eq!(h.send(Method::GET, &d(&h, "t1"), &[], None).await.text, "", "delivered commands are not sent twice");
    let result = h.text(Method::POST, &d(&h, "t1"), "t1@SET_tracking|FASTTRACK_OK").await;
    assert_eq!(result.status, StatusCode::OK, "{}", result.text);
    let e = entity(&h, "Tracker1").await;
    assert_eq!(attr_value(&e, "SET_tracking_status"), Some(json!("OK")));
    assert_eq!(attr_value(&e, "SET_tracking_info"), Some(json!("FASTTRACK_OK")));
}

#[tokio::test]
async fn an_unknown_mode_is_refused_with_the_allowed_values_and_nothing_changes() {
    let h = Harness::new().await;
    register(&h, json!([tracker(None)])).await;
    set_mode(&h, "SLEEP").await;
    h.send(Method::GET, &d(&h, "t1"), &[], None).await;
    let reply = set_mode(&h, "TURBO").await;
    let status = &reply["contextResponses"][0]["statusCode"];
    assert_eq!(status["code"], "400");
    assert_eq!(status["details"], "SET_tracking accepts only SLEEP, SLOWTRACK, FASTTRACK, MOTIONTRACK; got \"TURBO\"");
    let e = entity(&h, "Tracker1").await;
    assert_eq!(attr_value(&e, "tracking"), Some(json!("SLEEP")));
    assert_eq!(attr_value(&e, "SET_tracking"), Some(json!("SLEEP")));
    assert_eq!(h.send(Method::GET, &d(&h, "t1"), &[], None).await.text, "", "a refused mode queued a command");
}

#[tokio::test]
async fn pushed_commands_take_the_device_answer() {
    let h = Harness::new().await;
    let device = Device::start("t1@SET_tracking|done").await;
    register(&h, json!([tracker(Some(&device.url))])).await;
    set_mode(&h, "MOTIONTRACK").await;
    let e = wait_for_status(&h, "OK").await;
    assert_eq!(attr_value(&e, "SET_tracking_info"), Some(json!("done")));
    assert_eq!(device.received().await, vec!["t1@SET_tracking|MOTIONTRACK".to_owned()]);
}

#[tokio::test]
async fn a_device_that_answers_garbage_or_is_down_gives_error() {
    let h = Harness::new().await;
    let garbage = Device::start("<html>oops</html>").await;
    register(&h, json!([tracker(Some(&garbage.url))])).await;
    set_mode(&h, "SLEEP").await;
    let e = wait_for_status(&h, "ERROR").await;
    assert!(attr_value(&e, "SET_tracking_info").unwrap().as_str().unwrap().contains("not a result"));
    let mut down = tracker(Some("http://127.0.0.1:9/cmd"));
    down["device_id"] = "t2".into();
    down["entity_name"] = "Tracker2".into();
    register(&h, json!([down])).await;
    h.update("UPDATE", "Tracker2", "tracker", &[("SET_tracking", "string", "SLEEP")]).await;
    for _ in 0..50 {
        if attr_value(&entity(&h, "Tracker2").await, "SET_tracking_status") == Some(json!("ERROR")) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("a device that is down did not turn the command to ERROR");
}

#[tokio::test]
async fn a_device_slower_than_the_timeout_gives_error_and_the_service_keeps_answering() {
    let h = Harness::new().await;
    let slow = axum::Router::new().fallback(|| async {
        tokio::time::sleep(std::time::Duration::from_secs(3)).await;
        "t1@SET_tracking|OK"
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/cmd", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, slow).await });
    register(&h, json!([tracker(Some(&url))])).await;
    set_mode(&h, "SLEEP").await;
    let waiting = entity(&h, "Tracker1").await;
    assert_ne!(attr_value(&waiting, "SET_tracking_status"), Some(json!("OK")), "answered before the device did");
    let e = wait_for_status(&h, "ERROR").await;
    let info = attr_value(&e, "SET_tracking_info").unwrap();
    assert_eq!(info, json!("the device did not answer within 500 ms"), "{e}");
}

#[tokio::test]
async fn a_result_for_a_command_never_sent_is_refused_whole() {
    let h = Harness::new().await;
    register(&h, json!([tracker(None)])).await;
    let reply = h.text(Method::POST, &d(&h, "t1"), "t|30#t1@SET_tracking|OK").await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.body,
        json!({"reason": "Unknown command", "details": "no command SET_tracking was sent to device t1"})
    );
    assert_eq!(
        attr_value(&entity(&h, "Tracker1").await, "temperature"),
        None,
        "the measure of a refused request was written"
    );
    h.update("APPEND", "Tracker1", "tracker", &[("levelBattery", "long", "80")]).await;
    let after = entity(&h, "Tracker1").await;
    assert_eq!(attr_value(&after, "levelBattery"), Some(json!("80")));
    assert_eq!(attr_value(&after, "temperature"), None, "the writer's cache kept a rolled-back measure");
}

#[tokio::test]
async fn undelivered_commands_expire_and_queued_ones_survive_a_restart() {
    let h = Harness::new().await;
    register(&h, json!([tracker(None)])).await;
    set_mode(&h, "SLOWTRACK").await;
    let h = h.reopen().await;
    assert_eq!(h.send(Method::GET, &d(&h, "t1"), &[], None).await.text, "t1@SET_tracking|SLOWTRACK");
    set_mode(&h, "SLEEP").await;
    h.clock.advance_ms(2 * 3600 * 1000);
    let ttl = std::time::Duration::from_secs(3600);
    fluxgate::devices::commands::expire_now(h.state.store.as_ref(), h.clock.as_ref(), ttl).await.unwrap();
    assert_eq!(attr_value(&entity(&h, "Tracker1").await, "SET_tracking_status"), Some(json!("EXPIRED")));
    assert_eq!(h.send(Method::GET, &d(&h, "t1"), &[], None).await.text, "");
}

async fn wait_for_status(h: &Harness, status: &str) -> Value {
    for _ in 0..100 {
        let e = entity(h, "Tracker1").await;
        if attr_value(&e, "SET_tracking_status") == Some(json!(status)) {
            return e;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("SET_tracking_status never became {status}: {}", entity(h, "Tracker1").await);
}

/// A device listening for pushed commands on a loopback port, answering with a fixed text.
struct Device {
    url: String,
    rx: tokio::sync::Mutex<tokio::sync::mpsc::UnboundedReceiver<String>>,
}

impl Device {
    async fn start(answer: &'static str) -> Self {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let app = axum::Router::new().fallback(move |body: String| {
            let tx = tx.clone();
            async move {
                let _ = tx.send(body);
                answer
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/cmd", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Device { url, rx: tokio::sync::Mutex::new(rx) }
    }

    async fn received(&self) -> Vec<String> {
        let mut rx = self.rx.lock().await;
        let mut all = Vec::new();
        while let Ok(text) = rx.try_recv() {
            all.push(text);
        }
        all
    }
}

#[tokio::test]
async fn a_token_of_another_service_never_reaches_this_services_devices() {
    let h = Harness::new().await;
    register(&h, json!([tracker(None)])).await;
    let other = h.service("fleet").await;
    let reply = h.text(Method::POST, &format!("/ul/iot/d?k={other}&i=t1"), "t|99").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(attr_value(&entity(&h, "Tracker1").await, "temperature"), None, "another service wrote this tracker");
    let polled = h.send(Method::GET, &format!("/ul/iot/d?k={other}&i=t1"), &[], None).await;
    assert_eq!(polled.text, "");
    let fleet = [("content-type", "application/json"), ("x-auth-token", other.as_str()), ("platform-service", "fleet")];
    let theirs = h.send(Method::GET, "/cb/v1/contextEntities/thing:t1", &fleet, None).await;
    assert_eq!(theirs.body["contextElement"]["type"], "thing", "{}", theirs.body);
}

//! The CEP wired into the gateway: the admin API (validation, refusals that keep the running configuration,
//! persistence across a restart), `/cep/notify`, and the seed flows end to end through `/cb/v1` subscriptions,
//! the in-process sink, the engine on the manual clock, and in-process output back to the broker (and to a real HTTP
//! broker, to count the updates of the shutter flow).
//! The floor under each output policy is `policies`; probes and patterns are `patterns`.

mod patterns;
mod policies;

use std::time::Duration;

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{Harness, Receiver, attr_value};

const OWN: &str = "127.0.0.1:8080";

/// A seed configuration whose brokers are this gateway, in the caller's tenant.
fn seed(name: &str) -> Value {
    let text = std::fs::read_to_string(format!("{}/queries/{name}.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut config: Value = serde_json::from_str(&text).unwrap();
    config["out"][0]["brokers"] = json!([{"url": format!("http://{OWN}/cb")}]);
    config
}

async fn post_config(h: &Harness, config: Value) -> crate::support::Reply {
    h.json(Method::POST, "/cep/v1/admin/config", &[], Some(config)).await
}

async fn subscribe(h: &Harness, entity_type: &str, pattern: &str, condition: &str) {
    let body = json!({"entities": [{"type": entity_type, "isPattern": "true", "id": pattern}],
        "reference": format!("http://{OWN}/cep/notify"), "duration": "P1M",
        "notifyConditions": [{"type": "ONCHANGE", "condValues": [condition]}]});
    h.post("/cb/v1/subscribeContext", body).await;
}

/// The attribute of an entity once it has `expected`, waiting up to two seconds.
async fn wait_for(h: &Harness, id: &str, entity_type: &str, attr: &str, expected: &str) {
    let body = json!({"entities": [{"type": entity_type, "isPattern": "false", "id": id}]});
    for _ in 0..200 {
        let reply = h.json(Method::POST, "/cb/v1/queryContext", &[], Some(body.clone())).await;
        let element = &reply.body["contextResponses"][0]["contextElement"];
        if attr_value(element, attr) == Some(json!(expected)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{entity_type} {id} never had {attr} = {expected}");
}

/// Lets the notification of the last update reach the engine before the clock moves.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(60)).await;
}

#[tokio::test]
async fn geofence_alerts_come_back_as_entities() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    assert_eq!(post_config(&h, seed("geofence")).await.status, StatusCode::CREATED);
    subscribe(&h, "tracker", "Tracker.*", "position").await;
    let phases = [("43.70, 1.44", "false"), ("43.60, 1.44", "true"), ("43.70, 1.45", "false")];
    for (position, inside) in phases {
        for step in 0..6 {
            let position = if step % 2 == 0 { position.to_owned() } else { format!("{position}0") };
            h.update("APPEND", "Tracker1", "tracker", &[("position", "geo:point", &position)]).await;
            settle().await;
            h.clock.advance_ms(1000);
        }
        wait_for(&h, "Tracker1", "Alert", "inside", inside).await;
    }
}

#[tokio::test]
async fn floor_average_every_ten_seconds() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    assert_eq!(post_config(&h, seed("floor-average")).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    for (room, temperature) in [("Room1", "20"), ("Room2", "22")] {
        h.update("APPEND", room, "Room", &[("temperature", "double", temperature), ("floor", "string", "1")]).await;
        settle().await;
    }
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "21.0").await;
}

/// The floor seed with `statement` in place of its own.
fn floor_with(statement: &str) -> Value {
    let mut config = seed("floor-average");
    config["statements"] = json!([statement]);
    config
}

/// A gateway running the floor seed with `statement` in place of its own, its rooms subscribed to the CEP.
async fn floor_running(statement: &str) -> Harness {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    assert_eq!(post_config(&h, floor_with(statement)).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    h
}

/// The body of the broker's answer to a query of floor 1.
async fn floor_reply(h: &Harness) -> Value {
    let floor = json!({"entities": [{"type": "Floor", "isPattern": "false", "id": "1"}]});
    h.json(Method::POST, "/cb/v1/queryContext", &[], Some(floor)).await.body
}

/// Once the engine has settled, the broker has no floor 1 (`when` says when, for the failure).
async fn no_floor(h: &Harness, when: &str) {
    settle().await;
    let reply = floor_reply(h).await;
    assert_eq!(reply["errorCode"]["code"], "404", "no floor {when}: {reply}");
}

/// The `in` types of the probe tests: rooms on floors, and probes naming what they probe by `attribute`.
fn rooms_and_probes(attribute: &str) -> Value {
    json!([{"id": "Room.*", "type": "Room", "isPattern": true,
            "attributes": [{"name": "temperature", "type": "double"}, {"name": "floor", "type": "string"}]},
           {"id": "Probe.*", "type": "Probe", "isPattern": true,
            "attributes": [{"name": attribute, "type": "string"}]}])
}

/// Room1 warms to 30 and cools to `cold`: one swing.
async fn swing(h: &Harness, cold: &str) {
    room(h, "Room1", "30").await;
    room(h, "Room1", cold).await;
}

async fn room(h: &Harness, id: &str, temperature: &str) {
    h.update("APPEND", id, "Room", &[("temperature", "double", temperature), ("floor", "string", "1")]).await;
    settle().await;
}

#[tokio::test]
async fn a_replacement_with_the_same_statements_keeps_the_window_and_a_new_statement_starts_afresh() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    assert_eq!(post_config(&h, seed("floor-average")).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    room(&h, "Room1", "20").await;
    let mut renamed = seed("floor-average");
    renamed["out"][0]["id"] = json!("FloorX");
    assert_eq!(post_config(&h, renamed).await.status, StatusCode::CREATED);
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "21.0").await;
    let mut changed = seed("floor-average");
    changed["statements"] =
        json!([seed("floor-average")["statements"][0].as_str().unwrap().replace("10 min", "20 min")]);
    assert_eq!(post_config(&h, changed).await.status, StatusCode::CREATED);
    room(&h, "Room3", "30").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "30.0").await;
}

#[tokio::test]
async fn statements_whose_text_is_unchanged_keep_their_state_when_another_statement_changes() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let with_hot = |threshold: &str| {
        let mut config = seed("floor-average");
        let hot = format!("INSERT INTO Hot SELECT id, temperature FROM Room(temperature > {threshold})");
        config["statements"].as_array_mut().unwrap().insert(0, json!(hot));
        config
    };
    assert_eq!(post_config(&h, with_hot("25")).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    room(&h, "Room1", "20").await;
    assert_eq!(post_config(&h, with_hot("26")).await.status, StatusCode::CREATED);
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "21.0").await;
}

#[tokio::test]
async fn a_refused_configuration_keeps_the_running_one_and_configurations_survive_a_restart() {
    let h = Harness::new().await;
    assert_eq!(h.json(Method::GET, "/cep/v1/admin/config", &[], None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(post_config(&h, seed("floor-average")).await.status, StatusCode::CREATED);
    let mut bad = seed("floor-average");
    bad["statements"] = json!(["INSERT INTO Floor SELECT flor as id FROM Room"]);
    let reply = post_config(&h, bad).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.body["reasonPhrase"], "Failed to apply new configuration");
    let details = reply.body["details"].as_str().unwrap();
    assert!(details.contains("statement 1, line 1, column 26") && details.contains('^'), "{details}");
    let mut shapeless = seed("floor-average");
    shapeless["host"] = json!("");
    let reply = post_config(&h, shapeless).await;
    assert_eq!(reply.body["reasonPhrase"], "Configuration validation error");
    let mut hostless = seed("floor-average");
    hostless["host"] = json!("not a url");
    let reply = post_config(&h, hostless).await;
    assert_eq!((reply.status, &reply.body["reasonPhrase"]), (StatusCode::BAD_REQUEST, &json!("Bad request")));
    let details = reply.body["details"].as_str().unwrap();
    assert!(details.contains("`host` is not a URI"), "{details}");
    let statements = h.get("/cep/v1/admin/statements").await;
    assert_eq!(statements[0]["text"], seed("floor-average")["statements"][0]);
    // Cepheus's name: the text's MD5 (077a8f03…) as `BigInteger.toString(16)` writes it, its leading zero dropped.
    assert_eq!(statements[0]["name"], "77a8f03caa50948a36eb7be7c3155e2");
    let h = h.reopen().await;
    let config = h.get("/cep/v1/admin/config").await;
    assert_eq!(config["statements"], seed("floor-average")["statements"]);
    assert_eq!(h.json(Method::DELETE, "/cep/v1/admin/config", &[], None).await.status, StatusCode::OK);
    assert_eq!(h.json(Method::GET, "/cep/v1/admin/config", &[], None).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn notify_processes_every_element_and_reports_the_bad_ones() {
    let h = Harness::new().await;
    let reply = h.send(Method::GET, "/cep/v1/admin/config", &[], None).await;
    assert_eq!((reply.status, reply.body["code"].clone()), (StatusCode::UNAUTHORIZED, json!("401")));
    assert_eq!(post_config(&h, seed("floor-average")).await.status, StatusCode::CREATED);
    let element = |id: &str, t: &str, temperature: &str| {
        json!({"contextElement": {"id": id, "type": t, "isPattern": "false",
            "attributes": [{"name": "temperature", "type": "double", "value": temperature}]},
            "statusCode": {"code": "200", "reasonPhrase": "OK"}})
    };
    let body = json!({"subscriptionId": "s1", "originator": "localhost", "contextResponses": [
        element("Room1", "Room", "21"), element("Room2", "Room", "warm"), element("X", "Shutter", "1")]});
    let reply = h.post("/cep/notify", body).await;
    assert_eq!(reply["responseCode"]["code"], "472");
    let details = reply["responseCode"]["details"].as_str().unwrap();
    assert!(details.contains("element 2: Failed to parse value warm for attribute temperature"), "{details}");
    assert!(details.contains("element 3: no `in` declaration has type Shutter"), "{details}");
    let reply = h.post("/cep/notify", json!({"subscriptionId": "s1", "originator": "localhost"})).await;
    assert_eq!(reply["responseCode"]["code"], "471");
    let ok = json!({"subscriptionId": "s1", "originator": "localhost", "contextResponses": [element("Room3", "Room", "20")]});
    assert_eq!(h.post("/cep/notify", ok).await["responseCode"]["code"], "200");
}

/// The shutter status the next update a broker receives carries.
async fn next_status(broker: &mut Receiver) -> Option<Value> {
    let update = broker.next().await?;
    attr_value(&update.body["contextElements"][0], "status")
}

/// Holds the room at `temperature` for six seconds of engine time, one second at a time (`RoomX` is the id the
/// example's `in` declaration takes).
async fn hold(h: &Harness, temperature: &str) {
    let attrs = [("temperature", "double", temperature), ("shutter", "string", "Shutter1")];
    h.update("APPEND", "RoomX", "Room", &attrs).await;
    settle().await;
    for _ in 0..6 {
        h.clock.advance_ms(1000);
        settle().await;
    }
}

#[tokio::test]
async fn shutters_close_once_while_a_room_stays_hot_and_open_when_it_cools() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let mut broker = Receiver::start(StatusCode::OK).await;
    let mut config = seed("cepheus-close-shutters");
    config["out"][0]["brokers"] = json!([{"url": format!("http://{OWN}/cb")}, {"url": broker.url.clone()}]);
    assert_eq!(post_config(&h, config).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    hold(&h, "27").await;
    wait_for(&h, "Shutter1", "Shutter", "status", "closed").await;
    assert_eq!(next_status(&mut broker).await, Some(json!("closed")));
    // Still hot: a new instance fires five seconds later, finds the shutter closed, and writes nothing.
    hold(&h, "28").await;
    broker.expect_none(300).await;
    hold(&h, "20").await;
    wait_for(&h, "Shutter1", "Shutter", "status", "opened").await;
    assert_eq!(next_status(&mut broker).await, Some(json!("opened")));
    broker.expect_none(300).await;
}

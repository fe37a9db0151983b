//! The CEP wired into the gateway: the admin API (validation, refusals that keep the running configuration,
//! persistence across a restart), `/cep/notify`, and the seed flows end to end through `/cb/v1` subscriptions,
//! the in-process sink, the engine on the manual clock, and in-process output back to the broker (and to a real HTTP
//! broker, to count the updates of the shutter flow).

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

/// A time batch writes each floor's sum when its period ends, not before; a statement the runtime cannot run (one
/// that paces the remove stream of its aggregates, `SELECT RSTREAM ... OUTPUT`) is refused with its construct named,
/// and the running one goes on.
#[tokio::test]
async fn a_time_batch_writes_each_floor_s_sum_when_its_period_ends() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let batch = "INSERT INTO Floor SELECT floor as id, sum(temperature) as temperature FROM Room.win:time_batch(5 sec) \
        GROUP BY floor";
    assert_eq!(post_config(&h, floor_with(batch)).await.status, StatusCode::CREATED);
    let paced = format!("{} OUTPUT LAST EVERY 10 sec", batch.replace("SELECT", "SELECT RSTREAM"));
    let reply = post_config(&h, floor_with(&paced)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let details = reply.body["details"].as_str().unwrap();
    let refused = "SELECT RSTREAM with aggregates under an OUTPUT policy is not supported by the runtime yet (issue 6)";
    assert_eq!(details, format!("statement 1: {refused}"));
    subscribe(&h, "Room", "Room.*", "temperature").await;
    room(&h, "Room1", "20").await;
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(4_999);
    no_floor(&h, "before the period ends").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "42.0").await;
    room(&h, "Room1", "25").await;
    h.clock.advance_ms(5_000);
    wait_for(&h, "1", "Floor", "temperature", "25.0").await;
}

/// `OUTPUT LAST EVERY 10 sec` on a floor's time batch with an ungrouped column (each room's share of the rest of its
/// floor's sum): a release's rows are its rooms', and the tick writes the floor's row of its last room released in
/// the interval, with the sum of that release; the first release starts the clock.
#[tokio::test]
async fn a_floor_s_time_batch_writes_its_last_room_s_row_at_the_tick() {
    let last = "INSERT INTO Floor SELECT floor as id, sum(temperature) - temperature as temperature FROM \
        Room.win:time_batch(5 sec) GROUP BY floor OUTPUT LAST EVERY 10 sec";
    let h = floor_running(last).await;
    room(&h, "Room1", "20").await;
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(14_999);
    no_floor(&h, "before the tick").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "20.0").await;
    room(&h, "Room1", "25").await;
    room(&h, "Room2", "30").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "25.0").await;
}

/// `SELECT RSTREAM` over a 10-second time window: a reading is written to its floor when it leaves the window, not
/// when it comes; readings leaving together are written in order, so the floor ends with the last.
#[tokio::test]
async fn a_reading_is_written_when_it_leaves_the_window() {
    let gone = "INSERT INTO Floor SELECT RSTREAM floor as id, temperature FROM Room.win:time(10 sec)";
    let h = floor_running(gone).await;
    room(&h, "Room1", "20").await;
    h.clock.advance_ms(5_000);
    room(&h, "Room2", "22").await;
    room(&h, "Room1", "24").await;
    h.clock.advance_ms(4_999);
    no_floor(&h, "while the first reading is in the window").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "20.0").await;
    h.clock.advance_ms(5_000);
    wait_for(&h, "1", "Floor", "temperature", "24.0").await;
}

/// `SELECT RSTREAM` of a floor's average over 10 seconds: each reading writes the average as it stood before the
/// reading came; a floor with no reading in the window has a null average, which writes nothing.
#[tokio::test]
async fn each_reading_writes_its_floor_s_average_from_before_it() {
    let before = "INSERT INTO Floor SELECT RSTREAM floor as id, avg(temperature) as temperature FROM \
        Room.win:time(10 sec) GROUP BY floor";
    let h = floor_running(before).await;
    room(&h, "Room1", "20").await;
    no_floor(&h, "after the floor's first reading").await;
    room(&h, "Room2", "22").await;
    wait_for(&h, "1", "Floor", "temperature", "20.0").await;
    room(&h, "Room1", "24").await;
    wait_for(&h, "1", "Floor", "temperature", "21.0").await;
    h.clock.advance_ms(10_000);
    room(&h, "Room1", "30").await;
    settle().await;
    assert_eq!(floor_reply(&h).await["contextResponses"][0]["contextElement"]["attributes"][0]["value"], "21.0");
    room(&h, "Room2", "28").await;
    wait_for(&h, "1", "Floor", "temperature", "30.0").await;
}

/// `SELECT RSTREAM ... OUTPUT LAST EVERY 10 sec` over the last two readings: each tick writes the last reading pushed
/// out of the window in its interval, on the clock the first reading started.
#[tokio::test]
async fn each_tick_writes_the_last_reading_pushed_out() {
    let pushed = "INSERT INTO Floor SELECT RSTREAM floor as id, temperature FROM Room.win:length(2) OUTPUT LAST EVERY \
        10 sec";
    let h = floor_running(pushed).await;
    for (id, temperature) in [("Room1", "20"), ("Room2", "22"), ("Room1", "24"), ("Room2", "26")] {
        room(&h, id, temperature).await;
    }
    h.clock.advance_ms(9_999);
    no_floor(&h, "before the tick").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "22.0").await;
    room(&h, "Room1", "30").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "24.0").await;
}

/// Each room's readings batched by two (`std:groupwin(id).win:length_batch(2)`): a room's second reading releases
/// its pair alone, and the floor's average runs over every room's last released pair.
#[tokio::test]
async fn a_floor_s_average_runs_over_each_room_s_last_pair_of_readings() {
    let pairs = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM \
        Room.std:groupwin(id).win:length_batch(2) GROUP BY floor";
    let h = floor_running(pairs).await;
    room(&h, "Room1", "20").await;
    room(&h, "Room2", "22").await;
    no_floor(&h, "before a room's second reading").await;
    room(&h, "Room1", "24").await;
    wait_for(&h, "1", "Floor", "temperature", "22.0").await;
    room(&h, "Room2", "26").await;
    wait_for(&h, "1", "Floor", "temperature", "23.0").await;
    room(&h, "Room1", "30").await;
    room(&h, "Room1", "32").await;
    wait_for(&h, "1", "Floor", "temperature", "27.5").await;
}

/// `OUTPUT LAST EVERY 10 sec` on a length batch of two readings: its first release starts the clock, and each tick
/// writes the last reading the interval's releases held; a reading not yet released waits for its batch.
#[tokio::test]
async fn a_floor_gets_the_last_released_reading_of_each_ten_seconds() {
    let last =
        "INSERT INTO Floor SELECT floor as id, temperature FROM Room.win:length_batch(2) OUTPUT LAST EVERY 10 sec";
    let h = floor_running(last).await;
    room(&h, "Room1", "20").await;
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(9_999);
    no_floor(&h, "before the tick").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "22.0").await;
    room(&h, "Room1", "25").await;
    room(&h, "Room2", "21").await;
    room(&h, "Room1", "30").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "21.0").await;
}

/// `OUTPUT SNAPSHOT EVERY 10 sec` on the floor's average over each room's last pair of readings: the first pair
/// released starts the clock, and every tick writes the average over the pairs the view holds then, changed or not.
#[tokio::test]
async fn a_floor_s_average_of_its_rooms_last_pairs_is_written_at_every_tick() {
    let snapshot = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM \
        Room.std:groupwin(id).win:length_batch(2) GROUP BY floor OUTPUT SNAPSHOT EVERY 10 sec";
    let h = floor_running(snapshot).await;
    room(&h, "Room1", "20").await;
    room(&h, "Room1", "24").await;
    room(&h, "Room2", "22").await;
    room(&h, "Room2", "26").await;
    h.clock.advance_ms(9_999);
    no_floor(&h, "before the first tick").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "23.0").await;
    h.update("APPEND", "1", "Floor", &[("temperature", "double", "99")]).await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "23.0").await;
}

/// `OUTPUT FIRST EVERY 1 min` on the floor average: the floor's first average is written at once, the next ones are
/// dropped until a minute after it, and then the next one is written at once again.
#[tokio::test]
async fn a_floor_s_first_average_of_its_minute_is_written_at_once() {
    let first = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(10 min) \
        GROUP BY floor OUTPUT FIRST EVERY 1 min";
    let h = floor_running(first).await;
    room(&h, "Room1", "20").await;
    wait_for(&h, "1", "Floor", "temperature", "20.0").await;
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(59_999);
    room(&h, "Room1", "26").await;
    let reply = floor_reply(&h).await;
    let element = &reply["contextResponses"][0]["contextElement"];
    assert_eq!(attr_value(element, "temperature"), Some(json!("20.0")), "the minute's later averages dropped");
    h.clock.advance_ms(1);
    room(&h, "Room2", "24").await;
    wait_for(&h, "1", "Floor", "temperature", "23.0").await;
}

/// The default `OUTPUT EVERY 10 sec` on the floor average: nothing before the tick, then the rows of the interval's
/// changes in order, so the floor ends at the last one.
#[tokio::test]
async fn a_floor_s_averages_of_ten_seconds_are_written_at_the_tick() {
    let every = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(10 min) \
        GROUP BY floor OUTPUT EVERY 10 sec";
    let h = floor_running(every).await;
    room(&h, "Room1", "20").await;
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(9_999);
    no_floor(&h, "before the tick").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "21.0").await;
}

/// `OUTPUT ALL EVERY 10 sec` of a floor statement with an ungrouped column (each room's distance from its floor's
/// average): the rooms' rows at the tick, in order, and at the next tick, with no room in between, the floor's row
/// again from its last room, over what was written to the floor meanwhile.
#[tokio::test]
async fn a_floor_s_row_from_its_last_room_is_written_at_every_tick() {
    let all = "INSERT INTO Floor SELECT floor as id, avg(temperature) - temperature as temperature FROM \
        Room.win:time(10 min) GROUP BY floor OUTPUT ALL EVERY 10 sec";
    let h = floor_running(all).await;
    room(&h, "Room1", "20").await;
    room(&h, "Room2", "23").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "-1.5").await;
    h.update("APPEND", "1", "Floor", &[("temperature", "double", "99")]).await;
    let reply = floor_reply(&h).await;
    assert_eq!(attr_value(&reply["contextResponses"][0]["contextElement"], "temperature"), Some(json!("99")));
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "-1.5").await;
}

/// Cepheus's `OUTPUT AFTER 10 sec LAST EVERY 10 sec`: nothing in the statement's first 10 seconds; the output clock
/// starts at the first room after them, and its first tick, 10 s later, averages the room before them too.
#[tokio::test]
async fn output_after_waits_then_starts_the_floor_s_clock_at_the_next_room() {
    let after = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(10 min) \
        GROUP BY floor OUTPUT AFTER 10 sec LAST EVERY 10 sec";
    let h = floor_running(after).await;
    room(&h, "Room1", "20").await;
    h.clock.advance_ms(10_000);
    no_floor(&h, "10 s after the first room").await;
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(9_999);
    no_floor(&h, "before the first tick").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "21.0").await;
}

/// `OUTPUT SNAPSHOT` without aggregates republishes the view's rows at every tick, changed or not: the last room of
/// the floor, written again after the entity was overwritten and no room arrived since.
#[tokio::test]
async fn a_snapshot_republishes_the_last_room_of_the_floor_at_every_tick() {
    let snapshot = "INSERT INTO Floor SELECT floor as id, temperature FROM Room.std:unique(floor) OUTPUT SNAPSHOT \
        EVERY 10 sec";
    let h = floor_running(snapshot).await;
    room(&h, "Room1", "20").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "20.0").await;
    room(&h, "Room2", "22").await;
    let overwrite = || h.update("APPEND", "1", "Floor", &[("temperature", "double", "0")]);
    overwrite().await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "22.0").await;
    overwrite().await;
    wait_for(&h, "1", "Floor", "temperature", "0").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "22.0").await;
}

/// A join that aggregates each probe's rooms afresh, and a pattern that counts each floor's swings, as a user would
/// post them: the probe's floor entity carries the average of the floor's rooms at that moment, the swing count grows.
#[tokio::test]
async fn a_probe_averages_its_floor_s_rooms_and_a_pattern_counts_each_floor_s_swings() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let config = json!({"host": "http://localhost:8080",
        "in": rooms_and_probes("floor"),
        "out": [{"id": "Floor1", "type": "Floor", "brokers": [{"url": format!("http://{OWN}/cb")}],
                 "attributes": [{"name": "temperature", "type": "double"}, {"name": "rooms", "type": "int"}]},
                {"id": "Swing1", "type": "Swing", "brokers": [{"url": format!("http://{OWN}/cb")}],
                 "attributes": [{"name": "swings", "type": "int"}]}],
        "statements": [
            "INSERT INTO Floor SELECT p.floor as id, count(r.temperature) as rooms, avg(r.temperature) as \
             temperature FROM Probe as p unidirectional LEFT OUTER JOIN Room.std:unique(id) as r ON p.floor = r.floor \
             GROUP BY p.floor",
            "INSERT INTO Swing SELECT a.floor as id, count(*) as swings FROM pattern [every a=Room(temperature > 25) -> \
             Room(id = a.id, temperature < 20)] GROUP BY a.floor"]});
    assert_eq!(post_config(&h, config).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    subscribe(&h, "Probe", "Probe.*", "floor").await;
    let probe = |id: &'static str| h.update("APPEND", id, "Probe", &[("floor", "string", "1")]);
    probe("Probe0").await;
    wait_for(&h, "1", "Floor", "rooms", "0").await;
    for (id, temperature) in [("Room1", "30"), ("Room2", "20"), ("Room1", "18")] {
        room(&h, id, temperature).await;
    }
    wait_for(&h, "1", "Swing", "swings", "1").await;
    probe("Probe1").await;
    wait_for(&h, "1", "Floor", "rooms", "2").await;
    wait_for(&h, "1", "Floor", "temperature", "19.0").await;
    for temperature in ["30", "10"] {
        room(&h, "Room1", temperature).await;
    }
    wait_for(&h, "1", "Swing", "swings", "2").await;
    probe("Probe2").await;
    wait_for(&h, "1", "Floor", "temperature", "15.0").await;
}

/// A join looking up a named window, as a user would post it: a probe of a room reads the room's last warm reading,
/// which the window keeps while the room's later cool readings pass it by; and the join changed in a configuration
/// posted later reads the rows the kept window holds.
#[tokio::test]
async fn a_probe_reads_a_room_s_last_warm_reading_from_a_named_window() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let config = |reading: &str| {
        json!({"host": "http://localhost:8080",
        "in": rooms_and_probes("room"),
        "out": [{"id": "Warmest", "type": "Reading", "brokers": [{"url": format!("http://{OWN}/cb")}],
                 "attributes": [{"name": "temperature", "type": "double"}]}],
        "statements": [
            "CREATE WINDOW Warm.std:unique(id) as Room",
            "INSERT INTO Warm SELECT * FROM Room(temperature > 25)",
            format!("INSERT INTO Reading SELECT p.room as id, {reading} as temperature FROM Probe as p unidirectional \
             LEFT OUTER JOIN Warm as w ON p.room = w.id")]})
    };
    assert_eq!(post_config(&h, config("w.temperature")).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    subscribe(&h, "Probe", "Probe.*", "room").await;
    let probe = |id: &'static str| h.update("APPEND", id, "Probe", &[("room", "string", "Room1")]);
    for temperature in ["30", "18"] {
        room(&h, "Room1", temperature).await;
    }
    probe("Probe0").await;
    wait_for(&h, "Room1", "Reading", "temperature", "30.0").await;
    room(&h, "Room1", "27").await;
    probe("Probe1").await;
    wait_for(&h, "Room1", "Reading", "temperature", "27.0").await;
    assert_eq!(post_config(&h, config("w.temperature * 2")).await.status, StatusCode::CREATED);
    probe("Probe2").await;
    wait_for(&h, "Room1", "Reading", "temperature", "54.0").await;
}

/// `OUTPUT FIRST EVERY` on a pattern throttles its alerts: the first swing of the minute is written at once, the next
/// ones dropped until the minute has passed.
#[tokio::test]
async fn a_pattern_s_first_row_of_each_minute_is_written_and_the_others_dropped() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let swings = "INSERT INTO Floor SELECT a.floor as id, b.temperature as temperature FROM pattern [every \
        a=Room(temperature > 25) -> b=Room(id = a.id, temperature < 20)] OUTPUT FIRST EVERY 1 min";
    assert_eq!(post_config(&h, floor_with(swings)).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    swing(&h, "18").await;
    wait_for(&h, "1", "Floor", "temperature", "18.0").await;
    swing(&h, "15").await;
    h.clock.advance_ms(59_000);
    swing(&h, "14").await;
    wait_for(&h, "1", "Floor", "temperature", "18.0").await;
    h.clock.advance_ms(1_000);
    swing(&h, "12").await;
    wait_for(&h, "1", "Floor", "temperature", "12.0").await;
}

/// `OUTPUT LAST EVERY 10 sec` on a pattern counting a floor's swings: nothing before the first tick, then the count
/// the tick finds; swings in the next interval show only at its tick, as their last count.
#[tokio::test]
async fn a_floor_s_swing_count_is_written_at_each_tick() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let swings = "INSERT INTO Floor SELECT a.floor as id, count(*) * 1.0 as temperature FROM pattern [every \
        a=Room(temperature > 25) -> Room(id = a.id, temperature < 20)] GROUP BY a.floor OUTPUT LAST EVERY 10 sec";
    assert_eq!(post_config(&h, floor_with(swings)).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    swing(&h, "18").await;
    h.clock.advance_ms(9_999);
    no_floor(&h, "before the tick").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "1.0").await;
    swing(&h, "15").await;
    swing(&h, "14").await;
    h.clock.advance_ms(9_999);
    settle().await;
    let reply = floor_reply(&h).await;
    let element = &reply["contextResponses"][0]["contextElement"];
    assert_eq!(attr_value(element, "temperature"), Some(json!("1.0")), "the interval's counts wait for its tick");
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "3.0").await;
}

/// A pattern of timers alone starts with its statement: it counts every ten seconds, with no event at all.
#[tokio::test]
async fn a_pattern_of_timers_alone_counts_every_ten_seconds_with_no_event() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let ticks = "INSERT INTO Floor SELECT 'ticks' as id, count(*) * 1.0 as temperature FROM pattern [every \
        timer:interval(10 sec)]";
    assert_eq!(post_config(&h, floor_with(ticks)).await.status, StatusCode::CREATED);
    h.clock.advance_ms(10_000);
    wait_for(&h, "ticks", "Floor", "temperature", "1.0").await;
    h.clock.advance_ms(20_000);
    wait_for(&h, "ticks", "Floor", "temperature", "3.0").await;
}

/// A quiet spell that a warm reading breaks starts again, as Esper's `every` restarts what turned false: the first
/// ends at 10 s; a warm reading at 15 s ends the second, so the next ends at 25 s, and a cold reading at 24 s (which
/// another statement writes, after anything due before it) finds the count still 1. The same configuration has an
/// `every` over an `and` of `not`s, true as it starts, which quits instead of looping.
#[tokio::test]
async fn a_quiet_spell_a_warm_reading_breaks_starts_again() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let mut config = seed("floor-average");
    config["statements"] = json!([
        "INSERT INTO Floor SELECT 'quiet' as id, count(*) * 1.0 as temperature FROM pattern [every \
         (timer:interval(10 sec) and not Room(temperature > 0))]",
        "INSERT INTO Floor SELECT 'never' as id, 0.0 as temperature FROM pattern [every (not Room(temperature > 50) \
         and not Room(temperature < -50))]",
        "INSERT INTO Floor SELECT id, temperature FROM Room(temperature < 0)"
    ]);
    assert_eq!(post_config(&h, config).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "quiet", "Floor", "temperature", "1.0").await;
    h.clock.advance_ms(5_000);
    room(&h, "Room1", "20").await;
    h.clock.advance_ms(9_000);
    room(&h, "Room9", "-1").await;
    wait_for(&h, "Room9", "Floor", "temperature", "-1.0").await;
    wait_for(&h, "quiet", "Floor", "temperature", "1.0").await;
    h.clock.advance_ms(1_000);
    wait_for(&h, "quiet", "Floor", "temperature", "2.0").await;
    let never = json!({"entities": [{"type": "Floor", "isPattern": "false", "id": "never"}]});
    let reply = h.json(Method::POST, "/cb/v1/queryContext", &[], Some(never)).await;
    assert_eq!(reply.body["errorCode"]["code"], json!("404"), "the looping `every` matched nothing: {}", reply.body);
}

/// `OUTPUT FIRST EVERY` on a join: the minute's first probe is answered at once, with every row it joins (both warm
/// rooms of the floor), and the minute's later probes are dropped until the minute has passed. Each probe also
/// writes a reading of its own, without a policy, after the join's rows: once it is there, so would the join's be.
#[tokio::test]
async fn a_join_s_first_probe_of_each_minute_is_answered_and_the_others_dropped() {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let config = json!({"host": "http://localhost:8080",
        "in": rooms_and_probes("floor"),
        "out": [{"id": "Warmest", "type": "Reading", "brokers": [{"url": format!("http://{OWN}/cb")}],
                 "attributes": [{"name": "temperature", "type": "double"}]}],
        "statements": [
            "INSERT INTO Reading SELECT r.id as id, r.temperature as temperature FROM Probe as p unidirectional \
             LEFT OUTER JOIN Room(temperature > 25).std:unique(id) as r ON p.floor = r.floor OUTPUT FIRST EVERY 1 min",
            "INSERT INTO Reading SELECT id, 0.0 as temperature FROM Probe"]});
    assert_eq!(post_config(&h, config).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    subscribe(&h, "Probe", "Probe.*", "floor").await;
    let probe = |id: &'static str| h.update("APPEND", id, "Probe", &[("floor", "string", "1")]);
    room(&h, "Room1", "30").await;
    room(&h, "Room2", "28").await;
    probe("Probe0").await;
    wait_for(&h, "Room1", "Reading", "temperature", "30.0").await;
    wait_for(&h, "Room2", "Reading", "temperature", "28.0").await;
    room(&h, "Room1", "31").await;
    probe("Probe1").await;
    wait_for(&h, "Probe1", "Reading", "temperature", "0.0").await;
    let room1 = json!({"entities": [{"type": "Reading", "isPattern": "false", "id": "Room1"}]});
    let reply = h.json(Method::POST, "/cb/v1/queryContext", &[], Some(room1)).await;
    let element = &reply.body["contextResponses"][0]["contextElement"];
    assert_eq!(attr_value(element, "temperature"), Some(json!("30.0")), "Probe1's rows dropped: {}", reply.body);
    h.clock.advance_ms(60_000);
    room(&h, "Room2", "29").await;
    probe("Probe2").await;
    wait_for(&h, "Room2", "Reading", "temperature", "29.0").await;
    wait_for(&h, "Room1", "Reading", "temperature", "31.0").await;
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
    let statements = h.get("/cep/v1/admin/statements").await;
    assert_eq!(statements[0]["text"], seed("floor-average")["statements"][0]);
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

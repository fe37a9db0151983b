//! Probes answered by joins, patterns counting swings and quiet spells, and their output policies, end to end.

use super::*;

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

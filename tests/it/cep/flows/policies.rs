//! The floor's flows under each output policy, batch window and `SELECT RSTREAM`, posted as a user would and read
//! back from the broker on the manual clock.

use super::*;

/// A time batch writes each floor's sum when its period ends, not before; a statement the runtime cannot run (one
/// that paces the remove stream of a batch window's aggregates, `SELECT RSTREAM ... OUTPUT`) is refused with its
/// construct named, and the running one goes on.
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
    let refused = "SELECT RSTREAM with aggregates under an OUTPUT policy over a batch window";
    assert_eq!(details, format!("statement 1: {refused} is not supported"));
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

/// `OUTPUT LAST EVERY 3 EVENTS` on a floor's average over a 10-second window: the third reading writes the floor's
/// average as it then stands, and so do three readings leaving together: at 10 s the floor is written with the one
/// reading left, which came alone at 5 s.
#[tokio::test]
async fn a_floor_s_average_is_written_every_third_reading_and_when_three_leave() {
    let counted = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room.win:time(10 sec) \
        GROUP BY floor OUTPUT LAST EVERY 3 EVENTS";
    let h = floor_running(counted).await;
    room(&h, "Room1", "20").await;
    room(&h, "Room2", "22").await;
    no_floor(&h, "after two readings").await;
    room(&h, "Room3", "30").await;
    wait_for(&h, "1", "Floor", "temperature", "24.0").await;
    h.clock.advance_ms(5_000);
    room(&h, "Room1", "26").await;
    h.clock.advance_ms(5_000);
    wait_for(&h, "1", "Floor", "temperature", "26.0").await;
}

/// `SELECT RSTREAM` of a floor's average under `OUTPUT LAST EVERY 5 sec`: each tick writes the average as it stood
/// before the interval's first reading of the floor (Esper's remove stream under a policy), not as the interval left
/// it: 20 at 10 s (Room2's 22 came at 6 s, Room1's 30 after it), then 24 at 15 s (before Room2's 40 at 12 s).
#[tokio::test]
async fn the_remove_stream_of_a_floor_s_average_writes_it_as_it_stood_before_the_interval() {
    let before = "INSERT INTO Floor SELECT RSTREAM floor as id, avg(temperature) as temperature FROM \
        Room.win:time(1 min) GROUP BY floor OUTPUT LAST EVERY 5 sec";
    let h = floor_running(before).await;
    room(&h, "Room1", "20").await;
    h.clock.advance_ms(6_000);
    room(&h, "Room2", "22").await;
    room(&h, "Room1", "30").await;
    h.clock.advance_ms(4_000);
    wait_for(&h, "1", "Floor", "temperature", "20.0").await;
    h.clock.advance_ms(2_000);
    room(&h, "Room2", "40").await;
    h.clock.advance_ms(3_000);
    wait_for(&h, "1", "Floor", "temperature", "24.0").await;
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

/// `OUTPUT SNAPSHOT EVERY 10 sec` on the floor's average over each room's last pair of readings, as Esper's snapshot
/// iterates the view: the batches being collected. The first pair released starts the clock; a tick writes the
/// average over the pairs released of each floor with a reading waiting in a batch, changed or not, and nothing once
/// no reading waits.
#[tokio::test]
async fn a_floor_with_a_reading_waiting_gets_its_average_at_every_tick() {
    let snapshot = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM \
        Room.std:groupwin(id).win:length_batch(2) GROUP BY floor OUTPUT SNAPSHOT EVERY 10 sec";
    let h = floor_running(snapshot).await;
    for (id, temperature) in [("Room1", "20"), ("Room1", "24"), ("Room2", "22"), ("Room2", "26"), ("Room1", "30")] {
        room(&h, id, temperature).await;
    }
    h.clock.advance_ms(9_999);
    no_floor(&h, "before the first tick").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "23.0").await;
    h.update("APPEND", "1", "Floor", &[("temperature", "double", "99")]).await;
    h.clock.advance_ms(10_000);
    wait_for(&h, "1", "Floor", "temperature", "23.0").await;
    room(&h, "Room1", "31").await;
    h.update("APPEND", "1", "Floor", &[("temperature", "double", "99")]).await;
    h.clock.advance_ms(10_000);
    settle().await;
    let reply = floor_reply(&h).await;
    let element = &reply["contextResponses"][0]["contextElement"];
    assert_eq!(attr_value(element, "temperature"), Some(json!("99")), "no reading waits: {reply}");
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

/// `win:ext_timed` over the time each room measured its reading (a `date`): the floor's average over the last minute
/// of the rooms' own time, whatever the gateway's clock, which never moves here. A late reading (measured before the
/// others) joins the average; a reading a minute past the oldest pushes that one out, and only from the oldest on, as
/// Esper's window does: the late one, behind a newer reading, stays until that one goes.
#[tokio::test]
async fn a_floor_s_average_follows_the_time_its_rooms_measured() {
    let stamped = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM \
        Room.win:ext_timed(measured, 1 min) GROUP BY floor";
    let h = measured_floor_running(stamped).await;
    // Each reading (room, temperature, measured) and the floor's average once it is in.
    let readings = [
        ("Room1", "20", "2026-12-06T10:00:00Z", "20.0"),
        ("Room2", "30", "2026-12-06T10:00:30Z", "25.0"),
        ("Room3", "40", "2026-12-06T09:59:50Z", "30.0"),
        ("Room1", "26", "2026-12-06T10:01:00.001Z", "32.0"),
        ("Room4", "14", "2026-12-06T10:01:29.999Z", "27.5"),
        ("Room2", "20", "2026-12-06T10:01:30Z", "20.0"),
    ];
    for (id, temperature, measured, average) in readings {
        measured_reading(&h, id, temperature, measured).await;
        wait_for(&h, "1", "Floor", "temperature", average).await;
    }
}

/// A gateway running the floor seed with `statement` in place of its own, its rooms declaring `measured`, a `date`,
/// and subscribed to the CEP.
async fn measured_floor_running(statement: &str) -> Harness {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    let mut config = floor_with(statement);
    config["in"][0]["attributes"].as_array_mut().unwrap().push(json!({"name": "measured", "type": "date"}));
    assert_eq!(post_config(&h, config).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    h
}

/// A reading of floor 1 by `updateContext`, with the time it was `measured`.
async fn measured_reading(h: &Harness, id: &str, temperature: &str, measured: &str) {
    let attributes = [("temperature", "double", temperature), ("floor", "string", "1"), ("measured", "date", measured)];
    h.update("APPEND", id, "Room", &attributes).await;
    settle().await;
}

/// `ext:time_order` over the time each room measured its reading (a `date`): every second, a floor's average over the
/// readings measured in the last 10 seconds of the gateway's clock. A reading that comes late stays 10 seconds from
/// when it was measured, not from when it came; one measured more than 10 seconds ago comes and goes at once.
#[tokio::test]
async fn a_floor_s_average_keeps_each_reading_ten_seconds_from_when_it_was_measured() {
    let ordered = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM \
        Room.ext:time_order(measured, 10 sec) GROUP BY floor OUTPUT LAST EVERY 1 sec";
    let h = measured_floor_running(ordered).await;
    let reading = |id, temperature, measured| measured_reading(&h, id, temperature, measured);
    // The manual clock starts at 2023-11-14T22:13:20Z (T), and the output clock with the first reading.
    reading("Room1", "20", "2023-11-14T22:13:20Z").await;
    reading("Room2", "30", "2023-11-14T22:13:16.500Z").await;
    reading("Room3", "40", "2023-11-14T22:13:09Z").await;
    h.clock.advance_ms(1_000);
    wait_for(&h, "1", "Floor", "temperature", "25.0").await;
    // Room2's reading leaves at T + 6.5 s, ten seconds after it was measured.
    h.clock.advance_ms(5_000);
    settle().await;
    wait_for(&h, "1", "Floor", "temperature", "25.0").await;
    h.clock.advance_ms(1_000);
    wait_for(&h, "1", "Floor", "temperature", "20.0").await;
    h.clock.advance_ms(1_000);
    reading("Room4", "12", "2023-11-14T22:13:28Z").await;
    h.clock.advance_ms(1_000);
    wait_for(&h, "1", "Floor", "temperature", "16.0").await;
    // Room1's leaves at T + 10 s.
    h.clock.advance_ms(2_000);
    wait_for(&h, "1", "Floor", "temperature", "12.0").await;
}

/// `win:time_accum(10 sec)` per floor: a floor counts its readings while they keep coming, and all leave together once
/// 10 seconds pass without one, not each 10 seconds after it came, as in a time window.
#[tokio::test]
async fn a_floor_s_readings_leave_together_once_it_is_quiet_for_ten_seconds() {
    let accumulating = "INSERT INTO Floor SELECT floor as id, count(*) * 1.0 as temperature FROM \
        Room.std:groupwin(floor).win:time_accum(10 sec) GROUP BY floor OUTPUT LAST EVERY 1 sec";
    let h = floor_running(accumulating).await;
    room(&h, "Room1", "20").await;
    h.clock.advance_ms(6_000);
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(6_000);
    room(&h, "Room3", "24").await;
    h.clock.advance_ms(1_000);
    wait_for(&h, "1", "Floor", "temperature", "3.0").await;
    // Twenty-two seconds in, ten after the last reading, all three leave.
    h.clock.advance_ms(8_999);
    settle().await;
    wait_for(&h, "1", "Floor", "temperature", "3.0").await;
    h.clock.advance_ms(1);
    wait_for(&h, "1", "Floor", "temperature", "0.0").await;
}

/// Runs `statement` (writing `Floor`) on readings sent as `updateContext`, each (room, floor, temperature) followed
/// by the `Floor` temperature it must give its floor.
async fn floor_temperatures_after_readings(statement: &str, readings: &[(&str, &str, &str, &str)]) {
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    assert_eq!(post_config(&h, floor_with(statement)).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    for (id, floor, temperature, expected) in readings {
        h.update("APPEND", id, "Room", &[("temperature", "double", temperature), ("floor", "string", floor)]).await;
        settle().await;
        wait_for(&h, floor, "Floor", "temperature", expected).await;
    }
}

/// `min(x) - minever(x)`: how far the coldest of the last two readings is above the coldest reading ever, which
/// `minever` keeps after it left the window.
#[tokio::test]
async fn the_coldest_reading_ever_outlives_the_window() {
    let above = "INSERT INTO Floor SELECT '1' as id, min(temperature) - minever(temperature) as temperature FROM \
        Room.win:length(2)";
    // 20 leaves the window at the third reading.
    let readings = [
        ("Room1", "1", "20", "0.0"),
        ("Room2", "1", "23", "0.0"),
        ("Room3", "1", "21", "1.0"),
        ("Room1", "1", "26", "1.0"),
        ("Room2", "1", "25", "5.0"),
    ];
    floor_temperatures_after_readings(above, &readings).await;
}

/// `maxever(x)` per floor over the last two readings: a floor keeps its warmest reading ever while it has one in the
/// window, and starts afresh once it had none, at the next reading (as Esper forgets a group then).
#[tokio::test]
async fn a_floor_s_warmest_reading_ever_lasts_while_the_floor_has_a_reading_in_the_window() {
    let warmest = "INSERT INTO Floor SELECT floor as id, maxever(temperature) as temperature FROM Room.win:length(2) \
        GROUP BY floor";
    // Floor 1 has no reading in the window after the third, so its fourth starts it afresh; floor 2 always has one,
    // and keeps 30 after it left.
    let readings = [
        ("Room1", "1", "24", "24.0"),
        ("Room2", "2", "30", "30.0"),
        ("Room3", "2", "25", "30.0"),
        ("Room1", "1", "22", "22.0"),
        ("Room2", "2", "21", "30.0"),
    ];
    floor_temperatures_after_readings(warmest, &readings).await;
}

/// `x - nth(x, 1)` per floor, over no data window: how much a floor's reading changed since the one before, which
/// `nth` keeps (0 at a floor's first reading, by `coalesce`).
#[tokio::test]
async fn a_floor_s_step_is_its_reading_less_the_one_before() {
    let step = "INSERT INTO Floor SELECT floor as id, coalesce(temperature - nth(temperature, 1), 0.0) as temperature \
        FROM Room GROUP BY floor";
    let readings = [
        ("Room1", "1", "20", "0.0"),
        ("Room2", "1", "23", "3.0"),
        ("Room3", "2", "30", "0.0"),
        ("Room1", "1", "22", "-1.0"),
        ("Room2", "2", "26", "-4.0"),
    ];
    floor_temperatures_after_readings(step, &readings).await;
}

/// `min(x)` over `ext:sort(3, x desc)` per floor: the coolest of a floor's three warmest readings. A reading cooler
/// than all three is pushed out as it comes, and leaves the floor's value as it was.
#[tokio::test]
async fn a_floor_s_value_is_the_coolest_of_its_three_warmest_readings() {
    let coolest = "INSERT INTO Floor SELECT floor as id, min(temperature) as temperature FROM \
        Room.std:groupwin(floor).ext:sort(3, temperature desc) GROUP BY floor";
    let readings = [
        ("Room1", "1", "20", "20.0"),
        ("Room2", "1", "25", "20.0"),
        ("Room3", "1", "18", "18.0"),
        ("Room4", "1", "22", "20.0"),
        ("Room5", "1", "15", "20.0"),
        ("Room6", "2", "15", "15.0"),
    ];
    floor_temperatures_after_readings(coolest, &readings).await;
}

/// `avg(x)` over `ext:rank(id, 2, x desc)`: the mean of the two warmest rooms' latest readings as they come. A room's
/// new reading replaces its old one; a reading cooler than both held is pushed out at once.
#[tokio::test]
async fn a_floor_s_value_is_the_mean_of_the_two_rooms_ranked_warmest() {
    let ranked = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM \
        Room.ext:rank(id, 2, temperature desc) GROUP BY floor";
    let readings = [
        ("Room1", "1", "20", "20.0"),
        ("Room2", "1", "30", "25.0"),
        ("Room3", "1", "10", "25.0"),
        ("Room1", "1", "26", "28.0"),
        ("Room2", "1", "12", "19.0"),
    ];
    floor_temperatures_after_readings(ranked, &readings).await;
}

/// `last(x) - first(x)`: how much a floor's temperature rose over its last three readings, read off the newest and
/// the oldest in the window as readings come and push the oldest out.
#[tokio::test]
async fn a_floor_s_rise_is_its_newest_reading_less_its_oldest() {
    let rise = "INSERT INTO Floor SELECT floor as id, last(temperature) - first(temperature) as temperature FROM \
        Room.win:length(3) GROUP BY floor";
    let readings = [
        ("Room1", "1", "20", "0.0"),
        ("Room2", "1", "23", "3.0"),
        ("Room3", "1", "21", "1.0"),
        ("Room1", "1", "26", "3.0"),
        ("Room2", "1", "19", "-2.0"),
    ];
    floor_temperatures_after_readings(rise, &readings).await;
}

/// `rate(time)` over a floor's last three readings: readings a second between the `time` (the readings' own) of the
/// one that left the window last and that of the newest; null, which writes nothing, until one left.
#[tokio::test]
async fn a_floor_s_readings_a_second_by_their_own_time() {
    let rate = "INSERT INTO Floor SELECT floor as id, rate(time) as temperature FROM Room.win:length(3) GROUP BY floor";
    let mut config = floor_with(rate);
    config["in"][0]["attributes"].as_array_mut().expect("attributes").push(json!({"name": "time", "type": "date"}));
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    assert_eq!(post_config(&h, config).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    timed(&h, "Room1", 0).await;
    timed(&h, "Room2", 1).await;
    timed(&h, "Room3", 2).await;
    no_floor(&h, "before a reading left the window").await;
    // The reading of 10:00:00 leaves: three readings in the four seconds to 10:00:04.
    timed(&h, "Room1", 4).await;
    wait_for(&h, "1", "Floor", "temperature", "0.75").await;
    // That of 10:00:01 leaves: three in five seconds.
    timed(&h, "Room2", 6).await;
    wait_for(&h, "1", "Floor", "temperature", "0.6").await;
}

/// `current_timestamp()` in a floor's average under `OUTPUT LAST EVERY 10 sec` is the time of the tick that writes the
/// row, as Esper's output reads it, not that of the reading that changed the floor: 10 s after the first reading,
/// though the last came at 4 s, then 20 s.
#[tokio::test]
async fn a_floor_s_average_carries_the_time_of_the_tick_that_wrote_it() {
    let stamped = "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature, current_timestamp() as \
        reported FROM Room.win:time(1 min) GROUP BY floor OUTPUT LAST EVERY 10 sec";
    let mut config = floor_with(stamped);
    config["out"][0]["attributes"]
        .as_array_mut()
        .expect("attributes")
        .push(json!({"name": "reported", "type": "long"}));
    let h = Harness::new().await;
    h.state.sinks.set_listener(OWN.parse().unwrap());
    assert_eq!(post_config(&h, config).await.status, StatusCode::CREATED);
    subscribe(&h, "Room", "Room.*", "temperature").await;
    let started = fluxgate::clock::Clock::now_ms(&*h.clock);
    room(&h, "Room1", "20").await;
    h.clock.advance_ms(4_000);
    room(&h, "Room2", "22").await;
    h.clock.advance_ms(6_000);
    wait_for(&h, "1", "Floor", "reported", &(started + 10_000).to_string()).await;
    wait_for(&h, "1", "Floor", "temperature", "21.0").await;
    h.clock.advance_ms(3_000);
    room(&h, "Room1", "30").await;
    h.clock.advance_ms(7_000);
    wait_for(&h, "1", "Floor", "reported", &(started + 20_000).to_string()).await;
    wait_for(&h, "1", "Floor", "temperature", "24.0").await;
}

/// A reading of `id` on floor 1 at `second` past 10:00 by its `time`, whose temperature changes with it.
async fn timed(h: &Harness, id: &str, second: u32) {
    let (temperature, time) = (format!("2{second}"), format!("2026-12-07T10:00:0{second}.000Z"));
    let attributes =
        [("temperature", "double", temperature.as_str()), ("floor", "string", "1"), ("time", "date", &time)];
    h.update("APPEND", id, "Room", &attributes).await;
    settle().await;
}

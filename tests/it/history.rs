//! The historic store end to end: subscriptions with reference `/sth/notify` feeding it in-process from `/cb/v1`
//! updates at known times (manual clock), raw and every aggregation checked against values computed here, and every
//! bad input of issue 5 with STH-Comet's exact error.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::http::{Method, StatusCode};
use chrono::{DateTime, Datelike, TimeZone, Timelike, Utc};
use fluxgate::history::HistoryOptions;
use serde_json::{Value, json};

use crate::support::{Harness, Reply};

const TENANT: [(&str, &str); 2] = [("platform-service", "default"), ("platform-servicepath", "/")];
const TEMPERATURE: &str = "/sth/type/Room/id/Room1/attributes/temperature";

async fn sth(h: &Harness, method: Method, path: &str) -> Reply {
    h.json(method, path, &TENANT, None).await
}

async fn notify(h: &Harness, body: Value) -> Reply {
    h.json(Method::POST, "/sth/notify", &TENANT, Some(body)).await
}

/// A notification of Room1 with `(name, type, value, TimeInstant metadata)` attributes.
fn notification(attrs: &[(&str, &str, Value, Option<&str>)]) -> Value {
    let attributes: Vec<Value> = attrs
        .iter()
        .map(|(name, attr_type, value, time)| {
            let mut a = json!({"name": name, "type": attr_type, "value": value});
            if let Some(t) = time {
                a["metadatas"] = json!([{"name": "TimeInstant", "type": "ISO8601", "value": t}]);
            }
            a
        })
        .collect();
    json!({"subscriptionId": "5f0000000000000000000001", "originator": "localhost", "contextResponses": [
        {"contextElement": {"type": "Room", "isPattern": "false", "id": "Room1", "attributes": attributes},
         "statusCode": {"code": "200", "reasonPhrase": "OK"}}]})
}

fn values(reply: &Reply) -> &Vec<Value> {
    reply.body["contextResponses"][0]["contextElement"]["attributes"][0]["values"].as_array().expect("values")
}

fn iso(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Where STH puts a sample for a resolution: (origin, offset), computed here from the calendar.
fn place(resolution: &str, t: DateTime<Utc>) -> (String, u32) {
    let day = Utc.with_ymd_and_hms(t.year(), t.month(), t.day(), 0, 0, 0).unwrap();
    match resolution {
        "second" => (iso(day + chrono::Duration::minutes(i64::from(t.hour() * 60 + t.minute()))), t.second()),
        "minute" => (iso(day + chrono::Duration::hours(i64::from(t.hour()))), t.minute()),
        "hour" => (iso(day), t.hour()),
        "day" => (iso(Utc.with_ymd_and_hms(t.year(), t.month(), 1, 0, 0, 0).unwrap()), t.day()),
        _ => (iso(Utc.with_ymd_and_hms(t.year(), 1, 1, 0, 0, 0).unwrap()), t.month()),
    }
}

const RANGES: [(&str, &str); 5] =
    [("second", "minute"), ("minute", "hour"), ("hour", "day"), ("day", "month"), ("month", "year")];

/// The aggregated values STH would answer for `aggrMethod=all` over numeric samples.
fn expected(resolution: &str, samples: &[(DateTime<Utc>, f64)]) -> Value {
    let mut points: BTreeMap<(String, u32), Vec<f64>> = BTreeMap::new();
    for (t, v) in samples {
        points.entry(place(resolution, *t)).or_default().push(*v);
    }
    let range = RANGES.iter().find(|(r, _)| *r == resolution).unwrap().1;
    let mut docs: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for ((origin, offset), vs) in points {
        let (min, max) = vs.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
        let point = json!({"offset": offset, "samples": vs.len(), "min": min, "max": max,
            "sum": vs.iter().sum::<f64>(), "sum2": vs.iter().map(|v| v * v).sum::<f64>()});
        docs.entry(origin).or_default().push(point);
    }
    let docs: Vec<Value> = docs
        .into_iter()
        .map(|(origin, points)| json!({"_id": {"origin": origin, "range": range, "resolution": resolution}, "points": points}))
        .collect();
    Value::Array(docs)
}

/// Equality of JSON values, numbers within 1e-9.
fn assert_close(actual: &Value, expected: &Value, at: &str) {
    match (actual, expected) {
        (Value::Number(a), Value::Number(e)) => {
            let (a, e) = (a.as_f64().unwrap(), e.as_f64().unwrap());
            assert!((a - e).abs() < 1e-9, "{at}: {a} != {e}");
        }
        (Value::Array(a), Value::Array(e)) => {
            assert_eq!(a.len(), e.len(), "{at}: {actual} vs {expected}");
            a.iter().zip(e).enumerate().for_each(|(i, (a, e))| assert_close(a, e, &format!("{at}[{i}]")));
        }
        (Value::Object(a), Value::Object(e)) => {
            assert_eq!(a.keys().collect::<Vec<_>>(), e.keys().collect::<Vec<_>>(), "{at}");
            a.iter().for_each(|(k, v)| assert_close(v, &e[k], &format!("{at}.{k}")));
        }
        _ => assert_eq!(actual, expected, "{at}"),
    }
}

/// Waits until the newest stored temperature is `value`.
async fn stored(h: &Harness, value: &str) {
    for _ in 0..200 {
        let reply = sth(h, Method::GET, &format!("{TEMPERATURE}?lastN=1")).await;
        if values(&reply).first().is_some_and(|v| v["attrValue"] == value) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{value} never reached the history");
}

/// Subscribes `/sth/notify` and updates Room1 through `/cb/v1` at known times; answers (time, value) as sent.
async fn feed(h: &Harness) -> Vec<(DateTime<Utc>, f64)> {
    let base = Utc.with_ymd_and_hms(2026, 3, 14, 13, 43, 20).unwrap();
    h.clock.set_ms(base.timestamp_millis());
    let subscription = json!({"entities": [{"type": "Room", "isPattern": "false", "id": "Room1"}],
        "attributes": ["temperature"], "reference": "/sth/notify", "duration": "P1Y",
        "notifyConditions": [{"type": "ONCHANGE", "condValues": ["temperature"]}]});
    h.post("/cb/v1/subscribeContext", subscription).await;
    let steps: [(i64, &str); 8] = [
        (0, "21.5"),
        (400, "22"),
        (1_000, "0"),
        (61_000, "-3.25"),
        (62_500, "7"),
        (3_600_000, "30"),
        (86_400_000, "18.75"),
        (40 * 86_400_000, "12"),
    ];
    let mut sent = Vec::new();
    for (offset, value) in steps {
        let t = base + chrono::Duration::milliseconds(offset);
        h.clock.set_ms(t.timestamp_millis());
        h.update("APPEND", "Room1", "Room", &[("temperature", "float", value)]).await;
        stored(h, value).await;
        sent.push((t, value.parse().unwrap()));
    }
    sent
}

#[tokio::test]
async fn subscribed_updates_are_kept_raw_and_every_aggregation_matches() {
    let h = Harness::new().await;
    let sent = feed(&h).await;
    let all = sth(&h, Method::GET, &format!("{TEMPERATURE}?hLimit=100&hOffset=0&count=true")).await;
    assert_eq!(all.status, StatusCode::OK);
    assert_eq!(all.headers["platform-total-count"], "8");
    let raw: Vec<(String, String)> =
        values(&all).iter().map(|v| (v["recvTime"].as_str().unwrap().to_owned(), v["attrValue"].to_string())).collect();
    let wanted: Vec<(String, String)> = sent.iter().map(|(t, v)| (iso(*t), json!(v.to_string()).to_string())).collect();
    assert_eq!(raw.iter().map(|r| &r.0).collect::<Vec<_>>(), wanted.iter().map(|w| &w.0).collect::<Vec<_>>());
    assert_eq!(values(&all)[0], json!({"recvTime": iso(sent[0].0), "attrType": "float", "attrValue": "21.5"}));
    assert_eq!(all.body["contextResponses"][0]["contextElement"]["isPattern"], false);
    assert_eq!(all.body["contextResponses"][0]["contextElement"]["type"], "Room");
    for (resolution, _) in RANGES {
        let reply = sth(&h, Method::GET, &format!("{TEMPERATURE}?aggrMethod=all&aggrPeriod={resolution}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{resolution}: {}", reply.text);
        assert_close(&Value::Array(values(&reply).clone()), &expected(resolution, &sent), resolution);
        check_derived_stats(values(&reply), &sent, resolution);
    }
}

/// Average, variance and standard deviation from samples/sum/sum2 equal those of the raw values of each point.
fn check_derived_stats(docs: &[Value], sent: &[(DateTime<Utc>, f64)], resolution: &str) {
    for doc in docs {
        for point in doc["points"].as_array().unwrap() {
            let here: Vec<f64> = sent
                .iter()
                .filter(|(t, _)| {
                    place(resolution, *t)
                        == (doc["_id"]["origin"].as_str().unwrap().to_owned(), point["offset"].as_u64().unwrap() as u32)
                })
                .map(|(_, v)| *v)
                .collect();
            let n = point["samples"].as_f64().unwrap();
            let (sum, sum2) = (point["sum"].as_f64().unwrap(), point["sum2"].as_f64().unwrap());
            let mean = here.iter().sum::<f64>() / here.len() as f64;
            let variance = here.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / here.len() as f64;
            assert!((sum / n - mean).abs() < 1e-9, "average at {resolution}");
            let derived = sum2 / n - (sum / n).powi(2);
            assert!((derived - variance).abs() < 1e-9, "variance at {resolution}");
            assert!((derived.max(0.0).sqrt() - variance.sqrt()).abs() < 1e-6, "stddev at {resolution}");
        }
    }
}

#[tokio::test]
async fn raw_paging_dates_methods_and_csv() {
    let h = Harness::new().await;
    let sent = feed(&h).await;
    let last = sth(&h, Method::GET, &format!("{TEMPERATURE}?lastN=3")).await;
    let got: Vec<&Value> = values(&last).iter().map(|v| &v["attrValue"]).collect();
    assert_eq!(got, [&json!("30"), &json!("18.75"), &json!("12")]);
    let page = sth(&h, Method::GET, &format!("{TEMPERATURE}?hLimit=2&hOffset=1")).await;
    let got: Vec<&Value> = values(&page).iter().map(|v| &v["attrValue"]).collect();
    assert_eq!(got, [&json!("22"), &json!("0")]);
    let (from, to) = (iso(sent[1].0), iso(sent[3].0));
    let dated = sth(&h, Method::GET, &format!("{TEMPERATURE}?lastN=10&dateFrom={from}&dateTo={to}&count=true")).await;
    assert_eq!(values(&dated).len(), 3, "dates are inclusive");
    assert_eq!(dated.headers["platform-total-count"], "3");
    let sum =
        sth(&h, Method::GET, &format!("{TEMPERATURE}?aggrMethod=max,min&aggrPeriod=minute&dateFrom={to}&dateTo={to}"))
            .await;
    assert_eq!(values(&sum)[0]["points"], json!([{"offset": 44, "samples": 2, "min": -3.25, "max": 7.0}]));
    let csv = sth(&h, Method::GET, &format!("{TEMPERATURE}?filetype=csv&lastN=2")).await;
    assert_eq!(csv.headers["content-type"], "text/csv; charset=utf-8");
    let expected = format!(
        "attrName,attrType,attrValue,recvTime\ntemperature,float,18.75,{}\ntemperature,float,12,{}\n",
        iso(sent[6].0),
        iso(sent[7].0)
    );
    assert_eq!(csv.text, expected);
}

#[tokio::test]
async fn text_values_count_occurrences_and_odd_values_stay_raw() {
    let h = Harness::new().await;
    let t = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
    let attrs = [
        ("door", "Text", json!("open"), Some(t(1))),
        ("door", "Text", json!("closed"), Some(t(2))),
        ("door", "Text", json!("open"), Some(t(3))),
        ("door", "Text", json!(true), Some(t(4))),
        ("door", "Text", json!(["a", 1]), Some(t(5))),
        ("door", "Text", json!({"k": "v"}), Some(t(6))),
        ("door", "Text", json!(""), Some(t(7))),
        ("level", "Number", json!(0), Some(t(1))),
        ("level", "Number", json!("0"), Some(t(2))),
        ("level", "Number", json!(23), Some(t(3))),
        ("level", "Number", json!("1e1"), Some(t(4))),
    ];
    let attrs: Vec<(&str, &str, Value, Option<&str>)> =
        attrs.iter().map(|(n, ty, v, time)| (*n, *ty, v.clone(), time.as_deref())).collect();
    assert_eq!(notify(&h, notification(&attrs)).await.status, StatusCode::OK);
    let door = "/sth/type/Room/id/Room1/attributes/door";
    let raw = sth(&h, Method::GET, &format!("{door}?lastN=10")).await;
    let got: Vec<Value> = values(&raw).iter().map(|v| v["attrValue"].clone()).collect();
    assert_eq!(
        got,
        [json!("open"), json!("closed"), json!("open"), json!(true), json!(["a", 1]), json!({"k": "v"}), json!("")]
    );
    let occur = sth(&h, Method::GET, &format!("{door}?aggrMethod=occur&aggrPeriod=minute")).await;
    assert_eq!(
        Value::Array(values(&occur).clone()),
        json!([{"_id": {"origin": "2026-01-01T00:00:00.000Z", "range": "hour", "resolution": "minute"},
            "points": [{"offset": 0, "samples": 3, "occur": {"closed": 1, "open": 2}}]}])
    );
    let level = "/sth/type/Room/id/Room1/attributes/level";
    let sums = sth(&h, Method::GET, &format!("{level}?aggrMethod=sum,sum2&aggrPeriod=hour")).await;
    assert_eq!(values(&sums)[0]["points"], json!([{"offset": 0, "samples": 4, "sum": 33.0, "sum2": 629.0}]));
    let numbers_have_no_occur = sth(&h, Method::GET, &format!("{level}?aggrMethod=occur&aggrPeriod=hour")).await;
    assert_eq!(values(&numbers_have_no_occur), &Vec::<Value>::new());
}

#[tokio::test]
async fn the_same_sample_twice_is_stored_once() {
    let h = Harness::new().await;
    let body = notification(&[("temperature", "float", json!("20"), Some("2026-01-01T00:00:00Z"))]);
    notify(&h, body.clone()).await;
    notify(&h, body).await;
    let other = notification(&[("temperature", "float", json!("21"), Some("2026-01-01T00:00:00Z"))]);
    notify(&h, other).await;
    let raw = sth(&h, Method::GET, &format!("{TEMPERATURE}?lastN=10")).await;
    assert_eq!(values(&raw).len(), 2, "a different value at the same time is another sample");
    let aggr = sth(&h, Method::GET, &format!("{TEMPERATURE}?aggrMethod=sum&aggrPeriod=second")).await;
    assert_eq!(values(&aggr)[0]["points"], json!([{"offset": 0, "samples": 2, "sum": 41.0}]));
}

#[tokio::test]
async fn recv_time_falls_back_to_the_entity_time_instant_then_arrival() {
    let h = Harness::new().await;
    h.clock.set_ms(Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap().timestamp_millis());
    let body = notification(&[
        ("temperature", "float", json!("1"), Some("not a date")),
        ("TimeInstant", "ISO8601", json!("2026-02-03T04:05:06.789Z"), None),
    ]);
    notify(&h, body).await;
    let bad_entity_time = notification(&[
        ("temperature", "float", json!("2"), Some("2026-13-45")),
        ("TimeInstant", "ISO8601", json!("later"), None),
    ]);
    notify(&h, bad_entity_time).await;
    let raw = sth(&h, Method::GET, &format!("{TEMPERATURE}?lastN=10")).await;
    let times: Vec<&Value> = values(&raw).iter().map(|v| &v["recvTime"]).collect();
    assert_eq!(times, [&json!("2026-02-03T04:05:06.789Z"), &json!("2026-05-01T12:00:00.000Z")]);
}

#[tokio::test]
async fn unknown_entities_and_attributes_answer_empty_values() {
    let h = Harness::new().await;
    let reply = sth(&h, Method::GET, "/sth/type/Room/id/Nobody/attributes/temperature?lastN=5&count=true").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.body,
        json!({"contextResponses": [{"contextElement": {"attributes": [{"name": "temperature", "values": []}],
            "id": "Nobody", "isPattern": false, "type": "Room"}, "statusCode": {"code": "200", "reasonPhrase": "OK"}}]})
    );
    assert_eq!(reply.headers["platform-total-count"], "0");
}

#[tokio::test]
async fn deletes_remove_an_attribute_an_entity_or_a_service_path() {
    let h = Harness::new().await;
    let sample = |name: &str, id: &str| {
        let mut body = notification(&[(name, "float", json!("5"), Some("2026-01-01T00:00:00Z"))]);
        body["contextResponses"][0]["contextElement"]["id"] = json!(id);
        body
    };
    for (name, id) in [("temperature", "Room1"), ("humidity", "Room1"), ("temperature", "Room2")] {
        notify(&h, sample(name, id)).await;
    }
    let count = |path: &'static str| {
        let h = &h;
        async move { values(&sth(h, Method::GET, &format!("{path}?lastN=5")).await).len() }
    };
    let deleted = sth(&h, Method::DELETE, TEMPERATURE).await;
    assert_eq!((deleted.status, deleted.text.as_str()), (StatusCode::NO_CONTENT, ""));
    assert_eq!(count(TEMPERATURE).await, 0);
    assert_eq!(count("/sth/type/Room/id/Room1/attributes/humidity").await, 1);
    assert_eq!(sth(&h, Method::DELETE, "/sth/type/Room/id/Room1").await.status, StatusCode::NO_CONTENT);
    assert_eq!(count("/sth/type/Room/id/Room1/attributes/humidity").await, 0);
    assert_eq!(count("/sth/type/Room/id/Room2/attributes/temperature").await, 1);
    assert_eq!(sth(&h, Method::DELETE, "/sth").await.status, StatusCode::NO_CONTENT);
    assert_eq!(count("/sth/type/Room/id/Room2/attributes/temperature").await, 0);
    assert_eq!(sth(&h, Method::DELETE, "/sth").await.status, StatusCode::NO_CONTENT, "nothing left is still 204");
    notify(&h, sample("temperature", "Room1")).await;
    assert_eq!(count(TEMPERATURE).await, 1, "a deleted series can be written again");
}

#[tokio::test]
async fn retention_purges_old_samples_and_rollups() {
    let options = HistoryOptions { retention: Some("1d".parse().unwrap()), ..HistoryOptions::default() };
    let h = Harness::with_history(options).await;
    h.clock.set_ms(Utc.with_ymd_and_hms(2026, 1, 3, 12, 0, 0).unwrap().timestamp_millis());
    let old = notification(&[("temperature", "float", json!("1"), Some("2026-01-01T00:00:00Z"))]);
    let recent = notification(&[("temperature", "float", json!("2"), Some("2026-01-03T11:00:00Z"))]);
    notify(&h, old).await;
    notify(&h, recent).await;
    // The periodic purge may have run first; either way the old sample must be gone afterwards.
    h.state.history.purge_expired().await.unwrap();
    let raw = sth(&h, Method::GET, &format!("{TEMPERATURE}?lastN=10")).await;
    assert_eq!(values(&raw).len(), 1);
    let hourly = sth(&h, Method::GET, &format!("{TEMPERATURE}?aggrMethod=sum&aggrPeriod=hour")).await;
    assert_eq!(values(&hourly).len(), 1);
    assert_eq!(values(&hourly)[0]["_id"]["origin"], "2026-01-03T00:00:00.000Z");
}

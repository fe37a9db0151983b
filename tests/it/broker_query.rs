//! `queryContext`: patterns, attribute projection, pagination and its URI errors, invalid patterns.

use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::support::Harness;

const QC: &str = "/cb/v1/queryContext";

async fn rooms(h: &Harness, n: usize) {
    for i in 1..=n {
        h.update(
            "APPEND",
            &format!("Room{i}"),
            "Room",
            &[("temperature", "float", "20"), ("pressure", "integer", "700")],
        )
        .await;
    }
}

fn ids(body: &serde_json::Value) -> Vec<String> {
    body["contextResponses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["contextElement"]["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn patterns_match_unanchored_and_attributes_are_projected() {
    let h = Harness::new().await;
    rooms(&h, 3).await;
    h.update("APPEND", "MyRoom9", "Office", &[("temperature", "float", "1")]).await;
    let body = h
        .post(
            QC,
            json!({"entities": [{"type": "Room", "isPattern": "true", "id": "Room"}], "attributes": ["temperature"]}),
        )
        .await;
    assert_eq!(ids(&body), ["Room1", "Room2", "Room3"]);
    assert_eq!(
        body["contextResponses"][0]["contextElement"]["attributes"],
        json!([{"name": "temperature", "type": "float", "value": "20"}])
    );
    let any_type = h.post(QC, json!({"entities": [{"isPattern": "true", "id": "Room"}]})).await;
    assert_eq!(ids(&any_type), ["Room1", "Room2", "Room3", "MyRoom9"]);
}

#[tokio::test]
async fn entities_lacking_the_requested_attributes_are_not_found() {
    let h = Harness::new().await;
    rooms(&h, 1).await;
    let body = h.post(QC, json!({"entities": [{"id": "Room1"}], "attributes": ["humidity"]})).await;
    assert_eq!(body, json!({"errorCode": {"code": "404", "reasonPhrase": "No context element found"}}));
}

#[tokio::test]
async fn pagination_limit_offset_and_details() {
    let h = Harness::new().await;
    rooms(&h, 5).await;
    let page = h
        .post(&format!("{QC}?limit=2&offset=1&details=on"), json!({"entities": [{"id": ".*", "isPattern": "true"}]}))
        .await;
    assert_eq!(ids(&page), ["Room2", "Room3"]);
    assert_eq!(page["errorCode"], json!({"code": "200", "details": "Count: 5", "reasonPhrase": "OK"}));
    let past = h.post(&format!("{QC}?offset=1000"), json!({"entities": [{"id": ".*", "isPattern": "true"}]})).await;
    assert_eq!(past["errorCode"]["details"], "Number of matching entities: 5. Offset is 1000");
    let default_page = h.get("/cb/v1/contextEntities").await;
    assert_eq!(ids(&default_page).len(), 5);
}

#[tokio::test]
async fn bad_pagination_parameters_are_http_400() {
    let h = Harness::new().await;
    let cases = [
        ("limit=abc", "Bad pagination limit: /abc/ [must be a positive integer number]"),
        ("limit=1001", "Bad pagination limit: /1001/ [max: 1000]"),
        ("offset=qwe", "Bad pagination offset: /qwe/ [must be a decimal number]"),
        ("details=Yes", "Bad value for /details/: /Yes/ [accepted: /on/, /ON/, /off/, /OFF/. Default is /off/]"),
    ];
    for (params, details) in cases {
        let reply =
            h.json(Method::POST, &format!("{QC}?{params}"), &[], Some(json!({"entities": [{"id": "x"}]}))).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{params}");
        assert_eq!(reply.body["orionError"]["details"], details);
    }
}

#[tokio::test]
async fn invalid_pattern_and_missing_entities_are_refused() {
    let h = Harness::new().await;
    let bad = h.post(QC, json!({"entities": [{"id": "Room(", "isPattern": "true"}]})).await;
    assert_eq!(bad["errorCode"]["details"], "invalid regex for entity id pattern");
    let huge = h.post(QC, json!({"entities": [{"id": "(a{1000}){1000}", "isPattern": "true"}]})).await;
    assert_eq!(huge["errorCode"]["details"], "invalid regex for entity id pattern");
    let empty = h.post(QC, json!({"entities": []})).await;
    assert_eq!(empty["errorCode"]["details"], "No entities");
    let unknown = h.post(QC, json!({"entities": [{"id": "x"}], "bogus": 1})).await;
    assert_eq!(unknown["errorCode"]["details"], "JSON Parse Error: unknown field: /bogus");
}

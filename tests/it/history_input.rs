//! Bad input to the historic store (issue 5): refused notifications write nothing, and every refused query answers
//! STH-Comet's status and body.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{Harness, Reply};

const TENANT: [(&str, &str); 2] = [("platform-service", "default"), ("platform-servicepath", "/")];
const TEMPERATURE: &str = "/sth/type/Room/id/Room1/attributes/temperature";

fn good_notification() -> Value {
    json!({"subscriptionId": "5f0000000000000000000001", "originator": "localhost", "contextResponses": [
        {"contextElement": {"type": "Room", "isPattern": "false", "id": "Room1", "attributes": [
            {"name": "temperature", "type": "float", "value": "21"}]},
         "statusCode": {"code": "200", "reasonPhrase": "OK"}}]})
}

async fn stored_count(h: &Harness) -> usize {
    let reply = h.json(Method::GET, &format!("{TEMPERATURE}?lastN=10"), &TENANT, None).await;
    reply.body["contextResponses"][0]["contextElement"]["attributes"][0]["values"].as_array().map_or(0, Vec::len)
}

fn bad_request(message: &str, source: &str, keys: &[&str]) -> Value {
    json!({"statusCode": 400, "error": "Bad Request", "message": message,
        "validation": {"source": source, "keys": keys}})
}

#[tokio::test]
async fn refused_notifications_answer_sth_errors_and_write_nothing() {
    let h = Harness::new().await;
    let no_responses = json!({"subscriptionId": "x", "originator": "localhost"});
    let reply = h.json(Method::POST, "/sth/notify", &TENANT, Some(no_responses)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let message = "child \"contextResponses\" fails because [\"contextResponses\" is required]";
    assert_eq!(reply.body, bad_request(message, "payload", &["contextResponses"]));

    let mut no_attributes = good_notification();
    no_attributes["contextResponses"][0]["contextElement"]["attributes"] = json!([]);
    let reply = h.json(Method::POST, "/sth/notify", &TENANT, Some(no_attributes)).await;
    let message = "At least one attribute with an aggregatable value should be included in the notification";
    assert_eq!(reply.body, bad_request(message, "payload", &["attributes"]));

    let headers = [TENANT[0], TENANT[1], ("content-type", "application/json"), ("x-auth-token", h.token.as_str())];
    let reply = h.send(Method::POST, "/sth/notify", &headers, Some("{\"contextResponses\": [")).await;
    assert_eq!(
        reply.body,
        json!({"statusCode": 400, "error": "Bad Request", "message": "Invalid request payload JSON format"})
    );
    assert_eq!(stored_count(&h).await, 0);
}

#[tokio::test]
async fn missing_tenant_headers_mean_the_default_service_and_root_path() {
    let h = Harness::new().await;
    let reply = h.json(Method::POST, "/sth/notify", &[], Some(good_notification())).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(stored_count(&h).await, 1, "the notification was not stored in default, /");
    let read = h.json(Method::GET, &format!("{TEMPERATURE}?lastN=1"), &[], None).await;
    assert_eq!(read.body, h.json(Method::GET, &format!("{TEMPERATURE}?lastN=1"), &TENANT, None).await.body);
    let bad_path = [TENANT[0], ("platform-servicepath", "/a,/b")];
    let reply = h.json(Method::POST, "/sth/notify", &bad_path, Some(good_notification())).await;
    assert_eq!(reply.body["message"], "more than one service path in context update request");
    let bad_tenant = [("platform-service", "bad-name")];
    let reply = h.json(Method::POST, "/sth/notify", &bad_tenant, Some(good_notification())).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(stored_count(&h).await, 1);
}

#[tokio::test]
async fn tokens_are_checked_and_refused_writes_store_nothing() {
    let h = Harness::new().await;
    let body = good_notification().to_string();
    let plain = [TENANT[0], TENANT[1], ("content-type", "application/json")];
    let reply = h.send(Method::POST, "/sth/notify", &plain, Some(&body)).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(reply.body["error"], "Unauthorized");
    let reader = h.scoped("default", "/", true).await;
    let read_only = [TENANT[0], TENANT[1], ("content-type", "application/json"), ("x-auth-token", reader.as_str())];
    let reply = h.send(Method::POST, "/sth/notify", &read_only, Some(&body)).await;
    assert_eq!((reply.status, reply.body["message"].as_str()), (StatusCode::FORBIDDEN, Some("the token is read-only")));
    let reply = h.send(Method::DELETE, "/sth", &read_only, None).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let other = h.service("other").await;
    let foreign = [TENANT[0], TENANT[1], ("content-type", "application/json"), ("x-auth-token", other.as_str())];
    assert_eq!(h.send(Method::POST, "/sth/notify", &foreign, Some(&body)).await.status, StatusCode::FORBIDDEN);
    let text = [TENANT[0], TENANT[1], ("content-type", "text/plain"), ("x-auth-token", h.token.as_str())];
    assert_eq!(
        h.send(Method::POST, "/sth/notify", &text, Some(&body)).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(stored_count(&h).await, 0);
    let reply = h.send(Method::GET, &format!("{TEMPERATURE}?lastN=1"), &read_only, None).await;
    assert_eq!(reply.status, StatusCode::OK, "a read-only token reads");
}

#[tokio::test]
async fn refused_queries_answer_sth_texts() {
    let h = Harness::new().await;
    let combination = "A combination of the following query params is required: lastN, hLimit and hOffset, \
                       filetype, or aggrMethod and aggrPeriod";
    let combination_keys = ["lastN", "hLimit", "hOffset", "filetype", "aggrMethod", "aggrPeriod", "count"];
    let pattern = "/^(min|max|sum|sum2|occur|all)(,(min|max|sum|sum2|occur|all))*$/";
    let cases: Vec<(&str, Value)> = vec![
        ("", bad_request(combination, "query", &combination_keys)),
        ("hLimit=10", bad_request(combination, "query", &combination_keys)),
        ("hOffset=10", bad_request(combination, "query", &combination_keys)),
        ("aggrMethod=sum", bad_request(combination, "query", &combination_keys)),
        (
            "lastN=-1",
            bad_request(
                "child \"lastN\" fails because [\"lastN\" must be larger than or equal to 0]",
                "query",
                &["lastN"],
            ),
        ),
        (
            "hLimit=ten&hOffset=0",
            bad_request("child \"hLimit\" fails because [\"hLimit\" must be a number]", "query", &["hLimit"]),
        ),
        (
            "hLimit=5&hOffset=1.5",
            bad_request("child \"hOffset\" fails because [\"hOffset\" must be an integer]", "query", &["hOffset"]),
        ),
        ("hLimit=1001&hOffset=0", bad_request("hLimit <= lastN <= config.maxPageSize", "query", &["lastN", "hLimit"])),
        (
            "aggrMethod=avg&aggrPeriod=hour",
            bad_request(
                &format!(
                    "child \"aggrMethod\" fails because [\"aggrMethod\" with value \"avg\" fails to match the required pattern: {pattern}]"
                ),
                "query",
                &["aggrMethod"],
            ),
        ),
        (
            "aggrMethod=max,avg&aggrPeriod=hour",
            bad_request(
                &format!(
                    "child \"aggrMethod\" fails because [\"aggrMethod\" with value \"max,avg\" fails to match the required pattern: {pattern}]"
                ),
                "query",
                &["aggrMethod"],
            ),
        ),
        (
            "aggrMethod=sum&aggrPeriod=week",
            bad_request(
                "child \"aggrPeriod\" fails because [\"aggrPeriod\" must be one of [month, day, hour, minute, second]]",
                "query",
                &["aggrPeriod"],
            ),
        ),
        (
            "lastN=1&dateFrom=2026-01-02T00:00:00Z&dateTo=2026-01-01T00:00:00Z",
            bad_request(
                "child \"dateTo\" fails because [\"dateTo\" must be larger than or equal to \"dateFrom\"]",
                "query",
                &["dateTo"],
            ),
        ),
        (
            "lastN=1&dateFrom=yesterday",
            bad_request(
                "child \"dateFrom\" fails because [\"dateFrom\" must be a number of milliseconds or valid date string]",
                "query",
                &["dateFrom"],
            ),
        ),
        (
            "aggrMethod=sum&aggrPeriod=day&dateTo=2026-02-30",
            bad_request(
                "child \"dateTo\" fails because [\"dateTo\" must be a number of milliseconds or valid date string]",
                "query",
                &["dateTo"],
            ),
        ),
    ];
    for (query, expected) in cases {
        let reply: Reply = h.json(Method::GET, &format!("{TEMPERATURE}?{query}"), &TENANT, None).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(reply.body, expected, "{query}");
    }
}

#[tokio::test]
async fn unknown_paths_and_verbs_are_404() {
    let h = Harness::new().await;
    for (method, path) in [(Method::GET, "/sth/nothing"), (Method::POST, TEMPERATURE), (Method::GET, "/sth/notify")] {
        let reply = h.json(method, path, &TENANT, Some(json!({}))).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(reply.body, json!({"statusCode": 404, "error": "Not Found"}));
    }
}

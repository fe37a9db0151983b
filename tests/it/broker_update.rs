//! `updateContext`: the update sequence of Orion's v1 tests, per-element errors and whole-request refusals.

use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::support::{Harness, attr_value, update_body};

const UC: &str = "/cb/v1/updateContext";

async fn query_one(h: &Harness, id: &str) -> serde_json::Value {
    let body = h.post("/cb/v1/queryContext", json!({"entities": [{"id": id, "isPattern": "false"}]})).await;
    body["contextResponses"][0]["contextElement"].clone()
}

#[tokio::test]
async fn append_echoes_blank_values_and_query_sorts_attributes() {
    let h = Harness::new().await;
    let reply =
        h.update("APPEND", "Room1", "Room", &[("temperature", "float", "23"), ("pressure", "integer", "720")]).await;
    let expected = json!({"contextResponses": [{"contextElement": {"attributes": [
        {"name": "temperature", "type": "float", "value": ""},
        {"name": "pressure", "type": "integer", "value": ""}],
        "id": "Room1", "isPattern": "false", "type": "Room"},
        "statusCode": {"code": "200", "reasonPhrase": "OK"}}]});
    assert_eq!(reply, expected);
    let element = query_one(&h, "Room1").await;
    let names: Vec<&str> =
        element["attributes"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["pressure", "temperature"]);
}

#[tokio::test]
async fn update_of_unknown_entity_is_404_with_the_id() {
    let h = Harness::new().await;
    let reply = h.update("UPDATE", "E1", "T", &[("a", "t", "1")]).await;
    assert_eq!(
        reply["contextResponses"][0]["statusCode"],
        json!({"code": "404", "details": "E1", "reasonPhrase": "No context element found"})
    );
}

#[tokio::test]
async fn update_splits_found_and_missing_attributes() {
    let h = Harness::new().await;
    h.update("APPEND", "OfficeRoom", "Room", &[("temperature", "float", "1")]).await;
    let reply = h.update("UPDATE", "OfficeRoom", "Room", &[("temperature", "float", "2"), ("pressure", "", "3")]).await;
    let parts = reply["contextResponses"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0]["statusCode"]["code"], "200");
    assert_eq!(
        parts[1]["statusCode"],
        json!({"code": "404", "details": "OfficeRoom", "reasonPhrase": "No context element found"})
    );
    assert_eq!(attr_value(&query_one(&h, "OfficeRoom").await, "temperature"), Some(json!("2")));
}

#[tokio::test]
async fn delete_of_a_missing_attribute_is_472_and_deletes_nothing() {
    let h = Harness::new().await;
    h.update("APPEND", "OfficeRoom", "Room", &[("temperature", "float", "1")]).await;
    let reply = h.update("DELETE", "OfficeRoom", "Room", &[("temperature", "", ""), ("pressure", "", "")]).await;
    let details = "action: DELETE - entity: [OfficeRoom, Room] - offending attribute: pressure - attribute not found";
    assert_eq!(reply["contextResponses"][0]["statusCode"]["code"], "472");
    assert_eq!(reply["contextResponses"][0]["statusCode"]["details"], details);
    assert!(attr_value(&query_one(&h, "OfficeRoom").await, "temperature").is_some());
}

#[tokio::test]
async fn delete_without_attributes_removes_the_entity() {
    let h = Harness::new().await;
    h.update("APPEND", "E1", "T", &[("a", "t", "1")]).await;
    h.update("DELETE", "E1", "T", &[]).await;
    let body = h.post("/cb/v1/queryContext", json!({"entities": [{"id": "E1"}]})).await;
    assert_eq!(body, json!({"errorCode": {"code": "404", "reasonPhrase": "No context element found"}}));
}

#[tokio::test]
async fn append_strict_adds_new_and_reports_existing() {
    let h = Harness::new().await;
    h.update("APPEND", "E1", "T1", &[("attr1", "t", "1")]).await;
    let reply = h.update("append_strict", "E1", "T1", &[("attr1", "t", "9"), ("attr2", "t", "2")]).await;
    let parts = reply["contextResponses"].as_array().unwrap();
    assert_eq!(parts[0]["statusCode"]["code"], "200");
    assert_eq!(
        parts[1],
        json!({"contextElement": {"id": "E1", "isPattern": "false", "type": "T1"},
        "statusCode": {"code": "400", "details": "one or more of the attributes in the request already exist: [ attr1 ]", "reasonPhrase": "Bad Request"}})
    );
    let element = query_one(&h, "E1").await;
    assert_eq!(attr_value(&element, "attr1"), Some(json!("1")));
    assert_eq!(attr_value(&element, "attr2"), Some(json!("2")));
}

#[tokio::test]
async fn replace_keeps_only_the_given_attributes() {
    let h = Harness::new().await;
    h.update("APPEND", "E1", "T", &[("a", "t", "1"), ("b", "t", "2")]).await;
    h.update("REPLACE", "E1", "T", &[("c", "t", "3")]).await;
    let element = query_one(&h, "E1").await;
    assert_eq!(element["attributes"], json!([{"name": "c", "type": "t", "value": "3"}]));
}

#[tokio::test]
async fn numbers_and_booleans_are_stored_as_strings_and_metadata_merges() {
    let h = Harness::new().await;
    let body = json!({"contextElements": [{"id": "E1", "type": "T", "attributes": [
        {"name": "n", "type": "float", "value": 21.5, "metadatas": [{"name": "unit", "type": "string", "value": "C"}]},
        {"name": "b", "type": "boolean", "value": true}]}], "updateAction": "APPEND"});
    h.post(UC, body).await;
    let body = json!({"contextElements": [{"id": "E1", "type": "T", "attributes": [
        {"name": "n", "value": 22, "metadatas": [{"name": "accuracy", "type": "float", "value": "0.5"}]}]}], "updateAction": "UPDATE"});
    h.post(UC, body).await;
    let element = query_one(&h, "E1").await;
    assert_eq!(
        element["attributes"],
        json!([
        {"name": "b", "type": "boolean", "value": "true"},
        {"name": "n", "type": "float", "value": "22", "metadatas": [
            {"name": "accuracy", "type": "float", "value": "0.5"}, {"name": "unit", "type": "string", "value": "C"}]}])
    );
}

#[tokio::test]
async fn an_id_shared_by_two_types_needs_the_type() {
    let h = Harness::new().await;
    h.update("APPEND", "Twin", "A", &[("x", "t", "1")]).await;
    h.update("APPEND", "Twin", "B", &[("x", "t", "1")]).await;
    let body = json!({"contextElements": [{"id": "Twin", "attributes": [{"name": "x", "type": "t", "value": "2"}]}], "updateAction": "UPDATE"});
    let reply = h.post(UC, body).await;
    let status = &reply["contextResponses"][0]["statusCode"];
    assert_eq!(status["code"], "409");
    assert!(status["details"].as_str().unwrap().contains("give the entity type"), "{status}");
    let reply = h.get("/cb/v1/contextEntities/Twin").await;
    assert_eq!(reply["errorCode"]["code"], "409");
}

#[tokio::test]
async fn per_element_errors_for_patterns_duplicates_and_empty_attributes() {
    let h = Harness::new().await;
    let body = json!({"contextElements": [
        {"id": "E.*", "isPattern": "true", "type": "T", "attributes": [{"name": "a", "type": "t", "value": "1"}]},
        {"id": "E1", "type": "T", "attributes": [{"name": "a", "type": "t", "value": "1"}, {"name": "a", "type": "t", "value": "2"}]},
        {"id": "E2", "type": "T", "attributes": [{"name": "a"}]}], "updateAction": "APPEND"});
    let reply = h.post(UC, body).await;
    let codes: Vec<&str> = reply["contextResponses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["statusCode"]["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["501", "422", "422"]);
    assert_eq!(reply["contextResponses"][1]["statusCode"]["details"], "duplicated attribute /a/");
    let details =
        "action: APPEND - entity: [E2, T] - offending attribute: a - empty attribute not allowed in APPEND or UPDATE";
    assert_eq!(reply["contextResponses"][2]["statusCode"]["details"], details);
    let none = h.post("/cb/v1/queryContext", json!({"entities": [{"id": ".*", "isPattern": "true"}]})).await;
    assert_eq!(none["errorCode"]["code"], "404");
}

async fn refused(h: &Harness, body: &str, details: &str) {
    let headers = [("content-type", "application/json"), ("x-auth-token", h.token.as_str())];
    let reply = h.send(Method::POST, UC, &headers, Some(body)).await;
    assert_eq!(reply.status, StatusCode::OK, "{body}");
    assert_eq!(reply.body["errorCode"]["code"], "400", "{body}: {}", reply.body);
    assert_eq!(reply.body["errorCode"]["details"], details, "{body}");
}

#[tokio::test]
async fn whole_request_errors_write_nothing() {
    let h = Harness::new().await;
    refused(&h, "{\"contextElements\": [", "JSON Parse Error").await;
    refused(&h, r#"{"contextElements":[],"updateAction":"APPEND"}"#, "No context elements").await;
    refused(
        &h,
        r#"{"contextElements":[{"id":"E1"}],"updateAction":"APPEND","value":1}"#,
        "JSON Parse Error: unknown field: /value",
    )
    .await;
    refused(&h, r#"{"contextElements":[{"id":""}],"updateAction":"APPEND"}"#, "empty entityId:id").await;
    refused(&h, r#"{"contextElements":[{"id":"E1"}]}"#, "JSON Parse Error: missing field `updateAction`").await;
    refused(&h, r#"{"contextElements":[{"id":"E1"}],"updateAction":"UPSERT"}"#, "invalid updateAction: /UPSERT/").await;
    refused(
        &h,
        r#"{"contextElements":[{"id":"E1","isPattern":"maybe"}],"updateAction":"APPEND"}"#,
        "invalid isPattern value for entity: /maybe/",
    )
    .await;
    let forbidden = update_body("APPEND", "E<1>", "T", &[("a", "t", "1")]).to_string();
    refused(&h, &forbidden, "Illegal value for JSON field").await;
    let forbidden_value = update_body("APPEND", "E1", "T", &[("a", "t", "x;drop")]).to_string();
    refused(&h, &forbidden_value, "Illegal value for JSON field").await;
    let wrong_type = r#"{"contextElements":[{"id":"E1","attributes":"no"}],"updateAction":"APPEND"}"#;
    let reply = h
        .send(Method::POST, UC, &[("content-type", "application/json"), ("x-auth-token", &h.token)], Some(wrong_type))
        .await;
    assert!(
        reply.body["errorCode"]["details"].as_str().unwrap().starts_with("JSON Parse Error: invalid type"),
        "{}",
        reply.body
    );
    let none = h.post("/cb/v1/queryContext", json!({"entities": [{"id": ".*", "isPattern": "true"}]})).await;
    assert_eq!(none["errorCode"]["code"], "404", "a refused request wrote something: {none}");
}

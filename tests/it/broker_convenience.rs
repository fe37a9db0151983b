//! The v1 convenience operations: create, read, update and delete entities and attributes by URL.

use axum::http::{Method, StatusCode, header};
use serde_json::json;

use crate::support::{Harness, attr_value};

#[tokio::test]
async fn create_get_and_delete_an_entity() {
    let h = Harness::new().await;
    let created = h
        .post(
            "/cb/v1/contextEntities/entity01",
            json!({"attributes": [{"name": "temperature", "type": "degree", "value": "10"}]}),
        )
        .await;
    assert_eq!(
        created,
        json!({"contextResponses": [{"attributes": [{"name": "temperature", "type": "degree", "value": ""}],
        "statusCode": {"code": "200", "reasonPhrase": "OK"}}], "id": "entity01", "isPattern": "false", "type": ""})
    );
    let got = h.get("/cb/v1/contextEntities/entity01").await;
    assert_eq!(got["contextElement"]["attributes"], json!([{"name": "temperature", "type": "degree", "value": "10"}]));
    assert_eq!(got["statusCode"]["code"], "200");
    let deleted = h.json(Method::DELETE, "/cb/v1/contextEntities/entity01", &[], None).await;
    assert_eq!(deleted.body, json!({"code": "200", "reasonPhrase": "OK"}));
    let gone = h.get("/cb/v1/contextEntities/entity01").await;
    assert_eq!(
        gone,
        json!({"contextElement": {"id": "entity01", "isPattern": "false", "type": ""},
        "statusCode": {"code": "404", "details": "Entity id: /entity01/", "reasonPhrase": "No context element found"}})
    );
    let again = h.json(Method::DELETE, "/cb/v1/contextEntities/entity01", &[], None).await;
    assert_eq!(again.body, json!({"code": "404", "details": "entity01", "reasonPhrase": "No context element found"}));
}

#[tokio::test]
async fn typed_urls_and_attribute_operations() {
    let h = Harness::new().await;
    h.post(
        "/cb/v1/contextEntities",
        json!({"id": "Room1", "type": "Room", "attributes": [{"name": "t", "type": "float", "value": "1"}]}),
    )
    .await;
    let typed = h.get("/cb/v1/contextEntities/type/Room/id/Room1").await;
    assert_eq!(typed["contextElement"]["type"], "Room");
    let put = h
        .json(Method::PUT, "/cb/v1/contextEntities/type/Room/id/Room1/attributes/t", &[], Some(json!({"value": "5"})))
        .await;
    assert_eq!(put.body, json!({"code": "200", "reasonPhrase": "OK"}));
    let attr = h.get("/cb/v1/contextEntities/Room1/attributes/t").await;
    assert_eq!(
        attr,
        json!({"attributes": [{"name": "t", "type": "float", "value": "5"}], "statusCode": {"code": "200", "reasonPhrase": "OK"}})
    );
    let missing = h.json(Method::DELETE, "/cb/v1/contextEntities/Room1/attributes/nope", &[], None).await;
    assert_eq!(missing.body["code"], "472");
    let updated = h
        .json(
            Method::PUT,
            "/cb/v1/contextEntities/Room1",
            &[],
            Some(json!({"attributes": [{"name": "t", "value": "7"}]})),
        )
        .await;
    assert_eq!(updated.body["contextResponses"][0]["statusCode"]["code"], "200");
    assert_eq!(attr_value(&h.get("/cb/v1/contextEntities/Room1").await["contextElement"], "t"), Some(json!("7")));
    let no_entity = h
        .json(
            Method::PUT,
            "/cb/v1/contextEntities/Nope",
            &[],
            Some(json!({"attributes": [{"name": "t", "value": "7"}]})),
        )
        .await;
    assert_eq!(
        no_entity.body,
        json!({"errorCode": {"code": "404", "details": "Nope", "reasonPhrase": "No context element found"}})
    );
}

#[tokio::test]
async fn entity_types_list_and_unknown_type() {
    let h = Harness::new().await;
    h.update("APPEND", "Room1", "Room", &[("t", "float", "1")]).await;
    h.update("APPEND", "Car1", "Car", &[("s", "float", "1")]).await;
    let rooms = h.get("/cb/v1/contextEntityTypes/Room").await;
    assert_eq!(rooms["contextResponses"].as_array().unwrap().len(), 1);
    let none = h.get("/cb/v1/contextEntityTypes/Boat").await;
    assert_eq!(none["errorCode"]["details"], "entityId::type /Boat/ non-existent");
    let filtered = h.get("/cb/v1/contextEntities?entity::type=Car").await;
    assert_eq!(filtered["contextResponses"][0]["contextElement"]["id"], "Car1");
}

#[tokio::test]
async fn wrong_verb_is_405_with_allow_and_unknown_path_is_400() {
    let h = Harness::new().await;
    let reply = h.json(Method::DELETE, "/cb/v1/contextEntityTypes/Room", &[], None).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(reply.headers.get(header::ALLOW).unwrap().to_str().unwrap().contains("GET"));
    for path in ["/cb/v1/nothingHere", "/cb/v1", "/cb/v1/", "/cb/v1/contextEntities/a/b/c/d/e"] {
        let unknown = h.json(Method::GET, path, &[], None).await;
        assert_eq!(unknown.status, StatusCode::BAD_REQUEST, "{path}");
        assert_eq!(unknown.body["orionError"]["details"], "service not found", "{path}");
    }
    let elsewhere = h.json(Method::GET, "/cb/v1x", &[], None).await;
    assert_eq!(elsewhere.status, StatusCode::NOT_FOUND);
}

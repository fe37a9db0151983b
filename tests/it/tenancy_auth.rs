//! Tenants, service paths and tokens: isolation between services, scoped and read-only tokens, the header errors.

use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::support::{Harness, update_body};

const QC: &str = "/cb/v1/queryContext";

fn all() -> serde_json::Value {
    json!({"entities": [{"id": ".*", "isPattern": "true"}]})
}

async fn as_token(
    h: &Harness,
    token: &str,
    method: Method,
    path: &str,
    extra: &[(&str, &str)],
    body: serde_json::Value,
) -> crate::support::Reply {
    let mut headers = vec![("content-type", "application/json"), ("x-auth-token", token)];
    headers.extend_from_slice(extra);
    h.send(method, path, &headers, Some(&body.to_string())).await
}

#[tokio::test]
async fn missing_or_unknown_token_is_401_and_other_service_403() {
    let h = Harness::new().await;
    let reply = h.send(Method::POST, QC, &[("content-type", "application/json")], Some(&all().to_string())).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(reply.body["orionError"]["code"], "401");
    assert_eq!(reply.body["orionError"]["reasonPhrase"], "Unauthorized");
    let unknown = as_token(&h, "not-a-token", Method::POST, QC, &[], all()).await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);
    let other = h.service("other").await;
    let cross = as_token(&h, &other, Method::POST, QC, &[], all()).await;
    assert_eq!(cross.status, StatusCode::FORBIDDEN);
    assert_eq!(cross.body["orionError"]["reasonPhrase"], "Forbidden");
}

#[tokio::test]
async fn services_are_isolated_and_tenant_names_lowercased() {
    let h = Harness::new().await;
    let city = h.service("smartcity").await;
    let header = [("platform-service", "SmartCity")];
    let write = as_token(
        &h,
        &city,
        Method::POST,
        "/cb/v1/updateContext",
        &header,
        update_body("APPEND", "E1", "T", &[("a", "t", "1")]),
    )
    .await;
    assert_eq!(write.body["contextResponses"][0]["statusCode"]["code"], "200");
    let own = as_token(&h, &city, Method::POST, QC, &[("platform-service", "smartcity")], all()).await;
    assert_eq!(own.body["contextResponses"][0]["contextElement"]["id"], "E1");
    let default = h.post(QC, all()).await;
    assert_eq!(default["errorCode"]["code"], "404", "default service sees smartcity's entity");
    let write_b = as_token(
        &h,
        &city,
        Method::POST,
        "/cb/v1/updateContext",
        &[],
        update_body("APPEND", "E2", "T", &[("a", "t", "1")]),
    )
    .await;
    assert_eq!(write_b.status, StatusCode::FORBIDDEN, "a smartcity token wrote into default");
}

#[tokio::test]
async fn bad_tenant_and_service_path_headers_use_orion_texts() {
    let h = Harness::new().await;
    let cases = [
        (
            "platform-service",
            "bad-name",
            "bad character in tenant name - only underscore and alphanumeric characters are allowed",
        ),
        ("platform-service", &"t".repeat(51), "bad length - a tenant name can be max 50 characters long"),
        (
            "platform-servicepath",
            "relative",
            "Only /absolute/ Service Paths allowed [a service path must begin with /]",
        ),
        ("platform-servicepath", "/a/b-c", "a component of ServicePath contains an illegal character"),
        ("platform-servicepath", &format!("/{}", "x".repeat(51)), "component-name too long in ServicePath"),
        ("platform-servicepath", &"/a".repeat(11), "too many components in ServicePath"),
        (
            "platform-servicepath",
            &["/a"; 11].join(","),
            "too many service paths - a maximum of ten service paths is allowed",
        ),
    ];
    for (name, value, details) in cases {
        let reply = h.json(Method::POST, QC, &[(name, value)], Some(all())).await;
        assert_eq!(reply.status, StatusCode::OK, "{name}: {value}");
        assert_eq!(reply.body["orionError"]["details"], details, "{name}: {value}");
    }
    let uc = "/cb/v1/updateContext";
    let body = update_body("APPEND", "E1", "T", &[("a", "t", "1")]);
    let two = h.json(Method::POST, uc, &[("platform-servicepath", "/a,/b")], Some(body.clone())).await;
    assert_eq!(two.body["errorCode"]["details"], "more than one service path in context update request");
    let hash = h.json(Method::POST, uc, &[("platform-servicepath", "/#")], Some(body)).await;
    assert_eq!(hash.body["errorCode"]["details"], "Bad Character in Service-Path");
}

#[tokio::test]
async fn service_path_scopes_queries_as_orion() {
    let h = Harness::new().await;
    let uc = "/cb/v1/updateContext";
    h.json(
        Method::POST,
        uc,
        &[("platform-servicepath", "/a/b")],
        Some(update_body("APPEND", "Deep", "T", &[("x", "t", "1")])),
    )
    .await;
    h.json(Method::POST, uc, &[], Some(update_body("APPEND", "Root", "T", &[("x", "t", "1")]))).await;
    let count = |scope: &'static str| {
        let h = &h;
        async move {
            let reply = h.json(Method::POST, QC, &[("platform-servicepath", scope)], Some(all())).await;
            reply.body["contextResponses"].as_array().map_or(0, Vec::len)
        }
    };
    assert_eq!(count("/a").await, 0);
    assert_eq!(count("/a/#").await, 1);
    assert_eq!(count("/a/b, /").await, 2);
    assert_eq!(count("/").await, 1);
    assert_eq!(h.post(QC, all()).await["contextResponses"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn scoped_and_read_only_tokens_stay_in_their_lane() {
    let h = Harness::new().await;
    let scoped = h.scoped("default", "/a", false).await;
    let reader = h.scoped("default", "/", true).await;
    let uc = "/cb/v1/updateContext";
    let body = update_body("APPEND", "E1", "T", &[("x", "t", "1")]);
    let ok = as_token(&h, &scoped, Method::POST, uc, &[("platform-servicepath", "/a/x")], body.clone()).await;
    assert_eq!(ok.body["contextResponses"][0]["statusCode"]["code"], "200");
    let outside = as_token(&h, &scoped, Method::POST, uc, &[("platform-servicepath", "/b")], body.clone()).await;
    assert_eq!(outside.status, StatusCode::FORBIDDEN);
    h.json(
        Method::POST,
        uc,
        &[("platform-servicepath", "/b")],
        Some(update_body("APPEND", "B1", "T", &[("x", "t", "1")])),
    )
    .await;
    let narrowed = as_token(&h, &scoped, Method::POST, QC, &[], all()).await;
    assert_eq!(narrowed.body["contextResponses"].as_array().unwrap().len(), 1, "{}", narrowed.body);
    let peek = as_token(&h, &scoped, Method::POST, QC, &[("platform-servicepath", "/b")], all()).await;
    assert_eq!(peek.status, StatusCode::FORBIDDEN);
    let read = as_token(&h, &reader, Method::POST, QC, &[], all()).await;
    assert_eq!(read.body["contextResponses"].as_array().unwrap().len(), 2);
    let write = as_token(&h, &reader, Method::POST, uc, &[], body).await;
    assert_eq!(write.status, StatusCode::FORBIDDEN);
    let sub = json!({"entities": [{"id": "E1"}], "reference": "http://localhost:1/x"});
    let subscribe = as_token(&h, &reader, Method::POST, "/cb/v1/subscribeContext", &[], sub).await;
    assert_eq!(subscribe.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn insecure_mode_needs_no_token() {
    let h = Harness::with_auth(false).await;
    let body = update_body("APPEND", "E1", "T", &[("x", "t", "1")]);
    let reply = h
        .send(Method::POST, "/cb/v1/updateContext", &[("content-type", "application/json")], Some(&body.to_string()))
        .await;
    assert_eq!(reply.body["contextResponses"][0]["statusCode"]["code"], "200");
}

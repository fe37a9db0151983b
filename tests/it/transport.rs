//! Transport-level answers of `/cb/v1`: media types, lengths, sizes and the correlator header.

use crate::support::Harness;
use axum::http::{Method, StatusCode};

const QC: &str = "/cb/v1/queryContext";
const BODY: &str = r#"{"entities":[{"id":"x"}]}"#;

#[tokio::test]
async fn content_type_must_be_json() {
    let h = Harness::new().await;
    let none = h.send(Method::POST, QC, &[("x-auth-token", &h.token)], Some(BODY)).await;
    assert_eq!(none.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        none.body["orionError"]["details"],
        "Content-Type header not used, default application/octet-stream is not supported"
    );
    let text =
        h.send(Method::POST, QC, &[("x-auth-token", &h.token), ("content-type", "text/plain")], Some(BODY)).await;
    assert_eq!(text.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(text.body["orionError"]["details"], "not supported content type: text/plain");
    let charset = h
        .send(
            Method::POST,
            QC,
            &[("x-auth-token", &h.token), ("content-type", "application/json; charset=utf-8")],
            Some(BODY),
        )
        .await;
    assert_eq!(charset.status, StatusCode::OK);
}

#[tokio::test]
async fn accept_length_and_size() {
    let h = Harness::new().await;
    let headers = [("x-auth-token", h.token.as_str()), ("content-type", "application/json"), ("accept", "text/html")];
    let html = h.send(Method::POST, QC, &headers, Some(BODY)).await;
    assert_eq!(html.status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(html.body["orionError"]["details"], "no acceptable mime-type in accept header");
    let no_length =
        h.send(Method::POST, QC, &[("x-auth-token", &h.token), ("content-type", "application/json")], None).await;
    assert_eq!(no_length.status, StatusCode::LENGTH_REQUIRED);
    let big = "x".repeat(1_500_000);
    let huge =
        h.send(Method::POST, QC, &[("x-auth-token", &h.token), ("content-type", "application/json")], Some(&big)).await;
    assert_eq!(huge.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(huge.body["errorCode"]["details"], "payload size: 1500000, max size supported: 1048576");
}

#[tokio::test]
async fn correlator_is_echoed_or_created() {
    let h = Harness::new().await;
    let echoed = h.json(Method::GET, "/cb/v1/contextEntities", &[("platform-correlator", "abc-1")], None).await;
    assert_eq!(echoed.headers["platform-correlator"], "abc-1");
    let created = h.json(Method::GET, "/cb/v1/contextEntities", &[], None).await;
    assert_eq!(created.headers["platform-correlator"].to_str().unwrap().len(), 36);
}

#[tokio::test]
async fn version_and_metrics_answer() {
    let h = Harness::new().await;
    h.get("/cb/v1/contextEntities?limit=1").await;
    let version = h.send(Method::GET, "/version", &[], None).await;
    assert_eq!(version.body["orion"]["version"], "1.15.1");
    let metrics = h.send(Method::GET, "/metrics", &[], None).await;
    assert!(metrics.text.contains("fluxgate_http_requests_total"), "{}", metrics.text);
    assert!(metrics.text.contains("fluxgate_store_commit_batch_size"), "{}", metrics.text);
    // Counters are exported, described, before anything counts: a dead letter is visible as a 0 going up.
    assert!(metrics.text.contains("# HELP fluxgate_http_requests_total HTTP requests"), "{}", metrics.text);
    assert!(metrics.text.contains("# HELP fluxgate_cep_updates_dropped_total"), "{}", metrics.text);
    assert!(
        metrics.text.contains("fluxgate_cep_updates_dropped_total{reason=\"retries_exhausted\"}"),
        "{}",
        metrics.text
    );
    assert!(!metrics.text.contains(&h.token));
}

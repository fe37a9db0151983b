//! The bare baseline of `fluxgate bench broker`: what a hyper server on loopback that parses the same
//! `updateContext` body with serde_json into a typed struct, and answers 200 with a small JSON body, can do on this
//! machine.
//!
//! The bench drives it with the same client, connections, duration and bodies as Fluxgate, in the same invocation, so
//! the ratio Fluxgate / baseline is measured side by side. It must not write, match or validate anything more: it is
//! the ceiling, not a second broker.

use std::sync::Arc;

use bytes::Bytes;
use hyper::StatusCode;
use serde::Deserialize;

use super::BenchError;
use super::loopback::{self, Handler, Loopback};

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // Fields are parsed to pay the same cost as Fluxgate, then dropped.
struct Attribute {
    name: String,
    #[serde(rename = "type")]
    attr_type: String,
    value: String,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Element {
    id: String,
    #[serde(rename = "type")]
    entity_type: String,
    #[serde(rename = "isPattern")]
    is_pattern: String,
    attributes: Vec<Attribute>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct UpdateContext {
    #[serde(rename = "contextElements")]
    context_elements: Vec<Element>,
    #[serde(rename = "updateAction")]
    update_action: String,
}

const OK: &[u8] = br#"{"statusCode":{"code":"200","reasonPhrase":"OK"}}"#;

fn handle(body: &[u8]) -> (StatusCode, Bytes) {
    match serde_json::from_slice::<UpdateContext>(body) {
        Ok(parsed) if !parsed.context_elements.is_empty() => (StatusCode::OK, Bytes::from_static(OK)),
        _ => (StatusCode::BAD_REQUEST, Bytes::from_static(br#"{"error":"bad body"}"#)),
    }
}

/// Starts the baseline server on the current runtime.
pub async fn start() -> Result<Loopback, BenchError> {
    let handler: Handler = Arc::new(handle);
    loopback::start(handler).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::workload::Workload;

    #[test]
    fn the_bench_body_parses() {
        let body = Workload { entities: 5, attributes: 3, subscriptions: 0 }.update(7);
        assert_eq!(handle(&body).0, StatusCode::OK);
        assert_eq!(handle(b"{}").0, StatusCode::BAD_REQUEST);
    }
}

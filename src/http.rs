//! HTTP layers shared by every API: the `Platform-Correlator` of each request and response, and request metrics.
//!
//! The correlator is echoed when the request carries one and made up (a UUID) otherwise; handlers read it from the
//! request extensions so that notifications can carry the correlator of the request that caused them.

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

/// Header carrying the correlator.
pub const CORRELATOR_HEADER: &str = "platform-correlator";

/// The correlator of the current request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correlator(pub String);

/// Sets the correlator on the request and the response.
pub async fn common_layer(mut request: Request, next: Next) -> Response {
    let correlator = request
        .headers()
        .get(CORRELATOR_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    request.extensions_mut().insert(Correlator(correlator.clone()));
    let mut response = next.run(request).await;
    if let Ok(value) = HeaderValue::from_str(&correlator) {
        response.headers_mut().insert(CORRELATOR_HEADER, value);
    }
    response
}

/// Counts requests by matched route, method and status, and times them; mount with `route_layer`.
pub async fn metrics_layer(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned()).unwrap_or_default();
    let method = request.method().to_string();
    let started = Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    metrics::counter!("fluxgate_http_requests_total", "route" => route.clone(), "method" => method, "status" => status)
        .increment(1);
    metrics::histogram!("fluxgate_http_request_seconds", "route" => route).record(started.elapsed().as_secs_f64());
    response
}

//! HTTP layers shared by every API: the `Platform-Correlator` of each request and response, and request metrics.
//!
//! The correlator is echoed when the request carries one and made up (a UUID) otherwise; handlers read it from the
//! request extensions so that notifications can carry the correlator of the request that caused them.

use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use metrics::{Counter, Histogram};

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
    let route = route_metrics(request.extensions().get::<MatchedPath>().map_or("", MatchedPath::as_str));
    let method = request.method().clone();
    let started = Instant::now();
    let response = next.run(request).await;
    route.count(&method, response.status());
    route.seconds.record(started.elapsed().as_secs_f64());
    response
}

/// The metric handles of one route. Registering a labelled metric in the recorder builds and hashes its key, which
/// cost more than the rest of the layer, so each route registers once and requests only look their handles up.
struct RouteMetrics {
    route: String,
    seconds: Histogram,
    requests: RwLock<Vec<(Method, StatusCode, Counter)>>,
}

impl RouteMetrics {
    fn count(&self, method: &Method, status: StatusCode) {
        let known = self.requests.read().expect("route metrics lock");
        if let Some((_, _, counter)) = known.iter().find(|(m, s, _)| m == method && *s == status) {
            counter.increment(1);
            return;
        }
        drop(known);
        let labels =
            [("route", self.route.clone()), ("method", method.to_string()), ("status", status.as_str().into())];
        let counter = metrics::counter!("fluxgate_http_requests_total", &labels);
        counter.increment(1);
        self.requests.write().expect("route metrics lock").push((method.clone(), status, counter));
    }
}

/// Routes are the router's matched paths, a fixed set, so their handles live for the whole process.
static ROUTES: LazyLock<RwLock<HashMap<String, &'static RouteMetrics>>> = LazyLock::new(RwLock::default);

fn route_metrics(route: &str) -> &'static RouteMetrics {
    if let Some(known) = ROUTES.read().expect("routes lock").get(route) {
        return known;
    }
    // Handles taken before the recorder exists would count nowhere, and would stay cached.
    crate::ops::install_recorder();
    let seconds = metrics::histogram!("fluxgate_http_request_seconds", "route" => route.to_owned());
    let fresh = RouteMetrics { route: route.to_owned(), seconds, requests: RwLock::default() };
    let mut routes = ROUTES.write().expect("routes lock");
    routes.entry(route.to_owned()).or_insert_with(|| Box::leak(Box::new(fresh)))
}

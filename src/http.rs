//! HTTP layers shared by every API: the `Platform-Correlator` of each request and response, and request metrics.
//!
//! Both are tower layers with their own future types: axum's `from_fn` boxes a future and clones the wrapped service
//! for every request, which cost a measurable share of a request's CPU on the update path.
//!
//! The correlator is echoed when the request carries one and made up (a UUID) otherwise; handlers read it from the
//! request extensions so that notifications can carry the correlator of the request that caused them.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{LazyLock, RwLock};
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use metrics::{Counter, Histogram};
use pin_project_lite::pin_project;
use tower::{Layer, Service};

/// Header carrying the correlator.
pub const CORRELATOR_HEADER: &str = "platform-correlator";

/// The correlator of the current request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correlator(pub String);

/// Sets the correlator on the request and the response of every request, without boxing the request's future.
#[derive(Debug, Clone, Copy, Default)]
pub struct CorrelatorLayer;

impl<S> Layer<S> for CorrelatorLayer {
    type Service = WithCorrelator<S>;

    fn layer(&self, inner: S) -> Self::Service {
        WithCorrelator { inner }
    }
}

/// The service [`CorrelatorLayer`] wraps around a route.
#[derive(Debug, Clone)]
pub struct WithCorrelator<S> {
    inner: S,
}

impl<S, E> Service<Request> for WithCorrelator<S>
where
    S: Service<Request, Response = Response, Error = E>,
{
    type Response = Response;
    type Error = E;
    type Future = CorrelatedFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), E>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let (correlator, header) = correlator_of(&request);
        request.extensions_mut().insert(Correlator(correlator));
        CorrelatedFuture { inner: self.inner.call(request), header }
    }
}

/// The request's correlator and its header value: the one it carries, reused as is, or a new UUID.
fn correlator_of(request: &Request) -> (String, Option<HeaderValue>) {
    let given = request.headers().get(CORRELATOR_HEADER);
    match given.and_then(|v| v.to_str().ok()).filter(|v| !v.is_empty()) {
        Some(text) => (text.to_owned(), given.cloned()),
        None => {
            let made = uuid::Uuid::new_v4().to_string();
            let header = HeaderValue::from_str(&made).ok();
            (made, header)
        }
    }
}

pin_project! {
    /// A route's answer, to which the correlator header is added.
    pub struct CorrelatedFuture<F> {
        #[pin]
        inner: F,
        header: Option<HeaderValue>,
    }
}

impl<F, E> Future for CorrelatedFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = ready!(this.inner.poll(cx))?;
        if let Some(value) = this.header.take() {
            response.headers_mut().insert(CORRELATOR_HEADER, value);
        }
        Poll::Ready(Ok(response))
    }
}

/// Counts requests by matched route, method and status, and times them; mount with `route_layer`, so that only
/// matched routes count.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetricsLayer;

impl<S> Layer<S> for MetricsLayer {
    type Service = Metered<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Metered { inner }
    }
}

/// The service [`MetricsLayer`] wraps around a route.
#[derive(Debug, Clone)]
pub struct Metered<S> {
    inner: S,
}

impl<S, E> Service<Request> for Metered<S>
where
    S: Service<Request, Response = Response, Error = E>,
{
    type Response = Response;
    type Error = E;
    type Future = MeteredFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), E>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let route = route_metrics(request.extensions().get::<MatchedPath>().map_or("", MatchedPath::as_str));
        let method = request.method().clone();
        MeteredFuture { inner: self.inner.call(request), route, method, started: Instant::now() }
    }
}

pin_project! {
    /// A route's answer, counted and timed when it is ready.
    pub struct MeteredFuture<F> {
        #[pin]
        inner: F,
        route: &'static RouteMetrics,
        method: Method,
        started: Instant,
    }
}

impl<F, E> Future for MeteredFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        this.route.finish(this.method, response.status(), *this.started);
        Poll::Ready(Ok(response))
    }
}

/// [`MetricsLayer`] as an axum `from_fn` middleware, for routers off the hot path that mount it that way.
pub async fn metrics_layer(request: Request, next: Next) -> Response {
    let route = route_metrics(request.extensions().get::<MatchedPath>().map_or("", MatchedPath::as_str));
    let method = request.method().clone();
    let started = Instant::now();
    let response = next.run(request).await;
    route.finish(&method, response.status(), started);
    response
}

/// The metric handles of one route. Registering a labelled metric in the recorder builds and hashes its key, which
/// cost more than the rest of the layer, so each route registers once and requests only look their handles up.
pub(crate) struct RouteMetrics {
    route: String,
    seconds: Histogram,
    requests: RwLock<Vec<(Method, StatusCode, Counter)>>,
}

impl RouteMetrics {
    /// Counts one answered request and records how long it took.
    fn finish(&self, method: &Method, status: StatusCode, started: Instant) {
        self.count(method, status);
        self.seconds.record(started.elapsed().as_secs_f64());
    }

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

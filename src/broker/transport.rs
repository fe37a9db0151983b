//! Transport-level checks of `/cb/v1` requests, answered with real HTTP statuses and Orion's `orionError` texts.
//!
//! `Accept` must allow JSON (406); bodies need `Content-Length` (411), at most 1 MiB (413) and
//! `Content-Type: application/json` (415). These run before any handler, so a refused request writes nothing.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pin_project_lite::pin_project;
use serde_json::json;
use tower::{Layer, Service};

use super::error::{NgsiError, Wrapper};
use super::status::{Code, Status};

/// Largest accepted request body.
pub const MAX_BODY: usize = 1 << 20;

/// The checks, as a tower layer: a refused request is answered without reaching the route.
#[derive(Debug, Clone, Copy, Default)]
pub struct TransportLayer;

impl<S> Layer<S> for TransportLayer {
    type Service = Checked<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Checked { inner }
    }
}

/// The service [`TransportLayer`] wraps around a route.
#[derive(Debug, Clone)]
pub struct Checked<S> {
    inner: S,
}

impl<S, E> Service<Request> for Checked<S>
where
    S: Service<Request, Response = Response, Error = E>,
{
    type Response = Response;
    type Error = E;
    type Future = CheckedFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), E>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        match refuse(&request) {
            Some(response) => CheckedFuture::Refused { response: Some(response) },
            None => CheckedFuture::Passed { inner: self.inner.call(request) },
        }
    }
}

pin_project! {
    /// The refusal, or the route's answer.
    #[project = CheckedProjection]
    pub enum CheckedFuture<F> {
        Refused { response: Option<Response> },
        Passed { #[pin] inner: F },
    }
}

impl<F, E> Future for CheckedFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            CheckedProjection::Refused { response } => {
                Poll::Ready(Ok(response.take().expect("a refused request's future is polled once")))
            }
            CheckedProjection::Passed { inner } => inner.poll(cx),
        }
    }
}

fn refuse(request: &Request) -> Option<Response> {
    let headers = request.headers();
    let text = |name| headers.get(name).and_then(|v: &axum::http::HeaderValue| v.to_str().ok());
    if text(header::ACCEPT).is_some_and(|a| !accepts_json(a)) {
        let details = "no acceptable mime-type in accept header";
        return Some(
            NgsiError::orion(StatusCode::NOT_ACCEPTABLE, Code::NotAcceptable, details).render(Wrapper::ErrorCode),
        );
    }
    if !matches!(*request.method(), Method::POST | Method::PUT | Method::PATCH) {
        return None;
    }
    let Some(length) = text(header::CONTENT_LENGTH).and_then(|l| l.parse::<usize>().ok()) else {
        return Some(StatusCode::LENGTH_REQUIRED.into_response());
    };
    if length > MAX_BODY {
        let details = format!("payload size: {length}, max size supported: {MAX_BODY}");
        let body = json!({ "errorCode": Status::error(Code::TooLarge, &details) });
        return Some((StatusCode::PAYLOAD_TOO_LARGE, axum::Json(body)).into_response());
    }
    match text(header::CONTENT_TYPE) {
        None => {
            Some(unsupported("Content-Type header not used, default application/octet-stream is not supported".into()))
        }
        Some(ct) if !is_json(ct) => Some(unsupported(format!("not supported content type: {ct}"))),
        Some(_) => None,
    }
}

fn accepts_json(accept: &str) -> bool {
    accept.split(',').any(|range| {
        let media = range.split(';').next().unwrap_or("").trim();
        matches!(media, "*/*" | "application/*" | "application/json" | "")
    })
}

fn is_json(content_type: &str) -> bool {
    content_type.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

fn unsupported(details: String) -> Response {
    NgsiError::orion(StatusCode::UNSUPPORTED_MEDIA_TYPE, Code::UnsupportedMedia, details).render(Wrapper::ErrorCode)
}

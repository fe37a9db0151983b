//! Transport-level checks of `/cb/v1` requests, answered with real HTTP statuses and Orion's `orionError` texts.
//!
//! `Accept` must allow JSON (406); bodies need `Content-Length` (411), at most 1 MiB (413) and
//! `Content-Type: application/json` (415). These run before any handler, so a refused request writes nothing.

use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::error::{NgsiError, Wrapper};
use super::status::{Code, Status};

/// Largest accepted request body.
pub const MAX_BODY: usize = 1 << 20;

/// The checks, as a middleware.
pub async fn check(request: Request, next: Next) -> Response {
    match refuse(&request) {
        Some(response) => response,
        None => next.run(request).await,
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

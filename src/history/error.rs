//! The one place where `/sth` errors become responses, in STH-Comet's (hapi's) shape:
//! `{"statusCode":400,"error":"Bad Request","message":"...","validation":{"source":"query","keys":["lastN"]}}`.
//!
//! Validation texts follow joi 14 as STH-Comet answers them (`child "lastN" fails because ["lastN" must be a
//! number]`); tenancy and token problems reuse the texts of `tenancy` and `auth` with their HTTP statuses.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use thiserror::Error;

use crate::auth::AuthError;
use crate::store::StoreError;
use crate::tenancy::TenancyError;

/// Where a refused value came from, as hapi's `validation.source` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Query,
    Payload,
    Headers,
}

/// A `/sth` error.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum HistoryError {
    /// A refused parameter, header or payload field, with hapi's `validation` block.
    #[error("{message}")]
    Invalid { message: String, place: Source, keys: Vec<String> },
    #[error("{0}")]
    Tenancy(#[from] TenancyError),
    #[error("{0}")]
    Auth(AuthError),
    #[error("Invalid request payload JSON format")]
    PayloadJson,
    #[error("{0}")]
    UnsupportedMedia(String),
    #[error("Payload content length greater than maximum allowed: {0}")]
    TooLarge(usize),
    #[error("not found")]
    NotFound,
    #[error("store failure")]
    Store(StoreError),
}

impl HistoryError {
    /// A joi-style refusal of one field: `child "<key>" fails because [<reason>]`.
    pub fn field(source: Source, key: &str, reason: impl std::fmt::Display) -> Self {
        HistoryError::Invalid {
            message: format!("child \"{key}\" fails because [{reason}]"),
            place: source,
            keys: vec![key.to_owned()],
        }
    }

    /// A refusal with a free message naming several keys.
    pub fn invalid(source: Source, message: impl Into<String>, keys: &[&str]) -> Self {
        HistoryError::Invalid {
            message: message.into(),
            place: source,
            keys: keys.iter().map(|k| (*k).to_owned()).collect(),
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            HistoryError::Invalid { .. } | HistoryError::Tenancy(_) | HistoryError::PayloadJson => {
                StatusCode::BAD_REQUEST
            }
            HistoryError::Auth(AuthError::MissingToken | AuthError::UnknownToken) => StatusCode::UNAUTHORIZED,
            HistoryError::Auth(AuthError::Store(_)) | HistoryError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
            HistoryError::Auth(_) => StatusCode::FORBIDDEN,
            HistoryError::UnsupportedMedia(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            HistoryError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            HistoryError::NotFound => StatusCode::NOT_FOUND,
        }
    }

    fn body(&self, status: StatusCode) -> ErrorBody<'_> {
        let validation = match self {
            HistoryError::Invalid { place, keys, .. } => Some(Validation { source: *place, keys }),
            _ => None,
        };
        let message = match self {
            HistoryError::NotFound => None,
            other => Some(other.to_string()),
        };
        ErrorBody {
            status_code: status.as_u16(),
            error: status.canonical_reason().unwrap_or_default(),
            message,
            validation,
        }
    }
}

impl From<AuthError> for HistoryError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::Store(inner) => inner.into(),
            other => HistoryError::Auth(other),
        }
    }
}

impl From<crate::caller::CallerError> for HistoryError {
    fn from(e: crate::caller::CallerError) -> Self {
        match e {
            crate::caller::CallerError::Tenancy(t) => t.into(),
            crate::caller::CallerError::Auth(a) => a.into(),
        }
    }
}

impl From<StoreError> for HistoryError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "history store failure");
        HistoryError::Store(e)
    }
}

#[derive(Debug, Serialize)]
struct Validation<'a> {
    source: Source,
    keys: &'a [String],
}

#[derive(Debug, Serialize)]
struct ErrorBody<'a> {
    #[serde(rename = "statusCode")]
    status_code: u16,
    error: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    validation: Option<Validation<'a>>,
}

impl IntoResponse for HistoryError {
    fn into_response(self) -> Response {
        let status = self.status();
        (status, axum::Json(self.body(status))).into_response()
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    async fn render(e: HistoryError) -> (StatusCode, serde_json::Value) {
        let response = e.into_response();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn errors_render_in_hapi_shape() {
        let (status, body) = render(HistoryError::field(Source::Query, "lastN", "\"lastN\" must be a number")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            body,
            serde_json::json!({"statusCode": 400, "error": "Bad Request",
                "message": "child \"lastN\" fails because [\"lastN\" must be a number]",
                "validation": {"source": "query", "keys": ["lastN"]}})
        );
        let (status, body) = render(HistoryError::NotFound).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body, serde_json::json!({"statusCode": 404, "error": "Not Found"}));
        let (status, _) = render(AuthError::MissingToken.into()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
}

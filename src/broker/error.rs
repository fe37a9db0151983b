//! The one place where `/cb/v1` errors become responses, in the wrapper each operation uses.
//!
//! Orion's v1 wrappers differ by operation (its issue #768): `errorCode` for updates and queries, `subscribeError` for
//! subscriptions, `statusCode` for unsubscribe, a bare status for some convenience operations, and `orionError` for
//! header, URI-parameter, transport and authentication problems. Handlers pick the [`Wrapper`]; the rest is here.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use thiserror::Error;

use super::status::{Code, Status};
use crate::auth::AuthError;
use crate::store::StoreError;
use crate::tenancy::TenancyError;

/// How an operation wraps a whole-request error in its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    /// `{"errorCode":{...}}`: updateContext, queryContext and most convenience operations.
    ErrorCode,
    /// `{"subscribeError":{"errorCode":{...}}}`: subscribe and updateContextSubscription.
    SubscribeError,
    /// `{"statusCode":{...}}`: unsubscribe and attribute reads.
    StatusCode,
    /// `{"code":...}`: delete convenience operations and attribute writes.
    Bare,
}

/// A `/cb/v1` error: an NGSI status, and whether it is transport-level (`orionError` with a real HTTP status).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{} {}", status.code.text(), status.details.as_deref().unwrap_or(""))]
pub struct NgsiError {
    pub status: Status,
    pub transport: Option<StatusCode>,
}

impl NgsiError {
    /// A whole-request error answered with HTTP 200 in the operation's wrapper.
    pub fn body(code: Code, details: impl Into<String>) -> Self {
        NgsiError { status: Status::of(code, Some(details.into())), transport: None }
    }

    pub fn bad_request(details: impl Into<String>) -> Self {
        Self::body(Code::BadRequest, details)
    }

    /// An `orionError` answered with the given HTTP status.
    pub fn orion(http: StatusCode, code: Code, details: impl Into<String>) -> Self {
        NgsiError { status: Status::of(code, Some(details.into())), transport: Some(http) }
    }

    /// Renders the error in the given wrapper.
    pub fn render(self, wrapper: Wrapper) -> Response {
        match self.transport {
            Some(http) => (http, axum::Json(json!({ "orionError": self.status }))).into_response(),
            None => axum::Json(wrap(wrapper, &self.status)).into_response(),
        }
    }
}

/// Wraps a status the way an operation's body carries it.
pub fn wrap(wrapper: Wrapper, status: &Status) -> serde_json::Value {
    match wrapper {
        Wrapper::ErrorCode => json!({ "errorCode": status }),
        Wrapper::SubscribeError => json!({ "subscribeError": { "errorCode": status } }),
        Wrapper::StatusCode => json!({ "statusCode": status }),
        Wrapper::Bare => serde_json::to_value(status).unwrap_or_default(),
    }
}

/// Tenant errors are always `orionError`; service-path errors of writes and subscriptions use the op's wrapper.
impl From<TenancyError> for NgsiError {
    fn from(e: TenancyError) -> Self {
        match e {
            TenancyError::OnePathForUpdates | TenancyError::HashInWrite | TenancyError::OnePathForSubscriptions => {
                NgsiError::bad_request(e.to_string())
            }
            _ => NgsiError::orion(StatusCode::OK, Code::BadRequest, e.to_string()),
        }
    }
}

impl From<AuthError> for NgsiError {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::MissingToken | AuthError::UnknownToken => {
                NgsiError::orion(StatusCode::UNAUTHORIZED, Code::Unauthorized, e.to_string())
            }
            AuthError::Store(inner) => inner.into(),
            _ => NgsiError::orion(StatusCode::FORBIDDEN, Code::Forbidden, e.to_string()),
        }
    }
}

impl From<StoreError> for NgsiError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "store failure");
        NgsiError::orion(StatusCode::INTERNAL_SERVER_ERROR, Code::Internal, "store failure")
    }
}

/// An empty 405 with the allowed methods, as Orion answers a wrong verb.
pub fn method_not_allowed(allow: &'static str) -> Response {
    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

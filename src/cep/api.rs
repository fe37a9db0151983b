//! The CEP API: `/cep/v1/admin/config` (POST, GET, DELETE), `/cep/v1/admin/statements` and `/cep/notify`, per
//! tenant (service and service path), authenticated through `caller`. Admin errors are Cepheus's
//! `{"code","reasonPhrase","details"}` with a real HTTP status, statement errors with line, column and caret;
//! `/cep/notify` answers 200 with its status in the `responseCode` envelope. [`CepApiError`] renders them all.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use md5::{Digest, Md5};
use serde::Deserialize;
use serde_json::{Value, json};
use thiserror::Error;

use super::config::CepConfig;
use super::ingest::{AttributeIn, ElementIn};
use super::service::{ApplyError, NotifyError, prepare};
use crate::app::AppState;
use crate::auth::AuthError;
use crate::caller::{Caller, CallerError};
use crate::store::StoredCepConfig;

const MAX_BODY: usize = 1 << 20;

/// Everything the CEP API refuses.
#[derive(Debug, Error)]
pub enum CepApiError {
    #[error(transparent)]
    Caller(#[from] CallerError),
    #[error("content type {0:?} is not supported; send application/json")]
    MediaType(String),
    #[error("{0}")]
    Json(String),
    #[error(transparent)]
    Apply(#[from] ApplyError),
    #[error("{0}")]
    Save(String),
}

impl CepApiError {
    fn status_and_reason(&self) -> (StatusCode, String) {
        match self {
            CepApiError::Caller(CallerError::Auth(AuthError::MissingToken | AuthError::UnknownToken)) => {
                (StatusCode::UNAUTHORIZED, "Unauthorized".into())
            }
            CepApiError::Caller(CallerError::Auth(AuthError::Store(_))) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "Internal error".into())
            }
            CepApiError::Caller(CallerError::Auth(_)) => (StatusCode::FORBIDDEN, "Forbidden".into()),
            CepApiError::Caller(CallerError::Tenancy(_)) => (StatusCode::BAD_REQUEST, "Bad request".into()),
            CepApiError::MediaType(_) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported media type".into()),
            CepApiError::Json(_) => (StatusCode::BAD_REQUEST, "Bad request".into()),
            CepApiError::Apply(ApplyError::Validation(_)) => {
                (StatusCode::BAD_REQUEST, "Configuration validation error".into())
            }
            CepApiError::Apply(ApplyError::Apply(_)) => {
                (StatusCode::BAD_REQUEST, "Failed to apply new configuration".into())
            }
            CepApiError::Save(_) => (StatusCode::INTERNAL_SERVER_ERROR, "Failed to save new configuration".into()),
        }
    }
}

impl IntoResponse for CepApiError {
    fn into_response(self) -> Response {
        let (status, reason) = self.status_and_reason();
        let body = json!({"code": status.as_u16().to_string(), "reasonPhrase": reason, "details": self.to_string()});
        (status, axum::Json(body)).into_response()
    }
}

/// The caller of a CEP request, refused in the CEP API's shape.
#[derive(Debug)]
pub struct CepCaller(Caller);

impl FromRequestParts<AppState> for CepCaller {
    type Rejection = CepApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        Ok(CepCaller(Caller::resolve(parts, state).await?))
    }
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/admin/config", post(post_config).get(get_config).delete(delete_config))
        .route("/v1/admin/statements", get(statements))
        .route("/notify", post(notify))
        .layer(DefaultBodyLimit::max(MAX_BODY))
}

fn json_body<T: for<'de> Deserialize<'de>>(headers: &HeaderMap, body: &[u8]) -> Result<T, CepApiError> {
    let ty = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    if !ty.starts_with("application/json") {
        return Err(CepApiError::MediaType(ty.to_owned()));
    }
    serde_json::from_slice(body).map_err(|e| CepApiError::Json(e.to_string()))
}

async fn post_config(
    State(s): State<AppState>,
    CepCaller(caller): CepCaller,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, CepApiError> {
    let path = caller.write_path()?;
    let config: CepConfig = json_body(&headers, &body)?;
    let prepared = prepare(config, &caller.tenant, &path)?;
    let text = serde_json::to_string(prepared.config()).map_err(|e| CepApiError::Save(e.to_string()))?;
    let stored = StoredCepConfig { tenant: caller.tenant.clone(), path: path.clone(), body: text };
    s.store.put_cep_config(stored).await.map_err(|e| CepApiError::Save(e.to_string()))?;
    s.cep.install(caller.tenant, path, prepared);
    Ok(StatusCode::CREATED)
}

/// The running configuration, to a token that may write it: it holds the brokers' tokens.
async fn get_config(State(s): State<AppState>, CepCaller(caller): CepCaller) -> Result<Response, CepApiError> {
    let path = caller.write_path()?;
    Ok(match s.cep.config(&caller.tenant, &path) {
        Some(config) => axum::Json(config).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    })
}

async fn delete_config(State(s): State<AppState>, CepCaller(caller): CepCaller) -> Result<StatusCode, CepApiError> {
    let path = caller.write_path()?;
    s.store
        .delete_cep_config(caller.tenant.clone(), path.clone())
        .await
        .map_err(|e| CepApiError::Save(e.to_string()))?;
    s.cep.remove(&caller.tenant, &path);
    Ok(StatusCode::OK)
}

/// The running statements, to any token that reaches the path, read-only ones too.
async fn statements(State(s): State<AppState>, CepCaller(caller): CepCaller) -> Result<Response, CepApiError> {
    let path = caller.read_path()?;
    let config = s.cep.config(&caller.tenant, &path).filter(|c| !c.statements.is_empty());
    Ok(match config {
        None => StatusCode::NOT_FOUND.into_response(),
        Some(c) => {
            let list: Vec<Value> = c.statements.iter().map(|t| json!({"name": statement_name(t), "text": t})).collect();
            axum::Json(list).into_response()
        }
    })
}

/// A statement's name as Cepheus gives it: the MD5 of its UTF-8 text written as `BigInteger(1, md5).toString(16)`
/// does, in lower-case hex without leading zeros.
fn statement_name(text: &str) -> String {
    let hex = hex::encode(Md5::digest(text.as_bytes()));
    match hex.trim_start_matches('0') {
        "" => "0".to_owned(),
        digits => digits.to_owned(),
    }
}

/// The `/cep/notify` envelope.
fn envelope(code: u16, reason: &str, details: Option<String>) -> Response {
    let mut status = json!({"code": code.to_string(), "reasonPhrase": reason});
    if let Some(details) = details {
        status["details"] = Value::String(details);
    }
    axum::Json(json!({ "responseCode": status })).into_response()
}

async fn notify(
    State(s): State<AppState>,
    caller: Result<CepCaller, CepApiError>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let caller = match caller.and_then(|CepCaller(c)| Ok((c.write_path()?, c))) {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let (path, caller) = caller;
    let body: Value = match json_body(&headers, &body) {
        Ok(v) => v,
        Err(e @ CepApiError::MediaType(_)) => return e.into_response(),
        Err(e) => return envelope(400, "Bad request", Some(e.to_string())),
    };
    let elements = match elements(&body) {
        Ok(elements) => elements,
        Err(missing) => return envelope(471, "Missing parameter", Some(missing)),
    };
    let results = s.cep.notify(&caller.tenant, &path, &elements);
    report(&results)
}

/// The first error decides the code; every failing element is named in the details.
fn report(results: &[Result<(), NotifyError>]) -> Response {
    let failed: Vec<String> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().err().map(|e| format!("element {}: {e}", i + 1)))
        .collect();
    match results.iter().find_map(|r| r.as_ref().err()) {
        None => envelope(200, "OK", None),
        Some(NotifyError::Ingest(_)) => envelope(472, "Invalid parameter", Some(failed.join("; "))),
        Some(NotifyError::NoConfiguration(_) | NotifyError::Overloaded(_)) => {
            envelope(500, "event processing error", Some(failed.join("; ")))
        }
    }
}

/// The context elements of a notification, or the first missing parameter (Cepheus's order).
fn elements(body: &Value) -> Result<Vec<ElementIn>, String> {
    let missing = |name: &str, ty: &str| format!("The parameter {name} of type {ty} is missing in the request");
    if !body["subscriptionId"].is_string() {
        return Err(missing("subscriptionId", "string"));
    }
    let responses = body["contextResponses"].as_array().filter(|r| !r.is_empty());
    let responses = responses.ok_or_else(|| missing("contextResponse", "List<ContextElementResponse>"))?;
    responses
        .iter()
        .map(|r| {
            let e = &r["contextElement"];
            let text = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
            let id = text(&e["id"]).ok_or_else(|| missing("id", "string"))?;
            let entity_type = text(&e["type"]).ok_or_else(|| missing("type", "string"))?;
            let attributes = e["attributes"].as_array().filter(|a| !a.is_empty());
            let attributes = attributes.ok_or_else(|| missing("contextAttributes", "List<ContextAttribute>"))?;
            Ok(ElementIn { id, entity_type, attributes: attributes.iter().map(attribute).collect() })
        })
        .collect()
}

fn attribute(a: &Value) -> AttributeIn {
    let metas = a["metadatas"].as_array().map_or_else(Vec::new, |ms| {
        ms.iter().map(|m| (m["name"].as_str().unwrap_or_default().to_owned(), m["value"].clone())).collect()
    });
    (a["name"].as_str().unwrap_or_default().to_owned(), a["value"].clone(), metas)
}

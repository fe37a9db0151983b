//! The device API under `/ul/iot`: the registry (`/devices`), observations and command polling (`/d`).
//!
//! Registry calls authenticate like every JSON API (`X-Auth-Token` with the tenant headers, through `caller`);
//! observations name their service by the token in `k`. Errors are the agents' `{"reason","details"}` with a real
//! HTTP status, rendered by [`ApiError`] alone. A refused request writes nothing.

use std::collections::HashMap;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use thiserror::Error;

use super::ingest::{IngestError, Source, observation};
use super::model::{self, DeviceError, RegisteredDevice};
use super::ul::{self, Item, UlError};
use crate::app::AppState;
use crate::auth::{AuthError, Grant};
use crate::caller::{Caller, CallerError};
use crate::store::{Origin, StoreError};
use crate::tenancy::Tenant;

/// Largest observation or registration body.
const MAX_BODY: usize = 1 << 20;

/// Everything the device API can refuse.
#[derive(Debug, Error)]
pub enum ApiError {
    #[error(transparent)]
    Caller(#[from] CallerError),
    #[error(transparent)]
    Registration(#[from] DeviceError),
    #[error(" [ device_id: {0}]")]
    Duplicate(String),
    #[error("{0}")]
    NoDevice(String),
    #[error("missing query parameter {0}")]
    MissingParam(&'static str),
    #[error(transparent)]
    Parse(#[from] UlError),
    #[error(transparent)]
    Ingest(#[from] IngestError),
    #[error("content type {0:?} is not supported; send text/plain or application/text")]
    MediaType(String),
    #[error("the body is larger than {MAX_BODY} bytes")]
    TooLarge,
    #[error("the device id in the URL is {0}, the body says {1}")]
    IdMismatch(String, String),
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::DuplicateDevice(id) => ApiError::Duplicate(id),
            other => ApiError::Store(other),
        }
    }
}

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        ApiError::Caller(e.into())
    }
}

impl ApiError {
    fn status_and_reason(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::Caller(CallerError::Auth(AuthError::MissingToken | AuthError::UnknownToken)) => {
                (StatusCode::UNAUTHORIZED, "Unauthorized")
            }
            ApiError::Caller(CallerError::Auth(AuthError::Store(_))) | ApiError::Store(StoreError::Database(_)) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "Internal error")
            }
            ApiError::Caller(CallerError::Auth(_)) => (StatusCode::FORBIDDEN, "Forbidden"),
            ApiError::Caller(CallerError::Tenancy(_)) => (StatusCode::BAD_REQUEST, "Malformed header"),
            ApiError::Registration(e) => (StatusCode::BAD_REQUEST, e.reason()),
            ApiError::Duplicate(_) => (StatusCode::CONFLICT, "There are conflicts, entity already exists"),
            ApiError::NoDevice(_) => (StatusCode::NOT_FOUND, "The device does not exist"),
            ApiError::Parse(_) => (StatusCode::BAD_REQUEST, "There was a syntax error in the UltraLight request"),
            ApiError::MediaType(_) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported media type"),
            ApiError::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "Request entity too large"),
            ApiError::Store(StoreError::NoSuchCommand { .. }) => (StatusCode::BAD_REQUEST, "Unknown command"),
            ApiError::Store(_) => (StatusCode::INTERNAL_SERVER_ERROR, "Internal error"),
            _ => (StatusCode::BAD_REQUEST, "The request is not well formed"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, reason) = self.status_and_reason();
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %self, "device API failure");
        }
        (status, axum::Json(json!({ "reason": reason, "details": self.to_string() }))).into_response()
    }
}

/// The caller of a registry request, refused in the device API's shape.
#[derive(Debug)]
pub struct DeviceCaller(Caller);

impl FromRequestParts<AppState> for DeviceCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        Ok(DeviceCaller(Caller::resolve(parts, state).await?))
    }
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/devices", get(list_devices).post(register))
        .route("/devices/{id}", get(get_device).put(put_device).delete(delete_device))
        .route("/d", get(poll).post(observe))
        .route_layer(crate::http::MetricsLayer)
        .layer(DefaultBodyLimit::max(MAX_BODY))
}

fn body(bytes: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    bytes.map_err(|_| ApiError::TooLarge)
}

async fn register(
    State(s): State<AppState>,
    DeviceCaller(c): DeviceCaller,
    raw: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, ApiError> {
    let devices = model::parse_registration(&body(raw)?)?;
    let path = c.write_path()?;
    s.store.add_devices(c.tenant.clone(), path.clone(), devices.clone()).await?;
    for device in devices {
        s.devices.put(RegisteredDevice { tenant: c.tenant.clone(), path: path.clone(), device });
    }
    Ok(StatusCode::CREATED)
}

async fn list_devices(
    State(s): State<AppState>,
    DeviceCaller(c): DeviceCaller,
    Query(p): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let scope = c.read_scope()?;
    let limit = page_param(&p, "limit", 20)?.min(1000);
    let offset = page_param(&p, "offset", 0)?;
    let visible: Vec<_> = s.devices.of_tenant(&c.tenant).into_iter().filter(|d| scope.matches(&d.path)).collect();
    let page: Vec<_> = visible.iter().skip(offset).take(limit).map(|d| render(d)).collect();
    Ok(axum::Json(json!({ "count": visible.len(), "devices": page })).into_response())
}

fn page_param(params: &HashMap<String, String>, name: &'static str, default: usize) -> Result<usize, ApiError> {
    params.get(name).map_or(Ok(default), |v| v.parse().map_err(|_| ApiError::MissingParam(name)))
}

fn render(registered: &RegisteredDevice) -> serde_json::Value {
    let mut value = serde_json::to_value(&registered.device).unwrap_or_default();
    value["service"] = registered.tenant.as_str().into();
    value["service_path"] = registered.path.as_str().into();
    value
}

async fn get_device(
    State(s): State<AppState>,
    DeviceCaller(c): DeviceCaller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let registered = visible(&s, &c, &id)?;
    Ok(axum::Json(render(&registered)).into_response())
}

fn visible(s: &AppState, c: &Caller, id: &str) -> Result<std::sync::Arc<RegisteredDevice>, ApiError> {
    let registered = s.devices.get(&c.tenant, id).ok_or_else(|| ApiError::NoDevice(id.to_owned()))?;
    c.grant.check_path(&registered.path)?;
    Ok(registered)
}

async fn put_device(
    State(s): State<AppState>,
    DeviceCaller(c): DeviceCaller,
    Path(id): Path<String>,
    raw: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, ApiError> {
    let value: serde_json::Value = serde_json::from_slice(&body(raw)?).map_err(|e| DeviceError::Json(e.to_string()))?;
    let device = model::parse_device(&value, "/")?;
    if device.device_id != id {
        return Err(ApiError::IdMismatch(id, device.device_id));
    }
    let old = visible(&s, &c, &id)?;
    c.grant.check_write(&old.path)?;
    if !s.store.put_device(c.tenant.clone(), device.clone()).await? {
        return Err(ApiError::NoDevice(id));
    }
    s.devices.put(RegisteredDevice { tenant: c.tenant.clone(), path: old.path.clone(), device });
    Ok(StatusCode::NO_CONTENT)
}

async fn delete_device(
    State(s): State<AppState>,
    DeviceCaller(c): DeviceCaller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let old = visible(&s, &c, &id)?;
    c.grant.check_write(&old.path)?;
    s.store.delete_device(c.tenant.clone(), id.clone()).await?;
    s.devices.remove(&c.tenant, &id);
    Ok(StatusCode::NO_CONTENT)
}

/// The `k` and `i` parameters, and the grant of the token.
async fn device_params(s: &AppState, p: &HashMap<String, String>) -> Result<(Grant, String), ApiError> {
    let token = p.get("k").filter(|k| !k.is_empty()).ok_or(ApiError::MissingParam("k"))?;
    let device_id = p.get("i").filter(|i| !i.is_empty()).ok_or(ApiError::MissingParam("i"))?;
    let grant = s.auth.grant_of(token).await?;
    Ok((grant, device_id.clone()))
}

async fn observe(
    State(s): State<AppState>,
    headers: HeaderMap,
    Query(p): Query<HashMap<String, String>>,
    raw: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, ApiError> {
    let (grant, device_id) = device_params(&s, &p).await?;
    check_media_type(&headers)?;
    let items = ul::parse_bytes(&body(raw)?)?;
    let correlator = headers.get(crate::http::CORRELATOR_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
    write_items(&s, &grant, &device_id, items, Origin { token: None, correlator: correlator.to_owned() }).await?;
    Ok(StatusCode::OK)
}

/// Writes one observation's items for a device of the grant's service (also the MQTT ingest path).
pub async fn write_items(
    s: &AppState,
    grant: &Grant,
    device_id: &str,
    items: Vec<Item>,
    origin: Origin,
) -> Result<(), ApiError> {
    let tenant: &Tenant = &grant.service;
    let registered = s.devices.get(tenant, device_id);
    let source = Source { tenant, device_id, registered: registered.as_deref() };
    let now = chrono::DateTime::from_timestamp_millis(s.clock.now_ms()).unwrap_or_default();
    let obs = observation(&source, items, now, origin)?;
    if let Some(batch) = &obs.batch {
        grant.check_write(&batch.path)?;
    }
    s.store.ingest(obs.batch, tenant.clone(), obs.reports).await?;
    Ok(())
}

fn check_media_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(ct) = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) else { return Ok(()) };
    let media = ct.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    if media == "text/plain" || media == "application/text" { Ok(()) } else { Err(ApiError::MediaType(ct.to_owned())) }
}

async fn poll(State(s): State<AppState>, Query(p): Query<HashMap<String, String>>) -> Result<Response, ApiError> {
    let (grant, device_id) = device_params(&s, &p).await?;
    if let Some(registered) = s.devices.get(&grant.service, &device_id) {
        grant.check_path(&registered.path)?;
    }
    let (taken, _) = s.store.take_pending(grant.service.clone(), device_id).await?;
    let text = taken.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join("#");
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

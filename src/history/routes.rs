//! The `/sth` router: `POST /notify`, `GET|DELETE /type/{type}/id/{id}/attributes/{attr}`, `DELETE /type/{type}/id/{id}`
//! and `DELETE /` (the whole service path), as STH-Comet's `/STH/v1/contextEntities/...` paths without the prefix.
//!
//! Every data route reads `Platform-Service` and `Platform-ServicePath` as the broker does (absent: the `default`
//! tenant and `/`, where STH-Comet requires its `Fiware-*` headers) and needs a token (`X-Auth-Token`) that may read
//! or, for notify and delete, write that one service path. Handlers extract a [`HistoryCaller`], call the domain and
//! render; every error goes through `error::HistoryError`. Unknown paths and wrong verbs answer STH's 404.

use std::collections::HashMap;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, delete, get, post};
use serde::Deserialize;

use super::History;
use super::error::{HistoryError, Source};
use super::ingest::{self, Arrival};
use super::model::{AttrName, EntityRef, SeriesKey};
use super::query::{self, AggrRequest, HistoryQuery, RawRequest};
use super::store::{AggrQuery, DeleteScope, RawQuery};
use super::time::{Millis, Resolution};
use super::wire::{self, NotificationIn, Subject};
use crate::app::AppState;
use crate::broker::model::EntityId;
use crate::caller::Caller;
use crate::tenancy::{self, ServicePath, Tenant};

/// Largest accepted notification body.
const MAX_BODY: usize = 1 << 20;
/// Header with the number of raw matches before paging (`count=true`).
pub const TOTAL_COUNT_HEADER: &str = "platform-total-count";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/", delete(delete_path).fallback(not_found))
        .route("/notify", post(notify).fallback(not_found))
        .route("/type/{type}/id/{id}", delete(delete_entity).fallback(not_found))
        .route("/type/{type}/id/{id}/attributes/{attr}", attribute_methods())
        .fallback(not_found)
        .route_layer(axum::middleware::from_fn(crate::http::metrics_layer))
        .layer(DefaultBodyLimit::max(MAX_BODY))
}

fn attribute_methods() -> MethodRouter<AppState> {
    get(read_attribute).delete(delete_attribute).fallback(not_found)
}

async fn not_found() -> HistoryError {
    HistoryError::NotFound
}

/// Who asks, for which tenant and service path (one concrete path; absent: `/`), with which rights; decided by
/// `crate::caller` like every API.
#[derive(Debug, Clone)]
pub struct HistoryCaller {
    pub tenant: Tenant,
    pub path: ServicePath,
    caller: Caller,
}

impl HistoryCaller {
    fn can_read(&self) -> Result<(), HistoryError> {
        self.caller.read_path()?;
        Ok(())
    }

    fn can_write(&self) -> Result<(), HistoryError> {
        self.caller.write_path()?;
        Ok(())
    }

    fn entity(&self, entity_type: String, id: String) -> EntityRef {
        EntityRef { tenant: self.tenant.clone(), path: self.path.clone(), id: EntityId(id), entity_type }
    }
}

impl FromRequestParts<AppState> for HistoryCaller {
    type Rejection = HistoryError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let caller = Caller::resolve(parts, state).await?;
        let path =
            tenancy::path_for_write(parts.headers.get(tenancy::SERVICE_PATH_HEADER).and_then(|v| v.to_str().ok()))?;
        Ok(HistoryCaller { tenant: caller.tenant.clone(), path, caller })
    }
}

async fn notify(
    State(s): State<AppState>,
    caller: HistoryCaller,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, HistoryError> {
    caller.can_write()?;
    check_json(&headers)?;
    let body = body.map_err(|_| HistoryError::TooLarge(MAX_BODY))?;
    let notification: NotificationIn = serde_json::from_slice(&body).map_err(payload_error)?;
    let arrival = Arrival { tenant: caller.tenant, path: caller.path, now: s.history.now() };
    let samples = ingest::samples(notification, &arrival)?;
    s.history.store_samples(samples).await?;
    Ok(StatusCode::OK)
}

fn check_json(headers: &HeaderMap) -> Result<(), HistoryError> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let media = content_type.split(';').next().unwrap_or_default().trim();
    if media.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(HistoryError::UnsupportedMedia(format!("Unsupported Media Type: {content_type:?}")))
    }
}

fn payload_error(e: serde_json::Error) -> HistoryError {
    if e.is_syntax() || e.is_eof() {
        return HistoryError::PayloadJson;
    }
    let text = e.to_string();
    let text = text.split(" at line ").next().unwrap_or(&text).to_owned();
    HistoryError::invalid(Source::Payload, text, &["contextResponses"])
}

/// Path parameters of an entity or attribute URL.
#[derive(Debug, Deserialize)]
struct Target {
    #[serde(rename = "type")]
    entity_type: String,
    id: String,
    #[serde(default)]
    attr: String,
}

async fn read_attribute(
    State(s): State<AppState>,
    caller: HistoryCaller,
    Path(target): Path<Target>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Response, HistoryError> {
    caller.can_read()?;
    let request = query::parse(&params, s.history.options.max_page)?;
    let subject = Subject { entity_type: &target.entity_type, id: &target.id, attr: &target.attr };
    let key = SeriesKey {
        entity: caller.entity(target.entity_type.clone(), target.id.clone()),
        attr: AttrName(target.attr.clone()),
    };
    match request {
        HistoryQuery::Raw(raw) => read_raw(&s.history, &key, subject, raw).await,
        HistoryQuery::Aggregated(aggr) => read_aggregated(&s.history, &key, subject, aggr).await,
    }
}

async fn read_raw(h: &History, key: &SeriesKey, subject: Subject<'_>, r: RawRequest) -> Result<Response, HistoryError> {
    let query = RawQuery { series: key.id(), from: r.from, to: r.to, paging: r.paging, count: r.count };
    let page = h.store.raw(query).await?;
    let mut response = if r.csv {
        csv_response(subject.attr, wire::raw_csv(subject.attr, &page.values))
    } else {
        axum::Json(subject.response(wire::raw_values(page.values))).into_response()
    };
    if let Some(total) = page.total {
        response.headers_mut().insert(TOTAL_COUNT_HEADER, HeaderValue::from(total));
    }
    Ok(response)
}

fn csv_response(attr: &str, text: String) -> Response {
    let disposition =
        format!("attachment; filename*=utf-8''{}.csv", attr.replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
    let mut response = ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], text).into_response();
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

async fn read_aggregated(
    h: &History,
    key: &SeriesKey,
    subject: Subject<'_>,
    r: AggrRequest,
) -> Result<Response, HistoryError> {
    let query = AggrQuery {
        series: key.id(),
        resolution: r.resolution,
        from: bucket_bound(r.resolution, r.from),
        to: bucket_bound(r.resolution, r.to),
        numeric: r.methods.iter().any(|m| m.is_numeric()),
        occur: r.methods.contains(&super::model::AggrMethod::Occur),
    };
    let points = h.store.aggregated(query).await?;
    let values = wire::aggregated(&points, r.resolution, &r.methods);
    Ok(axum::Json(subject.response(values)).into_response())
}

/// The start of the point holding a date bound; open bounds stay open.
fn bucket_bound(resolution: Resolution, t: Millis) -> Millis {
    if t == Millis::MIN || t == Millis::MAX { t } else { resolution.bucket(t) }
}

async fn delete_attribute(
    State(s): State<AppState>,
    caller: HistoryCaller,
    Path(t): Path<Target>,
) -> Result<StatusCode, HistoryError> {
    caller.can_write()?;
    let key = SeriesKey { entity: caller.entity(t.entity_type, t.id), attr: AttrName(t.attr) };
    remove(&s.history, DeleteScope::Attribute(key)).await
}

async fn delete_entity(
    State(s): State<AppState>,
    caller: HistoryCaller,
    Path(t): Path<Target>,
) -> Result<StatusCode, HistoryError> {
    caller.can_write()?;
    remove(&s.history, DeleteScope::Entity(caller.entity(t.entity_type, t.id))).await
}

async fn delete_path(State(s): State<AppState>, caller: HistoryCaller) -> Result<StatusCode, HistoryError> {
    caller.can_write()?;
    remove(&s.history, DeleteScope::ServicePath { tenant: caller.tenant, path: caller.path }).await
}

async fn remove(h: &History, scope: DeleteScope) -> Result<StatusCode, HistoryError> {
    h.store.delete(scope).await?;
    Ok(StatusCode::NO_CONTENT)
}

//! The `/cb/v1` router: maps Orion's v1 paths and verbs to the operations, and renders every answer.
//!
//! Handlers are one line each: extract the caller, run the operation, render the result or the error in the
//! operation's wrapper. Unknown paths answer Orion's 400 `service not found`; wrong verbs a 405 with `Allow`.

use std::collections::HashMap;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, any, get, post, put};
use serde::Serialize;
use tower::ServiceBuilder;

use super::error::{NgsiError, Wrapper};
use super::ops::convenience::{self, Target};
use super::ops::{query, subscribe, update};
use super::status::Code;
use super::subscription::SubscriptionId;
use super::transport;
use super::update::UpdateAction;
use crate::app::AppState;
use crate::caller::Caller;

type Params = Query<HashMap<String, String>>;

/// Where the API is mounted.
pub const PREFIX: &str = "/cb/v1";

/// The `/cb/v1` API, its paths written out in full and merged into the application's router: a nested router would
/// rewrite every request's URI to strip its prefix, which cost about 3,000 instructions per request (callgrind,
/// `benches/results/broker.md`, twentieth session). Paths under the prefix that no route takes get Orion's 400.
pub fn router() -> Router<AppState> {
    Router::new()
        .route(&at("/updateContext"), post(update_context))
        .route(&at("/queryContext"), post(query_context))
        .route(&at("/subscribeContext"), post(subscribe_context))
        .route(&at("/updateContextSubscription"), post(update_subscription))
        .route(&at("/unsubscribeContext"), post(unsubscribe_context))
        .route(&at("/contextSubscriptions"), post(subscribe_context))
        .route(&at("/contextSubscriptions/{id}"), put(put_subscription).delete(delete_subscription))
        .route(&at("/contextEntities"), get(list_entities).post(create_entity))
        .route(&at("/contextEntities/{id}"), entity_methods())
        .route(&at("/contextEntities/type/{type}/id/{id}"), entity_methods())
        .route(&at("/contextEntities/{id}/attributes/{attr}"), attribute_methods())
        .route(&at("/contextEntities/type/{type}/id/{id}/attributes/{attr}"), attribute_methods())
        .route(&at("/contextEntityTypes/{type}"), get(entity_type))
        .route(&at(""), any(unknown_path))
        .route(&at("/"), any(unknown_path))
        .route(&at("/{*rest}"), any(unknown_path))
        .route_layer(crate::http::MetricsLayer)
        .layer(ServiceBuilder::new().layer(DefaultBodyLimit::max(transport::MAX_BODY)).layer(transport::TransportLayer))
}

/// The full path of a route of this API.
fn at(path: &str) -> String {
    format!("{PREFIX}{path}")
}

fn entity_methods() -> MethodRouter<AppState> {
    get(get_entity).post(append_entity).put(update_entity).delete(delete_entity)
}

fn attribute_methods() -> MethodRouter<AppState> {
    get(get_attribute).post(post_attribute).put(put_attribute).delete(delete_attribute)
}

/// Renders an operation's result: the value with HTTP 200, or the error in the operation's wrapper.
fn reply<T: Serialize>(result: Result<T, NgsiError>, wrapper: Wrapper) -> Response {
    match result {
        Ok(value) => axum::Json(value).into_response(),
        Err(e) => e.render(wrapper),
    }
}

async fn unknown_path() -> Response {
    NgsiError::orion(StatusCode::BAD_REQUEST, Code::BadRequest, "service not found").render(Wrapper::ErrorCode)
}

async fn update_context(State(s): State<AppState>, caller: Caller, body: Bytes) -> Response {
    reply(update::update_context(&s, &caller, &body).await, Wrapper::ErrorCode)
}

async fn query_context(State(s): State<AppState>, caller: Caller, Query(p): Params, body: Bytes) -> Response {
    reply(query::query_context(&s, &caller, &body, &p).await, Wrapper::ErrorCode)
}

async fn subscribe_context(State(s): State<AppState>, caller: Caller, body: Bytes) -> Response {
    let result = subscribe::subscribe(&s, &caller, &body).await;
    reply(result.map(|r| serde_json::json!({ "subscribeResponse": r })), Wrapper::SubscribeError)
}

async fn update_subscription(State(s): State<AppState>, caller: Caller, body: Bytes) -> Response {
    let result = subscribe::update(&s, &caller, &body).await;
    reply(result.map(|r| serde_json::json!({ "subscribeResponse": r })), Wrapper::SubscribeError)
}

async fn put_subscription(State(s): State<AppState>, caller: Caller, Path(id): Path<String>, body: Bytes) -> Response {
    let mut value: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("subscriptionId".into(), id.into());
    }
    let body = serde_json::to_vec(&value).unwrap_or_default();
    update_subscription(State(s), caller, Bytes::from(body)).await
}

async fn unsubscribe_context(State(s): State<AppState>, caller: Caller, body: Bytes) -> Response {
    reply(subscribe::unsubscribe(&s, &caller, &body).await, Wrapper::StatusCode)
}

async fn delete_subscription(State(s): State<AppState>, caller: Caller, Path(id): Path<String>) -> Response {
    let result = match caller.check_writer() {
        Ok(()) => subscribe::remove(&s, &caller, SubscriptionId(id)).await,
        Err(e) => Err(e.into()),
    };
    reply(result, Wrapper::StatusCode)
}

async fn list_entities(State(s): State<AppState>, caller: Caller, Query(p): Params) -> Response {
    reply(convenience::list(&s, &caller, None, &p).await, Wrapper::ErrorCode)
}

async fn entity_type(State(s): State<AppState>, caller: Caller, Path(t): Path<String>, Query(p): Params) -> Response {
    let result = convenience::list(&s, &caller, Some(t.clone()), &p).await.map_err(|e| match e.status.code {
        Code::NotFound if e.transport.is_none() => {
            NgsiError::body(Code::NotFound, format!("entityId::type /{t}/ non-existent"))
        }
        _ => e,
    });
    reply(result, Wrapper::ErrorCode)
}

async fn create_entity(State(s): State<AppState>, caller: Caller, body: Bytes) -> Response {
    reply(convenience::append(&s, &caller, None, &body).await, Wrapper::ErrorCode)
}

/// Path parameters of an entity URL, with or without `type/{type}/id/`.
#[derive(Debug, serde::Deserialize)]
struct EntityPath {
    id: String,
    #[serde(rename = "type", default)]
    entity_type: Option<String>,
    #[serde(default)]
    attr: Option<String>,
}

impl EntityPath {
    fn target(&self, params: &HashMap<String, String>) -> Target {
        Target::new(self.id.clone(), self.entity_type.clone(), params)
    }

    fn attr(&self) -> &str {
        self.attr.as_deref().unwrap_or_default()
    }
}

type EntityArgs = (State<AppState>, Caller, Path<EntityPath>, Params);

async fn get_entity((State(s), caller, Path(e), Query(p)): EntityArgs) -> Response {
    reply(convenience::get_entity(&s, &caller, &e.target(&p)).await, Wrapper::ErrorCode)
}

async fn append_entity((State(s), caller, Path(e), Query(p)): EntityArgs, body: Bytes) -> Response {
    reply(convenience::append(&s, &caller, Some(e.target(&p)), &body).await, Wrapper::ErrorCode)
}

async fn update_entity((State(s), caller, Path(e), Query(p)): EntityArgs, body: Bytes) -> Response {
    reply(convenience::update(&s, &caller, &e.target(&p), &body).await, Wrapper::ErrorCode)
}

async fn delete_entity((State(s), caller, Path(e), Query(p)): EntityArgs) -> Response {
    reply(convenience::delete(&s, &caller, &e.target(&p), None).await, Wrapper::Bare)
}

async fn get_attribute((State(s), caller, Path(e), Query(p)): EntityArgs) -> Response {
    reply(convenience::get_attribute(&s, &caller, &e.target(&p), e.attr()).await, Wrapper::StatusCode)
}

async fn put_attribute((State(s), caller, Path(e), Query(p)): EntityArgs, body: Bytes) -> Response {
    let result = convenience::write_attribute(&s, &caller, &e.target(&p), e.attr(), UpdateAction::Update, &body).await;
    reply(result, Wrapper::Bare)
}

async fn post_attribute((State(s), caller, Path(e), Query(p)): EntityArgs, body: Bytes) -> Response {
    let result = convenience::write_attribute(&s, &caller, &e.target(&p), e.attr(), UpdateAction::Append, &body).await;
    reply(result, Wrapper::Bare)
}

async fn delete_attribute((State(s), caller, Path(e), Query(p)): EntityArgs) -> Response {
    reply(convenience::delete(&s, &caller, &e.target(&p), Some(e.attr())).await, Wrapper::Bare)
}

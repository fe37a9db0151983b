//! `subscribeContext`, `updateContextSubscription` and `unsubscribeContext`: validate, persist, then update the live
//! index, so a subscription is active exactly when its write has committed.
//!
//! Errors use the `subscribeError` wrapper with Orion's `invalid payload: <reason>` texts; unsubscribe answers with a
//! `statusCode`. Expiry is `now + duration` on the engine clock; updating the duration recomputes it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::error::NgsiError;
use super::super::model::has_forbidden_chars;
use super::super::status::{Code, Status};
use super::super::subscription::{self, Subscription, SubscriptionId, WatchedEntity};
use super::super::wire::{self, EntityIdIn};
use crate::app::AppState;
use crate::caller::Caller;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotifyCondition {
    #[serde(rename = "type", default)]
    pub condition_type: String,
    #[serde(rename = "condValues", default)]
    pub cond_values: Vec<String>,
    #[serde(default)]
    pub restriction: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubscribeRequest {
    #[serde(rename = "subscriptionId", default)]
    pub subscription_id: Option<String>,
    #[serde(default)]
    pub entities: Option<Vec<EntityIdIn>>,
    #[serde(default)]
    pub attributes: Option<Vec<String>>,
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub duration: Option<String>,
    #[serde(rename = "notifyConditions", default)]
    pub notify_conditions: Option<Vec<NotifyCondition>>,
    #[serde(default)]
    pub throttling: Option<String>,
    #[serde(default)]
    pub restriction: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubscribeResponse {
    #[serde(rename = "subscriptionId")]
    pub subscription_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttling: Option<String>,
}

fn invalid(reason: impl std::fmt::Display) -> NgsiError {
    NgsiError::bad_request(format!("invalid payload: {reason}"))
}

/// Creates a subscription.
pub async fn subscribe(state: &AppState, caller: &Caller, body: &[u8]) -> Result<SubscribeResponse, NgsiError> {
    let request: SubscribeRequest = wire::parse_body(body)?;
    refuse_restrictions(&request)?;
    let scope = caller.subscription_scope()?;
    let entities = watched(request.entities.as_deref().unwrap_or_default())?;
    let reference = checked_reference(request.reference.as_deref().unwrap_or_default())?;
    let duration = request.duration.clone().unwrap_or_else(|| subscription::DEFAULT_DURATION.to_owned());
    let subscription = Subscription {
        id: SubscriptionId::generate(),
        tenant: caller.tenant.clone(),
        scope,
        entities,
        attributes: checked_names(request.attributes.unwrap_or_default())?,
        conditions: conditions(request.notify_conditions.as_deref().unwrap_or_default())?,
        reference,
        expires_at_ms: expiry(state, &duration)?,
        duration: duration.clone(),
        throttling_ms: throttling_ms(request.throttling.as_deref())?,
        throttling: request.throttling.clone(),
    };
    let id = subscription.id.0.clone();
    persist(state, subscription).await?;
    Ok(SubscribeResponse { subscription_id: id, duration: Some(duration), throttling: request.throttling })
}

/// Changes a subscription; only the fields given change, and only they are echoed.
pub async fn update(state: &AppState, caller: &Caller, body: &[u8]) -> Result<SubscribeResponse, NgsiError> {
    let request: SubscribeRequest = wire::parse_body(body)?;
    refuse_restrictions(&request)?;
    caller.check_writer()?;
    let id = SubscriptionId(request.subscription_id.clone().unwrap_or_default());
    let mut sub = owned(state, caller, &id)?;
    apply_changes(state, &mut sub, &request)?;
    persist(state, sub).await?;
    Ok(SubscribeResponse { subscription_id: id.0, duration: request.duration, throttling: request.throttling })
}

/// Geo scopes and condition filters are not supported: refused rather than silently ignored.
fn refuse_restrictions(request: &SubscribeRequest) -> Result<(), NgsiError> {
    let scoped = request.restriction.as_ref().is_some_and(super::query::has_scopes);
    let filtered =
        request.notify_conditions.iter().flatten().any(|c| c.restriction.as_deref().is_some_and(|r| !r.is_empty()));
    if scoped || filtered {
        return Err(NgsiError::body(Code::NotImplemented, "restrictions in subscriptions are not supported"));
    }
    Ok(())
}

fn apply_changes(state: &AppState, sub: &mut Subscription, request: &SubscribeRequest) -> Result<(), NgsiError> {
    if let Some(duration) = &request.duration {
        sub.expires_at_ms = expiry(state, duration)?;
        sub.duration.clone_from(duration);
    }
    if let Some(throttling) = &request.throttling {
        sub.throttling_ms = throttling_ms(Some(throttling))?;
        sub.throttling = Some(throttling.clone());
    }
    if let Some(entities) = &request.entities {
        sub.entities = watched(entities)?;
    }
    if let Some(attributes) = &request.attributes {
        sub.attributes = checked_names(attributes.clone())?;
    }
    if let Some(conditions_in) = &request.notify_conditions {
        sub.conditions = conditions(conditions_in)?;
    }
    if let Some(reference) = &request.reference {
        sub.reference = checked_reference(reference)?;
    }
    Ok(())
}

/// Removes a subscription.
pub async fn unsubscribe(state: &AppState, caller: &Caller, body: &[u8]) -> Result<Value, NgsiError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Request {
        #[serde(rename = "subscriptionId", default)]
        subscription_id: String,
    }
    let request: Request = wire::parse_body(body)?;
    caller.check_writer()?;
    remove(state, caller, SubscriptionId(request.subscription_id)).await
}

/// Removes a subscription by id (also `DELETE /contextSubscriptions/{id}`).
pub async fn remove(state: &AppState, caller: &Caller, id: SubscriptionId) -> Result<Value, NgsiError> {
    let shown = if id.0.is_empty() { "0".repeat(24) } else { id.0.clone() };
    let status = match owned(state, caller, &id) {
        Ok(_) if state.store.delete_subscription(caller.tenant.clone(), id.clone()).await? => {
            state.subscriptions.remove(&caller.tenant, &id);
            Status::ok()
        }
        Ok(_) => Status::of(Code::NotFound, None),
        Err(e) if e.transport.is_some() => return Err(e),
        Err(_) => Status::of(Code::NotFound, None),
    };
    Ok(serde_json::json!({ "statusCode": status, "subscriptionId": shown }))
}

/// The caller's tenant's subscription with this id, if the token's subtree covers it.
fn owned(state: &AppState, caller: &Caller, id: &SubscriptionId) -> Result<Subscription, NgsiError> {
    let sub = state
        .subscriptions
        .get(&caller.tenant, id)
        .ok_or_else(|| NgsiError { status: Status::of(Code::NotFound, None), transport: None })?;
    if !sub.scope.is_within(&caller.grant.path) {
        return Err(crate::auth::AuthError::OutOfScope(caller.grant.path.to_string()).into());
    }
    Ok(sub)
}

async fn persist(state: &AppState, subscription: Subscription) -> Result<(), NgsiError> {
    state.store.put_subscription(subscription.clone()).await?;
    state.subscriptions.put(subscription);
    Ok(())
}

fn watched(entities: &[EntityIdIn]) -> Result<Vec<WatchedEntity>, NgsiError> {
    if entities.is_empty() {
        return Err(invalid("No entities"));
    }
    entities
        .iter()
        .map(|e| {
            let filter = super::query::filter_of(e)?;
            let (id, is_pattern) = filter.id.to_wire();
            if (!is_pattern && has_forbidden_chars(&id)) || has_forbidden_chars(&filter.entity_type) {
                return Err(NgsiError::bad_request("Illegal value for JSON field"));
            }
            Ok(WatchedEntity { id, is_pattern, entity_type: filter.entity_type })
        })
        .collect()
}

fn checked_names(names: Vec<String>) -> Result<Vec<String>, NgsiError> {
    if names.iter().any(|n| has_forbidden_chars(n)) {
        return Err(NgsiError::bad_request("Illegal value for JSON field"));
    }
    Ok(names)
}

fn conditions(conditions: &[NotifyCondition]) -> Result<Vec<String>, NgsiError> {
    let mut names = Vec::new();
    for c in conditions {
        if c.condition_type.is_empty() {
            return Err(invalid("empty type for NotifyCondition"));
        }
        if !c.condition_type.eq_ignore_ascii_case("ONCHANGE") {
            return Err(invalid(format!("invalid notify condition type: /{}/", c.condition_type)));
        }
        names.extend(checked_names(c.cond_values.clone())?);
    }
    Ok(names)
}

/// A reference must be a bare path of this gateway or an `http` URL with a host.
fn checked_reference(reference: &str) -> Result<String, NgsiError> {
    if reference.is_empty() {
        return Err(invalid("Empty Reference"));
    }
    if reference.starts_with('/') {
        return Ok(reference.to_owned());
    }
    let full = if reference.contains("://") { reference.to_owned() } else { format!("http://{reference}") };
    match full.parse::<axum::http::Uri>() {
        Ok(uri) if uri.scheme_str() == Some("http") && uri.host().is_some_and(|h| !h.is_empty()) => {
            Ok(reference.to_owned())
        }
        _ => Err(invalid("Invalid URL")),
    }
}

fn expiry(state: &AppState, duration: &str) -> Result<i64, NgsiError> {
    let ms = subscription::parse_duration_ms(duration).ok_or_else(|| invalid("syntax error in duration string"))?;
    Ok(state.clock.now_ms().saturating_add(i64::try_from(ms).unwrap_or(i64::MAX)))
}

fn throttling_ms(throttling: Option<&str>) -> Result<u64, NgsiError> {
    match throttling {
        None => Ok(0),
        Some(t) => subscription::parse_duration_ms(t).ok_or_else(|| invalid("syntax error in throttling string")),
    }
}

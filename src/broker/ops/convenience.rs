//! Orion's v1 convenience operations on `/contextEntities` and `/contextEntityTypes`, each a thin shape over the
//! standard operations: the same store calls, Orion's own response shapes.
//!
//! Any `{id}` may be written `type/{type}/id/{id}`, or narrowed with `?entity::type=T`. Without a type, an id shared
//! by several entities is refused with a 409 that asks for the type, instead of picking one.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::super::error::NgsiError;
use super::super::model::{Entity, EntityId};
use super::super::query::{EntityFilter, IdMatch};
use super::super::status::{Code, Status};
use super::super::update::UpdateAction;
use super::super::wire::{self, AttributeValueBody, AttributesBody, ContextElementIn, ContextElementOut};
use super::query::Paging;
use super::update::{Echo, check_element, to_write, write};
use crate::app::AppState;
use crate::caller::Caller;

/// The entity a convenience URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub id: String,
    pub entity_type: Option<String>,
}

impl Target {
    pub fn new(id: String, path_type: Option<String>, params: &HashMap<String, String>) -> Self {
        let entity_type = path_type.or_else(|| params.get("entity::type").cloned()).filter(|t| !t.is_empty());
        Target { id, entity_type }
    }

    fn element(&self, attributes: Vec<wire::AttributeIn>) -> ContextElementIn {
        ContextElementIn { id: self.id.clone(), entity_type: self.entity_type.clone(), is_pattern: None, attributes }
    }

    fn not_found_element(&self) -> ContextElementOut {
        ContextElementOut {
            attributes: Vec::new(),
            id: self.id.clone(),
            is_pattern: "false".to_owned(),
            entity_type: self.entity_type.clone().unwrap_or_default(),
        }
    }
}

/// The one entity a target names within the caller's scope: 404 when none, 409 when the type is needed.
async fn find(state: &AppState, caller: &Caller, target: &Target) -> Result<Option<Entity>, NgsiError> {
    let scope = caller.read_scope()?;
    let all = state.store.entities_by_id(caller.tenant.clone(), EntityId(target.id.clone())).await?;
    let mut found: Vec<Entity> = all
        .into_iter()
        .filter(|e| scope.matches(&e.key.path))
        .filter(|e| target.entity_type.as_ref().is_none_or(|t| *t == e.key.entity_type))
        .collect();
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        n => Err(NgsiError::body(
            Code::Conflict,
            format!("{n} entities have id /{}/: give the entity type to say which one", target.id),
        )),
    }
}

fn entity_not_found(target: &Target) -> Status {
    Status::error(Code::NotFound, &format!("Entity id: /{}/", target.id))
}

/// `GET /contextEntities/{id}`.
pub async fn get_entity(state: &AppState, caller: &Caller, target: &Target) -> Result<Value, NgsiError> {
    let (element, status) = match find(state, caller, target).await? {
        Some(entity) => (wire::element_out(&entity, &[]), Status::ok()),
        None => (target.not_found_element(), entity_not_found(target)),
    };
    Ok(json!({ "contextElement": element, "statusCode": status }))
}

/// `GET /contextEntities/{id}/attributes/{attr}`.
pub async fn get_attribute(state: &AppState, caller: &Caller, target: &Target, attr: &str) -> Result<Value, NgsiError> {
    let Some(entity) = find(state, caller, target).await? else {
        return Ok(json!({ "statusCode": entity_not_found(target) }));
    };
    match entity.attributes.get(attr) {
        Some(a) => Ok(json!({ "attributes": [wire::attribute_out(attr, a)], "statusCode": Status::ok() })),
        None => Ok(json!({ "statusCode": Status::error(Code::NotFound, &format!("Attribute /{attr}/ not found")) })),
    }
}

/// `GET /contextEntities` and `GET /contextEntityTypes/{type}`.
pub async fn list(
    state: &AppState,
    caller: &Caller,
    entity_type: Option<String>,
    params: &HashMap<String, String>,
) -> Result<wire::ContextResponses, NgsiError> {
    let paging = Paging::from_params(params)?;
    let filters = match entity_type.or_else(|| params.get("entity::type").cloned()) {
        Some(t) => vec![EntityFilter { id: IdMatch::new(".*", true)?, entity_type: t }],
        None => Vec::new(),
    };
    super::query::run(state, caller, filters, Vec::new(), paging).await
}

/// `POST /contextEntities/{id}` and `POST /contextEntities`: APPEND, answered with per-part statuses.
pub async fn append(
    state: &AppState,
    caller: &Caller,
    target: Option<Target>,
    body: &[u8],
) -> Result<Value, NgsiError> {
    let request: AttributesBody = wire::parse_body(body)?;
    let target = match target {
        Some(t) => t,
        None => Target { id: request.id.clone().unwrap_or_default(), entity_type: request.entity_type.clone() },
    };
    if target.id.is_empty() {
        return Err(NgsiError::bad_request("empty entityId:id"));
    }
    let (echo, result) = write_one(state, caller, &target, request.attributes, UpdateAction::Append).await?;
    let responses: Vec<Value> = echo
        .respond(&result)
        .into_iter()
        .map(|r| json!({ "attributes": r.context_element.attributes, "statusCode": r.status_code }))
        .collect();
    let entity_type = result.entity_type;
    Ok(json!({ "contextResponses": responses, "id": target.id, "isPattern": "false", "type": entity_type }))
}

/// `PUT /contextEntities/{id}`: UPDATE.
pub async fn update(state: &AppState, caller: &Caller, target: &Target, body: &[u8]) -> Result<Value, NgsiError> {
    let request: AttributesBody = wire::parse_body(body)?;
    let (echo, result) = write_one(state, caller, target, request.attributes, UpdateAction::Update).await?;
    if result.parts.iter().all(|p| p.status.code == Code::NotFound)
        && result.parts.iter().all(|p| p.attrs.len() == echo.attribute_count())
    {
        return Err(NgsiError::body(Code::NotFound, target.id.clone()));
    }
    let responses: Vec<Value> = echo
        .respond(&result)
        .into_iter()
        .map(|r| json!({ "attributes": r.context_element.attributes, "statusCode": r.status_code }))
        .collect();
    Ok(json!({ "contextResponses": responses }))
}

/// `DELETE /contextEntities/{id}` (no attribute) and `DELETE .../attributes/{attr}`: bare status.
pub async fn delete(
    state: &AppState,
    caller: &Caller,
    target: &Target,
    attr: Option<&str>,
) -> Result<Status, NgsiError> {
    let attributes = attr.map(|a| vec![named(a)]).unwrap_or_default();
    let (_, result) = write_one(state, caller, target, attributes, UpdateAction::Delete).await?;
    Ok(first_failure(result.parts.iter().map(|p| &p.status)))
}

/// `PUT` (UPDATE) or `POST` (APPEND) `/contextEntities/{id}/attributes/{attr}`: bare status.
pub async fn write_attribute(
    state: &AppState,
    caller: &Caller,
    target: &Target,
    attr: &str,
    action: UpdateAction,
    body: &[u8],
) -> Result<Status, NgsiError> {
    let request: AttributeValueBody = wire::parse_body(body)?;
    let attribute = wire::AttributeIn {
        name: attr.to_owned(),
        attr_type: request.attr_type,
        value: request.value,
        metadatas: request.metadatas,
    };
    let (_, result) = write_one(state, caller, target, vec![attribute], action).await?;
    Ok(first_failure(result.parts.iter().map(|p| &p.status)))
}

fn named(name: &str) -> wire::AttributeIn {
    wire::AttributeIn { name: name.to_owned(), attr_type: None, value: None, metadatas: Vec::new() }
}

fn first_failure<'a>(mut statuses: impl Iterator<Item = &'a Status> + Clone) -> Status {
    statuses.clone().find(|s| !s.is_ok()).or_else(|| statuses.next()).cloned().unwrap_or_else(Status::ok)
}

async fn write_one(
    state: &AppState,
    caller: &Caller,
    target: &Target,
    attributes: Vec<wire::AttributeIn>,
    action: UpdateAction,
) -> Result<(Echo, crate::store::ElementResult), NgsiError> {
    let element = target.element(attributes);
    check_element(&element)?;
    let path = caller.write_path()?;
    let write_el = to_write(element);
    let echo = Echo::of(&write_el);
    let outcome = write(state, caller, path, action, vec![write_el]).await?;
    let result = outcome.results.into_iter().next().ok_or_else(|| NgsiError::body(Code::Internal, "no result"))?;
    if let Some(conflict) = result.parts.iter().find(|p| p.status.code == Code::Conflict) {
        return Err(NgsiError { status: conflict.status.clone(), transport: None });
    }
    Ok((echo, result))
}

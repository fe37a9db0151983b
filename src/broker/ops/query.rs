//! `queryContext` and the pagination parameters (`limit`, `offset`, `details`) that query-like GETs share.
//!
//! Results list matching entities in creation order, attributes sorted by name and projected to the requested list.
//! No match is an NGSI 404 in `errorCode`; URI-parameter problems are HTTP 400 `orionError`, as Orion.

use std::collections::HashMap;

use axum::http::StatusCode;

use super::super::error::NgsiError;
use super::super::query::{DEFAULT_LIMIT, EntityFilter, EntityQuery, IdMatch, MAX_LIMIT};
use super::super::status::{Code, Status};
use super::super::wire::{self, ContextElementResponse, ContextResponses, EntityIdIn};
use crate::app::AppState;
use crate::caller::Caller;

/// Paging of a query-like request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub limit: usize,
    pub offset: usize,
    pub details: bool,
}

impl Paging {
    /// Reads `limit`, `offset` and `details` from URI parameters.
    pub fn from_params(params: &HashMap<String, String>) -> Result<Self, NgsiError> {
        let bad = |details: String| NgsiError::orion(StatusCode::BAD_REQUEST, Code::BadRequest, details);
        let limit = match params.get("limit") {
            None => DEFAULT_LIMIT,
            Some(raw) => match raw.parse::<usize>() {
                Ok(n) if n > MAX_LIMIT => {
                    return Err(bad(format!("Bad pagination limit: /{n}/ [max: {MAX_LIMIT}]")));
                }
                Ok(n) => n,
                Err(_) => {
                    return Err(bad(format!("Bad pagination limit: /{raw}/ [must be a positive integer number]")));
                }
            },
        };
        let offset = match params.get("offset") {
            None => 0,
            Some(raw) => raw
                .parse::<usize>()
                .map_err(|_| bad(format!("Bad pagination offset: /{raw}/ [must be a decimal number]")))?,
        };
        let details = match params.get("details").map(String::as_str) {
            None | Some("off" | "OFF") => false,
            Some("on" | "ON") => true,
            Some(other) => {
                return Err(bad(format!(
                    "Bad value for /details/: /{other}/ [accepted: /on/, /ON/, /off/, /OFF/. Default is /off/]"
                )));
            }
        };
        Ok(Paging { limit, offset, details })
    }
}

/// Runs a `queryContext` body.
pub async fn query_context(
    state: &AppState,
    caller: &Caller,
    body: &[u8],
    params: &HashMap<String, String>,
) -> Result<ContextResponses, NgsiError> {
    let request: wire::QueryContextRequest = wire::parse_body(body)?;
    if request.entities.is_empty() {
        return Err(NgsiError::bad_request("No entities"));
    }
    if request.restriction.as_ref().is_some_and(has_scopes) {
        return Err(NgsiError::body(Code::NotImplemented, "restriction scopes are not supported"));
    }
    let filters = request.entities.iter().map(filter_of).collect::<Result<_, _>>()?;
    let paging = Paging::from_params(params)?;
    run(state, caller, filters, request.attributes, paging).await
}

pub fn has_scopes(restriction: &serde_json::Value) -> bool {
    restriction.get("scopes").and_then(|s| s.as_array()).is_some_and(|s| !s.is_empty())
}

/// An entity filter from the wire, validating `isPattern` and the pattern.
pub fn filter_of(entity: &EntityIdIn) -> Result<EntityFilter, NgsiError> {
    let pattern = wire::is_pattern(&entity.is_pattern)?;
    if entity.id.is_empty() && !pattern {
        return Err(NgsiError::bad_request("empty entityId:id"));
    }
    Ok(EntityFilter {
        id: IdMatch::new(&entity.id, pattern)?,
        entity_type: entity.entity_type.clone().unwrap_or_default(),
    })
}

/// Runs a query and renders the page; shared by `queryContext` and the query-like GETs.
pub async fn run(
    state: &AppState,
    caller: &Caller,
    filters: Vec<EntityFilter>,
    attributes: Vec<String>,
    paging: Paging,
) -> Result<ContextResponses, NgsiError> {
    let query = EntityQuery {
        tenant: caller.tenant.clone(),
        scope: caller.read_scope()?,
        filters,
        attributes: attributes.clone(),
        limit: paging.limit,
        offset: paging.offset,
    };
    let page = state.store.query(query).await?;
    if page.entities.is_empty() {
        return Err(not_found(page.total, paging.offset));
    }
    let context_responses = page
        .entities
        .iter()
        .map(|e| ContextElementResponse {
            context_element: wire::element_out(e, &attributes),
            status_code: Status::ok(),
        })
        .collect();
    let error_code = paging.details.then(|| Status::error(Code::Ok, &format!("Count: {}", page.total)));
    Ok(ContextResponses { context_responses, error_code })
}

fn not_found(total: usize, offset: usize) -> NgsiError {
    if total > 0 && offset >= total {
        return NgsiError::body(Code::NotFound, format!("Number of matching entities: {total}. Offset is {offset}"));
    }
    NgsiError { status: Status::of(Code::NotFound, None), transport: None }
}

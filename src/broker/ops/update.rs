//! `updateContext`: validates the request as a whole, sends the elements to the store in one batch, and echoes each
//! element with its status parts (values blanked), in request order.
//!
//! Whole-request problems (no elements, empty id, forbidden characters, unknown action, bad service path) answer
//! `errorCode` and write nothing. `isPattern: "true"` elements answer a per-element 501 and are not written.

use super::super::error::NgsiError;
use super::super::model::{EntityId, has_forbidden_chars};
use super::super::status::{Code, Status};
use super::super::update::{ElementWrite, UpdateAction};
use super::super::wire::{self, ContextElementIn, ContextElementOut, ContextElementResponse, ContextResponses};
use crate::app::AppState;
use crate::caller::Caller;
use crate::store::{ElementResult, UpdateBatch, UpdateOutcome};

/// One element of the request after validation: to be written, or answered 501.
enum Planned {
    Write(ElementWrite),
    Pattern(ContextElementIn),
}

/// Runs an `updateContext` body.
pub async fn update_context(state: &AppState, caller: &Caller, body: &[u8]) -> Result<ContextResponses, NgsiError> {
    let request: wire::UpdateContextRequest = wire::parse_body(body)?;
    let action = UpdateAction::parse(&request.update_action)
        .ok_or_else(|| NgsiError::bad_request(format!("invalid updateAction: /{}/", request.update_action)))?;
    let planned = plan(request.context_elements)?;
    let path = caller.write_path()?;
    let writes: Vec<ElementWrite> =
        planned.iter().filter_map(|p| if let Planned::Write(w) = p { Some(w.clone()) } else { None }).collect();
    let outcome = write(state, caller, path, action, writes).await?;
    Ok(ContextResponses { context_responses: respond(&planned, &outcome.results), error_code: None })
}

/// Writes already-validated elements; the convenience operations share this path.
pub async fn write(
    state: &AppState,
    caller: &Caller,
    path: crate::tenancy::ServicePath,
    action: UpdateAction,
    elements: Vec<ElementWrite>,
) -> Result<UpdateOutcome, NgsiError> {
    let batch = UpdateBatch { tenant: caller.tenant.clone(), path, action, elements, origin: caller.origin() };
    Ok(state.store.update(batch).await?)
}

fn plan(elements: Vec<ContextElementIn>) -> Result<Vec<Planned>, NgsiError> {
    if elements.is_empty() {
        return Err(NgsiError::bad_request("No context elements"));
    }
    elements.into_iter().map(plan_element).collect()
}

fn plan_element(element: ContextElementIn) -> Result<Planned, NgsiError> {
    if element.id.is_empty() {
        return Err(NgsiError::bad_request("empty entityId:id"));
    }
    let pattern = wire::is_pattern(&element.is_pattern)?;
    check_element(&element)?;
    if pattern {
        return Ok(Planned::Pattern(element));
    }
    Ok(Planned::Write(to_write(&element)))
}

/// Refuses forbidden characters and nameless attributes anywhere in an element.
pub fn check_element(element: &ContextElementIn) -> Result<(), NgsiError> {
    let bad_key = has_forbidden_chars(&element.id) || element.entity_type.as_deref().is_some_and(has_forbidden_chars);
    if bad_key || element.attributes.iter().any(wire::AttributeIn::has_forbidden_chars) {
        return Err(NgsiError::bad_request("Illegal value for JSON field"));
    }
    if element.attributes.iter().any(|a| a.name.is_empty()) {
        return Err(NgsiError::bad_request("missing attribute name"));
    }
    Ok(())
}

pub fn to_write(element: &ContextElementIn) -> ElementWrite {
    ElementWrite {
        id: EntityId(element.id.clone()),
        entity_type: element.entity_type.clone(),
        attributes: element.attributes.iter().map(wire::AttributeIn::to_write).collect(),
    }
}

fn respond(planned: &[Planned], results: &[ElementResult]) -> Vec<ContextElementResponse> {
    let mut results = results.iter();
    let mut out = Vec::new();
    for p in planned {
        match p {
            Planned::Write(w) => out.extend(results.next().map(|r| echo(w, r)).unwrap_or_default()),
            Planned::Pattern(e) => out.push(not_implemented(e)),
        }
    }
    out
}

/// The response elements of one written element: one per status part.
pub fn echo(write: &ElementWrite, result: &ElementResult) -> Vec<ContextElementResponse> {
    result
        .parts
        .iter()
        .map(|part| ContextElementResponse {
            context_element: ContextElementOut {
                attributes: part.attrs.iter().map(|&i| wire::echo_attribute(&write.attributes[i])).collect(),
                id: write.id.0.clone(),
                is_pattern: "false".to_owned(),
                entity_type: result.entity_type.clone(),
            },
            status_code: part.status.clone(),
        })
        .collect()
}

fn not_implemented(element: &ContextElementIn) -> ContextElementResponse {
    let write = to_write(element);
    ContextElementResponse {
        context_element: ContextElementOut {
            attributes: write.attributes.iter().map(wire::echo_attribute).collect(),
            id: element.id.clone(),
            is_pattern: "true".to_owned(),
            entity_type: element.entity_type.clone().unwrap_or_default(),
        },
        status_code: Status::error(Code::NotImplemented, "isPattern true is not supported in updates"),
    }
}

//! `updateContext`: validates the request as a whole, sends the elements to the store in one batch, and echoes each
//! element with its status parts (values blanked), in request order.
//!
//! Whole-request problems (no elements, empty id, forbidden characters, unknown action, bad service path) answer
//! `errorCode` and write nothing. `isPattern: "true"` elements answer a per-element 501 and are not written.

use super::super::error::NgsiError;
use super::super::model::{EntityId, has_forbidden_chars};
use super::super::status::{Code, Status};
use super::super::update::{ElementWrite, UpdateAction};
use super::super::wire::{
    self, AttributeOut, ContextElementIn, ContextElementOut, ContextElementResponse, ContextResponses,
};
use crate::app::AppState;
use crate::caller::Caller;
use crate::store::{ElementResult, UpdateBatch, UpdateOutcome};

/// One element of the request after validation: to be written, or answered 501.
enum Planned {
    Write(ElementWrite),
    Pattern(ContextElementIn),
}

/// What the answer says of one element: the echo of a written one (its results come from the store), or the 501 of
/// a pattern.
enum Answer {
    Written(Echo),
    Pattern(ContextElementResponse),
}

/// Runs an `updateContext` body.
pub async fn update_context(state: &AppState, caller: &Caller, body: &[u8]) -> Result<ContextResponses, NgsiError> {
    let request: wire::UpdateContextRequest = wire::parse_body(body)?;
    let action = UpdateAction::parse(&request.update_action)
        .ok_or_else(|| NgsiError::bad_request(format!("invalid updateAction: /{}/", request.update_action)))?;
    let planned = plan(request.context_elements)?;
    let path = caller.write_path()?;
    let mut answers = Vec::with_capacity(planned.len());
    let mut writes = Vec::with_capacity(planned.len());
    for p in planned {
        match p {
            Planned::Write(w) => {
                answers.push(Answer::Written(Echo::of(&w)));
                writes.push(w);
            }
            Planned::Pattern(e) => answers.push(Answer::Pattern(not_implemented(e))),
        }
    }
    let outcome = write(state, caller, path, action, writes).await?;
    Ok(ContextResponses { context_responses: respond(answers, &outcome.results), error_code: None })
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
    Ok(Planned::Write(to_write(element)))
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

pub fn to_write(element: ContextElementIn) -> ElementWrite {
    ElementWrite {
        id: EntityId(element.id),
        entity_type: element.entity_type,
        attributes: element.attributes.into_iter().map(wire::AttributeIn::into_write).collect(),
    }
}

fn respond(answers: Vec<Answer>, results: &[ElementResult]) -> Vec<ContextElementResponse> {
    let mut results = results.iter();
    let mut out = Vec::with_capacity(answers.len());
    for answer in answers {
        match answer {
            Answer::Written(echo) => out.extend(results.next().map(|r| echo.respond(r)).unwrap_or_default()),
            Answer::Pattern(response) => out.push(response),
        }
    }
    out
}

/// The answer's view of a written element, taken before the element moves to the store: its id and its attributes
/// as echoed (values blanked).
#[derive(Debug)]
pub struct Echo {
    id: String,
    attributes: Vec<Option<AttributeOut>>,
}

impl Echo {
    pub fn of(write: &ElementWrite) -> Self {
        Echo {
            id: write.id.0.clone(),
            attributes: write.attributes.iter().map(|a| Some(wire::echo_attribute(a))).collect(),
        }
    }

    /// How many attributes the element wrote.
    pub fn attribute_count(&self) -> usize {
        self.attributes.len()
    }

    /// The response elements of the element: one per status part, each echoing the attributes of its part.
    pub fn respond(mut self, result: &ElementResult) -> Vec<ContextElementResponse> {
        let parts = result.parts.iter().map(|part| ContextElementResponse {
            context_element: ContextElementOut {
                attributes: part.attrs.iter().filter_map(|&i| self.attributes.get_mut(i)?.take()).collect(),
                id: self.id.clone(),
                is_pattern: "false".to_owned(),
                entity_type: result.entity_type.clone(),
            },
            status_code: part.status.clone(),
        });
        parts.collect()
    }
}

fn not_implemented(element: ContextElementIn) -> ContextElementResponse {
    let id = element.id.clone();
    let entity_type = element.entity_type.clone().unwrap_or_default();
    let write = to_write(element);
    ContextElementResponse {
        context_element: ContextElementOut {
            attributes: write.attributes.iter().map(wire::echo_attribute).collect(),
            id,
            is_pattern: "true".to_owned(),
            entity_type,
        },
        status_code: Status::error(Code::NotImplemented, "isPattern true is not supported in updates"),
    }
}

//! The request bodies of `fluxgate bench broker`: entity naming, the timed `updateContext` bodies, the bodies that
//! pre-create the entities, and the subscriptions that match them.
//!
//! Entity `i` is `bench{i}` of type `Bench{i % groups}`, where `groups` is the number of subscriptions (at least 1):
//! subscription `g` watches every entity of type `Bench{g}`, so each update matches exactly one subscription and the
//! expected notification count equals the number of updates. Values come from a counter, so every update really
//! changes every attribute it names. This module only builds JSON; it sends nothing.

use bytes::Bytes;
use serde::Serialize;

/// What the load sends: how many entities, attributes per update and subscriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    pub entities: usize,
    pub attributes: usize,
    pub subscriptions: usize,
}

#[derive(Debug, Serialize)]
struct AttributeOut {
    name: String,
    #[serde(rename = "type")]
    attr_type: &'static str,
    value: String,
}

#[derive(Debug, Serialize)]
struct ElementOut {
    #[serde(rename = "type")]
    entity_type: String,
    #[serde(rename = "isPattern")]
    is_pattern: &'static str,
    id: String,
    attributes: Vec<AttributeOut>,
}

#[derive(Debug, Serialize)]
struct UpdateOut {
    #[serde(rename = "contextElements")]
    context_elements: Vec<ElementOut>,
    #[serde(rename = "updateAction")]
    update_action: &'static str,
}

#[derive(Debug, Serialize)]
struct EntityIdOut {
    #[serde(rename = "type")]
    entity_type: String,
    #[serde(rename = "isPattern")]
    is_pattern: &'static str,
    id: &'static str,
}

#[derive(Debug, Serialize)]
struct ConditionOut {
    #[serde(rename = "type")]
    condition_type: &'static str,
    #[serde(rename = "condValues")]
    cond_values: Vec<String>,
}

#[derive(Debug, Serialize)]
struct SubscribeOut {
    entities: Vec<EntityIdOut>,
    attributes: Vec<String>,
    reference: String,
    duration: &'static str,
    #[serde(rename = "notifyConditions")]
    notify_conditions: Vec<ConditionOut>,
}

impl Workload {
    fn groups(&self) -> usize {
        self.subscriptions.max(1)
    }

    fn attribute_names(&self) -> Vec<String> {
        (0..self.attributes).map(|j| format!("attr{j}")).collect()
    }

    fn element(&self, entity: usize, value: u64) -> ElementOut {
        let attributes = self
            .attribute_names()
            .into_iter()
            .zip(0u64..)
            .map(|(name, j)| AttributeOut { name, attr_type: "float", value: format!("{}.5", value + j) })
            .collect();
        let entity_type = format!("Bench{}", entity % self.groups());
        ElementOut { entity_type, is_pattern: "false", id: format!("bench{entity}"), attributes }
    }

    fn body(&self, elements: Vec<ElementOut>) -> Bytes {
        let update = UpdateOut { context_elements: elements, update_action: "APPEND" };
        Bytes::from(serde_json::to_vec(&update).expect("plain structs serialize"))
    }

    /// The timed request number `seq` of a run: one entity, round-robin, with values unique to `seq`.
    pub fn update(&self, seq: u64) -> Bytes {
        let entity = (seq % self.entities.max(1) as u64) as usize;
        self.body(vec![self.element(entity, (seq + 1) * self.attributes as u64)])
    }

    /// Bodies creating every entity, `per_request` entities per body.
    pub fn creations(&self, per_request: usize) -> Vec<Bytes> {
        let all: Vec<usize> = (0..self.entities).collect();
        all.chunks(per_request.max(1))
            .map(|chunk| self.body(chunk.iter().map(|&e| self.element(e, 0)).collect()))
            .collect()
    }

    /// Bodies of the subscriptions, each notifying `reference` on changes of the updated attributes.
    pub fn subscriptions(&self, reference: &str) -> Vec<Bytes> {
        (0..self.subscriptions).map(|g| self.subscription(g, reference)).collect()
    }

    fn subscription(&self, group: usize, reference: &str) -> Bytes {
        let subscribe = SubscribeOut {
            entities: vec![EntityIdOut { entity_type: format!("Bench{group}"), is_pattern: "true", id: ".*" }],
            attributes: self.attribute_names(),
            reference: reference.to_owned(),
            duration: "PT1H",
            notify_conditions: vec![ConditionOut { condition_type: "ONCHANGE", cond_values: self.attribute_names() }],
        };
        Bytes::from(serde_json::to_vec(&subscribe).expect("plain structs serialize"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload() -> Workload {
        Workload { entities: 10, attributes: 3, subscriptions: 4 }
    }

    #[test]
    fn updates_go_round_robin_with_fresh_values() {
        let first = String::from_utf8(workload().update(3).to_vec()).unwrap();
        let again = String::from_utf8(workload().update(13).to_vec()).unwrap();
        assert!(first.contains(r#""id":"bench3""#) && again.contains(r#""id":"bench3""#), "{first}");
        assert!(first.contains(r#""type":"Bench3""#), "{first}");
        assert_ne!(first, again);
    }

    #[test]
    fn creations_cover_every_entity_once() {
        let bodies = workload().creations(4);
        assert_eq!(bodies.len(), 3);
        let text: String = bodies.iter().map(|b| String::from_utf8(b.to_vec()).unwrap()).collect();
        assert_eq!(text.matches(r#""isPattern":"false""#).count(), 10);
    }
}

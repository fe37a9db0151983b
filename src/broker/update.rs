//! The meaning of an update: applies one context element of an `updateContext` to the stored entity, as Orion v1 does.
//!
//! Pure functions only: given the current entity (or none), an action and the element, decide the new state, which
//! attributes were actually modified (the input of ONCHANGE subscriptions) and the per-element result parts that the
//! response echoes. The store calls this inside its transaction; no I/O happens here.

use std::collections::BTreeMap;

use serde_json::Value;
use smallvec::SmallVec;

use super::model::{Attribute, Entity, EntityId, EntityKey, Metadata};
use super::status::{Code, Status};

/// The five update actions of NGSI v1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum UpdateAction {
    Append,
    AppendStrict,
    Update,
    Delete,
    Replace,
}

impl UpdateAction {
    /// Parses an `updateAction` value, case-insensitively.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw.to_ascii_uppercase().as_str() {
            "APPEND" => Some(Self::Append),
            "APPEND_STRICT" => Some(Self::AppendStrict),
            "UPDATE" => Some(Self::Update),
            "DELETE" => Some(Self::Delete),
            "REPLACE" => Some(Self::Replace),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Append => "APPEND",
            Self::AppendStrict => "APPEND_STRICT",
            Self::Update => "UPDATE",
            Self::Delete => "DELETE",
            Self::Replace => "REPLACE",
        }
    }
}

/// One attribute as a request writes it: a missing type or value keeps the stored one.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AttrWrite {
    pub name: String,
    pub attr_type: Option<String>,
    pub value: Option<Value>,
    pub metadatas: Vec<(String, Metadata)>,
}

/// One context element of an update request, already validated for shape and characters.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ElementWrite {
    pub id: EntityId,
    pub entity_type: Option<String>,
    pub attributes: Vec<AttrWrite>,
}

/// A part of an element's response: which request attributes it echoes, and their status.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultPart {
    pub attrs: Vec<usize>,
    pub status: Status,
}

/// What to do with the stored entity. Every variant hands back the entity it was given (unchanged, updated or
/// removed), so that the store can keep it without copying it first.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Write nothing; the current entity, if there is one, as it was.
    Keep(Option<Entity>),
    Put(Entity),
    /// Delete the entity; it is given as it was.
    Remove(Entity),
}

/// The effect of one element: response parts, new state and the names of the attributes actually modified.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub parts: Vec<ResultPart>,
    pub next: Next,
    pub changed: Vec<String>,
}

impl Applied {
    fn refused(status: Status, attrs: Vec<usize>, current: Option<Entity>) -> Self {
        Applied { parts: vec![ResultPart { attrs, status }], next: Next::Keep(current), changed: Vec::new() }
    }
}

/// Applies one element to the stored entity it means, or to the key of one that does not exist yet.
pub fn apply(action: UpdateAction, target: Target, write: &ElementWrite) -> Applied {
    let all: Vec<usize> = (0..write.attributes.len()).collect();
    let key = match &target {
        Ok(entity) => &entity.key,
        Err(key) => key,
    };
    if let Some(refusal) = check_attributes(action, key, write) {
        return Applied::refused(refusal, all, target.ok());
    }
    match (action, target) {
        (UpdateAction::Append, target) => append(target, write),
        (UpdateAction::AppendStrict, target) => append_strict(target, write),
        (_, Err(key)) => Applied::refused(Status::error(Code::NotFound, &key.id.0), all, None),
        (UpdateAction::Update, Ok(entity)) => update(entity, write),
        (UpdateAction::Delete, Ok(entity)) => delete(entity, write),
        (UpdateAction::Replace, Ok(entity)) => replace(entity, write),
    }
}

fn check_attributes(action: UpdateAction, key: &EntityKey, write: &ElementWrite) -> Option<Status> {
    let repeat = first_repeat(&write.attributes);
    for (i, attr) in write.attributes.iter().enumerate() {
        if repeat == Some(i) {
            return Some(Status::error(Code::InvalidModification, &format!("duplicated attribute /{}/", attr.name)));
        }
        let empty =
            attr.value.is_none() && attr.attr_type.as_deref().unwrap_or("").is_empty() && attr.metadatas.is_empty();
        if empty && action != UpdateAction::Delete {
            let details = format!(
                "action: {} - entity: [{}, {}] - offending attribute: {} - empty attribute not allowed in APPEND or UPDATE",
                action.name(),
                key.id,
                key.entity_type,
                attr.name
            );
            return Some(Status::error(Code::InvalidModification, &details));
        }
    }
    None
}

/// The index of the first attribute whose name an earlier one has. Sorting the names (inline for a handful) finds it
/// in O(n log n) without hashing each name into a set: equal names sort by index, so each pair of neighbours with
/// one name gives a later occurrence.
fn first_repeat(attributes: &[AttrWrite]) -> Option<usize> {
    let mut names: SmallVec<[(&str, usize); 8]> =
        attributes.iter().enumerate().map(|(i, a)| (a.name.as_str(), i)).collect();
    names.sort_unstable();
    names.windows(2).filter(|pair| pair[0].0 == pair[1].0).map(|pair| pair[1].1).min()
}

/// The stored entity, or the key of one that does not exist yet.
pub type Target = Result<Entity, EntityKey>;

fn open(target: Target) -> (Entity, bool) {
    match target {
        Ok(entity) => (entity, false),
        Err(key) => (Entity::new(key), true),
    }
}

fn put_if(entity: Entity, created: bool, changed: &[String]) -> Next {
    if created || !changed.is_empty() { Next::Put(entity) } else { Next::Keep(Some(entity)) }
}

fn append(target: Target, write: &ElementWrite) -> Applied {
    let (mut entity, created) = open(target);
    let mut changed = Vec::new();
    for attr in &write.attributes {
        if merge_attribute(&mut entity.attributes, attr) {
            changed.push(attr.name.clone());
        }
    }
    let all = (0..write.attributes.len()).collect();
    let next = put_if(entity, created, &changed);
    Applied { parts: vec![ResultPart { attrs: all, status: Status::ok() }], next, changed }
}

fn append_strict(target: Target, write: &ElementWrite) -> Applied {
    let (mut entity, created) = open(target);
    let (existing, new): (Vec<usize>, Vec<usize>) =
        (0..write.attributes.len()).partition(|&i| entity.attributes.contains_key(&write.attributes[i].name));
    let mut changed = Vec::new();
    for &i in &new {
        merge_attribute(&mut entity.attributes, &write.attributes[i]);
        changed.push(write.attributes[i].name.clone());
    }
    let mut parts = Vec::new();
    if !new.is_empty() || existing.is_empty() {
        parts.push(ResultPart { attrs: new, status: Status::ok() });
    }
    if !existing.is_empty() {
        let names: Vec<&str> = existing.iter().map(|&i| write.attributes[i].name.as_str()).collect();
        let details = format!("one or more of the attributes in the request already exist: [ {} ]", names.join(", "));
        parts.push(ResultPart { attrs: Vec::new(), status: Status::error(Code::BadRequest, &details) });
    }
    let next = put_if(entity, created, &changed);
    Applied { parts, next, changed }
}

fn update(mut entity: Entity, write: &ElementWrite) -> Applied {
    let (found, missing): (Vec<usize>, Vec<usize>) =
        (0..write.attributes.len()).partition(|&i| entity.attributes.contains_key(&write.attributes[i].name));
    if found.is_empty() && !missing.is_empty() && entity.attributes.is_empty() {
        let details = offending(UpdateAction::Update, &entity.key, &write.attributes[missing[0]].name, "");
        return Applied::refused(Status::error(Code::InvalidParameter, &details), missing, Some(entity));
    }
    let mut changed = Vec::new();
    for &i in &found {
        if merge_attribute(&mut entity.attributes, &write.attributes[i]) {
            changed.push(write.attributes[i].name.clone());
        }
    }
    let mut parts = Vec::new();
    if !found.is_empty() || missing.is_empty() {
        parts.push(ResultPart { attrs: found, status: Status::ok() });
    }
    if !missing.is_empty() {
        parts.push(ResultPart { attrs: missing, status: Status::error(Code::NotFound, &entity.key.id.0) });
    }
    let next = put_if(entity, false, &changed);
    Applied { parts, next, changed }
}

fn delete(mut entity: Entity, write: &ElementWrite) -> Applied {
    let all: Vec<usize> = (0..write.attributes.len()).collect();
    if write.attributes.is_empty() {
        let changed = entity.attributes.keys().cloned().collect();
        let next = Next::Remove(entity);
        return Applied { parts: vec![ResultPart { attrs: all, status: Status::ok() }], next, changed };
    }
    if let Some(missing) = write.attributes.iter().find(|a| !entity.attributes.contains_key(&a.name)) {
        let details = offending(UpdateAction::Delete, &entity.key, &missing.name, " - attribute not found");
        return Applied::refused(Status::error(Code::InvalidParameter, &details), all, Some(entity));
    }
    let changed: Vec<String> = write.attributes.iter().map(|a| a.name.clone()).collect();
    for name in &changed {
        entity.attributes.remove(name);
    }
    Applied { parts: vec![ResultPart { attrs: all, status: Status::ok() }], next: Next::Put(entity), changed }
}

fn replace(mut entity: Entity, write: &ElementWrite) -> Applied {
    let old = std::mem::take(&mut entity.attributes);
    let mut changed: Vec<String> =
        old.keys().filter(|n| !write.attributes.iter().any(|a| &a.name == *n)).cloned().collect();
    for attr in &write.attributes {
        let mut fresh: BTreeMap<String, Attribute> = BTreeMap::new();
        merge_attribute(&mut fresh, attr);
        let new_attr = fresh.remove(&attr.name).expect("merge inserts the attribute");
        if old.get(&attr.name) != Some(&new_attr) {
            changed.push(attr.name.clone());
        }
        entity.attributes.insert(attr.name.clone(), new_attr);
    }
    let all = (0..write.attributes.len()).collect();
    Applied { parts: vec![ResultPart { attrs: all, status: Status::ok() }], next: Next::Put(entity), changed }
}

/// Merges one written attribute into the map; returns whether it was actually modified. Compares field by field
/// instead of cloning the stored attribute, since this runs for every attribute of every update on the writer thread.
fn merge_attribute(attributes: &mut BTreeMap<String, Attribute>, write: &AttrWrite) -> bool {
    let Some(stored) = attributes.get_mut(&write.name) else {
        attributes.insert(write.name.clone(), new_attribute(write));
        return true;
    };
    let mut modified = false;
    if let Some(t) = write.attr_type.as_deref().filter(|t| !t.is_empty() && *t != stored.attr_type) {
        t.clone_into(&mut stored.attr_type);
        modified = true;
    }
    if let Some(v) = write.value.as_ref().filter(|v| **v != stored.value) {
        stored.value = v.clone();
        modified = true;
    }
    modified |= merge_metadatas(&mut stored.metadatas, &write.metadatas);
    let compound = matches!(write.value, Some(Value::Array(_) | Value::Object(_)));
    compound || modified
}

/// Writes the metadata into the stored map; returns whether the map changed. A write may repeat a name: the last
/// occurrence wins, as inserting them in order would, so only that one is compared and written. This avoids copying
/// the stored map to compare it afterwards.
fn merge_metadatas(stored: &mut BTreeMap<String, Metadata>, written: &[(String, Metadata)]) -> bool {
    let mut modified = false;
    for (i, (name, meta)) in written.iter().enumerate() {
        if written[i + 1..].iter().any(|(later, _)| later == name) {
            continue;
        }
        match stored.get_mut(name) {
            Some(old) if old == meta => {}
            Some(old) => {
                old.clone_from(meta);
                modified = true;
            }
            None => {
                stored.insert(name.clone(), meta.clone());
                modified = true;
            }
        }
    }
    modified
}

fn new_attribute(write: &AttrWrite) -> Attribute {
    Attribute {
        attr_type: write.attr_type.clone().unwrap_or_default(),
        value: write.value.clone().unwrap_or_else(|| Value::String(String::new())),
        metadatas: write.metadatas.iter().cloned().collect(),
    }
}

fn offending(action: UpdateAction, key: &EntityKey, attr: &str, suffix: &str) -> String {
    format!(
        "action: {} - entity: [{}, {}] - offending attribute: {attr}{suffix}",
        action.name(),
        key.id,
        key.entity_type
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tenancy::{ServicePath, Tenant};

    fn key() -> EntityKey {
        EntityKey {
            tenant: Tenant::default_tenant(),
            path: ServicePath::root(),
            id: EntityId("Room1".into()),
            entity_type: "Room".into(),
        }
    }

    fn write(attrs: &[(&str, &str)]) -> ElementWrite {
        ElementWrite {
            id: EntityId("Room1".into()),
            entity_type: Some("Room".into()),
            attributes: attrs
                .iter()
                .map(|(n, v)| AttrWrite {
                    name: (*n).into(),
                    attr_type: Some("float".into()),
                    value: Some(Value::String((*v).into())),
                    metadatas: vec![],
                })
                .collect(),
        }
    }

    fn stored(attrs: &[(&str, &str)]) -> Entity {
        match apply(UpdateAction::Append, Err(key()), &write(attrs)).next {
            Next::Put(e) => e,
            other => panic!("append did not create: {other:?}"),
        }
    }

    #[test]
    fn the_first_repeated_name_is_the_earliest_second_occurrence() {
        let repeat =
            |names: &[&str]| first_repeat(&write(&names.iter().map(|n| (*n, "1")).collect::<Vec<_>>()).attributes);
        assert_eq!(repeat(&["a", "b", "c"]), None);
        assert_eq!(repeat(&["a", "b", "b", "a"]), Some(2));
        assert_eq!(repeat(&["b", "a", "b", "a"]), Some(2));
        assert_eq!(repeat(&["a", "b", "c", "d", "e", "f", "g", "h", "i", "a"]), Some(9), "past the inline names");
        assert_eq!(repeat(&[]), None);
    }

    #[test]
    fn same_value_again_changes_nothing() {
        let applied = apply(UpdateAction::Update, Ok(stored(&[("t", "1")])), &write(&[("t", "1")]));
        assert!(applied.changed.is_empty());
        assert!(matches!(applied.next, Next::Keep(Some(_))));
    }

    fn with_unit(entity: &ElementWrite, units: &[&str]) -> ElementWrite {
        let mut write = entity.clone();
        let meta = |u: &&str| ("unit".to_owned(), Metadata { metadata_type: "string".into(), value: Value::from(*u) });
        write.attributes[0].metadatas = units.iter().map(meta).collect();
        write
    }

    fn stored_with_unit(unit: &str) -> Entity {
        match apply(UpdateAction::Append, Err(key()), &with_unit(&write(&[("t", "1")]), &[unit])).next {
            Next::Put(e) => e,
            other => panic!("append did not create: {other:?}"),
        }
    }

    #[test]
    fn repeated_metadata_name_compares_the_last_occurrence() {
        let same = with_unit(&write(&[("t", "1")]), &["F", "C"]);
        let applied = apply(UpdateAction::Update, Ok(stored_with_unit("C")), &same);
        assert!(applied.changed.is_empty());
        assert_eq!(applied.next, Next::Keep(Some(stored_with_unit("C"))));
        let other = with_unit(&write(&[("t", "1")]), &["C", "F"]);
        let applied = apply(UpdateAction::Update, Ok(stored_with_unit("C")), &other);
        assert_eq!(applied.changed, vec!["t".to_owned()]);
        assert_eq!(applied.next, Next::Put(stored_with_unit("F")));
    }

    #[test]
    fn update_splits_found_and_missing() {
        let applied = apply(UpdateAction::Update, Ok(stored(&[("t", "1")])), &write(&[("t", "2"), ("p", "3")]));
        assert_eq!(applied.parts.len(), 2);
        assert_eq!(applied.parts[1].status, Status::error(Code::NotFound, "Room1"));
        assert_eq!(applied.changed, vec!["t".to_owned()]);
    }

    #[test]
    fn append_strict_reports_existing() {
        let applied = apply(UpdateAction::AppendStrict, Ok(stored(&[("a", "1")])), &write(&[("a", "1"), ("b", "2")]));
        assert_eq!(applied.changed, vec!["b".to_owned()]);
        let details = "one or more of the attributes in the request already exist: [ a ]";
        assert_eq!(applied.parts[1].status, Status::error(Code::BadRequest, details));
    }

    #[test]
    fn delete_of_missing_attribute_is_472() {
        let applied = apply(UpdateAction::Delete, Ok(stored(&[("a", "1")])), &write(&[("p", "")]));
        let details = "action: DELETE - entity: [Room1, Room] - offending attribute: p - attribute not found";
        assert_eq!(applied.parts[0].status, Status::error(Code::InvalidParameter, details));
        assert_eq!(applied.next, Next::Keep(Some(stored(&[("a", "1")]))));
    }

    #[test]
    fn replace_drops_other_attributes() {
        let applied = apply(UpdateAction::Replace, Ok(stored(&[("a", "1"), ("b", "2")])), &write(&[("a", "1")]));
        let Next::Put(entity) = applied.next else { panic!("replace must write") };
        assert_eq!(entity.attributes.keys().collect::<Vec<_>>(), vec!["a"]);
        assert_eq!(applied.changed, vec!["b".to_owned()]);
    }
}

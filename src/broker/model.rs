//! Domain types of the context broker: entities, attributes and metadata, independent of any wire format.
//!
//! Values are JSON values whose scalars are strings (NGSI v1 carries numbers and booleans as text); compound values
//! keep their shape with string leaves. Attributes and metadata live in ordered maps, so every rendering lists them
//! sorted by name in byte order, as Orion does. Nothing here knows about HTTP, SQL or serde field names.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tenancy::{ServicePath, Tenant};

/// An entity id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EntityId(pub String);

impl fmt::Display for EntityId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where an entity lives and what identifies it: tenant, service path, id and type (empty type is a type of its own).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EntityKey {
    pub tenant: Tenant,
    pub path: ServicePath,
    pub id: EntityId,
    pub entity_type: String,
}

/// One metadata entry of an attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    pub metadata_type: String,
    pub value: Value,
}

/// One attribute of an entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attribute {
    pub attr_type: String,
    pub value: Value,
    pub metadatas: BTreeMap<String, Metadata>,
}

/// An entity as stored: its identity and its attributes by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entity {
    pub key: EntityKey,
    pub attributes: BTreeMap<String, Attribute>,
}

impl Entity {
    pub fn new(key: EntityKey) -> Self {
        Entity { key, attributes: BTreeMap::new() }
    }
}

/// Turns a JSON value from a v1 request into its stored form: scalars as strings, compound leaves as strings.
pub fn normalize_value(value: Value) -> Value {
    match value {
        Value::Null => Value::String(String::new()),
        Value::Bool(b) => Value::String(b.to_string()),
        Value::Number(n) => Value::String(n.to_string()),
        Value::String(s) => Value::String(s),
        Value::Array(items) => Value::Array(items.into_iter().map(normalize_value).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, normalize_value(v))).collect()),
    }
}

/// Whether a text holds one of the characters Orion forbids in payloads: `< > " ' = ; ( )`.
pub fn has_forbidden_chars(text: &str) -> bool {
    text.bytes().any(|b| matches!(b, b'<' | b'>' | b'"' | b'\'' | b'=' | b';' | b'(' | b')'))
}

/// Whether any string leaf of a value holds a forbidden character.
pub fn value_has_forbidden_chars(value: &Value) -> bool {
    match value {
        Value::String(s) => has_forbidden_chars(s),
        Value::Array(items) => items.iter().any(value_has_forbidden_chars),
        Value::Object(map) => map.iter().any(|(k, v)| has_forbidden_chars(k) || value_has_forbidden_chars(v)),
        _ => false,
    }
}

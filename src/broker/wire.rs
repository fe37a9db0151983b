//! NGSI v1 wire types: the exact JSON of Orion 1.x requests and responses, and conversions to and from the domain.
//!
//! Requests refuse unknown fields (Orion's "JSON Parse Error: unknown field: /x"); values keep their JSON shape until
//! converted. Responses serialize with Orion's field names and omit what Orion omits. Conversions to domain types are
//! explicit functions here; handlers never build JSON by hand.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::error::NgsiError;
use super::model::{self, Attribute, Entity, Metadata};
use super::status::Status;
use super::update::AttrWrite;

/// `"true"`/`"false"` as a string, or a JSON boolean; anything else is kept to be reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IsPattern {
    Flag(bool),
    Invalid(String),
}

impl<'de> Deserialize<'de> for IsPattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Bool(b) => IsPattern::Flag(b),
            Value::String(s) if s.eq_ignore_ascii_case("true") => IsPattern::Flag(true),
            Value::String(s) if s.eq_ignore_ascii_case("false") || s.is_empty() => IsPattern::Flag(false),
            Value::String(s) => IsPattern::Invalid(s),
            other => IsPattern::Invalid(other.to_string()),
        })
    }
}

/// Reads `isPattern`, absent meaning false.
pub fn is_pattern(flag: &Option<IsPattern>) -> Result<bool, NgsiError> {
    match flag {
        None => Ok(false),
        Some(IsPattern::Flag(b)) => Ok(*b),
        Some(IsPattern::Invalid(raw)) => {
            Err(NgsiError::bad_request(format!("invalid isPattern value for entity: /{raw}/")))
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetadataIn {
    pub name: String,
    #[serde(rename = "type", default)]
    pub metadata_type: Option<String>,
    #[serde(default)]
    pub value: Option<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeIn {
    pub name: String,
    #[serde(rename = "type", default)]
    pub attr_type: Option<String>,
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub metadatas: Vec<MetadataIn>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextElementIn {
    #[serde(default)]
    pub id: String,
    #[serde(rename = "type", default)]
    pub entity_type: Option<String>,
    #[serde(rename = "isPattern", default)]
    pub is_pattern: Option<IsPattern>,
    #[serde(default)]
    pub attributes: Vec<AttributeIn>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateContextRequest {
    #[serde(rename = "contextElements", default)]
    pub context_elements: Vec<ContextElementIn>,
    #[serde(rename = "updateAction")]
    pub update_action: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityIdIn {
    #[serde(default)]
    pub id: String,
    #[serde(rename = "type", default)]
    pub entity_type: Option<String>,
    #[serde(rename = "isPattern", default)]
    pub is_pattern: Option<IsPattern>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryContextRequest {
    #[serde(default)]
    pub entities: Vec<EntityIdIn>,
    #[serde(default)]
    pub attributes: Vec<String>,
    #[serde(default)]
    pub restriction: Option<Value>,
}

/// Body of the convenience operations that write attributes (`POST`/`PUT /contextEntities/{id}`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributesBody {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(rename = "type", default)]
    pub entity_type: Option<String>,
    #[serde(rename = "isPattern", default)]
    pub is_pattern: Option<IsPattern>,
    #[serde(default)]
    pub attributes: Vec<AttributeIn>,
}

/// Body of `PUT /contextEntities/{id}/attributes/{attr}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeValueBody {
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(rename = "type", default)]
    pub attr_type: Option<String>,
    #[serde(default)]
    pub metadatas: Vec<MetadataIn>,
}

/// Parses a request body, mapping serde's complaints to Orion's `JSON Parse Error` details.
pub fn parse_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, NgsiError> {
    serde_json::from_slice(body).map_err(|e| NgsiError::bad_request(parse_error_details(&e)))
}

fn parse_error_details(error: &serde_json::Error) -> String {
    if error.is_syntax() || error.is_eof() {
        return "JSON Parse Error".to_owned();
    }
    let text = error.to_string();
    let text = text.split(" at line ").next().unwrap_or(&text);
    match text.strip_prefix("unknown field `").and_then(|rest| rest.split('`').next()) {
        Some(field) => format!("JSON Parse Error: unknown field: /{field}"),
        None => format!("JSON Parse Error: {text}"),
    }
}

impl AttributeIn {
    /// The domain form of a written attribute; values normalized to v1 strings.
    pub fn into_write(self) -> AttrWrite {
        AttrWrite {
            name: self.name,
            attr_type: self.attr_type,
            value: self.value.map(model::normalize_value),
            metadatas: self.metadatas.into_iter().map(MetadataIn::into_domain).collect(),
        }
    }

    /// Whether any field holds a character Orion forbids.
    pub fn has_forbidden_chars(&self) -> bool {
        model::has_forbidden_chars(&self.name)
            || self.attr_type.as_deref().is_some_and(model::has_forbidden_chars)
            || self.value.as_ref().is_some_and(model::value_has_forbidden_chars)
            || self.metadatas.iter().any(MetadataIn::has_forbidden_chars)
    }
}

impl MetadataIn {
    fn into_domain(self) -> (String, Metadata) {
        let value = self.value.map(model::normalize_value).unwrap_or(Value::String(String::new()));
        (self.name, Metadata { metadata_type: self.metadata_type.unwrap_or_default(), value })
    }

    fn has_forbidden_chars(&self) -> bool {
        model::has_forbidden_chars(&self.name)
            || self.metadata_type.as_deref().is_some_and(model::has_forbidden_chars)
            || self.value.as_ref().is_some_and(model::value_has_forbidden_chars)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetadataOut {
    pub name: String,
    #[serde(rename = "type")]
    pub metadata_type: String,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttributeOut {
    pub name: String,
    #[serde(rename = "type")]
    pub attr_type: String,
    pub value: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metadatas: Vec<MetadataOut>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextElementOut {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<AttributeOut>,
    pub id: String,
    #[serde(rename = "isPattern")]
    pub is_pattern: String,
    #[serde(rename = "type")]
    pub entity_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextElementResponse {
    #[serde(rename = "contextElement")]
    pub context_element: ContextElementOut,
    #[serde(rename = "statusCode")]
    pub status_code: Status,
}

/// `{"contextResponses":[...]}`, with the optional top-level `errorCode` of `details=on`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextResponses {
    #[serde(rename = "contextResponses")]
    pub context_responses: Vec<ContextElementResponse>,
    #[serde(rename = "errorCode", skip_serializing_if = "Option::is_none")]
    pub error_code: Option<Status>,
}

/// Renders a stored attribute.
pub fn attribute_out(name: &str, attr: &Attribute) -> AttributeOut {
    AttributeOut {
        name: name.to_owned(),
        attr_type: attr.attr_type.clone(),
        value: attr.value.clone(),
        metadatas: metadatas_out(attr.metadatas.iter()),
    }
}

/// Renders written attributes with blank values, as update responses echo them.
pub fn echo_attribute(write: &AttrWrite) -> AttributeOut {
    AttributeOut {
        name: write.name.clone(),
        attr_type: write.attr_type.clone().unwrap_or_default(),
        value: Value::String(String::new()),
        metadatas: metadatas_out(write.metadatas.iter().map(|(n, m)| (n, m))),
    }
}

fn metadatas_out<'a>(items: impl Iterator<Item = (&'a String, &'a Metadata)>) -> Vec<MetadataOut> {
    items
        .map(|(name, m)| MetadataOut {
            name: name.clone(),
            metadata_type: m.metadata_type.clone(),
            value: m.value.clone(),
        })
        .collect()
}

/// Renders an entity with the given attributes (all when `names` is empty), sorted by name.
pub fn element_out(entity: &Entity, names: &[String]) -> ContextElementOut {
    let attributes = entity
        .attributes
        .iter()
        .filter(|(n, _)| names.is_empty() || names.contains(n))
        .map(|(n, a)| attribute_out(n, a))
        .collect();
    ContextElementOut {
        attributes,
        id: entity.key.id.0.clone(),
        is_pattern: "false".to_owned(),
        entity_type: entity.key.entity_type.clone(),
    }
}

//! The CEP configuration exactly as Cepheus users POST it (`host`, `in`, `out`, `statements`; camelCase
//! JSON) and its shape validation, with Cepheus's messages. It owns the wire format only: turning the
//! declarations into stream types is the catalog's job, the statements the parser's.

use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CepConfig {
    #[serde(default, deserialize_with = "uri_text")]
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_path: Option<String>,
    #[serde(rename = "in", default)]
    pub inputs: Vec<EventTypeIn>,
    #[serde(rename = "out", default)]
    pub outputs: Vec<EventTypeOut>,
    #[serde(default)]
    pub statements: Vec<String>,
}

/// An `in` declaration: entities of `type` (and `id`, a regex when `isPattern`) become events.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventTypeIn {
    #[serde(default)]
    pub id: String,
    #[serde(rename = "type", default)]
    pub entity_type: String,
    #[serde(default, deserialize_with = "bool_or_string")]
    pub is_pattern: bool,
    #[serde(default)]
    pub attributes: Vec<Attribute>,
    #[serde(default)]
    pub providers: Vec<Provider>,
}

/// An `out` declaration: events inserted into `type` become entity updates to the brokers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventTypeOut {
    #[serde(default)]
    pub id: String,
    #[serde(rename = "type", default)]
    pub entity_type: String,
    #[serde(default, deserialize_with = "bool_or_string")]
    pub is_pattern: bool,
    #[serde(default)]
    pub attributes: Vec<Attribute>,
    #[serde(default)]
    pub brokers: Vec<Broker>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Attribute {
    #[serde(default)]
    pub name: String,
    #[serde(rename = "type", default)]
    pub attr_type: String,
    #[serde(default)]
    pub metadata: Vec<Metadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jsonpath: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Metadata {
    pub name: String,
    #[serde(rename = "type")]
    pub meta_type: String,
}

/// A provider is a bare URL or an object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Provider {
    Url(String),
    Full(Broker),
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Broker {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_token: Option<String>,
}

/// `host` is a URI, as Cepheus's `java.net.URI` reads it: text that is no URI leaves the configuration unread (a blank
/// one is the shape check's to report).
fn uri_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let text = String::deserialize(d)?;
    if let (false, Err(reason)) = (text.trim().is_empty(), text.parse::<axum::http::Uri>()) {
        return Err(serde::de::Error::custom(format!("`host` is not a URI ({reason}): {text:?}")));
    }
    Ok(text)
}

/// `isPattern` accepts `true` and `"true"`.
fn bool_or_string<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Flag {
        Bool(bool),
        Text(String),
    }
    Ok(match Flag::deserialize(d)? {
        Flag::Bool(b) => b,
        Flag::Text(t) => t.eq_ignore_ascii_case("true"),
    })
}

impl CepConfig {
    /// The event types that come in from outside (`in`), as the engine's stream names.
    pub fn incoming_types(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().map(|i| i.entity_type.as_str())
    }

    /// Cepheus's shape checks; every problem, in declaration order.
    pub fn validate(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.host.trim().is_empty() {
            problems.push("Configuration.host must not be empty".to_string());
        }
        if self.inputs.is_empty() {
            problems.push("Configuration.in must contain a list of incoming events".to_string());
        }
        if self.outputs.is_empty() {
            problems.push("Configuration.out must contain a list of outgoing events".to_string());
        }
        if self.statements.is_empty() {
            problems.push("Configuration.statements must contain a list of EPL statements".to_string());
        }
        let declarations = self
            .inputs
            .iter()
            .map(|i| (&i.id, &i.entity_type, &i.attributes))
            .chain(self.outputs.iter().map(|o| (&o.id, &o.entity_type, &o.attributes)));
        for (id, ty, attributes) in declarations {
            declaration_problems(id, ty, attributes, &mut problems);
        }
        problems
    }
}

fn declaration_problems(id: &str, ty: &str, attributes: &[Attribute], out: &mut Vec<String>) {
    let mut push = |m: &str| {
        if !out.iter().any(|p| p == m) {
            out.push(m.to_string());
        }
    };
    if id.is_empty() {
        push("All events must have an id");
    }
    if ty.is_empty() {
        push("All events must have a type");
    }
    if attributes.is_empty() {
        push("All events must define a list of attributes");
    }
    for a in attributes {
        if a.name.is_empty() {
            push("All attributes must have a name");
        }
        if a.attr_type.is_empty() {
            push("All attributes must have a type");
        }
    }
}

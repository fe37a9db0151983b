//! Device registrations: the fields of the device API, and their validation with the IoT agents' error texts.
//!
//! A registration is checked field by field before it is typed, so that a missing field, an unknown field, a wrong
//! protocol or a forbidden character is reported with its JSON path (`/devices[1]/entity_name`), as the C++ agent
//! does. Checking is pure; storing is the store's job.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use crate::tenancy::{ServicePath, Tenant};

/// Protocol of devices that send UltraLight over HTTP.
pub const HTTP_PROTOCOL: &str = "PDI-IoTA-UltraLight";
/// Protocol of devices that send UltraLight over MQTT.
pub const MQTT_PROTOCOL: &str = "PDI-IoTA-MQTT-UltraLight";

const REQUIRED: &[&str] = &["device_id", "entity_name", "entity_type", "protocol", "timezone"];
const OPTIONAL: &[&str] = &["endpoint", "attributes", "commands", "static_attributes"];

/// A measure alias mapped to an entity attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeMapping {
    pub object_id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub attr_type: String,
}

/// A command the device accepts; `value` is the text template (`%s` is the written value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    pub name: String,
    #[serde(rename = "type", default)]
    pub command_type: String,
    #[serde(default)]
    pub value: String,
}

/// An attribute added to every update of the device's entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticAttribute {
    pub name: String,
    #[serde(rename = "type", default)]
    pub attr_type: String,
    pub value: Value,
}

impl StaticAttribute {
    /// The attribute as written to the entity (values in their v1 string form).
    pub fn to_write(&self) -> crate::broker::update::AttrWrite {
        crate::broker::update::AttrWrite {
            name: self.name.clone(),
            attr_type: Some(self.attr_type.clone()),
            value: Some(crate::broker::model::normalize_value(self.value.clone())),
            metadatas: Vec::new(),
        }
    }
}

/// A device as registered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    pub device_id: String,
    pub entity_name: String,
    pub entity_type: String,
    pub protocol: String,
    pub timezone: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(default)]
    pub attributes: Vec<AttributeMapping>,
    #[serde(default)]
    pub commands: Vec<CommandSpec>,
    #[serde(default)]
    pub static_attributes: Vec<StaticAttribute>,
}

impl Device {
    pub fn command(&self, name: &str) -> Option<&CommandSpec> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// The attribute name and type a measure alias maps to (the alias itself, typed `string`, when unmapped).
    pub fn map_alias<'a>(&'a self, alias: &'a str) -> (&'a str, &'a str) {
        match self.attributes.iter().find(|a| a.object_id == alias) {
            Some(a) => (&a.name, &a.attr_type),
            None => (alias, "string"),
        }
    }
}

/// A device with the service and path it was registered in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisteredDevice {
    pub tenant: Tenant,
    pub path: ServicePath,
    pub device: Device,
}

/// A registration refused, in the agents' `{"reason","details"}` terms.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DeviceError {
    #[error("Missing required property: {field} [{at}]")]
    Missing { field: String, at: String },
    #[error("Additional properties not allowed. [{at}/{field}]")]
    Extra { field: String, at: String },
    #[error("Invalid value for {field}: {value:?} [{at}]")]
    Invalid { field: String, value: String, at: String },
    #[error(" [ protocol: {0}]")]
    Protocol(String),
    #[error("JSONParser: {0}")]
    Json(String),
}

impl DeviceError {
    /// The `reason` of the error body.
    pub fn reason(&self) -> &'static str {
        match self {
            DeviceError::Protocol(_) => "There are conflicts, protocol is not correct",
            _ => "The request is not well formed",
        }
    }
}

/// Parses and checks a `{"devices":[...]}` body.
pub fn parse_registration(body: &[u8]) -> Result<Vec<Device>, DeviceError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| DeviceError::Json(e.to_string()))?;
    let Some(map) = value.as_object() else {
        return Err(DeviceError::Invalid { field: "body".into(), value: value.to_string(), at: "/".into() });
    };
    if let Some(extra) = map.keys().find(|k| *k != "devices") {
        return Err(DeviceError::Extra { field: extra.clone(), at: String::new() });
    }
    let list = match map.get("devices") {
        Some(Value::Array(list)) if !list.is_empty() => list,
        _ => return Err(DeviceError::Missing { field: "devices".into(), at: "/".into() }),
    };
    list.iter().enumerate().map(|(i, d)| parse_device(d, &format!("/devices[{i}]"))).collect()
}

/// Parses and checks one device object found at JSON path `at`.
pub fn parse_device(value: &Value, at: &str) -> Result<Device, DeviceError> {
    let Some(map) = value.as_object() else {
        return Err(DeviceError::Invalid { field: "device".into(), value: value.to_string(), at: at.to_owned() });
    };
    check_fields(map, at)?;
    let device: Device = serde_json::from_value(value.clone()).map_err(|e| DeviceError::Invalid {
        field: "device".into(),
        value: e.to_string(),
        at: at.to_owned(),
    })?;
    check_values(&device, at)?;
    Ok(device)
}

fn check_fields(map: &Map<String, Value>, at: &str) -> Result<(), DeviceError> {
    if let Some(extra) = map.keys().find(|k| !REQUIRED.contains(&k.as_str()) && !OPTIONAL.contains(&k.as_str())) {
        return Err(DeviceError::Extra { field: extra.clone(), at: at.to_owned() });
    }
    for field in REQUIRED {
        match map.get(*field) {
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(Value::String(_)) | None => {
                return Err(DeviceError::Missing { field: (*field).into(), at: at.into() });
            }
            Some(other) => {
                let (field, value) = ((*field).to_owned(), other.to_string());
                return Err(DeviceError::Invalid { field, value, at: at.to_owned() });
            }
        }
    }
    Ok(())
}

fn check_values(device: &Device, at: &str) -> Result<(), DeviceError> {
    if device.protocol != HTTP_PROTOCOL && device.protocol != MQTT_PROTOCOL {
        return Err(DeviceError::Protocol(device.protocol.clone()));
    }
    let names =
        [("device_id", &device.device_id), ("entity_name", &device.entity_name), ("entity_type", &device.entity_type)];
    let mappings = device.attributes.iter().flat_map(|a| [("object_id", &a.object_id), ("name", &a.name)]);
    let commands = device.commands.iter().map(|c| ("commands.name", &c.name));
    let statics = device.static_attributes.iter().map(|s| ("static_attributes.name", &s.name));
    for (field, value) in names.into_iter().chain(mappings).chain(commands).chain(statics) {
        if !is_valid_name(value) {
            return Err(DeviceError::Invalid { field: field.into(), value: value.clone(), at: at.to_owned() });
        }
    }
    if let Some(alias) = device.attributes.iter().find(|a| a.name == "id" || a.name == "type") {
        let value = alias.name.clone();
        return Err(DeviceError::Invalid { field: "attributes.name".into(), value, at: at.to_owned() });
    }
    check_endpoint(device, at)
}

fn check_endpoint(device: &Device, at: &str) -> Result<(), DeviceError> {
    let Some(endpoint) = &device.endpoint else { return Ok(()) };
    match endpoint.parse::<axum::http::Uri>() {
        Ok(uri) if uri.scheme_str() == Some("http") && uri.host().is_some() => Ok(()),
        _ => Err(DeviceError::Invalid { field: "endpoint".into(), value: endpoint.clone(), at: at.to_owned() }),
    }
}

/// Ids and names as the C++ agent's schema allows: 1-256 characters, none of `<>();'="/?#&`, space, `|` or `@`.
pub fn is_valid_name(text: &str) -> bool {
    !text.is_empty() && text.len() <= 256 && !text.chars().any(|c| "<>();'=\"/?#& |@".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(device: Value) -> Vec<u8> {
        serde_json::json!({ "devices": [device] }).to_string().into_bytes()
    }

    fn tracker() -> Value {
        serde_json::json!({"device_id": "t1", "entity_name": "Tracker1", "entity_type": "tracker",
            "protocol": HTTP_PROTOCOL, "timezone": "Europe/Madrid",
            "commands": [{"name": "SET_tracking", "type": "command", "value": "t1@SET_tracking|%s"}]})
    }

    #[test]
    fn a_tracker_registration_parses() {
        let devices = parse_registration(&body(tracker())).unwrap();
        assert_eq!(devices[0].command("SET_tracking").unwrap().value, "t1@SET_tracking|%s");
    }

    #[test]
    fn errors_name_the_field_and_path() {
        let mut missing = tracker();
        missing.as_object_mut().unwrap().remove("entity_type");
        assert_eq!(
            parse_registration(&body(missing)).unwrap_err().to_string(),
            "Missing required property: entity_type [/devices[0]]"
        );
        let mut extra = tracker();
        extra["colour"] = "red".into();
        assert_eq!(
            parse_registration(&body(extra)).unwrap_err().to_string(),
            "Additional properties not allowed. [/devices[0]/colour]"
        );
        let mut protocol = tracker();
        protocol["protocol"] = "HTTP".into();
        assert_eq!(parse_registration(&body(protocol)).unwrap_err(), DeviceError::Protocol("HTTP".into()));
        let mut bad = tracker();
        bad["device_id"] = "t<1>".into();
        assert!(matches!(parse_registration(&body(bad)).unwrap_err(), DeviceError::Invalid { .. }));
    }
}

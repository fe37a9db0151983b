//! Observations to entity updates: UltraLight items from one device become one APPEND of every attribute plus
//! `TimeInstant`, and the command results they carry become command reports.
//!
//! Registered aliases map to their attribute names and types; unregistered devices write `thing:<device_id>` of type
//! `thing` in `/` with each alias as a `string` attribute. Every attribute carries a `TimeInstant` metadata with its
//! group's observation time (the group's timestamp, else now). Pure: the caller writes the result.

use chrono::{DateTime, SecondsFormat, Utc};
use thiserror::Error;

use super::model::RegisteredDevice;
use super::ul::{Group, Item};
use crate::broker::model::{EntityId, Metadata};
use crate::broker::update::{AttrWrite, ElementWrite, UpdateAction};
use crate::store::{CommandReport, CommandState, Origin, UpdateBatch};
use crate::tenancy::{ServicePath, Tenant};

/// Attribute name of the observation time.
pub const TIME_INSTANT: &str = "TimeInstant";

/// An observation ready to be written.
#[derive(Debug, Clone)]
pub struct Observation {
    pub batch: Option<UpdateBatch>,
    pub reports: Vec<CommandReport>,
}

/// Why an observation cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IngestError {
    #[error("measure {0:?} would overwrite the entity's {0}; map it to another name at registration")]
    ReservedName(String),
    #[error("a command result names device {found}, but the observation comes from {expected}")]
    OtherDevice { expected: String, found: String },
}

/// Who sent the items.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    pub tenant: &'a Tenant,
    pub device_id: &'a str,
    pub registered: Option<&'a RegisteredDevice>,
}

impl Source<'_> {
    fn entity(&self) -> (String, String, ServicePath) {
        match self.registered {
            Some(r) => (r.device.entity_name.clone(), r.device.entity_type.clone(), r.path.clone()),
            None => (format!("thing:{}", self.device_id), "thing".to_owned(), ServicePath::root()),
        }
    }

    fn map<'b>(&'b self, alias: &'b str) -> (&'b str, &'b str) {
        self.registered.map_or((alias, "string"), |r| r.device.map_alias(alias))
    }
}

/// Builds the update and the reports of one observation.
pub fn observation(
    source: &Source<'_>,
    items: Vec<Item>,
    now: DateTime<Utc>,
    origin: Origin,
) -> Result<Observation, IngestError> {
    let mut attributes: Vec<AttrWrite> = Vec::new();
    let mut reports = Vec::new();
    let mut latest: Option<DateTime<Utc>> = None;
    for item in items {
        match item {
            Item::Result(r) if r.device_id != source.device_id => {
                return Err(IngestError::OtherDevice { expected: source.device_id.to_owned(), found: r.device_id });
            }
            Item::Result(r) => reports.push(CommandReport {
                device_id: r.device_id,
                command: r.command,
                state: CommandState::Ok,
                info: r.result,
            }),
            Item::Measures(group) => {
                let time = group.timestamp.unwrap_or(now);
                latest = Some(latest.map_or(time, |l| l.max(time)));
                add_group(source, &group, &iso(time), &mut attributes)?;
            }
        }
    }
    let batch = latest.map(|time| update(source, attributes, &iso(time), origin));
    Ok(Observation { batch, reports })
}

fn add_group(
    source: &Source<'_>,
    group: &Group,
    time: &str,
    attributes: &mut Vec<AttrWrite>,
) -> Result<(), IngestError> {
    for measure in &group.measures {
        let (name, attr_type) = source.map(&measure.alias);
        if name == "id" || name == "type" {
            return Err(IngestError::ReservedName(name.to_owned()));
        }
        let metadata = Metadata { metadata_type: "ISO8601".to_owned(), value: time.into() };
        let write = AttrWrite {
            name: name.to_owned(),
            attr_type: Some(attr_type.to_owned()),
            value: Some(measure.value.clone().into()),
            metadatas: vec![(TIME_INSTANT.to_owned(), metadata)],
        };
        attributes.retain(|a| a.name != write.name);
        attributes.push(write);
    }
    Ok(())
}

fn update(source: &Source<'_>, mut attributes: Vec<AttrWrite>, time: &str, origin: Origin) -> UpdateBatch {
    if let Some(r) = source.registered {
        for s in &r.device.static_attributes {
            attributes.retain(|a| a.name != s.name);
            attributes.push(s.to_write());
        }
    }
    attributes.retain(|a| a.name != TIME_INSTANT);
    attributes.push(crate::store::sqlite::text_attr(TIME_INSTANT, "ISO8601", time));
    let (id, entity_type, path) = source.entity();
    let element = ElementWrite { id: EntityId(id), entity_type: Some(entity_type), attributes };
    UpdateBatch { tenant: source.tenant.clone(), path, action: UpdateAction::Append, elements: vec![element], origin }
}

/// ISO 8601 UTC with milliseconds, as the agents write `TimeInstant`.
pub fn iso(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Millis, true)
}

//! Device registrations in SQLite: one row per (service, device id), the registration as JSON.
//!
//! Registering creates the device's entity with its command attributes (`<cmd>`, `<cmd>_status` = UNKNOWN,
//! `<cmd>_info`) and static attributes, in the same transaction as the registration.

use rusqlite::{Connection, OptionalExtension, params};

use super::writer::Tx;

use super::commands::text_attr;
use super::{commands, entities};
use crate::broker::model::EntityId;
use crate::broker::update::{AttrWrite, ElementWrite, UpdateAction};
use crate::devices::model::{Device, RegisteredDevice};
use crate::store::{Origin, StoreError, UpdateBatch, UpdateOutcome};
use crate::tenancy::{ServicePath, Tenant};

/// Registers devices; the first duplicate id fails the whole job (the writer rolls its savepoint back).
pub fn insert_all(
    conn: &Tx<'_>,
    tenant: &Tenant,
    path: &ServicePath,
    devices: &[Device],
    now_ms: i64,
) -> Result<UpdateOutcome, StoreError> {
    let mut outcome = UpdateOutcome::default();
    for device in devices {
        insert(conn, tenant, path, device)?;
        commands::merge(&mut outcome, create_entity(conn, tenant, path, device, now_ms)?);
    }
    Ok(outcome)
}

fn insert(conn: &Connection, tenant: &Tenant, path: &ServicePath, device: &Device) -> Result<(), StoreError> {
    let body = serde_json::to_string(device).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO devices (tenant, device_id, service_path, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
    )?;
    match stmt.execute(params![tenant.as_str(), device.device_id, path.as_str(), body])? {
        0 => Err(StoreError::DuplicateDevice(device.device_id.clone())),
        _ => Ok(()),
    }
}

fn create_entity(
    tx: &Tx<'_>,
    tenant: &Tenant,
    path: &ServicePath,
    device: &Device,
    now_ms: i64,
) -> Result<UpdateOutcome, StoreError> {
    let mut attributes: Vec<AttrWrite> = device
        .commands
        .iter()
        .flat_map(|c| {
            [
                text_attr(&c.name, "command", ""),
                text_attr(&format!("{}_status", c.name), "commandStatus", "UNKNOWN"),
                text_attr(&format!("{}_info", c.name), "commandResult", ""),
            ]
        })
        .collect();
    attributes.extend(device.static_attributes.iter().map(|s| s.to_write()));
    append_to_entity(tx, tenant, path, device, attributes, now_ms)
}

/// Applies an APPEND of `attributes` to the device's entity, in the open transaction.
pub fn append_to_entity(
    tx: &Tx<'_>,
    tenant: &Tenant,
    path: &ServicePath,
    device: &Device,
    attributes: Vec<AttrWrite>,
    now_ms: i64,
) -> Result<UpdateOutcome, StoreError> {
    let element = ElementWrite {
        id: EntityId(device.entity_name.clone()),
        entity_type: Some(device.entity_type.clone()),
        attributes,
    };
    let batch = UpdateBatch {
        tenant: tenant.clone(),
        path: path.clone(),
        action: UpdateAction::Append,
        elements: vec![element],
        origin: Origin::default(),
    };
    entities::apply_update(tx, &batch, None, now_ms)
}

/// A device by id within a service.
pub fn find(conn: &Connection, tenant: &Tenant, device_id: &str) -> Result<Option<RegisteredDevice>, StoreError> {
    let row: Option<(String, String)> = conn
        .prepare_cached("SELECT service_path, body FROM devices WHERE tenant = ?1 AND device_id = ?2")?
        .query_row(params![tenant.as_str(), device_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    row.map(|(path, body)| decode(tenant.as_str(), &path, &body)).transpose()
}

/// Every registered device.
pub fn all(conn: &Connection) -> Result<Vec<RegisteredDevice>, StoreError> {
    let mut stmt = conn.prepare("SELECT tenant, service_path, body FROM devices ORDER BY rowid")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?;
    rows.map(|row| {
        let (tenant, path, body) = row?;
        decode(&tenant, &path, &body)
    })
    .collect()
}

pub fn replace(conn: &Connection, tenant: &Tenant, device: &Device) -> Result<bool, StoreError> {
    let body = serde_json::to_string(device).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let n = conn.execute(
        "UPDATE devices SET body = ?1 WHERE tenant = ?2 AND device_id = ?3",
        params![body, tenant.as_str(), device.device_id],
    )?;
    Ok(n > 0)
}

pub fn delete(conn: &Connection, tenant: &Tenant, device_id: &str) -> Result<bool, StoreError> {
    conn.execute("DELETE FROM commands WHERE tenant = ?1 AND device_id = ?2", params![tenant.as_str(), device_id])?;
    let n =
        conn.execute("DELETE FROM devices WHERE tenant = ?1 AND device_id = ?2", params![tenant.as_str(), device_id])?;
    Ok(n > 0)
}

fn decode(tenant: &str, path: &str, body: &str) -> Result<RegisteredDevice, StoreError> {
    let corrupt = |e: String| StoreError::Corrupt(format!("device of {tenant}: {e}"));
    Ok(RegisteredDevice {
        tenant: Tenant::parse(tenant).map_err(|e| corrupt(e.to_string()))?,
        path: ServicePath::parse(path).map_err(|e| corrupt(e.to_string()))?,
        device: serde_json::from_str(body).map_err(|e| corrupt(e.to_string()))?,
    })
}

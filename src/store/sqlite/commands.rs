//! The command queue in SQLite, and the command transitions that also set the entity's `<cmd>_status`/`<cmd>_info`.
//!
//! Every transition runs on the writer's transaction and updates the queue row and the entity together, so a crash
//! never leaves one without the other. Status texts: PENDING, DELIVERED, OK, ERROR, EXPIRED.

use rusqlite::{Connection, OptionalExtension, params};

use super::writer::Tx;

use super::devices;
use crate::broker::update::AttrWrite;
use crate::store::{CommandReport, CommandState, NewCommand, QueuedCommand, StoreError, UpdateOutcome};
use crate::tenancy::Tenant;

/// Adds a command to a device's queue as PENDING.
pub fn queue(
    conn: &Connection,
    tenant: &Tenant,
    command: &NewCommand,
    now_ms: i64,
) -> Result<QueuedCommand, StoreError> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO commands (tenant, device_id, command, text, status, created_ms) VALUES (?1, ?2, ?3, ?4, 'PENDING', ?5)",
    )?;
    stmt.execute(params![tenant.as_str(), command.device_id, command.command, command.text, now_ms])?;
    Ok(QueuedCommand {
        id: conn.last_insert_rowid(),
        tenant: tenant.clone(),
        device_id: command.device_id.clone(),
        command: command.command.clone(),
        text: command.text.clone(),
    })
}

/// Takes every pending command of a device, in queue order, marking them DELIVERED.
pub fn take_pending(
    conn: &Tx<'_>,
    tenant: &Tenant,
    device_id: &str,
    now_ms: i64,
) -> Result<(Vec<QueuedCommand>, UpdateOutcome), StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, command, text FROM commands WHERE tenant = ?1 AND device_id = ?2 AND status = 'PENDING' ORDER BY id",
    )?;
    let rows = stmt.query_map(params![tenant.as_str(), device_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    let taken: Vec<QueuedCommand> = rows
        .map(|row| {
            let (id, command, text) = row?;
            Ok(QueuedCommand { id, tenant: tenant.clone(), device_id: device_id.to_owned(), command, text })
        })
        .collect::<Result<_, StoreError>>()?;
    let mut outcome = UpdateOutcome::default();
    for command in &taken {
        set_state(conn, command.id, CommandState::Delivered)?;
        let report = report(command, CommandState::Delivered, None);
        merge(&mut outcome, show_state(conn, tenant, &report, now_ms)?);
    }
    Ok((taken, outcome))
}

/// Records a device's answer on the last open command of that name; fails when none was sent.
pub fn finish(
    conn: &Tx<'_>,
    tenant: &Tenant,
    report: &CommandReport,
    now_ms: i64,
) -> Result<UpdateOutcome, StoreError> {
    let id: Option<i64> = conn
        .prepare_cached(
            "SELECT id FROM commands WHERE tenant = ?1 AND device_id = ?2 AND command = ?3
             AND status IN ('PENDING', 'DELIVERED') ORDER BY id DESC LIMIT 1",
        )?
        .query_row(params![tenant.as_str(), report.device_id, report.command], |r| r.get(0))
        .optional()?;
    let id = id.ok_or_else(|| StoreError::NoSuchCommand {
        device_id: report.device_id.clone(),
        command: report.command.clone(),
    })?;
    set_state(conn, id, report.state)?;
    show_state(conn, tenant, report, now_ms)
}

/// Marks every command queued before `before_ms` and still pending as EXPIRED.
pub fn expire(conn: &Tx<'_>, before_ms: i64, now_ms: i64) -> Result<UpdateOutcome, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, tenant, device_id, command FROM commands WHERE status = 'PENDING' AND created_ms < ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map(params![before_ms], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    let stale: Vec<(i64, String, String, String)> = rows.collect::<Result<_, _>>()?;
    let mut outcome = UpdateOutcome::default();
    for (id, tenant, device_id, command) in stale {
        set_state(conn, id, CommandState::Expired)?;
        let tenant = Tenant::parse(&tenant).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let report = CommandReport { device_id, command, state: CommandState::Expired, info: String::new() };
        merge(&mut outcome, show_state(conn, &tenant, &report, now_ms)?);
    }
    Ok(outcome)
}

fn set_state(conn: &Connection, id: i64, state: CommandState) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE commands SET status = ?1 WHERE id = ?2")?.execute(params![state.as_str(), id])?;
    Ok(())
}

fn report(command: &QueuedCommand, state: CommandState, info: Option<&str>) -> CommandReport {
    CommandReport {
        device_id: command.device_id.clone(),
        command: command.command.clone(),
        state,
        info: info.unwrap_or_default().to_owned(),
    }
}

/// Writes `<cmd>_status` (and `<cmd>_info` for answers) on the device's entity.
fn show_state(
    conn: &Tx<'_>,
    tenant: &Tenant,
    report: &CommandReport,
    now_ms: i64,
) -> Result<UpdateOutcome, StoreError> {
    let Some(registered) = devices::find(conn, tenant, &report.device_id)? else {
        return Ok(UpdateOutcome::default());
    };
    let device = &registered.device;
    let mut attributes = vec![text_attr(&format!("{}_status", report.command), "commandStatus", report.state.as_str())];
    if matches!(report.state, CommandState::Ok | CommandState::Error) {
        attributes.push(text_attr(&format!("{}_info", report.command), "commandResult", &report.info));
    }
    devices::append_to_entity(conn, tenant, &registered.path, device, attributes, now_ms)
}

/// An attribute write with a text value.
pub fn text_attr(name: &str, attr_type: &str, value: &str) -> AttrWrite {
    AttrWrite {
        name: name.to_owned(),
        attr_type: Some(attr_type.to_owned()),
        value: Some(serde_json::Value::String(value.to_owned())),
        metadatas: Vec::new(),
    }
}

/// Folds one outcome into another.
pub fn merge(into: &mut UpdateOutcome, from: UpdateOutcome) {
    into.results.extend(from.results);
    into.changes.extend(from.changes);
    into.commands.extend(from.commands);
}

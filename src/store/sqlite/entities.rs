//! Entity rows in SQLite: one row per entity, its attributes and metadata as a JSON document.
//!
//! Updates run on the writer's transaction: load the candidates for each element, resolve which entity it means,
//! let the broker's pure `update::apply` decide, then save or remove. Queries read rows in creation order (`seq`) and
//! filter with the query's own matcher, using the `(tenant, id, ...)` index when every id is exact.

use std::collections::BTreeMap;

use rusqlite::{Connection, Row, params};

use super::writer::Tx;

use crate::broker::model::{Attribute, Entity, EntityId, EntityKey};
use crate::broker::query::EntityQuery;
use crate::broker::status::{Code, Status};
use crate::broker::update::{self, ElementWrite, Next, ResultPart, UpdateAction};
use crate::store::{
    ElementResult, EntityChange, NewCommand, QueryPage, QueuedCommand, Review, StoreError, UpdateBatch, UpdateOutcome,
    WriteRule,
};
use crate::tenancy::{ServicePath, Tenant};

const COLUMNS: &str = "service_path, id, type, attrs";

/// Applies a whole update request; returns what it did (results, changes, queued commands).
pub fn apply_update(
    conn: &Tx<'_>,
    batch: &UpdateBatch,
    rule: Option<&dyn WriteRule>,
    now_ms: i64,
) -> Result<UpdateOutcome, StoreError> {
    let mut outcome = UpdateOutcome::default();
    for element in &batch.elements {
        let applied = apply_element(conn, batch, element, rule, now_ms)?;
        outcome.results.push(applied.result);
        outcome.changes.extend(applied.change);
        outcome.commands.extend(applied.commands);
    }
    Ok(outcome)
}

/// The effect of one element.
struct ElementOutcome {
    result: ElementResult,
    change: Option<EntityChange>,
    commands: Vec<QueuedCommand>,
}

fn apply_element(
    conn: &Tx<'_>,
    batch: &UpdateBatch,
    element: &ElementWrite,
    rule: Option<&dyn WriteRule>,
    now_ms: i64,
) -> Result<ElementOutcome, StoreError> {
    let candidates = load_at_path(conn, &batch.tenant, &batch.path, &element.id)?;
    let (key, current) = match resolve(batch, element, candidates) {
        Ok(target) => target,
        Err(status) => return Ok(ElementOutcome { result: refused(element, status), change: None, commands: vec![] }),
    };
    let review = rule.map(|r| r.review(&key, batch.action, element)).unwrap_or_default();
    if let Some(status) = review.refuse {
        return Ok(ElementOutcome { result: refused(element, status), change: None, commands: vec![] });
    }
    let entity_type = key.entity_type.clone();
    let mut applied = update::apply(batch.action, key.clone(), current.clone(), element);
    let commands =
        if review.extra.is_empty() { Vec::new() } else { add_extras(&mut applied, key, current.clone(), &review) };
    let change = persist(conn, applied.next, applied.changed, current)?;
    let queue = |c: &NewCommand| super::commands::queue(conn, &batch.tenant, c, now_ms);
    let commands = commands.iter().map(queue).collect::<Result<_, _>>()?;
    Ok(ElementOutcome { result: ElementResult { entity_type, parts: applied.parts }, change, commands })
}

/// Applies the attributes a rule added (as APPEND) when the element itself was written; returns its commands.
fn add_extras(
    applied: &mut update::Applied,
    key: EntityKey,
    current: Option<Entity>,
    review: &Review,
) -> Vec<NewCommand> {
    if applied.parts.iter().any(|p| !p.status.is_ok()) {
        return Vec::new();
    }
    let state = match &applied.next {
        Next::Put(entity) => Some(entity.clone()),
        Next::Keep => current,
        Next::Remove => return Vec::new(),
    };
    let extra = ElementWrite {
        id: key.id.clone(),
        entity_type: Some(key.entity_type.clone()),
        attributes: review.extra.clone(),
    };
    let more = update::apply(UpdateAction::Append, key, state, &extra);
    if let Next::Put(entity) = more.next {
        applied.next = Next::Put(entity);
    }
    for name in more.changed {
        if !applied.changed.contains(&name) {
            applied.changed.push(name);
        }
    }
    review.commands.clone()
}

fn persist(
    conn: &Tx<'_>,
    next: Next,
    changed: Vec<String>,
    current: Option<Entity>,
) -> Result<Option<EntityChange>, StoreError> {
    let change = match next {
        Next::Keep => None,
        Next::Put(entity) => {
            save(conn, &entity)?;
            Some(EntityChange { entity, changed })
        }
        Next::Remove => {
            let entity = current.ok_or(StoreError::Closed)?;
            remove(conn, &entity.key)?;
            Some(EntityChange { entity, changed })
        }
    };
    Ok(change.filter(|c| !c.changed.is_empty()))
}

/// Which entity an element means: its type names it; without a type, the only entity with that id.
fn resolve(
    batch: &UpdateBatch,
    element: &ElementWrite,
    mut candidates: Vec<Entity>,
) -> Result<(EntityKey, Option<Entity>), Status> {
    let wanted = element.entity_type.as_deref().filter(|t| !t.is_empty());
    if let Some(t) = wanted {
        let current = candidates.into_iter().find(|e| e.key.entity_type == t);
        return Ok((key_for(batch, element, t), current));
    }
    match candidates.len() {
        0 => Ok((key_for(batch, element, ""), None)),
        1 => {
            let entity = candidates.remove(0);
            Ok((entity.key.clone(), Some(entity)))
        }
        n => Err(Status::error(
            Code::Conflict,
            &format!("{n} entities have id /{}/: give the entity type to say which one", element.id),
        )),
    }
}

fn key_for(batch: &UpdateBatch, element: &ElementWrite, entity_type: &str) -> EntityKey {
    EntityKey {
        tenant: batch.tenant.clone(),
        path: batch.path.clone(),
        id: element.id.clone(),
        entity_type: entity_type.to_owned(),
    }
}

fn refused(element: &ElementWrite, status: Status) -> ElementResult {
    let attrs = (0..element.attributes.len()).collect();
    ElementResult {
        entity_type: element.entity_type.clone().unwrap_or_default(),
        parts: vec![ResultPart { attrs, status }],
    }
}

fn load_at_path(tx: &Tx<'_>, tenant: &Tenant, path: &ServicePath, id: &EntityId) -> Result<Vec<Entity>, StoreError> {
    if let Some(rows) = tx.cache().get(tenant, path, id) {
        return Ok(rows.clone());
    }
    let mut stmt = tx.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM entities WHERE tenant = ?1 AND id = ?2 AND service_path = ?3 ORDER BY seq"
    ))?;
    let rows = stmt.query_map(params![tenant.as_str(), id.0, path.as_str()], |row| decode(tenant, row))?;
    let rows: Vec<Entity> = rows.map(|r| r?).collect::<Result<_, _>>()?;
    tx.cache().fill(tenant, path, id, rows.clone());
    Ok(rows)
}

/// Every entity with this id in the tenant, in creation order.
pub fn by_id(conn: &Connection, tenant: &Tenant, id: &EntityId) -> Result<Vec<Entity>, StoreError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM entities WHERE tenant = ?1 AND id = ?2 ORDER BY seq"))?;
    let rows = stmt.query_map(params![tenant.as_str(), id.0], |row| decode(tenant, row))?;
    rows.map(|r| r?).collect()
}

fn save(conn: &Tx<'_>, entity: &Entity) -> Result<(), StoreError> {
    conn.cache().saved(entity);
    let attrs = serde_json::to_string(&entity.attributes).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let key = &entity.key;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO entities (tenant, service_path, id, type, attrs) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (tenant, id, type, service_path) DO UPDATE SET attrs = excluded.attrs",
    )?;
    stmt.execute(params![key.tenant.as_str(), key.path.as_str(), key.id.0, key.entity_type, attrs])?;
    Ok(())
}

fn remove(conn: &Tx<'_>, key: &EntityKey) -> Result<(), StoreError> {
    conn.cache().removed(key);
    let mut stmt =
        conn.prepare_cached("DELETE FROM entities WHERE tenant = ?1 AND id = ?2 AND type = ?3 AND service_path = ?4")?;
    stmt.execute(params![key.tenant.as_str(), key.id.0, key.entity_type, key.path.as_str()])?;
    Ok(())
}

/// Runs a query: candidates from the index when ids are exact, else the tenant's rows; paged in creation order.
pub fn query(conn: &Connection, q: &EntityQuery) -> Result<QueryPage, StoreError> {
    let mut page = QueryPage::default();
    let mut visit = |entity: Entity| {
        if q.matches(&entity) {
            if page.total >= q.offset && page.entities.len() < q.limit {
                page.entities.push(entity);
            }
            page.total += 1;
        }
    };
    match q.exact_ids() {
        Some(ids) => {
            let mut seen = std::collections::HashSet::new();
            let mut found = Vec::new();
            for id in ids.into_iter().filter(|id| seen.insert(*id)) {
                found.extend(by_id(conn, &q.tenant, &EntityId(id.to_owned()))?);
            }
            found.into_iter().for_each(&mut visit);
        }
        None => scan_tenant(conn, &q.tenant, &mut visit)?,
    }
    Ok(page)
}

fn scan_tenant(conn: &Connection, tenant: &Tenant, visit: &mut dyn FnMut(Entity)) -> Result<(), StoreError> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM entities WHERE tenant = ?1 ORDER BY seq"))?;
    let mut rows = stmt.query(params![tenant.as_str()])?;
    while let Some(row) = rows.next()? {
        visit(decode(tenant, row)??);
    }
    Ok(())
}

fn decode(tenant: &Tenant, row: &Row<'_>) -> rusqlite::Result<Result<Entity, StoreError>> {
    let path: String = row.get(0)?;
    let id: String = row.get(1)?;
    let entity_type: String = row.get(2)?;
    let attrs: String = row.get(3)?;
    Ok(decode_parts(tenant, path, id, entity_type, &attrs))
}

fn decode_parts(
    tenant: &Tenant,
    path: String,
    id: String,
    entity_type: String,
    attrs: &str,
) -> Result<Entity, StoreError> {
    let attributes: BTreeMap<String, Attribute> =
        serde_json::from_str(attrs).map_err(|e| StoreError::Corrupt(format!("entity {id}: {e}")))?;
    let path = ServicePath::parse(&path).map_err(|e| StoreError::Corrupt(format!("entity {id}: {e}")))?;
    let key = EntityKey { tenant: tenant.clone(), path, id: EntityId(id), entity_type };
    Ok(Entity { key, attributes })
}

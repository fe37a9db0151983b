//! Entity rows in SQLite: one row per entity, its attributes and metadata as a JSON document.
//!
//! Updates run on the writer's transaction: take the candidates for each element (from the writer's cache, else
//! SQLite), resolve which entity it means, let the broker's pure `update::apply` decide, then save or remove by rowid
//! and put the candidates back in the cache. Queries read rows in creation order (`seq`) and filter with the query's
//! own matcher, using the `(tenant, id, ...)` index when every id is exact.

use std::collections::BTreeMap;
use std::sync::Arc;

use rusqlite::{Connection, Row as SqlRow, params};

use super::cache::{Row, RowsKey, RowsOf};
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

impl ElementOutcome {
    fn refused(element: &ElementWrite, status: Status) -> Self {
        ElementOutcome { result: refused(element, status), change: None, commands: vec![] }
    }
}

/// Takes the element's candidate rows, applies it, and puts the rows (as now written) back into the cache.
fn apply_element(
    conn: &Tx<'_>,
    batch: &UpdateBatch,
    element: &ElementWrite,
    rule: Option<&dyn WriteRule>,
    now_ms: i64,
) -> Result<ElementOutcome, StoreError> {
    let (key, mut rows) = take_at_path(conn, batch, &element.id)?;
    let outcome = apply_to_rows(conn, batch, element, rule, now_ms, &mut rows)?;
    conn.cache().put(key, rows);
    Ok(outcome)
}

fn apply_to_rows(
    conn: &Tx<'_>,
    batch: &UpdateBatch,
    element: &ElementWrite,
    rule: Option<&dyn WriteRule>,
    now_ms: i64,
    rows: &mut Vec<Row>,
) -> Result<ElementOutcome, StoreError> {
    let found = match resolve(batch, element, rows) {
        Ok(found) => found,
        Err(status) => return Ok(ElementOutcome::refused(element, status)),
    };
    let key = match &found {
        Ok(i) => &rows[*i].entity.key,
        Err(key) => key,
    };
    let review = rule.map(|r| r.review(key, batch.action, element)).unwrap_or_default();
    if let Some(status) = review.refuse {
        return Ok(ElementOutcome::refused(element, status));
    }
    let entity_type = key.entity_type.clone();
    let extras_key = (!review.extra.is_empty()).then(|| key.clone());
    let slot = found.as_ref().ok().map(|&i| (i, rows[i].seq));
    let target = found.map(|i| Arc::unwrap_or_clone(rows.remove(i).entity));
    let mut applied = update::apply(batch.action, target, element);
    let commands = extras_key.map(|key| add_extras(&mut applied, key, &review)).unwrap_or_default();
    let change = persist(conn, applied.next, applied.changed, rows, slot)?;
    let queue = |c: &NewCommand| super::commands::queue(conn, &batch.tenant, c, now_ms);
    let commands = commands.iter().map(queue).collect::<Result<_, _>>()?;
    Ok(ElementOutcome { result: ElementResult { entity_type, parts: applied.parts }, change, commands })
}

/// Applies the attributes a rule added (as APPEND) when the element itself was written; returns its commands.
fn add_extras(applied: &mut update::Applied, key: EntityKey, review: &Review) -> Vec<NewCommand> {
    if applied.parts.iter().any(|p| !p.status.is_ok()) {
        return Vec::new();
    }
    let (state, written) = match std::mem::replace(&mut applied.next, Next::Keep(None)) {
        Next::Put(entity) => (Some(entity), true),
        Next::Keep(current) => (current, false),
        removed @ Next::Remove(_) => {
            applied.next = removed;
            return Vec::new();
        }
    };
    let extra = ElementWrite {
        id: key.id.clone(),
        entity_type: Some(key.entity_type.clone()),
        attributes: review.extra.clone(),
    };
    let more = update::apply(UpdateAction::Append, state.ok_or(key), &extra);
    applied.next = match more.next {
        Next::Keep(Some(entity)) if written => Next::Put(entity),
        next => next,
    };
    for name in more.changed {
        if !applied.changed.contains(&name) {
            applied.changed.push(name);
        }
    }
    review.commands.clone()
}

/// Writes what the update decided and puts the entity back into `rows` at its place (`slot`: index and rowid of
/// the stored entity the update took out); returns the change when attributes were modified.
fn persist(
    conn: &Tx<'_>,
    next: Next,
    changed: Vec<String>,
    rows: &mut Vec<Row>,
    slot: Option<(usize, i64)>,
) -> Result<Option<EntityChange>, StoreError> {
    let entity = match (next, slot) {
        (Next::Keep(current), slot) => {
            if let (Some(entity), Some((i, seq))) = (current, slot) {
                rows.insert(i, Row { seq, entity: Arc::new(entity) });
            }
            return Ok(None);
        }
        (Next::Put(entity), Some((i, seq))) => {
            let entity = Arc::new(entity);
            rewrite(conn, seq, &entity)?;
            rows.insert(i, Row { seq, entity: entity.clone() });
            entity
        }
        (Next::Put(entity), None) => {
            let entity = Arc::new(entity);
            let seq = insert(conn, &entity)?;
            rows.push(Row { seq, entity: entity.clone() });
            entity
        }
        (Next::Remove(entity), Some((_, seq))) => {
            remove(conn, seq)?;
            Arc::new(entity)
        }
        (Next::Remove(_), None) => return Err(StoreError::Corrupt("removal of an entity that is not stored".into())),
    };
    Ok(Some(EntityChange { entity, changed }).filter(|c| !c.changed.is_empty()))
}

/// Which entity an element means: its type names it; without a type, the only entity with that id. Gives its index
/// in `rows` when it is stored, else the key of the entity to create.
fn resolve(batch: &UpdateBatch, element: &ElementWrite, rows: &[Row]) -> Result<Result<usize, EntityKey>, Status> {
    let wanted = element.entity_type.as_deref().filter(|t| !t.is_empty());
    if let Some(t) = wanted {
        let index = rows.iter().position(|r| r.entity.key.entity_type == t);
        return Ok(index.ok_or_else(|| key_for(batch, element, t)));
    }
    match rows {
        [] => Ok(Err(key_for(batch, element, ""))),
        [_] => Ok(Ok(0)),
        _ => Err(Status::error(
            Code::Conflict,
            &format!("{} entities have id /{}/: give the entity type to say which one", rows.len(), element.id),
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

/// The rows of one id at one path, every type, in creation order, and their key in the cache: taken from the cache,
/// else read from SQLite.
fn take_at_path(tx: &Tx<'_>, batch: &UpdateBatch, id: &EntityId) -> Result<(RowsKey, Vec<Row>), StoreError> {
    let (tenant, path) = (&batch.tenant, &batch.path);
    let key = RowsOf { tenant, path, id };
    if let Some(cached) = tx.cache().take(key) {
        return Ok(cached);
    }
    let mut stmt = tx.prepare_cached(&format!(
        "SELECT {COLUMNS}, seq FROM entities WHERE tenant = ?1 AND id = ?2 AND service_path = ?3 ORDER BY seq"
    ))?;
    let rows = stmt.query_map(params![tenant.as_str(), id.0, path.as_str()], |row| {
        let seq: i64 = row.get(4)?;
        Ok(decode(tenant, row)?.map(|entity| Row { seq, entity: Arc::new(entity) }))
    })?;
    Ok((key.to_key(), rows.map(|r| r?).collect::<Result<_, _>>()?))
}

/// Every entity with this id in the tenant, in creation order.
pub fn by_id(conn: &Connection, tenant: &Tenant, id: &EntityId) -> Result<Vec<Entity>, StoreError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM entities WHERE tenant = ?1 AND id = ?2 ORDER BY seq"))?;
    let rows = stmt.query_map(params![tenant.as_str(), id.0], |row| decode(tenant, row))?;
    rows.map(|r| r?).collect()
}

fn attrs_json(entity: &Entity) -> Result<String, StoreError> {
    serde_json::to_string(&entity.attributes).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Stores a new entity; returns its rowid.
fn insert(conn: &Tx<'_>, entity: &Entity) -> Result<i64, StoreError> {
    let key = &entity.key;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO entities (tenant, service_path, id, type, attrs) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING seq",
    )?;
    let params = params![key.tenant.as_str(), key.path.as_str(), key.id.0, key.entity_type, attrs_json(entity)?];
    Ok(stmt.query_row(params, |row| row.get(0))?)
}

/// Rewrites the attributes of a stored entity, found by rowid.
fn rewrite(conn: &Tx<'_>, seq: i64, entity: &Entity) -> Result<(), StoreError> {
    let mut stmt = conn.prepare_cached("UPDATE entities SET attrs = ?1 WHERE seq = ?2")?;
    stmt.execute(params![attrs_json(entity)?, seq])?;
    Ok(())
}

fn remove(conn: &Tx<'_>, seq: i64) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM entities WHERE seq = ?1")?.execute([seq])?;
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

fn decode(tenant: &Tenant, row: &SqlRow<'_>) -> rusqlite::Result<Result<Entity, StoreError>> {
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

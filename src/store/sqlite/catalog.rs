//! Services, tokens and subscriptions in SQLite: small tables, read through the reader pool, written by the writer.
//!
//! Tokens are stored only as hashes with the grant they carry. Subscriptions are stored whole, as the JSON of the
//! domain type, keyed by id and tenant.

use rusqlite::{Connection, OptionalExtension, params};

use crate::auth::{Grant, TokenHash};
use crate::broker::subscription::{Subscription, SubscriptionId};
use crate::store::StoreError;
use crate::tenancy::{ServicePath, Tenant};

pub fn add_service(conn: &Connection, service: &Tenant, token: &TokenHash) -> Result<(), StoreError> {
    let exists: Option<String> = conn
        .query_row("SELECT name FROM services WHERE name = ?1", params![service.as_str()], |r| r.get(0))
        .optional()?;
    if exists.is_some() {
        return Err(StoreError::ServiceExists(service.to_string()));
    }
    conn.execute("INSERT INTO services (name, created_at) VALUES (?1, ?2)", params![service.as_str(), now()])?;
    insert_token(conn, &Grant::full(service.clone()), token)
}

pub fn add_token(conn: &Connection, grant: &Grant, token: &TokenHash) -> Result<(), StoreError> {
    let exists: Option<String> = conn
        .query_row("SELECT name FROM services WHERE name = ?1", params![grant.service.as_str()], |r| r.get(0))
        .optional()?;
    if exists.is_none() {
        return Err(StoreError::NoSuchService(grant.service.to_string()));
    }
    insert_token(conn, grant, token)
}

fn insert_token(conn: &Connection, grant: &Grant, token: &TokenHash) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO tokens (hash, service, path, read_only, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token.as_str(), grant.service.as_str(), grant.path.as_str(), grant.read_only, now()],
    )?;
    Ok(())
}

pub fn find_token(conn: &Connection, token: &TokenHash) -> Result<Option<Grant>, StoreError> {
    let row: Option<(String, String, bool)> = conn
        .query_row("SELECT service, path, read_only FROM tokens WHERE hash = ?1", params![token.as_str()], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    let Some((service, path, read_only)) = row else {
        return Ok(None);
    };
    let corrupt = |e: crate::tenancy::TenancyError| StoreError::Corrupt(format!("token of {service}: {e}"));
    let grant = Grant {
        service: Tenant::parse(&service).map_err(corrupt)?,
        path: ServicePath::parse(&path).map_err(corrupt)?,
        read_only,
    };
    Ok(Some(grant))
}

pub fn service_count(conn: &Connection) -> Result<usize, StoreError> {
    let n: i64 = conn.query_row("SELECT count(*) FROM services", [], |r| r.get(0))?;
    Ok(n as usize)
}

pub fn put_subscription(conn: &Connection, subscription: &Subscription) -> Result<(), StoreError> {
    let body = serde_json::to_string(subscription).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    conn.execute(
        "INSERT INTO subscriptions (id, tenant, body) VALUES (?1, ?2, ?3)
         ON CONFLICT (id) DO UPDATE SET tenant = excluded.tenant, body = excluded.body",
        params![subscription.id.0, subscription.tenant.as_str(), body],
    )?;
    Ok(())
}

pub fn delete_subscription(conn: &Connection, tenant: &Tenant, id: &SubscriptionId) -> Result<bool, StoreError> {
    let n = conn.execute("DELETE FROM subscriptions WHERE id = ?1 AND tenant = ?2", params![id.0, tenant.as_str()])?;
    Ok(n > 0)
}

pub fn subscriptions(conn: &Connection) -> Result<Vec<Subscription>, StoreError> {
    let mut stmt = conn.prepare("SELECT id, body FROM subscriptions ORDER BY rowid")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    rows.map(|row| {
        let (id, body) = row?;
        serde_json::from_str(&body).map_err(|e| StoreError::Corrupt(format!("subscription {id}: {e}")))
    })
    .collect()
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339()
}

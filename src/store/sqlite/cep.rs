//! CEP configurations in SQLite: one row per tenant (service and service path) holding the configuration's JSON
//! as the CEP API accepted it. What the JSON means is the CEP's business; this module only keeps it.

use rusqlite::{Connection, params};

use crate::store::{StoreError, StoredCepConfig};
use crate::tenancy::{ServicePath, Tenant};

pub fn put(conn: &Connection, config: &StoredCepConfig) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO cep_configs (tenant, service_path, body) VALUES (?1, ?2, ?3)
         ON CONFLICT (tenant, service_path) DO UPDATE SET body = excluded.body",
        params![config.tenant.as_str(), config.path.as_str(), config.body],
    )?;
    Ok(())
}

pub fn delete(conn: &Connection, tenant: &Tenant, path: &ServicePath) -> Result<bool, StoreError> {
    let n = conn.execute(
        "DELETE FROM cep_configs WHERE tenant = ?1 AND service_path = ?2",
        params![tenant.as_str(), path.as_str()],
    )?;
    Ok(n > 0)
}

pub fn all(conn: &Connection) -> Result<Vec<StoredCepConfig>, StoreError> {
    let mut stmt = conn.prepare("SELECT tenant, service_path, body FROM cep_configs ORDER BY rowid")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?;
    rows.map(|row| {
        let (tenant, path, body) = row?;
        let corrupt =
            |e: crate::tenancy::TenancyError| StoreError::Corrupt(format!("CEP configuration {tenant}{path}: {e}"));
        Ok(StoredCepConfig {
            tenant: Tenant::parse(&tenant).map_err(corrupt)?,
            path: ServicePath::parse(&path).map_err(corrupt)?,
            body,
        })
    })
    .collect()
}

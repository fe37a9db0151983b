//! Operator commands on a data dir: create a service with its token, add a scoped token, and the first-start
//! `default` service. They talk to the store directly, so they work whether or not a server runs on that data dir
//! (SQLite's WAL lets the server and the command share the file).

use std::path::Path;

use thiserror::Error;

use crate::auth::{Grant, TokenHash, new_token};
use crate::store::sqlite::{SqliteOptions, SqliteStore, Synchronous};
use crate::store::{ServiceStore, StoreError};
use crate::tenancy::{ServicePath, TenancyError, Tenant};

#[derive(Debug, Error)]
pub enum AdminError {
    #[error("service name: {0}")]
    Name(TenancyError),
    #[error("--path: {0}")]
    Path(TenancyError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn open(data_dir: &Path) -> Result<SqliteStore, StoreError> {
    let options = SqliteOptions { data_dir: data_dir.to_owned(), readers: 1, synchronous: Synchronous::Full };
    SqliteStore::open(&options, std::sync::Arc::new(crate::clock::WallClock))
}

/// Creates service `name`; returns its full token (the given one, or a new random one).
pub fn add_service(data_dir: &Path, name: &str, token: Option<String>) -> Result<String, AdminError> {
    let service = Tenant::parse(name).map_err(AdminError::Name)?;
    let token = token.unwrap_or_else(new_token);
    open(data_dir)?.add_service(service, TokenHash::of(&token)).wait()?;
    Ok(token)
}

/// Adds a token to service `name`, limited to a service-path subtree and possibly to reading.
pub fn scoped_token(data_dir: &Path, name: &str, path: &str, read_only: bool) -> Result<String, AdminError> {
    let service = Tenant::parse(name).map_err(AdminError::Name)?;
    let path = ServicePath::parse(path).map_err(AdminError::Path)?;
    let token = new_token();
    open(data_dir)?.add_token(Grant { service, path, read_only }, TokenHash::of(&token)).wait()?;
    Ok(token)
}

/// On a store with no service, creates `default` and returns its token (to be shown once).
pub async fn ensure_default_service(store: &dyn ServiceStore) -> Result<Option<String>, StoreError> {
    if store.service_count().await? > 0 {
        return Ok(None);
    }
    let token = new_token();
    store.add_service(Tenant::default_tenant(), TokenHash::of(&token)).await?;
    Ok(Some(token))
}

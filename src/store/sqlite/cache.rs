//! The writer thread's cache of entity rows, so that an update of a known entity skips the SELECT and the JSON
//! decode of its attributes, and writes its row by `seq` (rowid) instead of through the unique index.
//!
//! Only the writer thread touches it, and the writer is the only writer of the file, so the cache never disagrees
//! with committed data, with one exception it handles itself: when a job's savepoint or a whole commit fails, the
//! cache may hold rows that were rolled back, and the writer clears it. Clearing is always safe (the next update reads
//! SQLite again); so is the size bound, which clears the cache when it grows past it. An update takes the rows of its
//! key out and puts them back once it has written them, so entities are moved, never copied, between cache and job;
//! a job that fails between the two leaves the key out, which is as safe as clearing it.

use std::collections::HashMap;
use std::sync::Arc;

use crate::broker::model::{Entity, EntityId};
use crate::tenancy::{ServicePath, Tenant};

/// Entities cached at most, counted by (tenant, path, id).
const CAPACITY: usize = 200_000;

/// Which rows a cache entry holds: every type of one id at one service path of one tenant.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RowsKey {
    tenant: Tenant,
    path: ServicePath,
    id: EntityId,
}

impl RowsKey {
    pub fn new(tenant: &Tenant, path: &ServicePath, id: &EntityId) -> Self {
        RowsKey { tenant: tenant.clone(), path: path.clone(), id: id.clone() }
    }
}

/// One stored entity and its rowid.
#[derive(Debug, Clone)]
pub struct Row {
    pub seq: i64,
    pub entity: Arc<Entity>,
}

/// Entity rows by (tenant, service path, id), in creation order.
#[derive(Debug, Default)]
pub struct EntityCache {
    rows: HashMap<RowsKey, Vec<Row>>,
}

impl EntityCache {
    /// Takes the rows of a key out of the cache, if it is cached.
    pub fn take(&mut self, key: &RowsKey) -> Option<Vec<Row>> {
        self.rows.remove(key)
    }

    /// Puts the rows of a key (as SQLite holds them now) into the cache.
    pub fn put(&mut self, key: RowsKey, rows: Vec<Row>) {
        if self.rows.len() >= CAPACITY {
            self.rows.clear();
        }
        self.rows.insert(key, rows);
    }

    /// Forgets everything (after a rollback).
    pub fn clear(&mut self) {
        self.rows.clear();
    }
}

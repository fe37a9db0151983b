//! The writer thread's cache of entity rows, so that an update of a known entity skips the SELECT and the JSON
//! decode of its attributes.
//!
//! Only the writer thread touches it, and the writer is the only writer of the file, so the cache never disagrees
//! with committed data, with one exception it handles itself: when a job's savepoint or a whole commit fails, the
//! cache may hold rows that were rolled back, and the writer clears it. Clearing is always safe (the next update reads
//! SQLite again); so is the size bound, which clears the cache when it grows past it.

use std::collections::HashMap;

use crate::broker::model::{Entity, EntityId, EntityKey};
use crate::tenancy::{ServicePath, Tenant};

/// Entities cached at most, counted by (tenant, path, id).
const CAPACITY: usize = 200_000;

type Key = (Tenant, ServicePath, EntityId);

/// Entities by (tenant, service path, id), every type of that id.
#[derive(Debug, Default)]
pub struct EntityCache {
    rows: HashMap<Key, Vec<Entity>>,
}

impl EntityCache {
    pub fn get(&self, tenant: &Tenant, path: &ServicePath, id: &EntityId) -> Option<&Vec<Entity>> {
        self.rows.get(&(tenant.clone(), path.clone(), id.clone()))
    }

    /// Remembers the rows SQLite returned for a key.
    pub fn fill(&mut self, tenant: &Tenant, path: &ServicePath, id: &EntityId, rows: Vec<Entity>) {
        if self.rows.len() >= CAPACITY {
            self.rows.clear();
        }
        self.rows.insert((tenant.clone(), path.clone(), id.clone()), rows);
    }

    /// Records a saved entity (only if its key is cached; otherwise the next read fills it).
    pub fn saved(&mut self, entity: &Entity) {
        if let Some(rows) = self.rows.get_mut(&key_of(&entity.key)) {
            match rows.iter_mut().find(|e| e.key.entity_type == entity.key.entity_type) {
                Some(slot) => *slot = entity.clone(),
                None => rows.push(entity.clone()),
            }
        }
    }

    pub fn removed(&mut self, key: &EntityKey) {
        if let Some(rows) = self.rows.get_mut(&key_of(key)) {
            rows.retain(|e| e.key.entity_type != key.entity_type);
        }
    }

    /// Forgets everything (after a rollback).
    pub fn clear(&mut self) {
        self.rows.clear();
    }
}

fn key_of(key: &EntityKey) -> Key {
    (key.tenant.clone(), key.path.clone(), key.id.clone())
}

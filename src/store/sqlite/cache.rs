//! The writer thread's cache of entity rows, so that an update of a known entity skips the SELECT and the JSON
//! decode of its attributes, and writes its row by `seq` (rowid) instead of through the unique index.
//!
//! Only the writer thread touches it, and the writer is the only writer of the file, so the cache never disagrees
//! with committed data, with one exception it handles itself: when a job's savepoint or a whole commit fails, the
//! cache may hold rows that were rolled back, and the writer clears it. Clearing is always safe (the next update reads
//! SQLite again); so is the size bound, which clears the cache when it grows past it. An update takes the rows of its
//! key out and puts them back once it has written them, so entities are moved, never copied, between cache and job;
//! a job that fails between the two leaves the key out, which is as safe as clearing it.
//!
//! An update finds its rows by a borrowed key ([`RowsOf`]) and puts them back under the key it took out with them, so
//! a hit copies none of the key's texts; the map hashes with foldhash rather than SipHash.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use foldhash::fast::RandomState;
use hashbrown::{Equivalent, HashMap};

use crate::broker::model::{Entity, EntityId};
use crate::tenancy::{ServicePath, Tenant};

/// Entities cached at most, counted by (tenant, path, id).
const CAPACITY: usize = 200_000;

/// Which rows a cache entry holds: every type of one id at one service path of one tenant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowsKey {
    tenant: Tenant,
    path: ServicePath,
    id: EntityId,
}

impl Hash for RowsKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        RowsOf { tenant: &self.tenant, path: &self.path, id: &self.id }.hash(state);
    }
}

/// A [`RowsKey`] borrowed from the update that looks it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RowsOf<'a> {
    pub tenant: &'a Tenant,
    pub path: &'a ServicePath,
    pub id: &'a EntityId,
}

impl RowsOf<'_> {
    pub fn to_key(self) -> RowsKey {
        RowsKey { tenant: self.tenant.clone(), path: self.path.clone(), id: self.id.clone() }
    }
}

impl Equivalent<RowsKey> for RowsOf<'_> {
    fn equivalent(&self, key: &RowsKey) -> bool {
        self.id == &key.id && self.path == &key.path && self.tenant == &key.tenant
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
    rows: HashMap<RowsKey, Vec<Row>, RandomState>,
}

impl EntityCache {
    /// Takes the rows of a key, and the key, out of the cache, if it is cached.
    pub fn take(&mut self, key: RowsOf<'_>) -> Option<(RowsKey, Vec<Row>)> {
        self.rows.remove_entry(&key)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::model::EntityKey;

    fn row(id: &str, seq: i64) -> Row {
        let key = EntityKey {
            tenant: Tenant::default_tenant(),
            path: ServicePath::root(),
            id: EntityId(id.into()),
            entity_type: "Room".into(),
        };
        Row { seq, entity: Arc::new(Entity::new(key)) }
    }

    /// The borrowed key hashes and compares as the owned one: a lookup finds what was put, and only that.
    #[test]
    fn rows_put_under_a_key_are_taken_by_its_borrowed_form() {
        let (tenant, root) = (Tenant::default_tenant(), ServicePath::root());
        let other_path = ServicePath::parse("/other").unwrap();
        let (room1, room2) = (EntityId("Room1".into()), EntityId("Room2".into()));
        let mut cache = EntityCache::default();
        cache.put(RowsOf { tenant: &tenant, path: &root, id: &room1 }.to_key(), vec![row("Room1", 7)]);
        assert!(cache.take(RowsOf { tenant: &tenant, path: &root, id: &room2 }).is_none());
        assert!(cache.take(RowsOf { tenant: &tenant, path: &other_path, id: &room1 }).is_none());
        let (key, rows) = cache.take(RowsOf { tenant: &tenant, path: &root, id: &room1 }).expect("cached");
        assert_eq!((key.id, rows[0].seq), (room1.clone(), 7));
        assert!(cache.take(RowsOf { tenant: &tenant, path: &root, id: &room1 }).is_none(), "taken out");
    }
}

//! The SQLite backend: one database file in the data dir, WAL journal, a group-committing writer thread and a pool
//! of reader threads.
//!
//! `synchronous` is configurable: `full` (the default) makes every acknowledged write survive power loss; `normal`
//! still survives a killed process (the WAL is written before the answer) but may lose the last commits on power
//! loss. The schema is migrated at open.

mod catalog;
mod entities;
mod history;
mod readers;
mod schema;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rusqlite::Connection;

use self::readers::Readers;
use self::writer::Writer;
use super::{
    ChangeListener, EntityStore, Origin, QueryPage, Reply, ServiceStore, Store, StoreError, SubscriptionStore,
    UpdateBatch, UpdateOutcome,
};
use crate::auth::{Grant, TokenHash};
use crate::broker::model::{Entity, EntityId};
use crate::broker::query::EntityQuery;
use crate::broker::subscription::{Subscription, SubscriptionId};
use crate::history::model::Sample;
use crate::history::store::{AggrQuery, DeleteScope, HistoryStore, IngestOutcome, Point, RawPage, RawQuery};
use crate::history::time::Millis;
use crate::tenancy::Tenant;

/// The database file's name inside the data dir.
pub const DB_FILE: &str = "fluxgate.db";

/// How hard SQLite syncs each commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Synchronous {
    Full,
    Normal,
}

/// Options of the SQLite store.
#[derive(Debug, Clone)]
pub struct SqliteOptions {
    pub data_dir: PathBuf,
    pub readers: usize,
    pub synchronous: Synchronous,
}

/// The SQLite store.
pub struct SqliteStore {
    writer: Writer,
    readers: Readers,
    listener: Arc<RwLock<Option<Arc<dyn ChangeListener>>>>,
    known_series: Arc<history::KnownSeries>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens (creating and migrating as needed) the database in the data dir.
    pub fn open(options: &SqliteOptions) -> Result<Self, StoreError> {
        std::fs::create_dir_all(&options.data_dir)
            .map_err(|e| StoreError::Database(format!("cannot create {}: {e}", options.data_dir.display())))?;
        let path = options.data_dir.join(DB_FILE);
        let conn = open_writer(&path, options.synchronous)?;
        let (writer, _writer_thread) = Writer::start(conn);
        let (readers, _reader_threads) = Readers::start(&path, options.readers.max(1))?;
        let known_series = Arc::default();
        Ok(SqliteStore { writer, readers, listener: Arc::new(RwLock::new(None)), known_series })
    }

    fn listener(&self) -> Option<Arc<dyn ChangeListener>> {
        self.listener.read().expect("listener lock").clone()
    }
}

fn open_writer(path: &Path, synchronous: Synchronous) -> Result<Connection, StoreError> {
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    let sync = match synchronous {
        Synchronous::Full => "FULL",
        Synchronous::Normal => "NORMAL",
    };
    conn.pragma_update(None, "synchronous", sync)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Each job runs in a savepoint whose sub-journal would otherwise be a temporary file written page by page
    // (it dominated history ingest), and a larger page cache keeps the rollups' hot pages from being re-read.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -65_536)?;
    // Checkpoint every ~40 MB of WAL instead of 4 MB: pages rewritten by many commits are copied back once.
    conn.pragma_update(None, "wal_autocheckpoint", 10_000)?;
    conn.set_prepared_statement_cache_capacity(64);
    schema::migrate(&mut conn)?;
    Ok(conn)
}

impl EntityStore for SqliteStore {
    fn update(&self, batch: UpdateBatch) -> Reply<UpdateOutcome> {
        let listener = self.listener();
        let origin: Origin = batch.origin.clone();
        let hook = listener.map(|l| -> writer::AfterCommit<UpdateOutcome> {
            Box::new(move |outcome: &UpdateOutcome| {
                if !outcome.changes.is_empty() {
                    l.on_changes(&origin, &outcome.changes);
                }
            })
        });
        self.writer.submit(
            move |conn| {
                let (results, changes) = entities::apply_update(conn, &batch)?;
                Ok(UpdateOutcome { results, changes })
            },
            hook,
        )
    }

    fn query(&self, query: EntityQuery) -> Reply<QueryPage> {
        self.readers.submit(move |conn| entities::query(conn, &query))
    }

    fn entities_by_id(&self, tenant: Tenant, id: EntityId) -> Reply<Vec<Entity>> {
        self.readers.submit(move |conn| entities::by_id(conn, &tenant, &id))
    }
}

impl SubscriptionStore for SqliteStore {
    fn put_subscription(&self, subscription: Subscription) -> Reply<()> {
        self.writer.submit(move |conn| catalog::put_subscription(conn, &subscription), None)
    }

    fn delete_subscription(&self, tenant: Tenant, id: SubscriptionId) -> Reply<bool> {
        self.writer.submit(move |conn| catalog::delete_subscription(conn, &tenant, &id), None)
    }

    fn subscriptions(&self) -> Reply<Vec<Subscription>> {
        self.readers.submit(catalog::subscriptions)
    }
}

impl ServiceStore for SqliteStore {
    fn add_service(&self, service: Tenant, token: TokenHash) -> Reply<()> {
        self.writer.submit(move |conn| catalog::add_service(conn, &service, &token), None)
    }

    fn add_token(&self, grant: Grant, token: TokenHash) -> Reply<()> {
        self.writer.submit(move |conn| catalog::add_token(conn, &grant, &token), None)
    }

    fn find_token(&self, token: TokenHash) -> Reply<Option<Grant>> {
        self.readers.submit(move |conn| catalog::find_token(conn, &token))
    }

    fn service_count(&self) -> Reply<usize> {
        self.readers.submit(catalog::service_count)
    }
}

impl Store for SqliteStore {
    fn set_listener(&self, listener: Arc<dyn ChangeListener>) {
        *self.listener.write().expect("listener lock") = Some(listener);
    }
}

impl HistoryStore for SqliteStore {
    fn ingest(&self, samples: Vec<Sample>) -> Reply<IngestOutcome> {
        let known = self.known_series.clone();
        let generation = known.generation();
        let new_series = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (job_known, job_series) = (known.clone(), new_series.clone());
        let learn: writer::AfterCommit<IngestOutcome> = Box::new(move |_: &IngestOutcome| {
            known.learn(generation, &new_series.lock().expect("new series lock"));
        });
        let work = move |conn: &Connection| {
            let done = history::ingest(conn, &job_known, &samples)?;
            *job_series.lock().expect("new series lock") = done.new_series;
            Ok(done.outcome)
        };
        self.writer.submit(work, Some(learn))
    }

    fn raw(&self, query: RawQuery) -> Reply<RawPage> {
        self.readers.submit(move |conn| history::raw(conn, &query))
    }

    fn aggregated(&self, query: AggrQuery) -> Reply<Vec<Point>> {
        self.readers.submit(move |conn| history::aggregated(conn, &query))
    }

    fn delete(&self, scope: DeleteScope) -> Reply<()> {
        let known = self.known_series.clone();
        self.writer.submit(move |conn| history::delete(conn, &known, &scope), None)
    }

    fn purge_before(&self, cutoff: Millis) -> Reply<u64> {
        self.writer.submit(move |conn| history::purge_before(conn, cutoff), None)
    }
}

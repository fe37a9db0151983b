//! The SQLite backend: two database files in the data dir, WAL journal. The main file (`fluxgate.db`) has a
//! group-committing writer thread, a thread copying its WAL back into the file (`checkpoint`) and a pool of reader
//! threads; the history file (`history.db`) holds the clustered history tables, written by the history merger's
//! thread only (`history::merger`) and attached, for reads, to the writer's and the readers' connections.
//!
//! `synchronous` is configurable. `normal` (the default) writes each commit to the WAL before the answer, so every
//! acknowledged write survives a killed process, which is the contract's durability; the last commits may be lost
//! on power loss. `full` also flushes the WAL to disk on every commit, surviving power loss, at the cost of one disk
//! flush per group commit (about 4 ms on the development machines, measured in `benches/results/broker.md`).

mod cache;
mod catalog;
mod cep;
mod checkpoint;
mod commands;
mod devices;
mod entities;
mod history;
mod readers;
mod schema;
mod writer;

pub use self::commands::text_attr;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rusqlite::Connection;

use self::checkpoint::{Checkpointer, WalLength};
use self::readers::Readers;
use self::writer::{Tx, Writer};
use super::{
    CepStore, ChangeListener, CommandReport, DeviceStore, EntityStore, QueryPage, QueuedCommand, Reply, ServiceStore,
    Store, StoreError, StoredCepConfig, SubscriptionStore, UpdateBatch, UpdateOutcome, WriteRule,
};
use crate::auth::{Grant, TokenHash};
use crate::broker::model::{Entity, EntityId};
use crate::broker::query::EntityQuery;
use crate::broker::subscription::{Subscription, SubscriptionId};
use crate::clock::Clock;
use crate::devices::model::{Device, RegisteredDevice};
use crate::history::model::Sample;
use crate::history::store::{AggrQuery, DeleteScope, HistoryStore, IngestOutcome, Point, RawPage, RawQuery};
use crate::history::time::Millis;
use crate::tenancy::ServicePath;
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

impl Synchronous {
    /// The value of SQLite's `synchronous` pragma.
    fn pragma(self) -> &'static str {
        match self {
            Synchronous::Full => "FULL",
            Synchronous::Normal => "NORMAL",
        }
    }
}

/// Options of the SQLite store.
#[derive(Debug, Clone)]
pub struct SqliteOptions {
    pub data_dir: PathBuf,
    pub readers: usize,
    pub synchronous: Synchronous,
}

type Listeners = Arc<RwLock<Vec<Arc<dyn ChangeListener>>>>;

/// The SQLite store.
pub struct SqliteStore {
    writer: Writer,
    readers: Readers,
    listeners: Listeners,
    rule: Arc<RwLock<Option<Arc<dyn WriteRule>>>>,
    clock: Arc<dyn Clock>,
    history: Arc<history::HistoryState>,
    merger_thread: Option<std::thread::JoinHandle<()>>,
    _checkpointer: Checkpointer,
}

/// The schema name the history file is attached under (its tables' names are unique, so queries leave it out).
const HISTORY_SCHEMA: &str = "history";

/// Attaches a database file to a connection under `schema`.
fn attach(conn: &Connection, schema: &str, file: &Path) -> Result<(), StoreError> {
    conn.execute(&format!("ATTACH DATABASE ?1 AS {schema}"), [file.to_string_lossy()])?;
    Ok(())
}

impl Drop for SqliteStore {
    /// Lets the history merger finish the tasks already queued, so a store opened next on the same files starts from
    /// a settled mark; samples not yet sealed stay in the journal and are merged at the next open.
    fn drop(&mut self) {
        self.history.close();
        if let Some(thread) = self.merger_thread.take() {
            let _ = thread.join();
        }
    }
}

/// Results of writes that carry an [`UpdateOutcome`] for the listeners.
trait HasOutcome {
    fn outcome(&self) -> &UpdateOutcome;
}

impl HasOutcome for UpdateOutcome {
    fn outcome(&self) -> &UpdateOutcome {
        self
    }
}

impl HasOutcome for (Vec<QueuedCommand>, UpdateOutcome) {
    fn outcome(&self) -> &UpdateOutcome {
        &self.1
    }
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens (creating and migrating as needed) the database in the data dir.
    pub fn open(options: &SqliteOptions, clock: Arc<dyn Clock>) -> Result<Self, StoreError> {
        std::fs::create_dir_all(&options.data_dir)
            .map_err(|e| StoreError::Database(format!("cannot create {}: {e}", options.data_dir.display())))?;
        let path = options.data_dir.join(DB_FILE);
        let history_path = options.data_dir.join(history::HISTORY_FILE);
        let wal = WalLength::default();
        let mut conn = open_writer(&path, options.synchronous, wal.clone())?;
        let mut hist = history::open_file(&options.data_dir, options.synchronous)?;
        if schema::version(&conn)? <= schema::HISTORY_IN_MAIN {
            schema::migrate_to(&mut conn, schema::HISTORY_IN_MAIN)?;
            history::adopt(&hist, &path)?;
        }
        schema::migrate(&mut conn)?;
        attach(&conn, HISTORY_SCHEMA, &history_path)?;
        let (history, merges) = history::open(&conn, &mut hist)?;
        let (writer, _writer_thread) = Writer::start(conn);
        let merger_thread = Some(history::start_merger(hist, merges, &history, &writer)?);
        let attached = [(HISTORY_SCHEMA, history_path.as_path())];
        let (readers, _reader_threads) = Readers::start(&path, &attached, options.readers.max(1))?;
        let (_checkpointer, _checkpoint_thread) = Checkpointer::start(&path, options.synchronous, wal)?;
        let rule = Arc::new(RwLock::new(None));
        let listeners = Arc::new(RwLock::new(Vec::new()));
        Ok(SqliteStore { writer, readers, listeners, rule, clock, history, merger_thread, _checkpointer })
    }

    /// Submits a write whose outcome is told to the listeners after commit, in commit order.
    fn write_notifying<T, F>(&self, origin: super::Origin, work: F) -> Reply<T>
    where
        T: HasOutcome + Send + 'static,
        F: FnOnce(&Tx<'_>, Option<&dyn WriteRule>, i64) -> Result<T, StoreError> + Send + 'static,
    {
        let listeners = self.listeners.clone();
        let rule = self.rule.read().expect("rule lock").clone();
        let now = self.clock.now_ms();
        let hook: writer::AfterCommit<T> = Box::new(move |value: &T| {
            let outcome = value.outcome();
            if outcome.changes.is_empty() && outcome.commands.is_empty() {
                return;
            }
            for listener in listeners.read().expect("listeners lock").iter() {
                listener.on_commit(&origin, outcome);
            }
        });
        self.writer.submit(move |conn| work(conn, rule.as_deref(), now), Some(hook))
    }
}

/// Page size of a new database file. An update rewrites one whole page of its entity's row into the WAL (and the
/// checkpoint copies it back), so pages near the size of an entity row write a quarter of what SQLite's default 4 KiB
/// does: `bench broker` ran 15 % faster (`benches/results/broker.md`). The price is on scans, which visit four times
/// as many pages: a query reading 10,000 entities took about 10 % longer, unless it finds them in its reader's page
/// cache (`readers::CACHE_KIB`). Rows larger than a page spill into overflow pages. A file created with another page size keeps it: SQLite ignores the pragma once the file has tables.
const PAGE_SIZE: i64 = 1024;

/// WAL size at which a commit checkpoints by itself, in bytes.
const AUTOCHECKPOINT_BYTES: i64 = 40 << 20;

fn open_writer(path: &Path, synchronous: Synchronous, wal: WalLength) -> Result<Connection, StoreError> {
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "page_size", PAGE_SIZE)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", synchronous.pragma())?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Each job runs in a savepoint whose sub-journal would otherwise be a temporary file written page by page
    // (it dominated history ingest), and a larger page cache keeps the rollups' hot pages from being re-read.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -65_536)?;
    // Checkpoint every ~40 MB of WAL instead of 4 MB: pages rewritten by many commits are copied back once. The
    // checkpoint thread copies them first, at a tenth of that (`checkpoint`).
    let page_size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
    let autocheckpoint = u32::try_from(AUTOCHECKPOINT_BYTES / page_size).unwrap_or(u32::MAX);
    checkpoint::watch(&mut conn, wal, autocheckpoint)?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}

impl EntityStore for SqliteStore {
    fn update(&self, batch: UpdateBatch) -> Reply<UpdateOutcome> {
        let origin = batch.origin.clone();
        self.write_notifying(origin, move |conn, rule, now| entities::apply_update(conn, &batch, rule, now))
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

impl DeviceStore for SqliteStore {
    fn add_devices(&self, tenant: Tenant, path: ServicePath, devices: Vec<Device>) -> Reply<UpdateOutcome> {
        self.write_notifying(Default::default(), move |conn, _, now| {
            devices::insert_all(conn, &tenant, &path, &devices, now)
        })
    }

    fn devices(&self) -> Reply<Vec<RegisteredDevice>> {
        self.readers.submit(devices::all)
    }

    fn put_device(&self, tenant: Tenant, device: Device) -> Reply<bool> {
        self.writer.submit(move |conn| devices::replace(conn, &tenant, &device), None)
    }

    fn delete_device(&self, tenant: Tenant, device_id: String) -> Reply<bool> {
        self.writer.submit(move |conn| devices::delete(conn, &tenant, &device_id), None)
    }

    fn ingest(
        &self,
        measures: Option<UpdateBatch>,
        tenant: Tenant,
        reports: Vec<CommandReport>,
    ) -> Reply<UpdateOutcome> {
        let origin = measures.as_ref().map(|b| b.origin.clone()).unwrap_or_default();
        self.write_notifying(origin, move |conn, rule, now| {
            let mut outcome = match &measures {
                Some(batch) => entities::apply_update(conn, batch, rule, now)?,
                None => UpdateOutcome::default(),
            };
            for report in &reports {
                commands::merge(&mut outcome, commands::finish(conn, &tenant, report, now)?);
            }
            Ok(outcome)
        })
    }

    fn take_pending(&self, tenant: Tenant, device_id: String) -> Reply<(Vec<QueuedCommand>, UpdateOutcome)> {
        self.write_notifying(Default::default(), move |conn, _, now| {
            commands::take_pending(conn, &tenant, &device_id, now)
        })
    }

    fn expire_commands(&self, before_ms: i64) -> Reply<UpdateOutcome> {
        self.write_notifying(Default::default(), move |conn, _, now| commands::expire(conn, before_ms, now))
    }
}

impl CepStore for SqliteStore {
    fn put_cep_config(&self, config: StoredCepConfig) -> Reply<()> {
        self.writer.submit(move |conn| cep::put(conn, &config), None)
    }

    fn delete_cep_config(&self, tenant: Tenant, path: ServicePath) -> Reply<bool> {
        self.writer.submit(move |conn| cep::delete(conn, &tenant, &path), None)
    }

    fn cep_configs(&self) -> Reply<Vec<StoredCepConfig>> {
        self.readers.submit(cep::all)
    }
}

impl Store for SqliteStore {
    fn add_listener(&self, listener: Arc<dyn ChangeListener>) {
        self.listeners.write().expect("listeners lock").push(listener);
    }

    fn set_rule(&self, rule: Arc<dyn WriteRule>) {
        *self.rule.write().expect("rule lock") = Some(rule);
    }
}

impl HistoryStore for SqliteStore {
    fn ingest(&self, samples: Vec<Sample>) -> Reply<IngestOutcome> {
        history::submit_ingest(&self.writer, &self.history, samples)
    }

    fn raw(&self, query: RawQuery) -> Reply<RawPage> {
        let state = self.history.clone();
        self.readers.submit(move |conn| history::raw(conn, &state.tail, &query))
    }

    fn aggregated(&self, query: AggrQuery) -> Reply<Vec<Point>> {
        let state = self.history.clone();
        self.readers.submit(move |conn| history::aggregated(conn, &state.tail, &query))
    }

    fn delete(&self, scope: DeleteScope) -> Reply<()> {
        history::submit_delete(&self.writer, &self.history, scope)
    }

    fn purge_before(&self, cutoff: Millis) -> Reply<u64> {
        history::submit_purge(&self.writer, &self.history, cutoff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::TokenHash;
    use crate::clock::WallClock;
    use crate::store::ServiceStore;

    fn open(dir: &Path) -> SqliteStore {
        let options = SqliteOptions { data_dir: dir.to_owned(), readers: 1, synchronous: Synchronous::Normal };
        SqliteStore::open(&options, Arc::new(WallClock)).unwrap()
    }

    fn page_size(dir: &Path) -> i64 {
        let conn = Connection::open(dir.join(DB_FILE)).unwrap();
        conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap()
    }

    /// Opens the store, adds a service and reopens it: the service is there.
    async fn write_and_reopen(dir: &Path) {
        let store = open(dir);
        store.add_service(Tenant::parse("pages").unwrap(), TokenHash::of("t")).await.unwrap();
        drop(store);
        assert_eq!(open(dir).service_count().await.unwrap(), 1);
    }

    #[tokio::test]
    async fn a_new_database_gets_small_pages_and_an_existing_one_keeps_its_own() {
        let fresh = tempfile::tempdir().unwrap();
        write_and_reopen(fresh.path()).await;
        assert_eq!(page_size(fresh.path()), PAGE_SIZE);

        let older = tempfile::tempdir().unwrap();
        let conn = Connection::open(older.path().join(DB_FILE)).unwrap();
        conn.execute_batch("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE kept (x);").unwrap();
        drop(conn);
        write_and_reopen(older.path()).await;
        assert_eq!(page_size(older.path()), 4096);
    }

    /// The checkpoint sequence number in the WAL's header (bytes 12 to 16), which every restart of the WAL increments.
    fn wal_restarts(dir: &Path) -> u32 {
        let wal = std::fs::read(dir.join(format!("{DB_FILE}-wal"))).unwrap();
        u32::from_be_bytes(wal[12..16].try_into().unwrap())
    }

    /// Each restart of the WAL costs the writer a disk flush in the commit that does it (`checkpoint`).
    #[tokio::test]
    async fn commits_under_light_load_do_not_restart_the_wal() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        store.add_service(Tenant::parse("first").unwrap(), TokenHash::of("t")).await.unwrap();
        let before = wal_restarts(dir.path());
        for n in 0..5 {
            // Longer than the checkpoint thread's interval: it looks at the WAL between any two of these commits.
            tokio::time::sleep(std::time::Duration::from_millis(60)).await;
            store
                .add_service(Tenant::parse(&format!("light{n}")).unwrap(), TokenHash::of(&format!("t{n}")))
                .await
                .unwrap();
        }
        assert_eq!(wal_restarts(dir.path()), before);
    }
}

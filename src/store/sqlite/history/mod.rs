//! The historic store in SQLite: an append-only log of new samples, series-clustered raw and rollup tables, and
//! an in-memory tail of what the log holds (schema migrations 3 and 5).
//!
//! Ingest (`ingest`, a writer job) appends each new sample to `history_log`, a rowid table: a commit writes a few
//! pages whatever the number of series, where inserting into the clustered tables cost one or more random pages per
//! sample and capped ingest near 10,000 samples/s. Idempotency stays exact: a sample is new when it is neither in
//! the log (tracked by `temp.history_unmerged`, a key-only table on the writer connection that commits and rolls
//! back with the job, costs no disk write, and is emptied by each merge) nor in `history_raw` (one key lookup).
//! After the commit, the job's new samples are published to the `tail` with their rollup contributions; readers
//! add the tail to what their snapshot's tables hold (`read`). Once the tail holds `MERGE_AT` samples, a `merge`
//! job moves the log into the clustered tables in key order, coalescing rollups per point.
//!
//! Durability is unchanged: a sample is acknowledged once its log row is committed. On open, a leftover log is
//! merged before the writer starts, so the tail starts empty. `history_raw` is clustered on (series, recvTime,
//! value) and serves lastN and time ranges as contiguous scans; rollups on (series, resolution, point start), so an
//! aggregated read is a range scan over at most one row per point plus the tail's points. Series rows (id to key)
//! exist for deletes by service path or entity; a cache of committed series ids spares re-inserting them. Deletes
//! and retention purges merge the log first, so they only ever act on the clustered tables.

mod merge;
mod read;
mod tail;

use self::merge::MergedMax;
pub use self::read::{aggregated, raw};
pub use self::tail::{Fresh, Tail};

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use rusqlite::{Connection, params};

use super::writer::{AfterCommit, Tx, Writer};
use crate::history::model::{Sample, SeriesId, SeriesKey};
use crate::history::store::{DeleteScope, IngestOutcome};
use crate::history::time::{Millis, Resolution};
use crate::store::{Reply, StoreError};

/// Series ids known to be committed. Deletes bump the generation so that ids learned by a job that ran before a
/// delete (in the same transaction) are not trusted after it.
#[derive(Debug, Default)]
pub struct KnownSeries {
    ids: RwLock<HashSet<SeriesId>>,
    generation: AtomicU64,
}

impl KnownSeries {
    fn contains(&self, id: SeriesId) -> bool {
        self.ids.read().expect("series cache lock").contains(&id)
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Called after the commit of an ingest that ran at `generation`.
    pub fn learn(&self, generation: u64, ids: &[SeriesId]) {
        if ids.is_empty() || self.generation() != generation {
            return;
        }
        self.ids.write().expect("series cache lock").extend(ids.iter().copied());
    }

    fn forget_all(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.ids.write().expect("series cache lock").clear();
    }
}

/// The outcome of an ingest job, with the series it inserted (to learn after commit) and the samples it stored (to
/// publish to the tail after commit).
#[derive(Debug, Default)]
pub struct Ingested {
    pub outcome: IngestOutcome,
    pub new_series: Vec<SeriesId>,
    pub fresh: Vec<Fresh>,
}

/// Samples in the tail that make the next ingest queue a merge. The tail holds up to two generations of this size
/// (about 0.5 KB per sample with its rollup contributions); larger merges touch each series' pages for more samples.
pub const MERGE_AT: usize = 100_000;

/// What the history store keeps beside the database: committed series ids, the tail, the newest merged instants.
#[derive(Debug)]
pub struct HistoryState {
    pub known: KnownSeries,
    pub tail: Tail,
    /// Used by writer jobs only (one at a time); a mutex to share it with them.
    merged: Mutex<MergedMax>,
}

impl HistoryState {
    fn merged(&self) -> std::sync::MutexGuard<'_, MergedMax> {
        self.merged.lock().expect("merged max lock")
    }
}

const CREATE_UNMERGED: &str = "CREATE TEMP TABLE IF NOT EXISTS history_unmerged (
    series INTEGER NOT NULL, recv_ms INTEGER NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (series, recv_ms, value)) WITHOUT ROWID";

/// Prepares the writer connection: the temporary key table, and a merge of any log left by a previous run.
pub fn open(conn: &mut Connection) -> Result<Arc<HistoryState>, StoreError> {
    // Small pages: each page a transaction first changes is copied to the temporary database's journal, and the
    // key table's inserts land on pages spread over the whole table.
    conn.pragma_update(Some("temp"), "page_size", 1024)?;
    conn.execute_batch(CREATE_UNMERGED)?;
    let mut merged = MergedMax::default();
    let tx = conn.transaction()?;
    merge::merge(&tx, &mut merged)?;
    let epoch = merge::merged_epoch(&tx)?;
    tx.commit()?;
    let tail = Tail::new(epoch);
    Ok(Arc::new(HistoryState { known: KnownSeries::default(), tail, merged: Mutex::new(merged) }))
}

/// Queues an ingest job; after its commit, the series it created are learned, its samples published to the tail,
/// and a merge queued when the tail is full.
pub fn submit_ingest(writer: &Writer, state: &Arc<HistoryState>, samples: Vec<Sample>) -> Reply<IngestOutcome> {
    let samples: Vec<Prepared> = samples.into_iter().map(Prepared::of).collect();
    let generation = state.known.generation();
    let slot = Arc::new(Mutex::new(Ingested::default()));
    let (job_state, job_slot, hook_state, hook_writer) = (state.clone(), slot.clone(), state.clone(), writer.clone());
    let hook: AfterCommit<IngestOutcome> = Box::new(move |_: &IngestOutcome| {
        let done = std::mem::take(&mut *slot.lock().expect("ingest slot lock"));
        hook_state.known.learn(generation, &done.new_series);
        if hook_state.tail.publish(done.fresh) {
            drop(submit_merge(&hook_writer, &hook_state));
        }
    });
    let work = move |conn: &Tx<'_>| {
        let done = ingest(conn, &job_state, samples)?;
        let outcome = done.outcome;
        *job_slot.lock().expect("ingest slot lock") = done;
        Ok(outcome)
    };
    writer.submit(work, Some(hook))
}

/// Queues a merge of the log.
pub fn submit_merge(writer: &Writer, state: &Arc<HistoryState>) -> Reply<()> {
    let job_state = state.clone();
    submit_merging(writer, state, move |conn| {
        let epoch = merge::merge(conn, &mut job_state.merged())
            .inspect_err(|e| tracing::warn!(error = %e, "history: merge failed"))?;
        Ok(((), epoch))
    })
}

/// Queues a delete (after a merge of the log).
pub fn submit_delete(writer: &Writer, state: &Arc<HistoryState>, scope: DeleteScope) -> Reply<()> {
    let job_state = state.clone();
    submit_merging(writer, state, move |conn| Ok(((), delete(conn, &job_state, &scope)?)))
}

/// Queues a retention purge (after a merge of the log); answers the rows removed.
pub fn submit_purge(writer: &Writer, state: &Arc<HistoryState>, cutoff: Millis) -> Reply<u64> {
    let job_state = state.clone();
    submit_merging(writer, state, move |conn| {
        let epoch = merge::merge(conn, &mut job_state.merged())?;
        Ok((purge_before(conn, cutoff)?, epoch))
    })
}

/// Queues a job that may merge (answering the merge's epoch beside its value); after its commit, the tail retires
/// what the merge moved.
fn submit_merging<T, F>(writer: &Writer, state: &Arc<HistoryState>, work: F) -> Reply<T>
where
    T: Send + 'static,
    F: FnOnce(&Tx<'_>) -> Result<(T, Option<u64>), StoreError> + Send + 'static,
{
    let slot = Arc::new(Mutex::new(None));
    let (job_slot, hook_state) = (slot.clone(), state.clone());
    let hook: AfterCommit<T> = Box::new(move |_: &T| {
        if let Some(epoch) = slot.lock().expect("merge slot lock").take() {
            hook_state.tail.retire(epoch);
        }
    });
    let work = move |conn: &Tx<'_>| {
        let (value, epoch) = work(conn)?;
        *job_slot.lock().expect("merge slot lock") = epoch;
        Ok(value)
    };
    writer.submit(work, Some(hook))
}

const INSERT_SERIES: &str = "INSERT OR IGNORE INTO history_series
    (id, tenant, service_path, entity_id, entity_type, attr_name) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const INSERT_UNMERGED: &str =
    "INSERT OR IGNORE INTO temp.history_unmerged (series, recv_ms, value) VALUES (?1, ?2, ?3)";
const IN_RAW: &str = "SELECT EXISTS (SELECT 1 FROM history_raw WHERE series = ?1 AND recv_ms = ?2 AND value = ?3)";
const APPEND_LOG: &str = "INSERT INTO history_log (series, recv_ms, value, attr_type) VALUES (?1, ?2, ?3, ?4)";

/// Appends the new samples to the log; runs on the writer thread inside the job's savepoint. A sample is a
/// duplicate when the key table already holds it (logged, by this or an earlier job since the last merge) or the
/// raw table does (merged).
pub fn ingest(conn: &Connection, state: &HistoryState, samples: Vec<Prepared>) -> Result<Ingested, StoreError> {
    let (known, mut merged) = (&state.known, state.merged());
    let mut done = Ingested::default();
    let mut unmerged = conn.prepare_cached(INSERT_UNMERGED)?;
    let mut in_raw = conn.prepare_cached(IN_RAW)?;
    let mut append = conn.prepare_cached(APPEND_LOG)?;
    for Prepared { key, fresh } in samples {
        let (id, t, value) = (fresh.series, fresh.recv_time.0, &fresh.value);
        if !known.contains(id) && !done.new_series.contains(&id) {
            if insert_series(conn, id, &key)? {
                merged.empty_series(id);
            }
            done.new_series.push(id);
        }
        let logged = unmerged.execute(params![id.0, t, value])? == 0;
        if logged || merged.may_hold(conn, id, t)? && in_raw.query_row(params![id.0, t, value], |r| r.get(0))? {
            done.outcome.duplicates += 1;
            continue;
        }
        append.execute(params![id.0, t, value, fresh.attr_type])?;
        done.outcome.stored += 1;
        done.fresh.push(fresh);
    }
    Ok(done)
}

/// A sample ready for the writer: its series id, value text, classification and points are computed on the
/// caller's thread, so the one writer thread does only the database work.
#[derive(Debug)]
pub struct Prepared {
    key: SeriesKey,
    fresh: Fresh,
}

impl Prepared {
    pub fn of(sample: Sample) -> Self {
        let fresh = Fresh::new(sample.series.id(), sample.recv_time, &sample.value, sample.attr_type);
        Prepared { key: sample.series, fresh }
    }
}

/// Records a series; answers whether it is new (then it has no samples yet).
fn insert_series(conn: &Connection, id: SeriesId, key: &SeriesKey) -> Result<bool, StoreError> {
    let e = &key.entity;
    let mut stmt = conn.prepare_cached(INSERT_SERIES)?;
    Ok(stmt.execute(params![id.0, e.tenant.as_str(), e.path.as_str(), e.id.0, e.entity_type, key.attr.0])? == 1)
}

/// Deletes a scope's series with their samples and rollups, after merging the log; runs on the writer thread and
/// answers the epoch of the merge.
fn delete(conn: &Connection, state: &HistoryState, scope: &DeleteScope) -> Result<Option<u64>, StoreError> {
    let epoch = merge::merge(conn, &mut state.merged())?;
    let known = &state.known;
    known.forget_all();
    for id in series_in(conn, scope)? {
        for table in ["history_raw", "history_rollup", "history_occur"] {
            conn.prepare_cached(&format!("DELETE FROM {table} WHERE series = ?1"))?.execute([id.0])?;
        }
        conn.prepare_cached("DELETE FROM history_series WHERE id = ?1")?.execute([id.0])?;
    }
    Ok(epoch)
}

fn series_in(conn: &Connection, scope: &DeleteScope) -> Result<Vec<SeriesId>, StoreError> {
    let ids = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<Vec<SeriesId>, StoreError> {
        let mut stmt = conn.prepare_cached(sql)?;
        let rows = stmt.query_map(args, |r| Ok(SeriesId(r.get(0)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    };
    match scope {
        DeleteScope::ServicePath { tenant, path } => ids(
            "SELECT id FROM history_series WHERE tenant = ?1 AND service_path = ?2",
            &[&tenant.as_str(), &path.as_str()],
        ),
        DeleteScope::Entity(e) => ids(
            "SELECT id FROM history_series
             WHERE tenant = ?1 AND service_path = ?2 AND entity_id = ?3 AND entity_type = ?4",
            &[&e.tenant.as_str(), &e.path.as_str(), &e.id.0, &e.entity_type],
        ),
        DeleteScope::Attribute(key) => Ok(vec![key.id()]),
    }
}

/// Removes raw samples before `cutoff` and points that end before it, series by series (using the keys); the log
/// must have been merged.
fn purge_before(conn: &Connection, cutoff: Millis) -> Result<u64, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM history_series")?;
    let ids: Vec<i64> = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let mut removed = 0u64;
    for id in ids {
        removed += purge_series(conn, id, cutoff)?;
    }
    Ok(removed)
}

fn purge_series(conn: &Connection, id: i64, cutoff: Millis) -> Result<u64, StoreError> {
    let raw = "DELETE FROM history_raw WHERE series = ?1 AND recv_ms < ?2";
    let mut removed = conn.prepare_cached(raw)?.execute(params![id, cutoff.0])?;
    for resolution in Resolution::ALL {
        // A point is kept while any part of it is younger than the cutoff: its start is at or after the cutoff's.
        let start = resolution.bucket(cutoff).0;
        for table in ["history_rollup", "history_occur"] {
            let sql = format!("DELETE FROM {table} WHERE series = ?1 AND resolution = ?2 AND bucket_ms < ?3");
            removed += conn.prepare_cached(&sql)?.execute(params![id, resolution.code(), start])?;
        }
    }
    Ok(removed as u64)
}

#[cfg(test)]
mod tests;

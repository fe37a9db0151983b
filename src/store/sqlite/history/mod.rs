//! The historic store in SQLite: an append-only journal of new samples, series-clustered raw and rollup tables,
//! and an in-memory tail of what the journal holds (schema migrations 3, 5 and 6).
//!
//! Ingest (`ingest`, a writer job) appends the job's new samples to `history_journal` as one row, so a commit
//! writes a few pages whatever the number of series, and a job costs one statement however many samples it holds.
//! Idempotency stays exact and needs no statement in the common case: a sample is new when it is neither among
//! the samples this job or an earlier job of the same transaction journaled (kept in memory for the transaction:
//! `merge::Pending`, reset when the writer starts another transaction, so a refused batch leaves nothing behind),
//! nor in the tail's open generation (committed, unmerged), nor in `history_raw` (one key lookup, skipped when the
//! sample is newer than everything merged for its series). After the commit, the job's new samples are published
//! to the `tail` with their rollup contributions; readers add the tail to what their snapshot's tables hold
//! (`read`). Once the tail holds `MERGE_AT` samples, a `merge` job writes them from memory into the clustered
//! tables in key order, with rollups coalesced per point, and empties the journal.
//!
//! Durability is unchanged: a sample is acknowledged once its journal row is committed. On open, a leftover
//! journal is read into a tail and merged before the writer starts. `history_raw` is clustered on (series,
//! recvTime, value) and serves lastN and time ranges as contiguous scans; rollups on (series, resolution, point
//! start), so an aggregated read is a range scan over at most one row per point plus the tail's points. Series rows
//! (id to key) exist for deletes by service path or entity; a cache of committed series ids spares re-inserting
//! them. Deletes and retention purges merge first, so they only ever act on the clustered tables.

mod journal;
mod merge;
mod read;
mod tail;

use self::merge::{MergedMax, Pending};
pub use self::read::{aggregated, raw};
pub use self::tail::{Fresh, Tail};

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

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
/// (about 0.5 KB per sample with its rollup contributions, so up to about 400 MB). A merge writes each raw sample
/// and second point once, but every touched series' minute, hour, day and month points once per merge: with 64,000
/// series sampled every second, merges of 100,000 samples wrote 4.6 rows per sample and ingest fell to 68,000/s
/// over 30 s; at 400,000 it held 112,000/s (`benches/results/history.md`, 2026-11-24).
pub const MERGE_AT: usize = 400_000;

/// What the writer jobs keep between them: the newest merged instants, and what the current transaction did.
#[derive(Debug, Default)]
struct WriterSide {
    merged: MergedMax,
    /// The writer transaction `pending` describes.
    batch: u64,
    pending: Pending,
}

/// What the history store keeps beside the database: committed series ids, the tail, the writer jobs' state.
#[derive(Debug)]
pub struct HistoryState {
    pub known: KnownSeries,
    pub tail: Tail,
    /// Used by writer jobs only (one at a time); a mutex to share it with them.
    writer: Mutex<WriterSide>,
}

impl HistoryState {
    /// The writer jobs' state, with `pending` emptied when `tx` is another transaction than the last job's: every
    /// job of that one is finished, its samples published to the tail or refused with it.
    fn writer_side(&self, tx: &Tx<'_>) -> MutexGuard<'_, WriterSide> {
        let mut side = self.writer.lock().expect("history writer state lock");
        if side.batch != tx.batch() {
            side.batch = tx.batch();
            side.pending = Pending::default();
        }
        side
    }

    /// Merges what is unmerged, in the job's transaction.
    fn merge(&self, tx: &Tx<'_>) -> Result<Option<u64>, StoreError> {
        let side = &mut *self.writer_side(tx);
        merge::merge(tx, &self.tail, &mut side.pending, &mut side.merged)
    }
}

/// Prepares the writer connection: a journal left by a previous run is read into a tail and merged.
pub fn open(conn: &mut Connection) -> Result<Arc<HistoryState>, StoreError> {
    let tx = conn.transaction()?;
    let before = merge::merged_epoch(&tx)?;
    let leftover = Tail::new(before);
    leftover.publish(journal::since(&tx, i64::MIN)?);
    let mut merged = MergedMax::default();
    let epoch = merge::merge(&tx, &leftover, &mut Pending::default(), &mut merged)?.unwrap_or(before);
    tx.commit()?;
    let writer = Mutex::new(WriterSide { merged, ..WriterSide::default() });
    Ok(Arc::new(HistoryState { known: KnownSeries::default(), tail: Tail::new(epoch), writer }))
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
        let epoch = job_state.merge(conn).inspect_err(|e| tracing::warn!(error = %e, "history: merge failed"))?;
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
        let epoch = job_state.merge(conn)?;
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
const IN_RAW: &str = "SELECT EXISTS (SELECT 1 FROM history_raw WHERE series = ?1 AND recv_ms = ?2 AND value = ?3)";

/// Journals the new samples as one row; runs on the writer thread inside the job's savepoint. The transaction's
/// `pending` state learns the job's samples only once the job has succeeded, so a refused job leaves none there.
pub fn ingest(tx: &Tx<'_>, state: &HistoryState, samples: Vec<Prepared>) -> Result<Ingested, StoreError> {
    let mut side = state.writer_side(tx);
    let side = &mut *side;
    let mut done = Ingested::default();
    let mut keys = HashSet::new();
    for Prepared { key, fresh } in samples {
        let id = fresh.series;
        if !state.known.contains(id) && !done.new_series.contains(&id) {
            if insert_series(tx, id, &key)? {
                side.merged.empty_series(id);
            }
            done.new_series.push(id);
        }
        let sample_key = (id, fresh.recv_time, fresh.value.clone());
        if keys.contains(&sample_key) || stored_before(tx, state, side, &sample_key)? {
            done.outcome.duplicates += 1;
            continue;
        }
        keys.insert(sample_key);
        done.outcome.stored += 1;
        done.fresh.push(fresh);
    }
    if !done.fresh.is_empty() {
        let seq = journal::append(tx, &done.fresh)?;
        side.pending.journal_from.get_or_insert(seq);
        side.pending.keys.extend(keys);
    }
    Ok(done)
}

/// Whether a sample is stored already: journaled earlier in this transaction, committed and unmerged (unless a
/// merge ran in this transaction: what the tail holds is then merged, or deleted), or merged.
fn stored_before(
    conn: &Connection,
    state: &HistoryState,
    side: &mut WriterSide,
    key: &merge::SampleKey,
) -> Result<bool, StoreError> {
    let (id, t, value) = key;
    if side.pending.keys.contains(key) || !side.pending.merged && state.tail.holds(*id, *t, value) {
        return Ok(true);
    }
    if !side.merged.may_hold(conn, *id, t.0)? {
        return Ok(false);
    }
    Ok(conn.prepare_cached(IN_RAW)?.query_row(params![id.0, t.0, value], |r| r.get(0))?)
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
fn delete(conn: &Tx<'_>, state: &HistoryState, scope: &DeleteScope) -> Result<Option<u64>, StoreError> {
    let epoch = state.merge(conn)?;
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

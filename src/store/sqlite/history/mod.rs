//! The historic store in SQLite: an append-only journal of new samples in the main file, series-clustered raw and
//! rollup tables in the history file (`merger`), and an in-memory tail of what is journaled and not yet merged.
//!
//! Ingest (`ingest`, a writer job) appends the job's new samples to `history_journal` as one row, so a commit
//! writes a few pages whatever the number of series, and a job costs one statement however many samples it holds.
//! After the commit, the job's samples are published to the tail with their rollup contributions; readers add the
//! tail to what their snapshot of the history file holds (`read`). Once the tail's open generation is large enough
//! for the series it touches (`merge_due`) it is sealed and queued to the merger thread, which writes it into the
//! history file on the other core while the writer goes on; a writer job then deletes the journal rows it held and
//! retires it.
//!
//! Idempotency stays exact and needs no statement in the common case: a sample is new when it is neither among the
//! samples this job or an earlier job of the same transaction journaled (`Pending`, kept for the transaction), nor
//! in a tail generation, nor in `history_raw` (one key lookup on the writer's snapshot of the history file, attached
//! to its connection, skipped when the sample is newer than everything merged for its series). A delete is ordered
//! where its writer job runs: it seals the open generation, and the merger deletes after merging it; until then
//! ingest ignores what the tail and the history file hold of the deleted series (`Cut`). Series rows (id to key)
//! stay in the main file and outlive deletes, so a sample ingested while a delete is queued stays findable by
//! scope. Durability is unchanged: a sample is acknowledged once its journal row is committed; on open, journal
//! rows past the history file's mark are merged before the writer starts.

mod journal;
mod merge;
mod merger;
mod read;
mod tail;

use self::merge::{MergedMax, SampleKey};
pub use self::merger::{HISTORY_FILE, adopt, open_file};
use self::merger::{Merger, Task};
pub use self::read::{aggregated, raw};
pub use self::tail::{Fresh, Generation, Tail};

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::thread::JoinHandle;

use crossbeam_channel::Receiver;
use rusqlite::{Connection, params};

use super::writer::{AfterCommit, Tx, Writer};
use crate::history::model::{Sample, SeriesId, SeriesKey};
use crate::history::store::{DeleteScope, IngestOutcome};
use crate::history::time::Millis;
use crate::store::{Reply, StoreError};

/// Series ids known to be committed (series rows are never deleted, so an id learned stays true).
#[derive(Debug, Default)]
pub struct KnownSeries(RwLock<HashSet<SeriesId>>);

impl KnownSeries {
    fn contains(&self, id: SeriesId) -> bool {
        self.0.read().expect("series cache lock").contains(&id)
    }

    /// Called after the commit that inserted `ids`.
    fn learn(&self, ids: &[SeriesId]) {
        if !ids.is_empty() {
            self.0.write().expect("series cache lock").extend(ids.iter().copied());
        }
    }
}

/// The outcome of an ingest job, with the series it inserted (to learn after commit), the samples it stored and
/// their journal row (to publish to the tail after commit).
#[derive(Debug, Default)]
pub struct Ingested {
    pub outcome: IngestOutcome,
    pub new_series: Vec<SeriesId>,
    pub fresh: Vec<Fresh>,
    pub journal_row: i64,
}

/// Samples per touched series at which the tail's open generation is merged, between [`MERGE_MIN`] and
/// [`MERGE_MAX`] samples. A merge rewrites at least one page per touched series and table whatever it brings: with
/// 64,000 series a merge took about 5 s plus 4.2 µs per sample once the tables held 12 million samples (8.3 s for
/// 800,000 samples, 15 s for 2,400,000), so the merger kept up with 96,000 samples/s at 12.5 samples per series and
/// 160,000 at 37.5 (`benches/results/history.md`, 2026-11-24). Few series merge at the floor: the tail stays small.
const SAMPLES_PER_SERIES: usize = 40;

/// The fewest samples a merge waits for.
const MERGE_MIN: usize = 200_000;

/// The most samples a merge waits for. The tail holds at most the open generation and `merger::BACKLOG` sealed
/// ones, about 0.16 KB per sample in memory (the bench peaked at 1.4 GB with three generations of 2,400,000).
const MERGE_MAX: usize = 2_400_000;

/// Whether an open generation of `samples` over `series` series is sealed and merged.
fn merge_due(samples: usize, series: usize) -> bool {
    samples >= series.saturating_mul(SAMPLES_PER_SERIES).clamp(MERGE_MIN, MERGE_MAX)
}

/// What the current writer transaction did that later jobs of it must know: the samples its ingest jobs journaled
/// (published to the tail only after the commit), and the series its deletes covered.
#[derive(Debug, Default)]
struct Pending {
    keys: HashSet<SampleKey>,
    deleted: HashSet<SeriesId>,
}

impl Pending {
    fn delete(&mut self, series: &[SeriesId]) {
        self.keys.retain(|(id, _, _)| !series.contains(id));
        self.deleted.extend(series.iter().copied());
    }
}

/// A committed delete whose effect ingest cannot read yet: the merger has not run it in the writer's snapshot of
/// the history file, or the tail still holds generations sealed before it. Samples of its series count as stored
/// only when a generation after it holds them.
#[derive(Debug)]
struct Cut {
    epoch: u64,
    series: HashSet<SeriesId>,
}

/// What the writer jobs keep between them: the newest merged instants, the committed deletes still to be read
/// around, and what the current transaction did and read.
#[derive(Debug, Default)]
struct WriterSide {
    merged: MergedMax,
    cuts: Vec<Cut>,
    /// The writer transaction `pending` and `snapshot` describe.
    batch: u64,
    pending: Pending,
    /// The merge epoch of the transaction's snapshot of the history file, once read.
    snapshot: Option<u64>,
}

impl WriterSide {
    /// The merge epoch of the transaction's snapshot of the history file (read once per transaction: the snapshot
    /// starts with that read and lasts until the commit). Cuts whose delete the snapshot holds and whose earlier
    /// generations the tail has dropped are forgotten.
    fn snapshot(&mut self, conn: &Connection, tail: &Tail) -> Result<u64, StoreError> {
        if let Some(epoch) = self.snapshot {
            return Ok(epoch);
        }
        let epoch = merge::merged_epoch(conn)?;
        let oldest = tail.oldest_sealed();
        self.cuts.retain(|cut| cut.epoch > epoch || oldest < cut.epoch);
        self.snapshot = Some(epoch);
        Ok(epoch)
    }

    /// The epoch of the latest committed delete of `series` that ingest must read around.
    fn cut(&self, series: SeriesId) -> Option<u64> {
        self.cuts.iter().filter(|cut| cut.series.contains(&series)).map(|cut| cut.epoch).max()
    }
}

/// What the history store keeps beside the database: committed series ids, the tail, the writer jobs' state, the
/// merger's handle.
#[derive(Debug)]
pub struct HistoryState {
    known: KnownSeries,
    pub tail: Tail,
    /// Used by writer jobs and hooks only (one at a time); a mutex to share it with them.
    writer: Mutex<WriterSide>,
    merger: Merger,
}

impl HistoryState {
    /// The writer jobs' state, with `pending` and `snapshot` reset when `tx` is another transaction than the last
    /// job's: every job of that one is finished, its samples published to the tail or refused with it.
    fn writer_side(&self, tx: &Tx<'_>) -> MutexGuard<'_, WriterSide> {
        let mut side = self.writer.lock().expect("history writer state lock");
        if side.batch != tx.batch() {
            side.batch = tx.batch();
            side.pending = Pending::default();
            side.snapshot = None;
        }
        side
    }

    /// Merge `epoch` committed and its journal rows are deleted (a writer hook): the tail retires it and the newest
    /// merged instants learn it.
    fn retired(&self, epoch: u64) {
        if let Some(generation) = self.tail.retire(epoch) {
            self.writer.lock().expect("history writer state lock").merged.saw(&generation);
        }
    }

    /// Seals the open generation for the merger and queues `task` after it, with the epoch after the seal (a writer
    /// hook, so tasks are queued in commit order).
    fn queue_after_seal(&self, task: impl FnOnce(u64) -> Task) -> u64 {
        let (sealed, epoch) = self.tail.seal_before();
        if let Some(generation) = sealed {
            self.merger.queue(Task::Merge { generation, done: None });
        }
        self.merger.queue(task(epoch));
        epoch
    }

    /// Stops the merger once it has done what is queued (the store is closing).
    pub fn close(&self) {
        self.merger.close();
    }
}

/// Prepares the history store at open: journal rows past the history file's mark (left by a run that stopped
/// before merging them) are merged, and the journal emptied of merged rows. Answers the state and the merger's
/// queue, for [`start_merger`].
pub fn open(main: &Connection, hist: &mut Connection) -> Result<(Arc<HistoryState>, Receiver<Task>), StoreError> {
    let (mut epoch, through) = merge::merged_mark(hist)?;
    let (leftover, last) = journal::after(main, through)?;
    if !leftover.is_empty() {
        epoch += 1;
        merge::merge(hist, &Generation::sealed(epoch, last, leftover))?;
    }
    journal::clear_through(main, last)?;
    let (merger, queue) = Merger::new();
    let writer = Mutex::new(WriterSide::default());
    let state = HistoryState { known: KnownSeries::default(), tail: Tail::new(epoch), writer, merger };
    Ok((Arc::new(state), queue))
}

/// Starts the merger thread on the history file.
pub fn start_merger(
    hist: Connection,
    queue: Receiver<Task>,
    state: &Arc<HistoryState>,
    writer: &Writer,
) -> Result<JoinHandle<()>, StoreError> {
    merger::start(hist, queue, state.clone(), writer.clone())
}

/// Queues an ingest job; after its commit, the series it created are learned and its samples published to the
/// tail, which may seal a generation for the merger (waiting while too many merges are queued).
pub fn submit_ingest(writer: &Writer, state: &Arc<HistoryState>, samples: Vec<Sample>) -> Reply<IngestOutcome> {
    let samples: Vec<Prepared> = samples.into_iter().map(Prepared::of).collect();
    let slot = Arc::new(Mutex::new(Ingested::default()));
    let (job_state, job_slot, hook_state) = (state.clone(), slot.clone(), state.clone());
    let hook: AfterCommit<IngestOutcome> = Box::new(move |_: &IngestOutcome| {
        let done = std::mem::take(&mut *slot.lock().expect("ingest slot lock"));
        hook_state.known.learn(&done.new_series);
        if done.fresh.is_empty() {
            return;
        }
        if let Some(generation) = hook_state.tail.publish(done.fresh, done.journal_row) {
            hook_state.merger.queue(Task::Merge { generation, done: None });
            hook_state.merger.wait_for_backlog();
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

/// Seals the tail's open generation and answers once the merger has written it (tests: reads and ingest after a
/// merge).
#[cfg(test)]
pub fn submit_merge(writer: &Writer, state: &Arc<HistoryState>) -> Reply<()> {
    let (done, answer) = Reply::channel();
    let hook_state = state.clone();
    let hook: AfterCommit<()> = Box::new(move |_: &()| match hook_state.tail.seal() {
        Some(generation) => hook_state.merger.queue(Task::Merge { generation, done: Some(done) }),
        None => drop(done.send(Ok(()))),
    });
    drop(writer.submit(|_| Ok(()), Some(hook)));
    answer
}

/// Queues a delete. Its writer job finds the scope's series and orders the delete among ingest jobs; the merger
/// deletes after merging what was published before it, and answers.
pub fn submit_delete(writer: &Writer, state: &Arc<HistoryState>, scope: DeleteScope) -> Reply<()> {
    let (done, answer) = Reply::channel();
    let done = Arc::new(Mutex::new(Some(done)));
    let (job_state, job_done, hook_state) = (state.clone(), done.clone(), state.clone());
    let hook: AfterCommit<Vec<SeriesId>> = Box::new(move |ids: &Vec<SeriesId>| {
        let Some(done) = done.lock().expect("delete reply lock").take() else { return };
        let series = ids.clone();
        let epoch = hook_state.queue_after_seal(|epoch| Task::Delete { epoch, series, done });
        let cut = Cut { epoch, series: ids.iter().copied().collect() };
        hook_state.writer.lock().expect("history writer state lock").cuts.push(cut);
    });
    let work = move |tx: &Tx<'_>| {
        let found = series_in(tx, &scope);
        match &found {
            Ok(ids) => job_state.writer_side(tx).pending.delete(ids),
            Err(e) => answer_early(&job_done, e),
        }
        found
    };
    drop(writer.submit(work, Some(hook)));
    answer
}

/// Queues a retention purge after what was published so far; answers the rows removed.
pub fn submit_purge(writer: &Writer, state: &Arc<HistoryState>, cutoff: Millis) -> Reply<u64> {
    let (done, answer) = Reply::channel();
    let done = Arc::new(Mutex::new(Some(done)));
    let (job_done, hook_state) = (done.clone(), state.clone());
    let hook: AfterCommit<Vec<SeriesId>> = Box::new(move |ids: &Vec<SeriesId>| {
        let Some(done) = done.lock().expect("purge reply lock").take() else { return };
        let series = ids.clone();
        hook_state.queue_after_seal(|epoch| Task::Purge { epoch, cutoff, series, done });
    });
    let work = move |tx: &Tx<'_>| {
        let found = all_series(tx);
        if let Err(e) = &found {
            answer_early(&job_done, e);
        }
        found
    };
    drop(writer.submit(work, Some(hook)));
    answer
}

type Answer<T> = Arc<Mutex<Option<tokio::sync::oneshot::Sender<Result<T, StoreError>>>>>;

/// Answers a delete or purge whose writer job failed with that job's error.
fn answer_early<T>(done: &Answer<T>, error: &StoreError) {
    if let Some(done) = done.lock().expect("reply lock").take() {
        let _ = done.send(Err(error.clone()));
    }
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
        done.journal_row = journal::append(tx, &done.fresh)?;
        side.pending.keys.extend(keys);
    }
    Ok(done)
}

/// Whether a sample is stored already: journaled earlier in this transaction (unless a delete of its series came
/// after), in a tail generation (one sealed after the latest delete of its series, when ingest must still read
/// around that delete), or in the history file (unless that delete is not in the transaction's snapshot yet).
fn stored_before(
    conn: &Connection,
    state: &HistoryState,
    side: &mut WriterSide,
    key: &SampleKey,
) -> Result<bool, StoreError> {
    let (id, t, value) = key;
    if side.pending.keys.contains(key) {
        return Ok(true);
    }
    if side.pending.deleted.contains(id) {
        return Ok(false);
    }
    let snapshot = side.snapshot(conn, &state.tail)?;
    let cut = side.cut(*id);
    if state.tail.holds(*id, *t, value, cut.unwrap_or(0)) {
        return Ok(true);
    }
    if cut.is_some_and(|epoch| epoch > snapshot) || !side.merged.may_hold(conn, *id, t.0)? {
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

/// Every series (a purge's scope).
fn all_series(conn: &Connection) -> Result<Vec<SeriesId>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM history_series")?;
    let ids = stmt.query_map([], |r| Ok(SeriesId(r.get(0)?)))?;
    Ok(ids.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests;

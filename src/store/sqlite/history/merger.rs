//! The merger: a thread that owns the history file (`history.db`, beside the main database) and is its only
//! writer. It takes tasks in the order the writer thread queued them: merges of sealed tail generations, deletes
//! and retention purges, each one transaction of the history file that records its epoch in `history_merged`.
//!
//! The history file is separate so that merges, which write most of what ingest costs (raw rows, rollup points,
//! their WAL frames and checkpoints), run beside the main writer instead of inside it: SQLite lets one connection
//! write a file at a time, and a merge holds that for seconds (`benches/results/history.md`). After a merge
//! commits, a writer job deletes the journal rows it holds and, in its after-commit hook, retires the generation
//! from the tail. A merge that fails is retried with a growing pause: the tasks after it (later generations,
//! deletes) must not pass it, and its samples stay readable in the tail and durable in the journal meanwhile.
//! Ingest waits when `BACKLOG` merges are queued, so the tail stays bounded.

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use rusqlite::{Connection, params};

use super::merge;
use super::tail::Generation;
use super::{HistoryState, journal};
use crate::history::model::SeriesId;
use crate::history::time::{Millis, Resolution};
use crate::store::StoreError;
use crate::store::sqlite::{Synchronous, writer::Writer};

/// The history file's name inside the data dir.
pub const HISTORY_FILE: &str = "history.db";

/// Merges queued (the one running included) at which ingest waits for one to finish: up to 0.4 GB of tail each.
const BACKLOG: usize = 2;

/// Longest pause between two attempts at a failing merge.
const MAX_RETRY_PAUSE: Duration = Duration::from_secs(5);

/// The history file's schema, applied in order and tracked in its `PRAGMA user_version` (like the main file's).
const MIGRATIONS: &[&str] = &[
    // 1: raw samples, numeric rollups and text occurrence counts per resolution (clustered by series), as the main
    // file's migration 3 defined them (that one stays as written: migrations are never edited), and the merge mark:
    // the epoch of the last merge, delete or purge, and the last journal row merged.
    "CREATE TABLE history_raw (
         series INTEGER NOT NULL,
         recv_ms INTEGER NOT NULL,
         value TEXT NOT NULL,
         attr_type TEXT NOT NULL,
         PRIMARY KEY (series, recv_ms, value)
     ) WITHOUT ROWID;
     CREATE TABLE history_rollup (
         series INTEGER NOT NULL,
         resolution INTEGER NOT NULL,
         bucket_ms INTEGER NOT NULL,
         samples INTEGER NOT NULL,
         vsum REAL NOT NULL,
         vsum2 REAL NOT NULL,
         vmin REAL NOT NULL,
         vmax REAL NOT NULL,
         PRIMARY KEY (series, resolution, bucket_ms)
     ) WITHOUT ROWID;
     CREATE TABLE history_occur (
         series INTEGER NOT NULL,
         resolution INTEGER NOT NULL,
         bucket_ms INTEGER NOT NULL,
         value TEXT NOT NULL,
         count INTEGER NOT NULL,
         PRIMARY KEY (series, resolution, bucket_ms, value)
     ) WITHOUT ROWID;
     CREATE TABLE history_merged (epoch INTEGER NOT NULL, journal_through INTEGER NOT NULL);
     INSERT INTO history_merged (epoch, journal_through) VALUES (0, 0);",
];

/// Opens (creating and migrating as needed) the history file for the merger.
pub fn open_file(data_dir: &Path, synchronous: Synchronous) -> Result<Connection, StoreError> {
    let mut conn = Connection::open(data_dir.join(HISTORY_FILE))?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", synchronous.pragma())?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -65_536)?;
    conn.pragma_update(None, "wal_autocheckpoint", 10_000)?;
    conn.set_prepared_statement_cache_capacity(32);
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let found = usize::try_from(found).unwrap_or(0);
    if found > MIGRATIONS.len() {
        let known = MIGRATIONS.len();
        return Err(StoreError::Corrupt(format!("history schema version {found} is newer than this binary's {known}")));
    }
    for (version, sql) in MIGRATIONS.iter().enumerate().skip(found) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (version + 1) as i64)?;
        tx.commit()?;
    }
    Ok(conn)
}

/// Copies the history tables a main file written before the history file existed still holds (schema versions
/// 3 to 6) into the history file, with the merge epoch, in one transaction. Idempotent, so a stop between this
/// copy and the main migration that drops those tables only repeats it.
pub fn adopt(hist: &Connection, main_file: &Path) -> Result<(), StoreError> {
    hist.execute("ATTACH DATABASE ?1 AS old", [main_file.to_string_lossy()])?;
    let copied = copy_old_tables(hist);
    hist.execute_batch("DETACH DATABASE old")?;
    copied
}

fn copy_old_tables(hist: &Connection) -> Result<(), StoreError> {
    let tx = hist.unchecked_transaction()?;
    for table in ["history_raw", "history_rollup", "history_occur"] {
        tx.execute_batch(&format!("INSERT OR IGNORE INTO main.{table} SELECT * FROM old.{table}"))?;
    }
    tx.execute_batch("UPDATE main.history_merged SET epoch = (SELECT epoch FROM old.history_merged)")?;
    Ok(tx.commit()?)
}

/// What the merger does, in the order queued.
pub enum Task {
    /// Write a sealed generation; `done` (for tests) hears when it is committed.
    Merge { generation: Arc<Generation>, done: Option<tokio::sync::oneshot::Sender<Result<(), StoreError>>> },
    /// Delete these series' samples and points, as merge `epoch`.
    Delete { epoch: u64, series: Vec<SeriesId>, done: tokio::sync::oneshot::Sender<Result<(), StoreError>> },
    /// Delete the series' raw samples before `cutoff` and points ending before it, as merge `epoch`; answers the
    /// rows removed.
    Purge {
        epoch: u64,
        cutoff: Millis,
        series: Vec<SeriesId>,
        done: tokio::sync::oneshot::Sender<Result<u64, StoreError>>,
    },
}

/// How many merges are queued, for ingest to wait on.
#[derive(Debug, Default)]
struct Backlog {
    merges: Mutex<usize>,
    changed: Condvar,
}

/// The handle through which the writer thread's hooks queue tasks.
#[derive(Debug)]
pub struct Merger {
    tasks: Mutex<Option<Sender<Task>>>,
    backlog: Backlog,
}

impl Merger {
    /// A handle whose thread is started later by [`start`]; its receiver is answered beside it.
    pub fn new() -> (Self, Receiver<Task>) {
        let (tasks, queue) = crossbeam_channel::unbounded();
        (Merger { tasks: Mutex::new(Some(tasks)), backlog: Backlog::default() }, queue)
    }

    /// Queues a task. After the merger has stopped, the task is dropped, and with it its answer (`Closed`).
    pub fn queue(&self, task: Task) {
        if matches!(task, Task::Merge { .. }) {
            *self.backlog.merges.lock().expect("backlog lock") += 1;
        }
        if let Some(tasks) = self.tasks.lock().expect("merger lock").as_ref() {
            let _ = tasks.send(task);
        }
    }

    /// Blocks while `BACKLOG` merges or more are queued (the writer thread, from ingest's after-commit hook).
    pub fn wait_for_backlog(&self) {
        let mut merges = self.backlog.merges.lock().expect("backlog lock");
        while *merges >= BACKLOG && self.tasks.lock().expect("merger lock").is_some() {
            merges = self.backlog.changed.wait_timeout(merges, Duration::from_millis(100)).expect("backlog lock").0;
        }
    }

    fn merged_one(&self) {
        *self.backlog.merges.lock().expect("backlog lock") -= 1;
        self.backlog.changed.notify_all();
    }

    /// Stops taking tasks; the thread finishes those queued and ends.
    pub fn close(&self) {
        self.tasks.lock().expect("merger lock").take();
        self.backlog.changed.notify_all();
    }
}

/// Starts the merger thread on the history file's connection.
pub fn start(
    conn: Connection,
    queue: Receiver<Task>,
    state: Arc<HistoryState>,
    writer: Writer,
) -> Result<JoinHandle<()>, StoreError> {
    std::thread::Builder::new()
        .name("history-merger".into())
        .spawn(move || run(conn, &queue, &state, &writer))
        .map_err(|e| StoreError::Database(e.to_string()))
}

fn run(mut conn: Connection, queue: &Receiver<Task>, state: &Arc<HistoryState>, writer: &Writer) {
    while let Ok(task) = queue.recv() {
        match task {
            Task::Merge { generation, done } => {
                let merged = merge_until_done(&mut conn, &generation, state);
                if merged.is_ok() {
                    clear_journal(writer, state, &generation);
                }
                state.merger.merged_one();
                if let Some(done) = done {
                    let _ = done.send(merged);
                }
            }
            Task::Delete { epoch, series, done } => {
                let _ = done.send(in_transaction(&mut conn, epoch, |tx| delete(tx, &series)));
            }
            Task::Purge { epoch, cutoff, series, done } => {
                let _ = done.send(in_transaction(&mut conn, epoch, |tx| purge(tx, &series, cutoff)));
            }
        }
    }
}

/// Merges `generation`, retrying after failures (with a pause that doubles up to `MAX_RETRY_PAUSE`) until it
/// commits or the store closes.
fn merge_until_done(conn: &mut Connection, generation: &Generation, state: &HistoryState) -> Result<(), StoreError> {
    let mut pause = Duration::from_millis(50);
    loop {
        match merge::merge(conn, generation) {
            Ok(()) => return Ok(()),
            Err(e) if state.merger.tasks.lock().expect("merger lock").is_none() => return Err(e),
            Err(e) => {
                tracing::warn!(error = %e, epoch = generation.epoch, "history: merge failed, retrying");
                std::thread::sleep(pause);
                pause = (pause * 2).min(MAX_RETRY_PAUSE);
            }
        }
    }
}

/// Queues the writer job that deletes the journal rows `generation` holds; after its commit, the generation is
/// retired from the tail and the newest merged instants learn it.
fn clear_journal(writer: &Writer, state: &Arc<HistoryState>, generation: &Generation) {
    let (epoch, through, hook_state) = (generation.epoch, generation.through, state.clone());
    let hook: super::AfterCommit<()> = Box::new(move |_: &()| hook_state.retired(epoch));
    drop(writer.submit(move |tx| journal::clear_through(tx, through), Some(hook)));
}

fn in_transaction<T>(
    conn: &mut Connection,
    epoch: u64,
    work: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let tx = conn.transaction()?;
    let value = work(&tx)?;
    merge::mark(&tx, epoch, 0)?;
    tx.commit()?;
    Ok(value)
}

/// Deletes the series' samples and points.
fn delete(conn: &Connection, series: &[SeriesId]) -> Result<(), StoreError> {
    for id in series {
        for table in ["history_raw", "history_rollup", "history_occur"] {
            conn.prepare_cached(&format!("DELETE FROM {table} WHERE series = ?1"))?.execute([id.0])?;
        }
    }
    Ok(())
}

/// Removes the series' raw samples before `cutoff` and points that end before it, series by series (using the
/// keys).
fn purge(conn: &Connection, series: &[SeriesId], cutoff: Millis) -> Result<u64, StoreError> {
    let mut removed = 0u64;
    for id in series {
        removed += purge_series(conn, id.0, cutoff)?;
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

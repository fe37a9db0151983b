//! The checkpoint thread: copies committed WAL frames back into the database file on its own connection, so the
//! writer thread spends its time on transactions instead.
//!
//! It copies by passive checkpoints, which never block the writer or the readers, once the WAL holds [`COPY_AT`]
//! frames that no checkpoint copied yet. It learns the WAL's length from the writer: [`watch`] installs a WAL hook on
//! the writer's connection that publishes the length after every commit ([`WalLength`]) and, at `autocheckpoint`
//! frames, checkpoints on the writer as SQLite's own automatic checkpoint would (the hook replaces it). After small
//! commits this thread has copied the frames long before; after a large transaction the writer copies most of them
//! itself, since this thread cannot copy frames before their commit (history merges, the largest, did so at 9 % of
//! the writer's time before they moved to the history file's merger, `benches/results/history.md`, 2026-11-24).
//!
//! Why a threshold rather than a copy every few milliseconds: once a checkpoint has copied the whole WAL, the writer's
//! next commit restarts the WAL from its start, and SQLite syncs the new WAL header to disk in that commit, even with
//! `synchronous = NORMAL`. Copying every 20 ms, as this thread did, made almost every commit under light load such a
//! restart: one disk flush on the writer per commit, which on the development VM took up to 170 ms now and then and
//! made geofence alerts that late (`benches/results/cep-alerts.md`, twenty-second session). Now the writer flushes
//! once per [`COPY_AT`] frames written. Durability is unchanged: checkpoints move data already durable in the WAL.
//! The thread ends when the store that started it is dropped.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use rusqlite::Connection;

use super::Synchronous;
use crate::store::StoreError;

/// How often the thread looks at the WAL's length.
const INTERVAL: Duration = Duration::from_millis(20);

/// Frames not yet copied at which the thread copies them: about 4 MiB of WAL at the store's 1 KiB pages.
pub const COPY_AT: u32 = 4096;

/// The WAL's length in frames after the writer's last commit, as the writer's WAL hook told it.
#[derive(Debug, Clone, Default)]
pub struct WalLength(Arc<AtomicU32>);

impl WalLength {
    pub fn frames(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self, frames: u32) {
        self.0.store(frames, Ordering::Relaxed);
    }
}

/// Installs the writer's WAL hook on `conn`: it publishes the length of the main database's WAL after every commit
/// into `length`, and checkpoints (passively, on the writer) once the WAL reaches `autocheckpoint` frames.
pub fn watch(conn: &mut Connection, length: WalLength, autocheckpoint: u32) -> Result<(), StoreError> {
    conn.wal_hook(Some(move |wal: &mut rusqlite::hooks::Wal, frames: std::ffi::c_int| {
        if wal.name() != c"main" {
            return Ok(());
        }
        let frames = u32::try_from(frames).unwrap_or(0);
        length.set(frames);
        if frames >= autocheckpoint
            && let Err(e) = wal.checkpoint()
        {
            // As SQLite's own automatic checkpoint: a failed one leaves the commit committed, and the next retries.
            tracing::warn!(error = %e, "store: the writer's checkpoint failed");
        }
        Ok(())
    }))?;
    Ok(())
}

/// Keeps the checkpoint thread running while alive.
#[derive(Debug)]
pub struct Checkpointer {
    _stop: Sender<()>,
}

impl Checkpointer {
    /// Opens a connection on the database file and starts the thread, which reads the WAL's length from `length`.
    pub fn start(
        path: &Path,
        synchronous: Synchronous,
        length: WalLength,
    ) -> Result<(Self, JoinHandle<()>), StoreError> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "synchronous", synchronous.pragma())?;
        let (stop, stopped) = crossbeam_channel::bounded(1);
        let handle = std::thread::Builder::new()
            .name("store-checkpoint".into())
            .spawn(move || run(&conn, &length, &stopped))
            .map_err(|e| StoreError::Database(e.to_string()))?;
        Ok((Checkpointer { _stop: stop }, handle))
    }
}

fn run(conn: &Connection, length: &WalLength, stopped: &Receiver<()>) {
    // The WAL's length when the last checkpoint had copied it all.
    let mut copied = 0;
    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(INTERVAL) {
        let frames = length.frames();
        if !due(frames, copied) {
            continue;
        }
        match conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))) {
            Ok((log, done)) if log == done => copied = frames,
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "store: background checkpoint failed"),
        }
    }
}

/// Whether a WAL of `frames` frames, of which the first `copied` were copied when last seen whole, holds
/// [`COPY_AT`] frames to copy. A WAL shorter than `copied` was restarted since: all of it is new.
fn due(frames: u32, copied: u32) -> bool {
    let new = if frames >= copied { frames - copied } else { frames };
    new >= COPY_AT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_once_enough_new_frames_are_waiting() {
        assert!(!due(10, 0), "a few commits stay in the WAL");
        assert!(due(COPY_AT, 0));
        assert!(!due(COPY_AT + 10, COPY_AT), "what the last checkpoint copied is not counted again");
        assert!(due(2 * COPY_AT, COPY_AT));
        assert!(!due(10, COPY_AT), "a restarted WAL counts from its start");
        assert!(due(COPY_AT, COPY_AT + 5), "restarted and grown again");
    }

    fn wal_file(dir: &Path) -> Connection {
        let conn = Connection::open(dir.join("t.db")).expect("open");
        conn.pragma_update(None, "journal_mode", "WAL").expect("wal");
        conn
    }

    fn insert(conn: &Connection, rows: usize) {
        conn.execute_batch("BEGIN").expect("begin");
        for i in 0..rows {
            conn.execute("INSERT INTO t VALUES (?1)", [format!("{i:0>200}")]).expect("insert");
        }
        conn.execute_batch("COMMIT").expect("commit");
    }

    /// A writer on a fresh file with its hook, checkpointing by itself at `autocheckpoint` frames.
    fn watched(dir: &Path, autocheckpoint: u32) -> (Connection, WalLength) {
        let mut writer = wal_file(dir);
        writer.execute_batch("CREATE TABLE t (v TEXT)").expect("table");
        let length = WalLength::default();
        watch(&mut writer, length.clone(), autocheckpoint).expect("hook");
        (writer, length)
    }

    #[test]
    fn the_writers_hook_tells_the_length_and_a_copied_wal_restarts() {
        let dir = tempfile::tempdir().expect("dir");
        let (writer, length) = watched(dir.path(), u32::MAX);
        insert(&writer, 1);
        let first = length.frames();
        assert!(first > 0, "a commit tells its WAL's length");
        insert(&writer, 50);
        assert!(length.frames() > first, "the WAL grows while nothing copies it");
        let other = wal_file(dir.path());
        let (log, done): (i64, i64) =
            other.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get(1)?, r.get(2)?))).expect("copy");
        assert_eq!((log, done), (i64::from(length.frames()), i64::from(length.frames())), "copied whole");
        insert(&writer, 1);
        assert!(length.frames() < first + 5, "the next commit restarts the WAL: {}", length.frames());
    }

    #[test]
    fn the_writer_checkpoints_by_itself_at_its_limit() {
        let dir = tempfile::tempdir().expect("dir");
        let (writer, length) = watched(dir.path(), 8);
        insert(&writer, 100);
        assert!(length.frames() >= 8, "one large commit: {}", length.frames());
        insert(&writer, 1);
        assert!(length.frames() < 8, "the writer's checkpoint let the next commit restart: {}", length.frames());
    }
}

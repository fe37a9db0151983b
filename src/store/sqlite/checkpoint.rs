//! The checkpoint thread: copies committed WAL frames back into the database file on its own connection, so the
//! writer thread spends its time on transactions instead.
//!
//! Every `INTERVAL` it runs a passive checkpoint, which never blocks the writer or the readers and copies only frames
//! no earlier checkpoint copied. The writer keeps its own automatic checkpoint (`wal_autocheckpoint`), which is
//! what lets the writer restart the WAL from its start (only a writer can do that). After small commits it finds
//! the frames already copied; after a large transaction it copies most of them itself, since this thread cannot
//! copy frames before their commit (history merges, the largest, did so at 9 % of the writer's time before they
//! moved to the history file's merger, `benches/results/history.md`, 2026-11-24). Durability is unchanged: checkpoints move data already
//! durable in the WAL. The thread ends when the store that started it is dropped.

use std::path::Path;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use rusqlite::Connection;

use super::Synchronous;
use crate::store::StoreError;

/// Time between two passive checkpoints.
const INTERVAL: Duration = Duration::from_millis(20);

/// Keeps the checkpoint thread running while alive.
#[derive(Debug)]
pub struct Checkpointer {
    _stop: Sender<()>,
}

impl Checkpointer {
    /// Opens a connection on the database file and starts the thread.
    pub fn start(path: &Path, synchronous: Synchronous) -> Result<(Self, JoinHandle<()>), StoreError> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "synchronous", synchronous.pragma())?;
        let (stop, stopped) = crossbeam_channel::bounded(1);
        let handle = std::thread::Builder::new()
            .name("store-checkpoint".into())
            .spawn(move || run(&conn, &stopped))
            .map_err(|e| StoreError::Database(e.to_string()))?;
        Ok((Checkpointer { _stop: stop }, handle))
    }
}

fn run(conn: &Connection, stopped: &Receiver<()>) {
    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(INTERVAL) {
        let done = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(0));
        if let Err(e) = done {
            tracing::warn!(error = %e, "store: background checkpoint failed");
        }
    }
}

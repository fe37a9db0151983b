//! A small pool of reader threads, each with its own read-only connection; WAL lets them read while the writer writes.
//!
//! Reads never wait for the writer's commits. Jobs are closures over a connection, queued on one shared channel that
//! any idle reader takes from; the answer comes back through a [`Reply`].

use std::path::Path;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use rusqlite::{Connection, OpenFlags};

use crate::store::{Reply, StoreError};

type ReadJob = Box<dyn FnOnce(&Connection) + Send>;

/// The handle through which the store submits reads.
#[derive(Debug, Clone)]
pub struct Readers {
    jobs: Sender<ReadJob>,
}

impl Readers {
    /// Opens `count` reader connections on the database file, each with the `attached` files (schema name, path),
    /// and starts their threads.
    pub fn start(
        path: &Path,
        attached: &[(&str, &Path)],
        count: usize,
    ) -> Result<(Self, Vec<JoinHandle<()>>), StoreError> {
        let (jobs, queue) = crossbeam_channel::unbounded::<ReadJob>();
        let mut handles = Vec::with_capacity(count);
        for i in 0..count {
            let conn = open_reader(path, attached)?;
            let queue = queue.clone();
            let handle = std::thread::Builder::new()
                .name(format!("store-reader-{i}"))
                .spawn(move || serve(conn, queue))
                .map_err(|e| StoreError::Database(e.to_string()))?;
            handles.push(handle);
        }
        Ok((Readers { jobs }, handles))
    }

    /// Runs `work` on a reader connection.
    pub fn submit<T, F>(&self, work: F) -> Reply<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, answer) = Reply::channel();
        let job: ReadJob = Box::new(move |conn| {
            let _ = reply.send(work(conn));
        });
        // A closed pool drops the job, and with it the sender: the reply then resolves to `Closed`.
        let _ = self.jobs.send(job);
        answer
    }
}

/// Page cache of each reader connection, in KiB (SQLite's default is 2,000). A connection's cache is dropped when
/// another one has committed since its last read, so this serves queries between writes: with the store's 1 KiB pages
/// a scan of 10,000 entities read them again from the OS for every query with the default (`benches/results/
/// broker.md`).
const CACHE_KIB: i64 = 16 * 1024;

fn open_reader(path: &Path, attached: &[(&str, &Path)]) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "cache_size", -CACHE_KIB)?;
    for (schema, file) in attached {
        super::attach(&conn, schema, file)?;
    }
    Ok(conn)
}

fn serve(conn: Connection, queue: Receiver<ReadJob>) {
    while let Ok(job) = queue.recv() {
        job(&conn);
    }
}

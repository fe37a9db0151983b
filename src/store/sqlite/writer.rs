//! The writer thread: owns the one writing connection and commits many requests in one transaction (group commit).
//!
//! Jobs queue on a channel. The thread takes the first, then every job already waiting (up to a batch limit), runs
//! each inside its own savepoint (a failing job rolls back alone), commits once, runs the after-commit hooks in commit
//! order, and only then answers. A request is therefore answered only when its write is durable, and concurrent
//! requests share the cost of one commit. Nothing here knows what a job writes.

use std::cell::RefCell;
use std::ops::Deref;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use rusqlite::Connection;

use super::cache::EntityCache;
use crate::store::{Reply, StoreError};

/// What a job writes with: the open transaction, the writer's entity cache, and which batch the transaction is.
#[derive(Debug)]
pub struct Tx<'a> {
    conn: &'a Connection,
    cache: &'a RefCell<EntityCache>,
    batch: u64,
}

impl Tx<'_> {
    pub fn cache(&self) -> std::cell::RefMut<'_, EntityCache> {
        self.cache.borrow_mut()
    }

    /// The number of this transaction, increasing: state a job keeps for the rest of its batch is stale once a
    /// job sees another number, because every job of the previous batch has then been finished (committed and its
    /// hook run, or refused).
    pub fn batch(&self) -> u64 {
        self.batch
    }
}

impl Deref for Tx<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn
    }
}

/// Most jobs folded into one transaction.
const MAX_BATCH: usize = 1024;

/// A unit of work for the writer thread.
pub trait WriteJob: Send {
    /// Does the work on the open transaction.
    fn run(&mut self, tx: &Tx<'_>) -> Result<(), StoreError>;
    /// Called once the fate of the transaction is known.
    fn finish(self: Box<Self>, committed: Result<(), StoreError>);
}

/// A hook run on the writer thread after the commit holding a job, before its reply.
pub type AfterCommit<T> = Box<dyn FnOnce(&T) + Send>;

/// A job computing a value of type `T`, answered through a [`Reply`], with an optional hook run after commit.
struct Typed<T, F> {
    work: Option<F>,
    value: Option<T>,
    reply: tokio::sync::oneshot::Sender<Result<T, StoreError>>,
    after_commit: Option<AfterCommit<T>>,
}

impl<T: Send, F: FnOnce(&Tx<'_>) -> Result<T, StoreError> + Send> WriteJob for Typed<T, F> {
    fn run(&mut self, tx: &Tx<'_>) -> Result<(), StoreError> {
        let work = self.work.take().ok_or(StoreError::Closed)?;
        self.value = Some(work(tx)?);
        Ok(())
    }

    fn finish(self: Box<Self>, committed: Result<(), StoreError>) {
        let Typed { value, reply, after_commit, .. } = *self;
        let outcome = committed.and_then(|()| value.ok_or(StoreError::Closed));
        if let (Ok(value), Some(hook)) = (&outcome, after_commit) {
            hook(value);
        }
        let _ = reply.send(outcome);
    }
}

/// The handle through which the store submits writes.
#[derive(Debug, Clone)]
pub struct Writer {
    jobs: Sender<Box<dyn WriteJob>>,
}

impl Writer {
    /// Starts the writer thread on `conn`.
    pub fn start(conn: Connection) -> (Self, JoinHandle<()>) {
        let (jobs, queue) = crossbeam_channel::unbounded();
        let handle = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || run(conn, queue))
            .expect("spawn the store writer thread");
        (Writer { jobs }, handle)
    }

    /// Queues `work`; the reply resolves after the commit that holds it.
    pub fn submit<T, F>(&self, work: F, after_commit: Option<AfterCommit<T>>) -> Reply<T>
    where
        T: Send + 'static,
        F: FnOnce(&Tx<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, answer) = Reply::channel();
        let job = Typed { work: Some(work), value: None, reply, after_commit };
        if let Err(refused) = self.jobs.send(Box::new(job)) {
            refused.0.finish(Err(StoreError::Closed));
        }
        answer
    }
}

fn run(mut conn: Connection, queue: Receiver<Box<dyn WriteJob>>) {
    let cache = RefCell::new(EntityCache::default());
    let mut number = 0u64;
    while let Ok(first) = queue.recv() {
        number += 1;
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        commit_batch(&mut conn, &cache, number, batch);
    }
}

fn commit_batch(conn: &mut Connection, cache: &RefCell<EntityCache>, number: u64, mut batch: Vec<Box<dyn WriteJob>>) {
    let started = Instant::now();
    let size = batch.len();
    let results = match run_all(conn, cache, number, &mut batch) {
        Ok(results) => results,
        Err(e) => {
            cache.borrow_mut().clear();
            vec![Err(e); size]
        }
    };
    metrics::histogram!("fluxgate_store_commit_batch_size").record(size as f64);
    metrics::histogram!("fluxgate_store_commit_seconds").record(started.elapsed().as_secs_f64());
    for (job, result) in batch.into_iter().zip(results) {
        job.finish(result);
    }
}

/// Runs every job in its own savepoint of one transaction, then commits. BEGIN, COMMIT and the savepoint statements
/// are prepared once instead of parsed for every batch and job.
fn run_all(
    conn: &mut Connection,
    cache: &RefCell<EntityCache>,
    number: u64,
    batch: &mut [Box<dyn WriteJob>],
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    conn.prepare_cached("BEGIN")?.execute([])?;
    let outcome = run_jobs(&Tx { conn, cache, batch: number }, batch).and_then(|results| {
        conn.prepare_cached("COMMIT")?.execute([])?;
        Ok(results)
    });
    if outcome.is_err()
        && !conn.is_autocommit()
        && let Err(e) = conn.execute_batch("ROLLBACK")
    {
        tracing::error!(error = %e, "the store writer could not roll back a failed batch");
    }
    outcome
}

/// Runs each job in its own savepoint, taking the savepoint statements from the cache once per batch, not per job.
fn run_jobs(tx: &Tx<'_>, batch: &mut [Box<dyn WriteJob>]) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let conn = tx.conn;
    let mut savepoint = conn.prepare_cached("SAVEPOINT job")?;
    let mut release = conn.prepare_cached("RELEASE job")?;
    let mut results = Vec::with_capacity(batch.len());
    for job in batch.iter_mut() {
        savepoint.execute([])?;
        let result = job.run(tx);
        if result.is_err() {
            tx.cache().clear();
            conn.prepare_cached("ROLLBACK TO job")?.execute([])?;
        }
        release.execute([])?;
        results.push(result);
    }
    Ok(results)
}

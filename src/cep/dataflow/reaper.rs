//! Rows a worker is done with, handed back to the threads that make rows. A row is built on a caller's thread (ingest,
//! the bench's producer) and a window or a pattern instance may hold it for seconds, so the worker that drops it frees
//! a cold block into another thread's memory (mimalloc's slow path for a page another thread abandoned). In `bench
//! geofence`, every row goes once its pattern instance began (the instance writes its start event down,
//! `automaton::starts`), and the rows of the matches after the merge they trigger; in `bench floor`, every row once
//! the window has taken its value. The pattern, merge and query operators of a worker keep those rows ([`Leftovers`])
//! until their epoch ends and then bury them; the grave queues them in batches, at the end of each round and as soon
//! as a batch is full.
//!
//! Who takes them: the threads that make rows, before they make more ([`Reaper::recycle`]: the service's callers
//! after they queue a notification, the bench's producer before each batch, a worker before a round whose rows it
//! makes itself), which write their next rows into them (`cep::runtime::spare`); and the service's feeder after a tick
//! without notifications, which drops them ([`Reaper::reap`]). A worker that makes its own rows keeps its grave's rows
//! for its next ones at the end of such a round ([`keep_own`]) instead of queueing them, where another worker could
//! take them: two workers of `bench floor --feed workers` ran 22 and 33 % more events per second in two interleaved
//! pairs (`benches/results/cep.md`, forty-third session).
//!
//! A reaper thread of its own dropped them before (thirty-fourth to thirty-eighth sessions). In a profile of `bench
//! geofence`'s producer then, 58 % of the samples were in `_mi_page_malloc_zero`: by my reading, each free block's
//! link to the next was last written on the reaper's core, and the allocations fetched them one after another. With
//! the producer dropping the rows instead, one worker ran 13–24 % more events per second on `bench geofence` in four
//! pairs of runs and 26–28 % more on `bench floor` in three; with the producer reusing them, another 12–33 % on the
//! geofence in four pairs and 4–7 % on the floor in three (`benches/results/cep.md`, thirty-ninth session).
//!
//! A pool with a worker on every core has graves too. Until the forty-second session it had none, and its workers
//! dropped rows where they were: graves there had made two workers of `bench geofence` run from 21.5 % fewer to
//! 13.9 % more events per second in eight pairs (thirty-ninth session). Since a row is reused without a locked check
//! (fortieth), graves made two workers of a two-core machine run the geofence 53–62 % faster in six pairs of runs and
//! the floor 30–49 % faster in six (`benches/results/cep.md`, forty-second session).
//!
//! The queue is bounded: while nobody reaps, a worker drops its batch itself, so the rows waiting are at most [`BATCH`]
//! in each worker's grave and [`QUEUED`] batches.

use std::cell::RefCell;

use crossbeam_channel::{Receiver, Sender, bounded};

use crate::cep::runtime::{Row, spare};

/// The rows a grave holds before it sends them.
const BATCH: usize = 4096;
/// The batches the queue holds.
const QUEUED: usize = 16;

/// The queue of rows a pool's workers are done with.
#[derive(Debug, Clone)]
pub(super) struct Reaper {
    graves: Sender<Vec<Row>>,
    dead: Receiver<Vec<Row>>,
}

impl Reaper {
    /// A pool's queue, which every generation of the pool keeps.
    pub(super) fn new() -> Reaper {
        let (graves, dead) = bounded::<Vec<Row>>(QUEUED);
        Reaper { graves, dead }
    }

    /// Gives the calling thread a grave of its own: the rows it buries go to this reaper.
    pub(super) fn dig(&self) {
        let grave = Grave { sender: self.graves.clone(), rows: Vec::with_capacity(BATCH) };
        let _ = GRAVE.try_with(|slot| *slot.borrow_mut() = Some(grave));
    }

    /// Drops the rows queued, on the calling thread.
    pub(super) fn reap(&self) {
        self.dead.try_iter().for_each(drop);
    }

    /// Hands the rows queued to the calling thread, to make its next rows in ([`spare`]).
    pub(super) fn recycle(&self) {
        self.dead.try_iter().for_each(spare::keep);
    }

    /// Queues `rows` as a worker's grave would.
    #[cfg(test)]
    pub(super) fn queue(&self, rows: Vec<Row>) {
        self.graves.try_send(rows).expect("room in the queue");
    }
}

/// A worker's rows on their way to the reaper.
#[derive(Debug)]
struct Grave {
    sender: Sender<Vec<Row>>,
    rows: Vec<Row>,
}

impl Grave {
    /// Queues the rows held, or drops them here when the queue is full.
    fn send(&mut self) {
        if !self.rows.is_empty() {
            let rows = std::mem::replace(&mut self.rows, Vec::with_capacity(BATCH));
            let _ = self.sender.try_send(rows);
        }
    }
}

impl Drop for Grave {
    fn drop(&mut self) {
        self.send();
    }
}

/// Rows an operator is done with: kept for the reaper until the operator's epoch ends, when the worker has one;
/// otherwise dropped at once.
#[derive(Debug, Default)]
pub(super) struct Leftovers(Option<Vec<Row>>);

impl Leftovers {
    /// Leftovers for an operator built on the calling thread: kept when the thread has a grave.
    pub(super) fn for_this_thread() -> Self {
        Leftovers(has_grave().then(Vec::new))
    }

    /// Leftovers that are kept for a reaper, whatever the thread.
    #[cfg(test)]
    pub(super) fn kept() -> Self {
        Leftovers(Some(Vec::new()))
    }

    /// Whether rows are kept for a reaper.
    pub(super) fn keeps(&self) -> bool {
        self.0.is_some()
    }

    /// Done with `rows`.
    pub(super) fn add(&mut self, rows: impl Iterator<Item = Row>) {
        match &mut self.0 {
            Some(kept) => kept.extend(rows),
            None => rows.for_each(drop),
        }
    }

    /// The rows kept, for a test to look at.
    #[cfg(test)]
    pub(super) fn rows(&self) -> Option<&[Row]> {
        self.0.as_deref()
    }

    /// Hands the rows kept since the last call to the reaper: the operator's epoch is over.
    pub(super) fn reap(&mut self) {
        if let Some(kept) = self.0.as_mut().filter(|kept| !kept.is_empty()) {
            bury(kept.drain(..));
        }
    }
}

thread_local! {
    static GRAVE: RefCell<Option<Grave>> = const { RefCell::new(None) };
}

/// Drops `rows`: queued for the reaper when this thread has a grave, here otherwise.
fn bury(rows: impl Iterator<Item = Row>) {
    // Should the grave be gone (the thread ending), the closure and the rows it holds are dropped here.
    let _ = GRAVE.try_with(|slot| match slot.borrow_mut().as_mut() {
        Some(grave) => {
            grave.rows.extend(rows);
            if grave.rows.len() >= BATCH {
                grave.send();
            }
        }
        None => rows.for_each(drop),
    });
}

/// Whether this thread has a grave.
fn has_grave() -> bool {
    GRAVE.try_with(|slot| slot.borrow().is_some()).unwrap_or(false)
}

/// Keeps what this thread's grave holds for the thread's own next rows (`spare`), instead of sending it.
pub(super) fn keep_own() {
    let rows = GRAVE.try_with(|slot| slot.borrow_mut().as_mut().map(|grave| std::mem::take(&mut grave.rows)));
    if let Ok(Some(rows)) = rows {
        spare::keep(rows);
    }
}

/// Sends what this thread's grave holds: a round is over.
pub(super) fn send() {
    let _ = GRAVE.try_with(|slot| slot.borrow_mut().as_mut().map(Grave::send));
}

#[cfg(test)]
mod tests {
    use std::sync::Weak;

    use super::*;
    use crate::cep::runtime::value::watched_shape;

    /// A row, and a way to tell whether it has been dropped: the row holds the only count of a polygon.
    fn watched_row() -> (Row, Weak<geo::Polygon<f64>>) {
        let (shape, watch) = watched_shape();
        (Row::from([("shape", shape)]), watch)
    }

    #[test]
    fn a_thread_without_a_grave_drops_rows_at_once() {
        let (row, watch) = watched_row();
        std::thread::spawn(move || bury(std::iter::once(row))).join().unwrap();
        assert_eq!(watch.strong_count(), 0);
    }

    #[test]
    fn buried_rows_are_held_until_the_round_ends_then_dropped_by_the_thread_that_reaps() {
        let reaper = Reaper::new();
        let (row, watch) = watched_row();
        let (buried, go_on) = bounded(0);
        let (round_over, ended) = bounded(0);
        let grave = reaper.clone();
        let worker = std::thread::spawn(move || {
            grave.dig();
            bury(std::iter::once(row));
            buried.send(()).unwrap();
            ended.recv().unwrap();
            send();
        });
        go_on.recv().unwrap();
        assert_eq!(watch.strong_count(), 1, "held in the grave");
        reaper.reap();
        assert_eq!(watch.strong_count(), 1, "not queued before the round ends");
        round_over.send(()).unwrap();
        worker.join().unwrap();
        assert_eq!(watch.strong_count(), 1, "queued, not dropped by the worker");
        reaper.reap();
        assert_eq!(watch.strong_count(), 0, "dropped by the reaping thread");
    }

    #[test]
    fn recycled_rows_are_kept_by_the_thread_that_takes_them() {
        std::thread::spawn(|| {
            let reaper = Reaper::new();
            reaper.queue(vec![Row::new(), Row::new()]);
            reaper.recycle();
            assert_eq!(spare::kept(), 2, "kept for this thread's next rows");
            assert!(reaper.dead.is_empty());
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_full_grave_queues_its_batch_without_waiting_for_the_round() {
        let reaper = Reaper::new();
        let (row, watch) = watched_row();
        let (filled, go_on) = bounded(0);
        let (done, finish) = bounded::<()>(0);
        let grave = reaper.clone();
        let worker = std::thread::spawn(move || {
            grave.dig();
            bury(std::iter::once(row).chain(std::iter::repeat_with(Row::new).take(BATCH - 1)));
            filled.send(()).unwrap();
            finish.recv().unwrap();
        });
        go_on.recv().unwrap();
        reaper.reap();
        assert_eq!(watch.strong_count(), 0, "queued when full, while the worker still runs");
        done.send(()).unwrap();
        worker.join().unwrap();
    }

    #[test]
    fn a_worker_drops_its_batch_itself_while_nobody_reaps() {
        // Nobody reaps: the queue fills, then a worker's send fails and it drops the rows.
        let reaper = Reaper::new();
        (0..QUEUED).for_each(|_| reaper.queue(Vec::new()));
        let (row, watch) = watched_row();
        let grave = reaper.clone();
        std::thread::spawn(move || {
            grave.dig();
            bury(std::iter::once(row));
            send();
        })
        .join()
        .unwrap();
        assert_eq!(watch.strong_count(), 0, "dropped by the worker");
        assert_eq!(reaper.dead.len(), QUEUED, "nothing more was queued");
    }
}

//! Rows a worker is done with, dropped on a thread of their own when the pool leaves the machine a core. A row is
//! built on a caller's thread (ingest, the bench's producer) and a pattern instance holds it for seconds, so the
//! worker that drops it frees a cold block into another thread's memory (mimalloc's slow path for a page another
//! thread abandoned). In `bench geofence` at the target's density, nine in ten rows go with an instance that a
//! crossing ends, and the rest with a match, after the merge it triggers. The pattern and merge operators of a worker
//! with a grave keep those rows ([`Leftovers`]) until their epoch ends and then bury them; the grave sends them to the
//! reaper thread in batches, at the end of each round and as soon as a batch is full.
//!
//! Measured (`benches/results/cep.md`, thirty-fourth session): the worker's instructions fell 4.0 % (the reaper's
//! thread ran about 111 per event), and one worker ran 12.0–21.2 % more events per second in six pairs of long runs.
//! My reading, not measured (this VM has no hardware counters): the frees' cache misses and atomic writes leave the
//! worker with them. With no core to spare the reaper takes turns with the workers, and a timely worker waits for its
//! peers: in a prototype, two workers on this machine's two cores ran 15–18 % fewer events per second with one. So a
//! pool with a worker per core has no reaper, and its workers drop rows where they are. The channel is bounded: while
//! the reaper is behind, a worker drops its batch itself, so the rows waiting are at most [`BATCH`] in each worker's
//! grave and [`QUEUED`] batches. The thread ends once the pool and its workers have let go of the channel.

use std::cell::RefCell;

use crossbeam_channel::{Sender, bounded};

use crate::cep::runtime::Row;

/// The rows a grave holds before it sends them.
const BATCH: usize = 4096;
/// The batches the channel holds.
const QUEUED: usize = 16;

/// The way to a pool's reaper thread.
#[derive(Debug, Clone)]
pub(super) struct Reaper(Sender<Vec<Row>>);

impl Reaper {
    /// A reaper for a pool of `peers` workers, when the machine has more cores than that (and the thread starts).
    pub(super) fn for_pool(peers: usize) -> Option<Reaper> {
        leaves_a_core(peers).then(Reaper::start).flatten()
    }

    fn start() -> Option<Reaper> {
        let (sender, batches) = bounded::<Vec<Row>>(QUEUED);
        let reap = move || {
            yield_to_workers();
            batches.into_iter().for_each(drop);
        };
        std::thread::Builder::new().name("cep-reaper".into()).spawn(reap).ok()?;
        Some(Reaper(sender))
    }

    /// Gives the calling thread a grave of its own: the rows it buries go to this reaper.
    pub(super) fn dig(&self) {
        let grave = Grave { sender: self.0.clone(), rows: Vec::with_capacity(BATCH) };
        let _ = GRAVE.try_with(|slot| *slot.borrow_mut() = Some(grave));
    }
}

/// Whether a pool of `peers` workers leaves the machine a core, for the reaper and the threads feeding the workers.
pub(super) fn leaves_a_core(peers: usize) -> bool {
    peers < std::thread::available_parallelism().map_or(1, usize::from)
}

/// How much the reaper lowers its priority: to the least there is, so a busy core runs the workers (and the threads
/// that feed them) first. The reaper's work can wait: while it is behind, the workers drop their rows themselves.
const NICENESS: i32 = 19;

/// Lowers the calling thread's priority by [`NICENESS`], where the system has per-thread priorities (Linux's `nice`
/// is per thread). One worker of `bench geofence`, which shares the machine's two cores with the reaper and the
/// bench's producer, ran 1.5–7.0 % more events per second in six pairs of runs with the reaper at 19 than at 0
/// (`renice` on the running thread; `benches/results/cep.md`, thirty-eighth session). A refusal leaves it as it is.
fn yield_to_workers() {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::nice(NICENESS);
}

/// A worker's rows on their way to the reaper.
#[derive(Debug)]
struct Grave {
    sender: Sender<Vec<Row>>,
    rows: Vec<Row>,
}

impl Grave {
    /// Sends the rows held, or drops them here when the reaper is behind or gone.
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

/// Drops `rows`: on the reaper's thread when this thread has a grave, here otherwise.
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

/// Sends what this thread's grave holds: a round is over.
pub(super) fn send() {
    let _ = GRAVE.try_with(|slot| slot.borrow_mut().as_mut().map(Grave::send));
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Weak};
    use std::time::{Duration, Instant};

    use super::*;
    use crate::cep::runtime::Val;

    /// A row, and a way to tell whether it has been dropped: the row holds the only count of a polygon.
    fn watched_row() -> (Row, Weak<geo::Polygon<f64>>) {
        let polygon =
            Arc::new(geo::Polygon::new(geo::LineString::from(vec![(0.0, 0.0), (1.0, 0.0), (0.0, 0.0)]), vec![]));
        let watch = Arc::downgrade(&polygon);
        (Row::from([("shape", Val::Polygon(polygon))]), watch)
    }

    fn dropped_within(watch: &Weak<geo::Polygon<f64>>, limit: Duration) -> bool {
        let start = Instant::now();
        while watch.strong_count() > 0 && start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(1));
        }
        watch.strong_count() == 0
    }

    #[test]
    fn only_a_pool_that_leaves_a_core_has_a_reaper() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert!(Reaper::for_pool(cores).is_none());
        assert!(Reaper::for_pool(cores + 1).is_none());
        assert_eq!(Reaper::for_pool(cores - 1).is_some(), cores > 1, "{cores} cores");
    }

    #[test]
    fn a_thread_without_a_grave_drops_rows_at_once() {
        let (row, watch) = watched_row();
        std::thread::spawn(move || bury(std::iter::once(row))).join().unwrap();
        assert_eq!(watch.strong_count(), 0);
    }

    #[test]
    fn buried_rows_are_held_until_the_round_ends_then_dropped_by_the_reaper() {
        let reaper = Reaper::start().expect("the reaper thread starts");
        let (row, watch) = watched_row();
        let (buried, go_on) = bounded(0);
        let (round_over, ended) = bounded(0);
        let worker = std::thread::spawn(move || {
            reaper.dig();
            bury(std::iter::once(row));
            buried.send(()).unwrap();
            ended.recv().unwrap();
            send();
        });
        go_on.recv().unwrap();
        assert_eq!(watch.strong_count(), 1, "held in the grave");
        round_over.send(()).unwrap();
        worker.join().unwrap();
        assert!(dropped_within(&watch, Duration::from_secs(10)), "the reaper dropped it");
    }

    #[test]
    fn a_full_grave_sends_its_batch_without_waiting_for_the_round() {
        let reaper = Reaper::start().expect("the reaper thread starts");
        let (row, watch) = watched_row();
        let (filled, go_on) = bounded(0);
        let (done, finish) = bounded::<()>(0);
        let worker = std::thread::spawn(move || {
            reaper.dig();
            bury(std::iter::once(row).chain(std::iter::repeat_with(Row::new).take(BATCH - 1)));
            filled.send(()).unwrap();
            finish.recv().unwrap();
        });
        go_on.recv().unwrap();
        assert!(dropped_within(&watch, Duration::from_secs(10)), "sent when full, while the worker still runs");
        done.send(()).unwrap();
        worker.join().unwrap();
    }

    #[test]
    fn a_worker_drops_its_batch_itself_while_the_reaper_is_behind() {
        // A reaper whose channel nobody reads: the queue fills, then a worker's send fails and it drops the rows.
        let (sender, batches) = bounded::<Vec<Row>>(QUEUED);
        let reaper = Reaper(sender);
        (0..QUEUED).for_each(|_| reaper.0.try_send(Vec::new()).unwrap());
        let (row, watch) = watched_row();
        std::thread::spawn(move || {
            reaper.dig();
            bury(std::iter::once(row));
            send();
        })
        .join()
        .unwrap();
        assert_eq!(watch.strong_count(), 0, "dropped by the worker");
        assert_eq!(batches.len(), QUEUED, "nothing more was queued");
    }
}

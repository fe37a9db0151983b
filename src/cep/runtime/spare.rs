//! Rows kept for reuse by the thread that makes rows. A row the workers are done with is handed back to a thread
//! that makes rows (`cep::dataflow::reaper`), which keeps it here, and [`super::Row::sorted`] then writes the thread's
//! next row into its memory instead of asking the allocator for a block. The rows kept are known in advance, so the
//! lines of the next ones are claimed for writing while a row is written ([`take`]); the allocator's free list is a
//! chain that can only be followed one block at a time, and each block was cold. With the producer reusing the rows
//! rather than dropping them, one worker of `bench geofence` ran 12–33 % more events per second in four interleaved
//! pairs, and of `bench floor` 4–7 % more in three (`benches/results/cep.md`, thirty-ninth session).
//!
//! Only a row that nothing else holds, whose properties are inline and own nothing, is reused; any other is dropped
//! when its turn comes, and holds what it holds until then. A thread keeps at most [`LIMIT`] rows, for as long as it
//! lives.

use std::cell::RefCell;

use super::{Row, prefetch};

/// The most rows a thread keeps: eight rounds of `bench geofence`'s 2,000 events, about 5 MiB of rows.
pub const LIMIT: usize = 16_384;

/// How many rows ahead of the one it takes a thread claims the next for writing: the lines of its properties (their
/// length first), the first of which holds the row's count too unless the properties begin a line. The thread reads
/// the count and writes the rest. Loading them ahead, first the two ends and then the properties, took a read of the
/// count that held 96.5 % of the samples of `Generator::row` in `bench geofence`'s producer away, and one worker ran
/// 4.9–9.3 % more events per second in three interleaved pairs (eight rows ahead; sixteen within the noise of eight;
/// `benches/results/cep.md`, fortieth session). Loaded for reading, the lines still had to be taken from the worker
/// that read them last when the thread wrote them, and claiming them instead ran `bench floor` at 1.30–1.55 times
/// the events a second in six pairs (fiftieth session; [`prefetch::claim`]); 32 ahead ran no differently from 16.
const AHEAD: usize = 16;

thread_local! {
    static SPARE: RefCell<Vec<Row>> = const { RefCell::new(Vec::new()) };
}

/// Keeps `rows` for the calling thread's next rows, up to [`LIMIT`]; drops the rest.
pub fn keep(rows: Vec<Row>) {
    let mut rows = rows.into_iter();
    let _ = SPARE.try_with(|spare| {
        let mut spare = spare.borrow_mut();
        let room = LIMIT.saturating_sub(spare.len());
        spare.extend(rows.by_ref().take(room));
    });
    rows.for_each(drop);
}

/// The row kept last, if any; the row [`AHEAD`] in line is claimed for writing.
pub(super) fn take() -> Option<Row> {
    SPARE
        .try_with(|spare| {
            let mut spare = spare.borrow_mut();
            let row = spare.pop()?;
            let ahead = |n: usize| spare.len().checked_sub(n).and_then(|i| spare.get(i));
            ahead(AHEAD).into_iter().for_each(|row| prefetch::claim(&**row));
            Some(row)
        })
        .ok()
        .flatten()
}

/// How many rows the calling thread keeps.
#[cfg(test)]
pub fn kept() -> usize {
    SPARE.try_with(|spare| spare.borrow().len()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::runtime::value::watched_shape;
    use crate::cep::runtime::{Name, Val};

    /// A row built as ingest builds them: names in order, room for one more.
    fn built(n: i64) -> Row {
        Row::sorted([(Name::from("a"), Val::Int(n)), (Name::from("b"), Val::Double(1.5))].into_iter(), 1)
    }

    /// Runs `test` on a thread of its own, whose kept rows are its own.
    fn on_a_new_thread(test: impl FnOnce() + Send + 'static) {
        std::thread::spawn(test).join().expect("the test thread");
    }

    #[test]
    fn a_kept_row_that_nothing_holds_is_the_memory_of_the_next_row() {
        on_a_new_thread(|| {
            let old = built(1);
            let address = std::ptr::from_ref(&*old);
            keep(vec![old]);
            assert_eq!(kept(), 1);
            let new = built(2);
            assert_eq!(std::ptr::from_ref(&*new), address, "the same memory");
            assert_eq!((new.get("a"), new.get("b"), new.len()), (Some(&Val::Int(2)), Some(&Val::Double(1.5)), 2));
            assert_eq!(kept(), 0);
        });
    }

    #[test]
    fn a_kept_row_still_held_elsewhere_or_owning_memory_is_dropped_not_reused() {
        on_a_new_thread(|| {
            let shared = built(1);
            let held = shared.clone();
            let (shape, watch) = watched_shape();
            let owning = Row::from([("shape", shape)]);
            keep(vec![shared, owning]);
            let new = built(2);
            assert_ne!(std::ptr::from_ref(&*new), std::ptr::from_ref(&*held), "a row held elsewhere is not written");
            assert_eq!(held.get("a"), Some(&Val::Int(1)), "and it is unchanged");
            assert_eq!(watch.strong_count(), 0, "the owning row was dropped when its turn came");
            assert_eq!(kept(), 0);
        });
    }

    /// A reused row holds exactly the new properties, whether the row it reuses had more or fewer, and a new one that
    /// owns memory is released with the row.
    #[test]
    fn a_reused_row_holds_exactly_the_new_properties() {
        on_a_new_thread(|| {
            let longer = Row::sorted(["a", "b", "c"].into_iter().map(|n| (Name::from(n), Val::Bool(true))), 0);
            let address = std::ptr::from_ref(&*longer);
            keep(vec![longer]);
            let new = built(2);
            assert_eq!(std::ptr::from_ref(&*new), address, "the longer row's memory");
            assert_eq!((new.len(), new.get("a"), new.get("c")), (2, Some(&Val::Int(2)), None));
            drop(new);
            let (shape, watch) = watched_shape();
            let shorter = Row::sorted(std::iter::once((Name::from("a"), Val::Int(1))), 0);
            let address = std::ptr::from_ref(&*shorter);
            keep(vec![shorter]);
            let pairs = [(Name::from("a"), Val::Int(3)), (Name::from("b"), Val::Null), (Name::from("s"), shape)];
            let owning = Row::sorted(pairs.into_iter(), 0);
            assert_eq!(std::ptr::from_ref(&*owning), address, "the shorter row's memory");
            assert_eq!((owning.len(), owning.get("a"), owning.get("b")), (3, Some(&Val::Int(3)), Some(&Val::Null)));
            drop(owning);
            assert_eq!(watch.strong_count(), 0, "the shape was released with the row");
        });
    }

    #[test]
    fn a_thread_keeps_at_most_the_limit_and_drops_the_rest() {
        on_a_new_thread(|| {
            let (shape, watch) = watched_shape();
            let mut rows: Vec<Row> = (0..LIMIT as i64).map(built).collect();
            rows.push(Row::from([("shape", shape)]));
            keep(rows);
            assert_eq!(kept(), LIMIT);
            assert_eq!(watch.strong_count(), 0, "the row past the limit was dropped");
        });
    }
}

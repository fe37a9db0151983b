//! What travels on the dataflow's edges, and the order it is processed in.
//!
//! Timely timestamps are `u64` epochs: the engine millisecond shifted left by [`SUB_BITS`], plus a sub-epoch. Sub-epoch
//! 0 of a millisecond belongs to timers, so everything due at that millisecond fires before the events that arrive in
//! it (as in the reference evaluator); each batch of input events takes the next sub-epoch. One epoch per batch, not
//! one per event: the cost of an epoch (a few microseconds) is paid once for the whole batch.
//!
//! Inside an epoch, a stateful operator sorts what it received by [`Stamp`], which reproduces the reference
//! evaluator's order: input events by arrival position, and the events a statement inserts after the event that
//! caused them, breadth first (by depth, then by statement number and row), before the next input event. Timers that
//! fire at the same millisecond order by kind (expiries, then pattern timers, then output ticks), then by the stamp
//! position of the event that set them; output ticks by statement ([`Stamp::tick`]), each among the records in stamp
//! order.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::cep::reference::TimerOrder;
use crate::cep::reference::pattern::Bindings;
use crate::cep::runtime::Row;

/// Bits of an epoch below the millisecond.
pub const SUB_BITS: u32 = 20;

/// The first epoch of engine millisecond `ms`: the timers' sub-epoch.
pub fn timer_epoch(ms: i64) -> u64 {
    (ms.max(0) as u64) << SUB_BITS
}

/// The epoch a timer due at engine millisecond `ms` fires at, set by what happened at epoch `set`: never at or before
/// `set` itself. A queue's store of start events lets them go by the same epoch (`automaton::starts`).
pub fn due_epoch(ms: i64, set: u64) -> u64 {
    timer_epoch(ms).max(set + 1)
}

/// The engine millisecond of an epoch.
pub fn millis(epoch: u64) -> i64 {
    (epoch >> SUB_BITS) as i64
}

/// Bits of a stamp's hop that number the row a statement produced from one record (the rest name the statement):
/// enough that no statement's rows for one record ever share a position.
pub const ROW_BITS: u32 = 48;
const ROW_MASK: u64 = (1 << ROW_BITS) - 1;

/// Where a record stands in the processing order of its epoch.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Stamp {
    pub origin: Origin,
    /// Statement and row index of each insert-into hop from the origin: the row in the low [`ROW_BITS`], the
    /// statement above. Two hops inline: the busy streams of the seed's statements are one or two hops from their
    /// origin, and a deeper path (the geofence's alerts, three hops from the pattern's timer) allocates. Records are
    /// moved from operator to operator, so their size counts: with four hops inline (and a match's bindings inline)
    /// a record was 112 bytes, now 80, and one worker ran 11–12.5 % more events per second on `bench floor` at 5,000
    /// an epoch and 0.2–2.5 % more on `bench geofence` at 100 (at 2,000, within the noise; `benches/results/cep.md`,
    /// thirty-first session).
    pub path: SmallVec<[u64; 2]>,
}

/// What started a chain of events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Origin {
    /// A timer that fired: its kind's rank, then when and by what it was set, then which statement's n-th timer.
    Timer { rank: u8, set_at: u64, set_by: u64, statement: u32, n: u64 },
    /// The input event at this arrival position.
    Input(u64),
}

impl Stamp {
    pub fn input(position: u64) -> Self {
        Stamp { origin: Origin::Input(position), path: SmallVec::new() }
    }

    /// The stamp of `statement`'s `n`-th output tick (or a time batch's release): the ticks due at one epoch go in
    /// statement order (the configuration's), as the reference evaluator fires them, and as Esper's schedule orders
    /// the callbacks of one time by their statements' slots, so when and by what their clocks were set plays no
    /// part. A statement may read one listed after it, whose tick rows then come after its own tick: the tick fires
    /// among the epoch's records ([`Stamp::goes_before`]).
    pub fn tick(statement: usize, n: u64) -> Self {
        Self::timer(TimerOrder::Output, (0, 0), statement, n)
    }

    /// Whether a tick stamped so, if one is due, goes before `record` (a `Start` record, with no stamp, only starts
    /// clocks): the records stamped before it are the rows of the timers that fire before it at its millisecond, and
    /// the ticks of the statements listed before its own.
    pub fn goes_before(tick: Option<Stamp>, record: &Record) -> bool {
        tick.is_some_and(|tick| record.stamp().is_some_and(|stamp| tick < *stamp))
    }

    pub fn timer(order: TimerOrder, set: (u64, u64), statement: usize, n: u64) -> Self {
        let origin = Origin::Timer { rank: order as u8, set_at: set.0, set_by: set.1, statement: statement as u32, n };
        Stamp { origin, path: SmallVec::new() }
    }

    /// The stamp of row `index` that `statement` produced from this record.
    pub fn child(&self, statement: usize, index: usize) -> Self {
        self.clone().into_child(statement, index)
    }

    /// [`Stamp::child`] of a stamp no longer needed, without copying its path.
    pub fn into_child(mut self, statement: usize, index: usize) -> Self {
        self.path.push(((statement as u64) << ROW_BITS) | (index as u64).min(ROW_MASK));
        self
    }

    /// The stamp this one shares with the other rows its statement made at once, for one event, timer or tick (the
    /// children of one stamp, [`Stamp::child`]): its last hop's row cleared.
    pub fn batch(&self) -> Stamp {
        let mut batch = self.clone();
        if let Some(last) = batch.path.last_mut() {
            *last &= !ROW_MASK;
        }
        batch
    }

    /// The statement whose row this stamps: of its last hop, if it has one.
    pub fn statement(&self) -> Option<usize> {
        self.path.last().map(|hop| (hop >> ROW_BITS) as usize)
    }

    /// A compact position of this stamp, for ordering the timers it sets.
    pub fn position(&self) -> u64 {
        match self.origin {
            Origin::Input(p) => p,
            Origin::Timer { set_by, .. } => set_by,
        }
    }
}

impl Ord for Stamp {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.origin, other.origin) {
            // The usual pair, two input events, is ordered by the origins alone, without reading the paths: 1 % of
            // the floor worker's instructions (twenty-eighth session).
            (Origin::Input(a), Origin::Input(b)) if a != b => a.cmp(&b),
            _ => (self.origin, self.path.len(), &self.path[..]).cmp(&(other.origin, other.path.len(), &other.path[..])),
        }
    }
}

impl PartialOrd for Stamp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One record of a stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Record {
    /// An event of stream `stream` (an id of the program's stream table).
    Event { stamp: Stamp, stream: u32, row: Row },
    /// The `n`-th match a join's driving pattern completed at `stamp`, for the join whose private stream is
    /// `stream`: the pattern's bindings, not yet joined, filtered or projected. Boxed, so that they do not make every
    /// record larger (see [`Stamp::path`]).
    Match { stamp: Stamp, stream: u32, n: u32, bindings: Box<Bindings> },
    /// Stream `stream` had its first event at this millisecond: the output clocks of the statements reading it start.
    /// One is sent to each worker (routed by `worker`), so partitioned instances tick together.
    Start { ms: i64, worker: u32, stream: u32 },
}

impl Record {
    pub fn stream(&self) -> Option<u32> {
        match self {
            Record::Event { stream, .. } | Record::Match { stream, .. } => Some(*stream),
            Record::Start { .. } => None,
        }
    }

    /// The `Start` records of the output clocks over `stream` starting at `epoch`: one for each of `peers` workers.
    pub fn starts(epoch: Option<u64>, peers: u32, stream: u32) -> Vec<Record> {
        let ms = epoch.map_or(0, millis);
        (0..peers).map(|worker| Record::Start { ms, worker, stream }).collect()
    }

    pub fn stamp(&self) -> Option<&Stamp> {
        match self {
            Record::Event { stamp, .. } | Record::Match { stamp, .. } => Some(stamp),
            Record::Start { .. } => None,
        }
    }

    /// Whether `records` are input events in strictly rising arrival order, so already in [`Record::order`]: an epoch
    /// of input that no timer or statement added to, the busy case. Checking the arrival numbers alone, before
    /// sorting, costs a fraction of what the stable sort's run check does through [`Record::order`].
    pub fn in_arrival_order(records: &[Record]) -> bool {
        let mut last = None;
        records.iter().all(|record| match record {
            Record::Event { stamp: Stamp { origin: Origin::Input(at), .. }, .. } => {
                last.replace(*at).is_none_or(|before| before < *at)
            }
            _ => false,
        })
    }

    /// Start markers first (they only start clocks), then events and matches by stamp.
    pub fn order(a: &Record, b: &Record) -> Ordering {
        match (a, b) {
            (Record::Start { ms: x, .. }, Record::Start { ms: y, .. }) => x.cmp(y),
            (Record::Start { .. }, _) => Ordering::Less,
            (_, Record::Start { .. }) => Ordering::Greater,
            _ => a.stamp().cmp(&b.stamp()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_ten_words() {
        assert_eq!(size_of::<Record>(), 80);
    }

    #[test]
    fn inserted_events_follow_their_cause_breadth_first_and_precede_the_next_input() {
        let first = Stamp::input(1);
        let second = Stamp::input(2);
        let a = first.child(3, 0);
        let b = first.child(4, 0);
        let aa = a.child(5, 0);
        assert_eq!(a.clone().into_child(5, 0), aa, "the same child, the path moved rather than copied");
        let mut all = vec![second.clone(), aa.clone(), b.clone(), a.clone(), first.clone()];
        all.sort();
        assert_eq!(all, vec![first, a, b, aa, second]);
    }

    #[test]
    fn only_input_events_in_rising_arrival_order_skip_the_sort() {
        let event = |stamp: Stamp| Record::Event { stamp, stream: 0, row: Row::default() };
        let rising = [event(Stamp::input(1)), event(Stamp::input(2)), event(Stamp::input(5))];
        assert!(Record::in_arrival_order(&rising));
        assert!(Record::in_arrival_order(&[]));
        let cases = [
            vec![event(Stamp::input(2)), event(Stamp::input(1))],
            vec![event(Stamp::input(1).child(3, 0)), event(Stamp::input(1))],
            vec![event(Stamp::input(1)), event(Stamp::tick(1, 0))],
            vec![event(Stamp::input(1)), Record::Start { ms: 0, worker: 0, stream: 0 }],
        ];
        for records in cases {
            assert!(!Record::in_arrival_order(&records), "{records:?}");
            let mut sorted = records.clone();
            sorted.sort_by(Record::order);
            assert_ne!(sorted, records, "each case is out of order: the check must not skip its sort");
        }
    }

    #[test]
    fn timers_fire_before_input_expiries_first() {
        let tick = Stamp::timer(TimerOrder::Output, (0, 1), 1, 0);
        let expiry = Stamp::timer(TimerOrder::Expiry, (0, 9), 2, 0);
        let mut all = vec![Stamp::input(0), tick.clone(), expiry.clone()];
        all.sort();
        assert_eq!(all, vec![expiry, tick, Stamp::input(0)]);
    }
}

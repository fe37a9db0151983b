//! A compact automaton for the common form of pattern, `every a=S(…) -> P1 -> … -> Pn` with no other `every`: each
//! event of `S` passing the start filter begins an instance of the steps after it, and within one instance every node
//! of the plan is live at most once. So an instance is a set of live slots in one `u64` (a slot for each frame or
//! leaf the tree interpreter of `cep::reference::pattern` would make) and the few values its leaves and `and`s hold,
//! in one allocation, instead of a tree of frames and leaves made and dropped node by node.
//!
//! In this form every node but a `not` quits once it matches, and a `not` sits directly under an `and`, so a frame here
//! simply ends once nothing is live under it (`complete`, `finish`, `kill`, `prune`): the tree interpreter's frames
//! turning false end the same instances with the same matches, and leaves an event passes fire in one order in both
//! (those whose filter has more conditions first, then in the order they were made: `Nodes::rank`). An `and` being
//! started is not ended meanwhile, as the tree does not end it: a child that ends at once (an `and` of `not`s only)
//! leaves it empty only until its later children start. The property test at the end runs random patterns of this form
//! through both and requires the same matches at every event and timer. Patterns of other forms (a `not` elsewhere,
//! which is true from its start) run on the tree.
//!
//! A shape in which any leaf of the opening that fires ends the instance (the geofence's confirmation) runs its
//! instances in a [`Queue`] instead, which the same property test runs beside the compact automaton. The fast paths
//! for instances as their opening made them (`Compact`'s `end_fresh`, [`Uniform`]) were measured on the geofence
//! before it moved to the queue (`benches/results/cep.md`, thirty-fifth session); they still serve the shapes that do
//! not queue.
//!
//! The types are here; their parts are modules of their own: the slots laid out from the plan (`shape`), the
//! instances of a key (`compact`), one event or timer at work on an instance (`run`), the queue (`queue`), the start
//! events it keeps (`starts`) and the values the live leaves pinned (`seen`).

mod compact;
mod queue;
mod run;
mod seen;
mod shape;
mod starts;

use std::sync::Arc;

use smallvec::SmallVec;

pub use self::queue::Queue;
use self::seen::{Pins, Seen};
use self::starts::Starts;

use super::reaper::Leftovers;

use crate::cep::reference::Ctx;
use crate::cep::reference::arena::Arena;
use crate::cep::reference::pattern::{Bindings, Nodes, Pinned};
use crate::cep::runtime::compiled::Compiled;
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{Row, Val};

/// A slot of an instance: an index below 64.
type Slot = u8;

fn bit(slot: Slot) -> u64 {
    1 << slot
}

#[derive(Debug, Clone, Copy)]
enum SlotKind {
    /// Step `index` of the followed-by node `node`; a followed-by node has one slot per step, consecutive.
    Step {
        node: usize,
        index: usize,
    },
    /// An `and` with `pending` children that are not `not`s.
    And {
        pending: usize,
    },
    Or,
    Not,
    Within {
        millis: u64,
    },
    /// The leaf that ends the `within` it is the first child of.
    Deadline,
    /// A leaf waiting for an event of stream `stream` (an index into the configuration's stream names). Its filter
    /// is `pure` when it reads the bindings only through columns, which its leaves pin: two leaves of the slot with
    /// the same pinned values then give the same answer for one event.
    Match {
        node: usize,
        stream: Option<u32>,
        pure: bool,
    },
    Timer {
        millis: u64,
    },
}

#[derive(Debug)]
struct SlotDef {
    kind: SlotKind,
    /// `None` for the steps of the pattern itself, whose parent is the automaton.
    parent: Option<Slot>,
    children: u64,
    /// The slot and everything under it.
    subtree: u64,
    /// Where an instance keeps the slot's state, for the slots that have one (leaves and `and`s): an instance holds
    /// states for those only, not one per slot.
    state: Option<u8>,
    /// A match slot's filter compiled, when it can be: it reads the event and pinned values only.
    test: Option<Compiled>,
}

/// The slots of a pattern of the compact form, shared by the automata of all its keys.
#[derive(Debug)]
pub struct Shape {
    nodes: Arc<Nodes>,
    slots: Vec<SlotDef>,
    /// How many slots have a state.
    states: usize,
    /// The slot each node starts in, by node id; a followed-by node's is that of its first step.
    entry: Vec<Slot>,
    /// The children of each node, by node id.
    children: Vec<SmallVec<[usize; 2]>>,
    /// The pattern's own followed-by node, and the match of its `every`.
    root: usize,
    start: usize,
    start_stream: Option<u32>,
    /// By stream index, the match slots an event of the stream may fire.
    by_stream: Vec<u64>,
    /// How many conditions the filter of each match slot has, and the start's: an event several leaves accept goes
    /// to those with more first ([`Nodes::rank`]).
    ranks: Vec<usize>,
    start_rank: usize,
    /// What every instance starts as, when that does not depend on its start event.
    opening: Option<Opening>,
    /// By slot, what firing the slot's timer does to an instance still as its opening made it, when that is the same
    /// for every such instance and ends it ([`Shape::fresh_fire`]).
    fresh: Vec<Option<FreshFire>>,
    /// What a [`Queue`] runs, when any leaf of the opening that fires ends the instance.
    queue: Option<queue::Plan>,
}

/// What a timer that ends an instance as its opening made it does: the leaf orders it uses up, and whether it
/// completes the pattern (with the start event's binding, or with none when the start is untagged).
#[derive(Debug, Clone, Copy)]
struct FreshFire {
    orders: u64,
    matched: bool,
}

/// What starting the pattern's second step makes: for every instance the same live slots, `and` counts and leaves
/// (with the timers they set), in the same order, unless an `and` of `not`s only finishes at once. The shape works it
/// out once, and an instance begins as it without walking the slots (in `bench geofence` that saved about 270 of the
/// 6,760 instructions per event, twenty-fifth session) and without writing its states until it must ([`Instance`]).
/// A match leaf there pins what its filter reads of the one binding an instance then has, the start event.
#[derive(Debug, Default)]
struct Opening {
    live: u64,
    made: Vec<Made>,
}

impl Opening {
    /// How many leaves it makes: the leaf orders an opening uses up.
    fn leaves(&self) -> u64 {
        self.made.iter().filter(|m| matches!(m, Made::Leaf { .. })).count() as u64
    }

    /// The leaf it makes in `slot`: its index among the leaves it makes, its mask and its pins.
    fn leaf(&self, slot: Slot) -> Option<(u64, u64, &[Pin])> {
        let leaves = self.made.iter().filter_map(|made| match made {
            Made::Leaf { slot, mask, pins, .. } => Some((*slot, *mask, pins.as_slice())),
            Made::And { .. } => None,
        });
        let (index, (_, mask, pins)) = leaves.enumerate().find(|(_, (s, _, _))| *s == slot)?;
        Some((index as u64, mask, pins))
    }
}

/// A column of the start event a leaf's filter reads, by its index among the filter's reads.
type Pin = (usize, Name);

#[derive(Debug)]
enum Made {
    And {
        slot: Slot,
        pending: usize,
    },
    /// A leaf with the mask of its bindings, the timer it sets (in milliseconds), and the columns of the start event
    /// its filter reads, by their index among the node's reads.
    Leaf {
        slot: Slot,
        mask: u64,
        wake: Option<u64>,
        pins: Vec<Pin>,
    },
}

/// A timer an instance set: which instance, and which of its leaves (a timer or a `within`'s deadline) it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wake {
    instance: u64,
    slot: Slot,
}

/// The matches one event or timer completes: mostly none or one, so kept inline rather than in a `Vec` allocated
/// for every match.
pub type Matches = SmallVec<[Bindings; 1]>;

/// The timers one event or timer set, as (due, what, when it was set if not by the event or timer at work).
pub type Wakes = SmallVec<[(i64, Wake, Option<Set>); 2]>;

/// When a timer was set, as its stamp records it: the epoch and position of the event that set it. A [`Queue`] sets
/// the timer of an instance that began earlier, and gives the instance's; other timers are set by the event or timer
/// at work, and give none.
pub type Set = (u64, u64);

/// What one event or timer does on an automaton: the matches it completes and the timers it sets; and the start
/// events its queue wrote down, which outlive the event. The pattern's operator keeps one for all its keys' automata
/// rather than one in each, which makes an automaton 152 bytes instead of 248 (`benches/results/cep.md`, thirty-third
/// session).
#[derive(Debug, Default)]
pub struct Out {
    matches: Matches,
    wakes: Wakes,
    /// The rows of the instances that ended without a match.
    ended: Leftovers,
    /// The start events of the queues whose instances have one timer each, all keys' together.
    starts: Starts,
}

impl Out {
    /// An `Out` for the calling worker thread: it keeps ended instances' rows for the reaper if the thread has one.
    pub fn for_this_thread() -> Self {
        Out { ended: Leftovers::for_this_thread(), ..Out::default() }
    }

    /// Drops an instance that ended without a match, but for the rows it bound if they go to the reaper. Dropped
    /// whole when they do not, and inlined: handing the rows over one by one cost a worker without a reaper about 24
    /// instructions per event in `bench geofence`, and a call about 14 (thirty-fourth session).
    #[inline(always)]
    fn end(&mut self, instance: Instance) {
        if self.ended.keeps() {
            self.ended.add(instance.bindings.into_iter().map(|(_, row)| row));
        }
        // Otherwise the instance is dropped here, whole.
    }

    /// Hands the rows of the instances ended since the last call to the reaper.
    pub fn reap(&mut self) {
        self.ended.reap();
    }

    /// Lets go of the start events kept for instances whose timers were all due by `epoch`, once its timers fired.
    pub fn trim(&mut self, epoch: u64) {
        self.starts.trim(epoch);
    }

    /// The matches completed since the last call.
    pub fn take_matches(&mut self) -> Matches {
        std::mem::take(&mut self.matches)
    }

    /// Whether timers were set since the last [`Out::drain_wakes`].
    pub fn has_wakes(&self) -> bool {
        !self.wakes.is_empty()
    }

    /// The timers set since the last call, in the order they were set.
    pub fn drain_wakes(&mut self) -> smallvec::Drain<'_, [(i64, Wake, Option<Set>); 2]> {
        self.wakes.drain(..)
    }
}

/// An instance begins as its shape's opening makes it, and most of them (the geofence's, all but those an event
/// kills) end at a timer as they began. So an instance holds only its live slots and bindings, and where its leaves
/// stand in the order of leaves, until an event or a timer reaches one of its leaves and does more than
/// [`FreshFire`] (the geofence's crossing ends it as its timer would, [`Compact::end_fresh`]): only then are its
/// states written ([`Instance::materialize`]). In `bench geofence` that spared
/// about 430 of its 5,850 worker instructions per event, and one worker ran 11–12 % more events per second
/// (`benches/results/cep.md`, twenty-ninth session).
#[derive(Debug)]
struct Instance {
    live: u64,
    /// The events bound so far, in the order they were bound; a leaf's or an `and`'s bindings are a mask over them.
    bindings: Bindings,
    phase: Phase,
}

/// Whether an instance's states are written. The two forms share their bytes: an instance is 64 bytes instead of 72,
/// and its slot in the key's arena 72 instead of 88 (the slot takes its tag from this enum's).
#[derive(Debug)]
enum Phase {
    /// As its opening made it: the order of the first leaf the opening made, and the arrival number it was made at.
    Opened { order: u64, created: u64 },
    /// The states of its slots, by [`SlotDef::state`].
    Written(Box<[State]>),
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Empty,
    Leaf(Leaf),
    And {
        pending: usize,
        mask: u64,
    },
}

#[derive(Debug)]
struct Leaf {
    /// When it was made among the automaton's leaves: leaves an event matches fire in this order.
    order: u64,
    /// The arrival number of the event it was made at: only later events can match it.
    created: u64,
    mask: u64,
    pinned: Pinned,
}

/// The live instances of one key.
#[derive(Debug)]
pub struct Compact {
    shape: Arc<Shape>,
    /// The start leaf's order and arrival number, from the first event on.
    start: Option<(u64, u64)>,
    instances: Arena<Instance>,
    /// What the live leaves waiting for each stream pinned (a superset), to skip reading the instances for an event
    /// that none of them can accept.
    seen: Seen,
    next: u64,
}

/// How many answers of pure filters one event keeps, the latest first: the live instances of one key mostly pinned
/// one of a few values (a tracker's side of the fence), and a short list keeps the search short.
const KNOWN: usize = 4;

/// Answers of pure filters for one event, as (slot, pinned values, answer).
type Known = SmallVec<[(Slot, Pinned, bool); KNOWN]>;

/// What one event learns as it tests the live leaves of its key: answers of pure filters, what the leaves it leaves
/// waiting pinned (written afresh into `seen`: a crossing of the geofence, which fires every leaf, leaves the list
/// empty rather than listing the side no instance waits on any more), and the slots whose leaves all pinned the same
/// values.
struct Tested {
    known: Known,
    pins: Pins,
    uniform: SmallVec<[Uniform; 1]>,
}

/// A match slot whose live leaves all pinned the same values, and an event's answer for them: worked out once for
/// the event, so that an instance as its opening made it is tested without reading its start event. At a crossing
/// in `bench geofence` at the target's density, the start events of about 11 instances were read for that: 29 % of a
/// worker's simulated last-level cache read misses. Without those reads one worker ran 8.5–18.5 % more events per
/// second in three pairs of long runs (`benches/results/cep.md`, thirty-second session).
struct Uniform {
    slot: Slot,
    pinned: Pinned,
    passes: bool,
    /// Whether `pinned` is noted among the pins of the live leaves yet.
    noted: bool,
}

/// Whether two leaves pinned the same values, bit for bit. Only values whose equality is identity count (a double's
/// `==` holds for `0.0` and `-0.0`, which a filter can tell apart), so others are never taken as the same.
fn same(a: &Pinned, b: &Pinned) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((i, x), (j, y))| i == j && same_value(x, y))
}

/// Whether two pinned values are the same, bit for bit ([`same`]).
fn same_value(x: &Val, y: &Val) -> bool {
    match (x, y) {
        (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Int(x), Val::Int(y)) | (Val::Date(x), Val::Date(y)) => x == y,
        (Val::String(x), Val::String(y)) => x == y,
        _ => false,
    }
}

/// The values of `pins` (a leaf's reads of the start event, by their index among the reads) in the start `event`;
/// a read missing is null.
///
/// The usual leaf pins one value (the geofence's `a.inside`): it is written in place, which took the geofence's
/// pins from about 200 instructions to about 120 (`benches/results/cep.md`, twenty-ninth session).
fn pinned(pins: &[Pin], event: Option<&Row>) -> Pinned {
    let read = |(i, name): &Pin| (*i, event.and_then(|e| e.get(name)).cloned().unwrap_or_default());
    match pins {
        [one] => Pinned::from_buf([read(one)]),
        _ => pins.iter().map(read).collect(),
    }
}

/// One event or timer at work on one instance.
struct Run<'s, 'c> {
    shape: &'s Shape,
    ctx: &'s mut Ctx<'c>,
    id: u64,
    next: &'s mut u64,
    out: &'s mut Out,
    seen: &'s mut Seen,
    /// The `and`s whose children are starting: one of them ending at once (an `and` of `not`s) leaves the `and`
    /// empty only until its later children start, so it is not dropped as empty meanwhile.
    starting: u64,
}

#[cfg(test)]
mod tests;

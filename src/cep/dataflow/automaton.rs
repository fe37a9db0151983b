//! A compact automaton for the common form of pattern, `every a=S(…) -> P1 -> … -> Pn` with no other `every`: each
//! event of `S` passing the start filter begins an instance of the steps after it, and within one instance every node
//! of the plan is live at most once. So an instance is a set of live slots in one `u64` (a slot for each frame or
//! leaf the tree interpreter of `cep::reference::pattern` would make) and the few values its leaves and `and`s hold,
//! in one allocation, instead of a tree of frames and leaves made and dropped node by node.
//!
//! In this form every node but a `not` quits once it matches, and a `not` sits directly under an `and`, so a frame
//! here simply ends once nothing is live under it (`complete`, `finish`, `kill`, `prune`): the tree interpreter's
//! frames turning false end the same instances with the same matches, and leaves fire in the order they were made in
//! both. An `and` being started is not ended meanwhile, as the tree does not end it: a child that ends at once (an
//! `and` of `not`s only) leaves it empty only until its later children start. The property test at the end runs
//! random patterns of this form through both and requires the same matches at every event and timer. Patterns of
//! other forms (a `not` elsewhere, which is true from its start) run on the tree.
//!
//! A shape in which any leaf of the opening that fires ends the instance (the geofence's confirmation) runs its
//! instances in a [`Queue`] instead, which the same property test runs beside the compact automaton. The fast paths
//! below for instances as their opening made them (`end_fresh`, [`Uniform`]) were measured on the geofence before it
//! moved to the queue (`benches/results/cep.md`, thirty-fifth session); they still serve the shapes that do not queue.

mod queue;
mod seen;
mod starts;

use std::sync::Arc;

use smallvec::SmallVec;

pub use self::queue::Queue;
use self::seen::{Pins, Seen};
use self::starts::Starts;

use super::reaper::Leftovers;

use crate::cep::plan::{PatternNodeKind, PlanExpr};
use crate::cep::reference::Ctx;
use crate::cep::reference::arena::Arena;
use crate::cep::reference::pattern::{Bindings, Nodes, Pinned};
use crate::cep::runtime::compiled::{Compiled, Env, Layout};
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

impl Shape {
    /// The shape of the pattern `nodes`, when it has the compact form and at most 64 slots; `names` are the
    /// configuration's streams, by index.
    pub fn new(nodes: &Arc<Nodes>, names: &[Name], vars: &Row) -> Option<Arc<Shape>> {
        let root = nodes.root();
        let PatternNodeKind::FollowedBy(steps) = &nodes.get(root).kind else {
            return None;
        };
        let PatternNodeKind::Every(first) = &steps.first()?.kind else {
            return None;
        };
        let PatternNodeKind::Match { stream, .. } = &first.kind else {
            return None;
        };
        if steps.len() < 2 {
            return None;
        }
        let stream_of = |name: &str| names.iter().position(|n| n == name).map(|i| i as u32);
        let mut shape = Shape {
            nodes: nodes.clone(),
            slots: Vec::new(),
            states: 0,
            entry: vec![0; nodes.len()],
            children: (0..nodes.len())
                .map(|id| nodes.find(id).map(|n| n.children().iter().map(|c| c.id).collect()).unwrap_or_default())
                .collect(),
            root,
            start: first.id,
            start_stream: stream_of(stream),
            by_stream: vec![0; names.len()],
            opening: None,
            fresh: Vec::new(),
            queue: None,
        };
        shape.entry[root] = shape.push(SlotKind::Step { node: root, index: 0 }, None)?;
        for index in 1..steps.len() {
            shape.push(SlotKind::Step { node: root, index }, None)?;
        }
        for (index, step) in steps.iter().enumerate().skip(1) {
            shape.place(step.id, Some(index as Slot), &stream_of)?;
        }
        shape.link();
        shape.compile(vars);
        shape.opening = shape.opening();
        shape.fresh = (0..shape.slots.len()).map(|slot| shape.fresh_fire(slot as Slot, vars)).collect();
        shape.queue = queue::Plan::of(&shape);
        Some(Arc::new(shape))
    }

    /// Whether `event` of stream `stream` (named `label`) passes the start leaf made at arrival `created`: a later
    /// event of the start's stream that its filter accepts.
    fn starts(&self, created: u64, ctx: &Ctx<'_>, stream: u32, (label, event): (&str, &Row)) -> bool {
        self.start_stream == Some(stream)
            && created < ctx.seq
            && self.nodes.passes(self.start, (std::iter::empty(), &Pinned::new()), (label, event), ctx.vars)
    }

    /// Whether its instances run in a [`Queue`].
    pub fn queues(&self) -> bool {
        self.queue.is_some()
    }

    /// What firing `slot` does to an instance as the opening made it: found by doing it, once, to such an instance.
    /// `None` unless the opening makes the slot's leaf and its firing ends the instance without setting a timer; the
    /// instance then makes a match or not, whatever its start event was. A leaf waiting for an event qualifies only
    /// when it ends the instance without a match (a `not`), which then holds whatever the event.
    fn fresh_fire(&self, slot: Slot, vars: &Row) -> Option<FreshFire> {
        let opening = self.opening.as_ref()?;
        let made = |m: &Made| matches!(m, Made::Leaf { slot: s, .. } if *s == slot);
        if !opening.made.iter().any(made) {
            return None;
        }
        let event = matches!(self.slots[slot as usize].kind, SlotKind::Match { .. }).then(Row::new);
        let mut instance =
            Instance::opened(self, self.nodes.tag(self.start).map(|tag| (tag.clone(), Row::new())), 1, 0);
        instance.materialize(self);
        let (mut next, mut out) = (opening.leaves(), Out::default());
        let mut seen = Seen::new(self.by_stream.len());
        let mut ctx = Ctx::new(0, 1, vars);
        let mut run =
            Run { shape: self, ctx: &mut ctx, id: 0, next: &mut next, out: &mut out, seen: &mut seen, starting: 0 };
        run.fire(&mut instance, slot, event.as_ref());
        let Out { matches, wakes, .. } = out;
        // A match must carry the instance's bindings whole: the fast path hands them over as they are.
        let whole = matches.iter().all(|m| m.len() == instance.bindings.len());
        let ends = instance.live == 0 && wakes.is_empty() && matches.len() <= 1 && whole;
        let ends = ends && (event.is_none() || matches.is_empty());
        ends.then_some(FreshFire { orders: next - opening.leaves(), matched: !matches.is_empty() })
    }

    /// What `Run::step` makes of the second step for every instance, walked as `Run::start` walks it; `None` when an
    /// `and` there would finish at once.
    fn opening(&self) -> Option<Opening> {
        let mask = u64::from(self.nodes.tag(self.start).is_some());
        let mut opening = Opening { live: bit(self.entry[self.root] + 1), made: Vec::new() };
        self.open(self.children[self.root][1], mask, &mut opening)?;
        Some(opening)
    }

    fn open(&self, id: usize, mask: u64, opening: &mut Opening) -> Option<()> {
        let slot = self.entry[id];
        opening.live |= bit(slot);
        let leaf = |slot: Slot, mask: u64, wake: Option<u64>| Made::Leaf { slot, mask, wake, pins: self.pins(slot) };
        match self.slots[slot as usize].kind {
            SlotKind::Match { .. } => opening.made.push(leaf(slot, mask, None)),
            SlotKind::Timer { millis } => opening.made.push(leaf(slot, mask, Some(millis))),
            SlotKind::Step { node, .. } => return self.open(self.children[node][0], mask, opening),
            SlotKind::And { pending: 0 } => return None,
            SlotKind::And { pending } => opening.made.push(Made::And { slot, pending }),
            SlotKind::Within { millis } => {
                opening.live |= bit(slot + 1);
                opening.made.push(leaf(slot + 1, 0, Some(millis)));
            }
            SlotKind::Or | SlotKind::Not => {}
            SlotKind::Deadline => unreachable!("a deadline is made by its `within`"),
        }
        self.children[id].iter().try_for_each(|&child| self.open(child, mask, opening))
    }

    /// The reads of match slot `slot`'s filter that `Nodes::pin` finds among the bindings of an opening: those of
    /// the start tag.
    fn pins(&self, slot: Slot) -> Vec<Pin> {
        let (SlotKind::Match { node, .. }, Some(tag)) = (self.slots[slot as usize].kind, self.nodes.tag(self.start))
        else {
            return Vec::new();
        };
        let reads = self.nodes.reads(node).iter().enumerate();
        reads.filter(|(_, (label, _))| label == tag).map(|(i, (_, name))| (i, name.clone())).collect()
    }

    fn push(&mut self, kind: SlotKind, parent: Option<Slot>) -> Option<Slot> {
        let slot = Slot::try_from(self.slots.len()).ok().filter(|s| *s < 64)?;
        let stateful =
            matches!(kind, SlotKind::Match { .. } | SlotKind::Timer { .. } | SlotKind::Deadline | SlotKind::And { .. });
        let state = stateful.then(|| {
            self.states += 1;
            (self.states - 1) as u8
        });
        self.slots.push(SlotDef { kind, parent, children: 0, subtree: 0, state, test: None });
        Some(slot)
    }

    /// Compiles the filters of the pure match slots, where the labels that name the event (its stream, the slot's
    /// own tag) name no other match's binding: a filter then reads the event through those labels and every other
    /// column through the values its leaves pin.
    fn compile(&mut self, vars: &Row) {
        let tags: Vec<(usize, &Name)> =
            (0..self.nodes.len()).filter_map(|id| Some(id).zip(self.nodes.tag(id))).collect();
        for def in &mut self.slots {
            let SlotKind::Match { node, pure: true, .. } = def.kind else {
                continue;
            };
            let PatternNodeKind::Match { tag, stream, filter: Some(filter) } = &self.nodes.get(node).kind else {
                continue;
            };
            let own: Vec<&str> = std::iter::once(stream.as_str()).chain(tag.as_deref()).collect();
            if tags.iter().any(|(id, t)| *id != node && own.contains(&t.as_str())) {
                continue;
            }
            // The event's own columns are never pinned: their places in the reads name nothing.
            let none = (Name::from(""), Name::from(""));
            let reads = self.nodes.reads(node);
            let pinned: Vec<(Name, Name)> = reads
                .iter()
                .map(|(l, n)| if own.contains(&l.as_str()) { none.clone() } else { (l.clone(), n.clone()) })
                .collect();
            def.test = Compiled::new(filter, &Layout { rows: &own, pinned: &pinned, vars });
        }
    }

    /// Whether `event` (of stream `label`) passes the filter of match slot `slot`, read with a leaf's `bindings` and
    /// `pinned` values.
    fn passes<'a>(
        &self,
        slot: Slot,
        (bindings, pinned): (impl Iterator<Item = &'a (Name, Row)>, &Pinned),
        (label, event): (&str, &Row),
        vars: &Row,
    ) -> bool {
        let def = &self.slots[slot as usize];
        match (&def.test, def.kind) {
            (Some(test), _) => test.holds(&Env { rows: &[event, event], pinned, aggregates: &[] }),
            (None, SlotKind::Match { node, .. }) => self.nodes.passes(node, (bindings, pinned), (label, event), vars),
            (None, _) => false,
        }
    }

    /// Where an instance keeps the state of `slot`, a leaf or an `and`.
    fn state(&self, slot: Slot) -> usize {
        self.slots[slot as usize].state.expect("only leaves and `and`s hold state") as usize
    }

    /// Gives node `id` (under `parent`) and everything under it their slots; `None` for an `every` or too many slots.
    fn place(&mut self, id: usize, parent: Option<Slot>, stream_of: &dyn Fn(&str) -> Option<u32>) -> Option<()> {
        let nodes = self.nodes.clone();
        let kind = match &nodes.get(id).kind {
            PatternNodeKind::Every(_) => return None,
            PatternNodeKind::FollowedBy(steps) => {
                let first = self.push(SlotKind::Step { node: id, index: 0 }, parent)?;
                for index in 1..steps.len() {
                    self.push(SlotKind::Step { node: id, index }, parent)?;
                }
                self.entry[id] = first;
                for (index, step) in steps.iter().enumerate() {
                    self.place(step.id, Some(first + index as Slot), stream_of)?;
                }
                return Some(());
            }
            PatternNodeKind::And(cs) => {
                SlotKind::And { pending: cs.iter().filter(|c| !matches!(c.kind, PatternNodeKind::Not(_))).count() }
            }
            PatternNodeKind::Or(_) => SlotKind::Or,
            // A `not` elsewhere is true from its start, which the slots do not model.
            PatternNodeKind::Not(_)
                if parent.is_some_and(|p| matches!(self.slots[p as usize].kind, SlotKind::And { .. })) =>
            {
                SlotKind::Not
            }
            PatternNodeKind::Not(_) => return None,
            PatternNodeKind::Within { millis, .. } => SlotKind::Within { millis: *millis },
            PatternNodeKind::Timer { millis } => SlotKind::Timer { millis: *millis },
            PatternNodeKind::Match { stream, filter, .. } => {
                let mut pure = true;
                filter.iter().for_each(|f| f.visit(&mut |e| pure &= !matches!(e, PlanExpr::Row(_))));
                SlotKind::Match { node: id, stream: stream_of(stream), pure }
            }
        };
        let slot = self.push(kind, parent)?;
        self.entry[id] = slot;
        if let SlotKind::Within { .. } = kind {
            self.push(SlotKind::Deadline, Some(slot))?;
        }
        self.children[id].clone().into_iter().try_for_each(|c| self.place(c, Some(slot), stream_of))
    }

    /// Fills in children, subtrees and the match slots by stream. A slot comes after its parent, so one pass from
    /// the last slot sees every subtree complete before its parent's.
    fn link(&mut self) {
        for slot in (0..self.slots.len()).rev() {
            let def = &mut self.slots[slot];
            def.subtree |= bit(slot as Slot);
            let (subtree, parent) = (def.subtree, def.parent);
            if let SlotKind::Match { stream: Some(stream), .. } = def.kind {
                self.by_stream[stream as usize] |= bit(slot as Slot);
            }
            if let Some(parent) = parent {
                self.slots[parent as usize].children |= bit(slot as Slot);
                self.slots[parent as usize].subtree |= subtree;
            }
        }
    }

    fn parent(&self, slot: Slot) -> Option<Slot> {
        self.slots[slot as usize].parent
    }
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

impl Compact {
    pub fn new(shape: Arc<Shape>) -> Self {
        Compact { seen: Seen::new(shape.by_stream.len()), shape, start: None, instances: Arena::default(), next: 0 }
    }

    /// Runs on `shape` from now on: the same pattern's, in a program that numbers the streams differently.
    pub fn reshape(&mut self, shape: Arc<Shape>) {
        debug_assert_eq!(shape.slots.len(), self.shape.slots.len(), "the same pattern");
        self.instances.values_mut().for_each(|instance| instance.materialize(&self.shape));
        self.seen = Seen::unknown(shape.by_stream.len());
        self.shape = shape;
    }

    /// Runs `event` of stream `stream` (named `label`): the matches it completes and the timers it sets go to `out`.
    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, out: &mut Out, stream: u32, label: &str, event: &Row) {
        if self.start.is_none() {
            // As if it had waited since the configuration was applied: the first event can match it.
            self.start = Some((self.bump(), ctx.seq.saturating_sub(1)));
        }
        let mut fired: SmallVec<[(u64, Option<u64>, Slot); 4]> = SmallVec::new();
        let shape = &*self.shape;
        if let Some((order, created)) = self.start
            && shape.starts(created, ctx, stream, (label, event))
        {
            fired.push((order, None, 0));
        }
        if self.may_accept(stream, ctx, (label, event)) {
            let waiting = shape.by_stream.get(stream as usize).copied().unwrap_or(0);
            let uniform = self.uniform(stream, waiting, ctx, (label, event));
            let mut tested = Tested { known: Known::new(), pins: Pins::none(), uniform };
            for (_, id, instance) in self.instances.iter() {
                let mut candidates = instance.live & waiting;
                while candidates != 0 {
                    let slot = candidates.trailing_zeros() as Slot;
                    candidates &= candidates - 1;
                    if let Some(order) = instance.accepts(shape, slot, ctx, (label, event), &mut tested) {
                        fired.push((order, Some(id), slot));
                    }
                }
            }
            self.seen.set(stream, tested.pins);
        }
        fired.sort_unstable_by_key(|(order, _, _)| *order);
        if !out.ended.keeps() {
            self.warm_ending(&fired);
        }
        for (_, instance, slot) in fired {
            match instance {
                None => self.begin(ctx, out, event),
                Some(id) => {
                    if !self.end_fresh(out, id, slot) {
                        self.visit(ctx, out, id, |run, instance| run.fire(instance, slot, Some(event)));
                    }
                }
            }
        }
    }

    /// Whether a live leaf may accept `event` of `stream`: not when the values every leaf waiting for the stream has
    /// pinned are known, and the leaves' filters refuse the event with each of them.
    fn may_accept(&self, stream: u32, ctx: &Ctx<'_>, event: (&str, &Row)) -> bool {
        let Some(pins) = self.seen.of(stream) else {
            return true;
        };
        pins.iter().any(|(slot, pinned)| match self.shape.slots[*slot as usize].kind {
            SlotKind::Match { .. } => self.shape.passes(*slot, (std::iter::empty(), pinned), event, ctx.vars),
            _ => true,
        })
    }

    /// The match slots of `waiting` whose live leaves all pinned the same values, as `seen` shows (it lists one entry
    /// for the slot, and lists only pure filters), each with `event`'s answer.
    fn uniform(&self, stream: u32, waiting: u64, ctx: &Ctx<'_>, event: (&str, &Row)) -> SmallVec<[Uniform; 1]> {
        let Some(pins) = self.seen.of(stream) else {
            return SmallVec::new();
        };
        let once = |slot: Slot| pins.iter().filter(|(s, _)| *s == slot).count() == 1;
        let matching = |slot: Slot| matches!(self.shape.slots[slot as usize].kind, SlotKind::Match { .. });
        let slots = pins.iter().filter(|(slot, _)| waiting & bit(*slot) != 0 && once(*slot) && matching(*slot));
        slots
            .map(|(slot, pinned)| {
                let passes = self.shape.passes(*slot, (std::iter::empty(), pinned), event, ctx.vars);
                Uniform { slot: *slot, pinned: pinned.clone(), passes, noted: false }
            })
            .collect()
    }

    /// Fires the timer `wake`: the matches it completes and the timers it sets go to `out`.
    pub fn on_timer(&mut self, ctx: &mut Ctx<'_>, out: &mut Out, wake: Wake) {
        if !self.end_fresh(out, wake.instance, wake.slot) {
            self.visit(ctx, out, wake.instance, |run, instance| run.fire(instance, wake.slot, None));
        }
    }

    /// Reads the first cache line of the bound events of the instances in `fired` whose leaf ends them as they are
    /// ([`Compact::end_fresh`]), before any of them ends: the events are cold, and their misses then overlap instead
    /// of coming one by one as each instance's drop reaches its events. A small gain, measured at the geofence's
    /// crossings: one worker was faster in 7 of 8 pairs, by 1.6 % on average at the target's density and 1.5–2.4 %
    /// at 100 an epoch (`benches/results/cep.md`, thirty-second session). Not done on a worker with a reaper, which
    /// leaves those events to another thread (`reaper`): there, skipping it ran one worker 1.6–4.0 % faster in three
    /// pairs (thirty-fourth session, when that thread was a reaper thread of its own).
    fn warm_ending(&self, fired: &[(u64, Option<u64>, Slot)]) {
        for (_, id, slot) in fired {
            if let Some((_, instance)) = id.and_then(|id| self.fresh_fire(id, *slot)) {
                instance.bindings.iter().for_each(|(_, row)| row.warm());
            }
        }
    }

    /// What firing `slot` does to instance `id`, and the instance, when it is still as its opening made it and the
    /// shape knows what the firing does to such an instance ([`Shape::fresh_fire`]).
    fn fresh_fire(&self, id: u64, slot: Slot) -> Option<(FreshFire, &Instance)> {
        let fire = self.shape.fresh.get(slot as usize).copied().flatten()?;
        Some((fire, self.instances.get(id).filter(|instance| instance.is_fresh())?))
    }

    /// Fires `slot` on instance `id` by what the shape found firing it does to an instance as its opening made it
    /// ([`Shape::fresh_fire`]), if the instance is still so and that is known: the instance ends without its states
    /// written. `false` when the caller must fire the slot on the instance written out. In `bench geofence` at the
    /// target's density, 8.4 % of the events are crossings that end instances, about 11 each (counted over 40 M
    /// events, thirty-third session). Ending them this way (and testing their leaves without writing them) ran one
    /// worker 16 % faster in two pairs of long runs (`benches/results/cep.md`, thirty-first session).
    fn end_fresh(&mut self, out: &mut Out, id: u64, slot: Slot) -> bool {
        let Some((fire, _)) = self.fresh_fire(id, slot) else {
            return false;
        };
        let Some(instance) = self.instances.remove(id) else {
            return false;
        };
        self.next += fire.orders;
        if fire.matched {
            out.matches.push(instance.bindings);
        } else {
            out.end(instance);
        }
        true
    }

    /// Whether the timer `wake` may still do something: its instance is live, and so is the timer's leaf.
    pub fn waits(&self, wake: Wake) -> bool {
        self.instances.get(wake.instance).is_some_and(|instance| instance.is_live(wake.slot))
    }

    /// Whether no instance is live: the automaton then behaves as a new one would.
    pub fn is_idle(&self) -> bool {
        self.start.is_some() && self.instances.is_empty()
    }

    fn bump(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// The start leaf matched `event`: a new instance begins at the pattern's second step, then the start leaf is
    /// made again (after the instance's leaves, as the tree's `every` restarts its child after its parent heard).
    fn begin(&mut self, ctx: &mut Ctx<'_>, out: &mut Out, event: &Row) {
        let start = self.shape.nodes.tag(self.shape.start).map(|tag| (tag.clone(), event.clone()));
        let seq = self.bump();
        if self.shape.opening.is_some() {
            self.open(ctx, &mut out.wakes, (seq, start), event);
        } else {
            let mask = u64::from(start.is_some());
            let state = std::iter::repeat_with(State::default).take(self.shape.states).collect();
            let instance = Instance { live: 0, bindings: start.into_iter().collect(), phase: Phase::Written(state) };
            let id = self.instances.insert(seq, instance);
            let second_step = self.shape.entry[self.shape.root] + 1;
            self.visit(ctx, out, id, |run, instance| run.step(instance, second_step, 1, mask));
        }
        self.start = Some((self.bump(), ctx.seq));
    }

    /// Begins an instance as the opening makes it, its states left unwritten: its leaves take their orders, what
    /// they pin is noted in `seen`, and their timers are set, as if it were written.
    fn open(&mut self, ctx: &Ctx<'_>, wakes: &mut Wakes, (seq, start): (u64, Option<(Name, Row)>), event: &Row) {
        let Compact { shape, instances, seen, next, .. } = self;
        let Some(opening) = shape.opening.as_ref() else {
            return;
        };
        let id = instances.insert(seq, Instance::opened(shape, start, *next + 1, ctx.seq));
        for made in &opening.made {
            let Made::Leaf { slot, wake, pins, .. } = made else {
                continue;
            };
            *next += 1;
            if let SlotKind::Match { stream: Some(stream), pure, .. } = shape.slots[*slot as usize].kind {
                seen.note(stream, *slot, pure, &pinned(pins, Some(event)));
            }
            if let Some(millis) = wake {
                wakes.push((ctx.now + *millis as i64, Wake { instance: id, slot: *slot }, None));
            }
        }
    }

    /// Runs `f` on instance `id` (if it is live) and drops the instance if nothing in it is left.
    fn visit(&mut self, ctx: &mut Ctx<'_>, out: &mut Out, id: u64, f: impl FnOnce(&mut Run<'_, '_>, &mut Instance)) {
        let Some(instance) = self.instances.get_mut(id) else {
            return;
        };
        instance.materialize(&self.shape);
        let mut run = Run { shape: &self.shape, ctx, id, next: &mut self.next, out, seen: &mut self.seen, starting: 0 };
        f(&mut run, instance);
        if instance.live == 0
            && let Some(instance) = self.instances.remove(id)
        {
            out.end(instance);
        }
    }
}

#[cfg(test)]
impl Compact {
    /// Whether every live slot's parent is live and every live frame has a live child: nothing outlives what it
    /// waits for, and an instance with no leaf is gone.
    fn is_tidy(&self) -> bool {
        let tidy = |instance: &Instance| {
            (self.shape.slots.iter().enumerate()).filter(|(slot, _)| instance.is_live(*slot as Slot)).all(|(_, def)| {
                let parent_live = def.parent.is_none_or(|p| instance.is_live(p));
                let leaf = matches!(def.kind, SlotKind::Match { .. } | SlotKind::Timer { .. } | SlotKind::Deadline);
                parent_live && (leaf || instance.live & def.children != 0)
            })
        };
        self.instances.values().all(|i| i.live != 0 && tidy(i))
    }
}

impl Instance {
    /// An instance as `shape`'s opening makes it, bound to `start` (if the start is tagged), its leaves ordered from
    /// `order`, made at arrival `created`.
    fn opened(shape: &Shape, start: Option<(Name, Row)>, order: u64, created: u64) -> Self {
        let live = shape.opening.as_ref().map_or(0, |o| o.live);
        Instance { live, bindings: start.into_iter().collect(), phase: Phase::Opened { order, created } }
    }

    /// Whether it is still as its opening made it, with no states written.
    fn is_fresh(&self) -> bool {
        matches!(self.phase, Phase::Opened { .. })
    }

    /// The state at `index`, once its states are written.
    fn state(&self, index: usize) -> &State {
        match &self.phase {
            Phase::Written(states) => &states[index],
            Phase::Opened { .. } => unreachable!("states are read once written"),
        }
    }

    fn state_mut(&mut self, index: usize) -> &mut State {
        match &mut self.phase {
            Phase::Written(states) => &mut states[index],
            Phase::Opened { .. } => unreachable!("states are written out before they change"),
        }
    }

    /// Writes the states its opening made, as `Run::open` would have: the same leaves, orders and pinned values.
    fn materialize(&mut self, shape: &Shape) {
        let Some((opening, opened)) = shape.opening.as_ref().zip(self.as_opened()) else {
            return;
        };
        let mut state: Box<[State]> = std::iter::repeat_with(State::default).take(shape.states).collect();
        let start_mask = (1 << self.bindings.len()) - 1;
        let mut index = 0;
        for made in &opening.made {
            match made {
                Made::And { slot, pending } => {
                    state[shape.state(*slot)] = State::And { pending: *pending, mask: start_mask };
                }
                Made::Leaf { slot, mask, pins, .. } => {
                    state[shape.state(*slot)] = State::Leaf(self.leaf_made(opened, index, *mask, pins));
                    index += 1;
                }
            }
        }
        self.phase = Phase::Written(state);
    }

    fn is_live(&self, slot: Slot) -> bool {
        self.live & bit(slot) != 0
    }

    /// The leaf in `slot` if `event` of stream `label` matches it, by its order. The answers for pure filters are
    /// kept in `known` for the other instances' leaves of the slot, and the pinned values of a leaf the event does
    /// not fire, which stays waiting, are noted in `pins`. An instance as its opening made it is not written out for
    /// this: its leaf is worked out alone, or, when every live leaf of the slot pinned the same values, taken from the
    /// event's one answer ([`Uniform`]).
    fn accepts(
        &self,
        shape: &Shape,
        slot: Slot,
        ctx: &Ctx<'_>,
        event: (&str, &Row),
        tested: &mut Tested,
    ) -> Option<u64> {
        let SlotKind::Match { pure, .. } = shape.slots[slot as usize].kind else {
            return None;
        };
        if self.is_fresh()
            && let Some(uniform) = tested.uniform.iter_mut().find(|u| u.slot == slot)
        {
            return self.accepts_as_opened(shape, slot, ctx, uniform, &mut tested.pins);
        }
        let Tested { known, pins, .. } = tested;
        let opened;
        let leaf = if self.is_fresh() {
            opened = self.opened_leaf(shape, slot)?;
            &opened
        } else {
            let State::Leaf(leaf) = self.state(shape.state(slot)) else {
                return None;
            };
            leaf
        };
        let mut answer = || {
            let cached = pure.then(|| known.iter().find(|(s, p, _)| *s == slot && same(p, &leaf.pinned)).map(|k| k.2));
            if let Some(passes) = cached.flatten() {
                return passes;
            }
            let passes = shape.passes(slot, (self.bound(leaf.mask), &leaf.pinned), event, ctx.vars);
            if pure {
                known.truncate(KNOWN - 1);
                known.insert(0, (slot, leaf.pinned.clone(), passes));
            }
            passes
        };
        let passes = leaf.created < ctx.seq && answer();
        if !passes {
            pins.note(slot, pure, &leaf.pinned);
        }
        passes.then_some(leaf.order)
    }

    /// Whether the leaf its opening made in `slot`, which pinned what every live leaf of the slot pinned, accepts
    /// the event whose answer `uniform` has: its order if so. Its start event, cold since it arrived, is not read.
    fn accepts_as_opened(
        &self,
        shape: &Shape,
        slot: Slot,
        ctx: &Ctx<'_>,
        uniform: &mut Uniform,
        pins: &mut Pins,
    ) -> Option<u64> {
        let (index, _, _) = shape.opening.as_ref()?.leaf(slot)?;
        let (first, created) = self.as_opened()?;
        let accepted = (created < ctx.seq && uniform.passes).then_some(first + index);
        if accepted.is_none() && !uniform.noted {
            pins.note(slot, true, &uniform.pinned);
            uniform.noted = true;
        }
        accepted
    }

    /// The leaf the opening made in `slot`, as [`Instance::materialize`] would write it.
    fn opened_leaf(&self, shape: &Shape, slot: Slot) -> Option<Leaf> {
        let (index, mask, pins) = shape.opening.as_ref()?.leaf(slot)?;
        Some(self.leaf_made(self.as_opened()?, index, mask, pins))
    }

    /// The `index`-th leaf its opening made: ordered from its first leaf's order, made at its arrival (`opened`, as
    /// [`Instance::as_opened`] gives them), pinning what `pins` read of its start event.
    fn leaf_made(&self, (first, created): (u64, u64), index: u64, mask: u64, pins: &[Pin]) -> Leaf {
        let event = self.bindings.first().map(|(_, row)| row);
        Leaf { order: first + index, created, mask, pinned: pinned(pins, event) }
    }

    /// While its states are not written: the order of the first leaf its opening made, and its arrival number.
    fn as_opened(&self) -> Option<(u64, u64)> {
        match self.phase {
            Phase::Opened { order, created } => Some((order, created)),
            Phase::Written(_) => None,
        }
    }

    /// The bindings of `mask`, in the order they were bound.
    fn bound(&self, mask: u64) -> impl Iterator<Item = &(Name, Row)> + Clone {
        self.bindings.iter().enumerate().filter(move |(i, _)| mask & (1 << i) != 0).map(|(_, b)| b)
    }
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

impl Run<'_, '_> {
    fn order(&mut self) -> u64 {
        *self.next += 1;
        *self.next
    }

    fn wake(&mut self, millis: u64, slot: Slot) {
        self.out.wakes.push((self.ctx.now + millis as i64, Wake { instance: self.id, slot }, None));
    }

    /// Starts node `id` with `mask` in the slot its parent gave it, unless that parent has died meanwhile.
    fn start(&mut self, instance: &mut Instance, id: usize, mask: u64) {
        let slot = self.shape.entry[id];
        let def = &self.shape.slots[slot as usize];
        if def.parent.is_some_and(|p| !instance.is_live(p)) {
            return;
        }
        match def.kind {
            SlotKind::Match { .. } => self.leaf(instance, slot, mask),
            SlotKind::Timer { millis } => {
                self.leaf(instance, slot, mask);
                self.wake(millis, slot);
            }
            SlotKind::Step { .. } => self.step(instance, slot, 0, mask),
            SlotKind::And { pending } => {
                instance.live |= bit(slot);
                *instance.state_mut(self.shape.state(slot)) = State::And { pending, mask };
                self.starting |= bit(slot);
                for &child in &self.shape.children[id] {
                    self.start(instance, child, mask);
                }
                self.starting &= !bit(slot);
                if pending == 0 && instance.is_live(slot) {
                    self.finish(instance, slot, mask);
                } else {
                    self.prune(instance, slot);
                }
            }
            SlotKind::Or | SlotKind::Not => {
                instance.live |= bit(slot);
                for &child in &self.shape.children[id] {
                    self.start(instance, child, mask);
                }
            }
            SlotKind::Within { millis } => {
                instance.live |= bit(slot);
                self.leaf(instance, slot + 1, 0);
                self.wake(millis, slot + 1);
                for &child in &self.shape.children[id] {
                    self.start(instance, child, mask);
                }
            }
            SlotKind::Deadline => unreachable!("a deadline is made by its `within`"),
        }
    }

    /// Step `index` of a followed-by node, in `slot`, starts its node.
    fn step(&mut self, instance: &mut Instance, slot: Slot, index: usize, mask: u64) {
        instance.live |= bit(slot);
        let SlotKind::Step { node, .. } = self.shape.slots[slot as usize].kind else {
            unreachable!("a step slot");
        };
        let step = self.shape.children[node][index];
        self.start(instance, step, mask);
    }

    fn leaf(&mut self, instance: &mut Instance, slot: Slot, mask: u64) {
        let pinned = match self.shape.slots[slot as usize].kind {
            SlotKind::Match { node, .. } => self.shape.nodes.pin(node, instance.bound(mask)),
            _ => Pinned::new(),
        };
        self.make(instance, slot, mask, pinned);
    }

    /// Makes the leaf in `slot`, with the bindings of `mask` and what its filter reads of them.
    fn make(&mut self, instance: &mut Instance, slot: Slot, mask: u64, pinned: Pinned) {
        instance.live |= bit(slot);
        if let SlotKind::Match { stream: Some(stream), pure, .. } = self.shape.slots[slot as usize].kind {
            self.seen.note(stream, slot, pure, &pinned);
        }
        let leaf = Leaf { order: self.order(), created: self.ctx.seq, mask, pinned };
        *instance.state_mut(self.shape.state(slot)) = State::Leaf(leaf);
    }

    /// The leaf in `slot` fires, on `event` or as a timer.
    fn fire(&mut self, instance: &mut Instance, slot: Slot, event: Option<&Row>) {
        if !instance.is_live(slot) {
            return;
        }
        instance.live &= !bit(slot);
        let State::Leaf(leaf) = std::mem::take(instance.state_mut(self.shape.state(slot))) else {
            unreachable!("a live leaf slot holds its leaf");
        };
        let parent = self.shape.parent(slot);
        match self.shape.slots[slot as usize].kind {
            SlotKind::Deadline => self.kill(instance, parent.expect("a deadline is under its `within`")),
            SlotKind::Match { node, .. } => {
                let mut mask = leaf.mask;
                if let (Some(tag), Some(event)) = (self.shape.nodes.tag(node), event) {
                    mask |= 1 << instance.bindings.len();
                    instance.bindings.push((tag.clone(), event.clone()));
                }
                self.complete(instance, parent, mask);
            }
            _ => self.complete(instance, parent, leaf.mask),
        }
    }

    /// A child of frame `slot` (of the automaton itself when `None`) matched with the bindings of `mask`.
    fn complete(&mut self, instance: &mut Instance, slot: Option<Slot>, mask: u64) {
        let Some(slot) = slot else {
            self.out.matches.push(instance.bound(mask).cloned().collect());
            return;
        };
        if !instance.is_live(slot) {
            return;
        }
        let parent = self.shape.parent(slot);
        match self.shape.slots[slot as usize].kind {
            SlotKind::Step { node, index } if index + 1 == self.shape.children[node].len() => {
                self.complete(instance, parent, mask);
            }
            SlotKind::Step { index, .. } => self.step(instance, slot + 1, index + 1, mask),
            SlotKind::And { .. } => {
                let State::And { pending, mask: acc } = instance.state_mut(self.shape.state(slot)) else {
                    unreachable!("a live `and` holds its count");
                };
                *pending = pending.saturating_sub(1);
                *acc |= mask;
                if *pending == 0 {
                    let acc = *acc;
                    self.finish(instance, slot, acc);
                }
            }
            SlotKind::Or | SlotKind::Within { .. } => self.finish(instance, slot, mask),
            SlotKind::Not => self.kill(instance, parent.expect("a `not` is under an `and`")),
            SlotKind::Match { .. } | SlotKind::Timer { .. } | SlotKind::Deadline => {
                unreachable!("only frames complete")
            }
        }
        self.prune(instance, slot);
    }

    /// Frame `slot` matched as a whole: what is under it dies, its parent hears, then it dies too.
    fn finish(&mut self, instance: &mut Instance, slot: Slot, mask: u64) {
        let def = &self.shape.slots[slot as usize];
        instance.live &= !(def.subtree & !bit(slot));
        self.complete(instance, def.parent, mask);
        self.kill(instance, slot);
    }

    /// Removes `slot` and everything under it, then drops ancestors left empty.
    fn kill(&mut self, instance: &mut Instance, slot: Slot) {
        instance.live &= !self.shape.slots[slot as usize].subtree;
        if let Some(parent) = self.shape.parent(slot) {
            self.prune(instance, parent);
        }
    }

    /// Drops frame `slot` (and then its ancestors) once nothing is live under it.
    fn prune(&mut self, instance: &mut Instance, slot: Slot) {
        let def = &self.shape.slots[slot as usize];
        if !instance.is_live(slot) || instance.live & def.children != 0 || self.starting & bit(slot) != 0 {
            return;
        }
        instance.live &= !bit(slot);
        if let Some(parent) = def.parent {
            self.prune(instance, parent);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;
    use crate::cep::config::CepConfig;
    use crate::cep::dataflow::record::timer_epoch;
    use crate::cep::explain::plan_config;
    use crate::cep::plan::{Input, PlanNode, QueryPlan};
    use crate::cep::reference::TimerKind;
    use crate::cep::reference::pattern::PatternQuery;
    use crate::cep::runtime::Val;

    /// A pattern after `every a=A(…) ->`, rendered with fresh tags.
    #[derive(Debug, Clone)]
    enum Part {
        Match {
            stream: u8,
            tagged: bool,
            op: u8,
            n: u8,
            on_a: bool,
        },
        Timer(u8),
        Then(Box<Part>, Box<Part>),
        And(Box<Part>, Box<Part>),
        Or(Box<Part>, Box<Part>),
        Unless(Box<Part>, u8, u8),
        /// `(timer:interval(s sec) and not S(v op a.v))`: a confirmation whose `not` pins the start event's value.
        Confirm(u8, u8, u8),
        Nots(u8, u8),
        Within(Box<Part>, u8),
    }

    fn part() -> impl Strategy<Value = Part> {
        let leaf = prop_oneof![
            (0..2u8, any::<bool>(), 0..3u8, 0..4u8, any::<bool>())
                .prop_map(|(stream, tagged, op, n, on_a)| Part::Match { stream, tagged, op, n, on_a }),
            (1..4u8).prop_map(Part::Timer),
            (0..4u8, 0..4u8).prop_map(|(a, b)| Part::Nots(a, b)),
            (1..4u8, 0..2u8, 0..3u8).prop_map(|(s, stream, op)| Part::Confirm(s, stream, op)),
        ];
        leaf.prop_recursive(3, 12, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(l, r)| Part::Then(Box::new(l), Box::new(r))),
                (inner.clone(), inner.clone()).prop_map(|(l, r)| Part::And(Box::new(l), Box::new(r))),
                (inner.clone(), inner.clone()).prop_map(|(l, r)| Part::Or(Box::new(l), Box::new(r))),
                (inner.clone(), 0..2u8, 0..4u8).prop_map(|(p, s, n)| Part::Unless(Box::new(p), s, n)),
                (inner, 1..5u8).prop_map(|(p, s)| Part::Within(Box::new(p), s)),
            ]
        })
    }

    fn render(part: &Part, tags: &mut usize) -> String {
        let stream = |s: u8| if s == 0 { "A" } else { "B" };
        match part {
            Part::Match { stream: s, tagged, op, n, on_a } => {
                let tag = if *tagged {
                    *tags += 1;
                    format!("t{tags}=")
                } else {
                    String::new()
                };
                let op = ["<", ">=", "!="][*op as usize];
                let rhs = if *on_a { "a.v".to_owned() } else { n.to_string() };
                format!("{tag}{}(v {op} {rhs})", stream(*s))
            }
            Part::Timer(s) => format!("timer:interval({s} sec)"),
            Part::Then(l, r) => format!("({} -> {})", render(l, tags), render(r, tags)),
            Part::And(l, r) => format!("({} and {})", render(l, tags), render(r, tags)),
            Part::Or(l, r) => format!("({} or {})", render(l, tags), render(r, tags)),
            Part::Unless(p, s, n) => format!("({} and not {}(v = {n}))", render(p, tags), stream(*s)),
            Part::Confirm(s, on, op) => {
                let op = ["<", ">=", "!="][*op as usize];
                format!("(timer:interval({s} sec) and not {}(v {op} a.v))", stream(*on))
            }
            Part::Nots(a, b) => format!("(not A(v = {a}) and not B(v = {b}))"),
            Part::Within(p, s) => format!("({} where timer:within({s} sec))", render(p, tags)),
        }
    }

    fn query(pattern: &str) -> QueryPlan {
        let config = format!(
            r#"{{"host":"h","in":[
              {{"id":"A.*","type":"A","isPattern":true,"attributes":[{{"name":"v","type":"int"}}]}},
              {{"id":"B.*","type":"B","isPattern":true,"attributes":[{{"name":"v","type":"int"}}]}}],
              "out":[{{"id":"O","type":"Out","attributes":[{{"name":"v","type":"int"}}]}}],
              "statements":["INSERT INTO Out SELECT a.v as v FROM pattern [{pattern}]"]}}"#
        );
        let config: CepConfig = serde_json::from_str(&config).expect("a test configuration");
        let plan = plan_config(&config, true).expect("plans");
        let PlanNode::Query(q) = &plan.statements[0].node else { panic!("a query") };
        (**q).clone()
    }

    /// Matches, comparable: each one's tags and events, by tag.
    type Seen = Vec<Vec<(String, String)>>;

    fn seen(matches: impl IntoIterator<Item = Bindings>) -> Seen {
        let each = |b: Bindings| {
            let mut tags: Vec<(String, String)> = b.iter().map(|(t, r)| (t.to_string(), format!("{r:?}"))).collect();
            tags.sort();
            tags
        };
        matches.into_iter().map(each).collect()
    }

    /// The automata, each with its timers by (due, set order): the tree, the compact automaton and, when the
    /// shape queues its instances, the queue.
    struct Pair {
        tree: PatternQuery,
        compact: Compact,
        out: Out,
        queue: Option<(Queue, Out)>,
        tree_timers: BTreeMap<(i64, u64), TimerKind>,
        compact_timers: BTreeMap<(i64, u64), Wake>,
        queue_timers: BTreeMap<(i64, u64), Wake>,
        set: u64,
        seq: u64,
    }

    /// What each automaton of a [`Pair`] matched; the queue's is empty when there is none.
    type Three = (Seen, Seen, Seen);

    impl Pair {
        fn schedule(&mut self, tree: &mut Ctx<'_>) {
            for (at, _, kind) in tree.take_timers() {
                self.set += 1;
                self.tree_timers.insert((at, self.set), kind);
            }
            for (at, wake, _) in self.out.drain_wakes() {
                self.set += 1;
                self.compact_timers.insert((at, self.set), wake);
            }
            for (at, wake, _) in self.queue.iter_mut().flat_map(|(_, out)| out.drain_wakes()) {
                self.set += 1;
                self.queue_timers.insert((at, self.set), wake);
            }
        }

        /// Fires what is due by `now` on each, timers set meanwhile included.
        fn fire_until(&mut self, now: i64, vars: &Row) -> Three {
            let (mut tree, mut compact, mut queued) = (Vec::new(), Vec::new(), Vec::new());
            while let Some(entry) = self.tree_timers.first_entry().filter(|e| e.key().0 <= now) {
                let ((due, _), kind) = entry.remove_entry();
                let mut ctx = Ctx::new(due, self.seq, vars);
                tree.extend(seen(self.tree.matches_on_timer(&mut ctx, kind)));
                self.schedule(&mut ctx);
            }
            while let Some(entry) = self.compact_timers.first_entry().filter(|e| e.key().0 <= now) {
                let ((due, _), wake) = entry.remove_entry();
                let mut ctx = Ctx::new(due, self.seq, vars);
                self.compact.on_timer(&mut ctx, &mut self.out, wake);
                compact.extend(seen(self.out.take_matches()));
                self.schedule(&mut ctx);
            }
            while let Some(entry) = self.queue_timers.first_entry().filter(|e| e.key().0 <= now) {
                let (_, wake) = entry.remove_entry();
                let Some((queue, out)) = self.queue.as_mut() else { break };
                queue.on_timer(out, wake);
                queued.extend(seen(out.take_matches()));
                self.schedule(&mut Ctx::new(now, self.seq, vars));
            }
            (tree, compact, queued)
        }

        /// Runs `event` of stream `stream` on each.
        fn event(&mut self, now: i64, (stream, label): (u8, &str), event: &Row, vars: &Row) -> Three {
            self.seq += 1;
            let mut ctx = Ctx::new(now, self.seq, vars);
            let tree = seen(self.tree.matches_on_event(&mut ctx, label, event));
            self.schedule(&mut ctx);
            let mut ctx = Ctx::new(now, self.seq, vars);
            self.compact.on_event(&mut ctx, &mut self.out, u32::from(stream), label, event);
            let compact = seen(self.out.take_matches());
            let queued = match self.queue.as_mut() {
                Some((queue, out)) => {
                    let set = (timer_epoch(now), self.seq);
                    queue.on_event(
                        &mut Ctx::new(now, self.seq, vars),
                        out,
                        (u32::from(stream), label),
                        event.clone(),
                        set,
                    );
                    out.reap();
                    seen(out.take_matches())
                }
                None => Vec::new(),
            };
            self.schedule(&mut ctx);
            self.out.reap();
            (tree, compact, queued)
        }

        /// Whether each automaton's instances are in order (`Compact::is_tidy`, `Queue::is_tidy`).
        fn is_tidy(&self) -> bool {
            self.compact.is_tidy() && self.queue.as_ref().is_none_or(|(queue, _)| queue.is_tidy())
        }

        /// Requires what the tree matched of the others: the queue's, when there is one.
        fn agree(&self, (tree, compact, queued): Three, what: &str) -> Result<usize, TestCaseError> {
            prop_assert_eq!(&tree, &compact, "{}: compact", what);
            if self.queue.is_some() {
                prop_assert_eq!(&tree, &queued, "{}: queue", what);
            }
            Ok(tree.len())
        }
    }

    /// Runs `events` (milliseconds apart, stream, value) through the tree interpreter and the compact automaton of
    /// `every a=A(v >= start) -> rest`, requiring the same matches at every event and every instant timers fire.
    /// Answers how many matches there were.
    fn compare(rest: &Part, start: u8, events: &[(i64, u8, i64)]) -> Result<usize, TestCaseError> {
        let pattern = format!("every a=A(v >= {start}) -> {}", render(rest, &mut 0));
        let q = query(&pattern);
        let Input::Pattern(p) = &q.input else { panic!("a pattern") };
        let nodes = Nodes::new(&p.root, &q.projection);
        let names = [Name::from("A"), Name::from("B")];
        let shape = Shape::new(&nodes, &names, &Row::default());
        prop_assert!(shape.is_some(), "{} has the compact form", pattern);
        let shape = shape.expect("checked");
        // Half the cases (by the parity of their length) keep ended instances' rows for a reaper.
        let out = || {
            if events.len().is_multiple_of(2) {
                Out { ended: Leftovers::kept(), ..Out::default() }
            } else {
                Out::default()
            }
        };
        let mut pair = Pair {
            tree: PatternQuery::shared(Arc::new(q.clone()), nodes),
            compact: Compact::new(shape.clone()),
            out: out(),
            queue: shape.queues().then(|| (Queue::new(shape.clone()), out())),
            tree_timers: BTreeMap::new(),
            compact_timers: BTreeMap::new(),
            queue_timers: BTreeMap::new(),
            set: 0,
            seq: 0,
        };
        let vars = Row::default();
        let (mut now, mut matched) = (1_000, 0);
        for (n, (delta, stream, v)) in events.iter().enumerate() {
            now += delta;
            let due = pair.fire_until(now, &vars);
            matched += pair.agree(due, &format!("{pattern}: timers before event {n}"))?;
            let label = &names[*stream as usize];
            let event: Row =
                [("v".to_owned(), Val::Int(*v)), ("n".to_owned(), Val::Int(n as i64))].into_iter().collect();
            let heard = pair.event(now, (*stream, label), &event, &vars);
            matched += pair.agree(heard, &format!("{pattern}: event {n}"))?;
            prop_assert!(pair.is_tidy(), "{}: tidy after event {}", pattern, n);
        }
        let due = pair.fire_until(i64::MAX, &vars);
        matched += pair.agree(due, &format!("{pattern}: the timers left"))?;
        prop_assert!(pair.is_tidy(), "{}: tidy at the end", pattern);
        Ok(matched)
    }

    fn events() -> impl Strategy<Value = Vec<(i64, u8, i64)>> {
        prop::collection::vec((0..2500i64, 0..2u8, 0..4i64), 1..60)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn the_compact_automaton_matches_what_the_tree_interpreter_matches(
            rest in part(), start in 0..3u8, events in events(),
        ) {
            compare(&rest, start, &events)?;
        }
    }

    /// The compact automaton of `every a=A(v >= 0) -> rest`, with its shape's opening or without.
    fn automaton(rest: &Part, opening: bool) -> Compact {
        let q = query(&format!("every a=A(v >= 0) -> {}", render(rest, &mut 0)));
        let Input::Pattern(p) = &q.input else { panic!("a pattern") };
        let names = [Name::from("A"), Name::from("B")];
        let mut shape = Shape::new(&Nodes::new(&p.root, &q.projection), &names, &Row::default()).expect("compact");
        if !opening {
            Arc::get_mut(&mut shape).expect("not shared yet").opening = None;
        }
        Compact::new(shape)
    }

    /// The compact automaton of `every a=A(v >= 0) -> rest` after one event of A, begun from its shape's opening or,
    /// without one, by walking the slots, and the timers it set.
    fn begun(rest: &Part, opening: bool) -> (Compact, Wakes) {
        let mut compact = automaton(rest, opening);
        let event: Row = [("v".to_owned(), Val::Int(2)), ("n".to_owned(), Val::Int(0))].into_iter().collect();
        let mut out = Out::default();
        compact.on_event(&mut Ctx::new(1_000, 1, &Row::default()), &mut out, 0, "A", &event);
        (compact, out.wakes)
    }

    /// Each instance's live slots, bindings and states, written out first where the opening left them unwritten.
    fn written(compact: &mut Compact) -> Vec<String> {
        let shape = compact.shape.clone();
        let mut written = Vec::new();
        for instance in compact.instances.values_mut() {
            instance.materialize(&shape);
            written.push(format!("{:?}", (instance.live, &instance.bindings, &instance.phase)));
        }
        written
    }

    proptest! {
        /// An instance copied from the opening is the instance walking the slots makes: its live slots, states and
        /// timers, the leaves' orders and what the key's leaves pinned.
        #[test]
        fn an_instance_begun_from_the_opening_is_the_one_the_walk_makes(rest in part()) {
            let ((mut copied, copied_wakes), (mut walked, walked_wakes)) = (begun(&rest, true), begun(&rest, false));
            prop_assert_eq!(written(&mut copied), written(&mut walked));
            prop_assert_eq!(copied_wakes, walked_wakes);
            prop_assert_eq!(format!("{:?}", copied.seen), format!("{:?}", walked.seen));
            prop_assert_eq!((copied.start, copied.next), (walked.start, walked.next));
        }
    }

    #[test]
    fn the_opening_is_worked_out_unless_an_and_of_nots_finishes_at_once() {
        let confirmation = Part::Unless(Box::new(Part::Timer(4)), 1, 0);
        assert!(begun(&confirmation, true).0.shape.opening.is_some());
        let within = Part::Within(Box::new(Part::Then(Box::new(confirmation), Box::new(Part::Timer(1)))), 9);
        assert!(begun(&within, true).0.shape.opening.is_some());
        assert!(begun(&Part::Nots(0, 1), true).0.shape.opening.is_none());
    }

    #[test]
    fn shapes_whose_every_leaf_ends_the_instance_queue_their_instances() {
        let shape = |rest: &Part| automaton(rest, true).shape.clone();
        let timer = || Box::new(Part::Timer(4));
        let queued = [Part::Confirm(4, 0, 2), Part::Unless(timer(), 1, 0), Part::Timer(2), Part::Within(timer(), 3)];
        for rest in &queued {
            assert!(shape(rest).queues(), "{rest:?}");
        }
        let match_b = Part::Match { stream: 1, tagged: false, op: 0, n: 2, on_a: true };
        // The last: the inner `not` ends the inner `and` only, and the outer one waits on for its own `not`.
        let not_queued = [
            Part::Then(timer(), timer()),
            match_b.clone(),
            Part::And(timer(), Box::new(match_b)),
            Part::Unless(Box::new(Part::Confirm(4, 1, 0)), 0, 3),
        ];
        for rest in &not_queued {
            assert!(!shape(rest).queues(), "{rest:?}");
        }
    }

    #[test]
    fn the_geofence_confirmation_matches_after_four_quiet_seconds() {
        // A at 1 s starts an instance confirmed at 5 s; A at 7 s starts one that B(v = 0) at 8 s kills.
        let rest = Part::Unless(Box::new(Part::Timer(4)), 1, 0);
        let events = [(0, 0, 1), (1_000, 1, 2), (5_000, 0, 1), (1_000, 1, 0)];
        assert_eq!(compare(&rest, 0, &events).expect("the same matches"), 1);
    }

    #[test]
    fn an_instance_a_crossing_ends_leaves_its_row_for_the_reaper_and_a_match_takes_its_own() {
        // `every a=A(v >= 0) -> (timer:interval(4 sec) and not B(v = 0))`, keeping ended instances' rows.
        let mut compact = automaton(&Part::Unless(Box::new(Part::Timer(4)), 1, 0), true);
        let mut out = Out { ended: Leftovers::kept(), ..Out::default() };
        let vars = Row::default();
        let row = |v: i64, n: i64| -> Row {
            [("v".to_owned(), Val::Int(v)), ("n".to_owned(), Val::Int(n))].into_iter().collect()
        };
        let ended_ns =
            |out: &Out| out.ended.rows().map(|rows| rows.iter().map(|r| r.get("n").cloned()).collect::<Vec<_>>());

        // A (n = 0) at 1 s is confirmed at 5 s: its row goes with the match.
        compact.on_event(&mut Ctx::new(1_000, 1, &vars), &mut out, 0, "A", &row(1, 0));
        let wakes: Vec<_> = out.drain_wakes().collect();
        for (at, wake, _) in wakes {
            compact.on_timer(&mut Ctx::new(at, 2, &vars), &mut out, wake);
        }
        assert_eq!(seen(out.take_matches()).len(), 1);
        assert_eq!(ended_ns(&out), Some(vec![]));

        // A (n = 2) at 7 s is ended by B (v = 0) at 8 s: its row waits for the reaper, then goes to it.
        compact.on_event(&mut Ctx::new(7_000, 3, &vars), &mut out, 0, "A", &row(1, 2));
        compact.on_event(&mut Ctx::new(8_000, 4, &vars), &mut out, 1, "B", &row(0, 3));
        assert!(out.take_matches().is_empty());
        assert_eq!(ended_ns(&out), Some(vec![Some(Val::Int(2))]));
        out.reap();
        assert_eq!(ended_ns(&out), Some(vec![]));
    }

    /// The shipped configurations' patterns all have the compact form, so none of them falls back to the tree.
    #[test]
    fn the_shipped_patterns_run_on_the_compact_automaton() {
        let shipped = [
            include_str!("../../../queries/geofence.json"),
            include_str!("../../../queries/cepheus-geofencing.json"),
            include_str!("../../../queries/cepheus-close-shutters.json"),
            include_str!("../../../queries/cepheus-rooms-and-flaps.json"),
        ];
        let mut patterns = 0;
        for text in shipped {
            let config: CepConfig = serde_json::from_str(text).expect("a shipped configuration");
            let plan = plan_config(&config, true).expect("plans");
            for statement in &plan.statements {
                let PlanNode::Query(q) = &statement.node else { continue };
                let p = match &q.input {
                    Input::Pattern(p) => p,
                    Input::Join(join) => match &join.driver {
                        Input::Pattern(p) => p,
                        _ => continue,
                    },
                    Input::Stream(_) => continue,
                };
                patterns += 1;
                let shape = Shape::new(&Nodes::new(&p.root, &q.projection), &[], &Row::default());
                assert!(shape.is_some(), "{}", statement.text);
            }
        }
        assert_eq!(patterns, 5, "the patterns of the four configurations");
    }

    #[test]
    fn patterns_of_other_forms_have_no_compact_shape() {
        let names = [Name::from("A"), Name::from("B")];
        let patterns = [
            "every a=A(v >= 0)",
            "every (a=A(v >= 0) -> B(v >= 0))",
            "every a=A(v >= 0) -> every B(v >= 0)",
            "every a=A(v >= 0) -> not B(v = a.v)",
            "every a=A(v >= 0) -> (B(v = 1) or not B(v = a.v))",
            "every a=A(v >= 0) -> (not B(v = a.v) where timer:within(1 sec))",
        ];
        for pattern in patterns {
            let q = query(pattern);
            let Input::Pattern(p) = &q.input else { panic!("a pattern") };
            assert!(Shape::new(&Nodes::new(&p.root, &q.projection), &names, &Row::default()).is_none(), "{pattern}");
        }
    }
}

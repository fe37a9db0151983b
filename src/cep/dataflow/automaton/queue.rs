//! The instances of a pattern in which any leaf that fires ends the instance, kept in a queue: the geofence's
//! `every a=S -> (timer:interval(4 sec) and not S(inside != a.inside))`, where the timer completes an instance and
//! the `not` ends it. Such an instance never leaves the state its opening made ([`Shape::fresh_fire`] knows what
//! each of its leaves does to it), so it needs no slots, states or leaf orders, only its number and its start event.
//!
//! Instances begin in number order, each with the same leaves, so consecutive ones often pinned the same values (a
//! tracker's side of the fence): they form a run, which an event tests once and ends whole. The queue holds 32 bytes
//! an instance, in order, where the arena of [`Compact`](super::Compact) holds a 72-byte slot and leaves freed slots
//! among the live ones; that arena's walk and inserts were the largest shares of a worker's simulated cache misses
//! (`benches/results/cep.md`, thirty-third session). With one timer an instance (the geofence's), only the oldest
//! instance's timer is set ([`Queue::arm`]); with more, each instance's are set as the compact automaton sets them.
//! With one timer an instance, the start events are written down in the pattern's
//! [`Starts`](super::starts::Starts) rather than held as rows, and an instance's number is the one they were given
//! there.
//! The automaton's property test runs the queue against the tree interpreter beside the compact automaton.

use std::collections::VecDeque;
use std::sync::Arc;

use smallvec::SmallVec;

use super::{Made, Out, Pin, Set, Shape, Slot, SlotKind, Wake, pinned, same_value};
use crate::cep::dataflow::record;
use crate::cep::reference::Ctx;
use crate::cep::reference::pattern::Pinned;
use crate::cep::runtime::{Row, Val, prefetch};

/// What a queue needs of its shape: the leaves of the opening, which are all it ever has.
#[derive(Debug)]
pub(super) struct Plan {
    /// The opening's leaves waiting for an event (all pure `not`s), each with its stream and the start event's
    /// columns its filter reads.
    waits: Vec<(Slot, u32, Vec<Pin>)>,
    /// The opening's timers and deadlines, in the order it makes them, with their delays in milliseconds.
    timers: Vec<(Slot, u64)>,
    /// Whether the instances' start events are kept in the pattern's [`Starts`](super::starts::Starts) rather than
    /// as rows: when the start is tagged and each instance has one timer, which ends it by its due epoch at the
    /// latest.
    keeps: bool,
}

impl Plan {
    /// The plan of `shape`, when every leaf of its opening ends an instance as the opening made it, and every one
    /// waiting for an event has a pure filter: nothing can then happen to an instance but its end.
    pub(super) fn of(shape: &Shape) -> Option<Plan> {
        let opening = shape.opening.as_ref()?;
        let mut plan = Plan { waits: Vec::new(), timers: Vec::new(), keeps: false };
        for made in &opening.made {
            let Made::Leaf { slot, wake, pins, .. } = made else {
                continue;
            };
            shape.fresh.get(*slot as usize).copied().flatten()?;
            match (shape.slots[*slot as usize].kind, wake) {
                (SlotKind::Match { pure: false, .. }, _) => return None,
                (SlotKind::Match { stream: Some(stream), .. }, _) => plan.waits.push((*slot, stream, pins.clone())),
                // A leaf of a stream the configuration does not declare never fires.
                (SlotKind::Match { stream: None, .. }, _) => {}
                (_, Some(millis)) => plan.timers.push((*slot, *millis)),
                (_, None) => return None,
            }
        }
        plan.keeps = plan.timers.len() == 1 && shape.nodes.tag(shape.start).is_some();
        Some(plan)
    }
}

/// A live instance: its number, its start event (none when the start is untagged, or written down in the pattern's
/// [`Starts`](super::starts::Starts) under that number), and when it began: the epoch and position of its start
/// event, which a timer set for it later gives ([`Set`]).
#[derive(Debug)]
struct Queued {
    number: u64,
    start: Option<Row>,
    set: Set,
}

/// Consecutive live instances whose leaves pinned the same values: the number of the first, and the values, one
/// list per leaf of [`Plan::waits`].
#[derive(Debug)]
struct Run {
    first: u64,
    pinned: SmallVec<[Pinned; 1]>,
}

impl Run {
    /// Whether the leaves of an instance `event` begins would pin what this run's did, read in place: most events
    /// join the last run, and copying their values only to compare and drop them cost about 240 instructions an
    /// event in `bench geofence` by the profile (`benches/results/cep.md`, thirty-fifth session).
    fn pins(&self, plan: &Plan, event: &Row) -> bool {
        let reads = |pins: &[Pin], pinned: &Pinned| {
            let value =
                |(i, name): &Pin, (j, v): &(usize, Val)| i == j && same_value(event.get(name).unwrap_or(&Val::Null), v);
            pins.len() == pinned.len() && pins.iter().zip(pinned).all(|(pin, p)| value(pin, p))
        };
        plan.waits.iter().zip(&self.pinned).all(|((_, _, pins), pinned)| reads(pins, pinned))
    }
}

/// The millisecond at which the timer of an instance that began at `set` is due, `millis` after its start event's.
fn due_ms(set: Set, millis: u64) -> i64 {
    record::millis(set.0) + millis as i64
}

/// The live instances of one key.
#[derive(Debug)]
pub struct Queue {
    shape: Arc<Shape>,
    /// The arrival number of the event the start leaf was made at, from the first event on.
    start: Option<u64>,
    /// Oldest first.
    live: VecDeque<Queued>,
    /// Oldest first; a run holds the live instances from its first up to the next run's first. One is kept in place,
    /// where an event reads it with the queue's other fields rather than from a buffer of its own (the geofence's
    /// key mostly has one run; see `benches/results/cep.md`, thirty-fifth session).
    runs: SmallVec<[Run; 1]>,
    next: u64,
    /// With one timer per instance, whether the oldest instance changed since its timer was set. Instances end in
    /// the order they began or earlier, so only the oldest needs its timer set; the next one's is set when it
    /// becomes the oldest.
    unarmed: bool,
}

impl Queue {
    /// The queue of a shape with a [`Plan`].
    pub fn new(shape: Arc<Shape>) -> Self {
        debug_assert!(shape.queue.is_some(), "a shape whose instances can be queued");
        Queue { shape, start: None, live: VecDeque::new(), runs: SmallVec::new(), next: 0, unarmed: false }
    }

    /// Runs on `shape` from now on: the same pattern's, in a program that numbers the streams differently.
    pub fn reshape(&mut self, shape: Arc<Shape>) {
        debug_assert!(shape.queue.is_some(), "the same pattern");
        self.shape = shape;
    }

    fn plan(&self) -> &Plan {
        self.shape.queue.as_ref().expect("a queue's shape has a plan")
    }

    /// Runs `event` of stream `stream` (named `label`), which arrived at `set`: the runs it ends go, and then, if it
    /// passes the start filter, an instance begins. The timers to set go to `out`.
    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, out: &mut Out, (stream, label): (u32, &str), event: Row, set: Set) {
        // As if the start leaf had waited since the configuration was applied: the first event can match it.
        let created = *self.start.get_or_insert(ctx.seq.saturating_sub(1));
        let starts = self.shape.starts(created, ctx, stream, (label, &event));
        if self.plan().waits.iter().any(|(_, s, _)| *s == stream) {
            self.end_runs(ctx, out, stream, (label, &event));
        }
        if starts {
            self.begin(ctx, out, event, set);
        }
        self.arm(out);
    }

    /// Ends every run a leaf of which accepts `event`: every instance of the run has the same answer.
    fn end_runs(&mut self, ctx: &Ctx<'_>, out: &mut Out, stream: u32, event: (&str, &Row)) {
        let mut r = 0;
        while r < self.runs.len() {
            let waits = self.plan().waits.iter().zip(&self.runs[r].pinned);
            let mut accepting = waits.filter(|((_, s, _), _)| *s == stream);
            let ends = accepting.any(|((slot, _, _), pinned)| {
                self.shape.passes(*slot, (std::iter::empty(), pinned), event, (ctx.vars, ctx.now))
            });
            if ends {
                self.end_run(r, out);
            } else {
                r += 1;
            }
        }
    }

    /// Ends run `r` and its instances, without a match: a `not` ended them. The first run begins at the oldest
    /// instance, so it is found without a search; a search reads instances from the middle of the queue.
    fn end_run(&mut self, r: usize, out: &mut Out) {
        let first = self.runs[r].first;
        let from = match r {
            0 => {
                debug_assert_eq!(self.live.front().map(|q| q.number), Some(first), "the first run's first is oldest");
                0
            }
            _ => self.live.partition_point(|q| q.number < first),
        };
        let to = match self.runs.get(r + 1) {
            Some(next) => self.live.partition_point(|q| q.number < next.first),
            None => self.live.len(),
        };
        out.ended.add(self.live.drain(from..to).filter_map(|q| q.start));
        self.runs.remove(r);
        self.unarmed |= from == 0;
    }

    /// `event` begins an instance: it joins the last run if its leaves pinned what that run's did, and sets its
    /// timers (with one timer an instance, once it is the oldest, [`Queue::arm`]); then the start leaf is made
    /// again.
    fn begin(&mut self, ctx: &Ctx<'_>, out: &mut Out, event: Row, set: Set) {
        let plan = self.shape.queue.as_ref().expect("a queue's shape has a plan");
        let joins = self.runs.last().is_some_and(|run| run.pins(plan, &event));
        let pinned = (!joins).then(|| plan.waits.iter().map(|(_, _, pins)| pinned(pins, Some(&event))).collect());
        let (number, start) = match plan.timers.as_slice() {
            [(_, millis)] if plan.keeps => {
                let number = out.starts.keep(&event, record::due_epoch(due_ms(set, *millis), set.0));
                out.ended.add(std::iter::once(event));
                (number, None)
            }
            _ => {
                self.next += 1;
                (self.next, self.shape.nodes.tag(self.shape.start).map(|_| event))
            }
        };
        if let Some(pinned) = pinned {
            self.runs.push(Run { first: number, pinned });
        }
        self.unarmed |= self.live.is_empty();
        self.live.push_back(Queued { number, start, set });
        if let [_, _, ..] = plan.timers.as_slice() {
            for (slot, millis) in &plan.timers {
                out.wakes.push((ctx.now + *millis as i64, Wake { instance: number, slot: *slot }, None));
            }
        }
        self.start = Some(ctx.seq);
    }

    /// Sets the timer of the oldest instance if it is not set yet, when instances have one timer each: due its delay
    /// after the millisecond of its start event's epoch, as the compact automaton would have set it, and stamped
    /// with its start event's epoch and position. A timer set for an instance that ended meanwhile finds nothing when
    /// it fires. In `bench geofence` a timer is then set at a crossing or a match rather than at every event
    /// (crossings were 8.4 % of the events, thirty-third session), and the timers of the instances crossings end
    /// no longer fire. It made one worker 10–11 % faster, once its test of the oldest instance read that instance
    /// only when it changed (`benches/results/cep.md`, thirty-fifth session).
    fn arm(&mut self, out: &mut Out) {
        let [(slot, millis)] = self.plan().timers.as_slice() else {
            return;
        };
        if let Some(oldest) = self.live.front().filter(|_| self.unarmed) {
            let at = due_ms(oldest.set, *millis);
            out.wakes.push((at, Wake { instance: oldest.number, slot: *slot }, Some(oldest.set)));
            self.unarmed = false;
        }
    }

    /// Fires the timer `wake`: its instance ends, with the match the shape found its leaf makes, if any.
    pub fn on_timer(&mut self, out: &mut Out, wake: Wake) {
        let Some(fire) = self.shape.fresh.get(wake.slot as usize).copied().flatten() else {
            return;
        };
        let Some(at) = self.position(wake.instance) else {
            return;
        };
        let Some(ended) = self.live.remove(at) else {
            return;
        };
        self.leave_run(ended.number, at);
        self.unarmed |= at == 0;
        match fire.matched {
            true => {
                let start = match self.plan().keeps {
                    true => Some(out.starts.row(ended.number)),
                    false => ended.start,
                };
                let tag = self.shape.nodes.tag(self.shape.start).cloned();
                out.matches.push(tag.zip(start).into_iter().collect());
            }
            false => out.ended.add(ended.start.into_iter()),
        }
        self.arm(out);
    }

    /// Instance `number`, which was at `at` in the queue, has ended: a run it began now begins at the next live
    /// instance, or goes if that one is another run's.
    fn leave_run(&mut self, number: u64, at: usize) {
        let Ok(r) = self.runs.binary_search_by_key(&number, |run| run.first) else {
            return;
        };
        let following = self.runs.get(r + 1).map(|run| run.first);
        match self.live.get(at).map(|q| q.number) {
            Some(next) if following.is_none_or(|f| next < f) => self.runs[r].first = next,
            _ => {
                self.runs.remove(r);
            }
        }
    }

    /// Where instance `number` is in the queue, if it is live: mostly at the front, since timers fire in the order
    /// their instances began.
    fn position(&self, number: u64) -> Option<usize> {
        match self.live.front() {
            Some(front) if front.number == number => Some(0),
            _ => self.live.binary_search_by_key(&number, |q| q.number).ok(),
        }
    }

    /// Whether the timer `wake` may still do something: its instance is live (and with it all its leaves).
    pub fn waits(&self, wake: Wake) -> bool {
        self.position(wake.instance).is_some()
    }

    /// Starts loading the queue's fields an event reads, which span cache lines.
    pub fn load(&self) {
        prefetch::load(&self.start);
        prefetch::load(&self.live);
        prefetch::load(&self.runs);
        prefetch::load(&self.unarmed);
    }

    /// Starts loading the newest instance, next to which an event's instance goes, and the oldest, which a timer
    /// or a crossing reads first.
    pub fn load_state(&self) {
        self.live.back().into_iter().chain(self.live.front()).for_each(prefetch::load);
    }

    /// Whether no instance is live: the queue then behaves as a new one would.
    pub fn is_idle(&self) -> bool {
        self.start.is_some() && self.live.is_empty()
    }
}

#[cfg(test)]
impl Queue {
    /// Whether the runs partition the live instances: numbers rising, every run's first live, the first run's
    /// first the oldest instance.
    pub(super) fn is_tidy(&self) -> bool {
        let rising = |a: &[u64]| a.windows(2).all(|w| w[0] < w[1]);
        let numbers: Vec<u64> = self.live.iter().map(|q| q.number).collect();
        let firsts: Vec<u64> = self.runs.iter().map(|run| run.first).collect();
        rising(&numbers)
            && rising(&firsts)
            && firsts.iter().all(|f| numbers.binary_search(f).is_ok())
            && numbers.first() == firsts.first()
    }
}

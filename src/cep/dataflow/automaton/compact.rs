//! The compact automaton's instances of one key: made by start events, advanced by events and timers, ended when
//! nothing is live in them.

use std::cmp::Reverse;
use std::sync::Arc;

use smallvec::SmallVec;

use super::seen::{Pins, Seen};
use super::{
    Compact, FreshFire, Instance, KNOWN, Known, Leaf, Made, Out, Phase, Pin, Run, Shape, Slot, SlotKind, State, Tested,
    Uniform, Wake, Wakes, bit, pinned, same,
};
use crate::cep::reference::Ctx;
use crate::cep::reference::arena::Arena;
use crate::cep::runtime::Row;
use crate::cep::runtime::value::Name;

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
        // Leaves whose filter has more conditions first, then in the order they were made, as the tree's.
        let rank = |instance: Option<u64>, slot: Slot| match instance {
            None => shape.start_rank,
            Some(_) => shape.ranks[slot as usize],
        };
        fired.sort_unstable_by_key(|(order, instance, slot)| (Reverse(rank(*instance, *slot)), *order));
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
            SlotKind::Match { .. } => {
                self.shape.passes(*slot, (std::iter::empty(), pinned), event, (ctx.vars, ctx.now))
            }
            _ => true,
        })
    }

    /// The match slots of `waiting` whose live leaves all pinned the same values, as `seen` shows (it lists one entry
    /// for the slot, and lists only pure filters), each with `event`'s answer.
    pub(super) fn uniform(
        &self,
        stream: u32,
        waiting: u64,
        ctx: &Ctx<'_>,
        event: (&str, &Row),
    ) -> SmallVec<[Uniform; 1]> {
        let Some(pins) = self.seen.of(stream) else {
            return SmallVec::new();
        };
        let once = |slot: Slot| pins.iter().filter(|(s, _)| *s == slot).count() == 1;
        let matching = |slot: Slot| matches!(self.shape.slots[slot as usize].kind, SlotKind::Match { .. });
        let slots = pins.iter().filter(|(slot, _)| waiting & bit(*slot) != 0 && once(*slot) && matching(*slot));
        slots
            .map(|(slot, pinned)| {
                let passes = self.shape.passes(*slot, (std::iter::empty(), pinned), event, (ctx.vars, ctx.now));
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
    pub(super) fn fresh_fire(&self, id: u64, slot: Slot) -> Option<(FreshFire, &Instance)> {
        let fire = self.shape.fresh.get(slot as usize).copied().flatten()?;
        Some((fire, self.instances.get(id).filter(|instance| instance.is_fresh())?))
    }

    /// Fires `slot` on instance `id` by what the shape found firing it does to an instance as its opening made it
    /// ([`Shape::fresh_fire`]), if the instance is still so and that is known: the instance ends without its states
    /// written. `false` when the caller must fire the slot on the instance written out. In `bench geofence` at the
    /// target's density, 8.4 % of the events are crossings that end instances, about 11 each (counted over 40 M
    /// events, thirty-third session). Ending them this way (and testing their leaves without writing them) ran one
    /// worker 16 % faster in two pairs of long runs (`benches/results/cep.md`, thirty-first session).
    pub(super) fn end_fresh(&mut self, out: &mut Out, id: u64, slot: Slot) -> bool {
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
    pub(super) fn begin(&mut self, ctx: &mut Ctx<'_>, out: &mut Out, event: &Row) {
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
    pub(super) fn open(
        &mut self,
        ctx: &Ctx<'_>,
        wakes: &mut Wakes,
        (seq, start): (u64, Option<(Name, Row)>),
        event: &Row,
    ) {
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
    pub(super) fn visit(
        &mut self,
        ctx: &mut Ctx<'_>,
        out: &mut Out,
        id: u64,
        f: impl FnOnce(&mut Run<'_, '_>, &mut Instance),
    ) {
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
    pub(super) fn is_tidy(&self) -> bool {
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
    pub(super) fn opened(shape: &Shape, start: Option<(Name, Row)>, order: u64, created: u64) -> Self {
        let live = shape.opening.as_ref().map_or(0, |o| o.live);
        Instance { live, bindings: start.into_iter().collect(), phase: Phase::Opened { order, created } }
    }

    /// Whether it is still as its opening made it, with no states written.
    fn is_fresh(&self) -> bool {
        matches!(self.phase, Phase::Opened { .. })
    }

    /// The state at `index`, once its states are written.
    pub(super) fn state(&self, index: usize) -> &State {
        match &self.phase {
            Phase::Written(states) => &states[index],
            Phase::Opened { .. } => unreachable!("states are read once written"),
        }
    }

    pub(super) fn state_mut(&mut self, index: usize) -> &mut State {
        match &mut self.phase {
            Phase::Written(states) => &mut states[index],
            Phase::Opened { .. } => unreachable!("states are written out before they change"),
        }
    }

    /// Writes the states its opening made, as `Run::open` would have: the same leaves, orders and pinned values.
    pub(super) fn materialize(&mut self, shape: &Shape) {
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

    pub(super) fn is_live(&self, slot: Slot) -> bool {
        self.live & bit(slot) != 0
    }

    /// The leaf in `slot` if `event` of stream `label` matches it, by its order. The answers for pure filters are
    /// kept in `known` for the other instances' leaves of the slot, and the pinned values of a leaf the event does
    /// not fire, which stays waiting, are noted in `pins`. An instance as its opening made it is not written out for
    /// this: its leaf is worked out alone, or, when every live leaf of the slot pinned the same values, taken from the
    /// event's one answer ([`Uniform`]).
    pub(super) fn accepts(
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
            let passes = shape.passes(slot, (self.bound(leaf.mask), &leaf.pinned), event, (ctx.vars, ctx.now));
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
    pub(super) fn bound(&self, mask: u64) -> impl Iterator<Item = &(Name, Row)> + Clone {
        self.bindings.iter().enumerate().filter(move |(i, _)| mask & (1 << i) != 0).map(|(_, b)| b)
    }
}

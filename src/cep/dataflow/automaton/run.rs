//! One event or timer at work on one instance: starting slots, testing leaves and firing what they complete.

use super::{Instance, Leaf, Run, Slot, SlotKind, State, Wake, bit};
use crate::cep::reference::pattern::Pinned;
use crate::cep::runtime::Row;

impl Run<'_, '_> {
    pub(super) fn order(&mut self) -> u64 {
        *self.next += 1;
        *self.next
    }

    pub(super) fn wake(&mut self, millis: u64, slot: Slot) {
        self.out.wakes.push((self.ctx.now + millis as i64, Wake { instance: self.id, slot }, None));
    }

    /// Starts node `id` with `mask` in the slot its parent gave it, unless that parent has died meanwhile.
    pub(super) fn start(&mut self, instance: &mut Instance, id: usize, mask: u64) {
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
    pub(super) fn step(&mut self, instance: &mut Instance, slot: Slot, index: usize, mask: u64) {
        instance.live |= bit(slot);
        let SlotKind::Step { node, .. } = self.shape.slots[slot as usize].kind else {
            unreachable!("a step slot");
        };
        let step = self.shape.children[node][index];
        self.start(instance, step, mask);
    }

    pub(super) fn leaf(&mut self, instance: &mut Instance, slot: Slot, mask: u64) {
        let pinned = match self.shape.slots[slot as usize].kind {
            SlotKind::Match { node, .. } => self.shape.nodes.pin(node, instance.bound(mask)),
            _ => Pinned::new(),
        };
        self.make(instance, slot, mask, pinned);
    }

    /// Makes the leaf in `slot`, with the bindings of `mask` and what its filter reads of them.
    pub(super) fn make(&mut self, instance: &mut Instance, slot: Slot, mask: u64, pinned: Pinned) {
        instance.live |= bit(slot);
        if let SlotKind::Match { stream: Some(stream), pure, .. } = self.shape.slots[slot as usize].kind {
            self.seen.note(stream, slot, pure, &pinned);
        }
        let leaf = Leaf { order: self.order(), created: self.ctx.seq, mask, pinned };
        *instance.state_mut(self.shape.state(slot)) = State::Leaf(leaf);
    }

    /// The leaf in `slot` fires, on `event` or as a timer.
    pub(super) fn fire(&mut self, instance: &mut Instance, slot: Slot, event: Option<&Row>) {
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
    pub(super) fn complete(&mut self, instance: &mut Instance, slot: Option<Slot>, mask: u64) {
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
    pub(super) fn finish(&mut self, instance: &mut Instance, slot: Slot, mask: u64) {
        let def = &self.shape.slots[slot as usize];
        instance.live &= !(def.subtree & !bit(slot));
        self.complete(instance, def.parent, mask);
        self.kill(instance, slot);
    }

    /// Removes `slot` and everything under it, then drops ancestors left empty.
    pub(super) fn kill(&mut self, instance: &mut Instance, slot: Slot) {
        instance.live &= !self.shape.slots[slot as usize].subtree;
        if let Some(parent) = self.shape.parent(slot) {
            self.prune(instance, parent);
        }
    }

    /// Drops frame `slot` (and then its ancestors) once nothing is live under it.
    pub(super) fn prune(&mut self, instance: &mut Instance, slot: Slot) {
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

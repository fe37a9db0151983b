//! A pattern's shape: the slots of the compact automaton laid out from the plan's tree, with what each slot starts,
//! pins and fires, worked out once per statement.

use std::sync::Arc;

use super::queue;
use super::seen::Seen;
use super::{FreshFire, Instance, Made, Opening, Out, Pin, Run, Shape, Slot, SlotDef, SlotKind, bit};
use crate::cep::plan::{PatternNodeKind, PlanExpr};
use crate::cep::reference::Ctx;
use crate::cep::reference::pattern::{Nodes, Pinned};
use crate::cep::runtime::Row;
use crate::cep::runtime::compiled::{Compiled, Env, Layout};
use crate::cep::runtime::value::Name;

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
            ranks: Vec::new(),
            start_rank: nodes.rank(first.id),
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
        shape.ranks = (shape.slots.iter())
            .map(|def| match def.kind {
                SlotKind::Match { node, .. } => shape.nodes.rank(node),
                _ => 0,
            })
            .collect();
        shape.compile(vars);
        shape.opening = shape.opening();
        shape.fresh = (0..shape.slots.len()).map(|slot| shape.fresh_fire(slot as Slot, vars)).collect();
        shape.queue = queue::Plan::of(&shape);
        Some(Arc::new(shape))
    }

    /// Whether `event` of stream `stream` (named `label`) passes the start leaf made at arrival `created`: a later
    /// event of the start's stream that its filter accepts.
    pub(super) fn starts(&self, created: u64, ctx: &Ctx<'_>, stream: u32, (label, event): (&str, &Row)) -> bool {
        self.start_stream == Some(stream)
            && created < ctx.seq
            && self.nodes.passes(self.start, (std::iter::empty(), &Pinned::new()), (label, event), (ctx.vars, ctx.now))
    }

    /// Whether its instances run in a [`Queue`](super::Queue).
    pub fn queues(&self) -> bool {
        self.queue.is_some()
    }

    /// What firing `slot` does to an instance as the opening made it: found by doing it, once, to such an instance.
    /// `None` unless the opening makes the slot's leaf and its firing ends the instance without setting a timer; the
    /// instance then makes a match or not, whatever its start event was. A leaf waiting for an event qualifies only
    /// when it ends the instance without a match (a `not`), which then holds whatever the event.
    pub(super) fn fresh_fire(&self, slot: Slot, vars: &Row) -> Option<FreshFire> {
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
    pub(super) fn opening(&self) -> Option<Opening> {
        let mask = u64::from(self.nodes.tag(self.start).is_some());
        let mut opening = Opening { live: bit(self.entry[self.root] + 1), made: Vec::new() };
        self.open(self.children[self.root][1], mask, &mut opening)?;
        Some(opening)
    }

    pub(super) fn open(&self, id: usize, mask: u64, opening: &mut Opening) -> Option<()> {
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
    pub(super) fn pins(&self, slot: Slot) -> Vec<Pin> {
        let (SlotKind::Match { node, .. }, Some(tag)) = (self.slots[slot as usize].kind, self.nodes.tag(self.start))
        else {
            return Vec::new();
        };
        let reads = self.nodes.reads(node).iter().enumerate();
        reads.filter(|(_, (label, _))| label == tag).map(|(i, (_, name))| (i, name.clone())).collect()
    }

    pub(super) fn push(&mut self, kind: SlotKind, parent: Option<Slot>) -> Option<Slot> {
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
    pub(super) fn passes<'a>(
        &self,
        slot: Slot,
        (bindings, pinned): (impl Iterator<Item = &'a (Name, Row)>, &Pinned),
        (label, event): (&str, &Row),
        at: (&Row, i64),
    ) -> bool {
        let def = &self.slots[slot as usize];
        match (&def.test, def.kind) {
            (Some(test), _) => test.holds(&Env { rows: &[event, event], pinned, aggregates: &[] }),
            (None, SlotKind::Match { node, .. }) => self.nodes.passes(node, (bindings, pinned), (label, event), at),
            (None, _) => false,
        }
    }

    /// Where an instance keeps the state of `slot`, a leaf or an `and`.
    pub(super) fn state(&self, slot: Slot) -> usize {
        self.slots[slot as usize].state.expect("only leaves and `and`s hold state") as usize
    }

    /// Gives node `id` (under `parent`) and everything under it their slots; `None` for an `every` or too many slots.
    pub(super) fn place(
        &mut self,
        id: usize,
        parent: Option<Slot>,
        stream_of: &dyn Fn(&str) -> Option<u32>,
    ) -> Option<()> {
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

    pub(super) fn parent(&self, slot: Slot) -> Option<Slot> {
        self.slots[slot as usize].parent
    }
}

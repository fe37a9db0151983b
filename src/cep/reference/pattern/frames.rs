//! How a pattern's instances live: frames and leaves started under their parents, matches reported up the tree,
//! parts turning false, and subtrees dropped with the frame that quits.

use smallvec::SmallVec;

use super::{Bindings, Child, Frame, FrameKind, Leaf, LeafKind, PatternQuery, Pinned, merged};
use crate::cep::plan::{PatternNode, PatternNodeKind};
use crate::cep::reference::{Ctx, TimerKind, TimerOrder};
use crate::cep::runtime::Row;

impl PatternQuery {
    pub(super) fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub(super) fn frame(&mut self, parent: u64, node: usize, kind: FrameKind) -> u64 {
        let seq = self.id();
        let id = self.frames.insert(seq, Frame { parent: Some(parent), node, kind, children: SmallVec::new() });
        self.adopt(parent, id);
        id
    }

    fn adopt(&mut self, parent: u64, child: u64) {
        if let Some(p) = self.frames.get_mut(parent) {
            p.children.push(child);
        }
    }

    pub(super) fn leaf(&mut self, ctx: &Ctx<'_>, frame: u64, kind: LeafKind, bindings: Bindings) -> u64 {
        let seq = self.id();
        let pinned = match kind {
            LeafKind::Match { node } => self.pin(node, &bindings),
            _ => SmallVec::new(),
        };
        let id = self.leaves.insert(seq, Leaf { frame, kind, bindings, created: ctx.seq, pinned });
        self.adopt(frame, id);
        id
    }

    /// The values the filter of match node `node` reads of `bindings`: a label the bindings hold is found there
    /// first when the filter runs, so its columns can be read now.
    pub(super) fn pin(&self, node: usize, bindings: &Bindings) -> Pinned {
        self.nodes.pin(node, bindings.iter())
    }

    /// Starts the pattern at its first event, if it has not started, as if it had been waiting since the
    /// configuration was applied: the leaves it creates count as older than that event, so the event itself can match
    /// them. (The dataflow's automaton of a key starts so; a pattern started by an `every` over events times nothing
    /// from its start, so starting it then is starting it at its creation.)
    pub(super) fn ensure_started(&mut self, ctx: &mut Ctx<'_>) {
        if !self.started {
            self.started = true;
            // The first node of an empty arena: creation number 0 in slot 0, so its id is 0.
            let frame = Frame { parent: None, node: self.nodes.root, kind: FrameKind::Root, children: SmallVec::new() };
            let root = self.frames.insert(0, frame);
            debug_assert_eq!(root, 0);
            let seq = ctx.seq;
            ctx.seq = seq.saturating_sub(1);
            self.start(ctx, self.nodes.root, Bindings::new(), 0);
            ctx.seq = seq;
            self.fresh = self.outline();
        }
    }

    /// Starts node `id` under `parent` from `bindings` (Esper's `start` of a new state node); answers the id of the
    /// frame or leaf made.
    pub(super) fn start(&mut self, ctx: &mut Ctx<'_>, id: usize, bindings: Bindings, parent: u64) -> u64 {
        let nodes = self.nodes.clone();
        match &nodes.get(id).kind {
            PatternNodeKind::Match { .. } => self.leaf(ctx, parent, LeafKind::Match { node: id }, bindings),
            PatternNodeKind::Timer { millis } => {
                let leaf = self.leaf(ctx, parent, LeafKind::Timer { node: id }, bindings);
                ctx.schedule(ctx.now + *millis as i64, TimerOrder::Pattern, TimerKind::Pattern(leaf));
                leaf
            }
            PatternNodeKind::FollowedBy(_) => {
                let instance = self.frame(parent, id, FrameKind::FollowedBy);
                self.step(ctx, instance, (id, 0), bindings);
                instance
            }
            PatternNodeKind::Every(child) => {
                let kind = FrameKind::Every { child: child.id, bindings, spawning: false, turned: false };
                let frame = self.frame(parent, id, kind);
                self.spawn(ctx, frame);
                frame
            }
            PatternNodeKind::And(children) => {
                let (quit, events) = children.iter().map(|_| (false, SmallVec::new())).unzip();
                let frame = self.frame(parent, id, FrameKind::And { quit, events });
                // Esper makes every child before starting the first, so one that turns true or false at its start
                // (a `not`) finds its siblings counted; a child that ends the `and` leaves the rest unstarted.
                for child in children {
                    if !self.frames.contains(frame) {
                        break;
                    }
                    self.start(ctx, child.id, bindings.clone(), frame);
                }
                frame
            }
            PatternNodeKind::Or(children) => {
                let frame = self.frame(parent, id, FrameKind::Or { left: children.len() });
                for child in children {
                    if !self.frames.contains(frame) {
                        break;
                    }
                    self.start(ctx, child.id, bindings.clone(), frame);
                }
                frame
            }
            PatternNodeKind::Not(inner) => {
                // True from its start: the parent hears so at once, and the `not` stays until its child matches.
                let frame = self.frame(parent, id, FrameKind::Not);
                self.start(ctx, inner.id, bindings.clone(), frame);
                if self.frames.contains(frame) {
                    self.report(ctx, parent, (frame, id), bindings, false);
                }
                frame
            }
            PatternNodeKind::Within { inner, millis } => {
                let frame = self.frame(parent, id, FrameKind::Within { deadline: 0 });
                let deadline = self.leaf(ctx, frame, LeafKind::Deadline, Bindings::new());
                if let Some(Frame { kind: FrameKind::Within { deadline: d }, .. }) = self.frames.get_mut(frame) {
                    *d = deadline;
                }
                ctx.schedule(ctx.now + *millis as i64, TimerOrder::Pattern, TimerKind::Pattern(deadline));
                self.start(ctx, inner.id, bindings, frame);
                frame
            }
        }
    }

    /// Starts step `index` of the followed-by node `steps` under its `instance`.
    pub(super) fn step(
        &mut self,
        ctx: &mut Ctx<'_>,
        instance: u64,
        (steps, index): (usize, usize),
        bindings: Bindings,
    ) {
        let nodes = self.nodes.clone();
        let PatternNodeKind::FollowedBy(list) = &nodes.get(steps).kind else {
            return;
        };
        let frame = self.frame(instance, steps, FrameKind::Step { steps, index });
        self.start(ctx, list[index].id, bindings, frame);
    }

    /// Starts a new child of the `every` frame `every`, and quits it if it turned true or false while starting.
    fn spawn(&mut self, ctx: &mut Ctx<'_>, every: u64) {
        let Some(Frame { kind: FrameKind::Every { child, bindings, spawning, turned }, .. }) =
            self.frames.get_mut(every)
        else {
            return;
        };
        (*spawning, *turned) = (true, false);
        let (child, bindings) = (*child, bindings.clone());
        let id = self.start(ctx, child, bindings, every);
        if let Some(Frame { kind: FrameKind::Every { spawning, turned, .. }, .. }) = self.frames.get_mut(every) {
            *spawning = false;
            if *turned {
                self.detach(every, id);
            }
        }
    }

    /// Child `from` of `frame` matched with `bindings` (Esper's `evaluateTrue`); `quitted` when nothing of it is left
    /// live. Each kind of frame does what Esper's state node of its kind does.
    fn report(&mut self, ctx: &mut Ctx<'_>, frame: u64, from: Child, bindings: Bindings, quitted: bool) {
        let known = self.is_child(frame, from.0);
        if quitted {
            self.detach(frame, from.0);
        }
        let (Some(up), Some(f)) = (self.above(frame), self.frames.get_mut(frame)) else {
            return;
        };
        match &mut f.kind {
            FrameKind::Root => self.matches.push(bindings),
            // A step reports to its instance's parent; the instance itself hears nothing.
            FrameKind::FollowedBy => {}
            FrameKind::Step { steps, index } => {
                let (steps, index) = (*steps, *index);
                if known {
                    self.stepped(ctx, (frame, up.0), (steps, index), bindings);
                }
            }
            FrameKind::Every { spawning: true, turned, .. } => *turned = true,
            FrameKind::Every { .. } => {
                self.report(ctx, up.0, up.1, bindings, false);
                self.spawn(ctx, frame);
            }
            FrameKind::And { .. } if known => self.and_matched(ctx, frame, (from.1, quitted), bindings),
            FrameKind::And { .. } => {}
            FrameKind::Or { .. } => {
                if quitted {
                    self.kill_children(frame);
                }
                self.report(ctx, up.0, up.1, bindings, quitted);
            }
            FrameKind::Within { deadline } => {
                if quitted {
                    let deadline = *deadline;
                    self.detach(frame, deadline);
                }
                if known {
                    self.report(ctx, up.0, up.1, bindings, quitted);
                }
            }
            FrameKind::Not if known && quitted => self.fail(ctx, up.0, up.1),
            FrameKind::Not => {}
        }
    }

    /// Step `index` of the followed-by node `steps` (the frame `step`, under `instance`) matched: the next step starts,
    /// or after the last the instance matches, and has quit if no step is left live.
    fn stepped(
        &mut self,
        ctx: &mut Ctx<'_>,
        (step, instance): (u64, u64),
        (steps, index): (usize, usize),
        b: Bindings,
    ) {
        if self.frames.get(step).is_some_and(|f| f.children.is_empty()) {
            self.detach(instance, step);
        }
        let last = match &self.nodes.get(steps).kind {
            PatternNodeKind::FollowedBy(list) => index + 1 == list.len(),
            _ => true,
        };
        if !last {
            return self.step(ctx, instance, (steps, index + 1), b);
        }
        let Some(f) = self.frames.get(instance) else {
            return;
        };
        let (parent, quitted) = (f.parent.unwrap_or(0), f.children.is_empty());
        self.report(ctx, parent, (instance, steps), b, quitted);
    }

    /// Child node `node` of the `and` frame `frame` matched with `bindings`, and has `quitted` or not: once every
    /// child has matched, each combination of this match with the other children's makes a match of the `and`, which
    /// quits when only `not`s are left live (Esper's `EvalAndStateNode`).
    fn and_matched(&mut self, ctx: &mut Ctx<'_>, frame: u64, (node, quitted): (usize, bool), bindings: Bindings) {
        let nodes = self.nodes.clone();
        let Some(Frame { parent, node: and, kind: FrameKind::And { quit, events }, .. }) = self.frames.get_mut(frame)
        else {
            return;
        };
        let (parent, and) = (parent.unwrap_or(0), *and);
        let PatternNodeKind::And(children) = &nodes.get(and).kind else {
            return;
        };
        let Some(index) = children.iter().position(|c| c.id == node) else {
            return;
        };
        quit[index] |= quitted;
        events[index].push(bindings.clone());
        if events.iter().any(SmallVec::is_empty) {
            return;
        }
        let mut combined = vec![bindings];
        for (_, matched) in events.iter().enumerate().filter(|(i, _)| *i != index) {
            combined = (combined.iter()).flat_map(|b| matched.iter().map(|m| merged(b, m))).collect();
        }
        let open = |(c, quit): (&PatternNode, &bool)| !quit && !matches!(c.kind, PatternNodeKind::Not(_));
        let ended = !children.iter().zip(quit.iter()).any(open);
        if ended {
            self.kill_children(frame);
        }
        for b in combined {
            self.report(ctx, parent, (frame, and), b, ended);
        }
    }

    /// Child `from` of `frame` turned permanently false (Esper's `evaluateFalse`); nothing of it is left live.
    fn fail(&mut self, ctx: &mut Ctx<'_>, frame: u64, from: Child) {
        if let Some(Frame { kind: FrameKind::Every { spawning: true, turned, .. }, .. }) = self.frames.get_mut(frame) {
            *turned = true;
            return;
        }
        if !self.is_child(frame, from.0) {
            return;
        }
        self.detach(frame, from.0);
        let (Some(up), Some(f)) = (self.above(frame), self.frames.get_mut(frame)) else {
            return;
        };
        match &mut f.kind {
            FrameKind::Root => self.kill_children(0),
            FrameKind::FollowedBy => {}
            FrameKind::Step { .. } => {
                let instance = up.0;
                self.detach(instance, frame);
                if self.frames.get(instance).is_some_and(|f| f.children.is_empty())
                    && let Some((parent, child)) = self.above(instance)
                {
                    self.fail(ctx, parent, child);
                }
            }
            FrameKind::Every { .. } => self.spawn(ctx, frame),
            FrameKind::And { .. } => self.fail(ctx, up.0, up.1),
            FrameKind::Or { left } => {
                *left -= 1;
                if *left == 0 {
                    self.fail(ctx, up.0, up.1);
                }
            }
            // A `not` whose child turned false stays true; a `within` waits for its deadline.
            FrameKind::Not | FrameKind::Within { .. } => {}
        }
    }

    /// The parent of `frame`, and `frame` as that parent's child.
    fn above(&self, frame: u64) -> Option<(u64, Child)> {
        let f = self.frames.get(frame)?;
        Some((f.parent.unwrap_or(0), (frame, f.node)))
    }

    fn is_child(&self, frame: u64, child: u64) -> bool {
        self.frames.get(frame).is_some_and(|f| f.children.contains(&child))
    }

    /// Drops child `child` of `frame`, with everything under it.
    fn detach(&mut self, frame: u64, child: u64) {
        self.forget_child(frame, child);
        if self.leaves.remove(child).is_none() {
            self.kill_subtree(child);
        }
    }

    fn kill_children(&mut self, frame: u64) {
        let children = self.frames.get_mut(frame).map(|f| std::mem::take(&mut f.children)).unwrap_or_default();
        for child in children {
            if self.leaves.remove(child).is_none() {
                self.kill_subtree(child);
            }
        }
    }

    fn kill_subtree(&mut self, frame: u64) {
        self.kill_children(frame);
        self.frames.remove(frame);
    }

    fn forget_child(&mut self, parent: u64, child: u64) {
        if let Some(p) = self.frames.get_mut(parent) {
            p.children.retain(|c| *c != child);
        }
    }

    pub(super) fn fire_leaf(&mut self, ctx: &mut Ctx<'_>, id: u64, event: Option<Row>) {
        let Some(leaf) = self.leaves.remove(id) else {
            return;
        };
        match leaf.kind {
            // The `within`'s time is up: its child quits, and the `within` turns false.
            LeafKind::Deadline => {
                self.forget_child(leaf.frame, id);
                self.kill_children(leaf.frame);
                if let Some((parent, within)) = self.above(leaf.frame) {
                    self.fail(ctx, parent, within);
                }
            }
            LeafKind::Timer { node } => self.report(ctx, leaf.frame, (id, node), leaf.bindings, true),
            LeafKind::Match { node } => {
                let mut bindings = leaf.bindings;
                if let (Some(tag), Some(event)) = (&self.nodes.tags[node], event) {
                    bindings.push((tag.clone(), event));
                }
                self.report(ctx, leaf.frame, (id, node), bindings, true);
            }
        }
    }

    /// How many conditions a match leaf's filter has ([`Nodes::rank`]).
    pub(super) fn rank(&self, leaf: &Leaf) -> usize {
        match leaf.kind {
            LeafKind::Match { node } => self.nodes.rank(node),
            _ => 0,
        }
    }

    pub(super) fn accepts(&self, leaf: &Leaf, ctx: &Ctx<'_>, stream: &str, event: &Row) -> bool {
        let LeafKind::Match { node } = leaf.kind else {
            return false;
        };
        let PatternNodeKind::Match { stream: wanted, .. } = &self.nodes.get(node).kind else {
            return false;
        };
        if wanted != stream || leaf.created >= ctx.seq {
            return false;
        }
        self.nodes.passes(node, (leaf.bindings.iter(), &leaf.pinned), (stream, event), (ctx.vars, ctx.now))
    }
}

//! Patterns as a tree of live instances, run as Esper's state nodes run them. Starting a node under a parent frame
//! creates frames (a followed-by's instance and its steps, `every`, `and`, `or`, `not`, `within`) and leaves (event
//! matches, timers, a `within`'s deadline). A child tells its parent that it matched, and whether it has quit doing so
//! (Esper's `evaluateTrue`), or that it turned permanently false (`evaluateFalse`); each kind of frame answers as
//! Esper's state node of its kind: a step starts the next step, an `every` restarts its child (on a match and on
//! false alike), an `and` combines its children's matches once each has one and turns false with any child, an `or`
//! quits with a child that quits and turns false with the last, a `not` is true from its start and turns false when
//! its child matches, a `within` turns false at its deadline. A frame that quits or turns false is dropped with its
//! subtree, so no state outlives its instance. Only events after the one that created a leaf can match it (arrival
//! sequence), as Esper requires.
//! A statement's `ORDER BY` changes nothing here: Esper inserts each match into the statement's stream alone
//! (`ViewableActivatorPattern`), so each row is sorted by itself, and the rows keep the order of the matches; only an
//! output policy sorts, what it releases together (`rate`), so under one a row carries its keys (`Nodes::project`). For the
//! same reason an aggregating pattern makes one row per match, with its group's aggregates over every match so far
//! (a pattern has no window, so none leaves): `PatternQuery::tally`.

use std::sync::Arc;

use smallvec::SmallVec;

use super::aggregate;
use super::arena::Arena;
use super::paced::Paced;
use super::rate::Rate;
use super::{Ctx, TimerKind, TimerOrder};
use crate::cep::plan::{Input, PatternNode, PatternNodeKind, PatternPlan, PlanExpr, Projection, QueryPlan};
use crate::cep::runtime::eval::{CopyOf, Scope, holds};
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{EngineError, Row, Val, order};

/// The tags a match bound, with their events; a tag's name is shared. One is kept inline: every frame and leaf holds
/// bindings, so their inline room sets the size of all live state, and a waiting instance of the common two-step
/// pattern (`every a -> b`) holds just `a`. A second tag moves them to the heap once, when it binds. (Two inline made
/// frames 112 bytes and leaves 128 instead of 88 and 104, and `bench geofence` 9 % slower on 1 worker and 13 % on 2,
/// `benches/results/cep.md`, fourteenth session.)
pub type Bindings = SmallVec<[(Name, Row); 1]>;

/// A row with its `ORDER BY` keys.
type Keyed = (Vec<Val>, Row);

#[derive(Debug)]
enum FrameKind {
    Root,
    /// An instance of a followed-by node: its children are its live [`FrameKind::Step`]s (Esper's followed-by state
    /// keeps the same list, and turns false once failures have emptied it).
    FollowedBy,
    /// Step `index` of the followed-by node `steps`, under its instance.
    Step {
        steps: usize,
        index: usize,
    },
    /// An `every` restarting node `child` from `bindings`; `spawning` while a new child starts, and `turned` if that
    /// child turned true or false meanwhile: Esper quits such a child (`EvalEveryStateSpawnEvaluator`), since an
    /// `every` over what is true at its start would loop.
    Every {
        child: usize,
        bindings: Bindings,
        spawning: bool,
        turned: bool,
    },
    /// An `and`: which children have quit, and the matches each child has made, by child.
    And {
        quit: SmallVec<[bool; 2]>,
        events: SmallVec<[SmallVec<[Bindings; 1]>; 2]>,
    },
    /// An `or` with `left` children that have not turned false.
    Or {
        left: usize,
    },
    Not,
    Within {
        deadline: u64,
    },
}

#[derive(Debug)]
struct Frame {
    parent: Option<u64>,
    /// The plan node the frame is an instance of.
    node: usize,
    kind: FrameKind,
    children: SmallVec<[u64; 2]>,
}

/// A live child as its parent hears of it: its id and its plan node.
type Child = (u64, usize);

#[derive(Debug)]
enum LeafKind {
    /// The match node `node`.
    Match {
        node: usize,
    },
    /// The timer node `node`.
    Timer {
        node: usize,
    },
    Deadline,
}

/// The timer that hands out the matches a pattern made at its start: the root frame's id, never a leaf's, so it
/// fires nothing itself.
const AT_START: u64 = 0;

/// What a match leaf's filter reads of its bindings: usually one column (`a.inside`), so one is kept inline and a leaf,
/// moved in and out of its arena at every event, stays small.
pub(crate) type Pinned = SmallVec<[(usize, Val); 1]>;

#[derive(Debug)]
struct Leaf {
    frame: u64,
    kind: LeafKind,
    bindings: Bindings,
    created: u64,
    /// What a match leaf's filter reads of its bindings (by index into the node's reads), read when the leaf was
    /// made: bound events never change, and the leaf is then all a test of its filter touches besides the event.
    pinned: Pinned,
}

/// Every node of a pattern by id (the planner numbers them from 0), so live state names nodes instead of copying
/// them.
#[derive(Debug)]
pub struct Nodes {
    by_id: Vec<Option<PatternNode>>,
    /// The tag of each match node, shared by the bindings it makes.
    tags: Vec<Option<Name>>,
    /// The columns (label, name) each match node's filter reads.
    reads: Vec<Vec<(Name, Name)>>,
    /// The statement's select list, when it copies a tag whole.
    copy: CopyOf,
    root: usize,
}

impl Nodes {
    /// The nodes under `root`, for a statement selecting `projection`.
    pub fn new(root: &PatternNode, projection: &[Projection]) -> Arc<Self> {
        let mut by_id = Vec::new();
        let mut todo = vec![root];
        while let Some(node) = todo.pop() {
            todo.extend(node.children());
            if by_id.len() <= node.id {
                by_id.resize(node.id + 1, None);
            }
            by_id[node.id] = Some(node.clone());
        }
        let tag = |node: &Option<PatternNode>| match node.as_ref().map(|n| &n.kind) {
            Some(PatternNodeKind::Match { tag: Some(tag), .. }) => Some(Name::from(tag.as_str())),
            _ => None,
        };
        let tags = by_id.iter().map(tag).collect();
        let reads = (by_id.iter())
            .map(|node| match node.as_ref().map(|n| &n.kind) {
                Some(PatternNodeKind::Match { filter: Some(filter), .. }) => columns_read(filter),
                _ => Vec::new(),
            })
            .collect();
        Arc::new(Nodes { by_id, tags, reads, copy: CopyOf::new(projection), root: root.id })
    }

    pub fn get(&self, id: usize) -> &PatternNode {
        self.find(id).expect("a pattern's nodes name only its own nodes")
    }

    /// Node `id`, if the pattern has it: ids are numbered over the whole statement.
    pub fn find(&self, id: usize) -> Option<&PatternNode> {
        self.by_id.get(id)?.as_ref()
    }

    /// How many node ids there are.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn root(&self) -> usize {
        self.root
    }

    /// The columns (label, name) the filter of match node `node` reads; a leaf's pinned values are indexed by these.
    pub fn reads(&self, node: usize) -> &[(Name, Name)] {
        &self.reads[node]
    }

    /// The tag of match node `node`.
    pub fn tag(&self, node: usize) -> Option<&Name> {
        self.tags[node].as_ref()
    }

    /// The values the filter of match node `node` reads of the tags in `bindings`, to pin in its leaf.
    pub fn pin<'a>(&self, node: usize, bindings: impl Iterator<Item = &'a (Name, Row)> + Clone) -> Pinned {
        let reads = self.reads[node].iter().enumerate();
        reads
            .filter_map(|(i, (label, name))| {
                let (_, row) = bindings.clone().find(|(tag, _)| **tag == **label)?;
                Some((i, row.get(name).cloned().unwrap_or_default()))
            })
            .collect()
    }

    /// Whether `event` of `stream`, read with a leaf's `bindings` and `pinned` values, passes the filter of match
    /// node `node`.
    pub fn passes<'a>(
        &self,
        node: usize,
        (bindings, pinned): (impl Iterator<Item = &'a (Name, Row)>, &Pinned),
        (stream, event): (&str, &Row),
        vars: &Row,
    ) -> bool {
        let PatternNodeKind::Match { tag, filter, .. } = &self.get(node).kind else {
            return false;
        };
        let Some(filter) = filter else {
            return true;
        };
        let mut rows: SmallVec<[(&str, &Row); 4]> = bindings.map(|(t, r)| (&**t, r)).collect();
        rows.push((stream, event));
        rows.extend(tag.as_deref().map(|t| (t, event)));
        let reads = &self.reads[node];
        let pinned: SmallVec<[(&str, &str, &Val); 2]> =
            pinned.iter().map(|(i, v)| (reads[*i].0.as_str(), reads[*i].1.as_str(), v)).collect();
        holds(Some(filter), &Scope::new(&rows, vars).with_pinned(&pinned))
    }

    /// The row a match makes: the statement's WHERE, then its select list; `None` when the WHERE fails. Under an
    /// output policy that sorts, the row carries its `ORDER BY` keys until the policy releases it.
    pub fn project(&self, plan: &QueryPlan, vars: &Row, bindings: &Bindings) -> Option<Row> {
        let rows: SmallVec<[(&str, &Row); 2]> = bindings.iter().map(|(t, r)| (&**t, r)).collect();
        let scope = Scope::new(&rows, vars);
        let row = holds(plan.filter.as_ref(), &scope).then(|| self.copy.project(&plan.projection, &scope))?;
        match plan.output.is_some() && !plan.order_by.is_empty() {
            true => Some(order::with_keys(row, order::keys(&plan.order_by, &scope))),
            false => Some(row),
        }
    }
}

#[derive(Debug)]
pub struct PatternQuery {
    plan: Arc<QueryPlan>,
    nodes: Arc<Nodes>,
    frames: Arena<Frame>,
    leaves: Arena<Leaf>,
    /// The creation number of the last node made.
    next_id: u64,
    started: bool,
    matches: Vec<Bindings>,
    /// An aggregating pattern's matches that passed `WHERE`, with their groups: its aggregates are over every one of
    /// them (a pattern has no window, so nothing leaves).
    tallied: Vec<(String, Bindings)>,
    /// The statement's output policy, if it has one: of its rows (`rate`), or when it aggregates of its groups'
    /// (`paced`).
    rate: Option<Rate>,
    /// Boxed: the dataflow keeps a `PatternQuery` per live key, where it is always `None`.
    paced: Option<Box<Paced>>,
}

impl PatternQuery {
    /// The pattern statement `number`, created at `created_ms`.
    pub fn new(number: usize, q: &QueryPlan, created_ms: i64) -> Result<Self, EngineError> {
        super::query::check_query(number, q)?;
        let Input::Pattern(pattern) = &q.input else {
            return Err(EngineError::Unsupported { statement: number, construct: "this input".into() });
        };
        let paced = Paced::of(q, created_ms).map(Box::new);
        let rate = if paced.is_some() { None } else { Rate::of(number, q, created_ms)? };
        Ok(PatternQuery { rate, paced, ..Self::shared(Arc::new(q.clone()), Nodes::new(&pattern.root, &q.projection)) })
    }

    /// The automaton of a join's driving pattern: the statement's WHERE and select list apply to the joined rows,
    /// so only the matches of this automaton are used.
    pub fn driver(q: &QueryPlan, pattern: &PatternPlan) -> Self {
        Self::shared(Arc::new(q.clone()), Nodes::new(&pattern.root, &q.projection))
    }

    /// A fresh automaton over an already checked plan, sharing it with other automata (one per partition key in
    /// the dataflow runtime).
    pub fn shared(plan: Arc<QueryPlan>, nodes: Arc<Nodes>) -> Self {
        PatternQuery {
            plan,
            nodes,
            frames: Arena::default(),
            leaves: Arena::default(),
            next_id: 0,
            started: false,
            matches: Vec::new(),
            tallied: Vec::new(),
            rate: None,
            paced: None,
        }
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn frame(&mut self, parent: u64, node: usize, kind: FrameKind) -> u64 {
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

    fn leaf(&mut self, ctx: &Ctx<'_>, frame: u64, kind: LeafKind, bindings: Bindings) -> u64 {
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
    fn pin(&self, node: usize, bindings: &Bindings) -> Pinned {
        self.nodes.pin(node, bindings.iter())
    }

    /// Starts the pattern when its statement is created (at `ctx.now`), as Esper starts a pattern statement: its
    /// timers run from then, so a pattern of timers alone (`every timer:interval(1 min)`) fires with no event. A
    /// pattern true from its start (`not S`, `S or not T`) matches then: the match waits for a timer due at once.
    pub fn create(&mut self, ctx: &mut Ctx<'_>) {
        self.ensure_started(ctx);
        if !self.matches.is_empty() {
            ctx.schedule(ctx.now, TimerOrder::Pattern, TimerKind::Pattern(AT_START));
        }
    }

    /// Starts the pattern at its first event, if it has not started, as if it had been waiting since the
    /// configuration was applied: the leaves it creates count as older than that event, so the event itself can match
    /// them. (The dataflow's automaton of a key starts so; a pattern started by an `every` over events times nothing
    /// from its start, so starting it then is starting it at its creation.)
    fn ensure_started(&mut self, ctx: &mut Ctx<'_>) {
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
        }
    }

    /// Starts node `id` under `parent` from `bindings` (Esper's `start` of a new state node); answers the id of the
    /// frame or leaf made.
    fn start(&mut self, ctx: &mut Ctx<'_>, id: usize, bindings: Bindings, parent: u64) -> u64 {
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
    fn step(&mut self, ctx: &mut Ctx<'_>, instance: u64, (steps, index): (usize, usize), bindings: Bindings) {
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

    fn fire_leaf(&mut self, ctx: &mut Ctx<'_>, id: u64, event: Option<Row>) {
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

    fn accepts(&self, leaf: &Leaf, ctx: &Ctx<'_>, stream: &str, event: &Row) -> bool {
        let LeafKind::Match { node } = leaf.kind else {
            return false;
        };
        let PatternNodeKind::Match { stream: wanted, .. } = &self.nodes.get(node).kind else {
            return false;
        };
        if wanted != stream || leaf.created >= ctx.seq {
            return false;
        }
        self.nodes.passes(node, (leaf.bindings.iter(), &leaf.pinned), (stream, event), ctx.vars)
    }

    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, stream: &str, event: &Row) -> Vec<Row> {
        let matches = self.matches_on_event(ctx, stream, event);
        self.results(ctx, matches)
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx<'_>, kind: TimerKind) -> Vec<Row> {
        if let (TimerKind::Tick, Some(rate)) = (kind, &mut self.rate) {
            return rate.tick(ctx);
        }
        if let (TimerKind::Tick, Some(paced)) = (kind, &mut self.paced) {
            let release = paced.tick(ctx);
            let mut rows = release.rows;
            rows.extend(release.groups.iter().filter_map(|g| self.group_row(g, ctx.vars)));
            rows.extend(release.current.then(|| self.current_row(ctx.vars)).flatten());
            return order::ordered(rows, &self.plan.order_by);
        }
        let matches = self.matches_on_timer(ctx, kind);
        self.results(ctx, matches)
    }

    /// The matches an event completes, unfiltered and unprojected (a join's driving side).
    pub fn matches_on_event(&mut self, ctx: &mut Ctx<'_>, stream: &str, event: &Row) -> Vec<Bindings> {
        self.ensure_started(ctx);
        let mut ids: SmallVec<[(u64, u64); 4]> = (self.leaves.iter())
            .filter(|(_, _, l)| self.accepts(l, ctx, stream, event))
            .map(|(seq, id, _)| (seq, id))
            .collect();
        // Leaves are tried in the order they were made.
        ids.sort_unstable();
        for (_, id) in ids {
            self.fire_leaf(ctx, id, Some(event.clone()));
        }
        std::mem::take(&mut self.matches)
    }

    /// The matches a timer completes, unfiltered and unprojected.
    pub fn matches_on_timer(&mut self, ctx: &mut Ctx<'_>, kind: TimerKind) -> Vec<Bindings> {
        if let TimerKind::Pattern(id) = kind {
            self.fire_leaf(ctx, id, None);
        }
        std::mem::take(&mut self.matches)
    }

    fn results(&mut self, ctx: &mut Ctx<'_>, matches: Vec<Bindings>) -> Vec<Row> {
        if self.plan.aggregation.is_some() {
            let mut rows = Vec::new();
            for bindings in matches {
                let Some((group, row)) = self.tally(ctx, bindings) else {
                    continue;
                };
                match &mut self.paced {
                    Some(paced) => rows.extend(paced.offer(ctx, group, row)),
                    None => rows.extend(row.map(|(_, row)| row)),
                }
            }
            return rows;
        }
        let rows: Vec<Row> = matches.into_iter().filter_map(|b| self.project(ctx, &b)).collect();
        match &mut self.rate {
            // Each match is a batch of its own.
            Some(rate) => rate.offer(ctx, rows.into_iter().map(|row| vec![row])),
            None => rows,
        }
    }

    /// The group of an aggregating pattern's match and the row it makes, if it passes `WHERE` (the row if it passes
    /// `HAVING`, with its `ORDER BY` keys): Esper hands each match to the statement alone, so it is the one new row,
    /// and makes the row of its group (fully aggregated) or of itself (with ungrouped columns), both projected from
    /// the match, with its group's aggregates over every match so far.
    fn tally(&mut self, ctx: &Ctx<'_>, bindings: Bindings) -> Option<(String, Option<Keyed>)> {
        let bound: Vec<(&str, &Row)> = bindings.iter().map(|(t, r)| (&**t, r)).collect();
        if !holds(self.plan.filter.as_ref(), &Scope::new(&bound, ctx.vars)) {
            return None;
        }
        let group = aggregate::group_of(&self.plan, &bound, ctx.vars);
        drop(bound);
        self.tallied.push((group.clone(), bindings));
        let row = self.group_row(&group, ctx.vars);
        Some((group, row))
    }

    /// The row of `group` as it stands: projected from its last match, with its aggregates over all of them, if it
    /// passes `HAVING`.
    fn group_row(&self, group: &str, vars: &Row) -> Option<Keyed> {
        let aggregation = self.plan.aggregation.as_ref()?;
        let members: Vec<Vec<(&str, &Row)>> = (self.tallied.iter().filter(|(g, _)| *g == group))
            .map(|(_, b)| b.iter().map(|(t, r)| (&**t, r)).collect())
            .collect();
        let sets: Vec<&[(&str, &Row)]> = members.iter().map(Vec::as_slice).collect();
        let aggregates = aggregate::over(&aggregation.aggregates, &sets, vars);
        aggregate::having_row(&self.plan, sets.last()?, &aggregates, vars)
    }

    /// The row of a fully aggregated pattern without groups as it stands, read with no match (as a query over a
    /// stream reads it after an interval with no change).
    fn current_row(&self, vars: &Row) -> Option<Keyed> {
        let aggregation = self.plan.aggregation.as_ref()?;
        let members: Vec<Vec<(&str, &Row)>> =
            self.tallied.iter().map(|(_, b)| b.iter().map(|(t, r)| (&**t, r)).collect()).collect();
        let sets: Vec<&[(&str, &Row)]> = members.iter().map(Vec::as_slice).collect();
        let aggregates = aggregate::over(&aggregation.aggregates, &sets, vars);
        aggregate::having_row(&self.plan, &[], &aggregates, vars)
    }

    fn project(&self, ctx: &Ctx<'_>, bindings: &Bindings) -> Option<Row> {
        self.nodes.project(&self.plan, ctx.vars, bindings)
    }

    /// Whether nothing has progressed since the pattern started: only unbound event leaves, under frames that have
    /// not moved. Such an automaton behaves exactly as a new one would, so the dataflow runtime drops it.
    pub fn is_idle(&self) -> bool {
        let unmoved = |f: &Frame| match &f.kind {
            FrameKind::Root | FrameKind::FollowedBy | FrameKind::Every { .. } | FrameKind::Step { index: 0, .. } => {
                true
            }
            FrameKind::Or { left } => {
                matches!(&self.nodes.get(f.node).kind, PatternNodeKind::Or(c) if c.len() == *left)
            }
            _ => false,
        };
        self.started
            && !self.leaves.is_empty()
            && self.leaves.values().all(|l| l.bindings.is_empty() && matches!(l.kind, LeafKind::Match { .. }))
            && self.frames.values().all(unmoved)
    }

    /// Live leaves, for tests of boundedness.
    #[cfg(test)]
    pub fn live(&self) -> usize {
        self.leaves.values().count()
    }
}

/// The columns `e` reads, each once.
fn columns_read(e: &PlanExpr) -> Vec<(Name, Name)> {
    let mut out = Vec::new();
    e.visit(&mut |e| {
        if let PlanExpr::Column { source, name, .. } = e
            && !out.iter().any(|(s, n)| s == source && n == name)
        {
            out.push((source.clone(), name.clone()));
        }
    });
    out
}

/// `acc` with the tags of `more` it does not bind.
fn merged(acc: &Bindings, more: &Bindings) -> Bindings {
    let mut out = acc.clone();
    for (tag, row) in more {
        if !out.iter().any(|(t, _)| t == tag) {
            out.push((tag.clone(), row.clone()));
        }
    }
    out
}

/// The streams a pattern's event matches read, each once, in order of appearance.
pub fn streams_of(node: &PatternNode) -> Vec<String> {
    let mut out = Vec::new();
    collect(node, &mut out);
    out
}

fn collect(node: &PatternNode, out: &mut Vec<String>) {
    if let PatternNodeKind::Match { stream, .. } = &node.kind
        && !out.contains(stream)
    {
        out.push(stream.clone());
    }
    node.children().iter().for_each(|c| collect(c, out));
}

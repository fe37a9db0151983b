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
//! The matches one event completes reach the statement together, and its `ORDER BY` sorts their rows
//! (`Nodes::project_all`; Esper's `ResultSetOrderByMultiDelivery`, ESPER-409); under an output policy, which sorts
//! what it releases together (`rate`), a row carries its keys instead (`Nodes::project`). An aggregating pattern makes
//! one row per match, with its group's aggregates over every match so far
//! (a pattern has no window, so none leaves): `PatternQuery::tally`.
//!
//! The tree's life (frames and leaves started, reports, parts turning false, subtrees dropped) is in `frames`; here are
//! the pattern's nodes, its statement's events, timers and matches.

mod frames;

use std::cmp::Reverse;
use std::sync::Arc;

use smallvec::SmallVec;

use super::aggregate;
use super::arena::Arena;
use super::paced::Paced;
use super::rate::Rate;
use super::{Ctx, TimerKind, TimerOrder};
use crate::cep::plan::{Input, PatternNode, PatternNodeKind, PatternPlan, PlanExpr, Projection, QueryPlan};
use crate::cep::runtime::eval::{CopyOf, Scope, holds};
use crate::cep::runtime::order::{self, Keyed};
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{EngineError, Row, Val};

/// The tags a match bound, with their events; a tag's name is shared. One is kept inline: every frame and leaf holds
/// bindings, so their inline room sets the size of all live state, and a waiting instance of the common two-step
/// pattern (`every a -> b`) holds just `a`. A second tag moves them to the heap once, when it binds. (Two inline made
/// frames 112 bytes and leaves 128 instead of 88 and 104, and `bench geofence` 9 % slower on 1 worker and 13 % on 2,
/// `benches/results/cep.md`, fourteenth session.)
pub type Bindings = SmallVec<[(Name, Row); 1]>;

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
    /// How many conditions each match node's filter has ([`Nodes::rank`]).
    ranks: Vec<usize>,
}

impl Nodes {
    /// The nodes under `root`, for a statement selecting `projection`.
    pub fn new(root: &PatternNode, projection: &[Projection]) -> Arc<Self> {
        Arc::new(Self::build(root, projection))
    }

    fn build(root: &PatternNode, projection: &[Projection]) -> Self {
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
        let rank = |node: &Option<PatternNode>| match node.as_ref().map(|n| &n.kind) {
            Some(PatternNodeKind::Match { filter: Some(filter), .. }) => filter.conjuncts().len(),
            _ => 0,
        };
        let ranks = by_id.iter().map(rank).collect();
        Nodes { by_id, tags, reads, copy: CopyOf::new(projection), root: root.id, ranks }
    }

    pub fn get(&self, id: usize) -> &PatternNode {
        self.find(id).expect("a pattern's nodes name only its own nodes")
    }

    /// How many conditions the filter of match node `id` has (0 for another node): an event several matches accept
    /// goes first to those with more, then in the order their leaves were made. Esper's filter service files a
    /// filter deeper in its index tree the more conditions it has, and lists the filters an event passes node by
    /// node, a node's deeper ones before its own (`FilterHandleSetNode.matchEvent`); so in `b=B and not B(id='B2')`
    /// the `not` ends the `and` before `b` can take B2 (`TestNotOperator`). Counting conditions follows that tree
    /// where filters share their first conditions, as a keyed pattern's do (`id = a.id`).
    pub fn rank(&self, id: usize) -> usize {
        self.ranks.get(id).copied().unwrap_or(0)
    }

    /// The nodes of `root`, the pattern these nodes are with some conditions left out (a keyed automaton's, which
    /// holds them by construction): each match keeps the rank it has here.
    pub fn restated(&self, root: &PatternNode, projection: &[Projection]) -> Arc<Self> {
        let mut nodes = Self::build(root, projection);
        nodes.ranks.clone_from(&self.ranks);
        Arc::new(nodes)
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
        (vars, now): (&Row, i64),
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
        holds(Some(filter), &Scope::new(&rows, vars, Some(now)).with_pinned(&pinned))
    }

    /// The row a match makes: the statement's WHERE, then its select list; `None` when the WHERE fails. Under an
    /// output policy that sorts, the row carries its `ORDER BY` keys until the policy releases it.
    pub fn project(&self, plan: &QueryPlan, at: (&Row, i64), bindings: &Bindings) -> Option<Row> {
        let (keys, row) = self.project_keyed(plan, at, bindings)?;
        match plan.output.is_some() && !plan.order_by.is_empty() {
            true => Some(order::with_keys(row, keys)),
            false => Some(row),
        }
    }

    /// The rows of the matches one event completes, which go to the statement together: without an output policy
    /// (which sorts what it releases), `ORDER BY` sorts them, as Esper's `ResultSetOrderByMultiDelivery` (ESPER-409)
    /// expects of `every a=A -> b=B` when one `B` completes two matches.
    pub fn project_all<'b, C: FromIterator<Row>>(
        &self,
        plan: &QueryPlan,
        at: (&Row, i64),
        matches: impl IntoIterator<Item = &'b Bindings>,
    ) -> C {
        let matches = matches.into_iter();
        if plan.output.is_some() || plan.order_by.is_empty() {
            return matches.filter_map(|b| self.project(plan, at, b)).collect();
        }
        let keyed = matches.filter_map(|b| self.project_keyed(plan, at, b)).collect();
        order::ordered(keyed, &plan.order_by).into_iter().collect()
    }

    /// [`Nodes::project`]'s row with its `ORDER BY` keys (none when it has no `ORDER BY`).
    fn project_keyed(&self, plan: &QueryPlan, (vars, now): (&Row, i64), bindings: &Bindings) -> Option<Keyed> {
        let rows: SmallVec<[(&str, &Row); 2]> = bindings.iter().map(|(t, r)| (&**t, r)).collect();
        let scope = Scope::new(&rows, vars, Some(now));
        let row = holds(plan.filter.as_ref(), &scope).then(|| self.copy.project(&plan.projection, &scope))?;
        Some((order::keys(&plan.order_by, &scope), row))
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
    /// The nodes of its frames and leaves as the pattern started ([`PatternQuery::outline`]).
    fresh: Outline,
}

/// The plan nodes of a pattern's live frames and leaves, sorted, a frame's node `n` as `2n` and a leaf's as `2n + 1`.
type Outline = SmallVec<[usize; 8]>;

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
            fresh: Outline::new(),
        }
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
            rows.extend(release.groups.iter().filter_map(|g| self.group_row(g, (ctx.vars, ctx.now))));
            rows.extend(release.current.then(|| self.current_row((ctx.vars, ctx.now))).flatten());
            return order::ordered(rows, &self.plan.order_by);
        }
        let matches = self.matches_on_timer(ctx, kind);
        self.results(ctx, matches)
    }

    /// The matches an event completes, unfiltered and unprojected (a join's driving side).
    pub fn matches_on_event(&mut self, ctx: &mut Ctx<'_>, stream: &str, event: &Row) -> Vec<Bindings> {
        self.ensure_started(ctx);
        let mut ids: SmallVec<[(Reverse<usize>, u64, u64); 4]> = (self.leaves.iter())
            .filter(|(_, _, l)| self.accepts(l, ctx, stream, event))
            .map(|(seq, id, l)| (Reverse(self.rank(l)), seq, id))
            .collect();
        // Leaves whose filter has more conditions take the event first ([`Nodes::rank`]), then in the order they
        // were made.
        ids.sort_unstable();
        for (_, _, id) in ids {
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
        let rows: Vec<Row> = self.nodes.project_all(&self.plan, (ctx.vars, ctx.now), &matches);
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
        if !holds(self.plan.filter.as_ref(), &Scope::new(&bound, ctx.vars, Some(ctx.now))) {
            return None;
        }
        let group = aggregate::group_of(&self.plan, &bound, ctx.vars);
        drop(bound);
        self.tallied.push((group.clone(), bindings));
        let row = self.group_row(&group, (ctx.vars, ctx.now));
        Some((group, row))
    }

    /// The row of `group` as it stands: projected from its last match, with its aggregates over all of them, if it
    /// passes `HAVING`.
    fn group_row(&self, group: &str, (vars, now): (&Row, i64)) -> Option<Keyed> {
        let aggregation = self.plan.aggregation.as_ref()?;
        let members: Vec<Vec<(&str, &Row)>> = (self.tallied.iter().filter(|(g, _)| *g == group))
            .map(|(_, b)| b.iter().map(|(t, r)| (&**t, r)).collect())
            .collect();
        let sets: Vec<&[(&str, &Row)]> = members.iter().map(Vec::as_slice).collect();
        let aggregates = aggregate::over(&aggregation.aggregates, &sets, vars);
        aggregate::having_row(&self.plan, sets.last()?, &aggregates, (vars, now))
    }

    /// The row of a fully aggregated pattern without groups as it stands, read with no match (as a query over a
    /// stream reads it after an interval with no change).
    fn current_row(&self, (vars, now): (&Row, i64)) -> Option<Keyed> {
        let aggregation = self.plan.aggregation.as_ref()?;
        let members: Vec<Vec<(&str, &Row)>> =
            self.tallied.iter().map(|(_, b)| b.iter().map(|(t, r)| (&**t, r)).collect()).collect();
        let sets: Vec<&[(&str, &Row)]> = members.iter().map(Vec::as_slice).collect();
        let aggregates = aggregate::over(&aggregation.aggregates, &sets, vars);
        aggregate::having_row(&self.plan, &[], &aggregates, (vars, now))
    }

    /// Whether nothing has progressed since the pattern started: only unbound event leaves, under frames that have
    /// not moved, as many of each as it started with. Such an automaton behaves exactly as a new one would, so the
    /// dataflow runtime drops it. An `every` whose child turned true without quitting keeps that child and starts
    /// another (`every (every b=B)` has two leaves for `B` after the first `B`, and matches the next one twice), so the
    /// frames and leaves are counted too, not only looked at.
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
            && self.outline() == self.fresh
    }

    /// The plan nodes of its live frames and leaves ([`Outline`]).
    pub(super) fn outline(&self) -> Outline {
        let leaf_node = |l: &Leaf| match l.kind {
            LeafKind::Match { node } | LeafKind::Timer { node } => 2 * node + 1,
            LeafKind::Deadline => usize::MAX,
        };
        let mut outline: Outline =
            self.frames.values().map(|f| 2 * f.node).chain(self.leaves.values().map(leaf_node)).collect();
        outline.sort_unstable();
        outline
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

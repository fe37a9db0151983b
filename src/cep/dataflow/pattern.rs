//! A pattern statement partitioned by its correlation key (`id = a.id`): one automaton per key value, so an event only
//! visits the live instances of its own key, and each key lives on one worker. A pattern of the common form
//! `every a=S -> …` runs on the compact automaton of `automaton`, or on its queue when any leaf that fires ends the
//! instance (the geofence's confirmation), both checked against the tree interpreter by a property test; any other runs
//! on the tree of frames and leaves of `cep::reference::pattern` itself. This module adds the partitioning, the per-key
//! index and the timers as epochs. Automata live in a slab, found by key at an event and by slot at a timer, so a timer
//! reaches its automaton without reading or hashing the key. An automaton with nothing live is dropped, so no key
//! outlives its last instance (its leftover timers are ignored by generation). A pattern without a correlation key runs
//! as one automaton on one worker. A pattern that drives a join emits its matches, unprojected and stamped with the
//! trigger's stamp, to the join's operator (`join`), which does the lookup, `WHERE` and the select list. A statement
//! that aggregates its matches runs on one worker and emits them likewise to its tally, a gate behind it (`tally`).
//! Memory is asked for ahead: the automata of the events a group or two ahead and of the timers about to fire are
//! loaded while the ones before them are handled ([`Logic::find`], [`Logic::load`]).
//! The automaton of a text key leaves out the filters' tests that restate the key (`id = a.id`, see [`keyed`]): they
//! hold by construction there, and reading the start tag's event for them touched memory cold since it arrived.
//! The automaton of one key in its three forms is `machine`'s; the pattern without those tests, `restated`'s.

mod machine;
mod restated;

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use foldhash::fast::RandomState;
use slab::Slab;
use smallvec::SmallVec;

use super::automaton::{Compact, Matches, Out, Queue, Set, Shape};
use super::operator::{Emit, Hint, Logic, State};
use super::record::{Record, Stamp, due_epoch, millis, timer_epoch};
use super::slots::Slots;
use crate::cep::plan::{PatternNode, PlanExpr, QueryPlan};
use crate::cep::reference::pattern::{Nodes, PatternQuery};
use crate::cep::reference::{Ctx, TimerOrder};
use crate::cep::runtime::eval::{Scope, eval};
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{Row, Val, prefetch};

use self::machine::{Alarm, Machine};
use self::restated::keyed;

/// How to find the key of an event of one stream: the label its key expression reads it by (interned, so that the
/// usual key, a column of that label, is recognised by address), and the expression. Looked up at every event, so
/// hashed with foldhash rather than SipHash.
pub type KeyOf = HashMap<u32, (Name, PlanExpr), RandomState>;

#[derive(Debug)]
struct Timer {
    /// The slot of the automaton that set it.
    slot: usize,
    /// Which automaton set it: the slot of one dropped as idle may hold a new one (of any key) whose leaf ids
    /// restart, so a timer left over from the old one must not fire a leaf of the new one.
    generation: u64,
    alarm: Alarm,
    set: (u64, u64),
}

/// What an automaton produced for one event or timer.
enum Found {
    /// Inline, as the matches are: one event or timer mostly makes one row or none.
    Rows(SmallVec<[Row; 1]>),
    Matches(Matches),
}

#[derive(Debug)]
pub struct PatternLogic {
    statement: usize,
    plan: Arc<QueryPlan>,
    nodes: Arc<Nodes>,
    /// What the automaton of a text key runs ([`keyed`]), when it differs from `nodes`.
    keyed_nodes: Option<Arc<Nodes>>,
    /// The compact forms of `nodes` and `keyed_nodes`, when the pattern has that form.
    shape: Option<Arc<Shape>>,
    keyed_shape: Option<Arc<Shape>>,
    keys: KeyOf,
    /// By stream id, the column of the event that is its key, for the streams whose key is one: read at every event
    /// (twice), so found by index rather than hashed (reading the key through `keys` took about 110 instructions, and
    /// 64 through this, in `bench geofence`'s profile, thirty-sixth session).
    key_columns: Vec<Option<Name>>,
    names: Arc<Vec<Name>>,
    sink: u32,
    /// Set when the pattern drives a join or a tally: its matches go, unprojected, to the join's private stream, or
    /// to the tally behind it.
    drives: Option<u32>,
    vars: Arc<Row>,
    state: PatternState,
}

/// The live instances of a pattern, per key, and their timers; carried into the dataflow replacing its own.
#[derive(Debug, Default)]
struct PatternState {
    automata: Slab<Automaton>,
    /// The slot of each key's automaton.
    index: Slots,
    generations: u64,
    timers: Timers,
    seq: u64,
    timer_seq: u64,
    /// What the event or timer at work did, for whichever automaton it reached.
    out: Out,
}

impl PatternState {
    /// Schedules what the automaton in `slot` (of `generation`, now `idle` or not) asked for while handling what
    /// happened at `now`, and drops the automaton if nothing in it is live. A timer set earlier (by a queue, for its
    /// oldest instance) is due when it would have been had it been set then: after that epoch, so possibly in the
    /// epoch at work when a timer of it fires.
    fn settle(&mut self, ctx: &mut Ctx<'_>, slot: usize, (generation, idle): (u64, bool), now: Set) {
        // The usual case since a queue sets only its oldest instance's timer: nothing to do.
        if !idle && !ctx.has_timers() && !self.out.has_wakes() {
            return;
        }
        let PatternState { automata, index, timers, timer_seq, out, .. } = self;
        automata[slot].machine.alarms(ctx, out, |at, order, alarm, from| {
            *timer_seq += 1;
            let set = from.unwrap_or(now);
            let timer = Timer { slot, generation, alarm, set };
            timers.push(due_epoch(at, set.0), (order, *timer_seq, timer));
        });
        if idle {
            let dropped = automata.remove(slot);
            index.remove(&dropped.key, slot);
        }
    }

    /// Loads the automaton of the timer [`TIMERS_AHEAD`] after the one firing, and the buffers of the one half as
    /// far, which it loaded then: a timer's automaton is as cold as an event's, and found without a lookup.
    fn load_ahead(&self, upcoming: &[Pending]) {
        let automaton = |at: usize| upcoming.get(at).and_then(|(_, _, timer)| self.automata.get(timer.slot));
        automaton(TIMERS_AHEAD - 1).into_iter().for_each(Automaton::load);
        automaton(TIMERS_AHEAD / 2 - 1).into_iter().for_each(|a| a.machine.load_state());
    }
}

/// How many timers ahead of the one firing a pattern loads the automaton of.
const TIMERS_AHEAD: usize = 8;

/// A timer waiting: its order among timers due together, when it was set (a sequence number), and what it fires.
type Pending = (TimerOrder, u64, Timer);

/// A pattern's timers by due epoch, each epoch's in the order they were set; they fire in (due, order, set) order.
/// Buckets keep the tree small: it has a node per due millisecond, not per timer. The events of one epoch mostly set
/// timers due at one same later epoch, so the bucket added to last is kept open, out of the tree: adding to it is a
/// comparison and a push, not two descents of the tree. Consecutive epochs' events set about as many timers, so a new
/// bucket starts with the room the last one needed, rather than growing (and copying) its way there.
#[derive(Debug, Default)]
struct Timers {
    tree: BTreeMap<u64, Vec<Pending>>,
    open: Option<(u64, Vec<Pending>)>,
    /// How many timers the bucket closed last held.
    last_len: usize,
}

impl Timers {
    fn push(&mut self, due: u64, timer: Pending) {
        match &mut self.open {
            Some((at, bucket)) if *at == due => bucket.push(timer),
            _ => {
                self.close();
                let mut bucket = Vec::with_capacity(self.last_len.max(1));
                bucket.push(timer);
                self.open = Some((due, bucket));
            }
        }
    }

    /// Puts the open bucket in the tree, after the timers already there for its epoch.
    fn close(&mut self) {
        if let Some((due, mut bucket)) = self.open.take() {
            self.last_len = bucket.len();
            match self.tree.entry(due) {
                Entry::Vacant(slot) => {
                    slot.insert(bucket);
                }
                Entry::Occupied(mut slot) => slot.get_mut().append(&mut bucket),
            }
        }
    }

    /// The earliest epoch a timer is due at.
    fn next(&self) -> Option<u64> {
        let open = self.open.as_ref().map(|(due, _)| *due);
        match (self.tree.keys().next().copied(), open) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The timers of the earliest epoch, if it is due by `epoch`, in the order they were added.
    fn take_due(&mut self, epoch: u64) -> Option<Vec<Pending>> {
        if self.open.as_ref().is_some_and(|(due, _)| *due <= epoch) {
            self.close();
        }
        self.tree.first_entry().filter(|e| *e.key() <= epoch).map(|e| e.remove())
    }
}

/// By stream id, the key column of each stream whose key is a column of its own events.
fn key_columns(keys: &KeyOf) -> Vec<Option<Name>> {
    let mut columns = vec![None; keys.keys().max().map_or(0, |last| *last as usize + 1)];
    for (stream, (label, expr)) in keys {
        if let PlanExpr::Column { source, name, .. } = expr
            && source == label
        {
            columns[*stream as usize] = Some(name.clone());
        }
    }
    columns
}

/// The automaton of one key.
#[derive(Debug)]
struct Automaton {
    key: Key,
    generation: u64,
    machine: Machine,
}

impl Automaton {
    /// Starts loading the automaton's own fields, which span cache lines.
    fn load(&self) {
        prefetch::load(&self.key);
        prefetch::load(&self.generation);
        self.machine.load();
    }
}

impl PatternLogic {
    /// The pattern `root` of statement `statement`, over the configuration's streams `names` and variables `vars`.
    pub fn new(
        statement: usize,
        plan: Arc<QueryPlan>,
        root: PatternNode,
        keys: KeyOf,
        (names, vars): (Arc<Vec<Name>>, Arc<Row>),
    ) -> Self {
        let nodes = Nodes::new(&root, &plan.projection);
        let keyed_nodes = keyed(&root, &keys, &names).map(|root| nodes.restated(&root, &plan.projection));
        PatternLogic {
            statement,
            shape: Shape::new(&nodes, &names, &vars),
            keyed_shape: keyed_nodes.as_ref().and_then(|nodes| Shape::new(nodes, &names, &vars)),
            nodes,
            keyed_nodes,
            plan,
            key_columns: key_columns(&keys),
            keys,
            names,
            sink: 0,
            drives: None,
            vars,
            state: PatternState { out: Out::for_this_thread(), ..PatternState::default() },
        }
    }

    /// Where its rows go.
    pub fn with(mut self, sink: u32) -> Self {
        self.sink = sink;
        self
    }

    /// Sends the matches, unprojected, to the join reading private stream `stream`, or to the statement's tally.
    pub fn driving(mut self, stream: u32) -> Self {
        self.drives = Some(stream);
        self
    }

    /// Starts its automaton as the statement is created, at `created_ms`, as the reference does, if the pattern is
    /// one whose start counts: one run by the tree interpreter as a single automaton (no key), whose timers may run
    /// from its start (`every timer:interval(1 min)`, `timer:interval(5 sec) -> a=S`). A keyed or compact pattern
    /// starts with an `every` over its events, which times nothing from its start: its automata start at their keys'
    /// events. For the one worker such a pattern's events go to. A statement kept from the dataflow this one replaces
    /// adopts its state instead, started then.
    pub fn created_at(mut self, created_ms: i64) -> Self {
        if !(self.keys.is_empty() && self.shape.is_none()) {
            return self;
        }
        let slot = self.automaton(key::of(Val::Null));
        let mut ctx = Ctx::new(created_ms, self.state.seq, &self.vars);
        let automaton = &mut self.state.automata[slot];
        if let Machine::Tree(pattern) = &mut automaton.machine {
            pattern.create(&mut ctx);
        }
        let after = (automaton.generation, automaton.machine.is_idle());
        self.state.settle(&mut ctx, slot, after, (timer_epoch(created_ms), 0));
        self
    }

    fn key(&self, stream: u32, row: &Row) -> Key {
        match self.keys.get(&stream) {
            // The usual key, a column of the event itself, read without building a scope.
            Some((label, PlanExpr::Column { source, name, .. })) if source == label => {
                key::of(row.get(name).cloned().unwrap_or_default())
            }
            Some((label, expr)) => key::of(eval(expr, &Scope::new(&[(label.as_str(), row)], &self.vars, None))),
            None => key::of(Val::Null),
        }
    }

    /// The key of `row` read in place, when it is a text column of the event itself (a tracker's id): the usual
    /// case.
    fn text_key<'r>(&self, stream: u32, row: &'r Row) -> Option<&'r str> {
        let name = self.key_columns.get(stream as usize)?.as_ref()?;
        key::own_text(row.get(name)?)
    }

    /// The slot of the automaton of `row`'s key, found without making the key, when the key is a text column of
    /// the event itself and its automaton is live. This spared `bench geofence` about 110 instructions an event
    /// (`benches/results/cep.md`, twenty-ninth session).
    fn known_slot(&self, stream: u32, row: &Row) -> Option<usize> {
        self.slot(self.text_key(stream, row)?)
    }

    /// The slot of the automaton of `key`, if it is live.
    fn slot(&self, key: &str) -> Option<usize> {
        let automata = &self.state.automata;
        self.state.index.get(key, |slot| automata.get(slot).is_some_and(|a| a.key == key))
    }

    /// The slot `hint` when it holds the automaton of `row`'s key: found before the event's turn ([`Logic::find`]),
    /// and checked by comparing keys rather than looked up again (a lookup cost about 220 instructions an event in
    /// `bench geofence`, thirty-sixth session).
    fn hinted_slot(&self, hint: Hint, stream: u32, row: &Row) -> Option<usize> {
        let slot = hint?;
        let key = self.text_key(stream, row)?;
        (self.state.automata.get(slot)?.key == key).then_some(slot)
    }

    /// The slot of the automaton of `key`, made if it has none.
    fn automaton(&mut self, key: Key) -> usize {
        if let Some(slot) = self.slot(&key) {
            return slot;
        }
        let (nodes, shape) = match &self.keyed_nodes {
            Some(keyed) if key::is_text(&key) => (keyed, &self.keyed_shape),
            _ => (&self.nodes, &self.shape),
        };
        let machine = match shape {
            Some(shape) if shape.queues() => Machine::Queue(Queue::new(shape.clone())),
            Some(shape) => Machine::Compact(Compact::new(shape.clone())),
            None => Machine::Tree(Box::new(PatternQuery::shared(self.plan.clone(), nodes.clone()))),
        };
        let state = &mut self.state;
        state.generations += 1;
        let vacant = state.automata.vacant_entry();
        let slot = vacant.key();
        state.index.insert(&key, slot);
        vacant.insert(Automaton { key, generation: state.generations, machine });
        slot
    }

    /// Whether every key's automaton is a queue.
    fn queues(&self) -> bool {
        let queues = |shape: &Option<Arc<Shape>>| shape.as_ref().is_some_and(|shape| shape.queues());
        queues(&self.shape) && (self.keyed_nodes.is_none() || queues(&self.keyed_shape))
    }

    fn event(&mut self, emit: &mut Emit, epoch: u64, (stamp, stream, row): (Stamp, u32, Row), hint: Hint) {
        self.state.seq += 1;
        let slot = match self.hinted_slot(hint, stream, &row).or_else(|| self.known_slot(stream, &row)) {
            Some(slot) => slot,
            None => self.automaton(self.key(stream, &row)),
        };
        let mut ctx = Ctx::new(millis(epoch), self.state.seq, &self.vars);
        let automaton = &mut self.state.automata[slot];
        let label = &self.names[stream as usize];
        let now = (epoch, stamp.position());
        let matches = automaton.machine.on_event(&mut ctx, &mut self.state.out, (stream, label), row, now);
        let after = (automaton.generation, automaton.machine.is_idle());
        let found = self.found(&ctx, matches);
        self.state.settle(&mut ctx, slot, after, now);
        if let Some(found) = found {
            self.emit(emit, &stamp, found);
        }
    }

    /// What matches make: rows through the statement's WHERE and select list, or the matches themselves for a join
    /// or an aggregating statement's `tally`; nothing when there are none, as for most events, so nothing is
    /// projected or sent.
    fn found(&self, ctx: &Ctx<'_>, matches: Matches) -> Option<Found> {
        if matches.is_empty() {
            return None;
        }
        Some(match self.drives {
            Some(_) => Found::Matches(matches),
            None => Found::Rows(self.nodes.project_all(&self.plan, (ctx.vars, ctx.now), &matches)),
        })
    }

    /// Rows go to the sink as children of `stamp`; matches go at `stamp` itself, since their join or tally is the
    /// same statement.
    fn emit(&self, emit: &mut Emit, stamp: &Stamp, found: Found) {
        match (found, self.drives) {
            (Found::Matches(matches), Some(join)) => {
                for (n, bindings) in matches.into_iter().enumerate() {
                    emit.matched(stamp.clone(), join, n, bindings);
                }
            }
            (Found::Rows(rows), _) => {
                for (i, out) in rows.into_iter().enumerate() {
                    emit.event(stamp.child(self.statement, i), self.sink, out);
                }
            }
            (Found::Matches(_), None) => {}
        }
    }

    /// Fires one timer, unless its automaton has been dropped since it was set or its instance or leaf has ended:
    /// firing it would do nothing then, and the automaton was settled when that happened, so nothing more is read.
    /// Most of the geofence's timers are of instances a crossing ended; skipping them so ran one worker 7–10 % faster
    /// at the target's density (`benches/results/cep.md`, thirty-second session).
    fn fire_one(&mut self, emit: &mut Emit, epoch: u64, order: TimerOrder, n: u64, timer: Timer) {
        let current = |a: &&mut Automaton| a.generation == timer.generation && a.machine.waits(timer.alarm);
        let Some(automaton) = self.state.automata.get_mut(timer.slot).filter(current) else {
            return;
        };
        let mut ctx = Ctx::new(millis(epoch), self.state.seq, &self.vars);
        let matches = automaton.machine.on_timer(&mut ctx, &mut self.state.out, timer.alarm);
        let after = (timer.generation, automaton.machine.is_idle());
        let stamp = Stamp::timer(order, timer.set, self.statement, n);
        let found = self.found(&ctx, matches);
        self.state.settle(&mut ctx, timer.slot, after, (epoch, stamp.position()));
        if let Some(found) = found {
            self.emit(emit, &stamp, found);
        }
    }
}

impl Logic for PatternLogic {
    const AHEAD: bool = true;

    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        self.hinted(emit, epoch, record, None);
    }

    fn epoch_done(&mut self) {
        self.state.out.reap();
    }

    fn hinted(&mut self, emit: &mut Emit, epoch: u64, record: Record, hint: Hint) {
        if let Record::Event { stamp, stream, row } = record {
            self.event(emit, epoch, (stamp, stream, row), hint);
        }
    }

    /// The hash of the event's key, whose line of the index it starts loading.
    fn seek(&mut self, stream: u32, row: &Row) -> Hint {
        Some(self.state.index.seek(self.text_key(stream, row)?) as usize)
    }

    /// The slot of the key's automaton, guessed by the key's hash (`sought`), which it starts loading: cold since
    /// the key's last event, a hundred thousand keys ago in `bench geofence`.
    fn find(&mut self, _stream: u32, _row: &Row, sought: Hint) -> Hint {
        let slot = self.state.index.guess(u32::try_from(sought?).ok()?)?;
        self.state.automata.get(slot)?.load();
        Some(slot)
    }

    fn load(&self, _stream: u32, _row: &Row, hint: Hint) {
        if let Some(automaton) = hint.and_then(|slot| self.state.automata.get(slot)) {
            automaton.machine.load_state();
        }
    }

    fn next_timer(&self) -> Option<u64> {
        self.state.timers.next()
    }

    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        // What fires sets timers for later epochs, or (a queue's next oldest instance, `settle`) for this one: those
        // are in a bucket of their own, taken next.
        let queues = self.queues();
        while let Some(mut due) = self.state.timers.take_due(epoch) {
            // A queue sets its oldest instance's timer late, so the timers' numbers are not in the order they would
            // have been set in; their stamps' `set` is, where only events set timers (a queue's instances set none).
            // Firing in stamp order keeps the rows sent downstream in order: at 100 an epoch, the `MERGE` reading the
            // geofence's matches spent about 400 instructions an event more sorting them otherwise
            // (`benches/results/cep.md`, thirty-fifth session).
            match queues {
                true => due.sort_by_key(|(order, n, timer)| (*order, timer.set, *n)),
                false => due.sort_by_key(|(order, n, _)| (*order, *n)),
            }
            let mut due = due.into_iter();
            while let Some((order, n, timer)) = due.next() {
                self.state.load_ahead(due.as_slice());
                self.fire_one(emit, epoch, order, n, timer);
            }
        }
        // Every instance whose timer was due by now has ended.
        self.state.out.trim(epoch);
    }

    fn export(&mut self) -> Option<State> {
        Some(Box::new(std::mem::take(&mut self.state)))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(carried) = state.downcast::<PatternState>() {
            self.state = *carried;
            // The new program may number the streams differently: compact automata take its shapes.
            for (_, automaton) in &mut self.state.automata {
                let shape = match &self.keyed_shape {
                    Some(keyed) if key::is_text(&automaton.key) => Some(keyed),
                    _ => self.shape.as_ref(),
                };
                match (&mut automaton.machine, shape) {
                    (Machine::Compact(compact), Some(shape)) => compact.reshape(shape.clone()),
                    (Machine::Queue(queue), Some(shape)) => queue.reshape(shape.clone()),
                    _ => {}
                }
            }
        }
    }

    fn stop(&mut self) {
        self.state = PatternState::default();
    }
}

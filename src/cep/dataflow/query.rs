//! A query over one stream with state: its view (time, length, unique and last-event windows, grouped or not), grouped
//! running aggregates, HAVING, `ORDER BY` and the `OUTPUT LAST EVERY`, (fully aggregated, or over a data window)
//! `OUTPUT SNAPSHOT EVERY`, `OUTPUT [ALL] EVERY` and `OUTPUT FIRST EVERY` policies, each may wait with `AFTER`, with
//! cep-epl.md section 3's meaning (the reference evaluator's `query` module is the same semantics written as
//! recomputation over a list of rows). Under `OUTPUT ALL` a grouped query with ungrouped columns keeps each group's
//! last arrival, whose row stands for the group when rows of it leave and at ticks the interval left it untouched.
//! The output tick fires among the epoch's records in stamp order, after the rows that timers firing before it at its
//! millisecond (another query's expiry, a pattern's timer) sent.
//! A snapshot of a query not fully aggregated is the one policy that reads rows back from the view: its rows are kept
//! by arrival number and displaced and expired by the same view that moves the aggregating queries' entries, and its
//! groups' aggregates are summed from them at the tick. `SELECT RSTREAM` keeps its rows so too, to give them back as
//! they leave, with running aggregates of its own for the kept rows' groups when it has ungrouped columns; fully
//! aggregated, it keeps no rows, and reads an arrival's group's row before the arrival enters.
//!
//! Rows in the view are entries in a slab, named by their slot; each remembers its group, whether it counts (passed
//! WHERE) and its aggregate arguments, so leaving the view is one subtraction. (A slab in place of a hash map by id:
//! the floor bench ran at 467 k events/s against 384 k, benches/results/cep.md, ninth session.) Groups are a slab too,
//! found by key through one hash lookup per arrival; an entry names its group by slot, so an expiry finds its group
//! without hashing.
//! A time window's expiries are a queue in arrival order; the view's other displacements are maps from view key to
//! entry. In a time window the rows of one group that arrive in one epoch leave together, so they are one entry, a
//! pane holding their running aggregates, which leaves by one subtraction: the window's memory grows with the groups
//! and epochs it spans rather than with its rows. No row in a view is read again on its own, only subtracted, so
//! this changes nothing but the rounding of sums of doubles. A group's open pane joins the group's aggregates only
//! when its next pane opens or they are read, so a row is added once, not to both: on `bench floor --per-ms 5000` the
//! worker ran 7.5 % fewer instructions (twenty-eighth session).
//! Each worker holds the groups routed to it; output ticks are the same on every worker, started by the `Start`
//! record every worker gets at the stream's first event.

use std::borrow::{Borrow, Cow};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use foldhash::fast::RandomState;
use slab::Slab;
use smallvec::SmallVec;

use super::aggregate::Accumulators;
use super::operator::{Emit, Logic, State};
use super::reaper::Leftovers;
use super::record::{Record, Stamp, millis, timer_epoch};
use crate::cep::plan::{AggregateCall, AggregationKind, OutputKind, PlanExpr, QueryPlan, StreamInput, WindowSpec};
use crate::cep::planner::has_ungrouped_column;
use crate::cep::reference::TimerOrder;
use crate::cep::reference::query::{
    by_tick_rank, key_of, not_before, removes, represents_groups, rows_at_changes, snapshots_rows, view_state_key,
};
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::eval::{Scope, holds, project};
use crate::cep::runtime::first::First;
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::{Row, Val, order};

/// Rows in the view that leave together: one row, or in a time window a pane of rows of one group that arrived in
/// one epoch. Kept small: a ten-minute window holds millions. Its view key is not kept, since only a displacement
/// removes it from a keyed view, and the arrival that displaces it knows the key.
#[derive(Debug)]
struct Entry {
    /// The slot of its group, live while the entry is.
    group: usize,
    /// Whether its rows count (passed WHERE); a pane's rows all do or all do not.
    counts: bool,
    rows: u32,
    /// Whether its rows are in its group's aggregates. A time window's pane joins them only when the group's next
    /// pane opens or the aggregates are read, so a row is added once, to its pane, rather than to both.
    folded: bool,
    /// The epoch at which a time window's entry leaves (0 in other views).
    due: u64,
    args: Args,
}

/// The aggregate arguments of what an entry holds.
#[derive(Debug)]
enum Args {
    /// One row's, inline for one aggregate, on the heap for more.
    One(SmallVec<[Val; 1]>),
    /// The running aggregates of a pane's rows.
    Many(Box<Accumulators>),
}

impl Args {
    /// Adds a row's arguments, making a pane of a single row's.
    fn add<V: Borrow<Val>>(&mut self, calls: &[AggregateCall], args: impl IntoIterator<Item = V>) {
        match self {
            Args::One(first) => {
                let mut pane = Accumulators::new(calls);
                pane.add(calls, first.iter());
                pane.add(calls, args);
                *self = Args::Many(Box::new(pane));
            }
            Args::Many(pane) => pane.add(calls, args),
        }
    }

    /// Adds what it holds to a group's aggregates.
    fn join(&self, calls: &[AggregateCall], acc: &mut Accumulators) {
        match self {
            Args::One(args) => acc.add(calls, args.iter()),
            Args::Many(pane) => acc.merge(pane),
        }
    }

    /// Takes what it holds out of a group's aggregates.
    fn leave(&self, calls: &[AggregateCall], acc: &mut Accumulators) {
        match self {
            Args::One(args) => acc.remove(calls, args),
            Args::Many(pane) => acc.subtract(pane),
        }
    }
}

/// Which entries a new arrival displaces.
#[derive(Debug)]
enum View {
    /// No window: every row stays, so none is kept as an entry.
    All,
    /// Each row leaves `millis` after it arrived: entries by the epoch they leave at; and in step with them, for a
    /// statement whose expiries give rows, the epoch and position of the arrival that made each (what those rows are
    /// stamped with), kept apart so that the other statements' queue stays 16 bytes an entry.
    Time { millis: i64, queue: VecDeque<(u64, usize)>, sets: VecDeque<(u64, u64)> },
    /// The last `count` rows per view key (one key when not grouped).
    Length { count: usize, queues: HashMap<Key, VecDeque<usize>, RandomState> },
    /// The last row per view key.
    Last { current: HashMap<Key, usize, RandomState> },
}

impl View {
    fn new(window: Option<&WindowSpec>) -> Self {
        match window {
            None => View::All,
            Some(WindowSpec::Time { millis }) => {
                View::Time { millis: *millis as i64, queue: VecDeque::new(), sets: VecDeque::new() }
            }
            Some(WindowSpec::Length { count }) => View::Length { count: *count as usize, queues: HashMap::default() },
            Some(WindowSpec::Grouped { inner, .. }) => View::new(Some(inner)),
            Some(_) => View::Last { current: HashMap::default() },
        }
    }
}

#[derive(Debug)]
struct Group {
    /// Its key in the index.
    key: Key,
    entries: usize,
    /// Whether the group is listed in `changed` since the last output tick; for a query that [`represents_groups`],
    /// whether an arrival or a row leaving touched it since.
    changed: bool,
    acc: Option<Accumulators>,
    last_event: Option<Row>,
    /// In a time window, the entry its latest rows joined.
    pane: Option<usize>,
}

/// One partitioned stream query.
#[derive(Debug)]
pub struct QueryLogic {
    statement: usize,
    plan: Arc<QueryPlan>,
    input: StreamInput,
    stream: u32,
    sink: u32,
    vars: Arc<Row>,
    /// The key of the one group of an unkeyed query or view, shared by all its entries.
    empty: Key,
    per_event: PerEvent,
    /// What the output policy asks of every event, read from the plan once: whether the rows go by the groups'
    /// changes ([`rows_at_changes`]), whether the ticks release the view's rows ([`snapshots_rows`]), whether
    /// rows stand for the groups besides the arrivals' ([`represents_groups`]), and, under `SELECT RSTREAM`
    /// ([`removes`]), whether the rows are those the view lets go (kept as a snapshot keeps them) or, fully
    /// aggregated, each arrival's group's row before it (`before`).
    at_changes: bool,
    snapshots: bool,
    represents: bool,
    removes: bool,
    before: bool,
    state: QueryState,
    /// The events' rows, once handled: kept for the worker's reaper until the epoch ends.
    done: Leftovers,
}

/// What the query evaluates for every event, compiled for its input row (a batch window's query too, `batch`).
#[derive(Debug)]
pub(super) struct PerEvent {
    /// The input's filter: an event failing it is not seen at all.
    pub(super) filter: Option<RowExpr>,
    /// The statement's WHERE: an event failing it enters the view but does not count.
    pub(super) where_: Option<RowExpr>,
    pub(super) group_by: Vec<RowExpr>,
    /// Each aggregate's argument (none for `count(*)`).
    args: Vec<Option<RowExpr>>,
    /// Whether a fully aggregated query's group keeps its latest row rather than its first. Its projection reads of
    /// a row only the group keys, which every row of the group has alike (a key is equal exactly when the values'
    /// text forms are), so the first row serves unless HAVING or ORDER BY reads another column. Keeping the first
    /// spares each arrival a reference count taken and one dropped on the group's previous row, cold by then:
    /// `bench floor --per-ms 5000` on one worker ran 2–4 % faster (`benches/results/cep.md`, twenty-eighth session).
    latest_row: bool,
}

impl PerEvent {
    pub(super) fn new(plan: &QueryPlan, input: &StreamInput, vars: &Row) -> Self {
        let labels = [input.label.as_str()];
        let compile = |e: &PlanExpr| RowExpr::new(e, &labels, vars);
        let aggregation = plan.aggregation.as_ref();
        PerEvent {
            filter: input.filter.as_ref().map(compile),
            where_: plan.filter.as_ref().map(compile),
            group_by: aggregation.map(|a| a.group_by.iter().map(compile).collect()).unwrap_or_default(),
            args: aggregation
                .map(|a| a.aggregates.iter().map(|c| c.arg.as_ref().map(compile)).collect())
                .unwrap_or_default(),
            latest_row: aggregation.is_some_and(|a| {
                let ungrouped = |e: &PlanExpr| has_ungrouped_column(e, &a.group_by);
                a.having.as_ref().is_some_and(ungrouped) || plan.order_by.iter().any(|(e, _)| ungrouped(e))
            }),
        }
    }

    /// The aggregate arguments of `row` in order (`Null` for `count(*)`), each borrowed from the row when it is a
    /// column of it, the usual case, else evaluated. Adding them to a pane as they are read, rather than collecting
    /// owned copies and moving those, spares each event three copies of its value: in a profile of `bench floor`,
    /// the loads just after them held 41 % of `run_epoch`'s samples, by my reading each waiting on the stores it
    /// overlaps. One worker then ran the floor faster in 14 of 18 pairs, by 8 % in the median pair
    /// (`benches/results/cep.md`, forty-fifth session).
    pub(super) fn args<'r>(&'r self, row: &'r Row, vars: &'r Row) -> impl Iterator<Item = Cow<'r, Val>> {
        self.args.iter().map(move |arg| match arg {
            None => Cow::Owned(Val::Null),
            Some(e) => e.column_of(row).map_or_else(|| Cow::Owned(e.eval(&[row], &[], vars)), Cow::Borrowed),
        })
    }
}

/// What a query keeps between events (its view, groups and output clock), and carries into the dataflow replacing
/// its own.
#[derive(Debug)]
struct QueryState {
    view: View,
    /// The slot of each group by key. Hashed with foldhash (seeded per map), as are the view's maps: cheaper than
    /// SipHash on short keys.
    index: HashMap<Key, usize, RandomState>,
    /// The groups by slot: an entry names its own.
    groups: Slab<Group>,
    /// The view's entries, dense and indexed by their id (freed ids are reused), so a long window is one array.
    entries: Slab<Entry>,
    /// The slots of the groups of a fully aggregated query whose aggregates changed since the last output tick, each
    /// listed once while its group lives (a slot whose group ended and was reused may be listed twice): marking one
    /// is a flag test, not a search of a set.
    changed: Vec<usize>,
    /// The rows held for the next output tick (non-aggregated or with ungrouped columns), each with its `ORDER BY`
    /// keys.
    held: BTreeMap<Key, (Vec<Val>, Row)>,
    /// `OUTPUT ALL` without aggregates: every row of the interval, in arrival order, with its `ORDER BY` keys.
    interval: Vec<(Vec<Val>, Row)>,
    /// `OUTPUT FIRST`: which rows go out as they come.
    first: Option<First<Key>>,
    /// Whether a change (an arrival or a row leaving that counted) reached the groups since the last tick: without
    /// one, a fully aggregated query without groups releases its current row under `OUTPUT [ALL] EVERY`.
    updated: bool,
    /// Whether this worker had an event of the stream: the one worker such a query runs on, which alone releases
    /// that row (every worker ticks).
    hosts: bool,
    /// `OUTPUT SNAPSHOT` of a query not fully aggregated: the rows in the view by arrival number, each kept when it
    /// counts (passed WHERE), none when it only takes its place in the view; the view displaces and expires them by
    /// that number.
    kept: BTreeMap<usize, Option<Row>>,
    /// `SELECT RSTREAM` with ungrouped columns: the aggregates of the kept rows' groups.
    kept_aggregates: HashMap<Key, Accumulators, RandomState>,
    arrivals: usize,
    /// The epoch of the next output tick.
    tick: Option<u64>,
    ticks: u64,
    /// With `OUTPUT AFTER`, the millisecond before which the clock does not start (`reference::query::not_before`):
    /// state, so that it stays with a statement kept across a replacement.
    not_before: Option<i64>,
}

impl QueryState {
    fn new(plan: &QueryPlan, window: Option<&WindowSpec>) -> Self {
        QueryState {
            view: View::new(window),
            entries: Slab::new(),
            index: HashMap::default(),
            groups: Slab::new(),
            changed: Vec::new(),
            held: BTreeMap::new(),
            interval: Vec::new(),
            first: First::of(plan),
            updated: false,
            hosts: false,
            kept: BTreeMap::new(),
            kept_aggregates: HashMap::default(),
            arrivals: 0,
            tick: None,
            ticks: 0,
            not_before: None,
        }
    }

    /// Puts a row of group `slot` that leaves at `due` into the group's pane of that epoch when it has one of rows
    /// that count as this one does, else into a new one queued to leave then, folding the group's last pane. `args`
    /// reads the row's aggregate arguments; a pane already in the group's aggregates reads them twice.
    fn join<'r, I: Iterator<Item = Cow<'r, Val>>>(
        &mut self,
        calls: &[AggregateCall],
        slot: usize,
        (due, counts, set): (u64, bool, Option<(u64, u64)>),
        args: impl Fn() -> I,
    ) {
        let QueryState { view, entries, groups, .. } = self;
        let g = &mut groups[slot];
        let open = g.open_pane(entries, slot);
        match open {
            Some(pane) if pane.due == due && pane.counts == counts && pane.rows < u32::MAX => {
                pane.rows += 1;
                if counts {
                    if pane.folded {
                        g.acc(calls).add(calls, args());
                    }
                    pane.args.add(calls, args());
                }
                return;
            }
            Some(pane) => fold(pane, g, calls),
            None => {}
        }
        let id =
            entries.insert(Entry { group: slot, counts, rows: 1, folded: false, due, args: Args::One(owned(args())) });
        g.pane = Some(id);
        if let View::Time { queue, sets, .. } = view {
            queue.push_back((due, id));
            sets.extend(set);
        }
    }
}

impl QueryLogic {
    pub fn new(statement: usize, plan: Arc<QueryPlan>, input: StreamInput, ids: (u32, u32), vars: Arc<Row>) -> Self {
        let state = QueryState::new(&plan, input.window.as_ref());
        let per_event = PerEvent::new(&plan, &input, &vars);
        let (stream, sink, empty, done) = (ids.0, ids.1, Key::default(), Leftovers::for_this_thread());
        let (at_changes, snapshots, represents) =
            (rows_at_changes(&plan), snapshots_rows(&plan), represents_groups(&plan));
        let fully = plan.aggregation.as_ref().is_some_and(|a| a.kind == AggregationKind::FullyAggregated);
        let (removes, before) = (removes(&plan) && !fully, removes(&plan) && fully);
        QueryLogic {
            statement,
            plan,
            input,
            stream,
            sink,
            vars,
            empty,
            per_event,
            at_changes,
            snapshots,
            represents,
            removes,
            before,
            state,
            done,
        }
    }

    /// The query of a statement created at `created_ms`.
    pub fn created_at(mut self, created_ms: i64) -> Self {
        self.state.not_before = not_before(&self.plan, created_ms);
        self
    }

    fn every(&self) -> Option<i64> {
        self.plan.output.as_ref().map(|o| o.every_millis as i64)
    }

    fn fully_aggregated(&self) -> bool {
        matches!(self.plan.aggregation.as_ref().map(|a| &a.kind), Some(AggregationKind::FullyAggregated))
    }

    fn event(&mut self, emit: &mut Emit, epoch: u64, stamp: Stamp, row: Row) {
        self.state.hosts = true;
        self.handle(emit, epoch, stamp, &row);
        self.done.add(std::iter::once(row));
    }

    fn handle(&mut self, emit: &mut Emit, epoch: u64, stamp: Stamp, row: &Row) {
        let rows = [row];
        let holds = |e: &Option<RowExpr>| e.as_ref().is_none_or(|e| e.holds(&rows, &[], &self.vars));
        if !holds(&self.per_event.filter) {
            return;
        }
        let counts = holds(&self.per_event.where_);
        let set = (epoch, stamp.position());
        let before = match self.before && counts {
            true => self.row_before(row),
            false => None,
        };
        let (slot, left) = match self.plan.aggregation.is_some() && !self.snapshots_rows() && !self.removes {
            true => {
                let (slot, left) = self.enter(set, row, counts);
                (Some(slot), left)
            }
            false => (None, Vec::new()),
        };
        let removed = match self.snapshots_rows() || self.removes {
            true => self.keep(set, row, counts),
            false => Vec::new(),
        };
        // `OUTPUT AFTER d` without a period drops the rows of the statement's first `d`: `quiet` does.
        let now = millis_of(epoch);
        let out = if self.before {
            before.into_iter().collect()
        } else if self.removes {
            self.removed_rows(removed, now)
        } else if self.rows_at_changes() {
            let arrived = slot.filter(|_| counts).map(|slot| self.note_row(row, slot));
            let passed = self.group_rows(now, arrived.into_iter().chain(left.iter().cloned()).collect());
            order::ordered(passed.into_iter().map(|(_, row)| row).collect(), &self.plan.order_by)
        } else if counts {
            self.arrive(row, slot, now)
        } else {
            Vec::new()
        };
        if !left.is_empty() {
            self.after_leaving(&left);
        }
        for (i, out) in out.into_iter().enumerate() {
            emit.event(stamp.child(self.statement, i), self.sink, out);
        }
    }

    fn rows_at_changes(&self) -> bool {
        self.at_changes
    }

    /// What rows of the groups of `keys` leaving the view (each counted) leave to do: the groups' rows kept for the
    /// tick ([`QueryLogic::hold_group_rows`]), and the groups they emptied forgotten. Nothing, mostly, which its
    /// callers check first: an arrival that pushes no row out made a call all the same, 17 instructions an event of
    /// `bench floor` (the compiler does not inline it).
    fn after_leaving(&mut self, keys: &[Key]) {
        self.hold_group_rows(keys);
        self.forget_emptied(keys);
    }

    /// Keeps for the tick the rows of the groups of `keys` (each once, in the order they lost rows) of a query that
    /// [`represents_groups`], once the rows that leave together have left.
    fn hold_group_rows(&mut self, keys: &[Key]) {
        if !self.represents {
            return;
        }
        let mut seen: HashSet<&Key, RandomState> = HashSet::default();
        for key in keys.iter().filter(|k| seen.insert(*k)) {
            let Some(&slot) = self.state.index.get(key) else {
                continue;
            };
            self.fold_open(slot);
            let row = self.keyed_group_row(slot);
            self.state.interval.extend(row);
        }
    }

    /// At a tick of a query that [`represents_groups`], the rows of the groups no arrival or leaving row touched in
    /// the interval, by `tick_rank`; then every group is untouched again, and those with no row that counts are
    /// forgotten.
    fn untouched_group_rows(&mut self) -> Vec<(Vec<Val>, Row)> {
        let untouched = self.groups_where(|g| g.last_event.is_some() && !g.changed);
        let rows: Vec<(Vec<Val>, Row)> =
            self.ranked(untouched).into_iter().filter_map(|(_, slot)| self.keyed_group_row(slot)).collect();
        let mut ended = Vec::new();
        for (slot, g) in self.state.groups.iter_mut() {
            g.changed = false;
            if g.acc.as_ref().is_none_or(Accumulators::is_empty) {
                g.last_event = None;
                if g.entries == 0 {
                    ended.push(slot);
                }
            }
        }
        ended.into_iter().for_each(|slot| self.end_group(slot));
        rows
    }

    /// Notes a fully aggregated group's row that counted; answers the group's key.
    fn note_row(&mut self, row: &Row, slot: usize) -> Key {
        let g = &mut self.state.groups[slot];
        if g.last_event.is_none() || self.per_event.latest_row {
            g.last_event = Some(row.clone());
        }
        g.key.clone()
    }

    /// The rows, with their `ORDER BY` keys, of the groups of `keys` (in the order they changed, each once) at a
    /// change: those `OUTPUT FIRST` lets out at `now`, in that order (none before `OUTPUT AFTER`'s time); under the
    /// other policies none now, all kept for the tick.
    fn group_rows(&mut self, now: i64, mut keys: Vec<Key>) -> Vec<(Key, (Vec<Val>, Row))> {
        if keys.is_empty() {
            return Vec::new();
        }
        self.state.updated = true;
        let mut seen: HashSet<Key, RandomState> = HashSet::default();
        keys.retain(|k| seen.insert(k.clone()));
        let mut rows = Vec::with_capacity(keys.len());
        for key in keys {
            let Some(&slot) = self.state.index.get(&key) else {
                continue;
            };
            self.fold_open(slot);
            rows.extend(self.keyed_group_row(slot).map(|row| (key, row)));
        }
        let Some(first) = self.state.first.as_mut() else {
            self.state.interval.extend(rows.into_iter().map(|(_, row)| row));
            return Vec::new();
        };
        if self.state.not_before.is_some_and(|at| now < at) {
            return Vec::new();
        }
        rows.retain(|(key, _)| first.passes(key, now));
        rows
    }

    /// Forgets the `OUTPUT FIRST` state of the groups of `keys` left with no row that counts in the view, and ends
    /// those left with no row at all.
    fn forget_emptied(&mut self, keys: &[Key]) {
        for key in keys {
            let slot = self.state.index.get(key).copied();
            if let Some(slot) = slot {
                self.fold_open(slot);
            }
            let QueryState { first, groups, .. } = &mut self.state;
            let g = slot.map(|slot| &groups[slot]);
            if let Some(first) =
                first.as_mut().filter(|_| g.is_none_or(|g| g.acc.as_ref().is_none_or(Accumulators::is_empty)))
            {
                first.forget(key);
            }
            if let Some(slot) = slot.filter(|slot| groups[*slot].entries == 0) {
                self.end_group(slot);
            }
        }
    }

    /// Puts the row that `set` stamped in the view and then in its group (made if the displaced rows left none),
    /// dropping what it displaces; answers the group's slot, and the groups of the displaced rows that counted (in
    /// arrival order) that [`QueryLogic::remove`] answers.
    fn enter(&mut self, set: (u64, u64), row: &Row, counts: bool) -> (usize, Vec<Key>) {
        let epoch = set.0;
        let leaves = match &self.state.view {
            View::All => None,
            View::Time { millis, .. } => Some(timer_epoch(millis_of(epoch) + *millis).max(epoch + 1)),
            View::Length { .. } | View::Last { .. } => {
                let args = owned(self.per_event.args(row, &self.vars));
                return self.enter_displacing(row, self.group_key(row), counts, args);
            }
        };
        let slot = match self.known_group(row) {
            Some(slot) => slot,
            None => self.group(self.group_key(row)),
        };
        let args = || self.per_event.args(row, &self.vars);
        match leaves {
            // Without a window a row never leaves, so nothing of it is kept but its part in the aggregates.
            None => count(&mut self.state.groups[slot], calls(&self.plan), counts, args()),
            Some(due) => {
                self.state.groups[slot].entries += 1;
                let set = self.rows_at_changes().then_some(set);
                self.state.join(calls(&self.plan), slot, (due, counts, set), args);
            }
        }
        (slot, Vec::new())
    }

    /// Whether the view's rows are what an output tick releases ([`snapshots_rows`]), each with its group's aggregates
    /// when it has some (summed from the kept rows at the tick, which writes a row for each of them anyway).
    fn snapshots_rows(&self) -> bool {
        self.snapshots
    }

    /// Puts the row of a query whose ticks release its view's rows (or that removes rows) in the view, dropping the
    /// rows it displaces; answers those of them that counted, in arrival order. A time window keeps the arrival's
    /// place of a query that removes rows, for the stamp of its expiry's rows.
    fn keep(&mut self, set: (u64, u64), row: &Row, counts: bool) -> Vec<Row> {
        let id = self.state.arrivals;
        self.state.arrivals += 1;
        self.state.kept.insert(id, counts.then(|| row.clone()));
        if counts && self.removes {
            self.tally_kept(row, true);
        }
        if let View::Time { millis, queue, sets } = &mut self.state.view {
            queue.push_back((timer_epoch(millis_of(set.0) + *millis).max(set.0 + 1), id));
            sets.extend(self.removes.then_some(set));
            return Vec::new();
        }
        let key = self.view_key(row);
        let gone: Vec<Row> =
            self.displace(id, &key).into_iter().filter_map(|gone| self.state.kept.remove(&gone).flatten()).collect();
        if self.removes {
            gone.iter().for_each(|row| self.tally_kept(row, false));
        }
        gone
    }

    /// Adds a kept row that counts to its group's aggregates under `SELECT RSTREAM` (`enters`), or takes it out as it
    /// leaves the view; a group left with no row is forgotten. Nothing when the query does not aggregate.
    fn tally_kept(&mut self, row: &Row, enters: bool) {
        let Some(aggregation) = &self.plan.aggregation else {
            return;
        };
        let calls = &aggregation.aggregates[..];
        let key = self.group_key(row);
        let QueryLogic { per_event, vars, state, .. } = self;
        let args = per_event.args(row, vars);
        if enters {
            state.kept_aggregates.entry(key).or_insert_with(|| Accumulators::new(calls)).add(calls, args);
            return;
        }
        let args: Vec<Val> = args.map(Cow::into_owned).collect();
        if let Some(acc) = state.kept_aggregates.get_mut(&key) {
            acc.remove(calls, &args);
            if acc.is_empty() {
                state.kept_aggregates.remove(&key);
            }
        }
    }

    /// The rows of `SELECT RSTREAM` when `gone` left the view together at `now`, each with its group's aggregates
    /// once they left (if the query has some, and the row passes HAVING), in `ORDER BY` order; under an output policy,
    /// none now: each is kept for the tick, in the order they were in the view.
    fn removed_rows(&mut self, gone: Vec<Row>, now: i64) -> Vec<Row> {
        if self.plan.output.is_some() {
            let mut rows = Vec::new();
            for row in &gone {
                rows.extend(self.emit_or_hold(self.empty.clone(), row, &[], now));
            }
            return rows;
        }
        let rows = gone.iter().filter_map(|row| {
            let aggregates = self.kept_values(row);
            self.having(row, &aggregates).then(|| (self.order_keys(row, &aggregates), self.project(row, &aggregates)))
        });
        order::ordered(rows.collect(), &self.plan.order_by)
    }

    /// The aggregates of the kept rows of `row`'s group (none when the query does not aggregate; null when the
    /// group has no row that counts).
    fn kept_values(&self, row: &Row) -> Vec<Val> {
        let Some(aggregation) = &self.plan.aggregation else {
            return Vec::new();
        };
        match self.state.kept_aggregates.get(&self.group_key(row)) {
            Some(acc) => acc.values(&aggregation.aggregates),
            None => vec![Val::Null; aggregation.aggregates.len()],
        }
    }

    /// `SELECT RSTREAM` of a fully aggregated query at the arrival of `row` (which counts), before it enters: its
    /// group's row as it stands (null aggregates for a group with no row that counts), projected from `row`, if it
    /// passes HAVING.
    fn row_before(&mut self, row: &Row) -> Option<Row> {
        let slot = self.state.index.get(&self.group_key(row)).copied();
        let aggregates = match slot {
            Some(slot) => {
                self.fold_open(slot);
                self.aggregates(slot)
            }
            None => vec![Val::Null; calls(&self.plan).len()],
        };
        self.having(row, &aggregates).then(|| self.project(row, &aggregates))
    }

    /// [`QueryLogic::enter`] for a view whose rows later rows displace. The group is found once the displaced rows
    /// are gone: they may end it.
    fn enter_displacing(&mut self, row: &Row, group: Key, counts: bool, args: SmallVec<[Val; 1]>) -> (usize, Vec<Key>) {
        let view_key = self.view_key(row);
        let entry = Entry { group: usize::MAX, counts, rows: 1, folded: true, due: 0, args: Args::One(args) };
        let id = self.state.entries.insert(entry);
        // Lengths are positive, so the new entry is never among the displaced.
        let left: Vec<Key> = self.displace(id, &view_key).into_iter().filter_map(|gone| self.remove(gone)).collect();
        let slot = self.group(group);
        let QueryState { entries, groups, .. } = &mut self.state;
        let entry = &mut entries[id];
        entry.group = slot;
        if let Args::One(args) = &entry.args {
            count(&mut groups[slot], calls(&self.plan), counts, args.iter());
        }
        (slot, left)
    }

    /// The slot of the group of `key`, made if it has none.
    fn group(&mut self, key: Key) -> usize {
        let QueryState { index, groups, .. } = &mut self.state;
        *index.entry(key).or_insert_with_key(|key| groups.insert(Group::new(key.clone())))
    }

    /// The slot of `row`'s group, found without making its key, when the query groups by one column and the row's
    /// value there is a text that is its own key (a floor), and the group exists: the usual case. Reading the
    /// column into a key, hashing it as a `SmolStr` and dropping it cost `bench floor` about 200 instructions an
    /// event more than this (`benches/results/cep.md`, twenty-ninth session).
    fn known_group(&self, row: &Row) -> Option<usize> {
        let [by] = self.per_event.group_by.as_slice() else {
            return None;
        };
        let key = key::own_text(by.column_of(row)?)?;
        self.state.index.get(key).copied()
    }

    /// The key of the group of `row` ([`key::of_values`]); a text key is the value itself, not formatted.
    fn group_key(&self, row: &Row) -> Key {
        match self.per_event.group_by.as_slice() {
            [] => self.empty.clone(),
            exprs => key::of_values(exprs.len(), exprs.iter().map(|e| e.eval(&[row], &[], &self.vars))),
        }
    }

    /// The key of the row's place in a keyed view ([`view_state_key`]).
    fn view_key(&self, row: &Row) -> Key {
        view_state_key(self.input.window.as_ref(), &self.input.label, row, &self.vars)
    }

    /// Records entry `id` in the view; answers the entries it pushes out.
    fn displace(&mut self, id: usize, key: &Key) -> Vec<usize> {
        match &mut self.state.view {
            // Their rows never come here: they stay for good, or join a time window's panes.
            View::All | View::Time { .. } => Vec::new(),
            View::Length { count, queues } => {
                let queue = queues.entry(key.clone()).or_default();
                queue.push_back(id);
                let excess = queue.len().saturating_sub(*count);
                queue.drain(..excess).collect()
            }
            View::Last { current } => current.insert(key.clone(), id).into_iter().collect(),
        }
    }

    /// Takes entry `id` out of the view and its group; when the statement's rows go by its changes (or `OUTPUT FIRST`
    /// forgets emptied groups, or rows stand for its groups), answers the group's key if the entry counted.
    fn remove(&mut self, id: usize) -> Option<Key> {
        // Only the output tick of a fully aggregated query reads (and empties) the list of changed groups; one whose
        // rows go by its changes keeps none.
        let at_changes = self.rows_at_changes();
        let listed = self.plan.output.is_some() && self.fully_aggregated() && !at_changes;
        let entry = self.state.entries.try_remove(id)?;
        let g = self.state.groups.get_mut(entry.group)?;
        let answers = at_changes || self.state.first.is_some() || self.represents;
        let left = (entry.counts && answers).then(|| g.key.clone());
        g.entries -= entry.rows as usize;
        if g.pane == Some(id) {
            g.pane = None;
        }
        if entry.counts {
            if let Some(acc) = g.acc.as_mut().filter(|_| entry.folded) {
                entry.args.leave(calls(&self.plan), acc);
            }
            if listed {
                mark(&mut self.state.changed, g, entry.group);
            }
            g.changed |= self.represents;
        }
        // Without an output policy a group's last event is only read on its next arrival, which replaces it.
        if g.entries == 0 && (g.last_event.is_none() || self.plan.output.is_none()) {
            self.end_group(entry.group);
        }
        left
    }

    fn end_group(&mut self, slot: usize) {
        let group = self.state.groups.remove(slot);
        self.state.index.remove(&group.key);
    }

    /// The rows an arrival in group `slot` (none when the query does not aggregate) gives now.
    fn arrive(&mut self, row: &Row, slot: Option<usize>, now: i64) -> Vec<Row> {
        let (Some(aggregation), Some(slot)) = (&self.plan.aggregation, slot) else {
            return self.emit_or_hold(self.empty.clone(), row, &[], now);
        };
        match aggregation.kind {
            AggregationKind::FullyAggregated => {
                let g = &mut self.state.groups[slot];
                if g.last_event.is_none() || self.per_event.latest_row {
                    g.last_event = Some(row.clone());
                }
                if self.plan.output.is_some() {
                    mark(&mut self.state.changed, g, slot);
                    return Vec::new();
                }
                self.fold_open(slot);
                self.group_row(slot).into_iter().collect()
            }
            AggregationKind::WithUngroupedColumns(_) => {
                if self.represents {
                    let g = &mut self.state.groups[slot];
                    g.last_event = Some(row.clone());
                    g.changed = true;
                }
                self.fold_open(slot);
                let aggregates = self.aggregates(slot);
                match self.having(row, &aggregates) {
                    true => self.emit_or_hold(self.state.groups[slot].key.clone(), row, &aggregates, now),
                    false => Vec::new(),
                }
            }
        }
    }

    /// The row of `event` at once, or without it until the next output tick.
    fn emit_or_hold(&mut self, group: Key, event: &Row, aggregates: &[Val], now: i64) -> Vec<Row> {
        // Before `OUTPUT AFTER`'s time, a query without aggregates keeps nothing for its first tick, and `OUTPUT
        // FIRST` lets nothing out.
        let waiting = self.state.not_before.is_some() && self.state.tick.is_none();
        let drops = self.plan.aggregation.is_none() || self.state.first.is_some();
        if self.plan.output.is_some() && waiting && drops {
            return Vec::new();
        }
        let row = self.project(event, aggregates);
        match self.plan.output.as_ref().map(|o| o.kind) {
            None => return vec![row],
            Some(OutputKind::First) => {
                if self.state.first.as_mut().is_some_and(|first| first.passes(&group, now)) {
                    return vec![row];
                }
            }
            Some(OutputKind::All | OutputKind::Default) => {
                self.state.interval.push((self.order_keys(event, aggregates), row));
            }
            // The tick releases the view's rows.
            Some(OutputKind::Snapshot) => {}
            Some(OutputKind::Last) => {
                let keys = self.order_keys(event, aggregates);
                self.state.held.insert(group, (keys, row));
            }
        }
        Vec::new()
    }

    /// Folds the group's open pane into its aggregates, which are about to be read.
    fn fold_open(&mut self, slot: usize) {
        let QueryState { entries, groups, .. } = &mut self.state;
        let g = &mut groups[slot];
        if let Some(pane) = g.open_pane(entries, slot) {
            fold(pane, g, calls(&self.plan));
        }
    }

    fn aggregates(&self, slot: usize) -> Vec<Val> {
        let calls = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
        match self.state.groups.get(slot).and_then(|g| g.acc.as_ref()) {
            Some(acc) => acc.values(calls),
            None => vec![Val::Null; calls.len()],
        }
    }

    fn group_row(&self, slot: usize) -> Option<Row> {
        self.keyed_group_row(slot).map(|(_, row)| row)
    }

    /// [`QueryLogic::group_row`] with its `ORDER BY` keys.
    fn keyed_group_row(&self, slot: usize) -> Option<(Vec<Val>, Row)> {
        let event = self.state.groups.get(slot)?.last_event.as_ref()?;
        let aggregates = self.aggregates(slot);
        let row = self.having(event, &aggregates).then(|| self.project(event, &aggregates))?;
        Some((self.order_keys(event, &aggregates), row))
    }

    fn having(&self, event: &Row, aggregates: &[Val]) -> bool {
        let having = self.plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
        let binding = [(self.input.label.as_str(), event)];
        holds(having, &Scope { rows: &binding, aggregates, vars: &self.vars, pinned: &[] })
    }

    fn project(&self, event: &Row, aggregates: &[Val]) -> Row {
        let binding = [(self.input.label.as_str(), event)];
        let scope = Scope { rows: &binding, aggregates, vars: &self.vars, pinned: &[] };
        project(&self.plan.projection, &scope)
    }

    /// The aggregates of the groups of the rows a snapshot keeps, when the query has some.
    fn kept_groups(&self) -> HashMap<Key, Accumulators, RandomState> {
        let mut groups: HashMap<Key, Accumulators, RandomState> = HashMap::default();
        if self.plan.aggregation.is_none() {
            return groups;
        }
        let calls = calls(&self.plan);
        for row in self.state.kept.values().flatten() {
            let acc = groups.entry(self.group_key(row)).or_insert_with(|| Accumulators::new(calls));
            acc.add(calls, self.per_event.args(row, &self.vars));
        }
        groups
    }

    /// The row of a fully aggregated query without groups as it stands, read with no event (as the reference's).
    fn current_row(&mut self) -> Option<(Vec<Val>, Row)> {
        let slot = self.state.index.get(&self.empty).copied();
        if let Some(slot) = slot {
            self.fold_open(slot);
        }
        let calls = calls(&self.plan);
        let aggregates = slot.map_or_else(|| vec![Val::Null; calls.len()], |slot| self.aggregates(slot));
        let event = Row::default();
        let row = self.having(&event, &aggregates).then(|| self.project(&event, &aggregates))?;
        Some((self.order_keys(&event, &aggregates), row))
    }

    /// The `ORDER BY` keys of the row of `event`, which only the rows of an output tick need.
    fn order_keys(&self, event: &Row, aggregates: &[Val]) -> Vec<Val> {
        let binding = [(self.input.label.as_str(), event)];
        order::keys(&self.plan.order_by, &Scope { rows: &binding, aggregates, vars: &self.vars, pinned: &[] })
    }

    /// Lets the time window's entries due by `epoch` leave, together. With `OUTPUT FIRST`, the rows of the groups
    /// they leave go out as the reference's do at its first expiry timer, in the order of the groups' first rows to
    /// leave: each stamped by the arrival of that row, so that groups on other workers fall in between as they do
    /// there; with `ORDER BY` (on one worker) all stamped by the first to arrive, in their order.
    fn expire(&mut self, emit: &mut Emit, epoch: u64) {
        let mut left: Vec<(Key, (u64, u64))> = Vec::new();
        let mut removed: Vec<((u64, u64), Row)> = Vec::new();
        loop {
            let due = match &mut self.state.view {
                View::Time { queue, .. } => queue.front().filter(|(at, _)| *at <= epoch).copied(),
                _ => None,
            };
            let Some((_, id)) = due else {
                break;
            };
            let mut set = None;
            if let View::Time { queue, sets, .. } = &mut self.state.view {
                queue.pop_front();
                set = sets.pop_front();
            }
            // Without `sets` (a statement whose expiries give no rows), the groups' keys only are read.
            let set = set.unwrap_or_default();
            if self.snapshots_rows() || self.removes {
                let row = self.state.kept.remove(&id).flatten().filter(|_| self.removes);
                if let Some(row) = &row {
                    self.tally_kept(row, false);
                }
                removed.extend(row.map(|row| (set, row)));
            } else {
                left.extend(self.remove(id).map(|key| (key, set)));
            }
        }
        if let Some(&(set, _)) = removed.first() {
            // One remove stream, stamped by the first of its rows' expiry timers, as the reference lets them go.
            let batch = Stamp::timer(TimerOrder::Expiry, set, self.statement, 0);
            let rows = self.removed_rows(removed.into_iter().map(|(_, row)| row).collect(), millis_of(epoch));
            for (i, row) in rows.into_iter().enumerate() {
                emit.event(batch.child(self.statement, i), self.sink, row);
            }
        }
        let keys: Vec<Key> = left.iter().map(|(key, _)| key.clone()).collect();
        if self.rows_at_changes() {
            let passed = self.group_rows(millis_of(epoch), keys.clone());
            self.emit_expiry_rows(emit, &left, passed);
        }
        if !keys.is_empty() {
            self.after_leaving(&keys);
        }
    }

    /// Sends the rows a statement's expiry gives ([`QueryLogic::expire`]); `left` has each group's first row to leave.
    fn emit_expiry_rows(&self, emit: &mut Emit, left: &[(Key, (u64, u64))], passed: Vec<(Key, (Vec<Val>, Row))>) {
        let stamp = |set| Stamp::timer(TimerOrder::Expiry, set, self.statement, 0);
        if self.plan.order_by.is_empty() {
            let mut sets: HashMap<&Key, (u64, u64), RandomState> = HashMap::default();
            for (key, set) in left {
                sets.entry(key).or_insert(*set);
            }
            for (key, (_, row)) in passed {
                let set = sets.get(&key).copied().unwrap_or_default();
                emit.event(stamp(set).into_child(self.statement, 0), self.sink, row);
            }
            return;
        }
        let Some((_, set)) = left.first() else {
            return;
        };
        let batch = stamp(*set);
        let rows = order::ordered(passed.into_iter().map(|(_, row)| row).collect(), &self.plan.order_by);
        for (i, row) in rows.into_iter().enumerate() {
            emit.event(batch.child(self.statement, i), self.sink, row);
        }
    }

    /// Whether the output tick is due at `epoch` and goes before `record`: the rows of the timers that fire before
    /// it at its millisecond (window expiries, pattern timers, the ticks of statements listed before this one) reach
    /// the query in the tick's epoch, and go first, as they do in the reference evaluator.
    fn tick_precedes(&self, epoch: u64, record: &Record) -> bool {
        // The usual case, at every record: no tick due.
        if self.state.tick.is_none_or(|at| at > epoch) {
            return false;
        }
        Stamp::goes_before(Some(Stamp::tick(self.statement, self.state.ticks)), record)
    }

    fn fire_tick(&mut self, emit: &mut Emit, epoch: u64) {
        if self.state.tick.is_none_or(|at| at > epoch) {
            return;
        }
        let stamp = Stamp::tick(self.statement, self.state.ticks);
        self.state.ticks += 1;
        let every = self.every().unwrap_or(1);
        self.state.tick = Some(timer_epoch(millis_of(epoch) + every).max(epoch + 1));
        for (position, row) in self.tick_rows() {
            emit.event(stamp.child(self.statement, position), self.sink, row);
        }
    }

    /// The rows of an output tick, each with its place among them: its position, or for a group's row without `ORDER
    /// BY` the group's rank (`tick_rank`), which every worker computes alike for the groups it holds.
    fn tick_rows(&mut self) -> Vec<(usize, Row)> {
        let numbered = |rows: Vec<Row>| rows.into_iter().enumerate().collect();
        if self.snapshots_rows() {
            // Every row that counts in the view, in arrival order, as the reference evaluator gives them, with its
            // group's aggregates, if HAVING holds.
            let groups = self.kept_groups();
            let rows = self.state.kept.values().flatten().filter_map(|row| {
                let aggregates = match groups.get(&self.group_key(row)) {
                    Some(acc) => acc.values(calls(&self.plan)),
                    None => Vec::new(),
                };
                self.having(row, &aggregates)
                    .then(|| (self.order_keys(row, &aggregates), self.project(row, &aggregates)))
            });
            return numbered(order::ordered(rows.collect(), &self.plan.order_by));
        }
        if let Some(first) = self.state.first.as_mut() {
            // Its rows went out as they came.
            first.tick();
            return Vec::new();
        }
        if self.rows_at_changes() {
            let mut rows = std::mem::take(&mut self.state.interval);
            if !std::mem::take(&mut self.state.updated) && self.per_event.group_by.is_empty() && self.state.hosts {
                rows.extend(self.current_row());
            }
            return numbered(order::ordered(rows, &self.plan.order_by));
        }
        if !self.fully_aggregated() {
            let mut rows = std::mem::take(&mut self.state.interval);
            if self.represents {
                rows.extend(self.untouched_group_rows());
            }
            rows.extend(std::mem::take(&mut self.state.held).into_values());
            return numbered(order::ordered(rows, &self.plan.order_by));
        }
        self.group_tick_rows()
    }

    /// The rows of a fully aggregated query's output tick: by the groups' rank, or in `ORDER BY` order.
    fn group_tick_rows(&mut self) -> Vec<(usize, Row)> {
        let mut changed = std::mem::take(&mut self.state.changed);
        changed.sort_unstable();
        changed.dedup();
        // The groups still marked; a slot listed for a group that ended may hold an unmarked one.
        let groups = &self.state.groups;
        let due: Vec<usize> = changed.into_iter().filter(|s| groups.get(*s).is_some_and(|g| g.changed)).collect();
        for slot in &due {
            self.fold_open(*slot);
        }
        let released = match self.plan.output.as_ref().map(|o| o.kind) {
            Some(OutputKind::Snapshot) => self.groups_where(|g| g.acc.as_ref().is_some_and(|acc| !acc.is_empty())),
            Some(OutputKind::All) => self.groups_where(|g| g.last_event.is_some()),
            _ => due.clone(),
        };
        let rows: Vec<(u64, (Vec<Val>, Row))> = self
            .ranked(released)
            .into_iter()
            .filter_map(|(rank, slot)| Some((rank, self.keyed_group_row(slot)?)))
            .collect();
        for slot in due {
            let g = &mut self.state.groups[slot];
            g.changed = false;
            if g.entries == 0 {
                self.end_group(slot);
            }
        }
        match self.plan.order_by.is_empty() {
            true => rows.into_iter().map(|(rank, (_, row))| (rank as usize, row)).collect(),
            false => order::ordered(rows.into_iter().map(|(_, row)| row).collect(), &self.plan.order_by)
                .into_iter()
                .enumerate()
                .collect(),
        }
    }

    /// The groups of `slots` in the reference's order of a tick's rows, each with its rank: by `tick_rank` of the
    /// group's key as the reference writes it ([`key_of`] of its row), then by that key.
    fn ranked(&self, slots: Vec<usize>) -> Vec<(u64, usize)> {
        let by = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
        by_tick_rank(slots, |slot| {
            let row = self.state.groups.get(*slot)?.last_event.as_ref()?;
            Some(key_of(by, &self.input.label, row, &self.vars))
        })
    }

    /// The groups `released` picks, their open panes folded: with a row that counts in the view, what `OUTPUT
    /// SNAPSHOT` releases; with a row that counted since the last tick, what `OUTPUT ALL` does.
    fn groups_where(&mut self, released: impl Fn(&Group) -> bool) -> Vec<usize> {
        let slots: Vec<usize> = self.state.groups.iter().map(|(slot, _)| slot).collect();
        slots.into_iter().for_each(|slot| self.fold_open(slot));
        self.state.groups.iter().filter(|(_, g)| released(g)).map(|(slot, _)| slot).collect()
    }
}

impl Group {
    fn new(key: Key) -> Self {
        Group { key, entries: 0, changed: false, acc: None, last_event: None, pane: None }
    }

    /// Its aggregates, made empty at its first row that counts.
    fn acc(&mut self, calls: &[AggregateCall]) -> &mut Accumulators {
        self.acc.get_or_insert_with(|| Accumulators::new(calls))
    }

    /// Its latest pane, when it is still in the view.
    fn open_pane<'e>(&self, entries: &'e mut Slab<Entry>, slot: usize) -> Option<&'e mut Entry> {
        self.pane.and_then(|id| entries.get_mut(id)).filter(|e| e.group == slot)
    }
}

/// A row entered group `g`, with its aggregate arguments if it `counts`.
fn count<V: Borrow<Val>>(g: &mut Group, calls: &[AggregateCall], counts: bool, args: impl IntoIterator<Item = V>) {
    g.entries += 1;
    if counts {
        g.acc(calls).add(calls, args);
    }
}

/// Aggregate arguments ([`PerEvent::args`]) owned, as an entry of a single row keeps them.
fn owned<'r>(args: impl Iterator<Item = Cow<'r, Val>>) -> SmallVec<[Val; 1]> {
    args.map(Cow::into_owned).collect()
}

/// Adds the rows of `entry`, a pane of group `g`, to the group's aggregates unless they are there.
fn fold(entry: &mut Entry, g: &mut Group, calls: &[AggregateCall]) {
    if !entry.folded {
        entry.folded = true;
        if entry.counts {
            entry.args.join(calls, g.acc(calls));
        }
    }
}

/// Lists the group in `slot` as changed unless it already is.
fn mark(changed: &mut Vec<usize>, g: &mut Group, slot: usize) {
    if !g.changed {
        g.changed = true;
        changed.push(slot);
    }
}

/// The aggregate calls of a query that aggregates (the only kind whose rows enter a view).
fn calls(plan: &QueryPlan) -> &[AggregateCall] {
    &plan.aggregation.as_ref().expect("rows enter a view only when aggregating").aggregates
}

fn millis_of(epoch: u64) -> i64 {
    millis(epoch)
}

impl Logic for QueryLogic {
    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        if self.tick_precedes(epoch, &record) {
            self.fire_tick(emit, epoch);
        }
        match record {
            Record::Start { ms, .. } if self.state.not_before.is_none_or(|at| ms >= at) => {
                if let (None, Some(every)) = (self.state.tick, self.every()) {
                    self.state.tick = Some(timer_epoch(ms + every));
                }
            }
            Record::Event { stamp, stream, row } if stream == self.stream => self.event(emit, epoch, stamp, row),
            Record::Start { .. } | Record::Event { .. } | Record::Match { .. } => {}
        }
    }

    fn epoch_done(&mut self) {
        self.done.reap();
    }

    fn next_timer(&self) -> Option<u64> {
        let expiry = match &self.state.view {
            View::Time { queue, .. } => queue.front().map(|(at, _)| *at),
            _ => None,
        };
        match (expiry, self.state.tick) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The output tick fires among the epoch's records ([`QueryLogic::tick_precedes`]), or after them.
    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        self.expire(emit, epoch);
    }

    fn records_done(&mut self, emit: &mut Emit, epoch: u64) {
        self.fire_tick(emit, epoch);
    }

    fn export(&mut self) -> Option<State> {
        let empty = QueryState::new(&self.plan, self.input.window.as_ref());
        Some(Box::new(std::mem::replace(&mut self.state, empty)))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(carried) = state.downcast::<QueryState>() {
            self.state = *carried;
        }
    }

    fn stop(&mut self) {
        self.state = QueryState::new(&self.plan, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::config::CepConfig;
    use crate::cep::explain::plan_config;
    use crate::cep::plan::{Input, PlanNode};

    /// The seed's floor statement (`Room.win:time(10 min)`, grouped by floor), planned as the service plans it.
    fn floor_query() -> QueryLogic {
        let config: CepConfig =
            serde_json::from_str(include_str!("../../../queries/floor-average.json")).expect("the seed");
        let plan = plan_config(&config, true).expect("plans");
        let PlanNode::Query(q) = &plan.statements[0].node else { panic!("a query") };
        let Input::Stream(input) = &q.input else { panic!("over a stream") };
        QueryLogic::new(0, Arc::new((**q).clone()), input.clone(), (0, 1), Arc::new(Row::new()))
    }

    fn room(query: &mut QueryLogic, ms: i64, (floor, temperature): (&str, f64)) {
        let row = Row::from([("floor", Val::String(floor.into())), ("temperature", Val::Double(temperature))]);
        let record = Record::Event { stamp: Stamp::input(ms as u64), stream: 0, row };
        query.record(&mut Emit::default(), timer_epoch(ms), record);
    }

    /// A floor's aggregates as an output reads them, its open pane folded in first.
    fn average(query: &mut QueryLogic, floor: &str) -> Option<Vec<Val>> {
        let slot = *query.state.index.get(floor)?;
        query.fold_open(slot);
        Some(query.aggregates(slot))
    }

    #[test]
    fn a_handled_row_waits_for_the_reaper_until_the_epoch_is_done() {
        let mut query = floor_query();
        query.done = Leftovers::kept();
        room(&mut query, 1_000, ("f1", 20.0));
        assert_eq!(query.done.rows().map(<[Row]>::len), Some(1), "kept, its value in the window");
        query.epoch_done();
        assert_eq!(query.done.rows().map(<[Row]>::len), Some(0), "handed to the reaper");
        assert!(average(&mut query, "f1").is_some_and(|a| a.contains(&Val::Double(20.0))), "{:?}", query.state.groups);
    }

    #[test]
    fn rows_without_a_window_are_counted_not_kept() {
        let statement =
            "INSERT INTO Floor SELECT floor as id, avg(temperature) as temperature FROM Room GROUP BY floor";
        let mut config: serde_json::Value =
            serde_json::from_str(include_str!("../../../queries/floor-average.json")).expect("the seed");
        config["statements"] = serde_json::json!([statement]);
        let config: CepConfig = serde_json::from_value(config).expect("a configuration");
        let plan = plan_config(&config, true).expect("plans");
        let PlanNode::Query(q) = &plan.statements[0].node else { panic!("a query") };
        let Input::Stream(input) = &q.input else { panic!("over a stream") };
        let mut query = QueryLogic::new(0, Arc::new((**q).clone()), input.clone(), (0, 1), Arc::new(Row::new()));
        for (ms, t) in [(1_000, 20.0), (2_000, 21.0), (3_000, 25.0)] {
            room(&mut query, ms, ("1", t));
        }
        assert!(query.state.entries.is_empty());
        assert_eq!(average(&mut query, "1"), Some(vec![Val::Double(22.0)]));
    }

    #[test]
    fn a_time_window_keeps_a_group_s_rows_of_one_epoch_as_one_entry_that_leaves_whole() {
        let mut query = floor_query();
        for room_of in [("1", 20.0), ("1", 21.0), ("2", 22.0), ("1", 22.0)] {
            room(&mut query, 1_000, room_of);
        }
        assert_eq!(query.state.entries.len(), 2, "one pane per floor");
        room(&mut query, 2_000, ("1", 25.0));
        assert_eq!(query.state.entries.len(), 3, "a later epoch starts a pane");
        assert_eq!(average(&mut query, "1"), Some(vec![Val::Double(22.0)]));

        // Ten minutes after the first epoch its panes leave whole; floor 2 has nothing left.
        query.fire(&mut Emit::default(), timer_epoch(1_000 + 600_000));
        assert_eq!(query.state.entries.len(), 1);
        assert_eq!(average(&mut query, "1"), Some(vec![Val::Double(25.0)]));
        assert_eq!(query.state.groups.iter().find(|(_, g)| &*g.key == "2").map(|(_, g)| g.entries), Some(0));
        query.fire(&mut Emit::default(), timer_epoch(2_000 + 600_000));
        assert!(query.state.entries.is_empty());
    }

    /// A window's memory is its entries: this keeps one within a cache line.
    #[test]
    fn an_entry_fits_in_64_bytes() {
        assert!(size_of::<Entry>() <= 64, "{} bytes", size_of::<Entry>());
    }
}

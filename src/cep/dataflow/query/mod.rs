//! A query over one stream with state: its view (time, length, unique and last-event windows, sorted and ranked
//! windows, keep-all and first-event views, which let in only their first events and keep them, grouped or not),
//! grouped running aggregates, HAVING, `ORDER BY` and the `OUTPUT LAST EVERY`, (fully aggregated, or over a data
//! window) `OUTPUT SNAPSHOT EVERY`, `OUTPUT [ALL] EVERY` and `OUTPUT FIRST EVERY` policies, each may wait with `AFTER`,
//! with cep-epl.md section 3's meaning (the reference evaluator's `query` module is the same semantics written as
//! recomputation over a list of rows).
//!
//! This module holds the query's state and takes each event through it; the parts of that are modules of their own:
//! the view and its groups, where rows enter, are displaced and expire ([`view`]); the rows an arrival or a change
//! gives, or holds for the tick ([`rows`]); the output tick ([`tick`]); the rows kept for `OUTPUT SNAPSHOT` and
//! `SELECT RSTREAM` ([`kept`]); the remove stream of a fully aggregated query under a policy ([`before`]); and what it
//! reads of the events before, `prior` and `prev` ([`history`]).
//! Each worker holds the groups routed to it; output ticks are the same on every worker, started by the `Start`
//! record every worker gets at the stream's first event. A tick by a count of events (`runtime::counted`) comes at the
//! end of the arrival or expiry that completes it, stamped after that update's rows, on the one worker such a
//! statement runs on.

mod before;
mod history;
mod kept;
mod rows;
mod tick;
mod view;

use std::borrow::{Borrow, Cow};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use foldhash::fast::RandomState;
use slab::Slab;
use smallvec::SmallVec;

use self::history::History;
use self::kept::rows_of;
use super::aggregate::Accumulators;
use super::operator::{Emit, Logic, State};
use super::reaper::Leftovers;
use super::record::{Record, Stamp, millis, timer_epoch};
use crate::cep::plan::{AggregateCall, AggregationKind, Criterion, PlanExpr, QueryPlan, StreamInput, WindowSpec};
use crate::cep::planner::has_ungrouped_column;
use crate::cep::reference::query::{
    Admitted, closes_at, firsts_leaving, not_before, removes, represents_groups, rows_at_changes, snapshots_rows,
    stamp_of, view_state_key,
};
use crate::cep::runtime::before_pace::BeforePace;
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::counted::EventCount;
use crate::cep::runtime::eval::Scope;
use crate::cep::runtime::first::First;
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::value::Name;
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
    /// The arrival number of its first row, which orders `first` and `last` ([`QueryLogic::next_arrival`]).
    seq: u64,
    args: Args,
}

/// The aggregate arguments of what an entry holds. One row's argument is inline, whose tag has room for the other
/// kinds', so that an entry, with its arrival number, stays 64 bytes.
#[derive(Debug)]
enum Args {
    /// One row's, for one aggregate.
    One(Val),
    /// One row's, for another number of aggregates.
    Row(Box<[Val]>),
    /// The running aggregates of a pane's rows.
    Many(Box<Accumulators>),
}

impl Args {
    /// A row's aggregate arguments ([`PerEvent::args`]), owned.
    fn of_row<V: Borrow<Val>>(args: impl Iterator<Item = V>) -> Self {
        let mut values: SmallVec<[Val; 1]> = args.map(|v| v.borrow().clone()).collect();
        match (values.len(), values.pop()) {
            (1, Some(value)) => Args::One(value),
            (_, last) => Args::Row(values.into_iter().chain(last).collect()),
        }
    }

    /// A single row's arguments; `None` for a pane's.
    fn row(&self) -> Option<&[Val]> {
        match self {
            Args::One(value) => Some(std::slice::from_ref(value)),
            Args::Row(values) => Some(values),
            Args::Many(_) => None,
        }
    }

    /// Adds the arguments of the row numbered `seq`, making a pane of a single row's, whose row is numbered `first`.
    fn add<V: Borrow<Val>>(
        &mut self,
        calls: &[AggregateCall],
        (first, seq): (u64, u64),
        args: impl IntoIterator<Item = V>,
    ) {
        if let Args::Many(pane) = self {
            return pane.add(seq, args);
        }
        let mut pane = Accumulators::new(calls);
        pane.add(first, self.row().unwrap_or_default());
        pane.add(seq, args);
        *self = Args::Many(Box::new(pane));
    }

    /// Adds what it holds to a group's aggregates: a single row's, numbered `seq`.
    fn join(&self, seq: u64, acc: &mut Accumulators) {
        match self {
            Args::Many(pane) => acc.merge(pane),
            single => acc.add(seq, single.row().unwrap_or_default()),
        }
    }

    /// Takes what it holds out of a group's aggregates: a single row's, numbered `seq`.
    fn leave(&self, seq: u64, acc: &mut Accumulators) {
        match self {
            Args::Many(pane) => acc.subtract(pane),
            single => acc.remove(seq, single.row().unwrap_or_default()),
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
    /// `win:ext_timed`: the rows per view key with their timestamps, in arrival order; an arrival pushes out those at
    /// the front stamped before its [`expires_before`].
    ExtTimed { millis: u64, queues: HashMap<Key, VecDeque<(i64, usize)>, RandomState> },
    /// The last row per view key.
    Last { current: HashMap<Key, usize, RandomState> },
    /// `ext:sort` and `ext:rank`: the rows per view key in their sort order ([`Sorted`]).
    Sorted(Sorted),
    /// `ext:time_order` (`ext:timetolive` with `millis` 0): entries by the epoch they leave at, the timer's of their
    /// timestamp plus `millis`, then by the place of the arrival that made them (what their rows are stamped with).
    TimeOrdered { millis: u64, due: BTreeMap<(u64, (u64, u64)), usize> },
    /// `win:time_accum` ([`Accumulating`]).
    Accumulating(Accumulating),
}

/// `win:time_accum(d)`'s entries per view key, in arrival order, each key's leaving together at the timer `millis`
/// after its latest arrival: with the epoch of that timer and the place of that arrival (what their rows are stamped
/// with). The timers are a queue in the order they were set, each with its key: one a later arrival of the key
/// superseded is passed over when it comes due.
#[derive(Debug)]
struct Accumulating {
    millis: i64,
    views: HashMap<Key, Accumulated, RandomState>,
    timers: VecDeque<(u64, Key)>,
}

/// One view key's entries in an [`Accumulating`] view, and when and by which arrival's timer they leave.
#[derive(Debug)]
struct Accumulated {
    due: u64,
    set: (u64, u64),
    entries: VecDeque<usize>,
}

impl Accumulating {
    /// Puts entry `id`, arriving at epoch and position `set`, in the view of `key`, putting off its leaving.
    fn enter(&mut self, key: &Key, id: usize, set: (u64, u64)) {
        let due = timer_epoch(millis(set.0) + self.millis).max(set.0 + 1);
        let view = self.views.entry(key.clone()).or_insert_with(|| Accumulated { due, set, entries: VecDeque::new() });
        (view.due, view.set) = (due, set);
        view.entries.push_back(id);
        if self.timers.back() != Some(&(due, key.clone())) {
            self.timers.push_back((due, key.clone()));
        }
    }

    /// The epoch of the earliest timer set (maybe superseded).
    fn next_timer(&self) -> Option<u64> {
        self.timers.front().map(|(due, _)| *due)
    }

    /// The next entry due to leave by `epoch`, with the place of the arrival whose timer lets it go.
    fn pop_due(&mut self, epoch: u64) -> Option<(usize, (u64, u64))> {
        loop {
            let (due, key) = self.timers.front().filter(|(due, _)| *due <= epoch)?;
            let Some(view) = self.views.get_mut(key).filter(|view| view.due == *due) else {
                self.timers.pop_front();
                continue;
            };
            let (id, set) = (view.entries.pop_front(), view.set);
            if view.entries.is_empty() {
                self.views.remove(key);
                self.timers.pop_front();
            }
            // A key's view is removed with its last entry, so it always has one.
            if let Some(id) = id {
                return Some((id, set));
            }
        }
    }
}

/// `ext:sort(n, criteria)`'s entries per view key, each with its sort values (and its `ext:rank` key), in sort order
/// (entries that sort alike newest first): an arrival past `count` pushes out the last, which may be itself. Under
/// `ext:rank` an arrival first pushes out the entry of its key.
#[derive(Debug)]
struct Sorted {
    unique: Vec<PlanExpr>,
    count: usize,
    criteria: Vec<Criterion>,
    descending: Vec<bool>,
    views: HashMap<Key, SortedEntries, RandomState>,
}

/// One view key's entries in a [`Sorted`] view, in sort order: each one's sort values, `ext:rank` key and slot.
type SortedEntries = Vec<(Vec<Val>, Key, usize)>;

impl Sorted {
    fn new(unique: &[PlanExpr], count: u64, criteria: &[Criterion]) -> Self {
        let descending = criteria.iter().map(|(_, desc)| *desc).collect();
        let (unique, criteria) = (unique.to_vec(), criteria.to_vec());
        Sorted { unique, count: count as usize, criteria, descending, views: HashMap::default() }
    }

    /// Puts entry `id`, of `row` (labelled `label`), in the view of `key`; answers the entries it pushes out.
    fn enter(&mut self, key: &Key, (label, row, vars): (&str, &Row, &Row), id: usize) -> Vec<usize> {
        let binding = [(label, row)];
        let scope = Scope::new(&binding, vars, None);
        let (values, unique) = (order::keys(&self.criteria, &scope), key::of_all(&self.unique, &scope));
        let rows = self.views.entry(key.clone()).or_default();
        let mut gone = Vec::new();
        let held = || rows.iter().position(|(_, other, _)| *other == unique);
        if let Some(at) = (!self.unique.is_empty()).then(held).flatten() {
            gone.push(rows.remove(at).2);
        }
        // Before the first entry that does not sort before it: first of those alike, as the newest.
        let at = rows.partition_point(|(other, _, _)| order::compare(other, &values, &self.descending).is_lt());
        rows.insert(at, (values, unique, id));
        let excess = rows.len().saturating_sub(self.count);
        gone.extend(rows.split_off(rows.len() - excess).into_iter().rev().map(|(_, _, id)| id));
        gone
    }
}

impl View {
    fn new(window: Option<&WindowSpec>) -> Self {
        match window {
            None => View::All,
            Some(WindowSpec::Time { millis }) => {
                View::Time { millis: *millis as i64, queue: VecDeque::new(), sets: VecDeque::new() }
            }
            Some(WindowSpec::Length { count }) => View::Length { count: *count as usize, queues: HashMap::default() },
            Some(WindowSpec::ExtTimed { millis, .. }) => View::ExtTimed { millis: *millis, queues: HashMap::default() },
            Some(WindowSpec::Grouped { inner, .. }) => View::new(Some(inner)),
            Some(WindowSpec::Sorted { unique, count, criteria }) => View::Sorted(Sorted::new(unique, *count, criteria)),
            Some(WindowSpec::TimeOrder { millis, .. }) => View::TimeOrdered { millis: *millis, due: BTreeMap::new() },
            Some(WindowSpec::TimeAccum { millis }) => View::Accumulating(Accumulating {
                millis: *millis as i64,
                views: HashMap::default(),
                timers: VecDeque::new(),
            }),
            // Nothing leaves these: what they let in stays, as with no window.
            Some(
                WindowSpec::KeepAll
                | WindowSpec::FirstLength { .. }
                | WindowSpec::FirstUnique { .. }
                | WindowSpec::FirstTime { .. },
            ) => View::All,
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
    /// The engine millisecond of the epoch being handled ([`Logic::begin`]), which `current_timestamp()` reads.
    now: i64,
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
    /// Whether `OUTPUT FIRST` lets out the rows of rows leaving the view too ([`firsts_leaving`]), which the query
    /// then keeps as `SELECT RSTREAM` does (`kept`).
    firsts_leaving: bool,
    /// Whether a count of events releases the rows ([`EventCount`]), which then needs the stamp of each entry's
    /// arrival.
    counted: bool,
    /// Whether an arrival has more to do once its rows are made: a count of events to take (`counted`), or a group
    /// its sorted window pushed it out of to end (`pushed_out`). One test on every arrival for both.
    finishes: bool,
    /// Whether an aggregate is an ever form, which a pane's rows must reach before they leave.
    ever: bool,
    /// Whether its groups' ever forms start afresh ([`QueryPlan::forgets_emptied_groups`]).
    forgets: bool,
    state: QueryState,
    /// The events' rows, once handled: kept for the worker's reaper until the epoch ends.
    done: Leftovers,
}

/// What the query evaluates for every event, compiled for its input row (a batch window's query too, `batch`).
#[derive(Debug)]
pub(super) struct PerEvent {
    /// The input's filter: an event failing it is not seen at all.
    pub(super) filter: Option<RowExpr>,
    /// A first-event view's number of events per view key: an event past it is not seen either.
    admits: Option<u64>,
    /// An externally timed view's timestamp: an event whose timestamp is null is not seen either ([`stamp_of`]).
    pub(super) stamp: Option<RowExpr>,
    /// The statement's WHERE: an event failing it enters the view but does not count.
    pub(super) where_: Option<RowExpr>,
    pub(super) group_by: Vec<RowExpr>,
    /// Each aggregate's argument (none for `count(*)`).
    args: Vec<Option<RowExpr>>,
    /// When every argument is a column of the row or `count(*)`'s none, as usual, each one's column name.
    columns: Option<Vec<Option<Name>>>,
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
        let args: Vec<Option<RowExpr>> =
            aggregation.map(|a| a.aggregates.iter().map(|c| c.arg.as_ref().map(compile)).collect()).unwrap_or_default();
        let column = |arg: &Option<RowExpr>| match arg {
            None => Some(None),
            Some(e) => e.column().map(|name| Some(name.clone())),
        };
        PerEvent {
            filter: input.filter.as_ref().map(compile),
            admits: input.window.as_ref().and_then(WindowSpec::admits),
            stamp: input.window.as_ref().and_then(WindowSpec::timestamp).map(compile),
            where_: plan.filter.as_ref().map(compile),
            group_by: aggregation.map(|a| a.group_by.iter().map(compile).collect()).unwrap_or_default(),
            columns: args.iter().map(column).collect(),
            args,
            latest_row: aggregation.is_some_and(|a| {
                let ungrouped = |e: &PlanExpr| has_ungrouped_column(e, &a.group_by);
                a.having.as_ref().is_some_and(ungrouped) || plan.order_by.iter().any(|(e, _)| ungrouped(e))
            }),
        }
    }

    /// Whether `row`'s timestamp in `win:ext_timed` is null.
    fn unstamped(&self, row: &Row, vars: &Row) -> bool {
        self.stamp(row, vars) == Some(None)
    }

    /// `row`'s timestamp in an externally timed view (`Some(None)` when null), `None` over any other view. Out of
    /// line, as the arrival path of every other view does not take it (`benches/results/cep.md`, seventy-ninth
    /// session).
    #[inline(never)]
    pub(super) fn stamp(&self, row: &Row, vars: &Row) -> Option<Option<i64>> {
        self.stamp.as_ref().map(|stamp| stamp_of(&stamp.eval(&[row], &[], vars, None)))
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
            Some(e) => e.column_of(row).map_or_else(|| Cow::Owned(e.eval(&[row], &[], vars, None)), Cow::Borrowed),
        })
    }

    /// [`PerEvent::args`] when every argument is a column (`columns`), as plain borrows: an absent column and
    /// `count(*)` read null. Matching a `Cow` for each cost `bench floor` 14 instructions an event
    /// (`benches/results/cep.md`, seventieth session).
    pub(super) fn column_args<'r>(columns: &'r [Option<Name>], row: &'r Row) -> impl Iterator<Item = &'r Val> {
        static NULL: Val = Val::Null;
        columns.iter().map(move |name| name.as_ref().and_then(|name| row.named(name)).unwrap_or(&NULL))
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
    /// `SELECT RSTREAM` with aggregates, when it keeps rows: the aggregates of the kept rows' groups.
    kept_aggregates: HashMap<Key, Accumulators, RandomState>,
    /// Of a statement that [`forgets_emptied_groups`](QueryPlan::forgets_emptied_groups): the groups left with no row
    /// that counts since its last row entered the aggregates, whose ever forms its next one forgets.
    emptied: Vec<Key>,
    /// The group of an arrival its sorted window pushed out at once, to end once the arrival's rows are made if it is
    /// left empty.
    pushed_out: Option<usize>,
    /// `SELECT RSTREAM` of a fully aggregated query under an output policy: the policy (`before`), and each group's
    /// last arrival that counted.
    before_pace: Option<BeforePace<Key>>,
    kept_last: HashMap<Key, Row, RandomState>,
    arrivals: usize,
    /// The epoch of the next output tick.
    tick: Option<u64>,
    ticks: u64,
    /// With `OUTPUT AFTER`, the millisecond before which the clock does not start (`reference::query::not_before`):
    /// state, so that it stays with a statement kept across a replacement.
    not_before: Option<i64>,
    /// What a first-event view has let in.
    admitted: Admitted,
    /// With `win:firsttime(d)`, the millisecond from which it lets nothing in: state, as `not_before` is.
    closes_at: Option<i64>,
    /// The `prior` values of the events the view posts, and the events the previous-event functions read.
    history: Option<History>,
    /// `OUTPUT ... EVERY n EVENTS`: when the statement releases, in place of a clock. Such a statement runs on one
    /// worker.
    count: Option<EventCount>,
}

impl QueryState {
    fn new(plan: &QueryPlan, input: &StreamInput) -> Self {
        QueryState {
            view: View::new(input.window.as_ref()),
            entries: Slab::new(),
            index: HashMap::default(),
            groups: Slab::new(),
            changed: Vec::new(),
            held: BTreeMap::new(),
            interval: Vec::new(),
            first: First::of(plan).filter(|_| BeforePace::<Key>::of(plan).is_none()),
            updated: false,
            hosts: false,
            kept: BTreeMap::new(),
            kept_aggregates: HashMap::default(),
            emptied: Vec::new(),
            pushed_out: None,
            before_pace: BeforePace::of(plan),
            kept_last: HashMap::default(),
            arrivals: 0,
            tick: None,
            ticks: 0,
            not_before: None,
            admitted: Admitted::default(),
            closes_at: None,
            history: History::of(input),
            count: EventCount::of(plan),
        }
    }

    /// Puts a row of group `slot`, arrival number `seq`, that leaves at `due` into the group's pane of that epoch when
    /// it has one of rows that count as this one does, else into a new one queued to leave then, folding the group's
    /// last pane. `args` reads the row's aggregate arguments; a pane already in the group's aggregates reads them
    /// twice.
    fn join<V: Borrow<Val>, I: Iterator<Item = V>>(
        &mut self,
        calls: &[AggregateCall],
        (slot, seq): (usize, u64),
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
                        g.acc(calls).add(seq, args());
                    }
                    pane.args.add(calls, (pane.seq, seq), args());
                }
                return;
            }
            Some(pane) => fold(pane, g, calls),
            None => {}
        }
        let args = Args::of_row(args());
        let id = entries.insert(Entry { group: slot, counts, rows: 1, folded: false, due, seq, args });
        g.pane = Some(id);
        if let View::Time { queue, sets, .. } = view {
            queue.push_back((due, id));
            sets.extend(set);
        }
    }
}

impl QueryLogic {
    pub fn new(statement: usize, plan: Arc<QueryPlan>, input: StreamInput, ids: (u32, u32), vars: Arc<Row>) -> Self {
        let state = QueryState::new(&plan, &input);
        let per_event = PerEvent::new(&plan, &input, &vars);
        let (stream, sink, empty, done) = (ids.0, ids.1, Key::default(), Leftovers::for_this_thread());
        let (at_changes, snapshots, represents) =
            (rows_at_changes(&plan), snapshots_rows(&plan), represents_groups(&plan));
        let fully = plan.aggregation.as_ref().is_some_and(|a| a.kind == AggregationKind::FullyAggregated);
        let (removes, before) = (removes(&plan) && !fully, removes(&plan) && fully);
        let firsts_leaving = firsts_leaving(&plan);
        let counted = state.count.is_some();
        let finishes = counted || input.window.as_ref().is_some_and(WindowSpec::pushes_out_arrivals);
        let ever = plan.aggregation.as_ref().is_some_and(|a| a.aggregates.iter().any(|c| c.function.is_ever()));
        let forgets = plan.forgets_emptied_groups();
        QueryLogic {
            statement,
            plan,
            input,
            stream,
            sink,
            vars,
            now: 0,
            empty,
            per_event,
            at_changes,
            snapshots,
            represents,
            removes,
            before,
            firsts_leaving,
            counted,
            finishes,
            ever,
            forgets,
            state,
            done,
        }
    }

    /// The query of a statement created at `created_ms`.
    pub fn created_at(mut self, created_ms: i64) -> Self {
        self.state.not_before = not_before(&self.plan, created_ms);
        self.state.closes_at = closes_at(&self.input, created_ms);
        self
    }

    /// The period of the output clock, if the statement has one.
    fn every(&self) -> Option<i64> {
        self.plan.output.as_ref().filter(|o| o.every_events.is_none()).map(|o| o.every_millis as i64)
    }

    /// Whether the statement keeps its view's rows only to count those leaving it ([`EventCount`]): one without
    /// aggregates whose ticks do not read them back (over no data window, `keep` keeps none).
    fn keeps_to_count(&self) -> bool {
        self.counted && self.plan.aggregation.is_none() && !self.snapshots_rows()
    }

    /// Numbers an arrival that enters the view or is kept, in the order they come: `first` and `last` read a group's
    /// rows in that order.
    fn next_arrival(&mut self) -> usize {
        let id = self.state.arrivals;
        self.state.arrivals += 1;
        id
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
        let holds = |e: &Option<RowExpr>| e.as_ref().is_none_or(|e| e.holds(&rows, &[], &self.vars, Some(self.now)));
        if !holds(&self.per_event.filter) {
            return;
        }
        if self.state.closes_at.is_some_and(|at| millis_of(epoch) >= at) {
            return;
        }
        if let Some(limit) = self.per_event.admits
            && !self.state.admitted.admits(limit, self.view_key(row))
        {
            return;
        }
        if self.per_event.stamp.is_some() && self.per_event.unstamped(row, &self.vars) {
            return;
        }
        // The event as the view posts it and the statement reads it, if it reads `prior` or `prev` and its kin; the
        // view keeps it with the latter null.
        let posted;
        let (row, kept) = match self.state.history.as_mut() {
            Some(history) => {
                let (window, label, vars) = (self.input.window.as_ref(), &self.input.label, &self.vars);
                let at = (millis_of(epoch), self.per_event.stamp(row, vars).flatten());
                posted = history.post(at, |row| view_state_key(window, label, row, vars), row);
                (&posted.0, &posted.1)
            }
            None => (row, row),
        };
        let counts = self.per_event.where_.as_ref().is_none_or(|e| e.holds(&[row], &[], &self.vars, Some(self.now)));
        let set = (epoch, stamp.position());
        let from_kept = match (self.paced_before(), self.firsts_leaving) {
            (true, _) => Some(self.arrive_before_paced(set, row, counts)),
            (false, true) => Some(self.arrive_first(set, row, counts)),
            (false, false) => None,
        };
        if let Some(out) = from_kept {
            self.send(emit, stamp, out);
            return;
        }
        let before = match self.before && counts {
            true => self.row_before(row),
            false => None,
        };
        let (slot, left) = match self.plan.aggregation.is_some() && !self.snapshots_rows() && !self.removes {
            true => {
                if counts && self.forgets {
                    self.start_emptied_afresh();
                }
                let (slot, left) = self.enter(set, row, counts);
                (Some(slot), left)
            }
            false => (None, Vec::new()),
        };
        let removed =
            (self.snapshots_rows() || self.removes || self.keeps_to_count()).then(|| self.keep(set, kept, counts));
        // `OUTPUT AFTER d` without a period drops the rows of the statement's first `d`: `quiet` does.
        let now = millis_of(epoch);
        let mut out = if self.before {
            before.into_iter().collect()
        } else if self.removes {
            self.removed_rows(rows_of(removed.unwrap_or_default()), now)
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
        release(left);
        if self.finishes {
            self.finish(&mut out, counts);
        }
        self.send(emit, stamp, out);
    }

    /// What an arrival does once its rows `out` are made, when the query [`finishes`](Self::finishes) any: ends the
    /// group its sorted window pushed it out of if it is left empty, and takes it in a count of events, whose release
    /// adds its rows.
    #[inline(never)]
    fn finish(&mut self, out: &mut Vec<Row>, counts: bool) {
        if let Some(slot) = self.state.pushed_out.take() {
            self.end_if_empty(slot);
        }
        if self.counted {
            out.extend(self.end_update(usize::from(counts)));
        }
    }

    /// Sends `rows` as the statement's outputs of the event `stamp` stamped ([`release`] when there are none).
    #[inline(always)]
    fn send(&self, emit: &mut Emit, stamp: Stamp, rows: Vec<Row>) {
        match rows.capacity() {
            0 => release(rows),
            _ => self.send_rows(emit, stamp, rows),
        }
    }

    #[inline(never)]
    fn send_rows(&self, emit: &mut Emit, stamp: Stamp, rows: Vec<Row>) {
        for (i, out) in rows.into_iter().enumerate() {
            emit.event(stamp.child(self.statement, i), self.sink, out);
        }
    }

    fn rows_at_changes(&self) -> bool {
        self.at_changes
    }

    /// Whether the view's rows are what an output tick releases ([`snapshots_rows`]), each with its group's aggregates
    /// when it has some (summed from the kept rows at the tick, which writes a row for each of them anyway).
    fn snapshots_rows(&self) -> bool {
        self.snapshots
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

/// The row numbered `seq` entered group `g`, with its aggregate arguments if it `counts`.
fn count<V: Borrow<Val>>(
    g: &mut Group,
    calls: &[AggregateCall],
    (counts, seq): (bool, u64),
    args: impl IntoIterator<Item = V>,
) {
    g.entries += 1;
    if counts {
        g.acc(calls).add(seq, args);
    }
}

/// Adds the rows of `entry`, a pane of group `g`, to the group's aggregates unless they are there.
fn fold(entry: &mut Entry, g: &mut Group, calls: &[AggregateCall]) {
    if !entry.folded {
        entry.folded = true;
        if entry.counts {
            entry.args.join(entry.seq, g.acc(calls));
        }
    }
}

/// Lists the group in `slot` as changed unless it already is.
#[inline(always)]
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
    fn begin(&mut self, epoch: u64) {
        self.now = millis(epoch);
    }

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
            View::TimeOrdered { due, .. } => due.first_key_value().map(|((at, _), _)| *at),
            View::Accumulating(accumulating) => accumulating.next_timer(),
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
        if let Some(history) = self.state.history.as_mut() {
            history.expire(millis_of(epoch));
        }
    }

    fn records_done(&mut self, emit: &mut Emit, epoch: u64) {
        self.fire_tick(emit, epoch);
    }

    fn export(&mut self) -> Option<State> {
        let empty = QueryState::new(&self.plan, &self.input);
        Some(Box::new(std::mem::replace(&mut self.state, empty)))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(carried) = state.downcast::<QueryState>() {
            self.state = *carried;
        }
    }

    fn stop(&mut self) {
        self.state = QueryState::new(&self.plan, &self.input);
    }
}

/// Drops a list that most events leave empty (their rows, the groups their displaced rows left) without the
/// out-of-line drop an empty list still calls: an unallocated list owns nothing. That call was 18 instructions an
/// event of `bench floor` for each list (`benches/results/cep.md`, seventieth and eightieth sessions).
#[inline(always)]
fn release<T>(list: Vec<T>) {
    match list.capacity() {
        0 => std::mem::forget(list),
        _ => drop(list),
    }
}

#[cfg(test)]
mod tests;

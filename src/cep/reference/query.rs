//! A query over one stream (or a named window's insert stream): stream filter, view, WHERE, grouped aggregation,
//! HAVING, projection, `ORDER BY` and the `OUTPUT LAST EVERY` policy, with cep-epl.md section 3's meaning; for a fully
//! aggregated query `OUTPUT SNAPSHOT EVERY`, which releases at each tick a row for every group with a row that counts
//! in the view, changed or not (Esper's `ResultSetOutputLimitRowPerGroup` trace, in `tests`), or without `GROUP BY`
//! its one row, the view empty too (Esper's `ResultSetProcessorRowForAll` iterator); for another query over a
//! data window `OUTPUT SNAPSHOT EVERY`, every row that counts in the view, in arrival order, with its group's
//! aggregates if it has some (Esper's `ResultSetOutputLimitSimple` trace; a stream without a data window keeps no rows,
//! and Esper's snapshot of it is empty: refused); and for a query without aggregates `OUTPUT [ALL] EVERY`, every row of
//! the interval at its tick, and `OUTPUT FIRST EVERY`, the interval's first row as it arrives (Esper's
//! `ResultSetOutputLimitSimple` traces). A fully aggregated, grouped query under `OUTPUT ALL EVERY` releases at each
//! tick a row for every group it knows, changed or not, an emptied one null once (Esper's
//! `ResultSetOutputLimitRowPerGroup` table; Esper's helper keeps emptied groups for every later tick, which would keep
//! every key ever seen). Under `OUTPUT FIRST EVERY`, the default `OUTPUT EVERY` and (without groups) `OUTPUT ALL EVERY`
//! a fully aggregated query's rows are its groups' as their arrivals, the rows those push out of the view and its
//! expiries change them, the rows due at one millisecond leaving together as Esper's time window lets them go (Esper's
//! `ResultSetOutputLimitRowPerGroup` and `RowForAll` traces): `FIRST` lets them out as they come by `runtime::first`,
//! the others keep them for the tick, which without groups and changes releases the row as it stands. A query with
//! ungrouped columns writes its arrivals' rows, each with the aggregates as its arrival left them, under `FIRST` as
//! they come, under the default `OUTPUT EVERY` and `ALL` at the tick (Esper's `ResultSetOutputLimitRowPerEvent` and
//! `AggregateGrouped` traces); grouped, under `ALL` also a row for each group it knows ([`represents_groups`]), and
//! under `FIRST` the rows of the rows leaving the view as well ([`firsts_leaving`]).
//! `OUTPUT AFTER d` (Esper's `OutputProcessViewConditionDefault` with its after-state): the
//! statement's first `d` after it was created give no output. The output clock starts at the first event of the stream
//! at or after that time, rather than at the first event; before it, a query without aggregates drops its rows, and an
//! aggregating one keeps its changes for the first tick, as Esper keeps them in its delta set. (Esper also starts the
//! clock at an expiry after that time; here only an event starts it.) `OUTPUT AFTER d` alone drops the rows of the
//! statement's first `d` and lets the later ones pass as they come, its state kept all along (Esper's direct after
//! view). `SELECT RSTREAM` of a query without a policy gives its remove stream (what Esper hands Cepheus's listener):
//! the rows that passed WHERE as the view lets them go, at the arrival that pushes them out or, expiring, all those
//! due at one millisecond together, each set in `ORDER BY` order, each with its group's aggregates once they left
//! when it has some (Esper's `AggregateGrouped` and `RowPerEvent`); fully aggregated, the row of each arrival's group
//! as it stood before the arrival, projected from the arriving event (Esper's `RowPerGroup` and `RowForAll` make
//! their old rows before applying a change; their old rows at expiries are left out, as the new rows are). Without
//! aggregates the rows leaving go to `OUTPUT LAST`, `ALL` and the default `OUTPUT EVERY` in the order they were in the
//! view, as the insert stream's rows would (Esper's `ResultSetProcessorSimple` output helpers), and so do those of a
//! query with ungrouped columns, each with its group's aggregates once it left (`LAST` keeps each group's last);
//! fully aggregated, the groups' rows before each change go to the policy (`before`).
//!
//! The view keeps the rows it holds as a list; each row remembers its group and whether it passed WHERE, and
//! aggregates are recomputed from the rows of a group whenever a group's row is needed. Groups touched by an
//! arrival or an expiry since the last tick are the "changed" groups a fully aggregated `OUTPUT LAST` releases.
//! What the plan alone says of a query (what runs, which rows its policy releases, the order of a tick's group rows)
//! is `rules`'s; the keys it reads off an event, `keys`'s.
//!
//! `OUTPUT ... EVERY n EVENTS` (`runtime::counted`) has no clock: its tick comes at the end of the arrival or the expiry
//! that completes the count, with the same rows a timed tick would release then.
//!
//! A query reading `prev` and its kin (`runtime::previous`; it has no output policy, and its rows are per event) puts
//! each event into the view first, reads them off the rows of the event's window (its `std:groupwin` key's) and then
//! `WHERE` reads them ([`StreamQuery::arrive_reading`]); the view keeps the event with them null, as the remove stream
//! reads them.

mod before;
mod keys;
mod rules;

use std::collections::{BTreeMap, BTreeSet};

use super::aggregate;
use super::{Ctx, TimerKind, TimerOrder};
use crate::cep::plan::{AggregationKind, Input, OutputKind, QueryPlan, StreamInput, WindowSpec};
use crate::cep::runtime::before_pace::BeforePace;
use crate::cep::runtime::counted::EventCount;
use crate::cep::runtime::eval::{Scope, holds, over_no_rows, project};
use crate::cep::runtime::first::First;
use crate::cep::runtime::previous::Prevs;
use crate::cep::runtime::prior::PriorBuffer;
use crate::cep::runtime::{EngineError, Row, Val, order};

pub use self::keys::{
    Admitted, StampedBatch, expires_before, key_of, stamp_of, time_window, timestamp, view_key, view_state_key,
};
pub use self::rules::{
    aggregates_triggers, by_tick_rank, check_query, closes_at, firsts_leaving, fully_aggregated, lasts_by_group,
    not_before, removes, represents_groups, rows_at_changes, snapshots_rows, stands, tick_rank,
};

#[derive(Debug)]
struct Entry {
    /// When it arrived, and its place among the query's arrivals.
    at: i64,
    seq: u64,
    row: Row,
    group: String,
    view_key: String,
    counts: bool,
}

#[derive(Debug)]
pub struct StreamQuery {
    plan: QueryPlan,
    input: StreamInput,
    /// The view's rows, in arrival order.
    rows: Vec<Entry>,
    arrivals: u64,
    /// The last event of each group: what an emptied group's row is projected from, and what stands for a group of
    /// a query that [`represents_groups`].
    last_event: BTreeMap<String, Row>,
    /// The groups an arrival or a row leaving touched since the last tick.
    changed: BTreeSet<String>,
    /// `OUTPUT LAST` of per-event rows: the last row per group (one group when not grouped).
    /// With each row its `ORDER BY` keys.
    held: BTreeMap<String, (Vec<Val>, Row)>,
    /// `OUTPUT ALL` without aggregates: every row of the interval, in arrival order, with its `ORDER BY` keys.
    interval: Vec<(Vec<Val>, Row)>,
    /// `OUTPUT FIRST`: which rows go out as they come.
    first: Option<First<String>>,
    /// Whether a change (an arrival or a row leaving that counted) reached the groups since the last tick: without
    /// one, a fully aggregated query without groups releases its current row under `OUTPUT [ALL] EVERY`.
    updated: bool,
    ticking: bool,
    /// With `OUTPUT AFTER`, the millisecond before which the output clock does not start: the statement's creation
    /// plus the delay.
    not_before: Option<i64>,
    /// `SELECT RSTREAM` of a fully aggregated query under an output policy: the policy of its rows before changes
    /// (`before`).
    before_pace: Option<BeforePace<String>>,
    /// What a first-event view has let in.
    admitted: Admitted,
    /// With `win:firsttime(d)`, the millisecond from which it lets nothing in.
    closes_at: Option<i64>,
    /// The `prior` values of the events the view posts.
    priors: Option<PriorBuffer>,
    /// The previous-event functions read off the view as events arrive.
    prevs: Option<Prevs>,
    /// `OUTPUT ... EVERY n EVENTS`: when the statement releases, in place of a clock.
    count: Option<EventCount>,
    /// With an ever form over the data window: every row that counted, with its group, in arrival order, but those of
    /// groups forgotten since ([`QueryPlan::forgets_emptied_groups`]).
    history: Option<Vec<(String, Row)>>,
    /// The engine's time of the event or timer being handled, which `current_timestamp()` reads.
    now: i64,
}

/// Whether `input`'s view lets `event` in: a first-event view only its first events (of a key), every other view
/// all. An event it keeps out reaches neither `WHERE` nor the aggregates, as Esper's first-length and first-unique
/// views post nothing for it.
fn admits(admitted: &mut Admitted, input: &StreamInput, event: &Row, vars: &Row) -> bool {
    let window = input.window.as_ref();
    let Some(limit) = window.and_then(WindowSpec::admits) else {
        return true;
    };
    admitted.admits(limit, view_state_key(window, &input.label, event, vars))
}

/// Whether `event` has a timestamp, if `input`'s view is `win:ext_timed` or `ext:time_order`: one without is kept out
/// ([`timestamp`]).
fn stamped(input: &StreamInput, event: &Row, vars: &Row) -> bool {
    let stamp = input.window.as_ref().and_then(WindowSpec::timestamp);
    stamp.is_none_or(|stamp| timestamp(stamp, &input.label, event, vars).is_some())
}

/// The groups of `entries`, in order.
fn groups_of(entries: &[Entry]) -> Vec<String> {
    entries.iter().map(|e| e.group.clone()).collect()
}

impl StreamQuery {
    /// The query of statement `number`, created at `created_ms`.
    pub fn new(number: usize, q: &QueryPlan, created_ms: i64) -> Result<Self, EngineError> {
        check_query(number, q)?;
        let Input::Stream(input) = &q.input else {
            return Err(EngineError::Unsupported { statement: number, construct: "this input".into() });
        };
        debug_assert!(
            !input.window.as_ref().is_some_and(WindowSpec::batches),
            "a batch window's query is a BatchQuery"
        );
        Ok(StreamQuery {
            plan: q.clone(),
            input: input.clone(),
            rows: Vec::new(),
            arrivals: 0,
            last_event: BTreeMap::new(),
            changed: BTreeSet::new(),
            held: BTreeMap::new(),
            interval: Vec::new(),
            first: First::of(q).filter(|_| BeforePace::<String>::of(q).is_none()),
            updated: false,
            ticking: false,
            not_before: not_before(q, created_ms),
            before_pace: BeforePace::of(q),
            admitted: Admitted::default(),
            closes_at: closes_at(input, created_ms),
            priors: PriorBuffer::of(input),
            prevs: Prevs::of(input),
            count: EventCount::of(q),
            history: aggregate::history(q, input),
            now: created_ms,
        })
    }

    fn scope<'a>(&'a self, rows: &'a [(&'a str, &'a Row)], aggregates: &'a [Val], vars: &'a Row) -> Scope<'a> {
        Scope { rows, aggregates, vars, pinned: &[], now: Some(self.now) }
    }

    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, stream: &str, event: &Row) -> Vec<Row> {
        if stream != self.input.stream {
            return Vec::new();
        }
        self.now = ctx.now;
        let mut rows = self.take_event(ctx, event);
        rows.extend(self.end_update(ctx));
        rows
    }

    /// An update (an arrival or the rows leaving together) is over: under `OUTPUT ... EVERY n EVENTS`, the rows it
    /// releases if the count is due ([`EventCount`]). Under `OUTPUT FIRST` one that reached the output closes the
    /// count's first.
    fn end_update(&mut self, ctx: &mut Ctx<'_>) -> Vec<Row> {
        let Some(counted) = self.count.as_mut().map(EventCount::end_update) else {
            return Vec::new();
        };
        if let Some(first) = self.first.as_mut().filter(|_| counted.reached) {
            first.close();
        }
        match counted.due {
            true => self.tick(ctx),
            false => Vec::new(),
        }
    }

    /// The rows the arrival of `event` gives now (a count's release aside).
    fn take_event(&mut self, ctx: &mut Ctx<'_>, event: &Row) -> Vec<Row> {
        self.start_ticking(ctx);
        let label = self.input.label.as_str();
        let binding = [(label, event)];
        if !holds(self.input.filter.as_ref(), &Scope::new(&binding, ctx.vars, Some(ctx.now))) {
            return Vec::new();
        }
        if self.closes_at.is_some_and(|at| ctx.now >= at) || !admits(&mut self.admitted, &self.input, event, ctx.vars) {
            return Vec::new();
        }
        if !stamped(&self.input, event, ctx.vars) {
            return Vec::new();
        }
        let posted;
        let event = match self.priors.as_mut() {
            Some(priors) => {
                posted = priors.post(event);
                &posted
            }
            None => event,
        };
        if let Some(prevs) = self.prevs.take() {
            let rows = self.arrive_reading(ctx, &prevs, event);
            self.prevs = Some(prevs);
            return rows;
        }
        let binding = [(label, event)];
        let counts = holds(self.plan.filter.as_ref(), &Scope::new(&binding, ctx.vars, Some(ctx.now)));
        if let Some(count) = self.count.as_mut() {
            count.enter(usize::from(counts));
        }
        let group = self.group_key(event, ctx.vars);
        if self.before_pace.is_some() {
            return self.arrive_before_paced(ctx, event, &group, counts);
        }
        let before = match removes(&self.plan) && fully_aggregated(&self.plan) && counts {
            true => self.row_before(event, &group, ctx.vars),
            false => None,
        };
        // A count of events counts the rows leaving a data window too.
        let counts_leaving = self.count.is_some() && self.input.window.is_some();
        let displaced =
            match self.plan.aggregation.is_some() || self.snapshots_rows() || removes(&self.plan) || counts_leaving {
                true => self.enter(ctx, event, &group, counts),
                false => Vec::new(),
            };
        if removes(&self.plan) {
            return match fully_aggregated(&self.plan) {
                true => before.into_iter().collect(),
                false => self.removed_rows(ctx, &displaced),
            };
        }
        if firsts_leaving(&self.plan) {
            let rows = self.first_rows(ctx, counts.then_some((group.as_str(), event)), &displaced);
            self.forget_emptied(&groups_of(&displaced));
            return rows;
        }
        let displaced = groups_of(&displaced);
        // `OUTPUT AFTER d` without a period drops the rows of the statement's first `d`: the engine does
        // (`Reference::quiet`), for every kind of statement.
        let rows = match (self.rows_at_changes(), counts) {
            (true, _) => {
                let arrived = counts.then(|| self.last_event.insert(group.clone(), event.clone())).map(|_| group);
                self.group_rows(ctx, arrived.into_iter().chain(displaced.iter().cloned()).collect())
            }
            (false, true) => self.arrive(ctx, event, &group),
            (false, false) => Vec::new(),
        };
        self.hold_group_rows(ctx, &displaced);
        self.forget_emptied(&displaced);
        rows
    }

    /// The arrival of `event` at a statement reading `prevs` (which has no output policy and no fully aggregated
    /// rows): it enters the view first, then the functions are read off its window, then `WHERE` reads them. The view
    /// keeps the event with them null, for the remove stream.
    fn arrive_reading(&mut self, ctx: &mut Ctx<'_>, prevs: &Prevs, event: &Row) -> Vec<Row> {
        let group = self.group_key(event, ctx.vars);
        let displaced = self.enter(ctx, &prevs.nulled(event), &group, true);
        let entered = self.rows.last().expect("the event entered").view_key.clone();
        let window: Vec<&Row> = self.rows.iter().filter(|e| e.view_key == entered).map(|e| &e.row).collect();
        let read = prevs.read(event, |i| window[i], window.len(), window.len() - 1);
        let binding = [(self.input.label.as_str(), &read)];
        let counts = holds(self.plan.filter.as_ref(), &Scope::new(&binding, ctx.vars, Some(ctx.now)));
        self.rows.last_mut().expect("the event entered").counts = counts;
        match (removes(&self.plan), counts) {
            (true, _) => self.removed_rows(ctx, &displaced),
            (false, true) => self.arrive(ctx, &read, &group),
            (false, false) => Vec::new(),
        }
    }

    fn rows_at_changes(&self) -> bool {
        rows_at_changes(&self.plan)
    }

    /// The rows of `groups` (in the order they changed, each once) at a change: those `OUTPUT FIRST` lets out now, in
    /// `ORDER BY` order (none before `OUTPUT AFTER`'s time, when Esper does not look at its conditions); under the
    /// other policies none now, all kept for the tick.
    fn group_rows(&mut self, ctx: &Ctx<'_>, mut groups: Vec<String>) -> Vec<Row> {
        if groups.is_empty() {
            return Vec::new();
        }
        self.updated = true;
        let mut seen = BTreeSet::new();
        groups.retain(|g| seen.insert(g.clone()));
        let rows: Vec<(&String, (Vec<Val>, Row))> =
            groups.iter().filter_map(|g| self.keyed_group_row(g, ctx.vars).map(|row| (g, row))).collect();
        let Some(first) = self.first.as_mut() else {
            self.interval.extend(rows.into_iter().map(|(_, row)| row));
            return Vec::new();
        };
        if self.not_before.is_some_and(|at| ctx.now < at) {
            return Vec::new();
        }
        let passed = rows.into_iter().filter(|(g, _)| first.passes(g, ctx.now)).map(|(_, row)| row).collect();
        order::ordered(passed, &self.plan.order_by)
    }

    /// Forgets the `OUTPUT FIRST` state of the groups among `groups` left with no row that counts in the view.
    fn forget_emptied(&mut self, groups: &[String]) {
        let Some(first) = self.first.as_mut() else {
            return;
        };
        for group in groups.iter().filter(|g| !self.rows.iter().any(|e| e.counts && e.group == **g)) {
            first.forget(group);
        }
    }

    fn snapshots_rows(&self) -> bool {
        snapshots_rows(&self.plan)
    }

    fn represents_groups(&self) -> bool {
        represents_groups(&self.plan)
    }

    /// Keeps for the tick the rows of `groups` (each once, in the order they lost rows) of a query that
    /// [`represents_groups`], once the rows that leave together have left.
    fn hold_group_rows(&mut self, ctx: &Ctx<'_>, groups: &[String]) {
        if !self.represents_groups() {
            return;
        }
        let mut seen = BTreeSet::new();
        let rows: Vec<(Vec<Val>, Row)> =
            groups.iter().filter(|g| seen.insert(*g)).filter_map(|g| self.keyed_group_row(g, ctx.vars)).collect();
        self.interval.extend(rows);
    }

    /// At a tick of a query that [`represents_groups`], the rows of the groups `changed` (the interval's) did not
    /// touch, by [`tick_rank`]; then the groups with no row that counts are forgotten.
    fn unseen_group_rows(&mut self, vars: &Row, changed: &BTreeSet<String>) -> Vec<(Vec<Val>, Row)> {
        let mut unseen: Vec<&String> = self.last_event.keys().filter(|g| !changed.contains(*g)).collect();
        unseen.sort_by_cached_key(|g| (tick_rank(g), (*g).clone()));
        let rows = unseen.into_iter().filter_map(|g| self.keyed_group_row(g, vars)).collect();
        let counting: BTreeSet<&String> = self.rows.iter().filter(|e| e.counts).map(|e| &e.group).collect();
        let emptied: Vec<String> = self.last_event.keys().filter(|g| !counting.contains(g)).cloned().collect();
        for group in emptied {
            self.last_event.remove(&group);
        }
        rows
    }

    fn start_ticking(&mut self, ctx: &mut Ctx<'_>) {
        if self.not_before.is_some_and(|at| ctx.now < at) {
            return;
        }
        if let (Some(o), false, None) = (&self.plan.output, self.ticking, &self.count) {
            self.ticking = true;
            ctx.schedule(ctx.now + o.every_millis as i64, TimerOrder::Output, TimerKind::Tick);
        }
    }

    /// The groups with no row that counts in the view start their ever forms afresh: a row is entering the
    /// aggregates, before the rows it pushes out leave (Esper's refcounted groups, forgotten at the next entry).
    fn forget_emptied_groups(&mut self) {
        let rows = &self.rows;
        if let Some(history) = self.history.as_mut() {
            history.retain(|(group, _)| rows.iter().any(|e| e.counts && e.group == *group));
        }
    }

    fn group_key(&self, event: &Row, vars: &Row) -> String {
        let exprs = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
        key_of(exprs, &self.input.label, event, vars)
    }

    /// Puts the event in the view, dropping what it displaces; answers the displaced rows that counted, in arrival
    /// order.
    fn enter(&mut self, ctx: &mut Ctx<'_>, event: &Row, group: &str, counts: bool) -> Vec<Entry> {
        if counts && self.plan.forgets_emptied_groups() {
            self.forget_emptied_groups();
        }
        let view_key =
            self.input.window.as_ref().map_or(String::new(), |w| view_key(w, &self.input.label, event, ctx.vars));
        let (at, row, group) = (ctx.now, event.clone(), group.to_owned());
        let entry = Entry { at, seq: self.arrivals, row, group, view_key, counts };
        self.arrivals += 1;
        let displaced: Vec<usize> = match &self.input.window {
            Some(WindowSpec::Unique { .. }) | Some(WindowSpec::LastEvent) => {
                self.positions(|e| e.view_key == entry.view_key)
            }
            Some(WindowSpec::Grouped { inner, .. })
                if matches!(**inner, WindowSpec::Unique { .. } | WindowSpec::LastEvent) =>
            {
                self.positions(|e| e.view_key == entry.view_key)
            }
            Some(window) => match window.sorted() {
                // `ext:rank`: the event of the arrival's unique key, in the arrival's view.
                Some((unique, _, _)) if !unique.is_empty() => {
                    let (label, vars) = (self.input.label.as_str(), ctx.vars);
                    let key = key_of(unique, label, event, vars);
                    self.positions(|e| e.view_key == entry.view_key && key_of(unique, label, &e.row, vars) == key)
                }
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        let mut left = self.remove_at(displaced);
        let window = self.input.window.as_ref();
        if let Some(millis) = window.and_then(time_window).or(window.and_then(WindowSpec::accumulates)) {
            ctx.schedule(ctx.now + millis as i64, TimerOrder::Expiry, TimerKind::Expire);
        }
        if let Some(history) = self.history.as_mut().filter(|_| entry.counts) {
            history.push((entry.group.clone(), entry.row.clone()));
        }
        self.rows.push(entry);
        left.extend(self.trim_length(&self.input.window.clone()));
        left.extend(self.trim_ext_timed(ctx.vars));
        left.extend(self.trim_sorted(ctx.vars));
        left.extend(self.time_ordered(ctx));
        left
    }

    /// `ext:time_order(timestamp, d)`: the new row leaves once the clock reaches its timestamp plus `d`; if it has
    /// already, it leaves at once (Esper's window tail is the clock less `d` plus 1).
    fn time_ordered(&mut self, ctx: &mut Ctx<'_>) -> Vec<Entry> {
        let Some((stamp, millis)) = self.input.window.as_ref().and_then(WindowSpec::time_order) else {
            return Vec::new();
        };
        let newest = self.rows.last().expect("the event entered");
        let at = timestamp(stamp, &self.input.label, &newest.row, ctx.vars).expect("only stamped events enter");
        if at < expires_before(ctx.now, millis) {
            return self.remove_at(vec![self.rows.len() - 1]);
        }
        ctx.schedule(at.saturating_add(millis as i64), TimerOrder::Expiry, TimerKind::Expire);
        Vec::new()
    }

    /// `ext:sort(n, criteria)` and `ext:rank`: past `n` rows of the new one's view key, the row that sorts last
    /// leaves, of rows that sort alike the oldest; it may be the new one.
    fn trim_sorted(&mut self, vars: &Row) -> Vec<Entry> {
        let Some((_, count, criteria)) = self.input.window.as_ref().and_then(WindowSpec::sorted) else {
            return Vec::new();
        };
        let label = self.input.label.as_str();
        let descending: Vec<bool> = criteria.iter().map(|(_, desc)| *desc).collect();
        let values = |e: &Entry| order::keys(criteria, &Scope::new(&[(label, &e.row)], vars, None));
        let key = &self.rows.last().expect("the event entered").view_key;
        let same = self.positions(|e| e.view_key == *key);
        let Some(excess) = same.len().checked_sub(count as usize).filter(|excess| *excess > 0) else {
            return Vec::new();
        };
        // Rows in arrival order: the first of those that sort last is the oldest of them.
        let mut by_order: Vec<(Vec<Val>, usize)> = same.into_iter().map(|i| (values(&self.rows[i]), i)).collect();
        by_order.sort_by(|(a, i), (b, j)| order::compare(b, a, &descending).then(i.cmp(j)));
        let last: Vec<usize> = by_order.into_iter().take(excess).map(|(_, i)| i).collect();
        self.remove_at(last)
    }

    /// `win:ext_timed`: the rows of the new one's view key, oldest first, up to the first whose timestamp is not before
    /// the new one's [`expires_before`] (an older one behind it stays, as in Esper's window).
    fn trim_ext_timed(&mut self, vars: &Row) -> Vec<Entry> {
        let Some((stamp, millis)) = self.input.window.as_ref().and_then(WindowSpec::ext_timed) else {
            return Vec::new();
        };
        let label = self.input.label.as_str();
        let stamp_at = |e: &Entry| timestamp(stamp, label, &e.row, vars).expect("only stamped events enter");
        let newest = self.rows.last().expect("the event entered");
        let (before, key) = (expires_before(stamp_at(newest), millis), &newest.view_key);
        let same = self.positions(|e| e.view_key == *key);
        let expired = same.into_iter().take_while(|&i| stamp_at(&self.rows[i]) < before).collect();
        self.remove_at(expired)
    }

    fn trim_length(&mut self, window: &Option<WindowSpec>) -> Vec<Entry> {
        let (count, key) = match window {
            Some(WindowSpec::Length { count }) => (*count as usize, None),
            Some(WindowSpec::Grouped { inner, .. }) => match inner.as_ref() {
                WindowSpec::Length { count } => (*count as usize, self.rows.last().map(|e| e.view_key.clone())),
                _ => return Vec::new(),
            },
            _ => return Vec::new(),
        };
        let same: Vec<usize> = self.positions(|e| key.as_ref().is_none_or(|k| *k == e.view_key));
        let excess = same.len().saturating_sub(count);
        self.remove_at(same.into_iter().take(excess).collect())
    }

    fn positions(&self, keep: impl Fn(&Entry) -> bool) -> Vec<usize> {
        self.rows.iter().enumerate().filter(|(_, e)| keep(e)).map(|(i, _)| i).collect()
    }

    /// Removes the rows at `positions`; answers those that counted, in arrival order.
    fn remove_at(&mut self, mut positions: Vec<usize>) -> Vec<Entry> {
        positions.sort_unstable();
        let mut gone: Vec<Entry> = Vec::new();
        for i in positions.into_iter().rev() {
            let entry = self.rows.remove(i);
            if entry.counts {
                self.changed.insert(entry.group.clone());
                gone.push(entry);
            }
        }
        gone.reverse();
        if let Some(count) = self.count.as_mut() {
            count.leave(gone.len());
        }
        gone
    }

    /// The rows of `SELECT RSTREAM` when `gone` left the view together, each with its group's aggregates once they
    /// left (if it has some, and passes HAVING), in `ORDER BY` order; under an output policy, none now: each is kept
    /// for the tick, in the order they were in the view (under `LAST`, the last of each group, one group without
    /// `GROUP BY`, as Esper's `AggregateGrouped` and `AggregateAll` keep their old rows).
    fn removed_rows(&mut self, ctx: &Ctx<'_>, gone: &[Entry]) -> Vec<Row> {
        let vars = ctx.vars;
        let passed: Vec<(&Entry, Vec<Val>)> = gone
            .iter()
            .map(|e| (e, self.aggregates(&e.group, vars)))
            .filter(|(e, aggregates)| self.having(&e.row, aggregates, vars))
            .collect();
        if self.plan.output.is_some() {
            let mut rows = Vec::new();
            for (e, aggregates) in passed {
                rows.extend(self.emit_or_hold(ctx, &e.group, &e.row, &aggregates));
            }
            return rows;
        }
        let rows = passed.into_iter().map(|(e, aggregates)| {
            (self.order_keys(&e.row, &aggregates, vars), self.project(&e.row, &aggregates, vars))
        });
        order::ordered(rows.collect(), &self.plan.order_by)
    }

    /// The row of `SELECT RSTREAM` of a fully aggregated query at an arrival in `group`, before it enters: the group's
    /// aggregates as they stand (a count 0 and other aggregates null for a group with no row that counts), projected
    /// from the arriving `event`, if it passes HAVING.
    fn row_before(&self, event: &Row, group: &str, vars: &Row) -> Option<Row> {
        self.keyed_row_before(event, group, &[], vars).map(|(_, row)| row)
    }

    fn arrive(&mut self, ctx: &mut Ctx<'_>, event: &Row, group: &str) -> Vec<Row> {
        let Some(aggregation) = &self.plan.aggregation else {
            return self.emit_or_hold(ctx, group, event, &[]);
        };
        match aggregation.kind {
            AggregationKind::FullyAggregated => {
                self.last_event.insert(group.to_owned(), event.clone());
                if self.plan.output.is_some() {
                    self.changed.insert(group.to_owned());
                    return Vec::new();
                }
                self.group_row(group, ctx.vars).into_iter().collect()
            }
            AggregationKind::WithUngroupedColumns(_) => {
                if self.represents_groups() {
                    self.last_event.insert(group.to_owned(), event.clone());
                    self.changed.insert(group.to_owned());
                }
                let aggregates = self.aggregates(group, ctx.vars);
                match self.having(event, &aggregates, ctx.vars) {
                    true => self.emit_or_hold(ctx, group, event, &aggregates),
                    false => Vec::new(),
                }
            }
        }
    }

    /// Under `OUTPUT FIRST` of a grouped query with ungrouped columns ([`firsts_leaving`]), the rows of a change that go
    /// out: of its arrival (with its group) and then of the rows `gone` from the view, each with its group's aggregates
    /// after the change, if it passes HAVING and its group let none out in the last `p`; in `ORDER BY` order. None
    /// before `OUTPUT AFTER`'s time.
    fn first_rows(&mut self, ctx: &Ctx<'_>, arrival: Option<(&str, &Row)>, gone: &[Entry]) -> Vec<Row> {
        if self.not_before.is_some() && !self.ticking {
            return Vec::new();
        }
        let vars = ctx.vars;
        let mut rows = Vec::new();
        for (group, event) in arrival.into_iter().chain(gone.iter().map(|e| (e.group.as_str(), &e.row))) {
            let aggregates = self.aggregates(group, vars);
            if !self.having(event, &aggregates, vars) {
                continue;
            }
            let first = self.first.as_mut().expect("OUTPUT FIRST has its gate");
            if first.passes(&group.to_owned(), ctx.now) {
                rows.push((self.order_keys(event, &aggregates, vars), self.project(event, &aggregates, vars)));
            }
        }
        order::ordered(rows, &self.plan.order_by)
    }

    /// The row of `event` at once, or without it until the next output tick.
    fn emit_or_hold(&mut self, ctx: &Ctx<'_>, group: &str, event: &Row, aggregates: &[Val]) -> Vec<Row> {
        // Before `OUTPUT AFTER`'s time, a query without aggregates keeps nothing for its first tick, and `OUTPUT
        // FIRST` lets nothing out.
        let early = self.not_before.is_some() && !self.ticking;
        if self.plan.output.is_some() && early && (self.plan.aggregation.is_none() || self.first.is_some()) {
            return Vec::new();
        }
        let vars = ctx.vars;
        let row = self.project(event, aggregates, vars);
        let keys = || self.order_keys(event, aggregates, vars);
        match self.plan.output.as_ref().map(|o| o.kind) {
            None => return vec![row],
            Some(OutputKind::First) => {
                let group = group.to_owned();
                if self.first.as_mut().is_some_and(|first| first.passes(&group, ctx.now)) {
                    return vec![row];
                }
            }
            Some(OutputKind::All | OutputKind::Default) => self.interval.push((keys(), row)),
            // The tick releases the view's rows.
            Some(OutputKind::Snapshot) => {}
            Some(OutputKind::Last) => {
                let keys = keys();
                self.held.insert(group.to_owned(), (keys, row));
            }
        }
        Vec::new()
    }

    fn aggregates(&self, group: &str, vars: &Row) -> Vec<Val> {
        self.aggregates_with(group, &[], vars)
    }

    /// The aggregates of `group`'s rows in the view and in `gone`, rows that just left it, in arrival order.
    fn aggregates_with(&self, group: &str, gone: &[Entry], vars: &Row) -> Vec<Val> {
        let Some(aggregation) = &self.plan.aggregation else {
            return Vec::new();
        };
        let mut entries: Vec<&Entry> = self.rows.iter().chain(gone).filter(|e| e.counts && e.group == group).collect();
        entries.sort_by_key(|e| e.seq);
        let rows: Vec<&Row> = entries.into_iter().map(|e| &e.row).collect();
        let history = aggregate::of_group(self.history.as_deref(), group, &rows);
        if history.is_empty() {
            return over_no_rows(&aggregation.aggregates);
        }
        aggregate::compute(&aggregation.aggregates, &self.input.label, &rows, &history, vars)
    }

    /// A fully aggregated group's row, projected from its last event.
    fn group_row(&self, group: &str, vars: &Row) -> Option<Row> {
        self.keyed_group_row(group, vars).map(|(_, row)| row)
    }

    /// [`StreamQuery::group_row`] with its `ORDER BY` keys.
    fn keyed_group_row(&self, group: &str, vars: &Row) -> Option<(Vec<Val>, Row)> {
        let event = self.last_event.get(group)?;
        let aggregates = self.aggregates(group, vars);
        let row = self.having(event, &aggregates, vars).then(|| self.project(event, &aggregates, vars))?;
        Some((self.order_keys(event, &aggregates, vars), row))
    }

    /// The row of a fully aggregated query without groups as it stands, read with no event (as Esper reads it when
    /// nothing changed in an interval): what its `OUTPUT [ALL] EVERY` releases then.
    fn current_row(&self, vars: &Row) -> Option<(Vec<Val>, Row)> {
        let (event, aggregates) = (Row::default(), self.aggregates("", vars));
        let row = self.having(&event, &aggregates, vars).then(|| self.project(&event, &aggregates, vars))?;
        Some((self.order_keys(&event, &aggregates, vars), row))
    }

    /// The `ORDER BY` keys of the row of `event`.
    fn order_keys(&self, event: &Row, aggregates: &[Val], vars: &Row) -> Vec<Val> {
        let binding = [(self.input.label.as_str(), event)];
        order::keys(&self.plan.order_by, &self.scope(&binding, aggregates, vars))
    }

    fn having(&self, event: &Row, aggregates: &[Val], vars: &Row) -> bool {
        let having = self.plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
        let binding = [(self.input.label.as_str(), event)];
        holds(having, &self.scope(&binding, aggregates, vars))
    }

    fn project(&self, event: &Row, aggregates: &[Val], vars: &Row) -> Row {
        let binding = [(self.input.label.as_str(), event)];
        let scope = self.scope(&binding, aggregates, vars);
        project(&self.plan.projection, &scope)
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx<'_>, kind: TimerKind) -> Vec<Row> {
        self.now = ctx.now;
        match kind {
            TimerKind::Expire => {
                let mut rows = self.expire(ctx);
                rows.extend(self.end_update(ctx));
                rows
            }
            TimerKind::Tick => self.tick(ctx),
            TimerKind::Pattern(_) | TimerKind::Batch => Vec::new(),
        }
    }

    /// The rows due leave the view together, at the first of their timers, as Esper's time window lets them go.
    fn expire(&mut self, ctx: &mut Ctx<'_>) -> Vec<Row> {
        let (gone, stamps) = self.due(ctx);
        if self.before_pace.is_some() {
            return self.expire_before_paced(ctx, gone);
        }
        let mut left = self.remove_at(gone);
        if let Some(stamps) = stamps {
            // `ext:time_order` lets them go in timestamp order; of one timestamp, in arrival order.
            left.sort_by_key(|e| stamps.get(&e.seq).copied());
        }
        // A fully aggregated query's rows go by its arrivals, the remove stream's as the insert stream's.
        if removes(&self.plan) {
            return match fully_aggregated(&self.plan) {
                true => Vec::new(),
                false => self.removed_rows(ctx, &left),
            };
        }
        let rows = match firsts_leaving(&self.plan) {
            true => self.first_rows(ctx, None, &left),
            false => Vec::new(),
        };
        let left = groups_of(&left);
        let rows = match self.rows_at_changes() {
            true => self.group_rows(ctx, left.clone()),
            false => rows,
        };
        self.hold_group_rows(ctx, &left);
        self.forget_emptied(&left);
        rows
    }

    /// The positions of the rows due to leave at the clock's time: a time window's that arrived its period ago or
    /// earlier, `ext:time_order`'s whose timestamp is before its window tail (with the timestamps by arrival number),
    /// `win:time_accum`'s whose view key had no arrival for its period.
    fn due(&self, ctx: &Ctx<'_>) -> (Vec<usize>, Option<BTreeMap<u64, i64>>) {
        if let Some(millis) = self.input.window.as_ref().and_then(WindowSpec::accumulates) {
            let mut latest: BTreeMap<&str, i64> = BTreeMap::new();
            for e in &self.rows {
                let at = latest.entry(e.view_key.as_str()).or_insert(e.at);
                *at = (*at).max(e.at);
            }
            let quiet = |e: &Entry| latest[e.view_key.as_str()].saturating_add(millis as i64) <= ctx.now;
            return (self.positions(quiet), None);
        }
        if let Some((stamp, millis)) = self.input.window.as_ref().and_then(WindowSpec::time_order) {
            let label = self.input.label.as_str();
            let stamp_at = |e: &Entry| timestamp(stamp, label, &e.row, ctx.vars).expect("only stamped events enter");
            let tail = expires_before(ctx.now, millis);
            let gone = self.positions(|e| stamp_at(e) < tail);
            let stamps = gone.iter().map(|&i| (self.rows[i].seq, stamp_at(&self.rows[i]))).collect();
            return (gone, Some(stamps));
        }
        let millis = self.input.window.as_ref().and_then(time_window).unwrap_or_default() as i64;
        (self.positions(|e| e.at.saturating_add(millis) <= ctx.now), None)
    }

    fn tick(&mut self, ctx: &mut Ctx<'_>) -> Vec<Row> {
        if let Some(o) = self.plan.output.as_ref().filter(|_| self.count.is_none()) {
            ctx.schedule(ctx.now + o.every_millis as i64, TimerOrder::Output, TimerKind::Tick);
        }
        if self.before_pace.is_some() {
            return self.tick_before_paced(ctx.vars);
        }
        let fully = fully_aggregated(&self.plan);
        if self.snapshots_rows() {
            // Every row that counts in the view, in arrival order (Esper's unique view iterates a hash map instead),
            // with its group's aggregates, if HAVING holds.
            let counting = self.rows.iter().filter(|e| e.counts);
            let rows = counting.filter_map(|e| {
                let aggregates = self.aggregates(&e.group, ctx.vars);
                self.having(&e.row, &aggregates, ctx.vars).then(|| {
                    (self.order_keys(&e.row, &aggregates, ctx.vars), self.project(&e.row, &aggregates, ctx.vars))
                })
            });
            return order::ordered(rows.collect(), &self.plan.order_by);
        }
        if let Some(first) = self.first.as_mut() {
            // Its rows went out as they came.
            first.tick();
            self.changed.clear();
            return Vec::new();
        }
        if self.rows_at_changes() {
            self.changed.clear();
            let mut rows = std::mem::take(&mut self.interval);
            if !std::mem::take(&mut self.updated)
                && self.plan.aggregation.as_ref().is_some_and(|a| a.group_by.is_empty())
            {
                rows.extend(self.current_row(ctx.vars));
            }
            return order::ordered(rows, &self.plan.order_by);
        }
        if !fully {
            let changed = std::mem::take(&mut self.changed);
            let mut rows: Vec<(Vec<Val>, Row)> = std::mem::take(&mut self.interval);
            if self.represents_groups() {
                rows.extend(self.unseen_group_rows(ctx.vars, &changed));
            }
            rows.extend(std::mem::take(&mut self.held).into_values());
            return order::ordered(rows, &self.plan.order_by);
        }
        let changed = std::mem::take(&mut self.changed);
        let kind = self.plan.output.as_ref().map(|o| o.kind);
        let ungrouped = self.plan.aggregation.as_ref().is_some_and(|a| a.group_by.is_empty());
        let mut released: Vec<String> = match kind {
            // Without groups, the row as it stands, below.
            Some(OutputKind::Snapshot) if ungrouped => Vec::new(),
            // Every group with a row that counts in the view, changed or not (Esper's `output snapshot`).
            Some(OutputKind::Snapshot) => {
                let groups: BTreeSet<String> = self.rows.iter().filter(|e| e.counts).map(|e| e.group.clone()).collect();
                groups.into_iter().collect()
            }
            // Every group with a row that counted since the last tick (Esper's `output all`): those still in the
            // view and those emptied since, null.
            Some(OutputKind::All) => self.last_event.keys().cloned().collect(),
            _ => changed.iter().cloned().collect(),
        };
        released.sort_by_cached_key(|g| (tick_rank(g), g.clone()));
        let mut rows: Vec<(Vec<Val>, Row)> =
            released.iter().filter_map(|g| self.keyed_group_row(g, ctx.vars)).collect();
        // Without groups, `LAST` after an interval with no change releases the row as it stands (Esper's
        // `ResultSetProcessorRowForAll` reads it when handed no change), and `SNAPSHOT` always does (its iterator's
        // one row, the window empty too).
        let last = kind == Some(OutputKind::Last) && changed.is_empty();
        if ungrouped && (last || kind == Some(OutputKind::Snapshot)) {
            rows.extend(self.current_row(ctx.vars));
        }
        let rows = order::ordered(rows, &self.plan.order_by);
        for group in changed {
            if !self.rows.iter().any(|e| e.group == group) {
                self.last_event.remove(&group);
            }
        }
        rows
    }
}

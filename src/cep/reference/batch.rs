//! A query over a batch window, `win:length_batch(n)`, `win:time_batch(d)`, `win:time_length_batch(d, n)` or
//! `win:ext_timed_batch(timestamp, d[, reference])`, alone or inside `std:groupwin`, with Esper's meaning (its
//! `LengthBatchView`, `TimeBatchView`, `TimeLengthBatchView`, `ExternallyTimedBatchView`, `GroupByView` and result-set
//! processors).
//!
//! The view collects the events that pass the stream filter and releases them together: when the n-th arrives, when
//! a period ends, or both, whichever is first (a time-length batch, whose clock starts at an event when stopped and
//! again at each release, as a time batch's next period starts at its end), or, externally timed, when an event
//! arrives whose timestamp reaches the end of the period the batch's oldest timestamp is in (the periods count from
//! the reference point, else from the key's first timestamp). That event then starts the next batch; such a batch
//! needs no timer, and stays collected until an event releases it. An event whose timestamp is null is kept out
//! (Esper's view fails on it). The released batch is then the view's contents until the next release replaces it, so
//! at a release the statement sees the new batch arrive and the one before it leave, both filtered by WHERE. Inside
//! `std:groupwin(keys)` each key has batches of its own, made at its first event: a key's n-th event releases its
//! batch alone, and its periods count from its own first event. The view's contents are then every key's released
//! batch, and the aggregates run over all of them. A release emits:
//!
//! - without aggregates, one row per new event, in arrival order (under `SELECT RSTREAM`, per replaced event, with
//!   its group's aggregates as below when the query has ungrouped columns; fully aggregated, the rows below as they
//!   stood before the release);
//! - fully aggregated, one row per group with an event in either batch, its aggregates over the view's contents
//!   after the release (a count 0 and other aggregates null for a group with no event left, as an emptied group's
//!   row under `OUTPUT LAST`),
//!   projected from the group's last event seen, old ones seen after new ones (Esper 8's `generateGroupKeysKeepEvent`;
//!   only HAVING can tell, when it reads a column that is neither grouped nor aggregated);
//! - with ungrouped columns, one row per new event with its group's aggregates over the view's contents.
//!
//! HAVING filters each row, and `ORDER BY` sorts the rows of each release. A time batch's periods start at its first
//! event and follow on from it: each ends at the start plus a whole number of periods. A period that ends with
//! neither the collected batch nor the last released one holding an event releases nothing and stops the clock; the
//! next event starts it again, due at the next period end after it. So after its last events a time batch releases
//! once more with nothing new (its groups' empty rows), and then stops. Keys whose periods end at the same
//! millisecond release in the order of their first events, as Esper's schedule orders the views' callbacks by the
//! slots they took when made (`ViewGroupLengthBatch` and `ViewGroupTimeBatch` of its regression suite are the fixed
//! tests). A key's batches are kept once made, as Esper keeps its view: their number grows with the keys seen, as a
//! `std:unique` view's does.
//!
//! A query without aggregates may pace its releases with an output policy (`rate`), each release a batch of rows for
//! it: Esper's output view sees the releases as the view's updates, so its clock starts at the first release that gives
//! rows (under `SELECT RSTREAM`, whose rows are the replaced batch's, the first whose new batch has one), `FIRST` lets
//! an interval's first release out whole, `LAST` keeps the interval's last row, the default and `ALL` all of them, and
//! `SNAPSHOT` iterates the view at each tick as Esper's does: its iterator hands over every key's batch being
//! collected, the events that passed WHERE (unposted, so `prior` reads null on them; `prev` is refused under an output
//! policy). A fully aggregated query's policy sees each release as touching its groups (`runtime::batch_pace`, which
//! says what each policy releases), and makes the rows of the groups it names at a tick from the view's contents; its
//! snapshot is its one row without `GROUP BY`, and else a row for each group of the collected events. A period that
//! ends with the statement's tick due goes first, so its release is in the tick's interval, as a time window's expiries
//! go before a tick. A query with ungrouped columns paces its release's rows as one without aggregates does (Esper's
//! `ResultSetProcessorAggregateAll` under a non-grouped output view), its snapshot rows each with its group's
//! aggregates; grouped, under `LAST`, `ALL` and `FIRST` its policy keeps a row or a gate per group (Esper's
//! `AggregateGrouped`), and sees each release's events, the new ones and those they replaced (`runtime::batch_pace`
//! again). A statement reading `prior` posts a batch's events at its release, in order (`runtime::prior`), and one
//! reading `prev` and its kin reads them off the batch then (`runtime::previous`): their `WHERE` and groups are read
//! then. The rows a release replaces read the latter as null.

use std::collections::{BTreeMap, BTreeSet};

use super::aggregate;
use super::query::{StampedBatch, check_query, key_of, not_before, removes, tick_rank, timestamp, view_key};
use super::rate::Rate;
use super::{Ctx, TimerKind, TimerOrder};
use crate::cep::plan::{AggregationKind, OutputKind, QueryPlan, StreamInput, WindowSpec};
use crate::cep::runtime::batch_pace::{BatchPace, Offer, Ticked, Touch};
use crate::cep::runtime::eval::{Scope, holds, over_no_rows, project};
use crate::cep::runtime::previous::Prevs;
use crate::cep::runtime::prior::PriorBuffer;
use crate::cep::runtime::{EngineError, Row, Val, order};

/// An event in a batch: its row, its group and whether it passed WHERE.
#[derive(Debug)]
struct Entry {
    row: Row,
    group: String,
    counts: bool,
}

/// When a batch is released.
#[derive(Debug, Clone, Copy)]
enum Release {
    /// When it holds this many events.
    Length(usize),
    /// At the end of each period of this many milliseconds.
    Time(i64),
    /// When it holds `count` events, or `period` milliseconds after its clock started, whichever is first: the clock
    /// starts at an event when it is stopped, and again at each release that leaves either batch holding an event.
    TimeLength { period: i64, count: usize },
    /// When an event arrives whose timestamp reaches the end of the period of this many milliseconds its oldest
    /// event's is in; the periods count from the reference given, else from the key's first timestamp.
    Stamped { period: i64, reference: Option<i64> },
}

/// The batches of one `std:groupwin` key (of the one empty key, without it).
#[derive(Debug, Default)]
struct Batches {
    /// The events collected since the last release, oldest first.
    collected: Vec<Entry>,
    /// The batch released last: this key's part of the view's contents.
    released: Vec<Entry>,
    /// Which release of the statement's let `released` in: a group's rows entered in the order of the releases
    /// (what `first` and `last` read), each batch's in its order.
    release_number: u64,
    /// A time batch's first event's millisecond, from which its periods count.
    start: Option<i64>,
    /// The end of a time or time-length batch's current period, while its clock runs.
    due: Option<i64>,
    /// An externally timed batch's reference point and oldest timestamp.
    stamped: StampedBatch,
}

#[derive(Debug)]
pub struct BatchQuery {
    plan: QueryPlan,
    input: StreamInput,
    release: Release,
    /// Each key's batches, in the order of the keys' first events.
    keys: Vec<Batches>,
    /// Where each key's batches are in `keys`.
    index: BTreeMap<String, usize>,
    /// The releases so far.
    releases: u64,
    /// The output policy of a query without aggregates, each release a batch of rows for it.
    rate: Option<Rate>,
    /// The output policy of a fully aggregated query, each release touching groups.
    paced: Option<BatchPace<String>>,
    /// Whether a fully aggregated query's output clock runs, and its period.
    ticking: bool,
    every: i64,
    /// With `OUTPUT AFTER d`, the millisecond before which its output clock does not start.
    not_before: Option<i64>,
    /// The `prior` values of the events a release posts: then `WHERE` and the groups read them.
    priors: Option<PriorBuffer>,
    /// The previous-event functions a release reads off its batch: then `WHERE` and the groups read them.
    prevs: Option<Prevs>,
    /// With an ever form: every released row that counted, with its group, in the order released, but those of groups
    /// forgotten since: a release whose rows enter the aggregates first forgets the groups with no row in the view
    /// ([`QueryPlan::forgets_emptied_groups`]).
    history: Option<Vec<(String, Row)>>,
    /// The engine's time of the event or timer being handled, which `current_timestamp()` reads.
    now: i64,
}

/// The batch window inside any `std:groupwin`.
fn batch_window(window: Option<&WindowSpec>) -> Option<&WindowSpec> {
    match window? {
        WindowSpec::Grouped { inner, .. } => batch_window(Some(inner)),
        window => Some(window),
    }
}

/// The groups of the events of `new` and then `old` that passed WHERE, in order of first sight, each with its last
/// event seen.
fn seen<'e>(new: &'e [Entry], old: &'e [Entry]) -> Vec<(&'e str, &'e Row)> {
    let mut order: Vec<&str> = Vec::new();
    let mut last: BTreeMap<&str, &Row> = BTreeMap::new();
    for e in new.iter().chain(old).filter(|e| e.counts) {
        if last.insert(&e.group, &e.row).is_none() {
            order.push(&e.group);
        }
    }
    order.into_iter().map(|group| (group, last[group])).collect()
}

impl BatchQuery {
    /// The query of statement `number`, `q`, created at `created_ms`, reading `input` through its batch window.
    pub fn new(number: usize, q: &QueryPlan, input: &StreamInput, created_ms: i64) -> Result<Self, EngineError> {
        check_query(number, q)?;
        let release = match batch_window(input.window.as_ref()) {
            Some(WindowSpec::LengthBatch { count }) => Release::Length((*count).max(1) as usize),
            Some(WindowSpec::TimeBatch { millis }) => Release::Time((*millis).max(1) as i64),
            Some(WindowSpec::TimeLengthBatch { millis, count }) => {
                Release::TimeLength { period: (*millis).max(1) as i64, count: (*count).max(1) as usize }
            }
            Some(WindowSpec::ExtTimedBatch { millis, reference, .. }) => {
                Release::Stamped { period: (*millis).max(1) as i64, reference: *reference }
            }
            _ => unreachable!("a batch window: WindowSpec::batches"),
        };
        let paced = BatchPace::of(q);
        Ok(BatchQuery {
            plan: q.clone(),
            input: input.clone(),
            release,
            keys: Vec::new(),
            index: BTreeMap::new(),
            releases: 0,
            rate: if paced.is_some() { None } else { Rate::of_rows(q, created_ms) },
            paced,
            ticking: false,
            every: q.output.as_ref().map_or(1, |o| o.every_millis.max(1) as i64),
            not_before: not_before(q, created_ms),
            priors: PriorBuffer::of(input),
            prevs: Prevs::of(input),
            history: aggregate::history(q, input),
            now: created_ms,
        })
    }

    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, stream: &str, event: &Row) -> Vec<Row> {
        if stream != self.input.stream {
            return Vec::new();
        }
        self.now = ctx.now;
        let binding = [(self.input.label.as_str(), event)];
        let scope = Scope::new(&binding, ctx.vars, Some(ctx.now));
        if !holds(self.input.filter.as_ref(), &scope) {
            return Vec::new();
        }
        let stamp = self.input.window.as_ref().and_then(WindowSpec::timestamp);
        let stamp = stamp.map(|stamp| timestamp(stamp, &self.input.label, event, ctx.vars));
        if stamp == Some(None) {
            return Vec::new();
        }
        let counts = holds(self.plan.filter.as_ref(), &scope);
        let exprs = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
        let group = key_of(exprs, &self.input.label, event, ctx.vars);
        let at = self.place(event, ctx.vars);
        let released = match (self.release, stamp.flatten()) {
            (Release::Stamped { period, reference }, Some(stamp))
                if self.keys[at].stamped.releases(stamp, period, reference) =>
            {
                self.release(at, ctx)
            }
            _ => Vec::new(),
        };
        let batches = &mut self.keys[at];
        batches.collected.push(Entry { row: event.clone(), group, counts });
        match self.release {
            Release::Length(n) if batches.collected.len() >= n => self.release(at, ctx),
            Release::Length(_) => Vec::new(),
            Release::Stamped { .. } => released,
            Release::TimeLength { period, count } if batches.collected.len() >= count => {
                let rows = self.release(at, ctx);
                self.start_clock(ctx, at, period);
                rows
            }
            Release::TimeLength { period, .. } => {
                if batches.due.is_none() {
                    self.start_clock(ctx, at, period);
                }
                Vec::new()
            }
            Release::Time(period) => {
                let start = *batches.start.get_or_insert(ctx.now);
                if batches.due.is_none() {
                    let end = start + ((ctx.now - start).div_euclid(period) + 1) * period;
                    batches.due = Some(end);
                    ctx.schedule(end, TimerOrder::Output, TimerKind::Batch);
                }
                Vec::new()
            }
        }
    }

    /// Where the batches of `event`'s key are, made if it is the key's first event.
    fn place(&mut self, event: &Row, vars: &Row) -> usize {
        let window = self.input.window.as_ref().expect("a batch window");
        let next = self.keys.len();
        let at = *self.index.entry(view_key(window, &self.input.label, event, vars)).or_insert(next);
        if at == next {
            self.keys.push(Batches::default());
        }
        at
    }

    /// Ends the periods due by now, in the order of the keys' first events: each releases its key's batch unless
    /// neither it nor the one before holds an event, which stops the key's clock instead. Each key schedules its
    /// own timer, so the first of those due at one millisecond takes them all.
    pub fn on_timer(&mut self, ctx: &mut Ctx<'_>, kind: TimerKind) -> Vec<Row> {
        self.now = ctx.now;
        match (kind, self.release) {
            (TimerKind::Batch, Release::Time(period) | Release::TimeLength { period, .. }) => {
                self.end_periods(ctx, period)
            }
            (TimerKind::Tick, _) => self.tick(ctx),
            _ => Vec::new(),
        }
    }

    /// The output policy's tick: what it kept, or under `OUTPUT SNAPSHOT` a row of every event collected since its
    /// key's last release that passed WHERE (keys in the order of their first events, each batch in arrival order),
    /// as Esper's snapshot reads the view through its iterator, which hands over the batch being collected
    /// (`ResultSetProcessorSimple`), each row with its group's aggregates as they stand (`AggregateAll` and
    /// `AggregateGrouped`).
    fn tick(&mut self, ctx: &mut Ctx<'_>) -> Vec<Row> {
        if self.paced.is_some() {
            return self.paced_tick(ctx);
        }
        let Some(rate) = &mut self.rate else {
            return Vec::new();
        };
        let mut rows = rate.tick(ctx);
        if self.snapshots() {
            let with_aggregates = |e: &Entry| match self.plan.aggregation {
                Some(_) => self.aggregates(&e.group, ctx.vars),
                None => Vec::new(),
            };
            let snapshot = self.collected().filter_map(|e| {
                let aggregates = with_aggregates(e);
                self.having(&e.row, &aggregates, ctx.vars).then(|| self.project(&e.row, &aggregates, ctx.vars))
            });
            rows.extend(order::ordered(snapshot.collect(), &self.plan.order_by));
        }
        rows
    }

    /// A fully aggregated query's tick: the rows its policy kept, then the rows of the groups it names as they stand
    /// (by [`tick_rank`]), or its snapshot ([`BatchQuery::snapshot_groups`]), together in `ORDER BY` order. The next
    /// tick is set.
    fn paced_tick(&mut self, ctx: &mut Ctx<'_>) -> Vec<Row> {
        ctx.schedule(ctx.now + self.every, TimerOrder::Output, TimerKind::Tick);
        let in_view: BTreeSet<String> = self.contents().map(|e| e.group.clone()).collect();
        let paced = self.paced.as_mut().expect("a paced query");
        let Ticked { mut rows, mut groups } = paced.tick(|group| in_view.contains(group));
        groups.sort_by_cached_key(|(group, _)| (tick_rank(group), group.clone()));
        for (group, event) in groups {
            let aggregates = self.aggregates(&group, ctx.vars);
            if self.having(&event, &aggregates, ctx.vars) {
                rows.push(self.project(&event, &aggregates, ctx.vars));
            }
        }
        if self.snapshots() {
            rows.extend(self.snapshot_groups(ctx.vars));
        }
        order::ordered(rows, &self.plan.order_by)
    }

    fn snapshots(&self) -> bool {
        self.plan.output.as_ref().is_some_and(|o| o.kind == OutputKind::Snapshot)
    }

    /// `OUTPUT SNAPSHOT` of a fully aggregated query, as Esper's iterators read the view: without `GROUP BY`, its one
    /// row as it stands (`ResultSetProcessorRowForAll`); with it, the row of each group of the collected events that
    /// passed WHERE, once, made from the first of its events whose row passes HAVING, with the group's aggregates as
    /// they stand (`ResultSetRowPerGroupIterator`).
    fn snapshot_groups(&self, vars: &Row) -> Vec<(Vec<Val>, Row)> {
        if self.plan.aggregation.as_ref().is_some_and(|a| a.group_by.is_empty()) {
            return self.group_row("", &Row::default(), vars).into_iter().collect();
        }
        let mut seen = BTreeSet::new();
        let row = |e: &Entry| self.group_row(&e.group, &e.row, vars).filter(|_| seen.insert(e.group.clone()));
        self.collected().filter_map(row).collect()
    }

    /// Starts key `at`'s clock of a time-length batch afresh: its release is due `period` from now, and a timer
    /// set before for it fires to no effect.
    fn start_clock(&mut self, ctx: &mut Ctx<'_>, at: usize, period: i64) {
        self.keys[at].due = Some(ctx.now + period);
        ctx.schedule(ctx.now + period, TimerOrder::Output, TimerKind::Batch);
    }

    /// Ends the periods of `period` due by now (see [`BatchQuery::on_timer`]).
    fn end_periods(&mut self, ctx: &mut Ctx<'_>, period: i64) -> Vec<Row> {
        let mut rows = Vec::new();
        for at in 0..self.keys.len() {
            let batches = &mut self.keys[at];
            if batches.due.is_none_or(|due| due > ctx.now) {
                continue;
            }
            batches.due = None;
            if batches.collected.is_empty() && batches.released.is_empty() {
                continue;
            }
            batches.due = Some(ctx.now + period);
            ctx.schedule(ctx.now + period, TimerOrder::Output, TimerKind::Batch);
            rows.extend(self.release(at, ctx));
        }
        rows
    }

    /// Key `at`'s collected events become its part of the view's contents, and the ones they replace leave: the
    /// rows this gives, in `ORDER BY` order, or those its output policy lets out now.
    fn release(&mut self, at: usize, ctx: &mut Ctx<'_>) -> Vec<Row> {
        self.post_collected(at, ctx.vars);
        let fully = self.plan.aggregation.as_ref().is_some_and(|a| a.kind == AggregationKind::FullyAggregated);
        let before = (removes(&self.plan) && fully).then(|| self.rows_before(at, ctx.vars));
        if self.plan.forgets_emptied_groups() && self.keys[at].collected.iter().any(|e| e.counts) {
            let view: BTreeSet<String> = self.contents().map(|e| e.group.clone()).collect();
            if let Some(history) = &mut self.history {
                history.retain(|(group, _)| view.contains(group));
            }
        }
        let batches = &mut self.keys[at];
        let mut old = std::mem::replace(&mut batches.released, std::mem::take(&mut batches.collected));
        if let Some(history) = &mut self.history {
            let counted = batches.released.iter().filter(|e| e.counts);
            history.extend(counted.map(|e| (e.group.clone(), e.row.clone())));
        }
        batches.release_number = self.releases;
        self.releases += 1;
        if let Some(prevs) = &self.prevs {
            old.iter_mut().for_each(|e| e.row = prevs.nulled(&e.row));
        }
        if self.paced.is_some() {
            let offer = match self.plan.aggregation.as_ref().map(|a| &a.kind) {
                Some(AggregationKind::FullyAggregated) => Offer::Groups(self.touches(at, &old, ctx.vars)),
                _ => self.events(at, &old, ctx.vars),
            };
            return self.pace(ctx, offer);
        }
        let rows = before.unwrap_or_else(|| self.released_rows(at, &old, ctx.vars));
        // The rows a release replaces (`SELECT RSTREAM`) run on the clock its new rows would have started.
        let started = self.keys[at].released.iter().any(|e| e.counts);
        match &mut self.rate {
            None => order::ordered(rows, &self.plan.order_by),
            Some(rate) => {
                if started && removes(&self.plan) {
                    rate.start(ctx);
                }
                let batch: Vec<Row> = rows.into_iter().map(|(keys, row)| order::with_keys(row, keys)).collect();
                rate.offer(ctx, [batch])
            }
        }
    }

    /// Posts key `at`'s collected events, in order, as its release does: each given its priors, and `WHERE` and its
    /// group read them then (Esper's prior view counts a batch's events as the batch window posts them).
    fn post_collected(&mut self, at: usize, vars: &Row) {
        if self.priors.is_none() && self.prevs.is_none() {
            return;
        }
        let collected = &mut self.keys[at].collected;
        if let Some(priors) = self.priors.as_mut() {
            collected.iter_mut().for_each(|entry| entry.row = priors.post(&entry.row));
        }
        if let Some(prevs) = &self.prevs {
            let batch: Vec<Row> = collected.iter().map(|e| e.row.clone()).collect();
            for (i, entry) in collected.iter_mut().enumerate() {
                entry.row = prevs.read(&batch[i], |j| &batch[j], batch.len(), i);
            }
        }
        let exprs = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.group_by[..]);
        for entry in &mut self.keys[at].collected {
            let binding = [(self.input.label.as_str(), &entry.row)];
            entry.counts = holds(self.plan.filter.as_ref(), &Scope::new(&binding, vars, Some(self.now)));
            entry.group = key_of(exprs, &self.input.label, &entry.row, vars);
        }
    }

    /// A fully aggregated query's release under its output policy: the rows that go out now. The first release that
    /// touches a group at or after `AFTER`'s time starts the output clock.
    fn pace(&mut self, ctx: &mut Ctx<'_>, offer: Offer<String>) -> Vec<Row> {
        let early = self.not_before.is_some_and(|at| ctx.now < at);
        if !self.ticking && !early && !offer.is_empty() {
            self.ticking = true;
            ctx.schedule(ctx.now + self.every, TimerOrder::Output, TimerKind::Tick);
        }
        let mut paced = self.paced.take().expect("a paced query");
        let vars = ctx.vars;
        let make = |group: &String, event: &Row| {
            let aggregates = self.aggregates(group, vars);
            self.having(event, &aggregates, vars).then(|| self.project(event, &aggregates, vars))
        };
        let rows = paced.offer(offer, ctx.now, early, make);
        self.paced = Some(paced);
        order::ordered(rows, &self.plan.order_by)
    }

    /// The rows of key `at`'s release, which replaced `old`, with their `ORDER BY` keys, in the order they are made:
    /// under `SELECT RSTREAM`, `old`'s (a fully aggregated query's are [`BatchQuery::rows_before`]).
    fn released_rows(&self, at: usize, old: &[Entry], vars: &Row) -> Vec<(Vec<Val>, Row)> {
        let new: Vec<&Entry> = self.keys[at].released.iter().filter(|e| e.counts).collect();
        let events = match removes(&self.plan) {
            true => old.iter().filter(|e| e.counts).collect(),
            false => new,
        };
        match self.plan.aggregation.as_ref().map(|a| &a.kind) {
            Some(AggregationKind::FullyAggregated) => {
                self.touches(at, old, vars).into_iter().filter_map(|touch| touch.row).collect()
            }
            _ => self.event_rows(&events, vars),
        }
    }

    /// The rows of `events`, each with its group's aggregates over the view's contents (if the query has some) and
    /// passing HAVING.
    fn event_rows(&self, events: &[&Entry], vars: &Row) -> Vec<(Vec<Val>, Row)> {
        let mut by_group: BTreeMap<&str, Vec<Val>> = BTreeMap::new();
        for e in events {
            by_group.entry(&e.group).or_insert_with(|| self.aggregates(&e.group, vars));
        }
        let row = |e: &&Entry| {
            let aggregates = &by_group[e.group.as_str()];
            self.having(&e.row, aggregates, vars).then(|| self.project(&e.row, aggregates, vars))
        };
        events.iter().filter_map(row).collect()
    }

    /// The groups key `at`'s release (which replaced `old`) touched, fully aggregated: in order of first sight, each
    /// with its last event seen (the new batch's seen before the old one's), its row if it passes HAVING, and
    /// whether it is left without a row in the view.
    fn touches(&self, at: usize, old: &[Entry], vars: &Row) -> Vec<Touch<String>> {
        let touch = |(group, event): (&str, &Row)| {
            let row = self.group_row(group, event, vars);
            let emptied = !self.contents().any(|e| e.group == group);
            Touch { group: group.to_owned(), event: event.clone(), row, emptied }
        };
        seen(&self.keys[at].released, old).into_iter().map(touch).collect()
    }

    /// `SELECT RSTREAM` of a fully aggregated query at key `at`'s release, before it: the rows of the groups it will
    /// touch as they stand, with the aggregates of the view's contents before it (a count 0 and other aggregates null
    /// for a group with no row there).
    fn rows_before(&self, at: usize, vars: &Row) -> Vec<(Vec<Val>, Row)> {
        let batches = &self.keys[at];
        let row = |(group, event): (&str, &Row)| self.group_row(group, event, vars);
        seen(&batches.collected, &batches.released).into_iter().filter_map(row).collect()
    }

    /// The row of `group` projected from `event`, with the group's aggregates over the view's contents as they stand,
    /// if it passes HAVING.
    fn group_row(&self, group: &str, event: &Row, vars: &Row) -> Option<(Vec<Val>, Row)> {
        let aggregates = self.aggregates(group, vars);
        self.having(event, &aggregates, vars).then(|| self.project(event, &aggregates, vars))
    }

    /// The events of key `at`'s release (which replaced `old`) that passed WHERE, grouped with ungrouped columns: the
    /// new ones and then the replaced ones, each with its row made with its group's aggregates after the release.
    fn events(&self, at: usize, old: &[Entry], vars: &Row) -> Offer<String> {
        let touch = |e: &Entry| {
            let aggregates = self.aggregates(&e.group, vars);
            let row = self.having(&e.row, &aggregates, vars).then(|| self.project(&e.row, &aggregates, vars));
            let emptied = !self.contents().any(|c| c.group == e.group);
            Touch { group: e.group.clone(), event: e.row.clone(), row, emptied }
        };
        let new = self.keys[at].released.iter().filter(|e| e.counts).map(touch).collect();
        Offer::Events { new, old: old.iter().filter(|e| e.counts).map(touch).collect() }
    }

    /// The events of the view's contents that passed WHERE: every key's released batch.
    fn contents(&self) -> impl Iterator<Item = &Entry> {
        self.keys.iter().flat_map(|b| &b.released).filter(|e| e.counts)
    }

    /// The events collected since their keys' last releases that passed WHERE, unposted: a statement's `prior` reads
    /// null on them, as Esper's reads null on an event its prior view has not seen.
    fn collected(&self) -> impl Iterator<Item = &Entry> {
        self.keys.iter().flat_map(|b| &b.collected).filter(|e| e.counts)
    }

    /// The aggregates of `group` over the view's contents, its rows in the order they entered: null when it has no
    /// row there.
    fn aggregates(&self, group: &str, vars: &Row) -> Vec<Val> {
        let calls = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
        let mut keys: Vec<&Batches> = self.keys.iter().collect();
        keys.sort_by_key(|b| b.release_number);
        let entries = keys.into_iter().flat_map(|b| &b.released).filter(|e| e.counts && e.group == group);
        let rows: Vec<&Row> = entries.map(|e| &e.row).collect();
        let history = aggregate::of_group(self.history.as_deref(), group, &rows);
        match history.is_empty() {
            true => over_no_rows(calls),
            false => aggregate::compute(calls, &self.input.label, &rows, &history, vars),
        }
    }

    fn having(&self, event: &Row, aggregates: &[Val], vars: &Row) -> bool {
        let having = self.plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
        let binding = [(self.input.label.as_str(), event)];
        holds(having, &Scope { rows: &binding, aggregates, vars, pinned: &[], now: Some(self.now) })
    }

    /// The row of `event` with its `ORDER BY` keys.
    fn project(&self, event: &Row, aggregates: &[Val], vars: &Row) -> (Vec<Val>, Row) {
        let binding = [(self.input.label.as_str(), event)];
        let scope = Scope { rows: &binding, aggregates, vars, pinned: &[], now: Some(self.now) };
        (order::keys(&self.plan.order_by, &scope), project(&self.plan.projection, &scope))
    }
}

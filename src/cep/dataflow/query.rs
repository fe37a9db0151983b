//! A query over one stream with state: its view (time, length, unique and last-event windows, grouped or not),
//! grouped running aggregates, HAVING and the `OUTPUT LAST EVERY` policy, with cep-epl.md section 3's meaning (the
//! reference evaluator's `query` module is the same semantics written as recomputation over a list of rows).
//!
//! Rows in the view are entries in a slab, named by their slot; each remembers its group, whether it counts (passed
//! WHERE) and its aggregate arguments, so leaving the view is one subtraction. (A slab in place of a hash map by id:
//! the floor bench ran at 467 k events/s against 384 k, benches/results/cep.md, ninth session.) Groups are a slab too,
//! found by key through one hash lookup per arrival; an entry names its group by slot, so an expiry finds its group
//! without hashing.
//! A time window's expiries are a queue in arrival order; the view's other displacements are maps from view key to
//! entry. Each worker holds the groups routed to it; output ticks are the same on every worker, started by the
//! `Start` record every worker gets at the stream's first event.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use foldhash::fast::RandomState;
use slab::Slab;
use smallvec::SmallVec;

use super::aggregate::Accumulators;
use super::key::{self, Key};
use super::operator::{Emit, Logic, State};
use super::record::{Record, Stamp, millis, timer_epoch};
use crate::cep::plan::{AggregationKind, PlanExpr, QueryPlan, StreamInput, WindowSpec};
use crate::cep::reference::TimerOrder;
use crate::cep::reference::query::view_key;
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::eval::{Scope, holds, project};
use crate::cep::runtime::{Row, Val};

/// One row in the view, kept small: a ten-minute window holds millions. Its view key is not kept, since only a
/// displacement removes it from a keyed view, and the arrival that displaces it knows the key.
#[derive(Debug)]
struct Entry {
    /// The slot of its group, live while the entry is.
    group: usize,
    counts: bool,
    /// Inline for one aggregate, on the heap for more.
    args: SmallVec<[Val; 1]>,
}

/// Which entries a new arrival displaces.
#[derive(Debug)]
enum View {
    /// No window: every row stays.
    All,
    /// Each row leaves `millis` after it arrived.
    Time { millis: i64, queue: VecDeque<(u64, usize)> },
    /// The last `count` rows per view key (one key when not grouped).
    Length { count: usize, queues: HashMap<Key, VecDeque<usize>, RandomState> },
    /// The last row per view key.
    Last { current: HashMap<Key, usize, RandomState> },
}

impl View {
    fn new(window: Option<&WindowSpec>) -> Self {
        match window {
            None => View::All,
            Some(WindowSpec::Time { millis }) => View::Time { millis: *millis as i64, queue: VecDeque::new() },
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
    /// Whether the group is listed in `changed` since the last output tick.
    changed: bool,
    acc: Option<Accumulators>,
    last_event: Option<Row>,
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
    state: QueryState,
}

/// What the query evaluates for every event, compiled for its input row.
#[derive(Debug)]
struct PerEvent {
    /// The input's filter: an event failing it is not seen at all.
    filter: Option<RowExpr>,
    /// The statement's WHERE: an event failing it enters the view but does not count.
    where_: Option<RowExpr>,
    group_by: Vec<RowExpr>,
    /// Each aggregate's argument (none for `count(*)`).
    args: Vec<Option<RowExpr>>,
}

impl PerEvent {
    fn new(plan: &QueryPlan, input: &StreamInput, vars: &Row) -> Self {
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
        }
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
    held: BTreeMap<Key, Row>,
    /// The next output tick, and when and by what position the clock was set (for stamps).
    tick: Option<(u64, (u64, u64))>,
    ticks: u64,
}

impl QueryState {
    fn new(window: Option<&WindowSpec>) -> Self {
        QueryState {
            view: View::new(window),
            entries: Slab::new(),
            index: HashMap::default(),
            groups: Slab::new(),
            changed: Vec::new(),
            held: BTreeMap::new(),
            tick: None,
            ticks: 0,
        }
    }
}

impl QueryLogic {
    pub fn new(statement: usize, plan: Arc<QueryPlan>, input: StreamInput, ids: (u32, u32), vars: Arc<Row>) -> Self {
        let state = QueryState::new(input.window.as_ref());
        let per_event = PerEvent::new(&plan, &input, &vars);
        QueryLogic { statement, plan, input, stream: ids.0, sink: ids.1, vars, empty: Key::default(), per_event, state }
    }

    fn every(&self) -> Option<i64> {
        self.plan.output.as_ref().map(|o| o.every_millis as i64)
    }

    fn fully_aggregated(&self) -> bool {
        matches!(self.plan.aggregation.as_ref().map(|a| &a.kind), Some(AggregationKind::FullyAggregated))
    }

    fn event(&mut self, emit: &mut Emit, epoch: u64, stamp: Stamp, row: Row) {
        let rows = [&row];
        let holds = |e: &Option<RowExpr>| e.as_ref().is_none_or(|e| e.holds(&rows, &[], &self.vars));
        if !holds(&self.per_event.filter) {
            return;
        }
        let counts = holds(&self.per_event.where_);
        let group = self.plan.aggregation.as_ref().map(|_| self.group_key(&row));
        let slot = group.map(|key| self.enter(epoch, &row, key, counts));
        if counts {
            let rows = self.arrive(&row, slot);
            for (i, out) in rows.into_iter().enumerate() {
                emit.event(stamp.child(self.statement, i), self.sink, out);
            }
        }
    }

    /// Puts the row in the view and then in its group (made if the displaced rows left none), dropping what it
    /// displaces; answers the group's slot.
    fn enter(&mut self, epoch: u64, row: &Row, group: Key, counts: bool) -> usize {
        let view_key = self.view_key(row);
        let rows = [row];
        let arg = |e: &Option<RowExpr>| e.as_ref().map(|e| e.eval(&rows, &[], &self.vars)).unwrap_or_default();
        let args = self.per_event.args.iter().map(arg).collect();
        // The group is found once the displaced rows are gone: they may end it. Until then no slot is named.
        let id = self.state.entries.insert(Entry { group: usize::MAX, counts, args });
        // Lengths are positive, so the new entry is never among the displaced.
        let displaced = self.displace(epoch, id, &view_key);
        for gone in displaced {
            self.remove(gone);
        }
        let QueryState { entries, index, groups, .. } = &mut self.state;
        let slot = *index.entry(group).or_insert_with_key(|key| groups.insert(Group::new(key.clone())));
        entries[id].group = slot;
        let g = &mut groups[slot];
        g.entries += 1;
        if counts {
            let calls = &self.plan.aggregation.as_ref().expect("entered only when aggregating").aggregates;
            g.acc.get_or_insert_with(|| Accumulators::new(calls)).add(calls, &entries[id].args);
        }
        slot
    }

    /// The key of the group of `row` ([`key::of_values`]); a text key is the value itself, not formatted.
    fn group_key(&self, row: &Row) -> Key {
        match self.per_event.group_by.as_slice() {
            [] => self.empty.clone(),
            exprs => key::of_values(exprs.len(), exprs.iter().map(|e| e.eval(&[row], &[], &self.vars))),
        }
    }

    /// The key of the row's place in a keyed view: by [`key::of_all`] for `std:unique`, so a text key is not
    /// formatted; a grouped view's composite key as the reference evaluator forms it; the empty key otherwise.
    fn view_key(&self, row: &Row) -> Key {
        let label = self.input.label.as_str();
        match self.input.window.as_ref() {
            Some(WindowSpec::Unique { keys }) if !keys.is_empty() => {
                key::of_all(keys, &Scope::new(&[(label, row)], &self.vars))
            }
            Some(window @ WindowSpec::Grouped { .. }) => view_key(window, label, row, &self.vars).into(),
            _ => self.empty.clone(),
        }
    }

    /// Records entry `id` in the view; answers the entries it pushes out.
    fn displace(&mut self, epoch: u64, id: usize, key: &Key) -> Vec<usize> {
        match &mut self.state.view {
            View::All => Vec::new(),
            View::Time { millis, queue } => {
                queue.push_back((timer_epoch(millis_of(epoch) + *millis).max(epoch + 1), id));
                Vec::new()
            }
            View::Length { count, queues } => {
                let queue = queues.entry(key.clone()).or_default();
                queue.push_back(id);
                let excess = queue.len().saturating_sub(*count);
                queue.drain(..excess).collect()
            }
            View::Last { current } => current.insert(key.clone(), id).into_iter().collect(),
        }
    }

    fn remove(&mut self, id: usize) {
        // Only the output tick of a fully aggregated query reads (and empties) the list of changed groups.
        let listed = self.plan.output.is_some() && self.fully_aggregated();
        let Some(entry) = self.state.entries.try_remove(id) else {
            return;
        };
        let Some(g) = self.state.groups.get_mut(entry.group) else {
            return;
        };
        g.entries -= 1;
        if entry.counts {
            let calls = &self.plan.aggregation.as_ref().expect("entries exist only when aggregating").aggregates;
            if let Some(acc) = g.acc.as_mut() {
                acc.remove(calls, &entry.args);
            }
            if listed {
                mark(&mut self.state.changed, g, entry.group);
            }
        }
        // Without an output policy a group's last event is only read on its next arrival, which replaces it.
        if g.entries == 0 && (g.last_event.is_none() || self.plan.output.is_none()) {
            self.end_group(entry.group);
        }
    }

    fn end_group(&mut self, slot: usize) {
        let group = self.state.groups.remove(slot);
        self.state.index.remove(&group.key);
    }

    /// The rows an arrival in group `slot` (none when the query does not aggregate) gives now.
    fn arrive(&mut self, row: &Row, slot: Option<usize>) -> Vec<Row> {
        let (Some(aggregation), Some(slot)) = (&self.plan.aggregation, slot) else {
            let out = self.project(row, &[]);
            return self.emit_or_hold(self.empty.clone(), out);
        };
        match aggregation.kind {
            AggregationKind::FullyAggregated => {
                let g = &mut self.state.groups[slot];
                g.last_event = Some(row.clone());
                if self.plan.output.is_some() {
                    mark(&mut self.state.changed, g, slot);
                    return Vec::new();
                }
                self.group_row(slot).into_iter().collect()
            }
            AggregationKind::WithUngroupedColumns(_) => {
                let aggregates = self.aggregates(slot);
                match self.having(row, &aggregates) {
                    true => {
                        let out = self.project(row, &aggregates);
                        self.emit_or_hold(self.state.groups[slot].key.clone(), out)
                    }
                    false => Vec::new(),
                }
            }
        }
    }

    fn emit_or_hold(&mut self, group: Key, row: Row) -> Vec<Row> {
        if self.plan.output.is_none() {
            return vec![row];
        }
        self.state.held.insert(group, row);
        Vec::new()
    }

    fn aggregates(&self, slot: usize) -> Vec<Val> {
        let calls = self.plan.aggregation.as_ref().map_or(&[][..], |a| &a.aggregates[..]);
        match self.state.groups.get(slot).and_then(|g| g.acc.as_ref()) {
            Some(acc) => acc.values(calls),
            None => vec![Val::Null; calls.len()],
        }
    }

    fn group_row(&self, slot: usize) -> Option<Row> {
        let event = self.state.groups.get(slot)?.last_event.as_ref()?;
        let aggregates = self.aggregates(slot);
        self.having(event, &aggregates).then(|| self.project(event, &aggregates))
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

    fn expire(&mut self, epoch: u64) {
        loop {
            let due = match &mut self.state.view {
                View::Time { queue, .. } => queue.front().filter(|(at, _)| *at <= epoch).copied(),
                _ => None,
            };
            let Some((_, id)) = due else {
                return;
            };
            if let View::Time { queue, .. } = &mut self.state.view {
                queue.pop_front();
            }
            self.remove(id);
        }
    }

    fn fire_tick(&mut self, emit: &mut Emit, epoch: u64) {
        let Some((at, set)) = self.state.tick.take() else {
            return;
        };
        if at > epoch {
            self.state.tick = Some((at, set));
            return;
        }
        let stamp = Stamp::timer(TimerOrder::Output, set, self.statement, self.state.ticks);
        self.state.ticks += 1;
        let every = self.every().unwrap_or(1);
        self.state.tick = Some((timer_epoch(millis_of(epoch) + every).max(epoch + 1), (epoch, set.1)));
        for (i, row) in self.tick_rows().into_iter().enumerate() {
            emit.event(stamp.child(self.statement, i), self.sink, row);
        }
    }

    fn tick_rows(&mut self) -> Vec<Row> {
        if !self.fully_aggregated() {
            return std::mem::take(&mut self.state.held).into_values().collect();
        }
        let mut changed = std::mem::take(&mut self.state.changed);
        changed.sort_unstable();
        changed.dedup();
        // The groups still marked, in key order; a slot listed for a group that ended may hold an unmarked one.
        let groups = &self.state.groups;
        let mut due: Vec<(Key, usize)> = changed
            .into_iter()
            .filter_map(|s| groups.get(s).filter(|g| g.changed).map(|g| (g.key.clone(), s)))
            .collect();
        due.sort_unstable();
        let rows = due.iter().filter_map(|(_, slot)| self.group_row(*slot)).collect();
        for (_, slot) in due {
            let g = &mut self.state.groups[slot];
            g.changed = false;
            if g.entries == 0 {
                self.end_group(slot);
            }
        }
        rows
    }
}

impl Group {
    fn new(key: Key) -> Self {
        Group { key, entries: 0, changed: false, acc: None, last_event: None }
    }
}

/// Lists the group in `slot` as changed unless it already is.
fn mark(changed: &mut Vec<usize>, g: &mut Group, slot: usize) {
    if !g.changed {
        g.changed = true;
        changed.push(slot);
    }
}

fn millis_of(epoch: u64) -> i64 {
    millis(epoch)
}

impl Logic for QueryLogic {
    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        match record {
            Record::Start { ms, .. } => {
                if let (None, Some(every)) = (self.state.tick, self.every()) {
                    self.state.tick = Some((timer_epoch(ms + every), (epoch, 0)));
                }
            }
            Record::Event { stamp, stream, row } if stream == self.stream => self.event(emit, epoch, stamp, row),
            Record::Event { .. } | Record::Match { .. } => {}
        }
    }

    fn next_timer(&self) -> Option<u64> {
        let expiry = match &self.state.view {
            View::Time { queue, .. } => queue.front().map(|(at, _)| *at),
            _ => None,
        };
        match (expiry, self.state.tick.map(|(at, _)| at)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        self.expire(epoch);
        self.fire_tick(emit, epoch);
    }

    fn export(&mut self) -> Option<State> {
        let empty = QueryState::new(self.input.window.as_ref());
        Some(Box::new(std::mem::replace(&mut self.state, empty)))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(carried) = state.downcast::<QueryState>() {
            self.state = *carried;
        }
    }

    fn stop(&mut self) {
        self.state = QueryState::new(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window's memory is its entries: this keeps one within a cache line.
    #[test]
    fn an_entry_fits_in_64_bytes() {
        assert!(size_of::<Entry>() <= 64, "{} bytes", size_of::<Entry>());
    }
}

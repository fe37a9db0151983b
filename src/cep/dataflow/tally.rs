//! The aggregates of a pattern statement that aggregates its matches (`SELECT count(*) FROM pattern [...]`), and its
//! output policy: the reference evaluator's meaning (`cep::reference::pattern` and `paced`), with running aggregates
//! per group ([`Accumulators`]) instead of every match kept. A gate behind the pattern's logic ([`Gate`]), which hands
//! it the matches it finds, unprojected. A pattern has no window, so matches only enter; each one that passes `WHERE`
//! is the statement's one new row, as Esper hands each match to it alone, and makes one row projected from itself
//! with its group's aggregates, if it passes `HAVING`: at once without a policy, else as the policy says (`paced`):
//! `FIRST` lets it out as it comes or drops it, the others keep it or the group's change for the clock's tick, which
//! releases groups' rows as they stand (projected from each group's last match) in the reference's order of them
//! (`tick_rank`). Such a statement runs on one worker (the planner's partition of an aggregating query), so a
//! group's aggregates and the clock are all in one place.

use std::collections::HashMap;
use std::sync::Arc;

use foldhash::fast::RandomState;
use smallvec::SmallVec;

use super::aggregate::Accumulators;
use super::gate::{Clock, Gate};
use super::operator::Emit;
use super::record::{Record, Stamp, millis};
use crate::cep::plan::{AggregateCall, AggregationKind, OutputKind, QueryPlan};
use crate::cep::reference::aggregate::group_of;
use crate::cep::reference::pattern::Bindings;
use crate::cep::reference::query::{by_tick_rank, not_before};
use crate::cep::runtime::eval::{Scope, eval, holds, project};
use crate::cep::runtime::first::First;
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::order::{self, Keyed};
use crate::cep::runtime::{Row, Val};

/// An aggregating pattern statement's rows, made of the matches its logic emits.
#[derive(Debug)]
pub struct Tallied {
    statement: usize,
    sink: u32,
    plan: Arc<QueryPlan>,
    vars: Arc<Row>,
    /// The engine millisecond of the epoch being handled, which `current_timestamp()` reads.
    now: i64,
    /// The output policy's kind and period, if the statement has one.
    pace: Option<(OutputKind, i64)>,
    fully: bool,
    state: TallyState,
}

/// What the statement keeps between epochs, and carries into the dataflow replacing its own.
#[derive(Debug, Default)]
pub struct TallyState {
    groups: HashMap<Key, Group, RandomState>,
    /// With `AFTER d`, the millisecond before which the clock does not start.
    not_before: Option<i64>,
    clock: Clock,
    first: Option<First<Key>>,
    /// Whether a match counted since the last tick.
    updated: bool,
    /// The rows the next tick releases as they are, oldest first.
    held: Vec<Keyed>,
    /// `LAST` with ungrouped columns: the interval's last row of each group.
    last: HashMap<Key, Keyed, RandomState>,
}

#[derive(Debug)]
struct Group {
    acc: Accumulators,
    /// Under a policy, the group's last match, which its row at a tick is projected from.
    last: Option<Bindings>,
    /// Whether a match counted in it since the last tick.
    changed: bool,
}

impl Tallied {
    /// The rows of statement `statement` (created at `created_ms`, writing stream `sink`), from `plan`, which
    /// aggregates.
    pub fn new(statement: usize, sink: u32, (plan, created_ms): (Arc<QueryPlan>, i64), vars: Arc<Row>) -> Self {
        let pace = plan.output.as_ref().map(|o| (o.kind, o.every_millis.max(1) as i64));
        let fully = plan.aggregation.as_ref().is_some_and(|a| a.kind == AggregationKind::FullyAggregated);
        let state =
            TallyState { not_before: not_before(&plan, created_ms), first: First::of(&plan), ..TallyState::default() };
        Tallied { statement, sink, plan, vars, now: created_ms, pace, fully, state }
    }

    fn grouped(&self) -> bool {
        self.plan.aggregation.as_ref().is_some_and(|a| !a.group_by.is_empty())
    }

    /// The match bound as `bindings`, at `epoch`: its group counts it if it passes `WHERE`; the row it makes, if
    /// any, goes out now (and is answered) or is kept for the tick.
    fn tally(&mut self, epoch: u64, bindings: Bindings) -> Option<Row> {
        self.now = millis(epoch);
        let aggregation = self.plan.aggregation.as_ref()?;
        let bound: SmallVec<[(&str, &Row); 2]> = bindings.iter().map(|(tag, row)| (&**tag, row)).collect();
        let scope = Scope::new(&bound, &self.vars, Some(self.now));
        if !holds(self.plan.filter.as_ref(), &scope) {
            return None;
        }
        let by = &aggregation.group_by;
        let key = key::of_values(by.len(), by.iter().map(|e| eval(e, &scope)));
        let calls = &aggregation.aggregates;
        let args = calls.iter().map(|call| call.arg.as_ref().map_or(Val::Null, |arg| eval(arg, &scope)));
        let group = self.state.groups.entry(key.clone()).or_insert_with(|| Group {
            acc: Accumulators::new(calls),
            last: None,
            changed: false,
        });
        // Matches never leave, so they need no arrival number: over a pattern, `first` and `last` are their ever forms.
        group.acc.add(0, args);
        let row = row_of(&self.plan, (&self.vars, self.now), &bound, &group.acc.values(calls));
        drop(bound);
        let Some(pace) = self.pace else {
            return row.map(|(_, row)| row);
        };
        group.changed = true;
        group.last = Some(bindings);
        self.pace(pace, epoch, key, row)
    }

    /// What the policy does with the row (if it passed `HAVING`) a match that counted in group `key` made at `epoch`.
    fn pace(&mut self, (kind, every): (OutputKind, i64), epoch: u64, key: Key, row: Option<Keyed>) -> Option<Row> {
        let (fully, grouped) = (self.fully, self.grouped());
        let state = &mut self.state;
        let early = state.not_before.is_some_and(|at| millis(epoch) < at);
        if !early {
            state.clock.start(epoch, every);
        }
        state.updated = true;
        let (keys, row) = row?;
        match kind {
            OutputKind::First => {
                let first = state.first.as_mut().expect("OUTPUT FIRST has its gate");
                return (!early && first.passes(&key, millis(epoch))).then_some(row);
            }
            OutputKind::Last if !fully => {
                state.last.insert(key, (keys, row));
            }
            OutputKind::Default => state.held.push((keys, row)),
            OutputKind::All if !fully || !grouped => state.held.push((keys, row)),
            OutputKind::Last | OutputKind::All | OutputKind::Snapshot => {}
        }
        None
    }

    /// The rows of an output tick, in order before `ORDER BY` sorts them; every group is unchanged again.
    fn tick_rows(&mut self, kind: OutputKind) -> Vec<Keyed> {
        let mut rows = std::mem::take(&mut self.state.held);
        let updated = std::mem::take(&mut self.state.updated);
        let released: Vec<Key> = match (kind, self.fully) {
            (OutputKind::First, _) => {
                if let Some(first) = self.state.first.as_mut() {
                    first.tick();
                }
                Vec::new()
            }
            (OutputKind::Last, true) => {
                if !self.grouped() && !updated {
                    rows.extend(self.current_row());
                }
                self.groups_where(|g| g.changed)
            }
            (OutputKind::Last, false) => {
                let mut last = std::mem::take(&mut self.state.last);
                let ranked = self.ranked(last.keys().cloned().collect());
                rows.extend(ranked.into_iter().filter_map(|key| last.remove(&key)));
                Vec::new()
            }
            (OutputKind::All, true) if self.grouped() => self.groups_where(|_| true),
            (OutputKind::Snapshot, _) => self.groups_where(|_| true),
            (OutputKind::All, false) if self.grouped() => self.groups_where(|g| !g.changed),
            (OutputKind::Default | OutputKind::All, _) => {
                if self.fully && !self.grouped() && !updated {
                    rows.extend(self.current_row());
                }
                Vec::new()
            }
        };
        rows.extend(released.iter().filter_map(|key| self.group_row(key)));
        self.state.groups.values_mut().for_each(|g| g.changed = false);
        rows
    }

    /// The groups `pick` picks, in the reference's order.
    fn groups_where(&self, pick: impl Fn(&Group) -> bool) -> Vec<Key> {
        let keys = self.state.groups.iter().filter(|(_, g)| pick(g)).map(|(key, _)| key.clone()).collect();
        self.ranked(keys)
    }

    /// `keys` in the order the reference releases its groups' rows at a tick: by `tick_rank` of the group's text
    /// as the reference writes it ([`group_of`], of the group's last match), then by that text.
    fn ranked(&self, keys: Vec<Key>) -> Vec<Key> {
        let ranked = by_tick_rank(keys, |key| {
            let bindings = self.state.groups.get(key)?.last.as_ref()?;
            let bound: SmallVec<[(&str, &Row); 2]> = bindings.iter().map(|(tag, row)| (&**tag, row)).collect();
            Some(group_of(&self.plan, &bound, &self.vars))
        });
        ranked.into_iter().map(|(_, key)| key).collect()
    }

    /// The row of group `key` as it stands: projected from its last match with its aggregates, if it passes `HAVING`.
    fn group_row(&self, key: &Key) -> Option<Keyed> {
        let group = self.state.groups.get(key)?;
        let bindings = group.last.as_ref()?;
        let bound: SmallVec<[(&str, &Row); 2]> = bindings.iter().map(|(tag, row)| (&**tag, row)).collect();
        row_of(&self.plan, (&self.vars, self.now), &bound, &group.acc.values(calls(&self.plan)))
    }

    /// The row of a fully aggregated pattern without groups as it stands, read with no match (as the reference's).
    fn current_row(&self) -> Option<Keyed> {
        let group = self.state.groups.get(&Key::default())?;
        row_of(&self.plan, (&self.vars, self.now), &[], &group.acc.values(calls(&self.plan)))
    }
}

/// The row `plan` makes of the match `bound` with `aggregates`, with its `ORDER BY` keys, if it passes `HAVING`.
fn row_of(plan: &QueryPlan, (vars, now): (&Row, i64), bound: &[(&str, &Row)], aggregates: &[Val]) -> Option<Keyed> {
    let having = plan.aggregation.as_ref().and_then(|a| a.having.as_ref());
    let scope = Scope { rows: bound, aggregates, vars, pinned: &[], now: Some(now) };
    holds(having, &scope).then(|| (order::keys(&plan.order_by, &scope), project(&plan.projection, &scope)))
}

fn calls(plan: &QueryPlan) -> &[AggregateCall] {
    plan.aggregation.as_ref().map_or(&[], |a| &a.aggregates)
}

impl Gate for Tallied {
    type Kept = TallyState;

    /// The matches the pattern found in `epoch`, each stamped by its event or timer: their rows are the children of
    /// that stamp, numbered.
    fn take(&mut self, emit: &mut Emit, epoch: u64, mark: usize) {
        let mut previous: Option<(Stamp, usize)> = None;
        for record in emit.split_off(mark) {
            let Record::Match { stamp, bindings, .. } = record else {
                continue;
            };
            let Some(row) = self.tally(epoch, *bindings) else {
                continue;
            };
            let n = match &previous {
                Some((last, n)) if *last == stamp => n + 1,
                _ => 0,
            };
            emit.event(stamp.child(self.statement, n), self.sink, row);
            previous = Some((stamp, n));
        }
    }

    fn next_timer(&self) -> Option<u64> {
        self.state.clock.next()
    }

    /// The stamp of the tick, if it is due by `epoch`.
    fn due(&self, epoch: u64) -> Option<Stamp> {
        self.state.clock.due(epoch, self.statement)
    }

    /// Releases the tick's rows, if it is due by `epoch`, and sets the next one.
    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        let Some((kind, every)) = self.pace else {
            return;
        };
        let Some(stamp) = self.state.clock.tick(epoch, self.statement, every) else {
            return;
        };
        self.now = millis(epoch);
        let rows = order::ordered(self.tick_rows(kind), &self.plan.order_by);
        for (i, row) in rows.into_iter().enumerate() {
            emit.event(stamp.child(self.statement, i), self.sink, row);
        }
    }

    fn kept(&mut self) -> &mut TallyState {
        &mut self.state
    }
}

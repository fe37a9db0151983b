//! `OUTPUT [ALL|FIRST|LAST|SNAPSHOT] EVERY p [AFTER d]` of an aggregating query over a batch window: what each
//! release gives at once, what is kept for the tick and which groups' rows the tick makes. Esper's output view sees
//! each release as one update of the view (`processOutputLimitedView` over the interval's updates): the release's new
//! events enter the aggregates and the ones it replaced leave, and then its rows are made, each with its group's
//! aggregates after the release.
//!
//! Fully aggregated (`ResultSetProcessorRowPerGroup` and `RowForAll`), a release touches the groups of its new events
//! and then of the ones it replaced, each row projected from the group's last event seen, a group the release emptied
//! counting 0 and its other aggregates null. `FIRST` lets a touched group's row out as the release makes it when none
//! of its group did in the last `p` (without groups, the interval's first release's); the default keeps every
//! release's rows for the tick (without groups, after an interval with no release, the row as it stands); `LAST`
//! releases the row of each group touched in the interval (without groups, the row as it stands, changed or not),
//! `ALL` of every group known (an emptied one once more), each as it stands at the tick. `SNAPSHOT` names none: its
//! rows are those of the batch being collected, which the batch modules make.
//!
//! Grouped with ungrouped columns (`ResultSetProcessorAggregateGrouped` and its output helpers), a release's rows are
//! its events', projected from each: `FIRST` lets out, of the new events and then of the replaced ones, the row of
//! each one whose group let none out in the last `p`; `LAST` keeps each group's row of its last new event in the
//! interval (an emptied group's too), released at the tick in the order the groups first had one; `ALL` keeps every
//! new event's row and, for each group that lost rows, a row of the group's last new event as the release left it,
//! and the tick adds that row for every group known that the interval did not touch. A group without a row in the
//! view at a tick is forgotten (the default and `SNAPSHOT` run as a query without aggregates does, `reference::rate`).
//!
//! Rows made before `AFTER`'s time are kept for the first tick, except under `FIRST`, which lets none out then, as a
//! query over a time window does. Both runtimes keep one, by their own group keys, and make the groups' rows at the
//! tick themselves (the reference from its rows, the dataflow from its running aggregates), in the order of
//! [`crate::cep::reference::query::tick_rank`].

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use super::first::First;
use super::{Row, Val};
use crate::cep::plan::{AggregationKind, OutputKind, QueryPlan};

/// A group a release touched (fully aggregated: the last of its events the release saw, new ones before the ones
/// replaced), or one of its events (with ungrouped columns): its row with its `ORDER BY` keys if it passed `HAVING`,
/// and whether the release left its group no row in the view.
#[derive(Debug)]
pub struct Touch<K> {
    pub group: K,
    pub event: Row,
    pub row: Option<(Vec<Val>, Row)>,
    pub emptied: bool,
}

/// What a release hands the policy: the groups it touched, or (with ungrouped columns) its events, each a touch.
#[derive(Debug)]
pub enum Offer<K> {
    Groups(Vec<Touch<K>>),
    /// The new batch's events, then the replaced one's.
    Events {
        new: Vec<Touch<K>>,
        old: Vec<Touch<K>>,
    },
}

impl<K> Offer<K> {
    /// Whether the release touched nothing: it does not start the output clock.
    pub fn is_empty(&self) -> bool {
        match self {
            Offer::Groups(touches) => touches.is_empty(),
            Offer::Events { new, old } => new.is_empty() && old.is_empty(),
        }
    }
}

/// What a tick lets out: the rows kept as they were made, then the rows of `groups` as they stand, each made from
/// the group's last event seen.
#[derive(Debug)]
pub struct Ticked<K> {
    pub rows: Vec<(Vec<Val>, Row)>,
    pub groups: Vec<(K, Row)>,
}

/// The output policy of an aggregating query over a batch window, and what it holds.
#[derive(Debug)]
pub struct BatchPace<K> {
    kind: OutputKind,
    grouped: bool,
    /// Whether the rows are the events' (grouped, with ungrouped columns) rather than the groups'.
    per_event: bool,
    first: Option<First<K>>,
    /// Every group a release touched (with ungrouped columns, gave a new event) since it last had no row in the view
    /// at a tick, with its last event seen (new).
    known: HashMap<K, Row>,
    /// The groups the interval's releases touched.
    changed: HashSet<K>,
    /// The rows the next tick lets out as they were made, oldest first.
    held: Vec<(Vec<Val>, Row)>,
    /// `LAST` of the events' rows: where each group's row is in `held`.
    last_at: HashMap<K, usize>,
}

impl<K: Hash + Eq + Clone> BatchPace<K> {
    /// The policy of `q`, if it has one and is fully aggregated, or grouped with ungrouped columns under `FIRST`,
    /// `LAST` or `ALL`.
    pub fn of(q: &QueryPlan) -> Option<Self> {
        let (output, aggregation) = (q.output.as_ref()?, q.aggregation.as_ref()?);
        let grouped = !aggregation.group_by.is_empty();
        let per_event = aggregation.kind != AggregationKind::FullyAggregated;
        let per_group = matches!(output.kind, OutputKind::First | OutputKind::Last | OutputKind::All);
        if per_event && !(grouped && per_group) {
            return None;
        }
        Some(BatchPace {
            kind: output.kind,
            grouped,
            per_event,
            first: First::of(q),
            known: HashMap::new(),
            changed: HashSet::new(),
            held: Vec::new(),
            last_at: HashMap::new(),
        })
    }

    /// A release at `now` offered `offer` (`early` when before `AFTER`'s time): the rows that go out now, in order
    /// (`FIRST`); the others are kept for the tick, or made then. `make` makes a group's row from an event, with the
    /// group's aggregates as they stand.
    pub fn offer(
        &mut self,
        offer: Offer<K>,
        now: i64,
        early: bool,
        make: impl Fn(&K, &Row) -> Option<(Vec<Val>, Row)>,
    ) -> Vec<(Vec<Val>, Row)> {
        match offer {
            Offer::Groups(touches) => self.offer_groups(touches, now, early),
            Offer::Events { new, old } => self.offer_events(new, old, now, early, make),
        }
    }

    fn offer_groups(&mut self, touches: Vec<Touch<K>>, now: i64, early: bool) -> Vec<(Vec<Val>, Row)> {
        let mut out = Vec::new();
        for Touch { group, event, row, emptied } in touches {
            self.known.insert(group.clone(), event);
            self.changed.insert(group.clone());
            match (self.kind, row) {
                (OutputKind::First, Some(row)) => out.extend(self.pass_first(&group, row, now, early)),
                (OutputKind::Default, Some(row)) => self.held.push(row),
                (OutputKind::All, Some(row)) if !self.grouped => self.held.push(row),
                _ => {}
            }
            self.forget_emptied(&group, emptied);
        }
        out
    }

    /// [`BatchPace::offer`] of a release's events, the new ones and the ones they replaced.
    fn offer_events(
        &mut self,
        new: Vec<Touch<K>>,
        old: Vec<Touch<K>>,
        now: i64,
        early: bool,
        make: impl Fn(&K, &Row) -> Option<(Vec<Val>, Row)>,
    ) -> Vec<(Vec<Val>, Row)> {
        let mut out = Vec::new();
        // The groups that lost rows, in the order they did, each once.
        let (mut lost, mut seen) = (Vec::new(), HashSet::new());
        for (is_new, Touch { group, event, row, emptied }) in
            new.into_iter().map(|t| (true, t)).chain(old.into_iter().map(|t| (false, t)))
        {
            self.changed.insert(group.clone());
            if is_new {
                self.known.insert(group.clone(), event);
            } else if seen.insert(group.clone()) {
                lost.push(group.clone());
            }
            match (self.kind, row) {
                (OutputKind::First, Some(row)) => out.extend(self.pass_first(&group, row, now, early)),
                (OutputKind::Last, Some(row)) if is_new => self.hold_last(group.clone(), row),
                (OutputKind::All, Some(row)) if is_new => self.held.push(row),
                _ => {}
            }
            self.forget_emptied(&group, emptied);
        }
        if self.kind == OutputKind::All {
            let made = lost.iter().filter_map(|group| make(group, self.known.get(group)?));
            self.held.extend(made.collect::<Vec<_>>());
        }
        out
    }

    /// `row` of `group`, if `FIRST`'s gate lets it out at `now` (never before `AFTER`'s time).
    fn pass_first(&mut self, group: &K, row: (Vec<Val>, Row), now: i64, early: bool) -> Option<(Vec<Val>, Row)> {
        let first = self.first.as_mut().expect("OUTPUT FIRST has its gate");
        (!early && first.passes(group, now)).then_some(row)
    }

    /// Keeps `row` as `group`'s last for the tick, in the place of the group's first in the interval.
    fn hold_last(&mut self, group: K, row: (Vec<Val>, Row)) {
        match self.last_at.get(&group) {
            Some(&at) => self.held[at] = row,
            None => {
                self.last_at.insert(group, self.held.len());
                self.held.push(row);
            }
        }
    }

    /// Esper drops a group's `FIRST` condition with its aggregation row.
    fn forget_emptied(&mut self, group: &K, emptied: bool) {
        if let (true, Some(first)) = (emptied, self.first.as_mut()) {
            first.forget(group);
        }
    }

    /// The output clock ticked: what goes out, the groups unranked. Then the groups without a row in the view
    /// (`in_view` says which have one) are forgotten.
    pub fn tick(&mut self, in_view: impl Fn(&K) -> bool) -> Ticked<K> {
        let changed = std::mem::take(&mut self.changed);
        self.last_at.clear();
        let as_they_stand = |keep: &dyn Fn(&K) -> bool| -> Vec<(K, Row)> {
            self.known.iter().filter(|(group, _)| keep(group)).map(|(g, e)| (g.clone(), e.clone())).collect()
        };
        let groups = match self.kind {
            OutputKind::First => {
                self.first.as_mut().expect("OUTPUT FIRST has its gate").tick();
                Vec::new()
            }
            OutputKind::Last if self.per_event => Vec::new(),
            OutputKind::Last if !self.grouped && changed.is_empty() => as_they_stand(&|_| true),
            OutputKind::Last => as_they_stand(&|g| changed.contains(g)),
            OutputKind::All if self.per_event => as_they_stand(&|g| !changed.contains(g)),
            OutputKind::All if self.grouped => as_they_stand(&|_| true),
            OutputKind::Snapshot => Vec::new(),
            OutputKind::Default | OutputKind::All if !self.grouped && changed.is_empty() => as_they_stand(&|_| true),
            OutputKind::Default | OutputKind::All => Vec::new(),
        };
        self.known.retain(|group, _| in_view(group));
        Ticked { rows: std::mem::take(&mut self.held), groups }
    }
}

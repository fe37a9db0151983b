//! `OUTPUT [ALL|FIRST|LAST|SNAPSHOT] EVERY p [AFTER d]` of a fully aggregated query over a batch window: what each
//! release's groups give at once, what is kept for the tick and which groups' rows the tick makes. Esper's output view
//! sees each release as one update of the view (`ResultSetProcessorRowPerGroup` and `RowForAll`, their
//! `processOutputLimitedView` over the interval's updates): a release touches the groups of its new events and then
//! of the ones it replaced, each row with its aggregates after the release and projected from the group's last event
//! seen, null for a group the release emptied. `FIRST` lets a touched group's row out as the release makes it when
//! none of its group did in the last `p` (without groups, the interval's first release's); the default keeps every
//! release's rows for the tick (without groups, after an interval with no release, the row as it stands); `LAST`
//! releases the row of each group touched in the interval, `ALL` of every group known (an emptied one null, once),
//! `SNAPSHOT` of every group with a row in the view, each as it stands at the tick. Rows made before `AFTER`'s time
//! are kept for the first tick, except under `FIRST`, which lets none out then, as a query over a time window does.
//!
//! Both runtimes keep one, by their own group keys, and make the groups' rows at the tick themselves (the reference
//! from its rows, the dataflow from its running aggregates), in the order of [`crate::cep::reference::query::tick_rank`].

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use super::first::First;
use super::{Row, Val};
use crate::cep::plan::{AggregationKind, OutputKind, QueryPlan};

/// A group a release touched: the last of its events the release saw (new ones before the ones replaced), its row
/// with its `ORDER BY` keys if it passed `HAVING`, and whether the release left it no row in the view.
#[derive(Debug)]
pub struct Touch<K> {
    pub group: K,
    pub event: Row,
    pub row: Option<(Vec<Val>, Row)>,
    pub emptied: bool,
}

/// What a tick lets out: the rows kept as they were made, then the rows of `groups` as they stand, each made from
/// the group's last event seen.
#[derive(Debug)]
pub struct Ticked<K> {
    pub rows: Vec<(Vec<Val>, Row)>,
    pub groups: Vec<(K, Row)>,
}

/// The output policy of a fully aggregated query over a batch window, and what it holds.
#[derive(Debug)]
pub struct BatchPace<K> {
    kind: OutputKind,
    grouped: bool,
    first: Option<First<K>>,
    /// Every group a release touched since it last had no row in the view at a tick, with its last event seen.
    known: HashMap<K, Row>,
    /// The groups the interval's releases touched.
    changed: HashSet<K>,
    /// The rows the next tick lets out as they were made, oldest first.
    held: Vec<(Vec<Val>, Row)>,
}

impl<K: Hash + Eq + Clone> BatchPace<K> {
    /// The policy of `q`, if it has one and is fully aggregated.
    pub fn of(q: &QueryPlan) -> Option<Self> {
        let (output, aggregation) = (q.output.as_ref()?, q.aggregation.as_ref()?);
        (aggregation.kind == AggregationKind::FullyAggregated).then(|| BatchPace {
            kind: output.kind,
            grouped: !aggregation.group_by.is_empty(),
            first: First::of(q),
            known: HashMap::new(),
            changed: HashSet::new(),
            held: Vec::new(),
        })
    }

    /// A release at `now` touched `touches`, in order (`early` when before `AFTER`'s time): the rows that go out
    /// now, in order (`FIRST`); the others are kept for the tick, or made then.
    pub fn offer(&mut self, touches: Vec<Touch<K>>, now: i64, early: bool) -> Vec<(Vec<Val>, Row)> {
        let mut out = Vec::new();
        for Touch { group, event, row, emptied } in touches {
            self.known.insert(group.clone(), event);
            self.changed.insert(group.clone());
            match (self.kind, row) {
                (OutputKind::First, Some(row)) => {
                    let first = self.first.as_mut().expect("OUTPUT FIRST has its gate");
                    if !early && first.passes(&group, now) {
                        out.push(row);
                    }
                }
                (OutputKind::Default, Some(row)) => self.held.push(row),
                (OutputKind::All, Some(row)) if !self.grouped => self.held.push(row),
                _ => {}
            }
            // Esper drops a group's condition with its aggregation row.
            if let (true, Some(first)) = (emptied, self.first.as_mut()) {
                first.forget(&group);
            }
        }
        out
    }

    /// The output clock ticked: what goes out, the groups unranked. Then the groups without a row in the view
    /// (`in_view` says which have one) are forgotten.
    pub fn tick(&mut self, in_view: impl Fn(&K) -> bool) -> Ticked<K> {
        let changed = std::mem::take(&mut self.changed);
        let as_they_stand = |keep: &dyn Fn(&K) -> bool| -> Vec<(K, Row)> {
            self.known.iter().filter(|(group, _)| keep(group)).map(|(g, e)| (g.clone(), e.clone())).collect()
        };
        let groups = match self.kind {
            OutputKind::First => {
                self.first.as_mut().expect("OUTPUT FIRST has its gate").tick();
                Vec::new()
            }
            OutputKind::Last => as_they_stand(&|g| changed.contains(g)),
            OutputKind::All if self.grouped => as_they_stand(&|_| true),
            OutputKind::Snapshot => as_they_stand(&in_view),
            OutputKind::Default | OutputKind::All if !self.grouped && changed.is_empty() => as_they_stand(&|_| true),
            OutputKind::Default | OutputKind::All => Vec::new(),
        };
        self.known.retain(|group, _| in_view(group));
        Ticked { rows: std::mem::take(&mut self.held), groups }
    }
}

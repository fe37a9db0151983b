//! The looked-up side's view of a join: the rows B's view holds at the moment of a trigger. The view numbers rows in
//! arrival order and answers them in it; a time window expires lazily (a row is visible while `now < arrival + d`),
//! which is exactly what expiry timers firing before a millisecond's events give, since leaving a lookup view
//! produces nothing. Two indexes keep an insert and a trigger from reading every row: the rows of each view key (those
//! a unique, last-event or length view displaces), and, when `ON` equates a looked-up column with a value of the
//! trigger, the rows of each value of that column (the only rows a trigger can match).

use std::collections::{BTreeMap, HashMap, VecDeque};

use foldhash::fast::RandomState;
use slab::Slab;
use smallvec::SmallVec;

use crate::cep::plan::{PlanExpr, StreamInput, WindowSpec};
use crate::cep::reference::query::{time_window, view_state_key};
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::eval::{Scope, eval};
use crate::cep::runtime::key::Key;
use crate::cep::runtime::value::Text;
use crate::cep::runtime::{Row, Val};

/// The rows the looked-up side's view holds, indexed. Each row has a slot, which the indexes hold: reading or
/// removing a row is one index into the slab, where an ordered map of arrival numbers descended its nodes for each.
#[derive(Debug, Clone)]
pub struct LookupView {
    input: StreamInput,
    /// The stream's filter, over its own rows.
    filter: Option<RowExpr>,
    rows: Slab<Held>,
    /// Numbers the rows in arrival order.
    arrivals: u64,
    /// A time window's slots, oldest first: its rows leave only as they expire, oldest first.
    expiring: Option<VecDeque<usize>>,
    /// Any other view's slots by arrival number when there is no probe, so that a trigger, which then reads every
    /// row, reads them in arrival order without sorting them.
    ordered: Option<BTreeMap<u64, usize>>,
    /// When the view displaces rows by key: unique, last-event and length views (which have no lifetime).
    by_key: Option<ByKey>,
    probe: Option<Probe>,
}

#[derive(Debug, Clone)]
struct Held {
    arrival: u64,
    arrived: i64,
    value: Option<Equal>,
    row: Row,
}

/// Slots of rows, oldest first: one or two in the common lists (a unique view's key, a looked-up value held once).
type Slots = SmallVec<[usize; 2]>;

/// The slots of each view key's rows, and how many rows a key keeps. This map and the probe's are hashed
/// with foldhash (seeded per map), as the dataflow's keyed state is: with SipHash, hashing had about 4 % of the
/// worker's samples in a profile of `benches/join.rs` (`benches/results/join.md`, forty-ninth session).
#[derive(Debug, Clone)]
struct ByKey {
    keep: usize,
    rows: HashMap<Key, Slots, RandomState>,
}

impl ByKey {
    /// Adds a row of `key` and answers the rows it displaces.
    fn push(&mut self, key: Key, slot: usize) -> Slots {
        let list = self.rows.entry(key).or_default();
        list.push(slot);
        let excess = list.len().saturating_sub(self.keep);
        list.drain(..excess).collect()
    }
}

/// The equality of `ON` that a trigger's matches must satisfy: the looked-up `column` (over the looked-up row) equal
/// to `value`, an expression of the trigger alone; and the slots of the rows of each value of the column, oldest
/// first.
#[derive(Debug, Clone)]
struct Probe {
    column: RowExpr,
    value: PlanExpr,
    rows: HashMap<Equal, Slots, RandomState>,
}

impl Probe {
    /// Files the row in `slot`, of class `value`, as the rows `gone` leave: one of the same class leaves the list the
    /// new row joins (one lookup for both, as when a unique view's key keeps its value), any other leaves its own.
    fn file(&mut self, slot: usize, value: Option<Equal>, gone: &[(usize, Held)]) {
        for (g, h) in gone.iter().filter(|(_, h)| value.is_none() || h.value != value) {
            self.forget(*g, h.value.as_ref());
        }
        if let Some(value) = value {
            // A slot is in one list only: those of this list among `gone` are the rows of this class.
            let list = self.rows.entry(value).or_default();
            list.retain(|s| !gone.iter().any(|(g, _)| g == s));
            list.push(slot);
        }
    }

    /// Takes `slot` out of the list of class `value`.
    fn forget(&mut self, slot: usize, value: Option<&Equal>) {
        let Some(value) = value else {
            return;
        };
        if let Some(list) = self.rows.get_mut(value) {
            list.retain(|s| *s != slot);
            if list.is_empty() {
                self.rows.remove(value);
            }
        }
    }
}

/// A value's class under `=`: values that are equal fall in one class (an integer and a double of the same number,
/// zero and negative zero); values that are not may share one (two longs one double apart, any two points). Null and
/// NaN equal nothing and have none.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Equal {
    Number(u64),
    Date(i64),
    Bool(bool),
    Text(Text),
    Other,
}

impl Equal {
    pub fn of(value: &Val) -> Option<Equal> {
        let number = |x: f64| (!x.is_nan()).then(|| Equal::Number((x + 0.0).to_bits()));
        match value {
            Val::Null => None,
            Val::Int(i) => number(*i as f64),
            Val::Double(x) => number(*x),
            Val::Date(ms) => Some(Equal::Date(*ms)),
            Val::Bool(b) => Some(Equal::Bool(*b)),
            Val::String(s) => Some(Equal::Text(s.clone())),
            Val::Point(..) | Val::Polygon(_) | Val::Array(_) => Some(Equal::Other),
        }
    }
}

/// Which rows a trigger can match: all of them, or those of one class of the probed column (none when the trigger's
/// value is null).
#[derive(Debug)]
pub enum Reach {
    All,
    Class(Option<Equal>),
}

impl LookupView {
    /// The view of `input`, probed by the first of `keys` (the equalities of `ON`, trigger side first) whose trigger
    /// side does not read the looked-up row.
    pub fn new(input: &StreamInput, keys: &[(PlanExpr, PlanExpr)], vars: &Row) -> Self {
        let labels = [input.label.as_str()];
        let probe = keys.iter().find(|(value, _)| !reads(value, &input.label)).map(|(value, column)| Probe {
            column: RowExpr::new(column, &labels, vars),
            value: value.clone(),
            rows: HashMap::default(),
        });
        let keep = input.window.as_ref().and_then(|w| if displaces(w) { Some(1) } else { length(w) });
        let by_key = keep.map(|keep| ByKey { keep, rows: HashMap::default() });
        let filter = input.filter.as_ref().map(|f| RowExpr::new(f, &labels, vars));
        let expiring = input.window.as_ref().and_then(time_window).map(|_| VecDeque::new());
        let ordered = (expiring.is_none() && probe.is_none()).then(BTreeMap::new);
        LookupView { input: input.clone(), filter, rows: Slab::new(), arrivals: 0, expiring, ordered, by_key, probe }
    }

    /// An event of the looked-up stream at `now`: it enters the view if it passes the stream's filter, displacing
    /// what the view says it displaces.
    pub fn insert(&mut self, now: i64, row: &Row, vars: &Row) {
        self.expire(now);
        let rows = [row];
        if !self.filter.as_ref().is_none_or(|f| f.holds(&rows, &[], vars, Some(now))) {
            return;
        }
        let value = self.probe.as_ref().and_then(|p| Equal::of(&p.column.eval(&rows, &[], vars, Some(now))));
        let arrival = self.arrivals;
        self.arrivals += 1;
        let slot = self.rows.insert(Held { arrival, arrived: now, value: value.clone(), row: row.clone() });
        self.expiring.iter_mut().for_each(|queue| queue.push_back(slot));
        self.ordered.iter_mut().for_each(|order| _ = order.insert(arrival, slot));
        let displaced = match &mut self.by_key {
            Some(by_key) => by_key.push(view_state_key(self.input.window.as_ref(), &self.input.label, row, vars), slot),
            None => Slots::new(),
        };
        let gone: SmallVec<[(usize, Held); 1]> =
            displaced.into_iter().filter_map(|g| self.rows.try_remove(g).map(|h| (g, h))).collect();
        if let Some(order) = &mut self.ordered {
            gone.iter().for_each(|(_, h)| _ = order.remove(&h.arrival));
        }
        if let Some(probe) = &mut self.probe {
            probe.file(slot, value, &gone);
        }
    }

    /// A row the looked-up named window removed: the view's rows of its key leave (a window keeps one row a key, as
    /// its view here does, so that is the row removed).
    pub fn remove(&mut self, row: &Row, vars: &Row) {
        let Some(by_key) = &mut self.by_key else {
            return;
        };
        let key = view_state_key(self.input.window.as_ref(), &self.input.label, row, vars);
        let Some(slots) = by_key.rows.remove(&key) else {
            return;
        };
        for (slot, held) in slots.into_iter().filter_map(|g| self.rows.try_remove(g).map(|h| (g, h))) {
            if let Some(order) = &mut self.ordered {
                order.remove(&held.arrival);
            }
            if let Some(probe) = &mut self.probe {
                probe.forget(slot, held.value.as_ref());
            }
        }
    }

    /// Where the matches of a trigger (seen as `trigger`) can be.
    pub fn reach(&self, trigger: &Scope<'_>) -> Reach {
        match &self.probe {
            Some(p) => Reach::Class(Equal::of(&eval(&p.value, trigger))),
            None => Reach::All,
        }
    }

    /// The trigger's side of the equality the view is probed by, if any.
    pub fn probe_value(&self) -> Option<&PlanExpr> {
        self.probe.as_ref().map(|p| &p.value)
    }

    /// The rows in view at `now` within `reach`, in arrival order.
    pub fn visible(&self, now: i64, reach: &Reach) -> impl Iterator<Item = &Row> {
        let slots = match (reach, &self.probe) {
            (Reach::Class(Some(value)), Some(p)) => p.rows.get(value).cloned().unwrap_or_default(),
            (Reach::Class(_), _) => Slots::new(),
            (Reach::All, _) => self.in_arrival_order(),
        };
        let lifetime = self.lifetime();
        slots
            .into_iter()
            .filter_map(|slot| self.rows.get(slot))
            .filter(move |h| lifetime.is_none_or(|d| now < h.arrived.saturating_add(d)))
            .map(|h| &h.row)
    }

    /// Every slot, oldest row first (sorted only for a probed view, whose triggers read one class).
    fn in_arrival_order(&self) -> Slots {
        match (&self.expiring, &self.ordered) {
            (Some(queue), _) => queue.iter().copied().collect(),
            (None, Some(order)) => order.values().copied().collect(),
            (None, None) => {
                let mut held: Vec<(u64, usize)> = self.rows.iter().map(|(slot, h)| (h.arrival, slot)).collect();
                held.sort_unstable();
                held.into_iter().map(|(_, slot)| slot).collect()
            }
        }
    }

    /// The view as it is, leaving this one empty: for a statement carried into a replacing dataflow.
    pub fn take(&mut self) -> LookupView {
        let taken = self.clone();
        self.clear();
        taken
    }

    pub fn clear(&mut self) {
        self.rows.clear();
        self.expiring.iter_mut().for_each(VecDeque::clear);
        self.ordered.iter_mut().for_each(BTreeMap::clear);
        self.by_key.iter_mut().for_each(|b| b.rows.clear());
        self.probe.iter_mut().for_each(|p| p.rows.clear());
    }

    pub fn label(&self) -> &str {
        &self.input.label
    }

    pub fn stream(&self) -> &str {
        &self.input.stream
    }

    fn lifetime(&self) -> Option<i64> {
        self.input.window.as_ref().and_then(time_window).map(|d| d as i64)
    }

    /// Drops the rows that have expired at `now`, oldest first (rows arrive in time order).
    fn expire(&mut self, now: i64) {
        let (Some(d), Some(queue)) = (self.lifetime(), &mut self.expiring) else {
            return;
        };
        while let Some(&slot) = queue.front().filter(|s| now >= self.rows[**s].arrived.saturating_add(d)) {
            queue.pop_front();
            let held = self.rows.remove(slot);
            if let Some(probe) = &mut self.probe {
                probe.forget(slot, held.value.as_ref());
            }
        }
    }
}

/// Whether `e` reads the row labelled `label`.
fn reads(e: &PlanExpr, label: &str) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        found |= matches!(x, PlanExpr::Column { source, .. } if *source == label)
            || matches!(x, PlanExpr::Row(l) if l == label);
    });
    found
}

/// Whether a new row replaces the held one of its view key (unique and last-event views, grouped or not).
fn displaces(w: &WindowSpec) -> bool {
    match w {
        WindowSpec::Unique { .. } | WindowSpec::LastEvent => true,
        WindowSpec::Grouped { inner, .. } => displaces(inner),
        _ => false,
    }
}

/// How many rows of the newest row's view key a length view keeps.
fn length(w: &WindowSpec) -> Option<usize> {
    match w {
        WindowSpec::Length { count } => Some(*count as usize),
        WindowSpec::Grouped { inner, .. } => length(inner),
        _ => None,
    }
}

//! A named window (`std:unique(k)` or `std:lastevent()`) together with every statement that writes it: rows inserted
//! by `INSERT INTO W`, and the `ON S MERGE W`, `ON S DELETE FROM W` and `ON S UPDATE W` statements. The rows are a map by the window's key; a merge whose
//! condition equates the trigger with that key looks its row up directly, any other merge scans the rows. The
//! operator's output is the window's insert stream (inserted rows and new versions of updated rows), and, when a join
//! looks the window up, the rows writers delete, on the window's removed stream. When every
//! writer is keyed by the window's key the window is partitioned over the workers by it; otherwise it lives on one.
//!
//! Each row's last write is remembered by the stamp of the record that carried it, so that a window kept across a
//! replacement can hand the joins starting to look it up its rows in the order they were written: the order of the
//! view of a join that had been reading the window all along (`join::held_by`).
//!
//! Order: a statement's row enters the window while that statement handles the event that produced it (as in the
//! reference evaluator), so an insert takes its place at its parent event, not after it; a trigger takes its place
//! at its own event, behind the statements numbered before the one it triggers.

use std::collections::HashMap;
use std::sync::Arc;

use foldhash::fast::RandomState;
use smallvec::{SmallVec, smallvec};

use super::operator::{Emit, Logic, State};
use super::reaper::Leftovers;
use super::record::{Origin, Record, Stamp, millis};
use crate::cep::plan::{BinaryOp, MergeActionPlan, MergePlan, Partitioning, PlanExpr, StreamInput, WindowActionPlan};
use crate::cep::reference::named::assign;
use crate::cep::runtime::Row;
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::eval::{Scope, project};
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::value::Name;

/// What an `ON trigger ...` statement does to the window.
#[derive(Debug)]
pub enum Action {
    Merge(MergePlan),
    Delete(WindowActionPlan),
    Update(WindowActionPlan),
}

impl Action {
    pub fn trigger(&self) -> &StreamInput {
        match self {
            Action::Merge(m) => &m.trigger,
            Action::Delete(a) | Action::Update(a) => &a.trigger,
        }
    }

    fn window_label(&self) -> &Name {
        match self {
            Action::Merge(m) => &m.window_label,
            Action::Delete(a) | Action::Update(a) => &a.window_label,
        }
    }

    fn condition(&self) -> Option<&PlanExpr> {
        match self {
            Action::Merge(m) => m.condition.as_ref(),
            Action::Delete(a) | Action::Update(a) => a.condition.as_ref(),
        }
    }

    /// Whether it may set `column` of a window row.
    pub fn assigns(&self, column: &str) -> bool {
        let set = |assignments: &[(String, PlanExpr)]| assignments.iter().any(|(name, _)| name == column);
        match self {
            Action::Merge(m) => m.clauses.iter().any(|c| matches!(&c.action, MergeActionPlan::Update(a) if set(a))),
            Action::Update(a) => set(&a.assignments),
            Action::Delete(_) => false,
        }
    }

    pub fn partition(&self) -> &Partitioning {
        match self {
            Action::Merge(m) => &m.partition,
            Action::Delete(a) | Action::Update(a) => &a.partition,
        }
    }
}

/// One `ON ...` statement writing the window.
#[derive(Debug)]
pub struct Merge {
    statement: usize,
    action: Action,
    /// The stream number its trigger events are retagged with on the way in.
    trigger: u32,
    /// The trigger's filter, over the trigger event.
    filter: Option<RowExpr>,
    /// The trigger-side expression equal to the window's key, when the condition has one.
    lookup: Option<RowExpr>,
    /// The condition, over the trigger event and a window row (as are the rest).
    condition: Option<RowExpr>,
    /// The condition to test on a row found by a text key, when it differs: the test that the lookup value equals
    /// the row's key column holds there by construction (the row is filed under that text, and no writer changes its
    /// key column), so it is left out; `Some(None)` when nothing else is left. Other keys test the whole condition.
    by_text: Option<Option<RowExpr>>,
    /// A merge's clause conditions, in order; a `not matched` clause's is evaluated over the trigger event alone.
    clauses: Vec<Option<RowExpr>>,
}

impl Merge {
    /// `key` is the window's one key column when no writer of the window assigns it; expressions are compiled
    /// with the configuration's variables `vars`.
    pub fn new(
        statement: usize,
        action: Action,
        trigger: u32,
        lookup: Option<PlanExpr>,
        key: Option<&Name>,
        vars: &Row,
    ) -> Self {
        let labels = [action.trigger().label.as_str(), action.window_label().as_str()];
        let compile = |e: &PlanExpr| RowExpr::new(e, &labels, vars);
        let clauses = match &action {
            Action::Merge(m) => m.clauses.iter().map(|c| c.condition.as_ref().map(compile)).collect(),
            Action::Delete(_) | Action::Update(_) => Vec::new(),
        };
        Merge {
            statement,
            trigger,
            filter: action.trigger().filter.as_ref().map(compile),
            lookup: lookup.as_ref().map(compile),
            condition: action.condition().map(compile),
            by_text: without_key_test(&action, lookup.as_ref(), key).map(|rest| rest.as_ref().map(compile)),
            clauses,
            action,
        }
    }

    /// The condition a row found under `key` must meet.
    fn condition(&self, key: &Key) -> Option<&RowExpr> {
        match &self.by_text {
            Some(rest) if key::is_text(key) => rest.as_ref(),
            _ => self.condition.as_ref(),
        }
    }
}

/// A merge's condition without the test that `lookup` equals the window's `key` column, when it has that test;
/// `Some(None)` when nothing else is left.
fn without_key_test(action: &Action, lookup: Option<&PlanExpr>, key: Option<&Name>) -> Option<Option<PlanExpr>> {
    let (lookup, key) = lookup.zip(key)?;
    let label = action.window_label();
    let implied = |c: &PlanExpr| is_key_test(c, lookup, label, key);
    let conjuncts = action.condition()?.conjuncts();
    let found = conjuncts.iter().any(|c| implied(c));
    found.then(|| conjuncts.into_iter().filter(|c| !implied(c)).cloned().reduce(PlanExpr::and))
}

#[derive(Debug)]
pub struct WindowLogic {
    name: String,
    keys: Vec<PlanExpr>,
    stream: u32,
    merges: Vec<Merge>,
    vars: Arc<Row>,
    rows: Rows,
    /// The triggers' rows, done with once merged: a pattern's matches, which held them for seconds.
    triggers: Leftovers,
    /// The stamp of each row's last write, by the row's key.
    written: Written,
    /// The window's removed stream (`join::removed_from`), when a join looks the window up: the rows writers delete
    /// go there, after the rows of the insert stream the same trigger made.
    removed: Option<u32>,
    /// The window's held stream (`join::held_by`), when a join looks the window up: the rows it adopted go there
    /// when it opens.
    held: Option<u32>,
    /// Whether its rows were adopted from the dataflow this one replaces, and not sent to the joins yet.
    adopted: bool,
}

/// The keys a trigger looks at: one when it looks its row up.
type Keys = SmallVec<[Key; 1]>;

/// What a trigger does to each row it matches ([`effect`]), with the row's key.
type Effects = SmallVec<[(Option<Option<Row>>, Key); 1]>;

/// The window's rows by key, hashed with foldhash (much cheaper than SipHash on short keys); the state a replaced
/// statement hands over.
type Rows = HashMap<Key, Row, RandomState>;

/// The stamps of the rows' last writes, apart from the rows: a merge looking a row up reads no stamp.
type Written = HashMap<Key, Stamp, RandomState>;

/// The state a replaced window hands over.
struct Kept {
    rows: Rows,
    written: Written,
}

impl WindowLogic {
    pub fn new(name: String, keys: Vec<PlanExpr>, stream: u32, merges: Vec<Merge>, vars: Arc<Row>) -> Self {
        let triggers = Leftovers::for_this_thread();
        let (rows, written) = (HashMap::default(), HashMap::default());
        WindowLogic {
            name,
            keys,
            stream,
            merges,
            vars,
            rows,
            written,
            triggers,
            removed: None,
            held: None,
            adopted: false,
        }
    }

    /// When joins look the window up, their streams (removed, held): the rows writers delete go to the first, and
    /// the rows the window adopted to the second.
    pub fn looked_up(mut self, streams: Option<(u32, u32)>) -> Self {
        (self.removed, self.held) = (streams.map(|s| s.0), streams.map(|s| s.1));
        self
    }

    /// Puts `row` in the window; answers its key.
    fn insert(&mut self, row: Row) -> (Key, Row) {
        let key = key::of_all(&self.keys, &Scope::new(&[(self.name.as_str(), &row)], &self.vars, None));
        self.rows.insert(key.clone(), row.clone());
        (key, row)
    }

    /// Sends `row`, of `key`, on the window's insert stream, remembering `stamp` as its last write.
    fn wrote(&mut self, emit: &mut Emit, stamp: Stamp, (key, row): (Key, Row)) {
        self.written.insert(key, stamp.clone());
        emit.event(stamp, self.stream, row);
    }

    /// Runs merge `m` for the trigger `event` of `stamp`, at engine millisecond `now`.
    fn merge(&mut self, emit: &mut Emit, m: usize, (stamp, now): (&Stamp, i64), event: &Row) {
        let merge = &self.merges[m];
        let at = (&*self.vars, now);
        if !holds(merge.filter.as_ref(), &[event], at) {
            return;
        }
        let candidates: Keys = match &merge.lookup {
            Some(expr) => smallvec![key::of(expr.eval(&[event], &[], &self.vars, Some(now)))],
            None => self.rows.keys().cloned().collect(),
        };
        // What the merge does to each row its condition matches, decided on the rows as they are before any changes
        // (a row is matched once): each row is found once.
        let effects: Effects = candidates
            .into_iter()
            .filter_map(|k| {
                let row = self.rows.get(&k)?;
                let matches = holds(merge.condition(&k), &[event, row], at);
                matches.then(|| (effect(merge, at, event, row), k))
            })
            .collect();
        let (out, removed) = match &merge.action {
            Action::Merge(_) if effects.is_empty() => (self.not_matched(m, event, now), Vec::new()),
            _ => self.apply(effects),
        };
        let statement = self.merges[m].statement;
        let inserted = out.len();
        for (i, change) in out.into_iter().enumerate() {
            self.wrote(emit, stamp.child(statement, i), change);
        }
        if let Some(id) = self.removed {
            for (i, row) in removed.into_iter().enumerate() {
                emit.event(stamp.child(statement, inserted + i), id, row);
            }
        }
    }

    fn not_matched(&mut self, m: usize, event: &Row, now: i64) -> Vec<(Key, Row)> {
        let Action::Merge(plan) = &self.merges[m].action else {
            return Vec::new();
        };
        let conditions = &self.merges[m].clauses;
        let mut clauses = plan.clauses.iter().zip(conditions);
        let clause =
            clauses.find(|(c, condition)| !c.matched && holds(condition.as_ref(), &[event], (&self.vars, now)));
        let Some(MergeActionPlan::Insert(projection)) = clause.map(|(c, _)| &c.action) else {
            return Vec::new();
        };
        let binding = [(plan.trigger.label.as_str(), event)];
        let row = project(projection, &Scope::new(&binding, &self.vars, Some(now)));
        vec![self.insert(row)]
    }

    /// Applies the effects on matched rows; answers the updated rows with their keys, and the deleted rows.
    fn apply(&mut self, effects: Effects) -> (Vec<(Key, Row)>, Vec<Row>) {
        let (mut out, mut removed) = (Vec::new(), Vec::new());
        for (effect, key) in effects {
            match effect {
                Some(Some(updated)) => {
                    self.rows.insert(key.clone(), updated.clone());
                    out.push((key, updated));
                }
                Some(None) => {
                    self.written.remove(&key);
                    removed.extend(self.rows.remove(&key));
                }
                None => {}
            }
        }
        (out, removed)
    }
}

/// Whether `conjunct` is `lookup = label.key`, either way round.
fn is_key_test(conjunct: &PlanExpr, lookup: &PlanExpr, label: &Name, key: &Name) -> bool {
    let PlanExpr::Binary { op: BinaryOp::Eq, lhs, rhs, .. } = conjunct else {
        return false;
    };
    let is_key = |e: &PlanExpr| matches!(e, PlanExpr::Column { source, name, .. } if source == label && name == key);
    (**lhs == *lookup && is_key(rhs)) || (**rhs == *lookup && is_key(lhs))
}

/// What happens to a matched `row`: `Some(Some(new row))` update, `Some(None)` delete, `None` nothing (a merge's
/// first applicable matched clause decides).
fn effect(merge: &Merge, at: (&Row, i64), event: &Row, row: &Row) -> Option<Option<Row>> {
    let (trigger, window) = ((merge.action.trigger().label.as_str(), event), merge.action.window_label().as_str());
    let plan = match &merge.action {
        Action::Delete(_) => return Some(None),
        Action::Update(a) => return Some(Some(assign(&a.assignments, row, trigger, window, at))),
        Action::Merge(plan) => plan,
    };
    let mut clauses = plan.clauses.iter().zip(&merge.clauses);
    let (clause, _) = clauses.find(|(c, condition)| c.matched && holds(condition.as_ref(), &[event, row], at))?;
    match &clause.action {
        MergeActionPlan::Update(assignments) => Some(Some(assign(assignments, row, trigger, window, at))),
        MergeActionPlan::Delete => Some(None),
        MergeActionPlan::Insert(_) => None,
    }
}

/// Whether `condition` holds over `rows` at engine millisecond `now` (no condition always does).
fn holds(condition: Option<&RowExpr>, rows: &[&Row], (vars, now): (&Row, i64)) -> bool {
    condition.is_none_or(|c| c.holds(rows, &[], vars, Some(now)))
}

impl WindowLogic {
    /// The event being handled when this record's change happens, and by which statement: the stamp of that event
    /// as it orders (origin, path length, path), borrowed from the record, then the statement.
    fn place<'r>(&self, record: &'r Record) -> (Origin, usize, &'r [u64], u32) {
        let Record::Event { stamp, stream, .. } = record else {
            return (Origin::Input(0), 0, &[], 0);
        };
        if *stream != self.stream {
            let statement = self.merges.iter().find(|m| m.trigger == *stream).map_or(0, |m| m.statement);
            return (stamp.origin, stamp.path.len(), &stamp.path, statement as u32);
        }
        match stamp.path.split_last() {
            Some((hop, parent)) => (stamp.origin, parent.len(), parent, (hop >> super::record::ROW_BITS) as u32),
            None => (stamp.origin, 0, &[], 0),
        }
    }
}

impl Logic for WindowLogic {
    /// By place (the parent stamp's order, then the statement), then by the record's own stamp. Compared in place,
    /// without copying stamps into keys: the records mostly arrive in order, which the stable sort only checks.
    fn sort(&self, records: &mut [Record]) {
        records.sort_by(|a, b| self.place(a).cmp(&self.place(b)).then_with(|| a.stamp().cmp(&b.stamp())));
    }

    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        let Record::Event { stamp, stream, row } = record else {
            return;
        };
        if stream == self.stream {
            let inserted = self.insert(row);
            self.wrote(emit, stamp, inserted);
        } else if let Some(m) = self.merges.iter().position(|m| m.trigger == stream) {
            self.merge(emit, m, (&stamp, millis(epoch)), &row);
            self.triggers.add(std::iter::once(row));
        }
    }

    fn epoch_done(&mut self) {
        self.triggers.reap();
    }

    fn next_timer(&self) -> Option<u64> {
        None
    }

    fn fire(&mut self, _emit: &mut Emit, _epoch: u64) {}

    /// The adopted rows, each stamped as its last write, for the joins.
    fn opening(&mut self, emit: &mut Emit) {
        let adopted = std::mem::take(&mut self.adopted);
        let Some(held) = self.held.filter(|_| adopted) else {
            return;
        };
        for (key, row) in &self.rows {
            if let Some(stamp) = self.written.get(key) {
                emit.event(stamp.clone(), held, row.clone());
            }
        }
    }

    fn export(&mut self) -> Option<State> {
        Some(Box::new(Kept { rows: std::mem::take(&mut self.rows), written: std::mem::take(&mut self.written) }))
    }

    fn adopt(&mut self, state: State) {
        if let Ok(kept) = state.downcast::<Kept>() {
            (self.rows, self.written, self.adopted) = (kept.rows, kept.written, true);
        }
    }

    fn stop(&mut self) {
        self.rows.clear();
        self.written.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::config::CepConfig;
    use crate::cep::dataflow::program::merge_lookup;
    use crate::cep::explain::plan_config;
    use crate::cep::plan::PlanNode;
    use crate::cep::runtime::Val;

    /// The merge of a window keyed by `id`, with `condition`.
    fn merge(condition: &str, key_fixed: bool) -> Merge {
        let config = format!(
            r#"{{"host":"h","in":[{{"id":"R.*","type":"R","isPattern":true,"attributes":[
                {{"name":"n","type":"int"}},{{"name":"floor","type":"string"}}]}}],
              "out":[{{"id":"O","type":"O","attributes":[{{"name":"n","type":"int"}}]}}],
              "statements":["CREATE WINDOW W.std:unique(id) as R",
                "ON R r MERGE W w WHERE {condition} WHEN MATCHED THEN UPDATE SET n = r.n",
                "INSERT INTO O SELECT * FROM W"]}}"#
        );
        let config: CepConfig = serde_json::from_str(&config).expect("a test configuration");
        let plan = plan_config(&config, true).expect("plans");
        let PlanNode::Merge(m) = &plan.statements[1].node else { panic!("a merge") };
        let PlanNode::NamedWindow(w) = &plan.statements[0].node else { panic!("a window") };
        let crate::cep::plan::WindowSpec::Unique { keys } = &w.window else { panic!("keyed") };
        let lookup = merge_lookup(&m.partition, &keys[0]);
        let key = Name::from("id");
        Merge::new(1, Action::Merge(m.clone()), 0, lookup, key_fixed.then_some(&key), &Row::new())
    }

    fn printed(merge: &Merge) -> Option<Option<String>> {
        merge.by_text.as_ref().map(|rest| rest.as_ref().map(|e| e.expr().to_string()))
    }

    #[test]
    fn a_row_found_by_its_text_key_skips_only_the_key_test() {
        assert_eq!(printed(&merge("w.id = r.id", true)), Some(None));
        assert_eq!(printed(&merge("w.n > 2 AND r.id = w.id", true)), Some(Some("(w.n > 2)".to_owned())));
        let m = merge("w.n > 2 AND r.id = w.id", true);
        assert!(m.condition(&Key::from("Room1")).is_some_and(|c| c.expr().to_string() == "(w.n > 2)"));
        let whole = m.condition(&key::of(Val::Int(1))).map(RowExpr::expr);
        assert_eq!(whole, m.action.condition(), "a number's key tests it all");
    }

    #[test]
    fn a_merged_trigger_s_row_waits_for_the_reaper_until_the_epoch_is_done() {
        let key =
            PlanExpr::Column { source: "W".into(), name: Name::from("id"), ty: crate::cep::plan::DataType::String };
        // The window's own stream is 5; the merge's trigger events come as stream 0.
        let mut logic = WindowLogic::new("W".into(), vec![key], 5, vec![merge("w.id = r.id", true)], Arc::default());
        logic.triggers = Leftovers::kept();
        let row = Row::from([("id", Val::String("R1".into())), ("n", Val::Int(7))]);
        let mut emit = Emit::default();
        logic.record(&mut emit, 1, Record::Event { stamp: Stamp::input(1), stream: 0, row: row.clone() });
        assert_eq!(logic.triggers.rows(), Some(&[row][..]));
        logic.epoch_done();
        assert_eq!(logic.triggers.rows(), Some(&[][..]));
    }

    #[test]
    fn a_writer_setting_the_key_or_a_condition_without_the_key_test_keeps_it_whole() {
        assert_eq!(printed(&merge("w.id = r.id", false)), None);
        assert_eq!(printed(&merge("w.floor = r.floor", true)), None);
    }
}

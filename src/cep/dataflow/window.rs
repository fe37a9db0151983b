//! A named window (`std:unique(k)` or `std:lastevent()`) together with every statement that writes it: rows inserted
//! by `INSERT INTO W` and the `ON S MERGE W` statements. The rows are a map by the window's key; a merge whose
//! condition equates the trigger with that key looks its row up directly, any other merge scans the rows. The
//! operator's output is the window's insert stream (inserted rows and new versions of updated rows). When every
//! writer is keyed by the window's key the window is partitioned over the workers by it; otherwise it lives on one.

use std::collections::HashMap;
use std::sync::Arc;

use super::operator::{Emit, Logic};
use super::record::{Record, Stamp};
use crate::cep::plan::{MergeActionPlan, MergePlan, PlanExpr};
use crate::cep::reference::query::key_of;
use crate::cep::runtime::Row;
use crate::cep::runtime::eval::{Scope, eval, holds};

/// One `ON ... MERGE` into the window.
#[derive(Debug)]
pub struct Merge {
    pub statement: usize,
    pub plan: MergePlan,
    /// The stream number its trigger events are retagged with on the way in.
    pub trigger: u32,
    /// The trigger-side expression equal to the window's key, when the condition has one.
    pub lookup: Option<PlanExpr>,
}

#[derive(Debug)]
pub struct WindowLogic {
    name: String,
    keys: Vec<PlanExpr>,
    stream: u32,
    merges: Vec<Merge>,
    vars: Arc<Row>,
    rows: HashMap<String, Row>,
}

impl WindowLogic {
    pub fn new(name: String, keys: Vec<PlanExpr>, stream: u32, merges: Vec<Merge>, vars: Arc<Row>) -> Self {
        WindowLogic { name, keys, stream, merges, vars, rows: HashMap::new() }
    }

    fn insert(&mut self, row: Row) -> Row {
        let key = key_of(&self.keys, &self.name, &row, &self.vars);
        self.rows.insert(key, row.clone());
        row
    }

    fn merge(&mut self, emit: &mut Emit, m: usize, stamp: &Stamp, event: &Row) {
        let merge = &self.merges[m];
        let trigger = &merge.plan.trigger;
        let binding = [(trigger.label.as_str(), event)];
        if !holds(trigger.filter.as_ref(), &Scope::new(&binding, &self.vars)) {
            return;
        }
        let candidates: Vec<String> = match &merge.lookup {
            Some(expr) => vec![eval(expr, &Scope::new(&binding, &self.vars)).key()],
            None => self.rows.keys().cloned().collect(),
        };
        let matched: Vec<String> = candidates
            .into_iter()
            .filter(|k| self.rows.get(k).is_some_and(|row| self.matches(merge, event, row)))
            .collect();
        let out = if matched.is_empty() { self.not_matched(m, event) } else { self.matched(m, event, matched) };
        let statement = self.merges[m].statement;
        for (i, row) in out.into_iter().enumerate() {
            emit.event(stamp.child(statement, i), self.stream, row);
        }
    }

    fn matches(&self, merge: &Merge, event: &Row, row: &Row) -> bool {
        let both = [(merge.plan.trigger.label.as_str(), event), (merge.plan.window_label.as_str(), row)];
        holds(merge.plan.condition.as_ref(), &Scope::new(&both, &self.vars))
    }

    fn not_matched(&mut self, m: usize, event: &Row) -> Vec<Row> {
        let plan = &self.merges[m].plan;
        let binding = [(plan.trigger.label.as_str(), event)];
        let scope = Scope::new(&binding, &self.vars);
        let clause = plan.clauses.iter().find(|c| !c.matched && holds(c.condition.as_ref(), &scope));
        let Some(MergeActionPlan::Insert(projection)) = clause.map(|c| &c.action) else {
            return Vec::new();
        };
        let row: Row = projection.iter().map(|p| (p.name.clone(), eval(&p.expr, &scope))).collect();
        vec![self.insert(row)]
    }

    fn matched(&mut self, m: usize, event: &Row, keys: Vec<String>) -> Vec<Row> {
        let mut out = Vec::new();
        for key in keys {
            let Some(row) = self.rows.get(&key) else {
                continue;
            };
            match matched_effect(&self.merges[m].plan, &self.vars, event, row) {
                Some(Some(updated)) => {
                    out.push(updated.clone());
                    self.rows.insert(key, updated);
                }
                Some(None) => {
                    self.rows.remove(&key);
                }
                None => {}
            }
        }
        out
    }
}

/// The first applicable matched clause's effect on `row`: `Some(Some(new row))` update, `Some(None)` delete.
fn matched_effect(plan: &MergePlan, vars: &Row, event: &Row, row: &Row) -> Option<Option<Row>> {
    let both = [(plan.trigger.label.as_str(), event), (plan.window_label.as_str(), row)];
    let scope = Scope::new(&both, vars);
    let clause = plan.clauses.iter().find(|c| c.matched && holds(c.condition.as_ref(), &scope))?;
    match &clause.action {
        MergeActionPlan::Update(assignments) => {
            let mut updated = row.clone();
            for (name, e) in assignments {
                updated.insert(name.clone(), eval(e, &scope));
            }
            Some(Some(updated))
        }
        MergeActionPlan::Delete => Some(None),
        MergeActionPlan::Insert(_) => None,
    }
}

impl Logic for WindowLogic {
    fn record(&mut self, emit: &mut Emit, _epoch: u64, record: Record) {
        let Record::Event { stamp, stream, row } = record else {
            return;
        };
        if stream == self.stream {
            let inserted = self.insert(row);
            emit.event(stamp, self.stream, inserted);
        } else if let Some(m) = self.merges.iter().position(|m| m.trigger == stream) {
            self.merge(emit, m, &stamp, &row);
        }
    }

    fn next_timer(&self) -> Option<u64> {
        None
    }

    fn fire(&mut self, _emit: &mut Emit, _epoch: u64) {}

    fn stop(&mut self) {
        self.rows.clear();
    }
}

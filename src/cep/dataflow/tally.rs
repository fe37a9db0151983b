//! The aggregates of a pattern statement that aggregates its matches (`SELECT count(*) FROM pattern [...]`): the
//! reference evaluator's meaning (`cep::reference::pattern`), with running aggregates per group ([`Accumulators`])
//! instead of every match kept. A pattern has no window, so matches only enter; each one that passes `WHERE` is the
//! statement's one new row, as Esper hands each match to it alone, and makes one row projected from itself with its
//! group's aggregates, if it passes `HAVING`. Such a statement runs on one worker (the planner's partition of an
//! aggregating query), so a group's aggregates are all in one place.

use std::collections::HashMap;

use foldhash::fast::RandomState;
use smallvec::SmallVec;

use super::aggregate::Accumulators;
use crate::cep::plan::QueryPlan;
use crate::cep::reference::pattern::Bindings;
use crate::cep::runtime::eval::{Scope, eval, holds, project};
use crate::cep::runtime::key::{self, Key};
use crate::cep::runtime::{Row, Val};

/// The running aggregates of each group of matches.
#[derive(Debug, Default)]
pub struct Tally {
    groups: HashMap<Key, Accumulators, RandomState>,
}

impl Tally {
    /// The row the match bound as `bindings` makes under `plan`, which aggregates; its group counts it if it passes
    /// `WHERE`.
    pub fn row(&mut self, plan: &QueryPlan, vars: &Row, bindings: &Bindings) -> Option<Row> {
        let aggregation = plan.aggregation.as_ref()?;
        let bound: SmallVec<[(&str, &Row); 2]> = bindings.iter().map(|(tag, row)| (&**tag, row)).collect();
        let scope = Scope::new(&bound, vars);
        if !holds(plan.filter.as_ref(), &scope) {
            return None;
        }
        let by = &aggregation.group_by;
        let group = key::of_values(by.len(), by.iter().map(|e| eval(e, &scope)));
        let calls = &aggregation.aggregates;
        let args = calls.iter().map(|call| call.arg.as_ref().map_or(Val::Null, |arg| eval(arg, &scope)));
        let running = self.groups.entry(group).or_insert_with(|| Accumulators::new(calls));
        running.add(calls, args);
        let aggregates = running.values(calls);
        let scope = Scope { rows: &bound, aggregates: &aggregates, vars, pinned: &[] };
        holds(aggregation.having.as_ref(), &scope).then(|| project(&plan.projection, &scope))
    }
}

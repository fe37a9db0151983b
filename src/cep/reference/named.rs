//! Named windows and `ON ... MERGE`: a window keeps one row per unique key (`std:unique`) or a single row
//! (`std:lastevent`); inserts replace the row with the same key. A merge looks up the rows its condition matches
//! for each trigger event and inserts, updates or deletes as its first applicable clause says. Consumers of a
//! window see its insert stream: each inserted row and each updated row's new version. `ON ... DELETE` removes the
//! rows its condition matches; `ON ... UPDATE` changes them (its new versions join the insert stream too). The rows
//! deleted go to the window's removed stream (`join::removed_from`) when a join looks the window up.

use super::Ctx;
use super::query::key_of;
use crate::cep::plan::{INITIAL, MergeActionPlan, MergePlan, NamedWindowPlan, PlanExpr, WindowActionPlan, WindowSpec};
use crate::cep::runtime::eval::{Scope, eval, holds, project};
use crate::cep::runtime::{EngineError, Row};

#[derive(Debug)]
pub struct NamedWindow {
    name: String,
    keys: Vec<PlanExpr>,
    rows: Vec<Row>,
}

impl NamedWindow {
    pub fn new(number: usize, plan: &NamedWindowPlan) -> Result<Self, EngineError> {
        let keys = match &plan.window {
            WindowSpec::Unique { keys } => keys.clone(),
            WindowSpec::LastEvent => Vec::new(),
            _ => {
                let construct = "a named window other than std:unique or std:lastevent".into();
                return Err(EngineError::Unsupported { statement: number, construct });
            }
        };
        Ok(NamedWindow { name: plan.name.clone(), keys, rows: Vec::new() })
    }

    fn key(&self, row: &Row, vars: &Row) -> String {
        key_of(&self.keys, &self.name, row, vars)
    }

    /// Inserts `row`, replacing the row with the same key; answers the insert stream's event.
    pub fn insert(&mut self, row: Row, vars: &Row) -> Row {
        let key = self.key(&row, vars);
        match self.rows.iter().position(|r| key_of(&self.keys, &self.name, r, vars) == key) {
            Some(i) => self.rows[i] = row.clone(),
            None => self.rows.push(row.clone()),
        }
        row
    }
}

/// What an `ON` statement did to a window for one trigger: the rows of its insert stream (inserted rows and updated
/// rows' new versions), and the rows it deleted, oldest first.
#[derive(Debug, Default)]
pub struct Changes {
    pub inserted: Vec<Row>,
    pub removed: Vec<Row>,
}

#[derive(Debug)]
pub struct MergeState {
    pub window: String,
    plan: MergePlan,
}

impl MergeState {
    pub fn new(_number: usize, plan: &MergePlan) -> Result<Self, EngineError> {
        Ok(MergeState { window: plan.window.clone(), plan: plan.clone() })
    }

    /// Applies the merge for one trigger event; answers the window's changes.
    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, window: &mut NamedWindow, stream: &str, event: &Row) -> Changes {
        let trigger = &self.plan.trigger;
        let binding = [(trigger.label.as_str(), event)];
        if stream != trigger.stream || !holds(trigger.filter.as_ref(), &Scope::new(&binding, ctx.vars, Some(ctx.now))) {
            return Changes::default();
        }
        let matched: Vec<usize> =
            (0..window.rows.len()).filter(|i| self.matches(event, &window.rows[*i], ctx)).collect();
        if matched.is_empty() {
            return Changes { inserted: self.not_matched(ctx, window, event), removed: Vec::new() };
        }
        let mut changes = Changes::default();
        let mut deleted = Vec::new();
        for i in matched {
            match self.matched(ctx, event, &window.rows[i]) {
                Some(Some(row)) => {
                    window.rows[i] = row.clone();
                    changes.inserted.push(row);
                }
                Some(None) => deleted.push(i),
                None => {}
            }
        }
        changes.removed = deleted.iter().map(|i| window.rows[*i].clone()).collect();
        for i in deleted.into_iter().rev() {
            window.rows.remove(i);
        }
        changes
    }

    fn both<'a>(&'a self, event: &'a Row, row: &'a Row) -> [(&'a str, &'a Row); 2] {
        [(self.plan.trigger.label.as_str(), event), (self.plan.window_label.as_str(), row)]
    }

    fn matches(&self, event: &Row, row: &Row, ctx: &Ctx<'_>) -> bool {
        holds(self.plan.condition.as_ref(), &Scope::new(&self.both(event, row), ctx.vars, Some(ctx.now)))
    }

    fn not_matched(&self, ctx: &Ctx<'_>, window: &mut NamedWindow, event: &Row) -> Vec<Row> {
        let binding = [(self.plan.trigger.label.as_str(), event)];
        let scope = Scope::new(&binding, ctx.vars, Some(ctx.now));
        let clause = self.plan.clauses.iter().find(|c| !c.matched && holds(c.condition.as_ref(), &scope));
        match clause.map(|c| &c.action) {
            Some(MergeActionPlan::Insert(projection)) => {
                let row = project(projection, &scope);
                vec![window.insert(row, ctx.vars)]
            }
            _ => Vec::new(),
        }
    }

    /// The first applicable matched clause's effect: `Some(Some(new row))` update, `Some(None)` delete.
    fn matched(&self, ctx: &Ctx<'_>, event: &Row, row: &Row) -> Option<Option<Row>> {
        let both = self.both(event, row);
        let scope = Scope::new(&both, ctx.vars, Some(ctx.now));
        let clause = self.plan.clauses.iter().find(|c| c.matched && holds(c.condition.as_ref(), &scope))?;
        let trigger = (self.plan.trigger.label.as_str(), event);
        match &clause.action {
            MergeActionPlan::Update(assignments) => {
                Some(Some(assign(assignments, row, trigger, &self.plan.window_label, (ctx.vars, ctx.now))))
            }
            MergeActionPlan::Delete => Some(None),
            MergeActionPlan::Insert(_) => None,
        }
    }
}

/// `ON trigger DELETE FROM window WHERE c` or `ON trigger UPDATE window SET ... WHERE c`.
#[derive(Debug)]
pub struct ActionState {
    pub window: String,
    plan: WindowActionPlan,
    delete: bool,
}

impl ActionState {
    pub fn delete(plan: &WindowActionPlan) -> Self {
        ActionState { window: plan.window.clone(), plan: plan.clone(), delete: true }
    }

    pub fn update(plan: &WindowActionPlan) -> Self {
        ActionState { window: plan.window.clone(), plan: plan.clone(), delete: false }
    }

    /// Deletes or updates the rows the trigger event matches; answers the window's changes.
    pub fn on_event(&mut self, ctx: &mut Ctx<'_>, window: &mut NamedWindow, stream: &str, event: &Row) -> Changes {
        let trigger = &self.plan.trigger;
        let binding = [(trigger.label.as_str(), event)];
        if stream != trigger.stream || !holds(trigger.filter.as_ref(), &Scope::new(&binding, ctx.vars, Some(ctx.now))) {
            return Changes::default();
        }
        let matched: Vec<usize> = (0..window.rows.len())
            .filter(|i| {
                holds(
                    self.plan.condition.as_ref(),
                    &Scope::new(&self.both(event, &window.rows[*i]), ctx.vars, Some(ctx.now)),
                )
            })
            .collect();
        if self.delete {
            let removed = matched.iter().map(|i| window.rows[*i].clone()).collect();
            for i in matched.into_iter().rev() {
                window.rows.remove(i);
            }
            return Changes { inserted: Vec::new(), removed };
        }
        let mut out = Vec::new();
        for i in matched {
            let trigger = (self.plan.trigger.label.as_str(), event);
            let updated =
                assign(&self.plan.assignments, &window.rows[i], trigger, &self.plan.window_label, (ctx.vars, ctx.now));
            window.rows[i] = updated.clone();
            out.push(updated);
        }
        Changes { inserted: out, removed: Vec::new() }
    }

    fn both<'a>(&'a self, event: &'a Row, row: &'a Row) -> [(&'a str, &'a Row); 2] {
        [(self.plan.trigger.label.as_str(), event), (self.plan.window_label.as_str(), row)]
    }
}

/// `row` of the window labelled `window` with each assignment applied in order, read against the trigger `event`
/// and the row as the assignments before it left it, the row before any being [`INITIAL`]: Esper's update helper
/// (`EventBeanUpdateHelper`) assigns to a copy that later assignments read, so `SET a = 5, b = w.a` sets `b` to 5
/// (`TestInfraOnMerge.testUpdateOrderOfFields`).
pub fn assign(
    assignments: &[(String, PlanExpr)],
    row: &Row,
    trigger: (&str, &Row),
    window: &str,
    (vars, now): (&Row, i64),
) -> Row {
    let mut updated = row.clone();
    for (name, e) in assignments {
        let value = eval(e, &Scope::new(&[trigger, (window, &updated), (INITIAL, row)], vars, Some(now)));
        updated.insert(name.clone(), value);
    }
    updated
}

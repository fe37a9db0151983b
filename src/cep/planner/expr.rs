//! Types expressions: resolves names through the scope, applies numeric widening (int → long →
//! float → double), demands booleans where conditions go, and refuses aggregates where they make no
//! sense. Calls and methods are typed in `functions`.

use super::super::ast::{BinaryOp, Expr, ExprKind, Literal, Name, Span};
use super::super::catalog::{Catalog, variable_type};
use super::super::error::CepError;
use super::super::plan::{AggregateCall, DataType, PlanExpr, Prior, Value};
use super::super::runtime::regexp;
use super::Ctx;
use super::previous::Prevs;
use super::scope::{Scope, unknown};

pub(super) type Typed = (PlanExpr, DataType);

/// Plans the expressions of one clause; collects the aggregates it meets.
pub(super) struct ExprPlanner<'a> {
    pub ctx: &'a Ctx<'a>,
    pub catalog: &'a dyn Catalog,
    pub scope: &'a Scope,
    /// The clause name when aggregates are not allowed here ("WHERE", "a filter", ...).
    pub no_aggregates: Option<&'static str>,
    pub aggregates: Vec<AggregateCall>,
    pub in_aggregate: bool,
    pub priors: Priors,
    pub prevs: Prevs,
    /// What `first` and `last` read, and the ever forms.
    pub ends: Ends,
    /// A `rate` read over `std:groupwin`, whose rows leave in arrival order only within each key: the statement must
    /// group by the keys ([`Ends::Window`]).
    pub keyed_rate: Option<Name>,
    /// Where the clause first reads `current_timestamp()`: a statement whose rows are made before they go out
    /// (under an output policy) is refused there ([`super::query`]).
    pub reads_clock: Option<Span>,
    /// The select list's columns a name that no stream has reads (in `ORDER BY`, as Esper's `(myPrice * 6) + 5`).
    pub aliases: Vec<(String, Typed)>,
}

/// Whether the clause may read `prior(n, x)`, and the priors it read.
#[derive(Debug, Clone)]
pub(super) enum Priors {
    /// Not in this clause: a stream filter, a view's parameters, a pattern filter, a merge, a variable's value.
    NotHere,
    /// Not in this statement, for the reason given: the subset does not hold it.
    Unsupported(&'static str),
    Read(Vec<Prior>),
}

impl Priors {
    /// The priors each of `planners` read, each once, in the order first read.
    pub fn read_by(planners: [ExprPlanner<'_>; 3]) -> Vec<Prior> {
        each_once(planners.into_iter().filter_map(|planner| match planner.priors {
            Priors::Read(priors) => Some(priors),
            _ => None,
        }))
    }
}

/// What `first(x)` and `last(x)` read in the statement: Esper reads them off the rows in the group's data window, and
/// where the rows have none, as its `firstever` and `lastever`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Ends {
    /// The rows in the group's data window, in the order they entered it; `shuffled` names the view when they may
    /// leave it in another order ([`WindowSpec::shuffles`](super::super::plan::WindowSpec::shuffles)), `per_key`
    /// says they leave in order within each of its `std:groupwin` keys.
    Window { shuffled: Option<&'static str>, per_key: bool },
    /// Every row the group had: the stream has no data window, or the rows are a pattern's matches.
    Ever,
    /// The rows of one trigger, in an order the subset does not keep: a unidirectional join's, which Esper aggregates
    /// afresh at each trigger. No row leaves, so the ever forms that read no order are the plain aggregates; those
    /// that read an end are not held, for the reason given.
    Unordered(&'static str),
    /// Not in this statement, for the reason given: the subset does not hold it.
    Unsupported(&'static str),
}

/// The items of `lists`, each once, in the order first met: what several clauses of a statement read.
pub(super) fn each_once<T: PartialEq>(lists: impl IntoIterator<Item = Vec<T>>) -> Vec<T> {
    let mut once: Vec<T> = Vec::new();
    for item in lists.into_iter().flatten() {
        if !once.contains(&item) {
            once.push(item);
        }
    }
    once
}

impl<'a> ExprPlanner<'a> {
    pub fn new(
        ctx: &'a Ctx<'a>,
        catalog: &'a dyn Catalog,
        scope: &'a Scope,
        no_aggregates: Option<&'static str>,
    ) -> Self {
        Self {
            ctx,
            catalog,
            scope,
            no_aggregates,
            aggregates: Vec::new(),
            in_aggregate: false,
            priors: Priors::NotHere,
            prevs: Prevs::NotHere,
            ends: Ends::Unsupported("here"),
            aliases: Vec::new(),
            keyed_rate: None,
            reads_clock: None,
        }
    }

    /// The planner reading `prior(n, x)` as `priors` says.
    pub fn with_priors(self, priors: Priors) -> Self {
        Self { priors, ..self }
    }

    /// The planner reading the previous-event functions as `prevs` says.
    pub fn with_prevs(self, prevs: Prevs) -> Self {
        Self { prevs, ..self }
    }

    /// The planner reading `first` and `last` as `ends` says.
    pub fn with_ends(self, ends: Ends) -> Self {
        Self { ends, ..self }
    }

    /// A condition: must be boolean.
    pub fn condition(&mut self, e: &Expr, place: &str) -> Result<PlanExpr, CepError> {
        let (expr, ty) = self.plan(e)?;
        if !matches!(ty, DataType::Boolean | DataType::Null) {
            return Err(self.ctx.type_error(e.span, format!("{place} needs a boolean condition, found {ty}")));
        }
        Ok(expr)
    }

    pub fn plan(&mut self, e: &Expr) -> Result<Typed, CepError> {
        match &e.kind {
            ExprKind::Literal(l) => Ok(literal(l)),
            ExprKind::Property(path) => match (self.scope.resolve(self.ctx, self.catalog, path), path.as_slice()) {
                (Ok(expr), _) => {
                    let ty = type_of(&expr);
                    Ok((expr, ty))
                }
                (Err(unknown), [name]) => {
                    let alias = self.aliases.iter().find(|(alias, _)| *alias == name.text);
                    alias.map(|(_, typed)| typed.clone()).ok_or(unknown)
                }
                (Err(unknown), _) => Err(unknown),
            },
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs),
            ExprKind::Not(x) => {
                let x = self.boolean(x, "`not`")?;
                Ok((PlanExpr::Not(Box::new(x)), DataType::Boolean))
            }
            ExprKind::Neg(x) => {
                let (x, ty) = self.numeric(x, "`-`")?;
                Ok((PlanExpr::Neg(Box::new(x)), ty))
            }
            ExprKind::IsNull { operand, negated } => {
                let (operand, _) = self.plan(operand)?;
                Ok((PlanExpr::IsNull { operand: Box::new(operand), negated: *negated }, DataType::Boolean))
            }
            ExprKind::InList { operand, list, negated } => self.in_list(operand, list, *negated),
            ExprKind::Between { operand, low, high, negated } => self.between(operand, low, high, *negated),
            ExprKind::Like { operand, pattern, negated, escape } => {
                let (operand, pattern) = self.matched(operand, pattern, "`like`")?;
                let like = PlanExpr::Like { operand, pattern, negated: *negated, escape: escape.unwrap_or('\\') };
                Ok((like, DataType::Boolean))
            }
            ExprKind::Regexp { operand, pattern: written, negated } => {
                let (operand, pattern) = self.matched(operand, written, "`regexp`")?;
                if let PlanExpr::Literal(Value::String(text)) = &*pattern
                    && let Err(error) = regexp::compile(text)
                {
                    let message = format!("the regular expression does not compile here: {}", regexp::reason(&error));
                    return Err(self.ctx.invalid(written.span, message));
                }
                Ok((PlanExpr::Regexp { operand, pattern, negated: *negated }, DataType::Boolean))
            }
            ExprKind::Call { name, args, star, distinct } => self.call(e, name, args, (*star, *distinct)),
            ExprKind::Method { target, name, args } => self.method(target, name, args),
            ExprKind::Array(items) => self.array(items),
            ExprKind::Cast { operand, ty } => self.cast(operand, ty),
            ExprKind::Case { operand, whens, otherwise } => self.case(operand.as_deref(), whens, otherwise.as_deref()),
        }
    }

    /// The operand and pattern of `like` or `regexp`: a number is matched by its text, as Esper's `ExprLikeNode` and
    /// `ExprRegexpNode` do (`intBoxed like '%01%'`).
    fn matched(
        &mut self,
        operand: &Expr,
        pattern: &Expr,
        what: &str,
    ) -> Result<(Box<PlanExpr>, Box<PlanExpr>), CepError> {
        let text_or_number = |t: &DataType| *t == DataType::String || is_numeric(t);
        let (operand, _) = self.expect(operand, what, text_or_number, "a string or a number")?;
        let pattern = self.string(pattern, what)?;
        Ok((Box::new(operand), Box::new(pattern)))
    }

    pub(super) fn expect(
        &mut self,
        e: &Expr,
        what: &str,
        ok: fn(&DataType) -> bool,
        needs: &str,
    ) -> Result<Typed, CepError> {
        let (expr, ty) = self.plan(e)?;
        if ok(&ty) || ty == DataType::Null {
            return Ok((expr, ty));
        }
        Err(self.ctx.type_error(e.span, format!("{what} needs {needs}, found {ty}")))
    }

    pub fn boolean(&mut self, e: &Expr, what: &str) -> Result<PlanExpr, CepError> {
        Ok(self.expect(e, what, |t| *t == DataType::Boolean, "a boolean")?.0)
    }

    pub fn numeric(&mut self, e: &Expr, what: &str) -> Result<Typed, CepError> {
        self.expect(e, what, is_numeric, "a number")
    }

    fn string(&mut self, e: &Expr, what: &str) -> Result<PlanExpr, CepError> {
        Ok(self.expect(e, what, |t| *t == DataType::String, "a string")?.0)
    }

    fn binary(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Result<Typed, CepError> {
        let what = format!("`{}`", op.symbol());
        let (l, r, ty) = match op {
            BinaryOp::And | BinaryOp::Or => (self.boolean(lhs, &what)?, self.boolean(rhs, &what)?, DataType::Boolean),
            BinaryOp::Concat => (self.string(lhs, &what)?, self.string(rhs, &what)?, DataType::String),
            op if op.is_comparison() => {
                let (l, lt) = self.plan(lhs)?;
                let (r, rt) = self.plan(rhs)?;
                self.comparable(op, lhs.span.to(rhs.span), &lt, &rt)?;
                (l, r, DataType::Boolean)
            }
            op => {
                let (l, lt) = self.numeric(lhs, &what)?;
                let (r, rt) = self.numeric(rhs, &what)?;
                let ty = if op == BinaryOp::Div { DataType::Double } else { widen(&lt, &rt) };
                (l, r, ty)
            }
        };
        let expr = PlanExpr::Binary { op, lhs: Box::new(l), rhs: Box::new(r), ty: ty.clone() };
        Ok((expr, ty))
    }

    fn comparable(&self, op: BinaryOp, span: Span, l: &DataType, r: &DataType) -> Result<(), CepError> {
        let ordering = !matches!(op, BinaryOp::Eq | BinaryOp::NotEq);
        if compatible(l, r) && (!ordering || (is_ordered(l) && is_ordered(r))) {
            return Ok(());
        }
        let message = format!("cannot compare {l} with {r} using `{}`", op.symbol());
        Err(self.ctx.type_error(span, message))
    }

    fn in_list(&mut self, operand: &Expr, list: &[Expr], negated: bool) -> Result<Typed, CepError> {
        let (o, ot) = self.plan(operand)?;
        let mut items = Vec::with_capacity(list.len());
        for item in list {
            let (i, it) = self.plan(item)?;
            self.comparable(BinaryOp::Eq, item.span, &ot, &it)?;
            items.push(i);
        }
        Ok((PlanExpr::InList { operand: Box::new(o), list: items, negated }, DataType::Boolean))
    }

    fn between(&mut self, operand: &Expr, low: &Expr, high: &Expr, negated: bool) -> Result<Typed, CepError> {
        let (o, ot) = self.plan(operand)?;
        let (l, lt) = self.plan(low)?;
        let (h, ht) = self.plan(high)?;
        self.comparable(BinaryOp::Lt, low.span, &ot, &lt)?;
        self.comparable(BinaryOp::Lt, high.span, &ot, &ht)?;
        let expr = PlanExpr::Between { operand: Box::new(o), low: Box::new(l), high: Box::new(h), negated };
        Ok((expr, DataType::Boolean))
    }

    fn array(&mut self, items: &[Expr]) -> Result<Typed, CepError> {
        let mut planned = Vec::with_capacity(items.len());
        let mut ty = DataType::Null;
        for item in items {
            let (i, it) = self.plan(item)?;
            ty = common(&ty, &it)
                .ok_or_else(|| self.ctx.type_error(item.span, format!("array items mix {ty} and {it}")))?;
            planned.push(i);
        }
        Ok((PlanExpr::Array(planned), DataType::Array(Box::new(ty))))
    }

    fn cast(&mut self, operand: &Expr, ty: &Name) -> Result<Typed, CepError> {
        let (o, _) = self.plan(operand)?;
        let target = variable_type(&ty.text).filter(|t| *t != DataType::Geometry);
        let target = target.ok_or_else(|| {
            unknown(self.ctx, "type", ty, "; expected double, float, int, long, string, boolean or date".to_string())
        })?;
        Ok((PlanExpr::Cast { operand: Box::new(o), ty: target.clone() }, target))
    }

    fn case(
        &mut self,
        operand: Option<&Expr>,
        whens: &[(Expr, Expr)],
        otherwise: Option<&Expr>,
    ) -> Result<Typed, CepError> {
        let operand = operand.map(|o| self.plan(o)).transpose()?;
        let mut ty = DataType::Null;
        let mut planned = Vec::with_capacity(whens.len());
        for (when, then) in whens {
            let w = match &operand {
                Some((_, ot)) => {
                    let (w, wt) = self.plan(when)?;
                    self.comparable(BinaryOp::Eq, when.span, ot, &wt)?;
                    w
                }
                None => self.boolean(when, "`when`")?,
            };
            let (t, tt) = self.plan(then)?;
            ty = common(&ty, &tt)
                .ok_or_else(|| self.ctx.type_error(then.span, format!("case results mix {ty} and {tt}")))?;
            planned.push((w, t));
        }
        let otherwise = match otherwise {
            Some(o) => {
                let (e, et) = self.plan(o)?;
                ty = common(&ty, &et)
                    .ok_or_else(|| self.ctx.type_error(o.span, format!("case results mix {ty} and {et}")))?;
                Some(Box::new(e))
            }
            None => None,
        };
        let operand = operand.map(|(o, _)| Box::new(o));
        Ok((PlanExpr::Case { operand, whens: planned, otherwise, ty: ty.clone() }, ty))
    }
}

fn literal(l: &Literal) -> Typed {
    match l {
        Literal::Int(i) => {
            let ty = if i32::try_from(*i).is_ok() { DataType::Int } else { DataType::Long };
            (PlanExpr::Literal(Value::Int(*i)), ty)
        }
        Literal::Long(i) => (PlanExpr::Literal(Value::Int(*i)), DataType::Long),
        Literal::Float(x) => (PlanExpr::Literal(Value::Float(*x)), DataType::Double),
        Literal::String(s) => (PlanExpr::Literal(Value::String(s.clone())), DataType::String),
        Literal::Bool(b) => (PlanExpr::Literal(Value::Bool(*b)), DataType::Boolean),
        Literal::Null => (PlanExpr::Literal(Value::Null), DataType::Null),
    }
}

/// The type of an already-typed expression (aggregates excepted, which the caller knows).
pub(super) fn type_of(e: &PlanExpr) -> DataType {
    match e {
        PlanExpr::Column { ty, .. }
        | PlanExpr::Variable { ty, .. }
        | PlanExpr::Binary { ty, .. }
        | PlanExpr::Call { ty, .. }
        | PlanExpr::Cast { ty, .. }
        | PlanExpr::Case { ty, .. } => ty.clone(),
        PlanExpr::Row(_) => DataType::Row,
        PlanExpr::Literal(v) => match v {
            Value::Null => DataType::Null,
            Value::Bool(_) => DataType::Boolean,
            Value::Int(_) => DataType::Long,
            Value::Float(_) => DataType::Double,
            Value::String(_) => DataType::String,
        },
        _ => DataType::Boolean,
    }
}

pub(super) fn is_numeric(t: &DataType) -> bool {
    matches!(t, DataType::Int | DataType::Long | DataType::Float | DataType::Double)
}

fn is_ordered(t: &DataType) -> bool {
    is_numeric(t) || matches!(t, DataType::String | DataType::Date | DataType::Null)
}

fn rank(t: &DataType) -> u8 {
    match t {
        DataType::Int => 1,
        DataType::Long => 2,
        DataType::Float => 3,
        _ => 4,
    }
}

/// The wider of two numeric types (`null` takes the other's type).
pub(super) fn widen(a: &DataType, b: &DataType) -> DataType {
    match (a, b) {
        (DataType::Null, other) | (other, DataType::Null) => other.clone(),
        _ if rank(a) >= rank(b) => a.clone(),
        _ => b.clone(),
    }
}

/// Whether values of the two types can be compared or mixed.
pub(super) fn compatible(a: &DataType, b: &DataType) -> bool {
    if *a == DataType::Row || *b == DataType::Row {
        return false;
    }
    a == b || *a == DataType::Null || *b == DataType::Null || (is_numeric(a) && is_numeric(b))
}

/// The type both fit in, if any.
pub(super) fn common(a: &DataType, b: &DataType) -> Option<DataType> {
    if is_numeric(a) && is_numeric(b) {
        return Some(widen(a, b));
    }
    compatible(a, b).then(|| if *a == DataType::Null { b.clone() } else { a.clone() })
}

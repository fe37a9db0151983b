//! Evaluates the plan's expressions over one [`Scope`]: the labelled rows in view (stream labels, aliases,
//! pattern tags, a merge's window row), the aggregation's current values and the configuration's variables.
//! Nulls propagate as in SQL and Esper; an expression never fails at run time (a mismatch reads as null), since
//! the planner already checked every type. Geometry is planar, and `contains` is strict.

use std::borrow::Cow;
use std::cmp::Ordering;

use smallvec::SmallVec;

use super::name::same_text;
use super::value::{Name, Row, Val};
use crate::cep::plan::{AggregateCall, AggregateFunction, BinaryOp, DataType, Function, PlanExpr, Projection, Value};

/// What an expression can see.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    pub rows: &'a [(&'a str, &'a Row)],
    pub aggregates: &'a [Val],
    pub vars: &'a Row,
    /// Columns (label, name) whose values were read ahead of time; they are found before `rows`.
    pub pinned: &'a [(&'a str, &'a str, &'a Val)],
    /// The engine's time of the evaluation, which `current_timestamp()` reads; `None` where the planner refuses it
    /// (a key, a view's parameter, an aggregate's argument, a variable's value).
    pub now: Option<i64>,
}

impl<'a> Scope<'a> {
    pub fn new(rows: &'a [(&'a str, &'a Row)], vars: &'a Row, now: Option<i64>) -> Self {
        Scope { rows, aggregates: &[], vars, pinned: &[], now }
    }

    pub fn with_pinned(self, pinned: &'a [(&'a str, &'a str, &'a Val)]) -> Self {
        Scope { pinned, ..self }
    }

    /// The value of column `name` of the row labelled `source`, if there is one.
    fn column(&self, source: &str, name: &str) -> Option<&'a Val> {
        if let Some((_, _, value)) = self.pinned.iter().find(|(s, n, _)| same_text(s, source) && same_text(n, name)) {
            return Some(value);
        }
        self.row(source).and_then(|r| r.get(name))
    }

    fn row(&self, label: &str) -> Option<&'a Row> {
        self.rows.iter().find(|(l, _)| same_text(l, label)).map(|(_, r)| *r)
    }
}

/// The values of `calls` over no rows, as Esper's fresh aggregators read them: a count is 0, `leaving()` false, every
/// other aggregate null (Esper's `TestGroupByCount`: the remove-stream row of a group before its first event counts
/// 0).
pub fn over_no_rows(calls: &[AggregateCall]) -> Vec<Val> {
    let value = |call: &AggregateCall| match call.function {
        AggregateFunction::Count | AggregateFunction::CountEver => Val::Int(0),
        AggregateFunction::Leaving => Val::Bool(false),
        _ => Val::Null,
    };
    calls.iter().map(value).collect()
}

/// What a row gives `rate` ([`AggregateFunction::Rate`]) from its argument's value: its timestamp (a `long` or a
/// date, in milliseconds) and the amount it counts for, 1 or its value; `None` when either is null, so that the row
/// counts for nothing (where Esper's aggregator would throw).
pub fn rate_point(arg: &Val) -> Option<(i64, f64)> {
    let (stamp, amount) = match arg {
        Val::Array(pair) => (pair.first()?, pair.get(1)?.as_f64()?),
        stamp => (stamp, 1.0),
    };
    match stamp {
        Val::Int(ms) | Val::Date(ms) => Some((*ms, amount)),
        _ => None,
    }
}

/// `rate`'s value, as Esper's `AggregatorRate` gives it: `amount` (the rows or their values in the window) per second
/// between `oldest`, the timestamp of the row that left last, and `latest`, that of the newest; Java's double
/// arithmetic, so NaN or an infinity when the two are one.
pub fn rate(amount: f64, latest: i64, oldest: i64) -> Val {
    Val::Double(amount * 1000.0 / latest.wrapping_sub(oldest) as f64)
}

/// The value of `e` in `scope`.
pub fn eval(e: &PlanExpr, scope: &Scope<'_>) -> Val {
    match e {
        PlanExpr::Literal(v) => v.into(),
        PlanExpr::Column { .. } | PlanExpr::Variable { .. } | PlanExpr::Aggregate(_) => operand(e, scope).into_owned(),
        // A whole row is only ever tested with `is null`: any non-null marker will do.
        PlanExpr::Row(label) => scope.row(label).map(|_| Val::Bool(true)).unwrap_or_default(),
        PlanExpr::Binary { op, lhs, rhs, .. } => binary(*op, lhs, rhs, scope),
        PlanExpr::Not(inner) => not(eval(inner, scope)),
        PlanExpr::Neg(inner) => neg(eval(inner, scope)),
        PlanExpr::IsNull { operand: e, negated } => Val::Bool(operand(e, scope).is_null() != *negated),
        PlanExpr::InList { operand, list, negated } => in_list(operand, list, *negated, scope),
        PlanExpr::Between { operand, low, high, negated } => between(operand, low, high, *negated, scope),
        PlanExpr::Like { operand, pattern, negated, escape } => {
            like(eval(operand, scope), eval(pattern, scope), *negated, *escape)
        }
        PlanExpr::Regexp { operand, pattern, negated } => {
            let text = matched_text(eval(operand, scope));
            match (text, eval(pattern, scope)) {
                (Some(text), Val::String(pattern)) => {
                    super::regexp::matches(&text, &pattern).map(|m| Val::Bool(m != *negated)).unwrap_or_default()
                }
                _ => Val::Null,
            }
        }
        PlanExpr::Call { function, args, ty } => call(*function, args, ty, scope),
        PlanExpr::Cast { operand, ty } => cast(eval(operand, scope), ty),
        PlanExpr::Case { operand, whens, otherwise, ty } => {
            case(operand.as_deref(), whens, otherwise.as_deref(), ty, scope)
        }
        PlanExpr::Array(items) => Val::Array(items.iter().map(|i| eval(i, scope)).collect()),
    }
}

/// The value of `e` where an operator only reads it: a column, variable or aggregate is borrowed from the scope
/// rather than copied. A configuration's variables are shared by every worker, so copying a fence (an `Arc`) at
/// every event would write its count from all of them.
fn operand<'a>(e: &PlanExpr, scope: &Scope<'a>) -> Cow<'a, Val> {
    let found = match e {
        PlanExpr::Column { source, name, .. } => scope.column(source, name),
        PlanExpr::Variable { name, .. } => scope.vars.get(name),
        PlanExpr::Aggregate(i) => scope.aggregates.get(*i),
        _ => return Cow::Owned(eval(e, scope)),
    };
    found.map(Cow::Borrowed).unwrap_or_default()
}

/// The row a select list makes in `scope`: each column by its name.
pub fn project(projection: &[Projection], scope: &Scope<'_>) -> Row {
    projection.iter().map(|p| (p.name.clone(), eval(&p.expr, scope))).collect()
}

/// A select list that copies every column of one input under its own name (`SELECT a.*`): given a row with exactly
/// those columns it shares that row instead of building an equal one.
#[derive(Debug, Clone, Default)]
pub struct CopyOf {
    whole: Option<(Name, Vec<Name>)>,
}

impl CopyOf {
    pub fn new(projection: &[Projection]) -> Self {
        let column = |p: &Projection| match &p.expr {
            PlanExpr::Column { source, name, .. } if **name == *p.name => Some(source.clone()),
            _ => None,
        };
        let sources: Option<Vec<Name>> = projection.iter().map(column).collect();
        let mut names: Vec<Name> = projection.iter().map(|p| p.name.clone()).collect();
        names.sort();
        names.dedup();
        let whole = match sources.as_deref() {
            Some([first, rest @ ..]) if rest.iter().all(|s| s == first) && names.len() == projection.len() => {
                Some((first.clone(), names))
            }
            _ => None,
        };
        CopyOf { whole }
    }

    /// [`project`], sharing the input row when the list copies it whole.
    pub fn project(&self, projection: &[Projection], scope: &Scope<'_>) -> Row {
        if let Some((label, names)) = &self.whole
            && let Some(row) = scope.row(label)
            && scope.pinned.is_empty()
            && row.names_are(names)
        {
            return row.clone();
        }
        project(projection, scope)
    }
}

/// Whether `e` holds in `scope` (null is false).
pub fn holds(e: Option<&PlanExpr>, scope: &Scope<'_>) -> bool {
    e.is_none_or(|e| eval(e, scope).is_true())
}

pub(super) fn neg(v: Val) -> Val {
    match v {
        Val::Int(i) => Val::Int(i.wrapping_neg()),
        Val::Double(x) => Val::Double(-x),
        _ => Val::Null,
    }
}

pub(super) fn not(v: Val) -> Val {
    match v {
        Val::Bool(b) => Val::Bool(!b),
        _ => Val::Null,
    }
}

fn binary(op: BinaryOp, lhs: &PlanExpr, rhs: &PlanExpr, scope: &Scope<'_>) -> Val {
    match op {
        BinaryOp::And => and_or(eval(lhs, scope), || eval(rhs, scope), false),
        BinaryOp::Or => and_or(eval(lhs, scope), || eval(rhs, scope), true),
        _ => compute(op, &operand(lhs, scope), &operand(rhs, scope)),
    }
}

/// Three-valued `and` (`decisive` false) and `or` (`decisive` true).
pub(super) fn and_or(l: Val, r: impl FnOnce() -> Val, decisive: bool) -> Val {
    if l == Val::Bool(decisive) {
        return l;
    }
    match (l, r()) {
        (_, Val::Bool(b)) if b == decisive => Val::Bool(decisive),
        (Val::Bool(_), Val::Bool(b)) => Val::Bool(b),
        _ => Val::Null,
    }
}

pub(super) fn compute(op: BinaryOp, l: &Val, r: &Val) -> Val {
    match comparison(op, l, r) {
        Some(answer) => answer.map(Val::Bool).unwrap_or_default(),
        None => arithmetic(op, l, r),
    }
}

/// The answer of comparison `op` on `l` and `r`, `None` (null) when they do not compare, as when one is null; `None`
/// altogether when `op` is not a comparison.
pub(super) fn comparison(op: BinaryOp, l: &Val, r: &Val) -> Option<Option<bool>> {
    if let BinaryOp::Eq | BinaryOp::NotEq = op
        && let Some(same) = same_kind_equals(l, r)
    {
        return Some(Some(same == (op == BinaryOp::Eq)));
    }
    let ordering = |test: fn(Ordering) -> bool| l.compare(r).map(test);
    Some(match op {
        BinaryOp::Eq => l.equals(r),
        BinaryOp::NotEq => l.equals(r).map(|b| !b),
        BinaryOp::Lt => ordering(Ordering::is_lt),
        BinaryOp::LtEq => ordering(Ordering::is_le),
        BinaryOp::Gt => ordering(Ordering::is_gt),
        BinaryOp::GtEq => ordering(Ordering::is_ge),
        _ => return None,
    })
}

/// Whether two booleans, integers or dates are equal, read directly: what [`Val::equals`] answers for them by way of
/// its null checks and ordering. `None` for any other pair. For the geofence's `inside != a.inside`, tested at every
/// event, `bench geofence`'s worker went from 3,027.7 to 3,010.9 instructions an event under callgrind; too little to
/// see in events a second on this machine (`benches/results/cep.md`, fifty-first session).
fn same_kind_equals(l: &Val, r: &Val) -> Option<bool> {
    match (l, r) {
        (Val::Bool(a), Val::Bool(b)) => Some(a == b),
        (Val::Int(a), Val::Int(b)) | (Val::Date(a), Val::Date(b)) => Some(a == b),
        _ => None,
    }
}

/// `+ - * / %` on numbers, and `||` on texts; null when an operand is null.
fn arithmetic(op: BinaryOp, l: &Val, r: &Val) -> Val {
    if op == BinaryOp::Concat {
        return match (l, r) {
            (Val::String(a), Val::String(b)) => Val::String([a.as_str(), b.as_str()].concat().into()),
            _ => Val::Null,
        };
    }
    if let (Val::Int(a), Val::Int(b), false) = (l, r, op == BinaryOp::Div) {
        return match op {
            BinaryOp::Add => Val::Int(a.wrapping_add(*b)),
            BinaryOp::Sub => Val::Int(a.wrapping_sub(*b)),
            BinaryOp::Mul => Val::Int(a.wrapping_mul(*b)),
            _ => a.checked_rem(*b).map(Val::Int).unwrap_or_default(),
        };
    }
    let (Some(a), Some(b)) = (l.as_f64(), r.as_f64()) else {
        return Val::Null;
    };
    Val::Double(match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        _ => a % b,
    })
}

/// `v [not] in (list)`, three-valued as in SQL and Esper's `ExprInNodeImpl`: null when `v` is null, or when it is
/// found nowhere and an item is null (`'b' in ('a', null)` and `'b' not in (null)` are both null).
fn in_list(e: &PlanExpr, list: &[PlanExpr], negated: bool, scope: &Scope<'_>) -> Val {
    let v = operand(e, scope);
    if v.is_null() {
        return Val::Null;
    }
    let mut null_item = false;
    for item in list {
        match v.equals(&operand(item, scope)) {
            Some(true) => return Val::Bool(!negated),
            Some(false) => {}
            None => null_item = true,
        }
    }
    match null_item {
        true => Val::Null,
        false => Val::Bool(negated),
    }
}

/// `v [not] between low and high`, as Esper's `ExprBetweenNodeImpl` answers it: inclusive, with the bounds in either
/// order (`5 between 10 and 1` holds); false when `v` is null, and when a bound reads null `between` is false and
/// `not between` true (the negation of that false). A bound written as `null` makes both false: Esper finds it has no
/// type and answers false without evaluating (`TestInBetweenLikeExpr.testBetweenNumericExpr`).
fn between(e: &PlanExpr, low: &PlanExpr, high: &PlanExpr, negated: bool, scope: &Scope<'_>) -> Val {
    let null = |bound: &PlanExpr| matches!(bound, PlanExpr::Literal(Value::Null));
    let v = operand(e, scope);
    if v.is_null() || null(low) || null(high) {
        return Val::Bool(false);
    }
    let (low, high) = (operand(low, scope), operand(high, scope));
    let (low, high) = match high.compare(&low) {
        Some(Ordering::Less) => (high, low),
        _ => (low, high),
    };
    let within = matches!((v.compare(&low), v.compare(&high)), (Some(lo), Some(hi)) if lo.is_ge() && hi.is_le());
    Val::Bool(within != negated)
}

/// `v [not] like pattern`: a number is matched by its text as Java writes it, as Esper's `ExprLikeNode` does.
fn like(v: Val, pattern: Val, negated: bool, escape: char) -> Val {
    let Some(text) = matched_text(v) else {
        return Val::Null;
    };
    match pattern {
        Val::String(p) => {
            let (s, p) = (text.chars().collect::<Vec<_>>(), p.chars().collect::<Vec<_>>());
            Val::Bool(like_matches(&s, &p, escape) != negated)
        }
        _ => Val::Null,
    }
}

/// The text `like` and `regexp` match of `v`: a text itself, a number as Java writes it; `None` for null.
fn matched_text(v: Val) -> Option<String> {
    match v {
        Val::String(s) => Some(s.to_string()),
        Val::Int(n) => Some(n.to_string()),
        Val::Double(x) => Some(java_text(x)),
        _ => None,
    }
}

/// SQL `like`: `%` any run, `_` one character, `escape` makes the next character itself.
fn like_matches(s: &[char], p: &[char], escape: char) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((e, [c, rest @ ..])) if *e == escape => s.first() == Some(c) && like_matches(&s[1..], rest, escape),
        Some(('%', rest)) => (0..=s.len()).any(|i| like_matches(&s[i..], rest, escape)),
        Some(('_', rest)) => !s.is_empty() && like_matches(&s[1..], rest, escape),
        Some((c, rest)) => s.first() == Some(c) && like_matches(&s[1..], rest, escape),
    }
}

/// A double as Java's `Double.toString` writes it: `2.0`, `0.001`, and outside [10^-3, 10^7) `1.0E7`, `1.5E-5`.
pub(super) fn java_text(x: f64) -> String {
    match x {
        _ if x.is_nan() => "NaN".into(),
        f64::INFINITY => "Infinity".into(),
        f64::NEG_INFINITY => "-Infinity".into(),
        _ if x == 0.0 || (1e-3..1e7).contains(&x.abs()) => format!("{x:?}"),
        _ => {
            let scientific = format!("{x:e}");
            let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
            match mantissa.contains('.') {
                true => format!("{mantissa}E{exponent}"),
                false => format!("{mantissa}.0E{exponent}"),
            }
        }
    }
}

/// `case [v] when ... then ... [else ...] end`, as Esper's `ExprCaseNode`: with a value, a `when` matches a value
/// equal to it, and `null` matches `null` (`case s when null then ...` takes a null `s`); the result is widened to the
/// type of the whole (`case ... then 1 else 2.5 end` gives `1.0`).
fn case(
    operand: Option<&PlanExpr>,
    whens: &[(PlanExpr, PlanExpr)],
    otherwise: Option<&PlanExpr>,
    ty: &DataType,
    s: &Scope<'_>,
) -> Val {
    let subject = operand.map(|o| eval(o, s));
    let taken = whens.iter().find(|(when, _)| {
        let w = eval(when, s);
        match &subject {
            Some(v) if v.is_null() || w.is_null() => v.is_null() && w.is_null(),
            Some(v) => v.equals(&w) == Some(true),
            None => w.is_true(),
        }
    });
    let result = match taken {
        Some((_, then)) => eval(then, s),
        None => otherwise.map(|o| eval(o, s)).unwrap_or_default(),
    };
    widen(result, ty)
}

/// `v` as a value of numeric type `ty` when it is a whole number and `ty` is not: what Esper's coercion to an
/// expression's common type does to the result of a `case` or `coalesce` that mixes the two.
fn widen(v: Val, ty: &DataType) -> Val {
    match (ty, v) {
        (DataType::Double | DataType::Float, Val::Int(n)) => Val::Double(n as f64),
        (_, v) => v,
    }
}

/// `cast(v, ty)`: to a text as Java's `toString` writes the value (Esper's cast to `String`), a double too (`1.0E7`).
fn cast(v: Val, ty: &DataType) -> Val {
    match (ty, v) {
        (_, Val::Null) => Val::Null,
        (DataType::String, Val::Double(x)) => Val::String(java_text(x).into()),
        (DataType::String, v) => v.to_ngsi().map(|s| Val::String(s.into())).unwrap_or_default(),
        (DataType::Int | DataType::Long, Val::Double(x)) => Val::Int(x.trunc() as i64),
        (DataType::Int | DataType::Long, Val::String(s)) => s.trim().parse().map(Val::Int).unwrap_or_default(),
        (DataType::Double | DataType::Float, Val::Int(i)) => Val::Double(i as f64),
        (DataType::Double | DataType::Float, Val::String(s)) => s.trim().parse().map(Val::Double).unwrap_or_default(),
        (DataType::Boolean, Val::String(s)) => Val::Bool(s.eq_ignore_ascii_case("true")),
        (_, v) => v,
    }
}

fn call(function: Function, args: &[PlanExpr], ty: &DataType, scope: &Scope<'_>) -> Val {
    // Operands are read in place: collecting them first cost more than the polygon test itself (cep.md).
    match (function, args) {
        (Function::Coalesce, _) => {
            args.iter().map(|a| operand(a, scope)).find(|v| !v.is_null()).map(|v| widen(v.into_owned(), ty))
        }
        (Function::Greatest | Function::Least, _) => {
            extreme(function == Function::Greatest, args, scope).map(|v| widen(v, ty))
        }
        (Function::Polygon, [points]) => match &*operand(points, scope) {
            Val::Array(points) => Some(polygon(points)),
            _ => None,
        },
        (Function::Geometry, [wkt]) => match &*operand(wkt, scope) {
            Val::String(wkt) => super::geometry::parse_wkt(wkt),
            _ => None,
        },
        (Function::Point | Function::Contains | Function::Distance, [a, b]) => {
            Some(call2(function, &operand(a, scope), &operand(b, scope)))
        }
        (Function::Item, [values, index]) => match (&*operand(values, scope), &*operand(index, scope)) {
            (Val::Array(values), Val::Int(i)) => usize::try_from(*i).ok().and_then(|i| values.get(i).cloned()),
            (Val::Array(values), Val::Double(x)) if *x >= 0.0 => values.get(x.trunc() as usize).cloned(),
            _ => None,
        },
        (Function::CurrentTimestamp, []) => {
            debug_assert!(scope.now.is_some(), "`current_timestamp()` evaluated where the planner refuses it");
            scope.now.map(Val::Int)
        }
        (Function::Math(_) | Function::Text(_) | Function::Convert(_), _) => {
            let values: SmallVec<[Cow<'_, Val>; 3]> = args.iter().map(|a| operand(a, scope)).collect();
            Some(applied(function, &values.iter().map(|v| &**v).collect::<SmallVec<[&Val; 3]>>(), ty))
        }
        _ => None,
    }
    .unwrap_or_default()
}

/// A Java method of values already read: of `Math`, of a text (the first value) with its arguments, or a conversion.
pub(super) fn applied(function: Function, values: &[&Val], ty: &DataType) -> Val {
    match (function, values) {
        (Function::Math(m), _) => super::math::apply(m, values, ty),
        (Function::Text(m), [text, args @ ..]) => super::text::apply(m, text, args),
        (Function::Convert(c), [value]) => super::text::convert(c, value, None),
        (Function::Convert(c), [value, radix]) => super::text::convert(c, value, Some(radix)),
        _ => Val::Null,
    }
}

/// The greatest (`greatest`) or least of the values of `args`, null when any is null, as Esper's `MinMaxTypeEnum`.
fn extreme(greatest: bool, args: &[PlanExpr], scope: &Scope<'_>) -> Option<Val> {
    let wanted = if greatest { Ordering::Greater } else { Ordering::Less };
    let mut best: Option<Cow<'_, Val>> = None;
    for arg in args {
        let value = operand(arg, scope);
        if value.is_null() {
            return None;
        }
        if best.as_ref().is_none_or(|b| value.compare(b) == Some(wanted)) {
            best = Some(value);
        }
    }
    best.map(Cow::into_owned)
}

/// A function of two values: `point(x, y)`, `contains(shape, point)`, `distance(a, b)`; null for any other.
pub(super) fn call2(function: Function, a: &Val, b: &Val) -> Val {
    match function {
        Function::Point => a.as_f64().zip(b.as_f64()).map(|(x, y)| Val::Point(x, y)),
        Function::Contains => super::geometry::contains(a, b).map(Val::Bool),
        Function::Distance => super::geometry::distance(a, b).map(Val::Double),
        _ => None,
    }
    .unwrap_or_default()
}

fn polygon(points: &[Val]) -> Val {
    let ring: Option<Vec<(f64, f64)>> = points
        .iter()
        .map(|p| match p {
            Val::Point(x, y) => Some((*x, *y)),
            _ => None,
        })
        .collect();
    ring.and_then(super::geometry::polygon).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cep::runtime::props::Props;

    fn column(source: &str, name: &str) -> Projection {
        let expr = PlanExpr::Column { source: source.into(), name: name.into(), ty: DataType::Int };
        Projection { name: name.into(), expr, ty: DataType::Int }
    }

    proptest::proptest! {
        /// `=` and `!=` answer for two values of one kind read directly what `Val::equals` answers for any two.
        #[test]
        fn equality_read_directly_is_equality_with_nulls(l in 0..6usize, r in 0..6usize, a in -2..2i64, b in -2..2i64) {
            let val = |kind: usize, n: i64| match kind {
                0 => Val::Null,
                1 => Val::Bool(n > 0),
                2 => Val::Int(n),
                3 => Val::Date(n),
                4 => Val::Double(n as f64),
                _ => Val::String(n.to_string().into()),
            };
            let (l, r) = (val(l, a), val(r, b));
            proptest::prop_assert_eq!(comparison(BinaryOp::Eq, &l, &r), Some(l.equals(&r)));
            proptest::prop_assert_eq!(comparison(BinaryOp::NotEq, &l, &r), Some(l.equals(&r).map(|same| !same)));
        }
    }

    /// Esper's `between`: the bounds in either order (`TestNamedWindowOnDelete.testCoercionRangeMultiPropIndexes`
    /// deletes with reversed bounds), a null value false either way, a bound that reads null false and its negation
    /// true, a bound written `null` false either way.
    #[test]
    fn between_takes_its_bounds_in_either_order_and_answers_nulls_as_esper() {
        let lit = |v: Val| {
            PlanExpr::Literal(match v {
                Val::Int(n) => Value::Int(n),
                Val::String(s) => Value::String(s.to_string()),
                _ => Value::Null,
            })
        };
        let vars = Row::default();
        let check = |v: Val, low: Val, high: Val, negated: bool| {
            between(&lit(v), &lit(low), &lit(high), negated, &Scope::new(&[], &vars, None))
        };
        let (n, t) = (Val::Int, |s: &str| Val::String(s.into()));
        assert_eq!(check(n(5), n(1), n(10), false), Val::Bool(true));
        assert_eq!(check(n(5), n(10), n(1), false), Val::Bool(true), "reversed bounds");
        assert_eq!(check(n(10), n(10), n(1), false), Val::Bool(true), "inclusive");
        assert_eq!(check(n(11), n(10), n(1), false), Val::Bool(false));
        assert_eq!(check(n(11), n(10), n(1), true), Val::Bool(true));
        assert_eq!(check(t("b"), t("c"), t("a"), false), Val::Bool(true), "texts too");
        assert_eq!(check(Val::Null, n(1), n(10), false), Val::Bool(false));
        assert_eq!(check(Val::Null, n(1), n(10), true), Val::Bool(false), "a null value is false either way");
        assert_eq!(check(n(5), Val::Null, n(10), false), Val::Bool(false));
        assert_eq!(check(n(5), Val::Null, n(10), true), Val::Bool(false), "a bound written null, negated");
        let row: Row = [("low".to_string(), Val::Null)].into_iter().collect();
        let (rows, low) = ([("s", &row)], column("s", "low"));
        let read = |negated| between(&lit(n(5)), &low.expr, &lit(n(10)), negated, &Scope::new(&rows, &vars, None));
        assert_eq!(read(false), Val::Bool(false), "a bound that reads null");
        assert_eq!(read(true), Val::Bool(true), "a bound that reads null, negated");
    }

    /// `regexp` matches the whole text (a number by its text), `not regexp` is its negation, and either is null of a
    /// null, or of a pattern read from an event that does not compile.
    #[test]
    fn regexp_matches_whole_texts_and_not_regexp_negates_it() {
        let vars = Row::default();
        let scope = Scope::new(&[], &vars, None);
        let check = |operand: Value, pattern: &str, negated| {
            let (operand, pattern) = (PlanExpr::Literal(operand), PlanExpr::Literal(Value::String(pattern.into())));
            eval(&PlanExpr::Regexp { operand: Box::new(operand), pattern: Box::new(pattern), negated }, &scope)
        };
        let text = |s: &str| Value::String(s.into());
        assert_eq!(check(text("Room12"), "Room[0-9]+", false), Val::Bool(true));
        assert_eq!(check(text("Room12"), "Room[0-9]+", true), Val::Bool(false));
        assert_eq!(check(text("MyRoom12"), "Room[0-9]+", true), Val::Bool(true), "the whole text, not a part");
        assert_eq!(check(Value::Float(11.0), "[0-9][0-9].[0-9]", false), Val::Bool(true), "11.0 as Java writes it");
        assert_eq!(check(Value::Null, ".*", true), Val::Null);
        assert_eq!(check(text("aa"), r"(a)\1", false), Val::Null, "no back-references");
    }

    /// Esper coerces a `coalesce` to the common type of its arguments (`ExprCoalesceNode`), as it does a `case`:
    /// `coalesce(1, 2.5)` is `1.0`, a double, and a text stays a text.
    #[test]
    fn coalesce_widens_a_whole_number_to_its_double_type() {
        let (vars, call) = (Row::default(), |args: Vec<Value>, ty: DataType| PlanExpr::Call {
            function: Function::Coalesce,
            args: args.into_iter().map(PlanExpr::Literal).collect(),
            ty,
        });
        let scope = Scope::new(&[], &vars, None);
        let widened = call(vec![Value::Null, Value::Int(1), Value::Float(2.5)], DataType::Double);
        assert_eq!(eval(&widened, &scope), Val::Double(1.0));
        assert_eq!(eval(&call(vec![Value::Int(1), Value::Int(2)], DataType::Int), &scope), Val::Int(1));
        let text = call(vec![Value::Null, Value::String("a".into())], DataType::String);
        assert_eq!(eval(&text, &scope), Val::String("a".into()));
    }

    /// `max(a, b, ...)` and `min(a, b, ...)` of one row: the extreme value in the widest type, null when any is.
    #[test]
    fn max_and_min_of_a_row_take_the_extreme_and_answer_null_for_any_null() {
        let vars = Row::default();
        let scope = Scope::new(&[], &vars, None);
        let call = |function, args: Vec<Value>, ty| {
            eval(&PlanExpr::Call { function, args: args.into_iter().map(PlanExpr::Literal).collect(), ty }, &scope)
        };
        let (int, float) = (Value::Int, Value::Float);
        assert_eq!(call(Function::Greatest, vec![int(1), float(2.5), int(2)], DataType::Double), Val::Double(2.5));
        assert_eq!(call(Function::Greatest, vec![int(3), float(2.5)], DataType::Double), Val::Double(3.0));
        assert_eq!(call(Function::Least, vec![int(3), int(1), int(2)], DataType::Long), Val::Int(1));
        assert_eq!(call(Function::Least, vec![int(3), Value::Null], DataType::Int), Val::Null);
        assert_eq!(call(Function::Greatest, vec![Value::Null, int(3)], DataType::Int), Val::Null);
    }

    /// `item(values, i)`, as `prev` with an index each row reads uses it: from 0, a fraction cut off as Java's
    /// `intValue` cuts it, null past either end and for a null index.
    #[test]
    fn an_item_is_read_at_a_whole_index_from_0_and_null_past_the_ends() {
        let row: Row = [("w", Val::Array(vec![Val::Int(10), Val::Int(20)].into()))].into_iter().collect();
        let (vars, binding) = (Row::default(), [("S", &row)]);
        let scope = Scope::new(&binding, &vars, None);
        let window =
            PlanExpr::Column { source: "S".into(), name: "w".into(), ty: DataType::Array(Box::new(DataType::Int)) };
        let item = |index: Value| {
            let args = vec![window.clone(), PlanExpr::Literal(index)];
            eval(&PlanExpr::Call { function: Function::Item, args, ty: DataType::Int }, &scope)
        };
        assert_eq!(item(Value::Int(1)), Val::Int(20));
        assert_eq!(item(Value::Float(1.9)), Val::Int(20));
        assert_eq!(
            [Value::Int(2), Value::Int(-1), Value::Float(-0.5), Value::Null].map(item),
            [(); 4].map(|_| Val::Null)
        );
    }

    /// `like` reads a number as Java's `toString` writes it, which Esper matches its pattern against, and a cast to a
    /// text writes it so.
    #[test]
    fn numbers_are_written_as_java_writes_them() {
        let vars = Row::default();
        let as_text = |x: f64| {
            let e = PlanExpr::Cast { operand: Box::new(PlanExpr::Literal(Value::Float(x))), ty: DataType::String };
            eval(&e, &Scope::new(&[], &vars, None))
        };
        assert_eq!(as_text(1e7), Val::String("1.0E7".into()));
        assert_eq!(as_text(0.5), Val::String("0.5".into()));
        let cases =
            [(2.0, "2.0"), (0.001, "0.001"), (1e7, "1.0E7"), (1.5e-5, "1.5E-5"), (-123456789.5, "-1.234567895E8")];
        for (x, text) in cases {
            assert_eq!(java_text(x), text);
        }
        assert_eq!([f64::NAN, f64::INFINITY, f64::NEG_INFINITY].map(java_text), ["NaN", "Infinity", "-Infinity"]);
    }

    #[test]
    fn a_whole_copy_shares_a_row_with_exactly_its_columns_and_builds_any_other() {
        let copy_of_a = [column("a", "x"), column("a", "y")];
        let exact = Row::from([("x", Val::Int(1)), ("y", Val::Int(2))]);
        let wider = Row::from([("x", Val::Int(1)), ("y", Val::Int(2)), ("z", Val::Int(3))]);
        let vars = Row::new();
        for (row, shared) in [(&exact, true), (&wider, false)] {
            let rows = [("a", row)];
            let out = CopyOf::new(&copy_of_a).project(&copy_of_a, &Scope::new(&rows, &vars, None));
            assert_eq!(std::ptr::eq::<Props>(&*out, &**row), shared);
            assert_eq!(out, Row::from([("x", Val::Int(1)), ("y", Val::Int(2))]));
        }
    }

    #[test]
    fn a_list_that_renames_mixes_inputs_or_computes_is_not_a_whole_copy() {
        let renamed = Projection { name: "w".into(), ..column("a", "x") };
        for list in [vec![column("a", "x"), renamed], vec![column("a", "x"), column("b", "y")]] {
            assert!(CopyOf::new(&list).whole.is_none());
        }
        assert!(CopyOf::new(&[column("a", "x")]).whole.is_some());
    }
}

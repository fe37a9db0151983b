//! Expressions compiled for one place in the dataflow, where it is known ahead of time which rows an expression is
//! evaluated over and in what order: a column is then read from the row at its index, not found by its label; a
//! configuration variable (fixed for the life of a program) and a literal are values made once; a value a pattern
//! leaf read ahead of time is taken by its index. The operators on values are the interpreter's own (`eval`), so a
//! compiled expression means what the interpreted one means; an expression using anything else (`like`, `case`,
//! `in`, casts, …) is not compiled and runs on the interpreter. A property test below requires the same value from
//! both for random expressions over random rows.
//!
//! Interpreting `fence.contains(position)` cost about 480 instructions per event in `bench geofence` even with its
//! operands read in place, about 230 of them the polygon test itself (`benches/results/cep.md`, twenty-third
//! session; the test is `geo`'s since the twenty-sixth, 184 instructions). A fixed polygon is compiled with its
//! bounding box, which answers for the points outside it (about half the bench's positions, which the workload
//! spreads evenly about the fence's edge): a worker's instructions fell 2.3 %, and one worker ran 2.4–7.8 % more
//! events per second in three pairs (thirty-fourth session).

use std::borrow::Cow;

use geo::{BoundingRect, Rect};
use smallvec::SmallVec;

use super::eval::{Scope, and_or, applied, call2, comparison, compute, eval, neg, not};
use super::props::name_order;
use super::value::{Name, Row, Val};
use crate::cep::plan::{BinaryOp, DataType, Function, PlanExpr, Projection};

/// Where the expressions of one place find what they read.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'a> {
    /// The label of each row, by its index at evaluation; a label listed twice is found at its first index.
    pub rows: &'a [&'a str],
    /// The (label, column) of each value read ahead of time, by its index: found before the rows.
    pub pinned: &'a [(Name, Name)],
    pub vars: &'a Row,
}

impl<'a> Layout<'a> {
    /// A layout of rows only.
    pub fn rows(rows: &'a [&'a str], vars: &'a Row) -> Self {
        Layout { rows, pinned: &[], vars }
    }
}

/// What one evaluation reads: the rows in the layout's order, the pinned values (by the index of what they read;
/// a read missing is null) and the aggregation's current values.
#[derive(Debug, Clone, Copy)]
pub struct Env<'a> {
    pub rows: &'a [&'a Row],
    pub pinned: &'a [(usize, Val)],
    pub aggregates: &'a [Val],
}

impl<'a> Env<'a> {
    /// Column `name` of the row at index `row`, if both are there.
    fn column(&self, row: usize, name: &Name) -> Option<&'a Val> {
        self.rows.get(row).and_then(|r| r.named(name))
    }
}

/// A compiled expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Compiled {
    /// A literal, or a configuration variable's value.
    Value(Val),
    /// Column `name` of the row at index `row` of the evaluation's rows.
    Column {
        row: usize,
        name: Name,
    },
    /// The pinned value read by the layout's read at this index.
    Pinned(usize),
    Aggregate(usize),
    Binary {
        op: BinaryOp,
        lhs: Box<Compiled>,
        rhs: Box<Compiled>,
    },
    Not(Box<Compiled>),
    Neg(Box<Compiled>),
    IsNull {
        operand: Box<Compiled>,
        negated: bool,
    },
    /// `point`, `contains` and `distance`, with their two arguments.
    Call {
        function: Function,
        args: Box<[Compiled; 2]>,
    },
    /// A Java method (of `Math`, of a text, its first argument, or a conversion), with its arguments and its result's
    /// type.
    Applied {
        function: Function,
        args: Box<[Compiled]>,
        ty: DataType,
    },
    /// `contains` of a polygon fixed when compiled (a configuration variable's, as the geofence's `fence`), with the
    /// polygon's bounding box: a point outside the box is outside the polygon, known without the polygon's test.
    InPolygon {
        polygon: Val,
        bounds: Rect<f64>,
        point: Box<Compiled>,
    },
}

impl Compiled {
    /// `e` compiled for `layout`, or `None` when it uses what is not compiled or reads a label the layout lacks.
    pub fn new(e: &PlanExpr, layout: &Layout<'_>) -> Option<Compiled> {
        let compile = |e: &PlanExpr| Compiled::new(e, layout).map(Box::new);
        Some(match e {
            PlanExpr::Literal(v) => Compiled::Value(v.into()),
            PlanExpr::Variable { name, .. } => Compiled::Value(layout.vars.get(name).cloned().unwrap_or_default()),
            PlanExpr::Column { source, name, .. } => column(layout, source, name)?,
            PlanExpr::Aggregate(i) => Compiled::Aggregate(*i),
            PlanExpr::Binary { op, lhs, rhs, .. } => {
                Compiled::Binary { op: *op, lhs: compile(lhs)?, rhs: compile(rhs)? }
            }
            PlanExpr::Not(inner) => Compiled::Not(compile(inner)?),
            PlanExpr::Neg(inner) => Compiled::Neg(compile(inner)?),
            PlanExpr::IsNull { operand, negated } => Compiled::IsNull { operand: compile(operand)?, negated: *negated },
            PlanExpr::Call {
                function: function @ (Function::Point | Function::Contains | Function::Distance),
                args,
                ..
            } => {
                let [a, b] = args.as_slice() else {
                    return None;
                };
                let (a, b) = (Compiled::new(a, layout)?, Compiled::new(b, layout)?);
                let bounds = match (function, &a) {
                    (Function::Contains, Compiled::Value(Val::Polygon(shape))) => shape.bounding_rect(),
                    _ => None,
                };
                match (a, bounds) {
                    (Compiled::Value(polygon), Some(bounds)) => {
                        Compiled::InPolygon { polygon, bounds, point: Box::new(b) }
                    }
                    (a, _) => Compiled::Call { function: *function, args: Box::new([a, b]) },
                }
            }
            PlanExpr::Call {
                function: function @ (Function::Math(_) | Function::Text(_) | Function::Convert(_)),
                args,
                ty,
            } => {
                let args = args.iter().map(|a| Compiled::new(a, layout)).collect::<Option<_>>()?;
                Compiled::Applied { function: *function, args, ty: ty.clone() }
            }
            _ => return None,
        })
    }

    /// The value in `env`.
    pub fn eval(&self, env: &Env<'_>) -> Val {
        match self {
            Compiled::Column { .. } | Compiled::Value(_) | Compiled::Pinned(_) | Compiled::Aggregate(_) => {
                self.leaf(env).flatten().cloned().unwrap_or_default()
            }
            Compiled::Binary { op: BinaryOp::And, lhs, rhs } => and_or(lhs.eval(env), || rhs.eval(env), false),
            Compiled::Binary { op: BinaryOp::Or, lhs, rhs } => and_or(lhs.eval(env), || rhs.eval(env), true),
            Compiled::Binary { op, lhs, rhs } => match (lhs.leaf(env), rhs.leaf(env)) {
                (Some(l), Some(r)) => compute(*op, l.unwrap_or(&NULL), r.unwrap_or(&NULL)),
                _ => compute(*op, &lhs.operand(env), &rhs.operand(env)),
            },
            Compiled::Not(inner) => not(inner.eval(env)),
            Compiled::Neg(inner) => neg(inner.eval(env)),
            Compiled::IsNull { operand, negated } => Val::Bool(operand.operand(env).is_null() != *negated),
            Compiled::Call { function, args } => match (args[0].leaf(env), args[1].leaf(env)) {
                (Some(a), Some(b)) => call2(*function, a.unwrap_or(&NULL), b.unwrap_or(&NULL)),
                _ => call2(*function, &args[0].operand(env), &args[1].operand(env)),
            },
            Compiled::Applied { function, args, ty } => {
                let values: SmallVec<[Cow<'_, Val>; 3]> = args.iter().map(|a| a.operand(env)).collect();
                applied(*function, &values.iter().map(|v| &**v).collect::<SmallVec<[&Val; 3]>>(), ty)
            }
            Compiled::InPolygon { polygon, bounds, point } => match &*point.operand(env) {
                Val::Point(x, y) if outside(bounds, *x, *y) => Val::Bool(false),
                point => call2(Function::Contains, polygon, point),
            },
        }
    }

    /// Whether it holds in `env` (null is false). The usual filter, a comparison of two leaves (`inside !=
    /// a.inside`), is answered here, without making its value.
    pub fn holds(&self, env: &Env<'_>) -> bool {
        if let Compiled::Binary { op, lhs, rhs } = self
            && op.is_comparison()
            && let (Some(l), Some(r)) = (lhs.leaf(env), rhs.leaf(env))
        {
            return comparison(*op, l.unwrap_or(&NULL), r.unwrap_or(&NULL)) == Some(Some(true));
        }
        self.eval(env).is_true()
    }

    /// The value where it is only read: a column, pinned value or aggregate is borrowed.
    fn operand<'a>(&'a self, env: &Env<'a>) -> Cow<'a, Val> {
        match self.leaf(env) {
            Some(found) => Cow::Borrowed(found.unwrap_or(&NULL)),
            None => Cow::Owned(self.eval(env)),
        }
    }

    /// What a leaf (a value, column, pinned value or aggregate) reads, `Some(None)` when that is missing; `None` for
    /// any other expression. Inlined where it is used: an operator between two leaves (`inside != a.inside`,
    /// `fence.contains(position)`) reads them in place, where reading each through a call of `operand` cost about as
    /// much as the operator (`benches/results/cep.md`, twenty-ninth session).
    #[inline(always)]
    fn leaf<'a>(&'a self, env: &Env<'a>) -> Option<Option<&'a Val>> {
        match self {
            Compiled::Value(v) => Some(Some(v)),
            Compiled::Column { row, name } => Some(env.column(*row, name)),
            Compiled::Pinned(i) => Some(env.pinned.iter().find(|(j, _)| j == i).map(|(_, v)| v)),
            Compiled::Aggregate(i) => Some(env.aggregates.get(*i)),
            _ => None,
        }
    }
}

/// Whether (`x`, `y`) lies strictly outside `bounds`: false for a point on the box's edge, and for NaN.
fn outside(bounds: &Rect<f64>, x: f64, y: f64) -> bool {
    let (min, max) = (bounds.min(), bounds.max());
    x < min.x || x > max.x || y < min.y || y > max.y
}

/// What a missing column, pinned value or aggregate reads as.
static NULL: Val = Val::Null;

/// Where `source.name` is read: a pinned value first, as the interpreter's scope looks.
fn column(layout: &Layout<'_>, source: &str, name: &Name) -> Option<Compiled> {
    if let Some(i) = layout.pinned.iter().position(|(s, n)| **s == *source && n == name) {
        return Some(Compiled::Pinned(i));
    }
    let row = layout.rows.iter().position(|label| *label == source)?;
    Some(Compiled::Column { row, name: name.clone() })
}

/// An expression over rows with fixed labels: compiled when it can be, else interpreted over a scope of the labels.
#[derive(Debug, Clone)]
pub struct RowExpr {
    compiled: Option<Compiled>,
    expr: PlanExpr,
    labels: Box<[Name]>,
}

impl RowExpr {
    pub fn new(e: &PlanExpr, labels: &[&str], vars: &Row) -> Self {
        let compiled = Compiled::new(e, &Layout::rows(labels, vars));
        RowExpr { compiled, expr: e.clone(), labels: labels.iter().map(|l| Name::from(*l)).collect() }
    }

    /// The value over `rows`, in the order of the labels, with the aggregation's current values. The usual
    /// expression, a column (a group key, an aggregate's argument), is read here, not in `Compiled::eval`: that
    /// took a column read of `bench floor` from 113 to 93 instructions (`benches/results/cep.md`, twenty-ninth
    /// session). `now` is the engine's time ([`Scope::now`]).
    pub fn eval(&self, rows: &[&Row], aggregates: &[Val], vars: &Row, now: Option<i64>) -> Val {
        match &self.compiled {
            Some(Compiled::Column { row, name }) => {
                rows.get(*row).and_then(|r| r.named(name)).cloned().unwrap_or_default()
            }
            Some(compiled) => compiled.eval(&Env { rows, pinned: &[], aggregates }),
            None => self.interpret(rows, aggregates, vars, now),
        }
    }

    /// The interpreter's path, for an expression that does not compile.
    #[cold]
    fn interpret(&self, rows: &[&Row], aggregates: &[Val], vars: &Row, now: Option<i64>) -> Val {
        let labelled: SmallVec<[(&str, &Row); 2]> =
            self.labels.iter().map(|l| l.as_str()).zip(rows.iter().copied()).collect();
        eval(&self.expr, &Scope { rows: &labelled, aggregates, vars, pinned: &[], now })
    }

    /// The value in `row` (of the first label) where the expression is a column of it, borrowed; `None` for any
    /// other expression and for a missing column.
    pub fn column_of<'r>(&self, row: &'r Row) -> Option<&'r Val> {
        self.column().and_then(|name| row.named(name))
    }

    /// The name of the column of the first label's row the expression is, if it is one.
    pub fn column(&self) -> Option<&Name> {
        match &self.compiled {
            Some(Compiled::Column { row: 0, name }) => Some(name),
            _ => None,
        }
    }

    /// Whether it holds over `rows` (null is false).
    pub fn holds(&self, rows: &[&Row], aggregates: &[Val], vars: &Row, now: Option<i64>) -> bool {
        match &self.compiled {
            Some(compiled) => compiled.holds(&Env { rows, pinned: &[], aggregates }),
            None => self.interpret(rows, aggregates, vars, now).is_true(),
        }
    }

    /// The expression as planned.
    pub fn expr(&self) -> &PlanExpr {
        &self.expr
    }
}

/// A select list over rows with fixed labels, each column a [`RowExpr`]. The row is written in name order, a name
/// given twice with its last value, as [`project`](super::eval::project) makes it.
#[derive(Debug, Clone)]
pub struct RowProjection {
    exprs: Vec<RowExpr>,
    /// Each name once, in name order, with the index of the expression it takes.
    order: Vec<(Name, usize)>,
}

impl RowProjection {
    pub fn new(projection: &[Projection], labels: &[&str], vars: &Row) -> Self {
        let names: Vec<Name> = projection.iter().map(|p| p.name.clone()).collect();
        let exprs = projection.iter().map(|p| RowExpr::new(&p.expr, labels, vars)).collect();
        RowProjection { exprs, order: name_order(&names) }
    }

    /// The row over `rows`, in the order of the labels, at the engine's time `now`.
    pub fn project(&self, rows: &[&Row], vars: &Row, now: Option<i64>) -> Row {
        Row::sorted(self.order.iter().map(|(name, i)| (name.clone(), self.exprs[*i].eval(rows, &[], vars, now))), 0)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::cep::plan::{Conversion, MathFunction, TextMethod};
    use crate::cep::plan::{DataType, Value};

    const LABELS: [&str; 3] = ["a", "b", "t"];
    /// The engine's time the expressions are evaluated at.
    const NOW: i64 = 7;
    const NAMES: [&str; 3] = ["x", "y", "p"];

    fn value() -> impl Strategy<Value = Val> {
        prop_oneof![
            Just(Val::Null),
            any::<bool>().prop_map(Val::Bool),
            (-3i64..3).prop_map(Val::Int),
            prop_oneof![Just(0.0), Just(-0.0), Just(1.5), Just(f64::NAN), -2.0..2.0f64].prop_map(Val::Double),
            prop_oneof![Just("x"), Just("y")].prop_map(|s| Val::String(s.into())),
            (-1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y)| Val::Point(x, y)),
        ]
    }

    fn leaf() -> impl Strategy<Value = PlanExpr> {
        let column = (0..3usize, 0..3usize).prop_map(|(l, n)| PlanExpr::Column {
            source: LABELS[l].into(),
            name: NAMES[n].into(),
            ty: DataType::Int,
        });
        let literal = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..3).prop_map(Value::Int),
            (-2.0..2.0f64).prop_map(Value::Float),
            Just(Value::String("x".into())),
        ]
        .prop_map(PlanExpr::Literal);
        let variable = prop_oneof![Just("fence"), Just("k"), Just("none")]
            .prop_map(|n| PlanExpr::Variable { name: n.into(), ty: DataType::Int });
        let clock = PlanExpr::Call { function: Function::CurrentTimestamp, args: Vec::new(), ty: DataType::Long };
        prop_oneof![
            3 => column,
            2 => literal,
            1 => variable,
            1 => (0..2usize).prop_map(PlanExpr::Aggregate),
            1 => Just(clock),
        ]
    }

    fn op() -> impl Strategy<Value = BinaryOp> {
        use BinaryOp::*;
        prop::sample::select(vec![Or, And, Eq, NotEq, Lt, LtEq, Gt, GtEq, Add, Sub, Mul, Div, Mod])
    }

    fn expr() -> impl Strategy<Value = PlanExpr> {
        leaf().prop_recursive(4, 24, 3, |inner| {
            let boxed = |e: PlanExpr| Box::new(e);
            let function = prop::sample::select(vec![Function::Point, Function::Contains, Function::Distance]);
            prop_oneof![
                (op(), inner.clone(), inner.clone()).prop_map(move |(op, l, r)| PlanExpr::Binary {
                    op,
                    lhs: boxed(l),
                    rhs: boxed(r),
                    ty: DataType::Boolean
                }),
                inner.clone().prop_map(move |e| PlanExpr::Not(boxed(e))),
                inner.clone().prop_map(move |e| PlanExpr::Neg(boxed(e))),
                (inner.clone(), any::<bool>())
                    .prop_map(move |(e, negated)| PlanExpr::IsNull { operand: boxed(e), negated }),
                (function, inner.clone(), inner.clone()).prop_map(|(function, a, b)| PlanExpr::Call {
                    function,
                    args: vec![a, b],
                    ty: DataType::Boolean
                }),
                (java(), inner.clone(), inner.clone(), inner.clone()).prop_map(|((function, arity, ty), a, b, c)| {
                    PlanExpr::Call { function, args: [a, b, c].into_iter().take(arity).collect(), ty }
                }),
                (inner.clone(), prop::collection::vec(inner, 1..3)).prop_map(move |(e, list)| PlanExpr::InList {
                    operand: boxed(e),
                    list,
                    negated: false
                }),
            ]
        })
    }

    /// A Java method (of `Math`, of a text, or a conversion), its number of arguments (a text's counted) and a result
    /// type the planner could give it.
    fn java() -> impl Strategy<Value = (Function, usize, DataType)> {
        let ty = prop::sample::select(vec![DataType::Int, DataType::Long, DataType::Double]);
        let math = (prop::sample::select(MathFunction::ALL.to_vec()), ty)
            .prop_map(|((function, _, arity), ty)| (Function::Math(function), arity, ty));
        let text = prop::sample::select(TextMethod::ALL.to_vec())
            .prop_map(|(method, _, takes)| (Function::Text(method), 1 + takes.len(), method.result()));
        let conversion = prop::sample::select(Conversion::ALL.to_vec())
            .prop_map(|(conversion, _, _, ty)| (Function::Convert(conversion), 1, ty));
        prop_oneof![math, text, conversion]
    }

    fn row() -> impl Strategy<Value = Row> {
        prop::collection::vec(prop::option::of(value()), 3)
            .prop_map(|values| NAMES.iter().zip(values).filter_map(|(n, v)| v.map(|v| (*n, v))).collect())
    }

    fn vars() -> Row {
        let ring = vec![(-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)];
        let fence = crate::cep::runtime::geometry::polygon(ring).expect("a closed ring");
        Row::from([("fence", fence), ("k", Val::Int(2))])
    }

    proptest! {
        /// Compiled and interpreted, one expression has one value: over rows `a` and `b`, a value of `t.x` read
        /// ahead of time (or not), aggregates and variables.
        #[test]
        fn a_compiled_expression_has_the_interpreted_value(
            e in expr(),
            (a, b) in (row(), row()),
            pinned in prop::option::of(value()),
            aggregates in prop::collection::vec(value(), 2),
        ) {
            let vars = vars();
            let reads = [(Name::from("t"), Name::from("x"))];
            let layout = Layout { rows: &["a", "b"], pinned: &reads, vars: &vars };
            let pinned_values: Vec<(usize, Val)> = pinned.iter().map(|v| (0, v.clone())).collect();
            let pinned_scope: Vec<(&str, &str, &Val)> = pinned.iter().map(|v| ("t", "x", v)).collect();
            let labelled = [("a", &a), ("b", &b)];
            let now = Some(NOW);
            let scope = Scope { rows: &labelled, aggregates: &aggregates, vars: &vars, pinned: &pinned_scope, now };
            let value = eval(&e, &scope);
            let expected = format!("{value:?}");
            if let Some(compiled) = Compiled::new(&e, &layout) {
                let env = Env { rows: &[&a, &b], pinned: &pinned_values, aggregates: &aggregates };
                prop_assert_eq!(format!("{:?}", compiled.eval(&env)), expected.clone());
                prop_assert_eq!(compiled.holds(&env), value.is_true());
            }
            if pinned.is_none() && !format!("{e:?}").contains("\"t\"") {
                let row_expr = RowExpr::new(&e, &["a", "b"], &vars);
                prop_assert_eq!(format!("{:?}", row_expr.eval(&[&a, &b], &aggregates, &vars, now)), expected);
                prop_assert_eq!(row_expr.holds(&[&a, &b], &aggregates, &vars, now), value.is_true());
            }
        }
    }

    proptest! {
        /// A compiled select list makes the interpreter's row: a name given twice keeps its last value.
        #[test]
        fn a_compiled_projection_makes_the_interpreted_row(
            columns in prop::collection::vec((0..3usize, expr()), 0..5),
            (a, b) in (row(), row()),
        ) {
            let vars = vars();
            let projection: Vec<Projection> = columns
                .into_iter()
                .map(|(n, expr)| Projection { name: NAMES[n].into(), expr, ty: DataType::Int })
                .collect();
            let labelled = [("a", &a), ("b", &b)];
            let expected = crate::cep::runtime::eval::project(&projection, &Scope::new(&labelled, &vars, Some(NOW)));
            let compiled = RowProjection::new(&projection, &["a", "b"], &vars);
            prop_assert_eq!(format!("{:?}", compiled.project(&[&a, &b], &vars, Some(NOW))), format!("{expected:?}"));
        }
    }

    #[test]
    fn a_fixed_polygon_s_box_answers_only_for_points_outside_it() {
        // A triangle, whose box [0, 2] x [0, 2] holds points outside it.
        let ring = vec![(0.0, 0.0), (2.0, 0.0), (0.0, 2.0), (0.0, 0.0)];
        let vars = Row::from([("fence", crate::cep::runtime::geometry::polygon(ring).expect("a closed ring"))]);
        let layout = Layout::rows(&["a"], &vars);
        let contains = PlanExpr::Call {
            function: Function::Contains,
            args: vec![
                PlanExpr::Variable { name: "fence".into(), ty: DataType::Int },
                PlanExpr::Column { source: "a".into(), name: "p".into(), ty: DataType::Int },
            ],
            ty: DataType::Boolean,
        };
        let compiled = Compiled::new(&contains, &layout).expect("compiled");
        assert!(matches!(compiled, Compiled::InPolygon { .. }), "{compiled:?}");
        let points = [
            Val::Point(3.0, 1.0),
            Val::Point(-1.0, 0.5),
            Val::Point(1.5, 1.5),
            Val::Point(0.5, 0.5),
            Val::Point(2.0, 0.0),
            Val::Point(0.0, 1.0),
            Val::Point(f64::NAN, 0.5),
            Val::Null,
            Val::Int(1),
        ];
        for p in points {
            let a = Row::from([("p", p.clone())]);
            let labelled = [("a", &a)];
            let interpreted = eval(&contains, &Scope::new(&labelled, &vars, None));
            let env = Env { rows: &[&a], pinned: &[], aggregates: &[] };
            assert_eq!(format!("{:?}", compiled.eval(&env)), format!("{interpreted:?}"), "{p:?}");
        }
    }

    #[test]
    fn what_the_interpreter_alone_knows_is_not_compiled() {
        let vars = vars();
        let layout = Layout::rows(&["a"], &vars);
        let column = |source: &str| PlanExpr::Column { source: source.into(), name: "x".into(), ty: DataType::Int };
        assert!(Compiled::new(&column("a"), &layout).is_some());
        assert!(Compiled::new(&column("elsewhere"), &layout).is_none(), "a label the layout lacks");
        let like = PlanExpr::Like {
            operand: Box::new(column("a")),
            pattern: Box::new(PlanExpr::Literal(Value::String("x%".into()))),
            negated: false,
            escape: '\\',
        };
        assert!(Compiled::new(&like, &layout).is_none());
        let fence = PlanExpr::Variable { name: "fence".into(), ty: DataType::Int };
        assert!(matches!(Compiled::new(&fence, &layout), Some(Compiled::Value(Val::Polygon(_)))));
    }
}

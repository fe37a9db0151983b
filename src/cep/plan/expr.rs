//! Resolved, typed expressions of the plan, and how they print: names are replaced by the input they
//! come from, aggregates by the index of their accumulator.

use std::fmt::{self, Display, Formatter};

use serde::{Deserialize, Serialize};

use super::{BinaryOp, DataType};
use crate::cep::runtime::value::Name;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Function {
    Point,
    Polygon,
    Geometry,
    Coalesce,
    Contains,
    Distance,
    /// `max(a, b, ...)` and `min(a, b, ...)` of two or more numbers in one row (of one, they aggregate).
    Greatest,
    Least,
    /// A static method of Java's `Math` (`Math.abs(x)`), as Esper calls it.
    Math(MathFunction),
    /// A method of Java's `String` called on a text (`id.startsWith('Room')`), the text its first argument.
    Text(TextMethod),
    /// A static method of Java's converting between texts and values (`String.valueOf(x)`, `Integer.parseInt(s)`).
    Convert(Conversion),
    /// `item(values, i)`: the `i`-th of an array (from 0, a number cut to a whole one), null past its ends: how
    /// `prev(i, x)` and `prevtail(i, x)` with an index that is not a constant read the window ([`super::PrevKind`]).
    Item,
    /// `current_timestamp()`: the engine's time, a `long` of milliseconds, at the evaluation (Esper's reading of its
    /// time service): an event's arrival, a timer's firing, an output tick.
    CurrentTimestamp,
}

/// The static methods of Java's `String`, `Integer`, `Long` and `Double` that convert between texts and values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Conversion {
    StringValueOf,
    IntegerValueOf,
    IntegerParseInt,
    LongValueOf,
    LongParseLong,
    DoubleValueOf,
    DoubleParseDouble,
}

impl Conversion {
    /// Every conversion with its class, its method and the type it gives.
    pub const ALL: [(Conversion, &'static str, &'static str, DataType); 7] = [
        (Conversion::StringValueOf, "String", "valueOf", DataType::String),
        (Conversion::IntegerValueOf, "Integer", "valueOf", DataType::Int),
        (Conversion::IntegerParseInt, "Integer", "parseInt", DataType::Int),
        (Conversion::LongValueOf, "Long", "valueOf", DataType::Long),
        (Conversion::LongParseLong, "Long", "parseLong", DataType::Long),
        (Conversion::DoubleValueOf, "Double", "valueOf", DataType::Double),
        (Conversion::DoubleParseDouble, "Double", "parseDouble", DataType::Double),
    ];

    /// The conversion `class.method`, with the type it gives.
    pub fn named(class: &str, method: &str) -> Option<(Conversion, DataType)> {
        let found = Self::ALL.iter().find(|(_, c, m, _)| *c == class && *m == method);
        found.map(|(conversion, _, _, ty)| (*conversion, ty.clone()))
    }

    /// Its class and method.
    pub fn names(self) -> (&'static str, &'static str) {
        Self::ALL.iter().find(|(c, ..)| *c == self).map_or(("", ""), |(_, class, method, _)| (class, method))
    }
}

/// The methods of Java's `String` a statement may call on a text, by their Java names ([`TextMethod::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextMethod {
    Length,
    IsEmpty,
    ToUpperCase,
    ToLowerCase,
    Trim,
    StartsWith,
    EndsWith,
    Contains,
    EqualsIgnoreCase,
    IndexOf,
    Concat,
    Replace,
    Substring,
}

impl TextMethod {
    /// Every method with its Java name and the types of its arguments after the text (`substring` also takes one).
    pub const ALL: [(TextMethod, &'static str, &'static [DataType]); 13] = [
        (TextMethod::Length, "length", &[]),
        (TextMethod::IsEmpty, "isEmpty", &[]),
        (TextMethod::ToUpperCase, "toUpperCase", &[]),
        (TextMethod::ToLowerCase, "toLowerCase", &[]),
        (TextMethod::Trim, "trim", &[]),
        (TextMethod::StartsWith, "startsWith", &[DataType::String]),
        (TextMethod::EndsWith, "endsWith", &[DataType::String]),
        (TextMethod::Contains, "contains", &[DataType::String]),
        (TextMethod::EqualsIgnoreCase, "equalsIgnoreCase", &[DataType::String]),
        (TextMethod::IndexOf, "indexOf", &[DataType::String]),
        (TextMethod::Concat, "concat", &[DataType::String]),
        (TextMethod::Replace, "replace", &[DataType::String, DataType::String]),
        (TextMethod::Substring, "substring", &[DataType::Int, DataType::Int]),
    ];

    /// The method Java calls `name` (case-sensitive), with the types of its arguments.
    pub fn named(name: &str) -> Option<(TextMethod, &'static [DataType])> {
        Self::ALL.iter().find(|(_, n, _)| *n == name).map(|(m, _, args)| (*m, *args))
    }

    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(m, _, _)| *m == self).map_or("", |(_, n, _)| n)
    }

    /// The type of its result.
    pub fn result(self) -> DataType {
        match self {
            TextMethod::Length | TextMethod::IndexOf => DataType::Int,
            TextMethod::IsEmpty
            | TextMethod::StartsWith
            | TextMethod::EndsWith
            | TextMethod::Contains
            | TextMethod::EqualsIgnoreCase => DataType::Boolean,
            _ => DataType::String,
        }
    }
}

/// The methods of Java's `java.lang.Math` a statement may call, by their Java names ([`MathFunction::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MathFunction {
    Abs,
    Max,
    Min,
    Round,
    Rint,
    Floor,
    Ceil,
    Signum,
    Sqrt,
    Cbrt,
    Pow,
    Exp,
    Log,
    Log10,
    Hypot,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    ToRadians,
    ToDegrees,
}

impl MathFunction {
    /// Every method with its Java name and how many arguments it takes.
    pub const ALL: [(MathFunction, &'static str, usize); 24] = [
        (MathFunction::Abs, "abs", 1),
        (MathFunction::Max, "max", 2),
        (MathFunction::Min, "min", 2),
        (MathFunction::Round, "round", 1),
        (MathFunction::Rint, "rint", 1),
        (MathFunction::Floor, "floor", 1),
        (MathFunction::Ceil, "ceil", 1),
        (MathFunction::Signum, "signum", 1),
        (MathFunction::Sqrt, "sqrt", 1),
        (MathFunction::Cbrt, "cbrt", 1),
        (MathFunction::Pow, "pow", 2),
        (MathFunction::Exp, "exp", 1),
        (MathFunction::Log, "log", 1),
        (MathFunction::Log10, "log10", 1),
        (MathFunction::Hypot, "hypot", 2),
        (MathFunction::Sin, "sin", 1),
        (MathFunction::Cos, "cos", 1),
        (MathFunction::Tan, "tan", 1),
        (MathFunction::Asin, "asin", 1),
        (MathFunction::Acos, "acos", 1),
        (MathFunction::Atan, "atan", 1),
        (MathFunction::Atan2, "atan2", 2),
        (MathFunction::ToRadians, "toRadians", 1),
        (MathFunction::ToDegrees, "toDegrees", 1),
    ];

    /// The method Java calls `name` (case-sensitive, as Java's names are), with its number of arguments.
    pub fn named(name: &str) -> Option<(MathFunction, usize)> {
        Self::ALL.iter().find(|(_, n, _)| *n == name).map(|(f, _, arity)| (*f, *arity))
    }

    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(f, _, _)| *f == self).map_or("", |(_, n, _)| n)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AggregateFunction {
    Avg,
    Count,
    Sum,
    Min,
    Max,
    Stddev,
    /// The middle value (of an even count, the mean of the two middle ones), as a double.
    Median,
    /// The mean absolute deviation from the mean, as a double.
    Avedev,
    /// The argument as the group's `n`-th oldest row in the data window gives it (`first(x, n)`; 0, the oldest), null
    /// too; null when the window holds no such row. Rows are in the order they entered the group.
    First(u32),
    /// The argument as the group's `n`-th newest row in the data window gives it (`last(x, n)`; 0, the newest).
    Last(u32),
    /// The argument as the group's first row ever gave it, null too: Esper's `firstever(x)`, and `first(x)` over a
    /// stream without a data window, which Esper reads as its `firstever`. Rows leaving the window do not change it.
    FirstEver,
    /// The argument as the group's latest row gave it (`lastever(x)`; `last(x)` without a data window).
    LastEver,
    /// The argument as the group's `n`-th newest row ever gave it, null too (`nth(x, n)` with `n` from 1 where no row
    /// leaves the group; over a data window `nth(x, n)` is `last(x, n)`, and `nth(x, 0)` without one `lastever(x)`).
    Nth(u32),
    /// The least value the group's rows ever gave, rows leaving the window or not (`minever`, `fminever`).
    MinEver,
    /// The greatest value the group's rows ever gave (`maxever`, `fmaxever`).
    MaxEver,
    /// How many rows the group ever had with a value (`countever`).
    CountEver,
    /// Whether a row ever left the group's data window (`leaving()`).
    Leaving,
    /// Esper's `rate(timestamp[, value])` over a data window whose rows leave in the order they came: null until a row
    /// left; then the rows in the window (or the sum of their values) per second between the timestamp of the row
    /// that left last and that of the newest. The argument is the timestamp, or an array of it and the value; a row
    /// with either null is left out.
    Rate,
}

impl AggregateFunction {
    /// Whether it reads a null argument as a value rather than leaving it out, as the ends of the window do.
    pub fn reads_nulls(self) -> bool {
        matches!(
            self,
            AggregateFunction::First(_)
                | AggregateFunction::Last(_)
                | AggregateFunction::FirstEver
                | AggregateFunction::LastEver
                | AggregateFunction::Nth(_)
        )
    }

    /// Whether it reads what rows that left the data window did: Esper's "ever" aggregators, which rows leaving
    /// leave as they were, `leaving()`, and `rate`, the timestamp of the row that left last.
    pub fn is_ever(self) -> bool {
        matches!(
            self,
            AggregateFunction::FirstEver
                | AggregateFunction::LastEver
                | AggregateFunction::MinEver
                | AggregateFunction::MaxEver
                | AggregateFunction::CountEver
                | AggregateFunction::Leaving
                | AggregateFunction::Rate
        )
    }
}

/// One accumulator of an aggregation; `arg` is `None` for `count(*)`. A `distinct` one reads each distinct value of
/// its argument once (`count(distinct x)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AggregateCall {
    pub function: AggregateFunction,
    pub arg: Option<PlanExpr>,
    pub ty: DataType,
    #[serde(default)]
    pub distinct: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PlanExpr {
    Literal(Value),
    /// A property of the input labelled `source` (stream label, alias or pattern tag).
    Column {
        source: Name,
        name: Name,
        ty: DataType,
    },
    /// A whole event: a stream label or a pattern tag.
    Row(String),
    Variable {
        name: Name,
        ty: DataType,
    },
    /// The current value of the aggregation's accumulator at this index.
    Aggregate(usize),
    Binary {
        op: BinaryOp,
        lhs: Box<PlanExpr>,
        rhs: Box<PlanExpr>,
        ty: DataType,
    },
    Not(Box<PlanExpr>),
    Neg(Box<PlanExpr>),
    IsNull {
        operand: Box<PlanExpr>,
        negated: bool,
    },
    InList {
        operand: Box<PlanExpr>,
        list: Vec<PlanExpr>,
        negated: bool,
    },
    Between {
        operand: Box<PlanExpr>,
        low: Box<PlanExpr>,
        high: Box<PlanExpr>,
        negated: bool,
    },
    /// `operand [not] like pattern`, `escape` its escape character (`\` by default).
    Like {
        operand: Box<PlanExpr>,
        pattern: Box<PlanExpr>,
        negated: bool,
        escape: char,
    },
    /// A Java regular expression matching the whole text (Esper's `regexp`).
    Regexp {
        operand: Box<PlanExpr>,
        pattern: Box<PlanExpr>,
        negated: bool,
    },
    Call {
        function: Function,
        args: Vec<PlanExpr>,
        ty: DataType,
    },
    Cast {
        operand: Box<PlanExpr>,
        ty: DataType,
    },
    Case {
        operand: Option<Box<PlanExpr>>,
        whens: Vec<(PlanExpr, PlanExpr)>,
        otherwise: Option<Box<PlanExpr>>,
        ty: DataType,
    },
    Array(Vec<PlanExpr>),
}

impl PlanExpr {
    /// `lhs and rhs`: the inverse of [`PlanExpr::conjuncts`].
    pub fn and(lhs: PlanExpr, rhs: PlanExpr) -> PlanExpr {
        PlanExpr::Binary { op: BinaryOp::And, lhs: Box::new(lhs), rhs: Box::new(rhs), ty: DataType::Boolean }
    }

    /// The operands of the `and`s at the top of this expression, or the expression itself.
    pub fn conjuncts(&self) -> Vec<&PlanExpr> {
        match self {
            PlanExpr::Binary { op: BinaryOp::And, lhs, rhs, .. } => {
                let mut out = lhs.conjuncts();
                out.extend(rhs.conjuncts());
                out
            }
            other => vec![other],
        }
    }

    /// Whether it reads `current_timestamp()`: then it is no key to route events by, as they are routed before any
    /// operator's time.
    pub fn reads_clock(&self) -> bool {
        let mut reads = false;
        self.visit(&mut |e| reads |= matches!(e, PlanExpr::Call { function: Function::CurrentTimestamp, .. }));
        reads
    }

    /// Calls `f` on this expression and then on each expression inside it, depth first.
    pub fn visit(&self, f: &mut impl FnMut(&PlanExpr)) {
        f(self);
        match self {
            PlanExpr::Literal(_)
            | PlanExpr::Column { .. }
            | PlanExpr::Row(_)
            | PlanExpr::Variable { .. }
            | PlanExpr::Aggregate(_) => {}
            PlanExpr::Binary { lhs, rhs, .. }
            | PlanExpr::Like { operand: lhs, pattern: rhs, .. }
            | PlanExpr::Regexp { operand: lhs, pattern: rhs, .. } => {
                lhs.visit(f);
                rhs.visit(f);
            }
            PlanExpr::Not(x)
            | PlanExpr::Neg(x)
            | PlanExpr::IsNull { operand: x, .. }
            | PlanExpr::Cast { operand: x, .. } => x.visit(f),
            PlanExpr::InList { operand, list, .. } => {
                operand.visit(f);
                list.iter().for_each(|e| e.visit(f));
            }
            PlanExpr::Between { operand, low, high, .. } => [operand, low, high].into_iter().for_each(|e| e.visit(f)),
            PlanExpr::Call { args: items, .. } | PlanExpr::Array(items) => items.iter().for_each(|e| e.visit(f)),
            PlanExpr::Case { operand, whens, otherwise, .. } => {
                operand.iter().chain(otherwise).for_each(|e| e.visit(f));
                whens.iter().for_each(|(w, t)| {
                    w.visit(f);
                    t.visit(f);
                });
            }
        }
    }
}

impl Display for Value {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl Display for DataType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            DataType::String => f.write_str("string"),
            DataType::Double => f.write_str("double"),
            DataType::Float => f.write_str("float"),
            DataType::Int => f.write_str("int"),
            DataType::Long => f.write_str("long"),
            DataType::Boolean => f.write_str("boolean"),
            DataType::Date => f.write_str("date"),
            DataType::Geometry => f.write_str("geometry"),
            DataType::Null => f.write_str("null"),
            DataType::Row => f.write_str("event"),
            DataType::Array(inner) => write!(f, "array of {inner}"),
        }
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Function::Point => "point",
            Function::Polygon => "polygon",
            Function::Geometry => "geometry",
            Function::Coalesce => "coalesce",
            Function::Contains => "contains",
            Function::Distance => "distance",
            Function::Greatest => "max",
            Function::Least => "min",
            Function::Math(m) => return write!(f, "Math.{}", m.name()),
            Function::Text(m) => m.name(),
            Function::Convert(c) => return write!(f, "{}.{}", c.names().0, c.names().1),
            Function::Item => "item",
            Function::CurrentTimestamp => "current_timestamp",
        })
    }
}

impl Display for AggregateFunction {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AggregateFunction::Avg => "avg",
            AggregateFunction::Count => "count",
            AggregateFunction::Sum => "sum",
            AggregateFunction::Min => "min",
            AggregateFunction::Max => "max",
            AggregateFunction::Stddev => "stddev",
            AggregateFunction::Median => "median",
            AggregateFunction::Avedev => "avedev",
            AggregateFunction::First(_) => "first",
            AggregateFunction::Last(_) => "last",
            AggregateFunction::FirstEver => "firstever",
            AggregateFunction::LastEver => "lastever",
            AggregateFunction::Nth(_) => "nth",
            AggregateFunction::MinEver => "minever",
            AggregateFunction::MaxEver => "maxever",
            AggregateFunction::CountEver => "countever",
            AggregateFunction::Leaving => "leaving",
            AggregateFunction::Rate => "rate",
        })
    }
}

impl Display for AggregateCall {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.arg {
            Some(arg) if self.distinct => write!(f, "{}(distinct {arg}): {}", self.function, self.ty),
            Some(arg) => match self.function {
                AggregateFunction::First(n @ 1..) | AggregateFunction::Last(n @ 1..) | AggregateFunction::Nth(n) => {
                    write!(f, "{}({arg}, {n}): {}", self.function, self.ty)
                }
                _ => write!(f, "{}({arg}): {}", self.function, self.ty),
            },
            None => write!(f, "{}(*): {}", self.function, self.ty),
        }
    }
}

/// Joins displayed items with `", "`.
pub(super) fn list<T: Display>(items: &[T]) -> String {
    items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

fn not(negated: bool) -> &'static str {
    if negated { " not" } else { "" }
}

impl Display for PlanExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            PlanExpr::Literal(v) => v.fmt(f),
            PlanExpr::Column { source, name, .. } => write!(f, "{source}.{name}"),
            PlanExpr::Row(source) => write!(f, "{source}"),
            PlanExpr::Variable { name, .. } => write!(f, "${name}"),
            PlanExpr::Aggregate(i) => write!(f, "#agg{i}"),
            PlanExpr::Binary { op, lhs, rhs, .. } => write!(f, "({lhs} {} {rhs})", op.symbol()),
            PlanExpr::Not(e) => write!(f, "not {e}"),
            PlanExpr::Neg(e) => write!(f, "-{e}"),
            PlanExpr::IsNull { operand, negated } => {
                write!(f, "({operand} is{} null)", not(*negated))
            }
            PlanExpr::InList { operand, list: items, negated } => {
                write!(f, "({operand}{} in ({}))", not(*negated), list(items))
            }
            PlanExpr::Between { operand, low, high, negated } => {
                write!(f, "({operand}{} between {low} and {high})", not(*negated))
            }
            PlanExpr::Like { operand, pattern, negated, escape: '\\' } => {
                write!(f, "({operand}{} like {pattern})", not(*negated))
            }
            PlanExpr::Like { operand, pattern, negated, escape } => {
                write!(f, "({operand}{} like {pattern} escape {escape:?})", not(*negated))
            }
            PlanExpr::Regexp { operand, pattern, negated } => {
                write!(f, "({operand}{} regexp {pattern})", not(*negated))
            }
            PlanExpr::Call { function, args, .. } => fmt_call(*function, args, f),
            PlanExpr::Cast { operand, ty } => write!(f, "cast({operand}, {ty})"),
            PlanExpr::Case { operand, whens, otherwise, .. } => {
                fmt_case(operand.as_deref(), whens, otherwise.as_deref(), f)
            }
            PlanExpr::Array(items) => write!(f, "{{{}}}", list(items)),
        }
    }
}

fn fmt_call(function: Function, args: &[PlanExpr], f: &mut Formatter<'_>) -> fmt::Result {
    match (function, args) {
        (Function::Contains | Function::Distance | Function::Text(_), [target, rest @ ..]) => {
            write!(f, "{target}.{function}({})", list(rest))
        }
        _ => write!(f, "{function}({})", list(args)),
    }
}

fn fmt_case(
    operand: Option<&PlanExpr>,
    whens: &[(PlanExpr, PlanExpr)],
    otherwise: Option<&PlanExpr>,
    f: &mut Formatter<'_>,
) -> fmt::Result {
    f.write_str("case")?;
    operand.iter().try_for_each(|o| write!(f, " {o}"))?;
    for (when, then) in whens {
        write!(f, " when {when} then {then}")?;
    }
    otherwise.iter().try_for_each(|o| write!(f, " else {o}"))?;
    f.write_str(" end")
}

//! Types function calls, aggregates and methods: the geometry functions (`point`, `polygon`, checked
//! for a closed ring of at least 4 points when written as constants, `geometry`), `coalesce`, the
//! aggregates (only where the clause allows them, never nested; over distinct values, and with a filter,
//! which becomes a `CASE` around the argument; `fmin` and `fmax` are `min` and `max` with one; `first`, `last` and
//! `nth` with an index, as the statement's input lets them read its rows, [`Ends`]; the ever forms and `leaving()`,
//! as the input lets rows leave), `prior` (where
//! the statement allows it) and the geometry methods `contains` and `distance`; Java's methods (of `Math`, of a
//! text) are typed in `java`, and `prev` and its kin in `previous`.

use super::super::ast::{Expr, ExprKind, Literal, Name};
use super::super::error::{CepError, did_you_mean};
use super::super::plan::{AggregateCall, AggregateFunction, DataType, Function, PlanExpr, Prior, Value};
use super::expr::{Ends, ExprPlanner, Priors, Typed, common, is_numeric, widen};
use super::scope::unknown;

const FUNCTIONS: [&str; 30] = [
    "point",
    "polygon",
    "geometry",
    "coalesce",
    "avg",
    "count",
    "sum",
    "min",
    "max",
    "stddev",
    "median",
    "avedev",
    "fmin",
    "fmax",
    "first",
    "last",
    "nth",
    "firstever",
    "lastever",
    "minever",
    "maxever",
    "fminever",
    "fmaxever",
    "countever",
    "leaving",
    "rate",
    "prior",
    "prev",
    "prevtail",
    "prevcount",
];

/// Esper's functions outside the subset, refused by name rather than unknown.
const UNSUPPORTED: [&str; 4] = ["prevwindow", "cast", "instanceof", "typeof"];

/// The clauses whose values are read apart from the engine's time: keys, a view's parameters, a variable's value.
const UNTIMED: [&str; 3] = ["GROUP BY", "a view", "a variable's value"];

/// The arguments an "ever" aggregate takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EverArgs {
    /// One (`minever(x)`, `firstever(x)`).
    One,
    /// One and a filter (`fminever(x, f)`).
    Filtered,
    /// `*` or one, and an optional filter (`countever`).
    Counted,
}

/// Esper's "ever" aggregates: the function each is over a data window, and what it takes.
fn ever_function(name: &str) -> Option<(AggregateFunction, EverArgs)> {
    Some(match name {
        "minever" => (AggregateFunction::MinEver, EverArgs::One),
        "maxever" => (AggregateFunction::MaxEver, EverArgs::One),
        "fminever" => (AggregateFunction::MinEver, EverArgs::Filtered),
        "fmaxever" => (AggregateFunction::MaxEver, EverArgs::Filtered),
        "firstever" => (AggregateFunction::FirstEver, EverArgs::One),
        "lastever" => (AggregateFunction::LastEver, EverArgs::One),
        "countever" => (AggregateFunction::CountEver, EverArgs::Counted),
        _ => return None,
    })
}

/// Whether `function` counts rows, and so takes `*`.
fn counts(function: AggregateFunction) -> bool {
    matches!(function, AggregateFunction::Count | AggregateFunction::CountEver)
}

/// What an "ever" aggregate is where no row leaves the group (no data window, a pattern's matches): the plain one.
fn without_window(function: AggregateFunction) -> AggregateFunction {
    match function {
        AggregateFunction::MinEver => AggregateFunction::Min,
        AggregateFunction::MaxEver => AggregateFunction::Max,
        AggregateFunction::CountEver => AggregateFunction::Count,
        other => other,
    }
}

fn aggregate_function(name: &str) -> Option<AggregateFunction> {
    Some(match name {
        "avg" => AggregateFunction::Avg,
        "count" => AggregateFunction::Count,
        "sum" => AggregateFunction::Sum,
        // Esper 5's names for `min` and `max` with a filter, whose two-argument forms are the row's least and greatest.
        "min" | "fmin" => AggregateFunction::Min,
        "max" | "fmax" => AggregateFunction::Max,
        "stddev" => AggregateFunction::Stddev,
        "median" => AggregateFunction::Median,
        "avedev" => AggregateFunction::Avedev,
        _ => return None,
    })
}

impl ExprPlanner<'_> {
    /// A call `name(args)`: `(star, distinct)` say whether it was `f(*)` and `f(distinct x)`.
    pub(super) fn call(
        &mut self,
        e: &Expr,
        name: &Name,
        args: &[Expr],
        (star, distinct): (bool, bool),
    ) -> Result<Typed, CepError> {
        let lower = name.text.to_ascii_lowercase();
        if matches!(lower.as_str(), "max" | "min") && args.len() > 1 && !star && !distinct {
            return self.min_max_of_row(name, &lower, args);
        }
        if matches!(lower.as_str(), "fmax" | "fmin") && (star || args.len() != 2) {
            let message = format!("`{}` takes one argument and, after it, a filter", name.text);
            return Err(self.ctx.invalid(name.span, message));
        }
        if let Some(function) = aggregate_function(&lower) {
            return self.aggregate(name, function, args, (star, distinct));
        }
        if matches!(lower.as_str(), "first" | "last") {
            return self.end(name, &lower, args, star);
        }
        if lower == "nth" {
            return self.nth(name, args, star);
        }
        if lower == "leaving" {
            return self.leaving(name, args, star);
        }
        if let Some(function) = ever_function(&lower) {
            // The parser lets `distinct` into the aggregates that read it only, not these nor `rate`.
            return self.ever(name, function, args, star);
        }
        if lower == "rate" {
            return self.rate(name, args, star);
        }
        if lower == "window" {
            return Err(self.ctx.unsupported(name.span, "the aggregate `window` (its value is a list)"));
        }
        if star {
            return Err(self.ctx.invalid(e.span, format!("only `count(*)` takes `*`, not `{}`", name.text)));
        }
        match lower.as_str() {
            "point" => self.point(e, args),
            "polygon" => self.polygon(e, args),
            "geometry" => {
                let [wkt] = self.arity::<1>(e, name, args)?;
                let (wkt, _) = self.expect_string(wkt)?;
                Ok(geometry_call(Function::Geometry, vec![wkt]))
            }
            "coalesce" => self.coalesce(e, args),
            "current_timestamp" => self.current_timestamp(e, name, args),
            "prior" => self.prior(e, name, args),
            function if Self::is_prev(function) => self.prev(e, name, function, args),
            _ if UNSUPPORTED.contains(&lower.as_str()) => {
                Err(self.ctx.unsupported(name.span, format!("the function `{}`", name.text)))
            }
            _ => Err(unknown(self.ctx, "function", name, did_you_mean(&lower, FUNCTIONS))),
        }
    }

    /// `prior(n, x)`: `n` a constant whole number, `x` a property of the statement's one stream, read as the
    /// property the runtimes set on each event as its view posts it ([`Prior`]).
    fn prior(&mut self, e: &Expr, name: &Name, args: &[Expr]) -> Result<Typed, CepError> {
        match self.priors {
            Priors::Read(_) => {}
            Priors::Unsupported(why) => return Err(self.ctx.unsupported(name.span, format!("`prior` {why}"))),
            Priors::NotHere => {
                let place = self.no_aggregates.unwrap_or("this clause");
                return Err(self.ctx.invalid(name.span, format!("`prior` cannot be used in {place}")));
            }
        }
        let [n, property] = self.arity::<2>(e, name, args)?;
        let n = match &n.kind {
            ExprKind::Literal(Literal::Int(n)) => u32::try_from(*n).ok().filter(|n| *n <= i32::MAX as u32),
            _ => None,
        }
        .ok_or_else(|| self.ctx.invalid(n.span, "`prior` counts back a constant whole number of events, 0 or more"))?;
        let (planned, ty) = self.plan(property)?;
        let (source, column) = match planned {
            PlanExpr::Column { source, name, .. } => (source, name),
            PlanExpr::Row(_) => return Err(self.ctx.unsupported(property.span, "`prior` of a whole event")),
            _ => return Err(self.ctx.invalid(property.span, "`prior` reads a property of the stream")),
        };
        let prior = Prior::new(n, column);
        let column = PlanExpr::Column { source, name: prior.name.clone(), ty: ty.clone() };
        if let Priors::Read(read) = &mut self.priors
            && !read.contains(&prior)
        {
            read.push(prior);
        }
        Ok((column, ty))
    }

    /// `current_timestamp()`: the engine's time when the clause is evaluated, a `long` of milliseconds. Not where a
    /// value is read apart from that time (an aggregate's argument, which Esper reads again as its row leaves; a key;
    /// a view's parameter; a variable's value).
    fn current_timestamp(&mut self, e: &Expr, name: &Name, args: &[Expr]) -> Result<Typed, CepError> {
        self.arity::<0>(e, name, args)?;
        let clause = self.no_aggregates.filter(|clause| UNTIMED.contains(clause));
        if let Some(clause) = clause.or(self.in_aggregate.then_some("an aggregate's argument")) {
            return Err(self.ctx.unsupported(name.span, format!("`current_timestamp` in {clause}")));
        }
        self.reads_clock.get_or_insert(name.span);
        Ok((
            PlanExpr::Call { function: Function::CurrentTimestamp, args: Vec::new(), ty: DataType::Long },
            DataType::Long,
        ))
    }

    fn arity<'e, const N: usize>(&self, e: &Expr, name: &Name, args: &'e [Expr]) -> Result<&'e [Expr; N], CepError> {
        args.try_into().map_err(|_| {
            let message = format!("`{}` takes {N} argument(s), found {}", name.text, args.len());
            self.ctx.invalid(e.span, message)
        })
    }

    fn expect_string(&mut self, e: &Expr) -> Result<Typed, CepError> {
        let (x, ty) = self.plan(e)?;
        if !matches!(ty, DataType::String | DataType::Null) {
            return Err(self.ctx.type_error(e.span, format!("expected a string, found {ty}")));
        }
        Ok((x, ty))
    }

    fn point(&mut self, e: &Expr, args: &[Expr]) -> Result<Typed, CepError> {
        let name = Name { text: "point".to_string(), span: e.span };
        let [x, y] = self.arity::<2>(e, &name, args)?;
        let (x, _) = self.numeric(x, "`point`")?;
        let (y, _) = self.numeric(y, "`point`")?;
        Ok(geometry_call(Function::Point, vec![x, y]))
    }

    fn polygon(&mut self, e: &Expr, args: &[Expr]) -> Result<Typed, CepError> {
        let name = Name { text: "polygon".to_string(), span: e.span };
        let [ring] = self.arity::<1>(e, &name, args)?;
        if let ExprKind::Array(points) = &ring.kind {
            self.check_ring(e, points)?;
        }
        let (planned, ty) = self.plan(ring)?;
        if ty != DataType::Array(Box::new(DataType::Geometry)) {
            let message = format!("`polygon` needs an array of points such as {{point(0, 0), ...}}, found {ty}");
            return Err(self.ctx.type_error(ring.span, message));
        }
        Ok(geometry_call(Function::Polygon, vec![planned]))
    }

    /// A constant ring must have at least 4 points and end where it starts.
    fn check_ring(&self, e: &Expr, points: &[Expr]) -> Result<(), CepError> {
        let polygon_error = |message: String| CepError::Polygon { at: self.ctx.at(e.span), message };
        if points.len() < 4 {
            let message = format!("a polygon needs a closed ring of at least 4 points, found {}", points.len());
            return Err(polygon_error(message));
        }
        let (Some(first), Some(last)) = (constant_point(&points[0]), constant_point(&points[points.len() - 1])) else {
            return Ok(());
        };
        if first != last {
            let message = format!(
                "the ring is not closed: it starts at ({}, {}) but ends at ({}, {})",
                first.0, first.1, last.0, last.1
            );
            return Err(polygon_error(message));
        }
        Ok(())
    }

    fn coalesce(&mut self, e: &Expr, args: &[Expr]) -> Result<Typed, CepError> {
        if args.is_empty() {
            return Err(self.ctx.invalid(e.span, "`coalesce` needs at least one argument"));
        }
        let mut ty = DataType::Null;
        let mut planned = Vec::with_capacity(args.len());
        for a in args {
            let (x, xt) = self.plan(a)?;
            ty = common(&ty, &xt)
                .ok_or_else(|| self.ctx.type_error(a.span, format!("`coalesce` mixes {ty} and {xt}")))?;
            planned.push(x);
        }
        Ok((PlanExpr::Call { function: Function::Coalesce, args: planned, ty: ty.clone() }, ty))
    }

    /// `max(a, b, ...)` or `min(a, b, ...)` of numbers in one row, as Esper's `ExprMinMaxRowNode`: of the widest type
    /// of its arguments.
    fn min_max_of_row(&mut self, name: &Name, lower: &str, args: &[Expr]) -> Result<Typed, CepError> {
        let what = format!("`{}`", name.text);
        let mut ty = DataType::Null;
        let mut planned = Vec::with_capacity(args.len());
        for a in args {
            let (x, xt) = self.numeric(a, &what)?;
            ty = widen(&ty, &xt);
            planned.push(x);
        }
        let function = if lower == "max" { Function::Greatest } else { Function::Least };
        Ok((PlanExpr::Call { function, args: planned, ty: ty.clone() }, ty))
    }

    fn aggregate(
        &mut self,
        name: &Name,
        function: AggregateFunction,
        args: &[Expr],
        (star, distinct): (bool, bool),
    ) -> Result<Typed, CepError> {
        self.aggregate_allowed(name)?;
        let (arg, ty) = match (star, args) {
            (true, []) if function == AggregateFunction::Count => (None, DataType::Long),
            // The runtimes count `count(*)`'s rows in the window; `countever(*)` counts the value 1 of each row.
            (true, []) if function == AggregateFunction::CountEver => {
                (Some(PlanExpr::Literal(Value::Int(1))), DataType::Long)
            }
            (true, [filter]) if counts(function) => {
                let one = PlanExpr::Literal(Value::Int(1));
                (Some(self.filtered(one, DataType::Int, filter)?), DataType::Long)
            }
            (false, [arg, filter @ ..]) if filter.len() <= 1 => {
                self.in_aggregate = true;
                let planned = self.plan(arg);
                self.in_aggregate = false;
                let (planned, arg_ty) = planned?;
                let ty = self.aggregate_type(function, arg, &arg_ty)?;
                match filter {
                    [filter] => (Some(self.filtered(planned, arg_ty, filter)?), ty),
                    _ => (Some(planned), ty),
                }
            }
            _ => {
                let message = format!("`{}` takes one argument and, after it, an optional filter", name.text);
                return Err(self.ctx.invalid(name.span, message));
            }
        };
        Ok(self.aggregate_call(AggregateCall { function, arg, ty, distinct }))
    }

    /// `call`, the statement's aggregate of that index: the same call twice is one aggregate.
    fn aggregate_call(&mut self, call: AggregateCall) -> Typed {
        let ty = call.ty.clone();
        let index = match self.aggregates.iter().position(|a| *a == call) {
            Some(same) => same,
            None => {
                self.aggregates.push(call);
                self.aggregates.len() - 1
            }
        };
        (PlanExpr::Aggregate(index), ty)
    }

    /// `leaving()`: whether a row ever left the statement's data window; false where none leaves. Its argument, the
    /// value 1 of each row, is what the runtimes take out as a row leaves.
    fn leaving(&mut self, name: &Name, args: &[Expr], star: bool) -> Result<Typed, CepError> {
        self.aggregate_allowed(name)?;
        if star || !args.is_empty() {
            return Err(self.ctx.invalid(name.span, format!("`{}` takes no argument", name.text)));
        }
        if let Ends::Unsupported(why) = self.ends {
            return Err(self.not_here(name, why));
        }
        let arg = Some(PlanExpr::Literal(Value::Int(1)));
        Ok(self.aggregate_call(AggregateCall {
            function: AggregateFunction::Leaving,
            arg,
            ty: DataType::Boolean,
            distinct: false,
        }))
    }

    /// Esper's `rate(timestamp[, value])`, its timestamp notation: the timestamp a `long` or a date, the value a number
    /// (an array of the two is the argument), over a data window whose rows leave in the order they came ([`Ends`]), as
    /// `AggregatorRate` reads the row that left last. Its constant notation (`rate(10)`, events a second by the
    /// engine's clock) is refused by name.
    fn rate(&mut self, name: &Name, args: &[Expr], star: bool) -> Result<Typed, CepError> {
        self.aggregate_allowed(name)?;
        let (stamp, value) = match (star, args) {
            (false, [stamp]) => (stamp, None),
            (false, [stamp, value]) => (stamp, Some(value)),
            _ => {
                let message = format!("`{}` takes a timestamp and, after it, an optional value to add up", name.text);
                return Err(self.ctx.invalid(name.span, message));
            }
        };
        if constant_number(stamp).is_some() {
            let construct = format!("`{}` of a number of seconds (events a second by the engine's clock)", name.text);
            return Err(self.ctx.unsupported(stamp.span, construct));
        }
        match self.ends {
            Ends::Window { shuffled: None, .. } => {}
            // Checked against the statement's `GROUP BY` once it is planned.
            Ends::Window { per_key: true, .. } => self.keyed_rate = Some(name.clone()),
            Ends::Window { shuffled: Some(view), .. } => {
                let construct = format!("`{}` over `{view}` (its rows may leave out of arrival order)", name.text);
                return Err(self.ctx.unsupported(name.span, construct));
            }
            Ends::Ever => {
                let message =
                    format!("`{}` of a timestamp needs a data window: it is null until a row left", name.text);
                return Err(self.ctx.invalid(name.span, message));
            }
            Ends::Unordered(why) | Ends::Unsupported(why) => return Err(self.not_here(name, why)),
        }
        self.in_aggregate = true;
        let planned = self.rate_args(name, stamp, value);
        self.in_aggregate = false;
        let arg = Some(planned?);
        let call = AggregateCall { function: AggregateFunction::Rate, arg, ty: DataType::Double, distinct: false };
        Ok(self.aggregate_call(call))
    }

    /// `rate`'s argument: its timestamp, or an array of it and the value.
    fn rate_args(&mut self, name: &Name, stamp: &Expr, value: Option<&Expr>) -> Result<PlanExpr, CepError> {
        let (planned, ty) = self.plan(stamp)?;
        if !matches!(ty, DataType::Long | DataType::Date) || matches!(planned, PlanExpr::Literal(_)) {
            let message =
                format!("`{}` needs a timestamp that each row gives, a `long` or a date, found {ty}", name.text);
            return Err(self.ctx.type_error(stamp.span, message));
        }
        let Some(value) = value else {
            return Ok(planned);
        };
        let (amount, ty) = self.plan(value)?;
        if !is_numeric(&ty) {
            let message = format!("`{}` adds up a number, found {ty}", name.text);
            return Err(self.ctx.type_error(value.span, message));
        }
        Ok(PlanExpr::Array(vec![planned, amount]))
    }

    /// The error of `name` called where the statement's input does not hold it, for the reason given ([`Ends`]).
    fn not_here(&self, name: &Name, why: &str) -> CepError {
        self.ctx.unsupported(name.span, format!("`{}` {why}", name.text))
    }

    /// Whether an aggregate may be called here: not in a clause without them, nor inside another.
    fn aggregate_allowed(&self, name: &Name) -> Result<(), CepError> {
        if let Some(place) = self.no_aggregates {
            return Err(CepError::AggregateNotAllowed { at: self.ctx.at(name.span), name: name.text.clone(), place });
        }
        if self.in_aggregate {
            return Err(self.ctx.invalid(name.span, "aggregate functions cannot be nested"));
        }
        Ok(())
    }

    /// `first(x[, n])` or `last(x[, n])` (`lower`): the value of `x` of one row of the group ([`Ends`]), `n` a whole
    /// number constant counting from the oldest or the newest row (Esper also takes an integer variable there).
    fn end(&mut self, name: &Name, lower: &str, args: &[Expr], star: bool) -> Result<Typed, CepError> {
        self.aggregate_allowed(name)?;
        if star {
            return Err(self.ctx.unsupported(name.span, format!("`{}(*)` (an event as a value)", name.text)));
        }
        let (arg, index) = match args {
            [arg] => (arg, 0),
            [arg, index] => (arg, self.end_index(name, index)?),
            _ => {
                let message = format!("`{}` takes one argument and, after it, an optional index", name.text);
                return Err(self.ctx.invalid(name.span, message));
            }
        };
        let function = match (self.ends, lower == "first") {
            (Ends::Unsupported(why) | Ends::Unordered(why), _) => return Err(self.not_here(name, why)),
            (Ends::Ever, _) if index > 0 => {
                let construct = format!("`{}` with an index over a stream without a data window", name.text);
                return Err(self.ctx.unsupported(name.span, construct));
            }
            (Ends::Window { .. }, true) => AggregateFunction::First(index),
            (Ends::Window { .. }, false) => AggregateFunction::Last(index),
            (Ends::Ever, true) => AggregateFunction::FirstEver,
            (Ends::Ever, false) => AggregateFunction::LastEver,
        };
        self.aggregate(name, function, std::slice::from_ref(arg), (false, false))
    }

    /// `nth(x, n)`: the value of `x` of the group's row `n` places back from its newest (0, the newest), null too, and
    /// null while the group has no such row, as Esper documents its `nth`. Over a data window that is `last(x, n)`;
    /// where no row leaves, the `n`-th newest row ever. Esper 5's `AggregatorNth` clears a row that left one place late
    /// (with `n` rows left in the window it still reads the one that just left); this reads what its documentation
    /// says.
    fn nth(&mut self, name: &Name, args: &[Expr], star: bool) -> Result<Typed, CepError> {
        self.aggregate_allowed(name)?;
        let (false, [arg, index]) = (star, args) else {
            let message = format!("`{}` takes one argument and, after it, an index", name.text);
            return Err(self.ctx.invalid(name.span, message));
        };
        let index = self.end_index(name, index)?;
        let function = match self.ends {
            Ends::Unsupported(why) | Ends::Unordered(why) => return Err(self.not_here(name, why)),
            Ends::Window { .. } => AggregateFunction::Last(index),
            Ends::Ever if index == 0 => AggregateFunction::LastEver,
            Ends::Ever => AggregateFunction::Nth(index),
        };
        self.aggregate(name, function, std::slice::from_ref(arg), (false, false))
    }

    /// An "ever" aggregate (`minever`, `fmaxever`, `firstever`, `countever`, ...): over a data window, one that rows
    /// leaving the window leave as it was (a group's, until it has no row and the statement takes its next); where no
    /// row leaves (no data window, a pattern's matches, a join's rows of one trigger), the plain aggregate. In a join,
    /// not `firstever` and `lastever`, which read an order of its rows the subset does not keep.
    fn ever(
        &mut self,
        name: &Name,
        (function, takes): (AggregateFunction, EverArgs),
        args: &[Expr],
        star: bool,
    ) -> Result<Typed, CepError> {
        self.aggregate_allowed(name)?;
        let (fits, takes_text) = match takes {
            EverArgs::One if !star && args.len() == 2 => {
                return Err(self.ctx.unsupported(name.span, format!("`{}` with a filter", name.text)));
            }
            EverArgs::One => (!star && args.len() == 1, "one argument"),
            EverArgs::Filtered => (!star && args.len() == 2, "one argument and, after it, a filter"),
            EverArgs::Counted => {
                let fits = if star { args.len() <= 1 } else { matches!(args.len(), 1 | 2) };
                (fits, "`*` or one argument and, after it, an optional filter")
            }
        };
        if !fits {
            return Err(self.ctx.invalid(name.span, format!("`{}` takes {takes_text}", name.text)));
        }
        let reads_an_end = matches!(function, AggregateFunction::FirstEver | AggregateFunction::LastEver);
        let function = match self.ends {
            Ends::Unsupported(why) => return Err(self.not_here(name, why)),
            Ends::Unordered(why) if reads_an_end => return Err(self.not_here(name, why)),
            Ends::Ever | Ends::Unordered(_) => without_window(function),
            Ends::Window { .. } => function,
        };
        self.aggregate(name, function, args, (star, false))
    }

    /// The index of `first(x, n)`: a whole number constant from 0.
    fn end_index(&self, name: &Name, index: &Expr) -> Result<u32, CepError> {
        match &index.kind {
            ExprKind::Literal(Literal::Int(n)) if *n >= 0 => u32::try_from(*n)
                .map_err(|_| self.ctx.invalid(index.span, format!("the index of `{}` is too large", name.text))),
            _ => {
                let message = format!("the index of `{}` must be a whole number constant from 0", name.text);
                Err(self.ctx.invalid(index.span, message))
            }
        }
    }

    /// `arg` (of type `ty`) as an aggregate reads it under `filter` (Esper's `sum(x, f)`, `count(*, f)`): `CASE WHEN f
    /// THEN arg END`, null where `f` does not hold, and every aggregate leaves null out. Esper's filtered aggregators
    /// hand their inner one a row's value on entering and on leaving only where the filter holds, which is the same.
    fn filtered(&mut self, arg: PlanExpr, ty: DataType, filter: &Expr) -> Result<PlanExpr, CepError> {
        self.in_aggregate = true;
        let when = self.boolean(filter, "an aggregate's filter");
        self.in_aggregate = false;
        Ok(PlanExpr::Case { operand: None, whens: vec![(when?, arg)], otherwise: None, ty })
    }

    fn aggregate_type(&self, function: AggregateFunction, arg: &Expr, ty: &DataType) -> Result<DataType, CepError> {
        let numeric = is_numeric(ty) || *ty == DataType::Null;
        let result = match function {
            AggregateFunction::Count | AggregateFunction::CountEver => return Ok(DataType::Long),
            f if f.reads_nulls() => ty.clone(),
            AggregateFunction::Avg
            | AggregateFunction::Stddev
            | AggregateFunction::Median
            | AggregateFunction::Avedev
                if numeric =>
            {
                DataType::Double
            }
            AggregateFunction::Sum if numeric => match ty {
                DataType::Int | DataType::Long => DataType::Long,
                _ => DataType::Double,
            },
            AggregateFunction::Min
            | AggregateFunction::Max
            | AggregateFunction::MinEver
            | AggregateFunction::MaxEver
                if numeric || matches!(ty, DataType::String | DataType::Date) =>
            {
                ty.clone()
            }
            _ => {
                return Err(self.ctx.type_error(arg.span, format!("`{function}` needs a number, found {ty}")));
            }
        };
        Ok(result)
    }

    pub(super) fn method(&mut self, target: &Expr, name: &Name, args: &[Expr]) -> Result<Typed, CepError> {
        match self.java_class(target) {
            Some("Math") => return self.math(name, args),
            Some(class) => return self.conversion(class, name, args),
            None => {}
        }
        if let Some(error) = self.unknown_class(target) {
            return Err(error);
        }
        let (t, tt) = self.plan(target)?;
        if tt == DataType::String {
            return self.text_method(t, name, args);
        }
        if tt != DataType::Geometry {
            let message = format!("`.{}(...)` applies to a geometry or a text, found {tt}", name.text);
            return Err(self.ctx.type_error(target.span, message));
        }
        let (function, ty) = match name.text.as_str() {
            "contains" => (Function::Contains, DataType::Boolean),
            "distance" => (Function::Distance, DataType::Double),
            _ => {
                let hint = did_you_mean(&name.text, ["contains", "distance"]);
                let hint =
                    if hint.is_empty() { "; geometries have `contains` and `distance`".to_string() } else { hint };
                return Err(unknown(self.ctx, "geometry method", name, hint));
            }
        };
        let [other] = args else {
            return Err(self.ctx.invalid(name.span, format!("`.{}` takes one geometry argument", name.text)));
        };
        let (o, ot) = self.plan(other)?;
        if !matches!(ot, DataType::Geometry | DataType::Null) {
            return Err(self.ctx.type_error(other.span, format!("`.{}` needs a geometry, found {ot}", name.text)));
        }
        Ok((PlanExpr::Call { function, args: vec![t, o], ty: ty.clone() }, ty))
    }
}

fn geometry_call(function: Function, args: Vec<PlanExpr>) -> Typed {
    (PlanExpr::Call { function, args, ty: DataType::Geometry }, DataType::Geometry)
}

/// `point(x, y)` with constant coordinates.
fn constant_point(e: &Expr) -> Option<(f64, f64)> {
    let ExprKind::Call { name, args, .. } = &e.kind else {
        return None;
    };
    match args.as_slice() {
        [x, y] if name.text.eq_ignore_ascii_case("point") => Some((constant_number(x)?, constant_number(y)?)),
        _ => None,
    }
}

fn constant_number(e: &Expr) -> Option<f64> {
    match &e.kind {
        ExprKind::Literal(Literal::Int(i) | Literal::Long(i)) => Some(*i as f64),
        ExprKind::Literal(Literal::Float(x)) => Some(*x),
        ExprKind::Neg(inner) => constant_number(inner).map(|x| -x),
        _ => None,
    }
}

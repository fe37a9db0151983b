//! Types the Java methods Esper users call: `String`'s on a text (`id.startsWith('Room')`: the text, then arguments of
//! the types Java's method takes; `substring` takes one or two), and `Math`'s (`Math.abs(x)`, `Math.round(x)`,
//! `Math.pow(a, b)`, also as `java.lang.Math`), the arithmetic functions, where `Math` is the class when no
//! property, stream or variable is called that.
//! Each of `Math`'s methods takes numbers (a literal `null` selects no method, as in Esper), and its result has the type of the
//! overload Esper 5's `MethodResolver` selects by the arguments' types: `abs`, `max` and `min` keep their (widened)
//! type, `round` gives an `int` of a `float` and a `long` of anything else (for an `int` or `long`, `round(float)` and
//! `round(double)` tie, and the JDK lists `round(double)` first), `signum` a `float` of a `float`; every other method
//! a `double`.

use super::super::ast::{Expr, ExprKind, Name};
use super::super::error::{CepError, did_you_mean};
use super::super::plan::{DataType, Function, MathFunction, PlanExpr, TextMethod};
use super::expr::{ExprPlanner, Typed, widen};
use super::scope::unknown;

impl ExprPlanner<'_> {
    /// Whether `target` of a method call is Java's `Math`: the bare name, where nothing in scope is called that.
    pub(super) fn is_math_class(&self, target: &Expr) -> bool {
        match &target.kind {
            ExprKind::Property(path) => {
                let names: Vec<&str> = path.iter().map(|n| n.text.as_str()).collect();
                matches!(names.as_slice(), ["Math"] | ["java", "lang", "Math"])
                    && self.scope.resolve(self.ctx, self.catalog, path).is_err()
            }
            _ => false,
        }
    }

    /// `Math.name(args)`.
    pub(super) fn math(&mut self, name: &Name, args: &[Expr]) -> Result<Typed, CepError> {
        let Some((function, arity)) = MathFunction::named(&name.text) else {
            let names = MathFunction::ALL.map(|(_, n, _)| n);
            let hint = match did_you_mean(&name.text, names) {
                none if none.is_empty() => format!("; `Math` has {}", names.join(", ")),
                hint => hint,
            };
            return Err(unknown(self.ctx, "`Math` method", name, hint));
        };
        if args.len() != arity {
            let message = format!("`Math.{}` takes {arity} argument(s), found {}", name.text, args.len());
            return Err(self.ctx.invalid(name.span, message));
        }
        let what = format!("`Math.{}`", name.text);
        let mut planned = Vec::with_capacity(arity);
        let mut types = Vec::with_capacity(arity);
        for a in args {
            let (x, ty) = self.numeric(a, &what)?;
            if ty == DataType::Null {
                return Err(self.ctx.type_error(a.span, format!("{what} needs a number, found null")));
            }
            planned.push(x);
            types.push(ty);
        }
        let ty = result_type(function, &types);
        Ok((PlanExpr::Call { function: Function::Math(function), args: planned, ty: ty.clone() }, ty))
    }

    /// `text.name(args)`, `text` planned already.
    pub(super) fn text_method(&mut self, text: PlanExpr, name: &Name, args: &[Expr]) -> Result<Typed, CepError> {
        let Some((method, takes)) = TextMethod::named(&name.text) else {
            let names = TextMethod::ALL.map(|(_, n, _)| n);
            let hint = match did_you_mean(&name.text, names) {
                none if none.is_empty() => format!("; texts have {}", names.join(", ")),
                hint => hint,
            };
            return Err(unknown(self.ctx, "text method", name, hint));
        };
        let least = if method == TextMethod::Substring { 1 } else { takes.len() };
        if args.len() < least || args.len() > takes.len() {
            let count = if least == takes.len() { least.to_string() } else { format!("{least} or {}", takes.len()) };
            let message = format!("`.{}` takes {count} argument(s), found {}", name.text, args.len());
            return Err(self.ctx.invalid(name.span, message));
        }
        let mut planned = vec![text];
        for (a, ty) in args.iter().zip(takes) {
            let (x, xt) = self.plan(a)?;
            // A `null` passes for a text, as Java passes it for an object (the call then gives null).
            if xt != *ty && !(xt == DataType::Null && *ty == DataType::String) {
                let message = format!("`.{}` needs {} here, found {xt}", name.text, article(ty));
                return Err(self.ctx.type_error(a.span, message));
            }
            planned.push(x);
        }
        let ty = method.result();
        Ok((PlanExpr::Call { function: Function::Text(method), args: planned, ty: ty.clone() }, ty))
    }
}

/// `ty` with its article, as a message names an expected type.
fn article(ty: &DataType) -> String {
    match ty {
        DataType::Int => "an int".into(),
        ty => format!("a {ty}"),
    }
}

/// The type of the overload of `function` Esper selects for arguments of `types`.
fn result_type(function: MathFunction, types: &[DataType]) -> DataType {
    let widest = types.iter().fold(DataType::Null, |ty, t| widen(&ty, t));
    match (function, widest) {
        (MathFunction::Abs | MathFunction::Max | MathFunction::Min, ty) => ty,
        (MathFunction::Round, DataType::Float) => DataType::Int,
        (MathFunction::Round, _) => DataType::Long,
        (MathFunction::Signum, DataType::Float) => DataType::Float,
        _ => DataType::Double,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_take_the_type_of_java_s_overload() {
        use DataType::{Double, Float, Int, Long};
        let cases = [
            (MathFunction::Abs, vec![Int], Int),
            (MathFunction::Max, vec![Int, Long], Long),
            (MathFunction::Min, vec![Int, Double], Double),
            (MathFunction::Round, vec![Double], Long),
            (MathFunction::Round, vec![Int], Long),
            (MathFunction::Round, vec![Float], Int),
            (MathFunction::Signum, vec![Float], Float),
            (MathFunction::Signum, vec![Int], Double),
            (MathFunction::Pow, vec![Int, Int], Double),
            (MathFunction::Floor, vec![Long], Double),
        ];
        for (function, types, expected) in cases {
            assert_eq!(result_type(function, &types), expected, "{function:?} of {types:?}");
        }
    }
}

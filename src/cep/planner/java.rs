//! Types the Java methods Esper users call: `String`'s on a text (`id.startsWith('Room')`: the text, then arguments of
//! the types Java's method takes; `substring` takes one or two), the static conversions of `String`, `Integer`,
//! `Long` and `Double` (`String.valueOf(x)`, `Integer.parseInt(s)`), and `Math`'s (`Math.abs(x)`, `Math.round(x)`,
//! `Math.pow(a, b)`), the arithmetic functions. A class is named bare or in `java.lang` (`java.lang.Math.max`) and is
//! the class where no property, stream or variable is called that.
//!
//! Each of `Math`'s methods takes numbers (a literal `null` selects no method, as in Esper), and its result has the
//! type of the overload Esper 5's `MethodResolver` selects by the arguments' types: `abs`, `max` and `min` keep their
//! (widened) type, `round` gives an `int` of a `float` and a `long` of anything else (for an `int` or `long`,
//! `round(float)` and `round(double)` tie, and the JDK lists `round(double)` first), `signum` a `float` of a `float`;
//! every other method a `double`.

use super::super::ast::{Expr, ExprKind, Name};
use super::super::error::{CepError, did_you_mean};
use super::super::plan::{Conversion, DataType, Function, MathFunction, PlanExpr, TextMethod};
use super::expr::{ExprPlanner, Typed, widen};
use super::scope::unknown;

impl ExprPlanner<'_> {
    /// The Java class `target` of a method call names (`Math`, `String`, `Integer`, `Long`, `Double`), bare or in
    /// `java.lang`, where nothing in scope is called that.
    pub(super) fn java_class(&self, target: &Expr) -> Option<&'static str> {
        let ExprKind::Property(path) = &target.kind else {
            return None;
        };
        let names: Vec<&str> = path.iter().map(|n| n.text.as_str()).collect();
        let class = match names.as_slice() {
            [class] | ["java", "lang", class] => CLASSES.into_iter().find(|c| c == class)?,
            _ => return None,
        };
        self.scope.resolve(self.ctx, self.catalog, path).is_err().then_some(class)
    }

    /// `class.name(args)`, a conversion between texts and values.
    pub(super) fn conversion(&mut self, class: &str, name: &Name, args: &[Expr]) -> Result<Typed, CepError> {
        let Some((conversion, ty)) = Conversion::named(class, &name.text) else {
            let names = Conversion::ALL.into_iter().filter(|(_, c, ..)| *c == class).map(|(_, _, m, _)| m);
            let names: Vec<&str> = names.collect();
            let hint = match did_you_mean(&name.text, names.iter().copied()) {
                none if none.is_empty() => format!("; `{class}` has {}", names.join(", ")),
                hint => hint,
            };
            return Err(unknown(
                self.ctx,
                "method",
                &Name { text: format!("{class}.{}", name.text), ..name.clone() },
                hint,
            ));
        };
        let radix = matches!(conversion, Conversion::IntegerParseInt | Conversion::LongParseLong);
        let (arg, radix) = match args {
            [arg] => (arg, None),
            [arg, base] if radix => (arg, Some(base)),
            _ => {
                let count = if radix { "1 or 2 arguments" } else { "1 argument" };
                let message = format!("`{class}.{}` takes {count}, found {}", name.text, args.len());
                return Err(self.ctx.invalid(name.span, message));
            }
        };
        let (planned, arg_ty) = self.plan(arg)?;
        if !converts(conversion, &arg_ty) {
            let message = format!("`{class}.{}` takes no {arg_ty}", name.text);
            return Err(self.ctx.type_error(arg.span, message));
        }
        let mut planned = vec![planned];
        if let Some(base) = radix {
            let (base_planned, base_ty) = self.plan(base)?;
            if base_ty != DataType::Int {
                let message = format!("`{class}.{}` needs an int radix, found {base_ty}", name.text);
                return Err(self.ctx.type_error(base.span, message));
            }
            planned.push(base_planned);
        }
        Ok((PlanExpr::Call { function: Function::Convert(conversion), args: planned, ty: ty.clone() }, ty))
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

/// The classes whose static methods a statement may call.
const CLASSES: [&str; 5] = ["Math", "String", "Integer", "Long", "Double"];

/// Whether Java's `conversion` has an overload for an argument of type `ty`: `String.valueOf` of a text, number or
/// boolean, `valueOf` of a text or of a number its class holds, `parse…` of a text (`parseInt` and `parseLong` also
/// in a radix); a text may be `null`.
fn converts(conversion: Conversion, ty: &DataType) -> bool {
    use DataType::{Boolean, Double, Float, Int, Long, Null, String};
    match conversion {
        Conversion::StringValueOf => matches!(ty, String | Int | Long | Float | Double | Boolean),
        Conversion::IntegerValueOf => matches!(ty, String | Null | Int),
        Conversion::LongValueOf => matches!(ty, String | Null | Int | Long),
        Conversion::DoubleValueOf => matches!(ty, String | Null | Int | Long | Float | Double),
        Conversion::IntegerParseInt | Conversion::LongParseLong | Conversion::DoubleParseDouble => {
            matches!(ty, String | Null)
        }
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

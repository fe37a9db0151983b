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

    /// The target of a method call that names nothing in scope but reads as a Java class (`java.lang.Boolean`, or
    /// `Float` where no property is near it): the unknown class, or property, it is, with the classes a statement may
    /// call.
    pub(super) fn unknown_class(&self, target: &Expr) -> Option<CepError> {
        let ExprKind::Property(path) = &target.kind else {
            return None;
        };
        let names: Vec<&str> = path.iter().map(|n| n.text.as_str()).collect();
        let classes = format!("; the Java classes a statement may call are {}", CLASSES.join(", "));
        match names.as_slice() {
            ["java", "lang", class] => {
                let name = Name { text: format!("java.lang.{class}"), span: target.span };
                Some(unknown(self.ctx, "class", &name, classes))
            }
            [name] if name.starts_with(|c: char| c.is_ascii_uppercase()) => {
                match self.scope.resolve(self.ctx, self.catalog, path) {
                    Err(CepError::Unknown { at, what: "property", name, hint }) if !hint.contains("did you mean") => {
                        Some(CepError::Unknown {
                            at,
                            what: "property or class",
                            name,
                            hint: format!("{hint}{classes}"),
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `class.name(args)`, a conversion between texts and values.
    pub(super) fn conversion(&mut self, class: &str, name: &Name, args: &[Expr]) -> Result<Typed, CepError> {
        let Some((conversion, ty)) = Conversion::named(class, &name.text) else {
            let names = Conversion::ALL.into_iter().filter(|(_, c, ..)| *c == class).map(|(_, _, m, _)| m);
            return Err(self.unknown_method(class, name, &names.collect::<Vec<_>>()));
        };
        let what = format!("`{class}.{}`", name.text);
        let radix = matches!(conversion, Conversion::IntegerParseInt | Conversion::LongParseLong);
        let (arg, base) = match args {
            [arg] => (arg, None),
            [arg, base] if radix => (arg, Some(base)),
            _ => {
                let count = if radix { "1 or 2 arguments" } else { "1 argument" };
                return Err(self.ctx.invalid(name.span, format!("{what} takes {count}, found {}", args.len())));
            }
        };
        let (planned, arg_ty) = self.plan(arg)?;
        if !converts(conversion, &arg_ty) {
            return Err(self.ctx.type_error(arg.span, format!("{what} takes no {arg_ty}")));
        }
        let mut planned = vec![planned];
        if let Some(base) = base {
            planned.push(self.argument(base, &DataType::Int, &what)?);
        }
        Ok((PlanExpr::Call { function: Function::Convert(conversion), args: planned, ty: ty.clone() }, ty))
    }

    /// `Math.name(args)`.
    pub(super) fn math(&mut self, name: &Name, args: &[Expr]) -> Result<Typed, CepError> {
        let Some((function, arity)) = MathFunction::named(&name.text) else {
            return Err(self.unknown_method("Math", name, &MathFunction::ALL.map(|(_, n, _)| n)));
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
            return Err(unknown(self.ctx, "text method", name, known_or_listed(&name.text, &names, "texts have")));
        };
        let what = format!("`.{}`", name.text);
        let least = if method == TextMethod::Substring { 1 } else { takes.len() };
        if args.len() < least || args.len() > takes.len() {
            let count = if least == takes.len() { least.to_string() } else { format!("{least} or {}", takes.len()) };
            let message = format!("{what} takes {count} argument(s), found {}", args.len());
            return Err(self.ctx.invalid(name.span, message));
        }
        let mut planned = vec![text];
        for (a, ty) in args.iter().zip(takes) {
            planned.push(self.argument(a, ty, &what)?);
        }
        let ty = method.result();
        Ok((PlanExpr::Call { function: Function::Text(method), args: planned, ty: ty.clone() }, ty))
    }

    /// An argument of `what` that Java's method takes as `ty`: a `null` passes for a text, as Java passes it for an
    /// object (the call then gives null), and not for a number.
    fn argument(&mut self, a: &Expr, ty: &DataType, what: &str) -> Result<PlanExpr, CepError> {
        let (x, xt) = self.plan(a)?;
        if xt != *ty && !(xt == DataType::Null && *ty == DataType::String) {
            return Err(self.ctx.type_error(a.span, format!("{what} needs {} here, found {xt}", article(ty))));
        }
        Ok(x)
    }

    /// That `class` has no static method `name`: the near one of `names`, or all of them.
    fn unknown_method(&self, class: &str, name: &Name, names: &[&str]) -> CepError {
        let hint = known_or_listed(&name.text, names, &format!("`{class}` has"));
        unknown(self.ctx, "method", &Name { text: format!("{class}.{}", name.text), ..name.clone() }, hint)
    }
}

/// The hint after an unknown method `name`: the one of `names` it nearly spells, else `names` all, after `owner`.
fn known_or_listed(name: &str, names: &[&str], owner: &str) -> String {
    match did_you_mean(name, names.iter().copied()) {
        none if none.is_empty() => format!("; {owner} {}", names.join(", ")),
        hint => hint,
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

//! Java's `Math` methods as a statement calls them (`Math.abs(x)`, `Math.round(x)`, `Math.pow(a, b)`): each returns
//! what Java's does for the overload the planner chose by the arguments' types (`abs` of an `int` an `int`, `round` of
//! a `double` a `long`), including where IEEE arithmetic or Rust's own methods answer otherwise: `round` takes a half
//! up (`round(-2.5)` is -2), `signum(0.0)` is 0, `max` and `min` of a NaN are NaN and order -0.0 below 0.0, and
//! `pow(x, NaN)` is NaN even for `x` = 1. A null value makes null: Esper's call of a method taking a primitive fails
//! to unbox it, logs that and gives null.

use super::value::Val;
use crate::cep::plan::{DataType, MathFunction};

/// `function` of `args` (as many as it takes), its result of type `ty`.
pub fn apply(function: MathFunction, args: &[&Val], ty: &DataType) -> Val {
    if args.iter().any(|a| a.is_null()) {
        return Val::Null;
    }
    match (function, args) {
        (MathFunction::Abs, [Val::Int(n)]) if whole(ty) => Val::Int(n.wrapping_abs()),
        (MathFunction::Max | MathFunction::Min, [Val::Int(a), Val::Int(b)]) if whole(ty) => {
            Val::Int(if function == MathFunction::Max { *a.max(b) } else { *a.min(b) })
        }
        (MathFunction::Round, [x]) => round(x, ty),
        (_, [x]) => x.as_f64().map_or(Val::Null, |x| Val::Double(unary(function, x))),
        (_, [a, b]) => match (a.as_f64(), b.as_f64()) {
            (Some(a), Some(b)) => Val::Double(binary(function, a, b)),
            _ => Val::Null,
        },
        _ => Val::Null,
    }
}

/// Whether `ty` is Java's `int` or `long`.
fn whole(ty: &DataType) -> bool {
    matches!(ty, DataType::Int | DataType::Long)
}

/// `Math.round`: of a `float` an `int` (`ty`), of anything else a `long` (a whole number through a `double`, as Esper
/// 5 calls `round(double)` for it); a half goes up, NaN is 0, and a value past the type's range is its bound.
fn round(x: &Val, ty: &DataType) -> Val {
    let Some(x) = x.as_f64() else {
        return Val::Null;
    };
    match ty {
        DataType::Int => Val::Int(i64::from(half_up(f64::from(x as f32)) as i32)),
        _ => Val::Int(half_up(x) as i64),
    }
}

/// The whole number nearest `x`, a half going up (`floor(x + 0.5)` computed exactly, as Java's `round` is since
/// Java 7: 0.49999999999999994 rounds to 0); `as` then saturates and takes NaN to 0, as Java does.
fn half_up(x: f64) -> f64 {
    let floor = x.floor();
    if x - floor >= 0.5 { floor + 1.0 } else { floor }
}

fn unary(function: MathFunction, x: f64) -> f64 {
    match function {
        MathFunction::Abs => x.abs(),
        MathFunction::Rint => x.round_ties_even(),
        MathFunction::Floor => x.floor(),
        MathFunction::Ceil => x.ceil(),
        // Rust's `signum` of a zero is one.
        MathFunction::Signum if x == 0.0 || x.is_nan() => x,
        MathFunction::Signum => x.signum(),
        MathFunction::Sqrt => x.sqrt(),
        MathFunction::Cbrt => x.cbrt(),
        MathFunction::Exp => x.exp(),
        MathFunction::Log => x.ln(),
        MathFunction::Log10 => x.log10(),
        MathFunction::Sin => x.sin(),
        MathFunction::Cos => x.cos(),
        MathFunction::Tan => x.tan(),
        MathFunction::Asin => x.asin(),
        MathFunction::Acos => x.acos(),
        MathFunction::Atan => x.atan(),
        MathFunction::ToRadians => x.to_radians(),
        MathFunction::ToDegrees => x.to_degrees(),
        _ => f64::NAN,
    }
}

fn binary(function: MathFunction, a: f64, b: f64) -> f64 {
    match function {
        MathFunction::Max => extreme(a, b, true),
        MathFunction::Min => extreme(a, b, false),
        MathFunction::Pow => pow(a, b),
        MathFunction::Hypot => a.hypot(b),
        MathFunction::Atan2 => a.atan2(b),
        _ => f64::NAN,
    }
}

/// Java's `Math.max` (`greatest`) or `Math.min` of two doubles: NaN when either is, and -0.0 below 0.0.
fn extreme(a: f64, b: f64, greatest: bool) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    let a_first = a.total_cmp(&b).is_ge() == greatest;
    if a_first { a } else { b }
}

/// Java's `Math.pow`, which differs from C's (and Rust's) where the exponent is NaN and where the base is ±1 and the
/// exponent infinite: NaN for both, where C answers 1.
fn pow(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        1.0
    } else if b.is_nan() || (b.is_infinite() && a.abs() == 1.0) {
        f64::NAN
    } else {
        a.powf(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(function: MathFunction, args: &[Val], ty: DataType) -> Val {
        apply(function, &args.iter().collect::<Vec<_>>(), &ty)
    }

    fn double(function: MathFunction, args: &[f64]) -> f64 {
        let args: Vec<Val> = args.iter().map(|x| Val::Double(*x)).collect();
        match call(function, &args, DataType::Double) {
            Val::Double(x) => x,
            other => panic!("{function:?} gave {other:?}"),
        }
    }

    #[test]
    fn round_takes_a_half_up_as_java_s_does() {
        let round = |x: f64| call(MathFunction::Round, &[Val::Double(x)], DataType::Long);
        let cases = [(2.5, 3), (-2.5, -2), (-2.6, -3), (0.49999999999999994, 0), (f64::NAN, 0), (1e300, i64::MAX)];
        for (x, expected) in cases {
            assert_eq!(round(x), Val::Int(expected), "Math.round({x})");
        }
        let of_float = call(MathFunction::Round, &[Val::Double(16_777_217.0)], DataType::Int);
        assert_eq!(of_float, Val::Int(16_777_216), "a float is a float");
        let of_long = call(MathFunction::Round, &[Val::Int(16_777_217)], DataType::Long);
        assert_eq!(of_long, Val::Int(16_777_217), "a long goes through a double");
    }

    #[test]
    fn whole_numbers_stay_whole_and_wrap_as_java_s_do() {
        assert_eq!(call(MathFunction::Abs, &[Val::Int(-4)], DataType::Int), Val::Int(4));
        assert_eq!(call(MathFunction::Abs, &[Val::Int(i64::MIN)], DataType::Long), Val::Int(i64::MIN));
        assert_eq!(call(MathFunction::Max, &[Val::Int(3), Val::Int(-9)], DataType::Long), Val::Int(3));
        assert_eq!(call(MathFunction::Min, &[Val::Int(3), Val::Double(2.5)], DataType::Double), Val::Double(2.5));
    }

    #[test]
    fn doubles_follow_java_where_rust_differs() {
        assert_eq!(double(MathFunction::Signum, &[0.0]).to_bits(), 0.0f64.to_bits());
        assert_eq!(double(MathFunction::Signum, &[-0.0]).to_bits(), (-0.0f64).to_bits());
        assert_eq!(double(MathFunction::Signum, &[-3.0]), -1.0);
        assert!(double(MathFunction::Max, &[f64::NAN, 1.0]).is_nan(), "Rust's max would give 1");
        assert_eq!(double(MathFunction::Max, &[-0.0, 0.0]).to_bits(), 0.0f64.to_bits());
        assert_eq!(double(MathFunction::Min, &[0.0, -0.0]).to_bits(), (-0.0f64).to_bits());
        assert!(double(MathFunction::Pow, &[1.0, f64::NAN]).is_nan(), "C's pow gives 1");
        assert!(double(MathFunction::Pow, &[-1.0, f64::INFINITY]).is_nan());
        assert_eq!(double(MathFunction::Pow, &[f64::NAN, 0.0]), 1.0);
        assert_eq!(double(MathFunction::Pow, &[2.0, 10.0]), 1024.0);
        assert_eq!(double(MathFunction::Rint, &[2.5]), 2.0);
        assert_eq!(double(MathFunction::ToDegrees, &[std::f64::consts::PI]), 180.0);
    }

    #[test]
    fn a_null_argument_makes_null() {
        assert_eq!(call(MathFunction::Pow, &[Val::Double(2.0), Val::Null], DataType::Double), Val::Null);
        assert_eq!(call(MathFunction::Abs, &[Val::Null], DataType::Int), Val::Null);
    }
}

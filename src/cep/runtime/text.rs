//! Java's `String` methods as a statement calls them on a text (`id.startsWith('Room')`, `name.substring(0, 3)`),
//! answering what Java's do: lengths and positions count UTF-16 units, as Java's `char`s (an emoji is two), `trim`
//! takes off the characters up to the space (not other Unicode spaces), and `equalsIgnoreCase` compares character by
//! character. A null text or argument makes null, and so does a `substring` out of the text's range: Esper logs
//! the exception Java throws for both and gives null. And Java's conversions between texts and values:
//! `String.valueOf` writes a number as Java does (`10.0`, `1.0E7`), `Integer.parseInt`, `Long.parseLong` and
//! `Double.parseDouble` (and their `valueOf`) read what Java's read, and give null where Java's throw. A null gives
//! null, also to `String.valueOf` of a text, which Java writes `null`.

use super::eval::java_text;
use super::value::Val;
use crate::cep::plan::{Conversion, TextMethod};

/// `method` of `text` with `args`, as many as the planner let it take.
pub fn apply(method: TextMethod, text: &Val, args: &[&Val]) -> Val {
    let Val::String(text) = text else {
        return Val::Null;
    };
    let text = text.as_str();
    match (method, args) {
        (TextMethod::Length, []) => Val::Int(units(text) as i64),
        (TextMethod::IsEmpty, []) => Val::Bool(text.is_empty()),
        (TextMethod::ToUpperCase, []) => Val::String(text.to_uppercase().into()),
        (TextMethod::ToLowerCase, []) => Val::String(text.to_lowercase().into()),
        (TextMethod::Trim, []) => Val::String(text.trim_matches(|c| c <= ' ').into()),
        (TextMethod::Substring, [begin]) => substring(text, begin, None),
        (TextMethod::Substring, [begin, end]) => substring(text, begin, Some(end)),
        (_, [Val::String(other)]) => with_text(method, text, other),
        (TextMethod::Replace, [Val::String(from), Val::String(to)]) => Val::String(text.replace(&**from, to).into()),
        _ => Val::Null,
    }
}

/// `conversion` of `value`: a text read as a number (`parseInt` and `parseLong` in `radix`, when given), or
/// (`valueOf`) a value written as a text or widened.
pub fn convert(conversion: Conversion, value: &Val, radix: Option<&Val>) -> Val {
    if let Some(radix) = radix {
        return match (value, radix.as_long().and_then(|r| u32::try_from(r).ok())) {
            (Val::String(s), Some(radix @ 2..=36)) => parse_in(conversion, s, radix),
            _ => Val::Null,
        };
    }
    match (conversion, value) {
        (Conversion::StringValueOf, Val::String(_)) => value.clone(),
        (Conversion::StringValueOf, Val::Int(n)) => Val::String(n.to_string().into()),
        (Conversion::StringValueOf, Val::Double(x)) => Val::String(java_text(*x).into()),
        (Conversion::StringValueOf, Val::Bool(b)) => Val::String(b.to_string().into()),
        (Conversion::IntegerValueOf | Conversion::LongValueOf, Val::Int(_)) => value.clone(),
        (Conversion::DoubleValueOf, Val::Int(n)) => Val::Double(*n as f64),
        (Conversion::DoubleValueOf, Val::Double(_)) => value.clone(),
        (Conversion::IntegerValueOf | Conversion::IntegerParseInt, Val::String(s)) => {
            s.parse::<i32>().map_or(Val::Null, |n| Val::Int(n.into()))
        }
        (Conversion::LongValueOf | Conversion::LongParseLong, Val::String(s)) => {
            s.parse::<i64>().map_or(Val::Null, Val::Int)
        }
        (Conversion::DoubleValueOf | Conversion::DoubleParseDouble, Val::String(s)) => {
            parse_double(s).map_or(Val::Null, Val::Double)
        }
        _ => Val::Null,
    }
}

/// `Integer.parseInt(s, radix)` or `Long.parseLong(s, radix)`.
fn parse_in(conversion: Conversion, text: &str, radix: u32) -> Val {
    match conversion {
        Conversion::IntegerParseInt => i32::from_str_radix(text, radix).map_or(Val::Null, |n| Val::Int(n.into())),
        _ => i64::from_str_radix(text, radix).map_or(Val::Null, Val::Int),
    }
}

/// Java's `Double.parseDouble` of decimal texts: spaces and controls around it ignored, a sign, `NaN` and
/// `Infinity` as Java writes them, and a type suffix (`1.5d`, `2f`); not Rust's `inf` or `nan`, nor (here) Java's
/// hexadecimal forms.
fn parse_double(text: &str) -> Option<f64> {
    let text = text.trim_matches(|c| c <= ' ');
    let (sign, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, text.strip_prefix('+').unwrap_or(text)),
    };
    match unsigned {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(sign * f64::INFINITY),
        _ => {}
    }
    let digits = unsigned.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(unsigned);
    // One sign only, taken above: what follows starts with a digit or the point.
    let decimal = digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && digits.chars().any(|c| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    decimal.then(|| digits.parse::<f64>().ok()).flatten().map(|x| sign * x)
}

/// A method taking one text.
fn with_text(method: TextMethod, text: &str, other: &str) -> Val {
    match method {
        TextMethod::StartsWith => Val::Bool(text.starts_with(other)),
        TextMethod::EndsWith => Val::Bool(text.ends_with(other)),
        TextMethod::Contains => Val::Bool(text.contains(other)),
        TextMethod::EqualsIgnoreCase => Val::Bool(equals_ignore_case(text, other)),
        TextMethod::IndexOf => Val::Int(text.find(other).map_or(-1, |at| units(&text[..at]) as i64)),
        TextMethod::Concat => Val::String([text, other].concat().into()),
        _ => Val::Null,
    }
}

/// How many UTF-16 units `text` takes, Java's `length()`.
fn units(text: &str) -> usize {
    text.encode_utf16().count()
}

/// Java's `substring(begin[, end])` in UTF-16 units; null where Java throws (a bound out of the text, or `end` before
/// `begin`). A bound that splits a pair of surrogates leaves a replacement character where Java leaves half the pair.
fn substring(text: &str, begin: &Val, end: Option<&&Val>) -> Val {
    let utf16: Vec<u16> = text.encode_utf16().collect();
    let bound = |v: &Val| v.as_long().and_then(|n| usize::try_from(n).ok());
    let (Some(begin), Some(end)) = (bound(begin), end.map_or(Some(utf16.len()), |e| bound(e))) else {
        return Val::Null;
    };
    match begin <= end && end <= utf16.len() {
        true => Val::String(String::from_utf16_lossy(&utf16[begin..end]).into()),
        false => Val::Null,
    }
}

/// Java's `equalsIgnoreCase`: as many characters, each pair equal, equal in upper case or equal in lower case (by the
/// one-character mappings Java's `Character` makes).
fn equals_ignore_case(a: &str, b: &str) -> bool {
    let (upper, lower) = (|c: char| single(c.to_uppercase(), c), |c: char| single(c.to_lowercase(), c));
    a.chars().count() == b.chars().count()
        && a.chars().zip(b.chars()).all(|(x, y)| x == y || upper(x) == upper(y) || lower(x) == lower(y))
}

/// The one character `mapped` makes of `c`, or `c` itself where it makes several (`ß` upper-cased is `SS`).
fn single(mut mapped: impl Iterator<Item = char>, c: char) -> char {
    match (mapped.next(), mapped.next()) {
        (Some(m), None) => m,
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Val {
        Val::String(s.into())
    }

    fn call(method: TextMethod, on: &str, args: &[Val]) -> Val {
        apply(method, &text(on), &args.iter().collect::<Vec<_>>())
    }

    #[test]
    fn lengths_and_positions_count_java_s_utf16_units() {
        assert_eq!(call(TextMethod::Length, "Room1", &[]), Val::Int(5));
        assert_eq!(call(TextMethod::Length, "a😀", &[]), Val::Int(3), "an emoji is two units");
        assert_eq!(call(TextMethod::IndexOf, "😀ab", &[text("b")]), Val::Int(3));
        assert_eq!(call(TextMethod::IndexOf, "ab", &[text("c")]), Val::Int(-1));
        assert_eq!(call(TextMethod::Substring, "😀ab", &[Val::Int(2)]), text("ab"));
        assert_eq!(call(TextMethod::Substring, "Room12", &[Val::Int(4), Val::Int(6)]), text("12"));
    }

    #[test]
    fn what_java_throws_for_is_null() {
        assert_eq!(call(TextMethod::Substring, "abc", &[Val::Int(4)]), Val::Null);
        assert_eq!(call(TextMethod::Substring, "abc", &[Val::Int(2), Val::Int(1)]), Val::Null);
        assert_eq!(call(TextMethod::Substring, "abc", &[Val::Int(-1)]), Val::Null);
        assert_eq!(call(TextMethod::StartsWith, "abc", &[Val::Null]), Val::Null);
        assert_eq!(apply(TextMethod::Length, &Val::Null, &[]), Val::Null);
    }

    #[test]
    fn conversions_read_and_write_as_java_s_do() {
        let of = |c, v: Val| convert(c, &v, None);
        assert_eq!(of(Conversion::StringValueOf, Val::Double(10.0)), text("10.0"));
        assert_eq!(of(Conversion::StringValueOf, Val::Double(1e7)), text("1.0E7"));
        assert_eq!(of(Conversion::StringValueOf, Val::Int(17)), text("17"));
        assert_eq!(of(Conversion::IntegerParseInt, text("+42")), Val::Int(42));
        assert_eq!(of(Conversion::IntegerParseInt, text("2147483648")), Val::Null, "past an int");
        assert_eq!(of(Conversion::LongParseLong, text("2147483648")), Val::Int(2_147_483_648));
        assert_eq!(of(Conversion::IntegerValueOf, text(" 1")), Val::Null, "no spaces in an int");
        assert_eq!(of(Conversion::DoubleParseDouble, text(" 1.5d ")), Val::Double(1.5));
        assert_eq!(of(Conversion::DoubleParseDouble, text("-Infinity")), Val::Double(f64::NEG_INFINITY));
        assert_eq!(of(Conversion::DoubleParseDouble, text("inf")), Val::Null, "Rust's, not Java's");
        assert_eq!(of(Conversion::DoubleParseDouble, text("1e3")), Val::Double(1000.0));
        assert_eq!(of(Conversion::DoubleParseDouble, text("+-5")), Val::Null, "one sign");
        assert_eq!(of(Conversion::DoubleParseDouble, text("-.5e-1")), Val::Double(-0.05));
        assert_eq!(of(Conversion::DoubleValueOf, Val::Int(3)), Val::Double(3.0));
        assert_eq!(of(Conversion::StringValueOf, Val::Null), Val::Null);
        let in_radix = |text: &str, radix| convert(Conversion::LongParseLong, &self::text(text), Some(&radix));
        assert_eq!(in_radix("-ff", Val::Int(16)), Val::Int(-255));
        assert_eq!(in_radix("123", Val::Int(10)), Val::Int(123));
        assert_eq!(in_radix("12", Val::Int(37)), Val::Null, "no radix past 36");
    }

    #[test]
    fn texts_change_and_compare_as_java_s_do() {
        assert_eq!(call(TextMethod::Trim, "\t a b \u{a0}\n", &[]), text("a b \u{a0}"), "only up to the space");
        assert_eq!(call(TextMethod::ToUpperCase, "straße", &[]), text("STRASSE"));
        assert_eq!(call(TextMethod::Replace, "ab", &[text(""), text("-")]), text("-a-b-"));
        assert_eq!(call(TextMethod::EqualsIgnoreCase, "ROOM", &[text("room")]), Val::Bool(true));
        assert_eq!(call(TextMethod::EqualsIgnoreCase, "ß", &[text("SS")]), Val::Bool(false));
        assert_eq!(call(TextMethod::Contains, "Room12", &[text("m1")]), Val::Bool(true));
        assert_eq!(call(TextMethod::Concat, "Room", &[text("12")]), text("Room12"));
    }
}

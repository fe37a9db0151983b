//! Java's `String` methods as a statement calls them on a text (`id.startsWith('Room')`, `name.substring(0, 3)`),
//! answering what Java's do: lengths and positions count UTF-16 units, as Java's `char`s (an emoji is two), `trim`
//! takes off the characters up to the space (not other Unicode spaces), and `equalsIgnoreCase` compares character by
//! character. A null text or argument makes null, and so does a `substring` out of the text's range: Esper logs
//! the exception Java throws for both and gives null.

use super::value::Val;
use crate::cep::plan::TextMethod;

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

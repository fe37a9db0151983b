//! The key per-key state is filed under: a pattern's automata, a query's groups, a named window's rows, the rows of a
//! join's lookup view by view key. A text value is its own key, taken from the value rather than formatted, which is
//! the common case (ids, floors); any other value, a text starting with [`MARK`], and several values are [`MARK`]
//! followed by their stable text forms ([`Val::key`]). So two keys are equal exactly when the values' text forms are,
//! and reading a text key allocates nothing.

use crate::cep::plan::PlanExpr;
use crate::cep::runtime::Val;
use crate::cep::runtime::eval::{Scope, eval};
use crate::cep::runtime::value::Text;

/// A state key.
pub type Key = Text;

/// What starts a key that is not a text value as it is.
const MARK: char = '\0';

/// The key of one value.
pub fn of(value: Val) -> Key {
    match value {
        Val::String(text) if !text.starts_with(MARK) => text,
        other => format!("{MARK}{}", other.key()).into(),
    }
}

/// The key of the values of `exprs` in `scope` (of no expressions, the empty text).
pub fn of_all(exprs: &[PlanExpr], scope: &Scope<'_>) -> Key {
    of_values(exprs.len(), exprs.iter().map(|e| eval(e, scope)))
}

/// The key [`of`] would make of `value`, borrowed, when it is a text that is its own key: a lookup by it needs no key
/// made and dropped.
pub fn own_text(value: &Val) -> Option<&str> {
    match value {
        Val::String(text) if is_text(text) => Some(text.as_str()),
        _ => None,
    }
}

/// The key of `count` values: one value's own key, several values' text forms joined (none, the empty text).
pub fn of_values(count: usize, mut values: impl Iterator<Item = Val>) -> Key {
    match count {
        0 => Key::from(""),
        1 => of(values.next().unwrap_or_default()),
        _ => {
            let keys: Vec<String> = values.map(|v| v.key()).collect();
            format!("{MARK}{}", keys.join("\u{1f}")).into()
        }
    }
}

/// Whether `key` is a text value as it is.
pub fn is_text(key: &str) -> bool {
    !key.starts_with(MARK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_whose_text_forms_differ_never_share_a_key() {
        let values = [
            Val::String("1".into()),
            Val::Int(1),
            Val::String("Int(1)".into()),
            Val::Null,
            Val::String("Null".into()),
            Val::String("\0Int(1)".into()),
        ];
        let keys: Vec<Key> = values.iter().cloned().map(of).collect();
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(is_text(&keys[0]) && !is_text(&keys[1]) && !is_text(&keys[5]));
        for value in &values {
            let own = own_text(value);
            assert_eq!(own, Some(of(value.clone())).filter(|k| is_text(k)).as_deref(), "{value:?}");
        }
    }

    #[test]
    fn a_text_key_is_the_value_and_a_long_one_shares_its_text() {
        let short = Text::from("Tracker1");
        assert_eq!(of(Val::String(short.clone())), short);
        let long = Text::from("urn:ngsi-ld:Tracker:0000000001");
        assert!(long.is_heap_allocated());
        assert_eq!(of(Val::String(long.clone())).as_ptr(), long.as_ptr(), "no copy of the text");
    }
}

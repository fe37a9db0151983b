//! Esper's `regexp`: whether a Java regular expression matches a whole text (Java's `Matcher.matches`), with the
//! `regex` crate. Its syntax is Java's for what statements usually write (classes, quantifiers, groups,
//! alternation, `(?i)`); what it lacks (back-references, look-around, possessive quantifiers) does not compile, and a
//! configuration with such a pattern written as text is refused. Unlike Java's, `\d`, `\w` and `\s` also match
//! non-ASCII digits, letters and spaces. Patterns are compiled once per thread and kept, up to [`KEPT`] of them, so a
//! statement's pattern is not compiled per event.

use std::cell::RefCell;
use std::collections::HashMap;

use regex::Regex;

/// How many compiled patterns a thread keeps; past that it forgets them all and starts again.
const KEPT: usize = 256;

thread_local! {
    static COMPILED: RefCell<HashMap<Box<str>, Option<Regex>>> = RefCell::new(HashMap::new());
}

/// `pattern` compiled to match a whole text, or why it does not compile.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    // Checked alone first: wrapped, an unbalanced `a)(b` would compile as two groups.
    Regex::new(pattern)?;
    Regex::new(&format!(r"\A(?:{pattern})\z"))
}

/// What is wrong with a pattern, in one line: the `regex` crate's message ends with it, after the pattern and a caret.
pub fn reason(error: &regex::Error) -> String {
    let text = error.to_string();
    let last = text.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or(&text);
    last.trim().trim_start_matches("error: ").to_string()
}

/// Whether `pattern` matches the whole of `text`; `None` when the pattern does not compile.
pub fn matches(text: &str, pattern: &str) -> Option<bool> {
    COMPILED.with_borrow_mut(|compiled| {
        if !compiled.contains_key(pattern) {
            if compiled.len() >= KEPT {
                compiled.clear();
            }
            compiled.insert(pattern.into(), compile(pattern).ok());
        }
        compiled[pattern].as_ref().map(|regex| regex.is_match(text))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_matches_the_whole_text_as_java_s_matches_does() {
        assert_eq!(matches("E1", "E[0-9]"), Some(true));
        assert_eq!(matches("xE1", "E[0-9]"), Some(false), "not found inside");
        assert_eq!(matches("E12", "E[0-9]"), Some(false));
        assert_eq!(matches("ab", "a|ab"), Some(true), "the alternation is anchored as a whole");
        assert_eq!(matches("ROOM1", "(?i)room[0-9]+"), Some(true));
    }

    #[test]
    fn what_does_not_compile_matches_nothing() {
        assert!(compile("a)(b").is_err(), "unbalanced, though wrapped it would compile");
        let error = compile(r"(a)\1").expect_err("no back-references");
        assert_eq!(reason(&error), "backreferences are not supported");
        assert_eq!(matches("aa", r"(a)\1"), None);
    }

    #[test]
    fn past_the_kept_patterns_the_cache_starts_again() {
        for i in 0..KEPT + 3 {
            assert_eq!(matches(&format!("n{i}"), &format!("n{i}")), Some(true));
        }
        assert!(COMPILED.with_borrow(|compiled| compiled.len() <= KEPT));
    }
}

//! Turns a pest failure into a [`CepError`] in human words: grammar rule names never reach the
//! user. It recognises three cases worth their own message: an unknown keyword (a misspelt `SELECT`),
//! an Esper construct outside Fluxgate's subset (`LIMIT`, subqueries, ...) and the generic
//! "expected ..., found ...".

use pest::error::{Error, ErrorVariant, InputLocation};

use super::super::ast::Span;
use super::super::error::{CepError, Position, did_you_mean};
use super::Rule;

/// Esper words that are valid Esper but outside the subset, with the construct they start.
const UNSUPPORTED: [(&str, &str); 14] = [
    ("limit", "`LIMIT`"),
    ("match_recognize", "`MATCH_RECOGNIZE`"),
    ("context", "a context (`CONTEXT`)"),
    ("schema", "`CREATE SCHEMA`"),
    ("table", "a table (`CREATE TABLE`)"),
    ("index", "`CREATE INDEX`"),
    ("expression", "`CREATE EXPRESSION`"),
    ("until", "the pattern operator `until`"),
    ("while", "the pattern guard `while`"),
    ("exists", "an `EXISTS` subquery"),
    ("any", "an `ANY` subquery"),
    ("some", "a `SOME` subquery"),
    ("constant", "a constant variable (`CREATE CONSTANT VARIABLE`)"),
    ("for", "the `FOR` delivery clause"),
];

/// The words a statement can start with.
const STATEMENT_KEYWORDS: [&str; 4] = ["SELECT", "INSERT", "CREATE", "ON"];

pub fn to_error(statement: usize, text: &str, error: &Error<Rule>) -> CepError {
    let pos = match error.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let word = word_at(text, pos);
    let at = |start: usize, len: usize| Position::locate(statement, text, Span::new(start, start + len.max(1)));
    if let Some((start, construct)) = unsupported_near(text, pos) {
        return unsupported(at(start, construct.0.len()), construct.1);
    }
    let expected = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => describe_all(positives),
        ErrorVariant::CustomError { message } => vec![message.clone()],
    };
    if let Some((start, before, hint)) = misspelt_before(text, pos, word, &expected) {
        return CepError::UnknownKeyword { at: at(start, before.len()), word: before.to_string(), hint };
    }
    classify(at(pos, word.len()), text, pos, word, &expected)
}

fn classify(at: Position, text: &str, pos: usize, word: &str, expected: &[String]) -> CepError {
    if word.eq_ignore_ascii_case("select") && text[..pos].trim_end().ends_with('(') {
        return unsupported(at, "a subquery");
    }
    let at_start = text[..pos].trim().is_empty();
    let keywords: Vec<&str> = if at_start { STATEMENT_KEYWORDS.to_vec() } else { keywords(expected) };
    let is_word = word.starts_with(|c: char| c.is_ascii_alphabetic());
    if is_word && !keywords.is_empty() {
        let hint = did_you_mean(word, keywords.iter().copied());
        if !hint.is_empty() || at_start {
            let hint = if hint.is_empty() { format!("; expected {}", list(expected)) } else { hint };
            return CepError::UnknownKeyword { at, word: word.to_string(), hint };
        }
    }
    let found = if word.is_empty() { "the end of the statement".to_string() } else { format!("`{word}`") };
    CepError::Syntax { at, message: format!("expected {}, found {found}", list(expected)) }
}

/// The keywords among what the parser expected.
fn keywords(expected: &[String]) -> Vec<&str> {
    expected
        .iter()
        .filter_map(|e| e.strip_prefix('`')?.strip_suffix('`'))
        .filter(|k| k.chars().all(|c| c.is_ascii_alphabetic()))
        .collect()
}

/// The word just before `pos` when it reads as a misspelt keyword that the parser expected at `pos` and `word` does
/// not: `SELECT price FORM S` takes `FORM` for the column's name (`AS` is optional), then expects `FROM` at `S`.
fn misspelt_before<'t>(text: &'t str, pos: usize, word: &str, expected: &[String]) -> Option<(usize, &'t str, String)> {
    let keywords = keywords(expected);
    if keywords.is_empty() || !did_you_mean(word, keywords.iter().copied()).is_empty() {
        return None;
    }
    let (start, before) = word_before(text, pos);
    let hint = did_you_mean(before, keywords.iter().copied());
    (!hint.is_empty()).then_some((start, before, hint))
}

/// The word that ends where the blanks before `pos` begin, and where it starts.
fn word_before(text: &str, pos: usize) -> (usize, &str) {
    let before = text[..pos].trim_end();
    let start = before
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    (start, &before[start..])
}

/// An unsupported Esper word at `pos` or just before it: a syntax error there is its doing.
fn unsupported_near(text: &str, pos: usize) -> Option<(usize, &'static (&'static str, &'static str))> {
    let here = word_at(text, pos);
    [(pos, here), word_before(text, pos)].into_iter().find_map(|(at, word)| {
        let lower = word.to_ascii_lowercase();
        UNSUPPORTED.iter().find(|(w, _)| *w == lower).map(|c| (at, c))
    })
}

fn unsupported(at: Position, construct: &str) -> CepError {
    CepError::Unsupported { at, construct: construct.to_string() }
}

/// The word (or single symbol) starting at `pos`; empty at the end of the text.
fn word_at(text: &str, pos: usize) -> &str {
    let rest = &text[pos.min(text.len())..];
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let len = match rest.chars().next() {
        None => 0,
        Some(c) if is_word(c) => rest.find(|c: char| !is_word(c)).unwrap_or(rest.len()),
        Some(c) => c.len_utf8(),
    };
    &rest[..len]
}

fn describe_all(rules: &[Rule]) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for w in rules.iter().map(|r| describe(*r)) {
        if !words.contains(&w) {
            words.push(w);
        }
    }
    words
}

/// "a, b or c".
fn list(items: &[String]) -> String {
    match items {
        [] => "something else".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The human word for a grammar rule.
fn describe(rule: Rule) -> String {
    let name = format!("{rule:?}");
    match rule {
        Rule::kw_group => return "`GROUP BY`".to_string(),
        Rule::kw_order => return "`ORDER BY`".to_string(),
        _ => {}
    }
    if let Some(keyword) = name.strip_prefix("kw_") {
        return format!("`{}`", keyword.to_ascii_uppercase());
    }
    describe_token(rule).to_string()
}

fn describe_token(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "the end of the statement",
        Rule::statement | Rule::create_variable | Rule::create_window | Rule::select_stmt => {
            "a statement (SELECT, INSERT INTO, CREATE or ON)"
        }
        Rule::on_merge | Rule::on_delete | Rule::on_update => "`MERGE`, `DELETE` or `UPDATE`",
        Rule::name | Rule::plain_name | Rule::quoted_name | Rule::alias => "a name",
        Rule::number => "a number",
        Rule::string | Rule::sq_text | Rule::dq_text => "a string",
        Rule::cmp_op | Rule::compare => "a comparison operator",
        Rule::add_op | Rule::mul_op => "an arithmetic operator",
        Rule::concat_op => "`||`",
        Rule::time_period => "a time period such as `10 sec`",
        Rule::time_unit => "a time unit (msec, sec, min, hour or day)",
        Rule::minus => "`-`",
        Rule::followed_by => "`->`",
        Rule::view | Rule::view_arg => "a view such as `.win:time(10 sec)`",
        Rule::filter_args => "a filter in parentheses",
        Rule::join | Rule::join_kind | Rule::comma_join => "a join",
        Rule::select_list | Rule::select_item | Rule::expr_item => "a select item",
        Rule::wildcard | Rule::count_star => "`*`",
        Rule::stream_wildcard => "`stream.*`",
        Rule::source | Rule::stream_ref | Rule::from_clause => "a stream",
        Rule::pattern_source => "`PATTERN`",
        Rule::pattern
        | Rule::pat_or
        | Rule::pat_and
        | Rule::pat_unary
        | Rule::pat_guarded
        | Rule::pat_atom
        | Rule::pat_filter
        | Rule::observer => "a pattern",
        Rule::timer_interval => "`timer:interval(...)`",
        Rule::timer_within => "`timer:within(...)`",
        Rule::merge_clause | Rule::merge_insert | Rule::merge_matched => "`WHEN`",
        Rule::assignment | Rule::assignments => "an assignment such as `name = value`",
        Rule::output_kind => "`LAST`, `FIRST`, `ALL` or `SNAPSHOT`",
        Rule::array => "`{`",
        Rule::method_call => "a method call",
        Rule::where_clause => "`WHERE`",
        Rule::group_by => "`GROUP BY`",
        Rule::having => "`HAVING`",
        Rule::output_clause => "`OUTPUT`",
        Rule::output_after => "`AFTER`",
        Rule::order_by => "`ORDER BY`",
        Rule::insert_into => "`INSERT INTO`",
        Rule::stream_selector => "`IRSTREAM`",
        Rule::unidirectional => "`UNIDIRECTIONAL`",
        Rule::case_when => "`WHEN`",
        Rule::case_else => "`ELSE`",
        Rule::is_null => "`IS`",
        Rule::in_list | Rule::in_range => "`IN`",
        Rule::between => "`BETWEEN`",
        Rule::like => "`LIKE`",
        Rule::regexp => "`REGEXP`",
        Rule::merge_cond => "`AND`",
        Rule::merge_update | Rule::merge_delete => "`UPDATE` or `DELETE`",
        Rule::on_source => "a stream",
        Rule::paren => "`(`",
        _ => "an expression",
    }
}

//! Every error the CEP front end reports, in human words: configuration shape, syntax and meaning.
//! A statement error carries a [`Position`] (statement number, line, column and the source line
//! with a caret), so the same value renders for the terminal and as the `details` of the CEP API's
//! 400. This module decides wording and layout only; it never decides whether something is an error.

use std::fmt;

use super::ast::Span;

/// Lines longer than this are clipped around the caret in excerpts.
const EXCERPT_WIDTH: usize = 100;
/// Characters kept before the caret when a line is clipped.
const EXCERPT_BEFORE: usize = 60;

/// Where a problem is: statement number (1-based, in configuration order), line and column
/// (1-based, in characters), and the offending line with the caret under the span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub statement: usize,
    pub line: usize,
    pub column: usize,
    pub span: (usize, usize),
    excerpt: Box<Excerpt>,
}

/// The offending line (clipped when long) and where the caret goes in it, in characters.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Excerpt {
    text: String,
    caret_at: usize,
    caret_len: usize,
}

impl Position {
    /// Locates `span` (byte offsets into `text`) in statement number `statement`.
    pub fn locate(statement: usize, text: &str, span: Span) -> Self {
        let start = floor_char_boundary(text, span.start.min(text.len()));
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line_text = &text[line_start..line_end];
        let column = text[line_start..start].chars().count() + 1;
        let end = floor_char_boundary(text, span.end.clamp(start, line_end));
        let span_chars = text[start..end].chars().count().max(1);
        let (text_clipped, caret_at) = clip(line_text, column - 1);
        let caret_len = span_chars.min(EXCERPT_WIDTH.saturating_sub(caret_at)).max(1);
        Self {
            statement,
            line: text[..start].matches('\n').count() + 1,
            column,
            span: (span.start, span.end),
            excerpt: Box::new(Excerpt { text: text_clipped, caret_at, caret_len }),
        }
    }

    /// The source line and a caret line under the span.
    pub fn excerpt(&self) -> String {
        let gutter = self.line.to_string();
        let pad = " ".repeat(gutter.len());
        format!(
            "{pad} |\n{gutter} | {}\n{pad} | {}{}",
            self.excerpt.text,
            " ".repeat(self.excerpt.caret_at),
            "^".repeat(self.excerpt.caret_len)
        )
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "statement {}, line {}, column {}", self.statement, self.line, self.column)
    }
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// Clips a long line to a window around `caret` (a char index); returns the text and the caret's
/// char index in it.
fn clip(line: &str, caret: usize) -> (String, usize) {
    let chars = line.chars().count();
    if chars <= EXCERPT_WIDTH {
        return (line.to_string(), caret);
    }
    let from = caret.saturating_sub(EXCERPT_BEFORE);
    let text: String = line.chars().skip(from).take(EXCERPT_WIDTH).collect();
    let lead = if from > 0 { "…" } else { "" };
    let tail = if from + EXCERPT_WIDTH < chars { "…" } else { "" };
    (format!("{lead}{text}{tail}"), caret - from + lead.len().min(1))
}

/// A problem with a CEP configuration or one of its statements.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CepError {
    #[error("the configuration is not valid: {message}")]
    Json { message: String },
    #[error("{message}")]
    Config { message: String },
    #[error("{at}: the statement is empty")]
    EmptyStatement { at: Position },
    #[error("{at}: the statement is {len} bytes long; the limit is {limit} bytes")]
    TooLong { at: Position, len: usize, limit: usize },
    #[error("{at}: unterminated string: the quote opened here is never closed")]
    UnterminatedString { at: Position },
    #[error("{at}: unterminated comment: the `/*` opened here is never closed")]
    UnterminatedComment { at: Position },
    #[error("{at}: unbalanced parentheses: this `{open}` is never closed")]
    Unclosed { at: Position, open: char },
    #[error("{at}: unbalanced parentheses: this `{close}` closes nothing")]
    Unmatched { at: Position, close: char },
    #[error("{at}: unbalanced parentheses: expected `{expected}` but found `{found}`")]
    Mismatched { at: Position, expected: char, found: char },
    #[error("{at}: parentheses are nested more than {limit} levels deep")]
    TooDeep { at: Position, limit: usize },
    #[error("{at}: syntax error: {message}")]
    Syntax { at: Position, message: String },
    #[error("{at}: unknown keyword `{word}`{hint}")]
    UnknownKeyword { at: Position, word: String, hint: String },
    #[error("{at}: {construct} is not supported")]
    Unsupported { at: Position, construct: String },
    #[error("{at}: unknown {what} `{name}`{hint}")]
    Unknown { at: Position, what: &'static str, name: String, hint: String },
    #[error("{at}: type mismatch: {message}")]
    Type { at: Position, message: String },
    #[error("{at}: aggregate function `{name}` is not allowed in {place}")]
    AggregateNotAllowed { at: Position, name: String, place: &'static str },
    #[error("{at}: bad polygon: {message}")]
    Polygon { at: Position, message: String },
    #[error("{at}: a time period must not be negative")]
    NegativeTime { at: Position },
    #[error("{at}: pattern tag `{tag}` is not bound before this point")]
    UnboundTag { at: Position, tag: String },
    #[error("{at}: `INSERT INTO {stream}` does not provide column `{column}` declared by {origin}")]
    MissingColumn { at: Position, stream: String, column: String, origin: String },
    #[error("{at}: statements disagree on the type of `{stream}`: {message}")]
    TypeDisagreement { at: Position, stream: String, message: String },
    #[error("{at}: dependency cycle: {path}")]
    Cycle { at: Position, path: String },
    #[error("{at}: {message}")]
    Invalid { at: Position, message: String },
}

impl CepError {
    pub fn position(&self) -> Option<&Position> {
        match self {
            CepError::Json { .. } | CepError::Config { .. } => None,
            CepError::EmptyStatement { at }
            | CepError::TooLong { at, .. }
            | CepError::UnterminatedString { at }
            | CepError::UnterminatedComment { at }
            | CepError::Unclosed { at, .. }
            | CepError::Unmatched { at, .. }
            | CepError::Mismatched { at, .. }
            | CepError::TooDeep { at, .. }
            | CepError::Syntax { at, .. }
            | CepError::UnknownKeyword { at, .. }
            | CepError::Unsupported { at, .. }
            | CepError::Unknown { at, .. }
            | CepError::Type { at, .. }
            | CepError::AggregateNotAllowed { at, .. }
            | CepError::Polygon { at, .. }
            | CepError::NegativeTime { at }
            | CepError::UnboundTag { at, .. }
            | CepError::MissingColumn { at, .. }
            | CepError::TypeDisagreement { at, .. }
            | CepError::Cycle { at, .. }
            | CepError::Invalid { at, .. } => Some(at),
        }
    }

    /// The message followed, for statement errors, by the excerpt with its caret.
    pub fn render(&self) -> String {
        match self.position() {
            Some(at) => format!("error: {self}\n{}", at.excerpt()),
            None => format!("error: {self}"),
        }
    }
}

/// All errors, one block each, as printed by `fluxgate explain` and sent as the `details` of the
/// CEP API's 400 reply.
pub fn render_errors(errors: &[CepError]) -> String {
    errors.iter().map(CepError::render).collect::<Vec<_>>().join("\n\n")
}

/// `"; did you mean `x`?"` when a candidate is close enough to `name`, else `""`.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let best = candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&name.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (c.chars().count() / 3).max(1))
        .min_by_key(|(d, _)| *d);
    best.map_or_else(String::new, |(_, c)| format!("; did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_line_and_column_in_characters() {
        let at = Position::locate(2, "SELECT *\nFROM Pièce é", Span::new(21, 23));
        assert_eq!((at.statement, at.line, at.column), (2, 2, 12));
        assert_eq!(at.excerpt(), "  |\n2 | FROM Pièce é\n  |            ^");
    }

    #[test]
    fn clips_long_lines_around_the_caret() {
        let text = "x".repeat(10_000);
        let at = Position::locate(1, &text, Span::new(5_000, 5_001));
        assert_eq!(at.column, 5_001);
        assert!(at.excerpt().lines().nth(1).unwrap().chars().count() < 120);
    }

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(did_you_mean("temprature", ["floor", "temperature"]), "; did you mean `temperature`?");
        assert_eq!(did_you_mean("zzz", ["floor", "temperature"]), "");
    }
}

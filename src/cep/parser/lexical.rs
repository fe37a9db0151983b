//! A single pass over the raw statement text before pest sees it: enforces the size and nesting
//! limits (so the recursive-descent parser can never exhaust the stack) and reports the errors a
//! PEG parser would only report far from their cause: empty statements, unterminated strings and
//! comments, unbalanced brackets. It knows nothing of the grammar beyond quotes, comments and
//! brackets.

use super::super::ast::Span;
use super::super::error::{CepError, Position};

/// Longest statement accepted, in bytes.
pub const MAX_STATEMENT_BYTES: usize = 64 * 1024;
/// Deepest nesting of `(`, `[` and `{` accepted.
pub const MAX_NESTING: usize = 32;

/// Checks the text of statement number `statement`.
pub fn check(statement: usize, text: &str) -> Result<(), CepError> {
    let at = |start: usize, end: usize| Position::locate(statement, text, Span::new(start, end));
    if text.len() > MAX_STATEMENT_BYTES {
        return Err(CepError::TooLong {
            at: at(MAX_STATEMENT_BYTES, MAX_STATEMENT_BYTES + 1),
            len: text.len(),
            limit: MAX_STATEMENT_BYTES,
        });
    }
    Scanner { text: text.as_bytes(), pos: 0, open: Vec::new(), seen_token: false }
        .run()
        .map_err(|fault| fault.into_error(statement, text))
}

/// What went wrong, by byte offset; turned into a [`CepError`] with a position at the end.
enum Fault {
    Empty,
    String(usize),
    Comment(usize),
    Unclosed(usize, u8),
    Unmatched(usize, u8),
    Mismatched(usize, u8, u8),
    TooDeep(usize),
}

impl Fault {
    fn into_error(self, statement: usize, text: &str) -> CepError {
        let at = |i: usize| Position::locate(statement, text, Span::new(i, i + 1));
        match self {
            Fault::Empty => CepError::EmptyStatement { at: Position::locate(statement, text, Span::new(0, 0)) },
            Fault::String(i) => CepError::UnterminatedString { at: at(i) },
            Fault::Comment(i) => CepError::UnterminatedComment { at: at(i) },
            Fault::Unclosed(i, b) => CepError::Unclosed { at: at(i), open: b.into() },
            Fault::Unmatched(i, b) => CepError::Unmatched { at: at(i), close: b.into() },
            Fault::Mismatched(i, expected, found) => {
                CepError::Mismatched { at: at(i), expected: expected.into(), found: found.into() }
            }
            Fault::TooDeep(i) => CepError::TooDeep { at: at(i), limit: MAX_NESTING },
        }
    }
}

struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
    /// Open brackets: position and byte.
    open: Vec<(usize, u8)>,
    seen_token: bool,
}

impl Scanner<'_> {
    fn run(mut self) -> Result<(), Fault> {
        while self.pos < self.text.len() {
            self.step()?;
        }
        if let Some(&(i, b)) = self.open.last() {
            return Err(Fault::Unclosed(i, b));
        }
        if self.seen_token { Ok(()) } else { Err(Fault::Empty) }
    }

    fn step(&mut self) -> Result<(), Fault> {
        let b = self.text[self.pos];
        let next = self.text.get(self.pos + 1).copied();
        match (b, next) {
            (b'/', Some(b'/')) => self.skip_line_comment(),
            (b'/', Some(b'*')) => return self.skip_block_comment(),
            (b'\'' | b'"' | b'`', _) => return self.skip_quoted(b),
            (b' ' | b'\t' | b'\r' | b'\n' | b';', _) => self.pos += 1,
            (b'(' | b'[' | b'{', _) => return self.open_bracket(b),
            (b')' | b']' | b'}', _) => return self.close_bracket(b),
            _ => self.token(1),
        }
        Ok(())
    }

    fn token(&mut self, len: usize) {
        self.seen_token = true;
        self.pos += len;
    }

    fn skip_line_comment(&mut self) {
        while self.pos < self.text.len() && self.text[self.pos] != b'\n' {
            self.pos += 1;
        }
    }

    fn skip_block_comment(&mut self) -> Result<(), Fault> {
        let start = self.pos;
        let rest = &self.text[start + 2..];
        match rest.windows(2).position(|w| w == b"*/") {
            Some(i) => {
                self.pos = start + 2 + i + 2;
                Ok(())
            }
            None => Err(Fault::Comment(start)),
        }
    }

    fn skip_quoted(&mut self, quote: u8) -> Result<(), Fault> {
        let start = self.pos;
        let mut i = start + 1;
        while i < self.text.len() {
            match self.text[i] {
                b'\\' if quote != b'`' => i += 2,
                c if c == quote => {
                    self.token(i + 1 - start);
                    return Ok(());
                }
                _ => i += 1,
            }
        }
        Err(Fault::String(start))
    }

    fn open_bracket(&mut self, b: u8) -> Result<(), Fault> {
        if self.open.len() == MAX_NESTING {
            return Err(Fault::TooDeep(self.pos));
        }
        self.open.push((self.pos, b));
        self.token(1);
        Ok(())
    }

    fn close_bracket(&mut self, b: u8) -> Result<(), Fault> {
        let Some((_, open)) = self.open.pop() else {
            return Err(Fault::Unmatched(self.pos, b));
        };
        let expected = closing(open);
        if expected != b {
            return Err(Fault::Mismatched(self.pos, expected, b));
        }
        self.token(1);
        Ok(())
    }
}

fn closing(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        _ => b'}',
    }
}

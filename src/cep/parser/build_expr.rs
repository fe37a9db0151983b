//! Builds expressions: operator chains fold left, prefixes wrap right to left, and every level adds
//! to the builder's depth so no input can build a tree deeper than `MAX_TREE_DEPTH`.

use super::super::ast::*;
use super::super::error::CepError;
use super::Rule;
use super::build::{Builder, Pair, Result};

impl Builder<'_> {
    pub fn expr(&mut self, pair: Pair<'_>) -> Result<Expr> {
        match pair.as_rule() {
            Rule::expr => self.expr(pair.into_inner().next().expect("grammar: or")),
            Rule::or_expr | Rule::and_expr | Rule::concat_expr | Rule::add_expr | Rule::mul_expr => self.chain(pair),
            Rule::not_expr => self.prefixed(pair),
            Rule::cmp_expr => self.comparison(pair),
            Rule::unary => self.prefixed(pair),
            Rule::postfix => self.postfix(pair),
            _ => self.primary(pair),
        }
    }

    /// `a op b op c` → `((a op b) op c)`.
    fn chain(&mut self, pair: Pair<'_>) -> Result<Expr> {
        let span = Self::span(&pair);
        let parts: Vec<Pair<'_>> = pair.into_inner().collect();
        let operands = parts.len().div_ceil(2);
        self.nested(operands - 1, span, |b| b.fold(parts))
    }

    fn fold(&mut self, parts: Vec<Pair<'_>>) -> Result<Expr> {
        let mut parts = parts.into_iter();
        let mut lhs = self.expr(parts.next().expect("grammar: operand"))?;
        while let (Some(op), Some(rhs)) = (parts.next(), parts.next()) {
            let rhs = self.expr(rhs)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary { op: binary_op(op.as_str()), lhs: Box::new(lhs), rhs: Box::new(rhs) },
                span,
            };
        }
        Ok(lhs)
    }

    /// `not not e` and `- - e`.
    fn prefixed(&mut self, pair: Pair<'_>) -> Result<Expr> {
        let span = Self::span(&pair);
        let mut prefixes: Vec<Pair<'_>> = pair.into_inner().collect();
        let operand = prefixes.pop().expect("grammar: operand");
        let count = prefixes.len();
        let mut expr = self.nested(count, span, |b| b.expr(operand))?;
        for prefix in prefixes.into_iter().rev() {
            let span = Self::span(&prefix).to(expr.span);
            let inner = Box::new(expr);
            let kind = match prefix.as_rule() {
                Rule::kw_not => ExprKind::Not(inner),
                _ => ExprKind::Neg(inner),
            };
            expr = Expr { kind, span };
        }
        Ok(expr)
    }

    fn comparison(&mut self, pair: Pair<'_>) -> Result<Expr> {
        let span = Self::span(&pair);
        let mut inner = pair.into_inner();
        let first = inner.next().expect("grammar: operand");
        let Some(tail) = inner.next() else {
            return self.expr(first);
        };
        self.nested(1, span, |b| {
            let operand = Box::new(b.expr(first)?);
            let kind = b.comparison_tail(operand, tail)?;
            Ok(Expr { kind, span })
        })
    }

    fn comparison_tail(&mut self, operand: Box<Expr>, tail: Pair<'_>) -> Result<ExprKind> {
        let rule = tail.as_rule();
        if rule == Rule::in_range {
            return Err(self.unsupported(Self::span(&tail), "a range (`in [low:high]`)"));
        }
        let parts: Vec<Pair<'_>> = tail.into_inner().collect();
        let negated = parts.iter().any(|p| p.as_rule() == Rule::kw_not);
        let escape = parts.iter().find(|p| p.as_rule() == Rule::like_escape).cloned();
        let mut operands =
            parts.into_iter().filter(|p| matches!(p.as_rule(), Rule::expr | Rule::concat_expr | Rule::cmp_op));
        Ok(match rule {
            Rule::compare => {
                let op = binary_op(operands.next().expect("grammar: operator").as_str());
                let rhs = self.expr(operands.next().expect("grammar: operand"))?;
                ExprKind::Binary { op, lhs: operand, rhs: Box::new(rhs) }
            }
            Rule::is_null => ExprKind::IsNull { operand, negated },
            Rule::in_list => {
                ExprKind::InList { operand, list: operands.map(|p| self.expr(p)).collect::<Result<_>>()?, negated }
            }
            Rule::between => {
                let low = Box::new(self.expr(operands.next().expect("grammar: low"))?);
                let high = Box::new(self.expr(operands.next().expect("grammar: high"))?);
                ExprKind::Between { operand, low, high, negated }
            }
            Rule::regexp => ExprKind::Regexp {
                operand,
                pattern: Box::new(self.expr(operands.next().expect("grammar: pattern"))?),
                negated,
            },
            _ => ExprKind::Like {
                operand,
                pattern: Box::new(self.expr(operands.next().expect("grammar: pattern"))?),
                negated,
                escape: escape.map(|e| self.escape_char(e)).transpose()?,
            },
        })
    }

    /// `target.method(args).method(args)`.
    fn postfix(&mut self, pair: Pair<'_>) -> Result<Expr> {
        let span = Self::span(&pair);
        let mut inner: Vec<Pair<'_>> = pair.into_inner().collect();
        let calls = inner.split_off(1);
        let primary = inner.pop().expect("grammar: primary");
        self.nested(calls.len(), span, |b| {
            let mut expr = b.expr(primary)?;
            for call in calls {
                expr = b.method_call(expr, call)?;
            }
            Ok(expr)
        })
    }

    fn method_call(&mut self, target: Expr, pair: Pair<'_>) -> Result<Expr> {
        let span = target.span.to(Self::span(&pair));
        let mut inner = pair.into_inner();
        let name = self.name(inner.next().expect("grammar: method name"));
        let args = match inner.next() {
            Some(args) => self.exprs_of(args)?,
            None => Vec::new(),
        };
        Ok(Expr { kind: ExprKind::Method { target: Box::new(target), name, args }, span })
    }

    fn primary(&mut self, pair: Pair<'_>) -> Result<Expr> {
        let span = Self::span(&pair);
        let inner = match pair.as_rule() {
            Rule::primary => pair.into_inner().next().expect("grammar: primary body"),
            _ => pair,
        };
        let kind = match inner.as_rule() {
            Rule::literal => ExprKind::Literal(self.literal(inner)?),
            Rule::paren => return self.expr(inner.into_inner().next().expect("grammar: expr")),
            Rule::property => ExprKind::Property(self.property_path(inner)),
            Rule::array => self.nested(1, span, |b| Ok(ExprKind::Array(b.exprs_of(inner)?)))?,
            Rule::call => self.nested(1, span, |b| b.call(inner))?,
            // The call with no arguments it stands for.
            Rule::clock => ExprKind::Call { name: self.name(inner), args: Vec::new(), star: false, distinct: false },
            Rule::cast_expr => self.nested(1, span, |b| b.cast(inner))?,
            _ => self.nested(1, span, |b| b.case(inner))?,
        };
        Ok(Expr { kind, span })
    }

    pub fn property_path(&self, pair: Pair<'_>) -> Vec<Name> {
        pair.into_inner().map(|p| self.name(p)).collect()
    }

    fn call(&mut self, pair: Pair<'_>) -> Result<ExprKind> {
        let mut inner = pair.into_inner();
        let name = self.name(inner.next().expect("grammar: function name"));
        let mut next = inner.next();
        let mut distinct = false;
        if let Some(word_pair) = next.take_if(|p| matches!(p.as_rule(), Rule::kw_all | Rule::kw_distinct)) {
            let lower = name.text.to_ascii_lowercase();
            if !AGGREGATES.contains(&lower.as_str()) {
                let word = word_pair.as_str().to_ascii_lowercase();
                let message = match ENDS.contains(&lower.as_str()) {
                    true => format!("`{}` takes no `{word}` (it reads one row)", name.text),
                    false => format!("`{word}` goes only before an aggregate's argument, not `{}`'s", name.text),
                };
                return Err(CepError::Invalid { at: self.at(Self::span(&word_pair)), message });
            }
            distinct = word_pair.as_rule() == Rule::kw_distinct;
            next = inner.next();
        }
        // `count(*, f)`: the star, then its filter as the only argument.
        let (args, star) = match next {
            Some(p) if p.as_rule() == Rule::count_star => {
                (inner.next().map_or(Ok(Vec::new()), |f| self.exprs_of(f))?, true)
            }
            Some(p) => (self.exprs_of(p)?, false),
            None => (Vec::new(), false),
        };
        Ok(ExprKind::Call { name, args, star, distinct })
    }

    /// The one character of `like ... escape 'c'`.
    fn escape_char(&self, escape: Pair<'_>) -> Result<char> {
        let span = Self::span(&escape);
        let text = escape.into_inner().next().and_then(|s| s.into_inner().next()).map_or("", |t| t.as_str());
        let text = unescape(text);
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(CepError::Invalid { at: self.at(span), message: "`escape` takes one character".into() }),
        }
    }

    fn cast(&mut self, pair: Pair<'_>) -> Result<ExprKind> {
        let mut operand = None;
        let mut ty = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => operand = Some(self.expr(p)?),
                Rule::name => ty = Some(self.name(p)),
                _ => {}
            }
        }
        Ok(ExprKind::Cast {
            operand: Box::new(operand.expect("grammar: cast operand")),
            ty: ty.expect("grammar: cast type"),
        })
    }

    fn case(&mut self, pair: Pair<'_>) -> Result<ExprKind> {
        let mut operand = None;
        let mut whens = Vec::new();
        let mut otherwise = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => operand = Some(Box::new(self.expr(p)?)),
                Rule::case_when => {
                    let mut pair = self.exprs_of(p)?.into_iter();
                    let when = pair.next().expect("grammar: when");
                    whens.push((when, pair.next().expect("grammar: then")));
                }
                Rule::case_else => otherwise = Some(Box::new(self.last_expr(p)?)),
                _ => {}
            }
        }
        Ok(ExprKind::Case { operand, whens, otherwise })
    }

    fn literal(&self, pair: Pair<'_>) -> Result<Literal> {
        let value = pair.into_inner().next().expect("grammar: literal");
        Ok(match value.as_rule() {
            Rule::number => self.number(&value)?,
            Rule::string => Literal::String(unescape(value.into_inner().next().map_or("", |p| p.as_str()))),
            Rule::kw_true => Literal::Bool(true),
            Rule::kw_false => Literal::Bool(false),
            _ => Literal::Null,
        })
    }

    fn number(&self, pair: &Pair<'_>) -> Result<Literal> {
        let text = pair.as_str();
        let (digits, suffix) = split_suffix(text);
        let floating = digits.contains(['.', 'e', 'E']) || matches!(suffix, Some('d' | 'f'));
        if floating && suffix == Some('l') {
            let message = format!("the number `{text}` is not whole, and only a whole number can be a long (`L`)");
            return Err(CepError::Invalid { at: self.at(Self::span(pair)), message });
        }
        if floating {
            let value: f64 = digits.parse().unwrap_or(f64::INFINITY);
            if value.is_finite() {
                return Ok(Literal::Float(value));
            }
        } else if let Ok(value) = digits.parse() {
            return Ok(match suffix {
                Some(_) => Literal::Long(value),
                None => Literal::Int(value),
            });
        }
        Err(CepError::Invalid { at: self.at(Self::span(pair)), message: format!("the number `{text}` is too large") })
    }
}

/// The aggregates that read one row of the window, which `all` and `distinct` make no sense for.
const ENDS: [&str; 4] = ["first", "last", "nth", "window"];

/// The aggregate functions, which alone take `all` or `distinct` before their argument.
const AGGREGATES: [&str; 10] = ["avg", "count", "sum", "min", "max", "stddev", "median", "avedev", "fmin", "fmax"];

/// A number's digits and its type suffix (`L`, `D` or `F`, lowercased), if it has one.
pub(super) fn split_suffix(text: &str) -> (&str, Option<char>) {
    match text.char_indices().last() {
        Some((at, c)) if matches!(c.to_ascii_lowercase(), 'l' | 'd' | 'f') => {
            (&text[..at], Some(c.to_ascii_lowercase()))
        }
        _ => (text, None),
    }
}

fn binary_op(symbol: &str) -> BinaryOp {
    match symbol.to_ascii_lowercase().as_str() {
        "or" => BinaryOp::Or,
        "and" => BinaryOp::And,
        "=" => BinaryOp::Eq,
        "!=" | "<>" => BinaryOp::NotEq,
        "<" => BinaryOp::Lt,
        "<=" => BinaryOp::LtEq,
        ">" => BinaryOp::Gt,
        ">=" => BinaryOp::GtEq,
        "+" => BinaryOp::Add,
        "-" => BinaryOp::Sub,
        "*" => BinaryOp::Mul,
        "/" => BinaryOp::Div,
        "||" => BinaryOp::Concat,
        _ => BinaryOp::Mod,
    }
}

/// Resolves backslash escapes; an unknown escape keeps the escaped character.
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('u') => match unicode_escape(&mut chars) {
                Some(c) => out.push(c),
                None => out.push('u'),
            },
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// The character a Java escape `\uXXXX` names (the `\u` read already), with a surrogate pair's second half when
/// the first asks for one; `chars` moves past what was read only when it names a character.
fn unicode_escape(chars: &mut std::str::Chars<'_>) -> Option<char> {
    let mut ahead = chars.clone();
    let first = hex4(&mut ahead)?;
    let low = || {
        let mut pair = ahead.clone();
        (pair.next() == Some('\\') && pair.next() == Some('u')).then(|| hex4(&mut pair).map(|low| (low, pair)))?
    };
    let (c, rest) = match char::from_u32(u32::from(first)) {
        Some(c) => (c, ahead),
        None => {
            let (low, rest) = low()?;
            (char::decode_utf16([first, low]).next()?.ok()?, rest)
        }
    };
    *chars = rest;
    Some(c)
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u16> {
    let digits: String = chars.take(4).collect();
    let hex = digits.len() == 4 && digits.chars().all(|c| c.is_ascii_hexdigit());
    hex.then(|| u16::from_str_radix(&digits, 16).ok())?
}

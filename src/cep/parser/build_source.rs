//! Builds what a statement reads from: streams with filters and views, joins, patterns, and the time
//! periods they use. Time units and signs are checked here because they are facts of the text.

use super::super::ast::*;
use super::super::error::{CepError, did_you_mean};
use super::Rule;
use super::build::{Builder, Pair, Result};
use super::build_expr::split_suffix;

impl Builder<'_> {
    pub fn sources(&mut self, pair: Pair<'_>) -> Result<FromClause> {
        let mut inner = pair.into_inner();
        let first = self.source(inner.next().expect("grammar: first source"))?;
        let joins = inner.map(|p| self.join(p)).collect::<Result<_>>()?;
        Ok(FromClause { first, joins })
    }

    fn source(&mut self, pair: Pair<'_>) -> Result<Source> {
        let span = Self::span(&pair);
        let mut inner = pair.into_inner();
        let body = inner.next().expect("grammar: source body");
        let kind = match body.as_rule() {
            Rule::pattern_source => SourceKind::Pattern(self.pattern_of(body)?),
            _ => SourceKind::Stream(self.stream_ref(body)?),
        };
        let mut source = Source { kind, alias: None, unidirectional: false, span };
        for p in inner {
            match p.as_rule() {
                Rule::alias => source.alias = Some(self.alias(p)),
                _ => source.unidirectional = true,
            }
        }
        Ok(source)
    }

    fn stream_ref(&mut self, pair: Pair<'_>) -> Result<StreamRef> {
        let mut inner = pair.into_inner();
        let name = self.name(inner.next().expect("grammar: stream name"));
        let mut stream = StreamRef { name, filter: Vec::new(), views: Vec::new() };
        for p in inner {
            match p.as_rule() {
                Rule::filter_args => stream.filter = self.expr_list(p)?,
                _ => stream.views.push(self.view(p)?),
            }
        }
        Ok(stream)
    }

    /// Every expression directly inside (filter arguments, call arguments, lists).
    pub fn expr_list(&mut self, pair: Pair<'_>) -> Result<Vec<Expr>> {
        self.exprs_of(pair)
    }

    pub fn view(&mut self, pair: Pair<'_>) -> Result<View> {
        let span = Self::span(&pair);
        let mut inner = pair.into_inner();
        let namespace = self.name(inner.next().expect("grammar: view namespace"));
        let name = self.name(inner.next().expect("grammar: view name"));
        let args = inner.map(|p| self.view_arg(p)).collect::<Result<_>>()?;
        Ok(View { namespace, name, args, span })
    }

    fn view_arg(&mut self, pair: Pair<'_>) -> Result<ViewArg> {
        let mut inner = pair.into_inner();
        let arg = inner.next().expect("grammar: view argument");
        if arg.as_rule() == Rule::time_period {
            return Ok(ViewArg::Time(self.time_period(arg)?));
        }
        let expr = self.expr(arg)?;
        Ok(match inner.next() {
            Some(keyword) => ViewArg::Ordered(OrderItem { expr, descending: keyword.as_rule() == Rule::kw_desc }),
            None => ViewArg::Expr(expr),
        })
    }

    fn join(&mut self, pair: Pair<'_>) -> Result<Join> {
        let span = Self::span(&pair);
        let comma = pair.as_rule() == Rule::comma_join;
        let mut kind = JoinKind::Comma;
        let mut source = None;
        let mut on = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::join_kind => kind = join_kind(p),
                Rule::source => source = Some(self.source(p)?),
                Rule::expr => on = Some(self.expr(p)?),
                _ => {}
            }
        }
        debug_assert!(comma == (kind == JoinKind::Comma));
        let source = source.expect("grammar: joined source");
        Ok(Join { kind, source, on, span })
    }

    /// The time period that is the last child of `pair`.
    pub fn time_period_of(&mut self, pair: Pair<'_>) -> Result<TimePeriod> {
        let period = pair.into_inner().filter(|p| matches!(p.as_rule(), Rule::time_period | Rule::seconds));
        self.time_period(period.last().expect("grammar: time period"))
    }

    /// A period (`10 min`, `1 min 30 sec`), or a pattern's bare number of seconds.
    pub fn time_period(&mut self, pair: Pair<'_>) -> Result<TimePeriod> {
        let span = Self::span(&pair);
        let bare_seconds = pair.as_rule() == Rule::seconds;
        let mut parts = Vec::new();
        let mut amount = 0.0;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::minus => return Err(CepError::NegativeTime { at: self.at(span) }),
                Rule::number => amount = split_suffix(p.as_str()).0.parse().unwrap_or(f64::INFINITY),
                _ => parts.push((amount, self.time_unit(&p)?)),
            }
        }
        if bare_seconds {
            parts.push((amount, TimeUnit::Sec));
        }
        Ok(TimePeriod { parts, span })
    }

    fn time_unit(&self, pair: &Pair<'_>) -> Result<TimeUnit> {
        let word = pair.as_str();
        TimeUnit::parse(word).ok_or_else(|| {
            let mut hint = did_you_mean(word, TimeUnit::SPELLINGS.iter().map(|(s, _)| *s));
            if hint.is_empty() {
                hint = "; expected msec, sec, min, hour or day (or their long forms)".to_string();
            }
            CepError::Unknown { at: self.at(Self::span(pair)), what: "time unit", name: word.to_string(), hint }
        })
    }

    fn pattern_of(&mut self, pair: Pair<'_>) -> Result<PatternExpr> {
        let pattern = pair.into_inner().find(|p| p.as_rule() == Rule::pattern);
        self.pattern(pattern.expect("grammar: pattern"))
    }

    /// `a -> b -> c`, `a or b`, `a and b`: the three n-ary levels share this shape.
    fn pattern(&mut self, pair: Pair<'_>) -> Result<PatternExpr> {
        let span = Self::span(&pair);
        let rule = pair.as_rule();
        let operands: Vec<Pair<'_>> = pair
            .into_inner()
            .filter(|p| matches!(p.as_rule(), Rule::pat_or | Rule::pat_and | Rule::pat_unary))
            .collect();
        let extra = usize::from(operands.len() > 1);
        let mut built =
            self.nested(extra, span, |b| operands.into_iter().map(|p| b.pattern_level(p)).collect::<Result<Vec<_>>>())?;
        if built.len() == 1 {
            return Ok(built.pop().expect("one operand"));
        }
        let kind = match rule {
            Rule::pattern => PatternKind::FollowedBy(built),
            Rule::pat_or => PatternKind::Or(built),
            _ => PatternKind::And(built),
        };
        Ok(PatternExpr { kind, span })
    }

    fn pattern_level(&mut self, pair: Pair<'_>) -> Result<PatternExpr> {
        match pair.as_rule() {
            Rule::pat_unary => self.pattern_unary(pair),
            _ => self.pattern(pair),
        }
    }

    fn pattern_unary(&mut self, pair: Pair<'_>) -> Result<PatternExpr> {
        let span = Self::span(&pair);
        let mut prefixes = Vec::new();
        let mut guarded = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::pat_guarded => guarded = Some(p),
                rule => prefixes.push((rule == Rule::kw_every, Self::span(&p))),
            }
        }
        let guarded = guarded.expect("grammar: pattern atom");
        let mut expr = self.nested(prefixes.len(), span, |b| b.pattern_guarded(guarded))?;
        for (every, prefix) in prefixes.into_iter().rev() {
            let span = prefix.to(expr.span);
            let inner = Box::new(expr);
            let kind = if every { PatternKind::Every(inner) } else { PatternKind::Not(inner) };
            expr = PatternExpr { kind, span };
        }
        Ok(expr)
    }

    fn pattern_guarded(&mut self, pair: Pair<'_>) -> Result<PatternExpr> {
        let span = Self::span(&pair);
        let mut inner = pair.into_inner();
        let atom = inner.next().expect("grammar: pattern atom");
        let within = inner.find(|p| p.as_rule() == Rule::timer_within);
        let Some(within) = within else {
            return self.pattern_atom(atom);
        };
        let expr = self.nested(1, span, |b| b.pattern_atom(atom))?;
        let period = self.time_period_of(within)?;
        Ok(PatternExpr { kind: PatternKind::Within(Box::new(expr), period), span })
    }

    fn pattern_atom(&mut self, pair: Pair<'_>) -> Result<PatternExpr> {
        let span = Self::span(&pair);
        let atom = pair.into_inner().next().expect("grammar: pattern atom body");
        let kind = match atom.as_rule() {
            Rule::pattern => return self.pattern(atom),
            Rule::timer_interval => PatternKind::Interval(self.time_period_of(atom)?),
            Rule::observer => return Err(self.observer(atom)),
            _ => PatternKind::Filter(self.pattern_filter(atom)?),
        };
        Ok(PatternExpr { kind, span })
    }

    fn observer(&self, pair: Pair<'_>) -> CepError {
        let span = Self::span(&pair);
        let mut names = pair.into_inner().map(|p| p.as_str().to_string());
        let ns = names.next().unwrap_or_default();
        let name = names.next().unwrap_or_default();
        if ns.eq_ignore_ascii_case("timer") && name.eq_ignore_ascii_case("within") {
            let message = "`timer:within` is a guard: write `(pattern) where timer:within(...)`";
            return CepError::Invalid { at: self.at(span), message: message.to_string() };
        }
        self.unsupported(span, &format!("the pattern observer `{ns}:{name}`"))
    }

    fn pattern_filter(&mut self, pair: Pair<'_>) -> Result<PatternFilter> {
        let mut names = Vec::new();
        let mut filter = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => names.push(self.name(p)),
                _ => filter = self.expr_list(p)?,
            }
        }
        let stream = names.pop().expect("grammar: stream");
        Ok(PatternFilter { tag: names.pop(), stream, filter })
    }
}

fn join_kind(pair: Pair<'_>) -> JoinKind {
    match pair.into_inner().next().map(|p| p.as_rule()) {
        Some(Rule::kw_left) => JoinKind::LeftOuter,
        Some(Rule::kw_right) => JoinKind::RightOuter,
        Some(Rule::kw_full) => JoinKind::FullOuter,
        _ => JoinKind::Inner,
    }
}

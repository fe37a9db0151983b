//! Builds statements from pest pairs: the [`Builder`] (statement number, text, tree depth) and the
//! statement-level forms (`SELECT`, `CREATE`, `ON`). Sources live in `build_source`, expressions in
//! `build_expr`. Each function takes the pair of one grammar rule and trusts the grammar's shape.

use pest::iterators::Pair as PestPair;

use super::super::ast::*;
use super::super::error::{CepError, Position};
use super::{MAX_TREE_DEPTH, Rule};

pub(super) type Pair<'a> = PestPair<'a, Rule>;
pub(super) type Result<T> = std::result::Result<T, CepError>;

/// Builds one statement's tree; `depth` counts the tree levels above the node being built, so a
/// huge input can never build a tree deep enough to overflow the stack later.
pub(crate) struct Builder<'a> {
    statement: usize,
    text: &'a str,
    depth: usize,
}

impl<'a> Builder<'a> {
    pub fn new(statement: usize, text: &'a str) -> Self {
        Self { statement, text, depth: 0 }
    }

    pub fn at(&self, span: Span) -> Position {
        Position::locate(self.statement, self.text, span)
    }

    pub fn span(pair: &Pair<'_>) -> Span {
        let s = pair.as_span();
        Span::new(s.start(), s.end())
    }

    pub fn name(&self, pair: Pair<'_>) -> Name {
        let span = Self::span(&pair);
        let raw = pair.as_str();
        let text = raw.strip_prefix('`').and_then(|r| r.strip_suffix('`')).unwrap_or(raw);
        Name { text: text.to_string(), span }
    }

    /// Runs `build` with `extra` more tree levels above it, refusing trees deeper than the limit.
    pub fn nested<T>(&mut self, extra: usize, span: Span, build: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth + extra > MAX_TREE_DEPTH {
            return Err(CepError::Invalid {
                at: self.at(span),
                message: format!(
                    "the expression is too deeply nested (more than {MAX_TREE_DEPTH} levels of operators)"
                ),
            });
        }
        self.depth += extra;
        let result = build(self);
        self.depth -= extra;
        result
    }

    pub fn unsupported(&self, span: Span, construct: &str) -> CepError {
        CepError::Unsupported { at: self.at(span), construct: construct.to_string() }
    }

    pub fn statement(&mut self, root: Pair<'_>) -> Result<Statement> {
        let span = Self::span(&root);
        let body = root.into_inner().next().expect("statement has a body");
        let kind = match body.as_rule() {
            Rule::create_variable => StatementKind::CreateVariable(self.create_variable(body)?),
            Rule::create_window => StatementKind::CreateWindow(self.create_window(body)?),
            Rule::on_merge => StatementKind::OnMerge(self.on_merge(body)?),
            Rule::on_delete => StatementKind::OnDelete(self.on_delete(body)?),
            Rule::on_update => StatementKind::OnUpdate(self.on_update(body)?),
            _ => StatementKind::Select(Box::new(self.select(body)?)),
        };
        Ok(Statement { kind, span })
    }

    fn create_variable(&mut self, pair: Pair<'_>) -> Result<CreateVariable> {
        let mut names = Vec::new();
        let mut init = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => names.push(self.name(p)),
                Rule::expr => init = Some(self.expr(p)?),
                _ => {}
            }
        }
        let [ty, name] = <[Name; 2]>::try_from(names).expect("grammar: type and name");
        Ok(CreateVariable { ty, name, init })
    }

    fn create_window(&mut self, pair: Pair<'_>) -> Result<CreateWindow> {
        let mut names = Vec::new();
        let mut views = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::name => names.push(self.name(p)),
                Rule::view => views.push(self.view(p)?),
                _ => {}
            }
        }
        let [name, as_type] = <[Name; 2]>::try_from(names).expect("grammar: name and type");
        Ok(CreateWindow { name, views, as_type })
    }

    fn on_source(&mut self, pair: Pair<'_>) -> Result<OnSource> {
        let mut inner = pair.into_inner();
        let stream = self.name(inner.next().expect("grammar: stream"));
        let mut source = OnSource { stream, filter: Vec::new(), alias: None };
        for p in inner {
            match p.as_rule() {
                Rule::filter_args => source.filter = self.expr_list(p)?,
                _ => source.alias = Some(self.alias(p)),
            }
        }
        Ok(source)
    }

    pub fn alias(&self, pair: Pair<'_>) -> Name {
        let name = pair.into_inner().find(|p| p.as_rule() == Rule::name);
        self.name(name.expect("grammar: alias name"))
    }

    /// The parts shared by the three `ON` forms: trigger, window, window alias and the rest.
    fn on_common<'p>(&mut self, pair: Pair<'p>) -> Result<(OnSource, Name, Option<Name>, Vec<Pair<'p>>)> {
        let mut trigger = None;
        let mut window = None;
        let mut alias = None;
        let mut rest = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::on_source => trigger = Some(self.on_source(p)?),
                Rule::name => window = Some(self.name(p)),
                Rule::alias => alias = Some(self.alias(p)),
                _ => rest.push(p),
            }
        }
        let trigger = trigger.expect("grammar: trigger");
        Ok((trigger, window.expect("grammar: window"), alias, rest))
    }

    fn on_merge(&mut self, pair: Pair<'_>) -> Result<OnMerge> {
        let (trigger, window, window_alias, rest) = self.on_common(pair)?;
        let mut merge = OnMerge { trigger, window, window_alias, condition: None, clauses: Vec::new() };
        for p in rest {
            match p.as_rule() {
                Rule::where_clause => merge.condition = Some(self.last_expr(p)?),
                Rule::merge_clause => merge.clauses.push(self.merge_clause(p)?),
                _ => {}
            }
        }
        Ok(merge)
    }

    fn merge_clause(&mut self, pair: Pair<'_>) -> Result<MergeClause> {
        let span = Self::span(&pair);
        let clause = pair.into_inner().next().expect("grammar: clause");
        let matched = clause.as_rule() == Rule::merge_matched;
        let mut condition = None;
        let mut action = MergeAction::Delete;
        let mut into = None;
        for p in clause.into_inner() {
            match p.as_rule() {
                Rule::merge_cond => condition = Some(self.last_expr(p)?),
                Rule::name => into = Some(self.name(p)),
                Rule::select_list => {
                    let items = self.select_list(p)?;
                    action = MergeAction::Insert { into: into.take(), items };
                }
                Rule::merge_update => action = MergeAction::Update(self.update_set(p)?),
                _ => {}
            }
        }
        Ok(MergeClause { matched, condition, action, span })
    }

    fn update_set(&mut self, pair: Pair<'_>) -> Result<Vec<Assignment>> {
        let assignments = pair.into_inner().find(|p| p.as_rule() == Rule::assignments);
        self.assignments(assignments.expect("grammar: assignments"))
    }

    fn assignments(&mut self, pair: Pair<'_>) -> Result<Vec<Assignment>> {
        pair.into_inner().map(|p| self.assignment(p)).collect()
    }

    fn assignment(&mut self, pair: Pair<'_>) -> Result<Assignment> {
        let span = Self::span(&pair);
        let mut inner = pair.into_inner();
        let target = self.property_path(inner.next().expect("grammar: target"));
        let value = self.expr(inner.next().expect("grammar: value"))?;
        Ok(Assignment { target, value, span })
    }

    fn on_delete(&mut self, pair: Pair<'_>) -> Result<OnDelete> {
        let (trigger, window, window_alias, rest) = self.on_common(pair)?;
        let condition = self.optional_where(rest)?;
        Ok(OnDelete { trigger, window, window_alias, condition })
    }

    fn on_update(&mut self, pair: Pair<'_>) -> Result<OnUpdate> {
        let (trigger, window, window_alias, rest) = self.on_common(pair)?;
        let mut assignments = Vec::new();
        let mut condition = None;
        for p in rest {
            match p.as_rule() {
                Rule::assignments => assignments = self.assignments(p)?,
                Rule::where_clause => condition = Some(self.last_expr(p)?),
                _ => {}
            }
        }
        Ok(OnUpdate { trigger, window, window_alias, assignments, condition })
    }

    fn optional_where(&mut self, rest: Vec<Pair<'_>>) -> Result<Option<Expr>> {
        let clause = rest.into_iter().find(|p| p.as_rule() == Rule::where_clause);
        clause.map(|p| self.last_expr(p)).transpose()
    }

    /// The expression that ends a keyword-led clause (`WHERE e`, `HAVING e`, `AND e`).
    pub fn last_expr(&mut self, pair: Pair<'_>) -> Result<Expr> {
        let expr = pair.into_inner().filter(|p| p.as_rule() == Rule::expr).last();
        self.expr(expr.expect("grammar: clause expression"))
    }

    fn select(&mut self, pair: Pair<'_>) -> Result<SelectStmt> {
        let mut stmt = SelectStmt {
            insert_into: None,
            selector: None,
            distinct: None,
            items: Vec::new(),
            from: FromClause { first: placeholder_source(), joins: Vec::new() },
            where_clause: None,
            group_by: Vec::new(),
            having: None,
            output: None,
            order_by: Vec::new(),
        };
        for p in pair.into_inner() {
            self.select_part(&mut stmt, p)?;
        }
        Ok(stmt)
    }

    fn select_part(&mut self, stmt: &mut SelectStmt, p: Pair<'_>) -> Result<()> {
        match p.as_rule() {
            Rule::insert_into => stmt.insert_into = p.into_inner().last().map(|n| self.name(n)),
            Rule::stream_selector => stmt.selector = Some(selector(p)),
            Rule::kw_distinct => stmt.distinct = Some(Self::span(&p)),
            Rule::select_list => stmt.items = self.select_list(p)?,
            Rule::from_clause => stmt.from = self.sources(p)?,
            Rule::where_clause => stmt.where_clause = Some(self.last_expr(p)?),
            Rule::group_by => stmt.group_by = self.exprs_of(p)?,
            Rule::having => stmt.having = Some(self.last_expr(p)?),
            Rule::output_clause => stmt.output = Some(self.output_clause(p)?),
            Rule::order_by => stmt.order_by = self.order_by(p)?,
            _ => {}
        }
        Ok(())
    }

    /// Every direct `expr` child.
    pub fn exprs_of(&mut self, pair: Pair<'_>) -> Result<Vec<Expr>> {
        pair.into_inner().filter(|p| p.as_rule() == Rule::expr).map(|p| self.expr(p)).collect()
    }

    pub fn select_list(&mut self, pair: Pair<'_>) -> Result<Vec<SelectItem>> {
        pair.into_inner().map(|p| self.select_item(p)).collect()
    }

    fn select_item(&mut self, pair: Pair<'_>) -> Result<SelectItem> {
        let item = pair.into_inner().next().expect("grammar: select item");
        match item.as_rule() {
            Rule::wildcard => Ok(SelectItem::Wildcard(Self::span(&item))),
            Rule::stream_wildcard => {
                let name = item.into_inner().next().expect("grammar: stream name");
                Ok(SelectItem::StreamWildcard(self.name(name)))
            }
            _ => {
                let mut inner = item.into_inner();
                let expr = self.expr(inner.next().expect("grammar: expression"))?;
                let alias = inner.find(|p| p.as_rule() == Rule::name);
                let alias = alias.map(|p| self.name(p));
                Ok(SelectItem::Expr { expr, alias })
            }
        }
    }

    fn output_clause(&mut self, pair: Pair<'_>) -> Result<OutputClause> {
        let span = Self::span(&pair);
        let mut kind = OutputKind::Default;
        let mut after = None;
        let mut every = None;
        // `OUTPUT [AFTER t] [kind EVERY t]`: the rate's parts read as the clause's own.
        for p in pair.into_inner().flat_map(|p| match p.as_rule() {
            Rule::output_rate => p.into_inner().collect::<Vec<_>>(),
            _ => vec![p],
        }) {
            match p.as_rule() {
                Rule::output_after => match p.clone().into_inner().find(counts_events) {
                    Some(count) => after = Some(self.event_count(count, "AFTER")?),
                    None => after = Some(OutputEvery::Period(self.time_period_of(p)?)),
                },
                Rule::output_kind => kind = output_kind(p),
                Rule::time_period if counts_events(&p) => every = Some(self.event_count(p, "EVERY")?),
                Rule::time_period => every = Some(OutputEvery::Period(self.time_period(p)?)),
                _ => {}
            }
        }
        Ok(OutputClause { kind, after, every, span })
    }

    /// `n EVENTS` after `clause` (`EVERY` or `AFTER`): a whole number of at least one, as Esper requires, alone.
    fn event_count(&self, period: Pair<'_>, clause: &str) -> Result<OutputEvery> {
        let span = Self::span(&period);
        let parts: Vec<Pair<'_>> = period.into_inner().collect();
        let count = match parts.as_slice() {
            [number, _] if number.as_rule() == Rule::number => number.as_str().parse::<u64>().ok().filter(|n| *n >= 1),
            _ => None,
        };
        let message = format!("`{clause} n EVENTS` needs a whole number of events of at least 1, alone");
        let count = count.ok_or_else(|| CepError::Invalid { at: self.at(span), message })?;
        Ok(OutputEvery::Events { count, span })
    }

    fn order_by(&mut self, pair: Pair<'_>) -> Result<Vec<OrderItem>> {
        let items = pair.into_inner().filter(|p| p.as_rule() == Rule::order_item);
        items.map(|p| self.order_item(p)).collect()
    }

    fn order_item(&mut self, pair: Pair<'_>) -> Result<OrderItem> {
        let mut inner = pair.into_inner();
        let expr = self.expr(inner.next().expect("grammar: order expression"))?;
        let descending = inner.next().is_some_and(|p| p.as_rule() == Rule::kw_desc);
        Ok(OrderItem { expr, descending })
    }
}

/// Whether an output rate's period is a number of events (`EVERY 5 EVENTS`), which Esper counts instead of timing.
fn counts_events(period: &Pair<'_>) -> bool {
    let mut units = period.clone().into_inner().filter(|p| p.as_rule() == Rule::time_unit);
    units.any(|unit| unit.as_str().eq_ignore_ascii_case("events"))
}

fn selector(pair: Pair<'_>) -> StreamSelector {
    match pair.into_inner().next().map(|p| p.as_rule()) {
        Some(Rule::kw_irstream) => StreamSelector::IrStream,
        Some(Rule::kw_rstream) => StreamSelector::RStream,
        _ => StreamSelector::IStream,
    }
}

fn output_kind(pair: Pair<'_>) -> OutputKind {
    match pair.into_inner().next().map(|p| p.as_rule()) {
        Some(Rule::kw_first) => OutputKind::First,
        Some(Rule::kw_last) => OutputKind::Last,
        Some(Rule::kw_snapshot) => OutputKind::Snapshot,
        _ => OutputKind::All,
    }
}

/// Replaced by the real `FROM` clause, which the grammar makes mandatory.
fn placeholder_source() -> Source {
    Source {
        kind: SourceKind::Stream(StreamRef {
            name: Name { text: String::new(), span: Span::default() },
            filter: Vec::new(),
            views: Vec::new(),
        }),
        alias: None,
        unidirectional: false,
        span: Span::default(),
    }
}

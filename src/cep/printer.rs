//! AST → canonical EPL text: upper-case keywords, single-quoted strings, back-quoted names where a
//! name would read as a keyword, and only the parentheses precedence requires. Parsing the printed
//! text gives the same tree (spans aside); a property test holds the two modules to that.

use std::fmt::{self, Display, Formatter, Write as _};

use super::ast::*;

/// The canonical text of a statement.
pub fn print(statement: &Statement) -> String {
    statement.to_string()
}

impl Display for Statement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            StatementKind::Select(s) => s.fmt(f),
            StatementKind::CreateVariable(v) => {
                write!(f, "CREATE VARIABLE {} {}", NameText(&v.ty), NameText(&v.name))?;
                v.init.iter().try_for_each(|e| write!(f, " = {e}"))
            }
            StatementKind::CreateWindow(w) => {
                write!(f, "CREATE WINDOW {}", NameText(&w.name))?;
                w.views.iter().try_for_each(|v| v.fmt(f))?;
                write!(f, " AS {}", NameText(&w.as_type))
            }
            StatementKind::OnMerge(m) => fmt_merge(m, f),
            StatementKind::OnDelete(d) => {
                write!(f, "{} DELETE FROM ", d.trigger)?;
                fmt_aliased(&d.window, d.window_alias.as_ref(), f)?;
                fmt_where(d.condition.as_ref(), f)
            }
            StatementKind::OnUpdate(u) => {
                write!(f, "{} UPDATE ", u.trigger)?;
                fmt_aliased(&u.window, u.window_alias.as_ref(), f)?;
                write!(f, " SET {}", List(&u.assignments))?;
                fmt_where(u.condition.as_ref(), f)
            }
        }
    }
}

fn fmt_aliased(name: &Name, alias: Option<&Name>, f: &mut Formatter<'_>) -> fmt::Result {
    write!(f, "{}", NameText(name))?;
    alias.iter().try_for_each(|a| write!(f, " AS {}", NameText(a)))
}

fn fmt_where(condition: Option<&Expr>, f: &mut Formatter<'_>) -> fmt::Result {
    condition.iter().try_for_each(|c| write!(f, " WHERE {c}"))
}

fn fmt_merge(m: &OnMerge, f: &mut Formatter<'_>) -> fmt::Result {
    write!(f, "{} MERGE ", m.trigger)?;
    fmt_aliased(&m.window, m.window_alias.as_ref(), f)?;
    fmt_where(m.condition.as_ref(), f)?;
    m.clauses.iter().try_for_each(|c| write!(f, " {c}"))
}

impl Display for OnSource {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "ON {}", NameText(&self.stream))?;
        fmt_filter(&self.filter, f)?;
        self.alias.iter().try_for_each(|a| write!(f, " AS {}", NameText(a)))
    }
}

impl Display for MergeClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let not = if self.matched { "" } else { "NOT " };
        write!(f, "WHEN {not}MATCHED")?;
        self.condition.iter().try_for_each(|c| write!(f, " AND {c}"))?;
        match &self.action {
            MergeAction::Insert { into, items } => {
                f.write_str(" THEN INSERT")?;
                into.iter().try_for_each(|i| write!(f, " INTO {}", NameText(i)))?;
                write!(f, " SELECT {}", List(items))
            }
            MergeAction::Update(assignments) => write!(f, " THEN UPDATE SET {}", List(assignments)),
            MergeAction::Delete => f.write_str(" THEN DELETE"),
        }
    }
}

impl Display for Assignment {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", Path(&self.target), self.value)
    }
}

impl Display for SelectStmt {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(into) = &self.insert_into {
            write!(f, "INSERT INTO {} ", NameText(into))?;
        }
        f.write_str("SELECT ")?;
        if let Some(selector) = self.selector {
            f.write_str(match selector {
                StreamSelector::IrStream => "IRSTREAM ",
                StreamSelector::IStream => "ISTREAM ",
                StreamSelector::RStream => "RSTREAM ",
            })?;
        }
        if self.distinct.is_some() {
            f.write_str("DISTINCT ")?;
        }
        write!(f, "{} FROM {}", List(&self.items), self.from.first)?;
        self.from.joins.iter().try_for_each(|j| j.fmt(f))?;
        fmt_where(self.where_clause.as_ref(), f)?;
        if !self.group_by.is_empty() {
            write!(f, " GROUP BY {}", List(&self.group_by))?;
        }
        self.having.iter().try_for_each(|h| write!(f, " HAVING {h}"))?;
        self.output.iter().try_for_each(|o| write!(f, " {o}"))?;
        if !self.order_by.is_empty() {
            write!(f, " ORDER BY {}", List(&self.order_by))?;
        }
        Ok(())
    }
}

impl Display for SelectItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SelectItem::Wildcard(_) => f.write_str("*"),
            SelectItem::StreamWildcard(name) => write!(f, "{}.*", NameText(name)),
            SelectItem::Expr { expr, alias } => {
                write!(f, "{expr}")?;
                alias.iter().try_for_each(|a| write!(f, " AS {}", NameText(a)))
            }
        }
    }
}

impl Display for Source {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SourceKind::Stream(s) => s.fmt(f)?,
            SourceKind::Pattern(p) => write!(f, "PATTERN [{p}]")?,
        }
        self.alias.iter().try_for_each(|a| write!(f, " AS {}", NameText(a)))?;
        if self.unidirectional {
            f.write_str(" UNIDIRECTIONAL")?;
        }
        Ok(())
    }
}

impl Display for StreamRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", NameText(&self.name))?;
        fmt_filter(&self.filter, f)?;
        self.views.iter().try_for_each(|v| v.fmt(f))
    }
}

fn fmt_filter(filter: &[Expr], f: &mut Formatter<'_>) -> fmt::Result {
    if filter.is_empty() {
        return Ok(());
    }
    write!(f, "({})", List(filter))
}

impl Display for View {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (ns, name) = (NameText(&self.namespace), NameText(&self.name));
        write!(f, ".{ns}:{name}({})", List(&self.args))
    }
}

impl Display for ViewArg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ViewArg::Time(t) => t.fmt(f),
            ViewArg::Expr(e) => e.fmt(f),
            ViewArg::Ordered(item) => write!(f, "{} {}", item.expr, if item.descending { "DESC" } else { "ASC" }),
        }
    }
}

impl Display for Join {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            JoinKind::LeftOuter => " LEFT OUTER JOIN ",
            JoinKind::RightOuter => " RIGHT OUTER JOIN ",
            JoinKind::FullOuter => " FULL OUTER JOIN ",
            JoinKind::Inner => " INNER JOIN ",
            JoinKind::Comma => ", ",
        };
        write!(f, "{kind}{}", self.source)?;
        self.on.iter().try_for_each(|on| write!(f, " ON {on}"))
    }
}

impl Display for TimePeriod {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.parts.iter().map(|(n, u)| format!("{n} {}", u.keyword())).collect();
        f.write_str(&parts.join(" "))
    }
}

impl Display for OutputClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("OUTPUT")?;
        match &self.after {
            Some(OutputEvery::Period(after)) => write!(f, " AFTER {after}")?,
            Some(OutputEvery::Events { count, .. }) => write!(f, " AFTER {count} EVENTS")?,
            None => {}
        }
        let kind = match self.kind {
            OutputKind::Default => "",
            OutputKind::All => "ALL ",
            OutputKind::First => "FIRST ",
            OutputKind::Last => "LAST ",
            OutputKind::Snapshot => "SNAPSHOT ",
        };
        match &self.every {
            Some(OutputEvery::Period(every)) => write!(f, " {kind}EVERY {every}"),
            Some(OutputEvery::Events { count, .. }) => write!(f, " {kind}EVERY {count} EVENTS"),
            None => Ok(()),
        }
    }
}

impl Display for OrderItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)?;
        if self.descending {
            f.write_str(" DESC")?;
        }
        Ok(())
    }
}

/// Pattern operators from loosest to tightest.
fn pattern_precedence(p: &PatternExpr) -> u8 {
    match &p.kind {
        PatternKind::FollowedBy(_) => 1,
        PatternKind::Or(_) => 2,
        PatternKind::And(_) => 3,
        PatternKind::Every(_) | PatternKind::Not(_) => 4,
        PatternKind::Within(..) => 5,
        PatternKind::Interval(_) | PatternKind::Filter(_) => 6,
    }
}

fn fmt_pattern_child(child: &PatternExpr, min: u8, f: &mut Formatter<'_>) -> fmt::Result {
    if pattern_precedence(child) < min { write!(f, "({child})") } else { write!(f, "{child}") }
}

impl Display for PatternExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let own = pattern_precedence(self);
        let (items, sep) = match &self.kind {
            PatternKind::FollowedBy(items) => (items, " -> "),
            PatternKind::Or(items) => (items, " OR "),
            PatternKind::And(items) => (items, " AND "),
            PatternKind::Every(inner) => {
                f.write_str("EVERY ")?;
                return fmt_pattern_child(inner, 4, f);
            }
            PatternKind::Not(inner) => {
                f.write_str("NOT ")?;
                return fmt_pattern_child(inner, 4, f);
            }
            PatternKind::Within(inner, period) => {
                fmt_pattern_child(inner, 6, f)?;
                return write!(f, " WHERE timer:within({period})");
            }
            PatternKind::Interval(period) => return write!(f, "timer:interval({period})"),
            PatternKind::Filter(filter) => return filter.fmt(f),
        };
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                f.write_str(sep)?;
            }
            fmt_pattern_child(item, own + 1, f)?;
        }
        Ok(())
    }
}

impl Display for PatternFilter {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(tag) = &self.tag {
            write!(f, "{}=", NameText(tag))?;
        }
        write!(f, "{}", NameText(&self.stream))?;
        fmt_filter(&self.filter, f)
    }
}

/// Binding strength of an expression's top operator; atoms bind tightest.
fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Not(_) => 3,
        ExprKind::IsNull { .. }
        | ExprKind::InList { .. }
        | ExprKind::Between { .. }
        | ExprKind::Like { .. }
        | ExprKind::Regexp { .. } => 4,
        ExprKind::Neg(_) => 8,
        _ => 9,
    }
}

/// Writes `e`, in parentheses when it binds less tightly than `min`.
fn child(e: &Expr, min: u8, f: &mut Formatter<'_>) -> fmt::Result {
    if precedence(e) < min { write!(f, "({e})") } else { write!(f, "{e}") }
}

fn negation(negated: bool) -> &'static str {
    if negated { " NOT" } else { "" }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Literal(l) => l.fmt(f),
            ExprKind::Property(path) => write!(f, "{}", Path(path)),
            ExprKind::Binary { op, lhs, rhs } => fmt_binary(*op, lhs, rhs, f),
            ExprKind::Not(inner) => {
                f.write_str("NOT ")?;
                child(inner, 3, f)
            }
            ExprKind::Neg(inner) => {
                f.write_str("-")?;
                child(inner, 8, f)
            }
            ExprKind::IsNull { operand, negated } => {
                child(operand, 5, f)?;
                write!(f, " IS{} NULL", negation(*negated))
            }
            ExprKind::InList { operand, list, negated } => {
                child(operand, 5, f)?;
                write!(f, "{} IN ({})", negation(*negated), List(list))
            }
            ExprKind::Between { operand, low, high, negated } => {
                child(operand, 5, f)?;
                write!(f, "{} BETWEEN ", negation(*negated))?;
                child(low, 5, f)?;
                f.write_str(" AND ")?;
                child(high, 5, f)
            }
            ExprKind::Like { operand, pattern, negated, escape } => {
                child(operand, 5, f)?;
                write!(f, "{} LIKE ", negation(*negated))?;
                child(pattern, 5, f)?;
                escape.map_or(Ok(()), |c| {
                    f.write_str(" ESCAPE ")?;
                    fmt_string(&c.to_string(), f)
                })
            }
            ExprKind::Regexp { operand, pattern, negated } => {
                child(operand, 5, f)?;
                write!(f, "{} REGEXP ", negation(*negated))?;
                child(pattern, 5, f)
            }
            ExprKind::Call { name, args, star, distinct } => fmt_call(name, args, (*star, *distinct), f),
            ExprKind::Method { target, name, args } => {
                child(target, 9, f)?;
                write!(f, ".{}({})", NameText(name), List(args))
            }
            ExprKind::Array(items) => write!(f, "{{{}}}", List(items)),
            ExprKind::Cast { operand, ty } => write!(f, "cast({operand}, {})", NameText(ty)),
            ExprKind::Case { operand, whens, otherwise } => {
                fmt_case(operand.as_deref(), whens, otherwise.as_deref(), f)
            }
        }
    }
}

fn fmt_binary(op: BinaryOp, lhs: &Expr, rhs: &Expr, f: &mut Formatter<'_>) -> fmt::Result {
    let p = op.precedence();
    // Comparisons do not chain, so an operand that is itself a comparison needs parentheses.
    let left_min = if op.is_comparison() { p + 1 } else { p };
    child(lhs, left_min, f)?;
    let symbol = match op {
        BinaryOp::Or => "OR",
        BinaryOp::And => "AND",
        other => other.symbol(),
    };
    write!(f, " {symbol} ")?;
    child(rhs, p + 1, f)
}

fn fmt_call(name: &Name, args: &[Expr], (star, distinct): (bool, bool), f: &mut Formatter<'_>) -> fmt::Result {
    let args = match (star, args) {
        (true, []) => "*".to_string(),
        (true, filter) => format!("*, {}", List(filter)),
        (false, args) => List(args).to_string(),
    };
    let distinct = if distinct { "DISTINCT " } else { "" };
    write!(f, "{}({distinct}{args})", NameText(name))
}

fn fmt_case(
    operand: Option<&Expr>,
    whens: &[(Expr, Expr)],
    otherwise: Option<&Expr>,
    f: &mut Formatter<'_>,
) -> fmt::Result {
    f.write_str("CASE")?;
    operand.iter().try_for_each(|o| write!(f, " {o}"))?;
    for (when, then) in whens {
        write!(f, " WHEN {when} THEN {then}")?;
    }
    otherwise.iter().try_for_each(|o| write!(f, " ELSE {o}"))?;
    f.write_str(" END")
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Long(i) => write!(f, "{i}L"),
            Literal::Float(x) => write!(f, "{x:?}"),
            Literal::String(s) => fmt_string(s, f),
            Literal::Bool(b) => f.write_str(if *b { "true" } else { "false" }),
            Literal::Null => f.write_str("null"),
        }
    }
}

fn fmt_string(s: &str, f: &mut Formatter<'_>) -> fmt::Result {
    f.write_char('\'')?;
    for c in s.chars() {
        match c {
            '\'' => f.write_str("\\'")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('\'')
}

/// A name, back-quoted when it would otherwise read as a keyword or not as a name.
#[derive(Debug)]
pub struct NameText<'a>(pub &'a Name);

impl Display for NameText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let text = self.0.as_str();
        if is_plain_name(text) { f.write_str(text) } else { write!(f, "`{text}`") }
    }
}

/// Words the grammar reserves; a name spelt like one must be back-quoted.
pub const KEYWORDS: [&str; 57] = [
    "select",
    "insert",
    "into",
    "from",
    "where",
    "group",
    "by",
    "having",
    "output",
    "every",
    "last",
    "first",
    "all",
    "snapshot",
    "after",
    "order",
    "asc",
    "desc",
    "and",
    "or",
    "not",
    "is",
    "null",
    "true",
    "false",
    "as",
    "create",
    "window",
    "variable",
    "on",
    "merge",
    "when",
    "matched",
    "then",
    "update",
    "set",
    "delete",
    "pattern",
    "unidirectional",
    "left",
    "right",
    "full",
    "outer",
    "inner",
    "join",
    "irstream",
    "istream",
    "rstream",
    "case",
    "else",
    "end",
    "in",
    "between",
    "like",
    "regexp",
    "cast",
    "distinct",
];

fn is_plain_name(text: &str) -> bool {
    let mut chars = text.chars();
    let starts = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$');
    let rest = chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    let lower = text.to_ascii_lowercase();
    starts && rest && !KEYWORDS.contains(&lower.as_str())
}

/// `a.b.c`.
struct Path<'a>(&'a [Name]);

impl Display for Path<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            write!(f, "{}", NameText(name))?;
        }
        Ok(())
    }
}

/// Items joined by `", "`.
struct List<'a, T>(&'a [T]);

impl<T: Display> Display for List<'_, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, item) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            item.fmt(f)?;
        }
        Ok(())
    }
}

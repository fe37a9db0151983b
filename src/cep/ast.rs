//! The typed syntax tree of one EPL statement, as written: names are unresolved and nothing is
//! type-checked yet. Every node carries the [`Span`] of the text it came from, so the planner can
//! point at it. This module knows nothing of pest (the parser builds it) nor of the catalog (the
//! planner reads it); it must stay plain data.

use std::fmt;

/// Byte range `[start, end)` in the statement text.
///
/// Two spans always compare equal: a tree's meaning does not depend on where it was written, and this
/// lets `parse(print(ast)) == ast` hold although printing moves every node. Compare `start`/`end`
/// directly when the position is what a test is about.
#[derive(Debug, Clone, Copy, Default, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl PartialEq for Span {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A name as written (stream, property, alias, tag, variable, type, function): case-sensitive.
#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

impl Name {
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub kind: StatementKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StatementKind {
    Select(Box<SelectStmt>),
    CreateVariable(CreateVariable),
    CreateWindow(CreateWindow),
    OnMerge(OnMerge),
    OnDelete(OnDelete),
    OnUpdate(OnUpdate),
}

/// `CREATE VARIABLE type name [= init]`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateVariable {
    pub ty: Name,
    pub name: Name,
    pub init: Option<Expr>,
}

/// `CREATE WINDOW name.views AS type`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateWindow {
    pub name: Name,
    pub views: Vec<View>,
    pub as_type: Name,
}

/// The triggering stream of an `ON` statement: `ON S(filter) s`.
#[derive(Debug, Clone, PartialEq)]
pub struct OnSource {
    pub stream: Name,
    pub filter: Vec<Expr>,
    pub alias: Option<Name>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OnMerge {
    pub trigger: OnSource,
    pub window: Name,
    pub window_alias: Option<Name>,
    pub condition: Option<Expr>,
    pub clauses: Vec<MergeClause>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MergeClause {
    pub matched: bool,
    pub condition: Option<Expr>,
    pub action: MergeAction,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MergeAction {
    Insert { into: Option<Name>, items: Vec<SelectItem> },
    Update(Vec<Assignment>),
    Delete,
}

/// `target = value` in `UPDATE SET`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub target: Vec<Name>,
    pub value: Expr,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OnDelete {
    pub trigger: OnSource,
    pub window: Name,
    pub window_alias: Option<Name>,
    pub condition: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OnUpdate {
    pub trigger: OnSource,
    pub window: Name,
    pub window_alias: Option<Name>,
    pub assignments: Vec<Assignment>,
    pub condition: Option<Expr>,
}

/// `[INSERT INTO t] SELECT ... FROM ... [WHERE] [GROUP BY] [HAVING] [OUTPUT] [ORDER BY]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectStmt {
    pub insert_into: Option<Name>,
    pub selector: Option<StreamSelector>,
    /// Where `SELECT DISTINCT` says `DISTINCT`: of the rows the statement makes at once, the first of each equal set.
    pub distinct: Option<Span>,
    pub items: Vec<SelectItem>,
    pub from: FromClause,
    pub where_clause: Option<Expr>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
    pub output: Option<OutputClause>,
    pub order_by: Vec<OrderItem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamSelector {
    IrStream,
    IStream,
    RStream,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SelectItem {
    Wildcard(Span),
    StreamWildcard(Name),
    Expr { expr: Expr, alias: Option<Name> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct FromClause {
    pub first: Source,
    pub joins: Vec<Join>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub kind: SourceKind,
    pub alias: Option<Name>,
    pub unidirectional: bool,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SourceKind {
    Stream(StreamRef),
    Pattern(PatternExpr),
}

/// `Name(filter, ...).ns:view(args)...`; an empty filter is the same as none.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRef {
    pub name: Name,
    pub filter: Vec<Expr>,
    pub views: Vec<View>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct View {
    pub namespace: Name,
    pub name: Name,
    pub args: Vec<ViewArg>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ViewArg {
    Time(TimePeriod),
    Expr(Expr),
    /// An expression with `asc` or `desc` written after it: a sort criterion (`ext:sort(10, price desc)`).
    Ordered(OrderItem),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    LeftOuter,
    RightOuter,
    FullOuter,
    Inner,
    /// `FROM A, B`: a join with no `ON`.
    Comma,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    pub kind: JoinKind,
    pub source: Source,
    pub on: Option<Expr>,
    pub span: Span,
}

/// A non-negative duration written as amounts and units, e.g. `1 min 30 sec`.
#[derive(Debug, Clone, PartialEq)]
pub struct TimePeriod {
    pub parts: Vec<(f64, TimeUnit)>,
    pub span: Span,
}

impl TimePeriod {
    pub fn millis(&self) -> f64 {
        self.parts.iter().map(|(n, u)| n * u.millis()).sum()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Msec,
    Sec,
    Min,
    Hour,
    Day,
}

impl TimeUnit {
    /// Every spelling Esper accepts, with its unit.
    pub const SPELLINGS: [(&'static str, TimeUnit); 13] = [
        ("msec", TimeUnit::Msec),
        ("millisecond", TimeUnit::Msec),
        ("milliseconds", TimeUnit::Msec),
        ("sec", TimeUnit::Sec),
        ("second", TimeUnit::Sec),
        ("seconds", TimeUnit::Sec),
        ("min", TimeUnit::Min),
        ("minute", TimeUnit::Min),
        ("minutes", TimeUnit::Min),
        ("hour", TimeUnit::Hour),
        ("hours", TimeUnit::Hour),
        ("day", TimeUnit::Day),
        ("days", TimeUnit::Day),
    ];

    pub fn parse(word: &str) -> Option<TimeUnit> {
        let lower = word.to_ascii_lowercase();
        Self::SPELLINGS.iter().find(|(s, _)| *s == lower).map(|(_, u)| *u)
    }

    pub fn millis(self) -> f64 {
        match self {
            TimeUnit::Msec => 1.0,
            TimeUnit::Sec => 1_000.0,
            TimeUnit::Min => 60_000.0,
            TimeUnit::Hour => 3_600_000.0,
            TimeUnit::Day => 86_400_000.0,
        }
    }

    pub fn keyword(self) -> &'static str {
        match self {
            TimeUnit::Msec => "msec",
            TimeUnit::Sec => "sec",
            TimeUnit::Min => "min",
            TimeUnit::Hour => "hour",
            TimeUnit::Day => "day",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OutputKind {
    /// No keyword (`OUTPUT EVERY`): Esper's default, which is `ALL` for a query without aggregates and, for an
    /// aggregating one, every row its arrivals and expiries make.
    Default,
    All,
    First,
    Last,
    Snapshot,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OutputClause {
    pub kind: OutputKind,
    /// `AFTER d` or `AFTER n EVENTS`: how long the statement's output waits first.
    pub after: Option<OutputEvery>,
    /// `None` in `OUTPUT AFTER ...` alone: rows pass as they come, once the wait is over.
    pub every: Option<OutputEvery>,
    pub span: Span,
}

/// How often a rate limit releases: every period, or every `count` events the statement takes in (`EVERY n EVENTS`);
/// or, after `AFTER`, how long it waits: a period, or until the statement has made more than `count` rows.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputEvery {
    Period(TimePeriod),
    Events { count: u64, span: Span },
}

#[derive(Debug, Clone, PartialEq)]
pub struct OrderItem {
    pub expr: Expr,
    pub descending: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PatternExpr {
    pub kind: PatternKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PatternKind {
    FollowedBy(Vec<PatternExpr>),
    Or(Vec<PatternExpr>),
    And(Vec<PatternExpr>),
    Every(Box<PatternExpr>),
    Not(Box<PatternExpr>),
    Within(Box<PatternExpr>, TimePeriod),
    Interval(TimePeriod),
    Filter(PatternFilter),
}

/// `tag=Stream(filter, ...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternFilter {
    pub tag: Option<Name>,
    pub stream: Name,
    pub filter: Vec<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    /// `a`, `a.b`, `R.r.shutter`: resolved by the planner.
    Property(Vec<Name>),
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Not(Box<Expr>),
    Neg(Box<Expr>),
    IsNull {
        operand: Box<Expr>,
        negated: bool,
    },
    InList {
        operand: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Between {
        operand: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    Like {
        operand: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        /// The escape character, when not the default `\`.
        escape: Option<char>,
    },
    /// `operand [not] regexp pattern`: a Java regular expression matching the whole text.
    Regexp {
        operand: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
    },
    /// `f(args)`; `count(*)` has `star` (and `count(*, f)` its filter as `args`), an aggregate of its argument's
    /// distinct values (`count(distinct x)`) `distinct`.
    Call {
        name: Name,
        args: Vec<Expr>,
        star: bool,
        distinct: bool,
    },
    Method {
        target: Box<Expr>,
        name: Name,
        args: Vec<Expr>,
    },
    Array(Vec<Expr>),
    Cast {
        operand: Box<Expr>,
        ty: Name,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Int(i64),
    /// A whole number written with Esper's `L` suffix: a long whatever its size.
    Long(i64),
    Float(f64),
    String(String),
    Bool(bool),
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    /// `a || b`: text concatenation.
    Concat,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "or",
            BinaryOp::And => "and",
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::Concat => "||",
        }
    }

    /// Binding strength, as in the grammar: higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => 1,
            BinaryOp::And => 2,
            BinaryOp::Eq | BinaryOp::NotEq | BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq => 4,
            BinaryOp::Concat => 5,
            BinaryOp::Add | BinaryOp::Sub => 6,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => 7,
        }
    }

    pub fn is_comparison(self) -> bool {
        self.precedence() == 4
    }
}

//! The checked logical plan: plain data (`Debug`, `Clone`, `PartialEq`, serde) describing what each
//! statement computes, with every name resolved and every type known. The runtime compiles it to a
//! dataflow; `Display` prints it as an indented tree for `fluxgate explain` and the snapshot tests.
//! It imports neither pest nor timely, and holds no behaviour beyond printing.

mod display;
mod expr;

use serde::{Deserialize, Serialize};

use crate::cep::runtime::value::Name;

pub use super::ast::{BinaryOp, OutputKind};
pub use expr::{AggregateCall, AggregateFunction, Conversion, Function, MathFunction, PlanExpr, TextMethod, Value};

/// The type of a value in an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataType {
    String,
    Double,
    Float,
    Int,
    Long,
    Boolean,
    Date,
    Geometry,
    /// The literal `null`, which fits every type.
    Null,
    /// A whole event (a stream alias or a pattern tag); only `is null` applies to it.
    Row,
    Array(Box<DataType>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    pub ty: DataType,
}

/// Every statement of a configuration, in the order the runtime must create them (producers first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub statements: Vec<StatementPlan>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatementPlan {
    /// 1-based position in the configuration's `statements`.
    pub number: usize,
    pub text: String,
    pub node: PlanNode,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PlanNode {
    Variable(VariablePlan),
    NamedWindow(NamedWindowPlan),
    Query(Box<QueryPlan>),
    Merge(MergePlan),
    Delete(WindowActionPlan),
    Update(WindowActionPlan),
}

/// `CREATE VARIABLE`: evaluated once when the configuration is applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariablePlan {
    pub name: String,
    pub ty: DataType,
    pub init: Option<PlanExpr>,
}

/// `CREATE WINDOW name.window AS type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedWindowPlan {
    pub name: String,
    pub as_type: String,
    pub columns: Vec<Column>,
    pub window: WindowSpec,
    pub partition: Partitioning,
}

/// What a stream's view chain keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WindowSpec {
    /// `win:time(d)`: each event stays `millis`, then expires.
    Time { millis: u64 },
    /// `win:length(n)`: the last `n` events.
    Length { count: u64 },
    /// `win:ext_timed(timestamp, d)`: events in arrival order; each arrival pushes out, from the oldest on, those whose
    /// `timestamp` is `millis` or more before its own (Esper's `ExternallyTimedWindowView`). The engine's clock plays
    /// no part.
    ExtTimed { timestamp: PlanExpr, millis: u64 },
    /// `win:time_batch(d)`: events buffered and released every `millis`.
    TimeBatch { millis: u64 },
    /// `win:ext_timed_batch(timestamp, d[, reference])`: events buffered in arrival order and released when one
    /// arrives whose `timestamp` is at or past the end of the period its batch's oldest event is in; the periods are
    /// `millis` long and start at `reference` (the first event's timestamp without it) plus a whole number of them.
    /// The arrival joins the next batch (Esper's `ExternallyTimedBatchView`). The engine's clock plays no part.
    ExtTimedBatch { timestamp: PlanExpr, millis: u64, reference: Option<i64> },
    /// `win:length_batch(n)`: events released every `n`.
    LengthBatch { count: u64 },
    /// `win:time_length_batch(d, n)`: events released when `count` have come or `millis` have passed since the
    /// clock started (at the first event, and again at each release that leaves either batch holding an event),
    /// whichever is first (Esper's `TimeLengthBatchView`).
    TimeLengthBatch { millis: u64, count: u64 },
    /// `ext:sort(n, criteria)`: the `count` events that sort first by `criteria` (each descending when its flag is
    /// set, compared as `ORDER BY` compares); among events that sort alike, the newest first. An arrival past `count`
    /// pushes out the event that sorts last, the oldest of those alike, which may be the arrival itself (Esper's
    /// `SortWindowView`). `ext:rank(unique, n, criteria)` (`unique` not empty) keeps the last event of each `unique`
    /// key so: an arrival of a key the window holds replaces that key's event (Esper's `RankWindowView`).
    Sorted { unique: Vec<PlanExpr>, count: u64, criteria: Vec<Criterion> },
    /// `ext:time_order(timestamp, d)` (`ext:timetolive(timestamp)`, `millis` 0): every event enters as it arrives,
    /// and leaves once the engine's clock reaches its `timestamp` plus `millis`, those due together in timestamp
    /// order (of one timestamp, in arrival order); an arrival already due then is pushed out at once (Esper's
    /// `TimeOrderView`).
    TimeOrder { timestamp: PlanExpr, millis: u64 },
    /// `win:time_accum(d)`: events stay while more keep coming; once `millis` pass without an arrival, all leave
    /// together, in arrival order (Esper's `TimeAccumView`).
    TimeAccum { millis: u64 },
    /// `std:unique(keys)`: the last event per key.
    Unique { keys: Vec<PlanExpr> },
    /// `std:lastevent()`: the last event.
    LastEvent,
    /// `win:firstlength(n)` (`std:firstevent()` the first one): the first `count` events stay for good and later ones
    /// are not admitted: they reach neither `WHERE` nor the aggregates.
    FirstLength { count: u64 },
    /// `std:firstunique(keys)`: the first event per key stays for good; later events of a key are not admitted.
    FirstUnique { keys: Vec<PlanExpr> },
    /// `win:keepall()`: every event stays for good.
    KeepAll,
    /// `win:firsttime(d)`: the events of the statement's first `millis` stay for good; later ones are not admitted.
    FirstTime { millis: u64 },
    /// `std:groupwin(keys).<inner>`: one inner window per key.
    Grouped { keys: Vec<PlanExpr>, inner: Box<WindowSpec> },
}

/// A sort criterion: an expression, and whether it sorts descending.
pub type Criterion = (PlanExpr, bool);

impl WindowSpec {
    /// Whether it releases its events in batches (alone or per group): a query over it emits at each release, not
    /// at each event, even when it does not aggregate.
    pub fn batches(&self) -> bool {
        match self {
            WindowSpec::TimeBatch { .. }
            | WindowSpec::LengthBatch { .. }
            | WindowSpec::TimeLengthBatch { .. }
            | WindowSpec::ExtTimedBatch { .. } => true,
            WindowSpec::Grouped { inner, .. } => inner.batches(),
            _ => false,
        }
    }

    /// The name of the view, alone or under `std:groupwin`, when its events are in an order of their own rather than
    /// their arrival's, with that order: `ext:sort` and `ext:rank` (their sort order), `ext:time_order` and
    /// `ext:timetolive` (their timestamps').
    pub fn ordering_view(&self) -> Option<(&'static str, &'static str)> {
        match self {
            WindowSpec::Sorted { unique, .. } if unique.is_empty() => Some(("ext:sort", "sort order")),
            WindowSpec::Sorted { .. } => Some(("ext:rank", "sort order")),
            WindowSpec::TimeOrder { millis: 0, .. } => Some(("ext:timetolive", "timestamp order")),
            WindowSpec::TimeOrder { .. } => Some(("ext:time_order", "timestamp order")),
            WindowSpec::Grouped { inner, .. } => inner.ordering_view(),
            _ => None,
        }
    }

    /// The name of the view when its rows may leave in another order than they came (one displaced from the middle,
    /// one ahead of another in the view's own order, or one `std:groupwin` key's ahead of an older row of another's).
    pub fn shuffles(&self) -> Option<&'static str> {
        match self {
            WindowSpec::Unique { .. } => Some("std:unique"),
            WindowSpec::LastEvent => Some("std:lastevent"),
            WindowSpec::Grouped { .. } => Some("std:groupwin"),
            _ => self.ordering_view().map(|(view, _)| view),
        }
    }

    /// Whether an arrival may leave the view at once, as it enters: a sorted window's when it sorts last, a
    /// time-ordered one's when its timestamp is already due.
    pub fn pushes_out_arrivals(&self) -> bool {
        self.sorted().is_some() || self.time_order().is_some()
    }

    /// `ext:sort`'s or `ext:rank`'s unique keys (none for `ext:sort`), size and criteria, alone or under
    /// `std:groupwin`.
    pub fn sorted(&self) -> Option<(&[PlanExpr], u64, &[Criterion])> {
        match self {
            WindowSpec::Sorted { unique, count, criteria } => Some((unique, *count, criteria)),
            WindowSpec::Grouped { inner, .. } => inner.sorted(),
            _ => None,
        }
    }

    /// Whether rows leave the view (alone or per group): not from `win:keepall()` or a first-event view.
    pub fn lets_go(&self) -> bool {
        match self {
            WindowSpec::KeepAll
            | WindowSpec::FirstLength { .. }
            | WindowSpec::FirstUnique { .. }
            | WindowSpec::FirstTime { .. } => false,
            WindowSpec::Grouped { inner, .. } => inner.lets_go(),
            _ => true,
        }
    }

    /// Whether the view keeps events out: a first-event view by counting them ([`WindowSpec::admits`]) or by the time
    /// ([`WindowSpec::open_for`]), an externally timed or time-ordered one those whose timestamp is null
    /// ([`WindowSpec::timestamp`]).
    pub fn keeps_out(&self) -> bool {
        self.admits().is_some() || self.open_for().is_some() || self.timestamp().is_some()
    }

    /// The timestamp of `win:ext_timed`, `win:ext_timed_batch` or `ext:time_order` (alone or under `std:groupwin`).
    pub fn timestamp(&self) -> Option<&PlanExpr> {
        match self {
            WindowSpec::ExtTimed { timestamp, .. }
            | WindowSpec::ExtTimedBatch { timestamp, .. }
            | WindowSpec::TimeOrder { timestamp, .. } => Some(timestamp),
            WindowSpec::Grouped { inner, .. } => inner.timestamp(),
            _ => None,
        }
    }

    /// `win:ext_timed(timestamp, d)`'s timestamp and period (alone or under `std:groupwin`).
    pub fn ext_timed(&self) -> Option<(&PlanExpr, u64)> {
        match self {
            WindowSpec::ExtTimed { timestamp, millis } => Some((timestamp, *millis)),
            WindowSpec::Grouped { inner, .. } => inner.ext_timed(),
            _ => None,
        }
    }

    /// `ext:time_order(timestamp, d)`'s timestamp and period (alone or under `std:groupwin`).
    pub fn time_order(&self) -> Option<(&PlanExpr, u64)> {
        match self {
            WindowSpec::TimeOrder { timestamp, millis } => Some((timestamp, *millis)),
            WindowSpec::Grouped { inner, .. } => inner.time_order(),
            _ => None,
        }
    }

    /// How long `win:time_accum(d)` (alone or under `std:groupwin`) waits for an arrival before its events leave.
    pub fn accumulates(&self) -> Option<u64> {
        match self {
            WindowSpec::TimeAccum { millis } => Some(*millis),
            WindowSpec::Grouped { inner, .. } => inner.accumulates(),
            _ => None,
        }
    }

    /// How long after the statement's creation `win:firsttime(d)` (alone or per group) admits events.
    pub fn open_for(&self) -> Option<u64> {
        match self {
            WindowSpec::FirstTime { millis } => Some(*millis),
            WindowSpec::Grouped { inner, .. } => inner.open_for(),
            _ => None,
        }
    }

    /// How many events of a view key a first-event view admits, if it is one (alone or per group): nothing leaves
    /// it, and what it does not admit is not seen.
    pub fn admits(&self) -> Option<u64> {
        match self {
            WindowSpec::FirstLength { count } => Some(*count),
            WindowSpec::FirstUnique { .. } => Some(1),
            WindowSpec::Grouped { inner, .. } => inner.admits(),
            _ => None,
        }
    }
}

/// How a stateful operator's work is spread over workers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Partitioning {
    /// No state: any worker may process any event.
    Stateless,
    /// State is independent per value of these keys, so events are exchanged by them.
    Key(Vec<PartitionKey>),
    /// The semantics need one global order: runs on one worker.
    Single,
}

/// One partition key: the key expression as seen by each input that must be exchanged by it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionKey {
    pub name: String,
    pub inputs: Vec<PlanExpr>,
}

/// `[INSERT INTO] SELECT ... FROM ...`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryPlan {
    pub input: Input,
    pub filter: Option<PlanExpr>,
    pub aggregation: Option<Aggregation>,
    pub projection: Vec<Projection>,
    pub output: Option<OutputPolicy>,
    /// `OUTPUT AFTER d` without a period: the statement's rows of its first `d` milliseconds are dropped, the later
    /// ones pass as they come (Esper's direct after view).
    pub quiet_millis: Option<u64>,
    /// `OUTPUT AFTER n EVENTS` without a period: the statement's rows are dropped, all those of one event or timer
    /// together, until it has made more than `n`; the rows that take it past `n` pass, and every later one (Esper's
    /// direct after view counts the rows of each update before `DISTINCT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_rows: Option<u64>,
    pub order_by: Vec<(PlanExpr, bool)>,
    /// Whether removed rows are emitted too (`SELECT IRSTREAM`) or only (`SELECT RSTREAM`).
    pub emits: Emits,
    /// `SELECT DISTINCT`: of the rows the statement makes at once (for one event, one timer or one output tick), only
    /// the first of each set of equal rows goes on.
    pub distinct: bool,
    pub sink: Sink,
    pub partition: Partitioning,
}

impl QueryPlan {
    /// The stream a query reads when it keeps nothing between events (one stream, no aggregation, no output
    /// policy, no `OUTPUT AFTER`, no `prior` or `prev`, no batch window, no view that
    /// [`keeps_out`](WindowSpec::keeps_out) events): each of its rows comes from one event alone, when that event
    /// arrives.
    pub fn stateless_input(&self) -> Option<&StreamInput> {
        match &self.input {
            Input::Stream(s)
                if self.aggregation.is_none()
                    && self.emits != Emits::Removed
                    && self.output.is_none()
                    && self.quiet_millis.is_none()
                    && self.quiet_rows.is_none()
                    && s.priors.is_empty()
                    && s.prevs.is_empty()
                    && !s.window.as_ref().is_some_and(|w| w.batches() || w.keeps_out()) =>
            {
                Some(s)
            }
            _ => None,
        }
    }

    /// Whether a group's ever forms (and `leaving()`) start afresh once its last row that counts left the data window,
    /// at the statement's next row entering the aggregates, as Esper's refcounted groups do: grouped ones over a
    /// stream's data window. Their groups are not apart, so such a statement runs on one worker.
    pub fn forgets_emptied_groups(&self) -> bool {
        let Some(aggregation) = &self.aggregation else {
            return false;
        };
        let windowed = matches!(&self.input, Input::Stream(s) if s.window.is_some());
        windowed && !aggregation.group_by.is_empty() && aggregation.aggregates.iter().any(|c| c.function.is_ever())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Emits {
    Inserted,
    InsertedAndRemoved,
    Removed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Input {
    Stream(StreamInput),
    Pattern(PatternPlan),
    Join(Box<JoinPlan>),
}

/// A stream read with its filter and window; `label` is how expressions refer to it, interned like their columns'
/// sources, so a column finds its row by the label's address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamInput {
    pub stream: String,
    pub label: Name,
    pub filter: Option<PlanExpr>,
    pub window: Option<WindowSpec>,
    /// Reads a named window's insert stream rather than an event stream.
    pub named_window: bool,
    /// The `prior(n, column)` values its statement reads, each set on an event as the view posts it.
    #[serde(default)]
    pub priors: Vec<Prior>,
    /// The `prev` family's values its statement reads, each read off the view as an event arrives.
    #[serde(default)]
    pub prevs: Vec<Prev>,
}

/// `prior(n, column)`: `column` of the `n`-th event the stream's view posted before this one (this one at 0; null
/// until `n` came before), counted after the view as Esper's prior view counts: every event a window posts, those
/// that fail `WHERE` and those it pushes out at once included. It is fixed when the event is posted, so a row the
/// window lets go later reads the value it arrived with. The runtimes set it on the event as the property `name`,
/// which expressions read as a column of the stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prior {
    pub n: u32,
    pub column: Name,
    pub name: Name,
}

impl Prior {
    pub fn new(n: u32, column: Name) -> Self {
        let name = format!("prior({n}, {column})").into();
        Prior { n, column, name }
    }
}

/// `prev(n, column)`, `prevtail(n, column)` and `prevcount(column)`, read off the stream's data window (`win:length`,
/// `win:time`, `win:keepall`, or a batch window, each under `std:groupwin` or not) as Esper's previous-event access
/// reads it: as an event arrives, over the events of its window (of its group's, under `std:groupwin`) once it is in,
/// or, of a batch window, over the batch it is released in. The runtimes set it on the event as the property `name`, which expressions read as
/// a column of the stream; on an event leaving the view (the remove stream) it is null, as Esper evaluates it there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prev {
    pub kind: PrevKind,
    /// How far back (`prev`) or from the oldest (`prevtail`); 0 for the others.
    pub n: u32,
    pub column: Name,
    pub name: Name,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PrevKind {
    /// `prev(n, x)`: of the event `n` before this one in its window (this one at 0; of a batch, only within it).
    Prev,
    /// `prevtail(n, x)`: of the `n`-th oldest event of the window (of the batch).
    Tail,
    /// `prevcount(x)`: how many events the window (the batch) holds.
    Count,
    /// For `prev(i, x)` with an index that is not a constant: the values from this event's back to the window's (the
    /// batch's) first, as an array that `Function::Item` reads at `i`.
    PrevAll,
    /// For `prevtail(i, x)` with an index that is not a constant: the window's (the batch's) values, oldest first.
    TailAll,
}

impl PrevKind {
    /// The function's name in EPL.
    pub fn function(self) -> &'static str {
        match self {
            PrevKind::Prev | PrevKind::PrevAll => "prev",
            PrevKind::Tail | PrevKind::TailAll => "prevtail",
            PrevKind::Count => "prevcount",
        }
    }
}

impl Prev {
    pub fn new(kind: PrevKind, n: u32, column: Name) -> Self {
        let function = kind.function();
        let name = match kind {
            PrevKind::Prev | PrevKind::Tail => format!("{function}({n}, {column})"),
            PrevKind::PrevAll | PrevKind::TailAll => format!("{function}(*, {column})"),
            PrevKind::Count => format!("{function}({column})"),
        };
        Prev { kind, n, column, name: name.into() }
    }
}

/// `driver unidirectional LEFT OUTER JOIN lookup ON on`: each driver event looks up the lookup
/// stream's window; the lookup side never triggers output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinPlan {
    pub driver: Input,
    pub lookup: StreamInput,
    pub on: PlanExpr,
    /// Equalities of `on` between a driver expression and a lookup expression.
    pub keys: Vec<(PlanExpr, PlanExpr)>,
    /// How the driving side's own state (a pattern's instances) is spread, before its matches are exchanged by
    /// the join's keys.
    pub driver_partition: Partitioning,
}

/// A pattern as a tree of states; each state has an id used by the runtime and the printout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternPlan {
    pub label: Option<String>,
    pub root: PatternNode,
    /// Tags visible to the select list, with the stream each is bound to.
    pub tags: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternNode {
    pub id: usize,
    pub kind: PatternNodeKind,
}

impl PatternNode {
    /// The nodes directly under this one, in order.
    pub fn children(&self) -> &[PatternNode] {
        match &self.kind {
            PatternNodeKind::Every(c) | PatternNodeKind::Not(c) | PatternNodeKind::Within { inner: c, .. } => {
                std::slice::from_ref(&**c)
            }
            PatternNodeKind::FollowedBy(cs) | PatternNodeKind::And(cs) | PatternNodeKind::Or(cs) => cs,
            PatternNodeKind::Timer { .. } | PatternNodeKind::Match { .. } => &[],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PatternNodeKind {
    /// Starts a new instance of the child each time the current one matches or starts.
    Every(Box<PatternNode>),
    /// Children in sequence: each starts when the previous one matched.
    FollowedBy(Vec<PatternNode>),
    /// Matches when all children matched.
    And(Vec<PatternNode>),
    /// Matches when any child matched.
    Or(Vec<PatternNode>),
    /// True until the child matches; then the instance dies (a kill condition).
    Not(Box<PatternNode>),
    /// The child must match within `millis` of starting, else it ends as false.
    Within { inner: Box<PatternNode>, millis: u64 },
    /// Becomes true `millis` after the state starts.
    Timer { millis: u64 },
    /// An event of `stream` passing `filter`, bound to `tag` when given.
    Match { tag: Option<String>, stream: String, filter: Option<PlanExpr> },
}

/// Aggregates, their groups and `HAVING`. A statement with `HAVING` and neither aggregates nor `GROUP BY` has one too,
/// with ungrouped columns only: each row it makes passes `HAVING` or is dropped, as Esper's processor without
/// aggregation has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregation {
    pub kind: AggregationKind,
    pub group_by: Vec<PlanExpr>,
    pub aggregates: Vec<AggregateCall>,
    pub having: Option<PlanExpr>,
}

/// Esper's result-set kinds, which decide what rows and outputs mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AggregationKind {
    /// Every selected column is an aggregate or a group key: one row per group.
    FullyAggregated,
    /// Some selected columns are neither: one row per event, carrying its group's aggregates.
    WithUngroupedColumns(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    /// Shared with every row the statement produces.
    pub name: Name,
    pub expr: PlanExpr,
    pub ty: DataType,
}

impl Projection {
    /// Whether this column is the column of the same name of the input labelled `label`, copied unchanged (`*`).
    pub fn copies(&self, label: &str) -> bool {
        matches!(&self.expr, PlanExpr::Column { source, name, .. } if *source == label && **name == *self.name)
    }
}

/// `OUTPUT [AFTER a] kind EVERY p`: rows are held and released on a timer that starts at the
/// statement's first event. `OUTPUT kind EVERY n EVENTS`: released when the statement has taken in `n` events, or
/// seen `n` leave its view, since the last release (Esper's `OutputConditionCount`); its `every_millis` is 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputPolicy {
    pub kind: OutputKind,
    pub every_millis: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_events: Option<u64>,
    pub after_millis: Option<u64>,
    /// What one tick releases, for the reader of the plan.
    pub releases: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sink {
    pub stream: String,
    pub columns: Vec<Column>,
    pub kind: SinkKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SinkKind {
    /// An `out` type: each row becomes an entity update to the brokers.
    Out(OutMapping),
    /// Rows enter a named window.
    NamedWindow,
    /// A stream only other statements read.
    Internal,
    /// No `INSERT INTO`: rows go to listeners only and leave the gateway nowhere.
    Listeners,
}

/// How rows of an `out` type become entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutMapping {
    pub entity_type: String,
    /// Entity id when a row's `id` is null or empty.
    pub fallback_id: String,
    /// Declared attributes: name, declared type name, metadata names.
    pub attributes: Vec<(String, String, Vec<String>)>,
    pub brokers: Vec<String>,
}

/// `ON trigger MERGE window WHERE condition WHEN ...`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergePlan {
    pub trigger: StreamInput,
    pub window: String,
    pub window_label: Name,
    pub condition: Option<PlanExpr>,
    pub clauses: Vec<MergeClausePlan>,
    pub partition: Partitioning,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeClausePlan {
    pub matched: bool,
    pub condition: Option<PlanExpr>,
    pub action: MergeActionPlan,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum MergeActionPlan {
    Insert(Vec<Projection>),
    Update(Vec<(String, PlanExpr)>),
    Delete,
}

/// The label under which an update's assignments read the window row as it was before them (`SET b = initial.a`,
/// as in Esper); its columns are read only with the label.
pub const INITIAL: &str = "initial";

/// `ON trigger DELETE FROM window WHERE c` and `ON trigger UPDATE window SET ... WHERE c`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowActionPlan {
    pub trigger: StreamInput,
    pub window: String,
    pub window_label: Name,
    pub condition: Option<PlanExpr>,
    pub assignments: Vec<(String, PlanExpr)>,
    pub partition: Partitioning,
}

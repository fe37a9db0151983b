//! The reference evaluator: a plain single-threaded interpreter of the logical plan, written to be read, and the
//! oracle the dataflow runtime is tested against. It keeps every statement's state in ordinary maps and
//! recomputes aggregates from the window's rows rather than maintaining them incrementally.
//!
//! Time is engine milliseconds plus an arrival sequence: every event (received or inserted by a statement) takes
//! the next sequence number, and timers due at a millisecond fire before the events of that millisecond, window
//! expiries first, then pattern timers (each kind in the order they were set), then output ticks and time batch
//! releases (in the configuration's order of their statements; a statement's release before its tick). Events a
//! statement inserts are queued and processed, in order, after the event or timer that caused them (Esper's
//! insert-into routing), before the next input.

pub(crate) mod aggregate;
pub(crate) mod arena;
mod batch;
pub(crate) mod join;
pub(crate) mod named;
mod paced;
pub(crate) mod pattern;
pub(crate) mod query;
mod rate;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use smallvec::SmallVec;

use self::batch::BatchQuery;
use self::join::JoinQuery;
use self::named::{ActionState, Changes, MergeState, NamedWindow};
use self::pattern::PatternQuery;
use self::query::StreamQuery;
use super::plan::{Emits, Input, Plan, PlanNode, Sink, SinkKind, StatementPlan, WindowSpec};
use super::runtime::distinct;
use super::runtime::eval::{Scope, eval};
use super::runtime::{Engine, EngineError, Output, Row, Val};

/// Timers at the same millisecond fire in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TimerOrder {
    Expiry,
    Pattern,
    Output,
}

/// What a timer does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TimerKind {
    /// The rows of a time window due by now leave (one such timer per row; the first one due takes them all).
    Expire,
    /// A pattern leaf (timer or deadline) fires.
    Pattern(u64),
    /// A time batch's period ends: before its statement's output tick due with it, as a time window's expiries go
    /// before one.
    Batch,
    /// An output policy releases what it holds.
    Tick,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Timer {
    at: i64,
    order: TimerOrder,
    seq: u64,
    statement: usize,
    kind: TimerKind,
}

/// The timers one event or timer asks for, as (due, order, kind): rarely more than two, so kept inline.
pub(crate) type Scheduled = SmallVec<[(i64, TimerOrder, TimerKind); 2]>;

/// What a statement sees of the engine while it handles an event or a timer.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    pub now: i64,
    pub seq: u64,
    pub vars: &'a Row,
    timers: Scheduled,
}

impl<'a> Ctx<'a> {
    pub fn new(now: i64, seq: u64, vars: &'a Row) -> Self {
        Ctx { now, seq, vars, timers: Scheduled::new() }
    }

    /// The timers asked for since the last call, as (due, order, kind).
    pub fn take_timers(&mut self) -> Scheduled {
        std::mem::take(&mut self.timers)
    }

    /// Whether timers were asked for since the last [`Ctx::take_timers`].
    pub fn has_timers(&self) -> bool {
        !self.timers.is_empty()
    }

    /// Schedules `kind` for the current statement at `at`.
    pub fn schedule(&mut self, at: i64, order: TimerOrder, kind: TimerKind) {
        self.timers.push((at, order, kind));
    }
}

#[derive(Debug)]
enum Statement {
    Passive,
    Stream(Box<StreamQuery>),
    Batch(Box<BatchQuery>),
    Pattern(Box<PatternQuery>),
    Join(Box<JoinQuery>),
    Merge(Box<MergeState>),
    Action(Box<ActionState>),
}

/// The reference evaluator over one configuration's plan.
#[derive(Debug)]
pub struct Reference {
    plans: Vec<PlanNode>,
    /// Each statement's number (its place in the configuration), by its place here (producers first).
    numbers: Vec<usize>,
    statements: Vec<Statement>,
    windows: HashMap<String, NamedWindow>,
    removed: Removed,
    vars: Row,
    timers: BinaryHeap<Reverse<Timer>>,
    queue: VecDeque<(String, Row)>,
    outputs: Vec<Output>,
    seq: u64,
    timer_seq: u64,
    now: i64,
    /// When the statements were created (`OUTPUT AFTER` counts from it).
    created_ms: i64,
    /// The rows each statement has made, for `OUTPUT AFTER n EVENTS`.
    made: Vec<u64>,
}

impl Reference {
    /// Builds the statements' empty state, created at `created_ms`, and evaluates the variables.
    pub fn new(plan: &Plan, created_ms: i64) -> Result<Self, EngineError> {
        join::check_window_lookups(plan)?;
        check_removed(plan)?;
        let mut engine = Reference {
            plans: Vec::new(),
            numbers: Vec::new(),
            statements: Vec::new(),
            windows: HashMap::new(),
            removed: Removed::of(plan),
            vars: Row::new(),
            timers: BinaryHeap::new(),
            queue: VecDeque::new(),
            outputs: Vec::new(),
            seq: 0,
            timer_seq: 0,
            now: i64::MIN,
            created_ms,
            made: Vec::new(),
        };
        for s in &plan.statements {
            let statement = engine.build(s.number, &s.node)?;
            engine.statements.push(statement);
            engine.plans.push(s.node.clone());
            engine.numbers.push(s.number);
            engine.made.push(0);
        }
        (0..engine.statements.len()).for_each(|i| engine.create(i));
        Ok(engine)
    }

    /// Starts statement `i`'s pattern, if it has one, at the statements' creation.
    fn create(&mut self, i: usize) {
        let mut ctx = Ctx { now: self.created_ms, seq: 0, vars: &self.vars, timers: Scheduled::new() };
        match &mut self.statements[i] {
            Statement::Pattern(p) => p.create(&mut ctx),
            Statement::Join(j) => j.create(&mut ctx),
            _ => return,
        }
        let timers = std::mem::take(&mut ctx.timers);
        self.after(i, timers, Vec::new());
    }

    fn build(&mut self, number: usize, node: &PlanNode) -> Result<Statement, EngineError> {
        Ok(match node {
            PlanNode::Variable(v) => {
                let value = v.init.as_ref().map_or(Val::Null, |e| eval(e, &Scope::new(&[], &self.vars, None)));
                self.vars.insert(v.name.clone(), value);
                Statement::Passive
            }
            PlanNode::NamedWindow(w) => {
                self.windows.insert(w.name.clone(), NamedWindow::new(number, w)?);
                Statement::Passive
            }
            PlanNode::Query(q) => match &q.input {
                Input::Stream(s) if s.window.as_ref().is_some_and(WindowSpec::batches) => {
                    Statement::Batch(Box::new(BatchQuery::new(number, q, s, self.created_ms)?))
                }
                Input::Stream(_) => Statement::Stream(Box::new(StreamQuery::new(number, q, self.created_ms)?)),
                Input::Pattern(_) => Statement::Pattern(Box::new(PatternQuery::new(number, q, self.created_ms)?)),
                Input::Join(_) => Statement::Join(Box::new(JoinQuery::new(number, q, &self.vars, self.created_ms)?)),
            },
            PlanNode::Merge(m) => Statement::Merge(Box::new(MergeState::new(number, m)?)),
            PlanNode::Delete(a) => Statement::Action(Box::new(ActionState::delete(a))),
            PlanNode::Update(a) => Statement::Action(Box::new(ActionState::update(a))),
        })
    }

    /// Processes queued events until none is left.
    fn drain(&mut self) {
        while let Some((stream, row)) = self.queue.pop_front() {
            self.seq += 1;
            for i in 0..self.statements.len() {
                self.deliver(i, &stream, &row);
            }
        }
    }

    fn deliver(&mut self, i: usize, stream: &str, row: &Row) {
        let mut ctx = Ctx { now: self.now, seq: self.seq, vars: &self.vars, timers: Scheduled::new() };
        let rows = match &mut self.statements[i] {
            Statement::Passive => return,
            Statement::Stream(q) => q.on_event(&mut ctx, stream, row),
            Statement::Batch(q) => q.on_event(&mut ctx, stream, row),
            Statement::Pattern(p) => p.on_event(&mut ctx, stream, row),
            Statement::Join(j) => j.on_event(&mut ctx, stream, row),
            Statement::Action(a) => match self.windows.get_mut(&a.window) {
                Some(window) => {
                    let changes = a.on_event(&mut ctx, window, stream, row);
                    self.removed.changed(&a.window, changes)
                }
                None => Vec::new(),
            },
            Statement::Merge(m) => match self.windows.get_mut(&m.window) {
                Some(window) => {
                    let changes = m.on_event(&mut ctx, window, stream, row);
                    self.removed.changed(&m.window, changes)
                }
                None => Vec::new(),
            },
        };
        let timers = std::mem::take(&mut ctx.timers);
        self.after(i, timers, rows);
        self.queue.extend(self.removed.rows.drain(..));
    }

    /// Schedules what statement `i` asked for and sends its rows to its sink, unless it is quiet now: with `DISTINCT`,
    /// the first of each equal set, the rows of one event or timer being the rows the statement makes at once.
    fn after(&mut self, i: usize, timers: Scheduled, rows: Vec<Row>) {
        for (at, order, kind) in timers {
            self.timer_seq += 1;
            // Output ticks due together fire in the configuration's order of their statements, as Esper's schedule
            // orders the callbacks of one time by their statements' slots (Cepheus creates the statements in that
            // order); other timers in the order they were set.
            let seq = if order == TimerOrder::Output { self.numbers[i] as u64 } else { self.timer_seq };
            self.timers.push(Reverse(Timer { at, order, seq, statement: i, kind }));
        }
        if self.quiet(i, rows.len()) {
            return;
        }
        let rows = match &self.plans[i] {
            PlanNode::Query(q) if q.distinct => distinct::first_of_each(rows),
            _ => rows,
        };
        for row in rows {
            self.sink(i, row);
        }
    }

    /// Whether statement `i` drops the `rows` rows of one event or timer, before they reach its sink, as Esper's after
    /// view does with `OUTPUT AFTER` alone: `AFTER d` while its first `d` is not over; `AFTER n EVENTS` while the rows
    /// it has made, these counted, are at most `n`.
    fn quiet(&mut self, i: usize, rows: usize) -> bool {
        let PlanNode::Query(q) = &self.plans[i] else {
            return false;
        };
        if let Some(count) = q.quiet_rows {
            self.made[i] += rows as u64;
            return self.made[i] <= count;
        }
        q.quiet_millis.is_some_and(|d| self.now < self.created_ms.saturating_add(d as i64))
    }

    fn sink(&mut self, i: usize, row: Row) {
        match &self.plans[i] {
            PlanNode::Query(q) => self.sink_query(q.sink.clone(), row),
            PlanNode::Merge(m) => self.queue.push_back((m.window.clone(), row)),
            PlanNode::Update(a) => self.queue.push_back((a.window.clone(), row)),
            _ => {}
        }
    }

    fn sink_query(&mut self, sink: Sink, row: Row) {
        match &sink.kind {
            SinkKind::Out(_) => {
                self.outputs.push(Output { time: self.now, stream: sink.stream.clone(), row: row.clone() });
                self.queue.push_back((sink.stream.clone(), row));
            }
            SinkKind::Internal => self.queue.push_back((sink.stream.clone(), row)),
            SinkKind::NamedWindow => {
                if let Some(window) = self.windows.get_mut(&sink.stream) {
                    let inserted = window.insert(row, &self.vars);
                    self.queue.push_back((sink.stream.clone(), inserted));
                }
            }
            SinkKind::Listeners => {}
        }
    }

    fn fire(&mut self, timer: Timer) {
        self.now = timer.at;
        let mut ctx = Ctx { now: self.now, seq: self.seq, vars: &self.vars, timers: Scheduled::new() };
        let rows = match &mut self.statements[timer.statement] {
            Statement::Stream(q) => q.on_timer(&mut ctx, timer.kind),
            Statement::Batch(q) => q.on_timer(&mut ctx, timer.kind),
            Statement::Pattern(p) => p.on_timer(&mut ctx, timer.kind),
            Statement::Join(j) => j.on_timer(&mut ctx, timer.kind),
            _ => Vec::new(),
        };
        let timers = std::mem::take(&mut ctx.timers);
        self.after(timer.statement, timers, rows);
        self.drain();
    }
}

/// The rows deleted from the named windows that joins look up, on their way to the windows' removed streams
/// (`join::removed_from`), queued after the rows of the insert stream the same statement made.
#[derive(Debug, Default)]
struct Removed {
    windows: Vec<String>,
    rows: Vec<(String, Row)>,
}

impl Removed {
    fn of(plan: &Plan) -> Self {
        let looked_up = |s: &StatementPlan| join::window_lookup(&s.node).map(|j| j.lookup.stream.clone());
        Removed { windows: plan.statements.iter().filter_map(looked_up).collect(), rows: Vec::new() }
    }

    /// Keeps the rows `changes` deleted from `window` if a join reads them; answers its insert stream.
    fn changed(&mut self, window: &str, changes: Changes) -> Vec<Row> {
        if self.windows.iter().any(|w| w == window) {
            let stream = join::removed_from(window);
            self.rows.extend(changes.removed.into_iter().map(|row| (stream.clone(), row)));
        }
        changes.inserted
    }
}

impl Engine for Reference {
    fn push(&mut self, now_ms: i64, stream: &str, event: Row) -> Vec<Output> {
        let mut outputs = self.advance(now_ms);
        self.queue.push_back((stream.to_owned(), event));
        self.drain();
        outputs.append(&mut self.outputs);
        outputs
    }

    fn advance(&mut self, now_ms: i64) -> Vec<Output> {
        while let Some(Reverse(timer)) = self.timers.peek().copied().filter(|Reverse(t)| t.at <= now_ms) {
            self.timers.pop();
            self.fire(timer);
        }
        self.now = self.now.max(now_ms);
        std::mem::take(&mut self.outputs)
    }

    fn next_timer(&self) -> Option<i64> {
        self.timers.peek().map(|Reverse(t)| t.at)
    }
}

/// `SELECT RSTREAM` hands Esper's listener, which writes Cepheus's rows to the brokers, the statement's remove stream
/// as its new rows, while `INSERT INTO` still routes its insert stream (`OutputStrategyPostProcess`): a statement
/// reading that stream, or a named window filled from it, would get rows the brokers never see. Refused.
fn check_removed(plan: &Plan) -> Result<(), EngineError> {
    for s in &plan.statements {
        let PlanNode::Query(q) = &s.node else {
            continue;
        };
        if q.emits != Emits::Removed {
            continue;
        }
        let refuse = |construct: String| Err(EngineError::Unsupported { statement: s.number, construct });
        if q.sink.kind == SinkKind::NamedWindow {
            return refuse(format!("SELECT RSTREAM into the named window {}", q.sink.stream));
        }
        let reads = |r: &&StatementPlan| reads_and_writes(&r.node).0.contains(&q.sink.stream);
        if let Some(reader) = plan.statements.iter().find(reads) {
            let (stream, by) = (&q.sink.stream, reader.number);
            return refuse(format!(
                "SELECT RSTREAM into {stream}, which statement {by} reads (it would get the insert stream)"
            ));
        }
    }
    Ok(())
}

/// The streams a statement reads and the named window it writes, if any.
pub fn reads_and_writes(node: &PlanNode) -> (Vec<String>, Option<&str>) {
    match node {
        PlanNode::Query(q) => {
            let reads = match &q.input {
                Input::Stream(s) => vec![s.stream.clone()],
                Input::Pattern(p) => pattern::streams_of(&p.root),
                Input::Join(j) => {
                    let mut reads = join::driver_streams(j);
                    reads.push(j.lookup.stream.clone());
                    reads
                }
            };
            let writes = matches!(q.sink.kind, SinkKind::NamedWindow).then_some(q.sink.stream.as_str());
            (reads, writes)
        }
        PlanNode::Merge(m) => (vec![m.trigger.stream.clone()], Some(m.window.as_str())),
        PlanNode::Delete(a) | PlanNode::Update(a) => (vec![a.trigger.stream.clone()], Some(a.window.as_str())),
        PlanNode::Variable(_) | PlanNode::NamedWindow(_) => (Vec::new(), None),
    }
}

#[cfg(test)]
pub(crate) mod lookup_tests;
#[cfg(test)]
pub(crate) mod tests;

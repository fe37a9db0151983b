//! From the logical plan to a timely dataflow: one operator per statement, wired stream to stream. A statement reads
//! the input events of its stream plus every statement's rows inserted into it; stateless queries run where the record
//! is, stateful ones behind an exchange by the plan's partition key (or on worker 0 when the plan says the semantics
//! need one place). A pattern, named window or grouped query whose every input is already on its key's worker (dealt by
//! that key and kept there, `Program::placed_by`) reads it where it is: on the seed geofence that saves 8 % of the
//! instructions of two workers (nineteenth session), and it made two workers run the floor 8 to 16 % faster at 1,000
//! events a millisecond (twenty-fourth session, `benches/results/cep.md`). Rows of `out` streams are collected per
//! worker for the engine to publish. Each operator costs every epoch, so the compiler adds none that the statements do
//! not need: exchanges are the stateful operators' own input pacts, a lone edge is not concatenated, the input is split
//! by stream only when events come in on more than one (3 % of the workers' instructions on the seed geofence,
//! twenty-fifth session), output clocks over input streams start at the `Start` records the feeder gives every worker
//! with the stream's first event (`Dataflow`), and only the edges no statement reads are watched (`watch`).
//!
//! Rows nothing reads end in the operator that makes them. A stateless query runs in the operator that watches its
//! input; a stateful query ends its rows in its own operator, which publishes its output frontier to the watch
//! (`operator::Ending`); and a named window whose rows one such stateless query alone reads runs that query in its
//! operator. Besides an operator less per epoch, the watch then hears of an epoch in the step that finished it, not a
//! step later (twenty-sixth session, `benches/results/cep.md`): with one event an epoch, the floor's workers ran 24 %
//! fewer instructions and 2 steps a round instead of 3, and the geofence's (whose `Alert` select runs in the window)
//! 22 % fewer and 3 steps instead of 3.75; at 100 events a millisecond the geofence's 1.4 % fewer for the select and
//! 1.3 % for the window.
//!
//! The compiler's parts: the stateful statements' operators ([`stateful`]), the join groups ([`joins`]), and the
//! edges between operators, with their routing ([`edges`]).

mod edges;
mod joins;
mod stateful;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use timely::dataflow::operators::Concatenate;
use timely::dataflow::operators::generic::operator::empty;
use timely::dataflow::{Scope, Stream};

use self::edges::{by_stream, collect};
use super::operator::{Control, Ending};
use super::program::Program;
use super::record::{Record, millis};
use super::select::{self, Select};
use super::watch::Watch;
use super::window::Action;
use crate::cep::plan::{Input, NamedWindowPlan, PlanExpr, PlanNode, QueryPlan, Sink, SinkKind};
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{Output, Row};

pub(super) type Edge<'s> = Stream<'s, u64, Vec<Record>>;

/// How records reach a stateful operator: per stream, the label (interned, so the key's column finds the row by
/// address) and key expressions that pick the worker. A few streams at most, so an ordered map: a lookup is a
/// comparison or two, where a hash map paid SipHash per record.
type Routes = BTreeMap<u32, (Name, Vec<PlanExpr>)>;

/// What the workers read back from a built dataflow.
#[derive(Debug, Default)]
pub struct Built {
    pub controls: Vec<Control>,
    pub outputs: Rc<RefCell<Vec<Output>>>,
}

/// A stateless query not built yet: its input, itself, and where its rows go.
struct Deferred<'s> {
    input: Edge<'s>,
    select: Select,
    sink: Sink,
}

struct WindowParts<'s> {
    /// The `CREATE WINDOW` statement, which owns the window's rows.
    number: usize,
    plan: NamedWindowPlan,
    inserts: Vec<Edge<'s>>,
    merges: Vec<(usize, Action, Edge<'s>)>,
}

/// A statement's output edge: what may read it, whether something did (else it is watched), and whether its rows
/// are the engine's outputs.
struct End<'s> {
    stream: u32,
    edge: Edge<'s>,
    feeds: Feeds,
    read: bool,
    collect: bool,
}

/// What may read an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feeds {
    /// The statements that read its stream: the edge is one of the stream's producers.
    Stream,
    /// The named window it inserts into, when that window is built.
    Window,
    /// Nothing: rows for listeners, or inserts into a window already built.
    Nothing,
}

struct Compiler<'s, 'p> {
    scope: Scope<'s, u64>,
    program: &'p Program,
    vars: Arc<Row>,
    names: Arc<Vec<Name>>,
    /// The input events of each stream, by stream id: the input split once, so an event is neither copied for nor
    /// tested by the statements of other streams. `None` for a stream no event comes in on, when only one does
    /// ([`by_stream`]); it reads as an empty edge, made when first read.
    by_stream: Vec<Option<Edge<'s>>>,
    producers: HashMap<u32, Vec<Edge<'s>>>,
    /// By sink stream, the stateless queries whose rows one pattern alone reads (`Program::fuses`), not built yet:
    /// that pattern runs them in its own operator when it reads their input where it is, else reading builds them.
    deferred: HashMap<u32, Deferred<'s>>,
    windows: HashMap<String, WindowParts<'s>>,
    built: Built,
    ends: Vec<End<'s>>,
    watch: Watch,
    next_tag: u32,
    /// The looked-up streams whose join group is built.
    joined: HashSet<String>,
    /// When the statements were created (`OUTPUT AFTER` counts from it).
    created_ms: i64,
    /// The dataflow's input, whose frontier is the clock.
    input: Edge<'s>,
}

/// Builds `program` in `scope` over `input`. Every statement's output is read by a later statement or watched by
/// `watch`, so the watch passes an epoch only when every statement has finished with it (timers included). Its
/// statements were created at `created_ms`.
pub fn compile<'s>(scope: Scope<'s, u64>, program: &Program, input: Edge<'s>, watch: &Watch, created_ms: i64) -> Built {
    let names: Vec<Name> = (0..program.stream_count()).map(|i| Name::from(program.name(i))).collect();
    let mut compiler = Compiler {
        scope,
        program,
        vars: Arc::new(program.vars.clone()),
        names: Arc::new(names),
        by_stream: by_stream(input.clone(), program),
        input,
        producers: HashMap::new(),
        deferred: HashMap::new(),
        windows: HashMap::new(),
        built: Built::default(),
        ends: Vec::new(),
        watch: watch.clone(),
        next_tag: program.stream_count(),
        joined: HashSet::new(),
        created_ms,
    };
    for statement in &program.plan.statements {
        compiler.statement(statement.number, &statement.node);
    }
    compiler.finish()
}

impl<'s> Compiler<'s, '_> {
    fn id(&self, name: &str) -> u32 {
        self.program.id(name).expect("every stream of the plan is numbered")
    }

    fn statement(&mut self, number: usize, node: &PlanNode) {
        match node {
            PlanNode::NamedWindow(w) => {
                let parts = WindowParts { number, plan: w.clone(), inserts: Vec::new(), merges: Vec::new() };
                self.windows.insert(w.name.clone(), parts);
            }
            PlanNode::Query(q) => self.query(number, q),
            PlanNode::Merge(m) => self.writer(number, &m.window, Action::Merge(m.clone())),
            PlanNode::Delete(a) => self.writer(number, &a.window, Action::Delete(a.clone())),
            PlanNode::Update(a) => self.writer(number, &a.window, Action::Update(a.clone())),
            PlanNode::Variable(_) => {}
        }
    }

    /// An `ON trigger ...` statement: its trigger events join the window's input.
    fn writer(&mut self, number: usize, window: &str, action: Action) {
        let trigger = self.stream(&action.trigger().stream);
        if let Some(parts) = self.windows.get_mut(window) {
            parts.merges.push((number, action, trigger));
        }
    }

    /// Every record of stream `name` so far: input events (unless only statements produce it) and rows statements
    /// inserted.
    fn stream(&mut self, name: &str) -> Edge<'s> {
        if self.windows.contains_key(name) {
            self.build_window(name, None);
        }
        let id = self.id(name);
        if let Some(Deferred { input, select, sink }) = self.deferred.remove(&id) {
            self.route(&sink, select::operator(input, select));
        }
        self.mark_read(id, Feeds::Stream);
        let produced = self.producers.get(&id).cloned().unwrap_or_default();
        let mut all = Vec::with_capacity(produced.len() + 1);
        if self.program.receives(id) || produced.is_empty() {
            let scope = self.scope;
            all.push(self.by_stream[id as usize].get_or_insert_with(|| empty(scope)).clone());
        }
        all.extend(produced);
        self.concat(all)
    }

    /// The edges as one: an edge alone is itself, since a concatenation would be one more operator for every epoch
    /// to pass.
    fn concat(&self, mut edges: Vec<Edge<'s>>) -> Edge<'s> {
        match edges.len() {
            1 => edges.pop().expect("one edge"),
            _ => self.scope.concatenate(edges),
        }
    }

    fn query(&mut self, number: usize, q: &QueryPlan) {
        let stateful = q.stateless_input().is_none() && !matches!(q.input, Input::Join(_));
        let ending = (stateful && self.program.ends(q)).then(|| self.ending(&q.sink));
        let ended = ending.is_some();
        let out = match (&q.input, q.stateless_input()) {
            (_, Some(s)) => {
                let select =
                    Select::new(number, q, s, (self.id(&s.stream), self.id(&q.sink.stream)), self.vars.clone());
                if self.program.ends(q) && self.windows.contains_key(&s.stream) && self.program.only_reads(number, s) {
                    let ending = self.select_ending(select, &q.sink);
                    return self.build_window(&s.stream, Some(ending));
                }
                let input = self.stream(&s.stream);
                if self.program.fuses(number, q) {
                    let deferred = Deferred { input, select, sink: q.sink.clone() };
                    self.deferred.insert(self.id(&q.sink.stream), deferred);
                    return;
                }
                if self.program.ends(q) {
                    return self.end_select(input, select, &q.sink);
                }
                select::operator(input, select)
            }
            (Input::Stream(s), None) => self.stateful_query((number, q), s, ending),
            (Input::Pattern(p), None) => self.pattern((number, q), p, (None, ending)),
            (Input::Join(j), None) => return self.join_group(&j.lookup.stream),
        };
        if !ended {
            self.route(&q.sink, out);
        }
    }

    /// Where the rows of a stateful query that nothing reads (`Program::ends`) end: in its own operator, which
    /// collects those of an `out` type and mirrors its output frontier, instead of an operator ending its edge.
    fn ending(&mut self, sink: &Sink) -> Ending {
        Ending { mirror: self.watch.mirror(), take: Box::new(self.sink_collector(sink)) }
    }

    /// What ends a container of `sink`'s rows: they are outputs when `sink` is an `out` type.
    fn sink_collector(&self, sink: &Sink) -> impl FnMut(u64, &mut Vec<Record>) + 'static {
        self.collector(self.id(&sink.stream), matches!(sink.kind, SinkKind::Out(_)))
    }

    /// A stateless query whose rows nothing reads (`Program::ends`), run in the operator that ends its input edge: a
    /// row is at its event's epoch, so the input's frontier is the rows' own, and the watch mirrors it as it would the
    /// query's output edge. The rows of an `out` type are collected there.
    fn end_select(&mut self, input: Edge<'s>, select: Select, sink: &Sink) {
        let mut take = self.selected(select, sink);
        self.watch.end(input, "Select", move |epoch, data| take(epoch, data));
    }

    /// The ending of a named window whose rows one stateless query alone reads and nothing reads that query's rows:
    /// the query runs on the window's rows in the window's own operator.
    fn select_ending(&mut self, select: Select, sink: &Sink) -> Ending {
        Ending { mirror: self.watch.mirror(), take: Box::new(self.selected(select, sink)) }
    }

    /// What ends a container of records at `select`: its rows, collected when `sink` is an `out` type.
    fn selected(&self, select: Select, sink: &Sink) -> impl FnMut(u64, &mut Vec<Record>) + 'static {
        let mut take = self.sink_collector(sink);
        let mut rows = Vec::new();
        move |epoch, data| {
            rows.extend(data.drain(..).filter_map(|record| select.select(record, millis(epoch))));
            take(epoch, &mut rows);
        }
    }

    fn route(&mut self, sink: &Sink, out: Edge<'s>) {
        let id = self.id(&sink.stream);
        let feeds = match &sink.kind {
            SinkKind::Out(_) | SinkKind::Internal => {
                self.producers.entry(id).or_default().push(out.clone());
                Feeds::Stream
            }
            SinkKind::NamedWindow => match self.windows.get_mut(&sink.stream) {
                Some(parts) => {
                    parts.inserts.push(out.clone());
                    Feeds::Window
                }
                None => Feeds::Nothing,
            },
            SinkKind::Listeners => Feeds::Nothing,
        };
        let collect = matches!(sink.kind, SinkKind::Out(_));
        self.ends.push(End { stream: id, edge: out, feeds, read: false, collect });
    }

    /// The edges of stream `id` that `reader` takes so far are read.
    fn mark_read(&mut self, id: u32, reader: Feeds) {
        for end in self.ends.iter_mut().filter(|end| end.stream == id && end.feeds == reader) {
            end.read = true;
        }
    }

    /// Builds the named windows no statement read, in plan order (their writers still run), then ends every edge
    /// nothing reads in a watched operator, and collects the rows of output streams.
    fn finish(mut self) -> Built {
        debug_assert!(self.deferred.is_empty(), "the pattern reading a deferred query builds or runs it");
        let mut unbuilt: Vec<(usize, String)> = self.windows.iter().map(|(name, p)| (p.number, name.clone())).collect();
        unbuilt.sort();
        for (_, name) in unbuilt {
            self.build_window(&name, None);
        }
        for end in std::mem::take(&mut self.ends) {
            let take = self.collector(end.stream, end.collect);
            match end.read {
                false => self.watch.end(end.edge, "End", take),
                true if end.collect => collect(end.edge, take),
                true => {}
            }
        }
        self.built
    }

    /// What an end does with a container of stream `id`: keeps its rows as outputs when `collect`, else drops them.
    fn collector(&self, id: u32, collect: bool) -> impl FnMut(u64, &mut Vec<Record>) + 'static {
        let outputs = self.built.outputs.clone();
        let name = self.names[id as usize].clone();
        move |epoch, data| {
            if !collect {
                data.clear();
                return;
            }
            for record in data.drain(..) {
                if let Record::Event { stream, row, .. } = record
                    && stream == id
                {
                    outputs.borrow_mut().push(Output { time: millis(epoch), stream: name.to_string(), row });
                }
            }
        }
    }
}

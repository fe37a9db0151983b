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

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::Concatenate;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::dataflow::operators::generic::operator::empty;
use timely::dataflow::operators::vec::Filter;
use timely::dataflow::{Scope, Stream};
use timely::progress::operate::FrontierInterest;

use super::batch::BatchLogic;
use super::gate::Gated;
use super::join::{JoinLogic, Member, group_key};
use super::operator::{Control, Ending, stateful};
use super::pattern::PatternLogic;
use super::program::{Program, join_members, merge_lookup, route_hash, stream_key, streams_of};
use super::query::QueryLogic;
use super::quiet::{quiet_until, stateful_until};
use super::rated::Rated;
use super::record::{Record, millis};
use super::select::{self, Select, Selected};
use super::tally::Tallied;
use super::watch::Watch;
use super::window::{Action, Merge, WindowLogic};
use crate::cep::plan::{
    Input, JoinPlan, NamedWindowPlan, PartitionKey, Partitioning, PatternPlan, PlanExpr, PlanNode, QueryPlan, Sink,
    SinkKind, StreamInput, WindowSpec,
};
use crate::cep::reference::join::{Joiner, held_by, removed_from};
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::eval::{Scope as EvalScope, eval};
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
            rows.extend(data.drain(..).filter_map(|record| select.select(record)));
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

    fn stateful_query(
        &mut self,
        (number, q): (usize, &QueryPlan),
        s: &StreamInput,
        ending: Option<Ending>,
    ) -> Edge<'s> {
        if s.window.as_ref().is_some_and(WindowSpec::batches) {
            return self.batch_query((number, q), s, ending);
        }
        let input = self.stream(&s.stream);
        let id = self.id(&s.stream);
        let routes = match &q.partition {
            Partitioning::Key(keys) => keyed(id, &s.label, keys),
            _ => Routes::new(),
        };
        // Only input events reach a stream nothing inserts into: its clocks start at the `Start` records the feeder
        // sends every worker with the stream's first event, and need no operator of their own. A stream statements
        // insert into has a clock operator, whose `Start` records go to every worker through the exchange.
        let inputs_only = self.producers.get(&id).is_none_or(Vec::is_empty);
        let (input, clocked) = match (&q.output, inputs_only) {
            (Some(o), false) => {
                let clock = clock(input.clone(), id, o.after_millis.is_some());
                (self.scope.concatenate([input, clock]), true)
            }
            _ => (input, false),
        };
        let ids = (id, self.id(&q.sink.stream));
        let logic =
            QueryLogic::new(number, Arc::new(q.clone()), s.clone(), ids, self.vars.clone()).created_at(self.created_ms);
        let control = Control::new(number);
        self.built.controls.push(control.clone());
        let in_place = !routes.is_empty() && routes.iter().all(|(id, (label, e))| self.routed_in_place(*id, label, e));
        let until = quiet_until(q, self.created_ms);
        match in_place && !clocked {
            true => stateful_until(until, (input, Pipeline), "Query", (control, ending), logic),
            false => {
                stateful_until(until, (input, by_key(routes, self.vars.clone())), "Query", (control, ending), logic)
            }
        }
    }

    /// A query over a batch window, on one worker: a batch is one order of events across all keys.
    fn batch_query(&mut self, (number, q): (usize, &QueryPlan), s: &StreamInput, ending: Option<Ending>) -> Edge<'s> {
        let input = self.stream(&s.stream);
        let ids = (self.id(&s.stream), self.id(&q.sink.stream));
        let logic = BatchLogic::new(number, (Arc::new(q.clone()), self.created_ms), s, ids, self.vars.clone());
        let control = Control::new(number);
        self.built.controls.push(control.clone());
        let until = quiet_until(q, self.created_ms);
        stateful_until(until, (input, by_key(Routes::new(), self.vars.clone())), "Batch", (control, ending), logic)
    }

    /// A pattern statement, or with `drives` the driving pattern of a join (its matches go to that private stream).
    fn pattern(
        &mut self,
        (number, q): (usize, &QueryPlan),
        p: &PatternPlan,
        (drives, ending): (Option<u32>, Option<Ending>),
    ) -> Edge<'s> {
        let streams = streams_of(&p.root);
        let partition = match &q.input {
            Input::Join(j) => &j.driver_partition,
            _ => &q.partition,
        };
        let keys = self.program.pattern_keys(partition, p);
        let routes: Routes = keys.iter().map(|(id, (label, e))| (*id, (label.clone(), vec![e.clone()]))).collect();
        let names = (self.names.clone(), self.vars.clone());
        let mut logic =
            PatternLogic::new(number, Arc::new(q.clone()), p.root.clone(), keys, names).with(self.id(&q.sink.stream));
        // A pattern that starts with its statement has no key, so its events all go to the first worker: it starts
        // there.
        if self.scope.index() == 0 {
            logic = logic.created_at(self.created_ms);
        }
        if let Some(stream) = drives {
            logic = logic.driving(stream);
        }
        let control = Control::new(number);
        self.built.controls.push(control.clone());
        let in_place = !routes.is_empty() && routes.iter().all(|(id, (label, e))| self.routed_in_place(*id, label, e));
        let fused = match (in_place, streams.as_slice()) {
            (true, [only]) => self.deferred.remove(&self.id(only)),
            _ => None,
        };
        // A join's pattern hands its matches to the join, whose member drops its rows when quiet.
        let until = drives.is_none().then(|| quiet_until(q, self.created_ms)).flatten();
        let controls = (control, ending);
        if let Some(Deferred { input, select, .. }) = fused {
            return stateful_until(until, (input, Pipeline), "Pattern", controls, Selected { select, logic });
        }
        let mut inputs: Vec<Edge<'s>> = streams.iter().map(|s| self.stream(s)).collect();
        if inputs.is_empty() {
            // A pattern of timers alone reads no record, but its timers wait for the clock: the input's frontier.
            inputs.push(self.input.clone().filter(|_| false));
        }
        let merged = self.concat(inputs);
        if q.aggregation.is_some() && drives.is_none() {
            // On one worker, as the planner places an aggregating statement: routed by no key. Its tally makes its
            // matches rows, under its output policy if it has one.
            let sink = self.id(&q.sink.stream);
            let gate = Tallied::new(number, sink, (Arc::new(q.clone()), self.created_ms), self.vars.clone());
            let logic = Gated { gate, logic: logic.driving(sink) };
            return stateful_until(until, (merged, by_key(routes, self.vars.clone())), "Pattern", controls, logic);
        }
        if q.output.is_some() && drives.is_none() {
            // On one worker, as the planner places a statement with an output policy: routed by no key.
            let gate = Rated::new(number, self.id(&q.sink.stream), (q, self.created_ms));
            return stateful(merged, by_key(routes, self.vars.clone()), "Pattern", controls, Gated { gate, logic });
        }
        match in_place {
            true => stateful_until(until, (merged, Pipeline), "Pattern", controls, logic),
            false => stateful_until(until, (merged, by_key(routes, self.vars.clone())), "Pattern", controls, logic),
        }
    }

    /// Whether the records of stream `id` that `route` sends to their workers are there already: the route reads one
    /// column of the record itself, and the stream is placed by that column ([`Program::placed_by`]). An operator
    /// whose every route is so reads its input where it is, and saves the exchange's hashing and buffering.
    fn routed_in_place(&self, id: u32, label: &str, exprs: &[PlanExpr]) -> bool {
        match exprs {
            [PlanExpr::Column { source, name, .. }] => {
                source == label && self.program.placed_by(self.program.name(id), name)
            }
            _ => false,
        }
    }

    /// Whether every row the statements insert into window `name` is on the worker its key column `key` picks
    /// ([`Program::keeps`]).
    fn inserts_in_place(&self, name: &str, key: &PlanExpr) -> bool {
        let PlanExpr::Column { source, name: column, .. } = key else {
            return false;
        };
        source == name
            && self.program.plan.statements.iter().all(|s| match &s.node {
                PlanNode::Query(q) => q.sink.stream != name || self.program.keeps(q, column),
                _ => true,
            })
    }

    /// Every join statement looking up `lookup`, in one operator (see `join`), built where the first is met: its
    /// inputs are `lookup`'s events from outside the group and each member's driving events or matches.
    fn join_group(&mut self, lookup: &str) {
        if !self.joined.insert(lookup.to_owned()) {
            return;
        }
        let members = join_members(&self.program.plan, lookup);
        let pairs: Vec<(&QueryPlan, &JoinPlan)> = members.iter().map(|(_, q, j)| (*q, *j)).collect();
        let key = group_key(&pairs);
        let lookup_id = self.id(lookup);
        let (removed, held) = (self.program.id(&removed_from(lookup)), self.program.id(&held_by(lookup)));
        let mut edges = vec![self.stream(lookup)];
        edges.extend(removed.map(|_| self.stream(&removed_from(lookup))));
        edges.extend(held.map(|_| self.stream(&held_by(lookup))));
        let mut inputs = GroupInputs { edges, routes: Routes::new(), matches: BTreeMap::new() };
        let mut logic = Vec::with_capacity(members.len());
        for (m, member) in members.iter().enumerate() {
            logic.push(self.join_member(&mut inputs, *member, key.as_ref().map(|k| k.drivers[m].clone())));
        }
        match &key {
            Some(k) => {
                let route = (pairs[0].1.lookup.label.clone(), vec![k.column.clone()]);
                inputs.routes.extend([removed, held].into_iter().flatten().map(|id| (id, route.clone())));
                inputs.routes.insert(lookup_id, route);
            }
            None => inputs.routes.clear(),
        }
        let input = self.concat(inputs.edges);
        let pact = by_key_and_match(inputs.routes, inputs.matches, self.vars.clone());
        let control = Control::default();
        self.built.controls.push(control.clone());
        for (number, _, _) in &members {
            self.built.controls.push(Control::member(&control, *number));
        }
        let logic = JoinLogic::new(logic, (lookup_id, removed, held), self.vars.clone());
        let out = stateful(input, pact, "Join", (control, None), logic);
        let mut sinks: Vec<&Sink> = Vec::new();
        for (_, q, _) in &members {
            if !sinks.iter().any(|s| s.stream == q.sink.stream) {
                sinks.push(&q.sink);
            }
        }
        for sink in sinks {
            let id = self.id(&sink.stream);
            self.route(sink, out.clone().filter(move |r| r.stream() == Some(id)));
        }
    }

    /// One member: its driving input joins the group's inputs under a private stream, routed by `driver_key`.
    fn join_member(
        &mut self,
        inputs: &mut GroupInputs<'s>,
        (number, q, j): (usize, &QueryPlan, &JoinPlan),
        driver_key: Option<PlanExpr>,
    ) -> Member {
        let tag = self.private_tag();
        match &j.driver {
            Input::Stream(s) => {
                let from = self.id(&s.stream);
                inputs.edges.push(retag(self.stream(&s.stream), from, tag));
                inputs.routes.insert(tag, (s.label.clone(), driver_key.into_iter().collect()));
            }
            Input::Pattern(p) => {
                inputs.edges.push(self.pattern((number, q), p, (Some(tag), None)));
                inputs.matches.extend(driver_key.map(|k| (tag, k)));
            }
            Input::Join(_) => {}
        }
        let joiner = Joiner::new(Arc::new(q.clone()), j, &self.vars);
        let quiet_until = quiet_until(q, self.created_ms);
        let sink = self.id(&q.sink.stream);
        let rate = q.output.is_some().then(|| Rated::new(number, sink, (q, self.created_ms)));
        Member { statement: number, trigger: tag, joiner, sink, quiet_until, rate }
    }

    /// A stream number no stream of the program has, for records a statement must tell apart from their stream's.
    fn private_tag(&mut self) -> u32 {
        self.next_tag += 1;
        self.next_tag - 1
    }

    /// Builds named window `name`: its rows go to the statements reading its stream, or end at `ending`.
    fn build_window(&mut self, name: &str, ending: Option<Ending>) {
        let Some(parts) = self.windows.remove(name) else {
            return;
        };
        let stream = self.id(name);
        self.mark_read(stream, Feeds::Window);
        let keys = match &parts.plan.window {
            WindowSpec::Unique { keys } => keys.clone(),
            _ => Vec::new(),
        };
        let mut edges = parts.inserts;
        let mut merges = Vec::new();
        let mut routes = Routes::new();
        let mut keyed = keys.len() == 1;
        let mut in_place = keyed && self.inserts_in_place(name, &keys[0]);
        routes.insert(stream, (Name::from(name), keys.clone()));
        let triggers: Vec<u32> = parts.merges.iter().map(|(_, action, _)| self.id(&action.trigger().stream)).collect();
        let fixed_key = match keys.as_slice() {
            [PlanExpr::Column { name, .. }] if !parts.merges.iter().any(|(_, action, _)| action.assigns(name)) => {
                Some(name.clone())
            }
            _ => None,
        };
        for ((number, action, trigger), &from) in parts.merges.into_iter().zip(&triggers) {
            let lookup = if keys.len() == 1 { merge_lookup(action.partition(), &keys[0]) } else { None };
            // A trigger stream that no other writer of this window uses names its statement as it is; another
            // gets a private tag, so the window tells its statements apart.
            let alone = from != stream && triggers.iter().filter(|t| **t == from).count() == 1;
            let tag = if alone { from } else { self.private_tag() };
            match &lookup {
                Some(expr) => {
                    let label = &action.trigger().label;
                    in_place &= self.routed_in_place(from, label, std::slice::from_ref(expr));
                    routes.insert(tag, (label.clone(), vec![expr.clone()]));
                }
                None => keyed = false,
            }
            edges.push(if tag == from { trigger } else { retag(trigger, from, tag) });
            merges.push(Merge::new(number, action, tag, lookup, fixed_key.as_ref(), &self.vars));
        }
        if !keyed {
            routes.clear();
        }
        let input = self.concat(edges);
        let joins = self.program.id(&removed_from(name)).zip(self.program.id(&held_by(name)));
        let joins = joins.filter(|_| ending.is_none());
        let logic = WindowLogic::new(name.to_owned(), keys, stream, merges, self.vars.clone()).looked_up(joins);
        let control = Control::new(parts.number);
        self.built.controls.push(control.clone());
        let ended = ending.is_some();
        let out = match keyed && in_place {
            true => stateful(input, Pipeline, "NamedWindow", (control, ending), logic),
            false => stateful(input, by_key(routes, self.vars.clone()), "NamedWindow", (control, ending), logic),
        };
        if ended {
            return;
        }
        let streams = match joins {
            // The removed and held rows are for the joins alone: each stream gets its own records.
            Some((removed, held)) => [stream, removed, held].map(|id| (id, only(&out, id))).to_vec(),
            None => vec![(stream, out)],
        };
        for (stream, edge) in streams {
            self.producers.entry(stream).or_default().push(edge.clone());
            self.ends.push(End { stream, edge, feeds: Feeds::Stream, read: false, collect: false });
        }
    }
}

/// What a join group's operator reads, gathered member by member: the edges, and how each private stream is routed.
struct GroupInputs<'s> {
    edges: Vec<Edge<'s>>,
    routes: Routes,
    matches: BTreeMap<u32, PlanExpr>,
}

/// The records of stream `id` on `edge`.
fn only<'s>(edge: &Edge<'s>, id: u32) -> Edge<'s> {
    edge.clone().filter(move |r| r.stream() == Some(id))
}

/// Routes for one input stream keyed by the plan's partition keys.
fn keyed(id: u32, label: &str, keys: &[PartitionKey]) -> Routes {
    Routes::from([(id, (Name::from(label), stream_key(keys)))])
}

/// Collects the rows of an output stream that later statements read too.
fn collect(edge: Edge<'_>, mut take: impl FnMut(u64, &mut Vec<Record>) + 'static) {
    edge.sink(Pipeline, "Out", move |(input, _frontier)| {
        input.for_each(|cap, data| {
            if let Some(epoch) = cap.least().copied() {
                take(epoch, data);
            }
        });
    });
}

/// The exchange that sends each record to the worker of its key (everything to worker 0 when `routes` is empty), and
/// each `Start` marker to the worker it names.
fn by_key(routes: Routes, vars: Arc<Row>) -> Exchange<Record, impl FnMut(&Record) -> u64 + 'static> {
    by_key_and_match(routes, BTreeMap::new(), vars)
}

/// As [`by_key`], and a join's driving matches by the key expression of their private stream, over the match's
/// bindings.
fn by_key_and_match(
    routes: Routes,
    matches: BTreeMap<u32, PlanExpr>,
    vars: Arc<Row>,
) -> Exchange<Record, impl FnMut(&Record) -> u64 + 'static> {
    // Every record crossing the exchange reads its key: compiled for the stream's label, as the statements are.
    let keys: BTreeMap<u32, Vec<RowExpr>> = (routes.iter())
        .map(|(stream, (label, exprs))| (*stream, exprs.iter().map(|e| RowExpr::new(e, &[label], &vars)).collect()))
        .collect();
    Exchange::new(move |record: &Record| match record {
        Record::Event { stream, row, .. } => match keys.get(stream) {
            Some(exprs) => route_hash(exprs.iter().map(|e| e.eval(&[row], &[], &vars))),
            None => 0,
        },
        Record::Match { stream, bindings, .. } => match matches.get(stream) {
            Some(expr) => {
                let rows: Vec<(&str, &Row)> = bindings.iter().map(|(t, r)| (&**t, r)).collect();
                route_hash(std::iter::once(eval(expr, &EvalScope::new(&rows, &vars))))
            }
            None => 0,
        },
        Record::Start { worker, .. } => u64::from(*worker),
    })
}

/// The input events of each stream, by stream id. When events come in on one stream only, that stream's edge is the
/// input itself and the others have none: a split would be one more operator for every epoch to pass.
fn by_stream<'s>(input: Edge<'s>, program: &Program) -> Vec<Option<Edge<'s>>> {
    let streams = program.stream_count();
    let receiving: Vec<u32> = (0..streams).filter(|id| program.receives(*id)).collect();
    match receiving.as_slice() {
        [only] => (0..streams).map(|id| (id == *only).then(|| input.clone())).collect(),
        _ => split(input, streams).into_iter().map(Some).collect(),
    }
}

/// The input split by stream, one edge per stream id (the input carries only events of declared streams; anything
/// else goes to stream 0), each stream's `Start` records with its events. A batch of one stream, the usual case, is
/// passed on whole; a mixed one is divided. (Timely's `partition` moves every record into a new batch one by one,
/// which cost the floor more than the per-stream filters it replaces.)
fn split<'s>(input: Edge<'s>, streams: u32) -> Vec<Edge<'s>> {
    let mut builder = OperatorBuilder::new("Split".to_owned(), input.scope());
    let mut records = builder.new_input(input, Pipeline);
    builder.set_notify_for(0, FrontierInterest::Never);
    let (mut outputs, edges): (Vec<_>, Vec<_>) = (0..streams).map(|_| builder.new_output::<Vec<Record>>()).unzip();
    let part = move |record: &Record| {
        let stream = match record {
            Record::Start { stream, .. } => Some(*stream),
            _ => record.stream(),
        };
        stream.filter(|s| *s < streams).unwrap_or(0) as usize
    };
    builder.build(move |_| {
        move |_frontiers| {
            let mut handles: Vec<_> = outputs.iter_mut().map(|o| o.activate()).collect();
            records.for_each_stamp(|cap, data| {
                for batch in data {
                    let Some(first) = batch.first().map(part) else {
                        continue;
                    };
                    if batch.iter().all(|r| part(r) == first) {
                        handles[first].give(&cap, batch);
                        continue;
                    }
                    let mut parts: BTreeMap<usize, Vec<Record>> = BTreeMap::new();
                    for record in batch.drain(..) {
                        parts.entry(part(&record)).or_default().push(record);
                    }
                    for (stream, mut records) in parts {
                        handles[stream].give(&cap, &mut records);
                    }
                }
            });
        }
    });
    edges
}

/// At this worker's first event of `stream`, emits a `Start` record for every worker: a statement's output clock
/// starts then. With `OUTPUT AFTER` (`every_epoch`), at its first event of every epoch that has some: the clock starts
/// at the first that is late enough.
fn clock<'s>(input: Edge<'s>, stream: u32, every_epoch: bool) -> Edge<'s> {
    let peers = input.scope().peers() as u32;
    input.unary(Pipeline, "Clock", move |_cap, _info| {
        let mut started = false;
        move |input, output| {
            input.for_each_stamp(|cap, data| {
                let seen = data.flat_map(|d| d.iter()).any(|r| r.stream() == Some(stream));
                if seen && (every_epoch || !started) {
                    started = true;
                    output.session(&cap).give_container(&mut Record::starts(cap.least().copied(), peers, stream));
                }
            });
        }
    })
}

/// Renames records of stream `from` to `to` (a merge's private trigger stream) and drops the others.
fn retag<'s>(input: Edge<'s>, from: u32, to: u32) -> Edge<'s> {
    input.unary(Pipeline, "Retag", move |_cap, _info| {
        move |input, output| {
            input.for_each_stamp(|cap, data| {
                let mut session = output.session(&cap);
                for record in data.flat_map(|d| d.drain(..)) {
                    if let Record::Event { stamp, stream, row } = record
                        && stream == from
                    {
                        session.give(Record::Event { stamp, stream: to, row });
                    }
                }
            });
        }
    })
}

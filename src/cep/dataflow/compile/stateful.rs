//! The stateful statements' operators: queries behind their exchange, batch windows, patterns and named windows,
//! each reading its input where it is when that input is already on its key's worker.

use std::sync::Arc;

use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::Concatenate;
use timely::dataflow::operators::vec::Filter;

use crate::cep::dataflow::batch::BatchLogic;
use crate::cep::dataflow::gate::{Exits, Gated, stateful_behind};
use crate::cep::dataflow::operator::{Control, Ending, stateful};
use crate::cep::dataflow::pattern::PatternLogic;
use crate::cep::dataflow::program::{merge_lookup, streams_of};
use crate::cep::dataflow::query::QueryLogic;
use crate::cep::dataflow::rated::Rated;
use crate::cep::dataflow::select::Selected;
use crate::cep::dataflow::tally::Tallied;
use crate::cep::dataflow::window::{Merge, WindowLogic};
use crate::cep::plan::{Input, Partitioning, PatternPlan, PlanExpr, PlanNode, QueryPlan, StreamInput, WindowSpec};
use crate::cep::reference::join::{held_by, removed_from};
use crate::cep::runtime::value::Name;

use super::edges::{by_key, clock, keyed, only, retag};
use super::{Compiler, Deferred, Edge, End, Feeds, Routes};

impl<'s> Compiler<'s, '_> {
    pub(super) fn stateful_query(
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
        let exits = Exits::of(q, self.created_ms, self.id(&q.sink.stream));
        match in_place && !clocked {
            true => stateful_behind(exits, (input, Pipeline), "Query", (control, ending), logic),
            false => {
                stateful_behind(exits, (input, by_key(routes, self.vars.clone())), "Query", (control, ending), logic)
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
        let exits = Exits::of(q, self.created_ms, self.id(&q.sink.stream));
        stateful_behind(exits, (input, by_key(Routes::new(), self.vars.clone())), "Batch", (control, ending), logic)
    }

    /// A pattern statement, or with `drives` the driving pattern of a join (its matches go to that private stream).
    pub(super) fn pattern(
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
        // A join's pattern hands its matches to the join, whose member drops its rows when quiet, or repeated.
        let exits = match drives {
            None => Exits::of(q, self.created_ms, self.id(&q.sink.stream)),
            Some(_) => Exits::default(),
        };
        let controls = (control, ending);
        if let Some(Deferred { input, select, .. }) = fused {
            return stateful_behind(exits, (input, Pipeline), "Pattern", controls, Selected { select, logic });
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
            return stateful_behind(exits, (merged, by_key(routes, self.vars.clone())), "Pattern", controls, logic);
        }
        if q.output.is_some() && drives.is_none() {
            // On one worker, as the planner places a statement with an output policy: routed by no key.
            let gate = Rated::new(number, self.id(&q.sink.stream), (q, self.created_ms));
            let logic = Gated { gate, logic };
            return stateful_behind(exits, (merged, by_key(routes, self.vars.clone())), "Pattern", controls, logic);
        }
        match in_place {
            true => stateful_behind(exits, (merged, Pipeline), "Pattern", controls, logic),
            false => stateful_behind(exits, (merged, by_key(routes, self.vars.clone())), "Pattern", controls, logic),
        }
    }

    /// Whether the records of stream `id` that `route` sends to their workers are there already: the route reads one
    /// column of the record itself, and the stream is placed by that column
    /// ([`Program::placed_by`](crate::cep::dataflow::program::Program::placed_by)). An operator whose every route is so
    /// reads its input where it is, and saves the exchange's hashing and buffering.
    fn routed_in_place(&self, id: u32, label: &str, exprs: &[PlanExpr]) -> bool {
        match exprs {
            [PlanExpr::Column { source, name, .. }] => {
                source == label && self.program.placed_by(self.program.name(id), name)
            }
            _ => false,
        }
    }

    /// Whether every row the statements insert into window `name` is on the worker its key column `key` picks
    /// ([`Program::keeps`](crate::cep::dataflow::program::Program::keeps)).
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

    /// Builds named window `name`: its rows go to the statements reading its stream, or end at `ending`.
    pub(super) fn build_window(&mut self, name: &str, ending: Option<Ending>) {
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

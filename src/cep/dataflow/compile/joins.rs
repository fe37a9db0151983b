//! A join group: the joins that look up one stream, built as one operator keyed by their `ON` equality when their
//! views allow it, with their looked-up stream's rows fed back inside it.

use std::collections::BTreeMap;
use std::sync::Arc;

use timely::dataflow::operators::vec::Filter;

use crate::cep::dataflow::join::{JoinLogic, Member, group_key};
use crate::cep::dataflow::operator::{Control, stateful};
use crate::cep::dataflow::program::join_members;
use crate::cep::dataflow::quiet::Quiet;
use crate::cep::dataflow::rated::Rated;
use crate::cep::plan::{Input, JoinPlan, PlanExpr, QueryPlan, Sink};
use crate::cep::reference::join::{Joiner, held_by, removed_from};

use super::edges::{by_key_and_match, retag};
use super::{Compiler, Edge, Routes};

/// What a join group's operator reads, gathered member by member: the edges, and how each private stream is routed.
struct GroupInputs<'s> {
    edges: Vec<Edge<'s>>,
    routes: Routes,
    matches: BTreeMap<u32, PlanExpr>,
}

impl<'s> Compiler<'s, '_> {
    /// Every join statement looking up `lookup`, in one operator (see `join`), built where the first is met: its
    /// inputs are `lookup`'s events from outside the group and each member's driving events or matches.
    pub(super) fn join_group(&mut self, lookup: &str) {
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
        // A join's rows are not counted: the planner refuses `OUTPUT AFTER n EVENTS` on one.
        let quiet_until = match Quiet::of(q, self.created_ms) {
            Some(Quiet::Until(until)) => Some(until),
            _ => None,
        };
        let sink = self.id(&q.sink.stream);
        let rate = q.output.is_some().then(|| Rated::new(number, sink, (q, self.created_ms)));
        Member { statement: number, trigger: tag, joiner, sink, quiet_until, rate, distinct: q.distinct }
    }

    /// A stream number no stream of the program has, for records a statement must tell apart from their stream's.
    pub(super) fn private_tag(&mut self) -> u32 {
        self.next_tag += 1;
        self.next_tag - 1
    }
}

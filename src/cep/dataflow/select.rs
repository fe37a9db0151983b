//! A stateless query (`INSERT INTO S SELECT … FROM T WHERE …`, no view): its filters, then its select list as a row
//! of the sink stream. It runs where its records are, as an operator of its own ([`operator`]), or inside the one
//! stateful operator that reads its rows, ahead of that statement's logic ([`Selected`]): the compiler fuses the two
//! when a pattern alone reads the rows and reads them where they are (`Program::fuses`). That is one operator less
//! for every epoch to pass and no container of rows between the two: on the seed geofence (`tracker` into
//! `TrackerInside` into the pattern) it saved 1 % of the workers' instructions (`benches/results/cep.md`,
//! twenty-fifth session).

use std::sync::Arc;

use smallvec::SmallVec;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;

use super::compile::Edge;
use super::operator::{Emit, Hint, Logic, State};
use super::record::{Record, millis};
use crate::cep::plan::{PlanExpr, QueryPlan, StreamInput};
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::value::Name;
use crate::cep::runtime::{Row, Val};

/// Runs `select` over `input` as an operator of its own.
pub fn operator<'s>(input: Edge<'s>, select: Select) -> Edge<'s> {
    input.unary(Pipeline, "Select", move |_cap, _info| {
        move |input, output| {
            input.for_each_stamp(|cap, data| {
                // The epoch's millisecond: a total order has one least time.
                let now = cap.least().copied().map_or(0, millis);
                // A container out per container in, sized for a row per record: growing it copied the records at
                // every doubling.
                for container in data {
                    let mut records = Vec::with_capacity(container.len());
                    records.extend(container.drain(..).filter_map(|record| select.select(record, now)));
                    if !records.is_empty() {
                        output.session(&cap).give_container(&mut records);
                    }
                }
            });
        }
    })
}

/// A stateful statement's logic behind the stateless query whose rows it alone reads. Its records are sorted before
/// the query makes its rows, in the statement's own order: a pattern's is the stamps', and the query's rows are
/// children of their events' stamps, at the same place for each, which keeps that order.
pub struct Selected<L> {
    pub select: Select,
    pub logic: L,
}

impl<L: Logic> Logic for Selected<L> {
    const AHEAD: bool = L::AHEAD;

    fn sort(&self, records: &mut [Record]) {
        self.logic.sort(records);
    }

    fn record(&mut self, emit: &mut Emit, epoch: u64, record: Record) {
        self.hinted(emit, epoch, record, None);
    }

    fn records_done(&mut self, emit: &mut Emit, epoch: u64) {
        self.logic.records_done(emit, epoch);
    }

    fn epoch_done(&mut self) {
        self.logic.epoch_done();
    }

    fn begin(&mut self, epoch: u64) {
        self.logic.begin(epoch);
    }

    fn hinted(&mut self, emit: &mut Emit, epoch: u64, record: Record, hint: Hint) {
        if let Some(record) = self.select.select(record, millis(epoch)) {
            self.logic.hinted(emit, epoch, record, hint);
        }
    }

    /// The row as it comes, under the sink stream's id: a statement's key is mostly a column the select list keeps
    /// (the tracker's id), and the statement checks a hint before it relies on it.
    fn seek(&mut self, stream: u32, row: &Row) -> Hint {
        (stream == self.select.ids.0).then(|| self.logic.seek(self.select.ids.1, row)).flatten()
    }

    fn find(&mut self, stream: u32, row: &Row, sought: Hint) -> Hint {
        (stream == self.select.ids.0).then(|| self.logic.find(self.select.ids.1, row, sought)).flatten()
    }

    fn load(&self, stream: u32, row: &Row, hint: Hint) {
        if stream == self.select.ids.0 {
            self.logic.load(self.select.ids.1, row, hint);
        }
    }

    fn next_timer(&self) -> Option<u64> {
        self.logic.next_timer()
    }

    fn fire(&mut self, emit: &mut Emit, epoch: u64) {
        self.logic.fire(emit, epoch);
    }

    fn stop(&mut self) {
        self.logic.stop();
    }

    fn export(&mut self) -> Option<State> {
        self.logic.export()
    }

    fn adopt(&mut self, state: State) {
        self.logic.adopt(state);
    }
}

/// A stateless query: filters, then the projection as a row of the sink stream. Columns copied unchanged from the
/// input (`SELECT *`, `SELECT *, e as x`) are moved out of the input row rather than cloned.
pub struct Select {
    number: usize,
    ids: (u32, u32),
    vars: Arc<Row>,
    /// The input's filter and the statement's WHERE, in that order.
    filters: Vec<RowExpr>,
    /// The columns it computes, in select-list order: every projection but the input columns of the same name.
    computed: Vec<(Name, RowExpr)>,
    /// The names of the input columns it keeps, sorted: a row that has exactly these keeps all its properties as
    /// they are.
    kept: Vec<Name>,
    /// Where each computed column goes, in select-list order, when added to a row of exactly the `kept` names; `None`
    /// when a computed column replaces a kept one, which the sorted insert decides instead.
    places: Option<Vec<usize>>,
}

impl Select {
    pub fn new(number: usize, plan: &QueryPlan, input: &StreamInput, ids: (u32, u32), vars: Arc<Row>) -> Self {
        let (copied, computed): (Vec<_>, Vec<_>) = plan.projection.iter().partition(|p| p.copies(&input.label));
        let mut kept: Vec<Name> = copied.iter().map(|p| p.name.clone()).collect();
        kept.sort();
        kept.dedup();
        let places = places(&kept, computed.iter().map(|p| &p.name));
        let labels = [input.label.as_str()];
        let compile = |e: &PlanExpr| RowExpr::new(e, &labels, &vars);
        let filters = input.filter.iter().chain(&plan.filter).map(compile).collect();
        let computed = computed.iter().map(|p| (p.name.clone(), compile(&p.expr))).collect();
        Select { number, ids, vars, filters, computed, kept, places }
    }

    /// The row `record` makes at engine millisecond `now`, as a record of the sink stream; `None` for a record of
    /// another stream or kind, or one the filters refuse.
    pub(super) fn select(&self, record: Record, now: i64) -> Option<Record> {
        let Record::Event { stamp, stream, row } = record else {
            return None;
        };
        let rows = [&row];
        if stream != self.ids.0 || !self.filters.iter().all(|f| f.holds(&rows, &[], &self.vars, Some(now))) {
            return None;
        }
        let stamp = stamp.into_child(self.number, 0);
        let mut out = row;
        if self.computed.is_empty() && out.names_are(&self.kept) {
            // A select list that keeps the row as it is shares it.
            return Some(Record::Event { stamp, stream: self.ids.1, row: out });
        }
        match self.computed.as_slice() {
            // The usual computed column, alone (the geofence's `inside`): added as it is computed, with no vector of
            // values between, which spared 4.8 % of a worker's instructions in `bench geofence` (cep.md, thirty-third
            // session).
            [(name, expr)] => {
                let value = expr.eval(&[&out], &[], &self.vars, Some(now));
                self.add(&mut out, std::iter::once((name.clone(), value)));
            }
            // Every column is computed from the input row before any is added to it.
            computed => {
                let values: SmallVec<[Val; 2]> =
                    computed.iter().map(|(_, e)| e.eval(&[&out], &[], &self.vars, Some(now))).collect();
                self.add(&mut out, computed.iter().map(|(name, _)| name.clone()).zip(values));
            }
        }
        Some(Record::Event { stamp, stream: self.ids.1, row: out })
    }

    /// Keeps the `kept` columns of `out` and adds the `computed` ones, `named`, in select-list order.
    fn add(&self, out: &mut Row, named: impl Iterator<Item = (Name, Val)>) {
        let props = out.edit(self.computed.len());
        if !props.names_are(&self.kept) {
            props.retain(|name, _| self.kept.binary_search(name).is_ok());
            for name in &self.kept {
                props.insert_absent(name.clone(), Val::Null);
            }
        }
        match &self.places {
            Some(places) => places.iter().zip(named).for_each(|(at, (name, value))| props.insert_at(*at, name, value)),
            None => props.extend(named),
        }
    }
}

/// The index at which each of `computed` is inserted, in order, into a sorted row of the `kept` names; `None` when one
/// of them is already there.
fn places<'a>(kept: &[Name], computed: impl Iterator<Item = &'a Name>) -> Option<Vec<usize>> {
    let mut names = kept.to_vec();
    computed
        .map(|name| {
            let at = names.binary_search(name).err()?;
            names.insert(at, name.clone());
            Some(at)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(texts: &[&str]) -> Vec<Name> {
        texts.iter().map(|t| Name::from(*t)).collect()
    }

    #[test]
    fn computed_columns_have_their_places_among_the_kept_ones() {
        let kept = names(&["id", "position", "time"]);
        assert_eq!(places(&kept, names(&["inside"]).iter()), Some(vec![1]));
        assert_eq!(places(&kept, names(&["inside", "a", "zone"]).iter()), Some(vec![1, 0, 5]));
        assert_eq!(places(&[], names(&["b", "a"]).iter()), Some(vec![0, 0]));
        assert_eq!(places(&kept, names(&["time"]).iter()), None, "replaces a kept column");
        assert_eq!(places(&kept, names(&["x", "x"]).iter()), None, "named twice");
    }
}

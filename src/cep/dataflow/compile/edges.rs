//! The edges between operators: splitting the input by stream, routing records to workers by key, the `Start`
//! clock records, retagging and collecting a statement's rows.

use std::collections::BTreeMap;
use std::sync::Arc;

use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::dataflow::operators::vec::Filter;
use timely::progress::operate::FrontierInterest;

use crate::cep::dataflow::program::{Program, route_hash, stream_key};
use crate::cep::dataflow::record::Record;
use crate::cep::plan::{PartitionKey, PlanExpr};
use crate::cep::runtime::Row;
use crate::cep::runtime::compiled::RowExpr;
use crate::cep::runtime::eval::{Scope as EvalScope, eval};
use crate::cep::runtime::value::Name;

use super::{Edge, Routes};

/// The records of stream `id` on `edge`.
pub(super) fn only<'s>(edge: &Edge<'s>, id: u32) -> Edge<'s> {
    edge.clone().filter(move |r| r.stream() == Some(id))
}

/// Routes for one input stream keyed by the plan's partition keys.
pub(super) fn keyed(id: u32, label: &str, keys: &[PartitionKey]) -> Routes {
    Routes::from([(id, (Name::from(label), stream_key(keys)))])
}

/// Collects the rows of an output stream that later statements read too.
pub(super) fn collect(edge: Edge<'_>, mut take: impl FnMut(u64, &mut Vec<Record>) + 'static) {
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
pub(super) fn by_key(routes: Routes, vars: Arc<Row>) -> Exchange<Record, impl FnMut(&Record) -> u64 + 'static> {
    by_key_and_match(routes, BTreeMap::new(), vars)
}

/// As [`by_key`], and a join's driving matches by the key expression of their private stream, over the match's
/// bindings.
pub(super) fn by_key_and_match(
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
            Some(exprs) => route_hash(exprs.iter().map(|e| e.eval(&[row], &[], &vars, None))),
            None => 0,
        },
        Record::Match { stream, bindings, .. } => match matches.get(stream) {
            Some(expr) => {
                let rows: Vec<(&str, &Row)> = bindings.iter().map(|(t, r)| (&**t, r)).collect();
                route_hash(std::iter::once(eval(expr, &EvalScope::new(&rows, &vars, None))))
            }
            None => 0,
        },
        Record::Start { worker, .. } => u64::from(*worker),
    })
}

/// The input events of each stream, by stream id. When events come in on one stream only, that stream's edge is the
/// input itself and the others have none: a split would be one more operator for every epoch to pass.
pub(super) fn by_stream<'s>(input: Edge<'s>, program: &Program) -> Vec<Option<Edge<'s>>> {
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
pub(super) fn split<'s>(input: Edge<'s>, streams: u32) -> Vec<Edge<'s>> {
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
pub(super) fn clock<'s>(input: Edge<'s>, stream: u32, every_epoch: bool) -> Edge<'s> {
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
pub(super) fn retag<'s>(input: Edge<'s>, from: u32, to: u32) -> Edge<'s> {
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

//! The CEP runtime on timely dataflow: a checked plan compiled to one dataflow per configuration, installed on every
//! worker of the service's pool, fed in batches (one epoch per batch, never one per event), with window expiries,
//! pattern timers and output ticks as capabilities held at their epoch. [`Dataflow`] is the [`Engine`] the service
//! runs; for any number of workers it produces the outputs of the reference evaluator (`cep::reference`), which the
//! property tests check, whether each round is waited for or the next is sent while the workers still run it.
//!
//! Layout: `record` (epochs, stamps, what travels), `program` (the plan made ready), `compile` (plan to operators),
//! `operator` (the stateful operator and its timers), `select` (the stateless query), `query`, `aggregate`, `pattern`,
//! `window`, `join`, `batch` (one module per stateful statement kind), `tally` (a pattern's aggregates), `automaton`
//! (the compact automaton of the common pattern form), `gate`, `quiet` and `rated` (`OUTPUT AFTER` alone, and output
//! policies on patterns, between a statement and its output), `slots` (where a pattern's state is filed by key),
//! `reaper` (rows freed off the workers, by the threads that make them), `watch` (when an epoch is finished),
//! `workers` (the pool and its control channel).

mod aggregate;
mod automaton;
mod batch;
mod compile;
mod distinct;
mod gate;
mod join;
mod operator;
mod pattern;
mod program;
mod query;
mod quiet;
mod rated;
mod reaper;
mod record;
mod select;
mod slots;
mod tally;
mod watch;
mod window;
mod workers;

use std::collections::VecDeque;
use std::sync::Arc;

pub use program::Program;
pub use workers::{Handover, InputEvent, PoolError, Slot, Source, Workers, dealt_to};

use self::workers::Ticket;

use self::record::{millis, timer_epoch};
use super::plan::Plan;
use super::runtime::{Engine, EngineError, Incoming, Name, Output, Row};

/// One configuration running on the worker pool.
#[derive(Debug)]
pub struct Dataflow {
    workers: Arc<Workers>,
    program: Arc<Program>,
    id: u64,
    /// The epoch the next batch may use at the earliest.
    epoch: u64,
    /// Arrival positions handed out so far.
    position: u64,
    /// The earliest timer as of the last round received.
    next_timer: Option<u64>,
    /// The streams whose first event the installed dataflow has been fed, by stream number: their output clocks
    /// run.
    started: Vec<bool>,
    /// Rounds sent and not received yet, oldest first.
    in_flight: VecDeque<Ticket>,
    /// When the statements new in this dataflow were created (`OUTPUT AFTER` counts from it).
    created_ms: i64,
}

impl Dataflow {
    /// Checks `plan` and installs its dataflow on every worker, its statements created at `created_ms`.
    pub fn new(workers: Arc<Workers>, plan: &Plan, created_ms: i64) -> Result<Self, EngineError> {
        Ok(Self::install(workers, Arc::new(Program::new(plan)?), created_ms))
    }

    /// Installs an already checked program on every worker, its statements created at `created_ms`.
    pub fn install(workers: Arc<Workers>, program: Arc<Program>, created_ms: i64) -> Self {
        let (id, next_timer) = installed(&workers, &program, None, created_ms);
        let started = vec![false; program.stream_count() as usize];
        let in_flight = VecDeque::new();
        Dataflow { workers, program, id, epoch: 0, position: 0, next_timer, started, in_flight, created_ms }
    }

    /// Installs `program` to replace this dataflow: the statements both run (`Program::kept_from`, given the event
    /// types declared differently now) take their state over, as the rounds sent so far left it, and time and arrival
    /// positions go on from here; the statements not kept are created at `now_ms`. This dataflow stays installed
    /// until it is dropped.
    pub fn replace(&self, program: Arc<Program>, changed_types: &[String], now_ms: i64) -> Self {
        let statements = program.kept_from(&self.program, changed_types);
        let handover = (!statements.is_empty()).then_some(Handover { from: self.id, statements });
        let (id, next_timer) = installed(&self.workers, &program, handover, now_ms);
        let (epoch, position) = (self.epoch, self.position);
        let started = vec![false; program.stream_count() as usize];
        let (workers, in_flight, created_ms) = (self.workers.clone(), VecDeque::new(), now_ms);
        Dataflow { workers, program, id, epoch, position, next_timer, started, in_flight, created_ms }
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Sends a round of batches, each at its arrival millisecond (increasing, and after those sent before), without
    /// waiting for the workers: they take it up when they are done with the rounds sent before, and
    /// [`Dataflow::receive`] answers its outputs.
    pub fn send(&mut self, batches: Vec<(i64, Vec<Incoming>)>) {
        let numbered = batches.into_iter().map(|(ms, events)| self.number(ms, events)).collect();
        self.send_numbered(numbered);
    }

    /// Sends a round as [`Dataflow::send`] does, whose events the workers make themselves from `source`: `counts`
    /// events of `stream` at each arrival millisecond. A stream the dataflow does not receive gets none.
    pub fn send_made(&mut self, counts: &[(i64, u64)], stream: &str, source: Arc<dyn Source>) {
        let Some(stream) = self.program.id(stream).filter(|id| self.program.receives(*id)) else {
            return;
        };
        let slots = counts.iter().map(|&(ms, events)| self.slot(ms, stream, events)).collect();
        self.ready();
        self.in_flight.push_back(self.workers.send_made(self.id, slots, source));
    }

    /// The epoch and positions of `events` events of `stream` arriving at `now_ms`, after everything fed so far.
    fn slot(&mut self, now_ms: i64, stream: u32, events: u64) -> Slot {
        let epoch = self.next_epoch(now_ms);
        let first = self.position + 1;
        self.position += events;
        let starts = match events > 0 && self.starts(stream) {
            true => vec![stream],
            false => Vec::new(),
        };
        Slot { epoch, first, events, stream, starts }
    }

    /// The outputs of the oldest round sent and not received yet, by time, once the workers are done with it; `None`
    /// when no round is in flight.
    pub fn receive(&mut self) -> Option<Vec<Output>> {
        let ticket = self.in_flight.pop_front()?;
        let mut outputs = match self.workers.collect(ticket) {
            Ok(report) => {
                self.next_timer = report.next_timer;
                report.outputs
            }
            Err(error) => {
                // A round sent to the failed pool after this one fails too: the dataflow is installed again once.
                if !self.workers.runs(self.id) {
                    self.reinstall(&error);
                }
                Vec::new()
            }
        };
        outputs.sort_by_key(|o| o.time);
        Some(outputs)
    }

    /// How many rounds are sent and not received yet.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// How many rounds a feeder should leave in flight while it gathers and sends the next ([`Workers::rounds_ahead`]).
    pub fn rounds_ahead(&self) -> usize {
        self.workers.rounds_ahead()
    }

    fn send_numbered(&mut self, mut batches: Vec<workers::Batch>) {
        if batches.is_empty() {
            return;
        }
        self.ready();
        self.mark_starts(&mut batches);
        self.in_flight.push_back(self.workers.send(self.id, batches));
    }

    /// Sends a round and answers its outputs, after those of the rounds in flight before it.
    fn run(&mut self, batches: Vec<workers::Batch>) -> Vec<Output> {
        self.send_numbered(batches);
        self.receive_all()
    }

    /// The outputs of every round in flight, in the order they were sent.
    fn receive_all(&mut self) -> Vec<Output> {
        std::iter::from_fn(|| self.receive()).flatten().collect()
    }

    /// Installs this dataflow again if the pool lost it, before a round is sent.
    fn ready(&mut self) {
        if !self.workers.runs(self.id) {
            self.reinstall(&PoolError::Lost);
        }
    }

    /// Lists in each batch the streams whose first event the installed dataflow meets there, and those with an
    /// `OUTPUT AFTER` statement whose events are there ([`Program::clocks_after`]).
    fn mark_starts(&mut self, batches: &mut [workers::Batch]) {
        for batch in batches {
            for (stream, _, _) in &batch.events {
                if !batch.starts.contains(stream) && self.starts(*stream) {
                    batch.starts.push(*stream);
                }
            }
        }
    }

    /// Whether an epoch with an event of `stream` starts clocks: the stream's first, or any with `OUTPUT AFTER`.
    fn starts(&mut self, stream: u32) -> bool {
        let first = !std::mem::replace(&mut self.started[stream as usize], true);
        first || self.program.clocks_after(stream)
    }

    /// Installs this dataflow again after the workers restarted, without its state.
    fn reinstall(&mut self, why: &PoolError) {
        tracing::error!(error = %why, "CEP dataflow reinstalled without its state");
        metrics::counter!("fluxgate_cep_dataflows_reinstalled_total").increment(1);
        (self.id, self.next_timer) = installed(&self.workers, &self.program, None, self.created_ms);
        self.started.fill(false);
    }

    /// The epoch and numbered events of a batch arriving at `now_ms`, after everything fed so far.
    fn number(&mut self, now_ms: i64, events: Vec<Incoming>) -> workers::Batch {
        let epoch = self.next_epoch(now_ms);
        let mut numbered = Vec::with_capacity(events.len());
        // Events mostly come in runs of one stream: its number is looked up once per run.
        let mut last: Option<(Name, Option<u32>)> = None;
        for (stream, row) in events {
            let id = match &last {
                Some((name, id)) if *name == stream => *id,
                _ => {
                    let id = self.program.id(&stream).filter(|id| self.program.receives(*id));
                    last = Some((stream, id));
                    id
                }
            };
            if let Some(id) = id {
                self.position += 1;
                numbered.push((id, self.position, row));
            }
        }
        workers::Batch { epoch, events: numbered, starts: Vec::new() }
    }

    /// The epoch of a batch arriving at `now_ms`, after everything fed so far.
    fn next_epoch(&mut self, now_ms: i64) -> u64 {
        let epoch = (timer_epoch(now_ms) + 1).max(self.epoch);
        self.epoch = epoch + 1;
        epoch
    }
}

/// Installs `program` on the pool; a failed install (the pool restarted) answers id 0, which names no dataflow, so the
/// next feed installs it again.
fn installed(
    workers: &Workers,
    program: &Arc<Program>,
    handover: Option<Handover>,
    created_ms: i64,
) -> (u64, Option<u64>) {
    workers.install(program.clone(), handover, created_ms).unwrap_or_else(|error| {
        tracing::error!(%error, "CEP dataflow not installed; the next events install it again");
        (0, None)
    })
}

impl Engine for Dataflow {
    fn push(&mut self, now_ms: i64, stream: &str, event: Row) -> Vec<Output> {
        self.push_batch(now_ms, vec![(stream.into(), event)])
    }

    fn push_batch(&mut self, now_ms: i64, events: Vec<Incoming>) -> Vec<Output> {
        self.push_batches(vec![(now_ms, events)])
    }

    /// All batches in one round of the workers: timely runs their epochs pipelined.
    fn push_batches(&mut self, batches: Vec<(i64, Vec<Incoming>)>) -> Vec<Output> {
        self.send(batches);
        self.receive_all()
    }

    /// Receives the rounds in flight first, so that the earliest timer is known.
    fn advance(&mut self, now_ms: i64) -> Vec<Output> {
        let mut outputs = self.receive_all();
        let due = timer_epoch(now_ms);
        if self.next_timer.is_some_and(|t| t <= due) {
            let epoch = due.max(self.epoch);
            self.epoch = epoch + 1;
            outputs.extend(self.run(vec![workers::Batch { epoch, ..workers::Batch::default() }]));
        }
        outputs
    }

    fn next_timer(&self) -> Option<i64> {
        self.next_timer.map(millis)
    }
}

impl Drop for Dataflow {
    /// Waits for the rounds in flight, whose reports would otherwise wait for it on the pool, then removes the
    /// dataflow.
    fn drop(&mut self) {
        self.receive_all();
        self.workers.remove(self.id);
    }
}

#[cfg(test)]
mod tests;

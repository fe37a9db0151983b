//! The CEP runtime on timely dataflow: a checked plan compiled to one dataflow per configuration, installed on every
//! worker of the service's pool, fed in batches (one epoch per batch, never one per event), with window expiries,
//! pattern timers and output ticks as capabilities held at their epoch. [`Dataflow`] is the [`Engine`] the service
//! runs; for any number of workers it produces the outputs of the reference evaluator (`cep::reference`), which the
//! property tests check.
//!
//! Layout: `record` (epochs, stamps, what travels), `program` (the plan made ready), `compile` (plan to operators),
//! `operator` (the stateful operator and its timers), `query`, `aggregate`, `pattern`, `window` (one module per
//! stateful statement kind), `workers` (the pool and its control channel).

mod aggregate;
mod compile;
mod operator;
mod pattern;
mod program;
mod query;
mod record;
mod window;
mod workers;

use std::sync::Arc;

pub use program::Program;
pub use workers::Workers;

use self::record::{millis, timer_epoch};
use super::plan::Plan;
use super::runtime::{Engine, EngineError, Output, Row};

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
    next_timer: Option<u64>,
}

impl Dataflow {
    /// Checks `plan` and installs its dataflow on every worker.
    pub fn new(workers: Arc<Workers>, plan: &Plan) -> Result<Self, EngineError> {
        Ok(Self::install(workers, Arc::new(Program::new(plan)?)))
    }

    /// Installs an already checked program on every worker.
    pub fn install(workers: Arc<Workers>, program: Arc<Program>) -> Self {
        let id = workers.install(program.clone());
        Dataflow { workers, program, id, epoch: 0, position: 0, next_timer: None }
    }

    fn run(&mut self, epoch: u64, events: Vec<workers::InputEvent>) -> Vec<Output> {
        let report = self.workers.feed(self.id, epoch, events);
        self.epoch = self.epoch.max(epoch + 1);
        self.next_timer = report.next_timer;
        let mut outputs = report.outputs;
        outputs.sort_by_key(|o| o.time);
        outputs
    }
}

impl Engine for Dataflow {
    fn push(&mut self, now_ms: i64, stream: &str, event: Row) -> Vec<Output> {
        self.push_batch(now_ms, vec![(stream.to_owned(), event)])
    }

    fn push_batch(&mut self, now_ms: i64, events: Vec<(String, Row)>) -> Vec<Output> {
        let base = timer_epoch(now_ms);
        let epoch = (base + 1).max(self.epoch);
        let mut numbered = Vec::with_capacity(events.len());
        for (stream, row) in events {
            if let Some(id) = self.program.id(&stream) {
                self.position += 1;
                numbered.push((id, self.position, row));
            }
        }
        self.run(epoch, numbered)
    }

    fn advance(&mut self, now_ms: i64) -> Vec<Output> {
        let due = timer_epoch(now_ms);
        if self.next_timer.is_none_or(|t| t > due) {
            return Vec::new();
        }
        self.run(due.max(self.epoch), Vec::new())
    }

    fn next_timer(&self) -> Option<i64> {
        self.next_timer.map(millis)
    }
}

impl Drop for Dataflow {
    fn drop(&mut self) {
        self.workers.remove(self.id);
    }
}

#[cfg(test)]
mod tests;

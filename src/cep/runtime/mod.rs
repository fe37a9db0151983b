//! What runs a checked plan: the [`Engine`] trait every runtime implements, the values and expression
//! evaluator they share, and the conversions between events and NGSI entities. The engine sees time only as the
//! milliseconds it is given (an engine clock, wall or manual); arrival order inside a millisecond is the order of
//! calls. The timely dataflow runtime (`cep::dataflow`) is the engine in service; the single-threaded reference
//! evaluator (`cep::reference`) implements the same trait, and the dataflow must produce its outputs.

pub mod batch_pace;
pub mod before_pace;
pub mod compiled;
pub mod counted;
pub mod distinct;
pub mod eval;
pub mod first;
pub mod geometry;
pub mod key;
pub mod math;
pub mod name;
pub mod order;
pub mod prefetch;
pub mod previous;
pub mod prior;
pub mod props;
pub mod regexp;
pub mod spare;
pub mod text;
pub mod value;

use std::fmt::Debug;

use thiserror::Error;

pub use value::{Name, Row, Val};

/// An event for an engine: the name of its stream (a declared `in` type, interned like every property name, so
/// handing it over copies a pointer) and its row.
pub type Incoming = (Name, Row);

/// A row a statement inserted into an `out` type, at engine time `time`.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub time: i64,
    /// The `out` type (the statement's `INSERT INTO` stream).
    pub stream: String,
    pub row: Row,
}

/// A running configuration: events in, timers advanced, `out` rows produced.
pub trait Engine: Send + Debug {
    /// Fires every timer due at or before `now_ms`, then processes one event of `stream` at `now_ms`.
    fn push(&mut self, now_ms: i64, stream: &str, event: Row) -> Vec<Output>;
    /// Processes `events` in order at `now_ms`, as one batch (the dataflow runtime's epoch).
    fn push_batch(&mut self, now_ms: i64, events: Vec<Incoming>) -> Vec<Output> {
        events.into_iter().flat_map(|(stream, row)| self.push(now_ms, &stream, row)).collect()
    }
    /// Processes batches at their milliseconds (non-decreasing), as `push_batch` would one after the other.
    fn push_batches(&mut self, batches: Vec<(i64, Vec<Incoming>)>) -> Vec<Output> {
        batches.into_iter().flat_map(|(ms, events)| self.push_batch(ms, events)).collect()
    }
    /// Fires every timer due at or before `now_ms`.
    fn advance(&mut self, now_ms: i64) -> Vec<Output>;
    /// When the earliest pending timer is due.
    fn next_timer(&self) -> Option<i64>;
}

/// Why a plan cannot run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EngineError {
    #[error("statement {statement}: {construct} is not supported")]
    Unsupported { statement: usize, construct: String },
}

//! `SELECT DISTINCT` on the dataflow: of the rows a statement emits for one event, timer or output tick (one batch,
//! [`Stamp::batch`]), the first of each equal set goes on ([`distinct::key`]), as the reference keeps them. The planner
//! puts such a statement on one worker when it may make several rows at once, so the rows compared are all here.
//! A gate for the statements of their own operator ([`Distinct`]); the members of a join, which share theirs, call
//! [`first_of_each`] on what they emitted in the epoch: the rows of a pattern's several matches at one event, one
//! batch, come from several of the join's records.

use std::collections::HashSet;

use super::gate::Gate;
use super::operator::Emit;
use super::record::{Record, Stamp};
use crate::cep::runtime::distinct;

/// Drops, of the records after `mark`, each row equal to an earlier one of its batch ([`Stamp::batch`]), among the
/// rows `compared` picks by their stamp and stream.
pub fn first_of_each(emit: &mut Emit, mark: usize, compared: impl Fn(&Stamp, u32) -> bool) {
    let mut seen = HashSet::new();
    emit.retain_after(mark, |record| match record {
        Record::Event { stamp, stream, row } if compared(stamp, *stream) => {
            seen.insert((stamp.batch(), distinct::key(row)))
        }
        _ => true,
    });
}

/// The gate of a `DISTINCT` statement writing stream `sink`. It keeps nothing between epochs.
pub struct Distinct {
    sink: u32,
    kept: (),
}

impl Distinct {
    pub fn new(sink: u32) -> Self {
        Distinct { sink, kept: () }
    }
}

impl Gate for Distinct {
    type Kept = ();

    fn take(&mut self, emit: &mut Emit, _epoch: u64, mark: usize) {
        first_of_each(emit, mark, |_, stream| stream == self.sink);
    }

    fn kept(&mut self) -> &mut () {
        &mut self.kept
    }
}

//! `OUTPUT AFTER d` without a period on a query, a pattern or a batch window: the rows the statement emits in its first
//! `d` are dropped as they are made, its state kept all along, as Esper's after view drops them before they reach the
//! listeners or an insert-into stream. The time they end at is state: a statement kept across a replacement keeps its
//! own. (The members of a join share one operator, so each checks its own time, `join`.)

use super::gate::Gate;
use super::operator::Emit;
use super::record::millis;
use crate::cep::plan::QueryPlan;

/// The millisecond before which the rows of `q`, created at `created_ms`, are dropped: with `OUTPUT AFTER d` alone.
pub fn quiet_until(q: &QueryPlan, created_ms: i64) -> Option<i64> {
    q.quiet_millis.map(|d| created_ms.saturating_add(d as i64))
}

/// Drops the rows made before the millisecond `until`.
pub struct Quiet {
    pub until: i64,
}

impl Gate for Quiet {
    type Kept = i64;

    fn take(&mut self, emit: &mut Emit, epoch: u64, mark: usize) {
        if millis(epoch) < self.until {
            emit.truncate(mark);
        }
    }

    fn kept(&mut self) -> &mut i64 {
        &mut self.until
    }
}

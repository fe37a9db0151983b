//! `OUTPUT AFTER d` or `OUTPUT AFTER n EVENTS` without a period, on a query, a pattern or a batch window: the rows the
//! statement emits in its first `d`, or until it has made more than `n` rows, are dropped as they are made, its state
//! kept all along, as Esper's after view drops them before they reach the listeners or an insert-into stream. Esper's
//! view counts the rows of each update (one event's or timer's) at once: an update that takes the count past `n`
//! passes whole. The time or the count is state: a statement kept across a replacement keeps its own. (The members of
//! a join share one operator, so each checks its own time, `join`.)

use super::gate::Gate;
use super::operator::Emit;
use super::record::millis;
use crate::cep::plan::QueryPlan;

/// What `OUTPUT AFTER` alone holds back of a statement's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quiet {
    /// Those made before this millisecond.
    Until(i64),
    /// Those of each update until more than `count` rows were made; `made` so far.
    Rows { count: u64, made: u64 },
}

impl Default for Quiet {
    fn default() -> Self {
        Quiet::Until(i64::MIN)
    }
}

impl Quiet {
    /// What `q`, created at `created_ms`, holds back, with `OUTPUT AFTER` alone.
    pub fn of(q: &QueryPlan, created_ms: i64) -> Option<Quiet> {
        match (q.quiet_millis, q.quiet_rows) {
            (Some(d), _) => Some(Quiet::Until(created_ms.saturating_add(d as i64))),
            (None, Some(count)) => Some(Quiet::Rows { count, made: 0 }),
            (None, None) => None,
        }
    }

    /// Whether the `rows` rows one update made at millisecond `now` pass; counts them.
    pub fn passes(&mut self, now: i64, rows: usize) -> bool {
        match self {
            Quiet::Until(until) => now >= *until,
            Quiet::Rows { count, made } => {
                *made = made.saturating_add(rows as u64);
                *made > *count
            }
        }
    }
}

impl Gate for Quiet {
    type Kept = Quiet;

    fn take(&mut self, emit: &mut Emit, epoch: u64, mark: usize) {
        if !self.passes(millis(epoch), emit.mark() - mark) {
            emit.truncate(mark);
        }
    }

    fn kept(&mut self) -> &mut Quiet {
        self
    }
}

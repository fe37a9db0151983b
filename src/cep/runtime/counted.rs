//! `OUTPUT ... EVERY n EVENTS` of a query over one stream: when it releases. Esper's `OutputConditionCount` counts
//! apart the events that enter the statement's view and pass `WHERE`, and those of them that leave it (displaced,
//! or expired together), and releases as soon as either count reaches `n`, after the update that reached it and
//! with its rows; then both start again from 0. An update that neither enters nor lets go a row that passed `WHERE`
//! never reaches Esper's output view. The release is what a tick of the same policy over time releases; under
//! `OUTPUT FIRST` (without `GROUP BY` or `HAVING`) the first update of each count lets its rows out as they come, and
//! the others' are dropped, as Esper 5's `OutputConditionFirst` does. The reference evaluator and the dataflow keep
//! one each.

use crate::cep::plan::QueryPlan;

#[derive(Debug)]
pub struct EventCount {
    every: u64,
    entered: u64,
    left: u64,
    /// Whether the update under way entered or let go a row that counts.
    touched: bool,
}

/// What an update did to the count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    /// Whether it reached the output: a row that counts entered or left.
    pub reached: bool,
    /// Whether it released (and the counts started again).
    pub due: bool,
}

impl EventCount {
    /// The count of `q`, when its policy counts events.
    pub fn of(q: &QueryPlan) -> Option<Self> {
        let every = q.output.as_ref()?.every_events?;
        Some(EventCount { every, entered: 0, left: 0, touched: false })
    }

    /// `n` rows that count entered the view.
    pub fn enter(&mut self, n: usize) {
        self.entered += n as u64;
        self.touched |= n > 0;
    }

    /// `n` rows that counted left the view.
    pub fn leave(&mut self, n: usize) {
        self.left += n as u64;
        self.touched |= n > 0;
    }

    /// The update under way is over.
    pub fn end_update(&mut self) -> Counted {
        let reached = std::mem::take(&mut self.touched);
        let due = self.entered >= self.every || self.left >= self.every;
        if due {
            (self.entered, self.left) = (0, 0);
        }
        Counted { reached, due }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(every: u64) -> EventCount {
        EventCount { every, entered: 0, left: 0, touched: false }
    }

    #[test]
    fn either_count_reaching_n_releases_and_both_start_again() {
        let mut c = count(3);
        for _ in 0..2 {
            c.enter(1);
            c.leave(1);
            assert_eq!(c.end_update(), Counted { reached: true, due: false });
        }
        c.enter(1);
        assert_eq!(c.end_update(), Counted { reached: true, due: true }, "three entered");
        c.leave(2);
        assert_eq!(c.end_update(), Counted { reached: true, due: false }, "the two left before were forgotten");
        c.leave(1);
        assert!(c.end_update().due, "three left");
    }

    #[test]
    fn an_update_of_no_row_that_counts_does_not_reach_the_output() {
        let mut c = count(1);
        c.enter(0);
        c.leave(0);
        assert_eq!(c.end_update(), Counted { reached: false, due: false });
        c.leave(4);
        assert_eq!(c.end_update(), Counted { reached: true, due: true }, "several leaving together are one update");
    }
}

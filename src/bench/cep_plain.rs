//! The COST baseline of `fluxgate bench geofence` and `fluxgate bench floor`: the same two jobs written as plain
//! single-threaded Rust over typed events, with no plan, no dynamic rows and no generic timers.
//!
//! ```text
//! fluxgate bench floor --workers 1 --duration 5 [--keys 10000] [--per-ms 1] [--json]
//! ```
//!
//! Geofence: a tracker's position run (consecutive positions on the same side of the fence) is confirmed when it
//! lasts 4 seconds, and an alert is written when the confirmed side changes (or is first known), which is what the
//! seed's pattern, merge and unique window produce. Floor: a 10-minute window kept as a FIFO with a running sum and
//! count per floor, and every 10 seconds the average of each floor that changed.

use std::collections::VecDeque;

use geo::{Contains, LineString, Point, Polygon};

use super::cep_workload::{Event, FLOORS};

/// How long a side must hold before it is confirmed, and the floor window and output period.
const CONFIRM_MS: i64 = 4_000;
const WINDOW_MS: i64 = 600_000;
const OUTPUT_MS: i64 = 10_000;

/// The seed fence as a closed ring of (latitude, longitude).
const FENCE: [(f64, f64); 5] = [(43.59, 1.43), (43.59, 1.46), (43.61, 1.46), (43.61, 1.43), (43.59, 1.43)];

/// A plain implementation of one job: events in, the number of output rows out.
pub trait PlainJob {
    fn push(&mut self, event: &Event) -> usize;
}

/// The fence, tested as the engine tests it (`geo::Contains`): the baseline differs in its plan, not its predicate.
fn fence() -> Polygon<f64> {
    Polygon::new(LineString::from(FENCE.to_vec()), Vec::new())
}

#[derive(Debug, Clone, Copy, Default)]
struct Tracker {
    confirmed: Option<bool>,
    pending: Option<bool>,
    run: u32,
}

/// Geofence alerts with a 4 second confirmation.
#[derive(Debug)]
pub struct PlainGeofence {
    fence: Polygon<f64>,
    trackers: Vec<Tracker>,
    /// (due, tracker, run): due times only grow, so a FIFO is the timer queue.
    due: VecDeque<(i64, u32, u32)>,
}

impl Default for PlainGeofence {
    fn default() -> Self {
        PlainGeofence { fence: fence(), trackers: Vec::new(), due: VecDeque::new() }
    }
}

impl PlainGeofence {
    fn fire(&mut self, key: u32, run: u32) -> usize {
        let t = &mut self.trackers[key as usize];
        let Some(side) = t.pending.filter(|_| t.run == run) else {
            return 0;
        };
        t.pending = None;
        let changed = t.confirmed != Some(side);
        t.confirmed = Some(side);
        usize::from(changed)
    }
}

impl PlainJob for PlainGeofence {
    fn push(&mut self, e: &Event) -> usize {
        let mut outputs = 0;
        while let Some(&(_, key, run)) = self.due.front().filter(|(at, _, _)| *at <= e.at_ms) {
            self.due.pop_front();
            outputs += self.fire(key, run);
        }
        if self.trackers.len() <= e.key as usize {
            self.trackers.resize(e.key as usize + 1, Tracker::default());
        }
        let side = self.fence.contains(&Point::new(e.x, e.y));
        let t = &mut self.trackers[e.key as usize];
        if t.pending != Some(side) {
            t.run = t.run.wrapping_add(1);
            t.pending = Some(side);
            self.due.push_back((e.at_ms + CONFIRM_MS, e.key, t.run));
        }
        outputs
    }
}

/// The 10-minute average temperature of each floor, output every 10 seconds for the floors that changed.
#[derive(Debug)]
pub struct PlainFloor {
    window: VecDeque<(i64, u32, f64)>,
    sums: Vec<(f64, u64)>,
    changed: Vec<bool>,
    next_output: Option<i64>,
}

impl Default for PlainFloor {
    fn default() -> Self {
        PlainFloor {
            window: VecDeque::new(),
            sums: vec![(0.0, 0); FLOORS as usize],
            changed: vec![false; FLOORS as usize],
            next_output: None,
        }
    }
}

impl PlainFloor {
    fn expire(&mut self, now: i64) {
        while let Some(&(_, floor, t)) = self.window.front().filter(|(due, _, _)| *due <= now) {
            self.window.pop_front();
            let sum = &mut self.sums[floor as usize];
            *sum = (sum.0 - t, sum.1 - 1);
            self.changed[floor as usize] = true;
        }
    }

    /// The averages of the changed floors (an emptied floor's is null, as in the engine).
    fn output(&mut self) -> usize {
        let mut outputs = 0;
        for (changed, (sum, count)) in self.changed.iter_mut().zip(&self.sums) {
            if std::mem::take(changed) {
                std::hint::black_box((*count > 0).then(|| sum / *count as f64));
                outputs += 1;
            }
        }
        outputs
    }
}

impl PlainJob for PlainFloor {
    fn push(&mut self, e: &Event) -> usize {
        let mut outputs = 0;
        while let Some(at) = self.next_output.filter(|at| *at <= e.at_ms) {
            self.expire(at);
            outputs += self.output();
            self.next_output = Some(at + OUTPUT_MS);
        }
        self.expire(e.at_ms);
        self.next_output.get_or_insert(e.at_ms + OUTPUT_MS);
        let floor = e.key % FLOORS;
        self.window.push_back((e.at_ms + WINDOW_MS, floor, e.x));
        let sum = &mut self.sums[floor as usize];
        *sum = (sum.0 + e.x, sum.1 + 1);
        self.changed[floor as usize] = true;
        outputs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(at_ms: i64, key: u32, x: f64) -> Event {
        Event { at_ms, key, x, y: 1.44 }
    }

    #[test]
    fn the_fence_contains_its_middle_only() {
        let inside = |x, y| fence().contains(&Point::new(x, y));
        assert!(inside(43.60, 1.44));
        assert!(!inside(43.62, 1.44) && !inside(43.60, 1.47));
    }

    #[test]
    fn a_side_is_alerted_once_it_held_four_seconds() {
        let mut job = PlainGeofence::default();
        assert_eq!(job.push(&at(0, 0, 43.70)), 0);
        assert_eq!(job.push(&at(3_999, 0, 43.70)), 0);
        assert_eq!(job.push(&at(4_000, 0, 43.70)), 1);
        assert_eq!(job.push(&at(5_000, 0, 43.60)), 0);
        assert_eq!(job.push(&at(6_000, 0, 43.70)), 0);
        assert_eq!(job.push(&at(9_000, 0, 43.70)), 0, "back outside: nothing changed");
        assert_eq!(job.push(&at(10_000, 0, 43.60)), 0);
        assert_eq!(job.push(&at(14_000, 0, 43.60)), 1);
    }

    #[test]
    fn floors_average_their_window_every_ten_seconds() {
        let mut job = PlainFloor::default();
        assert_eq!(job.push(&at(0, 1, 20.0)), 0);
        assert_eq!(job.push(&at(1, 101, 22.0)), 0);
        assert_eq!(job.push(&at(10_000, 2, 22.0)), 1);
        assert_eq!(job.sums[1], (42.0, 2));
        let later = "floor 2 at 20 s, floor 1 losing a room at 600 s, both emptied at 610 s";
        assert_eq!(job.push(&at(700_000, 2, 22.0)), 4, "{later}");
    }
}

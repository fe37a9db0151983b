//! Crossings against arrivals: each crossing (tracker, new side, send time) is owed exactly one alert, due when its
//! confirmation ends (send time + 4 s); its latency is the alert's arrival minus that deadline, in milliseconds,
//! signed. An alert nobody is owed is unexpected; a crossing without its alert is missing. Pure: no I/O, no clock.

use std::collections::HashMap;
use std::time::Instant;

use super::pace::Crossing;
use super::schedule::CONFIRMATION;
use super::watch::Arrival;

/// The alerts of a run, matched.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// One per matched alert, ascending.
    pub latencies_ms: Vec<f64>,
    pub missing: usize,
    pub unexpected: usize,
}

/// Matches each arrival to the crossing of its tracker and side.
pub fn outcome(crossings: &[Crossing], arrivals: &[Arrival]) -> Outcome {
    let mut owed: HashMap<(u32, bool), Instant> =
        crossings.iter().map(|c| ((c.tracker, c.inside), c.sent + CONFIRMATION)).collect();
    let mut result = Outcome::default();
    for arrival in arrivals {
        match owed.remove(&(arrival.tracker, arrival.inside)) {
            Some(deadline) => result.latencies_ms.push(signed_ms(arrival.at, deadline)),
            None => result.unexpected += 1,
        }
    }
    result.missing = owed.len();
    result.latencies_ms.sort_by(f64::total_cmp);
    result
}

/// `at - since` in milliseconds, negative when `at` is earlier.
fn signed_ms(at: Instant, since: Instant) -> f64 {
    match at.checked_duration_since(since) {
        Some(after) => after.as_secs_f64() * 1e3,
        None => -(since - at).as_secs_f64() * 1e3,
    }
}

impl Outcome {
    /// The nearest-rank `quantile` of the latencies (0 when there are none).
    pub fn ms(&self, quantile: f64) -> f64 {
        let n = self.latencies_ms.len();
        let rank = (quantile * n as f64).ceil().max(1.0) as usize;
        self.latencies_ms.get(rank.min(n).saturating_sub(1)).copied().unwrap_or(0.0)
    }

    pub fn max_ms(&self) -> f64 {
        self.latencies_ms.last().copied().unwrap_or(0.0)
    }

    pub fn min_ms(&self) -> f64 {
        self.latencies_ms.first().copied().unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn each_crossing_takes_one_alert_of_its_side() {
        let t0 = Instant::now();
        let crossing = |tracker, inside| Crossing { tracker, inside, sent: t0 };
        let arrival =
            |tracker, inside, ms| Arrival { at: t0 + CONFIRMATION + Duration::from_millis(ms), tracker, inside };
        let crossings = [crossing(1, true), crossing(2, false), crossing(3, true)];
        let arrivals = [arrival(2, false, 7), arrival(1, true, 3), arrival(1, true, 9), arrival(2, true, 1)];
        let outcome = outcome(&crossings, &arrivals);
        assert_eq!(outcome.latencies_ms, vec![3.0, 7.0]);
        assert_eq!((outcome.missing, outcome.unexpected), (1, 2));
    }

    #[test]
    fn early_alerts_have_negative_latency() {
        let t0 = Instant::now() + Duration::from_secs(1);
        assert_eq!(signed_ms(t0 - Duration::from_millis(2), t0), -2.0);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let outcome = Outcome { latencies_ms: (1..=200).map(f64::from).collect(), ..Outcome::default() };
        assert_eq!((outcome.ms(0.5), outcome.ms(0.99), outcome.max_ms()), (100.0, 198.0, 200.0));
        assert_eq!(Outcome::default().ms(0.99), 0.0);
    }
}

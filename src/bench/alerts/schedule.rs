//! The load of `fluxgate bench alerts` as plain data: which tracker sends reading `seq`, when it is due, on which
//! side of the seed fence it is, and which readings start a side that the geofence will confirm. Pure functions of
//! the options: no I/O and no clock, so the shape of the load is tested on its own.
//!
//! Reading `seq` belongs to tracker `seq % trackers` and is due `seq / rate` seconds after the load starts, so every
//! tracker reports every `trackers / rate` seconds; each tracker's readings go through one connection. Crosser `j` (tracker `j * stride`) changes side once, at a time
//! spread evenly over the run such that its 4 s confirmation ends under load; every other tracker keeps its side.

use std::time::Duration;

use bytes::Bytes;

/// How long a side must hold before the geofence confirms it (`timer:interval(4 sec)` of the seed).
pub const CONFIRMATION: Duration = Duration::from_secs(4);
/// The first crossing comes this long after the load starts.
const FIRST_CROSSING_S: f64 = 0.5;
/// The last confirmation ends at least this long before the load stops, so every alert is due under load.
const LAST_DEADLINE_MARGIN_S: f64 = 0.5;
/// The shortest run that leaves room for a crossing and its confirmation.
pub const SHORTEST_RUN: Duration = Duration::from_millis(5_000);

/// Positions inside and outside the seed fence (latitude 43.59 to 43.61, longitude 1.43 to 1.46).
const INSIDE: &str = "43.600, 1.445";
const OUTSIDE: &str = "43.700, 1.445";

/// The readings of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    trackers: u64,
    rate: f64,
    stride: u64,
    /// Per tracker, the `seq` of its first reading on the other side; `None` for trackers that never cross.
    crossing: Vec<Option<u64>>,
}

/// Tracker `t`'s entity id.
pub fn tracker_id(tracker: u32) -> String {
    format!("Tracker{tracker}")
}

impl Schedule {
    /// `crossers` of `trackers` cross once each during a run of `duration` at `rate` readings per second.
    pub fn new(trackers: u32, crossers: u32, rate: f64, duration: Duration) -> Schedule {
        let (n, k) = (u64::from(trackers.max(1)), u64::from(crossers.clamp(1, trackers.max(1))));
        let stride = n / k;
        let window = duration.as_secs_f64() - CONFIRMATION.as_secs_f64() - FIRST_CROSSING_S - LAST_DEADLINE_MARGIN_S;
        let mut crossing = vec![None; n as usize];
        for j in 0..k {
            let at_s = FIRST_CROSSING_S + (j as f64 + 0.5) * window.max(0.0) / k as f64;
            crossing[(j * stride) as usize] = Some(first_reading_after(j * stride, n, at_s * rate));
        }
        Schedule { trackers: n, rate, stride, crossing }
    }

    /// The `k`-th reading of connection `lane` of `lanes`, which sends every reading of trackers `lane`,
    /// `lane + lanes`, ... in order, so one tracker's readings reach the server in the order of their sides; `None`
    /// when the lane has no tracker.
    pub fn lane_seq(&self, lane: u64, lanes: u64, k: u64) -> Option<u64> {
        let mine = self.trackers.saturating_sub(lane).div_ceil(lanes.max(1));
        (mine > 0).then(|| (k / mine) * self.trackers + lane + (k % mine) * lanes)
    }

    pub fn tracker(&self, seq: u64) -> u32 {
        (seq % self.trackers) as u32
    }

    /// When reading `seq` is due, counted from the start of the load.
    pub fn due(&self, seq: u64) -> Duration {
        Duration::from_secs_f64(seq as f64 / self.rate)
    }

    /// Crossers alternate the side they start on; the others are inside when even.
    pub fn starts_inside(&self, tracker: u32) -> bool {
        let t = u64::from(tracker);
        match self.crossing[t as usize] {
            Some(_) => (t / self.stride).is_multiple_of(2),
            None => t.is_multiple_of(2),
        }
    }

    pub fn inside(&self, seq: u64) -> bool {
        let t = self.tracker(seq);
        self.starts_inside(t) != self.crossing[t as usize].is_some_and(|c| seq >= c)
    }

    /// The tracker and its new side, when reading `seq` is the first on that side.
    pub fn crossing(&self, seq: u64) -> Option<(u32, bool)> {
        let t = self.tracker(seq);
        (self.crossing[t as usize] == Some(seq)).then(|| (t, self.inside(seq)))
    }

    pub fn trackers(&self) -> u32 {
        self.trackers as u32
    }

    /// The `/cep/notify` body of reading `seq`.
    pub fn body(&self, seq: u64) -> Bytes {
        reading(self.tracker(seq), self.inside(seq))
    }
}

/// The `seq` of tracker `t`'s first reading due at or after reading number `at` of the whole load.
fn first_reading_after(t: u64, trackers: u64, at: f64) -> u64 {
    let round = ((at - t as f64) / trackers as f64).ceil().max(0.0) as u64;
    round * trackers + t
}

/// An NGSI notification of one tracker's position, as a `/cep/notify` subscription would send it.
pub fn reading(tracker: u32, inside: bool) -> Bytes {
    let position = if inside { INSIDE } else { OUTSIDE };
    let id = tracker_id(tracker);
    Bytes::from(format!(
        r#"{{"subscriptionId":"bench-alerts","originator":"localhost","contextResponses":[{{"contextElement":{{"type":"tracker","isPattern":"false","id":"{id}","attributes":[{{"name":"position","type":"geo:point","value":"{position}","metadatas":[{{"name":"location","type":"string","value":"WGS84"}}]}}]}},"statusCode":{{"code":"200","reasonPhrase":"OK"}}}}]}}"#
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: Duration = Duration::from_secs(20);

    /// Every `seq` of the run, in order.
    fn run(rate: f64) -> std::ops::Range<u64> {
        0..(RUN.as_secs_f64() * rate) as u64
    }

    #[test]
    fn each_crosser_changes_side_once_and_is_confirmed_under_load() {
        let schedule = Schedule::new(1_000, 200, 10_000.0, RUN);
        let mut last = vec![None; 1_000];
        let mut changes = vec![0; 1_000];
        for seq in run(10_000.0) {
            let t = schedule.tracker(seq) as usize;
            let inside = schedule.inside(seq);
            if last[t].is_some_and(|was| was != inside) {
                changes[t] += 1;
                assert_eq!(schedule.crossing(seq), Some((t as u32, inside)));
                let deadline = schedule.due(seq) + CONFIRMATION;
                assert!(deadline.as_secs_f64() <= RUN.as_secs_f64() - LAST_DEADLINE_MARGIN_S, "{deadline:?}");
            }
            last[t] = Some(inside);
        }
        assert_eq!(changes.iter().filter(|&&c| c == 1).count(), 200);
        assert!(changes.iter().all(|&c| c <= 1));
    }

    #[test]
    fn crossers_go_both_ways_and_the_first_reading_keeps_the_starting_side() {
        let schedule = Schedule::new(10, 4, 100.0, RUN);
        let starts: Vec<bool> = (0..10).filter(|t| t % 2 == 0).map(|t| schedule.starts_inside(t)).collect();
        assert!(starts.contains(&true) && starts.contains(&false), "{starts:?}");
        assert!((0..10).all(|seq| schedule.crossing(seq).is_none()));
    }

    #[test]
    fn lanes_send_every_reading_once_and_each_in_order() {
        let schedule = Schedule::new(10, 2, 100.0, RUN);
        let mut seen = Vec::new();
        for lane in 0..4 {
            let seqs: Vec<u64> = (0..9).filter_map(|k| schedule.lane_seq(lane, 4, k)).collect();
            assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
            assert!(seqs.iter().all(|&seq| u64::from(schedule.tracker(seq)) % 4 == lane), "{seqs:?}");
            seen.extend(seqs.into_iter().filter(|&seq| seq < 20));
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..20).collect::<Vec<_>>());
        assert_eq!(schedule.lane_seq(11, 12, 0), None);
    }

    #[test]
    fn readings_are_notifications_the_ingest_routes() {
        let body: serde_json::Value = serde_json::from_slice(&reading(7, true)).unwrap();
        let element = &body["contextResponses"][0]["contextElement"];
        assert_eq!((element["id"].as_str(), element["type"].as_str()), (Some("Tracker7"), Some("tracker")));
        assert_eq!(element["attributes"][0]["value"], INSIDE);
    }
}

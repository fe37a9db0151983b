//! The events of `fluxgate bench geofence` and `fluxgate bench floor`: a deterministic generator of tracker
//! positions near the edge of the seed fence (`queries/geofence.json`) and of room temperatures on floors
//! (`queries/floor-average.json`), stamped by a synthetic clock that advances one millisecond every `per_ms` events.
//!
//! ```text
//! fluxgate bench geofence --workers 1,2 --duration 5 [--keys 100000] [--per-ms 10] [--json]
//! ```
//!
//! Events are compact ([`Event`]) so that the plain baseline pays nothing for the engine's dynamic rows; the engine
//! side converts each one to the [`Row`] ingest would have built ([`Generator::row`]).

use crate::cep::runtime::props::name_order;
use crate::cep::runtime::value::{Name, Text};
use crate::cep::runtime::{Row, Val};

/// Which seed job a bench runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    Geofence,
    Floor,
}

impl Scenario {
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Geofence => "geofence",
            Scenario::Floor => "floor",
        }
    }

    /// The input stream of the seed configuration.
    pub fn stream(self) -> &'static str {
        match self {
            Scenario::Geofence => "tracker",
            Scenario::Floor => "Room",
        }
    }
}

/// Floors the rooms are spread over.
pub const FLOORS: u32 = 100;

/// The fence edge the trackers wander across (latitude of the north edge of the seed fence).
const EDGE_LAT: f64 = 43.61;
/// How far a tracker strays from the edge, and its largest step.
const SPREAD: f64 = 0.004;
const STEP: f64 = 0.0015;

/// One generated event: `key` is the tracker or room; `x`, `y` the position, or `x` the temperature.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    pub at_ms: i64,
    pub key: u32,
    pub x: f64,
    pub y: f64,
}

/// A deterministic event source for one scenario.
#[derive(Debug, Clone)]
pub struct Generator {
    scenario: Scenario,
    per_ms: u64,
    start_ms: i64,
    count: u64,
    random: u64,
    /// Current latitude of each tracker (geofence only).
    lats: Vec<f64>,
    /// Each key's entity id and (floor only) floor, as the values rows carry.
    ids: Vec<Text>,
    floors: Vec<Text>,
    /// The property names of a row in name order, each with the index of its value in [`Generator::values`].
    order: Vec<(Name, usize)>,
    /// Spare properties in each row, as ingest leaves them ([`Generator::leave_room`]).
    room: usize,
}

impl Generator {
    /// `keys` trackers or rooms, `per_ms` events per synthetic millisecond, starting at `start_ms`.
    pub fn new(scenario: Scenario, keys: u32, per_ms: u32, start_ms: i64) -> Self {
        let keys = keys.max(1);
        let prefix = match scenario {
            Scenario::Geofence => "Tracker",
            Scenario::Floor => "Room",
        };
        let names: &[&str] = match scenario {
            Scenario::Geofence => &["id", "time", "position", "position_location", "temperature", "levelBattery"],
            Scenario::Floor => &["id", "temperature", "temperature_unit", "floor"],
        };
        let lats = match scenario {
            Scenario::Geofence => (0..keys).map(|k| EDGE_LAT + SPREAD * (f64::from(k % 200) / 100.0 - 1.0)).collect(),
            Scenario::Floor => Vec::new(),
        };
        Generator {
            scenario,
            per_ms: u64::from(per_ms.max(1)),
            start_ms,
            count: 0,
            random: 0x9E37_79B9_7F4A_7C15,
            lats,
            ids: (0..keys).map(|k| Text::from(format!("{prefix}{k}"))).collect(),
            floors: (0..FLOORS).map(|f| Text::from(f.to_string())).collect(),
            order: name_order(&names.iter().map(|n| Name::from(*n)).collect::<Vec<_>>()),
            room: 0,
        }
    }

    /// Builds rows with `room` spare properties, as ingest does for a configuration whose statements add `room`
    /// columns to them (`Program::room`).
    pub fn leave_room(&mut self, room: usize) {
        self.room = room;
    }

    /// xorshift64*: fast and reproducible.
    fn next_random(&mut self) -> u64 {
        self.random ^= self.random >> 12;
        self.random ^= self.random << 25;
        self.random ^= self.random >> 27;
        self.random.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A uniform number in `[-1, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_random() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// The next event; keys take turns, so each one reports every `keys / per_ms` milliseconds.
    pub fn next_event(&mut self) -> Event {
        let key = (self.count % self.ids.len() as u64) as u32;
        let at_ms = self.start_ms + (self.count / self.per_ms) as i64;
        self.count += 1;
        match self.scenario {
            Scenario::Geofence => {
                let step = STEP * self.unit();
                let lat = &mut self.lats[key as usize];
                *lat = (*lat + step).clamp(EDGE_LAT - SPREAD, EDGE_LAT + SPREAD);
                Event { at_ms, key, x: self.lats[key as usize], y: 1.44 + 0.01 * f64::from(key % 2) }
            }
            Scenario::Floor => Event { at_ms, key, x: 20.0 + 5.0 * self.unit(), y: 0.0 },
        }
    }

    /// The event as ingest would have built it from a notification of the seed configuration.
    /// Ingest shares a route's property names between its rows and sorts them once, and so does this.
    pub fn row(&self, event: &Event) -> Row {
        let mut values = self.values(event);
        let row =
            Row::sorted(self.order.iter().map(|(name, i)| (name.clone(), std::mem::take(&mut values[*i]))), self.room);
        // What is left is nulls, which own nothing: forgotten rather than checked one by one, which was 80
        // instructions a row (`benches/results/cep.md`, fiftieth session).
        debug_assert!(values.iter().all(|value| *value == Val::Null), "a value left behind: {values:?}");
        std::mem::forget(values);
        row
    }

    /// The values of an event's properties, in the order of the scenario's names (the floor has four names; its
    /// last two values are not read).
    fn values(&self, event: &Event) -> [Val; 6] {
        let id = Val::String(self.ids[event.key as usize].clone());
        match self.scenario {
            Scenario::Geofence => {
                [id, Val::Date(event.at_ms), Val::Point(event.x, event.y), Val::Null, Val::Null, Val::Null]
            }
            Scenario::Floor => {
                let floor = Val::String(self.floors[(event.key % FLOORS) as usize].clone());
                [id, Val::Double(event.x), Val::Null, floor, Val::Null, Val::Null]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_advances_one_millisecond_every_per_ms_events() {
        let mut g = Generator::new(Scenario::Floor, 10, 3, 1_000);
        let times: Vec<i64> = (0..7).map(|_| g.next_event().at_ms).collect();
        assert_eq!(times, [1_000, 1_000, 1_000, 1_001, 1_001, 1_001, 1_002]);
    }

    #[test]
    fn trackers_cross_the_fence_edge_now_and_then() {
        let mut g = Generator::new(Scenario::Geofence, 4, 1, 0);
        let sides: Vec<bool> =
            (0..4_000).map(|_| g.next_event()).filter(|e| e.key == 0).map(|e| e.x < EDGE_LAT).collect();
        let crossings = sides.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(crossings > 10 && crossings < 500, "{crossings} crossings in {} positions", sides.len());
    }
}

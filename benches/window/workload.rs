//! The events of the window benchmark: rooms on [`FLOORS`] floors from `fluxgate::bench::cep_workload::Generator`,
//! each room reporting once a minute, cut into batches of `size` events; batch `k` arrives at synthetic millisecond
//! `START_MS + k * step`, so the 10-minute window holds `rooms * 10` events whatever the batch size.
//!
//! Both timely variants use the same epochs: an event of millisecond `m` enters at the odd epoch `2m + 1` and leaves
//! at the even epoch `2(m + WINDOW_MS)`, and the window as the engine's output tick at `T` sees it (everything that
//! arrived before `T` and has not left by `T`) is the collection at epoch `2T`.

use fluxgate::bench::cep_workload::{Event, Generator, Scenario};
use fluxgate::cep::runtime::Row;

pub use fluxgate::bench::cep_workload::FLOORS;

/// The synthetic clock's start (as in `fluxgate bench floor`) and the window of `queries/floor-average.json`.
pub const START_MS: i64 = 1_700_000_000_000;
pub const WINDOW_MS: i64 = 600_000;
/// How often each room reports.
const REPORT_MS: i64 = 60_000;

/// The epoch at which the events of millisecond `ms` enter.
pub fn entry_epoch(ms: i64) -> u64 {
    2 * ms as u64 + 1
}

/// The epoch at which the events of millisecond `ms` leave the window.
pub fn exit_epoch(ms: i64) -> u64 {
    2 * (ms + WINDOW_MS) as u64
}

/// Batches of room temperatures on the synthetic clock.
#[derive(Debug, Clone)]
pub struct Batches {
    generator: Generator,
    size: u32,
    step_ms: i64,
    next: i64,
}

impl Batches {
    /// `rooms` rooms reporting once a minute, `size` events per batch.
    pub fn new(rooms: u32, size: u32) -> Self {
        let size = size.max(1);
        let step_ms = (i64::from(size) * REPORT_MS / i64::from(rooms.max(1))).max(1);
        Batches { generator: Generator::new(Scenario::Floor, rooms, size, START_MS), size, step_ms, next: 0 }
    }

    /// Batches that cover one window, to fill it before measuring.
    pub fn per_window(&self) -> i64 {
        WINDOW_MS / self.step_ms + 1
    }

    /// The next batch: its millisecond and its events (each `Event::key` is a room, `Event::x` its temperature).
    pub fn next_batch(&mut self) -> (i64, Vec<Event>) {
        let at_ms = START_MS + self.next * self.step_ms;
        self.next += 1;
        let events = (0..self.size).map(|_| Event { at_ms, ..self.generator.next_event() }).collect();
        (at_ms, events)
    }

    /// The floor of a room.
    pub fn floor(event: &Event) -> u32 {
        event.key % FLOORS
    }

    /// The event as ingest would have built it for the engine.
    pub fn row(&self, event: &Event) -> Row {
        self.generator.row(event)
    }
}

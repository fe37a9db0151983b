//! The sending side of `fluxgate bench alerts`: keep-alive connections that post the [`Schedule`]'s readings to
//! `/cep/notify`, each at its due time (open loop: a late answer makes the next reading late, never skipped), and
//! note the send time of every reading that starts a crossing.
//!
//! Connection `c` of `n` sends the readings of trackers `c, c + n, ...` due within `--duration`, one at a time and in
//! order: were a tracker's readings spread over connections, a late connection could deliver an old side after the
//! crossing and move the confirmation away from the noted send time. When the server cannot keep the
//! pace, readings go out late, and the load stops at `--duration` of wall time or, if later, once every crossing sent
//! so far is confirmed and half a second more (the [`Horizon`]), so each alert falls due under load; readings still
//! unsent then are never sent. A reading counts as sent when its answer is a 200 with a 200 `responseCode`; anything
//! else is an error, counted and kept, never hidden.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::task::JoinSet;

use super::schedule::{CONFIRMATION, Schedule};
use crate::bench::BenchError;
use crate::bench::load::{Conn, Endpoint, Expect};

/// Where the readings go.
pub const NOTIFY_PATH: &str = "/cep/notify";
/// How long the load goes on after the last confirmation it owes ends.
const UNDER_LOAD: Duration = Duration::from_millis(500);

/// A reading that started a side the geofence should confirm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crossing {
    pub tracker: u32,
    pub inside: bool,
    /// Just before the request was written.
    pub sent: Instant,
}

/// What a run sent.
#[derive(Debug, Clone, Default)]
pub struct Sent {
    pub positions: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    pub crossings: Vec<Crossing>,
    pub elapsed: Duration,
}

impl Sent {
    fn absorb(&mut self, other: Sent) {
        self.positions += other.positions;
        self.errors += other.errors;
        self.first_error = self.first_error.take().or(other.first_error);
        self.crossings.extend(other.crossings);
    }

    fn record(&mut self, error: Option<String>) {
        self.positions += 1;
        if let Some(error) = error {
            self.errors += 1;
            self.first_error.get_or_insert(error);
        }
    }

    /// Accepted readings per second.
    pub fn per_s(&self) -> f64 {
        (self.positions - self.errors) as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Opens `connections`, then sends the readings due within `duration` until the [`Horizon`].
pub async fn run(
    endpoint: &Endpoint,
    schedule: Arc<Schedule>,
    connections: usize,
    duration: Duration,
) -> Result<Sent, BenchError> {
    let mut conns = Vec::with_capacity(connections);
    for _ in 0..connections {
        conns.push(Conn::open(endpoint).await?);
    }
    let horizon = Arc::new(Horizon::new(duration));
    let mut tasks = JoinSet::new();
    for (index, conn) in conns.into_iter().enumerate() {
        let lane = Lane { index: index as u64, lanes: connections as u64, duration };
        tasks.spawn(drive(conn, schedule.clone(), lane, horizon.clone()));
    }
    let mut total = Sent::default();
    while let Some(joined) = tasks.join_next().await {
        total.absorb(joined.map_err(|e| BenchError::Request(e.to_string()))??);
    }
    total.elapsed = horizon.start.elapsed();
    Ok(total)
}

/// When the load may stop: `duration` after the start, or later while a confirmation it owes has not ended.
#[derive(Debug)]
struct Horizon {
    start: Instant,
    /// Microseconds after `start`.
    until_us: AtomicU64,
}

impl Horizon {
    fn new(duration: Duration) -> Self {
        Horizon { start: Instant::now(), until_us: AtomicU64::new(duration.as_micros() as u64) }
    }

    /// The load owes the alert of a crossing sent `at`.
    fn owe(&self, at: Instant) {
        let until = at + CONFIRMATION + UNDER_LOAD - self.start;
        self.until_us.fetch_max(until.as_micros() as u64, Ordering::Relaxed);
    }

    fn passed(&self) -> bool {
        self.start.elapsed().as_micros() as u64 >= self.until_us.load(Ordering::Relaxed)
    }
}

/// Connection `index` of `lanes`, sending the readings due within `duration`.
#[derive(Debug, Clone, Copy)]
struct Lane {
    index: u64,
    lanes: u64,
    duration: Duration,
}

async fn drive(mut conn: Conn, schedule: Arc<Schedule>, lane: Lane, horizon: Arc<Horizon>) -> Result<Sent, BenchError> {
    let mut sent = Sent::default();
    let readings = (0..).map_while(|k| schedule.lane_seq(lane.index, lane.lanes, k));
    for seq in readings.take_while(|&seq| schedule.due(seq) < lane.duration) {
        if horizon.passed() {
            break;
        }
        tokio::time::sleep_until((horizon.start + schedule.due(seq)).into()).await;
        let at = Instant::now();
        let error = post(&mut conn, schedule.body(seq)).await?;
        if let (None, Some((tracker, inside))) = (&error, schedule.crossing(seq)) {
            horizon.owe(at);
            sent.crossings.push(Crossing { tracker, inside, sent: at });
        }
        sent.record(error);
    }
    Ok(sent)
}

/// Posts one reading; answers why it failed, if it did. A broken connection is replaced.
async fn post(conn: &mut Conn, body: Bytes) -> Result<Option<String>, BenchError> {
    Ok(match conn.post(NOTIFY_PATH, body).await {
        Ok((status, answer)) if Expect::Ngsi.accepts(status, &answer) => None,
        Ok((status, answer)) => Some(format!("{status}: {}", String::from_utf8_lossy(&answer))),
        Err(e) => {
            *conn = conn.reopen().await?;
            Some(e.to_string())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_horizon_waits_for_the_confirmations_it_owes() {
        let horizon = Horizon::new(Duration::ZERO);
        assert!(horizon.passed());
        horizon.owe(horizon.start);
        assert!(!horizon.passed());
        assert_eq!(horizon.until_us.load(Ordering::Relaxed), 4_500_000);
    }
}

//! The sending side of `fluxgate bench alerts`: keep-alive connections that post the [`Schedule`]'s readings to
//! `/cep/notify`, each at its due time (open loop: a late answer makes the next reading late, never skipped), and
//! note the send time of every reading that starts a crossing.
//!
//! Connection `c` of `n` sends readings `c, c + n, ...` until the first one due after the run. A reading counts as
//! sent when its answer is a 200 with a 200 `responseCode`; anything else is an error, counted and kept, never hidden.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use super::schedule::Schedule;
use crate::bench::BenchError;
use crate::bench::load::{Conn, Endpoint, Expect};

/// Where the readings go.
pub const NOTIFY_PATH: &str = "/cep/notify";

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

/// Opens `connections`, then sends every reading due within `duration`.
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
    let start = Instant::now();
    let mut tasks = JoinSet::new();
    for (index, conn) in conns.into_iter().enumerate() {
        let lane = Lane { first: index as u64, step: connections as u64, start, duration };
        tasks.spawn(drive(conn, schedule.clone(), lane));
    }
    let mut total = Sent::default();
    while let Some(joined) = tasks.join_next().await {
        total.absorb(joined.map_err(|e| BenchError::Request(e.to_string()))??);
    }
    total.elapsed = start.elapsed();
    Ok(total)
}

/// The readings one connection sends: `first`, `first + step`, ... due before `start + duration`.
#[derive(Debug, Clone, Copy)]
struct Lane {
    first: u64,
    step: u64,
    start: Instant,
    duration: Duration,
}

async fn drive(mut conn: Conn, schedule: Arc<Schedule>, lane: Lane) -> Result<Sent, BenchError> {
    let mut sent = Sent::default();
    let mut seq = lane.first;
    while schedule.due(seq) < lane.duration {
        tokio::time::sleep_until((lane.start + schedule.due(seq)).into()).await;
        let at = Instant::now();
        let error = match conn.post(NOTIFY_PATH, schedule.body(seq)).await {
            Ok((status, body)) if Expect::Ngsi.accepts(status, &body) => None,
            Ok((status, body)) => Some(format!("{status}: {}", String::from_utf8_lossy(&body))),
            Err(e) => {
                conn = conn.reopen().await?;
                Some(e.to_string())
            }
        };
        if let (None, Some((tracker, inside))) = (&error, schedule.crossing(seq)) {
            sent.crossings.push(Crossing { tracker, inside, sent: at });
        }
        sent.record(error);
        seq += lane.step;
    }
    Ok(sent)
}

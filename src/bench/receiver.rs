//! The notification receiver of `fluxgate bench broker --subscriptions N`: a loopback hyper server that counts the
//! `notifyContextRequest`s Fluxgate posts to it and answers 200.
//!
//! Counting is all it does, so the receiver never slows delivery down; the bench compares the count with the number
//! of successful updates (each update matches exactly one subscription).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::StatusCode;

use super::BenchError;
use super::loopback::{self, Handler, Loopback};

/// A running receiver and its count.
#[derive(Debug)]
pub struct Receiver {
    server: Loopback,
    count: Arc<AtomicU64>,
}

impl Receiver {
    /// Starts the receiver on the current runtime.
    pub async fn start() -> Result<Self, BenchError> {
        let count = Arc::new(AtomicU64::new(0));
        let seen = count.clone();
        let handler: Handler = Arc::new(move |body: &[u8]| {
            if body.windows(14).any(|w| w == b"subscriptionId") {
                seen.fetch_add(1, Ordering::Relaxed);
            }
            (StatusCode::OK, Bytes::from_static(b"{}"))
        });
        Ok(Receiver { server: loopback::start(handler).await?, count })
    }

    /// The URL to give as a subscription's `reference`.
    pub fn reference(&self) -> String {
        format!("http://{}/notify", self.server.addr)
    }

    pub fn received(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// Waits until `expected` notifications arrived, or the count stops moving for a second, or `limit` passes.
    pub async fn settle(&self, expected: u64, limit: Duration) -> u64 {
        let give_up = Instant::now() + limit;
        let mut last = (self.received(), Instant::now());
        while self.received() < expected && Instant::now() < give_up && last.1.elapsed() < Duration::from_secs(1) {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if self.received() != last.0 {
                last = (self.received(), Instant::now());
            }
        }
        self.received()
    }
}

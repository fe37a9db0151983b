//! The historic store (`/sth`, STH-Comet's API): every attribute change notified to `/sth/notify` (over HTTP, or
//! in-process from this gateway's subscriptions) is kept raw and rolled up per second, minute, hour, day and month,
//! and served one attribute per request, raw or aggregated.
//!
//! Layers: `routes` (paths, verbs, headers, tokens) over `query` (parameters to a request) and `ingest`
//! (notifications to samples), `wire` (STH's exact JSON) and `error` (its error shape, rendered in one place); `model`
//! and `time` are plain domain types; `store` is the storage trait (SQLite in `crate::store::sqlite`); `sink` takes
//! in-process notifications; `retention` purges old data; `bench` measures ingest and queries. This module must not
//! know SQL, and storage must not know JSON field names.

pub mod bench;
pub mod error;
pub mod ingest;
pub mod model;
pub mod query;
pub mod retention;
pub mod routes;
pub mod sink;
pub mod store;
pub mod time;
pub mod wire;

use std::sync::Arc;

use self::model::Sample;
use self::retention::Retention;
use self::store::{HistoryStore, IngestOutcome};
use self::time::Millis;
use crate::clock::Clock;
use crate::store::StoreError;

/// Options of the historic store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryOptions {
    /// How long raw samples and rollups are kept; `None` keeps them forever.
    pub retention: Option<Retention>,
    /// The largest `lastN` and `hLimit` a query may ask for.
    pub max_page: u32,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        HistoryOptions { retention: None, max_page: 1000 }
    }
}

/// What the historic API handlers and the in-process sink share.
#[derive(Clone)]
pub struct History {
    pub store: Arc<dyn HistoryStore>,
    pub clock: Arc<dyn Clock>,
    pub options: HistoryOptions,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History").field("options", &self.options).finish_non_exhaustive()
    }
}

impl History {
    pub fn now(&self) -> Millis {
        Millis(self.clock.now_ms())
    }

    /// Stores samples (answered after commit), counting stored and duplicate samples in `/metrics`.
    pub async fn store_samples(&self, samples: Vec<Sample>) -> Result<IngestOutcome, StoreError> {
        let outcome = self.store.ingest(samples).await?;
        metrics::counter!("fluxgate_history_samples_total", "outcome" => "stored").increment(outcome.stored as u64);
        metrics::counter!("fluxgate_history_samples_total", "outcome" => "duplicate")
            .increment(outcome.duplicates as u64);
        Ok(outcome)
    }

    /// Removes what the retention no longer covers; answers the rows removed (0 without a retention).
    pub async fn purge_expired(&self) -> Result<u64, StoreError> {
        match self.options.retention {
            None => Ok(0),
            Some(retention) => self.store.purge_before(retention.cutoff(self.now())).await,
        }
    }
}

//! What the historic API needs from durable storage, as a trait over domain types, and the shapes of its answers.
//!
//! Backends keep raw samples (unique per series, recvTime and value) and rollups per series, resolution and point,
//! so an aggregated read touches only rollups (SQLite keeps the rollups of its not-yet-merged log in memory). Ingest
//! is answered after commit. The SQLite implementation is `crate::store::sqlite::history`.

use serde_json::Value;

use super::model::{EntityRef, Sample, SeriesId, SeriesKey};
use super::time::{Millis, Resolution};
use crate::store::Reply;
use crate::tenancy::{ServicePath, Tenant};

/// Which stored values a raw read returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawPaging {
    /// The newest `n`, returned oldest first.
    LastN(u32),
    /// `limit` values after skipping `offset`, oldest first.
    Page { limit: u32, offset: u32 },
    /// Every value in the range (CSV export without paging).
    All,
}

/// A raw read of one series between two instants (inclusive).
#[derive(Debug, Clone, PartialEq)]
pub struct RawQuery {
    pub series: SeriesId,
    pub from: Millis,
    pub to: Millis,
    pub paging: RawPaging,
    /// Also count every match before paging.
    pub count: bool,
}

/// One stored value.
#[derive(Debug, Clone, PartialEq)]
pub struct RawValue {
    pub recv_time: Millis,
    pub attr_type: String,
    pub value: Value,
}

/// The answer to a [`RawQuery`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawPage {
    pub values: Vec<RawValue>,
    pub total: Option<u64>,
}

/// An aggregated read: the points of one resolution whose start lies in `from..=to`.
#[derive(Debug, Clone, PartialEq)]
pub struct AggrQuery {
    pub series: SeriesId,
    pub resolution: Resolution,
    pub from: Millis,
    pub to: Millis,
    /// Read the numeric rollups (min, max, sum, sum2).
    pub numeric: bool,
    /// Read the occurrence counts of text values.
    pub occur: bool,
}

/// The numeric part of a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumericStats {
    pub samples: u64,
    pub sum: f64,
    pub sum2: f64,
    pub min: f64,
    pub max: f64,
}

/// The text part of a point: how often each value occurred.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextStats {
    pub samples: u64,
    pub counts: Vec<(String, u64)>,
}

/// One point with samples, keyed by its start.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub bucket: Millis,
    pub numeric: Option<NumericStats>,
    pub text: Option<TextStats>,
}

impl NumericStats {
    /// The statistics of one value.
    pub fn of(v: f64) -> Self {
        NumericStats { samples: 1, sum: v, sum2: v * v, min: v, max: v }
    }

    /// Adds the samples of `other` (a disjoint set of samples of the same point).
    pub fn absorb(&mut self, other: &NumericStats) {
        self.samples += other.samples;
        self.sum += other.sum;
        self.sum2 += other.sum2;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }
}

impl TextStats {
    /// Adds the occurrences of `other`, keeping the counts ordered by value.
    pub fn absorb(&mut self, other: TextStats) {
        self.samples += other.samples;
        for (value, n) in other.counts {
            match self.counts.binary_search_by(|(v, _)| v.as_str().cmp(&value)) {
                Ok(i) => self.counts[i].1 += n,
                Err(i) => self.counts.insert(i, (value, n)),
            }
        }
    }
}

impl Point {
    /// Adds the samples of `other`, a point with the same start.
    pub fn absorb(&mut self, other: Point) {
        self.numeric = match (self.numeric, other.numeric) {
            (Some(mut mine), Some(theirs)) => {
                mine.absorb(&theirs);
                Some(mine)
            }
            (mine, theirs) => mine.or(theirs),
        };
        self.text = match (self.text.take(), other.text) {
            (Some(mut mine), Some(theirs)) => {
                mine.absorb(theirs);
                Some(mine)
            }
            (mine, theirs) => mine.or(theirs),
        };
    }
}

/// What a delete removes.
#[derive(Debug, Clone, PartialEq)]
pub enum DeleteScope {
    ServicePath { tenant: Tenant, path: ServicePath },
    Entity(EntityRef),
    Attribute(SeriesKey),
}

/// What an ingest did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IngestOutcome {
    /// Samples newly stored.
    pub stored: usize,
    /// Samples already present (same series, recvTime and value), ignored.
    pub duplicates: usize,
}

/// Durable history.
pub trait HistoryStore: Send + Sync {
    /// Stores the new samples durably (one transaction) and makes them and their rollups readable; answers after
    /// commit.
    fn ingest(&self, samples: Vec<Sample>) -> Reply<IngestOutcome>;
    fn raw(&self, query: RawQuery) -> Reply<RawPage>;
    /// Points with at least one sample, by start.
    fn aggregated(&self, query: AggrQuery) -> Reply<Vec<Point>>;
    fn delete(&self, scope: DeleteScope) -> Reply<()>;
    /// Removes raw samples before `cutoff`, and points that end before it; answers how many rows went.
    fn purge_before(&self, cutoff: Millis) -> Reply<u64>;
}

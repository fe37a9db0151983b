//! The tail: samples committed to the journal (`history_journal`) and not yet merged into the clustered tables,
//! held in memory per series with their rollup contributions, so that reads see them without touching the journal,
//! ingest finds duplicates without a statement, and the merge writes them without reading them back.
//!
//! Samples are grouped in generations, one per merge: the open generation collects what ingest publishes after each
//! commit; when merge `e` commits, the open generation (tagged `e`) is retired and a new one opens. A reader reads
//! `history_merged.epoch` (`E`) in the same read transaction as the clustered tables and adds exactly the generations
//! tagged after `E`: those are the samples its snapshot has not merged yet. One retired generation is kept, so a
//! reader whose snapshot predates the latest merge still finds its samples; a reader older than that (`E` below the
//! floor) must take a new snapshot. Only the writer thread's after-commit hooks change the tail, in commit order.
//! Pure Rust: no SQL here.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::RwLock;

use super::MERGE_AT;
use crate::history::model::{Aggregate, SeriesId};
use crate::history::store::{AggrQuery, NumericStats, Point, TextStats};
use crate::history::time::{Millis, Resolution};

/// A sample stored by an ingest job (new, in the log), as readers need it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fresh {
    pub series: SeriesId,
    pub recv_time: Millis,
    /// The value as stored: its JSON text.
    pub value: String,
    pub attr_type: String,
    pub aggregate: Aggregate,
    /// The start of the point holding the sample, per resolution (in `Resolution::ALL` order).
    pub buckets: [Millis; 5],
}

impl Fresh {
    pub fn new(series: SeriesId, recv_time: Millis, value: &serde_json::Value, attr_type: String) -> Self {
        let buckets = Resolution::ALL.map(|r| r.bucket(recv_time));
        Fresh { series, recv_time, value: value.to_string(), attr_type, aggregate: Aggregate::of(value), buckets }
    }
}

/// A raw row of the tail: instant, value (JSON text), attribute type; ordered like `history_raw`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TailRow {
    pub recv_time: Millis,
    pub value: String,
    pub attr_type: String,
}

/// Which unmerged raw rows a read needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    First(usize),
    Last(usize),
    All,
}

/// A tail raw row's key: instant, value text.
type RawKey = (Millis, String);

/// Two instants, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub from: Millis,
    pub to: Millis,
}

impl Window {
    fn bounds(self) -> (Bound<RawKey>, Bound<RawKey>) {
        let upper = match self.to.0.checked_add(1) {
            Some(end) => Bound::Excluded((Millis(end), String::new())),
            None => Bound::Unbounded,
        };
        (Bound::Included((self.from, String::new())), upper)
    }
}

/// One series' unmerged samples in one generation, with their rollup contributions per (resolution, point): raw
/// rows by (instant, value) to their attribute type.
#[derive(Debug, Default)]
pub struct SeriesTail {
    pub raw: BTreeMap<RawKey, String>,
    pub numeric: BTreeMap<(Resolution, Millis), NumericStats>,
    pub text: BTreeMap<(Resolution, Millis), BTreeMap<String, u64>>,
}

impl SeriesTail {
    pub fn add(&mut self, sample: Fresh) {
        for (resolution, bucket) in Resolution::ALL.into_iter().zip(sample.buckets) {
            let key = (resolution, bucket);
            match &sample.aggregate {
                Aggregate::Number(v) => self.numeric.entry(key).or_insert_with(zero).absorb(&NumericStats::of(*v)),
                Aggregate::Text(text) => *self.text.entry(key).or_default().entry(text.clone()).or_default() += 1,
                Aggregate::None => break,
            }
        }
        self.raw.insert((sample.recv_time, sample.value), sample.attr_type);
    }

    /// Whether the series holds a sample of `value` at `t`.
    fn holds(&self, t: Millis, value: &str) -> bool {
        let next = t.0.checked_add(1).map_or(Bound::Unbounded, |end| Bound::Excluded((Millis(end), String::new())));
        self.raw.range((Bound::Included((t, String::new())), next)).any(|((_, v), _)| v == value)
    }
}

/// Samples grouped by series.
pub type BySeries = HashMap<SeriesId, SeriesTail>;

/// Groups samples by series, with their rollup contributions.
pub fn group(fresh: Vec<Fresh>) -> BySeries {
    let mut series = BySeries::new();
    for sample in fresh {
        series.entry(sample.series).or_default().add(sample);
    }
    series
}

fn zero() -> NumericStats {
    NumericStats { samples: 0, sum: 0.0, sum2: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY }
}

/// The samples one merge will move (or moved) into the clustered tables.
#[derive(Debug)]
struct Generation {
    epoch: u64,
    samples: usize,
    series: BySeries,
}

impl Generation {
    fn new(epoch: u64) -> Self {
        Generation { epoch, samples: 0, series: HashMap::new() }
    }
}

#[derive(Debug)]
struct State {
    /// Open-generation size at which the next publish asks for a merge; raised by `MERGE_AT` each time it asks, so
    /// a merge that failed is asked for again later.
    merge_at: usize,
    /// Readers whose snapshot merged fewer epochs than this must retry: the samples they miss are gone from here.
    floor: u64,
    retired: Option<Generation>,
    open: Generation,
}

impl State {
    /// The generations a snapshot at merge epoch `snapshot` has not merged, or `None` when it is too old.
    fn unmerged(&self, snapshot: u64) -> Option<impl Iterator<Item = &Generation>> {
        (snapshot >= self.floor)
            .then(|| self.retired.iter().chain(std::iter::once(&self.open)).filter(move |g| g.epoch > snapshot))
    }
}

/// The unmerged samples of every series.
#[derive(Debug)]
pub struct Tail(RwLock<State>);

impl Tail {
    /// An empty tail after merge epoch `merged` (the log is empty).
    pub fn new(merged: u64) -> Self {
        Tail(RwLock::new(State { merge_at: MERGE_AT, floor: merged, retired: None, open: Generation::new(merged + 1) }))
    }

    /// Adds committed samples to the open generation; answers whether it is time to queue a merge.
    pub fn publish(&self, fresh: Vec<Fresh>) -> bool {
        let mut state = self.0.write().expect("tail lock");
        let open = &mut state.open;
        open.samples += fresh.len();
        for sample in fresh {
            open.series.entry(sample.series).or_default().add(sample);
        }
        let samples = open.samples;
        let due = samples >= state.merge_at;
        if due {
            state.merge_at = samples + MERGE_AT;
        }
        due
    }

    /// Whether the open generation (every sample committed since the last merge) holds a sample of `value` at `t`.
    pub fn holds(&self, series: SeriesId, t: Millis, value: &str) -> bool {
        let state = self.0.read().expect("tail lock");
        state.open.series.get(&series).is_some_and(|tail| tail.holds(t, value))
    }

    /// Runs `f` on the open generation's samples, which the next merge writes.
    pub fn with_open<T>(&self, f: impl FnOnce(&BySeries) -> T) -> T {
        f(&self.0.read().expect("tail lock").open.series)
    }

    /// Merge `epoch` committed: the open generation is now in the clustered tables.
    pub fn retire(&self, epoch: u64) {
        let mut state = self.0.write().expect("tail lock");
        let mut retired = std::mem::replace(&mut state.open, Generation::new(epoch + 1));
        retired.epoch = epoch;
        state.retired = Some(retired);
        state.floor = epoch.saturating_sub(1);
        state.merge_at = MERGE_AT;
    }

    /// The first or last unmerged raw rows of a series between two instants (inclusive), in stored order; reading
    /// only as many rows as picked, so a short page stays cheap on a long tail.
    pub fn raw(&self, snapshot: u64, series: SeriesId, window: Window, pick: Pick) -> Option<Vec<TailRow>> {
        let state = self.0.read().expect("tail lock");
        let bounds = window.bounds();
        let mut rows = Vec::new();
        for tail in state.unmerged(snapshot)?.filter_map(|g| g.series.get(&series)) {
            let range = tail.raw.range(bounds.clone());
            let picked: Box<dyn Iterator<Item = _>> = match pick {
                Pick::First(n) => Box::new(range.take(n)),
                Pick::Last(n) => Box::new(range.rev().take(n)),
                Pick::All => Box::new(range),
            };
            rows.extend(picked.map(|((t, value), attr_type)| TailRow {
                recv_time: *t,
                value: value.clone(),
                attr_type: attr_type.clone(),
            }));
        }
        rows.sort_unstable();
        match pick {
            Pick::First(n) => rows.truncate(n),
            Pick::Last(n) => drop(rows.drain(..rows.len().saturating_sub(n))),
            Pick::All => {}
        }
        Some(rows)
    }

    /// How many unmerged raw rows of a series lie between two instants (inclusive).
    pub fn count(&self, snapshot: u64, series: SeriesId, window: Window) -> Option<u64> {
        let state = self.0.read().expect("tail lock");
        let bounds = window.bounds();
        let tails = state.unmerged(snapshot)?.filter_map(|g| g.series.get(&series));
        Some(tails.map(|tail| tail.raw.range(bounds.clone()).count() as u64).sum())
    }

    /// The unmerged contributions to the points an aggregated query asks for, by start.
    pub fn points(&self, snapshot: u64, q: &AggrQuery) -> Option<Vec<Point>> {
        let state = self.0.read().expect("tail lock");
        let mut points: BTreeMap<Millis, Point> = BTreeMap::new();
        let range = (q.resolution, q.from)..=(q.resolution, q.to);
        for tail in state.unmerged(snapshot)?.filter_map(|g| g.series.get(&q.series)) {
            if q.numeric {
                for ((_, bucket), stats) in tail.numeric.range(range.clone()) {
                    let point = Point { bucket: *bucket, numeric: Some(*stats), text: None };
                    absorb(&mut points, point);
                }
            }
            if q.occur {
                for ((_, bucket), counts) in tail.text.range(range.clone()) {
                    absorb(&mut points, Point { bucket: *bucket, numeric: None, text: Some(text_stats(counts)) });
                }
            }
        }
        Some(points.into_values().collect())
    }
}

fn absorb(points: &mut BTreeMap<Millis, Point>, point: Point) {
    match points.get_mut(&point.bucket) {
        Some(existing) => existing.absorb(point),
        None => drop(points.insert(point.bucket, point)),
    }
}

fn text_stats(counts: &BTreeMap<String, u64>) -> TextStats {
    TextStats { samples: counts.values().sum(), counts: counts.iter().map(|(v, n)| (v.clone(), *n)).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh(ms: i64, value: &str) -> Fresh {
        Fresh::new(SeriesId(7), Millis(ms), &serde_json::from_str(value).unwrap(), "Number".into())
    }

    fn all(tail: &Tail, snapshot: u64) -> Option<Vec<TailRow>> {
        let window = Window { from: Millis::MIN, to: Millis::MAX };
        tail.raw(snapshot, SeriesId(7), window, Pick::All)
    }

    fn second(from: i64, to: i64) -> AggrQuery {
        AggrQuery {
            series: SeriesId(7),
            resolution: Resolution::Second,
            from: Millis(from),
            to: Millis(to),
            numeric: true,
            occur: true,
        }
    }

    #[test]
    fn readers_see_exactly_the_generations_their_snapshot_has_not_merged() {
        let tail = Tail::new(3);
        tail.publish(vec![fresh(1_000, "\"1\""), fresh(2_000, "\"open\"")]);
        assert_eq!(all(&tail, 3).unwrap().len(), 2);
        tail.retire(4);
        tail.publish(vec![fresh(3_000, "\"3\"")]);
        // A snapshot before merge 4 reads both generations, one after it only the new one.
        assert_eq!(all(&tail, 3).unwrap().len(), 3);
        let after: Vec<Millis> = all(&tail, 4).unwrap().iter().map(|r| r.recv_time).collect();
        assert_eq!(after, [Millis(3_000)]);
        tail.retire(5);
        assert!(all(&tail, 3).is_none(), "too old a snapshot must retry");
        assert_eq!(all(&tail, 5).unwrap(), []);
    }

    #[test]
    fn points_sum_numbers_and_count_text_per_bucket() {
        let tail = Tail::new(0);
        tail.publish(vec![fresh(1_000, "\"1.5\""), fresh(1_500, "2.5"), fresh(1_700, "\"a\""), fresh(2_000, "true")]);
        let points = tail.points(0, &second(0, 10_000)).unwrap();
        assert_eq!(points.len(), 1, "the boolean is kept raw only");
        let numeric = points[0].numeric.unwrap();
        assert_eq!((numeric.samples, numeric.sum, numeric.min, numeric.max), (2, 4.0, 1.5, 2.5));
        assert_eq!(points[0].text.as_ref().unwrap().counts, [("a".to_owned(), 1)]);
        let window = Window { from: Millis(1_500), to: Millis(2_000) };
        let rows = tail.raw(0, SeriesId(7), window, Pick::Last(2)).unwrap();
        let times: Vec<Millis> = rows.iter().map(|r| r.recv_time).collect();
        assert_eq!((times, tail.count(0, SeriesId(7), window)), (vec![Millis(1_700), Millis(2_000)], Some(3)));
    }
}

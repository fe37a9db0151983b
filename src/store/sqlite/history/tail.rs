//! The tail: samples committed to the journal (`history_journal`) and not yet merged into the clustered tables of
//! the history file, held in memory per series with their rollup contributions, so that reads see them without
//! touching the journal, ingest finds duplicates without a statement, and the merger writes them without reading
//! them back.
//!
//! Samples are grouped in generations, one per merge: the open generation collects what ingest publishes after each
//! commit; sealing it tags it with the next epoch, hands it to the merger and opens a new one (deletes and purges
//! take an epoch too, after the generation they seal). A reader reads `history_merged.epoch` (`E`) in the same read
//! transaction as the clustered tables and adds exactly the generations tagged after `E`, and the open one: those
//! are the samples its snapshot has not merged yet. Once merge `e` has committed and its journal rows are deleted,
//! generation `e` and those before it are dropped; a reader whose snapshot is older (`E` below the floor) takes a
//! new snapshot. Only the writer thread (its jobs' after-commit hooks) changes the tail, in commit order.
//! Pure Rust: no SQL here.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, RwLock};

use super::merge_due;
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

/// Two instants, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub from: Millis,
    pub to: Millis,
}

/// One unmerged raw sample: 40 bytes, with the value's text beside it and the attribute type shared with the
/// series' other samples of the same type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRow {
    pub recv_time: Millis,
    /// The value as stored: its JSON text.
    pub value: Box<str>,
    pub attr_type: Arc<str>,
}

impl RawRow {
    pub fn key(&self) -> (Millis, &str) {
        (self.recv_time, &self.value)
    }
}

/// A series' unmerged raw samples, ordered like `history_raw` (instant, then value text), one per key. A sorted
/// vector rather than a tree: samples mostly arrive in time order, so adding one is a push, and with the points
/// below as vectors too the tail holds a sample in 156 bytes instead of 245 (`benches/results/history.md`, eighth
/// session).
#[derive(Debug, Default)]
pub struct RawRows(Vec<RawRow>);

impl RawRows {
    /// Adds a sample, replacing the one with the same instant and value.
    fn insert(&mut self, recv_time: Millis, value: String, attr_type: String) {
        let attr_type = match self.0.last() {
            Some(last) if *last.attr_type == *attr_type => last.attr_type.clone(),
            _ => Arc::from(attr_type),
        };
        let row = RawRow { recv_time, value: value.into_boxed_str(), attr_type };
        if self.0.last().is_none_or(|last| last.key() < row.key()) {
            return self.0.push(row);
        }
        match self.0.binary_search_by(|r| r.key().cmp(&row.key())) {
            Ok(at) => self.0[at] = row,
            Err(at) => self.0.insert(at, row),
        }
    }

    /// The rows between two instants (inclusive).
    pub fn range(&self, window: Window) -> &[RawRow] {
        let start = self.0.partition_point(|r| r.recv_time < window.from);
        let end = self.0.partition_point(|r| r.recv_time <= window.to);
        &self.0[start..end.max(start)]
    }

    pub fn iter(&self) -> std::slice::Iter<'_, RawRow> {
        self.0.iter()
    }

    pub fn last(&self) -> Option<&RawRow> {
        self.0.last()
    }
}

impl<'a> IntoIterator for &'a RawRows {
    type Item = &'a RawRow;
    type IntoIter = std::slice::Iter<'a, RawRow>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A series' unmerged numeric rollup contributions: per resolution, the points by start, in order. Vectors for the
/// same reason as [`RawRows`]: points mostly open in time order.
#[derive(Debug, Default)]
pub struct NumericPoints([Vec<(Millis, NumericStats)>; 5]);

impl NumericPoints {
    fn absorb(&mut self, resolution: Resolution, bucket: Millis, value: f64) {
        let points = &mut self.0[resolution as usize];
        let at = match points.last() {
            Some((last, _)) if *last == bucket => points.len() - 1,
            Some((last, _)) if *last > bucket => match points.binary_search_by(|(b, _)| b.cmp(&bucket)) {
                Ok(at) => at,
                Err(at) => {
                    points.insert(at, (bucket, zero()));
                    at
                }
            },
            _ => {
                points.push((bucket, zero()));
                points.len() - 1
            }
        };
        points[at].1.absorb(&NumericStats::of(value));
    }

    /// The points of `resolution` that start between `from` and `to` (inclusive).
    pub fn range(&self, resolution: Resolution, from: Millis, to: Millis) -> &[(Millis, NumericStats)] {
        let points = &self.0[resolution as usize];
        let start = points.partition_point(|(b, _)| *b < from);
        let end = points.partition_point(|(b, _)| *b <= to);
        &points[start..end.max(start)]
    }

    /// Every point, by resolution then start.
    pub fn iter(&self) -> impl Iterator<Item = (Resolution, Millis, &NumericStats)> {
        Resolution::ALL.into_iter().flat_map(move |r| self.0[r as usize].iter().map(move |(b, s)| (r, *b, s)))
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Vec::is_empty)
    }
}

/// One series' unmerged samples in one generation, with their rollup contributions per (resolution, point).
#[derive(Debug, Default)]
pub struct SeriesTail {
    pub raw: RawRows,
    pub numeric: NumericPoints,
    pub text: BTreeMap<(Resolution, Millis), BTreeMap<String, u64>>,
}

impl SeriesTail {
    pub fn add(&mut self, sample: Fresh) {
        for (resolution, bucket) in Resolution::ALL.into_iter().zip(sample.buckets) {
            let key = (resolution, bucket);
            match &sample.aggregate {
                Aggregate::Number(v) => self.numeric.absorb(resolution, bucket, *v),
                Aggregate::Text(text) => *self.text.entry(key).or_default().entry(text.clone()).or_default() += 1,
                Aggregate::None => break,
            }
        }
        self.raw.insert(sample.recv_time, sample.value, sample.attr_type);
    }

    /// Whether the series holds a sample of `value` at `t`.
    fn holds(&self, t: Millis, value: &str) -> bool {
        self.raw.range(Window { from: t, to: t }).iter().any(|r| *r.value == *value)
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

/// The samples one merge moves into the clustered tables: while open, what ingest publishes; once sealed, fixed
/// (the merger reads it without a lock) and tagged with the merge epoch that writes it.
#[derive(Debug)]
pub struct Generation {
    /// The merge epoch that writes it; `u64::MAX` while open (no snapshot has merged it).
    pub epoch: u64,
    /// The last journal row whose samples it holds (0: none).
    pub through: i64,
    samples: usize,
    pub series: BySeries,
}

impl Generation {
    fn open() -> Self {
        Generation { epoch: u64::MAX, through: 0, samples: 0, series: HashMap::new() }
    }

    /// A sealed generation of `fresh`, journaled through row `through`, written by merge `epoch`.
    pub fn sealed(epoch: u64, through: i64, fresh: Vec<Fresh>) -> Self {
        Generation { epoch, through, samples: fresh.len(), series: group(fresh) }
    }

    pub fn samples(&self) -> usize {
        self.samples
    }
}

#[derive(Debug)]
struct State {
    /// The epoch the next sealed generation (or delete, or purge) is given.
    next_epoch: u64,
    /// Readers whose snapshot merged fewer epochs than this must retry: the samples they miss are gone from here.
    floor: u64,
    /// Sealed generations, oldest first: the first may be merged already (kept for readers whose snapshot predates
    /// its merge), the others are queued for or in the merge.
    sealed: VecDeque<Arc<Generation>>,
    open: Generation,
}

impl State {
    /// The generations a snapshot at merge epoch `snapshot` has not merged, or `None` when it is too old.
    fn unmerged(&self, snapshot: u64) -> Option<impl Iterator<Item = &Generation>> {
        let all = self.sealed.iter().map(Arc::as_ref).chain(std::iter::once(&self.open));
        (snapshot >= self.floor).then(|| all.filter(move |g| g.epoch > snapshot))
    }

    fn seal(&mut self) -> Option<Arc<Generation>> {
        if self.open.samples == 0 {
            return None;
        }
        let mut sealed = std::mem::replace(&mut self.open, Generation::open());
        sealed.epoch = self.allocate();
        let sealed = Arc::new(sealed);
        self.sealed.push_back(sealed.clone());
        Some(sealed)
    }

    fn allocate(&mut self) -> u64 {
        self.next_epoch += 1;
        self.next_epoch - 1
    }
}

/// The unmerged samples of every series.
#[derive(Debug)]
pub struct Tail(RwLock<State>);

impl Tail {
    /// An empty tail after merge epoch `merged` (the journal is merged).
    pub fn new(merged: u64) -> Self {
        let state = State { next_epoch: merged + 1, floor: merged, sealed: VecDeque::new(), open: Generation::open() };
        Tail(RwLock::new(state))
    }

    /// Adds committed samples, journaled through row `through`, to the open generation; answers the generation
    /// sealed for the merger when the open one is large enough for the series it touches (`merge_due`).
    pub fn publish(&self, fresh: Vec<Fresh>, through: i64) -> Option<Arc<Generation>> {
        let mut state = self.0.write().expect("tail lock");
        let open = &mut state.open;
        open.samples += fresh.len();
        open.through = open.through.max(through);
        for sample in fresh {
            open.series.entry(sample.series).or_default().add(sample);
        }
        if !merge_due(open.samples, open.series.len()) {
            return None;
        }
        state.seal()
    }

    /// Seals the open generation (when it holds samples) and gives the epoch after it to a delete or purge that
    /// must follow every sample published so far: answers the sealed generation and that epoch.
    pub fn seal_before(&self) -> (Option<Arc<Generation>>, u64) {
        let mut state = self.0.write().expect("tail lock");
        let sealed = state.seal();
        (sealed, state.allocate())
    }

    /// Seals the open generation (when it holds samples) for the merger.
    #[cfg(test)]
    pub fn seal(&self) -> Option<Arc<Generation>> {
        self.0.write().expect("tail lock").seal()
    }

    /// The epoch of the oldest sealed generation still held (`u64::MAX`: none).
    pub fn oldest_sealed(&self) -> u64 {
        self.0.read().expect("tail lock").sealed.front().map_or(u64::MAX, |g| g.epoch)
    }

    /// Whether a generation merged after `after` (or the open one) holds a sample of `value` at `t`.
    pub fn holds(&self, series: SeriesId, t: Millis, value: &str, after: u64) -> bool {
        let state = self.0.read().expect("tail lock");
        let all = state.sealed.iter().map(Arc::as_ref).chain(std::iter::once(&state.open));
        all.filter(|g| g.epoch > after).filter_map(|g| g.series.get(&series)).any(|tail| tail.holds(t, value))
    }

    /// Merge `epoch` committed: it and the generations before it are dropped (every snapshot taken from now on has
    /// merged them; a reader whose snapshot predates the merge retries); answers the merged generation.
    pub fn retire(&self, epoch: u64) -> Option<Arc<Generation>> {
        let mut state = self.0.write().expect("tail lock");
        let mut merged = None;
        while let Some(first) = state.sealed.front().filter(|g| g.epoch <= epoch) {
            state.floor = state.floor.max(first.epoch);
            merged = state.sealed.pop_front().filter(|g| g.epoch == epoch);
        }
        merged
    }

    /// The first or last unmerged raw rows of a series between two instants (inclusive), in stored order; reading
    /// only as many rows as picked, so a short page stays cheap on a long tail.
    pub fn raw(&self, snapshot: u64, series: SeriesId, window: Window, pick: Pick) -> Option<Vec<TailRow>> {
        let state = self.0.read().expect("tail lock");
        let mut rows = Vec::new();
        for tail in state.unmerged(snapshot)?.filter_map(|g| g.series.get(&series)) {
            let range = tail.raw.range(window);
            let picked = match pick {
                Pick::First(n) => &range[..n.min(range.len())],
                Pick::Last(n) => &range[range.len().saturating_sub(n)..],
                Pick::All => range,
            };
            rows.extend(picked.iter().map(|r| TailRow {
                recv_time: r.recv_time,
                value: r.value.to_string(),
                attr_type: r.attr_type.to_string(),
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
        let tails = state.unmerged(snapshot)?.filter_map(|g| g.series.get(&series));
        Some(tails.map(|tail| tail.raw.range(window).len() as u64).sum())
    }

    /// The unmerged contributions to the points an aggregated query asks for, by start.
    pub fn points(&self, snapshot: u64, q: &AggrQuery) -> Option<Vec<Point>> {
        let state = self.0.read().expect("tail lock");
        let mut points: BTreeMap<Millis, Point> = BTreeMap::new();
        let range = (q.resolution, q.from)..=(q.resolution, q.to);
        for tail in state.unmerged(snapshot)?.filter_map(|g| g.series.get(&q.series)) {
            if q.numeric {
                for (bucket, stats) in tail.numeric.range(q.resolution, q.from, q.to) {
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
        assert_eq!(tail.publish(vec![fresh(1_000, "\"1\""), fresh(2_000, "\"open\"")], 11).map(|g| g.epoch), None);
        assert_eq!(all(&tail, 3).unwrap().len(), 2);
        let sealed = tail.seal().unwrap();
        assert_eq!((sealed.epoch, sealed.through, sealed.samples()), (4, 11, 2));
        tail.publish(vec![fresh(3_000, "\"3\"")], 12);
        // A snapshot before merge 4 reads both generations, one after it only the open one.
        assert_eq!(all(&tail, 3).unwrap().len(), 3);
        let after: Vec<Millis> = all(&tail, 4).unwrap().iter().map(|r| r.recv_time).collect();
        assert_eq!(after, [Millis(3_000)]);
        // Retired (merged, its journal rows deleted), merge 4 leaves: a snapshot before it must retry.
        assert_eq!(tail.retire(4).map(|g| g.epoch), Some(4));
        assert!(all(&tail, 3).is_none(), "too old a snapshot must retry");
        assert_eq!(all(&tail, 4).unwrap().len(), 1);
        assert_eq!(tail.seal().map(|g| (g.epoch, g.through)), Some((5, 12)));
        assert_eq!(all(&tail, 4).unwrap().len(), 1, "sealed, not merged: still read");
        assert_eq!(tail.retire(5).map(|g| g.epoch), Some(5));
        assert_eq!((all(&tail, 4), all(&tail, 5).unwrap()), (None, vec![]));
    }

    #[test]
    fn a_delete_gets_the_epoch_after_the_generation_it_seals_and_holds_reads_after_an_epoch() {
        let tail = Tail::new(0);
        tail.publish(vec![fresh(1_000, "\"1\"")], 1);
        let (sealed, delete) = tail.seal_before();
        assert_eq!((sealed.map(|g| g.epoch), delete), (Some(1), 2));
        let (sealed, purge) = tail.seal_before();
        assert_eq!((sealed.is_none(), purge), (true, 3), "nothing to seal: only an epoch");
        tail.publish(vec![fresh(2_000, "\"2\"")], 2);
        let seven = SeriesId(7);
        assert!(tail.holds(seven, Millis(1_000), "\"1\"", 0) && !tail.holds(seven, Millis(1_000), "\"1\"", 2));
        assert!(tail.holds(seven, Millis(2_000), "\"2\"", 2), "the open generation is after every epoch");
        assert!(!tail.holds(seven, Millis(2_000), "\"1\"", 0));
        assert_eq!(tail.oldest_sealed(), 1);
        // The open generation holds one sample of one series: it is sealed when it reaches the floor.
        let floor = (1..).find(|n| merge_due(*n, 1)).unwrap() as i64;
        let short = (3_000..floor + 2_998).map(|ms| fresh(ms, "1")).collect();
        assert_eq!(tail.publish(short, 3).map(|g| g.epoch), None, "one sample short of a merge");
        assert_eq!(tail.publish(vec![fresh(-1, "1")], 4).map(|g| g.epoch), Some(4));
    }

    #[test]
    fn merges_wait_for_samples_per_touched_series_between_a_floor_and_a_cap() {
        let first_due = |series: usize| (1..).find(|n| merge_due(*n, series)).unwrap();
        assert_eq!(first_due(1), 200_000, "few series: the floor");
        assert_eq!(first_due(10_000), 400_000);
        assert_eq!(first_due(64_000), 2_400_000, "many series: the cap");
    }

    #[test]
    fn late_samples_keep_raw_rows_and_points_in_order() {
        let tail = Tail::new(0);
        let arrivals = [(5_000, "5"), (1_000, "1"), (3_000, "\"b\""), (3_000, "\"a\""), (1_500, "2"), (61_000, "61")];
        tail.publish(arrivals.iter().map(|(ms, v)| fresh(*ms, v)).collect(), 1);
        let stored: Vec<(i64, String)> = all(&tail, 0).unwrap().into_iter().map(|r| (r.recv_time.0, r.value)).collect();
        let expected = [(1_000, "1"), (1_500, "2"), (3_000, "\"a\""), (3_000, "\"b\""), (5_000, "5"), (61_000, "61")];
        assert_eq!(stored, expected.map(|(ms, v)| (ms, v.to_owned())));
        let samples = |q: &AggrQuery| -> Vec<(i64, u64)> {
            let points = tail.points(0, q).unwrap();
            points.iter().filter_map(|p| p.numeric.map(|n| (p.bucket.0, n.samples))).collect()
        };
        assert_eq!(samples(&second(0, 100_000)), [(1_000, 2), (5_000, 1), (61_000, 1)]);
        assert_eq!(samples(&second(2_000, 60_000)), [(5_000, 1)]);
        let minutes = AggrQuery { resolution: Resolution::Minute, ..second(0, 100_000) };
        assert_eq!(samples(&minutes), [(0, 3), (60_000, 1)]);
    }

    #[test]
    fn a_sample_with_the_key_of_a_stored_one_replaces_it() {
        let mut rows = RawRows::default();
        rows.insert(Millis(2), "1".into(), "Number".into());
        rows.insert(Millis(1), "1".into(), "Number".into());
        rows.insert(Millis(2), "1".into(), "Text".into());
        let stored: Vec<(i64, &str)> = rows.iter().map(|r| (r.recv_time.0, &*r.attr_type)).collect();
        assert_eq!(stored, [(1, "Number"), (2, "Text")]);
    }

    #[test]
    fn points_sum_numbers_and_count_text_per_bucket() {
        let tail = Tail::new(0);
        let fresh = vec![fresh(1_000, "\"1.5\""), fresh(1_500, "2.5"), fresh(1_700, "\"a\""), fresh(2_000, "true")];
        tail.publish(fresh, 1);
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

//! The SQLite history store through its trait, on a real database file: idempotency within a job, within one
//! group commit, across commits and across merges; raw reads and paging over the merged tables plus the tail; and
//! rollups checked against a from-scratch recomputation from the distinct raw samples, before and after merges and
//! after a restart with an unmerged log.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::broker::model::EntityId;
use crate::clock::WallClock;
use crate::history::model::{Aggregate, AttrName, EntityRef};
use crate::history::store::{AggrQuery, HistoryStore, NumericStats, RawPaging, RawQuery};
use crate::history::time::Resolution;
use crate::store::sqlite::{SqliteOptions, SqliteStore, Synchronous};
use crate::tenancy::{ServicePath, Tenant};

fn open(dir: &std::path::Path) -> SqliteStore {
    let options = SqliteOptions { data_dir: dir.to_owned(), readers: 2, synchronous: Synchronous::Normal };
    SqliteStore::open(&options, Arc::new(WallClock)).unwrap()
}

fn key(entity: &str, attr: &str) -> SeriesKey {
    let entity = EntityRef {
        tenant: Tenant::default_tenant(),
        path: ServicePath::root(),
        id: EntityId(entity.into()),
        entity_type: "Room".into(),
    };
    SeriesKey { entity, attr: AttrName(attr.into()) }
}

fn sample(series: &SeriesKey, ms: i64, value: Value) -> Sample {
    Sample { series: series.clone(), recv_time: Millis(ms), attr_type: "Number".into(), value }
}

/// Runs a merge of the log now.
async fn merge_now(store: &SqliteStore) {
    submit_merge(&store.writer, &store.history).await.unwrap();
}

/// Every point of a series at one resolution, numeric and text.
fn all_time(series: &SeriesId, resolution: Resolution) -> AggrQuery {
    AggrQuery { series: *series, resolution, from: Millis::MIN, to: Millis::MAX, numeric: true, occur: true }
}

async fn all_raw(store: &SqliteStore, series: &SeriesKey) -> Vec<(i64, Value)> {
    let q = RawQuery { series: series.id(), from: Millis::MIN, to: Millis::MAX, paging: RawPaging::All, count: true };
    let page = store.raw(q).await.unwrap();
    assert_eq!(page.total, Some(page.values.len() as u64));
    page.values.into_iter().map(|v| (v.recv_time.0, v.value)).collect()
}

#[tokio::test]
async fn a_sample_is_stored_once_within_a_job_a_commit_and_across_merges() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let t = key("R1", "t");
    let (a, b, c, d) = (json!("1"), json!("2"), json!(3), json!("open"));
    let first = store.ingest(vec![sample(&t, 1_000, a.clone()), sample(&t, 1_000, a.clone()), sample(&t, 2_000, b)]);
    assert_eq!(first.await.unwrap(), IngestOutcome { stored: 2, duplicates: 1 });
    // Two jobs queued together usually share one group commit: the second must see the first's uncommitted row.
    let (x, y) = (store.ingest(vec![sample(&t, 3_000, c.clone())]), store.ingest(vec![sample(&t, 3_000, c.clone())]));
    let (x, y) = (x.await.unwrap(), y.await.unwrap());
    assert_eq!((x.stored + y.stored, x.duplicates + y.duplicates), (1, 1));
    // Journaled, not merged: the tail answers.
    let again = store.ingest(vec![sample(&t, 1_000, a.clone()), sample(&t, 2_000, json!("2.0"))]).await.unwrap();
    assert_eq!(again, IngestOutcome { stored: 1, duplicates: 1 }, "same instant, other value: a new sample");
    merge_now(&store).await;
    // Merged: the raw table answers.
    let after = store.ingest(vec![sample(&t, 1_000, a), sample(&t, 3_000, c), sample(&t, 4_000, d)]).await.unwrap();
    assert_eq!(after, IngestOutcome { stored: 1, duplicates: 2 });
    let raw = all_raw(&store, &t).await;
    let times: Vec<i64> = raw.iter().map(|(ms, _)| *ms).collect();
    assert_eq!(times, [1_000, 2_000, 2_000, 3_000, 4_000]);
}

#[tokio::test]
async fn a_log_left_unmerged_is_merged_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let t = key("R1", "t");
    {
        let store = open(dir.path());
        store.ingest(vec![sample(&t, 1_000, json!("1.5")), sample(&t, 1_500, json!("2.5"))]).await.unwrap();
        merge_now(&store).await;
        store.ingest(vec![sample(&t, 2_000, json!("4"))]).await.unwrap();
    }
    let store = open(dir.path());
    assert_eq!(all_raw(&store, &t).await.len(), 3);
    let dup = store.ingest(vec![sample(&t, 2_000, json!("4")), sample(&t, 1_500, json!("2.5"))]).await.unwrap();
    assert_eq!(dup, IngestOutcome { stored: 0, duplicates: 2 });
    let q = all_time(&t.id(), Resolution::Minute);
    let points = store.aggregated(q).await.unwrap();
    let stats = points[0].numeric.unwrap();
    assert_eq!((stats.samples, stats.sum, stats.min, stats.max), (3, 8.0, 1.5, 4.0));
}

/// A small deterministic generator (no dependency, same stream everywhere).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

/// Samples over two series and three hours: numbers, text and raw-only values, with repeats.
fn workload(series: &[SeriesKey]) -> Vec<Sample> {
    let mut rng = Lcg(7);
    let values = [json!("1.5"), json!(2), json!("-3"), json!("0"), json!("open"), json!("closed"), json!(true)];
    (0..3_000)
        .map(|_| {
            let s = &series[rng.next(series.len() as u64) as usize];
            let ms = 1_767_225_600_000 + rng.next(3 * 3_600) as i64 * 1_000 + rng.next(3) as i64 * 300;
            sample(s, ms, values[rng.next(values.len() as u64) as usize].clone())
        })
        .collect()
}

/// The points of one resolution computed from distinct samples, as (start, numeric stats, text counts).
type Oracle = BTreeMap<i64, (Option<NumericStats>, BTreeMap<String, u64>)>;

fn oracle(distinct: &BTreeSet<(i64, String)>, resolution: Resolution) -> Oracle {
    let mut points = Oracle::new();
    for (ms, text) in distinct {
        let value: Value = serde_json::from_str(text).unwrap();
        let point = points.entry(resolution.bucket(Millis(*ms)).0).or_default();
        match Aggregate::of(&value) {
            Aggregate::Number(v) => match &mut point.0 {
                Some(stats) => stats.absorb(&NumericStats::of(v)),
                None => point.0 = Some(NumericStats::of(v)),
            },
            Aggregate::Text(s) => *point.1.entry(s).or_default() += 1,
            Aggregate::None => {}
        }
    }
    points.retain(|_, (numeric, text)| numeric.is_some() || !text.is_empty());
    points
}

async fn check_against_oracle(store: &SqliteStore, series: &SeriesKey, distinct: &BTreeSet<(i64, String)>) {
    let raw = all_raw(store, series).await;
    let expected: Vec<(i64, Value)> =
        distinct.iter().map(|(ms, text)| (*ms, serde_json::from_str(text).unwrap())).collect();
    assert_eq!(raw, expected);
    check_pages(store, series, &expected).await;
    for resolution in Resolution::ALL {
        let q = all_time(&series.id(), resolution);
        let got: Oracle = store
            .aggregated(q)
            .await
            .unwrap()
            .into_iter()
            .map(|p| (p.bucket.0, (p.numeric, p.text.map(|t| t.counts.into_iter().collect()).unwrap_or_default())))
            .collect();
        let want = oracle(distinct, resolution);
        assert_eq!(got.len(), want.len(), "{resolution:?}");
        for ((start, (num, text)), (want_start, (want_num, want_text))) in got.iter().zip(&want) {
            assert_eq!((start, text), (want_start, want_text), "{resolution:?}");
            let (n, w) = (num.map(|s| (s.samples, s.min, s.max)), want_num.map(|s| (s.samples, s.min, s.max)));
            assert_eq!(n, w, "{resolution:?} at {start}");
            let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
            if let (Some(n), Some(w)) = (num, want_num) {
                assert!(close(n.sum, w.sum) && close(n.sum2, w.sum2), "{resolution:?} at {start}: {n:?} {w:?}");
            }
        }
    }
}

/// lastN and pages at offsets before, across and after the merged/unmerged boundary equal slices of the oracle.
async fn check_pages(store: &SqliteStore, series: &SeriesKey, expected: &[(i64, Value)]) {
    let read = |paging| RawQuery { series: series.id(), from: Millis::MIN, to: Millis::MAX, paging, count: false };
    for (limit, offset) in [(7usize, 0usize), (50, 3), (100, 400), (13, expected.len() - 5), (10, expected.len() + 2)] {
        let paging = RawPaging::Page { limit: limit as u32, offset: offset as u32 };
        let got: Vec<i64> = store.raw(read(paging)).await.unwrap().values.iter().map(|v| v.recv_time.0).collect();
        let want: Vec<i64> = expected.iter().skip(offset).take(limit).map(|(ms, _)| *ms).collect();
        assert_eq!(got, want, "limit {limit} offset {offset}");
    }
    for n in [1usize, 100, expected.len() + 1] {
        let got: Vec<i64> =
            store.raw(read(RawPaging::LastN(n as u32))).await.unwrap().values.iter().map(|v| v.recv_time.0).collect();
        let want: Vec<i64> = expected[expected.len().saturating_sub(n)..].iter().map(|(ms, _)| *ms).collect();
        assert_eq!(got, want, "lastN {n}");
    }
}

#[tokio::test]
async fn reads_and_rollups_after_batched_ingest_equal_a_recomputation_from_raw_data() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let series = [key("R1", "t"), key("R2", "t")];
    let samples = workload(&series);
    let mut distinct: BTreeMap<SeriesId, BTreeSet<(i64, String)>> =
        series.iter().map(|s| (s.id(), BTreeSet::new())).collect();
    let mut outcome = IngestOutcome::default();
    for (i, jobs) in samples.chunks(250).collect::<Vec<_>>().chunks(3).enumerate() {
        // Three jobs in flight at once (one group commit or more), a merge after every other round.
        let replies: Vec<_> = jobs.iter().map(|job| store.ingest(job.to_vec())).collect();
        for reply in replies {
            let done = reply.await.unwrap();
            outcome.stored += done.stored;
            outcome.duplicates += done.duplicates;
        }
        for s in jobs.iter().flat_map(|job| job.iter()) {
            distinct.get_mut(&s.series.id()).unwrap().insert((s.recv_time.0, s.value.to_string()));
        }
        if i % 2 == 1 {
            merge_now(&store).await;
        }
        for s in &series {
            check_against_oracle(&store, s, &distinct[&s.id()]).await;
        }
    }
    let stored: usize = distinct.values().map(BTreeSet::len).sum();
    assert_eq!(outcome, IngestOutcome { stored, duplicates: samples.len() - stored });
    merge_now(&store).await;
    for s in &series {
        check_against_oracle(&store, s, &distinct[&s.id()]).await;
    }
}

#[test]
fn a_merge_counts_a_row_already_in_the_raw_table_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut hist = open_file(dir.path(), Synchronous::Normal).unwrap();
    let mut main = Connection::open(dir.path().join(crate::store::sqlite::DB_FILE)).unwrap();
    crate::store::sqlite::schema::migrate(&mut main).unwrap();
    let id = key("R1", "t").id();
    let sql = "INSERT INTO history_raw (series, recv_ms, value, attr_type) VALUES (?1, 1000, '\"1\"', 'Number')";
    hist.execute(sql, params![id.0]).unwrap();
    let fresh = |ms: i64, value: &str| Fresh::new(id, Millis(ms), &json!(value), "Number".into());
    // The row already merged among new ones.
    let rows: Vec<Fresh> = (0..150).map(|i| fresh(i * 1_000, "1")).collect();
    let row = journal::append(&main, &rows).unwrap();
    super::open(&main, &mut hist).unwrap();
    let counts = "SELECT (SELECT count(*) FROM history_raw), (SELECT sum(samples) FROM history_rollup
        WHERE resolution = 4), epoch, journal_through FROM history_merged";
    let found: (i64, i64, i64, i64) =
        hist.query_row(counts, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap();
    assert_eq!(found, (150, 149, 1, row), "only the new rows feed the rollups; the mark says what is merged");
    let journal: i64 = main.query_row("SELECT count(*) FROM history_journal", [], |r| r.get(0)).unwrap();
    assert_eq!(journal, 0, "merged rows leave the journal");
}

/// The main file of a data dir left at schema `version`, holding series `t` (tenant `default`, path `/`).
fn old_data_dir(dir: &std::path::Path, version: usize, t: &SeriesKey) -> Connection {
    let mut conn = Connection::open(dir.join(crate::store::sqlite::DB_FILE)).unwrap();
    crate::store::sqlite::schema::migrate_to(&mut conn, version).unwrap();
    let series = "INSERT INTO history_series VALUES (?1, 'default', '/', 'R1', 'Room', 't')";
    conn.execute(series, params![t.id().0]).unwrap();
    conn
}

#[tokio::test]
async fn a_version_5_log_left_unmerged_is_merged_after_the_migration() {
    let dir = tempfile::tempdir().unwrap();
    let t = key("R1", "t");
    {
        let conn = old_data_dir(dir.path(), 5, &t);
        let sql = "INSERT INTO history_log (series, recv_ms, value, attr_type) VALUES (?1, ?2, ?3, 'Number')";
        for (ms, value) in [(2_000, "\"4\""), (1_000, "\"1.5\""), (1_500, "\"a \\\" b\"")] {
            conn.execute(sql, params![t.id().0, ms, value]).unwrap();
        }
    }
    let store = open(dir.path());
    let raw = all_raw(&store, &t).await;
    assert_eq!(raw, [(1_000, json!("1.5")), (1_500, json!("a \" b")), (2_000, json!("4"))]);
    let dup = store.ingest(vec![sample(&t, 1_500, json!("a \" b"))]).await.unwrap();
    assert_eq!(dup, IngestOutcome { stored: 0, duplicates: 1 });
    let q = all_time(&t.id(), Resolution::Hour);
    let points = store.aggregated(q).await.unwrap();
    let stats = points[0].numeric.unwrap();
    assert_eq!((stats.samples, stats.sum), (2, 5.5));
    assert_eq!(points[0].text.as_ref().unwrap().counts, [("a \" b".to_owned(), 1)]);
}

/// Holds the writer thread until released, so that the jobs queued meanwhile share the next transaction. Answers
/// once the holding job runs: the writer has then closed its batch, which a job queued sooner could have joined.
fn hold_writer(store: &SqliteStore) -> std::sync::mpsc::Sender<()> {
    let (release, held) = std::sync::mpsc::channel::<()>();
    let (running, started) = std::sync::mpsc::channel::<()>();
    drop(store.writer.submit(
        move |_| {
            let _ = running.send(());
            Ok(held.recv().is_ok())
        },
        None,
    ));
    started.recv().expect("the writer runs the holding job");
    release
}

#[tokio::test]
async fn a_refused_transaction_leaves_neither_rows_nor_remembered_samples() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let t = key("R1", "t");
    let release = hold_writer(&store);
    let first = store.ingest(vec![sample(&t, 1_000, json!("1"))]);
    // Ends the transaction under the writer's feet: every job of the batch is refused.
    let poison = store.writer.submit(|conn| Ok(conn.execute_batch("ROLLBACK")?), None);
    let again = store.ingest(vec![sample(&t, 1_000, json!("1"))]);
    release.send(()).unwrap();
    assert!(first.await.is_err() && poison.await.is_err() && again.await.is_err());
    assert_eq!(all_raw(&store, &t).await, []);
    // The next transaction must not take the refused sample for one already journaled.
    let stored = store.ingest(vec![sample(&t, 1_000, json!("1"))]).await.unwrap();
    assert_eq!(stored, IngestOutcome { stored: 1, duplicates: 0 });
    assert_eq!(all_raw(&store, &t).await, [(1_000, json!("1"))]);
}

#[tokio::test]
async fn a_sample_sent_again_after_its_delete_in_the_same_transaction_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let t = key("R1", "t");
    store.ingest(vec![sample(&t, 1_000, json!("1"))]).await.unwrap();
    let release = hold_writer(&store);
    let pending = store.ingest(vec![sample(&t, 2_000, json!("2"))]);
    let delete = store.delete(DeleteScope::Attribute(t.clone()));
    let again = store.ingest(vec![sample(&t, 1_000, json!("1")), sample(&t, 2_000, json!("2"))]);
    release.send(()).unwrap();
    assert_eq!(pending.await.unwrap().stored, 1);
    delete.await.unwrap();
    assert_eq!(again.await.unwrap(), IngestOutcome { stored: 2, duplicates: 0 });
    assert_eq!(all_raw(&store, &t).await, [(1_000, json!("1")), (2_000, json!("2"))]);
    merge_now(&store).await;
    assert_eq!(all_raw(&store, &t).await, [(1_000, json!("1")), (2_000, json!("2"))]);
}

#[tokio::test]
async fn a_sample_merged_before_a_restart_stays_a_duplicate_after_an_older_one_is_merged_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let t = key("R1", "t");
    {
        let store = open(dir.path());
        store.ingest(vec![sample(&t, 5_000, json!("5"))]).await.unwrap();
        merge_now(&store).await;
        store.ingest(vec![sample(&t, 1_000, json!("1"))]).await.unwrap();
    }
    // The open merges the older sample: that must not pass for the newest one merged.
    let store = open(dir.path());
    let again = store.ingest(vec![sample(&t, 5_000, json!("5"))]).await.unwrap();
    assert_eq!(again, IngestOutcome { stored: 0, duplicates: 1 });
    assert_eq!(all_raw(&store, &t).await, [(1_000, json!("1")), (5_000, json!("5"))]);
}

/// Holds the history file's write lock from another connection until released, so the merger waits (its busy
/// timeout is longer than the tests hold it).
fn hold_history_file(dir: &std::path::Path) -> std::sync::mpsc::Sender<()> {
    let conn = Connection::open(dir.join(HISTORY_FILE)).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (release, held) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let _ = held.recv();
        conn.execute_batch("COMMIT").unwrap();
    });
    release
}

#[tokio::test]
async fn a_sample_sent_again_while_its_delete_waits_for_the_merger_is_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let t = key("R1", "t");
    store.ingest(vec![sample(&t, 1_000, json!("1"))]).await.unwrap();
    merge_now(&store).await;
    store.ingest(vec![sample(&t, 2_000, json!("2"))]).await.unwrap();
    let release = hold_history_file(dir.path());
    let delete = store.delete(DeleteScope::Attribute(t.clone()));
    // An answered job queued after the delete's: the delete's transaction is committed, its merger task waiting.
    store.ingest(vec![sample(&key("R2", "t"), 1_000, json!("1"))]).await.unwrap();
    // Later transactions than the delete's: the merged sample and the one sealed before the delete are new again.
    let again = store.ingest(vec![sample(&t, 1_000, json!("1")), sample(&t, 2_000, json!("2"))]).await.unwrap();
    assert_eq!(again, IngestOutcome { stored: 2, duplicates: 0 });
    let twice = store.ingest(vec![sample(&t, 2_000, json!("2")), sample(&t, 3_000, json!("3"))]).await.unwrap();
    assert_eq!(twice, IngestOutcome { stored: 1, duplicates: 1 });
    release.send(()).unwrap();
    delete.await.unwrap();
    let expected = [(1_000, json!("1")), (2_000, json!("2")), (3_000, json!("3"))];
    assert_eq!(all_raw(&store, &t).await, expected);
    merge_now(&store).await;
    assert_eq!(all_raw(&store, &t).await, expected);
    let thrice = store.ingest(vec![sample(&t, 1_000, json!("1")), sample(&t, 3_000, json!("3"))]).await.unwrap();
    assert_eq!(thrice, IngestOutcome { stored: 0, duplicates: 2 });
}

#[tokio::test]
async fn a_version_6_data_dir_moves_its_history_to_the_history_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = key("R1", "t");
    {
        let conn = old_data_dir(dir.path(), 6, &t);
        let raw = "INSERT INTO history_raw VALUES (?1, 1000, '\"1.5\"', 'Number')";
        conn.execute(raw, params![t.id().0]).unwrap();
        let rollup = "INSERT INTO history_rollup VALUES (?1, 2, 0, 1, 1.5, 2.25, 1.5, 1.5)";
        conn.execute(rollup, params![t.id().0]).unwrap();
        conn.execute("UPDATE history_merged SET epoch = 3", []).unwrap();
        journal::append(&conn, &[Fresh::new(t.id(), Millis(2_000), &json!("4"), "Number".into())]).unwrap();
    }
    let store = open(dir.path());
    assert_eq!(all_raw(&store, &t).await, [(1_000, json!("1.5")), (2_000, json!("4"))]);
    let q = all_time(&t.id(), Resolution::Hour);
    let stats = store.aggregated(q).await.unwrap()[0].numeric.unwrap();
    assert_eq!((stats.samples, stats.sum), (2, 5.5));
    let dup = store.ingest(vec![sample(&t, 1_000, json!("1.5"))]).await.unwrap();
    assert_eq!(dup, IngestOutcome { stored: 0, duplicates: 1 });
    drop(store);
    let main = Connection::open(dir.path().join(crate::store::sqlite::DB_FILE)).unwrap();
    let left: i64 =
        main.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'history_raw'", [], |r| r.get(0)).unwrap();
    let hist = Connection::open(dir.path().join(HISTORY_FILE)).unwrap();
    let epoch: i64 = hist.query_row("SELECT epoch FROM history_merged", [], |r| r.get(0)).unwrap();
    assert_eq!((left, epoch), (0, 4), "the tables left the main file; the journal row was merged after epoch 3");
}

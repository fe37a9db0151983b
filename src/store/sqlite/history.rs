//! The historic store in SQLite: raw samples, numeric rollups and text occurrence counts (schema migration 2).
//!
//! `history_raw` is clustered on (series, recvTime, value): the key makes a repeated sample a no-op
//! (`INSERT OR IGNORE`) and serves lastN and time ranges as contiguous scans. Rollups are clustered on
//! (series, resolution, point start) and upserted in the same savepoint as the raw row, only when that row was new,
//! so an aggregated read is a range scan over at most one row per point. Series rows (id to key) exist for deletes
//! by service path or entity; a cache of committed series ids spares the hot path re-inserting them.

use std::collections::{BTreeMap, HashSet};
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::{Connection, params};

use crate::history::model::{Aggregate, Sample, SeriesId, SeriesKey};
use crate::history::store::{
    AggrQuery, DeleteScope, IngestOutcome, NumericStats, Point, RawPage, RawPaging, RawQuery, RawValue, TextStats,
};
use crate::history::time::{Millis, Resolution};
use crate::store::StoreError;

/// Series ids known to be committed. Deletes bump the generation so that ids learned by a job that ran before a
/// delete (in the same transaction) are not trusted after it.
#[derive(Debug, Default)]
pub struct KnownSeries {
    ids: RwLock<HashSet<SeriesId>>,
    generation: AtomicU64,
}

impl KnownSeries {
    fn contains(&self, id: SeriesId) -> bool {
        self.ids.read().expect("series cache lock").contains(&id)
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Called after the commit of an ingest that ran at `generation`.
    pub fn learn(&self, generation: u64, ids: &[SeriesId]) {
        if ids.is_empty() || self.generation() != generation {
            return;
        }
        self.ids.write().expect("series cache lock").extend(ids.iter().copied());
    }

    fn forget_all(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.ids.write().expect("series cache lock").clear();
    }
}

/// The outcome of an ingest job, with the series it inserted (to learn after commit).
#[derive(Debug, Default)]
pub struct Ingested {
    pub outcome: IngestOutcome,
    pub new_series: Vec<SeriesId>,
}

const INSERT_SERIES: &str = "INSERT OR IGNORE INTO history_series
    (id, tenant, service_path, entity_id, entity_type, attr_name) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const INSERT_RAW: &str =
    "INSERT OR IGNORE INTO history_raw (series, recv_ms, value, attr_type) VALUES (?1, ?2, ?3, ?4)";
const UPSERT_NUMERIC: &str = "INSERT INTO history_rollup
    (series, resolution, bucket_ms, samples, vsum, vsum2, vmin, vmax) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
    ON CONFLICT DO UPDATE SET samples = samples + excluded.samples, vsum = vsum + excluded.vsum,
        vsum2 = vsum2 + excluded.vsum2, vmin = min(vmin, excluded.vmin), vmax = max(vmax, excluded.vmax)";
const UPSERT_TEXT: &str = "INSERT INTO history_occur (series, resolution, bucket_ms, value, count)
    VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO UPDATE SET count = count + excluded.count";

/// A rollup row's key: series, resolution code, point start.
type PointKey = (i64, u8, i64);

/// The rollup changes of one job, coalesced in memory: one upsert per point (and per text value) however many of
/// the job's samples fall in it. Ordered by key, so the upserts walk the rollup B-trees in order.
#[derive(Debug, Default)]
struct Rollups {
    numeric: BTreeMap<PointKey, NumericStats>,
    text: BTreeMap<(PointKey, String), u64>,
}

impl Rollups {
    fn add(&mut self, id: SeriesId, t: Millis, aggregate: Aggregate) {
        for resolution in Resolution::ALL {
            let key = (id.0, resolution.code() as u8, resolution.bucket(t).0);
            match &aggregate {
                Aggregate::Number(v) => {
                    let v = *v;
                    self.numeric
                        .entry(key)
                        .and_modify(|s| {
                            s.samples += 1;
                            s.sum += v;
                            s.sum2 += v * v;
                            s.min = s.min.min(v);
                            s.max = s.max.max(v);
                        })
                        .or_insert(NumericStats { samples: 1, sum: v, sum2: v * v, min: v, max: v });
                }
                Aggregate::Text(text) => *self.text.entry((key, text.clone())).or_default() += 1,
                Aggregate::None => return,
            }
        }
    }

    fn write(&self, conn: &Connection) -> Result<(), StoreError> {
        if !self.numeric.is_empty() {
            let mut stmt = conn.prepare_cached(UPSERT_NUMERIC)?;
            for ((series, resolution, bucket), s) in &self.numeric {
                stmt.execute(params![series, resolution, bucket, s.samples as i64, s.sum, s.sum2, s.min, s.max])?;
            }
        }
        if !self.text.is_empty() {
            let mut stmt = conn.prepare_cached(UPSERT_TEXT)?;
            for (((series, resolution, bucket), value), n) in &self.text {
                stmt.execute(params![series, resolution, bucket, value, *n as i64])?;
            }
        }
        Ok(())
    }
}

/// Stores samples and their rollups; runs on the writer thread inside the job's savepoint. Raw rows are inserted
/// one by one (the insert tells whether a sample is new); the rollups of the new ones are coalesced per point and
/// written once each at the end of the job.
pub fn ingest(conn: &Connection, known: &KnownSeries, samples: &[Sample]) -> Result<Ingested, StoreError> {
    let mut done = Ingested::default();
    let mut rollups = Rollups::default();
    let mut insert_raw = conn.prepare_cached(INSERT_RAW)?;
    for sample in samples {
        let id = sample.series.id();
        if !known.contains(id) && !done.new_series.contains(&id) {
            insert_series(conn, id, &sample.series)?;
            done.new_series.push(id);
        }
        let t = sample.recv_time;
        let value = sample.value.to_string();
        if insert_raw.execute(params![id.0, t.0, value, sample.attr_type])? == 0 {
            done.outcome.duplicates += 1;
            continue;
        }
        done.outcome.stored += 1;
        rollups.add(id, t, sample.aggregate());
    }
    rollups.write(conn)?;
    Ok(done)
}

fn insert_series(conn: &Connection, id: SeriesId, key: &SeriesKey) -> Result<(), StoreError> {
    let e = &key.entity;
    let mut stmt = conn.prepare_cached(INSERT_SERIES)?;
    stmt.execute(params![id.0, e.tenant.as_str(), e.path.as_str(), e.id.0, e.entity_type, key.attr.0])?;
    Ok(())
}

/// A raw read on a reader connection.
pub fn raw(conn: &Connection, q: &RawQuery) -> Result<RawPage, StoreError> {
    let (order, limit, offset) = match q.paging {
        RawPaging::LastN(n) => ("DESC", i64::from(n), 0),
        RawPaging::Page { limit, offset } => ("ASC", i64::from(limit), i64::from(offset)),
        RawPaging::All => ("ASC", -1, 0),
    };
    let sql = format!(
        "SELECT recv_ms, attr_type, value FROM history_raw WHERE series = ?1 AND recv_ms BETWEEN ?2 AND ?3
         ORDER BY recv_ms {order}, value {order} LIMIT ?4 OFFSET ?5"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![q.series.0, q.from.0, q.to.0, limit, offset], |row| {
        Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?))
    })?;
    let mut values = Vec::new();
    for row in rows {
        let (ms, attr_type, text) = row?;
        let value = serde_json::from_str(&text).map_err(|e| StoreError::Corrupt(format!("history value: {e}")))?;
        values.push(RawValue { recv_time: Millis(ms), attr_type, value });
    }
    if matches!(q.paging, RawPaging::LastN(_)) {
        values.reverse();
    }
    let total = if q.count { Some(count(conn, q)?) } else { None };
    Ok(RawPage { values, total })
}

fn count(conn: &Connection, q: &RawQuery) -> Result<u64, StoreError> {
    let sql = "SELECT count(*) FROM history_raw WHERE series = ?1 AND recv_ms BETWEEN ?2 AND ?3";
    let n: i64 = conn.prepare_cached(sql)?.query_row(params![q.series.0, q.from.0, q.to.0], |r| r.get(0))?;
    Ok(n as u64)
}

/// An aggregated read on a reader connection: rollup rows only.
pub fn aggregated(conn: &Connection, q: &AggrQuery) -> Result<Vec<Point>, StoreError> {
    let mut points = if q.numeric { numeric_points(conn, q)? } else { Vec::new() };
    if q.occur {
        points = merge(points, text_points(conn, q)?);
    }
    Ok(points)
}

fn numeric_points(conn: &Connection, q: &AggrQuery) -> Result<Vec<Point>, StoreError> {
    let sql = "SELECT bucket_ms, samples, vsum, vsum2, vmin, vmax FROM history_rollup
               WHERE series = ?1 AND resolution = ?2 AND bucket_ms BETWEEN ?3 AND ?4 ORDER BY bucket_ms";
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params![q.series.0, q.resolution.code(), q.from.0, q.to.0], |r| {
        let stats = NumericStats {
            samples: r.get::<_, i64>(1)? as u64,
            sum: r.get(2)?,
            sum2: r.get(3)?,
            min: r.get(4)?,
            max: r.get(5)?,
        };
        Ok(Point { bucket: Millis(r.get(0)?), numeric: Some(stats), text: None })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn text_points(conn: &Connection, q: &AggrQuery) -> Result<Vec<Point>, StoreError> {
    let sql = "SELECT bucket_ms, value, count FROM history_occur
               WHERE series = ?1 AND resolution = ?2 AND bucket_ms BETWEEN ?3 AND ?4 ORDER BY bucket_ms, value";
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params![q.series.0, q.resolution.code(), q.from.0, q.to.0])?;
    let mut points: Vec<Point> = Vec::new();
    while let Some(row) = rows.next()? {
        let (bucket, value, n) = (Millis(row.get(0)?), row.get::<_, String>(1)?, row.get::<_, i64>(2)? as u64);
        if points.last().is_none_or(|p| p.bucket != bucket) {
            points.push(Point { bucket, numeric: None, text: Some(TextStats::default()) });
        }
        if let Some(stats) = points.last_mut().and_then(|p| p.text.as_mut()) {
            stats.samples += n;
            stats.counts.push((value, n));
        }
    }
    Ok(points)
}

/// Merges two lists of points sorted by start into one, joining points with the same start.
fn merge(numeric: Vec<Point>, text: Vec<Point>) -> Vec<Point> {
    let mut out: Vec<Point> = Vec::with_capacity(numeric.len().max(text.len()));
    let mut all: Vec<Point> = numeric.into_iter().chain(text).collect();
    all.sort_by_key(|p| p.bucket);
    for point in all {
        match out.last_mut() {
            Some(last) if last.bucket == point.bucket => {
                last.numeric = last.numeric.or(point.numeric);
                last.text = last.text.take().or(point.text);
            }
            _ => out.push(point),
        }
    }
    out
}

/// Deletes a scope's series with their samples and rollups; runs on the writer thread.
pub fn delete(conn: &Connection, known: &KnownSeries, scope: &DeleteScope) -> Result<(), StoreError> {
    known.forget_all();
    for id in series_in(conn, scope)? {
        for table in ["history_raw", "history_rollup", "history_occur"] {
            conn.prepare_cached(&format!("DELETE FROM {table} WHERE series = ?1"))?.execute([id.0])?;
        }
        conn.prepare_cached("DELETE FROM history_series WHERE id = ?1")?.execute([id.0])?;
    }
    Ok(())
}

fn series_in(conn: &Connection, scope: &DeleteScope) -> Result<Vec<SeriesId>, StoreError> {
    let ids = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<Vec<SeriesId>, StoreError> {
        let mut stmt = conn.prepare_cached(sql)?;
        let rows = stmt.query_map(args, |r| Ok(SeriesId(r.get(0)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    };
    match scope {
        DeleteScope::ServicePath { tenant, path } => ids(
            "SELECT id FROM history_series WHERE tenant = ?1 AND service_path = ?2",
            &[&tenant.as_str(), &path.as_str()],
        ),
        DeleteScope::Entity(e) => ids(
            "SELECT id FROM history_series
             WHERE tenant = ?1 AND service_path = ?2 AND entity_id = ?3 AND entity_type = ?4",
            &[&e.tenant.as_str(), &e.path.as_str(), &e.id.0, &e.entity_type],
        ),
        DeleteScope::Attribute(key) => Ok(vec![key.id()]),
    }
}

/// Removes raw samples before `cutoff` and points that end before it, series by series (using the keys).
pub fn purge_before(conn: &Connection, cutoff: Millis) -> Result<u64, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM history_series")?;
    let ids: Vec<i64> = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let mut removed = 0u64;
    for id in ids {
        removed += purge_series(conn, id, cutoff)?;
    }
    Ok(removed)
}

fn purge_series(conn: &Connection, id: i64, cutoff: Millis) -> Result<u64, StoreError> {
    let raw = "DELETE FROM history_raw WHERE series = ?1 AND recv_ms < ?2";
    let mut removed = conn.prepare_cached(raw)?.execute(params![id, cutoff.0])?;
    for resolution in Resolution::ALL {
        // A point is kept while any part of it is younger than the cutoff: its start is at or after the cutoff's.
        let start = resolution.bucket(cutoff).0;
        for table in ["history_rollup", "history_occur"] {
            let sql = format!("DELETE FROM {table} WHERE series = ?1 AND resolution = ?2 AND bucket_ms < ?3");
            removed += conn.prepare_cached(&sql)?.execute(params![id, resolution.code(), start])?;
        }
    }
    Ok(removed as u64)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::broker::model::EntityId;
    use crate::history::model::{AttrName, EntityRef};
    use crate::tenancy::{ServicePath, Tenant};

    fn sample(ms: i64, value: serde_json::Value) -> Sample {
        let entity = EntityRef {
            tenant: Tenant::default_tenant(),
            path: ServicePath::root(),
            id: EntityId("R1".into()),
            entity_type: "Room".into(),
        };
        Sample {
            series: SeriesKey { entity, attr: AttrName("t".into()) },
            recv_time: Millis(ms),
            attr_type: "Number".into(),
            value,
        }
    }

    #[test]
    fn a_job_coalesces_rollups_and_counts_duplicates_once() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::migrate(&mut conn).unwrap();
        let known = KnownSeries::default();
        let job = [
            sample(1_000, json!("1.5")),
            sample(1_500, json!("2.5")),
            sample(1_500, json!("2.5")),
            sample(61_000, json!("open")),
        ];
        let done = ingest(&conn, &known, &job).unwrap();
        assert_eq!(done.outcome, IngestOutcome { stored: 3, duplicates: 1 });
        let again = ingest(&conn, &known, &job[..2]).unwrap();
        assert_eq!(again.outcome, IngestOutcome { stored: 0, duplicates: 2 });
        let id = job[0].series.id();
        let q = |resolution| AggrQuery {
            series: id,
            resolution,
            from: Millis::MIN,
            to: Millis::MAX,
            numeric: true,
            occur: true,
        };
        let seconds = aggregated(&conn, &q(Resolution::Second)).unwrap();
        let first = seconds[0].numeric.unwrap();
        assert_eq!((first.samples, first.sum, first.sum2, first.min, first.max), (2, 4.0, 8.5, 1.5, 2.5));
        let hour = aggregated(&conn, &q(Resolution::Hour)).unwrap();
        assert_eq!(hour.len(), 1);
        assert_eq!(hour[0].numeric.unwrap().samples, 2);
        assert_eq!(hour[0].text.as_ref().unwrap().counts, vec![("open".to_owned(), 1)]);
    }
}

//! The merge: moves every sample of the log (`history_log`, append order) into the series-clustered raw table and
//! the rollup tables, in one writer job, and bumps `history_merged.epoch` in the same transaction.
//!
//! Why: ingest appends to the log, which writes a few pages per commit whatever the series, while the clustered
//! tables cost one or more random pages per series touched. Merging many samples at once, sorted by key, touches
//! each series' pages once for all its samples of the merge and writes each rollup point once (coalesced here in
//! memory). Rollups are computed from the rows the raw insert reports new, so a sample counts once.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{Connection, params};

use crate::history::model::{Aggregate, SeriesId};
use crate::history::store::NumericStats;
use crate::history::time::{Millis, Resolution};
use crate::store::StoreError;

const UPSERT_NUMERIC: &str = "INSERT INTO history_rollup
    (series, resolution, bucket_ms, samples, vsum, vsum2, vmin, vmax) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
    ON CONFLICT DO UPDATE SET samples = samples + excluded.samples, vsum = vsum + excluded.vsum,
        vsum2 = vsum2 + excluded.vsum2, vmin = min(vmin, excluded.vmin), vmax = max(vmax, excluded.vmax)";
const UPSERT_TEXT: &str = "INSERT INTO history_occur (series, resolution, bucket_ms, value, count)
    VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO UPDATE SET count = count + excluded.count";
const BUMP_EPOCH: &str = "UPDATE history_merged SET epoch = epoch + 1 RETURNING epoch";

/// A rollup row's key: series, resolution code, point start.
type PointKey = (i64, u8, i64);

/// Rollup changes coalesced in memory: one upsert per point (and per text value) however many samples fall in it.
/// Ordered by key, so the upserts walk the rollup B-trees in order.
#[derive(Debug, Default)]
pub struct Rollups {
    numeric: BTreeMap<PointKey, NumericStats>,
    text: BTreeMap<(PointKey, String), u64>,
}

impl Rollups {
    pub fn add(&mut self, id: SeriesId, t: Millis, aggregate: &Aggregate) {
        for resolution in Resolution::ALL {
            let key = (id.0, resolution.code() as u8, resolution.bucket(t).0);
            match aggregate {
                Aggregate::Number(v) => {
                    let one = NumericStats::of(*v);
                    self.numeric.entry(key).and_modify(|s| s.absorb(&one)).or_insert(one);
                }
                Aggregate::Text(text) => *self.text.entry((key, text.clone())).or_default() += 1,
                Aggregate::None => return,
            }
        }
    }

    pub fn write(&self, conn: &Connection) -> Result<(), StoreError> {
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

/// A log row: series, recvTime, value (JSON text), attribute type.
type LogRow = (i64, i64, String, String);

/// Moves every log row into `history_raw` in key order, in SQLite. Ingest logs only samples absent from
/// `history_raw`, and deletes and purges merge first, so every row is new; if that ever failed to hold, the insert
/// is refused whole (nothing written) and the rows go one by one, the insert deciding which are new.
const MOVE_LOG: &str = "INSERT INTO history_raw (series, recv_ms, value, attr_type)
    SELECT series, recv_ms, value, attr_type FROM history_log ORDER BY series, recv_ms, value";
const INSERT_RAW: &str =
    "INSERT OR IGNORE INTO history_raw (series, recv_ms, value, attr_type) VALUES (?1, ?2, ?3, ?4)";

/// Merges the whole log; answers the new merge epoch, or `None` when the log was empty (nothing changes then).
/// `merged` learns the newest instant merged per series.
pub fn merge(conn: &Connection, merged: &mut MergedMax) -> Result<Option<u64>, StoreError> {
    let started = std::time::Instant::now();
    let rows = log_rows(conn)?;
    if rows.is_empty() {
        return Ok(None);
    }
    let rollups = match conn.prepare_cached(MOVE_LOG)?.execute([]) {
        Ok(_) => rollups_of(rows.iter(), merged)?,
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => {
            tracing::warn!("history: log rows already merged; merging one by one");
            one_by_one(conn, &rows, merged)?
        }
        Err(e) => return Err(e.into()),
    };
    rollups.write(conn)?;
    conn.prepare_cached("DELETE FROM history_log")?.execute([])?;
    conn.prepare_cached("DELETE FROM temp.history_unmerged")?.execute([])?;
    let epoch: i64 = conn.prepare_cached(BUMP_EPOCH)?.query_row([], |r| r.get(0))?;
    let seconds = started.elapsed().as_secs_f64();
    metrics::histogram!("fluxgate_history_merge_seconds").record(seconds);
    tracing::debug!(samples = rows.len(), epoch, seconds, "history: merged the log");
    Ok(Some(epoch as u64))
}

/// The rollup changes of rows new in `history_raw`.
fn rollups_of<'a>(rows: impl Iterator<Item = &'a LogRow>, merged: &mut MergedMax) -> Result<Rollups, StoreError> {
    let mut rollups = Rollups::default();
    for (series, t, value, _) in rows {
        merged.saw(SeriesId(*series), *t);
        rollups.add(SeriesId(*series), Millis(*t), &aggregate_of(value)?);
    }
    Ok(rollups)
}

fn one_by_one(conn: &Connection, rows: &[LogRow], merged: &mut MergedMax) -> Result<Rollups, StoreError> {
    let mut insert = conn.prepare_cached(INSERT_RAW)?;
    let mut new = Vec::new();
    for row in rows {
        if insert.execute(params![row.0, row.1, row.2, row.3])? > 0 {
            new.push(row);
        }
    }
    rollups_of(new.into_iter(), merged)
}

/// The newest merged instant of each series seen, so ingest can skip the `history_raw` lookup for a sample newer
/// than everything merged. Only ever too high (after a delete, a purge or a failed merge), which costs a lookup.
#[derive(Debug, Default)]
pub struct MergedMax(HashMap<SeriesId, i64>);

impl MergedMax {
    fn saw(&mut self, series: SeriesId, t: i64) {
        let max = self.0.entry(series).or_insert(i64::MIN);
        *max = (*max).max(t);
    }

    /// A series just created: nothing of it is merged.
    pub fn empty_series(&mut self, series: SeriesId) {
        self.0.insert(series, i64::MIN);
    }

    /// Whether `history_raw` may hold a sample of `series` at `t`.
    pub fn may_hold(&mut self, conn: &Connection, series: SeriesId, t: i64) -> Result<bool, StoreError> {
        let max = match self.0.get(&series) {
            Some(max) => *max,
            None => {
                let sql = "SELECT coalesce(max(recv_ms), -9223372036854775808) FROM history_raw WHERE series = ?1";
                let max: i64 = conn.prepare_cached(sql)?.query_row([series.0], |r| r.get(0))?;
                *self.0.entry(series).or_insert(max)
            }
        };
        Ok(t <= max)
    }
}

fn log_rows(conn: &Connection) -> Result<Vec<LogRow>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT series, recv_ms, value, attr_type FROM history_log")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How a stored value (JSON text) aggregates.
pub fn aggregate_of(text: &str) -> Result<Aggregate, StoreError> {
    let value = serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("history value: {e}")))?;
    Ok(Aggregate::of(&value))
}

/// The epoch of the last merge, as the current transaction sees it.
pub fn merged_epoch(conn: &Connection) -> Result<u64, StoreError> {
    let epoch: i64 = conn.prepare_cached("SELECT epoch FROM history_merged")?.query_row([], |r| r.get(0))?;
    Ok(epoch as u64)
}

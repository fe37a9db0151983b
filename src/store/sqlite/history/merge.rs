//! The merge: writes every unmerged sample into the series-clustered raw table and the rollup tables, empties the
//! journal and bumps `history_merged.epoch`, all in one writer job.
//!
//! What it writes comes from memory: the tail's open generation (every sample committed since the last merge,
//! grouped by series with its rollup contributions already coalesced per point), plus, read back from the journal,
//! the samples of ingest jobs earlier in the same transaction (not published to the tail until it commits). Series
//! are written in id order, each one's rows in key order, so each series' pages are touched once per merge and each
//! rollup point is written once. Rollups are the tail's only when every raw row of the series was new; otherwise
//! (a sample already merged, which ingest's checks should rule out) they are recomputed from the rows that were.

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, params};

use super::journal;
use super::tail::{BySeries, Fresh, SeriesTail, Tail, group};
use crate::history::model::SeriesId;
use crate::history::time::Millis;
use crate::store::StoreError;

const UPSERT_NUMERIC: &str = "INSERT INTO history_rollup
    (series, resolution, bucket_ms, samples, vsum, vsum2, vmin, vmax) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
    ON CONFLICT DO UPDATE SET samples = samples + excluded.samples, vsum = vsum + excluded.vsum,
        vsum2 = vsum2 + excluded.vsum2, vmin = min(vmin, excluded.vmin), vmax = max(vmax, excluded.vmax)";
const UPSERT_TEXT: &str = "INSERT INTO history_occur (series, resolution, bucket_ms, value, count)
    VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO UPDATE SET count = count + excluded.count";
const INSERT_RAW: &str =
    "INSERT OR IGNORE INTO history_raw (series, recv_ms, value, attr_type) VALUES (?1, ?2, ?3, ?4)";
const BUMP_EPOCH: &str = "UPDATE history_merged SET epoch = epoch + 1 RETURNING epoch";

/// A sample's identity: series, recvTime, value text.
pub type SampleKey = (SeriesId, Millis, String);

/// What the current writer transaction has done so far that ingest and merges must know: whether a merge already
/// ran in it (the tail's open generation is then merged, and may since have been deleted), and what its ingest jobs
/// journaled since then (the first journal row, the samples' keys), which the tail holds only after the commit.
#[derive(Debug, Default)]
pub struct Pending {
    pub merged: bool,
    pub journal_from: Option<i64>,
    pub keys: HashSet<SampleKey>,
}

/// Merges every unmerged sample; answers the new merge epoch, or `None` when there was nothing to merge (nothing
/// changes then). `merged` learns the newest instant merged per series; `pending` is reset (all is merged).
pub fn merge(
    conn: &Connection,
    tail: &Tail,
    pending: &mut Pending,
    merged: &mut MergedMax,
) -> Result<Option<u64>, StoreError> {
    let started = std::time::Instant::now();
    let mut samples = 0;
    if !pending.merged {
        samples += tail.with_open(|open| write(conn, open, merged))?;
    }
    if let Some(from) = pending.journal_from {
        samples += write(conn, &group(journal::since(conn, from)?), merged)?;
    }
    if samples == 0 {
        return Ok(None);
    }
    journal::clear(conn)?;
    let epoch: i64 = conn.prepare_cached(BUMP_EPOCH)?.query_row([], |r| r.get(0))?;
    *pending = Pending { merged: true, ..Pending::default() };
    let seconds = started.elapsed().as_secs_f64();
    metrics::histogram!("fluxgate_history_merge_seconds").record(seconds);
    tracing::debug!(samples, epoch, seconds, "history: merged the journal");
    Ok(Some(epoch as u64))
}

/// Writes samples grouped by series, in series order; answers how many raw rows were given.
fn write(conn: &Connection, series: &BySeries, merged: &mut MergedMax) -> Result<usize, StoreError> {
    let mut ids: Vec<&SeriesId> = series.keys().collect();
    ids.sort_unstable();
    let mut rows = 0;
    for id in ids {
        let tail = &series[id];
        rows += tail.raw.len();
        write_series(conn, *id, tail, merged)?;
    }
    Ok(rows)
}

fn write_series(conn: &Connection, id: SeriesId, tail: &SeriesTail, merged: &mut MergedMax) -> Result<(), StoreError> {
    let mut insert = conn.prepare_cached(INSERT_RAW)?;
    let mut refused = Vec::new();
    for ((t, value), attr_type) in &tail.raw {
        if insert.execute(params![id.0, t.0, value, attr_type])? == 0 {
            refused.push((*t, value.as_str()));
        }
    }
    if let Some(((last, _), _)) = tail.raw.last_key_value() {
        merged.saw(id, last.0);
    }
    if refused.is_empty() {
        return write_rollups(conn, id, tail);
    }
    tracing::warn!(series = id.0, rows = refused.len(), "history: merged rows already in the raw table");
    write_rollups(conn, id, &only_new(id, tail, &refused)?)
}

/// The series' rows other than `refused`, with their rollup contributions recomputed.
fn only_new(id: SeriesId, tail: &SeriesTail, refused: &[(Millis, &str)]) -> Result<SeriesTail, StoreError> {
    let mut new = SeriesTail::default();
    for ((t, value), attr_type) in &tail.raw {
        if !refused.contains(&(*t, value.as_str())) {
            let parsed = serde_json::from_str(value).map_err(|e| StoreError::Corrupt(format!("history value: {e}")))?;
            new.add(Fresh::new(id, *t, &parsed, attr_type.clone()));
        }
    }
    Ok(new)
}

fn write_rollups(conn: &Connection, id: SeriesId, tail: &SeriesTail) -> Result<(), StoreError> {
    if !tail.numeric.is_empty() {
        let mut stmt = conn.prepare_cached(UPSERT_NUMERIC)?;
        for ((resolution, bucket), s) in &tail.numeric {
            let code = resolution.code();
            stmt.execute(params![id.0, code, bucket.0, s.samples as i64, s.sum, s.sum2, s.min, s.max])?;
        }
    }
    if !tail.text.is_empty() {
        let mut stmt = conn.prepare_cached(UPSERT_TEXT)?;
        for ((resolution, bucket), counts) in &tail.text {
            for (value, n) in counts {
                stmt.execute(params![id.0, resolution.code(), bucket.0, value, *n as i64])?;
            }
        }
    }
    Ok(())
}

/// The newest merged instant of each series seen, so ingest can skip the `history_raw` lookup for a sample newer
/// than everything merged. Only ever too high (after a delete, a purge or a failed merge), which costs a lookup.
#[derive(Debug, Default)]
pub struct MergedMax(HashMap<SeriesId, i64>);

impl MergedMax {
    /// A sample of `series` at `t` merged. A series not known here is left unknown: the table may hold later
    /// samples of it, merged before this process started.
    fn saw(&mut self, series: SeriesId, t: i64) {
        if let Some(max) = self.0.get_mut(&series) {
            *max = (*max).max(t);
        }
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

/// The epoch of the last merge, as the current transaction sees it.
pub fn merged_epoch(conn: &Connection) -> Result<u64, StoreError> {
    let epoch: i64 = conn.prepare_cached("SELECT epoch FROM history_merged")?.query_row([], |r| r.get(0))?;
    Ok(epoch as u64)
}

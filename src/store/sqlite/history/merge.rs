//! The merge: writes a sealed tail generation into the series-clustered raw table and the rollup tables of the
//! history file, and records its epoch and the last journal row it holds in `history_merged`, in one transaction
//! on the merger's connection.
//!
//! What it writes comes from memory (the generation groups samples by series, with their rollup contributions
//! already coalesced per point). Series are written in id order, each one's rows in key order, so each series'
//! pages are touched once per merge and each rollup point is written once. Rollups are the generation's only when
//! every raw row of the series was new; otherwise (a sample already merged, which ingest's checks should rule out)
//! they are recomputed from the rows that were.

use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::tail::{BySeries, Fresh, Generation, SeriesTail};
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
const MARK: &str = "UPDATE history_merged SET epoch = ?1, journal_through = max(journal_through, ?2)";

/// A sample's identity: series, recvTime, value text.
pub type SampleKey = (SeriesId, Millis, String);

/// Writes `generation` and its mark in one transaction of the history file.
pub fn merge(conn: &mut Connection, generation: &Generation) -> Result<(), StoreError> {
    let started = std::time::Instant::now();
    let tx = conn.transaction()?;
    write(&tx, &generation.series)?;
    mark(&tx, generation.epoch, generation.through)?;
    tx.commit()?;
    let seconds = started.elapsed().as_secs_f64();
    metrics::histogram!("fluxgate_history_merge_seconds").record(seconds);
    let (samples, epoch) = (generation.samples(), generation.epoch);
    tracing::debug!(samples, epoch, seconds, "history: merged a generation");
    Ok(())
}

/// Records in the history file that merge `epoch` is done and the journal is merged through row `through`.
pub fn mark(conn: &Connection, epoch: u64, through: i64) -> Result<(), StoreError> {
    conn.prepare_cached(MARK)?.execute(params![epoch as i64, through])?;
    Ok(())
}

/// Writes samples grouped by series, in series order.
fn write(conn: &Connection, series: &BySeries) -> Result<(), StoreError> {
    let mut ids: Vec<&SeriesId> = series.keys().collect();
    ids.sort_unstable();
    for id in ids {
        write_series(conn, *id, &series[id])?;
    }
    Ok(())
}

fn write_series(conn: &Connection, id: SeriesId, tail: &SeriesTail) -> Result<(), StoreError> {
    let mut insert = conn.prepare_cached(INSERT_RAW)?;
    let mut refused = Vec::new();
    for row in &tail.raw {
        if insert.execute(params![id.0, row.recv_time.0, &*row.value, &*row.attr_type])? == 0 {
            refused.push(row.key());
        }
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
    for row in &tail.raw {
        if !refused.contains(&row.key()) {
            let parsed =
                serde_json::from_str(&row.value).map_err(|e| StoreError::Corrupt(format!("history value: {e}")))?;
            new.add(Fresh::new(id, row.recv_time, &parsed, row.attr_type.to_string()));
        }
    }
    Ok(new)
}

fn write_rollups(conn: &Connection, id: SeriesId, tail: &SeriesTail) -> Result<(), StoreError> {
    if !tail.numeric.is_empty() {
        let mut stmt = conn.prepare_cached(UPSERT_NUMERIC)?;
        for (resolution, bucket, s) in tail.numeric.iter() {
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
    /// `generation` is merged. A series not known here is left unknown: the table may hold later samples of it,
    /// merged before this process started.
    pub fn saw(&mut self, generation: &Generation) {
        for (series, tail) in &generation.series {
            if let (Some(max), Some(last)) = (self.0.get_mut(series), tail.raw.last()) {
                *max = (*max).max(last.recv_time.0);
            }
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

/// The epoch of the last merge (or delete, or purge), as the current transaction sees it.
pub fn merged_epoch(conn: &Connection) -> Result<u64, StoreError> {
    let epoch: i64 = conn.prepare_cached("SELECT epoch FROM history_merged")?.query_row([], |r| r.get(0))?;
    Ok(epoch as u64)
}

/// The epoch of the last merge and the last journal row merged, as the current transaction sees them.
pub fn merged_mark(conn: &Connection) -> Result<(u64, i64), StoreError> {
    let sql = "SELECT epoch, journal_through FROM history_merged";
    let (epoch, through): (i64, i64) = conn.prepare_cached(sql)?.query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok((epoch as u64, through))
}

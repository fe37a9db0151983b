//! Reads on a reader connection: the clustered tables of one snapshot plus the tail that snapshot has not merged.
//!
//! Each read runs in one read transaction: it reads the merge epoch, then the clustered rows, and asks the tail for
//! the generations after that epoch (retrying with a new snapshot in the rare case the tail has moved two merges
//! on). The two parts are disjoint, so raw paging and counts are computed over their union here (a page of `limit`
//! after `offset` needs at most `offset + limit` rows of each part, lastN the newest `n` of each), and points of the
//! same start are summed. An aggregated read touches rollup rows and in-memory point contributions only.

use rusqlite::{Connection, params};

use super::merge::merged_epoch;
use super::tail::{Pick, Tail, TailRow, Window};
use crate::history::store::{AggrQuery, NumericStats, Point, RawPage, RawPaging, RawQuery, RawValue, TextStats};
use crate::history::time::Millis;
use crate::store::StoreError;

/// Attempts at a consistent snapshot before giving up (each failure means two merges committed during the read).
const ATTEMPTS: usize = 8;

/// Runs `read` with the merge epoch of a fresh read transaction until the tail can serve that epoch.
fn consistent<T>(
    conn: &Connection,
    mut read: impl FnMut(&Connection, u64) -> Result<Option<T>, StoreError>,
) -> Result<T, StoreError> {
    for _ in 0..ATTEMPTS {
        let tx = conn.unchecked_transaction()?;
        let epoch = merged_epoch(&tx)?;
        if let Some(answer) = read(&tx, epoch)? {
            return Ok(answer);
        }
    }
    Err(StoreError::Database("history: no consistent snapshot (merges too frequent)".into()))
}

/// A raw read.
pub fn raw(conn: &Connection, tail: &Tail, q: &RawQuery) -> Result<RawPage, StoreError> {
    let window = Window { from: q.from, to: q.to };
    consistent(conn, |tx, epoch| {
        let (pick, stored_limit) = match q.paging {
            RawPaging::LastN(n) => (Pick::Last(n as usize), i64::from(n)),
            RawPaging::Page { limit, offset } => {
                let end = limit.saturating_add(offset);
                (Pick::First(end as usize), i64::from(end))
            }
            RawPaging::All => (Pick::All, -1),
        };
        let Some(recent) = tail.raw(epoch, q.series, window, pick) else { return Ok(None) };
        let values = match q.paging {
            RawPaging::LastN(n) => last_n(tx, q, recent, n as usize)?,
            RawPaging::Page { limit, offset } => {
                let all = union(stored(tx, q, "ASC", stored_limit, 0)?, recent);
                all.into_iter().skip(offset as usize).take(limit as usize).collect()
            }
            RawPaging::All => union(stored(tx, q, "ASC", -1, 0)?, recent),
        };
        let total = match q.count {
            true => match tail.count(epoch, q.series, window) {
                Some(unmerged) => Some(count(tx, q)? + unmerged),
                None => return Ok(None),
            },
            false => None,
        };
        let values = values.into_iter().map(decode).collect::<Result<_, _>>()?;
        Ok(Some(RawPage { values, total }))
    })
}

fn decode(row: TailRow) -> Result<RawValue, StoreError> {
    let value = serde_json::from_str(&row.value).map_err(|e| StoreError::Corrupt(format!("history value: {e}")))?;
    Ok(RawValue { recv_time: row.recv_time, attr_type: row.attr_type, value })
}

/// The newest `n` of the union (of which the tail gave its newest `n`), oldest first.
fn last_n(tx: &Connection, q: &RawQuery, recent: Vec<TailRow>, n: usize) -> Result<Vec<TailRow>, StoreError> {
    let mut rows = stored(tx, q, "DESC", n as i64, 0)?;
    rows.reverse();
    let all = union(rows, recent);
    Ok(all[all.len().saturating_sub(n)..].to_vec())
}

/// Two sorted, disjoint lists of rows as one sorted list.
fn union(stored: Vec<TailRow>, recent: Vec<TailRow>) -> Vec<TailRow> {
    if recent.is_empty() {
        return stored;
    }
    let mut all = stored;
    all.extend(recent);
    all.sort();
    all
}

/// Clustered rows of the query's range in `order`, then `limit` (-1: all) after `offset`, as read.
fn stored(tx: &Connection, q: &RawQuery, order: &str, limit: i64, offset: i64) -> Result<Vec<TailRow>, StoreError> {
    let sql = format!(
        "SELECT recv_ms, attr_type, value FROM history_raw WHERE series = ?1 AND recv_ms BETWEEN ?2 AND ?3
         ORDER BY recv_ms {order}, value {order} LIMIT ?4 OFFSET ?5"
    );
    let mut stmt = tx.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![q.series.0, q.from.0, q.to.0, limit, offset], |row| {
        Ok(TailRow { recv_time: Millis(row.get(0)?), attr_type: row.get(1)?, value: row.get(2)? })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn count(tx: &Connection, q: &RawQuery) -> Result<u64, StoreError> {
    let sql = "SELECT count(*) FROM history_raw WHERE series = ?1 AND recv_ms BETWEEN ?2 AND ?3";
    let n: i64 = tx.prepare_cached(sql)?.query_row(params![q.series.0, q.from.0, q.to.0], |r| r.get(0))?;
    Ok(n as u64)
}

/// An aggregated read: rollup rows plus the tail's contributions, never raw samples.
pub fn aggregated(conn: &Connection, tail: &Tail, q: &AggrQuery) -> Result<Vec<Point>, StoreError> {
    consistent(conn, |tx, epoch| {
        let Some(recent) = tail.points(epoch, q) else { return Ok(None) };
        let mut points = if q.numeric { numeric_points(tx, q)? } else { Vec::new() };
        if q.occur {
            points = merge_points(points, text_points(tx, q)?);
        }
        Ok(Some(merge_points(points, recent)))
    })
}

fn numeric_points(tx: &Connection, q: &AggrQuery) -> Result<Vec<Point>, StoreError> {
    let sql = "SELECT bucket_ms, samples, vsum, vsum2, vmin, vmax FROM history_rollup
               WHERE series = ?1 AND resolution = ?2 AND bucket_ms BETWEEN ?3 AND ?4 ORDER BY bucket_ms";
    let mut stmt = tx.prepare_cached(sql)?;
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

fn text_points(tx: &Connection, q: &AggrQuery) -> Result<Vec<Point>, StoreError> {
    let sql = "SELECT bucket_ms, value, count FROM history_occur
               WHERE series = ?1 AND resolution = ?2 AND bucket_ms BETWEEN ?3 AND ?4 ORDER BY bucket_ms, value";
    let mut stmt = tx.prepare_cached(sql)?;
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

/// Merges two lists of points sorted by start into one, summing points with the same start.
fn merge_points(a: Vec<Point>, b: Vec<Point>) -> Vec<Point> {
    if b.is_empty() {
        return a;
    }
    let mut all: Vec<Point> = a.into_iter().chain(b).collect();
    all.sort_by_key(|p| p.bucket);
    let mut out: Vec<Point> = Vec::with_capacity(all.len());
    for point in all {
        match out.last_mut() {
            Some(last) if last.bucket == point.bucket => last.absorb(point),
            _ => out.push(point),
        }
    }
    out
}

//! The ingest journal (`history_journal` in the main file, schema migrations 6 and 7): one row per ingest job,
//! holding the job's new samples as one JSON array `[[series, recvTime ms, value (JSON text), attribute type], ...]`.
//!
//! The journal exists for durability only: a sample is acknowledged once its journal row is committed, and the
//! merger takes what it writes from the in-memory tail, not from here. Rows are deleted once the history file's
//! mark says they are merged, and read back only at open (rows past the mark: a run that stopped before merging
//! them). One row per job instead of one per sample takes an
//! insert, its B-tree work and its statement overhead off the single writer thread for all but one sample of a job.
//! No idempotency here: ingest only journals samples it found new.

use rusqlite::{Connection, params};

use super::tail::Fresh;
use crate::history::model::SeriesId;
use crate::history::time::Millis;
use crate::store::StoreError;

/// One journaled sample as encoded: series, recvTime, value (JSON text), attribute type.
type Entry<'a> = (i64, i64, &'a str, &'a str);

/// Appends one row holding `samples` (not empty); answers its sequence number.
pub fn append(conn: &Connection, samples: &[Fresh]) -> Result<i64, StoreError> {
    let entries: Vec<Entry<'_>> =
        samples.iter().map(|f| (f.series.0, f.recv_time.0, f.value.as_str(), f.attr_type.as_str())).collect();
    let text = serde_json::to_string(&entries).map_err(|e| StoreError::Database(format!("history journal: {e}")))?;
    conn.prepare_cached("INSERT INTO history_journal (samples) VALUES (?1)")?.execute([text])?;
    Ok(conn.last_insert_rowid())
}

/// The samples of every row after row `through`, in journal order, and the last row's number (`through` when
/// there is none).
pub fn after(conn: &Connection, through: i64) -> Result<(Vec<Fresh>, i64), StoreError> {
    let mut stmt = conn.prepare_cached("SELECT seq, samples FROM history_journal WHERE seq > ?1 ORDER BY seq")?;
    let rows = stmt.query_map(params![through], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    let (mut samples, mut last) = (Vec::new(), through);
    for row in rows {
        let (seq, text) = row?;
        samples.extend(decode(&text)?);
        last = seq;
    }
    Ok((samples, last))
}

/// Deletes the rows up to row `through` (their samples are merged). Row numbers are never reused
/// (`AUTOINCREMENT`), so the history file's mark stays below every later row.
pub fn clear_through(conn: &Connection, through: i64) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM history_journal WHERE seq <= ?1")?.execute([through])?;
    Ok(())
}

fn decode(text: &str) -> Result<Vec<Fresh>, StoreError> {
    let corrupt = |e: serde_json::Error| StoreError::Corrupt(format!("history journal: {e}"));
    let entries: Vec<(i64, i64, String, String)> = serde_json::from_str(text).map_err(corrupt)?;
    entries
        .into_iter()
        .map(|(series, ms, value, attr_type)| {
            let parsed = serde_json::from_str(&value).map_err(corrupt)?;
            Ok(Fresh::new(SeriesId(series), Millis(ms), &parsed, attr_type))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rows_read_back_as_written_after_a_row_number_and_numbers_are_not_reused() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::store::sqlite::schema::migrate(&mut conn).unwrap();
        let fresh = |ms: i64, value: serde_json::Value| Fresh::new(SeriesId(9), Millis(ms), &value, "T\"x".into());
        let first = vec![fresh(1, json!("1.5")), fresh(2, json!({"a": ["b\n"]}))];
        let second = vec![fresh(3, json!("open"))];
        let a = append(&conn, &first).unwrap();
        let b = append(&conn, &second).unwrap();
        assert_eq!(after(&conn, a - 1).unwrap(), ([first.clone(), second.clone()].concat(), b));
        assert_eq!(after(&conn, a).unwrap(), (second, b));
        clear_through(&conn, b).unwrap();
        assert_eq!(after(&conn, 0).unwrap(), (vec![], 0));
        // A row appended after the journal was emptied is numbered after every row before it.
        assert!(append(&conn, &first).unwrap() > b);
    }
}

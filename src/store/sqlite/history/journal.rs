//! The ingest journal (`history_journal`, schema migration 6): one row per ingest job, holding the job's new samples
//! as one JSON array `[[series, recvTime ms, value (JSON text), attribute type], ...]`.
//!
//! The journal exists for durability only: a sample is acknowledged once its journal row is committed, and the
//! merge takes what it writes from the in-memory tail, not from here. It is read back in two cases: at open (a run
//! that stopped before merging; its rows rebuild the tail) and by a merge that shares its transaction with ingest
//! jobs whose samples are not published to the tail yet. One row per job instead of one per sample takes an
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

/// The samples of every row numbered `from` or later, in journal order.
pub fn since(conn: &Connection, from: i64) -> Result<Vec<Fresh>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT samples FROM history_journal WHERE seq >= ?1 ORDER BY seq")?;
    let rows = stmt.query_map(params![from], |r| r.get::<_, String>(0))?;
    let mut samples = Vec::new();
    for text in rows {
        samples.extend(decode(&text?)?);
    }
    Ok(samples)
}

/// Empties the journal (its samples are merged).
pub fn clear(conn: &Connection) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM history_journal")?.execute([])?;
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
    fn rows_read_back_as_written_from_a_sequence_number_on() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::store::sqlite::schema::migrate(&mut conn).unwrap();
        let fresh = |ms: i64, value: serde_json::Value| Fresh::new(SeriesId(9), Millis(ms), &value, "T\"x".into());
        let first = vec![fresh(1, json!("1.5")), fresh(2, json!({"a": ["b\n"]}))];
        let second = vec![fresh(3, json!("open"))];
        let a = append(&conn, &first).unwrap();
        let b = append(&conn, &second).unwrap();
        assert_eq!(since(&conn, a).unwrap(), [first, second.clone()].concat());
        assert_eq!(since(&conn, b).unwrap(), second);
        clear(&conn).unwrap();
        assert_eq!(since(&conn, 0).unwrap(), []);
    }
}

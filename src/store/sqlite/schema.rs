//! Versioned schema migrations of the SQLite store, applied in order at open, tracked in `PRAGMA user_version`.
//!
//! A migration is appended, never edited: a data dir written by an older Fluxgate is brought forward step by step, and
//! one written by a newer Fluxgate (a higher version than this binary knows) is refused rather than misread.

use rusqlite::Connection;

use crate::store::StoreError;

/// Migration `i` brings the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: services, tokens, entities, subscriptions.
    "CREATE TABLE services (
         name TEXT PRIMARY KEY,
         created_at TEXT NOT NULL
     );
     CREATE TABLE tokens (
         hash TEXT PRIMARY KEY,
         service TEXT NOT NULL REFERENCES services(name),
         path TEXT NOT NULL,
         read_only INTEGER NOT NULL,
         created_at TEXT NOT NULL
     );
     CREATE TABLE entities (
         seq INTEGER PRIMARY KEY AUTOINCREMENT,
         tenant TEXT NOT NULL,
         service_path TEXT NOT NULL,
         id TEXT NOT NULL,
         type TEXT NOT NULL,
         attrs TEXT NOT NULL,
         UNIQUE (tenant, id, type, service_path)
     );
     CREATE INDEX entities_by_type ON entities (tenant, type);
     CREATE TABLE subscriptions (
         id TEXT PRIMARY KEY,
         tenant TEXT NOT NULL,
         body TEXT NOT NULL
     );",
    // 2: device registrations and the command queue.
    "CREATE TABLE devices (
         tenant TEXT NOT NULL,
         device_id TEXT NOT NULL,
         service_path TEXT NOT NULL,
         body TEXT NOT NULL,
         PRIMARY KEY (tenant, device_id)
     );
     CREATE TABLE commands (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         tenant TEXT NOT NULL,
         device_id TEXT NOT NULL,
         command TEXT NOT NULL,
         text TEXT NOT NULL,
         status TEXT NOT NULL,
         created_ms INTEGER NOT NULL
     );
     CREATE INDEX commands_by_device ON commands (tenant, device_id, status);
     CREATE INDEX commands_by_age ON commands (status, created_ms);",
    // 3: history (issue 5): series, raw samples, numeric rollups and text occurrence counts per resolution.
    "CREATE TABLE history_series (
         id INTEGER PRIMARY KEY,
         tenant TEXT NOT NULL,
         service_path TEXT NOT NULL,
         entity_id TEXT NOT NULL,
         entity_type TEXT NOT NULL,
         attr_name TEXT NOT NULL
     );
     CREATE INDEX history_series_by_entity ON history_series (tenant, service_path, entity_id, entity_type);
     CREATE TABLE history_raw (
         series INTEGER NOT NULL,
         recv_ms INTEGER NOT NULL,
         value TEXT NOT NULL,
         attr_type TEXT NOT NULL,
         PRIMARY KEY (series, recv_ms, value)
     ) WITHOUT ROWID;
     CREATE TABLE history_rollup (
         series INTEGER NOT NULL,
         resolution INTEGER NOT NULL,
         bucket_ms INTEGER NOT NULL,
         samples INTEGER NOT NULL,
         vsum REAL NOT NULL,
         vsum2 REAL NOT NULL,
         vmin REAL NOT NULL,
         vmax REAL NOT NULL,
         PRIMARY KEY (series, resolution, bucket_ms)
     ) WITHOUT ROWID;
     CREATE TABLE history_occur (
         series INTEGER NOT NULL,
         resolution INTEGER NOT NULL,
         bucket_ms INTEGER NOT NULL,
         value TEXT NOT NULL,
         count INTEGER NOT NULL,
         PRIMARY KEY (series, resolution, bucket_ms, value)
     ) WITHOUT ROWID;",
    // 4: CEP configurations, one per tenant (service and service path).
    "CREATE TABLE cep_configs (
         tenant TEXT NOT NULL,
         service_path TEXT NOT NULL,
         body TEXT NOT NULL,
         PRIMARY KEY (tenant, service_path)
     );",
    // 5: history ingest log (issue 5): new samples are appended here in commit order and merged into history_raw and
    // the rollups in large batches; history_merged counts the merges, so readers know what their snapshot merged.
    "CREATE TABLE history_log (
         seq INTEGER PRIMARY KEY,
         series INTEGER NOT NULL,
         recv_ms INTEGER NOT NULL,
         value TEXT NOT NULL,
         attr_type TEXT NOT NULL
     );
     CREATE TABLE history_merged (epoch INTEGER NOT NULL);
     INSERT INTO history_merged (epoch) VALUES (0);",
    // 6: history ingest journal (issue 5): one row per ingest job instead of one per sample; a log left by version 5
    // moves into it as one row, in log order, in the journal's encoding.
    "CREATE TABLE history_journal (
         seq INTEGER PRIMARY KEY,
         samples TEXT NOT NULL
     );
     INSERT INTO history_journal (samples)
         SELECT json_group_array(json_array(series, recv_ms, value, attr_type))
         FROM (SELECT series, recv_ms, value, attr_type FROM history_log ORDER BY seq)
         HAVING count(*) > 0;
     DROP TABLE history_log;",
    // 7: the clustered history tables and the merge mark move to the history file (`history.db`, copied there by
    // `history::adopt` before this step); the journal's row numbers are never reused, because the history file
    // records the last row merged.
    "DROP TABLE history_raw;
     DROP TABLE history_rollup;
     DROP TABLE history_occur;
     DROP TABLE history_merged;
     CREATE TABLE history_journal_7 (
         seq INTEGER PRIMARY KEY AUTOINCREMENT,
         samples TEXT NOT NULL
     );
     INSERT INTO history_journal_7 (seq, samples) SELECT seq, samples FROM history_journal;
     DROP TABLE history_journal;
     ALTER TABLE history_journal_7 RENAME TO history_journal;",
];

/// The last version whose main file holds the clustered history tables; the store copies them to the history file
/// before migrating past it.
pub const HISTORY_IN_MAIN: usize = 6;

/// The schema version this binary writes.
pub fn current_version() -> usize {
    MIGRATIONS.len()
}

/// Brings the database to the current version, each step in its own transaction.
pub fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    migrate_to(conn, current_version())
}

/// The version the database is at.
pub fn version(conn: &Connection) -> Result<usize, StoreError> {
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    Ok(usize::try_from(found).unwrap_or(0))
}

/// Brings the database to `target` (at most the current version); the store uses it to stop where the history
/// tables leave the main file, and tests to write data as an older Fluxgate did.
pub fn migrate_to(conn: &mut Connection, target: usize) -> Result<(), StoreError> {
    let found = version(conn)?;
    if found > current_version() {
        return Err(StoreError::Corrupt(format!(
            "schema version {found} is newer than this binary's {}",
            current_version()
        )));
    }
    for (version, sql) in MIGRATIONS.iter().enumerate().take(target).skip(found) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (version + 1) as i64)?;
        tx.commit()?;
        tracing::info!(version = version + 1, "applied store migration");
    }
    Ok(())
}

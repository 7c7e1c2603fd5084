//! The usage database on disk: opening it (WAL, `synchronous=NORMAL`), the integrity check
//! that moves a corrupt file aside, and the versioned schema migrations.
//!
//! Times are Unix milliseconds; lists (an execution's parameter names, an answer's tool ids
//! in rank order) are JSON arrays, read with `json_each`, so a record is one row and pruning
//! one `DELETE` a table.

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The database's file name in the data directory.
pub(crate) const FILE: &str = "usage.db";

/// How long a statement waits for another connection's lock (the writer's commit, or
/// another toolscout process on the same directory) before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema, one step a version: `PRAGMA user_version` says how many steps a database has
/// had. Steps are only ever appended; each runs in its own transaction with the version bump.
const MIGRATIONS: &[&str] = &[
    // 1: executions, answers shown, feedback.
    "CREATE TABLE executions (
        id INTEGER PRIMARY KEY,
        time_ms INTEGER NOT NULL,
        tool_id TEXT NOT NULL,
        source TEXT NOT NULL,
        outcome TEXT NOT NULL,
        error_code TEXT,
        latency_ms REAL NOT NULL,
        output_bytes INTEGER NOT NULL,
        query_count INTEGER NOT NULL,
        params TEXT NOT NULL DEFAULT '[]',
        session_id TEXT,
        request_id TEXT
    );
    -- Per-tool statistics (counts, latencies in order, last use) and the overview's one
    -- pass over every tool read this index alone, never the table.
    CREATE INDEX executions_tool ON executions (tool_id, latency_ms, outcome, time_ms);
    CREATE INDEX executions_time ON executions (time_ms);
    CREATE INDEX executions_session ON executions (session_id, tool_id);
    CREATE TABLE answers (
        id INTEGER PRIMARY KEY,
        time_ms INTEGER NOT NULL,
        request_id TEXT NOT NULL,
        session_id TEXT,
        kind TEXT NOT NULL,
        query_text TEXT NOT NULL,
        query_hash TEXT NOT NULL,
        tool_ids TEXT NOT NULL,
        result_count INTEGER NOT NULL
    );
    CREATE INDEX answers_request ON answers (request_id);
    -- Implicit selection looks up a session's recent answers at every execution.
    CREATE INDEX answers_session ON answers (session_id, time_ms);
    CREATE INDEX answers_time ON answers (time_ms);
    CREATE TABLE feedback (
        id INTEGER PRIMARY KEY,
        time_ms INTEGER NOT NULL,
        request_id TEXT,
        session_id TEXT,
        query_text TEXT,
        query_hash TEXT,
        tool_id TEXT NOT NULL,
        signal TEXT NOT NULL CHECK (signal IN ('selected', 'helpful', 'not_helpful')),
        implicit INTEGER NOT NULL DEFAULT 0,
        comment TEXT
    );
    CREATE INDEX feedback_request ON feedback (request_id, tool_id);
    CREATE INDEX feedback_time ON feedback (time_ms);",
];

/// The tables, each bounded by retention on its own.
pub(crate) const TABLES: &[&str] = &["executions", "answers", "feedback"];

/// Why a database could not be opened.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// The file is not a database, or its pages do not check: it is moved aside.
    Corrupt(String),
    /// Anything else (permissions, a full disk, a newer schema): the store turns off.
    Other(String),
}

impl From<rusqlite::Error> for OpenError {
    fn from(e: rusqlite::Error) -> OpenError {
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
                OpenError::Corrupt(e.to_string())
            }
            _ => OpenError::Other(e.to_string()),
        }
    }
}

/// Opens the writer's connection to `path`: checks the file, sets WAL and migrates. A
/// corrupt file is moved aside (with its `-wal` and `-shm`), said once in the log, and a
/// fresh database started in its place.
pub(crate) fn open_writer(path: &Path) -> Result<Connection, String> {
    match open_checked(path) {
        Ok(conn) => Ok(conn),
        Err(OpenError::Other(why)) => Err(why),
        Err(OpenError::Corrupt(why)) => {
            let aside = move_aside(path).map_err(|e| {
                format!(
                    "{} is corrupt ({why}) and cannot be moved aside: {e}",
                    path.display()
                )
            })?;
            tracing::warn!(
                database = %path.display(),
                moved_to = %aside.display(),
                problem = %why,
                "the usage database is corrupt; moved it aside and started a fresh one"
            );
            open_checked(path).map_err(|e| match e {
                OpenError::Corrupt(why) | OpenError::Other(why) => why,
            })
        }
    }
}

/// A second connection for reads: WAL lets it read the last commit while the writer writes.
/// `query_only` keeps a bug in a statistic from ever writing.
pub(crate) fn open_reader(path: &Path) -> Result<Connection, String> {
    let conn = Connection::open(path).map_err(|e| e.to_string())?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| e.to_string())?;
    conn.pragma_update(None, "query_only", true)
        .map_err(|e| e.to_string())?;
    Ok(conn)
}

/// Checks the file on a connection of its own. Closing a connection checkpoints the WAL into
/// the database and deletes it; this one must leave a file that may be corrupt, and its WAL,
/// as they are for whoever looks at them later.
fn check(path: &Path) -> Result<(), OpenError> {
    let probe = Connection::open(path)?;
    probe.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    probe.busy_timeout(BUSY_TIMEOUT)?;
    // quick_check reads every page once (not the indexes against the tables, which
    // integrity_check would): the pages a torn or foreign file breaks.
    // The first few problems are enough to say what is wrong, on one log line.
    let problems: Vec<String> = probe
        .prepare("PRAGMA quick_check(3)")?
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<_>>()?;
    if problems.len() == 1 && problems[0] == "ok" {
        return Ok(());
    }
    let lines: Vec<&str> = problems
        .iter()
        .flat_map(|p| p.lines())
        .filter(|l| !l.starts_with("***") && !l.trim().is_empty())
        .collect();
    Err(OpenError::Corrupt(format!(
        "quick_check: {}",
        lines.join("; ")
    )))
}

fn open_checked(path: &Path) -> Result<Connection, OpenError> {
    check(path)?;
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(OpenError::Other(format!(
            "cannot switch {} to WAL (journal mode {mode})",
            path.display()
        )));
    }
    // NORMAL in WAL mode: a commit survives a crash of the process (the kill -9 test), and
    // loses only the last commits on a power cut, never the database.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    migrate(&mut conn)?;
    Ok(conn)
}

/// Applies the migrations the database has not had, each in one transaction.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), OpenError> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let known = SCHEMA_VERSION;
    if version > known {
        return Err(OpenError::Other(format!(
            "the usage database has schema version {version}, newer than this toolscout's {known}"
        )));
    }
    for (done, step) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(step)?;
        tx.pragma_update(None, "user_version", done as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

/// The schema version this build writes.
pub(crate) const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Renames the database and its `-wal` and `-shm` to `<name>.corrupt-<unix seconds>[-wal,
/// -shm]`, which SQLite would open together again, for whoever wants to look.
fn move_aside(path: &Path) -> std::io::Result<PathBuf> {
    let stamp = super::record::now_ms() / 1000;
    let name = path
        .file_name()
        .map_or_else(|| FILE.to_string(), |n| n.to_string_lossy().into_owned());
    let aside = path.with_file_name(format!("{name}.corrupt-{stamp}"));
    std::fs::rename(path, &aside)?;
    for suffix in ["-wal", "-shm"] {
        let side = path.with_file_name(format!("{name}{suffix}"));
        if side.exists() {
            let target = path.with_file_name(format!("{name}.corrupt-{stamp}{suffix}"));
            std::fs::rename(&side, target)?;
        }
    }
    Ok(aside)
}

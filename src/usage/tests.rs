//! Tests of the usage store's storage: recording under load and with a stalled writer,
//! restarts, retention, corrupt and unusable files, migrations, and any text round-tripping.

use super::db::{FILE, SCHEMA_VERSION};
use super::store::SqliteStore;
use super::*;
use proptest::prelude::*;
use rusqlite::Connection;
use std::io::Write;
use std::sync::Mutex;

pub(super) const WAIT: Duration = Duration::from_secs(30);

pub(super) fn options(dir: &Path) -> Options {
    Options {
        dir: dir.to_path_buf(),
        retention_days: 90,
        retention_rows: 1_000_000,
        queue: 4096,
        min_calls: 20,
        prune_every: 1000,
        implicit_window_ms: 30 * 60 * 1000,
    }
}

pub(super) fn execution(tool_id: &str, time_ms: i64) -> Execution {
    Execution {
        tool_id: tool_id.into(),
        source: "builtin".into(),
        latency_ms: 12.5,
        output_bytes: 100,
        query_count: 1,
        time_ms,
        ..Execution::default()
    }
}

/// Rows of a table, read through a connection of the test's own.
pub(super) fn rows(dir: &Path, table: &str) -> i64 {
    let conn = Connection::open(dir.join(FILE)).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// Records `per_thread` executions from each of `threads` threads at once.
fn record_from_threads(store: &SqliteStore, threads: usize, per_thread: usize) {
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                for i in 0..per_thread {
                    let mut e = execution(&format!("tool_{t}"), now_ms());
                    e.request_id = Some(format!("r{t}-{i}"));
                    store.record_execution(e);
                }
            });
        }
    });
}

#[test]
fn concurrent_recording_is_all_written_after_a_flush() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&Options {
        queue: 16_000,
        ..options(dir.path())
    })
    .unwrap();
    record_from_threads(&store, 8, 2000);
    assert!(store.flush(WAIT));
    let health = store.health();
    assert_eq!(
        (health.written, health.dropped, health.failed),
        (16_000, 0, 0)
    );
    assert_eq!(rows(dir.path(), "executions"), 16_000);
}

#[test]
fn records_that_come_close_together_share_a_transaction() {
    // A batch collects for a while after its first record: records a fraction of a
    // millisecond apart share a commit instead of each waking the writer for one of its own
    // (which took ~15% of a busy server's CPU in context switches alone).
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&options(dir.path())).unwrap();
    for i in 0..50 {
        store.record_execution(execution("local_search_code", i));
        std::thread::sleep(Duration::from_micros(200));
    }
    assert!(store.flush(WAIT));
    assert_eq!(store.health().written, 50);
    assert!(store.commits() <= 5, "{} commits", store.commits());
}

#[test]
fn a_small_queue_drops_what_the_writer_cannot_take_and_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&Options {
        queue: 64,
        ..options(dir.path())
    })
    .unwrap();
    record_from_threads(&store, 8, 2000);
    assert!(store.flush(WAIT));
    let health = store.health();
    assert_eq!(health.written + health.dropped, 16_000, "{health:?}");
    assert_eq!(rows(dir.path(), "executions"), health.written as i64);
}

/// Non-blocking by construction: with the writer stopped, recording more than the queue holds
/// returns every time (this test would hang otherwise) and drops exactly the excess.
#[test]
fn a_stalled_writer_never_blocks_recording() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&Options {
        queue: 32,
        ..options(dir.path())
    })
    .unwrap();
    let release = store.stall();
    for i in 0..132 {
        store.record_execution(execution("local_search_code", i));
    }
    assert_eq!(store.health().dropped, 100);
    assert!(
        !store.flush(Duration::from_millis(20)),
        "the writer is stalled"
    );
    release.send(()).unwrap();
    assert!(store.flush(WAIT));
    assert_eq!(store.health().written, 32);
    assert_eq!(rows(dir.path(), "executions"), 32);
}

#[test]
fn a_restart_keeps_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    store.record_execution(execution("local_view_structure", now_ms()));
    store.record_answer(AnswerShown {
        request_id: "r1".into(),
        query: "list a directory".into(),
        tool_ids: vec!["local_view_structure".into()],
        time_ms: now_ms(),
        ..AnswerShown::default()
    });
    // No flush: dropping the store writes what is queued.
    drop(store);
    let store = open_with(&options(dir.path()));
    assert!(store.health().enabled);
    let stats = store.stats_for("local_view_structure").unwrap();
    assert_eq!(stats.total_uses, 1);
    assert_eq!(store.overview(10).answers, 1);
}

#[test]
fn pruning_keeps_both_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let day = 86_400_000;
    let now = now_ms();
    let store = SqliteStore::open(&Options {
        retention_days: 30,
        retention_rows: 50,
        prune_every: 1,
        ..options(dir.path())
    })
    .unwrap();
    for i in 0..200 {
        // The first 100 are 40 days old: past the day bound.
        let time = if i < 100 { now - 40 * day } else { now - i };
        store.record_execution(execution("github_search_code", time));
        store.record_feedback(Feedback {
            request_id: Some(format!("r{i}")),
            query: None,
            tool_id: "github_search_code".into(),
            signal: Signal::Helpful,
            comment: None,
            session_id: None,
            time_ms: time,
        });
    }
    assert!(store.flush(WAIT));
    assert_eq!(rows(dir.path(), "executions"), 50);
    assert_eq!(rows(dir.path(), "feedback"), 50);
    drop(store);

    // At start, with a tighter bound: the newest rows stay, nothing past 30 days does.
    let store = SqliteStore::open(&Options {
        retention_days: 30,
        retention_rows: 10,
        ..options(dir.path())
    })
    .unwrap();
    assert!(store.flush(WAIT));
    let conn = Connection::open(dir.path().join(FILE)).unwrap();
    let (n, oldest): (i64, i64) = conn
        .query_row("SELECT count(*), min(time_ms) FROM executions", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(n, 10);
    assert!(oldest > now - 30 * day);
    assert_eq!(rows(dir.path(), "feedback"), 10);
}

/// A subscriber that writes into a buffer, to read what the store logged.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logged<T>(f: impl FnOnce() -> T) -> (T, String) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let out = tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    (out, text)
}

#[test]
fn a_corrupt_file_is_moved_aside_with_one_log_line_and_a_fresh_store_works() {
    let dir = tempfile::tempdir().unwrap();
    let garbage: Vec<u8> = (0..8192u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(dir.path().join(FILE), &garbage).unwrap();
    std::fs::write(dir.path().join(format!("{FILE}-wal")), b"not a wal").unwrap();
    let (store, log) = logged(|| open_with(&options(dir.path())));
    assert!(store.health().enabled, "{log}");
    let warnings: Vec<&str> = log.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(
        warnings[0].contains("corrupt") && warnings[0].contains("moved_to"),
        "{log}"
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let aside = names
        .iter()
        .find(|n| {
            n.starts_with("usage.db.corrupt-") && !n.ends_with("-wal") && !n.ends_with("-shm")
        })
        .unwrap_or_else(|| panic!("no file moved aside: {names:?}"));
    assert_eq!(std::fs::read(dir.path().join(aside)).unwrap(), garbage);
    assert!(names.contains(&format!("{aside}-wal")), "{names:?}");
    store.record_execution(execution("npm_view_package", now_ms()));
    assert!(store.flush(WAIT));
    assert_eq!(store.stats_for("npm_view_package").unwrap().total_uses, 1);
}

#[test]
fn a_database_with_damaged_pages_is_moved_aside_too() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    for i in 0..2000 {
        store.record_execution(execution(&format!("tool_{}", i % 50), now_ms()));
    }
    // Dropping the last connection checkpoints the WAL into the file.
    drop(store);
    let path = dir.path().join(FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8 * 4096, "{}", bytes.len());
    // Page 1 (the header and schema) stays; every other page is overwritten.
    for (i, b) in bytes.iter_mut().enumerate().skip(4096) {
        *b = (i % 253) as u8;
    }
    std::fs::write(&path, &bytes).unwrap();
    let (store, log) = logged(|| open_with(&options(dir.path())));
    assert!(store.health().enabled, "{log}");
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains("the usage database is corrupt"), "{log}");
    assert!(log.contains("problem=quick_check: "), "{log}");
    assert!(store.stats_for("tool_1").is_none(), "a fresh database");
}

#[test]
fn an_unusable_directory_or_an_empty_data_dir_turns_the_store_off() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let (store, log) = logged(|| open_with(&options(&file.join("data"))));
    let health = store.health();
    assert!(!health.enabled);
    assert!(health.off_reason.unwrap().contains("cannot create"));
    assert_eq!(
        log.lines().filter(|l| l.contains("WARN")).count(),
        1,
        "{log}"
    );
    // Recording and reading go on, doing nothing.
    store.record_execution(execution("t", 0));
    assert!(store.flush(WAIT));
    assert!(store.stats_for("t").is_none());
    assert_eq!(store.overview(5), UsageOverview::default());

    let flags = crate::config::Overrides::default();
    let config = Config::from_sources(&flags, &Default::default(), dir.path()).unwrap();
    assert_eq!(config.data_dir, None);
    let health = open(&config).health();
    assert_eq!(health.off_reason.as_deref(), Some("data_dir is empty"));
}

#[test]
fn a_database_of_a_newer_schema_is_left_alone_and_the_store_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join(FILE)).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    let store = open_with(&options(dir.path()));
    let health = store.health();
    assert!(!health.enabled);
    assert!(health.off_reason.unwrap().contains("newer"));
    let names = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(names, 1, "nothing moved aside");
}

#[test]
fn a_new_database_is_migrated_to_the_latest_version_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    assert!(store.health().enabled);
    let conn = Connection::open(dir.path().join(FILE)).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!((version, mode.as_str()), (SCHEMA_VERSION, "wal"));
    drop(store);
    // Opening again runs no step twice.
    assert!(open_with(&options(dir.path())).health().enabled);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any Unicode in ids, queries, comments and parameter names is stored and read back as
    /// given, and nothing panics.
    #[test]
    fn any_text_round_trips(
        tool in "\\PC{1,24}",
        query in any::<String>(),
        comment in any::<String>(),
        session in any::<String>(),
        param in any::<String>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = open_with(&options(dir.path()));
        let now = now_ms();
        store.record_answer(AnswerShown {
            request_id: "r".into(),
            session_id: Some(session.clone()),
            kind: AnswerKind::Recommend,
            query: query.clone(),
            tool_ids: vec![tool.clone(), "other".into()],
            time_ms: now,
        });
        store.record_feedback(Feedback {
            request_id: Some("r".into()),
            query: None,
            tool_id: tool.clone(),
            signal: Signal::NotHelpful,
            comment: Some(comment.clone()),
            session_id: None,
            time_ms: now,
        });
        let mut e = execution(&tool, now);
        e.parameters = vec![param.clone()];
        store.record_execution(e);
        prop_assert!(store.flush(WAIT));
        let events = store.feedback_events(10);
        prop_assert_eq!(events.len(), 1);
        prop_assert_eq!(events[0].query.as_deref(), Some(query.as_str()));
        prop_assert_eq!(events[0].comment.as_deref(), Some(comment.as_str()));
        prop_assert_eq!(&events[0].tool_id, &tool);
        prop_assert_eq!(events[0].rank, Some(1));
        let stats = store.stats_for(&tool).unwrap();
        prop_assert_eq!(&stats.common_parameters[0].parameter_name, &param);
        let overview = store.overview(5);
        prop_assert_eq!(&overview.unmet_queries[0].query, &query);
        prop_assert_eq!(&overview.unmet_queries[0].query_hash, &query_hash(&query));
    }
}

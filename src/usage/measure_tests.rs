//! What the store costs at its default row bound, measured rather than assumed: a million
//! executions recorded and written, then a tool's statistics, the overview and a reopen
//! (the integrity check). Ignored by default (about a minute); the README quotes one run:
//! `cargo test --lib usage::measure_tests -- --ignored --nocapture`.

use super::store::SqliteStore;
use super::tests::{execution, options};
use super::*;
use std::time::Instant;

const EXECUTIONS: i64 = 1_000_000;

#[test]
#[ignore = "a measurement, about a minute"]
fn a_million_executions() {
    let dir = tempfile::tempdir().unwrap();
    let queue = EXECUTIONS as usize + 10_000;
    let store = SqliteStore::open(&Options {
        queue,
        ..options(dir.path())
    })
    .unwrap();
    let started = Instant::now();
    for i in 0..EXECUTIONS {
        // 100 tools, sessions of 10 executions, an answer every 1,000.
        let session = format!("s{}", i / 10);
        let mut e = execution(&format!("tool_{}", i % 100), now_ms());
        e.session_id = Some(session.clone());
        e.parameters = vec!["pattern".into(), "path".into()];
        e.latency_ms = (i % 997) as f64;
        store.record_execution(e);
        if i % 1000 == 0 {
            store.record_answer(AnswerShown {
                request_id: format!("r{i}"),
                session_id: Some(session),
                query: format!("query {}", i % 300),
                tool_ids: vec![format!("tool_{}", i % 100)],
                time_ms: now_ms(),
                ..AnswerShown::default()
            });
        }
    }
    let recorded = started.elapsed();
    assert!(store.flush(Duration::from_secs(600)));
    let written = started.elapsed();
    assert_eq!(store.health().dropped, 0);
    let t = Instant::now();
    let stats = store.stats_for("tool_7").unwrap();
    let stats_time = t.elapsed();
    assert_eq!(stats.total_uses, 10_000);
    let t = Instant::now();
    assert_eq!(store.overview(20).top_tools.len(), 20);
    let overview_time = t.elapsed();
    drop(store);
    let size = std::fs::metadata(dir.path().join(db::FILE)).unwrap().len();
    let t = Instant::now();
    let store = SqliteStore::open(&options(dir.path())).unwrap();
    let reopen_time = t.elapsed();
    drop(store);
    eprintln!(
        "recorded {EXECUTIONS} in {recorded:?}, all written after {written:?}; file {} MB; \
         stats_for {stats_time:?}; overview {overview_time:?}; reopen {reopen_time:?}",
        size / 1_000_000
    );
}

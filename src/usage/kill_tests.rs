//! A kill -9 in the middle of writes leaves a readable database: this test binary runs itself
//! as a child that records in a loop, the parent kills it with SIGKILL, then checks the file.

use super::tests::{execution, options, rows, WAIT};
use super::*;
use rusqlite::Connection;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Set only in the child: the data directory it writes to.
const CHILD_DIR: &str = "TOOLSCOUT_USAGE_KILL_CHILD_DIR";
const CHILD_TEST: &str = "usage::kill_tests::child_writes_until_killed";
/// Written by the child once its first records are committed.
const READY: &str = "ready";

/// The child: records executions as fast as it can, flushing now and then so commits keep
/// coming, until it is killed (or, should the parent be gone, for a minute at most).
#[test]
#[ignore = "run by kill_9_during_writes_leaves_a_readable_database as its child"]
fn child_writes_until_killed() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let store = open_with(&options(&dir));
    assert!(store.health().enabled);
    let started = Instant::now();
    let mut round = 0u64;
    while started.elapsed() < Duration::from_secs(60) {
        for i in 0..500 {
            let mut e = execution("local_search_code", now_ms());
            e.request_id = Some(format!("r{round}-{i}"));
            e.session_id = Some(format!("s{}", i % 7));
            store.record_execution(e);
        }
        store.flush(WAIT);
        if round == 0 {
            std::fs::write(dir.join(READY), b"").unwrap();
        }
        round += 1;
    }
}

#[test]
fn kill_9_during_writes_leaves_a_readable_database() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([CHILD_TEST, "--exact", "--ignored", "--test-threads=1"])
        .env(CHILD_DIR, dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !dir.path().join(READY).exists() {
        assert!(Instant::now() < deadline, "the child never became ready");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child exited early"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // Let it get well into its writes, then kill it without warning.
    std::thread::sleep(Duration::from_millis(300));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's pid, which we have not waited for, so it is ours.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let status = child.wait().unwrap();
    assert!(!status.success(), "the child was killed: {status:?}");

    let conn = Connection::open(dir.path().join(db::FILE)).unwrap();
    let verdict: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(verdict, "ok");
    drop(conn);
    let before = rows(dir.path(), "executions");
    assert!(before >= 500, "the first flushed round is there: {before}");
    // The store opens it as it is (nothing moved aside) and goes on writing.
    let store = open_with(&options(dir.path()));
    assert!(store.health().enabled);
    store.record_execution(execution("local_fetch_content", now_ms()));
    assert!(store.flush(WAIT));
    assert_eq!(rows(dir.path(), "executions"), before + 1);
    let aside = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            let e = e.as_ref().unwrap();
            e.file_name().to_string_lossy().contains("corrupt")
        })
        .count();
    assert_eq!(aside, 0);
}

//! The request log failing under a running server: a full disk (the log files are `/dev/full`,
//! where every write fails with ENOSPC) and a log directory that cannot be created. Serving
//! goes on with every answer right, and the failure is said once on stderr, not per request.

use crate::client::{get, post_json};
use crate::common::shipped_catalog;
use crate::server::Server;

/// Three good requests and a bad one (which also goes to the error log); all answered.
async fn exercise(server: &Server) {
    for query in [
        "search code for a regex",
        "read a file",
        "list pull requests",
    ] {
        let body = format!(r#"{{"query": "{query}", "max_results": 3}}"#);
        let answer = post_json(server, "/search", body).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    let bad = post_json(server, "/search", r#"{"query": 7}"#).await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let health = get(server, "/health").await;
    assert_eq!(health.status, 200);
}

fn count(lines: &[String], text: &str) -> usize {
    lines.iter().filter(|l| l.contains(text)).count()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_full_disk_under_the_request_log_costs_one_warning_and_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    for name in ["requests.log", "errors.log"] {
        std::os::unix::fs::symlink("/dev/full", logs.join(name)).unwrap();
    }
    let server = Server::start(&shipped_catalog(), &["--log-dir", logs.to_str().unwrap()]);
    exercise(&server).await;
    let (status, stderr) = server.terminate();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        count(&stderr, "cannot write the request log"),
        1,
        "{}",
        stderr.join("\n")
    );
}

#[tokio::test]
async fn a_log_directory_that_cannot_be_made_leaves_the_server_serving() {
    let dir = tempfile::tempdir().unwrap();
    // A directory cannot be made beneath a regular file, even by root.
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, "x").unwrap();
    let logs = file.join("logs");
    let server = Server::start(&shipped_catalog(), &["--log-dir", logs.to_str().unwrap()]);
    exercise(&server).await;
    let (status, stderr) = server.terminate();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        count(&stderr, "cannot open the log directory"),
        1,
        "{}",
        stderr.join("\n")
    );
    assert_eq!(count(&stderr, "cannot write the request log"), 0);
}

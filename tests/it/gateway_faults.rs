//! An upstream that dies in the middle of a call: the fixture server of
//! `tests/fixtures/mcp-servers/slow_server.py` writes its pid when its slow tool begins, the
//! test kills that process while the call is in flight, and the call ends at once with a clear
//! error (not a hang until the timeout, not a 500). `/health` shows each step: the failure and
//! the backoff, the calls refused meanwhile, then the restarted server answering. And the
//! server's own end with a call in flight: SIGTERM lets the call finish, refuses new requests
//! and takes the upstream's process with it; a second SIGTERM exits at once.

use crate::client::{client, get, post_json, Answer};
use crate::common::shipped_catalog;
use crate::gateway::python;
use crate::gateway_http::health_when;
use crate::server::Server;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// The pid the fixture wrote to `file`, once it is there (up to 20 s).
async fn pid_in(file: &Path) -> String {
    let started = Instant::now();
    loop {
        if let Ok(pid) = std::fs::read_to_string(file) {
            if !pid.trim().is_empty() {
                return pid.trim().to_string();
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{} was not written within 20 s",
            file.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The first query's `data` of a tool call's answer.
fn data(answer: &Answer) -> &Value {
    &answer.body["data"]["results"][0]["data"]
}

#[tokio::test]
async fn an_upstream_killed_mid_call_fails_the_call_at_once_and_is_restarted_with_backoff() {
    let dir = tempfile::tempdir().unwrap();
    // A long timeout (20 s), so an answer within seconds comes from the death, not the timeout.
    let (server, pid_file) = slow_server(dir.path()).await;
    // A call in flight: the slow tool has written its pid and waits a minute.
    let (in_flight, killed) = slow_call(&server, &pid_file, 60).await;
    let status = std::process::Command::new("kill")
        .args(["-9", &killed])
        .status()
        .unwrap();
    assert!(status.success(), "kill -9 {killed}");
    let at = Instant::now();
    let failed = in_flight.await.unwrap();
    let took = at.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "the call hung {took:?} after its server died"
    );
    assert_eq!(failed.status, 502, "{}", failed.body);
    assert_eq!(
        data(&failed)["errorCode"],
        "mcpServerUnavailable",
        "{}",
        failed.body
    );
    let message = data(&failed)["error"].as_str().unwrap_or("");
    assert!(
        message.contains("source 'slow'") && message.contains("the server exited"),
        "{message}"
    );
    assert_eq!(data(&failed)["retryAfter"], 1, "{}", failed.body);

    // Health: the failure, the restart scheduled after a backoff, the circuit's count.
    let health = get(&server, "/health").await.body;
    let slow = &health["upstreams"]["slow"];
    assert_eq!(slow["state"], "restarting", "{slow}");
    assert_eq!(slow["failures"], 1, "{slow}");
    assert_eq!(slow["restarts"], 1, "{slow}");
    assert!(slow["last_error"].is_string(), "{slow}");
    let circuit = &health["circuits"]["mcp:slow"];
    assert_eq!(
        (circuit["state"].as_str(), circuit["failures"].as_u64()),
        (Some("closed"), Some(1)),
        "{circuit}"
    );

    // Meanwhile a call is refused at once with when to retry, and the server is not started.
    let quick = || post_json(&server, "/tools/call/slow.quick", r#"{"queries": [{}]}"#);
    let waiting = quick().await;
    assert_eq!(waiting.status, 502, "{}", waiting.body);
    assert_eq!(data(&waiting)["retryAfter"], 1, "{}", waiting.body);
    assert_eq!(
        get(&server, "/health").await.body["upstreams"]["slow"]["state"],
        "restarting"
    );

    // After the backoff the next call starts a new server, and it answers.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let answered = quick().await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    let text = data(&answered)["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.starts_with("quick from "), "{text}");
    assert_ne!(
        text,
        format!("quick from {killed}"),
        "the same process answered"
    );
    let health = get(&server, "/health").await.body;
    let slow = &health["upstreams"]["slow"];
    assert_eq!(slow["state"], "connected", "{slow}");
    assert_eq!(slow["failures"], 0, "{slow}");
    assert_eq!(slow["restarts"], 1, "{slow}");
    assert_eq!(
        health["circuits"]["mcp:slow"]["state"], "closed",
        "{health}"
    );
}

/// A server over the slow fixture as source `slow`, connected, and the fixture's pid file.
async fn slow_server(dir: &Path) -> (Server, std::path::PathBuf) {
    let pid_file = dir.join("slow.pid");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-servers/slow_server.py");
    let text = format!(
        "[[sources]]\nname = \"slow\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [{:?}, {:?}]\ntimeout_secs = 20\n",
        python().to_string_lossy(),
        script.to_string_lossy(),
        pid_file.to_string_lossy()
    );
    let config = dir.join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    health_when(&server, "slow", "connected").await;
    std::fs::remove_file(&pid_file).ok();
    (server, pid_file)
}

fn signal(pid: &str, name: &str) -> bool {
    std::process::Command::new("kill")
        .args([name, pid])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// Starts a call of the slow tool taking `seconds`; returns it and the upstream's pid once
/// the call is in flight.
async fn slow_call(
    server: &Server,
    pid_file: &Path,
    seconds: u32,
) -> (tokio::task::JoinHandle<Answer>, String) {
    let request = client()
        .post(server.url("/tools/call/slow.slow"))
        .header("content-type", "application/json")
        .body(format!(r#"{{"queries": [{{"seconds": {seconds}}}]}}"#));
    let call = tokio::spawn(async move { Answer::from(request.send().await.unwrap()).await });
    (call, pid_in(pid_file).await)
}

/// A server sent SIGTERM while a slow call of `seconds` is in flight: the server, the call,
/// the upstream's pid, the server's pid, and the directory that holds the fixture's files.
struct Terminated {
    server: Server,
    call: tokio::task::JoinHandle<Answer>,
    upstream: String,
    pid: String,
    _dir: tempfile::TempDir,
}

async fn terminated_mid_call(seconds: u32) -> Terminated {
    let dir = tempfile::tempdir().unwrap();
    let (server, pid_file) = slow_server(dir.path()).await;
    let (call, upstream) = slow_call(&server, &pid_file, seconds).await;
    let pid = server.child.id().to_string();
    assert!(signal(&pid, "-TERM"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    Terminated {
        server,
        call,
        upstream,
        pid,
        _dir: dir,
    }
}

#[tokio::test]
async fn sigterm_finishes_the_call_in_flight_refuses_new_ones_and_ends_the_upstream() {
    let Terminated {
        server,
        call,
        upstream,
        ..
    } = terminated_mid_call(3).await;
    // A new connection is refused, or a request that still gets through is told 503.
    let fresh = reqwest::Client::new()
        .get(server.url("/health"))
        .send()
        .await;
    if let Ok(answer) = fresh {
        assert_eq!(answer.status().as_u16(), 503);
    }
    let finished = call.await.unwrap();
    assert_eq!(finished.status, 200, "{}", finished.body);
    let (status, stderr) = server.terminate_wait();
    assert!(status.success(), "{status:?}: {}", stderr.join("\n"));
    assert!(stderr.join("\n").contains("shut down cleanly"));
    // The upstream's process ended with the server.
    let at = Instant::now();
    while signal(&upstream, "-0") {
        assert!(
            at.elapsed() < Duration::from_secs(5),
            "upstream {upstream} outlived the server"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_second_sigterm_exits_at_once() {
    let Terminated { server, pid, .. } = terminated_mid_call(60).await;
    let at = Instant::now();
    assert!(signal(&pid, "-TERM"));
    let (status, stderr) = server.terminate_wait();
    assert!(
        at.elapsed() < Duration::from_secs(5),
        "took {:?}",
        at.elapsed()
    );
    assert_eq!(status.code(), Some(1), "{}", stderr.join("\n"));
    assert!(stderr.join("\n").contains("second shutdown signal"));
}

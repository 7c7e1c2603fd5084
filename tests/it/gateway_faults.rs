//! An upstream that dies in the middle of a call: the fixture server of
//! `tests/fixtures/mcp-servers/slow_server.py` writes its pid when its slow tool begins, the
//! test kills that process while the call is in flight, and the call ends at once with a clear
//! error (not a hang until the timeout, not a 500). `/health` shows each step: the failure and
//! the backoff, the calls refused meanwhile, then the restarted server answering.

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
    let pid_file = dir.path().join("slow.pid");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-servers/slow_server.py");
    // A long timeout, so an answer within seconds comes from the death, not the timeout.
    let text = format!(
        "[[sources]]\nname = \"slow\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [{:?}, {:?}]\ntimeout_secs = 20\n",
        python().to_string_lossy(),
        script.to_string_lossy(),
        pid_file.to_string_lossy()
    );
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    health_when(&server, "slow", "connected").await;

    // A call in flight: the slow tool has written its pid and waits a minute.
    std::fs::remove_file(&pid_file).ok();
    let request = client()
        .post(server.url("/tools/call/slow.slow"))
        .header("content-type", "application/json")
        .body(r#"{"queries": [{"seconds": 60}]}"#);
    let in_flight = tokio::spawn(async move { Answer::from(request.send().await.unwrap()).await });
    let killed = pid_in(&pid_file).await;
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

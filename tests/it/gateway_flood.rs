//! An upstream that floods: the fixture of `tests/fixtures/mcp-servers/flood_server.py`
//! answers with a message larger than the transport takes, or announces a changed tool list
//! every 10 ms for three seconds. The message over the limit (16 MB, rmcp's) is read past without
//! being held, and its call ends at its source's timeout with a clear error while the session
//! keeps serving; the announcements make one reload a second, not one each; and toolscout
//! keeps answering throughout.

use crate::client::{get, post_json, Answer};
use crate::common::shipped_catalog;
use crate::gateway::python;
use crate::gateway_http::health_when;
use crate::server::Server;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

async fn flood_server(dir: &Path) -> Server {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-servers/flood_server.py");
    let text = format!(
        "[[sources]]\nname = \"flood\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [{:?}]\ntimeout_secs = 5\n",
        python().to_string_lossy(),
        script.to_string_lossy(),
    );
    let config = dir.join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    health_when(&server, "flood", "connected").await;
    server
}

async fn call(server: &Server, tool: &str, args: &str) -> Answer {
    let body = format!(r#"{{"queries": [{args}]}}"#);
    post_json(server, &format!("/tools/call/flood.{tool}"), body).await
}

fn data(answer: &Answer) -> &Value {
    &answer.body["data"]["results"][0]["data"]
}

#[tokio::test]
async fn an_answer_larger_than_the_transport_takes_fails_clearly_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = flood_server(dir.path()).await;
    // Within the limit: passed through whole.
    let big = call(&server, "huge", r#"{"mb": 2}"#).await;
    assert_eq!(big.status, 200, "{}", data(&big));
    let text = big.body.to_string();
    assert!(text.len() > 2 * 1024 * 1024, "{} bytes", text.len());
    // Over it: the message is dropped unread and the call ends at the source's timeout (5 s)
    // with a clear error, not a hang, not a 500.
    let at = Instant::now();
    let over = call(&server, "huge", r#"{"mb": 24}"#).await;
    assert!(
        at.elapsed() < Duration::from_secs(20),
        "took {:?}",
        at.elapsed()
    );
    assert_eq!(over.status, 504, "{}", data(&over));
    assert_eq!(data(&over)["errorCode"], "mcpTimeout", "{}", data(&over));
    let message = data(&over)["error"].as_str().unwrap_or_default();
    assert!(message.contains("source 'flood'"), "{message}");
    // The session goes on.
    let quick = call(&server, "quick", "{}").await;
    assert_eq!(quick.status, 200, "{}", quick.body);
}

#[tokio::test]
async fn a_stream_of_announcements_makes_a_reload_a_second_and_the_server_keeps_answering() {
    let dir = tempfile::tempdir().unwrap();
    let server = flood_server(dir.path()).await;
    let started = Instant::now();
    let chatty = {
        let request = crate::client::client()
            .post(server.url("/tools/call/flood.chatty"))
            .header("content-type", "application/json")
            .body(r#"{"queries": [{"count": 300, "pause_ms": 10}]}"#);
        tokio::spawn(async move { Answer::from(request.send().await.unwrap()).await })
    };
    // Meanwhile toolscout answers at once.
    let mut slowest = Duration::ZERO;
    while !chatty.is_finished() {
        let at = Instant::now();
        assert_eq!(get(&server, "/health").await.status, 200);
        slowest = slowest.max(at.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answered = chatty.await.unwrap();
    let answered_in = started.elapsed();
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(data(&answered)["content"][0]["text"], "announced 300 times");
    assert!(
        slowest < Duration::from_secs(2),
        "/health took {slowest:?} during the flood"
    );
    // Let the last announcements settle, then count the reloads they caused.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let reloads = server
        .stderr
        .try_iter()
        .filter(|line| line.contains("an upstream's tools changed"))
        .count();
    // Three seconds and more of announcements: at most a reload a second, give or take the
    // edges. (In a debug build a reload itself takes most of a second, so this bound holds
    // there even without the gap; in a release build it is what keeps a chatty server from
    // costing a core.)
    let took = answered_in.as_secs_f64();
    assert!(took >= 3.0, "the announcements took {took:.1} s");
    assert!(
        (1..=took.ceil() as usize + 2).contains(&reloads),
        "{reloads} reloads in {took:.1} s of announcements"
    );
}

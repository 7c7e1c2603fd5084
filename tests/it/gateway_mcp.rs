//! Upstream tools exposed to MCP clients (`--expose-tools`): listed under their ids exactly as
//! their servers list them, and called through toolscout as a transparent proxy that checks
//! arguments first. The upstream is the fixture server `tests/fixtures/mcp-servers/
//! schema_server.py`, whose one tool carries the JSON Schema 2020-12 keywords the MCP
//! conformance suite checks (SEP-1613).

use crate::common::shipped_catalog;
use crate::gateway::{mcp_call, mcp_session, python};
use crate::server::Server;
use serde_json::json;
use std::path::{Path, PathBuf};

/// A source that is the fixture server of `tests/fixtures/mcp-servers/schema_server.py`.
fn schema_source(dir: &Path) -> PathBuf {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-servers/schema_server.py");
    let text = format!(
        "[[sources]]\nname = \"schema\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [{:?}]\n",
        python().to_string_lossy(),
        script.to_string_lossy()
    );
    let path = dir.join("toolscout.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn exposed_upstream_tools_keep_their_schemas_and_answers() {
    let dir = tempfile::tempdir().unwrap();
    let config = schema_source(dir.path());
    let server = Server::start(
        &shipped_catalog(),
        &["--config", config.to_str().unwrap(), "--expose-tools"],
    );
    let session = mcp_session(&server).await;
    let listed = mcp_call(&server, &session, 2, "tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let tool = tools
        .iter()
        .find(|t| t["name"] == "schema.json_schema_2020_12_tool")
        .unwrap_or_else(|| panic!("not listed: {listed}"));
    // Every 2020-12 keyword as the server wrote it (SEP-1613).
    let schema = &tool["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        schema["$defs"]["address"]["properties"]["city"]["type"],
        "string"
    );
    assert_eq!(schema["properties"]["address"]["$ref"], "#/$defs/address");
    assert_eq!(schema["additionalProperties"], false);
    // Called under its id, it answers as its server does.
    let args = json!({"name": "Ada", "address": {"city": "London"}});
    let called = mcp_call(
        &server,
        &session,
        3,
        "tools/call",
        json!({"name": "schema.json_schema_2020_12_tool", "arguments": args}),
    )
    .await;
    assert_eq!(
        called["result"]["content"][0]["text"], "hello Ada",
        "{called}"
    );
    assert_ne!(called["result"]["isError"], true);
    // toolscout checks the schema first: a property it forbids never reaches the server.
    let wrong = json!({"name": "Ada", "phone": "123"});
    let refused = mcp_call(
        &server,
        &session,
        4,
        "tools/call",
        json!({"name": "schema.json_schema_2020_12_tool", "arguments": wrong}),
    )
    .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("phone"), "{text}");
}

#[test]
fn import_writes_a_catalog_file_per_upstream_tool_and_reports_what_to_curate() {
    let out = tempfile::tempdir().unwrap();
    let command = format!("{} -m mcp_server_time", python().to_string_lossy());
    let run = || {
        crate::common::toolscout()
            .args(["--catalog", shipped_catalog().to_str().unwrap()])
            .args(["catalog", "import", "--mcp", &command, "--name", "time"])
            .args([
                "--out",
                out.path().to_str().unwrap(),
                "--models",
                "/nonexistent",
            ])
            .output()
            .unwrap()
    };
    let first = run();
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(stdout.contains("2 of 2 tools written"), "{stdout}");
    let written: Vec<PathBuf> = crate::common::files_under(out.path());
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    assert!(
        names.contains(&"time_get_current_time.json".to_string()),
        "{names:?}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&written[0]).unwrap()).unwrap();
    assert_eq!(doc["source"]["kind"], "mcp");
    assert_eq!(doc["source"]["category_inferred"], true);
    assert!(doc["input_schema"]["properties"].is_object());
    // What is left to a maintainer is reported, not invented: the server's one-line
    // descriptions are under the schema's minimum, and the recommended fields are missing.
    assert_eq!(first.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("/description: expected at least 40 characters"),
        "{stdout}"
    );
    assert!(
        stdout.contains("/when_to_use: expected when_to_use"),
        "{stdout}"
    );
    // A second import keeps what a maintainer may have edited.
    let second = run();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(stderr.contains("kept"), "{stderr}");
    assert!(String::from_utf8_lossy(&second.stdout).contains("0 of 2 tools written"));
}

#[tokio::test]
async fn upstream_calls_time_out_and_announced_tools_are_reloaded_within_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-servers/growing_server.py");
    let state = dir.path().join("tools.json");
    let text = format!(
        "[[sources]]\nname = \"grow\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [{:?}, {:?}]\ntimeout_secs = 3\n",
        python().to_string_lossy(),
        script.to_string_lossy(),
        state.to_string_lossy()
    );
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    let search =
        json!({"query": "greenhouse humidity", "max_results": 1, "search_mode": "keyword"});
    let top = || async {
        let found = crate::client::post_json(&server, "/search", search.to_string()).await;
        found.body["results"][0]["tool_id"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert_ne!(top().await, "grow.extra_1");
    // A call that never comes back is cut at the source's timeout, named for its server.
    let waited =
        crate::client::post_json(&server, "/tools/call/grow.wait", r#"{"queries": [{}]}"#).await;
    assert_eq!(waited.status, 504, "{}", waited.body);
    let data = &waited.body["data"]["results"][0]["data"];
    assert_eq!(data["errorCode"], "mcpTimeout", "{data}");
    // The upstream adds a tool and announces it on toolscout's session.
    let grown =
        crate::client::post_json(&server, "/tools/call/grow.grow", r#"{"queries": [{}]}"#).await;
    assert_eq!(grown.status, 200, "{}", grown.body);
    let asked = std::time::Instant::now();
    while top().await != "grow.extra_1" {
        assert!(
            asked.elapsed() < std::time::Duration::from_secs(5),
            "the announced tool was not served within 5 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A git repository with one commit, in `dir`.
fn repository(dir: &Path) {
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(dir.join("notes.txt"), "hello\n").unwrap();
    git(&["add", "notes.txt"]);
    git(&["commit", "-q", "-m", "first commit: add the notes"]);
}

#[tokio::test]
async fn git_log_through_the_gateway_keeps_the_server_s_own_roots() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let other = dir.path().join("other");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    repository(&repo);
    repository(&other);
    let text = format!(
        "[[sources]]\nname = \"git\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [\"-m\", \"mcp_server_git\", \"--repository\", {:?}]\n",
        python().to_string_lossy(),
        repo.to_string_lossy()
    );
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    let log = |path: &Path| json!({"queries": [{"repo_path": path, "max_count": 5}]}).to_string();
    let ran = crate::client::post_json(&server, "/tools/call/git.git_log", log(&repo)).await;
    assert_eq!(ran.status, 200, "{}", ran.body);
    let text = ran.body["data"]["results"][0]["data"]["content"][0]["text"].clone();
    assert!(
        text.as_str()
            .unwrap()
            .contains("first commit: add the notes"),
        "{text}"
    );
    // The server allows only its own repository, and says so through the gateway.
    let refused = crate::client::post_json(&server, "/tools/call/git.git_log", log(&other)).await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    let data = &refused.body["data"]["results"][0]["data"];
    assert_eq!(data["errorCode"], "mcpToolError");
    assert!(
        data["error"]
            .as_str()
            .unwrap()
            .contains("outside the allowed repository"),
        "{data}"
    );
}

#[tokio::test]
async fn a_filesystem_read_through_the_gateway_keeps_the_server_s_own_roots() {
    let (node, server_js) = crate::gateway_everything::node_package(
        "@modelcontextprotocol/server-filesystem/dist/index.js",
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("readme.txt"), "what the root holds\n").unwrap();
    std::fs::write(dir.path().join("outside.txt"), "not for the gateway\n").unwrap();
    let text = format!(
        "[[sources]]\nname = \"fs\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [{:?}, {:?}]\n",
        node.to_string_lossy(),
        server_js.to_string_lossy(),
        root.to_string_lossy()
    );
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    let read = |path: &Path| json!({"queries": [{"path": path}]}).to_string();
    let inside = root.join("readme.txt");
    let ran =
        crate::client::post_json(&server, "/tools/call/fs.read_text_file", read(&inside)).await;
    assert_eq!(ran.status, 200, "{}", ran.body);
    let content = &ran.body["data"]["results"][0]["data"]["content"][0]["text"];
    assert_eq!(content, "what the root holds\n");
    let outside = dir.path().join("outside.txt");
    let refused =
        crate::client::post_json(&server, "/tools/call/fs.read_text_file", read(&outside)).await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    let data = &refused.body["data"]["results"][0]["data"];
    assert!(
        data["error"]
            .as_str()
            .unwrap()
            .contains("outside allowed directories"),
        "{data}"
    );
}

//! The official MCP Python SDK (the `mcp` package, installed by `scripts/fetch-mcp-python`,
//! which `make test` runs) against both transports of the MCP server. The scripts in
//! `tests/mcp_python/` connect as a real client would: `check_server.py` checks the handshake,
//! every meta-tool, error results, prompts and resources; `call_tools.py` makes calls whose
//! answers are held here against the HTTP API given the same bodies.

use crate::client::post_json;
use crate::common::{shipped_catalog, toolscout_bin};
use crate::server::Server;
use serde_json::{json, Value};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Keyword search only: these tests are about the MCP door, and the server starts fast
/// without the embedding model.
const NO_MODELS: &str = "/nonexistent-models-dir";

/// Fields that differ between two calls with the same body (timings, the clock, and whether
/// the answer came from the search cache, which the first of the two calls fills), as JSON
/// pointers.
const PER_CALL_FIELDS: &[&str] = &[
    "/execution_time",
    "/timestamp",
    "/metadata/execution_time",
    "/metadata/timestamp",
    "/metadata/cache_hit",
];

fn python() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/mcp-python/bin/python")
}

/// Runs `tests/mcp_python/<script>` on `args` with the SDK's Python and returns what it
/// printed, as JSON. Fails with the script's stderr (and how to install the SDK when that is
/// what is missing) when the script fails.
fn run_script(script: &str, args: &[OsString]) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp_python")
        .join(script);
    // `timeout`: a hung server or client fails the test instead of holding the run.
    let out = Command::new("timeout")
        .arg("300")
        .arg(python())
        .arg(&path)
        .args(args)
        // No __pycache__ beside the scripts in the source tree.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // The servers it starts keep no logs, cache or usage in the real home.
        .env("TOOLSCOUT_LOG_DIR", "")
        .env("TOOLSCOUT_CACHE_DIR", "")
        .env("TOOLSCOUT_DATA_DIR", "")
        .output()
        .expect("timeout starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let missing = if python().is_file() {
        String::new()
    } else {
        format!(
            "{} is missing: run scripts/fetch-mcp-python (make test does)\n",
            python().display()
        )
    };
    let timed_out = if out.status.code() == Some(124) {
        "(timed out after 300 s)\n"
    } else {
        ""
    };
    assert!(
        out.status.success(),
        "{missing}{timed_out}{script} {args:?} failed ({}):\n\
         --- stderr\n{stderr}\n--- stdout\n{stdout}",
        out.status
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{script} printed no JSON ({e}):\n{stdout}\n{stderr}"))
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// What every run of `check_server.py` must report, whatever the transport.
fn assert_summary(summary: &Value, transport: &str) {
    assert_eq!(summary["transport"], transport, "{summary:#}");
    assert_eq!(summary["server"]["name"], "toolscout", "{summary:#}");
    assert_eq!(
        summary["tools"],
        json!([
            "search_tools",
            "recommend_tools",
            "compare_tools",
            "describe_tool",
            "call_tool",
            "rate_tool"
        ]),
        "{summary:#}"
    );
    assert_eq!(summary["search"]["success"], true, "{summary:#}");
    assert_eq!(summary["fixture_match"]["line"], 2, "{summary:#}");
}

#[test]
fn python_sdk_passes_every_check_over_stdio() {
    let mut args = os(&["stdio"]);
    args.push(toolscout_bin().into());
    args.push(shipped_catalog().into());
    args.extend(os(&["--models", NO_MODELS]));
    let summary = run_script("check_server.py", &args);
    assert_summary(&summary, "stdio");
    assert!(summary["catalog_tools"].as_u64() > Some(0), "{summary:#}");
}

#[tokio::test]
async fn python_sdk_passes_every_check_over_streamable_http() {
    // The script writes its fixture into the server's workspace root.
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().to_str().unwrap();
    let server = Server::start_env(
        &shipped_catalog(),
        &["--models", NO_MODELS],
        &[("TOOLSCOUT_WORKSPACE_ROOT", root)],
    );
    let summary = run_script(
        "check_server.py",
        &os(&["http", &server.url("/mcp"), "--workspace", root]),
    );
    assert_summary(&summary, "http");
    // The resources the script counted are the catalog HTTP pages through.
    let catalog = crate::client::get(&server, "/catalog/tools").await;
    assert_eq!(
        summary["catalog_tools"], catalog.body["data"]["pagination"]["total"],
        "{summary:#}"
    );
}

/// `value` without the fields of `PER_CALL_FIELDS`.
fn without_per_call_fields(mut value: Value) -> Value {
    for pointer in PER_CALL_FIELDS {
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        if let Some(Value::Object(map)) = value.pointer_mut(parent) {
            map.remove(key);
        }
    }
    value
}

#[tokio::test]
async fn meta_tools_answer_over_mcp_what_http_answers_for_the_same_body() {
    let server = Server::start(&shipped_catalog(), &[]);
    let search = |detail: &str| {
        json!({"query": "rename a symbol across a repository", "max_results": 4,
               "response_format": "json", "detail_level": detail})
    };
    let cases = [
        ("search_tools", "/search", search("detailed")),
        ("search_tools", "/search", search("concise")),
        (
            "recommend_tools",
            "/recommend",
            json!({"task_description": "find where a function is defined, then list its callers",
                   "response_format": "json", "detail_level": "detailed"}),
        ),
        (
            "compare_tools",
            "/compare",
            json!({"tool_ids": ["local_search_code", "local_get_file_content"],
                   "response_format": "json"}),
        ),
    ];
    let calls: Vec<Value> = cases
        .iter()
        .map(|(tool, _, body)| json!([tool, body]))
        .collect();
    let calls = serde_json::to_string(&calls).unwrap();
    let answers = run_script(
        "call_tools.py",
        &os(&["http", &server.url("/mcp"), "--calls", &calls]),
    );
    for ((tool, path, body), answer) in cases.iter().zip(answers.as_array().unwrap()) {
        assert_eq!(answer["is_error"], false, "{tool} {body}: {answer:#}");
        let http = post_json(&server, path, body.to_string()).await;
        assert_eq!(http.status, 200, "POST {path} {body}: {:#}", http.body);
        let over_mcp = without_per_call_fields(answer["structured_content"].clone());
        let over_http = without_per_call_fields(http.body);
        assert_eq!(
            over_mcp, over_http,
            "{tool} and POST {path} answered {body} differently:\n\
             --- MCP\n{over_mcp:#}\n--- HTTP\n{over_http:#}"
        );
    }
}

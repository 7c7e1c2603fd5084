//! Every door is the same service: the same request through HTTP and the CLI gives the same
//! answer (less the fields that time it) and the same error text, for every use case both
//! doors offer (search, recommend, compare, tool calls).

use crate::client::post_json;
use crate::common::{shipped_catalog, toolscout};
use crate::server::Server;
use serde_json::{json, Value};

/// Keys that time an answer or say whether a cache served it: they differ by run.
const VOLATILE: &[&str] = &[
    "timestamp",
    "execution_time",
    "cache_hit",
    "analysis_time",
    "duration_ms",
    "elapsed_ms",
    "elapsedMs",
];

fn stable(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !VOLATILE.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), stable(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(stable).collect()),
        other => other.clone(),
    }
}

/// Runs the CLI over the shipped catalog without the model, as the server runs.
fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let out = toolscout()
        .args(["--catalog", shipped_catalog().to_str().unwrap()])
        .args(args)
        .env("TOOLSCOUT_MODELS_DIR", "/nonexistent-models-dir")
        .env_remove("TOOLSCOUT_WORKSPACE_ROOT")
        .env_remove("TOOLSCOUT_ALLOWED_PATHS")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_of(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The same answer through both doors.
async fn same_answer(server: &Server, route: &str, body: Value, args: &[&str]) {
    let http = post_json(server, route, body.to_string()).await;
    assert_eq!(http.status, 200, "{route}: {}", http.body);
    let (code, stdout, stderr) = cli(args);
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
    assert_eq!(stable(&json_of(&stdout)), stable(&http.body), "{route}");
}

/// The same error, and the same message, through both doors.
async fn same_error(server: &Server, route: &str, body: Value, args: &[&str]) {
    let http = post_json(server, route, body.to_string()).await;
    assert!((400..500).contains(&http.status), "{route}: {}", http.body);
    let message = http.body["error"]["message"].as_str().unwrap().to_string();
    let (code, _, stderr) = cli(args);
    assert_eq!(code, Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.starts_with(&format!("error: {message}\n")),
        "{route}: HTTP says {message:?}, the CLI says {stderr}"
    );
}

#[tokio::test]
async fn search_recommend_and_compare_answer_alike_through_http_and_the_cli() {
    let server = Server::start(&shipped_catalog(), &[]);
    same_answer(
        &server,
        "/search",
        json!({"query": "search code for a regex", "search_mode": "keyword", "max_results": 3,
               "category": "code_search"}),
        &[
            "search",
            "search code for a regex",
            "--mode",
            "keyword",
            "-k",
            "3",
            "--category",
            "code_search",
            "--format",
            "json",
        ],
    )
    .await;
    same_error(
        &server,
        "/search",
        json!({"query": "grep", "category": "code_serch", "max_results": 10}),
        &["search", "grep", "--category", "code_serch"],
    )
    .await;
    same_answer(
        &server,
        "/recommend",
        json!({"task_description": "find where a function is defined, then read that file",
               "max_recommendations": 3, "user_preferences": {"avoid_categories": ["web"]}}),
        &[
            "recommend",
            "find where a function is defined, then read that file",
            "-k",
            "3",
            "--avoid",
            "web",
            "--format",
            "json",
        ],
    )
    .await;
    same_error(
        &server,
        "/recommend",
        json!({"task_description": "read a file", "user_preferences": {"preferred_categories": ["flie_system"]}}),
        &["recommend", "read a file", "--prefer", "flie_system"],
    )
    .await;
    same_answer(
        &server,
        "/compare",
        json!({"tool_ids": ["ripgrep", "localSearchCode"], "detail_level": "basic",
               "response_format": "json"}),
        &[
            "compare",
            "ripgrep",
            "localSearchCode",
            "--detail",
            "basic",
            "--format",
            "json",
        ],
    )
    .await;
    same_error(
        &server,
        "/compare",
        json!({"tool_ids": ["ripgrp", "qqqq"]}),
        &["compare", "ripgrp", "qqqq"],
    )
    .await;
}

#[tokio::test]
async fn tool_calls_answer_alike_through_http_and_the_cli() {
    let server = Server::start(&shipped_catalog(), &[]);
    let query = json!({"id": "q1", "path": "tests/fixtures/good-catalog", "depth": 1,
                       "mainResearchGoal": "g", "researchGoal": "g", "reasoning": "r"});
    same_answer(
        &server,
        "/tools/call/localViewStructure",
        json!({ "queries": [query.clone()] }),
        &["call", "localViewStructure", &query.to_string()],
    )
    .await;
    same_error(
        &server,
        "/tools/call/localViewStructur",
        json!({ "queries": [query.clone()] }),
        &["call", "localViewStructur", &query.to_string()],
    )
    .await;
}

#[test]
fn an_invalid_catalog_exits_1_from_every_command() {
    let bad = crate::common::fixtures().join("bad-catalog");
    for args in [
        &["search", "grep"][..],
        &["recommend", "read a file"],
        &["compare", "a", "b"],
        &["call", "localViewStructure", "{}"],
    ] {
        let out = toolscout()
            .arg("--catalog")
            .arg(&bad)
            .args(args)
            .env("TOOLSCOUT_MODELS_DIR", "/nonexistent-models-dir")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("INVALID:"),
            "{args:?}: the report is printed: {stderr}"
        );
        assert!(stderr.contains("is invalid"), "{args:?}: {stderr}");
    }
}

//! The HTTP server, started as a real process: routes, error envelopes, request ids, auth,
//! refusal to start on bad input, graceful shutdown.

use crate::client::client;
use crate::common::{fixtures, shipped_catalog};
use crate::server::Server;
use serde_json::Value;

async fn get(server: &Server, path: &str) -> (u16, reqwest::header::HeaderMap, Value) {
    let resp = client().get(server.url(path)).send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.json::<Value>().await.unwrap_or(Value::Null);
    (status, headers, body)
}

#[tokio::test]
async fn health_reports_catalog_and_models() {
    let server = Server::start(&shipped_catalog(), &[]);
    let (status, headers, body) = get(&server, "/health").await;
    assert_eq!(status, 200);
    assert!(headers.contains_key("x-request-id"));
    assert_eq!(body["status"], "ok");
    assert!(body["catalog"]["size"].as_u64().unwrap() >= 73, "{body}");
    assert!(
        body["catalog"]["categories"].as_u64().unwrap() >= 12,
        "{body}"
    );
    assert_eq!(body["catalog"]["version"].as_str().unwrap().len(), 16);
    assert_eq!(body["models"]["files_present"], false);
    assert_eq!(body["semantic_search"]["available"], false);
    assert!(
        body["semantic_search"]["reason"]
            .as_str()
            .unwrap()
            .contains("nonexistent-models-dir"),
        "{body}"
    );
    assert_eq!(body["search_modes"], serde_json::json!(["keyword"]));
    assert!(body["uptime_seconds"].is_u64());
}

#[tokio::test]
async fn catalog_tools_are_paged_and_filtered() {
    let server = Server::start(&shipped_catalog(), &[]);
    let (status, _, body) = get(&server, "/catalog/tools?per_page=5&page=2").await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert_eq!(data["tools"].as_array().unwrap().len(), 5);
    assert_eq!(data["pagination"]["page"], 2);
    assert_eq!(data["pagination"]["has_more"], true);
    let total = data["pagination"]["total"].as_u64().unwrap();
    assert!(total >= 73);

    // Pages tile the catalog in id order without overlap.
    let mut ids = Vec::new();
    for page in 1.. {
        let (_, _, body) = get(&server, &format!("/catalog/tools?per_page=100&page={page}")).await;
        let tools = body["data"]["tools"].as_array().unwrap().clone();
        ids.extend(
            tools
                .iter()
                .map(|t| t["tool_id"].as_str().unwrap().to_string()),
        );
        if body["data"]["pagination"]["has_more"] == false {
            break;
        }
    }
    assert_eq!(ids.len() as u64, total);
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);

    let (status, _, body) = get(&server, "/catalog/tools?category=code_search&per_page=100").await;
    assert_eq!(status, 200);
    let tools = body["data"]["tools"].as_array().unwrap();
    assert!(tools
        .iter()
        .any(|t| t["tool_id"] == "local_search_code" && t["executable"] == true));
    assert!(tools.iter().all(|t| t["category"] == "code_search"));
}

#[tokio::test]
async fn bad_query_parameters_are_all_reported() {
    let server = Server::start(&shipped_catalog(), &[]);
    let (status, _, body) = get(
        &server,
        "/catalog/tools?page=0&per_page=500&category=nope&color=red",
    )
    .await;
    assert_eq!(status, 400);
    let err = &body["error"];
    assert_eq!(err["error_code"], "VALIDATION_FAILED");
    assert_eq!(err["error_type"], "validation_error");
    let pointers: Vec<&str> = err["context"]["parameters"]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["pointer"].as_str().unwrap())
        .collect();
    for p in ["/page", "/per_page", "/category", "/color"] {
        assert!(pointers.contains(&p), "{p} missing in {pointers:?}");
    }
    let text = body.to_string();
    assert!(
        text.contains("expected a whole number 1..100, found \\\"500\\\""),
        "{text}"
    );
    assert!(
        text.contains("code_search"),
        "valid categories are listed: {text}"
    );
}

#[tokio::test]
async fn tool_by_id_and_unknown_id_with_suggestions() {
    let server = Server::start(&shipped_catalog(), &[]);
    let (status, _, body) = get(&server, "/catalog/tools/local_search_code").await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["name"], "localSearchCode");
    assert_eq!(body["data"]["execution"]["name"], "localSearchCode");
    assert!(body["data"]["input_schema"]["properties"]["pattern"].is_object());

    let resp = client()
        .get(server.url("/catalog/tools/local_serch_code"))
        .header("x-request-id", "test-req-42")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 404);
    assert_eq!(resp.headers()["x-request-id"], "test-req-42");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["success"], false);
    let err = &body["error"];
    assert_eq!(err["error_code"], "TOOL_NOT_FOUND");
    assert_eq!(err["context"]["request_id"], "test-req-42");
    assert_eq!(err["context"]["operation"], "catalog.get");
    assert_eq!(
        err["context"]["parameters"]["suggestions"][0],
        "local_search_code"
    );
    assert!(err["message"]
        .as_str()
        .unwrap()
        .contains("did you mean local_search_code"));
    assert!(!err["recovery_suggestions"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn unknown_route_and_wrong_method() {
    let server = Server::start(&shipped_catalog(), &[]);
    let (status, headers, body) = get(&server, "/nope").await;
    assert_eq!(status, 404);
    assert_eq!(headers["x-request-id"].len(), 16);
    assert_eq!(body["error"]["error_code"], "ROUTE_NOT_FOUND");
    let routes = body["error"]["context"]["parameters"]["available_routes"]
        .as_array()
        .unwrap();
    assert!(routes.iter().any(|r| r == "GET /health"));

    let resp = client().delete(server.url("/health")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 405);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["error_code"], "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn auth_token_guards_everything_but_health() {
    let token = "test-token-0123456789";
    let server = Server::start(&shipped_catalog(), &["--auth-token", token]);
    let (status, _, _) = get(&server, "/health").await;
    assert_eq!(status, 200);
    let (status, _, body) = get(&server, "/catalog/tools").await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["error_code"], "UNAUTHORIZED");
    let resp = client()
        .get(server.url("/catalog/tools"))
        .bearer_auth("wrong-token-0123456789")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    let resp = client()
        .get(server.url("/catalog/tools"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
}

#[test]
fn refuses_non_loopback_without_token() {
    let logs = tempfile::tempdir().unwrap();
    let out = crate::common::toolscout()
        .args(["serve", "--addr", "0.0.0.0:0"])
        .env("TOOLSCOUT_LOG_DIR", logs.path())
        .env_remove("TOOLSCOUT_AUTH_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a loopback address"), "{err}");
    assert!(err.contains("--auth-token"), "{err}");
}

#[test]
fn refuses_to_start_on_an_invalid_catalog() {
    let logs = tempfile::tempdir().unwrap();
    let out = crate::common::toolscout()
        .args(["--catalog"])
        .arg(fixtures().join("bad-catalog"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("TOOLSCOUT_LOG_DIR", logs.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refusing to start"), "{err}");
    assert!(
        err.contains("INVALID:"),
        "the validation report is printed: {err}"
    );
}

#[test]
fn print_config_shows_sources() {
    let out = crate::common::toolscout()
        .args(["serve", "--print-config", "--max-body-bytes", "2048"])
        .env("TOOLSCOUT_LOG_LEVEL", "debug")
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("max_body_bytes = 2048  # flag --max-body-bytes"),
        "{text}"
    );
    assert!(
        text.contains("log_level = \"debug\"  # env TOOLSCOUT_LOG_LEVEL"),
        "{text}"
    );
    assert!(
        text.contains("addr = \"127.0.0.1:1987\"  # default"),
        "{text}"
    );
    // Found from the installation (the checkout holding target/), not from the working
    // directory, which here is the temporary directory.
    let expected = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
    let expected = expected.canonicalize().unwrap();
    assert!(
        text.contains(&format!(
            "catalog_dir = \"{}\"  # default",
            expected.display()
        )),
        "{text}"
    );
}

/// `--log-dir ""`, `--cache-dir ""` and `--data-dir ""` turn each off, as their help says
/// (clap refused an empty path before).
#[test]
fn empty_directory_flags_turn_each_off() {
    let out = crate::common::toolscout()
        .args([
            "serve",
            "--print-config",
            "--log-dir",
            "",
            "--cache-dir",
            "",
        ])
        .args(["--data-dir", ""])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for key in ["log_dir", "cache_dir", "data_dir"] {
        let flag = key.replace('_', "-");
        assert!(
            text.contains(&format!("{key} = \"\"  # flag --{flag}")),
            "{key}: {text}"
        );
    }
}

#[tokio::test]
async fn sigterm_shuts_down_gracefully() {
    let server = Server::start(&shipped_catalog(), &[]);
    let (status, _, _) = get(&server, "/health").await;
    assert_eq!(status, 200);
    let (status, stderr) = server.terminate();
    assert!(status.success(), "exit status {status:?}");
    let stderr = stderr.join("\n");
    assert!(stderr.contains("shut down cleanly"), "{stderr}");
}

#[tokio::test]
async fn serves_from_any_working_directory() {
    // No --catalog: the binary finds the installed catalog itself.
    let logs = tempfile::tempdir().unwrap();
    let mut child = crate::common::toolscout()
        .args(["serve", "--addr", "127.0.0.1:0"])
        .current_dir(std::env::temp_dir())
        .env_remove("TOOLSCOUT_CATALOG_DIR")
        .env("TOOLSCOUT_LOG_DIR", logs.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    let body: Value = client()
        .get(format!("{base}/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(body["catalog"]["size"].as_u64().unwrap() >= 73, "{body}");
    assert_eq!(
        body["semantic_search"]["available"], true,
        "the model is found too: {body}"
    );
}

#[tokio::test]
async fn response_bodies_snapshot() {
    let server = Server::start(&fixtures().join("good-catalog"), &[]);
    let (_, _, list) = get(&server, "/catalog/tools").await;
    insta::assert_json_snapshot!("catalog_tools_list", list, {
        ".data.catalog_version" => "[version]",
    });
    let (_, _, missing) = get(&server, "/catalog/tools/nope").await;
    insta::assert_json_snapshot!("catalog_tool_missing", missing, {
        ".error.timestamp" => "[timestamp]",
        ".error.context.request_id" => "[request_id]",
    });
    let (_, _, health) = get(&server, "/health").await;
    insta::assert_json_snapshot!("health", health, {
        ".uptime_seconds" => "[uptime]",
        ".catalog.version" => "[version]",
        ".version" => "[version]",
        ".models" => "[models]",
        ".semantic_search.reason" => "[reason]",
        // One worker per core, 32 places a worker: the machine's, not the server's.
        ".gates.*.workers" => "[cores]",
        ".gates.*.queue" => "[32 x cores]",
        // The test's own data directory, and records the writer may not have written yet.
        ".usage.path" => "[data_dir]/usage.db",
        ".usage.written" => "[written]",
    });
}

async fn post(
    server: &Server,
    path: &str,
    content_type: &str,
    body: impl Into<reqwest::Body>,
) -> (u16, Value) {
    let a = crate::client::post(server, path, content_type, body).await;
    (a.status, a.body)
}

#[tokio::test]
async fn search_endpoint_with_the_real_model() {
    let server = Server::start_with_model(&shipped_catalog(), &[]);
    let (_, _, health) = get(&server, "/health").await;
    assert_eq!(health["semantic_search"]["available"], true, "{health}");
    let (status, body) = post(
        &server,
        "/search",
        "application/json",
        r#"{"query": "find where a function is called", "max_results": 3}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["success"], true);
    assert_eq!(body["metadata"]["search_mode_used"], "hybrid");
    let results = body["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3);
    assert!(
        results
            .iter()
            .any(|r| r["tool_id"] == "lsp_call_hierarchy" || r["tool_id"] == "lsp_find_references"),
        "{body}"
    );
    assert!(results[0]["score_details"]["cosine"].is_number());

    // The same request through the engine gives the same ranking.
    let (_, again) = post(
        &server,
        "/search",
        "application/json",
        r#"{"query": "find where a function is called", "max_results": 3}"#,
    )
    .await;
    assert_eq!(again["metadata"]["cache_hit"], true);
    assert_eq!(
        again["results"][0]["tool_id"],
        body["results"][0]["tool_id"]
    );
}

#[tokio::test]
async fn search_endpoint_rejects_bad_bodies_with_the_envelope() {
    let server = Server::start(&shipped_catalog(), &["--max-body-bytes", "2048"]);
    let (status, body) = post(
        &server,
        "/search",
        "application/json",
        r#"{"query": "grep""#,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["error_code"], "VALIDATION_FAILED");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 1 column"),
        "{body}"
    );

    let (status, body) = post(&server, "/search", "text/plain", r#"{"query": "grep"}"#).await;
    assert_eq!(status, 415);
    assert_eq!(body["error"]["error_code"], "UNSUPPORTED_MEDIA_TYPE");

    let big = format!(r#"{{"query": "{}"}}"#, "a".repeat(4096));
    let (status, body) = post(&server, "/search", "application/json", big).await;
    assert_eq!(status, 413);
    assert_eq!(body["error"]["error_code"], "PAYLOAD_TOO_LARGE");
    assert_eq!(body["error"]["context"]["parameters"]["limit_bytes"], 2048);

    let (status, body) = post(
        &server,
        "/search",
        "application/json",
        r#"{"query": "", "max_results": 99}"#,
    )
    .await;
    assert_eq!(status, 400);
    let pointers: Vec<&str> = body["error"]["context"]["parameters"]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(pointers, ["/max_results", "/query"], "{body}");

    // Keyword fallback is announced, never hidden.
    let (status, body) = post(
        &server,
        "/search",
        "application/json",
        r#"{"query": "grep source code"}"#,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["metadata"]["search_mode_used"], "keyword");
    assert!(body["metadata"]["hints"][0]
        .as_str()
        .unwrap()
        .contains("semantic search is unavailable"));
    let (status, body) = post(
        &server,
        "/search",
        "application/json",
        r#"{"query": "grep", "search_mode": "semantic"}"#,
    )
    .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["error_code"], "MODEL_UNAVAILABLE");
}

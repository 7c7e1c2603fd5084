//! The routes beyond search and browsing, through the real server: `GET /search`,
//! `POST /catalog/validate`, `GET /catalog/status`, the octocode-compatible `/tools/*` and
//! `/prompts/*` routes, with their error statuses and snapshots of their bodies.

use crate::client::{get, post, post_json};
use crate::common::{fixtures, shipped_catalog};
use crate::server::Server;
use serde_json::{json, Value};
use toolscout::exec::BUILTIN_TOOLS;

fn good_catalog() -> std::path::PathBuf {
    fixtures().join("good-catalog")
}

fn read_fixture(rel: &str) -> Value {
    let text = std::fs::read_to_string(good_catalog().join(rel)).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn get_search_is_post_search_from_the_query_string() {
    let server = Server::start(&shipped_catalog(), &[]);
    let got = get(
        &server,
        "/search?q=grep+source+code&k=3&mode=keyword&category=code_search",
    )
    .await;
    assert_eq!(got.status, 200, "{}", got.body);
    let posted = post_json(
        &server,
        "/search",
        r#"{"query": "grep source code", "max_results": 3, "search_mode": "keyword", "category": "code_search"}"#,
    )
    .await;
    let ids = |b: &Value| -> Vec<String> {
        b["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["tool_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&got.body), ids(&posted.body));
    assert!(!ids(&got.body).is_empty() && ids(&got.body).len() <= 3);
    assert_eq!(
        posted.body["metadata"]["cache_hit"], true,
        "same request, same cache entry"
    );

    // Invalid requests read the same through both doors.
    let got = get(&server, "/search?q=&k=99&colour=red").await;
    let posted = post_json(
        &server,
        "/search",
        r#"{"query": "", "max_results": 99, "colour": "red"}"#,
    )
    .await;
    assert_eq!(got.status, 400);
    assert_eq!(
        got.body["error"]["message"],
        posted.body["error"]["message"]
    );
    assert_eq!(
        got.body["error"]["context"]["parameters"],
        posted.body["error"]["context"]["parameters"]
    );
    assert_eq!(got.pointers(), ["", "/max_results", "/query"]);

    let missing = get(&server, "/search?k=2").await;
    assert_eq!(missing.status, 400);
    assert!(missing
        .body
        .to_string()
        .contains("expected required property \\\"query\\\""));
    let twice = get(&server, "/search?q=a&query=b").await;
    assert_eq!(twice.pointers(), ["/query"]);
    let bad_mode = get(&server, "/search?q=grep&mode=semantic").await;
    assert_eq!(
        bad_mode.status, 503,
        "no model in this server: {}",
        bad_mode.body
    );
}

#[tokio::test]
async fn catalog_validate_reports_like_the_cli() {
    let server = Server::start(&good_catalog(), &[]);
    let read_note = read_fixture("notes/read_note.json");

    // One valid object; its relations name tools of the served catalog.
    let one = post_json(&server, "/catalog/validate", read_note.to_string()).await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert_eq!(one.body["success"], true);
    assert_eq!(one.body["data"]["valid"], true, "{}", one.body);
    assert_eq!(one.body["data"]["files_checked"], 1);

    // Several problems across an array, all reported, with a 200: the call worked.
    let mut broken = read_note.clone();
    broken["complexity_score"] = json!("high");
    broken["tool_id"] = json!("Bad Id");
    let body = json!([read_note, read_note, broken, 7]);
    let many = post_json(&server, "/catalog/validate", body.to_string()).await;
    assert_eq!(many.status, 200, "{}", many.body);
    let data = &many.body["data"];
    assert_eq!(data["valid"], false);
    assert_eq!(data["files_checked"], 4);
    let found: Vec<(String, String, String)> = data["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["pointer"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for expected in [
        ("body[1]", "/tool_id", "duplicate_id"),
        ("body[2]", "/complexity_score", "schema"),
        ("body[2]", "/tool_id", "schema"),
        ("body[3]", "", "schema"),
    ] {
        let expected = (expected.0.into(), expected.1.into(), expected.2.into());
        assert!(
            found.contains(&expected),
            "{expected:?} missing from {found:?}"
        );
    }
    let text = data.to_string();
    assert!(
        text.contains("expected number, found string \\\"high\\\""),
        "{text}"
    );
    assert!(text.contains("expected object, found number 7"), "{text}");

    // strict: warnings fail too, as with the CLI's --strict.
    let mut terse = read_note.clone();
    terse["description"] = json!("Reads one note of the notebook by its id, nothing more.");
    let lax = post_json(&server, "/catalog/validate", terse.to_string()).await;
    assert_eq!(lax.body["data"]["valid"], true);
    assert_eq!(lax.body["data"]["warnings"], 1);
    let strict = post_json(&server, "/catalog/validate?strict=true", terse.to_string()).await;
    assert_eq!(strict.body["data"]["valid"], false);
    assert_eq!(strict.body["data"]["strict"], true);
    let bad_flag = post_json(&server, "/catalog/validate?strict=yes", terse.to_string()).await;
    assert_eq!(bad_flag.pointers(), ["/strict"]);

    // Requests that cannot be validated at all.
    for (body, pointer) in [("7", ""), ("[]", ""), ("\"tool\"", "")] {
        let a = post_json(&server, "/catalog/validate", body).await;
        assert_eq!(a.status, 400, "{body}: {}", a.body);
        assert_eq!(a.code(), "VALIDATION_FAILED");
        assert_eq!(a.pointers(), [pointer], "{body}");
    }
    let a = post_json(&server, "/catalog/validate", "{\"tool_id\": ").await;
    assert_eq!((a.status, a.code()), (400, "VALIDATION_FAILED"));
    let a = post(
        &server,
        "/catalog/validate",
        "text/plain",
        read_note.to_string(),
    )
    .await;
    assert_eq!((a.status, a.code()), (415, "UNSUPPORTED_MEDIA_TYPE"));
}

#[tokio::test]
async fn catalog_validate_matches_the_cli_report() {
    // The same three files, once through `catalog validate --format json`, once posted.
    let server = Server::start(&good_catalog(), &["--max-body-bytes", "1024"]);
    let cli = crate::common::toolscout()
        .args(["catalog", "validate", "--format", "json"])
        .arg(good_catalog())
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&cli.stdout).unwrap();
    let items: Vec<Value> = [
        "export/export_note.json",
        "notes/read_note.json",
        "notes/search_notes.json",
    ]
    .iter()
    .map(|f| read_fixture(f))
    .collect();
    let body = Value::Array(items).to_string();
    let big = post_json(&server, "/catalog/validate", body.clone()).await;
    assert_eq!((big.status, big.code()), (413, "PAYLOAD_TOO_LARGE"));
    let server = Server::start(&good_catalog(), &[]);
    let http = post_json(&server, "/catalog/validate", body).await;
    let report = &http.body["data"];
    for key in [
        "valid",
        "strict",
        "files_checked",
        "tools_parsed",
        "tools_valid",
        "errors",
        "warnings",
        "files_with_errors",
    ] {
        assert_eq!(report[key], cli[key], "{key}");
    }
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(report), keys(&cli), "the same report fields");
}

#[tokio::test]
async fn catalog_status_describes_what_is_served() {
    let server = Server::start(&good_catalog(), &[]);
    let a = get(&server, "/catalog/status").await;
    assert_eq!(a.status, 200, "{}", a.body);
    let data = &a.body["data"];
    assert_eq!(data["catalog"]["size"], 3);
    assert_eq!(
        data["catalog"]["categories"],
        json!({"export": 1, "notes": 2})
    );
    assert_eq!(data["catalog"]["tool_types"]["third_party"], 3);
    assert!(data["load"]["index_ms"].as_f64().unwrap() >= 0.0);
    assert!(data["load"]["loaded_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(data["search"]["modes_available"], json!(["keyword"]));
    insta::assert_json_snapshot!("catalog_status", a.body, {
        ".data.catalog.version" => "[version]",
        ".data.load.loaded_at" => "[timestamp]",
        ".data.load.catalog_ms" => "[ms]",
        ".data.load.index_ms" => "[ms]",
        ".data.load.total_ms" => "[ms]",
        ".data.model.missing" => "[missing]",
        ".data.model.semantic_search.reason" => "[reason]",
    });
}

#[tokio::test]
async fn octocode_tool_routes() {
    let server = Server::start(&shipped_catalog(), &[]);
    let list = get(&server, "/tools/list").await;
    assert_eq!(list.status, 200);
    let names: Vec<&str> = list.body["data"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names, BUILTIN_TOOLS,
        "octocode's 13 tools, in octocode's order"
    );
    // Descriptions come from the catalog's prose; the snapshot pins the shape.
    insta::assert_json_snapshot!("tools_list", list.body, {
        ".data.tools[].description" => "[description]",
    });

    let by_name = get(&server, "/tools/info/localSearchCode").await;
    let by_id = get(&server, "/tools/info/local_search_code").await;
    assert_eq!(by_name.status, 200, "{}", by_name.body);
    assert_eq!(by_name.body, by_id.body);
    let data = &by_name.body["data"];
    assert_eq!(data["name"], "localSearchCode");
    assert_eq!(data["toolId"], "local_search_code");
    assert_eq!(data["executable"], true);
    assert_eq!(data["inputSchema"]["type"], "object");
    assert!(data["inputSchema"]["properties"]["pattern"].is_object());
    assert!(data["whenToUse"].is_string());
    let lean = get(
        &server,
        "/tools/info/localSearchCode?schema=false&hints=false",
    )
    .await;
    assert!(lean.body["data"].get("inputSchema").is_none());
    assert!(lean.body["data"].get("whenToUse").is_none());
    let odd = get(&server, "/tools/info/localSearchCode?schema=maybe&x=1").await;
    assert_eq!(odd.status, 400);
    assert_eq!(odd.pointers(), ["/schema", "/x"]);

    let other = get(&server, "/tools/info/ripgrep").await;
    assert_eq!(
        other.body["data"]["executable"], false,
        "catalog tools are described too"
    );
    let missing = get(&server, "/tools/info/localSerchCode").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.code(), "TOOL_NOT_FOUND");
    assert_eq!(
        missing.body["error"]["context"]["parameters"]["suggestions"][0],
        "local_search_code"
    );

    let init = get(&server, "/tools/initContext").await;
    assert_eq!(init.status, 200);
    assert_eq!(init.body["success"], true);
    let schemas = init.body["tools_schema"].as_object().unwrap();
    assert_eq!(schemas.len(), 13);
    assert!(schemas["lspCallHierarchy"]["properties"]["direction"].is_object());
    let prompt = init.body["system_prompt"].as_str().unwrap();
    assert_eq!(
        init.body["_meta"]["promptCharCount"],
        prompt.chars().count()
    );
    assert_eq!(init.body["_meta"]["toolsCount"], 13);

    let system = get(&server, "/tools/system").await;
    assert_eq!(system.body["data"]["instructions"], prompt);
    assert_eq!(system.body["data"]["charCount"], prompt.chars().count());
    let meta = get(&server, "/tools/metadata").await;
    assert_eq!(meta.body["data"]["toolCount"], 13);
    assert_eq!(meta.body["data"]["promptCount"], 6);
    assert!(meta.body["data"]["catalogSize"].as_u64().unwrap() >= 73);
}

#[tokio::test]
async fn prompt_routes() {
    let server = Server::start(&good_catalog(), &[]);
    let list = get(&server, "/prompts/list").await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body["data"]["totalCount"], 6);
    insta::assert_json_snapshot!("prompts_list", list.body, { ".data.version" => "[version]" });

    let raw = get(&server, "/prompts/info/find-tool").await;
    assert_eq!(raw.status, 200);
    assert_eq!(raw.body["data"]["rendered"], false);
    assert!(raw.body["data"]["content"]
        .as_str()
        .unwrap()
        .contains("{{task}}"));

    let filled = get(
        &server,
        "/prompts/info/trace-function?symbol=parse_config&file=src%2Fconfig.rs",
    )
    .await;
    assert_eq!(filled.status, 200, "{}", filled.body);
    assert_eq!(filled.body["data"]["rendered"], true);
    insta::assert_json_snapshot!("prompt_info_rendered", filled.body);
    let content = filled.body["data"]["content"].as_str().unwrap();
    assert!(content.starts_with("Trace the function parse_config"));
    assert!(content.contains("Start from this file: src/config.rs\n"));
    assert!(
        !content.contains("Follow only this direction"),
        "absent optional line dropped"
    );

    let missing = get(
        &server,
        "/prompts/info/research-repository?ref=main&colour=red",
    )
    .await;
    assert_eq!(missing.status, 400);
    assert_eq!(missing.pointers(), ["/colour", "/question", "/repository"]);

    let unknown = get(&server, "/prompts/info/find-tools").await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.code(), "PROMPT_NOT_FOUND");
    insta::assert_json_snapshot!("prompt_info_missing", unknown.body, {
        ".error.timestamp" => "[timestamp]",
        ".error.context.request_id" => "[request_id]",
    });
}

#[tokio::test]
async fn new_routes_get_404_and_405_envelopes() {
    let server = Server::start(&good_catalog(), &[]);
    let nope = get(&server, "/tools/calls/localSearchCode").await;
    assert_eq!(nope.status, 404);
    assert_eq!(nope.code(), "ROUTE_NOT_FOUND");
    let routes = nope.body["error"]["context"]["parameters"]["available_routes"].to_string();
    for route in [
        "GET /catalog/status",
        "POST /catalog/validate",
        "GET /prompts/info/{name}",
        "POST /tools/call/{toolName}",
    ] {
        assert!(routes.contains(route), "{route} not in {routes}");
    }
    let client = crate::client::client();
    for (method, path) in [
        (reqwest::Method::POST, "/tools/list"),
        (reqwest::Method::DELETE, "/prompts/info/find-tool"),
        (reqwest::Method::GET, "/catalog/validate"),
        (reqwest::Method::PUT, "/search"),
        (reqwest::Method::GET, "/tools/call/localSearchCode"),
    ] {
        let resp = client
            .request(method.clone(), server.url(path))
            .send()
            .await
            .unwrap();
        let a = crate::client::Answer::from(resp).await;
        assert_eq!(
            (a.status, a.code()),
            (405, "METHOD_NOT_ALLOWED"),
            "{method} {path}"
        );
    }
}

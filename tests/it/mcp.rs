//! The MCP server in process: rmcp's own client talks to `toolscout::mcp::serve_io` over an
//! in-memory duplex, with no process and no port. Covers what every client sees (listing,
//! each meta-tool, error results, prompts, resources), the opt-in policies
//! (`--expose-tools`, `--require-discovery`), progress notifications, and that MCP and HTTP
//! give the same answer and the same error for the same body.

use crate::common::shipped_catalog;
use axum::body::Body;
use axum::http::Request;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, GetPromptRequestParams, NumberOrString,
    ProgressNotificationParam, ProgressToken, ReadResourceRequestParams, RequestParamsMeta,
    ResourceContents,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use toolscout::catalog::Catalog;
use toolscout::config::{Config, Overrides};
use toolscout::mcp::{serve_io, Options};
use toolscout::service::{LoadReport, Service};
use tower::ServiceExt as _;

/// A keyword-only service over the shipped catalog, its tools' workspace this crate.
fn service() -> Service {
    service_with(&BTreeMap::new())
}

/// [`service`] with these environment variables.
pub(crate) fn service_with(env: &BTreeMap<String, String>) -> Service {
    let flags = Overrides {
        catalog_dir: Some(shipped_catalog()),
        log_dir: Some(PathBuf::new()),
        cache_dir: Some(PathBuf::new()),
        ..Overrides::default()
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = Config::from_sources(&flags, env, &root).unwrap();
    let (catalog, _) = Catalog::load(&config.catalog_dir).unwrap();
    let load = LoadReport::default();
    Service::new(
        config,
        Arc::new(catalog),
        Err("in-process test".into()),
        load,
    )
    .unwrap()
}

/// A client that keeps the progress notifications it hears.
#[derive(Clone, Default)]
pub(crate) struct Listener {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    /// `notifications/tools/list_changed` heard.
    pub(crate) tool_lists_changed: Arc<std::sync::atomic::AtomicUsize>,
}

impl ClientHandler for Listener {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tool_lists_changed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

pub(crate) type Client = RunningService<RoleClient, Listener>;

/// A connected client, its server running on this runtime.
pub(crate) async fn connect(options: Options) -> (Client, Listener) {
    connect_to(Arc::new(service()), options).await
}

/// A connected client of a server over `service`.
pub(crate) async fn connect_to(service: Arc<Service>, options: Options) -> (Client, Listener) {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        serve_io(service, options, (read, write), std::future::pending()).await
    });
    let listener = Listener::default();
    let client = listener.clone().serve(client_io).await.expect("initialize");
    (client, listener)
}

pub(crate) async fn call(client: &Client, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn text(result: &CallToolResult) -> String {
    result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .expect("a text content")
}

/// A query of a local tool with the fields octocode requires of every query.
fn q(fields: Value) -> Value {
    let mut query =
        json!({"id": "q", "researchGoal": "test the MCP door", "reasoning": "a known file"});
    for (k, v) in fields.as_object().unwrap() {
        query[k] = v.clone();
    }
    query
}

#[tokio::test]
async fn lists_six_meta_tools_described_from_the_live_catalog() {
    let (client, _) = connect(Options::default()).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().unwrap().name, "toolscout");
    assert!(info
        .instructions
        .as_deref()
        .unwrap_or("")
        .contains("search_tools"));
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "search_tools",
            "recommend_tools",
            "compare_tools",
            "describe_tool",
            "call_tool",
            "rate_tool"
        ]
    );
    let count = Catalog::load(&shipped_catalog()).unwrap().0.len();
    for tool in &tools {
        assert_eq!(
            tool.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            tool.name
        );
        assert!(tool.output_schema.is_some(), "{}", tool.name);
        let annotations = tool.annotations.as_ref().expect("annotations");
        // rate_tool writes feedback to the usage store; the others only read.
        let reads_only = tool.name != "rate_tool";
        assert_eq!(
            annotations.read_only_hint,
            Some(reads_only),
            "{}",
            tool.name
        );
        let description = tool.description.as_deref().unwrap_or("");
        assert!(description.len() > 80, "{}: {description}", tool.name);
    }
    let search = &tools[0];
    assert!(search
        .description
        .as_deref()
        .unwrap()
        .contains(&format!("{count} tools")));
    // The categories a search accepts are listed in its schema.
    let category = &search.input_schema["properties"]["category"];
    assert!(category["enum"]
        .as_array()
        .unwrap()
        .contains(&json!("code_search")));
    // Only call_tool reaches the network.
    let open: Vec<_> = tools
        .iter()
        .filter(|t| t.annotations.as_ref().unwrap().open_world_hint == Some(true))
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(open, ["call_tool"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_meta_tool_answers_with_structured_content_and_text() {
    let (client, _) = connect(Options::default()).await;
    let search = call(
        &client,
        "search_tools",
        json!({"query": "search code in my project", "max_results": 3}),
    )
    .await;
    assert_eq!(search.is_error, Some(false));
    let found = search.structured_content.clone().unwrap();
    assert_eq!(found["results"].as_array().unwrap().len(), 3);
    // Concise Markdown by default.
    assert!(
        text(&search).starts_with("# Tools for"),
        "{}",
        text(&search)
    );

    let recommend = call(
        &client,
        "recommend_tools",
        json!({"task_description": "find where a function is defined, then every caller"}),
    )
    .await;
    assert_eq!(recommend.is_error, Some(false), "{}", text(&recommend));
    assert!(recommend.structured_content.unwrap()["recommendations"].is_array());

    let compare = call(
        &client,
        "compare_tools",
        json!({"tool_ids": ["ripgrep", "local_search_code"]}),
    )
    .await;
    assert_eq!(compare.is_error, Some(false), "{}", text(&compare));
    assert!(
        text(&compare).contains('|'),
        "a Markdown matrix: {}",
        text(&compare)
    );

    let describe = call(&client, "describe_tool", json!({"name": "localSearchCode"})).await;
    let record = describe.structured_content.clone().unwrap();
    assert_eq!(record["tool_id"], "local_search_code");
    assert!(
        text(&describe).contains("## How to call"),
        "{}",
        text(&describe)
    );

    let run = call(&client, "call_tool", json!({"name": "localSearchCode", "queries": [q(json!({"pattern": "fn serve_io", "path": "src/mcp"}))]})).await;
    assert_eq!(run.is_error, Some(false), "{}", text(&run));
    let body = run.structured_content.unwrap();
    assert_eq!(body["tool"], "localSearchCode");
    assert!(body.to_string().contains("transport.rs"), "{body}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn user_errors_are_error_results_with_http_s_error_detail() {
    let (client, _) = connect(Options::default()).await;
    let bad = call(&client, "search_tools", json!({"qery": "x"})).await;
    assert_eq!(bad.is_error, Some(true));
    let detail: Value = serde_json::from_str(&text(&bad)).unwrap();
    assert_eq!(detail["error_code"], "VALIDATION_FAILED");
    assert_eq!(detail["context"]["operation"], "search");
    assert_eq!(bad.structured_content.unwrap()["error"], detail);

    let unknown = call(
        &client,
        "call_tool",
        json!({"name": "rm_rf", "queries": [{"x": 1}]}),
    )
    .await;
    assert_eq!(unknown.is_error, Some(true));
    let detail: Value = serde_json::from_str(&text(&unknown)).unwrap();
    assert_eq!(detail["error_code"], "TOOL_NOT_RUNNABLE", "{detail}");

    let missing = call(&client, "describe_tool", json!({})).await;
    assert_eq!(missing.is_error, Some(true));
    assert!(text(&missing).contains("expected required property name"));

    let outside = call(
        &client,
        "call_tool",
        json!({"name": "localGetFileContent", "queries": [q(json!({"path": "/etc/passwd"}))]}),
    )
    .await;
    assert_eq!(outside.is_error, Some(true), "{}", text(&outside));

    // An MCP tool this server does not have is a protocol error, as the spec says.
    let err = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("unknown tool"), "{err}");
    client.cancel().await.unwrap();
}

/// The body an in-process HTTP server answers `POST path` with.
async fn http_post(path: &str, body: &Value) -> Value {
    let router = toolscout::http::app(toolscout::http::AppState::new(service()));
    let request = Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = router.oneshot(request).await.unwrap();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// Fields that differ between two runs of the same request.
fn steady(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for key in ["execution_time", "timestamp", "cache_hit", "request_id"] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[tokio::test]
async fn the_same_body_gives_the_same_answer_and_error_as_http() {
    let (client, _) = connect(Options::default()).await;
    for detail in ["concise", "detailed"] {
        let body = json!({"query": "read a file from a GitHub repository", "max_results": 4, "response_format": "json", "detail_level": detail});
        let mcp = call(&client, "search_tools", body.clone()).await;
        let http = http_post("/search", &body).await;
        assert_eq!(
            steady(mcp.structured_content.unwrap()),
            steady(http),
            "{detail}"
        );
    }
    let body = json!({"query": "x", "max_results": 0});
    let mcp = call(&client, "search_tools", body.clone()).await;
    let http = http_post("/search", &body).await;
    assert_eq!(steady(mcp.structured_content.unwrap()), steady(http));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn require_discovery_refuses_undiscovered_tools_and_says_what_to_call() {
    let (client, _) = connect(Options {
        require_discovery: true,
        ..Options::default()
    })
    .await;
    let args = json!({"name": "localFindFiles", "queries": [q(json!({"path": "src/mcp", "name": "*.rs"}))]});
    let refused = call(&client, "call_tool", args.clone()).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).contains("describe_tool"),
        "{}",
        text(&refused)
    );
    call(
        &client,
        "describe_tool",
        json!({"name": "local_find_files"}),
    )
    .await;
    let allowed = call(&client, "call_tool", args).await;
    assert_eq!(allowed.is_error, Some(false), "{}", text(&allowed));
    // A search counts too.
    let grep = json!({"name": "localSearchCode", "queries": [q(json!({"pattern": "serve_io", "path": "src/mcp"}))]});
    assert_eq!(
        call(&client, "call_tool", grep.clone()).await.is_error,
        Some(true)
    );
    call(
        &client,
        "search_tools",
        json!({"query": "search code contents of local files", "max_results": 10}),
    )
    .await;
    assert_eq!(call(&client, "call_tool", grep).await.is_error, Some(false));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn expose_tools_lists_and_runs_each_executable_tool_by_name() {
    let (client, _) = connect(Options {
        expose_tools: true,
        ..Options::default()
    })
    .await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 6 + 13);
    let grep = tools.iter().find(|t| t.name == "localSearchCode").unwrap();
    assert_eq!(grep.input_schema["required"], json!(["queries"]));
    let github = tools.iter().find(|t| t.name == "githubSearchCode").unwrap();
    assert_eq!(
        github.annotations.as_ref().unwrap().open_world_hint,
        Some(true)
    );
    let result = call(
        &client,
        "localSearchCode",
        json!({"queries": [q(json!({"pattern": "fn serve_io", "path": "src/mcp"}))]}),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_with_a_progress_token_reports_each_finished_query() {
    let (client, listener) = connect(Options::default()).await;
    let Value::Object(args) = json!({"name": "localSearchCode", "queries": [
        q(json!({"pattern": "serve_io", "path": "src/mcp"})),
        q(json!({"pattern": "Handler", "path": "src/mcp"})),
        q(json!({"pattern": "no such text anywhere 9f8e7d", "path": "src/mcp"})),
    ]}) else {
        unreachable!()
    };
    let mut params = CallToolRequestParams::new("call_tool").with_arguments(args);
    params.set_progress_token(ProgressToken(NumberOrString::Number(7)));
    let result = client.call_tool(params).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    // Notifications may trail the response by a moment.
    for _ in 0..50 {
        if listener.progress.lock().unwrap().len() >= 4 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let progress = listener.progress.lock().unwrap().clone();
    let steps: Vec<f64> = progress.iter().map(|p| p.progress).collect();
    assert_eq!(steps, [0.0, 1.0, 2.0, 3.0], "{progress:?}");
    assert!(progress.iter().all(|p| p.total == Some(3.0)));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompts_and_resources_browse_the_workflows_and_the_catalog() {
    let (client, _) = connect(Options::default()).await;
    let prompts = client.list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "find-tool"));
    let Value::Object(args) = json!({"task": "convert YAML to JSON"}) else {
        unreachable!()
    };
    let mut request = GetPromptRequestParams::new("find-tool");
    request.arguments = Some(args);
    let prompt = client.get_prompt(request).await.unwrap();
    let message = serde_json::to_string(&prompt.messages).unwrap();
    assert!(message.contains("convert YAML to JSON"), "{message}");
    let unknown = client
        .get_prompt(GetPromptRequestParams::new("find-tools"))
        .await
        .unwrap_err();
    assert!(unknown.to_string().contains("find-tool"), "{unknown}");

    let resources = client.list_all_resources().await.unwrap();
    let count = Catalog::load(&shipped_catalog()).unwrap().0.len();
    assert_eq!(resources.len(), count);
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "toolscout://tools/{id}");
    let read = client
        .read_resource(ReadResourceRequestParams::new("toolscout://tools/ripgrep"))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
        panic!("a text resource")
    };
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap()["tool_id"],
        "ripgrep"
    );
    let missing = client
        .read_resource(ReadResourceRequestParams::new("toolscout://tools/nope"))
        .await
        .unwrap_err();
    assert!(missing.to_string().contains("nope"), "{missing}");
    client.cancel().await.unwrap();
}

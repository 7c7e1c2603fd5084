//! `POST /tools/call/{toolName}` through the real server: the body checks, per-query
//! validation with pointers, the sandbox, redaction, single and bulk envelopes, circuits in
//! `/health`, and the GitHub client against a local server that speaks GitHub's REST shapes
//! at an Enterprise-style base URL.

use crate::client::{get, post, post_json, Answer};
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::{json, Value};
use std::path::Path;

/// A workspace with a little source code and a file holding a secret.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("auth.ts"),
        "export function issueToken(user: string): string {\n  return sign(user);\n}\n",
    )
    .unwrap();
    std::fs::write(
        src.join("main.ts"),
        "import { issueToken } from './auth';\nconst t = issueToken('ada');\n",
    )
    .unwrap();
    let token = ["ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"].concat();
    std::fs::write(
        src.join("config.ts"),
        format!("export const token = '{token}';\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join(".env"), "SECRET=1\n").unwrap();
    dir
}

fn server_in(dir: &Path, env: &[(&str, &str)]) -> Server {
    let mut all = vec![("TOOLSCOUT_WORKSPACE_ROOT", dir.to_str().unwrap())];
    all.extend_from_slice(env);
    Server::start_env(
        &shipped_catalog(),
        &["--models", "/nonexistent-models-dir"],
        &all,
    )
}

fn q(extra: Value) -> Value {
    let mut base = json!({"id": "q1", "researchGoal": "test", "reasoning": "test"});
    base.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    base
}

async fn call(server: &Server, tool: &str, queries: Vec<Value>) -> Answer {
    post_json(
        server,
        &format!("/tools/call/{tool}"),
        json!({"queries": queries}).to_string(),
    )
    .await
}

#[tokio::test]
async fn unknown_and_catalog_only_tools_are_404_with_the_runnable_ones() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let a = call(&server, "localSearchCod", vec![q(json!({}))]).await;
    assert_eq!(a.status, 404, "{}", a.body);
    assert_eq!(a.code(), "TOOL_NOT_RUNNABLE");
    let params = &a.body["error"]["context"]["parameters"];
    assert_eq!(params["suggestions"][0], "localSearchCode", "{}", a.body);
    assert_eq!(params["runnable_tools"].as_array().unwrap().len(), 13);
    // In the catalog, but run by its own program, not by toolscout.
    let a = call(&server, "ripgrep", vec![q(json!({}))]).await;
    assert_eq!(a.status, 404);
    assert_eq!(a.code(), "TOOL_NOT_RUNNABLE");
    assert!(a.headers.contains_key("x-request-id"));
}

#[tokio::test]
async fn malformed_bodies_get_every_violation_with_its_pointer() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let path = "/tools/call/localSearchCode";
    let a = post_json(&server, path, "{\"queries\": [").await;
    assert_eq!((a.status, a.code()), (400, "VALIDATION_FAILED"));
    let a = post(&server, path, "text/plain", "queries").await;
    assert_eq!((a.status, a.code()), (415, "UNSUPPORTED_MEDIA_TYPE"));
    let a = post_json(&server, path, json!({"query": {}}).to_string()).await;
    assert_eq!(a.status, 400);
    assert_eq!(
        a.pointers(),
        vec!["/query".to_string(), String::new()],
        "{}",
        a.body
    );
    let a = post_json(&server, path, json!({"queries": []}).to_string()).await;
    assert_eq!(a.pointers(), vec!["/queries"]);
    let six: Vec<Value> = (0..6).map(|_| q(json!({}))).collect();
    let a = call(&server, "localSearchCode", six).await;
    assert_eq!(a.status, 400);
    assert!(
        a.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1 to 5 queries"),
        "{}",
        a.body
    );
    let a = post_json(&server, path, json!({"queries": [1, {}]}).to_string()).await;
    assert_eq!(a.pointers(), vec!["/queries/0", "/queries/1"], "{}", a.body);
}

#[tokio::test]
async fn an_invalid_query_fails_alone_and_lists_its_violations() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let good = q(json!({"id": "good", "path": "src/auth.ts"}));
    let bad = json!({"id": "bad", "researchGoal": "g", "path": 7, "bogus": true});
    let a = call(&server, "localGetFileContent", vec![good, bad]).await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["bulk"], true);
    assert_eq!(
        a.body["counts"],
        json!({"total": 2, "hasResults": 1, "empty": 0, "error": 1})
    );
    let results = a.body["results"].as_array().unwrap();
    assert_eq!(results[0]["id"], "good");
    assert_eq!(results[0]["status"], "hasResults");
    assert!(results[0]["data"]["content"]
        .as_str()
        .unwrap()
        .contains("issueToken"));
    let err = &results[1]["data"];
    assert_eq!(results[1]["status"], "error");
    assert_eq!(err["errorCode"], "validationFailed");
    let pointers: Vec<&str> = err["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["pointer"].as_str().unwrap())
        .collect();
    // Every violation: the wrong type, the unknown key, the missing reasoning.
    assert!(pointers.contains(&"/queries/1/path"), "{pointers:?}");
    assert!(pointers.contains(&"/queries/1"), "{pointers:?}");
    assert_eq!(pointers.len(), 3, "{err}");
    assert!(
        !a.body["hints"]["error"].as_array().unwrap().is_empty(),
        "{}",
        a.body
    );
}

#[tokio::test]
async fn the_sandbox_refuses_escapes_and_secrets_never_leave() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let a = call(
        &server,
        "localGetFileContent",
        vec![q(json!({"path": "../../etc/passwd"}))],
    )
    .await;
    assert_eq!(a.status, 403, "{}", a.body);
    let data = &a.body["data"]["results"][0]["data"];
    assert_eq!(data["errorCode"], "pathValidationFailed");
    assert!(
        !a.body.to_string().contains(dir.path().to_str().unwrap()),
        "the resolved path leaked: {}",
        a.body
    );
    let a = call(
        &server,
        "localGetFileContent",
        vec![q(json!({"path": ".env"}))],
    )
    .await;
    assert_eq!(a.status, 403);
    let a = call(
        &server,
        "localGetFileContent",
        vec![q(json!({"path": "src/config.ts"}))],
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let text = a.body.to_string();
    assert!(text.contains("[REDACTED-GITHUBTOKENS]"), "{text}");
    assert!(
        !text.contains("aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
        "{text}"
    );
}

#[tokio::test]
async fn one_query_has_octocodes_single_shape_and_health_lists_used_circuits() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let before = get(&server, "/health").await;
    assert_eq!(
        before.body["circuits"],
        json!({}),
        "no circuit is listed before use"
    );
    assert_eq!(before.body["tools"]["runnable"], 13);
    let a = call(
        &server,
        "localSearchCode",
        vec![q(json!({"pattern": "issueToken", "path": "src"}))],
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["tool"], "localSearchCode");
    assert_eq!(a.body["success"], true);
    assert_eq!(
        a.body["research"],
        json!({"goal": "test", "reasoning": "test"})
    );
    let result = &a.body["data"]["results"][0];
    assert_eq!(result["status"], "hasResults");
    let files: Vec<&str> = result["data"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, vec!["src/auth.ts", "src/main.ts"], "{result}");
    let after = get(&server, "/health").await;
    let local = &after.body["circuits"]["local"];
    assert_eq!(local["state"], "closed", "{}", after.body);
    assert_eq!(local["isHealthy"], true);
    assert_eq!(local["calls"], 1);
}

/// A local server with GitHub's REST shapes under `/api/v3`, recording what it was asked.
mod fake_github {
    use axum::extract::{Query, State};
    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::get;
    use axum::{Json, Router};
    use serde_json::{json, Value};
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    /// The `q` parameter and the `Authorization` header of one request.
    type Request = (String, Option<String>);

    #[derive(Clone, Default)]
    pub struct Seen {
        pub requests: Arc<Mutex<Vec<Request>>>,
        pub status: Arc<Mutex<u16>>,
    }

    async fn repos(
        State(seen): State<Seen>,
        headers: HeaderMap,
        Query(q): Query<HashMap<String, String>>,
    ) -> (StatusCode, Json<Value>) {
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        seen.requests
            .lock()
            .unwrap()
            .push((q.get("q").cloned().unwrap_or_default(), auth));
        let status = *seen.status.lock().unwrap();
        if status != 200 {
            return (
                StatusCode::from_u16(status).unwrap(),
                Json(
                    json!({"message": "Forbidden", "documentation_url": "https://docs.github.com/rest"}),
                ),
            );
        }
        (
            StatusCode::OK,
            Json(json!({
                "total_count": 1, "incomplete_results": false,
                "items": [{
                    "id": 1, "name": "toolscout", "full_name": "acme/toolscout",
                    "owner": {"login": "acme"}, "html_url": "https://github.com/acme/toolscout",
                    "description": "Finds the right tool", "stargazers_count": 42, "forks_count": 3,
                    "language": "Rust", "topics": ["search"], "default_branch": "main",
                    "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-11-01T00:00:00Z",
                    "pushed_at": "2026-11-01T00:00:00Z", "archived": false, "visibility": "public",
                    "open_issues_count": 2, "license": {"spdx_id": "MIT"}, "size": 100
                }]
            })),
        )
    }

    pub async fn start() -> (String, Seen) {
        let seen = Seen::default();
        *seen.status.lock().unwrap() = 200;
        let app = Router::new()
            .route("/api/v3/search/repositories", get(repos))
            .with_state(seen.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (format!("http://{addr}/api/v3"), seen)
    }
}

#[tokio::test]
async fn github_is_reached_at_the_configured_base_and_its_circuit_opens() {
    let dir = workspace();
    let (base, seen) = fake_github::start().await;
    let token = "test-token-0123456789";
    let server = server_in(
        dir.path(),
        &[
            ("TOOLSCOUT_GITHUB_API_URL", &base),
            ("TOOLSCOUT_GITHUB_TOKEN", token),
        ],
    );
    let query = json!({"id": "r", "mainResearchGoal": "m", "researchGoal": "g", "reasoning": "r",
        "keywordsToSearch": ["tool", "search"], "owner": "acme", "stars": ">10"});
    let a = call(&server, "githubSearchRepositories", vec![query.clone()]).await;
    assert_eq!(a.status, 200, "{}", a.body);
    let result = &a.body["data"]["results"][0];
    assert_eq!(result["status"], "hasResults", "{result}");
    assert!(result.to_string().contains("acme"), "{result}");
    {
        let requests = seen.requests.lock().unwrap();
        let (q, auth) = &requests[0];
        for part in ["tool", "search", "user:acme", "stars:>10"] {
            assert!(q.contains(part), "q={q}");
        }
        assert_eq!(auth.as_deref(), Some(format!("Bearer {token}").as_str()));
    }
    // A refusal that is not worth retrying still counts against the circuit: github:search
    // opens after two, and the third call is refused without reaching GitHub.
    *seen.status.lock().unwrap() = 403;
    for _ in 0..2 {
        let a = call(&server, "githubSearchRepositories", vec![query.clone()]).await;
        assert_eq!(a.status, 502, "{}", a.body);
        assert!(
            !a.body.to_string().contains(token),
            "the token leaked: {}",
            a.body
        );
    }
    let reached = seen.requests.lock().unwrap().len();
    let a = call(&server, "githubSearchRepositories", vec![query]).await;
    assert_eq!(a.status, 503, "{}", a.body);
    assert_eq!(
        a.body["data"]["results"][0]["data"]["errorCode"],
        "circuitOpen"
    );
    assert_eq!(
        seen.requests.lock().unwrap().len(),
        reached,
        "an open circuit does not call GitHub"
    );
    let health = get(&server, "/health").await;
    assert_eq!(
        health.body["circuits"]["github:search"]["state"], "open",
        "{}",
        health.body
    );
    assert_eq!(health.body["circuits"]["github:search"]["isHealthy"], false);
}

#[tokio::test]
async fn bulk_bodies_are_pinned() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let queries = vec![
        q(
            json!({"id": "match", "path": "src/auth.ts", "matchString": "sign", "matchStringContextLines": 1}),
        ),
        q(json!({"id": "missing", "path": "src/nope.ts"})),
        q(json!({"id": "outside", "path": "/etc/hostname"})),
    ];
    let a = call(&server, "localGetFileContent", queries).await;
    assert_eq!(a.status, 200, "{}", a.body);
    insta::assert_json_snapshot!("tools_call_bulk", a.body, {
        ".meta.elapsedMs" => "[ms]",
        ".results[].data.modified" => "[mtime]",
    });
}

#[tokio::test]
async fn integral_floats_count_as_integers_as_the_schema_says() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let query =
        q(json!({"path": "src/auth.ts", "matchString": "sign", "matchStringContextLines": 1.0}));
    let a = call(&server, "localGetFileContent", vec![query]).await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.body["data"]["results"][0]["status"], "hasResults",
        "{}",
        a.body
    );
}

#[tokio::test]
async fn search_hits_say_how_to_run_the_tools_toolscout_executes() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let a = get(&server, "/search?q=localGetFileContent&k=1").await;
    let call_route = a.body["results"][0]["call"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", a.body))
        .to_string();
    assert_eq!(call_route, "POST /tools/call/localGetFileContent");
    let concise = get(
        &server,
        "/search?q=localGetFileContent&k=1&detail_level=concise",
    )
    .await;
    assert_eq!(concise.body["results"][0]["call"], call_route.as_str());
    // The route it names runs the tool.
    let path = call_route.trim_start_matches("POST ");
    let ran = post_json(
        &server,
        path,
        json!({"queries": [q(json!({"path": "src/auth.ts"}))]}).to_string(),
    )
    .await;
    assert_eq!(ran.status, 200, "{}", ran.body);
    // Workflow steps of a recommendation name it too.
    let r = post_json(
        &server,
        "/recommend",
        json!({"task_description": "read a local file around a matching line"}).to_string(),
    )
    .await;
    let steps = r.body["workflow"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r.body));
    let local = steps
        .iter()
        .find(|s| s["tool_id"] == "local_get_file_content")
        .unwrap_or_else(|| panic!("{}", r.body));
    assert_eq!(local["call"], "POST /tools/call/localGetFileContent");
    // A catalog-only tool has no call.
    let a = get(&server, "/search?q=ripgrep&k=1").await;
    assert_eq!(a.body["results"][0]["tool_id"], "ripgrep", "{}", a.body);
    assert!(a.body["results"][0].get("call").is_none(), "{}", a.body);
}

/// Octocode clients send `mainResearchGoal` on every query; the local and LSP tools refused
/// it as an unknown property (400). They take it now, ignore it, and echo it with the goals.
#[tokio::test]
async fn local_and_lsp_tools_accept_the_main_research_goal() {
    let dir = workspace();
    let server = server_in(dir.path(), &[]);
    let lsp = json!({"uri": "src/auth.ts", "symbolName": "issueToken", "lineHint": 1});
    let mut hierarchy = lsp.clone();
    hierarchy["direction"] = json!("incoming");
    for (tool, fields) in [
        (
            "localSearchCode",
            json!({"pattern": "issueToken", "path": "src"}),
        ),
        ("localFindFiles", json!({"path": "src"})),
        ("localGetFileContent", json!({"path": "src/auth.ts"})),
        ("localViewStructure", json!({"path": "src"})),
        ("lspGotoDefinition", lsp.clone()),
        ("lspFindReferences", lsp),
        ("lspCallHierarchy", hierarchy),
    ] {
        let mut query = q(fields);
        query["mainResearchGoal"] = json!("how are tokens issued");
        let a = call(&server, tool, vec![query]).await;
        assert_eq!(a.status, 200, "{tool}: {}", a.body);
        assert_eq!(
            a.body["research"]["mainGoal"], "how are tokens issued",
            "{tool}: {}",
            a.body
        );
    }
}

//! Operations and security through the real server: the OpenAPI document against the router,
//! auth on every route, CORS on and off, the JSON-lines request logs, and `/health`'s cache
//! hit rate.

use crate::client::{client, get, Answer};
use crate::common::{fixtures, shipped_catalog};
use crate::server::Server;
use serde_json::Value;
use std::time::Duration;
use toolscout::http::ROUTES;

/// `path` with each `{param}` replaced by the example the document gives for it.
fn concrete(path: &str, operation: &Value) -> String {
    let mut out = path.to_string();
    for p in operation["parameters"].as_array().into_iter().flatten() {
        if p["in"] == "path" {
            let name = p["name"].as_str().unwrap();
            let example = p["example"]
                .as_str()
                .expect("path parameters have examples");
            out = out.replace(&format!("{{{name}}}"), example);
        }
    }
    assert!(!out.contains('{'), "undocumented path parameter in {path}");
    out
}

#[tokio::test]
async fn openapi_documents_exactly_the_routes_that_answer() {
    let server = Server::start(&shipped_catalog(), &[]);
    let doc = get(&server, "/openapi.json").await;
    assert_eq!(doc.status, 200);
    assert_eq!(doc.body["openapi"], "3.1.0");
    let mut documented = Vec::new();
    for (path, item) in doc.body["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            documented.push((method.to_uppercase(), path.clone(), operation.clone()));
        }
    }
    for (method, path) in ROUTES {
        assert!(
            documented.iter().any(|(m, p, _)| m == method && p == path),
            "{method} {path} is routed but not documented"
        );
    }
    for (method, path, operation) in &documented {
        assert!(
            ROUTES.iter().any(|(m, p)| m == method && p == path),
            "{method} {path} is documented but not routed"
        );
        let url = server.url(&concrete(path, operation));
        let request = client().request(method.parse().unwrap(), url);
        let request = if method == "POST" {
            request
                .header("content-type", "application/json")
                .body("{}")
        } else {
            request
        };
        let a = Answer::from(request.send().await.unwrap()).await;
        assert!(
            !matches!(a.code(), "ROUTE_NOT_FOUND" | "METHOD_NOT_ALLOWED") && a.status != 405,
            "{method} {path} answered {} {}",
            a.status,
            a.body
        );
        assert!(
            operation["responses"]
                .as_object()
                .unwrap()
                .contains_key(&a.status.to_string()),
            "{method} {path}: status {} is not documented",
            a.status
        );
    }
    let error_codes = doc.body["components"]["schemas"]["ErrorDetail"]["properties"]["error_code"]
        ["enum"]
        .to_string();
    assert!(error_codes.contains("PROMPT_NOT_FOUND"));
}

#[tokio::test]
async fn auth_guards_every_route_but_health() {
    let token = "test-token-0123456789";
    let server = Server::start(&shipped_catalog(), &["--auth-token", token]);
    for (method, path) in ROUTES {
        let path = path
            .replace("{id}", "ripgrep")
            .replace("{toolName}", "localSearchCode")
            .replace("{name}", "find-tool");
        let send = |auth: Option<&str>| {
            let mut r = client().request(method.parse().unwrap(), server.url(&path));
            if *method == "POST" {
                r = r.header("content-type", "application/json").body("{}");
            }
            if let Some(a) = auth {
                r = r.header("authorization", a);
            }
            r.send()
        };
        let without = Answer::from(send(None).await.unwrap()).await;
        let with = Answer::from(send(Some(&format!("bearer {token}"))).await.unwrap()).await;
        assert_ne!(with.status, 401, "{method} {path} refused the token");
        if path == "/health" {
            assert_eq!(without.status, 200);
            continue;
        }
        assert_eq!(without.status, 401, "{method} {path} is open");
        assert_eq!(without.code(), "UNAUTHORIZED");
        assert_eq!(without.headers["www-authenticate"], "Bearer");
        let wrong = Answer::from(send(Some("Bearer test-token-0123456780")).await.unwrap()).await;
        assert_eq!(wrong.status, 401, "{method} {path} took a wrong token");
    }
}

async fn preflight(server: &Server, origin: &str) -> reqwest::Response {
    client()
        .request(reqwest::Method::OPTIONS, server.url("/search"))
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type, authorization",
        )
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn cors_is_off_by_default() {
    let server = Server::start(&fixtures().join("good-catalog"), &[]);
    let resp = preflight(&server, "https://app.example").await;
    assert_eq!(resp.status().as_u16(), 405);
    assert!(resp.headers().get("access-control-allow-origin").is_none());
    let resp = client()
        .get(server.url("/health"))
        .header("origin", "https://app.example")
        .send()
        .await
        .unwrap();
    assert!(resp.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn cors_allows_the_configured_origins() {
    let token = "test-token-0123456789";
    let server = Server::start(
        &fixtures().join("good-catalog"),
        &[
            "--cors-origins",
            "https://app.example,http://localhost:3000",
            "--auth-token",
            token,
        ],
    );
    // Preflights carry no token and are answered before auth.
    let resp = preflight(&server, "https://app.example").await;
    assert_eq!(resp.status().as_u16(), 200);
    let h = resp.headers();
    assert_eq!(h["access-control-allow-origin"], "https://app.example");
    let methods = h["access-control-allow-methods"]
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(
        methods.contains("post") && methods.contains("get"),
        "{methods}"
    );
    let headers = h["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(
        headers.contains("authorization") && headers.contains("content-type"),
        "{headers}"
    );
    assert!(h.contains_key("x-request-id"));

    let resp = client()
        .get(server.url("/catalog/status"))
        .header("origin", "http://localhost:3000")
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(
        resp.headers()["access-control-allow-origin"],
        "http://localhost:3000"
    );
    let exposed = resp.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap();
    assert!(exposed.to_lowercase().contains("x-request-id"), "{exposed}");

    let resp = preflight(&server, "https://evil.example").await;
    assert!(resp.headers().get("access-control-allow-origin").is_none());
}

/// Lines of a log file, parsed, once it holds at least `n`.
fn read_lines(path: &std::path::Path, n: usize) -> Vec<Value> {
    for _ in 0..100 {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect();
        if lines.len() >= n {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} has fewer than {n} lines", path.display());
}

#[tokio::test]
async fn requests_are_logged_as_json_lines() {
    let server = Server::start(&fixtures().join("good-catalog"), &[]);
    let health = get(&server, "/health").await;
    let info = get(&server, "/tools/info/read_note").await;
    let missing = get(&server, "/nope").await;
    let bad = crate::client::post(&server, "/catalog/validate", "text/plain", "x").await;
    let id = |a: &Answer| a.headers["x-request-id"].to_str().unwrap().to_string();

    let requests = read_lines(&server.log_dir.path().join("requests.log"), 4);
    assert_eq!(requests.len(), 4);
    for line in &requests {
        for key in [
            "timestamp",
            "request_id",
            "method",
            "path",
            "status",
            "duration_ms",
        ] {
            assert!(line.get(key).is_some(), "{key} missing in {line}");
        }
        assert!(line["duration_ms"].is_number());
    }
    assert_eq!(requests[0]["request_id"], id(&health));
    assert_eq!(requests[0]["route"], "/health");
    assert_eq!(requests[0]["status"], 200);
    assert_eq!(requests[1]["request_id"], id(&info));
    assert_eq!(requests[1]["route"], "/tools/info/{toolName}");
    assert_eq!(requests[1]["tool"], "read_note");
    assert_eq!(requests[2]["route"], Value::Null);
    assert_eq!(requests[2]["status"], 404);
    assert_eq!(requests[3]["error_code"], "UNSUPPORTED_MEDIA_TYPE");

    let errors = read_lines(&server.log_dir.path().join("errors.log"), 2);
    assert_eq!(errors.len(), 2, "only the error responses: {errors:?}");
    assert_eq!(errors[0]["request_id"], id(&missing));
    assert_eq!(errors[0]["error_code"], "ROUTE_NOT_FOUND");
    assert_eq!(errors[1]["request_id"], id(&bad));
    assert_eq!(errors[1]["status"], 415);
}

#[tokio::test]
async fn an_unusable_log_dir_does_not_stop_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("logs");
    let server = Server::start(
        &fixtures().join("good-catalog"),
        &["--log-dir", under_file.to_str().unwrap()],
    );
    assert_eq!(get(&server, "/health").await.status, 200);
    assert_eq!(get(&server, "/nope").await.status, 404);
    let (status, stderr) = server.terminate();
    assert!(status.success());
    let warnings = stderr
        .iter()
        .filter(|l| l.contains("cannot open the log directory"))
        .count();
    assert_eq!(warnings, 1, "warned once: {stderr:?}");
}

#[tokio::test]
async fn health_reports_the_cache_hit_rate() {
    let server = Server::start(&fixtures().join("good-catalog"), &[]);
    let before = get(&server, "/health").await;
    assert_eq!(before.body["cache"]["hits"], 0);
    assert_eq!(before.body["cache"]["hit_rate"], Value::Null);
    for _ in 0..3 {
        assert_eq!(get(&server, "/search?q=read+a+note").await.status, 200);
    }
    let after = get(&server, "/health").await;
    let cache = &after.body["cache"];
    assert_eq!(cache["enabled"], true);
    assert_eq!(
        (cache["hits"].as_u64(), cache["misses"].as_u64()),
        (Some(2), Some(1))
    );
    let rate = cache["hit_rate"].as_f64().unwrap();
    assert!((rate - 2.0 / 3.0).abs() < 1e-9, "{rate}");
    assert!(after.body["uptime_seconds"].is_u64());
    assert_eq!(after.body["catalog"]["version"].as_str().unwrap().len(), 16);
}

#[tokio::test]
async fn answer_caches_stay_within_their_byte_budget() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, "[search]\ncache_max_bytes = 200000\n").unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", config.to_str().unwrap()]);
    for i in 0..30 {
        let body = format!(r#"{{"query": "read files of project {i}", "max_results": 50}}"#);
        let a = crate::client::post_json(&server, "/search", body).await;
        assert_eq!(a.status, 200, "{}", a.body);
    }
    let health = get(&server, "/health").await;
    let cache = &health.body["cache"];
    let bytes = cache["bytes"].as_u64().unwrap();
    assert!(
        bytes <= 100_000,
        "responses weigh {bytes} against a 100,000 budget"
    );
    assert!(bytes > 0, "{cache}");
    assert_eq!(cache["misses"], 30);
}

//! Routing and error envelopes, served in process: `http::app()` over a keyword-only
//! service, each request sent through tower's `oneshot`, with no port and no child process.
//! What only a process shows (binding, signals, logs on disk) stays in the tests that start
//! the binary.

use crate::common::shipped_catalog;
use axum::body::Body;
use axum::http::{Method, Request};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use toolscout::catalog::Catalog;
use toolscout::config::{Config, Overrides};
use toolscout::http::{app, AppState};
use toolscout::service::{LoadReport, Service};
use tower::ServiceExt;

/// The whole router over the shipped catalog, without the model, logs or vector cache.
pub(crate) fn router(max_body_bytes: usize) -> axum::Router {
    app(state(max_body_bytes))
}

/// The state [`router`] serves.
fn state(max_body_bytes: usize) -> AppState {
    let flags = Overrides {
        catalog_dir: Some(shipped_catalog()),
        log_dir: Some(PathBuf::new()),
        cache_dir: Some(PathBuf::new()),
        max_body_bytes: Some(max_body_bytes),
        ..Overrides::default()
    };
    let cwd = std::env::current_dir().unwrap();
    let config = Config::from_sources(&flags, &BTreeMap::new(), &cwd).unwrap();
    let (catalog, _) = Catalog::load(&config.catalog_dir).unwrap();
    let load = LoadReport::default();
    let service = Service::new(
        config,
        Arc::new(catalog),
        Err("in-process test".into()),
        load,
    );
    AppState::new(service.unwrap())
}

/// The status and the body (JSON, or `Null`) of one request to `router`.
pub(crate) async fn send(
    router: axum::Router,
    method: Method,
    path: &str,
    body: &str,
    ct: &str,
) -> (u16, Value) {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", ct)
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = router.oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn code(body: &Value) -> &str {
    body["error"]["error_code"].as_str().unwrap_or("")
}

#[tokio::test]
async fn routes_answer_and_refuse_in_process() {
    let r = router(4096);
    let json = "application/json";
    let (status, body) = send(r.clone(), Method::GET, "/health", "", json).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));

    let search = r#"{"query": "search code for a regex", "max_results": 3}"#;
    let (status, body) = send(r.clone(), Method::POST, "/search", search, json).await;
    assert_eq!(status, 200, "{body}");
    assert!(!body["results"].as_array().unwrap().is_empty(), "{body}");

    let (status, body) = send(r.clone(), Method::POST, "/search", r#"{"query": 3}"#, json).await;
    assert_eq!((status, code(&body)), (400, "VALIDATION_FAILED"), "{body}");
    assert_eq!(
        body["error"]["context"]["parameters"]["violations"][0]["pointer"],
        "/query"
    );

    let (status, body) = send(r.clone(), Method::GET, "/nope", "", json).await;
    assert_eq!((status, code(&body)), (404, "ROUTE_NOT_FOUND"), "{body}");
    let (status, body) = send(r.clone(), Method::PUT, "/search", search, json).await;
    assert_eq!((status, code(&body)), (405, "METHOD_NOT_ALLOWED"), "{body}");
    let (status, body) = send(r.clone(), Method::POST, "/search", search, "text/plain").await;
    assert_eq!(
        (status, code(&body)),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
        "{body}"
    );
    let big = format!(r#"{{"query": "{}"}}"#, "x".repeat(5000));
    let (status, body) = send(r.clone(), Method::POST, "/search", &big, json).await;
    assert_eq!((status, code(&body)), (413, "PAYLOAD_TOO_LARGE"), "{body}");

    let (status, body) = send(r, Method::GET, "/tools/info/localSerchCode", "", json).await;
    assert_eq!((status, code(&body)), (404, "TOOL_NOT_FOUND"), "{body}");
}

#[tokio::test]
async fn a_draining_server_refuses_new_requests_with_503_and_retry_after() {
    let state = state(4096);
    let r = app(state.clone());
    let (status, _) = send(r.clone(), Method::GET, "/health", "", "application/json").await;
    assert_eq!(status, 200);
    state.begin_drain();
    for (method, path) in [(Method::GET, "/health"), (Method::POST, "/search")] {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json")
            .body(Body::from(r#"{"query": "x"}"#))
            .unwrap();
        let response = r.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status().as_u16(), 503);
        assert_eq!(response.headers()["retry-after"], "5");
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(code(&body), "SHUTTING_DOWN", "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("shutting down"),
            "{body}"
        );
    }
}

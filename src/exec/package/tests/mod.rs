//! packageSearch end to end against a fake registry on 127.0.0.1 that serves npm's and
//! PyPI's JSON shapes (latest manifest, full document, keyword search, project JSON, 404,
//! 429, 500), with every answer checked against the catalog's return_schema; and one opt-in
//! run against the real registries the machine's npm and pip are configured with. This
//! module holds the fake registry and the helpers; `npm`, `pypi` and `live` the tests.

mod live;
mod npm;
mod pypi;

use super::run;
use crate::config::ExecConfig;
use crate::exec::outcome::{Failure, Outcome, Status};
use crate::exec::Context;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};

type Log = Arc<Mutex<Vec<String>>>;

fn express_manifest() -> Value {
    json!({
        "name": "express", "version": "5.1.0", "description": "Fast, unopinionated, minimalist web framework",
        "license": "MIT", "repository": {"type": "git", "url": "git+https://github.com/expressjs/express.git"},
        "author": {"name": "TJ Holowaychuk", "email": "tj@example.test"},
        "keywords": ["express", "framework", "web"], "homepage": "https://expressjs.test/",
        "engines": {"node": ">= 18"}, "dependencies": {"accepts": "^2.0.0", "body-parser": "^2.2.0"},
    })
}

fn express_document() -> Value {
    json!({
        "name": "express", "dist-tags": {"latest": "5.1.0"},
        "versions": {"4.21.2": {"name": "express", "version": "4.21.2"}, "5.1.0": express_manifest()},
        "time": {"modified": "2025-06-01T00:00:00.000Z", "5.1.0": "2025-03-31T14:00:00.000Z"},
    })
}

fn widget_document() -> Value {
    json!({
        "name": "@acme/widget", "dist-tags": {"latest": "2.0.0"},
        "versions": {"2.0.0": {
            "name": "@acme/widget", "version": "2.0.0", "description": "Widgets", "license": "Apache-2.0",
            "repository": {"type": "git", "url": "git@github.com:acme/mono.git", "directory": "packages/widget"},
            "types": "./index.d.ts", "main": "./index.js", "deprecated": "moved to @acme/widgets",
        }},
        "time": {"2.0.0": "2024-01-02T00:00:00.000Z"},
    })
}

fn search_hit(name: &str, repo: &str) -> Value {
    json!({"package": {
        "name": name, "version": "1.0.0", "description": format!("{name} does things"), "date": "2024-02-03T00:00:00.000Z",
        "links": {"npm": "https://npm.test/package/x", "repository": repo},
    }, "score": {"final": 0.9}})
}

fn requests_json() -> Value {
    json!({
        "info": {
            "name": "requests", "version": "2.32.3", "summary": "Python HTTP for Humans.", "license": "Apache-2.0",
            "author": "Kenneth Reitz", "author_email": "me@example.test", "keywords": "", "home_page": "https://requests.test",
            "requires_python": ">=3.8", "requires_dist": ["idna<4,>=2.5", "PySocks!=1.5.7,>=1.5.6; extra == \"socks\""],
            "project_urls": {"Documentation": "https://requests.test", "Source": "https://github.com/psf/requests"},
        },
        "urls": [{"upload_time_iso_8601": "2024-05-29T15:37:47.000Z"}],
    })
}

async fn registry(State(log): State<Log>, uri: Uri) -> Response {
    let path = uri.path().to_string();
    let query = uri.query().unwrap_or("").to_string();
    log.lock().unwrap().push(if query.is_empty() {
        path.clone()
    } else {
        format!("{path}?{query}")
    });
    let ok = |v: Value| Json(v).into_response();
    match path.as_str() {
        "/npm/express/latest" | "/bare/express/latest" => ok(express_manifest()),
        "/npm/express" => ok(express_document()),
        "/npm/@acme%2Fwidget" => ok(widget_document()),
        "/npm/flaky/latest" | "/py/pypi/broken/json" => {
            (StatusCode::BAD_GATEWAY, "upstream down").into_response()
        }
        "/npm/limited/latest" => (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "7")],
            "slow down",
        )
            .into_response(),
        "/npm/private/latest" => (StatusCode::FORBIDDEN, "no").into_response(),
        "/npm/garbled/latest" => "<html>not json</html>".into_response(),
        "/npm/-/v1/search" if query.contains("text=web+framework") => ok(json!({
            "objects": [
                search_hit("express", "https://github.com/expressjs/express"),
                search_hit("koa", "https://github.com/koajs/koa"),
                search_hit("hapi-like", "https://gitlab.com/h/hapi"),
            ],
            "total": 120,
        })),
        "/npm/-/v1/search" if query.contains("text=exprss") => {
            ok(json!({"objects": [search_hit("express", "expressjs/express")], "total": 1}))
        }
        "/npm/-/v1/search" => ok(json!({"objects": [], "total": 0})),
        "/py/pypi/requests/json" => ok(requests_json()),
        "/py/pypi/flask-sqlalchemy/json" => ok(json!({"info": {
            "name": "Flask-SQLAlchemy", "version": "3.1.1", "summary": "", "license_expression": "BSD-3-Clause",
            "project_urls": {"Source": "https://github.com/pallets-eco/flask-sqlalchemy/"},
        }})),
        _ => (StatusCode::NOT_FOUND, Json(json!({"error": "Not found"}))).into_response(),
    }
}

/// A context whose registries are the fake server; `npm_path` picks the npm base.
async fn setup(npm_path: &str) -> (Context, Log, tempfile::TempDir) {
    let log: Log = Arc::default();
    let app = Router::new().fallback(registry).with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    let dir = tempfile::tempdir().unwrap();
    let mut config = ExecConfig::for_workspace(dir.path());
    config.npm_registry = Some(format!("http://{addr}{npm_path}"));
    config.pypi_url = Some(format!("http://{addr}/py/"));
    (Context::new(config), log, dir)
}

fn query(v: Value) -> Map<String, Value> {
    let mut q = v.as_object().unwrap().clone();
    for k in ["mainResearchGoal", "researchGoal", "reasoning"] {
        q.insert(k.into(), json!("test"));
    }
    q.insert("id".into(), json!("q1"));
    q
}

/// Every answer must fit the catalog's return_schema.
fn check(o: &Outcome) {
    crate::exec::testing::assert_fits_return_schema(crate::exec::Tool::PackageSearch, &o.data);
}

fn hints(o: &Outcome) -> Vec<String> {
    o.data["hints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect()
}

fn has_hint(o: &Outcome, needle: &str) -> bool {
    hints(o).iter().any(|h| h.contains(needle))
}

//! Tests only: a fake GitHub REST API on 127.0.0.1, mounted under an Enterprise-style
//! `/api/v3` prefix. Tests register answers per path (GitHub's own shapes, built by the
//! helpers below), the server records every request it receives (path, query, headers) so
//! tests can assert the exact `q=` strings and the token, and it can be told to fail a path
//! with any status and headers. Unregistered paths answer GitHub's 404.

use crate::config::ExecConfig;
use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::{Context, Tool};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};

const PREFIX: &str = "/api/v3";

/// One recorded request.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    /// Path below the prefix, still percent-encoded (`/repos/o/r/contents/a%20b`).
    pub path: String,
    /// The full path as received, prefix included.
    pub raw_path: String,
    pub query: Vec<(String, String)>,
    pub headers: HeaderMap,
}

impl Recorded {
    pub(crate) fn param(&self, name: &str) -> Option<String> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    }
}

#[derive(Clone)]
struct Answer {
    path: String,
    /// Only requests carrying this query parameter value match.
    when: Option<(String, String)>,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    content_type: &'static str,
}

#[derive(Default)]
struct Shared {
    answers: Mutex<Vec<Answer>>,
    requests: Mutex<Vec<Recorded>>,
}

/// A running fake; the server stops with the test's runtime.
pub(crate) struct Fake {
    pub base: String,
    shared: Arc<Shared>,
    dir: tempfile::TempDir,
}

impl Fake {
    pub(crate) async fn start() -> Fake {
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Fake {
            base: format!("http://{addr}{PREFIX}"),
            shared,
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub(crate) fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// A context whose GitHub base is this server.
    pub(crate) fn context(&self, token: Option<&str>) -> Context {
        let mut config = ExecConfig::for_workspace(self.dir.path());
        config.github_api_url = self.base.clone();
        config.github_token = token.map(str::to_string);
        Context::new(config)
    }

    /// Runs one query of `tool` against this server, after checking that the query fits the
    /// tool's catalog input schema (a test must not pass by sending what no caller could).
    pub(crate) async fn call(
        &self,
        tool: Tool,
        token: Option<&str>,
        fields: Value,
    ) -> Result<Outcome, QueryError> {
        let q = query(fields);
        assert_fits_input_schema(tool, &q);
        super::run(&self.context(token), tool, &q).await
    }

    fn push(&self, answer: Answer) {
        self.shared.answers.lock().expect("answers").push(answer);
    }

    /// 200 with a JSON body for `path` (below the prefix, percent-encoded as sent).
    pub(crate) fn on(&self, path: &str, body: Value) {
        self.push(Answer {
            path: path.into(),
            when: None,
            status: 200,
            headers: Vec::new(),
            body: body.to_string().into_bytes(),
            content_type: "application/json; charset=utf-8",
        });
    }

    /// Like `on`, only for requests whose query has `key=value`.
    pub(crate) fn on_when(&self, path: &str, key: &str, value: &str, body: Value) {
        self.push(Answer {
            path: path.into(),
            when: Some((key.into(), value.into())),
            status: 200,
            headers: Vec::new(),
            body: body.to_string().into_bytes(),
            content_type: "application/json; charset=utf-8",
        });
    }

    /// 200 with raw bytes, as the contents API answers `application/vnd.github.raw+json`.
    pub(crate) fn on_raw(&self, path: &str, bytes: &[u8]) {
        self.push(Answer {
            path: path.into(),
            when: Some(("__accept".into(), "application/vnd.github.raw+json".into())),
            status: 200,
            headers: Vec::new(),
            body: bytes.to_vec(),
            content_type: "application/octet-stream",
        });
    }

    /// An error answer for `path`.
    pub(crate) fn fail(&self, path: &str, status: u16, headers: &[(&str, &str)], body: Value) {
        self.push(Answer {
            path: path.into(),
            when: None,
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.to_string().into_bytes(),
            content_type: "application/json; charset=utf-8",
        });
    }

    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().expect("requests").clone()
    }

    /// The last request to `path`.
    pub(crate) fn last(&self, path: &str) -> Option<Recorded> {
        self.requests().into_iter().rev().find(|r| r.path == path)
    }

    /// The `q` parameter of the last request to `path`.
    pub(crate) fn q(&self, path: &str) -> String {
        self.last(path)
            .and_then(|r| r.param("q"))
            .unwrap_or_default()
    }
}

async fn answer(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let uri = request.uri().clone();
    let raw_path = uri.path().to_string();
    let query: Vec<(String, String)> = reqwest::Url::parse(&format!("http://x{uri}"))
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default();
    let headers = request.headers().clone();
    let Some(path) = raw_path.strip_prefix(PREFIX).map(str::to_string) else {
        return respond(
            404,
            &[],
            br#"{"message":"Not Found (outside /api/v3)"}"#.to_vec(),
            "application/json",
        );
    };
    let accept = headers
        .get("accept")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    shared.requests.lock().expect("requests").push(Recorded {
        path: path.clone(),
        raw_path,
        query: query.clone(),
        headers,
    });
    let answers = shared.answers.lock().expect("answers").clone();
    let found = answers.iter().rev().find(|a| {
        a.path == path
            && a.when.as_ref().is_none_or(|(k, v)| {
                if k == "__accept" {
                    accept == *v
                } else {
                    query.iter().any(|(qk, qv)| qk == k && qv == v)
                }
            })
    });
    match found {
        Some(a) => {
            let headers: Vec<(&str, &str)> = a
                .headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            respond(a.status, &headers, a.body.clone(), a.content_type)
        }
        None => respond(
            404,
            &[],
            br#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}"#
                .to_vec(),
            "application/json",
        ),
    }
}

fn respond(status: u16, headers: &[(&str, &str)], body: Vec<u8>, content_type: &str) -> Response {
    let mut builder = Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", content_type);
    for (k, v) in headers {
        builder = builder.header(*k, *v);
    }
    builder.body(Body::from(body)).expect("response")
}

// ---- GitHub's answer shapes ---------------------------------------------------------------

/// `GET /repos/{o}/{r}`.
pub(crate) fn repo_body(owner: &str, repo: &str, default_branch: &str) -> Value {
    json!({
        "id": 1296269, "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5", "name": repo,
        "full_name": format!("{owner}/{repo}"), "private": false,
        "owner": {"login": owner, "id": 1, "type": "Organization"},
        "html_url": format!("https://github.com/{owner}/{repo}"),
        "description": "A test repository", "fork": false,
        "url": format!("https://api.github.com/repos/{owner}/{repo}"),
        "created_at": "2011-01-26T19:01:12Z", "updated_at": "2024-01-26T19:14:43Z",
        "pushed_at": "2024-01-26T19:06:43Z", "size": 108, "stargazers_count": 80,
        "language": "Rust", "forks_count": 9, "archived": false, "open_issues_count": 2,
        "topics": ["testing"], "visibility": "public", "default_branch": default_branch
    })
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    // GitHub wraps its base64 at 60 characters.
    out.as_bytes()
        .chunks(60)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// `GET /repos/{o}/{r}/contents/{path}` for a file.
pub(crate) fn file_body(owner: &str, repo: &str, path: &str, git_ref: &str, bytes: &[u8]) -> Value {
    let name = path.rsplit('/').next().unwrap_or(path);
    json!({
        "type": "file", "encoding": "base64", "size": bytes.len(), "name": name, "path": path,
        "content": base64(bytes), "sha": "3d21ec53a331a6f037a91c368710b99387d012c1",
        "url": format!("https://api.github.com/repos/{owner}/{repo}/contents/{path}?ref={git_ref}"),
        "git_url": format!("https://api.github.com/repos/{owner}/{repo}/git/blobs/3d21ec53"),
        "html_url": format!("https://github.com/{owner}/{repo}/blob/{git_ref}/{path}"),
        "download_url": format!("https://raw.githubusercontent.com/{owner}/{repo}/{git_ref}/{path}"),
        "_links": {}
    })
}

/// `GET /repos/{o}/{r}/git/trees/{ref}?recursive=1`, entries as (path, "blob" | "tree").
pub(crate) fn tree_body(entries: &[(&str, &str)], truncated: bool) -> Value {
    let tree: Vec<Value> = entries
        .iter()
        .map(|(path, kind)| {
            let mut e = json!({"path": path, "mode": if *kind == "tree" { "040000" } else { "100644" }, "type": kind, "sha": "9fb037999f264ba9a7fc6274d15fa3ae2ab98312", "url": "https://api.github.com/x"});
            if *kind == "blob" {
                e["size"] = json!(100);
            }
            e
        })
        .collect();
    json!({"sha": "9fb037999f264ba9a7fc6274d15fa3ae2ab98312", "url": "https://api.github.com/x", "tree": tree, "truncated": truncated})
}

/// One `/search/code` item with text-match fragments.
pub(crate) fn code_item(full_name: &str, path: &str, fragments: &[&str]) -> Value {
    let name = path.rsplit('/').next().unwrap_or(path);
    let matches: Vec<Value> = fragments
        .iter()
        .map(|f| json!({"object_url": "https://api.github.com/x", "object_type": "FileContent", "property": "content", "fragment": f, "matches": [{"text": "x", "indices": [0, 1]}]}))
        .chain(std::iter::once(json!({"object_type": "FileContent", "property": "path", "fragment": path, "matches": []})))
        .collect();
    let (owner, repo) = full_name.split_once('/').unwrap_or((full_name, full_name));
    json!({
        "name": name, "path": path, "sha": "d7a1e6f", "url": "https://api.github.com/x",
        "git_url": "https://api.github.com/x",
        "html_url": format!("https://github.com/{full_name}/blob/d7a1e6f/{path}"),
        "repository": {"id": 1, "name": repo, "full_name": full_name, "owner": {"login": owner}, "private": false, "html_url": format!("https://github.com/{full_name}")},
        "score": 1.0, "text_matches": matches
    })
}

/// A search answer around `items`.
pub(crate) fn search_body(total: u64, items: Vec<Value>) -> Value {
    json!({"total_count": total, "incomplete_results": false, "items": items})
}

/// One `/search/issues` item for a pull request.
pub(crate) fn issue_pr_item(
    full_name: &str,
    number: u64,
    title: &str,
    body: Option<&str>,
    merged: bool,
) -> Value {
    json!({
        "url": format!("https://api.github.com/repos/{full_name}/issues/{number}"),
        "repository_url": format!("https://api.github.com/repos/{full_name}"),
        "html_url": format!("https://github.com/{full_name}/pull/{number}"),
        "id": number * 1000, "number": number, "title": title, "state": "closed",
        "user": {"login": "octocat", "id": 1}, "labels": [{"id": 1, "name": "bug", "color": "d73a4a"}],
        "assignees": [{"login": "hubot"}], "comments": 3, "draft": false,
        "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-03T00:00:00Z", "closed_at": "2024-01-02T00:00:00Z",
        "body": body, "score": 1.0,
        "pull_request": {"url": format!("https://api.github.com/repos/{full_name}/pulls/{number}"), "html_url": format!("https://github.com/{full_name}/pull/{number}"), "merged_at": if merged { json!("2024-01-02T00:00:00Z") } else { Value::Null }}
    })
}

/// `GET /repos/{o}/{r}/pulls/{n}`.
pub(crate) fn pull_body(full_name: &str, number: u64, title: &str, body: &str) -> Value {
    json!({
        "url": format!("https://api.github.com/repos/{full_name}/pulls/{number}"),
        "html_url": format!("https://github.com/{full_name}/pull/{number}"),
        "number": number, "state": "closed", "locked": false, "title": title, "body": body,
        "user": {"login": "octocat"}, "labels": [{"name": "enhancement"}], "assignees": [],
        "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-03T00:00:00Z",
        "closed_at": "2024-01-02T00:00:00Z", "merged_at": "2024-01-02T00:00:00Z",
        "head": {"ref": "feature", "sha": "aaa"}, "base": {"ref": "main", "sha": "bbb"},
        "draft": false, "merged": true, "comments": 2, "review_comments": 1, "commits": 2,
        "additions": 3, "deletions": 1, "changed_files": 2
    })
}

/// The bookkeeping fields every query carries.
pub(crate) fn query(fields: Value) -> Map<String, Value> {
    let mut q = json!({"id": "q1", "mainResearchGoal": "test", "researchGoal": "test", "reasoning": "test"});
    if let (Some(q), Value::Object(f)) = (q.as_object_mut(), fields) {
        q.extend(f);
    }
    match q {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// A test query, checked against the tool's input schema.
pub(crate) fn assert_fits_input_schema(tool: Tool, query: &Map<String, Value>) {
    crate::exec::testing::assert_fits_input_schema(tool, &Value::Object(query.clone()));
}

pub(crate) use crate::exec::testing::assert_fits_return_schema;

//! Upstreams over streamable HTTP (`url` sources): the fixture server of
//! `tests/fixtures/mcp-servers/growing_server.py`, started by the test on a free loopback port
//! behind a required header, is listed, searched, called, followed when it announces new
//! tools, and reconnected after it dies and comes back, as a stdio upstream would be, and
//! `catalog import --url` writes its tools as catalog files; a header whose variable is unset
//! is a configuration error naming the source, header and variable.

use crate::client::{get, post_json};
use crate::common::{shipped_catalog, toolscout};
use crate::gateway::python;
use crate::server::Server;
use serde_json::{json, Value};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Keyword search only: the server starts fast without the embedding model.
const NO_MODELS: &str = "/nonexistent-models-dir";

/// A loopback port nothing listens on right now.
pub(crate) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// An upstream MCP server process the test started; killed when dropped.
pub(crate) struct HttpUpstream {
    child: Child,
    pub(crate) port: u16,
}

impl HttpUpstream {
    /// Starts `program` with `args` and waits up to 30 s for `port` to accept connections.
    pub(crate) fn start(program: &Path, args: &[String], env: &[(&str, &str)], port: u16) -> Self {
        let child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let mut upstream = HttpUpstream { child, port };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = upstream.child.try_wait().unwrap() {
                panic!(
                    "{} {args:?} exited ({status}) before listening",
                    program.display()
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{} did not listen on port {port} within 30 s",
                program.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        upstream
    }

    /// The server's MCP endpoint.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for HttpUpstream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn growing_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-servers/growing_server.py")
}

/// The growing server over HTTP on `port`, answering only requests with `X-Grow-Key: k3y`.
fn growing_over_http(state: &Path, port: u16) -> HttpUpstream {
    let args = [
        growing_script().to_string_lossy().to_string(),
        state.to_string_lossy().to_string(),
        "--http".into(),
        port.to_string(),
        "--require-header".into(),
        "X-Grow-Key=k3y".into(),
    ];
    HttpUpstream::start(&python(), &args, &[], port)
}

/// `/health` once `upstreams.<source>` is in `state` (sessions start in the background).
pub(crate) async fn health_when(server: &Server, source: &str, state: &str) -> Value {
    let started = Instant::now();
    loop {
        let health = get(server, "/health").await;
        if health.body["upstreams"][source]["state"] == state {
            return health.body;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "upstream {source} not {state} within 20 s: {}",
            health.body["upstreams"]
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_http_upstream_is_served_followed_and_reconnected_like_a_stdio_one() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("tools.json");
    let port = free_port();
    let upstream = growing_over_http(&state, port);
    // Two sources on one server: one sends the header the server wants, one a wrong value.
    let text = format!(
        "[[sources]]\nname = \"grow\"\nkind = \"mcp\"\nurl = {url:?}\nheaders = {{ X-Grow-Key = \"GROW_KEY\" }}\ntimeout_secs = 3\n\n\
         [[sources]]\nname = \"locked\"\nkind = \"mcp\"\nurl = {url:?}\nheaders = {{ X-Grow-Key = \"WRONG_KEY\" }}\ntimeout_secs = 3\n",
        url = upstream.url("/mcp")
    );
    let config = dir.path().join("toolscout.toml");
    std::fs::write(&config, text).unwrap();
    let server = Server::start_env(
        &shipped_catalog(),
        &["--models", NO_MODELS, "--config", config.to_str().unwrap()],
        &[("GROW_KEY", "k3y"), ("WRONG_KEY", "nope")],
    );
    let health = health_when(&server, "grow", "connected").await;
    assert_eq!(health["upstreams"]["grow"]["transport"], "http", "{health}");
    let sources = health["catalog"]["sources"].as_array().unwrap();
    let source = |n: &str| sources.iter().find(|s| s["name"] == n).unwrap().clone();
    assert_eq!(source("grow")["tools"], 2, "{sources:?}");
    let locked = source("locked")["error"].as_str().unwrap_or("").to_string();
    assert!(
        locked.contains("HTTP 401") && locked.contains("check the headers"),
        "{locked}"
    );

    // A call that never comes back is cut at the source's timeout.
    let waited = post_json(&server, "/tools/call/grow.wait", r#"{"queries": [{}]}"#).await;
    assert_eq!(waited.status, 504, "{}", waited.body);
    assert_eq!(
        waited.body["data"]["results"][0]["data"]["errorCode"],
        "mcpTimeout"
    );
    // The server adds a tool and announces it on its SSE stream: served within seconds.
    let grown = post_json(&server, "/tools/call/grow.grow", r#"{"queries": [{}]}"#).await;
    assert_eq!(grown.status, 200, "{}", grown.body);
    let text = &grown.body["data"]["results"][0]["data"]["content"][0]["text"];
    assert_eq!(text, "now 1 extra tools");
    let search =
        json!({"query": "greenhouse humidity", "max_results": 1, "search_mode": "keyword"});
    let asked = Instant::now();
    loop {
        let found = post_json(&server, "/search", search.to_string()).await;
        if found.body["results"][0]["tool_id"] == "grow.extra_1" {
            break;
        }
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "the announced tool was not served within 5 s: {}",
            found.body
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(extra(&server).await.status, 200);
    dies_and_comes_back(&server, upstream, &state).await;
}

/// Calls the growing server's `extra_1` tool, which answers at once.
async fn extra(server: &Server) -> crate::client::Answer {
    post_json(server, "/tools/call/grow.extra_1", r#"{"queries": [{}]}"#).await
}

/// Kills `upstream` under `server`: a clear error, the failure in /health, then the same
/// server started again on its port and reconnected to after the backoff.
async fn dies_and_comes_back(server: &Server, upstream: HttpUpstream, state: &Path) {
    let port = upstream.port;
    drop(upstream);
    let refused = extra(server).await;
    assert_eq!(refused.status, 502, "{}", refused.body);
    let data = &refused.body["data"]["results"][0]["data"];
    assert_eq!(data["errorCode"], "mcpServerUnavailable", "{data}");
    assert!(
        data["error"].as_str().unwrap().contains("source 'grow'"),
        "{data}"
    );
    let health = get(server, "/health").await.body;
    let grow = &health["upstreams"]["grow"];
    assert_eq!(grow["failures"], 1, "{grow}");
    assert!(grow["last_error"].is_string(), "{grow}");
    assert_eq!(health["circuits"]["mcp:grow"]["failures"], 1, "{health}");
    let _upstream = growing_over_http(state, port);
    let mut statuses = Vec::new();
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let answer = extra(server).await;
        statuses.push(answer.status);
        if answer.status == 200 {
            break;
        }
    }
    assert_eq!(statuses.last(), Some(&200), "{statuses:?}");
    let grow = get(server, "/health").await.body["upstreams"]["grow"].clone();
    assert_eq!(grow["state"], "connected", "{grow}");
    assert_eq!(grow["failures"], 0, "{grow}");
    assert!(grow["restarts"].as_u64() >= Some(1), "{grow}");
}

/// What `toolscout search` says on stderr with the configuration `text`; it must exit 2.
fn configuration_error(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolscout.toml");
    std::fs::write(&path, text).unwrap();
    let out = toolscout()
        .args(["--config", path.to_str().unwrap(), "search", "time"])
        .env_remove("TOOLSCOUT_TEST_NO_SUCH_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    stderr
}

#[test]
fn a_header_variable_that_is_unset_is_a_configuration_error_naming_it() {
    let unset = configuration_error(
        "[[sources]]\nname = \"api\"\nkind = \"mcp\"\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { Authorization = \"TOOLSCOUT_TEST_NO_SUCH_TOKEN\" }\n",
    );
    assert!(
        unset.contains("sources[0].headers.Authorization: expected the environment variable TOOLSCOUT_TEST_NO_SUCH_TOKEN to hold the value of header Authorization for source 'api', found it unset"),
        "{unset}"
    );
    let websocket = configuration_error(
        "[[sources]]\nname = \"api\"\nkind = \"mcp\"\nurl = \"ws://127.0.0.1:9/mcp\"\n",
    );
    assert!(
        websocket.contains("sources[0].url: expected an http:// or https:// URL with a host, found \"ws://127.0.0.1:9/mcp\""),
        "{websocket}"
    );
}

#[test]
fn import_over_http_sends_the_headers_read_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let upstream = growing_over_http(&dir.path().join("tools.json"), port);
    let out = dir.path().join("imported");
    let import = |key: Option<&str>| {
        let mut cmd = toolscout();
        cmd.args(["--catalog", shipped_catalog().to_str().unwrap()])
            .args(["catalog", "import", "--url", &upstream.url("/mcp")])
            .args(["--header", "X-Grow-Key=GROW_KEY", "--name", "grow"])
            .args(["--out", out.to_str().unwrap(), "--models", NO_MODELS])
            .env_remove("GROW_KEY");
        if let Some(key) = key {
            cmd.env("GROW_KEY", key);
        }
        cmd.output().unwrap()
    };
    let unset = import(None);
    let stderr = String::from_utf8_lossy(&unset.stderr);
    assert_eq!(unset.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--header X-Grow-Key: expected the environment variable GROW_KEY to hold the value of header X-Grow-Key for source 'grow', found it unset"),
        "{stderr}"
    );
    let refused = import(Some("wrong"));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("HTTP 401"), "{stderr}");
    let imported = import(Some("k3y"));
    let stdout = String::from_utf8_lossy(&imported.stdout);
    assert!(stdout.contains("2 of 2 tools written"), "{stdout}");
    let names: Vec<String> = crate::common::files_under(&out)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    assert!(names.contains(&"grow_grow.json".to_string()), "{names:?}");
    assert!(names.contains(&"grow_wait.json".to_string()), "{names:?}");
}

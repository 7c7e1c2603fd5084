//! A `search_tools` round trip over MCP, through the real binary: over stdio (`toolscout mcp`
//! as a child process, one JSON-RPC line out, the answer's line back) and over streamable
//! HTTP (`toolscout serve`, a POST to `/mcp` in an initialized session, the answer read from
//! its event stream). Beside them, `POST /search` with the same body on the same server, so
//! the MCP transport's own cost shows as a difference in one run.
//!
//! Run: `cargo bench --bench mcp -- --warm-up-time 1 --measurement-time 5` (after
//! `make models`: the model is loaded as `serve` and `mcp` load it). The query repeats, so
//! each trip after the first is a cached search: the figures are the transports' cost.
//!
//! Besides criterion's figures it prints p50s over 200 timed trips of each, in one run.

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const QUERY: &str = "find where a function is called in my project";

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolscout"));
    let catalog = concat!(env!("CARGO_MANIFEST_DIR"), "/catalog");
    cmd.args(["--catalog", catalog, "--log-level", "warn"])
        .env("TOOLSCOUT_LOG_DIR", "")
        .env("TOOLSCOUT_CACHE_DIR", "")
        .stderr(Stdio::null());
    cmd
}

/// `toolscout mcp` with an initialized session.
struct StdioSession {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl StdioSession {
    fn start() -> StdioSession {
        let mut child = bin()
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("toolscout mcp starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut s = StdioSession {
            child,
            input,
            output,
            next_id: 1,
        };
        s.request("initialize", initialize());
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, message: Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    /// Sends a request and reads lines until its answer.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }
}

impl Drop for StdioSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize() -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
}

fn search_call() -> Value {
    json!({"name": "search_tools", "arguments": {"query": QUERY, "max_results": 5}})
}

/// `toolscout serve` on an ephemeral port, and an MCP session on its `/mcp`.
struct Http {
    child: Child,
    base: String,
    session: String,
    client: reqwest::Client,
    next_id: u64,
}

impl Http {
    fn start(rt: &tokio::runtime::Runtime) -> Http {
        let mut child = bin()
            .args(["serve", "--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("toolscout serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line.trim().trim_start_matches("listening on ").to_string();
        let client = reqwest::Client::new();
        let mut http = Http {
            child,
            base,
            session: String::new(),
            client,
            next_id: 1,
        };
        rt.block_on(async {
            let response = http.post(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize()})).await;
            http.session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .expect("a session id")
                .to_string();
            let _ = response.text().await;
            let _ = http
                .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await
                .text()
                .await;
        });
        http
    }

    async fn post(&self, message: Value) -> reqwest::Response {
        let mut request = self
            .client
            .post(format!("{}/mcp", self.base))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(message.to_string());
        if !self.session.is_empty() {
            request = request
                .header("mcp-session-id", &self.session)
                .header("mcp-protocol-version", "2025-06-18");
        }
        request.send().await.expect("POST /mcp")
    }

    /// One `tools/call`, its answer read from the event stream.
    async fn call(&mut self) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message =
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": search_call()});
        let body = self.post(message).await.text().await.unwrap();
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|m| m["id"] == id)
            .expect("the answer on the stream")
    }

    async fn search(&self) -> Value {
        let body = json!({"query": QUERY, "max_results": 5});
        let response = self
            .client
            .post(format!("{}/search", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        response.json().await.unwrap()
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn p50(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..200)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[(times.len() - 1) / 2]
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut stdio = StdioSession::start();
    let mut http = Http::start(&rt);
    let first = stdio.request("tools/call", search_call());
    assert_eq!(first["result"]["isError"], false, "{first}");
    assert_eq!(rt.block_on(http.call())["result"]["isError"], false);

    let mut group = c.benchmark_group("mcp_search_tools");
    group.bench_function("stdio", |b| {
        b.iter(|| stdio.request("tools/call", search_call()))
    });
    group.bench_function("streamable_http", |b| b.iter(|| rt.block_on(http.call())));
    group.bench_function("http_post_search", |b| {
        b.iter(|| rt.block_on(http.search()))
    });
    group.finish();

    let s = p50(|| {
        stdio.request("tools/call", search_call());
    });
    let h = p50(|| {
        rt.block_on(http.call());
    });
    let p = p50(|| {
        rt.block_on(http.search());
    });
    println!(
        "p50 over 200 trips: MCP stdio {:.2} ms, MCP streamable HTTP {:.2} ms, POST /search {:.2} ms \
         (MCP HTTP / POST /search = {:.2}x)",
        s.as_secs_f64() * 1e3,
        h.as_secs_f64() * 1e3,
        p.as_secs_f64() * 1e3,
        h.as_secs_f64() / p.as_secs_f64()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! The JSON-RPC transport against a fake language server that misbehaves: a task on the far
//! end of two in-memory pipes reads the client's requests and writes what a broken server
//! might (malformed headers, a missing, negative or 10 GB `Content-Length`, bodies that are
//! not JSON or not JSON-RPC, unknown, duplicated and out-of-order responses, its own
//! requests and notifications in between, a frame cut off by the end of the stream, a large
//! legal message). The pending request must get its own answer or a clear error, never hang
//! or panic; a connection that cannot be read any further is marked closed, which the pool
//! takes as a dead server to restart (shown at the end with a real child process).

use super::framing::{self, read_message};
use super::rpc::{
    lock, outgoing_queue, read_loop, write_loop, RpcError, Shared, MAX_PROGRESS_TOKENS,
    OUTGOING_FRAMES,
};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream};
use tokio::task::JoinHandle;

const WAIT: Duration = Duration::from_secs(10);

/// The client's side (its `Shared`) and the fake server's two pipe ends.
struct Fake {
    shared: Arc<Shared>,
    /// What the client wrote, read as the server reads it.
    requests: BufReader<DuplexStream>,
    /// What the server writes to the client.
    out: DuplexStream,
}

fn connect() -> Fake {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    let (outgoing, queue) = outgoing_queue();
    let shared = Arc::new(Shared::new(outgoing));
    tokio::spawn(write_loop(client_out, queue));
    tokio::spawn(read_loop(client_in, shared.clone(), json!([])));
    Fake {
        shared,
        requests: BufReader::new(server_in),
        out: server_out,
    }
}

impl Fake {
    /// A request from the client, in flight on its own task.
    fn ask(&self, method: &str) -> JoinHandle<Result<Value, RpcError>> {
        let shared = self.shared.clone();
        let method = method.to_string();
        tokio::spawn(async move { shared.request(&method, json!({}), WAIT).await })
    }

    /// The next message the client sent.
    async fn next(&mut self) -> Value {
        tokio::time::timeout(WAIT, read_message(&mut self.requests))
            .await
            .expect("the client writes in time")
            .expect("the client's frames are readable")
            .expect("the client's stream is open")
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        self.out.write_all(bytes).await.unwrap();
    }

    async fn send(&mut self, message: Value) {
        let frame = framing::encode(&message).unwrap();
        self.send_raw(&frame).await;
    }

    fn closed(&self) -> Option<String> {
        lock(&self.shared.closed).clone()
    }
}

async fn answer_of(task: JoinHandle<Result<Value, RpcError>>) -> Result<Value, RpcError> {
    tokio::time::timeout(WAIT, task)
        .await
        .expect("the request ends in time")
        .expect("the request task does not panic")
}

fn frame_of(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// Each kind of unreadable input fails the waiting request with a clear error naming the
/// problem, marks the connection closed and refuses later requests at once.
#[tokio::test]
async fn unreadable_messages_fail_the_pending_request_and_close_the_connection() {
    let ten_gb = "Content-Length: 10737418240\r\n\r\n".as_bytes().to_vec();
    let long_line = format!("X-Pad: {}\r\n", "a".repeat(10_000)).into_bytes();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("10 GB", ten_gb, "over the"),
        (
            "negative",
            b"Content-Length: -1\r\n\r\n{}".to_vec(),
            "bad Content-Length",
        ),
        (
            "not a number",
            b"Content-Length: twelve\r\n\r\n".to_vec(),
            "bad Content-Length",
        ),
        (
            "missing",
            b"Content-Type: x\r\n\r\n{}".to_vec(),
            "without Content-Length",
        ),
        (
            "malformed header",
            b"Content-Length: 2\r\ngarbage\r\n\r\n{}".to_vec(),
            "malformed header",
        ),
        ("header too long", long_line, "too long"),
        ("not JSON", frame_of("{\"id\": 1, "), "not JSON"),
        (
            "not UTF-8",
            b"Content-Length: 2\r\nX: \xff\xfe\r\n\r\n{}".to_vec(),
            "unreadable",
        ),
        (
            "too deep",
            frame_of(&crate::fuzz_json::deep_text(100_000, false)),
            "recursion limit",
        ),
        (
            "cut short",
            b"Content-Length: 100\r\n\r\n{\"id\"".to_vec(),
            "unreadable",
        ),
    ];
    for (what, bytes, says) in cases {
        let mut fake = connect();
        let pending = fake.ask("textDocument/definition");
        assert_eq!(fake.next().await["method"], "textDocument/definition");
        fake.send_raw(&bytes).await;
        if what == "cut short" {
            drop(fake.out);
            fake.out = tokio::io::duplex(1).0;
        }
        let error = answer_of(pending).await.unwrap_err();
        let RpcError::Closed(why) = &error else {
            panic!("{what}: expected a closed connection, found {error:?}");
        };
        assert!(why.contains(says), "{what}: {why}");
        assert!(fake.closed().is_some(), "{what}: not marked closed");
        let later = fake.shared.request("x", Value::Null, WAIT).await;
        assert!(
            matches!(later, Err(RpcError::Closed(_))),
            "{what}: {later:?}"
        );
    }
}

/// JSON that is not a response to anything (not an object, no id, an unknown, negative,
/// fractional or string id, a response that arrives twice) is ignored: the connection stays
/// open and the request gets its own answer when it comes.
#[tokio::test]
async fn stray_json_is_ignored_and_the_answer_still_arrives() {
    let mut fake = connect();
    let pending = fake.ask("textDocument/references");
    let id = fake.next().await["id"].clone();
    for stray in [
        json!([1, 2, 3]),
        json!(5),
        json!("text"),
        json!(null),
        json!({"jsonrpc": "2.0"}),
        json!({"jsonrpc": "2.0", "id": 999, "result": "not yours"}),
        json!({"jsonrpc": "2.0", "id": -1, "result": "not yours"}),
        json!({"jsonrpc": "2.0", "id": 1.5, "result": "not yours"}),
        json!({"jsonrpc": "2.0", "id": id.to_string(), "result": "a string id"}),
        json!({"jsonrpc": "2.0", "method": 7, "params": "odd"}),
        json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": [], "value": 3}}),
    ] {
        fake.send(stray).await;
    }
    fake.send(json!({"jsonrpc": "2.0", "id": id, "result": ["mine"]}))
        .await;
    fake.send(json!({"jsonrpc": "2.0", "id": id, "result": ["again"]}))
        .await;
    assert_eq!(answer_of(pending).await.unwrap(), json!(["mine"]));
    assert!(fake.closed().is_none());
    // Still usable: a second request and its answer.
    let second = fake.ask("textDocument/hover");
    let id = fake.next().await["id"].clone();
    fake.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": "x", "message": 4}}))
        .await;
    assert_eq!(
        answer_of(second).await.unwrap_err(),
        RpcError::Server {
            code: 0,
            message: r#"a malformed error object: {"code":"x","message":4}"#.into()
        }
    );
    // `"error": null` beside a result: the result.
    let third = fake.ask("textDocument/hover");
    let id = fake.next().await["id"].clone();
    fake.send(json!({"jsonrpc": "2.0", "id": id, "error": null, "result": 3}))
        .await;
    assert_eq!(answer_of(third).await.unwrap(), json!(3));
}

/// Three requests answered in reverse order, with the server's own requests and
/// notifications in between: each request gets its answer, and each server request gets a
/// reply under its own id.
#[tokio::test]
async fn out_of_order_answers_reach_their_requests_among_server_requests() {
    let mut fake = connect();
    let tasks: Vec<_> = ["a", "b", "c"].iter().map(|m| fake.ask(m)).collect();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let request = fake.next().await;
        ids.push((request["id"].clone(), request["method"].clone()));
    }
    let server_requests = [
        json!({"jsonrpc": "2.0", "id": "cfg", "method": "workspace/configuration", "params": {"items": [{}]}}),
        json!({"jsonrpc": "2.0", "id": 77, "method": "window/workDoneProgress/create", "params": {"token": 1}}),
        json!({"jsonrpc": "2.0", "id": [1], "method": "unknown/thing"}),
    ];
    for ((id, method), server_request) in ids.iter().rev().zip(server_requests) {
        fake.send(server_request).await;
        fake.send(json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": "hi"}}))
            .await;
        fake.send(json!({"jsonrpc": "2.0", "id": id, "result": method}))
            .await;
    }
    for (task, (_, method)) in tasks.into_iter().zip(&ids) {
        assert_eq!(&answer_of(task).await.unwrap(), method);
    }
    let mut replies = Vec::new();
    for _ in 0..3 {
        let reply = fake.next().await;
        replies.push((reply["id"].clone(), reply.get("error").is_some()));
    }
    assert_eq!(
        replies,
        [
            (json!("cfg"), false),
            (json!(77), false),
            (json!([1]), true)
        ]
    );
}

/// A large legal message (8 MB of text, sent in small pieces, after a banner line) arrives
/// whole; a frame just over the limit is refused before its body is read.
#[tokio::test]
async fn large_legal_messages_arrive_and_the_limit_holds() {
    let mut fake = connect();
    let pending = fake.ask("workspace/symbol");
    let id = fake.next().await["id"].clone();
    let big = "é".repeat(4 << 20);
    let frame = framing::encode(&json!({"jsonrpc": "2.0", "id": id, "result": big})).unwrap();
    fake.send_raw(b"a banner a server printed\n").await;
    let writer = tokio::spawn(async move {
        for piece in frame.chunks(7_919) {
            fake.out.write_all(piece).await.unwrap();
        }
        fake
    });
    let answer = answer_of(pending).await.unwrap();
    assert_eq!(answer.as_str().map(str::len), Some(big.len()));
    let mut fake = writer.await.unwrap();

    let pending = fake.ask("workspace/symbol");
    let _ = fake.next().await;
    fake.send_raw(format!("Content-Length: {}\r\n\r\n", (64 << 20) + 1).as_bytes())
        .await;
    let error = answer_of(pending).await.unwrap_err();
    assert!(error.to_string().contains("limit"), "{error}");
}

/// A real child process that answers `initialize`, then announces a 10 GB message: the
/// client refuses it, is marked dead with the reason, and the pool starts a new server for
/// the next query instead of handing out the dead one.
#[tokio::test]
async fn a_server_that_sends_an_oversized_message_is_marked_dead_and_restarted() {
    let init = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}"#;
    let script = format!(
        "printf 'Content-Length: {}\\r\\n\\r\\n{init}Content-Length: 10737418240\\r\\n\\r\\n'; exec sleep 30",
        init.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let mut config = crate::config::ExecConfig::for_workspace(dir.path());
    config.lsp_servers.insert(
        "typescript".into(),
        vec!["/bin/sh".into(), "-c".into(), script],
    );
    let servers = super::Servers::new(&config);
    let lang = super::registry::language_for(std::path::Path::new("a.ts")).unwrap();
    let first = servers.acquire(lang, dir.path()).await.unwrap().unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    while first.is_alive() {
        assert!(tokio::time::Instant::now() < deadline, "never marked dead");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let error = first
        .request("textDocument/hover", json!({}))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("10737418240 bytes is over the"),
        "{error}"
    );
    let second = servers.acquire(lang, dir.path()).await.unwrap().unwrap();
    assert!(
        !Arc::ptr_eq(&first, &second),
        "the dead server was handed out again"
    );
}

/// A server that keeps sending requests and never reads our replies: the queue of replies
/// stops at its limit, the connection is closed as hung, and the waiting request says why
/// (instead of memory growing for as long as the server keeps asking).
#[tokio::test]
async fn a_server_that_never_reads_is_closed_at_the_queue_limit() {
    let mut fake = connect();
    let pending = fake.ask("textDocument/definition");
    let _ = fake.next().await;
    let ask = framing::encode(&json!({"jsonrpc": "2.0", "id": 1, "method": "workspace/configuration", "params": {"items": [{}]}})).unwrap();
    // More replies than the pipe and the queue hold together.
    let flood = ask.repeat(OUTGOING_FRAMES + (1 << 16) / 40);
    let out = &mut fake.out;
    let writing = async move {
        let _ = out.write_all(&flood).await;
    };
    let (answer, ()) = tokio::join!(answer_of(pending), writing);
    let error = answer.unwrap_err().to_string();
    assert!(error.contains("stopped reading its input"), "{error}");
    assert!(fake.closed().is_some());
}

/// Progress begun and never ended, under ever new tokens: at most `MAX_PROGRESS_TOKENS` are
/// followed, and the connection stays usable.
#[tokio::test]
async fn endless_progress_tokens_are_bounded() {
    let mut fake = connect();
    for i in 0..3_000 {
        fake.send(json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": i, "value": {"kind": "begin"}}}))
            .await;
    }
    let pending = fake.ask("x");
    let id = fake.next().await["id"].clone();
    fake.send(json!({"jsonrpc": "2.0", "id": id, "result": 1}))
        .await;
    assert_eq!(answer_of(pending).await.unwrap(), json!(1));
    assert_eq!(fake.shared.readiness.borrow().active, MAX_PROGRESS_TOKENS);
}

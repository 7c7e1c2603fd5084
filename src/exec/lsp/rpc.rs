//! The JSON-RPC 2.0 transport under `client`: `Content-Length` framing, request ids, replies
//! routed to the request waiting for them (oneshot channels), requests from the server
//! answered so it never stalls on us (`workspace/configuration`, `client/registerCapability`,
//! `window/workDoneProgress/create`), work-done progress and published diagnostics followed
//! (the signs that a server has loaded its project), and every request bounded by a time
//! limit. The loops here run as tasks over the child's pipes.

use super::framing::{self, read_message};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};

/// Frames waiting for the server to read its input. Our replies to its requests queue here,
/// so a server that keeps asking and never reads would otherwise grow the queue without
/// limit; at the limit the connection is closed as hung.
pub(crate) const OUTGOING_FRAMES: usize = 1024;
/// Work-done progress tokens followed at once; a server that begins more without ending any
/// has its extra ones ignored rather than kept without limit.
pub(crate) const MAX_PROGRESS_TOKENS: usize = 1024;

/// The queue of frames to the server's stdin, bounded (`OUTGOING_FRAMES`).
pub(crate) fn outgoing_queue() -> (mpsc::Sender<Vec<u8>>, mpsc::Receiver<Vec<u8>>) {
    mpsc::channel(OUTGOING_FRAMES)
}

/// Time limit of every request, `initialize` included.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Stderr lines kept: the first few (where errors are usually named) and the last ones.
const STDERR_HEAD: usize = 5;
const STDERR_TAIL: usize = 20;

/// Why a request got no usable answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RpcError {
    /// The process could not be started.
    Spawn(String),
    /// The server answered with a JSON-RPC error.
    Server { code: i64, message: String },
    /// No answer in time.
    Timeout { method: String },
    /// The process is gone or its pipes are closed.
    Closed(String),
}

impl RpcError {
    /// The server is still loading (or its state moved under the request): the same request
    /// is worth repeating shortly.
    pub(crate) fn not_ready(&self) -> bool {
        let RpcError::Server { code, message } = self else {
            return false;
        };
        let m = message.to_ascii_lowercase();
        matches!(code, -32002 | -32801 | -32802)
            || [
                "not initialized",
                "not ready",
                "no project",
                "server not started",
                "content modified",
            ]
            .iter()
            .any(|p| m.contains(p))
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::Spawn(why) => f.write_str(why),
            RpcError::Server { code, message } => {
                write!(f, "the server answered with error {code}: {message}")
            }
            RpcError::Timeout { method } => {
                write!(
                    f,
                    "no answer to {method} within {} s",
                    REQUEST_TIMEOUT.as_secs()
                )
            }
            RpcError::Closed(why) => f.write_str(why),
        }
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

type Reply = oneshot::Sender<Result<Value, RpcError>>;

/// What a server has shown of its loading, for the queries that wait on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Readiness {
    /// Work-done progress tokens begun and not ended.
    pub(crate) active: usize,
    /// Whether any progress ever began.
    pub(crate) begun: bool,
    /// Whether the server published diagnostics: it analysed an open document, which it does
    /// with its project loaded (typescript-language-server sends them from the project's
    /// server, not from the syntax-only one that answers while the project loads).
    pub(crate) diagnosed: bool,
}

impl Readiness {
    /// Whether the server has shown that it has its project: announced work ended, or
    /// diagnostics published. Until then, answers may come from a partial view.
    pub(crate) fn ready(&self) -> bool {
        self.diagnosed || (self.begun && self.active == 0)
    }
}

/// What the client, its reader task and its shutdown share.
pub(crate) struct Shared {
    outgoing: mpsc::Sender<Vec<u8>>,
    pending: Mutex<HashMap<u64, Reply>>,
    next_id: AtomicU64,
    /// Why the connection ended, once it has.
    pub(crate) closed: Mutex<Option<String>>,
    /// Work-done progress tokens the server has begun and not ended.
    progress: Mutex<HashSet<String>>,
    /// What the server has shown of its loading, for waiters.
    pub(crate) readiness: watch::Sender<Readiness>,
}

/// Removes a request's reply slot however the request ends (answered, timed out, cancelled).
struct Forget<'a> {
    shared: &'a Shared,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        lock(&self.shared.pending).remove(&self.id);
    }
}

impl Shared {
    /// Frames written to `outgoing` go to the server's stdin.
    pub(crate) fn new(outgoing: mpsc::Sender<Vec<u8>>) -> Shared {
        Shared {
            outgoing,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            closed: Mutex::new(None),
            progress: Mutex::new(HashSet::new()),
            readiness: watch::Sender::new(Readiness::default()),
        }
    }

    fn closed_error(&self) -> RpcError {
        RpcError::Closed(
            lock(&self.closed)
                .clone()
                .unwrap_or_else(|| "the server's input is closed".into()),
        )
    }

    fn send(&self, message: &Value) -> Result<(), RpcError> {
        let frame = framing::encode(message)
            .map_err(|e| RpcError::Closed(format!("unencodable message: {e}")))?;
        match self.outgoing.try_send(frame) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(_)) => {
                let why = format!(
                    "the language server stopped reading its input ({OUTGOING_FRAMES} messages wait for it)"
                );
                self.close(why.clone());
                Err(RpcError::Closed(why))
            }
            Err(mpsc::error::TrySendError::Closed(_)) => Err(self.closed_error()),
        }
    }

    pub(crate) fn notify(&self, method: &str, params: Value) -> Result<(), RpcError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            // Checked under the same lock `close` drains with, so no request can slip in after
            // the drain and wait for an answer that will never come.
            let mut pending = lock(&self.pending);
            if let Some(why) = lock(&self.closed).clone() {
                return Err(RpcError::Closed(why));
            }
            pending.insert(id, tx);
        }
        let _forget = Forget { shared: self, id };
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message)?;
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(self.closed_error()),
            Err(_) => {
                let _ = self.notify("$/cancelRequest", json!({"id": id}));
                Err(RpcError::Timeout {
                    method: method.to_string(),
                })
            }
        }
    }

    /// Follows `$/progress` begin/end so queries can wait until announced work is done.
    fn progress(&self, params: Option<&Value>) {
        let token = match params.and_then(|p| p.get("token")) {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return,
        };
        let kind = params
            .and_then(|p| p.pointer("/value/kind"))
            .and_then(Value::as_str);
        let mut active = lock(&self.progress);
        match kind {
            Some("begin") if active.len() < MAX_PROGRESS_TOKENS => {
                active.insert(token);
            }
            Some("begin") => return,
            Some("end") => {
                active.remove(&token);
            }
            _ => return,
        }
        let count = active.len();
        self.readiness.send_modify(|r| {
            r.active = count;
            r.begun |= kind == Some("begin");
        });
    }

    fn close(&self, why: String) {
        let mut pending = lock(&self.pending);
        lock(&self.closed).get_or_insert(why);
        let error = self.closed_error();
        for (_, reply) in pending.drain() {
            let _ = reply.send(Err(error.clone()));
        }
    }
}

pub(crate) async fn write_loop(
    mut stdin: impl AsyncWrite + Unpin,
    mut queue: mpsc::Receiver<Vec<u8>>,
) {
    while let Some(frame) = queue.recv().await {
        if stdin.write_all(&frame).await.is_err() || stdin.flush().await.is_err() {
            break;
        }
    }
}

pub(crate) async fn read_loop(stdout: impl AsyncRead + Unpin, shared: Arc<Shared>, folders: Value) {
    let mut reader = BufReader::new(stdout);
    let why = loop {
        match read_message(&mut reader).await {
            Ok(Some(message)) => route(&shared, message, &folders),
            Ok(None) => break "the language server exited".to_string(),
            Err(e) => break format!("the language server sent an unreadable message ({e})"),
        }
    };
    shared.close(why);
}

/// Reads the server's stderr to its end so the pipe never fills, keeping its first and last
/// lines to explain a failure.
pub(crate) async fn drain(stderr: impl AsyncRead + Unpin, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut reader = BufReader::new(stderr);
    loop {
        let mut line = Vec::new();
        match (&mut reader)
            .take(16 * 1024)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line)
                    .trim()
                    .chars()
                    .take(300)
                    .collect::<String>();
                if !text.is_empty() {
                    let mut tail = lock(&tail);
                    if tail.len() == STDERR_HEAD + STDERR_TAIL {
                        tail.remove(STDERR_HEAD);
                    }
                    tail.push_back(text);
                }
            }
        }
    }
}

/// Routes one message from the server: a response to its waiting request, a server request
/// to its answer; of the notifications only progress and the arrival of diagnostics matter
/// (what they say does not), the rest (logs, telemetry) is dropped.
fn route(shared: &Shared, message: Value, folders: &Value) {
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => {
            let reply = match answer(method, message.get("params"), folders) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, text)) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}})
                }
            };
            let _ = shared.send(&reply);
        }
        (None, Some(id)) => {
            let Some(waiting) = id.as_u64().and_then(|id| lock(&shared.pending).remove(&id)) else {
                return;
            };
            // `"error": null` beside a result is a success (some servers send both keys).
            let outcome = match message.get("error").filter(|e| !e.is_null()) {
                Some(error) => Err(server_error(error)),
                None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = waiting.send(outcome);
        }
        (Some("$/progress"), None) => shared.progress(message.get("params")),
        (Some("textDocument/publishDiagnostics"), None) => {
            shared
                .readiness
                .send_if_modified(|r| !std::mem::replace(&mut r.diagnosed, true));
        }
        _ => {}
    }
}

/// A JSON-RPC error object as an `RpcError`. One without the string `message` the protocol
/// asks for is shown as it came (cut to 200 characters), so the caller still learns something.
fn server_error(error: &Value) -> RpcError {
    let message = match error.get("message").and_then(Value::as_str) {
        Some(text) => text.to_string(),
        None => {
            let raw = error.to_string();
            let cut: String = raw.chars().take(200).collect();
            format!("a malformed error object: {cut}")
        }
    };
    RpcError::Server {
        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
        message,
    }
}

/// Answers a request the server sent us. toolscout has no settings to give and applies no
/// edits; it acknowledges registrations and progress tokens so the server proceeds.
fn answer(method: &str, params: Option<&Value>, folders: &Value) -> Result<Value, (i64, String)> {
    match method {
        "workspace/configuration" => {
            let items = params
                .and_then(|p| p.get("items"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            Ok(Value::Array(vec![Value::Null; items]))
        }
        "workspace/workspaceFolders" => Ok(folders.clone()),
        "client/registerCapability"
        | "client/unregisterCapability"
        | "window/workDoneProgress/create"
        | "window/showMessageRequest"
        | "workspace/codeLens/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/diagnostic/refresh" => Ok(Value::Null),
        "workspace/applyEdit" => {
            Ok(json!({"applied": false, "failureReason": "toolscout only reads code"}))
        }
        _ => Err((-32601, format!("toolscout does not handle {method}"))),
    }
}

#[cfg(test)]
#[path = "rpc_tests.rs"]
mod tests;

//! One language server process, in the spirit of helix-lsp: spawned over stdio with
//! `kill_on_drop`, a writer task owning its stdin, a reader task routing its messages
//! (`rpc`), a third task draining stderr (keeping the last lines to explain a failed start)
//! so the pipe never fills; the `initialize` handshake (with `rootUri` and
//! `workspaceFolders`), document sync, and waits for the server to load its project before
//! answers are trusted: announced loading work is waited out before a query, and an answer
//! that came before the server showed it had its project is asked for again once it has.
//! Dropping the client asks the server to shut down and exit, then kills it.

use super::registry::Launch;
use super::rpc::{
    drain, lock, read_loop, write_loop, Readiness, RpcError, Shared, REQUEST_TIMEOUT,
};
use super::text::uri_from_path;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::process::{Child, Command};
use tokio::sync::{watch, OnceCell};

/// How long a dropped server gets to shut down before it is killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// After the first document is opened, how long to wait for the server to announce that it is
/// loading the project (typescript-language-server does so within a second). Servers that
/// never report progress pay this once, on their first query.
const FIRST_PROGRESS_WAIT: Duration = Duration::from_secs(3);
/// How long a query waits for announced work (project loading, indexing) to finish.
const SETTLE_LIMIT: Duration = Duration::from_secs(15);

/// One running language server, initialized for one workspace root.
pub(crate) struct Client {
    shared: Arc<Shared>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Turns true when stderr reached its end (the process closed it, usually by exiting).
    stderr_done: watch::Receiver<bool>,
    /// Set once the first query has given the server its chance to announce loading.
    warmed: OnceCell<()>,
    /// Set when the server showed no sign of loading for `SETTLE_LIMIT` after an answer that
    /// waited for one: it is taken to be a server that never shows any, and its answers are
    /// taken as they come.
    quiet: AtomicBool,
    child: Mutex<Option<Child>>,
    name: String,
    capabilities: Value,
    /// Open documents by URI: (version, hash of the text the server has).
    documents: Mutex<HashMap<String, (i64, u64)>>,
}

impl Client {
    /// Spawns the server in `root` and runs the `initialize` handshake.
    pub(crate) async fn start(launch: &Launch, root: &Path) -> Result<Client, RpcError> {
        let mut child = crate::exec::scrub_env(&mut Command::new(&launch.program))
            .args(&launch.args)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| RpcError::Spawn(format!("{} could not be started: {e}", launch.name())))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(RpcError::Spawn(format!(
                "{} was started without pipes",
                launch.name()
            )));
        };
        let (outgoing, queue) = super::rpc::outgoing_queue();
        let shared = Arc::new(Shared::new(outgoing));
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail_writer = tail.clone();
        let name = root
            .file_name()
            .map_or_else(|| "workspace".into(), |n| n.to_string_lossy().into_owned());
        let folders = json!([{"uri": uri_from_path(root), "name": name}]);
        tokio::spawn(write_loop(stdin, queue));
        tokio::spawn(read_loop(stdout, shared.clone(), folders.clone()));
        let (done, stderr_done) = watch::channel(false);
        tokio::spawn(async move {
            drain(stderr, tail_writer).await;
            let _ = done.send(true);
        });
        let mut client = Client {
            shared,
            stderr: tail,
            stderr_done,
            warmed: OnceCell::new(),
            quiet: AtomicBool::new(false),
            child: Mutex::new(Some(child)),
            name: launch.name(),
            capabilities: Value::Null,
            documents: Mutex::new(HashMap::new()),
        };
        let params = initialize_params(root, folders);
        let answer = client.request("initialize", params).await?;
        client.capabilities = answer.get("capabilities").cloned().unwrap_or(Value::Null);
        client.shared.notify("initialized", json!({}))?;
        Ok(client)
    }

    /// The server program's name, for messages.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Whether the process still runs and its connection is open.
    pub(crate) fn is_alive(&self) -> bool {
        if lock(&self.shared.closed).is_some() {
            return false;
        }
        lock(&self.child)
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// Whether the server announced `capability` (e.g. `callHierarchyProvider`).
    pub(crate) fn supports(&self, capability: &str) -> bool {
        !matches!(
            self.capabilities.get(capability),
            None | Some(Value::Null) | Some(Value::Bool(false))
        )
    }

    /// A request with the standard time limit; failures of a dying server carry the last
    /// line it wrote to stderr.
    pub(crate) async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        match self.shared.request(method, params, REQUEST_TIMEOUT).await {
            Err(RpcError::Closed(why)) => Err(self.explain(why).await),
            other => other,
        }
    }

    /// Adds the server's last stderr line to why it closed, once stderr has been read to its
    /// end (briefly waited for: the exit and the last words arrive on different pipes).
    async fn explain(&self, why: String) -> RpcError {
        let mut done = self.stderr_done.clone();
        let _ = tokio::time::timeout(Duration::from_millis(500), done.wait_for(|d| *d)).await;
        // The line that names the error, not the backtrace printed after it.
        let tail = lock(&self.stderr);
        let says = |l: &&String| {
            let l = l.trim_start().to_ascii_lowercase();
            l.starts_with("error") || l.contains("error:") || l.contains("exception")
        };
        let telling = tail.iter().rev().find(says).or(tail.back());
        match telling {
            Some(line) => RpcError::Closed(format!("{why}; it said: {line}")),
            None => RpcError::Closed(why),
        }
    }

    /// Waits until the server has finished the work it announced (typescript-language-server
    /// loading the project, rust-analyzer indexing): answers given before are partial, e.g.
    /// references from the open file only. The first call also waits briefly for such an
    /// announcement, or diagnostics, to come. `false` when the work was still going on at the
    /// limit.
    pub(crate) async fn settle(&self) -> bool {
        let mut state = self.shared.readiness.subscribe();
        self.warmed
            .get_or_init(|| async {
                let mut shown = self.shared.readiness.subscribe();
                let sign = |r: &Readiness| r.begun || r.diagnosed;
                let _ = tokio::time::timeout(FIRST_PROGRESS_WAIT, shown.wait_for(sign)).await;
            })
            .await;
        let settled = tokio::time::timeout(SETTLE_LIMIT, state.wait_for(|r| r.active == 0)).await;
        settled.is_ok_and(|r| r.is_ok())
    }

    /// A request about one document (`textDocument.uri`, or a call hierarchy `item.uri`).
    /// An answer given before the server showed that it has its project, naming nothing
    /// outside that document, may come from a partial view: typescript-language-server
    /// answers from a syntax-only server while the project loads, so a definition lands on
    /// the import line instead of the other file. Such a query is asked once more when the
    /// server has shown readiness (`wait_ready`). A restarted server on a busy machine,
    /// whose loading announcement came after `settle` stopped waiting for it, thus gives the
    /// answer a warm one would.
    pub(crate) async fn query(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let answer = self.request(method, params.clone()).await?;
        let asked = params
            .pointer("/textDocument/uri")
            .or_else(|| params.pointer("/item/uri"))
            .and_then(Value::as_str);
        let Some(asked) = asked else {
            return Ok(answer);
        };
        let ready = self.shared.readiness.borrow().ready();
        if ready || self.quiet.load(Ordering::Relaxed) || names_other_documents(&answer, asked) {
            return Ok(answer);
        }
        if self.wait_ready().await {
            return self.request(method, params).await;
        }
        Ok(answer)
    }

    /// Waits for the server to show that it has its project: a sign of loading (progress
    /// begun, diagnostics), then the end of announced work, each for up to `SETTLE_LIMIT`.
    /// Both are measured from now, not from the start: on a loaded machine the sign can come
    /// long after the server started. A server that shows no sign at all is marked quiet, so
    /// it costs that wait once.
    async fn wait_ready(&self) -> bool {
        let mut state = self.shared.readiness.subscribe();
        let sign = tokio::time::timeout(SETTLE_LIMIT, state.wait_for(|r| r.begun || r.diagnosed))
            .await
            .is_ok_and(|r| r.is_ok());
        if !sign {
            self.quiet.store(true, Ordering::Relaxed);
            return false;
        }
        tokio::time::timeout(SETTLE_LIMIT, state.wait_for(Readiness::ready))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Makes the server see `text` as the content of `path`: opened the first time, replaced
    /// (full sync) when the file changed since.
    pub(crate) fn sync_document(
        &self,
        path: &Path,
        language_id: &str,
        text: &str,
    ) -> Result<(), RpcError> {
        let uri = uri_from_path(path);
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut hasher);
        let hash = hasher.finish();
        let mut documents = lock(&self.documents);
        match documents.get_mut(&uri) {
            Some((_, known)) if *known == hash => Ok(()),
            Some((version, known)) => {
                *version += 1;
                *known = hash;
                self.shared.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": *version}, "contentChanges": [{"text": text}]}),
                )
            }
            None => {
                documents.insert(uri.clone(), (1, hash));
                self.shared.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": uri, "languageId": language_id, "version": 1, "text": text}}),
                )
            }
        }
    }

    /// Kills the process, as a crash would.
    #[cfg(test)]
    pub(crate) fn kill(&self) {
        if let Some(child) = lock(&self.child).as_mut() {
            let _ = child.start_kill();
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let Some(mut child) = lock(&self.child).take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            let _ = child.start_kill();
            return;
        };
        let shared = self.shared.clone();
        runtime.spawn(async move {
            if lock(&shared.closed).is_none()
                && shared
                    .request("shutdown", Value::Null, SHUTDOWN_GRACE)
                    .await
                    .is_ok()
            {
                let _ = shared.notify("exit", Value::Null);
            }
            if tokio::time::timeout(SHUTDOWN_GRACE, child.wait())
                .await
                .is_err()
            {
                let _ = child.start_kill();
                let _ = child.wait().await;
            }
        });
    }
}

/// Whether `answer` names a document other than `asked` (a `uri` or `targetUri` anywhere in
/// it, as in locations, location links and call hierarchy items).
fn names_other_documents(answer: &Value, asked: &str) -> bool {
    match answer {
        Value::Array(items) => items.iter().any(|v| names_other_documents(v, asked)),
        Value::Object(map) => map.iter().any(|(key, v)| match v {
            Value::String(uri) => (key == "uri" || key == "targetUri") && uri != asked,
            _ => names_other_documents(v, asked),
        }),
        _ => false,
    }
}

fn initialize_params(root: &Path, folders: Value) -> Value {
    json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "toolscout", "version": env!("CARGO_PKG_VERSION")},
        "rootUri": uri_from_path(root),
        "rootPath": root.to_string_lossy(),
        "workspaceFolders": folders,
        "capabilities": {
            "workspace": {"configuration": true, "workspaceFolders": true},
            "textDocument": {
                "synchronization": {"dynamicRegistration": false, "didSave": false, "willSave": false},
                "definition": {"dynamicRegistration": false, "linkSupport": true},
                "references": {"dynamicRegistration": false},
                "callHierarchy": {"dynamicRegistration": false},
                "publishDiagnostics": {"relatedInformation": false}
            },
            "window": {"workDoneProgress": true},
            "general": {"positionEncodings": ["utf-16"]}
        },
        "initializationOptions": {},
        "trace": "off"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_naming_only_the_asked_document_are_told_apart() {
        let asked = "file:///w/src/cli.ts";
        let link = |uri: &str| json!([{"targetUri": uri, "targetRange": {}}]);
        assert!(!names_other_documents(&link(asked), asked));
        assert!(names_other_documents(
            &link("file:///w/src/score.ts"),
            asked
        ));
        assert!(!names_other_documents(&Value::Null, asked));
        assert!(!names_other_documents(&json!([]), asked));
        let calls = json!([{"from": {"name": "main", "uri": "file:///w/src/main.ts"}}]);
        assert!(names_other_documents(&calls, asked));
    }

    #[tokio::test]
    async fn a_missing_program_fails_to_spawn() {
        let launch = Launch {
            program: "/nonexistent/toolscout-test-server".into(),
            args: vec![],
        };
        let dir = tempfile::tempdir().unwrap();
        match Client::start(&launch, dir.path()).await {
            Err(RpcError::Spawn(why)) => assert!(why.contains("toolscout-test-server"), "{why}"),
            Err(other) => panic!("expected a spawn error, got {other}"),
            Ok(_) => panic!("a missing program started"),
        }
    }

    #[tokio::test]
    async fn a_server_that_exits_at_once_reports_its_last_words() {
        let dir = tempfile::tempdir().unwrap();
        let launch = Launch {
            program: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                "echo 'cannot find module typescript' >&2; exit 3".into(),
            ],
        };
        match Client::start(&launch, dir.path()).await {
            Err(RpcError::Closed(why)) => assert!(
                why.contains("exited") && why.contains("cannot find module"),
                "{why}"
            ),
            Err(other) => panic!("expected a closed connection, got {other}"),
            Ok(_) => panic!("an exiting server initialized"),
        }
    }

    #[tokio::test]
    async fn the_error_line_is_found_under_a_long_backtrace() {
        let dir = tempfile::tempdir().unwrap();
        let script = "echo 'error: Unknown binary in this toolchain' >&2; echo >&2; \
            for i in $(seq 1 40); do echo \"  $i: frame::recursion_error\" >&2; done; exit 1";
        let launch = Launch {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
        };
        match Client::start(&launch, dir.path()).await {
            Err(RpcError::Closed(why)) => assert!(
                why.ends_with("it said: error: Unknown binary in this toolchain"),
                "{why}"
            ),
            Err(other) => panic!("expected a closed connection, got {other}"),
            Ok(_) => panic!("an exiting server initialized"),
        }
    }
}

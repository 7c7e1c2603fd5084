//! The LSP tools: go to definition, find references and call hierarchy, answered by language
//! servers that toolscout starts from its registry (never from a request) and keeps running,
//! one per (language, project root), for the next query. When no server is available for a
//! file's language, or the server has no answer, the tools answer from text search instead
//! and say so (`lspMode: "fallback"` plus a hint on what to install); semantic answers carry
//! `lspMode: "semantic"`.
//!
//! Every query goes the same way: the `uri` through the sandbox, the file read, the symbol
//! resolved near `lineHint` (`resolve`), a server acquired from the pool (`Servers`), the
//! document synced, then the tool's requests (`definition`, `references`, `hierarchy`).

mod callgraph;
mod client;
mod declare;
mod definition;
mod fallback;
mod framing;
#[cfg(test)]
mod fuzz_tests;
mod hierarchy;
mod references;
mod registry;
mod resolve;
mod rpc;
mod text;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_fallback;
#[cfg(test)]
mod tests_framing;

use super::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use super::{parse_query, Context, Tool};
use crate::config::ExecConfig;
use client::Client;
use registry::{Language, Registry};
use resolve::{Resolved, Syntax};
use rpc::RpcError;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Files whose presence makes a directory a project root, the root a server is started in.
const PROJECT_MARKERS: &[&str] = &[
    "package.json",
    "tsconfig.json",
    "Cargo.toml",
    "pyproject.toml",
    "go.mod",
    ".git",
];
/// Servers kept running at once; the least recently used idle one is stopped beyond that.
const MAX_SERVERS: usize = 8;
/// Failed starts in a row after which a server is given up on for `START_COOLDOWN`: its
/// queries get the text fallback instead of the same start error again and again.
const START_FAILURES: u32 = 2;
const START_COOLDOWN: std::time::Duration = std::time::Duration::from_secs(60);

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Client>>>>;
/// A server's pool key: (language key, project root).
type Key = (&'static str, PathBuf);

/// The running language servers, one per (language, workspace root), started on demand,
/// reused, and restarted when their process died.
pub struct Servers {
    registry: Registry,
    /// The allowed roots, canonical: a project root is never looked for above them.
    roots: Vec<PathBuf>,
    /// Each key's slot and when it was last used.
    slots: Mutex<HashMap<Key, (Slot, Instant)>>,
    /// Starts that failed in a row, per key: how many, when last, and why.
    failures: Mutex<HashMap<Key, (u32, Instant, String)>>,
}

impl Servers {
    pub fn new(config: &ExecConfig) -> Servers {
        Servers {
            registry: Registry::new(config),
            roots: config
                .roots()
                .map(|r| r.canonicalize().unwrap_or_else(|_| r.to_path_buf()))
                .collect(),
            slots: Mutex::new(HashMap::new()),
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// The directory a server for `file` runs in: the nearest ancestor with a project marker,
    /// not above the allowed root that holds the file (that root itself when none has one).
    fn project_root(&self, file: &Path) -> PathBuf {
        let bound = self
            .roots
            .iter()
            .filter(|r| file.starts_with(r))
            .max_by_key(|r| r.as_os_str().len());
        let start = file.parent().unwrap_or(file);
        for dir in start.ancestors() {
            if PROJECT_MARKERS.iter().any(|m| dir.join(m).exists()) {
                return dir.to_path_buf();
            }
            if Some(dir) == bound.map(PathBuf::as_path) {
                break;
            }
        }
        bound.cloned().unwrap_or_else(|| start.to_path_buf())
    }

    fn slot(&self, key: &'static str, root: &Path) -> Slot {
        let mut slots = lock(&self.slots);
        let now = Instant::now();
        if let Some((slot, used)) = slots.get_mut(&(key, root.to_path_buf())) {
            *used = now;
            return slot.clone();
        }
        if slots.len() >= MAX_SERVERS {
            // Only an idle slot (no query holds or waits for it) is stopped.
            let idle = slots
                .iter()
                .filter(|(_, (slot, _))| Arc::strong_count(slot) == 1 && slot.try_lock().is_ok())
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            if let Some(k) = idle {
                slots.remove(&k);
            }
        }
        let slot: Slot = Arc::default();
        slots.insert((key, root.to_path_buf()), (slot.clone(), now));
        slot
    }

    /// A ready server for `lang` in `root`, or why none can be had. A start runs in its own
    /// task, so a query that gives up (timeout) does not kill a server that is still loading:
    /// the next query finds it ready. A failed start is a transient error (the framework
    /// retries); after `START_FAILURES` in a row the server counts as unavailable for
    /// `START_COOLDOWN`.
    async fn acquire(
        &self,
        lang: &'static Language,
        root: &Path,
    ) -> Result<Result<Arc<Client>, String>, QueryError> {
        let launch = match self.registry.resolve(lang) {
            Ok(launch) => launch,
            Err(why) => return Ok(Err(why)),
        };
        let key: Key = (lang.key, root.to_path_buf());
        if let Some((count, last, why)) = lock(&self.failures).get(&key) {
            if *count >= START_FAILURES && last.elapsed() < START_COOLDOWN {
                return Ok(Err(format!(
                    "The {} language server ({}) failed to start {count} times in a row ({why}); it is tried again {} s after the last failure. Check its installation or tools.lsp_servers.{}",
                    lang.name,
                    launch.name(),
                    START_COOLDOWN.as_secs(),
                    lang.key
                )));
            }
        }
        let mut held = self.slot(lang.key, root).lock_owned().await;
        if let Some(client) = held.as_ref().filter(|c| c.is_alive()) {
            return Ok(Ok(client.clone()));
        }
        *held = None;
        let root = root.to_path_buf();
        let start = tokio::spawn(async move {
            let client = Arc::new(Client::start(&launch, &root).await?);
            *held = Some(client.clone());
            Ok::<_, RpcError>(client)
        });
        let outcome = start.await.unwrap_or_else(|e| {
            Err(RpcError::Spawn(format!(
                "the start stopped unexpectedly: {e}"
            )))
        });
        let mut failures = lock(&self.failures);
        match outcome {
            Ok(client) => {
                failures.remove(&key);
                Ok(Ok(client))
            }
            Err(e) => {
                let entry = failures
                    .entry(key)
                    .or_insert((0, Instant::now(), String::new()));
                *entry = (entry.0 + 1, Instant::now(), e.to_string());
                Err(start_failed(lang, e))
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn start_failed(lang: &Language, e: RpcError) -> QueryError {
    let failure = match e {
        RpcError::Timeout { .. } => Failure::Timeout,
        _ => Failure::Upstream { transient: true },
    };
    QueryError::new(failure, ToolErrorCode::LspStartFailed, format!("The {} language server did not start: {e}", lang.name))
        .hint(format!(
            "Check that the server runs on its own; its command comes from tools.lsp_servers.{} or the built-in registry",
            lang.key
        ))
        .hint("localSearchCode finds definitions and usages by text meanwhile")
}

/// A request's failure as the agent sees it: transient when the server is loading, gone or
/// slow (the framework retries); `None` when the server answered with an error that a text
/// search can stand in for.
fn rpc_failure(client: &Client, e: &RpcError) -> Option<QueryError> {
    let (failure, code) = match e {
        RpcError::Timeout { .. } => (Failure::Timeout, ToolErrorCode::LspTimeout),
        RpcError::Closed(_) | RpcError::Spawn(_) => (
            Failure::Upstream { transient: true },
            ToolErrorCode::LspServerExited,
        ),
        RpcError::Server { .. } if e.not_ready() => (
            Failure::Upstream { transient: true },
            ToolErrorCode::LspNotReady,
        ),
        RpcError::Server { .. } => return None,
    };
    Some(
        QueryError::new(failure, code, format!("{}: {e}", client.name()))
            .hint("The query is retried; the server is restarted if it exited"),
    )
}

/// The file and symbol a query is about.
pub(crate) struct Target {
    pub(crate) path: PathBuf,
    pub(crate) text: Arc<String>,
    pub(crate) language: Option<&'static Language>,
    pub(crate) syntax: Syntax,
    pub(crate) symbol: String,
    pub(crate) at: Resolved,
}

impl Target {
    /// The LSP position of the symbol.
    pub(crate) fn position(&self) -> Value {
        json!({"line": self.at.line, "character": self.at.character})
    }

    pub(crate) fn document(&self) -> Value {
        json!({"uri": text::uri_from_path(&self.path)})
    }
}

/// Validates the path, reads the file and resolves the symbol.
pub(crate) fn prepare(
    ctx: &Context,
    uri: &str,
    symbol: &str,
    line_hint: usize,
    order_hint: usize,
) -> Result<Target, QueryError> {
    let raw = text::path_of_argument(uri)?;
    let path = ctx.sandbox.resolve_as(&raw, uri)?;
    let text = Arc::new(text::read_source(&ctx.sandbox, &path, uri)?);
    let language = registry::language_for(&path);
    let syntax = language.map_or(resolve::C_LIKE, |l| l.syntax);
    let at = resolve::resolve(&text, symbol, line_hint, order_hint, &syntax)
        .map_err(|e| e.detail("uri", ctx.sandbox.display(&path)))?;
    Ok(Target {
        path,
        text,
        language,
        syntax,
        symbol: symbol.to_string(),
        at,
    })
}

/// Who answers a query.
pub(crate) enum Answerer {
    Server(Arc<Client>),
    /// Text search, and the hint that says why.
    Text(String),
}

/// A server for the target's language with the target document open, or the text fallback.
pub(crate) async fn connect(ctx: &Context, target: &Target) -> Result<Answerer, QueryError> {
    let Some(lang) = target.language else {
        let ext = target
            .path
            .extension()
            .map_or_else(|| "(none)".into(), |e| format!(".{}", e.to_string_lossy()));
        return Ok(Answerer::Text(format!(
            "No language server is known for {ext} files, so these results come from text search (lspMode=fallback), not from code analysis"
        )));
    };
    let root = ctx.lsp.project_root(&target.path);
    match ctx.lsp.acquire(lang, &root).await? {
        Ok(client) => {
            client
                .sync_document(&target.path, lang.language_id(&target.path), &target.text)
                .map_err(|e| {
                    rpc_failure(&client, &e).unwrap_or_else(|| {
                        QueryError::new(
                            Failure::Upstream { transient: true },
                            ToolErrorCode::LspServerExited,
                            e.to_string(),
                        )
                    })
                })?;
            if !client.settle().await {
                return Err(QueryError::new(
                    Failure::Upstream { transient: true },
                    ToolErrorCode::LspNotReady,
                    format!(
                        "{} is still loading the project; its answers would be incomplete",
                        client.name()
                    ),
                )
                .hint("Ask again in a few seconds: the server keeps loading in the background"));
            }
            Ok(Answerer::Server(client))
        }
        Err(why) => Ok(Answerer::Text(format!(
            "{why}. These results come from text search (lspMode=fallback), not from code analysis"
        ))),
    }
}

/// Sends one query (asked again when the first answer came from a server still loading its
/// project: [`Client::query`]). `Ok(Err(hint))` when the server answered with an error a text
/// search can stand in for.
pub(crate) async fn ask(
    client: &Client,
    method: &str,
    params: Value,
) -> Result<Result<Value, String>, QueryError> {
    match client.query(method, params).await {
        Ok(value) => Ok(Ok(value)),
        Err(e) => match rpc_failure(client, &e) {
            Some(error) => Err(error),
            None => Ok(Err(format!(
                "{} could not answer {method} ({e}), so these results come from text search",
                client.name()
            ))),
        },
    }
}

/// The (uri, range) pairs of a `Location`, `Location[]` or `LocationLink[]` answer; a link's
/// `targetSelectionRange` (the name) is preferred over its whole `targetRange`.
pub(crate) fn locations(answer: &Value) -> Vec<(String, Value)> {
    let items: Vec<&Value> = match answer {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![answer],
        _ => Vec::new(),
    };
    let mut out: Vec<(String, Value)> = Vec::new();
    for item in items {
        let (uri, range) = match item.get("targetUri") {
            Some(uri) => (
                uri,
                item.get("targetSelectionRange")
                    .or_else(|| item.get("targetRange")),
            ),
            None => match item.get("uri") {
                Some(uri) => (uri, item.get("range")),
                None => continue,
            },
        };
        if let (Some(uri), Some(range)) = (uri.as_str(), range.filter(|r| r.get("start").is_some()))
        {
            let pair = (uri.to_string(), range.clone());
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
    }
    out
}

/// The local path of a URI a server returned, when the sandbox lets the agent see it; else the
/// bare file name (never the full path: it may be outside every allowed root).
pub(crate) fn visible(ctx: &Context, uri: &str) -> Result<PathBuf, String> {
    let Some(path) = text::path_from_uri(uri) else {
        return Err(uri.rsplit('/').next().unwrap_or(uri).to_string());
    };
    ctx.sandbox.resolve(&path.to_string_lossy()).map_err(|_| {
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    })
}

/// The hint for results left out because they lie outside the allowed directories.
pub(crate) fn hidden_hint(hidden: &[String], what: &str) -> Option<String> {
    if hidden.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = hidden.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let shown: Vec<&str> = names.iter().take(5).copied().collect();
    Some(format!(
        "{} {what} outside the allowed directories (library or generated code such as {}) are not shown",
        hidden.len(),
        shown.join(", ")
    ))
}

/// `{line, character}` as JSON.
pub(crate) fn position(line: usize, character: usize) -> Value {
    json!({"line": line, "character": character})
}

/// A range on one line.
pub(crate) fn line_range(line: usize, start: usize, end: usize) -> Value {
    json!({"start": position(line, start), "end": position(line, end)})
}

/// The 0-based start line of an LSP range.
pub(crate) fn start_line(range: &Value) -> usize {
    range
        .pointer("/start/line")
        .and_then(Value::as_u64)
        .unwrap_or(0) as usize
}

/// The mode field and, for fallback, the hint that says why, first among the hints.
pub(crate) fn mode(answerer_hint: Option<&str>, hints: &mut Vec<String>) -> &'static str {
    match answerer_hint {
        Some(why) => {
            hints.insert(0, why.to_string());
            "fallback"
        }
        None => "semantic",
    }
}

pub(crate) async fn run(
    ctx: &Context,
    tool: Tool,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    match tool {
        Tool::LspGotoDefinition => definition::run(ctx, parse_query(query)?).await,
        Tool::LspFindReferences => references::run(ctx, parse_query(query)?).await,
        Tool::LspCallHierarchy => hierarchy::run(ctx, parse_query(query)?).await,
        other => Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::WrongFamily,
            format!("{} is not an LSP tool", other.name()),
        )),
    }
}

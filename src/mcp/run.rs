//! Running catalog tools over MCP: `call_tool` (and, with `--expose-tools`, each tool under its
//! own name) through `Service::call_tool`, the executor, sandbox and redaction HTTP uses.
//! Adds what only MCP has: progress notifications per finished query when the client sent a
//! progress token, the per-session `--require-discovery` policy, and log messages to a
//! client that asked for them with `logging/setLevel`.

#![allow(deprecated)] // log notifications: see `mod.rs`

use super::calls::{answer, required_name, Answered};
use super::listing::{DESCRIBE, RECOMMEND, SEARCH};
use super::Handler;
use crate::error::{Error, Result, Violation};
use rmcp::model::{CallToolResult, LoggingMessageNotificationParam, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

impl Handler {
    /// Notes every `tool_id` of a discovery answer as discovered in this session.
    pub(super) fn remember(&self, answer: &Value) {
        let mut ids = Vec::new();
        collect_ids(answer, &mut ids);
        if let Ok(mut set) = self.session.discovered.lock() {
            set.extend(ids);
        }
    }

    pub(super) fn remember_id(&self, id: &str) {
        if let Ok(mut set) = self.session.discovered.lock() {
            set.insert(id.to_string());
        }
    }

    fn was_discovered(&self, id: &str) -> bool {
        self.session
            .discovered
            .lock()
            .map(|set| set.contains(id))
            .unwrap_or(false)
    }
}

fn collect_ids(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("tool_id", Value::String(id)) => out.push(id.clone()),
                    _ => collect_ids(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_ids(v, out)),
        _ => {}
    }
}

/// `call_tool {name, queries}`: the body HTTP's `POST /tools/call/{name}` takes is the
/// arguments without `name`.
pub(super) async fn call_tool(
    handler: &Handler,
    args: &Value,
    context: &RequestContext<RoleServer>,
) -> Result<Answered> {
    let name = required_name(args, &["name", "queries"])?;
    if handler.options.require_discovery {
        check_discovered(handler, name)?;
    }
    let mut body: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    body.remove("name");
    run(handler, name, &Value::Object(body), context).await
}

/// Refuses a tool no discovery answer of this session returned, saying what to call first.
fn check_discovered(handler: &Handler, name: &str) -> Result<()> {
    let id = handler
        .service
        .catalog()
        .find(name)
        .map(|t| t.tool_id.clone());
    match id {
        Some(id) if handler.was_discovered(&id) => Ok(()),
        // An unknown name is left for the service to report with its suggestions.
        None => Ok(()),
        Some(id) => Err(Error::Validation {
            what: "call_tool arguments".into(),
            violations: vec![Violation {
                pointer: "/name".into(),
                message: format!(
                    "expected a tool this session discovered, found {name} ({id}), which no \
                     {SEARCH}, {RECOMMEND} or {DESCRIBE} has returned yet; call {DESCRIBE} \
                     with {{\"name\": \"{name}\"}} (or {SEARCH} for your need) first: this \
                     server requires discovery before a call"
                ),
            }],
        }),
    }
}

/// Runs `name` on `body` (`{"queries": [...]}`), reporting progress per finished query when
/// the client sent a progress token. A call whose every query failed is an error result.
pub(super) async fn run(
    handler: &Handler,
    name: &str,
    body: &Value,
    context: &RequestContext<RoleServer>,
) -> Result<Answered> {
    let total = body
        .get("queries")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let token = context.meta.get_progress_token();
    // Progress goes out from a task of its own: the callback runs inside the executor and
    // must not wait. The channel holds one slot per query (at most five).
    let (tx, mut rx) = tokio::sync::mpsc::channel::<usize>(total.max(1));
    let forwarder = token.map(|token| {
        let peer = context.peer.clone();
        tokio::spawn(async move {
            let note = |done: usize| {
                ProgressNotificationParam::new(token.clone(), done as f64)
                    .with_total(total as f64)
                    .with_message(format!("{done} of {total} queries finished"))
            };
            let _ = peer.notify_progress(note(0)).await;
            while let Some(done) = rx.recv().await {
                let _ = peer.notify_progress(note(done)).await;
            }
        })
    });
    let finished = AtomicUsize::new(0);
    let on_done = || {
        let done = finished.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = tx.try_send(done);
    };
    let outcome = handler
        .service
        .call_tool_observed(name, body, &on_done)
        .await;
    drop(tx);
    if let Some(forwarder) = forwarder {
        let _ = forwarder.await;
    }
    let result = outcome?;
    let structured = result.to_json();
    let text = serde_json::to_string_pretty(&structured).unwrap_or_default();
    let mut out = answer(structured, text);
    if !result.success() {
        out.is_error = Some(true);
    }
    Ok(Answered {
        result: out,
        status: result.http_status(),
    })
}

/// An upstream tool exposed under its own id: its arguments are one query, and its server's
/// result comes back as the server gave it (content, structured content, `isError`), so the
/// tool's own output schema holds. toolscout's checks and failures (a bad argument, a server
/// that is down) are error results with the query's error text.
pub(super) async fn proxy(
    handler: &Handler,
    id: &str,
    args: Value,
    context: &RequestContext<RoleServer>,
) -> Result<Answered> {
    let body = json!({ "queries": [args] });
    let answered = run(handler, id, &body, context).await?;
    let envelope = answered
        .result
        .structured_content
        .clone()
        .unwrap_or_default();
    let item = &envelope["data"]["results"][0];
    let result = if item["status"] == "error" {
        let text = item["data"]["error"].as_str().unwrap_or("the call failed");
        let mut failed = CallToolResult::error(vec![rmcp::model::ContentBlock::text(text)]);
        failed.structured_content = None;
        failed
    } else {
        serde_json::from_value::<CallToolResult>(item["data"].clone())
            .map_err(|e| Error::Internal(format!("an upstream result did not read back: {e}")))?
    };
    Ok(Answered {
        result,
        status: answered.status,
    })
}

/// Tells a client that asked for logs how a call went: failures at `warning`, every call at
/// `info`.
pub(super) async fn log_outcome(
    handler: &Handler,
    tool: &str,
    result: &CallToolResult,
    context: &RequestContext<RoleServer>,
) {
    use rmcp::model::LoggingLevel;
    let failed = result.is_error == Some(true);
    let level = if failed {
        LoggingLevel::Warning
    } else {
        LoggingLevel::Info
    };
    let rank = |l: LoggingLevel| l as u8;
    let wanted = handler.session.log_level.lock().ok().and_then(|l| *l);
    let Some(wanted) = wanted else { return };
    if rank(level) < rank(wanted) {
        return;
    }
    let data = json!({ "tool": tool, "is_error": failed });
    let _ = context
        .peer
        .notify_logging_message(
            LoggingMessageNotificationParam::new(level, data).with_logger("toolscout"),
        )
        .await;
}

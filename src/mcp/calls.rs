//! `tools/call`: each meta-tool is one call on the service, rendered twice: the JSON answer as
//! `structuredContent` (what HTTP sends for the same body with `response_format: json`) and
//! a text for the model (concise Markdown unless the arguments ask otherwise). A problem the
//! caller can fix is a result with `isError: true` whose text is HTTP's `ErrorDetail`.

use super::listing::{CALL, COMPARE, DESCRIBE, RATE, RECOMMEND, SEARCH};
use super::{run, Handler};
use crate::catalog::ToolRecord;
use crate::error::{Error, Result, Violation};
use crate::format::{
    compare_markdown, render_recommend, render_search, DetailLevel, Presentation, Rendered,
    ResponseFormat,
};
use crate::service::log::Entry;
use crate::service::Caller;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{json, Value};
use std::fmt::Write;
use std::time::Instant;

/// Runs one `tools/call`. An unknown MCP tool name is a protocol error (the spec's -32602);
/// everything else answers with a result. Cancellation by the client stops the work.
pub(super) async fn call(
    handler: &Handler,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> std::result::Result<CallToolResult, ErrorData> {
    let args = Value::Object(request.arguments.unwrap_or_default());
    let name = request.name.as_ref();
    let ct = context.ct.clone();
    let started = Instant::now();
    let caller = Caller {
        request_id: Some(Caller::new_id()),
        session_id: Some(handler.session.id.clone()),
    };
    let work = caller.scope(async {
        match name {
            SEARCH => Some(search(handler, &args).await.map(Answered::ok)),
            RECOMMEND => Some(recommend(handler, &args).await.map(Answered::ok)),
            COMPARE => Some(compare(handler, &args).await.map(Answered::ok)),
            DESCRIBE => Some(describe(handler, &args).await.map(Answered::ok)),
            CALL => Some(run::call_tool(handler, &args, &context).await),
            RATE => Some(rate(handler, &args).map(Answered::ok)),
            other if handler.options.expose_tools && is_runnable(handler, other) => {
                Some(run::run(handler, other, &args, &context).await)
            }
            other if handler.options.expose_tools && is_upstream(handler, other) => {
                Some(run::proxy(handler, other, args.clone(), &context).await)
            }
            _ => None,
        }
    });
    let outcome = tokio::select! {
        outcome = work => outcome,
        () = ct.cancelled() => {
            return Err(ErrorData::internal_error("the client cancelled the call", None));
        }
    };
    match outcome {
        Some(outcome) => {
            let (answered, error) = match outcome {
                Ok(answered) => (answered, None),
                Err(e) => {
                    let result = failure(operation(name), &e);
                    let status = e.status();
                    (Answered { result, status }, Some(e))
                }
            };
            record(
                handler,
                &context,
                (name, &args),
                (&answered, error.as_ref()),
                started,
            );
            run::log_outcome(handler, name, &answered.result, &context).await;
            Ok(answered.result)
        }
        None => Err(ErrorData::invalid_params(
            format!(
                "unknown tool {name:?}; this server's tools: {}",
                super::listing::tools(&handler.service, handler.options)
                    .iter()
                    .map(|t| t.name.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None,
        )),
    }
}

/// A result and the HTTP status the same outcome has over HTTP, for the request log.
pub(super) struct Answered {
    pub(super) result: CallToolResult,
    pub(super) status: u16,
}

impl Answered {
    fn ok(result: CallToolResult) -> Answered {
        Answered {
            result,
            status: 200,
        }
    }
}

/// One log line for the call, in the request log HTTP writes: `method` `tools/call`, `route`
/// `mcp`, `path` the MCP tool, `tool` the catalog tool it is about.
fn record(
    handler: &Handler,
    context: &RequestContext<RoleServer>,
    (name, args): (&str, &Value),
    (answered, error): (&Answered, Option<&Error>),
    started: Instant,
) {
    let id = match serde_json::to_value(&context.id) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    };
    let tool = match name {
        CALL | DESCRIBE => args.get("name").and_then(Value::as_str),
        SEARCH | RECOMMEND | COMPARE => None,
        other => Some(other),
    };
    let message = error.map(Error::public_message);
    let cause = error
        .filter(|e| e.status() >= 500)
        .map(|e| format!("{e:?}"));
    handler.log.record(&Entry {
        timestamp: crate::time::now_rfc3339_millis(),
        request_id: &format!("mcp-{id}"),
        method: "tools/call",
        route: Some("mcp"),
        path: name,
        status: answered.status,
        duration_ms: (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
        tool,
        error_code: error.map(Error::code),
        error_message: message.as_deref(),
        cause: cause.as_deref(),
    });
}

/// A builtin tool this server runs, by execution name (a lookup, no copies: every exposed
/// call asks).
fn is_runnable(handler: &Handler, name: &str) -> bool {
    handler.service.executor().resolve(name).is_ok()
}

/// An upstream server's tool, by id.
fn is_upstream(handler: &Handler, id: &str) -> bool {
    handler
        .service
        .catalog()
        .get(id)
        .and_then(|t| t.execution.as_ref())
        .is_some_and(|e| e.kind == "mcp")
}

/// The operation an `ErrorDetail` names: HTTP's, so the same mistake reads the same.
fn operation(tool: &str) -> &'static str {
    match tool {
        SEARCH => "search",
        RECOMMEND => "recommend",
        COMPARE => "compare",
        DESCRIBE => "tools.info",
        _ => "tools.call",
    }
}

/// A user-fixable problem as a tool result: HTTP's error envelope as structured content,
/// its `ErrorDetail` as the text.
pub(super) fn failure(operation: &str, error: &Error) -> CallToolResult {
    if error.status() >= 500 {
        tracing::error!(code = error.code(), operation, cause = ?error, "MCP call failed");
    }
    let detail = error.detail(operation, None);
    let text = serde_json::to_string_pretty(&detail).unwrap_or_default();
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({ "success": false, "error": detail }));
    result
}

/// A successful answer: `structured` as structured content, `text` for the model.
pub(super) fn answer(structured: Value, text: String) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// What the arguments ask to see, with MCP's defaults: Markdown and concise, since the
/// reader is a model's context. Read after the service has validated the arguments.
fn shown(args: &Value) -> Presentation {
    Presentation {
        response_format: match args.get("response_format").and_then(Value::as_str) {
            Some("json") => ResponseFormat::Json,
            _ => ResponseFormat::Markdown,
        },
        detail_level: match args.get("detail_level").and_then(Value::as_str) {
            Some("detailed") => DetailLevel::Detailed,
            _ => DetailLevel::Concise,
        },
    }
}

/// The structured JSON and the text of one answer, from its renderer.
fn rendered(
    render: impl Fn(Presentation) -> Result<Rendered>,
    args: &Value,
) -> Result<(Value, String)> {
    let asked = shown(args);
    let structured = match render(Presentation {
        response_format: ResponseFormat::Json,
        ..asked
    })? {
        Rendered::Json(value) => value,
        Rendered::Markdown(_) => return Err(Error::Internal("JSON rendered as Markdown".into())),
    };
    let text = match asked.response_format {
        ResponseFormat::Json => serde_json::to_string_pretty(&structured).unwrap_or_default(),
        ResponseFormat::Markdown => render(asked)?.to_text(),
    };
    Ok((structured, text))
}

async fn search(handler: &Handler, args: &Value) -> Result<CallToolResult> {
    let answer_ = handler.service.search(args).await?;
    let (structured, text) = rendered(|p| render_search(&answer_.response, p), args)?;
    handler.remember(&structured);
    Ok(answer(structured, text))
}

async fn recommend(handler: &Handler, args: &Value) -> Result<CallToolResult> {
    let answer_ = handler.service.recommend(args).await?;
    let (structured, text) = rendered(|p| render_recommend(&answer_.response, p), args)?;
    handler.remember(&structured);
    Ok(answer(structured, text))
}

async fn compare(handler: &Handler, args: &Value) -> Result<CallToolResult> {
    let answer_ = handler.service.compare(args).await?;
    let structured =
        serde_json::to_value(&answer_.response).map_err(|e| Error::Internal(e.to_string()))?;
    let text = match shown(args).response_format {
        ResponseFormat::Json => serde_json::to_string_pretty(&structured).unwrap_or_default(),
        ResponseFormat::Markdown => compare_markdown(&answer_.response),
    };
    Ok(answer(structured, text))
}

/// `rate_tool`: the feedback `POST /feedback` takes, recorded for this session.
fn rate(handler: &Handler, args: &Value) -> Result<CallToolResult> {
    let receipt = handler.service.feedback(args)?;
    let structured = serde_json::to_value(&receipt).map_err(|e| Error::Internal(e.to_string()))?;
    let text = format!(
        "Recorded: {} for {}.",
        receipt.signal.as_str(),
        receipt.tool_id
    );
    Ok(answer(structured, text))
}

async fn describe(handler: &Handler, args: &Value) -> Result<CallToolResult> {
    let name = required_name(args, &["name", "response_format"])?;
    if let Some(v) = args.get("response_format") {
        if !matches!(v.as_str(), Some("json" | "markdown")) {
            return Err(Error::Validation {
                what: "arguments".into(),
                violations: vec![Violation {
                    pointer: "/response_format".into(),
                    message: format!(
                        "expected \"json\" or \"markdown\", found {}",
                        crate::schema::show(v)
                    ),
                }],
            });
        }
    }
    let tool = handler.service.describe_tool(name)?;
    let tool = handler.service.with_usage(tool).await;
    let structured = serde_json::to_value(&tool).map_err(|e| Error::Internal(e.to_string()))?;
    handler.remember_id(&tool.tool_id);
    let text = match shown(args).response_format {
        ResponseFormat::Json => serde_json::to_string_pretty(&structured).unwrap_or_default(),
        ResponseFormat::Markdown => describe_markdown(&tool),
    };
    Ok(answer(structured, text))
}

/// `args.name` as a non-empty string, or a violation naming what was found; `allowed` are
/// the only properties the arguments may have.
pub(super) fn required_name<'a>(args: &'a Value, allowed: &[&str]) -> Result<&'a str> {
    let mut violations = Vec::new();
    let v = |pointer: &str, message: String| Violation {
        pointer: pointer.to_string(),
        message,
    };
    if let Some(map) = args.as_object() {
        for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
            violations.push(v(
                &format!("/{key}"),
                format!("expected only {allowed:?}, found unknown property {key}"),
            ));
        }
    }
    let name = match args.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.as_str()),
        Some(other) => {
            violations.push(v(
                "/name",
                format!(
                    "expected a tool name (non-empty string), found {}",
                    crate::schema::show(other)
                ),
            ));
            None
        }
        None => {
            violations.push(v(
                "",
                "expected required property name, found it missing".into(),
            ));
            None
        }
    };
    match name {
        Some(name) if violations.is_empty() => Ok(name),
        _ => Err(Error::Validation {
            what: "arguments".into(),
            violations,
        }),
    }
}

/// One tool as Markdown: what it is, when to use it, how to call it, its input schema.
fn describe_markdown(tool: &ToolRecord) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {} (`{}`)\n", tool.name, tool.tool_id);
    let _ = writeln!(out, "{}\n", tool.description);
    let _ = writeln!(
        out,
        "Category: {} · type: {:?} · performance: {:?}",
        tool.category, tool.tool_type, tool.performance_tier
    );
    if !tool.when_to_use.is_empty() {
        let _ = writeln!(out, "\n**When to use:** {}", tool.when_to_use);
    }
    if let Some(exec) = &tool.execution {
        let example = tool
            .examples
            .first()
            .map_or_else(|| json!({}), |e| e.arguments.clone());
        // Builtin tools run by execution name, upstream tools by id (their bare name may be
        // another server's too).
        let name = if exec.kind == "mcp" {
            &tool.tool_id
        } else {
            &exec.name
        };
        let call = json!({ "name": name, "queries": [example] });
        let _ = writeln!(
            out,
            "\n## How to call\n\n`{CALL}` with\n```json\n{}\n```",
            serde_json::to_string_pretty(&call).unwrap_or_default()
        );
    } else {
        let _ = writeln!(out, "\nNot executable here: use it with your own runtime.");
    }
    let _ = writeln!(
        out,
        "\n## Input schema\n\n```json\n{}\n```",
        serde_json::to_string_pretty(&tool.input_schema).unwrap_or_default()
    );
    for e in tool.examples.iter().take(3) {
        let _ = writeln!(out, "\n### Example: {}\n\n{}", e.title, e.description);
    }
    out
}

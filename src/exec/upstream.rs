//! Running the tools of upstream MCP servers (catalog records with `execution.kind: mcp`):
//! each query is one set of the tool's own arguments, validated against the tool's
//! `input_schema` (compiled once per tool), then forwarded through an [`Upstream`] (the MCP
//! gateway implements it; this layer knows no MCP client) under the source's circuit, with
//! retries only for tools their server marks idempotent. Results come back in the envelope the
//! builtin tools use, with the upstream's `content`, `structuredContent` and `isError`.

use super::outcome::{Failure, Outcome, QueryError, Status, ToolErrorCode};
use super::resilience::{self, Circuits, Policy};
use super::{CallResult, Executor, QueryResult};
use crate::catalog::ToolRecord;
use crate::schema::Schema;
use serde_json::{json, Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A future an [`Upstream`] returns.
pub type UpstreamFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, QueryError>> + Send + 'a>>;

/// Forwards `tools/call` to the server of a source: the answer is the upstream's result as
/// MCP puts it on the wire (`content`, `structuredContent`, `isError`), or why there is none
/// (a server that cannot be reached, a protocol error, no answer in time).
pub trait Upstream: Send + Sync {
    fn call<'a>(
        &'a self,
        source: &'a str,
        tool: &'a str,
        arguments: Map<String, Value>,
    ) -> UpstreamFuture<'a>;
    /// How long one call to `source` may take.
    fn timeout(&self, source: &str) -> Duration;
    /// Each source's session, for `/health`.
    fn status(&self) -> Value;
}

/// Compiled input schemas of upstream tools, by tool id (bounded by the catalog).
#[derive(Default)]
pub(crate) struct UpstreamSchemas {
    compiled: Mutex<std::collections::BTreeMap<String, Arc<Option<Schema>>>>,
}

impl UpstreamSchemas {
    /// Drops every compiled schema (a reload may have changed them).
    fn clear(&self) {
        self.compiled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// The tool's compiled schema; `None` when its schema does not compile (the server's
    /// own check then decides).
    fn get(&self, tool: &ToolRecord) -> Arc<Option<Schema>> {
        let mut map = self.compiled.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(tool.tool_id.clone())
            .or_insert_with(|| Arc::new(Schema::compile(&tool.input_schema).ok()))
            .clone()
    }
}

/// The circuit of a source: `mcp:<source>`. Names are leaked once per source, as the circuit
/// table keys by `&'static str`; sources are few and fixed while serving.
fn circuit_of(source: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let name = format!("mcp:{source}");
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = names.iter().find(|n| **n == name) {
        return found;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.push(leaked);
    leaked
}

impl Executor {
    /// Forgets the compiled schemas of upstream tools, after the catalog changed.
    pub fn forget_upstream_schemas(&self) {
        self.upstream_schemas.clear();
    }

    /// Runs an upstream tool on each query; like [`Executor::call_observed`], never fails as
    /// a whole once the body is well formed.
    pub async fn call_upstream(
        &self,
        tool: &ToolRecord,
        queries: Vec<Map<String, Value>>,
        on_done: &(dyn Fn() + Sync),
    ) -> CallResult {
        let schema = self.upstream_schemas.get(tool);
        let runs = queries.into_iter().enumerate().map(|(i, query)| {
            let schema = schema.clone();
            async move {
                let started = Instant::now();
                let result = match super::call::validate((*schema).as_ref(), i, &query) {
                    // The builtin tools' hints (research fields) do not apply here.
                    Err(mut e) => {
                        e.hints = vec![format!(
                            "GET /tools/info/{} shows the tool's input schema",
                            tool.tool_id
                        )];
                        Err(e)
                    }
                    Ok(()) => self.forward(tool, query).await,
                };
                let (status, mut data, failure) = match result {
                    Ok(o) => (o.status, o.data, None),
                    Err(e) => (Status::Error, e.to_data(), Some(e.failure)),
                };
                super::redact::redact_value(&mut data);
                on_done();
                QueryResult {
                    id: (i + 1).to_string(),
                    status,
                    data,
                    failure,
                    elapsed_ms: started.elapsed().as_millis() as u64,
                    research: json!({}),
                }
            }
        });
        let results = super::join_all(runs.collect()).await;
        CallResult {
            tool: tool.tool_id.clone(),
            results,
        }
    }

    async fn forward(
        &self,
        tool: &ToolRecord,
        query: Map<String, Value>,
    ) -> Result<Outcome, QueryError> {
        let (Some(upstream), Some(source), Some(exec)) = (
            &self.upstream,
            tool.source.as_ref(),
            tool.execution.as_ref(),
        ) else {
            return Err(QueryError::new(
                Failure::Unavailable,
                ToolErrorCode::McpServerUnavailable,
                format!("{} has no upstream server to run it", tool.tool_id),
            ));
        };
        let circuit = circuit_of(&source.name);
        self.circuits.admit(circuit, &tool.tool_id)?;
        let result = resilience::run(
            policy(upstream.as_ref(), &source.name, tool),
            &tool.tool_id,
            || {
                let query = query.clone();
                async move {
                    upstream
                        .call(&source.name, &exec.name, query)
                        .await
                        .and_then(outcome)
                }
            },
        )
        .await
        .map_err(|mut e| {
            // The family-neutral timeout, named for what did not answer.
            if e.code == ToolErrorCode::Timeout {
                e.code = ToolErrorCode::McpTimeout;
                e.message = format!(
                    "the MCP server of source '{}' did not answer within {} s",
                    source.name,
                    upstream.timeout(&source.name).as_secs()
                );
            }
            e
        });
        record(&self.circuits, circuit, &result);
        result
    }
}

fn record(circuits: &Circuits, circuit: &'static str, result: &Result<Outcome, QueryError>) {
    let failed = result
        .as_ref()
        .err()
        .is_some_and(|e| e.failure.trips_circuit());
    circuits.record(circuit, failed);
}

/// The source's timeout for the whole query; retries (two more, 0.5 s then 1 s) only when the
/// server marks the tool idempotent, since a repeated call must not act twice.
fn policy(upstream: &dyn Upstream, source: &str, tool: &ToolRecord) -> Policy {
    let idempotent = tool
        .annotations
        .as_ref()
        .and_then(|a| a.get("idempotentHint"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Policy {
        timeout: upstream.timeout(source),
        attempts: if idempotent { 3 } else { 1 },
        initial_delay: Duration::from_millis(500),
        max_delay: Duration::from_secs(5),
        multiplier: 2,
    }
}

/// An upstream's answer as an outcome: its own error (`isError`) is a failed query whose
/// data keeps what the tool said; empty content is an empty result.
fn outcome(answer: Value) -> Result<Outcome, QueryError> {
    if answer.get("isError").and_then(Value::as_bool) == Some(true) {
        let text: Vec<&str> = answer["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("text").and_then(Value::as_str))
            .collect();
        let message = if text.is_empty() {
            "the tool reported an error without a message".to_string()
        } else {
            text.join("\n")
        };
        // The tool ran and said no (a bad argument, nothing found): the query's failure,
        // not the server's, so it does not count against the source's circuit.
        return Err(
            QueryError::new(Failure::Unprocessable, ToolErrorCode::McpToolError, message)
                .detail("content", answer["content"].clone()),
        );
    }
    let empty = answer["content"].as_array().is_none_or(Vec::is_empty)
        && answer.get("structuredContent").is_none_or(Value::is_null);
    Ok(Outcome {
        status: if empty {
            Status::Empty
        } else {
            Status::HasResults
        },
        data: answer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstream_error_keeps_what_the_tool_said() {
        let e = outcome(
            json!({"content": [{"type": "text", "text": "no such zone"}], "isError": true}),
        )
        .unwrap_err();
        assert_eq!(e.code, ToolErrorCode::McpToolError);
        assert_eq!(e.message, "no such zone");
        assert!(!e.failure.trips_circuit());
        let ok = outcome(json!({"content": [{"type": "text", "text": "12:00"}]})).unwrap();
        assert_eq!(ok.status, Status::HasResults);
        let empty = outcome(json!({"content": []})).unwrap();
        assert_eq!(empty.status, Status::Empty);
    }

    #[test]
    fn circuit_names_are_made_once_per_source() {
        assert!(std::ptr::eq(circuit_of("time"), circuit_of("time")));
        assert_eq!(circuit_of("git"), "mcp:git");
    }
}

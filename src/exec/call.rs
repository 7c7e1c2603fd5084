//! One tool call: the body `{queries: [...]}` checked, each query validated against the
//! tool's input schema, the valid ones run in parallel under resilience, every result
//! redacted, and the whole rendered in octocode's envelopes (one query: `data.results`;
//! several: `bulk: true` with `results`, `hints` by status and `counts`). A query that fails
//! validation is reported in its own result with every violation's JSON pointer, and the
//! other queries still run: a typo in one query loses nothing the others found.

use super::outcome::{Failure, Outcome, QueryError, Status};
use super::resilience::{self, Circuits, Policy};
use super::{dispatch, redact, Context, Tool};
use crate::admission::{GateStats, Limits};
use crate::catalog::Catalog;
use crate::config::{ExecConfig, LimitsConfig};
use crate::error::{Error, Violation};
use crate::schema::Schema;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// Queries per call (seed 001: 1 to 5).
pub const MAX_QUERIES: usize = 5;

/// Runs tools; built once per server, shared by every request.
pub struct Executor {
    ctx: Arc<Context>,
    pub(super) circuits: Arc<Circuits>,
    /// Input schemas of the tools the served catalog binds, compiled once.
    schemas: BTreeMap<Tool, Arc<Schema>>,
    /// Where the tools of upstream MCP servers run, when the catalog has any.
    pub(super) upstream: Option<Arc<dyn super::Upstream>>,
    pub(super) upstream_schemas: super::upstream::UpstreamSchemas,
}

/// One query's result.
#[derive(Debug, Clone)]
pub struct QueryResult {
    pub id: String,
    pub status: Status,
    pub data: Value,
    /// Why it failed, for errors.
    pub failure: Option<Failure>,
    pub elapsed_ms: u64,
    /// The query's research fields, echoed as `research`.
    pub research: Value,
}

/// A finished call.
#[derive(Debug, Clone)]
pub struct CallResult {
    /// The tool's name as callers use it: a builtin's execution name, an upstream tool's id.
    pub tool: String,
    pub results: Vec<QueryResult>,
}

impl Executor {
    /// An executor for the builtin tools that `catalog` binds (`execution.kind: builtin`).
    pub fn new(config: ExecConfig, catalog: &Catalog) -> Result<Executor, Error> {
        Executor::with_limits(config, catalog, LimitsConfig::default().limits())
    }

    /// [`Executor::new`] with the local tools' gate sized by `limits`.
    pub fn with_limits(
        config: ExecConfig,
        catalog: &Catalog,
        limits: Limits,
    ) -> Result<Executor, Error> {
        let mut schemas = BTreeMap::new();
        for record in catalog.executable() {
            let Some(tool) = record
                .execution
                .as_ref()
                .and_then(|e| Tool::from_name(&e.name))
            else {
                continue;
            };
            let schema = Schema::compile(&record.input_schema).map_err(|reason| {
                Error::Config(format!(
                    "input_schema of catalog tool '{}' does not compile: {reason}",
                    record.tool_id
                ))
            })?;
            schemas.insert(tool, Arc::new(schema));
        }
        Ok(Executor {
            ctx: Arc::new(Context::with_limits(config, limits)),
            circuits: Arc::new(Circuits::default()),
            schemas,
            upstream: None,
            upstream_schemas: Default::default(),
        })
    }

    /// Each upstream source's session state (`/health`'s `upstreams`), when there are any.
    pub fn upstream_status(&self) -> Option<Value> {
        self.upstream.as_ref().map(|u| u.status())
    }

    /// Runs the tools of upstream MCP servers through `upstream`.
    pub fn set_upstream(&mut self, upstream: Arc<dyn super::Upstream>) {
        self.upstream = Some(upstream);
    }

    /// The tools this executor runs, in octocode's order.
    pub fn tools(&self) -> Vec<Tool> {
        Tool::ALL
            .into_iter()
            .filter(|t| self.schemas.contains_key(t))
            .collect()
    }

    /// The local tools' gate: workers busy, requests waiting, refused so far.
    pub fn gate_stats(&self) -> GateStats {
        self.ctx.gate.stats()
    }

    /// `/health`'s circuits: those used so far.
    pub fn circuits(&self) -> Value {
        self.circuits.snapshot()
    }

    /// Resolves a tool name as `/tools/call/{toolName}` receives it.
    pub fn resolve(&self, name: &str) -> Result<Tool, Error> {
        match Tool::from_name(name).filter(|t| self.schemas.contains_key(t)) {
            Some(tool) => Ok(tool),
            None => {
                let runnable: Vec<&str> = self.tools().iter().map(|t| t.name()).collect();
                let suggestions = crate::catalog::suggest::suggest(name, runnable.iter().copied());
                Err(Error::ToolNotRunnable {
                    name: name.to_string(),
                    suggestions,
                    runnable: runnable.iter().map(|s| s.to_string()).collect(),
                })
            }
        }
    }

    /// Checks the body's shape: `{"queries": [object, ...]}` with 1 to 5 non-empty objects.
    /// Every violation is listed, each with its pointer.
    pub fn queries(body: &Value) -> Result<Vec<Map<String, Value>>, Error> {
        Executor::queries_of(body, false)
    }

    /// The same for an upstream tool, whose query may be `{}` (a tool without arguments).
    pub fn upstream_queries(body: &Value) -> Result<Vec<Map<String, Value>>, Error> {
        Executor::queries_of(body, true)
    }

    fn queries_of(body: &Value, allow_empty: bool) -> Result<Vec<Map<String, Value>>, Error> {
        let mut violations = Vec::new();
        let v = |pointer: &str, message: String| Violation {
            pointer: pointer.to_string(),
            message,
        };
        let Some(obj) = body.as_object() else {
            return Err(invalid(vec![v(
                "",
                format!(
                    "expected an object {{\"queries\": [...]}}, found {}",
                    crate::schema::show(body)
                ),
            )]));
        };
        for key in obj.keys().filter(|k| *k != "queries") {
            violations.push(v(
                &format!("/{key}"),
                format!("expected only \"queries\", found unknown property {key}"),
            ));
        }
        let queries = match obj.get("queries") {
            None => {
                violations.push(v(
                    "",
                    "expected required property queries, found it missing".into(),
                ));
                return Err(invalid(violations));
            }
            Some(Value::Array(items)) => items,
            Some(other) => {
                violations.push(v(
                    "/queries",
                    format!(
                        "expected an array of 1 to {MAX_QUERIES} query objects, found {}",
                        crate::schema::show(other)
                    ),
                ));
                return Err(invalid(violations));
            }
        };
        if queries.is_empty() || queries.len() > MAX_QUERIES {
            violations.push(v(
                "/queries",
                format!(
                    "expected 1 to {MAX_QUERIES} queries, found {}",
                    queries.len()
                ),
            ));
        }
        let mut out = Vec::new();
        for (i, q) in queries.iter().enumerate() {
            match q.as_object() {
                Some(map) if map.is_empty() && !allow_empty => violations.push(v(
                    &format!("/queries/{i}"),
                    "expected a query with the tool's parameters, found an empty object".into(),
                )),
                Some(map) => {
                    // JSON Schema counts 3.0 as an integer and serde does not: written as
                    // integers once here, so every tool's typed parse agrees with the schema.
                    let mut query = Value::Object(map.clone());
                    crate::schema::integral_floats_as_integers(&mut query);
                    if let Value::Object(map) = query {
                        out.push(map);
                    }
                }
                None => violations.push(v(
                    &format!("/queries/{i}"),
                    format!("expected an object, found {}", crate::schema::show(q)),
                )),
            }
        }
        if violations.is_empty() {
            Ok(out)
        } else {
            Err(invalid(violations))
        }
    }

    /// Runs every query of one call; never fails as a whole once the body is well formed.
    pub async fn call(&self, tool: Tool, queries: Vec<Map<String, Value>>) -> CallResult {
        self.call_observed(tool, queries, &|| {}).await
    }

    /// [`Executor::call`], telling `on_done` each time one of the queries has finished (an
    /// MCP client that sent a progress token hears of each).
    pub async fn call_observed(
        &self,
        tool: Tool,
        queries: Vec<Map<String, Value>>,
        on_done: &(dyn Fn() + Sync),
    ) -> CallResult {
        let schema = self.schemas.get(&tool).cloned();
        let runs = queries.into_iter().enumerate().map(|(i, query)| {
            let ctx = self.ctx.clone();
            let circuits = self.circuits.clone();
            let schema = schema.clone();
            async move {
                let started = Instant::now();
                let id = query
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| (i + 1).to_string(), str::to_string);
                let research = research_of(&query);
                let result = match validate(schema.as_deref(), i, &query) {
                    Err(e) => Err(e),
                    Ok(()) => run_one(&ctx, &circuits, tool, &query).await,
                };
                let (status, mut data, failure) = match result {
                    Ok(o) => (o.status, o.data, None),
                    Err(e) => (Status::Error, e.to_data(), Some(e.failure)),
                };
                redact::redact_value(&mut data);
                on_done();
                QueryResult {
                    id,
                    status,
                    data,
                    failure,
                    elapsed_ms: started.elapsed().as_millis() as u64,
                    research,
                }
            }
        });
        let results = super::join_all(runs.collect()).await;
        CallResult {
            tool: tool.name().to_string(),
            results,
        }
    }
}

fn invalid(violations: Vec<Violation>) -> Error {
    Error::Validation {
        what: "tool call body".into(),
        violations,
    }
}

pub(super) fn validate(
    schema: Option<&Schema>,
    index: usize,
    query: &Map<String, Value>,
) -> Result<(), QueryError> {
    let Some(schema) = schema else { return Ok(()) };
    let violations = schema.violations(&Value::Object(query.clone()));
    if violations.is_empty() {
        return Ok(());
    }
    let listed: Vec<Value> = violations
        .iter()
        .map(|v| json!({"pointer": format!("/queries/{index}{}", v.pointer), "message": v.message}))
        .collect();
    let first = &violations[0];
    let at = if first.pointer.is_empty() {
        "(query)".to_string()
    } else {
        first.pointer.clone()
    };
    let more = if violations.len() > 1 {
        format!(" (and {} more)", violations.len() - 1)
    } else {
        String::new()
    };
    Err(QueryError::invalid(format!("Validation error at {at}: {}{more}", first.message))
        .detail("violations", Value::Array(listed))
        .hint("GET /tools/info/{toolName} shows the tool's input schema")
        .hint("Every query needs id, researchGoal and reasoning; GitHub and package tools also need mainResearchGoal"))
}

async fn run_one(
    ctx: &Context,
    circuits: &Circuits,
    tool: Tool,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    let circuit = tool.circuit();
    circuits.admit(circuit, tool.name())?;
    let mut policy = Policy::for_family(tool.family());
    if let Some(limit) = ctx.config.timeout {
        policy.timeout = limit;
    }
    let result = resilience::run(policy, tool.name(), || dispatch(ctx, tool, query)).await;
    circuits.record(
        circuit,
        result
            .as_ref()
            .err()
            .is_some_and(|e| e.failure.trips_circuit()),
    );
    result
}

fn research_of(query: &Map<String, Value>) -> Value {
    let mut r = Map::new();
    for (from, to) in [
        ("mainResearchGoal", "mainGoal"),
        ("researchGoal", "goal"),
        ("reasoning", "reasoning"),
    ] {
        if let Some(v) = query.get(from).filter(|v| v.is_string()) {
            r.insert(to.into(), v.clone());
        }
    }
    Value::Object(r)
}

impl CallResult {
    /// Whether the call as a whole succeeded: one query that did not error, or for several,
    /// at least one.
    pub fn success(&self) -> bool {
        self.results.iter().any(|r| r.status != Status::Error)
    }

    /// 200 unless every query failed; then the first failure's status (400 for a bad query,
    /// 403 outside the sandbox, 502 upstream, 503 circuit open, 504 timeout).
    pub fn http_status(&self) -> u16 {
        if self.success() {
            return 200;
        }
        self.results
            .iter()
            .find_map(|r| r.failure)
            .map_or(500, Failure::http_status)
    }

    /// When every query failed and the first failure says when to come back (an overload,
    /// an open circuit, a rate limit): its `retryAfter`, in seconds, for `Retry-After`.
    pub fn retry_after(&self) -> Option<u64> {
        if self.success() {
            return None;
        }
        let failed = self.results.iter().find(|r| r.failure.is_some())?;
        failed.data.get("retryAfter").and_then(Value::as_u64)
    }

    fn counts(&self) -> Value {
        let n = |s: Status| self.results.iter().filter(|r| r.status == s).count();
        json!({
            "total": self.results.len(),
            "hasResults": n(Status::HasResults),
            "empty": n(Status::Empty),
            "error": n(Status::Error),
        })
    }

    /// The response body: octocode's single-query shape for one query, its bulk shape for
    /// more.
    pub fn to_json(&self) -> Value {
        let item =
            |r: &QueryResult| json!({"id": r.id, "status": r.status.as_str(), "data": r.data});
        if let [one] = self.results.as_slice() {
            return json!({
                "tool": self.tool,
                "success": self.success(),
                "data": {"results": [item(one)]},
                "hints": [],
                "research": one.research,
                "meta": {"elapsedMs": one.elapsed_ms},
            });
        }
        let mut by_status: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for r in &self.results {
            let hints = by_status.entry(r.status.as_str()).or_default();
            for h in r
                .data
                .get("hints")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(h) = h.as_str() {
                    if !hints.iter().any(|x| x == h) && hints.len() < 10 {
                        hints.push(h.to_string());
                    }
                }
            }
        }
        let hints_for = |s: Status| json!(by_status.get(s.as_str()).cloned().unwrap_or_default());
        let c = self.counts();
        json!({
            "tool": self.tool,
            "bulk": true,
            "success": self.success(),
            "instructions": format!(
                "Ran {} queries in parallel: {} with results, {} empty, {} failed. Each result carries its own hints.",
                c["total"], c["hasResults"], c["empty"], c["error"]
            ),
            "results": self.results.iter().map(|r| {
                let mut v = item(r);
                v["research"] = r.research.clone();
                v
            }).collect::<Vec<_>>(),
            "hints": {
                "hasResults": hints_for(Status::HasResults),
                "empty": hints_for(Status::Empty),
                "error": hints_for(Status::Error),
            },
            "counts": c,
            "meta": {"elapsedMs": self.results.iter().map(|r| r.elapsed_ms).max().unwrap_or(0)},
        })
    }
}

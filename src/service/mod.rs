//! The one service behind every door. `Service` owns the live catalog snapshot (through the
//! engine), the engine and its caches, and the executor, and offers one method per use case:
//! search, recommend, compare, list, describe and run tools. HTTP handlers and CLI commands
//! parse their input into the same JSON request body, make one call here and render what
//! comes back, so the same request gives the same answer and the same error text through
//! every door. CPU work (ranking, embedding) runs off the async runtime.

mod caller;
pub mod log;
mod reload;
mod rendered;
mod status;
mod tools;
mod usage;

pub use caller::Caller;
pub use reload::{CatalogLoader, LoadFuture, Reloaded};
pub use rendered::Rendition;
pub use tools::{ToolPage, ToolSummary, MAX_PER_PAGE};
pub use usage::{FeedbackReceipt, StatsReport};

use crate::admission::{Gate, GateStats};
use crate::catalog::{Catalog, ToolRecord};
use crate::config::Config;
use crate::embed::{Embedder, ModelStatus};
use crate::engine::{
    ComparisonRequest, ComparisonResponse, Engine, RecommendationRequest, RecommendationResponse,
    SearchRequest, SearchResponse, Valid,
};
use crate::error::{Error, Result};
use crate::exec::{CallResult, Executor};
use crate::format::{compare_response_format, Presentation, ResponseFormat};
use crate::usage::{AnswerKind, UsageStore};
use serde_json::Value;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// How the served catalog was loaded: when it was ready, and how long reading and validating
/// it took (the index build time is the snapshot's own).
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    /// RFC 3339 time at which the catalog and its indexes were ready.
    pub finished_at: String,
    pub catalog: Duration,
    /// Each catalog source and how it fared, in order.
    pub sources: Vec<crate::catalog::SourceReport>,
}

/// An answer and how its request asked to see it.
#[derive(Debug, Clone)]
pub struct Answer<T, P = Presentation> {
    pub response: T,
    pub presentation: P,
}

/// The engine, the executor and what the service reports about itself; cheap to share.
pub struct Service {
    config: Config,
    /// The live engine (catalog snapshot, indexes, caches); a reload swaps it whole, and a
    /// request keeps the one it started with.
    engine: RwLock<Arc<Engine>>,
    executor: Executor,
    models: ModelStatus,
    started: Instant,
    load: RwLock<LoadReport>,
    /// Search answers as sent; the other half of the configured cache budget.
    rendered: rendered::RenderedCache,
    /// How `reload` reads the catalog again, when the binary installed one.
    loader: Option<Arc<dyn CatalogLoader>>,
    /// In front of every search, recommendation, comparison and validation: at most
    /// `[limits] workers` run at once, a bounded queue waits, the rest are refused (503).
    gate: Gate,
    /// Held by the reload in progress.
    reloading: tokio::sync::Mutex<()>,
    /// The serving catalog's version, for those who follow changes (MCP sessions tell their
    /// clients the tool list changed).
    changes: tokio::sync::watch::Sender<String>,
    /// Where executions, answers shown and feedback are recorded (`data_dir`).
    usage: Arc<dyn UsageStore>,
    /// Set once the task that refreshes the engine's measured figures runs.
    refreshing: std::sync::atomic::AtomicBool,
    /// Woken by new feedback: the refresh task learns from it at once, not at its next tick.
    learn_soon: Arc<tokio::sync::Notify>,
}

impl Service {
    /// A service over `catalog`: builds the indexes (with the configured vector cache) and
    /// the executor. Fails only when the indexes cannot be built or a runnable tool's input
    /// schema does not compile.
    pub fn new(
        config: Config,
        catalog: Arc<Catalog>,
        embedder: std::result::Result<Arc<dyn Embedder>, String>,
        load: LoadReport,
    ) -> Result<Service> {
        let engine = Engine::build_cached(
            catalog,
            embedder,
            config.search.clone(),
            config.cache_dir.as_deref(),
        )?;
        Service::with_engine(config, engine, load)
    }

    /// A service over an engine already built.
    pub fn with_engine(config: Config, engine: Engine, load: LoadReport) -> Result<Service> {
        let limits = config.limits.limits();
        let executor = Executor::with_limits(config.exec.clone(), engine.catalog(), limits)?;
        let search = &config.search;
        let budget = if search.cache_enabled {
            search.cache_max_bytes / 2
        } else {
            0
        };
        let rendered = rendered::cache(budget, Duration::from_secs(search.cache_ttl.max(1)));
        let version = engine.catalog().version().to_string();
        Ok(Service {
            usage: crate::usage::open(&config),
            refreshing: std::sync::atomic::AtomicBool::new(false),
            learn_soon: Arc::default(),
            rendered,
            gate: Gate::new("search", limits),
            models: ModelStatus::inspect(&config.models_dir),
            config,
            engine: RwLock::new(Arc::new(engine)),
            executor,
            started: Instant::now(),
            load: RwLock::new(load),
            loader: None,
            reloading: tokio::sync::Mutex::new(()),
            changes: tokio::sync::watch::Sender::new(version),
        })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The engine serving now.
    pub fn engine(&self) -> Arc<Engine> {
        self.engine
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The catalog serving now.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.engine().snapshot().catalog.clone()
    }

    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// The search gate's and the local tools' gate's counts, for `/health`.
    pub fn gates(&self) -> [(&'static str, GateStats); 2] {
        [
            ("search", self.gate.stats()),
            ("tools", self.executor.gate_stats()),
        ]
    }

    /// Runs ranking work behind the search gate: refused with `OVERLOADED` beyond it.
    async fn gated<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.gate.run(work).await?
    }

    pub fn models(&self) -> &ModelStatus {
        &self.models
    }

    pub fn started(&self) -> Instant {
        self.started
    }

    /// How the serving catalog was loaded.
    pub fn load(&self) -> LoadReport {
        self.load.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Search (seed 002 `SearchRequest` as JSON, with `response_format` and `detail_level`).
    pub async fn search(&self, body: &Value) -> Result<Answer<SearchResponse>> {
        let req = Valid::<SearchRequest>::parse(body, &self.catalog())?;
        let presentation = Presentation::from_body(body)?;
        let engine = self.engine();
        let response = self.gated(move || engine.search_counted(&req)).await?;
        self.record_answer(
            AnswerKind::Search,
            &response.query,
            ids(&response.results, |r| &r.tool_id),
        );
        Ok(Answer {
            response,
            presentation,
        })
    }

    /// Recommend (seed 003 `RecommendationRequest` as JSON).
    pub async fn recommend(&self, body: &Value) -> Result<Answer<RecommendationResponse>> {
        let req = Valid::<RecommendationRequest>::parse(body, &self.catalog())?;
        let presentation = Presentation::from_body(body)?;
        let engine = self.engine();
        let response = self.gated(move || engine.recommend(&req)).await?;
        self.record_answer(
            AnswerKind::Recommend,
            &response.task_description,
            ids(&response.recommendations, |r| &r.tool.tool_id),
        );
        Ok(Answer {
            response,
            presentation,
        })
    }

    /// Compare (seed 004 `ComparisonRequest` as JSON).
    pub async fn compare(
        &self,
        body: &Value,
    ) -> Result<Answer<ComparisonResponse, ResponseFormat>> {
        let req = Valid::<ComparisonRequest>::parse(body, &self.catalog())?;
        let presentation = compare_response_format(body)?;
        let engine = self.engine();
        let usage = self.usage.clone();
        let response = self
            .gated(move || {
                let measured = usage::measured_of(usage.as_ref(), &req.tool_ids);
                engine.compare_measured(&req, &measured)
            })
            .await?;
        Ok(Answer {
            response,
            presentation,
        })
    }

    /// Runs a tool toolscout runs itself, by its execution name, on the queries of `body`
    /// (`{"queries": [...]}`); each query is validated, run and redacted by the executor.
    pub async fn call_tool(&self, name: &str, body: &Value) -> Result<CallResult> {
        self.call_tool_observed(name, body, &|| {}).await
    }

    /// [`Service::call_tool`], telling `on_done` as each of its queries finishes.
    pub async fn call_tool_observed(
        &self,
        name: &str,
        body: &Value,
        on_done: &(dyn Fn() + Sync),
    ) -> Result<CallResult> {
        let started = Instant::now();
        match self.executor.resolve(name) {
            Ok(tool) => {
                let queries = Executor::queries(body)?;
                let tool_id = self.builtin_id(tool.name());
                let result = self
                    .executor
                    .call_observed(tool, queries.clone(), on_done)
                    .await;
                let call = usage::CallRecord {
                    tool_id,
                    source: "builtin".into(),
                    queries: &queries,
                    started,
                };
                self.record_call(call, &result);
                Ok(result)
            }
            Err(not_builtin) => {
                let Some(record) = self.upstream_tool(name) else {
                    return Err(self.with_upstream_suggestions(not_builtin, name));
                };
                let queries = Executor::upstream_queries(body)?;
                let result = self
                    .executor
                    .call_upstream(&record, queries.clone(), on_done)
                    .await;
                let call = usage::CallRecord {
                    tool_id: record.tool_id.clone(),
                    source: record
                        .source
                        .as_ref()
                        .map_or_else(|| "mcp".into(), |s| s.name.clone()),
                    queries: &queries,
                    started,
                };
                self.record_call(call, &result);
                Ok(result)
            }
        }
    }

    /// The catalog id of the builtin tool run by `execution_name` (the name itself when no
    /// catalog entry binds it).
    fn builtin_id(&self, execution_name: &str) -> String {
        self.catalog()
            .executable()
            .find(|t| {
                t.execution
                    .as_ref()
                    .is_some_and(|e| e.kind == "builtin" && e.name == execution_name)
            })
            .map_or_else(|| execution_name.to_string(), |t| t.tool_id.clone())
    }

    /// The tools of upstream MCP servers this service runs by forwarding, in id order.
    pub fn upstream_tools(&self) -> Vec<ToolRecord> {
        self.catalog()
            .executable()
            .filter(|t| t.execution.as_ref().is_some_and(|e| e.kind == "mcp"))
            .cloned()
            .collect()
    }

    /// Runs upstream MCP servers' tools through `upstream` (the gateway's session pool).
    pub fn set_upstream(&mut self, upstream: Arc<dyn crate::exec::Upstream>) {
        self.executor.set_upstream(upstream);
    }

    /// The upstream tool a caller names by id, name or alias.
    fn upstream_tool(&self, name: &str) -> Option<ToolRecord> {
        self.catalog()
            .find(name)
            .filter(|t| t.execution.as_ref().is_some_and(|e| e.kind == "mcp"))
            .cloned()
    }

    /// `ToolNotRunnable` listing the upstream tools beside the builtin ones.
    fn with_upstream_suggestions(&self, e: Error, name: &str) -> Error {
        let Error::ToolNotRunnable { mut runnable, .. } = e else {
            return e;
        };
        runnable.extend(self.upstream_tools().iter().map(|t| t.tool_id.clone()));
        let suggestions = crate::catalog::suggest(name, runnable.iter().map(String::as_str));
        Error::ToolNotRunnable {
            name: name.to_string(),
            suggestions,
            runnable,
        }
    }

    /// The tools toolscout runs itself, in octocode's order, by their execution names.
    pub fn runnable_tools(&self) -> Vec<(&'static str, ToolRecord)> {
        let catalog = self.catalog();
        self.executor
            .tools()
            .into_iter()
            .filter_map(|tool| {
                catalog
                    .executable()
                    .find(|t| {
                        t.execution
                            .as_ref()
                            .is_some_and(|e| e.kind == "builtin" && e.name == tool.name())
                    })
                    .map(|t| (tool.name(), t.clone()))
            })
            .collect()
    }
}

/// The ids of an answer's tools, best first.
fn ids<T>(items: &[T], id: impl Fn(&T) -> &String) -> Vec<String> {
    items.iter().map(|t| id(t).clone()).collect()
}

/// Runs CPU work on the blocking pool; a task that dies is an internal error, never a hang.
async fn off_runtime<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::Internal(format!("{what} task failed: {e}")))?
}

//! What the service tells the usage store, and what it reads back: every tool execution and
//! every search or recommend answer shown (with the caller's request and session, see
//! `Caller`), feedback on answers (`POST /feedback`), and the overview of `GET /stats`.
//!
//! Recording never waits: the store queues and drops when full (see `crate::usage`). Reading
//! blocks on the database, so it runs off the async runtime.

use super::{off_runtime, Caller, Service};
use crate::catalog::{Catalog, ToolRecord};
use crate::engine::{MeasuredUse, MeasuredUses, PastFeedback, Verdict};
use crate::error::{Error, Result};
use crate::exec::{CallResult, Failure, Status};
use crate::schema::Embedded;
use crate::usage::{
    now_ms, AnswerKind, AnswerShown, Execution, Feedback, OutcomeKind, Signal, UsageHealth,
    UsageOverview, UsageStore,
};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Tools and queries listed in each part of `GET /stats`.
const STATS_LIMIT: usize = 20;
/// How often the engine's measured figures are computed again from the store.
const MEASURED_REFRESH: Duration = Duration::from_secs(30);
/// Feedback rows ranking learns from: the newest (`engine::learned` keeps at most
/// `MAX_REQUESTS` distinct requests of them).
const LEARNING_ROWS: usize = 20_000;
/// How long the refresh waits after new feedback before learning from it: feedback often
/// comes in bursts (one per hit judged), and one rebuild serves them all.
const LEARN_DEBOUNCE: Duration = Duration::from_millis(300);

/// What `POST /feedback` answers: the feedback as recorded.
#[derive(Debug, Clone, Serialize)]
pub struct FeedbackReceipt {
    pub success: bool,
    /// The catalog id of the tool, whatever name the caller gave.
    pub tool_id: String,
    pub signal: Signal,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

/// What `GET /stats` answers.
#[derive(Debug, Clone, Serialize)]
pub struct StatsReport {
    pub store: UsageHealth,
    #[serde(flatten)]
    pub overview: UsageOverview,
}

/// One tool call, as the usage store is told it.
pub(super) struct CallRecord<'a> {
    pub tool_id: String,
    pub source: String,
    pub queries: &'a [Map<String, Value>],
    pub started: Instant,
}

impl Service {
    /// Records an answer shown to the current caller: its query and the ids it returned.
    pub(super) fn record_answer(&self, kind: AnswerKind, query: &str, tool_ids: Vec<String>) {
        let caller = Caller::current();
        self.usage.record_answer(AnswerShown {
            request_id: caller.request_id.unwrap_or_default(),
            session_id: caller.session_id,
            kind,
            query: query.to_string(),
            tool_ids,
            time_ms: now_ms(),
        });
    }

    /// Records a finished tool call.
    pub(super) fn record_call(&self, call: CallRecord<'_>, result: &CallResult) {
        let caller = Caller::current();
        let mut parameters: Vec<String> = call
            .queries
            .iter()
            .flat_map(|q| q.keys())
            .cloned()
            .collect();
        parameters.sort();
        parameters.dedup();
        let (outcome, error_code) = outcome(result);
        self.usage.record_execution(Execution {
            tool_id: call.tool_id,
            source: call.source,
            outcome,
            error_code,
            latency_ms: call.started.elapsed().as_secs_f64() * 1e3,
            output_bytes: result
                .results
                .iter()
                .map(|q| serde_json::to_vec(&q.data).map_or(0, |b| b.len() as u64))
                .sum(),
            query_count: result.results.len() as u32,
            parameters,
            time_ms: now_ms(),
            session_id: caller.session_id,
            request_id: caller.request_id,
        });
    }

    /// `POST /feedback`: checks the body, resolves the tool and records the feedback.
    pub fn feedback(&self, body: &Value) -> Result<FeedbackReceipt> {
        let violations = Embedded::FeedbackRequest.compiled().violations(body);
        if !violations.is_empty() {
            return Err(Error::Validation {
                what: "feedback".into(),
                violations,
            });
        }
        let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_string);
        let named = text("tool_id").unwrap_or_default();
        let tool_id = resolve_tool(&self.catalog(), &named)?;
        let signal = text("signal")
            .as_deref()
            .and_then(Signal::parse)
            .ok_or_else(|| Error::Internal("signal passed the schema but not the parser".into()))?;
        let feedback = Feedback {
            request_id: text("request_id"),
            query: text("query"),
            tool_id: tool_id.clone(),
            signal,
            comment: text("comment"),
            session_id: Caller::current().session_id,
            time_ms: now_ms(),
        };
        feedback.check()?;
        let receipt = FeedbackReceipt {
            success: true,
            tool_id,
            signal,
            request_id: feedback.request_id.clone(),
            query: feedback.query.clone(),
        };
        self.usage.record_feedback(feedback);
        self.learn_soon.notify_one();
        Ok(receipt)
    }

    /// `GET /stats`: the store's state, the most used and most failing tools, and the
    /// queries that found nothing good (the catalog maintainers' to-do list).
    pub async fn stats(&self) -> Result<StatsReport> {
        let usage = self.usage.clone();
        off_runtime("stats", move || {
            Ok(StatsReport {
                store: usage.health(),
                overview: usage.overview(STATS_LIMIT),
            })
        })
        .await
    }

    /// `record` with the usage statistics toolscout measured for it, where there are any
    /// and the catalog declares none, or once there are `[usage] min_calls` of them.
    pub async fn with_usage(&self, mut record: ToolRecord) -> ToolRecord {
        let usage = self.usage.clone();
        let id = record.tool_id.clone();
        let measured = off_runtime("usage statistics", move || Ok(usage.stats_for(&id))).await;
        if let Ok(Some(stats)) = measured {
            if record.usage_stats.is_none() || stats.total_uses >= self.usage.min_calls() {
                record.usage_stats = serde_json::to_value(stats).ok();
            }
        }
        record
    }

    /// Computes every tool's measured use from the store and hands it to the engine: shown on
    /// search hits for every tool that ran here, weighed in ranking from `[usage] min_calls`
    /// runs on.
    pub async fn refresh_measured(&self) {
        let usage = self.usage.clone();
        let Ok(tools) = off_runtime("measured figures", move || Ok(usage.tool_uses())).await else {
            return;
        };
        let min_calls = self.usage.min_calls();
        let measured: MeasuredUses = tools
            .into_iter()
            .map(|t| {
                let m = MeasuredUse {
                    total_uses: t.total_uses,
                    successful_uses: t.total_uses.saturating_sub(t.failed_uses),
                    failed_uses: t.failed_uses,
                    success_rate: t.success_rate,
                    average_execution_time: t.average_execution_time,
                    last_updated: t.last_used,
                    weighed: t.total_uses >= min_calls,
                };
                (t.tool_id, m)
            })
            .collect();
        self.engine().set_measured(measured);
    }

    /// Rebuilds what ranking learned from feedback (`Engine::learn`) from the store's newest
    /// feedback rows, once what was recorded before is written. Failures are logged: ranking
    /// goes on with what it learned before.
    pub async fn refresh_learning(&self) {
        if self.config.search.learning_weight <= 0.0 {
            return;
        }
        let (usage, engine) = (self.usage.clone(), self.engine());
        let learned = off_runtime("learning", move || {
            usage.flush(Duration::from_secs(1));
            engine.learn(&past_feedback(usage.as_ref()))
        })
        .await;
        if let Err(e) = learned {
            tracing::warn!(error = %e, "could not learn from feedback; ranking keeps what it learned before");
        }
    }

    /// Refreshes the measured figures and what ranking learned from feedback now and every
    /// 30 s while the service lives, and learning again shortly after new feedback, on the
    /// current runtime; once per service, and not at all outside a runtime (the CLI's one-shot
    /// commands) or with the store off.
    pub fn start_measured_refresh(self: &Arc<Service>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if !self.usage.health().enabled || self.refreshing.swap(true, Ordering::SeqCst) {
            return;
        }
        let service = Arc::downgrade(self);
        let learn_soon = self.learn_soon.clone();
        runtime.spawn(async move {
            let mut tick = tokio::time::interval(MEASURED_REFRESH);
            loop {
                let feedback_only = tokio::select! {
                    _ = tick.tick() => false,
                    () = learn_soon.notified() => {
                        tokio::time::sleep(LEARN_DEBOUNCE).await;
                        true
                    }
                };
                let Some(service) = service.upgrade() else {
                    return;
                };
                if !feedback_only {
                    service.refresh_measured().await;
                }
                service.refresh_learning().await;
            }
        });
    }

    /// The usage store itself (statistics, feedback events, a flush in tests).
    pub fn usage(&self) -> &dyn UsageStore {
        self.usage.as_ref()
    }

    /// The usage store's state, for `/health`.
    pub fn usage_health(&self) -> UsageHealth {
        self.usage.health()
    }
}

/// The statistics toolscout measured for each of `ids` that has run `[usage] min_calls`
/// times here, as `UsageStatistics` objects: what compare weighs in place of the catalog's.
/// Blocking reads: for the gate's workers.
pub(super) fn measured_of(usage: &dyn UsageStore, ids: &[String]) -> BTreeMap<String, Value> {
    ids.iter()
        .filter_map(|id| {
            let stats = usage.measured_stats(id)?;
            Some((id.clone(), serde_json::to_value(stats).ok()?))
        })
        .collect()
}

/// The store's newest feedback with a query, as the engine learns from it: `selected` and
/// `helpful` say the tool helped, `not_helpful` that it did not. Blocking.
pub(super) fn past_feedback(usage: &dyn UsageStore) -> Vec<PastFeedback> {
    usage
        .feedback_events(LEARNING_ROWS)
        .into_iter()
        .filter_map(|e| {
            Some(PastFeedback {
                query: e.query.filter(|q| !q.trim().is_empty())?,
                tool_id: e.tool_id,
                verdict: match e.signal {
                    Signal::Selected | Signal::Helpful => Verdict::Helped,
                    Signal::NotHelpful => Verdict::NotHelped,
                },
            })
        })
        .collect()
}

/// How a call went, for the store: a timeout or an error when every query failed, a result
/// when any query found something, else empty; with the first failure's code.
fn outcome(result: &CallResult) -> (OutcomeKind, Option<String>) {
    let failed: Vec<_> = result
        .results
        .iter()
        .filter(|q| q.status == Status::Error)
        .collect();
    let code = failed.first().and_then(|q| {
        q.data
            .get("errorCode")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let kind = if !result.results.is_empty() && failed.len() == result.results.len() {
        if failed.iter().any(|q| q.failure == Some(Failure::Timeout)) {
            OutcomeKind::Timeout
        } else {
            OutcomeKind::Error
        }
    } else if result
        .results
        .iter()
        .any(|q| q.status == Status::HasResults)
    {
        OutcomeKind::Ok
    } else {
        OutcomeKind::Empty
    };
    (kind, code)
}

/// The catalog id of a tool named by id, name, alias or execution name.
fn resolve_tool(catalog: &Catalog, name: &str) -> Result<String> {
    if let Some(tool) = catalog.find(name) {
        return Ok(tool.tool_id.clone());
    }
    catalog
        .tools()
        .iter()
        .find(|t| t.execution.as_ref().is_some_and(|e| e.name == name))
        .map(|t| t.tool_id.clone())
        .ok_or_else(|| Error::ToolNotFound {
            id: name.to_string(),
            suggestions: catalog.suggest_ids(name),
        })
}

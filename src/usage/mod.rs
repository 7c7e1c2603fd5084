//! The usage store: what tools were run through any door and how it went, which answers were
//! shown, and the feedback on them; and the statistics computed from that (seed 002's
//! `UsageStatistics`, the `GET /stats` overview, feedback for learning).
//!
//! One trait, `UsageStore`, so the SQLite store that ships can be replaced by another
//! backend (see the README's usage-store section) without its callers changing. `open` is
//! the one entry point. Recording never blocks: records go to a bounded channel that one
//! writer thread drains, and a record that finds it full is dropped and counted. Reads are
//! plain blocking calls on their own connection, for callers to run off the async runtime.
//! Failures at run time are logged and counted, never returned: serving goes on without
//! the store, as it does without the request log.

mod db;
mod record;
mod stats;
mod store;
mod writer;

pub use record::{
    now_ms, query_hash, AnswerKind, AnswerShown, Execution, Feedback, OutcomeKind, Record, Signal,
};
pub use stats::{
    ErrorPattern, FeedbackEvent, ParameterUsage, ToolUse, UnmetQuery, UsageOverview, UsageStats,
};

use crate::config::{Config, UsageConfig};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use store::SqliteStore;

/// Records between two prunes: often enough that the row bound is never exceeded by much,
/// rarely enough that pruning costs nothing next to writing.
const PRUNE_EVERY: u64 = 1000;
/// An execution within this long after an answer that returned its tool, in the same
/// session, selects that tool implicitly.
const IMPLICIT_WINDOW: Duration = Duration::from_secs(30 * 60);

/// Where usage is recorded and read back. Recording methods return at once; read methods
/// block on the database and belong off the async runtime.
pub trait UsageStore: Send + Sync {
    /// Queues a record for the writer; when the queue is full it is dropped and counted.
    fn record(&self, record: Record);

    fn record_execution(&self, execution: Execution) {
        self.record(Record::Execution(execution));
    }

    fn record_answer(&self, answer: AnswerShown) {
        self.record(Record::Answer(answer));
    }

    /// Records feedback as given; check it first with `Feedback::check`.
    fn record_feedback(&self, feedback: Feedback) {
        self.record(Record::Feedback(feedback));
    }

    /// The tool's statistics, `None` when it has no execution on record (or the store is off).
    fn stats_for(&self, tool_id: &str) -> Option<UsageStats>;

    /// The statistics only once the tool has `min_calls` executions: what ranking and
    /// comparisons should use in place of the catalog's own figures.
    fn measured_stats(&self, tool_id: &str) -> Option<UsageStats> {
        self.stats_for(tool_id)
            .filter(|s| s.total_uses >= self.min_calls())
    }

    /// Totals, the `limit` most used tools, the `limit` most failing ones and the `limit`
    /// most frequent queries that found nothing good.
    fn overview(&self, limit: usize) -> UsageOverview;

    /// Every executed tool's uses, failures and latency, without the overview's error
    /// patterns and queries: what the engine's measured figures are refreshed from.
    fn tool_uses(&self) -> Vec<ToolUse>;

    /// The newest `limit` feedback rows, with the answers they are about.
    fn feedback_events(&self, limit: usize) -> Vec<FeedbackEvent>;

    /// Waits until everything recorded before the call is written, up to `timeout`; whether
    /// it was. For tests and a clean shutdown.
    fn flush(&self, timeout: Duration) -> bool;

    /// What `/health` shows of the store.
    fn health(&self) -> UsageHealth;

    /// Executions before a tool's measured figures are used (`[usage] min_calls`).
    fn min_calls(&self) -> u64;
}

/// The store's state for `/health`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageHealth {
    pub enabled: bool,
    /// The database file, when the store is on (as text: a path need not be UTF-8, JSON is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Records written since the start.
    pub written: u64,
    /// Records dropped because the writer's queue was full.
    pub dropped: u64,
    /// Records lost to failed writes (the log says why, once).
    pub failed: u64,
    /// Why the store is off, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off_reason: Option<String>,
}

/// The store's settings, from the configuration (`Options::new`) or a test.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) dir: PathBuf,
    pub(crate) retention_days: u32,
    pub(crate) retention_rows: u64,
    pub(crate) queue: usize,
    pub(crate) min_calls: u64,
    pub(crate) prune_every: u64,
    pub(crate) implicit_window_ms: i64,
}

impl Options {
    pub(crate) fn new(dir: &Path, usage: &UsageConfig) -> Options {
        Options {
            dir: dir.to_path_buf(),
            retention_days: usage.retention_days,
            retention_rows: usage.retention_rows,
            queue: usage.queue,
            min_calls: usage.min_calls,
            prune_every: PRUNE_EVERY,
            implicit_window_ms: IMPLICIT_WINDOW.as_millis() as i64,
        }
    }
}

/// The usage store of a configuration: SQLite in `data_dir`, or a store that records nothing
/// when `data_dir` is empty or unusable (said once in the log; serving goes on).
pub fn open(config: &Config) -> Arc<dyn UsageStore> {
    match &config.data_dir {
        Some(dir) => open_with(&Options::new(dir, &config.usage)),
        None => Arc::new(NoopStore::new(
            "data_dir is empty".into(),
            config.usage.min_calls,
        )),
    }
}

pub(crate) fn open_with(options: &Options) -> Arc<dyn UsageStore> {
    match SqliteStore::open(options) {
        Ok(store) => Arc::new(store),
        Err(why) => {
            tracing::warn!(
                data_dir = %options.dir.display(),
                error = %why,
                "cannot open the usage store; serving without recording usage"
            );
            Arc::new(NoopStore::new(why, options.min_calls))
        }
    }
}

/// The store when it is off: records go nowhere, reads find nothing.
pub(crate) struct NoopStore {
    reason: String,
    min_calls: u64,
}

impl NoopStore {
    pub(crate) fn new(reason: String, min_calls: u64) -> NoopStore {
        NoopStore { reason, min_calls }
    }
}

impl UsageStore for NoopStore {
    fn record(&self, _record: Record) {}

    fn stats_for(&self, _tool_id: &str) -> Option<UsageStats> {
        None
    }

    fn overview(&self, _limit: usize) -> UsageOverview {
        UsageOverview::default()
    }

    fn tool_uses(&self) -> Vec<ToolUse> {
        Vec::new()
    }

    fn feedback_events(&self, _limit: usize) -> Vec<FeedbackEvent> {
        Vec::new()
    }

    fn flush(&self, _timeout: Duration) -> bool {
        true
    }

    fn health(&self) -> UsageHealth {
        UsageHealth {
            enabled: false,
            path: None,
            written: 0,
            dropped: 0,
            failed: 0,
            off_reason: Some(self.reason.clone()),
        }
    }

    fn min_calls(&self) -> u64 {
        self.min_calls
    }
}

#[cfg(test)]
mod kill_tests;
#[cfg(test)]
mod measure_tests;
#[cfg(test)]
mod stats_tests;
#[cfg(test)]
mod tests;

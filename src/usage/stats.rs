//! The read side of the usage store: seed 002's `UsageStatistics` of one tool, the overview
//! behind `GET /stats` (the catalog maintainers' to-do list), and the feedback events a
//! learning index reads. Plain SQL over the reader's connection; nothing here writes.

use super::record::{rfc3339, AnswerKind, Signal};
use rusqlite::{params, Connection};
use serde::Serialize;
use serde_json::Value;

/// Other tools listed in `often_used_with`, and parameters in `common_parameters`, at most.
const RELATED_LIMIT: usize = 10;
/// Error codes listed per failing tool in the overview.
const ERRORS_PER_TOOL: usize = 3;
/// Outcomes that count as successful uses (`OutcomeKind::is_success`), in SQL.
const SUCCESS: &str = "outcome IN ('ok', 'empty')";

/// Seed 002's `UsageStatistics` of one tool, with the schema's field names
/// (`$defs/UsageStatistics`; the fields it leaves optional and nothing measures are left out).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageStats {
    pub total_uses: u64,
    pub successful_uses: u64,
    pub failed_uses: u64,
    /// Successful uses / total uses, 0 to 1.
    pub success_rate: f64,
    /// Milliseconds.
    pub average_execution_time: f64,
    pub median_execution_time: f64,
    /// Nearest rank: the smallest latency at least 95% of executions did not exceed.
    pub p95_execution_time: f64,
    /// Argument names by how many executions gave them, most first.
    pub common_parameters: Vec<ParameterUsage>,
    /// Failures by error code (or outcome, for a failure without a code), most first.
    pub error_patterns: Vec<ErrorPattern>,
    /// Other tools executed in the same sessions, by the number of such sessions.
    pub often_used_with: Vec<String>,
    /// When the figures last changed: the tool's latest execution (its last use).
    pub last_updated: String,
    /// How far the figures can be trusted: n / (n + min_calls), so 0.5 at `min_calls` uses.
    pub data_quality_score: f64,
}

/// Seed 002's `ParameterUsage`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParameterUsage {
    pub parameter_name: String,
    /// Executions that gave the argument.
    pub usage_frequency: u64,
    /// Always empty: argument values are not recorded (they hold paths and secrets).
    pub common_values: Vec<Value>,
}

/// Seed 002's `ErrorPattern`; causes and resolutions are the error code's own, which the
/// executor knows, so they are left to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorPattern {
    pub error_type: String,
    pub frequency: u64,
    pub common_causes: Vec<String>,
    pub resolution_suggestions: Vec<String>,
}

/// What `GET /stats` shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UsageOverview {
    /// Records held, per table.
    pub executions: u64,
    pub answers: u64,
    pub feedback: u64,
    /// Tools by uses, most first.
    pub top_tools: Vec<ToolUse>,
    /// Tools that failed at least once, by failure rate, highest first.
    pub failing_tools: Vec<ToolUse>,
    /// Queries whose answers returned nothing or were called not helpful, most often first.
    pub unmet_queries: Vec<UnmetQuery>,
}

/// One tool's line in the overview.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUse {
    pub tool_id: String,
    pub total_uses: u64,
    pub failed_uses: u64,
    pub success_rate: f64,
    pub failure_rate: f64,
    pub average_execution_time: f64,
    pub last_used: String,
    /// Its most frequent error codes (failing tools only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub common_errors: Vec<ErrorPattern>,
}

/// A query that found nothing good.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnmetQuery {
    /// The latest wording of the query.
    pub query: String,
    pub query_hash: String,
    /// Answers that returned no tool, plus `not_helpful` feedback on its answers.
    pub times: u64,
    pub empty_answers: u64,
    pub not_helpful: u64,
    pub last_seen: String,
}

/// One feedback row with the answer it is about, for learning from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeedbackEvent {
    pub request_id: Option<String>,
    pub session_id: Option<String>,
    /// The feedback's own query, else its answer's.
    pub query: Option<String>,
    pub query_hash: Option<String>,
    pub tool_id: String,
    pub signal: Signal,
    /// Derived from an execution after the answer, not said by the caller.
    pub implicit: bool,
    pub comment: Option<String>,
    pub time_ms: i64,
    /// The answer's kind and tool ids in rank order, when the answer is known.
    pub answer_kind: Option<AnswerKind>,
    pub returned: Vec<String>,
    /// The tool's rank in that answer, from 1.
    pub rank: Option<u32>,
}

/// Median of sorted values (the mean of the middle two for an even count).
pub(crate) fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Nearest-rank percentile of sorted values: the value at rank ceil(p x n).
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// One tool's statistics; `None` when it has no execution on record.
pub(crate) fn stats_for(
    conn: &Connection,
    tool_id: &str,
    min_calls: u64,
) -> rusqlite::Result<Option<UsageStats>> {
    let (total, ok, avg, last): (i64, i64, f64, i64) = conn.query_row(
        &format!(
            "SELECT count(*), coalesce(sum({SUCCESS}), 0), coalesce(avg(latency_ms), 0),
             coalesce(max(time_ms), 0) FROM executions WHERE tool_id = ?1"
        ),
        [tool_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    if total == 0 {
        return Ok(None);
    }
    let latencies: Vec<f64> = conn
        .prepare_cached("SELECT latency_ms FROM executions WHERE tool_id = ?1 ORDER BY latency_ms")?
        .query_map([tool_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let (total, ok) = (count(total), count(ok));
    Ok(Some(UsageStats {
        total_uses: total,
        successful_uses: ok,
        failed_uses: total - ok.min(total),
        success_rate: ratio(ok, total),
        average_execution_time: avg,
        median_execution_time: median(&latencies),
        p95_execution_time: percentile(&latencies, 0.95),
        common_parameters: common_parameters(conn, tool_id)?,
        error_patterns: error_patterns(conn, tool_id, RELATED_LIMIT)?,
        often_used_with: often_used_with(conn, tool_id)?,
        last_updated: rfc3339(last),
        data_quality_score: ratio(total, total + min_calls),
    }))
}

fn common_parameters(conn: &Connection, tool_id: &str) -> rusqlite::Result<Vec<ParameterUsage>> {
    conn.prepare_cached(
        "SELECT j.value, count(*) AS n FROM executions e, json_each(e.params) j
         WHERE e.tool_id = ?1 GROUP BY j.value ORDER BY n DESC, j.value LIMIT ?2",
    )?
    .query_map(params![tool_id, RELATED_LIMIT as i64], |r| {
        Ok(ParameterUsage {
            parameter_name: r.get(0)?,
            usage_frequency: count(r.get(1)?),
            common_values: Vec::new(),
        })
    })?
    .collect()
}

fn error_patterns(
    conn: &Connection,
    tool_id: &str,
    limit: usize,
) -> rusqlite::Result<Vec<ErrorPattern>> {
    conn.prepare_cached(&format!(
        "SELECT coalesce(error_code, outcome) AS code, count(*) AS n FROM executions
         WHERE tool_id = ?1 AND NOT {SUCCESS} GROUP BY code ORDER BY n DESC, code LIMIT ?2"
    ))?
    .query_map(params![tool_id, limit as i64], |r| {
        Ok(ErrorPattern {
            error_type: r.get(0)?,
            frequency: count(r.get(1)?),
            common_causes: Vec::new(),
            resolution_suggestions: Vec::new(),
        })
    })?
    .collect()
}

/// Tools executed in the sessions that executed `tool_id`, by how many of those sessions.
fn often_used_with(conn: &Connection, tool_id: &str) -> rusqlite::Result<Vec<String>> {
    conn.prepare_cached(
        "SELECT tool_id, count(DISTINCT session_id) AS n FROM executions
         WHERE session_id IN (SELECT session_id FROM executions
                              WHERE tool_id = ?1 AND session_id IS NOT NULL)
           AND tool_id <> ?1
         GROUP BY tool_id ORDER BY n DESC, tool_id LIMIT ?2",
    )?
    .query_map(params![tool_id, RELATED_LIMIT as i64], |r| r.get(0))?
    .collect()
}

/// The overview: totals, the `limit` most used tools, the `limit` most failing ones, and
/// the `limit` most frequent queries that found nothing good.
pub(crate) fn overview(conn: &Connection, limit: usize) -> rusqlite::Result<UsageOverview> {
    let total = |table: &str| -> rusqlite::Result<u64> {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| {
            r.get::<_, i64>(0)
        })
        .map(count)
    };
    // One pass over the executions gives every tool's line; tools number in the thousands
    // at most, so both orders are taken here rather than by scanning the table twice.
    let tools = tool_uses(conn)?;
    let mut top = tools.clone();
    top.sort_by(|a, b| {
        b.total_uses
            .cmp(&a.total_uses)
            .then(a.tool_id.cmp(&b.tool_id))
    });
    top.truncate(limit);
    let mut failing: Vec<ToolUse> = tools.into_iter().filter(|t| t.failed_uses > 0).collect();
    failing.sort_by(|a, b| {
        b.failure_rate
            .total_cmp(&a.failure_rate)
            .then(b.failed_uses.cmp(&a.failed_uses))
            .then(a.tool_id.cmp(&b.tool_id))
    });
    failing.truncate(limit);
    for tool in &mut failing {
        tool.common_errors = error_patterns(conn, &tool.tool_id, ERRORS_PER_TOOL)?;
    }
    Ok(UsageOverview {
        executions: total("executions")?,
        answers: total("answers")?,
        feedback: total("feedback")?,
        top_tools: top,
        failing_tools: failing,
        unmet_queries: unmet_queries(conn, limit)?,
    })
}

/// Every executed tool's line of the overview (in no particular order).
pub(crate) fn tool_uses(conn: &Connection) -> rusqlite::Result<Vec<ToolUse>> {
    conn.prepare(&format!(
        "SELECT tool_id, count(*), count(*) - sum({SUCCESS}), avg(latency_ms), max(time_ms)
         FROM executions GROUP BY tool_id"
    ))?
    .query_map([], |r| {
        let (total, failed) = (count(r.get(1)?), count(r.get(2)?));
        Ok(ToolUse {
            tool_id: r.get(0)?,
            total_uses: total,
            failed_uses: failed,
            success_rate: ratio(total - failed.min(total), total),
            failure_rate: ratio(failed, total),
            average_execution_time: r.get(3)?,
            last_used: rfc3339(r.get(4)?),
            common_errors: Vec::new(),
        })
    })?
    .collect()
}

/// Queries with empty answers or `not_helpful` feedback, grouped by their hash; the text
/// shown is the latest wording (SQLite takes a bare column from the row of `max`).
fn unmet_queries(conn: &Connection, limit: usize) -> rusqlite::Result<Vec<UnmetQuery>> {
    conn.prepare(
        "WITH unmet (hash, text, time_ms, empty, unhelpful) AS (
             SELECT query_hash, query_text, time_ms, 1, 0 FROM answers WHERE result_count = 0
             UNION ALL
             SELECT coalesce(a.query_hash, f.query_hash), coalesce(a.query_text, f.query_text),
                    f.time_ms, 0, 1
             FROM feedback f LEFT JOIN answers a ON a.id =
                 (SELECT id FROM answers WHERE request_id = f.request_id LIMIT 1)
             WHERE f.signal = 'not_helpful')
         SELECT hash, text, max(time_ms), count(*) AS n, sum(empty), sum(unhelpful)
         FROM unmet WHERE hash IS NOT NULL GROUP BY hash ORDER BY n DESC, max(time_ms) DESC
         LIMIT ?1",
    )?
    .query_map([limit as i64], |r| {
        Ok(UnmetQuery {
            query_hash: r.get(0)?,
            query: r.get(1)?,
            last_seen: rfc3339(r.get(2)?),
            times: count(r.get(3)?),
            empty_answers: count(r.get(4)?),
            not_helpful: count(r.get(5)?),
        })
    })?
    .collect()
}

/// The newest `limit` feedback rows, newest first, each with its answer when known (by
/// request id).
pub(crate) fn feedback_events(
    conn: &Connection,
    limit: usize,
) -> rusqlite::Result<Vec<FeedbackEvent>> {
    let mut statement = conn.prepare(
        "SELECT f.request_id, f.session_id, coalesce(f.query_text, a.query_text),
                coalesce(f.query_hash, a.query_hash), f.tool_id, f.signal, f.implicit,
                f.comment, f.time_ms, a.kind, a.tool_ids
         FROM feedback f LEFT JOIN answers a ON a.id =
             (SELECT id FROM answers WHERE request_id = f.request_id LIMIT 1)
         ORDER BY f.id DESC LIMIT ?1",
    )?;
    let rows = statement.query_map([limit as i64], |r| {
        let signal: String = r.get(5)?;
        let kind: Option<String> = r.get(9)?;
        let ids: Option<String> = r.get(10)?;
        let tool_id: String = r.get(4)?;
        let returned: Vec<String> = ids
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default();
        let rank = returned
            .iter()
            .position(|id| *id == tool_id)
            .and_then(|i| u32::try_from(i + 1).ok());
        Ok(FeedbackEvent {
            request_id: r.get(0)?,
            session_id: r.get(1)?,
            query: r.get(2)?,
            query_hash: r.get(3)?,
            signal: Signal::parse(&signal).unwrap_or(Signal::Selected),
            implicit: r.get(6)?,
            comment: r.get(7)?,
            time_ms: r.get(8)?,
            answer_kind: kind.as_deref().and_then(AnswerKind::parse),
            tool_id,
            returned,
            rank,
        })
    })?;
    rows.collect()
}

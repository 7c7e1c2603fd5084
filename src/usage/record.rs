//! What the usage store records: a tool's execution, an answer shown to a caller, and
//! feedback on a tool of an answer. Plain owned values, so a door builds one and hands it
//! over without the store borrowing anything from the request.

use crate::error::{Error, Result, Violation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Milliseconds since the Unix epoch, now: the time every record carries.
pub fn now_ms() -> i64 {
    let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
    i64::try_from(nanos / 1_000_000).unwrap_or(i64::MAX)
}

/// A time of the store as RFC 3339 with millisecond precision.
pub(crate) fn rfc3339(ms: i64) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".into())
}

/// The key that groups a query's answers and feedback: SHA-256 of its words, lowercased and
/// single-spaced, so "Find  Callers" and "find callers" count as one query. 32 hex digits.
pub fn query_hash(text: &str) -> String {
    let normal = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let digest = Sha256::digest(normal.as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// How an execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// It ran and returned results.
    #[default]
    Ok,
    /// It ran and found nothing: a success of the tool, not a failure.
    Empty,
    /// It failed; the execution's `error_code` says how.
    Error,
    /// It ran past its time limit.
    Timeout,
}

impl OutcomeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Ok => "ok",
            OutcomeKind::Empty => "empty",
            OutcomeKind::Error => "error",
            OutcomeKind::Timeout => "timeout",
        }
    }

    /// Whether the use counts as successful in the statistics.
    pub fn is_success(self) -> bool {
        matches!(self, OutcomeKind::Ok | OutcomeKind::Empty)
    }
}

/// One execution of a tool, through any door.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Execution {
    pub tool_id: String,
    /// Where the tool runs: `builtin`, or the upstream source's name.
    pub source: String,
    pub outcome: OutcomeKind,
    /// The stable error code of a failure (`pathValidationFailed`, `mcpToolError`, ...).
    pub error_code: Option<String>,
    pub latency_ms: f64,
    pub output_bytes: u64,
    /// Queries in the call (a call carries 1 to 5).
    pub query_count: u32,
    /// Names of the arguments given, for `common_parameters`. Values are never recorded:
    /// they hold paths, repositories and, now and then, secrets.
    pub parameters: Vec<String>,
    /// When it ran (`now_ms()`; 0: when the writer writes it).
    pub time_ms: i64,
    pub session_id: Option<String>,
    pub request_id: Option<String>,
}

/// Which door's answer was shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    #[default]
    Search,
    Recommend,
}

impl AnswerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerKind::Search => "search",
            AnswerKind::Recommend => "recommend",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<AnswerKind> {
        match s {
            "search" => Some(AnswerKind::Search),
            "recommend" => Some(AnswerKind::Recommend),
            _ => None,
        }
    }
}

/// A search or recommend answer as it was shown.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnswerShown {
    pub request_id: String,
    pub session_id: Option<String>,
    pub kind: AnswerKind,
    /// The query (or task) as the caller wrote it; the store hashes it (`query_hash`).
    pub query: String,
    /// The tool ids returned, best first: rank is the position, from 1.
    pub tool_ids: Vec<String>,
    /// When it was shown (`now_ms()`; 0: when the writer writes it).
    pub time_ms: i64,
}

/// What feedback says about a tool of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// The caller chose the tool (said so, or ran it after the answer: implicit).
    Selected,
    Helpful,
    NotHelpful,
}

impl Signal {
    pub fn as_str(self) -> &'static str {
        match self {
            Signal::Selected => "selected",
            Signal::Helpful => "helpful",
            Signal::NotHelpful => "not_helpful",
        }
    }

    pub fn parse(s: &str) -> Option<Signal> {
        match s {
            "selected" => Some(Signal::Selected),
            "helpful" => Some(Signal::Helpful),
            "not_helpful" => Some(Signal::NotHelpful),
            _ => None,
        }
    }
}

/// Feedback on a tool of an answer, named by its request id or by its query.
#[derive(Debug, Clone, PartialEq)]
pub struct Feedback {
    pub request_id: Option<String>,
    pub query: Option<String>,
    pub tool_id: String,
    pub signal: Signal,
    pub comment: Option<String>,
    pub session_id: Option<String>,
    /// When it was given (`now_ms()`; 0: when the writer writes it).
    pub time_ms: i64,
}

impl Feedback {
    /// A request id or a query is required, and a tool id: feedback that names no answer
    /// cannot teach anything. The error is the one every door renders for a bad body.
    pub fn check(&self) -> Result<()> {
        let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
        let mut violations = Vec::new();
        if blank(&self.request_id) && blank(&self.query) {
            violations.push(Violation {
                pointer: String::new(),
                message: "expected a request_id or a query naming the answer, found neither".into(),
            });
        }
        if self.tool_id.trim().is_empty() {
            violations.push(Violation {
                pointer: "/tool_id".into(),
                message: "expected a tool id, found an empty string".into(),
            });
        }
        if violations.is_empty() {
            Ok(())
        } else {
            Err(Error::Validation {
                what: "feedback".into(),
                violations,
            })
        }
    }
}

/// Any record, as it travels to the writer.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Execution(Execution),
    Answer(AnswerShown),
    Feedback(Feedback),
}

impl From<Execution> for Record {
    fn from(e: Execution) -> Record {
        Record::Execution(e)
    }
}

impl From<AnswerShown> for Record {
    fn from(a: AnswerShown) -> Record {
        Record::Answer(a)
    }
}

impl From<Feedback> for Record {
    fn from(f: Feedback) -> Record {
        Record::Feedback(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_hashes_ignore_case_and_spacing_only() {
        assert_eq!(query_hash("Find  callers\n"), query_hash("find callers"));
        assert_ne!(query_hash("find callers"), query_hash("find caller"));
        assert_eq!(query_hash("").len(), 32);
    }

    #[test]
    fn times_render_as_rfc3339_with_milliseconds() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert!(crate::time::parse_rfc3339(&rfc3339(now_ms())).is_some());
    }

    #[test]
    fn feedback_needs_an_answer_and_a_tool() {
        let mut f = Feedback {
            request_id: None,
            query: Some("  ".into()),
            tool_id: String::new(),
            signal: Signal::Helpful,
            comment: None,
            session_id: None,
            time_ms: 0,
        };
        match f.check() {
            Err(Error::Validation { violations, .. }) => assert_eq!(violations.len(), 2),
            other => panic!("expected a validation error, found {other:?}"),
        }
        f.query = Some("grep for a symbol".into());
        f.tool_id = "local_search_code".into();
        f.check().unwrap();
        assert_eq!(Signal::parse("not_helpful"), Some(Signal::NotHelpful));
        assert_eq!(
            Signal::parse(Signal::Selected.as_str()),
            Some(Signal::Selected)
        );
    }
}

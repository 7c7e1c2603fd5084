//! What one query of a tool call comes to: results (possibly empty), or an error that the
//! agent can act on. Errors carry a stable camelCase code (octocode's `errorCode` values,
//! such as `pathValidationFailed`), hints, and a kind that decides the HTTP status, whether
//! the query is retried and whether it counts against the tool's circuit breaker.

pub use super::error_code::ToolErrorCode;
use serde_json::{json, Map, Value};

/// A query that ran: its data object, which holds the tool's own `hints`.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub data: Value,
}

/// octocode's per-query status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    HasResults,
    Empty,
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::HasResults => "hasResults",
            Status::Empty => "empty",
            Status::Error => "error",
        }
    }
}

impl Outcome {
    /// Results. `data` is an object; an empty `hints` list is added when missing.
    pub fn found(data: Value) -> Outcome {
        Outcome {
            status: Status::HasResults,
            data: with_hints(data),
        }
    }

    /// Nothing matched. `data` explains why in its `hints`.
    pub fn empty(data: Value) -> Outcome {
        Outcome {
            status: Status::Empty,
            data: with_hints(data),
        }
    }
}

fn with_hints(mut data: Value) -> Value {
    if let Value::Object(map) = &mut data {
        map.entry("hints").or_insert_with(|| json!([]));
    }
    data
}

/// Why a query failed; decides status, retry and circuit accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The query is wrong (schema, conflicting options, bad pattern): 400, never retried.
    Invalid,
    /// The path is outside the sandbox or protected: 403.
    Denied,
    /// The file, repository, package or symbol does not exist: 404.
    NotFound,
    /// The file exists but cannot be served (binary, too large): 422.
    Unprocessable,
    /// An upstream service refused (auth, rate limit, 4xx): 502, retried only if `transient`.
    Upstream { transient: bool },
    /// The work ran past its time limit: 504, retried.
    Timeout,
    /// The tool's circuit is open, or a needed program is missing: 503.
    Unavailable,
}

impl Failure {
    pub fn http_status(self) -> u16 {
        match self {
            Failure::Invalid => 400,
            Failure::Denied => 403,
            Failure::NotFound => 404,
            Failure::Unprocessable => 422,
            Failure::Upstream { .. } => 502,
            Failure::Timeout => 504,
            Failure::Unavailable => 503,
        }
    }

    /// Worth another attempt: the same query may succeed in a moment.
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            Failure::Upstream { transient: true } | Failure::Timeout
        )
    }

    /// Counts against the circuit: the service misbehaved, not the query.
    pub fn trips_circuit(self) -> bool {
        matches!(self, Failure::Upstream { .. } | Failure::Timeout)
    }
}

/// A failed query, as the agent sees it in `data`: `{error, errorCode, hints, ...details}`.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryError {
    pub failure: Failure,
    /// Stable camelCase code, e.g. `pathValidationFailed`, `fileTooLarge`, `rateLimited`.
    pub code: ToolErrorCode,
    pub message: String,
    pub hints: Vec<String>,
    /// Extra fields for `data` (e.g. `resolvedPath`, `status`, `retryAfter`); boxed so a
    /// `Result<_, QueryError>` stays small on the happy path.
    pub details: Box<Map<String, Value>>,
}

impl QueryError {
    pub fn new(failure: Failure, code: ToolErrorCode, message: impl Into<String>) -> QueryError {
        QueryError {
            failure,
            code,
            message: message.into(),
            hints: Vec::new(),
            details: Box::default(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> QueryError {
        QueryError::new(Failure::Invalid, ToolErrorCode::ValidationFailed, message)
    }

    pub fn hint(mut self, hint: impl Into<String>) -> QueryError {
        self.hints.push(hint.into());
        self
    }

    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> QueryError {
        self.details.insert(key.to_string(), value.into());
        self
    }

    /// The `data` object of an error result.
    pub fn to_data(&self) -> Value {
        let mut data = Map::new();
        data.insert("error".into(), json!(self.message));
        data.insert("errorCode".into(), json!(self.code.as_str()));
        for (k, v) in self.details.iter() {
            data.insert(k.clone(), v.clone());
        }
        data.insert("hints".into(), json!(self.hints));
        Value::Object(data)
    }
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

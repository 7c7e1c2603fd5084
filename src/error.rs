//! The one error type of toolscout: every failure a user can see, with a stable code, an HTTP
//! status, a seed-002 `error_type` and recovery suggestions. Transports render it; they never
//! invent their own error text, so the same mistake reads the same through every door.

use serde::Serialize;
use serde_json::{json, Value};
use std::path::PathBuf;

/// One violation of a JSON Schema or of a cross-check, located by a JSON pointer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    /// JSON pointer into the offending document ("" is the whole document).
    pub pointer: String,
    /// What was expected and what was found, in one sentence.
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid {what}: {}", summarize(.violations))]
    Validation {
        what: String,
        violations: Vec<Violation>,
    },
    #[error("no tool with id '{id}'{}", suggest(.suggestions))]
    ToolNotFound {
        id: String,
        suggestions: Vec<String>,
    },
    #[error("'{name}' is not a tool toolscout runs{}", suggest(.suggestions))]
    ToolNotRunnable {
        name: String,
        suggestions: Vec<String>,
        runnable: Vec<String>,
    },
    #[error("the catalog at {} is invalid: {errors} error(s) in {files} file(s)", .dir.display())]
    CatalogInvalid {
        dir: PathBuf,
        errors: usize,
        files: usize,
    },
    #[error("cannot read or write {}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("no prompt named '{name}'{}", suggest(.suggestions))]
    PromptNotFound {
        name: String,
        suggestions: Vec<String>,
        available: Vec<String>,
    },
    #[error("the embedding model is unavailable: {reason}")]
    ModelUnavailable { reason: String },
    #[error("embedding failed: {reason}")]
    EmbeddingFailed { reason: String },
    #[error("catalog source '{source_name}' failed: {message}")]
    Upstream {
        source_name: String,
        message: String,
    },
    #[error("the catalog was not reloaded: {reason}")]
    ReloadFailed { reason: String },
    #[error("too busy: all {workers} {work} workers are busy and {waiting} request(s) wait; retry after {retry_after} s")]
    Overloaded {
        work: &'static str,
        workers: usize,
        waiting: usize,
        /// Seconds, as sent in `Retry-After`.
        retry_after: u64,
    },
    #[error("internal error")]
    Internal(String),
}

/// Seconds an overloaded server asks a client to wait: a queue drains in well under one.
const OVERLOAD_RETRY_AFTER: u64 = 1;

impl From<crate::admission::Refused> for Error {
    fn from(refused: crate::admission::Refused) -> Error {
        match refused {
            crate::admission::Refused::Overloaded {
                work,
                workers,
                waiting,
                ..
            } => Error::Overloaded {
                work,
                workers,
                waiting,
                retry_after: OVERLOAD_RETRY_AFTER,
            },
            crate::admission::Refused::Died(why) => Error::Internal(format!("work failed: {why}")),
        }
    }
}

/// An error and its causes, in one line: "error sending request" alone does not say that the
/// connection was refused.
pub(crate) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let part = e.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        cause = e.source();
    }
    text
}

fn summarize(violations: &[Violation]) -> String {
    match violations {
        [] => "no details".to_string(),
        [one] => format!("{}: {}", pointer_or_root(&one.pointer), one.message),
        [first, rest @ ..] => format!(
            "{}: {} (and {} more)",
            pointer_or_root(&first.pointer),
            first.message,
            rest.len()
        ),
    }
}

fn pointer_or_root(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(root)"
    } else {
        pointer
    }
}

fn suggest(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    }
}

/// Seed 002's `ErrorType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    ValidationError,
    NotFoundError,
    SystemError,
    PermissionError,
    ServiceUnavailable,
}

/// A table of error codes, in the manner of meilisearch's: each code declared once with its
/// HTTP status, seed 002 `error_type` and the recovery suggestions that hold whatever the
/// details. This module's table is `Code` (`Error::code_of` maps each variant to its row);
/// the HTTP layer keeps its own for conditions only HTTP has (routes, methods, sizes, auth).
macro_rules! error_codes {
    ($name:ident {
        $($code:ident => $text:literal, $status:literal, $kind:ident, [$($hint:literal),* $(,)?];)*
    }) => {
        /// A stable error code (`error_code` in every error body).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($code,)*
        }

        impl $name {
            /// Every code, in table order.
            pub const ALL: &'static [$name] = &[$($name::$code,)*];
        }

        impl $crate::error::ErrorCode for $name {
            /// The code as it appears in error bodies and the README.
            fn as_str(self) -> &'static str {
                match self {
                    $($name::$code => $text,)*
                }
            }

            /// HTTP status, as a number so this module does not depend on a web framework.
            fn status(self) -> u16 {
                match self {
                    $($name::$code => $status,)*
                }
            }

            fn error_type(self) -> $crate::error::ErrorType {
                match self {
                    $($name::$code => $crate::error::ErrorType::$kind,)*
                }
            }

            /// Suggestions that hold for every error of this code.
            fn hints(self) -> &'static [&'static str] {
                match self {
                    $($name::$code => &[$($hint,)*],)*
                }
            }
        }
    };
}
pub(crate) use error_codes;

error_codes! { Code {
    ValidationFailed => "VALIDATION_FAILED", 400, ValidationError, [
        "Fix each listed field; every violation names its JSON pointer",
        "GET /openapi.json or the schemas/ directory describe every request body",
    ];
    ToolNotFound => "TOOL_NOT_FOUND", 404, NotFoundError, ["GET /catalog/tools lists every tool id"];
    ToolNotRunnable => "TOOL_NOT_RUNNABLE", 404, NotFoundError, [
        "GET /tools/list lists the tools toolscout runs",
        "POST /search finds a tool for a task; catalog-only tools are run by their own programs",
    ];
    PromptNotFound => "PROMPT_NOT_FOUND", 404, NotFoundError, ["GET /prompts/list lists every prompt"];
    CatalogInvalid => "CATALOG_INVALID", 500, ServiceUnavailable, [];
    IoError => "IO_ERROR", 500, SystemError, [
        "Check that the path exists and is readable, or for a file toolscout writes, that its directory exists and is writable"
    ];
    ConfigInvalid => "CONFIG_INVALID", 500, ValidationError, [
        "Run `toolscout serve --print-config` to see the effective configuration",
        "See the README's configuration section for every key",
    ];
    ModelUnavailable => "MODEL_UNAVAILABLE", 503, ServiceUnavailable, [
        "Run `make models` (or `scripts/fetch-models`) to fetch the model files",
        "Check models_dir with `toolscout serve --print-config`; see models/README.md",
    ];
    EmbeddingFailed => "EMBEDDING_FAILED", 500, SystemError, [
        "Retry; if it persists, report it with the request id",
    ];
    UpstreamFailed => "UPSTREAM_FAILED", 502, ServiceUnavailable, [
        "Check the source's command, arguments and environment, or its url and headers, with `toolscout serve --print-config`",
        "Run the source's command by hand (it must speak MCP over stdin and stdout), or check that its url answers MCP POSTs",
    ];
    ReloadFailed => "RELOAD_FAILED", 422, ValidationError, [
        "The last good catalog keeps serving",
        "Run `toolscout catalog validate` on the catalog directory and fix what it reports",
    ];
    Overloaded => "OVERLOADED", 503, ServiceUnavailable, [
        "Retry after the Retry-After seconds, with backoff",
        "Raise workers or queue in the [limits] table of the configuration if the machine has room",
    ];
    InternalError => "INTERNAL_ERROR", 500, SystemError, [
        "Retry; if it persists, report it with the request id",
    ];
}}

impl Error {
    /// The variant's row in the code table.
    pub fn code_of(&self) -> Code {
        match self {
            Error::Validation { .. } => Code::ValidationFailed,
            Error::ToolNotFound { .. } => Code::ToolNotFound,
            Error::ToolNotRunnable { .. } => Code::ToolNotRunnable,
            Error::PromptNotFound { .. } => Code::PromptNotFound,
            Error::CatalogInvalid { .. } => Code::CatalogInvalid,
            Error::Io { .. } => Code::IoError,
            Error::Config(_) => Code::ConfigInvalid,
            Error::ModelUnavailable { .. } => Code::ModelUnavailable,
            Error::EmbeddingFailed { .. } => Code::EmbeddingFailed,
            Error::Upstream { .. } => Code::UpstreamFailed,
            Error::ReloadFailed { .. } => Code::ReloadFailed,
            Error::Overloaded { .. } => Code::Overloaded,
            Error::Internal(_) => Code::InternalError,
        }
    }

    /// Stable machine-readable code; documented in the README's error table.
    pub fn code(&self) -> &'static str {
        self.code_of().as_str()
    }

    pub fn status(&self) -> u16 {
        self.code_of().status()
    }

    pub fn error_type(&self) -> ErrorType {
        self.code_of().error_type()
    }

    /// What the caller can do about it: suggestions drawn from this error's details (close
    /// names, the catalog to fix) first, then those of its code.
    pub fn recovery_suggestions(&self) -> Vec<String> {
        let mut out: Vec<String> = match self {
            Error::ToolNotFound { suggestions, .. } => suggestions
                .iter()
                .map(|id| format!("Try the tool id '{id}'"))
                .collect(),
            Error::ToolNotRunnable { suggestions, .. } => suggestions
                .iter()
                .map(|name| format!("Try the tool '{name}'"))
                .collect(),
            Error::PromptNotFound { suggestions, .. } => suggestions
                .iter()
                .map(|name| format!("Try the prompt '{name}'"))
                .collect(),
            Error::CatalogInvalid { dir, .. } => vec![format!(
                "Run `toolscout catalog validate {}` and fix the reported files",
                dir.display()
            )],
            _ => Vec::new(),
        };
        out.extend(self.code_of().hints().iter().map(|h| h.to_string()));
        out
    }

    /// The message shown to users. Internal causes stay in the logs.
    pub fn public_message(&self) -> String {
        match self {
            Error::Internal(_) => "internal error; the cause has been logged".to_string(),
            Error::Io { .. } => "internal I/O error; the cause has been logged".to_string(),
            Error::EmbeddingFailed { .. } => {
                "embedding failed; the cause has been logged".to_string()
            }
            other => other.to_string(),
        }
    }

    /// Offending parameters, for `ErrorDetail.context.parameters`.
    pub fn parameters(&self) -> Value {
        match self {
            Error::Validation { violations, .. } => json!({ "violations": violations }),
            Error::ToolNotFound { id, suggestions } => {
                json!({ "tool_id": id, "suggestions": suggestions })
            }
            Error::ToolNotRunnable {
                name,
                suggestions,
                runnable,
            } => json!({ "tool": name, "suggestions": suggestions, "runnable_tools": runnable }),
            Error::PromptNotFound {
                name,
                suggestions,
                available,
            } => {
                json!({ "name": name, "suggestions": suggestions, "available_prompts": available })
            }
            Error::Overloaded {
                work,
                workers,
                waiting,
                retry_after,
            } => json!({
                "work": work, "workers": workers, "waiting": waiting,
                "retry_after_seconds": retry_after,
            }),
            _ => json!({}),
        }
    }

    /// Seconds a client should wait before it tries again, for `Retry-After`.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Error::Overloaded { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }

    /// Seed 002's `ErrorDetail` for this error.
    pub fn detail(&self, operation: &str, request_id: Option<&str>) -> Value {
        error_detail(
            self.code_of(),
            self.public_message(),
            self.parameters(),
            self.recovery_suggestions(),
            (operation, request_id),
        )
    }
}

/// Seed 002's `ErrorDetail`: a code's row (`code`), what happened, its parameters and the
/// suggestions, with the operation and request id. Every error body of every layer is made
/// here, so all share one shape.
pub fn error_detail<C: ErrorCode>(
    code: C,
    message: String,
    parameters: Value,
    suggestions: Vec<String>,
    (operation, request_id): (&str, Option<&str>),
) -> Value {
    let mut context = json!({ "operation": operation, "parameters": parameters });
    if let Some(id) = request_id {
        context["request_id"] = json!(id);
    }
    json!({
        "error_code": code.as_str(),
        "message": message,
        "error_type": code.error_type(),
        "context": context,
        "timestamp": crate::time::now_rfc3339(),
        "recovery_suggestions": suggestions,
    })
}

/// A row of an error-code table (`error_codes!`): what every error body reads from it.
pub trait ErrorCode: Copy {
    fn as_str(self) -> &'static str;
    fn status(self) -> u16;
    fn error_type(self) -> ErrorType;
    fn hints(self) -> &'static [&'static str];
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests;

//! Conditions only HTTP has: no such route, a method the route lacks, a body too large or
//! not JSON, a missing token. Their codes are this layer's own table (`error_codes!`, the
//! same shape as the service's), and their bodies the same `ErrorDetail`.

use crate::error::{error_codes, error_detail, ErrorCode};
use serde_json::{json, Value};

error_codes! { HttpCode {
    RouteNotFound => "ROUTE_NOT_FOUND", 404, NotFoundError, ["GET /openapi.json lists every route"];
    MethodNotAllowed => "METHOD_NOT_ALLOWED", 405, ValidationError, [
        "GET /openapi.json lists the methods of every route",
    ];
    PayloadTooLarge => "PAYLOAD_TOO_LARGE", 413, ValidationError, [
        "Send a smaller body, or raise max_body_bytes in the configuration",
    ];
    UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE", 415, ValidationError, [
        "Send the body as JSON with `Content-Type: application/json`",
    ];
    Unauthorized => "UNAUTHORIZED", 401, PermissionError, [
        "Send `Authorization: Bearer <token>` with the configured token",
    ];
    ShuttingDown => "SHUTTING_DOWN", 503, ServiceUnavailable, [
        "Retry after the Retry-After seconds, once the server is back, or on another instance",
    ];
}}

/// An HTTP-only condition with its details.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HttpError {
    #[error("no route {method} {path}")]
    RouteNotFound {
        method: String,
        path: String,
        available: Vec<String>,
    },
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    #[error("request body exceeds the limit of {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("expected content type application/json, found {found}")]
    UnsupportedMediaType { found: String },
    #[error("missing or invalid bearer token")]
    Unauthorized,
    #[error("the server is shutting down and takes no new requests")]
    ShuttingDown,
}

impl HttpError {
    pub fn code_of(&self) -> HttpCode {
        match self {
            HttpError::RouteNotFound { .. } => HttpCode::RouteNotFound,
            HttpError::MethodNotAllowed { .. } => HttpCode::MethodNotAllowed,
            HttpError::PayloadTooLarge { .. } => HttpCode::PayloadTooLarge,
            HttpError::UnsupportedMediaType { .. } => HttpCode::UnsupportedMediaType,
            HttpError::Unauthorized => HttpCode::Unauthorized,
            HttpError::ShuttingDown => HttpCode::ShuttingDown,
        }
    }

    /// Offending parameters, for `ErrorDetail.context.parameters`.
    fn parameters(&self) -> Value {
        match self {
            HttpError::RouteNotFound {
                method,
                path,
                available,
            } => json!({ "method": method, "path": path, "available_routes": available }),
            HttpError::MethodNotAllowed { method, path } => {
                json!({ "method": method, "path": path })
            }
            HttpError::PayloadTooLarge { limit } => json!({ "limit_bytes": limit }),
            HttpError::UnsupportedMediaType { found } => json!({ "content_type": found }),
            HttpError::Unauthorized | HttpError::ShuttingDown => json!({}),
        }
    }

    /// Seed 002's `ErrorDetail` for this condition.
    pub fn detail(&self, operation: &str, request_id: Option<&str>) -> Value {
        let code = self.code_of();
        let hints = code.hints().iter().map(|h| h.to_string()).collect();
        error_detail(
            code,
            self.to_string(),
            self.parameters(),
            hints,
            (operation, request_id),
        )
    }
}

//! The response envelopes: `{success: true, data, ...}` and `{success: false, error:
//! ErrorDetail}`. Errors keep the operation and request id so a caller can quote both.

use super::problem::HttpError;
use crate::error::{Error, ErrorCode};
use axum::extract::OriginalUri;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// What the request log needs to know about an error response; attached to the response as
/// an extension, since the body no longer carries the cause of a 5xx.
#[derive(Debug, Clone)]
pub(crate) struct ErrorInfo {
    pub code: &'static str,
    pub message: String,
    /// The internal cause, for 5xx only (never sent to the caller).
    pub cause: Option<String>,
}

/// What went wrong: an error of the service, or a condition only HTTP has.
#[derive(Debug)]
pub enum Problem {
    Service(Error),
    Http(HttpError),
}

impl From<Error> for Problem {
    fn from(e: Error) -> Problem {
        Problem::Service(e)
    }
}

impl From<HttpError> for Problem {
    fn from(e: HttpError) -> Problem {
        Problem::Http(e)
    }
}

impl Problem {
    fn status(&self) -> u16 {
        match self {
            Problem::Service(e) => e.status(),
            Problem::Http(e) => e.code_of().status(),
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Problem::Service(e) => e.code(),
            Problem::Http(e) => e.code_of().as_str(),
        }
    }

    fn public_message(&self) -> String {
        match self {
            Problem::Service(e) => e.public_message(),
            Problem::Http(e) => e.to_string(),
        }
    }

    /// Seconds the client should wait, sent as `Retry-After`: a refusal that passes.
    fn retry_after(&self) -> Option<u64> {
        match self {
            Problem::Service(e) => e.retry_after(),
            Problem::Http(HttpError::ShuttingDown) => Some(5),
            Problem::Http(_) => None,
        }
    }

    fn detail(&self, operation: &str, request_id: Option<&str>) -> serde_json::Value {
        match self {
            Problem::Service(e) => e.detail(operation, request_id),
            Problem::Http(e) => e.detail(operation, request_id),
        }
    }
}

/// An error on its way out: the problem and what was being done (the request's id is the
/// middleware's).
#[derive(Debug)]
pub struct ApiError {
    pub problem: Problem,
    pub operation: &'static str,
}

impl ApiError {
    pub fn new(operation: &'static str, problem: impl Into<Problem>) -> ApiError {
        ApiError {
            problem: problem.into(),
            operation,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status_code = self.problem.status();
        let retry_after = self.problem.retry_after();
        // A refusal that passes (overload, shutdown) is the server working as designed, and
        // logging each one as an error would cost most under the load it sheds.
        if status_code >= 500 && retry_after.is_none() {
            // The cause goes to the log; the body carries only the public message.
            tracing::error!(code = self.problem.code(), operation = self.operation, cause = ?self.problem, "request failed");
        }
        let status = StatusCode::from_u16(status_code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let request_id = super::middleware::current_request_id();
        let detail = self.problem.detail(self.operation, request_id.as_deref());
        let info = ErrorInfo {
            code: self.problem.code(),
            message: self.problem.public_message(),
            cause: (status_code >= 500).then(|| format!("{:?}", self.problem)),
        };
        let mut response =
            (status, Json(json!({ "success": false, "error": detail }))).into_response();
        if matches!(self.problem, Problem::Http(HttpError::Unauthorized)) {
            // RFC 6750: a 401 names the scheme the client should use.
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response.extensions_mut().insert(info);
        response
    }
}

/// The response to a handler that panicked: an internal error, its message logged.
pub(crate) fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a non-text panic payload");
    ApiError::new(
        "request",
        Error::Internal(format!("a request handler panicked: {message}")),
    )
    .into_response()
}

fn available_routes() -> Vec<String> {
    super::ROUTES
        .iter()
        .map(|(m, p)| format!("{m} {p}"))
        .collect()
}

pub(crate) async fn route_not_found(method: Method, OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError::new(
        "route",
        HttpError::RouteNotFound {
            method: method.to_string(),
            path: uri.path().to_string(),
            available: available_routes(),
        },
    )
}

pub(crate) async fn method_not_allowed(method: Method, OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError::new(
        "route",
        HttpError::MethodNotAllowed {
            method: method.to_string(),
            path: uri.path().to_string(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::routing::get;
    use tower::ServiceExt;

    #[tokio::test]
    async fn a_panicking_handler_gets_the_internal_error_envelope() {
        let app: axum::Router = axum::Router::new()
            .route(
                "/boom",
                get(|| async {
                    panic!("secret detail");
                    #[allow(unreachable_code)]
                    ""
                }),
            )
            .layer(tower_http::catch_panic::CatchPanicLayer::custom(
                panic_response,
            ));
        let resp = app
            .oneshot(
                axum::http::Request::get("/boom")
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = axum::body::to_bytes(resp.into_body(), 1 << 16)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["success"], false);
        assert_eq!(body["error"]["error_code"], "INTERNAL_ERROR");
        assert!(
            !body.to_string().contains("secret detail"),
            "5xx bodies never leak internals: {body}"
        );
    }
}

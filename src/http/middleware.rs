//! Cross-cutting HTTP concerns: request ids (echoed or generated) and an optional session id
//! (`X-Session-Id`), visible to error bodies and the usage store through the service's
//! `Caller`; one log record per request (stderr and the JSON-lines request log),
//! bearer-token auth, and CORS.

use super::access_log::match_route;
use super::envelope::{ApiError, ErrorInfo};
use super::problem::HttpError;
use super::AppState;
use crate::service::log::Entry;
use crate::service::Caller;
use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::time::{Duration, Instant};
use tower_http::cors::{AllowOrigin, CorsLayer};

pub const REQUEST_ID_HEADER: &str = "x-request-id";
/// The caller's session, when it has one: an execution of a tool that a search of the same
/// session returned counts as choosing it.
pub const SESSION_ID_HEADER: &str = "x-session-id";

/// The id of the request being served, if called while serving one.
pub(crate) fn current_request_id() -> Option<String> {
    Caller::current().request_id
}

/// Echoes a sane caller-supplied `X-Request-Id` or makes one, and logs the request.
pub(crate) async fn request_id(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    let id = sane_header(&req, REQUEST_ID_HEADER).unwrap_or_else(Caller::new_id);
    let caller = Caller {
        request_id: Some(id.clone()),
        session_id: sane_header(&req, SESSION_ID_HEADER),
    };
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let start = Instant::now();
    let mut response = caller.scope(next.run(req)).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    let duration_ms = (start.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    let (route, tool) = match_route(&path);
    let status = response.status().as_u16();
    tracing::info!(
        request_id = %id,
        %method,
        path,
        status,
        duration_ms,
        tool,
        "request"
    );
    let error = response.extensions().get::<ErrorInfo>();
    state.logs.record(&Entry {
        timestamp: crate::time::now_rfc3339_millis(),
        request_id: &id,
        method: method.as_str(),
        route,
        path: &path,
        status,
        duration_ms,
        tool,
        error_code: error.map(|e| e.code),
        error_message: error.map(|e| e.message.as_str()),
        cause: error.and_then(|e| e.cause.as_deref()),
    });
    response
}

/// A header's value, if it is a sane id (see `Caller::sane_id`).
fn sane_header(req: &Request, name: &str) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .and_then(Caller::sane_id)
}

/// With a configured token, every route but `/health` needs `Authorization: Bearer <token>`.
/// Refuses requests that arrive while the server drains (after SIGTERM), so a client on an
/// open connection learns at once to go elsewhere instead of waiting on a closing server.
pub(crate) async fn drain(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if !state.is_draining() {
        return next.run(req).await;
    }
    ApiError::new("shutdown", HttpError::ShuttingDown).into_response()
}

pub(crate) async fn auth(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(token) = state.service.config().auth_token.as_deref() else {
        return next.run(req).await;
    };
    if req.uri().path() == "/health" {
        return next.run(req).await;
    }
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_token)
        .unwrap_or("");
    if constant_time_eq(given.as_bytes(), token.as_bytes()) {
        next.run(req).await
    } else {
        ApiError::new("auth", HttpError::Unauthorized).into_response()
    }
}

/// The token of an `Authorization: Bearer <token>` value; the scheme is case-insensitive
/// (RFC 9110), the token is not.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim_start())
        .filter(|t| !t.is_empty())
}

/// The CORS layer for the configured origins, or `None` (CORS off: browsers on other origins
/// cannot read responses). Preflights are answered before auth, since browsers send them
/// without credentials; the actual request still needs the token.
pub(crate) fn cors(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        // The configuration has checked each origin; one that is still not a header value
        // could never match a browser's Origin header anyway.
        AllowOrigin::list(
            origins
                .iter()
                .filter_map(|o| HeaderValue::from_str(o).ok())
                .collect::<Vec<_>>(),
        )
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                HeaderName::from_static(REQUEST_ID_HEADER),
            ])
            .expose_headers([HeaderName::from_static(REQUEST_ID_HEADER)])
            .max_age(Duration::from_secs(600)),
    )
}

/// Compares without an early exit, so timing does not reveal how much of a guess was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = (a.len() ^ b.len()) as u8;
    for (i, &x) in a.iter().enumerate() {
        diff |= x ^ b.get(i % b.len().max(1)).copied().unwrap_or(0);
    }
    diff == 0 && a.len() == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_comparison() {
        assert!(constant_time_eq(b"secret-token-123", b"secret-token-123"));
        assert!(!constant_time_eq(b"secret-token-124", b"secret-token-123"));
        assert!(!constant_time_eq(b"secret", b"secret-token-123"));
        assert!(!constant_time_eq(b"", b"secret-token-123"));
    }

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer abc"), Some("abc"));
        assert_eq!(bearer_token("BEARER  abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer"), None);
        assert_eq!(bearer_token("Bearer "), None);
    }

    #[test]
    fn request_ids_differ() {
        assert_ne!(Caller::new_id(), Caller::new_id());
    }
}

//! Cross-cutting HTTP concerns: request ids (echoed or generated, visible to error bodies
//! through a task-local), bearer-token auth, and one log line per request.

use super::envelope::ApiError;
use super::AppState;
use crate::error::Error;
use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

pub const REQUEST_ID_HEADER: &str = "x-request-id";

tokio::task_local! {
    static REQUEST_ID: String;
}

/// The id of the request being served, if called while serving one.
pub(crate) fn current_request_id() -> Option<String> {
    REQUEST_ID.try_with(Clone::clone).ok()
}

/// Echoes a sane caller-supplied `X-Request-Id` or makes one, and logs the request.
pub(crate) async fn request_id(req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.chars().all(|c| c.is_ascii_graphic()))
        .map(str::to_string)
        .unwrap_or_else(new_request_id);
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let start = Instant::now();
    let mut response = REQUEST_ID.scope(id.clone(), next.run(req)).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    tracing::info!(
        request_id = %id,
        %method,
        path,
        status = response.status().as_u16(),
        duration_ms = start.elapsed().as_secs_f64() * 1000.0,
        "request"
    );
    response
}

/// With a configured token, every route but `/health` needs `Authorization: Bearer <token>`.
pub(crate) async fn auth(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(token) = state.config.auth_token.as_deref() else {
        return next.run(req).await;
    };
    if req.uri().path() == "/health" {
        return next.run(req).await;
    }
    let given = req
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if constant_time_eq(given.as_bytes(), token.as_bytes()) {
        next.run(req).await
    } else {
        ApiError::new("auth", Error::Unauthorized).into_response()
    }
}

/// Compares without an early exit, so timing does not reveal how much of a guess was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = (a.len() ^ b.len()) as u8;
    for (i, &x) in a.iter().enumerate() {
        diff |= x ^ b.get(i % b.len().max(1)).copied().unwrap_or(0);
    }
    diff == 0 && a.len() == b.len()
}

fn new_request_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // A counter mixed with the clock: unique within a process, unlikely to repeat across runs.
    let mixed = (nanos ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    format!("{mixed:016x}")
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
    fn request_ids_differ() {
        assert_ne!(new_request_id(), new_request_id());
    }
}

//! `POST /tools/call/{toolName}`: runs one of the 13 research tools through
//! `Service::call_tool`. A well-formed call answers 200 when any query produced an answer;
//! when all failed, the results come back with the first failure's status, so a client that
//! reads only the status still learns what went wrong (and, for a failure that passes, when
//! to come back: `Retry-After`).

use super::envelope::ApiError;
use super::json::JsonBody;
use super::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

pub(crate) async fn call(
    State(state): State<AppState>,
    Path(tool_name): Path<String>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let result = state
        .service
        .call_tool(&tool_name, &body)
        .await
        .map_err(|e| ApiError::new("tools.call", e))?;
    let status =
        StatusCode::from_u16(result.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, Json(result.to_json())).into_response();
    if let Some(seconds) = result.retry_after() {
        response
            .headers_mut()
            .insert(axum::http::header::RETRY_AFTER, seconds.into());
    }
    Ok(response)
}

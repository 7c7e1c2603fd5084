//! `POST /compare`: a thin handler. The body goes through `ComparisonRequest::from_json` (the
//! same parsing as the CLI's), the comparison runs off the async runtime, and the response is
//! rendered as JSON or Markdown as `response_format` asks.

use super::discovery::rendered_response;
use super::envelope::ApiError;
use super::json::JsonBody;
use super::AppState;
use crate::engine::ComparisonRequest;
use crate::error::Error;
use crate::format::{compare_response_format, render_compare};
use axum::extract::State;
use axum::response::Response;

pub(crate) async fn compare(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let op = "compare";
    let engine = state.engine.clone();
    let req =
        ComparisonRequest::from_json(&body, engine.catalog()).map_err(|e| ApiError::new(op, e))?;
    let format = compare_response_format(&body).map_err(|e| ApiError::new(op, e))?;
    let response = tokio::task::spawn_blocking(move || engine.compare(&req))
        .await
        .map_err(|e| ApiError::new(op, Error::Internal(format!("compare task failed: {e}"))))?
        .map_err(|e| ApiError::new(op, e))?;
    let rendered = render_compare(&response, format).map_err(|e| ApiError::new(op, e))?;
    Ok(rendered_response(rendered))
}

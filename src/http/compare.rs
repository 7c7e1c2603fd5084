//! `POST /compare`: the body goes to `Service::compare` (the same parsing as the CLI's) and
//! the answer is rendered as JSON or Markdown as `response_format` asks.

use super::discovery::rendered_response;
use super::envelope::ApiError;
use super::json::JsonBody;
use super::AppState;
use crate::format::render_compare;
use axum::extract::State;
use axum::response::Response;

pub(crate) async fn compare(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let op = "compare";
    let answer = state
        .service
        .compare(&body)
        .await
        .map_err(|e| ApiError::new(op, e))?;
    let rendered =
        render_compare(&answer.response, answer.presentation).map_err(|e| ApiError::new(op, e))?;
    Ok(rendered_response(rendered))
}

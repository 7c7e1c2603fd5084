//! `POST /compare`: the body goes to `Service::compare` (the same parsing as the CLI's) and
//! the answer is rendered as JSON or Markdown as `response_format` asks.

use super::discovery::rendition_response;
use super::envelope::ApiError;
use super::json::JsonBody;
use super::AppState;
use axum::extract::State;
use axum::response::Response;

pub(crate) async fn compare(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let rendition = state
        .service
        .compare_rendered(&body)
        .await
        .map_err(|e| ApiError::new("compare", e))?;
    Ok(rendition_response(&rendition))
}

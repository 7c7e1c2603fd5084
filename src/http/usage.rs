//! The usage routes: `POST /feedback` (feedback on one tool of an answer) and `GET /stats`
//! (what the usage store has measured). Each is one call on the service.

use super::envelope::ApiError;
use super::json::JsonBody;
use super::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;

pub(crate) async fn feedback(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let receipt = state
        .service
        .feedback(&body)
        .map_err(|e| ApiError::new("feedback", e))?;
    Ok(Json(receipt).into_response())
}

pub(crate) async fn stats(State(state): State<AppState>) -> Result<Response, ApiError> {
    let report = state
        .service
        .stats()
        .await
        .map_err(|e| ApiError::new("stats", e))?;
    Ok(Json(report).into_response())
}

//! Discovery handlers: `POST /search`. Validate, run the engine off the async runtime,
//! render.

use super::envelope::ApiError;
use super::json::JsonBody;
use super::AppState;
use crate::engine::SearchRequest;
use crate::error::Error;
use axum::extract::State;
use axum::Json;
use serde_json::Value;

pub(crate) async fn search(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, ApiError> {
    let op = "search";
    let engine = state.engine.clone();
    let req =
        SearchRequest::from_json(&body, engine.catalog()).map_err(|e| ApiError::new(op, e))?;
    let response = tokio::task::spawn_blocking(move || engine.search(&req))
        .await
        .map_err(|e| ApiError::new(op, Error::Internal(format!("search task failed: {e}"))))?
        .map_err(|e| ApiError::new(op, e))?;
    let value = serde_json::to_value(&response)
        .map_err(|e| ApiError::new(op, Error::Internal(e.to_string())))?;
    Ok(Json(value))
}

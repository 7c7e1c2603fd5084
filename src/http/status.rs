//! Operator views: `/health` (liveness at a glance, never behind auth) and `/catalog/status`
//! (what is being served: version, counts, how long loading took, model and search modes).

use super::AppState;
use axum::extract::State;
use axum::Json;
use serde_json::Value;

/// Liveness plus what an operator needs to know at a glance.
pub(crate) async fn health(State(state): State<AppState>) -> Json<Value> {
    Json(state.service.health())
}

/// `GET /catalog/status`: the served catalog and the state of search over it.
pub(crate) async fn catalog_status(State(state): State<AppState>) -> Json<Value> {
    Json(state.service.catalog_status())
}

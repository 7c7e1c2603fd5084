//! Operator views: `/health` (liveness at a glance, never behind auth) and `/catalog/status`
//! (what is being served: version, counts, how long loading took, model and search modes).

use super::AppState;
use crate::engine::SemanticStatus;
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

fn semantic(state: &AppState) -> Value {
    match &state.service.engine().snapshot().semantic_status {
        SemanticStatus::Available { model_id, vectors } => {
            json!({ "available": true, "model": model_id, "vectors": vectors })
        }
        SemanticStatus::Unavailable { reason } => json!({ "available": false, "reason": reason }),
    }
}

fn search_modes(state: &AppState) -> Value {
    if state
        .service
        .engine()
        .snapshot()
        .semantic_status
        .is_available()
    {
        json!(["hybrid", "semantic", "keyword"])
    } else {
        json!(["keyword"])
    }
}

/// Liveness plus what an operator needs to know at a glance.
pub(crate) async fn health(State(state): State<AppState>) -> Json<Value> {
    let models = &state.service.models();
    Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_seconds": state.service.started().elapsed().as_secs(),
        "catalog": {
            "size": state.service.catalog().len(),
            "version": state.service.catalog().version(),
            "categories": state.service.catalog().categories().len(),
        },
        "models": {
            "files_present": models.present,
            "missing": models.missing,
        },
        "semantic_search": semantic(&state),
        "search_modes": search_modes(&state),
        "cache": state.service.engine().cache_stats(),
        "tools": { "runnable": state.service.executor().tools().len() },
        // octocode's key: every circuit used so far, with its state and failure count.
        "circuits": state.service.executor().circuits(),
    }))
}

/// `GET /catalog/status`: the served catalog and the state of search over it.
pub(crate) async fn catalog_status(State(state): State<AppState>) -> Json<Value> {
    let catalog = &state.service.catalog();
    let index_ms = state.service.engine().snapshot().build_time.as_secs_f64() * 1000.0;
    let catalog_ms = state.service.load().catalog.as_secs_f64() * 1000.0;
    let ms = |x: f64| (x * 10.0).round() / 10.0;
    Json(json!({
        "success": true,
        "data": {
            "catalog": {
                "version": catalog.version(),
                "size": catalog.len(),
                "executable": catalog.executable().count(),
                "categories": catalog.categories(),
                "tool_types": catalog.tool_types(),
            },
            "load": {
                "loaded_at": state.service.load().finished_at,
                "catalog_ms": ms(catalog_ms),
                "index_ms": ms(index_ms),
                "total_ms": ms(catalog_ms + index_ms),
            },
            "model": {
                "files_present": state.service.models().present,
                "missing": state.service.models().missing,
                "semantic_search": semantic(&state),
            },
            "search": {
                "modes_available": search_modes(&state),
                "default_mode": state.service.config().search.default_search_mode,
            },
        },
    }))
}

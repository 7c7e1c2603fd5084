//! Handlers for `/health` and the catalog browsing routes.

use super::envelope::ApiError;
use super::AppState;
use crate::error::{Error, Violation};
use crate::index::snapshot::SemanticStatus;
use axum::extract::{Path, Query, State};
use axum::Json;
use serde_json::{json, Value};
use std::collections::HashMap;

const MAX_PER_PAGE: usize = 100;
const DEFAULT_PER_PAGE: usize = 20;

/// Liveness plus what an operator needs to know at a glance.
pub(crate) async fn health(State(state): State<AppState>) -> Json<Value> {
    let models = &state.models;
    let semantic = match &state.engine.snapshot().semantic_status {
        SemanticStatus::Available { model_id, vectors } => {
            json!({ "available": true, "model": model_id, "vectors": vectors })
        }
        SemanticStatus::Unavailable { reason } => json!({ "available": false, "reason": reason }),
    };
    Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_seconds": state.started.elapsed().as_secs(),
        "catalog": {
            "size": state.catalog.len(),
            "version": state.catalog.version(),
            "categories": state.catalog.categories().len(),
        },
        "models": {
            "files_present": models.present,
            "missing": models.missing,
        },
        "semantic_search": semantic,
        "search_modes": if state.engine.snapshot().semantic_status.is_available() {
            json!(["hybrid", "semantic", "keyword"])
        } else {
            json!(["keyword"])
        },
        "cache": { "entries": state.engine.cache_entries() },
    }))
}

/// `GET /catalog/tools?page=&per_page=&category=`: tools in id order, paged.
pub(crate) async fn list_tools(
    State(state): State<AppState>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let op = "catalog.list";
    let mut violations = Vec::new();
    for key in query.keys() {
        if !["page", "per_page", "category"].contains(&key.as_str()) {
            violations.push(Violation {
                pointer: format!("/{key}"),
                message: format!(
                    "expected one of page, per_page, category, found unknown parameter \"{key}\""
                ),
            });
        }
    }
    let page = parse_number(&query, "page", 1, 1, usize::MAX, &mut violations);
    let per_page = parse_number(
        &query,
        "per_page",
        DEFAULT_PER_PAGE,
        1,
        MAX_PER_PAGE,
        &mut violations,
    );
    let categories = state.catalog.categories();
    let category = query.get("category").map(String::as_str);
    if let Some(c) = category {
        if !categories.contains_key(c) {
            let known: Vec<&str> = categories.keys().copied().collect();
            violations.push(Violation {
                pointer: "/category".into(),
                message: format!("expected one of {}, found \"{c}\"", known.join(", ")),
            });
        }
    }
    if !violations.is_empty() {
        return Err(ApiError::new(
            op,
            Error::Validation {
                what: "query parameters".into(),
                violations,
            },
        ));
    }
    let matching: Vec<_> = state
        .catalog
        .tools()
        .iter()
        .filter(|t| category.is_none_or(|c| t.category == c))
        .collect();
    let total = matching.len();
    let total_pages = total.div_ceil(per_page).max(1);
    let tools: Vec<Value> = matching
        .iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .map(|t| {
            json!({
                "tool_id": t.tool_id,
                "name": t.name,
                "description": t.description,
                "category": t.category,
                "tool_type": t.tool_type,
                "executable": t.is_executable(),
                "performance_tier": t.performance_tier,
                "complexity_score": t.complexity_score,
            })
        })
        .collect();
    Ok(Json(json!({
        "success": true,
        "data": {
            "tools": tools,
            "pagination": {
                "page": page,
                "per_page": per_page,
                "total": total,
                "total_pages": total_pages,
                "has_more": page < total_pages,
            },
            "catalog_version": state.catalog.version(),
        },
    })))
}

/// `GET /catalog/tools/{id}`: the full entry, or 404 with close ids.
pub(crate) async fn get_tool(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let tool = state
        .catalog
        .require(&id)
        .map_err(|e| ApiError::new("catalog.get", e))?;
    Ok(Json(json!({ "success": true, "data": tool })))
}

fn parse_number(
    query: &HashMap<String, String>,
    key: &str,
    default: usize,
    min: usize,
    max: usize,
    violations: &mut Vec<Violation>,
) -> usize {
    let Some(raw) = query.get(key) else {
        return default;
    };
    match raw.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => n,
        _ => {
            let range = if max == usize::MAX {
                format!(">= {min}")
            } else {
                format!("{min}..{max}")
            };
            violations.push(Violation {
                pointer: format!("/{key}"),
                message: format!("expected a whole number {range}, found \"{raw}\""),
            });
            default
        }
    }
}

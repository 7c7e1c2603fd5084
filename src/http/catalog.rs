//! Handlers of the catalog routes: browsing (`/catalog/tools`, `/catalog/tools/{id}`) and
//! validating posted tool metadata (`POST /catalog/validate`).

use super::envelope::ApiError;
use super::json::JsonBody;
use super::query::{self, QueryPairs};
use super::AppState;
use crate::service::MAX_PER_PAGE;
use axum::extract::{Path, State};
use axum::Json;
use serde_json::{json, Value};

const DEFAULT_PER_PAGE: usize = 20;

/// `GET /catalog/tools?page=&per_page=&category=`: tools in id order, paged. Every bad
/// parameter is reported at once; an unknown category reads as it does in a search.
pub(crate) async fn list_tools(
    State(state): State<AppState>,
    pairs: QueryPairs,
) -> Result<Json<Value>, ApiError> {
    let op = "catalog.list";
    let mut violations = Vec::new();
    let query = pairs.single(Some(&["page", "per_page", "category"]), &mut violations);
    let page = query::number(&query, "page", 1, (1, usize::MAX), &mut violations);
    let per_page = query::number(
        &query,
        "per_page",
        DEFAULT_PER_PAGE,
        (1, MAX_PER_PAGE),
        &mut violations,
    );
    let category = query.get("category").map(String::as_str);
    let catalog = state.service.catalog();
    violations.extend(category.and_then(|c| catalog.check_category(c, "/category")));
    if !violations.is_empty() {
        return Err(query::invalid(op, violations));
    }
    let data = state
        .service
        .list_tools(page, per_page, category)
        .map_err(|e| ApiError::new(op, e))?;
    Ok(Json(json!({ "success": true, "data": data })))
}

/// `GET /catalog/tools/{id}`: the full entry, or 404 with close ids.
pub(crate) async fn get_tool(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let tool = state
        .service
        .tool(&id)
        .map_err(|e| ApiError::new("catalog.get", e))?;
    let tool = state.service.with_usage(tool).await;
    Ok(Json(json!({ "success": true, "data": tool })))
}

/// The request-body schema of `POST /catalog/validate`, compiled once.
pub(crate) const VALIDATE_REQUEST_SCHEMA: &str = crate::schema::Embedded::ValidateRequest.text();

/// `POST /catalog/validate[?strict=true]`: checks one tool metadata object, or an array of
/// them, with the machinery and report of `toolscout catalog validate --format json`.
///
/// A body that is JSON of the right shape always gets 200 with the report, even when the
/// report says `"valid": false`: the call succeeded, its answer is "invalid" (so `success` is
/// true and `data.valid` carries the verdict). Only a request that cannot be validated at
/// all (malformed JSON 400, not JSON 415, too large 413, neither an object nor a non-empty
/// array 400) gets the error envelope.
///
/// Items are labelled `body` (a single object) or `body[i]` (array items) where the CLI prints
/// file paths. Relations may name tools of the served catalog as well as other items, so a new
/// tool can point at existing ones; duplicate ids and names are checked among the items only,
/// so posting a changed version of a catalog tool is not a duplicate.
pub(crate) async fn validate(
    State(state): State<AppState>,
    pairs: QueryPairs,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, ApiError> {
    let op = "catalog.validate";
    let mut violations = Vec::new();
    let params = pairs.single(Some(&["strict"]), &mut violations);
    let strict = query::boolean(&params, "strict", false, &mut violations);
    if !violations.is_empty() {
        return Err(query::invalid(op, violations));
    }
    let report = state
        .service
        .validate_tools(body, strict)
        .await
        .map_err(|e| ApiError::new(op, e))?;
    Ok(Json(json!({ "success": true, "data": report })))
}

/// `POST /catalog/reload`: reads every catalog source again and serves the result; the
/// answer says what changed. A catalog that cannot be read (an invalid file) changes nothing
/// and answers 422 with why.
pub(crate) async fn reload(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let data = state
        .service
        .reload()
        .await
        .map_err(|e| ApiError::new("catalog.reload", e))?;
    Ok(Json(json!({ "success": true, "data": data })))
}

//! Discovery handlers: `POST /search`, its quick form `GET /search?q=...`, and
//! `POST /recommend`. Each builds the request's JSON object and makes one call on the
//! service, so a mistake reads the same whichever door it came through.

use super::envelope::ApiError;
use super::json::JsonBody;
use super::query::{self, QueryPairs};
use super::AppState;
use crate::error::Violation;
use crate::service::Rendition;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

pub(crate) async fn search(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    run_search(state, body).await
}

/// `GET /search?q=&mode=&k=&category=&tool_type=&runnable_only=&include_examples=&context=&response_format=&detail_level=`.
pub(crate) async fn search_get(
    State(state): State<AppState>,
    pairs: QueryPairs,
) -> Result<Response, ApiError> {
    let body = query_to_body(&pairs.0).map_err(|v| query::invalid("search", v))?;
    run_search(state, body).await
}

async fn run_search(state: AppState, body: Value) -> Result<Response, ApiError> {
    let rendition = state
        .service
        .search_rendered(&body)
        .await
        .map_err(|e| ApiError::new("search", e))?;
    Ok(rendition_response(&rendition))
}

/// `POST /recommend`: one call on the service, rendered.
pub(crate) async fn recommend(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let rendition = state
        .service
        .recommend_rendered(&body)
        .await
        .map_err(|e| ApiError::new("recommend", e))?;
    Ok(rendition_response(&rendition))
}

/// A rendered answer with its content type.
pub(crate) fn rendition_response(rendition: &Rendition) -> Response {
    (
        [(header::CONTENT_TYPE, rendition.content_type)],
        rendition.body.clone(),
    )
        .into_response()
}

/// Short query-parameter names and the request fields they stand for; any other parameter
/// keeps its name, so the schema reports unknown ones exactly as it does for a body.
const ALIASES: &[(&str, &str)] = &[
    ("q", "query"),
    ("mode", "search_mode"),
    ("k", "max_results"),
];

/// The JSON type the search schema gives a top-level field ("string", "integer", ...), if any.
fn field_type(field: &str) -> Option<&'static str> {
    static SCHEMA: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
        serde_json::from_str(crate::engine::SEARCH_REQUEST_SCHEMA).expect("embedded schema is JSON")
    });
    SCHEMA["properties"][field]["type"].as_str()
}

/// The query string as a search-request object. A value becomes a JSON number or boolean
/// only where the schema types the field so and the value reads as one: `k=3` is 3, but
/// `q=404` stays the query "404" (typing by the value's looks made it a number the schema
/// then refused). The schema judges the result as it judges a body (`k=abc` is "expected
/// integer, found string"). A field given twice, directly or through its alias, is the only
/// error found here.
fn query_to_body(pairs: &[(String, String)]) -> Result<Value, Vec<Violation>> {
    let fields = pairs.iter().map(|(name, value)| {
        let field = ALIASES
            .iter()
            .find(|(alias, _)| alias == name)
            .map_or(name.as_str(), |(_, field)| field);
        (field.to_string(), value.clone())
    });
    let mut violations = Vec::new();
    let fields = QueryPairs(fields.collect()).single(None, &mut violations);
    if !violations.is_empty() {
        return Err(violations);
    }
    let body: Map<String, Value> = fields
        .into_iter()
        .map(|(field, raw)| {
            let value = match (field_type(&field), raw.as_str()) {
                (Some("boolean"), "true") => Value::Bool(true),
                (Some("boolean"), "false") => Value::Bool(false),
                (Some("integer"), n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => n
                    .parse::<u64>()
                    .map_or(Value::String(raw.clone()), Value::from),
                _ => Value::String(raw),
            };
            (field, value)
        })
        .collect();
    Ok(Value::Object(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn values_are_typed_by_their_field_not_by_their_looks() {
        let body = query_to_body(&pairs(&[
            ("q", "404"),
            ("context", "true"),
            ("k", "7"),
            ("include_examples", "false"),
            ("runnable_only", "true"),
        ]))
        .unwrap();
        assert_eq!(
            body,
            json!({ "query": "404", "context": "true", "max_results": 7, "include_examples": false, "runnable_only": true })
        );
        // A malformed number or boolean stays a string for the schema to name.
        let body = query_to_body(&pairs(&[
            ("k", "3.5"),
            ("include_examples", "yes"),
            ("runnable_only", "1"),
        ]))
        .unwrap();
        assert_eq!(
            body,
            json!({ "max_results": "3.5", "include_examples": "yes", "runnable_only": "1" })
        );
    }

    #[test]
    fn query_parameters_become_the_request_body() {
        let body = query_to_body(&pairs(&[
            ("q", "find files"),
            ("k", "3"),
            ("mode", "keyword"),
            ("include_examples", "true"),
            ("category", "file_system"),
            ("colour", "red"),
        ]))
        .unwrap();
        assert_eq!(
            body,
            json!({
                "query": "find files", "max_results": 3, "search_mode": "keyword",
                "include_examples": true, "category": "file_system", "colour": "red"
            })
        );
        // Numbers too large for JSON integers stay strings; the schema reports them.
        let body = query_to_body(&pairs(&[("k", "99999999999999999999999")])).unwrap();
        assert!(body["max_results"].is_string());
    }

    #[test]
    fn a_field_given_twice_is_a_violation() {
        let v = query_to_body(&pairs(&[
            ("q", "a"),
            ("query", "b"),
            ("k", "1"),
            ("k", "2"),
        ]))
        .unwrap_err();
        let text: Vec<String> = v
            .iter()
            .map(|v| format!("{}: {}", v.pointer, v.message))
            .collect();
        assert_eq!(
            text,
            [
                "/query: expected one value, found 2",
                "/max_results: expected one value, found 2"
            ]
        );
    }
}

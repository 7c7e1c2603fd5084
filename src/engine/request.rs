//! Search requests: parsed once from JSON (schema first, then what needs the catalog) into a
//! validated `SearchRequest` that inner code trusts. Every violation is reported at once,
//! each with its JSON pointer.

use super::response::SearchMode;
use crate::catalog::{Catalog, PerformanceTier, ToolType};
use crate::error::{Error, Result, Violation};
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const SEARCH_REQUEST_SCHEMA: &str = crate::schema::Embedded::SearchRequest.text();

/// A validated search request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchRequest {
    pub query: String,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub tool_type: Option<ToolType>,
    #[serde(default = "default_max_results")]
    pub max_results: usize,
    #[serde(default)]
    pub include_examples: bool,
    #[serde(default)]
    pub search_mode: Option<SearchMode>,
    #[serde(default)]
    pub context: Option<String>,
    #[serde(default)]
    pub filters: Filters,
    /// Only the tools toolscout runs (catalog entries with an `execution` binding). Left out
    /// of the serialisation when false, so the response-cache key of a request without it
    /// stays what it was.
    #[serde(default, skip_serializing_if = "is_false")]
    pub runnable_only: bool,
    /// Categories left out (recommend's `avoid_categories`). Not in the public search schema,
    /// so only code sets it; serialised when set, so it is part of the response-cache key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_categories: Vec<String>,
}

fn default_max_results() -> usize {
    10
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Filters {
    #[serde(default)]
    pub complexity_range: Option<ComplexityRange>,
    #[serde(default)]
    pub has_examples: Option<bool>,
    #[serde(default)]
    pub recent_only: Option<bool>,
    #[serde(default)]
    pub performance_tier: Option<PerformanceTier>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ComplexityRange {
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
}

impl SearchRequest {
    /// Whether the request restricts the candidates (category, type, runnable only or any
    /// filter).
    pub fn restricts(&self) -> bool {
        let f = &self.filters;
        self.runnable_only
            || self.category.is_some()
            || !self.exclude_categories.is_empty()
            || self.tool_type.is_some()
            || f.complexity_range.is_some()
            || f.has_examples == Some(true)
            || f.recent_only == Some(true)
            || f.performance_tier.is_some()
    }

    /// A request with defaults, for the CLI and tests.
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            category: None,
            tool_type: None,
            max_results: default_max_results(),
            include_examples: false,
            search_mode: None,
            context: None,
            filters: Filters::default(),
            runnable_only: false,
            exclude_categories: Vec::new(),
        }
    }

    /// Parses and validates a JSON body against the schema and the catalog.
    pub fn from_json(body: &Value, catalog: &Catalog) -> Result<SearchRequest> {
        let mut violations = schema().violations(body);
        if !violations.is_empty() {
            return Err(invalid(violations));
        }
        let blank = body
            .get("query")
            .and_then(Value::as_str)
            .is_some_and(|q| q.trim().is_empty());
        let mut req: SearchRequest = crate::schema::deserialize_accepted(body, "search request")?;
        req.query = req.query.trim().to_string();
        req.context = req
            .context
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty());
        if blank {
            violations.push(Violation {
                pointer: "/query".into(),
                message: "expected words to search for, found only whitespace".into(),
            });
        }
        violations.extend(req.check(catalog));
        if violations.is_empty() {
            Ok(req)
        } else {
            Err(invalid(violations))
        }
    }

    /// Checks a request built in code (CLI flags) the same way as a JSON body.
    pub fn validated(self, catalog: &Catalog) -> Result<SearchRequest> {
        let body = serde_json::to_value(&self).map_err(|e| Error::Internal(e.to_string()))?;
        let body = strip_nulls(body);
        SearchRequest::from_json(&body, catalog)
    }

    /// What the schema cannot check: the category exists, the complexity range is ordered.
    fn check(&self, catalog: &Catalog) -> Vec<Violation> {
        let mut out = Vec::new();
        if let Some(v) = self
            .category
            .as_deref()
            .and_then(|c| catalog.check_category(c, "/category"))
        {
            out.push(v);
        }
        if let Some(ComplexityRange {
            min: Some(min),
            max: Some(max),
        }) = self.filters.complexity_range
        {
            if min > max {
                out.push(Violation {
                    pointer: "/filters/complexity_range".into(),
                    message: format!("expected min <= max, found min {min} > max {max}"),
                });
            }
        }
        out
    }
}

fn invalid(violations: Vec<Violation>) -> Error {
    Error::Validation {
        what: "search request".into(),
        violations,
    }
}

fn schema() -> &'static Schema {
    crate::schema::Embedded::SearchRequest.compiled()
}

/// Drops null members recursively (serde writes `None` as null; the schema wants absence).
pub(crate) fn strip_nulls(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        other => other,
    }
}

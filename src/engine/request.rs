//! Search requests: their fields and defaults, and what validating one means beyond its
//! schema (a query of words, a catalog category, an ordered complexity range). Parsing goes
//! through `valid::Valid`, which every request kind shares.

use super::response::SearchMode;
use super::valid::{blank, trimmed, Request};
use crate::catalog::{Catalog, PerformanceTier, ToolType};
use crate::error::Violation;
use crate::schema::Embedded;
use serde::{Deserialize, Serialize};

pub const SEARCH_REQUEST_SCHEMA: &str = crate::schema::Embedded::SearchRequest.text();

/// A search request (seed 002 `SearchRequest`); the engine takes it as a `Valid` one.
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
}

impl Request for SearchRequest {
    const SCHEMA: Embedded = Embedded::SearchRequest;
    const WHAT: &'static str = "search request";

    fn normalise(&mut self, _catalog: &Catalog) {
        self.query = self.query.trim().to_string();
        self.context = trimmed(self.context.take());
    }

    /// A query of only whitespace, an unknown category, a complexity range out of order.
    fn violations(&self, catalog: &Catalog) -> Vec<Violation> {
        let mut out: Vec<Violation> = blank(&self.query, "/query", "words to search for")
            .into_iter()
            .collect();
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

//! Browsing the catalog: one page of tools (optionally of one category) and one tool by
//! its id or by any name a caller may use for it.

use super::Service;
use crate::catalog::{render_json, validate_values, PerformanceTier, ToolRecord, ToolType};
use crate::error::{Error, Result};
use crate::schema::Embedded;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

/// The most tools one page holds.
pub const MAX_PER_PAGE: usize = 100;

/// What a listing shows of a tool.
#[derive(Debug, Clone, Serialize)]
pub struct ToolSummary {
    pub tool_id: String,
    pub name: String,
    pub description: String,
    pub category: String,
    pub tool_type: ToolType,
    pub executable: bool,
    pub performance_tier: PerformanceTier,
    pub complexity_score: f64,
}

/// One page of the catalog in id order.
#[derive(Debug, Clone, Serialize)]
pub struct ToolPage {
    pub tools: Vec<ToolSummary>,
    pub pagination: Pagination,
    pub catalog_version: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Pagination {
    pub page: usize,
    pub per_page: usize,
    pub total: usize,
    pub total_pages: usize,
    pub has_more: bool,
}

impl Service {
    /// Page `page` (from 1) of `per_page` tools (1 to [`MAX_PER_PAGE`]), only of `category`
    /// when given; an unknown category is a violation with the closest one suggested.
    pub fn list_tools(
        &self,
        page: usize,
        per_page: usize,
        category: Option<&str>,
    ) -> Result<ToolPage> {
        let catalog = self.catalog();
        if let Some(v) = category.and_then(|c| catalog.check_category(c, "/category")) {
            return Err(Error::Validation {
                what: "request".into(),
                violations: vec![v],
            });
        }
        let (page, per_page) = (page.max(1), per_page.clamp(1, MAX_PER_PAGE));
        let matching: Vec<&ToolRecord> = catalog
            .tools()
            .iter()
            .filter(|t| category.is_none_or(|c| t.category == c))
            .collect();
        let total = matching.len();
        let total_pages = total.div_ceil(per_page).max(1);
        let tools = matching
            .iter()
            .skip((page - 1).saturating_mul(per_page))
            .take(per_page)
            .map(|t| ToolSummary {
                tool_id: t.tool_id.clone(),
                name: t.name.clone(),
                description: t.description.clone(),
                category: t.category.clone(),
                tool_type: t.tool_type,
                executable: t.is_executable(),
                performance_tier: t.performance_tier,
                complexity_score: t.complexity_score,
            })
            .collect();
        Ok(ToolPage {
            tools,
            pagination: Pagination {
                page,
                per_page,
                total,
                total_pages,
                has_more: page < total_pages,
            },
            catalog_version: catalog.version().to_string(),
        })
    }

    /// The tool with this id, or `ToolNotFound` with close ids.
    pub fn tool(&self, id: &str) -> Result<ToolRecord> {
        self.catalog().require(id).cloned()
    }

    /// The tool a caller names by id, execution name, name or alias, or `ToolNotFound` with
    /// close ids: what an agent reads before calling a tool.
    pub fn describe_tool(&self, name: &str) -> Result<ToolRecord> {
        let catalog = self.catalog();
        catalog
            .find(name)
            .cloned()
            .ok_or_else(|| Error::ToolNotFound {
                id: name.to_string(),
                suggestions: catalog.suggest_ids(name),
            })
    }
}

impl Service {
    /// Checks posted tool metadata (one object, or a non-empty array of them) with the
    /// machinery and report of `toolscout catalog validate --format json`. Items are labelled
    /// `body` or `body[i]` where the CLI prints file paths. Relations may name tools of the
    /// served catalog as well as other items, so a new tool can point at existing ones;
    /// duplicate ids and names are checked among the items only, so a changed version of a
    /// catalog tool is no duplicate. A well-formed body always gets a report, whose `valid`
    /// carries the verdict.
    pub async fn validate_tools(&self, body: Value, strict: bool) -> Result<Value> {
        let violations = Embedded::ValidateRequest.compiled().violations(&body);
        if !violations.is_empty() {
            return Err(Error::Validation {
                what: "request body".into(),
                violations,
            });
        }
        let items: Vec<(String, Value)> = match body {
            Value::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (format!("body[{i}]"), v))
                .collect(),
            one => vec![("body".to_string(), one)],
        };
        let catalog = self.catalog().clone();
        // Each item compiles its own input schema: CPU work, kept off the async runtime.
        self.gated(move || {
            let known: BTreeSet<&str> =
                catalog.tools().iter().map(|t| t.tool_id.as_str()).collect();
            Ok(render_json(&validate_values(&items, &known), strict))
        })
        .await
    }
}

//! Recommendation requests: parsed once from JSON (schema first, then the catalog's
//! categories) into a validated `RecommendationRequest`; every violation at once, each with
//! its JSON pointer, as for search.

use crate::catalog::Catalog;
use crate::error::{Error, Result, Violation};
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const RECOMMEND_REQUEST_SCHEMA: &str = crate::schema::Embedded::RecommendRequest.text();

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComplexityPreference {
    Simple,
    #[default]
    Balanced,
    Powerful,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExperienceLevel {
    Beginner,
    Intermediate,
    Expert,
}

/// Seed 002 `UserPreferences`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UserPreferences {
    #[serde(default)]
    pub preferred_categories: Vec<String>,
    #[serde(default)]
    pub avoid_categories: Vec<String>,
    #[serde(default)]
    pub experience_level: Option<ExperienceLevel>,
    #[serde(default)]
    pub performance_priority: Option<f64>,
    #[serde(default)]
    pub reliability_priority: Option<f64>,
}

/// A validated seed 002 `RecommendationRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecommendationRequest {
    pub task_description: String,
    #[serde(default)]
    pub context: Option<String>,
    #[serde(default = "default_max")]
    pub max_recommendations: usize,
    #[serde(default = "default_true")]
    pub include_alternatives: bool,
    #[serde(default)]
    pub complexity_preference: ComplexityPreference,
    #[serde(default)]
    pub explain_reasoning: bool,
    #[serde(default)]
    pub user_preferences: UserPreferences,
    /// Only the tools toolscout runs: every search recommend makes carries it. Left out of
    /// the serialisation when false (as `SearchRequest::runnable_only`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub runnable_only: bool,
}

fn default_max() -> usize {
    5
}

fn default_true() -> bool {
    true
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl RecommendationRequest {
    /// A request with defaults, for the CLI, tests and benches.
    pub fn new(task: impl Into<String>) -> RecommendationRequest {
        RecommendationRequest {
            task_description: task.into(),
            context: None,
            max_recommendations: default_max(),
            include_alternatives: true,
            complexity_preference: ComplexityPreference::Balanced,
            explain_reasoning: false,
            user_preferences: UserPreferences::default(),
            runnable_only: false,
        }
    }

    /// Parses and validates a JSON body against the schema and the catalog.
    pub fn from_json(body: &Value, catalog: &Catalog) -> Result<RecommendationRequest> {
        let mut violations = schema().violations(body);
        if !violations.is_empty() {
            return Err(invalid(violations));
        }
        let mut req: RecommendationRequest =
            crate::schema::deserialize_accepted(body, "recommendation request")?;
        req.task_description = req.task_description.trim().to_string();
        req.context = req
            .context
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty());
        if req.task_description.is_empty() {
            violations.push(Violation {
                pointer: "/task_description".into(),
                message: "expected a task in words, found only whitespace".into(),
            });
        }
        let prefs = &req.user_preferences;
        for (key, list) in [
            ("preferred_categories", &prefs.preferred_categories),
            ("avoid_categories", &prefs.avoid_categories),
        ] {
            for (i, c) in list.iter().enumerate() {
                let pointer = format!("/user_preferences/{key}/{i}");
                violations.extend(catalog.check_category(c, &pointer));
            }
        }
        for (i, c) in prefs.preferred_categories.iter().enumerate() {
            if prefs.avoid_categories.contains(c) {
                violations.push(Violation {
                    pointer: format!("/user_preferences/preferred_categories/{i}"),
                    message: format!(
                        "expected a category not also in avoid_categories, found \"{c}\" in both"
                    ),
                });
            }
        }
        if violations.is_empty() {
            Ok(req)
        } else {
            Err(invalid(violations))
        }
    }

    /// Checks a request built in code (CLI flags) the same way as a JSON body.
    pub fn validated(self, catalog: &Catalog) -> Result<RecommendationRequest> {
        let body = serde_json::to_value(&self).map_err(|e| Error::Internal(e.to_string()))?;
        RecommendationRequest::from_json(&crate::engine::request::strip_nulls(body), catalog)
    }
}

fn invalid(violations: Vec<Violation>) -> Error {
    Error::Validation {
        what: "recommendation request".into(),
        violations,
    }
}

fn schema() -> &'static Schema {
    crate::schema::Embedded::RecommendRequest.compiled()
}

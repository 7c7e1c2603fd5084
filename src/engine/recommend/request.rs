//! Recommendation requests: their fields and defaults, and what validating one means beyond
//! its schema (a task in words, catalog categories, no category both preferred and avoided).
//! Parsing goes through `engine::valid::Valid`, as for search.

use crate::catalog::Catalog;
use crate::engine::valid::{blank, trimmed, Request};
use crate::error::Violation;
use crate::schema::Embedded;
use serde::{Deserialize, Serialize};

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

/// A seed 002 `RecommendationRequest`; the engine takes it as a `Valid` one.
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
}

impl Request for RecommendationRequest {
    const SCHEMA: Embedded = Embedded::RecommendRequest;
    const WHAT: &'static str = "recommendation request";

    fn normalise(&mut self, _catalog: &Catalog) {
        self.task_description = self.task_description.trim().to_string();
        self.context = trimmed(self.context.take());
    }

    /// A task of only whitespace, unknown categories, a category both preferred and avoided.
    fn violations(&self, catalog: &Catalog) -> Vec<Violation> {
        let mut out: Vec<Violation> = blank(
            &self.task_description,
            "/task_description",
            "a task in words",
        )
        .into_iter()
        .collect();
        let prefs = &self.user_preferences;
        for (key, list) in [
            ("preferred_categories", &prefs.preferred_categories),
            ("avoid_categories", &prefs.avoid_categories),
        ] {
            for (i, c) in list.iter().enumerate() {
                let pointer = format!("/user_preferences/{key}/{i}");
                out.extend(catalog.check_category(c, &pointer));
            }
        }
        for (i, c) in prefs.preferred_categories.iter().enumerate() {
            if prefs.avoid_categories.contains(c) {
                out.push(Violation {
                    pointer: format!("/user_preferences/preferred_categories/{i}"),
                    message: format!(
                        "expected a category not also in avoid_categories, found \"{c}\" in both"
                    ),
                });
            }
        }
        out
    }
}

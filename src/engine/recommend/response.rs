//! Response types of recommend (seed 002 `RecommendationResponse`, `ToolRecommendation`,
//! `TaskAnalysis`), plus the workflow and the score breakdown the seed leaves open.

use crate::engine::{ConfidenceLevel, SearchMode, ToolSearchResult};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct RecommendationResponse {
    pub success: bool,
    pub task_description: String,
    pub recommendations: Vec<ToolRecommendation>,
    pub task_analysis: TaskAnalysis,
    /// The recommended tools as an ordered chain: which step each serves and what it takes
    /// from the tools before it.
    pub workflow: Vec<WorkflowStep>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanations: Option<Vec<String>>,
    pub execution_time: f64,
    pub timestamp: String,
    pub metadata: RecommendationMetadata,
}

/// Seed 002 `ToolRecommendation`.
#[derive(Debug, Clone, Serialize)]
pub struct ToolRecommendation {
    pub tool: ToolSearchResult,
    /// Weighted mean of the parts in `score_breakdown` (see `scoring`), 0..1.
    pub recommendation_score: f64,
    pub confidence_level: ConfidenceLevel,
    pub task_alignment: f64,
    pub capability_match: f64,
    pub complexity_alignment: f64,
    pub score_breakdown: ScoreBreakdown,
    /// 1-based steps of the task this tool serves (empty: it serves the task as a whole).
    pub steps_served: Vec<usize>,
    pub recommendation_reasons: Vec<String>,
    pub usage_guidance: Vec<String>,
    pub when_to_use: String,
    pub alternative_tools: Vec<String>,
    pub risk_factors: Vec<String>,
    pub prerequisites: Vec<String>,
}

/// Every part of a recommendation score with the weight it had.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ScoreBreakdown {
    pub task_alignment: Part,
    pub capability_match: Part,
    pub complexity_alignment: Part,
    pub reliability: Part,
    pub popularity: Part,
    pub performance: Part,
    /// Present when the request names preferred categories.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preference: Option<Part>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Part {
    pub value: f64,
    pub weight: f64,
}

/// Seed 002 `TaskAnalysis`, plus the steps and constraints it was derived from.
#[derive(Debug, Clone, Serialize)]
pub struct TaskAnalysis {
    pub task_category: String,
    pub complexity_level: TaskComplexity,
    pub required_capabilities: Vec<String>,
    pub optional_capabilities: Vec<String>,
    pub estimated_difficulty: f64,
    pub confidence: f64,
    pub inferred_context: String,
    pub steps: Vec<String>,
    pub constraints: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskComplexity {
    Simple,
    Medium,
    Complex,
}

#[derive(Debug, Clone, Serialize)]
pub struct WorkflowStep {
    /// 1-based position in the chain.
    pub order: usize,
    pub tool_id: String,
    /// The task's step this tool serves (the whole task when it was one step).
    pub purpose: String,
    /// Values this tool takes from earlier tools of the chain: "path (local_search_code) -> uri".
    pub inputs_from: Vec<String>,
    /// How to run the step's tool in toolscout, when toolscout executes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// Why it sits where it does, when the order is not simply the step order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecommendationMetadata {
    pub algorithm_version: &'static str,
    pub catalog_version: String,
    pub total_catalog_size: usize,
    pub search_mode_used: SearchMode,
    /// Retrievals run: the whole task, each step and each facet.
    pub retrievals: usize,
    pub candidates_considered: usize,
    pub hints: Vec<String>,
}

//! Response types of `Engine::compare` (seed 002 `ComparisonResponse`, `ToolComparison`,
//! `ToolComparisonResult`, `DimensionScores`, `ComparisonSummary`, `TradeOff`), plus the
//! evidence and metadata that make each number checkable. Fields a `detail_level` leaves out
//! are `None` and not serialised.

use super::request::{ComparisonDetail, Criterion};
use crate::engine::SearchMode;
use serde::Serialize;
use std::collections::BTreeMap;

/// Seed 002 `ComparisonResponse`.
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonResponse {
    pub success: bool,
    pub comparison: ToolComparison,
    pub metadata: ComparisonMetadata,
}

/// Seed 002 `ToolComparison`.
#[derive(Debug, Clone, Serialize)]
pub struct ToolComparison {
    /// Best ranked first.
    pub tools: Vec<ToolComparisonResult>,
    pub summary: ComparisonSummary,
    pub criteria_used: Vec<Criterion>,
    /// criterion -> tool id -> score (comprehensive only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison_matrix: Option<BTreeMap<Criterion, BTreeMap<String, f64>>>,
}

/// Seed 002 `ToolComparisonResult`.
#[derive(Debug, Clone, Serialize)]
pub struct ToolComparisonResult {
    pub tool_id: String,
    pub tool_name: String,
    /// Weighted mean of the requested dimension scores (weights in `metadata`).
    pub overall_score: f64,
    pub dimension_scores: DimensionScores,
    /// How well the tool fits `comparison_context` (0..1; absent without a context).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_relevance: Option<f64>,
    /// What the ranking sorts by: `overall_score`, blended with the context fit when a
    /// context separates the tools (see `weights::ranking_score`).
    pub ranking_score: f64,
    /// 1 = recommended.
    pub relative_ranking: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strengths: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weaknesses: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_for: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avoid_when: Option<Vec<String>>,
    /// How each dimension score was derived (comprehensive only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_evidence: Option<BTreeMap<Criterion, DimensionEvidence>>,
}

/// Seed 002 `DimensionScores`: each in 0..1, higher is better; only requested criteria are
/// present. `complexity` is scored so that a gentler learning curve scores higher.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DimensionScores {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub functionality: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usability: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reliability: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complexity: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<f64>,
}

impl DimensionScores {
    pub fn get(&self, c: Criterion) -> Option<f64> {
        match c {
            Criterion::Functionality => self.functionality,
            Criterion::Usability => self.usability,
            Criterion::Performance => self.performance,
            Criterion::Reliability => self.reliability,
            Criterion::Complexity => self.complexity,
            Criterion::Documentation => self.documentation,
        }
    }

    pub fn set(&mut self, c: Criterion, score: f64) {
        let slot = match c {
            Criterion::Functionality => &mut self.functionality,
            Criterion::Usability => &mut self.usability,
            Criterion::Performance => &mut self.performance,
            Criterion::Reliability => &mut self.reliability,
            Criterion::Complexity => &mut self.complexity,
            Criterion::Documentation => &mut self.documentation,
        };
        *slot = Some(score);
    }
}

/// How one dimension score came about: the formula, its inputs and the result in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DimensionEvidence {
    pub formula: &'static str,
    pub inputs: BTreeMap<&'static str, f64>,
    pub explanation: String,
}

/// Seed 002 `ComparisonSummary`. The decision guidance (use cases, factors, trade-offs) is
/// left out at `basic` detail or with `include_decision_guidance: false`; trade-offs need
/// `comprehensive`.
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonSummary {
    pub recommended_choice: String,
    pub reasoning: String,
    /// use case -> tool id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub use_case_recommendations: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_factors: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trade_offs: Option<Vec<TradeOff>>,
}

/// Seed 002 `TradeOff`, with the gains and losses spelt out: choosing `choose` over `over`
/// gains the `gains` dimensions and gives up the `loses` ones (score differences).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TradeOff {
    /// The dimensions traded, e.g. "performance vs functionality".
    pub factor: String,
    pub description: String,
    pub affects_tools: Vec<String>,
    pub choose: String,
    pub over: String,
    pub gains: BTreeMap<Criterion, f64>,
    pub loses: BTreeMap<Criterion, f64>,
}

/// Seed 002 `ComparisonMetadata`: how the comparison was made.
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonMetadata {
    pub detail_level: ComparisonDetail,
    /// The context as used (trimmed), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison_context: Option<String>,
    /// How context relevance was measured: `hybrid` (embeddings and BM25), `keyword` (BM25
    /// only, no model); absent without a context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_mode: Option<SearchMode>,
    /// The weight of each requested criterion in `overall_score` (1, or 2 when the context
    /// asks for it), and why any weight moved.
    pub criteria_weights: BTreeMap<Criterion, f64>,
    pub weight_reasons: Vec<String>,
    /// Share of `ranking_score` that comes from context fit (0 when no context separates
    /// the tools).
    pub context_share: f64,
    /// Inputs that named a tool by name, alias or execution name -> the tool id.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub resolved_names: BTreeMap<String, String>,
    /// Tools whose scores used measured usage statistics (latency, success rate).
    pub measured_tools: Vec<String>,
    pub algorithm_version: &'static str,
    pub catalog_version: String,
    pub total_catalog_size: usize,
    /// Seconds spent on this comparison.
    pub execution_time: f64,
    pub timestamp: String,
    pub hints: Vec<String>,
}

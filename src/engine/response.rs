//! Response types of the discovery API (seed 002): what search returns, field for field.
//! Every value is computed from the catalog, the request and the indexes; nothing here is a
//! constant dressed up as a measurement.

use crate::catalog::{PerformanceTier, ToolExample, ToolType};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

pub use crate::rank::{ConfidenceLevel, ScoreDetails, SearchMode};

/// Seed 002 `SearchResponse`.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResponse {
    pub success: bool,
    pub query: String,
    /// Shared so that a response-cache hit copies a pointer, not every hit's strings.
    pub results: Arc<[ToolSearchResult]>,
    /// Tools that matched the query and filters at all (before the `max_results` cut and
    /// the similarity threshold).
    pub total_results: usize,
    /// Seconds spent answering this request (a cache hit reports its own, shorter time).
    pub execution_time: f64,
    pub query_suggestions: Vec<String>,
    pub category_breakdown: BTreeMap<String, usize>,
    pub timestamp: String,
    pub metadata: SearchMetadata,
}

/// Seed 002 `SearchMetadata`, plus what an agent needs to trust the answer.
#[derive(Debug, Clone, Serialize)]
pub struct SearchMetadata {
    pub search_mode_used: SearchMode,
    pub cache_hit: bool,
    pub algorithm_version: &'static str,
    pub total_catalog_size: usize,
    pub catalog_version: String,
    /// The similarity threshold in force: results below it are not returned.
    pub similarity_threshold: f64,
    /// How many matching tools scored below the threshold and were left out.
    pub below_threshold: usize,
    /// Set when nothing cleared the threshold: why, in one sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_good_match: Option<String>,
    /// Plain-language notes about how the request was served (e.g. keyword-only fallback).
    pub hints: Vec<String>,
}

/// Seed 002 `ToolSearchResult`.
#[derive(Debug, Clone, Serialize)]
pub struct ToolSearchResult {
    pub tool_id: String,
    pub name: String,
    pub description: String,
    /// Relevance in 0..1, comparable across queries: see `rank::score` for the derivation.
    pub similarity_score: f64,
    pub confidence_level: ConfidenceLevel,
    pub match_reasons: Vec<String>,
    /// The query's analysed terms found in this tool's fields, in query order.
    pub matched_terms: Vec<String>,
    pub parameters: Vec<ParameterInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<ToolExample>>,
    pub alternatives: Vec<String>,
    pub complexity_score: f64,
    pub when_to_use: String,
    /// How to run the tool here, for the tools toolscout executes
    /// (`POST /tools/call/localSearchCode`); absent for catalog-only tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    pub performance_characteristics: PerformanceInfo,
    pub category: String,
    pub tool_type: ToolType,
    pub last_updated: String,
    /// The tool's use as toolscout measured it, when it ran here (as of the last refresh
    /// from the usage store; a cached answer keeps its figures for the cache's lifetime).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_stats: Option<super::MeasuredUse>,
    /// How the score was computed (milli-style score details).
    pub score_details: ScoreDetails,
}

#[derive(Debug, Clone, Serialize)]
pub struct ParameterInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub required: bool,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_value: Option<Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PerformanceInfo {
    pub performance_tier: PerformanceTier,
    pub reliability_score: f64,
    pub popularity_score: f64,
    pub executable: bool,
}

impl SearchResponse {
    /// The response's size as JSON: within a small factor of what a cached copy holds in
    /// memory, and what a cache weighs it by.
    pub fn approx_bytes(&self) -> u64 {
        struct Count(u64);
        impl std::io::Write for Count {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0 += bytes.len() as u64;
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut count = Count(0);
        // Serialising plain data cannot fail; a failure would only make the weight small.
        let _ = serde_json::to_writer(&mut count, self);
        count.0
    }
}

/// A score to four decimals, as responses show it.
pub(super) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Score details as responses show them: every fraction to four decimals.
pub(super) fn round_details(d: &ScoreDetails) -> ScoreDetails {
    ScoreDetails {
        bm25: d.bm25.map(round4),
        keyword: round4(d.keyword),
        cosine: d.cosine.map(round4),
        cosine_summary: d.cosine_summary.map(round4),
        cosine_passage: d.cosine_passage.map(round4),
        matched_passage: d.matched_passage,
        semantic: round4(d.semantic),
        context: round4(d.context),
        exact_match: d.exact_match,
        name_edits: d.name_edits,
        fused: round4(d.fused),
        keyword_rank: d.keyword_rank,
        semantic_rank: d.semantic_rank,
        affordance: round4(d.affordance),
        action: d.action,
        runnable_over: d.runnable_over.clone(),
        learned: d.learned.as_ref().map(|l| crate::rank::Learned {
            support: round4(l.support),
            success_rate: l.success_rate.map(round4),
            prior: round4(l.prior),
            ..l.clone()
        }),
    }
}

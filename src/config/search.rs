//! Seed 002's `SearchConfiguration` (the knobs of ranking and caching) and the search modes
//! it and every request name.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How a search scores tools: by meaning, by words, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    Semantic,
    Hybrid,
    Keyword,
}

impl SearchMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SearchMode::Semantic => "semantic",
            SearchMode::Hybrid => "hybrid",
            SearchMode::Keyword => "keyword",
        }
    }
}

/// The default `learning_weight`. On the tune halves (`eval --feedback`, floor 0.35), gain
/// of NDCG@5 after feedback on MetaTool, bfcl, apibank and the agent requests: 0.1 +6.2,
/// +9.6, +9.2, 0.0; 0.2 +10.1, +14.4, +10.3, 0.0; 0.25 +11.8, +15.0, +10.9, 0.0; 0.3 +12.9,
/// +15.2, +10.8, -0.3 (with noisy feedback -0.6 on the agent requests).
pub const LEARNING_WEIGHT: f64 = 0.25;

/// Seed 002's `SearchConfiguration`: the knobs of ranking and caching.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Mode used when a request names none.
    pub default_search_mode: SearchMode,
    /// Hard cap on `max_results`.
    pub max_results_limit: usize,
    /// Results scoring below this are left out (and the response says how many).
    pub similarity_threshold: f64,
    /// Weight of the semantic part in hybrid mode. 0.65 on the development suite's tune
    /// halves (hybrid NDCG@5, MetaTool / bfcl / apibank / agent requests, with the field
    /// weights of `index::snapshot::KEYWORD_WEIGHTS` but names 0.7): 0.75 71.9 / 77.4 /
    /// 72.2 / 89.6, 0.7 72.3 / 78.1 / 72.3 / 89.6, 0.65 72.3 / 78.5 / 72.7 / 89.9, 0.6
    /// 72.1 / 78.8 / 72.4 / 90.5 (MetaTool lower).
    pub semantic_weight: f64,
    /// Weight of the keyword part in hybrid mode.
    pub keyword_weight: f64,
    /// How much a request's `context` shifts scores (0 ignores context).
    pub context_weight: f64,
    pub cache_enabled: bool,
    /// Cached query vectors at most.
    pub cache_size: u64,
    /// Bytes the answer caches may hold in all: half for the engine's responses, half for
    /// answers rendered as a door sends them. One detailed answer of 10 hits is about 50 KB.
    pub cache_max_bytes: u64,
    /// Seconds a cached response lives.
    pub cache_ttl: u64,
    /// `recent_only` keeps tools updated within this many days.
    pub recent_days: u64,
    pub enable_query_suggestions: bool,
    /// Up to this many tools, both indexes score every tool; above it each index proposes
    /// candidates and their union is scored exactly. 500: at 1k tools the exhaustive path
    /// cost more than the candidate path at 10k, and the benches' recall check compares the
    /// two on synthetic catalogs.
    pub exhaustive_limit: usize,
    /// How far past use may move a hit's score, either way (0 turns learning off): feedback
    /// on similar past requests and the success measured here (`rank::learned`).
    pub learning_weight: f64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            default_search_mode: SearchMode::Hybrid,
            max_results_limit: 50,
            similarity_threshold: 0.2,
            semantic_weight: 0.65,
            keyword_weight: 0.35,
            context_weight: 0.2,
            cache_enabled: true,
            cache_size: 10_000,
            cache_max_bytes: 64 * 1024 * 1024,
            cache_ttl: 300,
            recent_days: 180,
            enable_query_suggestions: true,
            exhaustive_limit: 500,
            learning_weight: LEARNING_WEIGHT,
        }
    }
}

impl SearchConfig {
    pub(super) fn check(&self) -> Result<()> {
        let bad = |key: &str, expected: &str, found: String| {
            Err(Error::Config(format!(
                "search.{key}: expected {expected}, found {found}"
            )))
        };
        for (key, v) in [
            ("similarity_threshold", self.similarity_threshold),
            ("semantic_weight", self.semantic_weight),
            ("keyword_weight", self.keyword_weight),
            ("context_weight", self.context_weight),
            ("learning_weight", self.learning_weight),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return bad(key, "a number from 0 to 1", v.to_string());
            }
        }
        if self.semantic_weight + self.keyword_weight <= 0.0 {
            return bad(
                "semantic_weight + keyword_weight",
                "a positive sum",
                "0".into(),
            );
        }
        if !(1..=50).contains(&self.max_results_limit) {
            return bad(
                "max_results_limit",
                "1 to 50",
                self.max_results_limit.to_string(),
            );
        }
        Ok(())
    }
}

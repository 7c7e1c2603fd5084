//! The vocabulary of ranking that the engine's responses show: confidence levels and every
//! number that went into a hit's score (the search modes are configuration's, `config`). Owned here, below the engine, so
//! that ranking needs nothing from the layer that calls it.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfidenceLevel {
    Low,
    Medium,
    High,
}

/// Every number that went into a hit's score.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ScoreDetails {
    /// Raw BM25 of the query over the tool's fields (absent: no query term matched).
    pub bm25: Option<f64>,
    /// BM25 mapped to 0..1.
    pub keyword: f64,
    /// The tool's cosine to the query (absent in keyword mode): `rank::SUMMARY_SHARE` of
    /// the summary's cosine plus the rest of the best other passage's.
    pub cosine: Option<f64>,
    pub cosine_summary: Option<f64>,
    pub cosine_passage: Option<f64>,
    /// Which other passage matched best (keywords, guidance, example, or summary).
    pub matched_passage: Option<&'static str>,
    /// Cosine mapped to 0..1.
    pub semantic: f64,
    /// Context contribution (0 when no context was given).
    pub context: f64,
    /// Whether the query named this tool exactly.
    pub exact_match: bool,
    /// Edits (1 or 2) between the query and this tool's closest id, name or alias, when the
    /// query looks like a typo of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_edits: Option<usize>,
    /// The final score (equals `similarity_score`).
    pub fused: f64,
    /// 1-based ranks in the keyword and semantic candidate lists.
    pub keyword_rank: Option<usize>,
    pub semantic_rank: Option<usize>,
    /// The metadata-only twin this runnable tool was ranked above, their evidence being
    /// within `rank::TWIN_MARGIN`; `fused` is then that twin's score (see
    /// `rank::prefer_runnable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runnable_over: Option<String>,
    /// Share (0..1) of the request's entity kinds and locality that the tool's parameters
    /// take (`analysis::affordance`); it adds `rank::AFFORDANCE_WEIGHT` times this.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub affordance: f64,
    /// 1 when the tool reads or changes as the request asks, -1 when it does the other
    /// (`analysis::action`); it adds `rank::ACTION_WEIGHT` times this.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub action: f64,
    /// What past use (feedback on similar requests, success measured here) added, when
    /// learning is on and there is any (see `rank::learned`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learned: Option<super::Learned>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

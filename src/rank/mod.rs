//! Ranking: pure, deterministic functions from per-tool evidence (BM25, cosine, exact name,
//! context) to ordered, scored hits. No I/O, no clocks, no randomness: the same evidence
//! always gives the same order, ties broken by score, then by tool ordinal (= id order).
//!
//! # What a score means
//!
//! `similarity_score` is in 0..1 and comparable across queries:
//! - a tool's cosine blends its summary's cosine with its best other passage's
//!   (`SUMMARY_SHARE` of the first); the semantic part maps that cosine through a linear
//!   ramp that is 0 at
//!   `COS_FLOOR` (what unrelated texts score with the product's model) and 1 at `COS_CEIL`
//!   (near-paraphrases);
//! - the keyword part maps BM25 through `bm25 / (bm25 + BM25_HALF)`, so a score of
//!   `BM25_HALF` counts as half a match, whatever the catalog size;
//! - hybrid mode takes the weighted mean of both (weights from `SearchConfiguration`);
//! - a query that names a tool exactly (id, name or alias, ignoring case and separators)
//!   scores 1 for that tool; one that misses a name by 1 or 2 edits (a typo) scores at least
//!   [`near_name_score`] for that tool (0.9, 0.8);
//! - context, when given, is blended in with `context_weight`;
//! - past use, when learning is on, adds a bounded prior (`learned`, a step after [`rank`]);
//! - with equal evidence (scores within `TWIN_MARGIN`), a tool toolscout runs ranks above
//!   its metadata-only twin and takes its score (`prefer_runnable`, the last step).

mod details;
mod explain;
mod learned;
mod twins;

pub use crate::config::SearchMode;
pub use details::{ConfidenceLevel, ScoreDetails};

pub use explain::{confidence, confidences, match_reasons, MEDIUM_SCORE};
pub use learned::{apply_learning, learned_prior, learned_reasons, Learned};
pub(crate) use twins::{prefer_runnable, Twins, TWIN_MARGIN};

// The constants below were measured on the MetaTool development set (4,000 queries sampled
// apart from the test sample): ramp ends, saturation and the summary share each moved NDCG@5
// by one to four points; the README's quality section has the figures.

/// Share of the summary cosine in a tool's cosine; the rest is its best other passage.
/// MetaTool (a description and a model-facing description a tool) prefers 0.6. The shipped
/// catalog (phrases, guidance and examples a tool; its 306 example use cases held out as
/// queries, semantic NDCG@5) prefers less: 0.6 54.9, 0.45 57.5, 0.3 58.9, and at 0.45 MetaTool's
/// hybrid stayed at 71.3. Not taken: at 0.45 a short keyword phrase's chance cosine (~0.3 to
/// gibberish) carried unrelated queries ("xyzzy plugh") over the similarity threshold.
pub const SUMMARY_SHARE: f64 = 0.6;
/// Cosine at or below which the semantic part is 0: what unrelated texts score with the
/// product's model. It was 0.10 with the published model, whose median cosine between an agent
/// request and a tool it does not need is 0.091 (the agent sets' tune requests against the
/// shipped catalog's summaries); the fine-tuned model puts that median at 0.167, so the ramp
/// moved by the same 0.08, its slope (chosen on the tune halves) kept. At 0.10 the fine-tuned
/// model showed "xyzzy plugh" three tools and a weather request a medium match. A model trained
/// again must be measured again (`scripts/finetune/`, models/README.md).
pub const COS_FLOOR: f64 = 0.18;
/// Cosine at or above which the semantic part is 1 (near-paraphrases); `COS_FLOOR` + 0.5.
pub const COS_CEIL: f64 = 0.68;
/// What a full affordance fit (every entity kind of the request taken by the tool's
/// parameters) adds to a score.
/// Measured on the development suite's tune halves: 0.05 and 0.1 gained on every set with
/// input schemas (bfcl +0.7, apibank +0.3, agent requests +0.7 / +1.7 NDCG@5), 0.2 lost
/// on the agent requests; MetaTool, without schemas, is untouched.
pub const AFFORDANCE_WEIGHT: f64 = 0.1;
/// What a tool that reads or changes as the request asks gains, and what one that does the
/// other loses (`analysis::action`; 0 where either does not say). Tune halves, hybrid NDCG@5
/// MetaTool / bfcl / apibank / agent requests, with word pairs, from 72.0 / 78.4 / 73.3 /
/// 92.5: 0.03 71.9 / 78.7 / 73.8 / 92.9, 0.04 in the README, 0.05 71.8 / 78.5 / 74.1 / 93.1;
/// a penalty alone of 0.08 71.9 / 78.5 / 73.6 / 92.9.
pub const ACTION_WEIGHT: f64 = 0.04;

/// Where the semantic ramp starts to bend (0.8: cosine 0.5 with the default ramp). With a
/// hard clamp at `COS_CEIL`, every tool past it tied at 1 and fell back to id order; on
/// the tune halves the bend took semantic NDCG@5 on bfcl from 61.4 to 63.8 and on apibank
/// from 60.7 to 64.7, and left MetaTool unchanged.
pub const SEMANTIC_KNEE: f64 = 0.8;
/// BM25 that maps to a keyword part of 0.5.
pub const BM25_HALF: f64 = 12.0;

/// Fusion weights (from `SearchConfiguration`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    pub semantic: f64,
    pub keyword: f64,
    pub context: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            semantic: 0.65,
            keyword: 0.35,
            context: 0.2,
        }
    }
}

impl Weights {
    /// The weights for a request that carries values (paths, `owner/repo`, dates, ...):
    /// meaning weighs no more than exact words. A sentence model reads such values as
    /// topic words, while the words around them are the task's own. On the tune halves
    /// (semantic 0.5 against the then default 0.7 for such requests): bfcl +0.6, agent
    /// requests +2.6 NDCG@5, MetaTool -0.3 and apibank -0.2; 0.4 gave the same within 0.3.
    pub fn with_values(self) -> Weights {
        Weights {
            semantic: self.semantic.min(self.keyword),
            ..self
        }
    }
}

/// A field a query word matched (`names`, `description`, ...), and the word as the user
/// typed it. Shared, not copied: every keyword candidate of a search carries its pairs, and
/// two fresh strings a pair were ~2% of a server's CPU for distinct searches.
pub type MatchedTerm = (&'static str, std::sync::Arc<str>);

/// What the indexes found for one tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    pub ordinal: u32,
    pub bm25: Option<f64>,
    pub keyword_rank: Option<usize>,
    /// Cosine of the query and the tool's summary passage.
    pub cosine_summary: Option<f64>,
    /// Best cosine of the query and the tool's other passages, and which kind that was.
    pub cosine_passage: Option<f64>,
    pub semantic_rank: Option<usize>,
    pub matched_passage: Option<&'static str>,
    /// Context evidence on the same scales (cosine in semantic/hybrid, BM25 in keyword mode).
    pub context_cosine: Option<f64>,
    pub context_bm25: Option<f64>,
    pub exact_match: bool,
    /// Edits between the query and the tool's closest name, when the query is a near-miss.
    pub name_edits: Option<usize>,
    /// How well the tool's parameters take the request's entities (0..1).
    pub affordance: f64,
    /// 1 when the tool reads or changes as the request asks, -1 when it does the other, 0
    /// when either does not say.
    pub action: f64,
}

/// A scored tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub ordinal: u32,
    pub score: f64,
    pub details: ScoreDetails,
}

/// A tool's cosine from its summary and best-passage cosines (either may be missing).
pub fn blend_cosine(summary: Option<f64>, passage: Option<f64>) -> Option<f64> {
    match (summary, passage) {
        (Some(s), Some(p)) => Some(SUMMARY_SHARE * s + (1.0 - SUMMARY_SHARE) * p),
        (Some(c), None) | (None, Some(c)) => Some(c),
        (None, None) => None,
    }
}

/// The least score of a tool whose name the query misses by `edits` (1 or 2): a typo of a
/// name is that tool far more often than it is anything else, so it ranks with the strongest
/// hits, but under an exact name (1.0) and under any hit that scores higher on its own.
pub fn near_name_score(edits: usize) -> f64 {
    (1.0 - 0.1 * edits as f64).clamp(0.0, 1.0)
}

/// Semantic part of a score: the cosine on a 0..1 ramp that bends before its top
/// ([`SEMANTIC_KNEE`]) and approaches 1 without reaching it, so that two tools above
/// `COS_CEIL` still rank by their cosines instead of tying at 1.
pub fn semantic_part(cosine: f64) -> f64 {
    let r = (cosine - COS_FLOOR) / (COS_CEIL - COS_FLOOR);
    if r > SEMANTIC_KNEE {
        let top = 1.0 - SEMANTIC_KNEE;
        return SEMANTIC_KNEE + top * (1.0 - (-(r - SEMANTIC_KNEE) / top).exp());
    }
    r.max(0.0)
}

/// Keyword part of a score: BM25 saturated to 0..1.
pub fn keyword_part(bm25: f64) -> f64 {
    let b = bm25.max(0.0);
    b / (b + BM25_HALF)
}

/// Keyword part of one tool's score among others: the best BM25 of the request keeps its
/// saturated value (comparable across requests), the others get their share of it, so the
/// keyword evidence keeps its differences below the top instead of flattening into the
/// saturation.
pub fn relative_keyword_part(bm25: f64, best: f64) -> f64 {
    if best <= 0.0 {
        return 0.0;
    }
    keyword_part(best) * (bm25.max(0.0) / best).min(1.0)
}

/// Scores every piece of evidence and sorts best first (score desc, then ordinal asc).
pub fn rank(
    evidence: &[Evidence],
    mode: SearchMode,
    weights: Weights,
    has_context: bool,
) -> Vec<Ranked> {
    let (ws, wk) = match mode {
        SearchMode::Semantic => (1.0, 0.0),
        SearchMode::Keyword => (0.0, 1.0),
        SearchMode::Hybrid => {
            let total = weights.semantic + weights.keyword;
            if total > 0.0 {
                (weights.semantic / total, weights.keyword / total)
            } else {
                (0.5, 0.5)
            }
        }
    };
    let wc = if has_context {
        weights.context.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let best_bm25 = evidence
        .iter()
        .filter_map(|e| e.bm25)
        .fold(0.0f64, f64::max);
    let mut out: Vec<Ranked> = evidence
        .iter()
        .map(|e| {
            let cosine = blend_cosine(e.cosine_summary, e.cosine_passage);
            let semantic = cosine.map_or(0.0, semantic_part);
            let keyword = e.bm25.map_or(0.0, |b| relative_keyword_part(b, best_bm25));
            let base = ws * semantic + wk * keyword;
            let context = match mode {
                SearchMode::Keyword => e.context_bm25.map_or(0.0, keyword_part),
                _ => e.context_cosine.map_or(0.0, semantic_part),
            };
            let blended = (1.0 - wc) * base
                + wc * context
                + AFFORDANCE_WEIGHT * e.affordance
                + ACTION_WEIGHT * e.action;
            let score = if e.exact_match {
                1.0
            } else {
                let typo = e.name_edits.map_or(0.0, near_name_score);
                blended.max(typo).clamp(0.0, 1.0)
            };
            Ranked {
                ordinal: e.ordinal,
                score,
                details: ScoreDetails {
                    bm25: e.bm25,
                    keyword,
                    cosine,
                    cosine_summary: e.cosine_summary,
                    cosine_passage: e.cosine_passage,
                    matched_passage: e.matched_passage,
                    semantic,
                    context: wc * context,
                    exact_match: e.exact_match,
                    name_edits: e.name_edits,
                    fused: score,
                    keyword_rank: e.keyword_rank,
                    semantic_rank: e.semantic_rank,
                    affordance: e.affordance,
                    action: e.action,
                    runnable_over: None,
                    learned: None,
                },
            }
        })
        .collect();
    sort_ranked(&mut out);
    out
}

/// The one ordering of results: an exact name match first, then score descending, then
/// ordinal ascending. NaN never occurs (inputs are clamped), but `total_cmp` keeps the order
/// total regardless.
pub fn sort_ranked(ranked: &mut [Ranked]) {
    ranked.sort_by(|a, b| {
        b.details
            .exact_match
            .cmp(&a.details.exact_match)
            .then(b.score.total_cmp(&a.score))
            .then(a.ordinal.cmp(&b.ordinal))
    });
}

#[cfg(test)]
mod tests;

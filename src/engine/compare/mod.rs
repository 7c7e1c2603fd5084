//! `Engine::compare`: evidence-based comparison of 2 to 10 catalog tools. This file owns the
//! pipeline; each step lives beside it:
//!
//! - `request`: the `ComparisonRequest` and what makes one valid beyond its schema;
//! - `dimensions`: the six dimension scores, pure functions of catalog evidence;
//! - `weights`: context-derived criteria weights, `overall_score`, ranking order;
//! - `relevance`: fit of each tool to `comparison_context` through the search indexes;
//! - `guidance`: what the catalog's prose and tags say about choosing between tools;
//! - `insight`: per-tool strengths, weaknesses, best_for and avoid_when;
//! - `summary`: recommended choice and reasoning, use cases, decision factors, trade-offs;
//! - `response`: the seed 002 response types.
//!
//! Nothing is a constant dressed up as a judgement: every number comes from the catalog, the
//! request or measurements, and `comprehensive` detail shows the evidence of each score.

mod dimensions;
mod guidance;
mod insight;
mod relevance;
mod request;
mod response;
mod summary;
mod weights;

pub use request::{ComparisonDetail, ComparisonRequest, Criterion, COMPARE_REQUEST_SCHEMA};
pub use response::{
    ComparisonMetadata, ComparisonResponse, ComparisonSummary, DimensionEvidence, DimensionScores,
    ToolComparison, ToolComparisonResult, TradeOff,
};

use super::valid::Valid;
use super::Engine;
use crate::catalog::ToolRecord;
use crate::error::{Error, Result};
use dimensions::{Facts, SetStats};
use guidance::Preference;
use relevance::ContextFit;
use std::collections::BTreeMap;
use std::time::Instant;

/// Version of the comparison algorithm, reported in every response; bump on any change to a
/// formula, a weight or the ranking.
pub const COMPARE_ALGORITHM_VERSION: &str = "compare-1";

/// One compared tool with everything computed about it.
struct Scored<'a> {
    record: &'a ToolRecord,
    facts: Facts,
    scores: DimensionScores,
    evidence: BTreeMap<Criterion, DimensionEvidence>,
    overall: f64,
    relevance: Option<f64>,
    matched_words: Vec<String>,
    ranking: f64,
}

impl Scored<'_> {
    fn id(&self) -> &str {
        &self.record.tool_id
    }
}

/// The compared set, best ranked first, with what the request asked.
struct Set<'a> {
    tools: Vec<Scored<'a>>,
    criteria: Vec<Criterion>,
    weights: BTreeMap<Criterion, f64>,
    weight_reasons: Vec<String>,
    context: Option<&'a str>,
    /// Whether context fit entered the ranking (a context that matches some tool).
    context_used: bool,
    /// Preferences stated by the compared tools' guidance (towards any tool).
    preferences: Vec<Preference>,
}

impl Set<'_> {
    fn contains(&self, id: &str) -> bool {
        self.tools.iter().any(|t| t.id() == id)
    }

    /// The scores of criterion `c`, in tool order.
    fn column(&self, c: Criterion) -> Vec<f64> {
        self.tools
            .iter()
            .map(|t| t.scores.get(c).unwrap_or(0.0))
            .collect()
    }

    /// Position of the tool that fits the context best (ties: the better ranked).
    fn best_fit(&self) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (i, t) in self.tools.iter().enumerate() {
            let r = t.relevance?;
            if best.is_none_or(|(_, b)| r > b) {
                best = Some((i, r));
            }
        }
        best.map(|(i, _)| i)
    }
}

impl Engine {
    /// Compares the request's tools: dimension scores, overall score, ranking, and as much
    /// explanation as `detail_level` asks for.
    pub fn compare(&self, req: &Valid<ComparisonRequest>) -> Result<ComparisonResponse> {
        self.compare_measured(req, &BTreeMap::new())
    }

    /// [`Engine::compare`] with usage statistics measured by toolscout's own executions, by
    /// tool id: they stand in for what the catalog declares (see `Measured`).
    pub fn compare_measured(
        &self,
        req: &Valid<ComparisonRequest>,
        measured: &BTreeMap<String, serde_json::Value>,
    ) -> Result<ComparisonResponse> {
        let start = Instant::now();
        let (records, ordinals) = self.compared(req)?;
        let context = req.comparison_context.as_deref();
        let (weights, weight_reasons) = weights::context_weights(context, &req.comparison_criteria);
        let fit = match context {
            Some(c) => Some(self.context_fit(c, &ordinals)?),
            None => None,
        };
        let max_relevance = fit
            .as_ref()
            .map_or(0.0, |f| f.relevance.iter().copied().fold(0.0, f64::max));
        let context_used = fit.is_some() && max_relevance >= weights::MIN_CONTEXT_RELEVANCE;
        let tools = in_ranking_order(scored(
            req,
            &records,
            measured,
            fit.as_ref(),
            &weights,
            max_relevance,
        ));
        let preferences = tools
            .iter()
            .flat_map(|t| guidance::preferences(t.record, self.catalog()))
            .collect();
        let set = Set {
            tools,
            criteria: req.comparison_criteria.clone(),
            weights,
            weight_reasons,
            context,
            context_used,
            preferences,
        };
        let detail = req.detail_level;
        let comprehensive = detail == ComparisonDetail::Comprehensive;
        let comparison = ToolComparison {
            tools: results(&set, detail >= ComparisonDetail::Standard, comprehensive),
            summary: comparison_summary(&set, detail, req.include_decision_guidance),
            criteria_used: set.criteria.clone(),
            comparison_matrix: comprehensive.then(|| summary::matrix(&set)),
        };
        let mut hints = fit.as_ref().map(|f| f.hints.clone()).unwrap_or_default();
        if fit.is_some() && !context_used {
            hints.push(format!(
                "the comparison_context matches none of the compared tools (best relevance {max_relevance:.2}), so it did not affect the ranking"
            ));
        }
        Ok(ComparisonResponse {
            success: true,
            comparison,
            metadata: self.comparison_metadata(req, &set, fit.as_ref(), hints, start),
        })
    }

    /// The request's tools from the catalog and their ordinals; an error when one is not in
    /// this engine's catalog (a request validated against another one).
    fn compared(&self, req: &ComparisonRequest) -> Result<(Vec<&ToolRecord>, Vec<u32>)> {
        let catalog = self.catalog();
        let records: Vec<&ToolRecord> = req
            .tool_ids
            .iter()
            .map(|id| catalog.require(id))
            .collect::<Result<_>>()?;
        // Catalog tools are sorted by id, so a tool's ordinal (what the indexes speak in) is
        // its position in that order.
        let ordinals: Vec<u32> = records
            .iter()
            .map(|r| {
                catalog
                    .tools()
                    .binary_search_by(|t| t.tool_id.as_str().cmp(&r.tool_id))
                    .map(|i| i as u32)
                    .map_err(|_| Error::Internal(format!("{} has no ordinal", r.tool_id)))
            })
            .collect::<Result<_>>()?;
        Ok((records, ordinals))
    }

    /// The response's metadata: what was asked, how it was weighed, and the catalog.
    fn comparison_metadata(
        &self,
        req: &ComparisonRequest,
        set: &Set<'_>,
        fit: Option<&ContextFit>,
        hints: Vec<String>,
        start: Instant,
    ) -> ComparisonMetadata {
        let catalog = self.catalog();
        let measured_tools = set
            .tools
            .iter()
            .filter(|t| t.facts.measured.any())
            .map(|t| t.id().to_string())
            .collect();
        ComparisonMetadata {
            detail_level: req.detail_level,
            comparison_context: set.context.map(str::to_string),
            context_mode: fit.map(|f| f.mode),
            criteria_weights: set.weights.clone(),
            weight_reasons: set.weight_reasons.clone(),
            context_share: if set.context_used {
                weights::CONTEXT_SHARE
            } else {
                0.0
            },
            resolved_names: req.resolved_names.iter().cloned().collect(),
            measured_tools,
            algorithm_version: COMPARE_ALGORITHM_VERSION,
            catalog_version: catalog.version().to_string(),
            total_catalog_size: catalog.len(),
            execution_time: start.elapsed().as_secs_f64(),
            timestamp: crate::time::now_rfc3339(),
            hints,
        }
    }
}

/// Each tool scored on the requested criteria (with the evidence), its overall score, its
/// fit to the context and its ranking score, in request order.
fn scored<'a>(
    req: &ComparisonRequest,
    records: &[&'a ToolRecord],
    measured: &BTreeMap<String, serde_json::Value>,
    fit: Option<&ContextFit>,
    weights: &BTreeMap<Criterion, f64>,
    max_relevance: f64,
) -> Vec<Scored<'a>> {
    let facts: Vec<Facts> = records
        .iter()
        .map(|r| Facts::from_record_measured(r, measured.get(&r.tool_id)))
        .collect();
    let set_stats = SetStats::of(&facts);
    let mut tools: Vec<Scored> = Vec::with_capacity(records.len());
    for (i, (record, facts)) in records.iter().zip(facts).enumerate() {
        let mut scores = DimensionScores::default();
        let mut evidence = BTreeMap::new();
        for &c in &req.comparison_criteria {
            let (s, e) = dimensions::score(c, &facts, &set_stats);
            scores.set(c, s);
            evidence.insert(c, e);
        }
        let overall = weights::overall(&scores, weights);
        let relevance = fit.map(|f| dimensions::round4(f.relevance[i]));
        tools.push(Scored {
            record,
            facts,
            scores,
            evidence,
            overall,
            relevance,
            matched_words: fit.map(|f| f.matched_words[i].clone()).unwrap_or_default(),
            ranking: weights::ranking_score(overall, relevance, max_relevance),
        });
    }
    tools
}

/// `tools` best ranked first (`weights::order`).
fn in_ranking_order(tools: Vec<Scored<'_>>) -> Vec<Scored<'_>> {
    let keys: Vec<(&str, f64)> = tools.iter().map(|t| (t.id(), t.ranking)).collect();
    let order = weights::order(&keys);
    let mut slots: Vec<Option<Scored>> = tools.into_iter().map(Some).collect();
    order.iter().filter_map(|&i| slots[i].take()).collect()
}

/// Each tool's result; `explained` adds its insight, `comprehensive` its score evidence.
fn results(set: &Set<'_>, explained: bool, comprehensive: bool) -> Vec<ToolComparisonResult> {
    set.tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let insight = explained.then(|| insight::insight(set, i));
            let (strengths, weaknesses, best_for, avoid_when) = match insight {
                Some(x) => (
                    Some(x.strengths),
                    Some(x.weaknesses),
                    Some(x.best_for),
                    Some(x.avoid_when),
                ),
                None => (None, None, None, None),
            };
            ToolComparisonResult {
                tool_id: t.id().to_string(),
                tool_name: t.record.name.clone(),
                overall_score: t.overall,
                dimension_scores: t.scores.clone(),
                context_relevance: t.relevance,
                ranking_score: t.ranking,
                relative_ranking: i + 1,
                strengths,
                weaknesses,
                best_for,
                avoid_when,
                score_evidence: comprehensive.then(|| t.evidence.clone()),
            }
        })
        .collect()
}

/// The recommended choice and its reasoning; the decision guidance from `standard` detail
/// when asked for, trade-offs only at `comprehensive`.
fn comparison_summary(
    set: &Set<'_>,
    detail: ComparisonDetail,
    guidance: bool,
) -> ComparisonSummary {
    let guided = detail >= ComparisonDetail::Standard && guidance;
    let comprehensive = detail == ComparisonDetail::Comprehensive;
    ComparisonSummary {
        recommended_choice: set.tools[0].id().to_string(),
        reasoning: summary::reasoning(set),
        use_case_recommendations: guided.then(|| summary::use_cases(set)),
        decision_factors: guided.then(|| summary::decision_factors(set)),
        trade_offs: (guided && comprehensive).then(|| summary::trade_offs(set)),
    }
}

#[cfg(test)]
pub(crate) mod tests;

//! `Engine::search`: cache, mode choice, candidates from both indexes under the request's
//! filters, evidence (`evidence`), ranking (pure, in `rank`), threshold, hints, and the
//! explained response.

use super::evidence::EvidenceMap;
use super::filters::Admitted;
use super::request::SearchRequest;
use super::response::*;
use super::retrieve::{MatchedTerms, Retrieved};
use super::suggest::UnknownWord;
use super::valid::Valid;
use super::{Engine, QueryTexts, QueryVectors, SemanticStatus, ALGORITHM_VERSION};
use crate::analysis::QueryAnalysis;
use crate::error::{Error, Result};
use crate::index::keyword::MatchedTerm;
use crate::rank::{self, Evidence, Learned, Ranked, Weights};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

/// Candidates each index proposes on large catalogs, per requested result.
/// Four per result is enough for the fused top to come from the union (each index proposes
/// its own best, and every candidate is rescored exactly by both); more costs HNSW walks
/// that must find that many distinct tools among clustered passages.
const CANDIDATES_PER_RESULT: usize = 4;
const MIN_CANDIDATES: usize = 40;
/// Alternatives listed per hit.
const MAX_ALTERNATIVES: usize = 5;

/// One request's search as every stage reads it.
pub(super) struct SearchPlan<'a> {
    pub(super) req: &'a SearchRequest,
    /// Vectors embedded beforehand (see [`Engine::search_with_vectors`]).
    pub(super) vectors: Option<&'a QueryVectors>,
    /// The mode that runs: the one asked for, or keyword when the model is unavailable.
    pub(super) mode: SearchMode,
    pub(super) max_results: usize,
    pub(super) admitted: Admitted,
    /// Whether the catalog is small enough for every tool to be a candidate.
    pub(super) exhaustive: bool,
    /// Candidates each index proposes.
    pub(super) candidates: usize,
    pub(super) analysis: QueryAnalysis,
    pub(super) texts: QueryTexts,
}

/// The ranking cut at the similarity threshold.
struct Cut<'r> {
    threshold: f64,
    /// Every hit with a score, best first.
    matching: Vec<&'r Ranked>,
    /// The hits at or above the threshold, and those the query names exactly.
    above: Vec<&'r Ranked>,
    below_threshold: usize,
}

impl<'r> Cut<'r> {
    fn of(ranked: &'r [Ranked], threshold: f64) -> Cut<'r> {
        let matching: Vec<&Ranked> = ranked.iter().filter(|r| r.score > 0.0).collect();
        let above: Vec<&Ranked> = matching
            .iter()
            .copied()
            .filter(|r| r.score >= threshold || r.details.exact_match)
            .collect();
        let below_threshold = matching.len() - above.len();
        Cut {
            threshold,
            matching,
            above,
            below_threshold,
        }
    }

    /// The hits shown: the first `max_results` above the threshold.
    fn shown(&self, max_results: usize) -> &[&'r Ranked] {
        &self.above[..self.above.len().min(max_results)]
    }
}

/// What the hints read of the outcome.
struct Verdict<'u> {
    /// Hits shown.
    shown: usize,
    no_good_match: bool,
    /// The query's words the catalog lacks.
    unknown: &'u [UnknownWord<'u>],
}

impl Engine {
    /// Answers a search request.
    pub fn search(&self, req: &Valid<SearchRequest>) -> Result<SearchResponse> {
        let start = Instant::now();
        let key = format!(
            "{}|{}|{}",
            self.catalog().version(),
            self.learning_generation(),
            serde_json::to_string(req).map_err(|e| Error::Internal(e.to_string()))?
        );
        if self.config.cache_enabled {
            if let Some(hit) = self.responses.get(&key) {
                let mut response = (*hit).clone();
                response.metadata.cache_hit = true;
                response.execution_time = start.elapsed().as_secs_f64();
                response.timestamp = crate::time::now_rfc3339();
                return Ok(response);
            }
        }
        let mut response = self.search_uncached(req)?;
        response.execution_time = start.elapsed().as_secs_f64();
        if self.config.cache_enabled {
            self.responses.insert(key, Arc::new(response.clone()));
        }
        Ok(response)
    }

    pub(super) fn search_uncached(&self, req: &Valid<SearchRequest>) -> Result<SearchResponse> {
        self.search_with_vectors(req, None)
    }

    /// The search itself, stage by stage. `vectors`, when given, holds query and context
    /// vectors embedded beforehand in one batch (recommend embeds all its sub-queries at
    /// once); texts missing from it are embedded here.
    pub(super) fn search_with_vectors(
        &self,
        req: &Valid<SearchRequest>,
        vectors: Option<&QueryVectors>,
    ) -> Result<SearchResponse> {
        let mut hints = Vec::new();
        let plan = self.plan(req, vectors, &mut hints)?;
        let (mut evidence, mut matched, q) = self.retrieval(&plan)?;
        let learned = self.learning(
            &plan,
            q.as_ref().map(|v| v.as_slice()),
            &mut evidence,
            &mut matched,
        )?;
        let exact = self.exact_name_evidence(&plan, &mut evidence);
        let near_names = self.near_name_evidence(&plan, exact, &mut evidence);
        self.affordance_evidence(&plan.analysis, &mut evidence);
        self.context_evidence(&plan, &mut evidence)?;
        let ranked = self.fuse(&plan, evidence, &learned);
        let cut = Cut::of(&ranked, self.config.similarity_threshold);
        let category_breakdown = self.category_breakdown(&cut.above);
        let results = self.results(&plan, &cut, &matched, &ranked);
        let no_good_match = self.no_good_match(&plan, &cut, results.len());
        // Words the catalog lacks, for the hints and the suggestions.
        let unknown = self.unknown_words(&req.query);
        let verdict = Verdict {
            shown: results.len(),
            no_good_match: no_good_match.is_some(),
            unknown: &unknown,
        };
        self.push_hints(&plan, &cut, &verdict, &mut hints);
        let query_suggestions = if self.config.enable_query_suggestions {
            self.suggestions(req, &unknown, &near_names, &ranked, results.len())
        } else {
            Vec::new()
        };
        Ok(SearchResponse {
            success: true,
            query: req.query.clone(),
            results: results.into(),
            total_results: cut.above.len(),
            execution_time: 0.0,
            query_suggestions,
            category_breakdown,
            timestamp: crate::time::now_rfc3339(),
            metadata: self.search_metadata(&plan, &cut, no_good_match, hints),
        })
    }

    /// The sentences of `query`'s embedded text that a caller may embed beforehand to have
    /// them scored on their own (see `retrieve::PART_SHARE`); none for a single sentence.
    pub(super) fn embed_parts(&self, query: &str) -> Vec<String> {
        let analysis = QueryAnalysis::of(query);
        let texts = QueryTexts::of(query, &analysis, &self.web_topics);
        super::retrieve::sentence_parts(&texts.embed)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The plan: mode, filters, candidate count and the query's texts. Semantic search
    /// asked for without a model is an error; hybrid falls back to keyword with a hint.
    fn plan<'a>(
        &self,
        req: &'a SearchRequest,
        vectors: Option<&'a QueryVectors>,
        hints: &mut Vec<String>,
    ) -> Result<SearchPlan<'a>> {
        let tools = self.snapshot.catalog.tools();
        let requested = req.search_mode.unwrap_or(self.config.default_search_mode);
        let mode = match (&self.snapshot.semantic_status, requested) {
            (SemanticStatus::Unavailable { reason }, SearchMode::Semantic) => {
                return Err(Error::ModelUnavailable {
                    reason: reason.clone(),
                });
            }
            (SemanticStatus::Unavailable { reason }, SearchMode::Hybrid) => {
                hints.push(format!(
                    "semantic search is unavailable ({reason}); results come from keyword search only"
                ));
                SearchMode::Keyword
            }
            (_, m) => m,
        };
        let max_results = req.max_results.min(self.config.max_results_limit);
        let exhaustive = tools.len() <= self.config.exhaustive_limit;
        let candidates = if exhaustive {
            tools.len()
        } else {
            (max_results * CANDIDATES_PER_RESULT).max(MIN_CANDIDATES)
        };
        let analysis = QueryAnalysis::of(&req.query);
        let texts = QueryTexts::of(&req.query, &analysis, &self.web_topics);
        Ok(SearchPlan {
            req,
            vectors,
            mode,
            max_results,
            admitted: self.admitted(req),
            exhaustive,
            candidates,
            analysis,
            texts,
        })
    }

    /// Retrieval: each index's candidates for the query's texts, within the filters.
    fn retrieval(&self, plan: &SearchPlan<'_>) -> Result<Retrieved> {
        let allow = |o: u32| plan.admitted.allows(o);
        let allow_stages: Option<&(dyn Fn(u32) -> bool + Sync)> =
            plan.admitted.restricts().then_some(&allow);
        self.retrieve(
            &plan.texts,
            plan.mode,
            plan.candidates,
            allow_stages,
            plan.exhaustive,
            plan.vectors,
        )
    }

    /// Fusion: the evidence ranked (pure, in `rank`), past use weighed in, runnable twins
    /// first. Values in the query shift the weights (`Weights::with_values`).
    fn fuse(
        &self,
        plan: &SearchPlan<'_>,
        evidence: EvidenceMap,
        learned: &HashMap<u32, Learned>,
    ) -> Vec<Ranked> {
        let mut evidence: Vec<Evidence> = evidence.into_values().collect();
        evidence.sort_by_key(|e| e.ordinal);
        let mut weights = Weights {
            semantic: self.config.semantic_weight,
            keyword: self.config.keyword_weight,
            context: self.config.context_weight,
        };
        if !plan.analysis.entities.is_empty() {
            weights = weights.with_values();
        }
        let has_context = plan.req.context.is_some();
        let mut ranked = rank::rank(&evidence, plan.mode, weights, has_context);
        rank::apply_learning(&mut ranked, learned, self.config.learning_weight);
        rank::prefer_runnable(&mut ranked, &self.twins);
        ranked
    }

    /// How many hits above the threshold each category has.
    fn category_breakdown(&self, above: &[&Ranked]) -> BTreeMap<String, usize> {
        let tools = self.snapshot.catalog.tools();
        let mut by_category: BTreeMap<&str, usize> = BTreeMap::new();
        for r in above {
            *by_category
                .entry(tools[r.ordinal as usize].category.as_str())
                .or_insert(0) += 1;
        }
        by_category
            .into_iter()
            .map(|(c, n)| (c.to_string(), n))
            .collect()
    }

    /// The explained hits shown, each with its confidence.
    fn results(
        &self,
        plan: &SearchPlan<'_>,
        cut: &Cut<'_>,
        matched: &MatchedTerms,
        ranked: &[Ranked],
    ) -> Vec<ToolSearchResult> {
        let above = &cut.above;
        // Over one more hit than is shown: the last one's margin is to the next, hidden hit.
        let levels = rank::confidences(&above[..above.len().min(plan.max_results + 1)]);
        let lower = plan.req.query.to_lowercase();
        cut.shown(plan.max_results)
            .iter()
            .zip(levels)
            .map(|(r, level)| {
                // Only the request's own words: a placeholder that stood in for a masked
                // value ("repository" for rust-lang/cargo) is no term the user wrote.
                let m: Vec<MatchedTerm> = matched
                    .get(&r.ordinal)
                    .into_iter()
                    .flatten()
                    .filter(|(_, term)| {
                        plan.texts.keyword == plan.req.query || lower.contains(&term.to_lowercase())
                    })
                    .cloned()
                    .collect();
                self.result(r, level, &m, plan.req, ranked, &plan.analysis)
            })
            .collect()
    }

    /// Why nothing is shown, when nothing is.
    fn no_good_match(&self, plan: &SearchPlan<'_>, cut: &Cut<'_>, shown: usize) -> Option<String> {
        if shown > 0 {
            return None;
        }
        let tools = self.snapshot.catalog.tools();
        Some(if plan.admitted.count == 0 {
            "no tool in the catalog passes the given category, type and filters".to_string()
        } else if cut.matching.is_empty() {
            "no tool matched any word or meaning of the query".to_string()
        } else {
            let best = cut.matching[0].score;
            format!(
                "the best match, {}, scored {best:.2}, below the similarity threshold {:.2}",
                tools[cut.matching[0].ordinal as usize].tool_id, cut.threshold
            )
        })
    }

    /// The hints after ranking: filters that leave few tools, weak or no matches (and why,
    /// when the query's own words are the reason: `words_hint`), hits hidden below the
    /// threshold.
    fn push_hints(
        &self,
        plan: &SearchPlan<'_>,
        cut: &Cut<'_>,
        verdict: &Verdict<'_>,
        hints: &mut Vec<String>,
    ) {
        let (allowed_count, max_results) = (plan.admitted.count, plan.max_results);
        if allowed_count < self.snapshot.catalog.tools().len()
            && (verdict.shown < max_results.min(3) || verdict.no_good_match)
        {
            hints.push(self.filters_hint(plan.req, allowed_count));
        }
        match cut.shown(max_results).first() {
            Some(best) if !best.details.exact_match && best.score < crate::rank::MEDIUM_SCORE => {
                let lead = format!("every match is weak (best score {:.2})", best.score);
                hints.push(Engine::words_hint(verdict.unknown, lead));
            }
            None if allowed_count > 0 => {
                hints.push(Engine::words_hint(
                    verdict.unknown,
                    "no tool matched well".to_string(),
                ));
            }
            _ => {}
        }
        if cut.below_threshold > 0 && verdict.shown < max_results {
            hints.push(format!(
                "{} weaker matches scored below the similarity threshold {:.2} and are not shown",
                cut.below_threshold, cut.threshold
            ));
        }
    }

    /// The response's metadata.
    fn search_metadata(
        &self,
        plan: &SearchPlan<'_>,
        cut: &Cut<'_>,
        no_good_match: Option<String>,
        hints: Vec<String>,
    ) -> SearchMetadata {
        SearchMetadata {
            search_mode_used: plan.mode,
            cache_hit: false,
            algorithm_version: ALGORITHM_VERSION,
            total_catalog_size: self.snapshot.catalog.tools().len(),
            catalog_version: self.snapshot.catalog.version().to_string(),
            similarity_threshold: cut.threshold,
            below_threshold: cut.below_threshold,
            no_good_match,
            hints,
        }
    }

    /// One explained hit.
    fn result(
        &self,
        r: &Ranked,
        confidence_level: ConfidenceLevel,
        matched: &[MatchedTerm],
        req: &SearchRequest,
        ranked: &[Ranked],
        analysis: &QueryAnalysis,
    ) -> ToolSearchResult {
        let tools = self.catalog().tools();
        let t = &tools[r.ordinal as usize];
        let mut extra_reasons = if r.details.affordance > 0.0 {
            self.affordances[r.ordinal as usize].fit(analysis).reasons()
        } else {
            Vec::new()
        };
        if let Some(action) = analysis.action.filter(|_| r.details.action > 0.0) {
            extra_reasons.push(action.agreement());
        }
        if let Some(learned) = &r.details.learned {
            extra_reasons.extend(rank::learned_reasons(learned));
        }
        let mut alternatives: Vec<String> = t
            .similar_tools
            .iter()
            // Asked for runnable tools only, an agent gets no alternative it cannot run here.
            .filter(|id| {
                !req.runnable_only || self.catalog().get(id).is_some_and(|a| a.is_executable())
            })
            .take(MAX_ALTERNATIVES)
            .cloned()
            .collect();
        // Nearest neighbours in this ranking fill the remaining places.
        for other in ranked
            .iter()
            .filter(|o| o.ordinal != r.ordinal && o.score > 0.0)
        {
            if alternatives.len() >= MAX_ALTERNATIVES {
                break;
            }
            let id = &tools[other.ordinal as usize].tool_id;
            if !alternatives.contains(id) {
                alternatives.push(id.clone());
            }
        }
        ToolSearchResult {
            tool_id: t.tool_id.clone(),
            name: t.name.clone(),
            description: t.description.clone(),
            similarity_score: round4(r.score),
            confidence_level,
            match_reasons: rank::match_reasons(r, matched, req.context.is_some(), &extra_reasons),
            matched_terms: matched.iter().fold(Vec::new(), |mut terms, (_, term)| {
                if !terms.iter().any(|t: &String| **t == **term) {
                    terms.push(term.to_string());
                }
                terms
            }),
            parameters: t
                .parameters
                .iter()
                .map(|p| ParameterInfo {
                    name: p.name.clone(),
                    kind: p.kind.clone(),
                    required: p.required,
                    description: p.description.clone(),
                    default_value: p.default_value.clone(),
                })
                .collect(),
            examples: req.include_examples.then(|| t.examples.clone()),
            alternatives,
            complexity_score: t.complexity_score,
            when_to_use: t.when_to_use.clone(),
            call: t.call_route(),
            performance_characteristics: PerformanceInfo {
                performance_tier: t.performance_tier,
                reliability_score: t.reliability_score,
                popularity_score: t.popularity_score,
                executable: t.is_executable(),
            },
            category: t.category.clone(),
            tool_type: t.tool_type,
            last_updated: t.updated_at.clone(),
            usage_stats: self.measured().get(&t.tool_id).cloned(),
            score_details: round_details(&r.details),
        }
    }
}

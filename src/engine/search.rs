//! `Engine::search`: cache, mode choice, candidates from both indexes under the request's
//! filters, evidence, ranking (pure, in `rank`), threshold, and the explained response.

use super::filters::is_allowed;
use super::request::SearchRequest;
use super::response::*;
use super::{Engine, QueryTexts, QueryVectors, ALGORITHM_VERSION};
use crate::analysis::QueryAnalysis;
use crate::error::{Error, Result};
use crate::rank::{self, Evidence, Ranked, Weights};
use std::collections::BTreeMap;
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

impl Engine {
    /// Answers a validated search request.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        let start = Instant::now();
        let key = format!(
            "{}|{}",
            self.catalog().version(),
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

    pub(super) fn search_uncached(&self, req: &SearchRequest) -> Result<SearchResponse> {
        self.search_with_vectors(req, None)
    }

    /// The search itself. `vectors`, when given, holds query and context vectors embedded
    /// beforehand in one batch (recommend embeds all its sub-queries at once); texts missing
    /// from it are embedded here.
    pub(super) fn search_with_vectors(
        &self,
        req: &SearchRequest,
        vectors: Option<&QueryVectors>,
    ) -> Result<SearchResponse> {
        let snap = &self.snapshot;
        let tools = snap.catalog.tools();
        let mut hints = Vec::new();
        let requested = req.search_mode.unwrap_or(self.config.default_search_mode);
        let mode = match (&snap.semantic_status, requested) {
            (
                crate::index::snapshot::SemanticStatus::Unavailable { reason },
                SearchMode::Semantic,
            ) => {
                return Err(Error::ModelUnavailable {
                    reason: reason.clone(),
                });
            }
            (
                crate::index::snapshot::SemanticStatus::Unavailable { reason },
                SearchMode::Hybrid,
            ) => {
                hints.push(format!(
                    "semantic search is unavailable ({reason}); results come from keyword search only"
                ));
                SearchMode::Keyword
            }
            (_, m) => m,
        };
        let max_results = req.max_results.min(self.config.max_results_limit);
        // Without a filter every tool is allowed: no per-tool pass, and the indexes take
        // their unfiltered (cheaper) paths.
        let allowed: Option<Vec<bool>> = req
            .restricts()
            .then(|| tools.iter().map(|t| self.passes_filters(t, req)).collect());
        let allow = |o: u32| is_allowed(&allowed, o);
        let allowed_count = allowed
            .as_ref()
            .map_or(tools.len(), |a| a.iter().filter(|a| **a).count());

        let exhaustive = tools.len() <= self.config.exhaustive_limit;
        let k = if exhaustive {
            tools.len()
        } else {
            (max_results * CANDIDATES_PER_RESULT).max(MIN_CANDIDATES)
        };

        let allow_stages: Option<&(dyn Fn(u32) -> bool + Sync)> =
            allowed.as_ref().map(|_| &allow as _);
        let analysis = QueryAnalysis::of(&req.query);
        let texts = QueryTexts::of(&req.query, &analysis);

        let (mut evidence, matched) =
            self.retrieve(&texts, mode, k, allow_stages, exhaustive, vectors)?;
        let exact = snap.exact(&req.query).filter(|&o| allow(o));
        if let Some(o) = exact {
            evidence
                .entry(o)
                .or_insert_with(|| Evidence {
                    ordinal: o,
                    ..Evidence::default()
                })
                .exact_match = true;
        }
        // A typo of a tool's name still means that tool: the closest names count as
        // evidence (`rank::near_name_score`), within the filters.
        let near_names = self.near_names(&req.query, exact);
        let closest = near_names.first().map(|&(d, _)| d);
        for &(d, o) in &near_names {
            if Some(d) == closest && allow(o) {
                evidence
                    .entry(o)
                    .or_insert_with(|| Evidence {
                        ordinal: o,
                        ..Evidence::default()
                    })
                    .name_edits = Some(d);
            }
        }
        // Most requests carry no values: then no tool's affordance is looked at.
        if analysis.asks_anything() {
            let kinds = analysis.kinds();
            for e in evidence.values_mut() {
                let fit = self.affordances[e.ordinal as usize].fit_kinds(&kinds, analysis.locality);
                e.affordance = fit.score();
            }
        }
        let has_context = req.context.is_some();
        if let Some(context) = &req.context {
            let ordinals: Vec<u32> = evidence.keys().copied().collect();
            match (&snap.semantic, mode) {
                (Some(sem), SearchMode::Semantic | SearchMode::Hybrid) => {
                    if let Some(cv) = self.query_vector(context, vectors)? {
                        let summaries = sem.summaries.score_owners(&cv, &ordinals)?;
                        let passages = sem.passages.score_owners(&cv, &ordinals)?;
                        for ((o, s), p) in ordinals.iter().zip(summaries).zip(passages) {
                            if let Some(e) = evidence.get_mut(o) {
                                e.context_cosine = rank::blend_cosine(
                                    s.map(|h| h.cosine as f64),
                                    p.map(|h| h.cosine as f64),
                                );
                            }
                        }
                    }
                }
                _ => {
                    let allow_fn: Option<&dyn Fn(u32) -> bool> =
                        allowed.as_ref().map(|_| &allow as _);
                    for hit in snap.keyword.search(context, tools.len(), allow_fn) {
                        if let Some(e) = evidence.get_mut(&hit.ordinal) {
                            e.context_bm25 = Some(hit.bm25 as f64);
                        }
                    }
                }
            }
        }

        let mut evidence: Vec<Evidence> = evidence.into_values().collect();
        evidence.sort_by_key(|e| e.ordinal);
        let mut weights = Weights {
            semantic: self.config.semantic_weight,
            keyword: self.config.keyword_weight,
            context: self.config.context_weight,
        };
        if !analysis.entities.is_empty() {
            weights = weights.with_values();
        }
        let mut ranked = rank::rank(&evidence, mode, weights, has_context);
        rank::prefer_runnable(&mut ranked, &self.twins);
        let matching: Vec<&Ranked> = ranked.iter().filter(|r| r.score > 0.0).collect();
        let threshold = self.config.similarity_threshold;
        let above: Vec<&Ranked> = matching
            .iter()
            .copied()
            .filter(|r| r.score >= threshold || r.details.exact_match)
            .collect();
        let below_threshold = matching.len() - above.len();

        let mut by_category: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &above {
            *by_category
                .entry(tools[r.ordinal as usize].category.as_str())
                .or_insert(0) += 1;
        }
        let category_breakdown: BTreeMap<String, usize> = by_category
            .into_iter()
            .map(|(c, n)| (c.to_string(), n))
            .collect();
        let shown: Vec<&Ranked> = above.iter().copied().take(max_results).collect();
        // Over one more hit than is shown: the last one's margin is to the next, hidden hit.
        let levels = rank::confidences(&above[..above.len().min(max_results + 1)]);
        let lower = req.query.to_lowercase();
        let results: Vec<ToolSearchResult> = shown
            .iter()
            .zip(levels)
            .map(|(r, level)| {
                // Only the request's own words: a placeholder that stood in for a masked
                // value ("repository" for rust-lang/cargo) is no term the user wrote.
                let m: Vec<(String, String)> = matched
                    .get(&r.ordinal)
                    .into_iter()
                    .flatten()
                    .filter(|(_, term)| {
                        texts.keyword == req.query || lower.contains(&term.to_lowercase())
                    })
                    .cloned()
                    .collect();
                self.result(r, level, &m, req, &ranked, &analysis)
            })
            .collect();

        let no_good_match = if results.is_empty() {
            Some(if allowed_count == 0 {
                "no tool in the catalog passes the given category, type and filters".to_string()
            } else if matching.is_empty() {
                "no tool matched any word or meaning of the query".to_string()
            } else {
                let best = matching[0].score;
                format!(
                    "the best match, {}, scored {best:.2}, below the similarity threshold {threshold:.2}",
                    tools[matching[0].ordinal as usize].tool_id
                )
            })
        } else {
            None
        };
        if allowed_count < tools.len()
            && (results.len() < max_results.min(3) || no_good_match.is_some())
        {
            hints.push(self.filters_hint(req, allowed_count));
        }
        // Words the catalog lacks, for the hints below and the suggestions.
        let unknown = self.unknown_words(&req.query);
        // Nothing shown, or every hit weak: say so, and why when the query's own words are
        // the reason (`words_hint`).
        match shown.first() {
            Some(best) if !best.details.exact_match && best.score < crate::rank::MEDIUM_SCORE => {
                let lead = format!("every match is weak (best score {:.2})", best.score);
                hints.push(Engine::words_hint(&unknown, lead));
            }
            None if allowed_count > 0 => {
                hints.push(Engine::words_hint(
                    &unknown,
                    "no tool matched well".to_string(),
                ));
            }
            _ => {}
        }
        if below_threshold > 0 && results.len() < max_results {
            hints.push(format!("{below_threshold} weaker matches scored below the similarity threshold {threshold:.2} and are not shown"));
        }
        let query_suggestions = if self.config.enable_query_suggestions {
            self.suggestions(req, &unknown, &near_names, &ranked, results.len())
        } else {
            Vec::new()
        };
        Ok(SearchResponse {
            success: true,
            query: req.query.clone(),
            results: results.into(),
            total_results: above.len(),
            execution_time: 0.0,
            query_suggestions,
            category_breakdown,
            timestamp: crate::time::now_rfc3339(),
            metadata: SearchMetadata {
                search_mode_used: mode,
                cache_hit: false,
                algorithm_version: ALGORITHM_VERSION,
                total_catalog_size: tools.len(),
                catalog_version: snap.catalog.version().to_string(),
                similarity_threshold: threshold,
                below_threshold,
                no_good_match,
                hints,
            },
        })
    }

    /// One explained hit.
    fn result(
        &self,
        r: &Ranked,
        confidence_level: ConfidenceLevel,
        matched: &[(String, String)],
        req: &SearchRequest,
        ranked: &[Ranked],
        analysis: &QueryAnalysis,
    ) -> ToolSearchResult {
        let tools = self.catalog().tools();
        let t = &tools[r.ordinal as usize];
        let fit_reasons = if r.details.affordance > 0.0 {
            self.affordances[r.ordinal as usize].fit(analysis).reasons()
        } else {
            Vec::new()
        };
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
            match_reasons: rank::match_reasons(r, matched, req.context.is_some(), &fit_reasons),
            matched_terms: matched.iter().fold(Vec::new(), |mut terms, (_, term)| {
                if !terms.contains(term) {
                    terms.push(term.clone());
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
            score_details: round_details(&r.details),
        }
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn round_details(d: &ScoreDetails) -> ScoreDetails {
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
        runnable_over: d.runnable_over.clone(),
    }
}

//! The evidence a search adds to what retrieval found: the tool the query names exactly, the
//! tools whose names it nearly spells, what each candidate's parameters afford the query's
//! values, and each candidate's fit to the request's context.

use super::search::SearchPlan;
use super::{Engine, SearchMode};
use crate::analysis::QueryAnalysis;
use crate::error::Result;
use crate::index::snapshot::Semantic;
use crate::rank::{self, Evidence};
use std::collections::HashMap;

/// Evidence per tool ordinal.
pub(super) type EvidenceMap = HashMap<u32, Evidence>;

/// The evidence of the tool at `o`, started empty when no stage has found any yet.
fn entry(evidence: &mut EvidenceMap, o: u32) -> &mut Evidence {
    evidence.entry(o).or_insert_with(|| Evidence {
        ordinal: o,
        ..Evidence::default()
    })
}

impl Engine {
    /// Marks the tool the query names exactly (id, name or alias), when the filters let it
    /// through, and returns it.
    pub(super) fn exact_name_evidence(
        &self,
        plan: &SearchPlan<'_>,
        evidence: &mut EvidenceMap,
    ) -> Option<u32> {
        let exact = self
            .snapshot
            .exact(&plan.req.query)
            .filter(|&o| plan.admitted.allows(o));
        if let Some(o) = exact {
            entry(evidence, o).exact_match = true;
        }
        exact
    }

    /// A typo of a tool's name still means that tool: the closest names count as evidence
    /// (`rank::near_name_score`), within the filters. Returns every near name, for the
    /// suggestions.
    pub(super) fn near_name_evidence(
        &self,
        plan: &SearchPlan<'_>,
        exact: Option<u32>,
        evidence: &mut EvidenceMap,
    ) -> Vec<(usize, u32)> {
        let near_names = self.near_names(&plan.req.query, exact);
        let closest = near_names.first().map(|&(d, _)| d);
        for &(d, o) in &near_names {
            if Some(d) == closest && plan.admitted.allows(o) {
                entry(evidence, o).name_edits = Some(d);
            }
        }
        near_names
    }

    /// How well each candidate's parameters take the values the query carries. Most
    /// requests carry no values: then no tool's affordance is looked at.
    pub(super) fn affordance_evidence(&self, analysis: &QueryAnalysis, evidence: &mut EvidenceMap) {
        if let Some(asked) = analysis.action {
            for e in evidence.values_mut() {
                e.action = match self.affordances[e.ordinal as usize].action {
                    Some(a) if a == asked => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
            }
        }
        if !analysis.asks_anything() {
            return;
        }
        let kinds = analysis.kinds();
        for e in evidence.values_mut() {
            let fit = self.affordances[e.ordinal as usize].fit_kinds(&kinds, analysis.locality);
            e.affordance = fit.score();
        }
    }

    /// Each candidate's fit to the request's context: its cosines to the context's vector
    /// when the vectors take part, else the context's BM25.
    pub(super) fn context_evidence(
        &self,
        plan: &SearchPlan<'_>,
        evidence: &mut EvidenceMap,
    ) -> Result<()> {
        let Some(context) = &plan.req.context else {
            return Ok(());
        };
        match (&self.snapshot.semantic, plan.mode) {
            (Some(semantic), SearchMode::Semantic | SearchMode::Hybrid) => {
                self.context_cosines(semantic, plan, context, evidence)
            }
            _ => {
                self.context_bm25(plan, context, evidence);
                Ok(())
            }
        }
    }

    /// The context's blended cosine to each candidate's summary and passages.
    fn context_cosines(
        &self,
        sem: &Semantic,
        plan: &SearchPlan<'_>,
        context: &str,
        evidence: &mut EvidenceMap,
    ) -> Result<()> {
        let ordinals: Vec<u32> = evidence.keys().copied().collect();
        if let Some(cv) = self.query_vector(context, plan.vectors)? {
            let summaries = sem.summaries.score_owners(&cv, &ordinals)?;
            let passages = sem.passages.score_owners(&cv, &ordinals)?;
            for ((o, s), p) in ordinals.iter().zip(summaries).zip(passages) {
                if let Some(e) = evidence.get_mut(o) {
                    e.context_cosine =
                        rank::blend_cosine(s.map(|h| h.cosine as f64), p.map(|h| h.cosine as f64));
                }
            }
        }
        Ok(())
    }

    /// The context's BM25 for each candidate it matches, among the tools the filters admit.
    fn context_bm25(&self, plan: &SearchPlan<'_>, context: &str, evidence: &mut EvidenceMap) {
        let allow = |o: u32| plan.admitted.allows(o);
        let allow_fn: Option<&dyn Fn(u32) -> bool> = plan.admitted.restricts().then_some(&allow);
        let tools = self.catalog().tools();
        for hit in self.snapshot.keyword.search(context, tools.len(), allow_fn) {
            if let Some(e) = evidence.get_mut(&hit.ordinal) {
                e.context_bm25 = Some(hit.bm25 as f64);
            }
        }
    }
}

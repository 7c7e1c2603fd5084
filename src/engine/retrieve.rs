//! The retrieval stage of a search: the keyword top k and the vector proposals for one
//! query text, merged into per-tool evidence with every candidate scored by both indexes.

use super::evidence::EvidenceMap;
use super::stages::{find, Proposals};
use super::{Engine, QueryTexts, QueryVectors, SearchMode};
use crate::error::Result;
use crate::index::keyword::{KeywordHit, MatchedTerm};
use crate::index::snapshot::Semantic;
use crate::index::vector::OwnerHit;
use crate::rank::{self, Evidence};
use std::collections::HashMap;
use std::sync::Arc;

/// The (field, term) pairs each tool's keyword match hit, by ordinal.
pub(super) type MatchedTerms = HashMap<u32, Vec<MatchedTerm>>;

/// Evidence per tool ordinal, the terms each tool's keyword match hit, and the query's
/// vector when the vectors took part.
pub(super) type Retrieved = (EvidenceMap, MatchedTerms, Option<Arc<Vec<f32>>>);

impl Engine {
    /// Retrieves `k` candidates from each index for `texts` and gathers their evidence.
    pub(super) fn retrieve(
        &self,
        texts: &QueryTexts,
        mode: SearchMode,
        k: usize,
        allow_stages: Option<&(dyn Fn(u32) -> bool + Sync)>,
        exhaustive: bool,
        vectors: Option<&QueryVectors>,
    ) -> Result<Retrieved> {
        let stages = self.stages(texts, mode, k, allow_stages, vectors)?;
        let (mut evidence, mut matched) = keyword_evidence(stages.keyword);
        let mut q = None;
        if let (Some(p), Some(sem)) = (stages.vectors, &self.snapshot.semantic) {
            let proposed = proposed_owners(&p);
            // A tool only the vectors proposed still gets its exact BM25, as scoring every
            // tool would give it (see `KeywordIndex::score_ordinals`); the keyword top k's own
            // scores stand. On the exhaustive path every keyword match is in already.
            if mode == SearchMode::Hybrid && !exhaustive {
                self.keyword_scores(texts, &proposed, &mut evidence, &mut matched);
            }
            self.cosine_evidence(sem, &p, proposed, &mut evidence)?;
            rank_by_cosine(&mut evidence);
            q = Some(p.q);
        }
        Ok((evidence, matched, q))
    }

    /// Evidence for tools past use favours that retrieval did not propose (a large catalog's
    /// candidates are each index's top k): their BM25 and cosines, as if proposed, so that
    /// learning ranks them on the same footing as the rest.
    pub(super) fn learned_candidates(
        &self,
        texts: &QueryTexts,
        mode: SearchMode,
        q: Option<&[f32]>,
        ordinals: &[u32],
        evidence: &mut EvidenceMap,
        matched: &mut MatchedTerms,
    ) -> Result<()> {
        let missing: Vec<u32> = ordinals
            .iter()
            .copied()
            .filter(|o| !evidence.contains_key(o))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        if mode != SearchMode::Semantic {
            self.keyword_scores(texts, &missing, evidence, matched);
        }
        for &o in &missing {
            evidence.entry(o).or_insert_with(|| Evidence {
                ordinal: o,
                ..Evidence::default()
            });
        }
        if let (Some(q), Some(sem), false) =
            (q, &self.snapshot.semantic, mode == SearchMode::Keyword)
        {
            let summaries = sem.summaries.score_owners(q, &missing)?;
            let passages = sem.passages.score_owners(q, &missing)?;
            for ((&o, s), p) in missing.iter().zip(summaries).zip(passages) {
                set_cosines(sem, evidence, o, s, p);
            }
        }
        Ok(())
    }

    /// The exact BM25 of each proposed tool the keyword top k left out.
    fn keyword_scores(
        &self,
        texts: &QueryTexts,
        proposed: &[u32],
        evidence: &mut EvidenceMap,
        matched: &mut MatchedTerms,
    ) {
        let unscored: Vec<u32> = proposed
            .iter()
            .copied()
            .filter(|o| !evidence.contains_key(o))
            .collect();
        for hit in self
            .snapshot
            .keyword
            .score_ordinals(&texts.keyword, &unscored)
            .into_iter()
            .flatten()
        {
            evidence.insert(
                hit.ordinal,
                Evidence {
                    ordinal: hit.ordinal,
                    bm25: Some(hit.bm25 as f64),
                    ..Evidence::default()
                },
            );
            matched.insert(hit.ordinal, hit.matched);
        }
    }

    /// Every candidate gets both cosines, so every fused tool has both kinds of evidence: a
    /// proposal's cosine in the index that proposed it is exact already, the others are
    /// computed here.
    fn cosine_evidence(
        &self,
        sem: &Semantic,
        p: &Proposals,
        proposed: Vec<u32>,
        evidence: &mut EvidenceMap,
    ) -> Result<()> {
        let mut candidates: Vec<u32> = evidence.keys().copied().chain(proposed).collect();
        candidates.sort_unstable();
        candidates.dedup();
        let lacking = |hits: &[OwnerHit]| -> Vec<u32> {
            candidates
                .iter()
                .copied()
                .filter(|&o| find(hits, o).is_none())
                .collect()
        };
        let (no_summary, no_passage) = (lacking(&p.summaries), lacking(&p.passages));
        let more_summaries = sem.summaries.score_owners(&p.q, &no_summary)?;
        let more_passages = sem.passages.score_owners(&p.q, &no_passage)?;
        let pick = |own: &[OwnerHit], lacking: &[u32], more: &[Option<OwnerHit>], o: u32| {
            find(own, o).or_else(|| more[lacking.binary_search(&o).ok()?])
        };
        for &o in &candidates {
            let s = pick(&p.summaries, &no_summary, &more_summaries, o);
            let c = pick(&p.passages, &no_passage, &more_passages, o);
            set_cosines(sem, evidence, o, s, c);
        }
        Ok(())
    }
}

/// A tool's best summary and passage hits as its evidence (started when it has none yet).
fn set_cosines(
    sem: &Semantic,
    evidence: &mut EvidenceMap,
    o: u32,
    summary: Option<OwnerHit>,
    passage: Option<OwnerHit>,
) {
    let e = evidence.entry(o).or_insert_with(|| Evidence {
        ordinal: o,
        ..Evidence::default()
    });
    e.cosine_summary = summary.map(|h| h.cosine as f64);
    e.cosine_passage = passage.map(|h| h.cosine as f64);
    e.matched_passage = passage
        .and_then(|h| sem.passage_kinds.get(h.vector as usize))
        .map(|k| k.as_str());
}

/// The keyword top k as evidence: each hit's BM25 and rank, and the terms it matched.
fn keyword_evidence(keyword: Vec<KeywordHit>) -> (EvidenceMap, MatchedTerms) {
    let mut evidence = EvidenceMap::new();
    let mut matched = MatchedTerms::new();
    for (rank, hit) in keyword.into_iter().enumerate() {
        let e = evidence.entry(hit.ordinal).or_insert_with(|| Evidence {
            ordinal: hit.ordinal,
            ..Evidence::default()
        });
        e.bm25 = Some(hit.bm25 as f64);
        e.keyword_rank = Some(rank + 1);
        matched.insert(hit.ordinal, hit.matched);
    }
    (evidence, matched)
}

/// The tools either vector index proposed, sorted, once each.
fn proposed_owners(p: &Proposals) -> Vec<u32> {
    let mut proposed: Vec<u32> = p
        .summaries
        .iter()
        .chain(&p.passages)
        .map(|h| h.owner)
        .collect();
    proposed.sort_unstable();
    proposed.dedup();
    proposed
}

/// Each tool's rank by blended cosine (best first, ties by ordinal).
fn rank_by_cosine(evidence: &mut EvidenceMap) {
    let mut by_cosine: Vec<(f64, u32)> = evidence
        .values()
        .filter_map(|e| {
            rank::blend_cosine(e.cosine_summary, e.cosine_passage).map(|c| (c, e.ordinal))
        })
        .collect();
    by_cosine.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (i, (_, o)) in by_cosine.into_iter().enumerate() {
        if let Some(e) = evidence.get_mut(&o) {
            e.semantic_rank = Some(i + 1);
        }
    }
}

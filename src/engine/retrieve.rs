//! The retrieval stage of a search: the keyword top k and the vector proposals for one
//! query text, merged into per-tool evidence with every candidate scored by both indexes;
//! and, when the caller embedded them, the request's sentences scored on their own.

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
            if let Some(parts) = vectors.and_then(|v| part_vectors(&texts.embed, v)) {
                part_cosines(sem, &parts, &mut evidence)?;
            }
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
            .score_ordinals(texts.keyword_query(), &unscored)
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

/// What a sentence's cosine counts for against the whole request's.
///
/// A request of several sentences that asks for several things ("I need the latest news on
/// AI. Also, will it rain here this weekend?") has one vector that sits between its needs,
/// near neither tool. Each tool keeps its best cosine over the whole request and its
/// sentences, a sentence's times this share. Recommend embeds the whole task's sentences
/// (its steps are retrieved apart anyway); search does not, since on single-tool requests a
/// sentence of context ("I'm a traveler planning a trip to the Philippines") pulls in the
/// tools of the context. Tune halves, recommend's all gold in five (search's with sentences
/// in brackets): share 0.85 MetaTool 48.3 -> 48.6 (search 44.8 -> 46.0), bfcl 66.3 -> 67.4
/// (59.8 -> 60.9); 0.9 48.6, 68.5; 0.95 47.6, 69.6; 1.0 47.9, 69.6; apibank and the agent
/// sets unchanged. In search, single-tool NDCG@5 at 0.85: the third agent set -0.8,
/// apibank -0.1, bfcl -0.1, the agent requests +0.3.
const PART_SHARE: f64 = 0.9;

/// Words whose full stop ends no sentence: a title before a name ("Dr. Johnson") or what
/// always introduces more ("e.g. this").
#[rustfmt::skip]
const ABBREVIATIONS: &[&str] = &["dr", "mr", "mrs", "ms", "prof", "st", "vs", "e.g", "i.e", "cf"];

/// Words whose full stop ends a sentence only before a capital: "etc." closes a list as
/// often as a sentence ("..., shots on target etc. Lastly, ...").
#[rustfmt::skip]
const CLOSING_ABBREVIATIONS: &[&str] = &[
    "etc", "jr", "sr", "no", "approx", "inc", "ltd", "co", "mt", "ft", "fig",
];

/// The sentences of `text`: they end as the catalog's passages do (`.`, `?` or `!` before a
/// space, or a line end), but not at the full stop of an abbreviation or an initial, nor at
/// a question mark inside a URL or code.
pub(super) fn sentences(text: &str) -> Vec<&str> {
    crate::catalog::split_sentences_where(text, |before, after| {
        let word = before
            .rsplit(|ch: char| ch.is_whitespace() || ch == '(')
            .next()
            .unwrap_or("");
        let is = |list: &[&str]| list.iter().any(|a| a.eq_ignore_ascii_case(word));
        let capital_next = after.trim_start().starts_with(char::is_uppercase);
        word.chars().count() != 1
            && !is(ABBREVIATIONS)
            && (!is(CLOSING_ABBREVIATIONS) || capital_next)
    })
}

/// The sentences of `text` worth a vector of their own: three words or more, two of them
/// at least.
pub(super) fn sentence_parts(text: &str) -> Vec<&str> {
    let mut parts = sentences(text);
    parts.retain(|p| p.split_whitespace().count() >= 3);
    if parts.len() < 2 {
        parts.clear();
    }
    parts
}

/// The vectors of `text`'s sentences, when `vectors` holds every one of them.
fn part_vectors(text: &str, vectors: &QueryVectors) -> Option<Vec<Arc<Vec<f32>>>> {
    let parts = sentence_parts(text);
    if parts.is_empty() {
        return None;
    }
    parts.iter().map(|p| vectors.get(*p).cloned()).collect()
}

/// Raises each candidate's cosines to `PART_SHARE` times a sentence's, where that is higher.
fn part_cosines(sem: &Semantic, parts: &[Arc<Vec<f32>>], evidence: &mut EvidenceMap) -> Result<()> {
    let mut candidates: Vec<u32> = evidence.keys().copied().collect();
    candidates.sort_unstable();
    for v in parts {
        let summaries = sem.summaries.score_owners(v, &candidates)?;
        let passages = sem.passages.score_owners(v, &candidates)?;
        for ((o, s), p) in candidates.iter().zip(summaries).zip(passages) {
            let Some(e) = evidence.get_mut(o) else {
                continue;
            };
            let raised = |own: Option<f64>, hit: Option<OwnerHit>| {
                hit.map(|h| PART_SHARE * h.cosine as f64)
                    .filter(|c| own.is_none_or(|x| *c > x))
            };
            if let Some(c) = raised(e.cosine_summary, s) {
                e.cosine_summary = Some(c);
            }
            if let Some(c) = raised(e.cosine_passage, p) {
                e.cosine_passage = Some(c);
                e.matched_passage = p
                    .and_then(|h| sem.passage_kinds.get(h.vector as usize))
                    .map(|k| k.as_str());
            }
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::sentence_parts;

    #[test]
    fn a_request_of_several_sentences_has_parts() {
        assert_eq!(
            sentence_parts("I need the latest news on AI. Also, will it rain here this weekend?"),
            [
                "I need the latest news on AI.",
                "Also, will it rain here this weekend?"
            ]
        );
        // One sentence, or a second of fewer than three words, is no request of parts.
        assert!(sentence_parts("read src/main.rs and list its callers").is_empty());
        assert!(sentence_parts("Find a hotel in Paris. Thanks!").is_empty());
        // Abbreviations and initials end no sentence.
        assert!(
            sentence_parts("Schedule an appointment with Dr. Johnson at Unity Hospital").is_empty()
        );
        assert!(sentence_parts("Book a table for J. R. Smith near the office").is_empty());
        assert!(sentence_parts("Compare frameworks, e.g. React and Vue, for me").is_empty());
        // "etc." ends one before a capital only.
        assert_eq!(
            sentence_parts("List shots, fouls etc. Lastly, find the stadium's size").len(),
            2
        );
        assert!(sentence_parts("Count shots, fouls etc. for the last match").is_empty());
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn any_text_splits_into_pieces_of_itself(text in crate::hostile_text::text()) {
            let parts = sentence_parts(&text);
            proptest::prop_assert!(parts.len() != 1);
            for part in parts {
                proptest::prop_assert!(text.contains(part), "{part:?}");
                proptest::prop_assert!(part.split_whitespace().count() >= 3);
            }
        }
    }
}

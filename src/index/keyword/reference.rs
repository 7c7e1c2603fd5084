//! tantivy's own query engine over the keyword index: per query term, a disjunction-max (with
//! the same tie breaker) of its boosted term queries in each field, the terms in a block-WAND
//! union. Search no longer runs it (the impact lists answer the same
//! question exactly, see `impacts`); the tests keep it as the reference they check against.

use super::{KeywordField, KeywordHit, KeywordIndex, MatchedTerm, QueryTerm};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use tantivy::postings::TermInfo;
use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, EnableScoring, Occur, Query, TermQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, DocSet, Score, Term, TERMINATED};

impl KeywordIndex {
    /// The same search run by tantivy's own query engine (a block-WAND union over the query
    /// terms of each term's disjunction-max over its boosted per-field term queries): the
    /// reference the impact lists are tested against.
    pub(super) fn search_with_tantivy(
        &self,
        terms: &[QueryTerm],
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
    ) -> tantivy::Result<Vec<KeywordHit>> {
        let Some((query, lookups)) = self.build_query(terms)? else {
            return Ok(Vec::new());
        };
        let weight = query.weight(EnableScoring::enabled_from_searcher(&self.searcher))?;

        let capacity = k.min(self.num_docs() as usize);
        let mut top = BinaryHeap::<Candidate>::with_capacity(capacity + 1);
        for (segment_ord, segment) in self.searcher.segment_readers().iter().enumerate() {
            let ordinals = &self.segment_ordinals[segment_ord];
            let start = threshold(&top, k);
            // `for_each_pruning` lets the union skip blocks that cannot beat the current k-th
            // score (block-WAND). The filter runs inside the callback, so the threshold only
            // rises once k *allowed* documents are held.
            weight.for_each_pruning(start, segment, &mut |doc, score| {
                let ordinal = ordinals[doc as usize];
                if allow.is_none_or(|allow| allow(ordinal)) {
                    let candidate = Candidate {
                        score,
                        ordinal,
                        segment: segment_ord as u32,
                        doc,
                    };
                    if top.len() < k {
                        top.push(candidate);
                    } else if top.peek().is_some_and(|worst| candidate < *worst) {
                        top.pop();
                        top.push(candidate);
                    }
                }
                threshold(&top, k)
            })?;
        }
        let ranked = top.into_sorted_vec();
        let matched = self.matched(terms, &lookups, &ranked)?;
        Ok(ranked
            .iter()
            .zip(matched)
            .map(|(c, matched)| KeywordHit {
                ordinal: c.ordinal,
                bm25: c.score,
                matched,
            })
            .collect())
    }

    /// The query of `terms` over every weighted field, and the (field, term) pairs present in
    /// the index; None when no pair is present.
    ///
    /// Most (field, term) pairs of a query do not occur at all. One dictionary lookup per
    /// pair settles that up front, so absent pairs cost no weight, no scorer and no
    /// explanation, and present ones reuse their `TermInfo` for the explanation.
    fn build_query(
        &self,
        terms: &[QueryTerm],
    ) -> tantivy::Result<Option<(BooleanQuery, Vec<Lookup>)>> {
        let mut lookups: Vec<Lookup> = Vec::new();
        // Per query term, its boosted term query in each field where it occurs.
        let mut per_term: Vec<Vec<Box<dyn Query>>> = terms.iter().map(|_| Vec::new()).collect();
        for (field_idx, (kind, &field)) in KeywordField::ALL.iter().zip(&self.fields).enumerate() {
            let weight = self.weights.get(*kind);
            if weight <= 0.0 {
                continue;
            }
            for (term_idx, term) in terms.iter().enumerate() {
                let term = Term::from_field_text(field, &term.term);
                let infos = self
                    .inverted
                    .iter()
                    .map(|fields| fields[field_idx].get_term_info(&term))
                    .collect::<std::io::Result<Vec<Option<TermInfo>>>>()?;
                if infos.iter().all(Option::is_none) {
                    continue;
                }
                lookups.push(Lookup {
                    field_idx,
                    term_idx,
                    infos,
                });
                let query = TermQuery::new(term, IndexRecordOption::WithFreqs);
                per_term[term_idx].push(Box::new(BoostQuery::new(Box::new(query), weight)));
            }
        }
        let clauses: Vec<(Occur, Box<dyn Query>)> = per_term
            .into_iter()
            .zip(terms)
            .filter(|(fields, _)| !fields.is_empty())
            .map(|(fields, term)| {
                let best: Box<dyn Query> = Box::new(DisjunctionMaxQuery::with_tie_breaker(
                    fields,
                    super::impacts::TIE_BREAKER,
                ));
                (
                    Occur::Should,
                    Box::new(BoostQuery::new(best, term.weight())) as Box<dyn Query>,
                )
            })
            .collect();
        if clauses.is_empty() {
            return Ok(None);
        }
        Ok(Some((BooleanQuery::new(clauses), lookups)))
    }

    /// For each ranked candidate, the (field, query word) pairs present in it: the postings of
    /// every present pair, opened from its known `TermInfo`, seeked forward through the hits.
    /// A few microseconds for a page of hits, and no per-document side table in memory.
    fn matched(
        &self,
        terms: &[QueryTerm],
        lookups: &[Lookup],
        ranked: &[Candidate],
    ) -> tantivy::Result<Vec<Vec<MatchedTerm>>> {
        // found[hit][term][field]
        let mut found = vec![vec![[false; 6]; terms.len()]; ranked.len()];
        for (segment_ord, inverted) in self.inverted.iter().enumerate() {
            let mut hits: Vec<(DocId, usize)> = ranked
                .iter()
                .enumerate()
                .filter(|(_, c)| c.segment as usize == segment_ord)
                .map(|(i, c)| (c.doc, i))
                .collect();
            if hits.is_empty() {
                continue;
            }
            hits.sort_unstable();
            for lookup in lookups {
                let Some(info) = &lookup.infos[segment_ord] else {
                    continue;
                };
                let mut postings = inverted[lookup.field_idx]
                    .read_postings_from_terminfo(info, IndexRecordOption::Basic)?;
                for &(doc, hit) in &hits {
                    // Hits are sorted by doc, so seeks only move forward, as DocSet wants.
                    let mut current = postings.doc();
                    if current < doc {
                        current = postings.seek(doc);
                    }
                    if current == TERMINATED {
                        break;
                    }
                    if current == doc {
                        found[hit][lookup.term_idx][lookup.field_idx] = true;
                    }
                }
            }
        }
        Ok(found
            .into_iter()
            .map(|per_term| {
                let mut out: Vec<MatchedTerm> = Vec::new();
                for (term, fields) in terms.iter().zip(per_term) {
                    if term.is_pair() {
                        continue;
                    }
                    for (kind, hit) in KeywordField::ALL.iter().zip(fields) {
                        if !hit {
                            continue;
                        }
                        let pair = (kind.as_str(), term.surface.clone());
                        if !out.contains(&pair) {
                            out.push(pair);
                        }
                    }
                }
                out
            })
            .collect())
    }
}

/// A (field, query term) pair present in the index, with its dictionary entry per segment.
struct Lookup {
    field_idx: usize,
    term_idx: usize,
    infos: Vec<Option<TermInfo>>,
}

/// A scored document during collection. Ordered so that the *worse* candidate is greater:
/// the heap's top is then the one to evict, and `into_sorted_vec` lists the best first.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    score: Score,
    ordinal: u32,
    segment: u32,
    doc: DocId,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.ordinal.cmp(&other.ordinal))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

/// The score a document must exceed to be offered to the collector. Tantivy passes only
/// scores strictly above it, so it sits one float step below the k-th score: a tie with the
/// k-th document still arrives and is settled by ordinal, whatever the visiting order.
fn threshold(top: &BinaryHeap<Candidate>, k: usize) -> Score {
    match top.peek() {
        Some(worst) if top.len() >= k => next_down(worst.score),
        _ => Score::MIN,
    }
}

/// The largest float below `x` (`f32::next_down` needs a newer Rust than the crate's MSRV).
fn next_down(x: f32) -> f32 {
    if x.is_nan() || x == f32::NEG_INFINITY {
        x
    } else if x == 0.0 {
        -f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() - 1)
    } else {
        f32::from_bits(x.to_bits() + 1)
    }
}

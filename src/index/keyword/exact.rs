//! Exact BM25 of a query for chosen documents, whether or not they made the query's top k.
//!
//! On large catalogs each index proposes its own candidates and the union is scored. The
//! vector side rescored every candidate exactly, but a tool proposed only by the vectors kept
//! no BM25 at all, though scoring every tool would have given it one: on synthetic 10k
//! catalogs the candidate path then returned 86% of the exhaustive top 10. Scoring those
//! candidates here closes that gap at the cost of one seek per candidate.

use super::{query_terms, Candidate, KeywordHit, KeywordIndex};
use tantivy::query::{EnableScoring, Query};
use tantivy::{DocId, DocSet, TERMINATED};

impl KeywordIndex {
    /// BM25 of `query` (and the matched (field, term) pairs) for each tool ordinal in
    /// `ordinals`, in the order given; None for a tool that contains no query term.
    pub fn score_ordinals(&self, query: &str, ordinals: &[u32]) -> Vec<Option<KeywordHit>> {
        let mut out: Vec<Option<KeywordHit>> = vec![None; ordinals.len()];
        let terms = query_terms(query);
        if terms.is_empty() || ordinals.is_empty() {
            return out;
        }
        let result = (|| -> tantivy::Result<()> {
            let Some((query, lookups)) = self.build_query(&terms)? else {
                return Ok(());
            };
            let weight = query.weight(EnableScoring::enabled_from_searcher(&self.searcher))?;
            let mut found: Vec<(usize, Candidate)> = Vec::new();
            for (segment_ord, segment) in self.searcher.segment_readers().iter().enumerate() {
                // The wanted documents of this segment, in doc order for forward seeks.
                let mut wanted: Vec<(DocId, usize)> = ordinals
                    .iter()
                    .enumerate()
                    .filter_map(|(i, &o)| match self.locations.get(o as usize) {
                        Some(Some((seg, doc))) if *seg as usize == segment_ord => Some((*doc, i)),
                        _ => None,
                    })
                    .collect();
                if wanted.is_empty() {
                    continue;
                }
                wanted.sort_unstable();
                let mut scorer = weight.scorer(segment, 1.0)?;
                for (doc, i) in wanted {
                    if scorer.doc() == TERMINATED {
                        break;
                    }
                    if scorer.doc() < doc {
                        scorer.seek(doc);
                    }
                    if scorer.doc() == doc {
                        found.push((
                            i,
                            Candidate {
                                score: scorer.score(),
                                ordinal: ordinals[i],
                                segment: segment_ord as u32,
                                doc,
                            },
                        ));
                    }
                }
            }
            let candidates: Vec<Candidate> = found.iter().map(|(_, c)| *c).collect();
            let matched = self.matched(&terms, &lookups, &candidates)?;
            for ((i, c), matched) in found.into_iter().zip(matched) {
                out[i] = Some(KeywordHit {
                    ordinal: c.ordinal,
                    bm25: c.score,
                    matched,
                });
            }
            Ok(())
        })();
        if let Err(e) = result {
            tracing::error!(error = %e, "keyword index: exact scoring failed");
        }
        out
    }
}

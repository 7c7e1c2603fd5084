//! Exact BM25 of a query for chosen documents, whether or not they made the query's top k.
//!
//! On large catalogs each index proposes its own candidates and the union is scored. The
//! vector side rescored every candidate exactly, but a tool proposed only by the vectors kept
//! no BM25 at all, though scoring every tool would have given it one: on synthetic 10k
//! catalogs the candidate path then returned 86% of the exhaustive top 10. Scoring those
//! candidates here closes that gap at the cost of one binary search per (candidate, term).

use super::impacts::matched_pairs;
use super::{query_terms, query_words, KeywordHit, KeywordIndex, KeywordQuery};

impl KeywordIndex {
    /// BM25 of `query` (and the matched (field, term) pairs) for each tool ordinal in
    /// `ordinals`, in the order given; None for a tool that contains no query term. The same
    /// numbers `search` gives a tool in its top k.
    pub fn score_ordinals<'q>(
        &self,
        query: impl Into<KeywordQuery<'q>>,
        ordinals: &[u32],
    ) -> Vec<Option<KeywordHit>> {
        let query = query.into();
        let terms = query_terms(query.text);
        let lists = self.impacts.term_lists(&terms, query.unnamed);
        let ids = self.coverage.ids(&query_words(&terms, query.unnamed));
        let factor = |o: u32| self.coverage.factor(o, &ids);
        ordinals
            .iter()
            .map(|&o| {
                let bm25 = self.impacts.score(&lists, o, &factor)?;
                Some(KeywordHit {
                    ordinal: o,
                    bm25,
                    matched: matched_pairs(&self.impacts, &terms, &lists, o),
                })
            })
            .collect()
    }
}

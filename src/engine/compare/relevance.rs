//! How well each compared tool fits a `comparison_context`, measured with the search
//! machinery restricted to the compared tools: the context's embedding against each tool's
//! summary and best passage (as search scores a request's context), fused with BM25 of the
//! context over the tools' fields; BM25 alone when no model is loaded.

use crate::engine::{Engine, SearchMode};
use crate::error::Result;
use crate::rank;

/// Relevance of the context to each compared tool, in the order of the ordinals given.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ContextFit {
    /// `Hybrid` with the model, `Keyword` without.
    pub mode: SearchMode,
    /// 0..1 per tool: the hybrid fusion of the semantic and keyword parts (config weights),
    /// or the keyword part alone.
    pub relevance: Vec<f64>,
    /// Blended cosine of the context and each tool (hybrid mode only).
    pub cosine: Vec<Option<f64>>,
    /// Context words found in each tool's indexed text, as typed, in context order.
    pub matched_words: Vec<Vec<String>>,
    pub hints: Vec<String>,
}

impl Engine {
    /// Scores `context` against the tools at `ordinals` (catalog positions).
    pub(super) fn context_fit(&self, context: &str, ordinals: &[u32]) -> Result<ContextFit> {
        let n = ordinals.len();
        let (keyword, matched_words) = self.keyword_fit(context, ordinals);
        let mut hints = Vec::new();
        let Some(cosine) = self.semantic_fit(context, ordinals, &mut hints)? else {
            return Ok(ContextFit {
                mode: SearchMode::Keyword,
                relevance: keyword,
                cosine: vec![None; n],
                matched_words,
                hints,
            });
        };
        let config = self.config();
        let total = config.semantic_weight + config.keyword_weight;
        let (ws, wk) = if total > 0.0 {
            (
                config.semantic_weight / total,
                config.keyword_weight / total,
            )
        } else {
            (0.5, 0.5)
        };
        let relevance = cosine
            .iter()
            .zip(&keyword)
            .map(|(c, k)| ws * c.map_or(0.0, rank::semantic_part) + wk * k)
            .collect();
        Ok(ContextFit {
            mode: SearchMode::Hybrid,
            relevance,
            cosine,
            matched_words,
            hints,
        })
    }

    /// The keyword part of each tool's fit, and the context's words its text has.
    fn keyword_fit(&self, context: &str, ordinals: &[u32]) -> (Vec<f64>, Vec<Vec<String>>) {
        let n = ordinals.len();
        let allow = |o: u32| ordinals.contains(&o);
        let mut keyword = vec![0.0; n];
        let mut matched_words: Vec<Vec<String>> = vec![Vec::new(); n];
        // Whole words of the context only: the index also reports the parts it splits
        // identifiers into ("git" and "hub" of "GitHub"), which would read as noise.
        let words: Vec<String> = context
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        for hit in self.snapshot().keyword.search(context, n, Some(&allow)) {
            if let Some(i) = ordinals.iter().position(|&o| o == hit.ordinal) {
                keyword[i] = rank::keyword_part(hit.bm25 as f64);
                for (_, word) in hit.matched {
                    let word = word.to_lowercase();
                    if words.contains(&word) && !matched_words[i].contains(&word) {
                        matched_words[i].push(word);
                    }
                }
            }
        }
        (keyword, matched_words)
    }

    /// The context's blended cosine to each tool, when the model is loaded; a hint when it
    /// is unavailable.
    fn semantic_fit(
        &self,
        context: &str,
        ordinals: &[u32],
        hints: &mut Vec<String>,
    ) -> Result<Option<Vec<Option<f64>>>> {
        let snap = self.snapshot();
        match (&snap.semantic, &snap.semantic_status) {
            (Some(sem), _) => match self.embed_query(context)? {
                Some(v) => {
                    let summaries = sem.summaries.score_owners(&v, ordinals)?;
                    let passages = sem.passages.score_owners(&v, ordinals)?;
                    Ok(Some(
                        summaries
                            .iter()
                            .zip(&passages)
                            .map(|(s, p)| {
                                rank::blend_cosine(
                                    s.map(|h| h.cosine as f64),
                                    p.map(|h| h.cosine as f64),
                                )
                            })
                            .collect(),
                    ))
                }
                None => Ok(None),
            },
            (None, crate::index::snapshot::SemanticStatus::Unavailable { reason }) => {
                hints.push(format!(
                    "semantic search is unavailable ({reason}); context relevance comes from keyword matching only"
                ));
                Ok(None)
            }
            (None, _) => Ok(None),
        }
    }
}

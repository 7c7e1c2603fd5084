//! A snapshot: one catalog with its documents, keyword index and (when a model is loaded)
//! passage vectors, built once and shared read-only by every request. Building is the only
//! expensive step; a snapshot never changes after it.

use super::keyword::{FieldWeights, KeywordIndex};
use super::names::NameIndex;
use super::vector::VectorIndex;
use super::vocabulary::Vocabulary;
use crate::catalog::{Catalog, PassageKind, ToolDocument};
use crate::embed::cache::VectorCache;
use crate::embed::Embedder;
use crate::error::Result;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Whether semantic search is available, and if not, why.
#[derive(Debug, Clone, PartialEq)]
pub enum SemanticStatus {
    Available { model_id: String, vectors: usize },
    Unavailable { reason: String },
}

impl SemanticStatus {
    pub fn is_available(&self) -> bool {
        matches!(self, SemanticStatus::Available { .. })
    }
}

/// The semantic half of a snapshot: one vector per tool for its summary, and one per other
/// passage (keywords, guidance chunks, examples). A tool's semantic evidence blends its
/// summary cosine with its best other passage (see `rank::SUMMARY_SHARE`): the summary says
/// what the tool is, the best passage catches the one use case a query describes.
pub struct Semantic {
    pub embedder: Arc<dyn Embedder>,
    pub summaries: VectorIndex,
    /// Every non-summary passage; a tool with none is represented by its summary again.
    pub passages: VectorIndex,
    /// Kind of each vector of `passages`, in build order.
    pub passage_kinds: Vec<PassageKind>,
}

pub struct Snapshot {
    pub catalog: Arc<Catalog>,
    pub documents: Vec<ToolDocument>,
    pub keyword: KeywordIndex,
    pub semantic: Option<Semantic>,
    pub semantic_status: SemanticStatus,
    /// Normalised id, name and alias -> tool ordinal, for exact-name lookup.
    pub names: NameIndex,
    /// The documents' words, for spelling corrections of unknown query words.
    pub vocabulary: Vocabulary,
    pub build_time: Duration,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("tools", &self.catalog.len())
            .field("version", &self.catalog.version())
            .field("semantic", &self.semantic_status)
            .finish()
    }
}

/// Field weights of BM25. Measured on the MetaTool development set (see the README's quality
/// section): names and descriptions carry the most signal; long guidance text mentions many
/// things a tool is not about, so it counts little.
pub const KEYWORD_WEIGHTS: FieldWeights = FieldWeights {
    names: 1.0,
    keywords: 1.0,
    description: 1.0,
    guidance: 0.2,
    parameters: 0.2,
    examples: 0.6,
};

impl Snapshot {
    /// Builds every index of `catalog`. Without an embedder (or if embedding fails) the
    /// snapshot serves keyword search and says why semantic search is unavailable.
    pub fn build(
        catalog: Arc<Catalog>,
        embedder: std::result::Result<Arc<dyn Embedder>, String>,
    ) -> Result<Snapshot> {
        Snapshot::build_cached(catalog, embedder, None)
    }

    /// [`Snapshot::build`], taking passage vectors from `cache` where it has them (and
    /// adding the rest to it; the caller saves it).
    pub fn build_cached(
        catalog: Arc<Catalog>,
        embedder: std::result::Result<Arc<dyn Embedder>, String>,
        cache: Option<&VectorCache>,
    ) -> Result<Snapshot> {
        let start = Instant::now();
        let documents: Vec<ToolDocument> = catalog.documents();
        let keyword = KeywordIndex::build(&documents, KEYWORD_WEIGHTS)?;
        let names = NameIndex::build(catalog.tools().iter().enumerate().flat_map(|(i, t)| {
            t.names()
                .chain(std::iter::once(t.tool_id.as_str()))
                .map(move |n| (n, i as u32))
        }));
        let vocabulary = Vocabulary::build(&documents);
        let (semantic, semantic_status) = match embedder {
            Err(reason) => (None, SemanticStatus::Unavailable { reason }),
            Ok(embedder) => match embed_documents(&documents, embedder.as_ref(), cache) {
                Ok((summaries, passages, passage_kinds)) => {
                    let status = SemanticStatus::Available {
                        model_id: embedder.model_id().to_string(),
                        vectors: summaries.len() + passages.len(),
                    };
                    (
                        Some(Semantic {
                            embedder,
                            summaries,
                            passages,
                            passage_kinds,
                        }),
                        status,
                    )
                }
                Err(e) => {
                    tracing::error!(error = %e, "embedding the catalog failed; serving keyword search only");
                    (
                        None,
                        SemanticStatus::Unavailable {
                            reason: format!("embedding the catalog failed: {e}"),
                        },
                    )
                }
            },
        };
        Ok(Snapshot {
            catalog,
            documents,
            keyword,
            semantic,
            semantic_status,
            names,
            vocabulary,
            build_time: start.elapsed(),
        })
    }

    /// The tool a query names exactly, if any.
    pub fn exact(&self, query: &str) -> Option<u32> {
        self.names.exact(query)
    }
}

/// Embeds every passage of every document: the summary index, the other-passage index and
/// the kinds of the latter's vectors.
fn embed_documents(
    docs: &[ToolDocument],
    embedder: &dyn Embedder,
    cache: Option<&VectorCache>,
) -> Result<(VectorIndex, VectorIndex, Vec<PassageKind>)> {
    let mut texts: Vec<&str> = Vec::new();
    let mut owners: Vec<u32> = Vec::new();
    let mut kinds: Vec<PassageKind> = Vec::new();
    for d in docs {
        for p in &d.passages {
            texts.push(&p.text);
            owners.push(d.ordinal);
            kinds.push(p.kind);
        }
    }
    // One call with every text: the embedder orders them by length before batching, so
    // batches hold texts of similar length and little of each forward pass goes to padding.
    // Chunking here first (as this once did, 64 at a time) sorted only within each chunk.
    let vectors = match cache {
        Some(cache) => {
            let (vectors, usage) = cache.embed(embedder, &texts)?;
            tracing::info!(
                cached = usage.hits,
                embedded = usage.misses,
                "catalog passages embedded"
            );
            vectors
        }
        None => embedder.embed(&texts)?,
    };
    let mut summaries = Vec::new();
    let mut others = Vec::new();
    let mut other_kinds = Vec::new();
    let mut has_other = vec![false; docs.len()];
    for ((owner, kind), v) in owners.iter().zip(&kinds).zip(&vectors) {
        if *kind == PassageKind::Summary {
            summaries.push((*owner, v.clone()));
        } else {
            has_other[*owner as usize] = true;
            others.push((*owner, v.clone()));
            other_kinds.push(*kind);
        }
    }
    for (owner, v) in &summaries {
        if !has_other[*owner as usize] {
            others.push((*owner, v.clone()));
            other_kinds.push(PassageKind::Summary);
        }
    }
    let dim = embedder.dim();
    Ok((
        VectorIndex::build(dim, summaries)?,
        VectorIndex::build(dim, others)?,
        other_kinds,
    ))
}

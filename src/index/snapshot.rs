//! A snapshot: one catalog with its documents, keyword index and (when a model is loaded)
//! passage vectors, built once and shared read-only by every request. Building is the only
//! expensive step; a snapshot never changes after it.

use super::keyword::{FieldWeights, KeywordIndex};
use super::names::NameIndex;
pub use super::semantic::Semantic;
use super::vocabulary::Vocabulary;
use crate::catalog::{Catalog, ToolDocument};
use crate::embed::cache::VectorCache;
use crate::embed::Embedder;
use crate::error::{Error, Result};
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

/// Field weights of BM25, chosen on the development suite's tune halves (hybrid NDCG@5,
/// MetaTool / bfcl / apibank / agent requests, from 72.0 / 75.7 / 71.1 / 87.8 with names,
/// keywords and description 1, guidance and parameters 0.2, examples 0.6). Parameters 0.4,
/// 0.7, 1.0, 1.5: bfcl 77.0, 77.6, 78.1, 78.5 and apibank 71.2, 72.4, 72.3, 72.0, the agent
/// requests falling from 1.0 on (a parameter says what a tool takes, which requests name:
/// "the area of a triangle with base 5"). Guidance 0.1: MetaTool +0.2; 0.4 lost 0.3 to 0.4.
/// Examples 1.0: agent requests +0.4. Keywords 1.5 (written for search; only the shipped
/// catalog has them): agent requests +0.3. Description 0.7 or 1.5 lost on the agent
/// requests. Names 0.7 gained 0.1 to 0.5 a set but cost MetaTool's two-tool requests 4
/// points of all gold in the first five (a request naming two tools' topics needs both
/// names heard); 1.5 lost on every set. Together, with `semantic_weight` 0.65 and messages
/// and values read as in `engine::texts`: 71.9 / 78.1 / 72.7 / 90.0.
pub const KEYWORD_WEIGHTS: FieldWeights = FieldWeights {
    names: 1.0,
    keywords: 1.5,
    description: 1.0,
    guidance: 0.1,
    parameters: 0.7,
    examples: 1.0,
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
        Snapshot::build_from(catalog, embedder, cache, None)
    }

    /// [`Snapshot::build_cached`], reusing `previous`'s vectors and graphs for the tools whose
    /// passages did not change when few did (see `semantic`).
    pub fn build_from(
        catalog: Arc<Catalog>,
        embedder: std::result::Result<Arc<dyn Embedder>, String>,
        cache: Option<&VectorCache>,
        previous: Option<&Semantic>,
    ) -> Result<Snapshot> {
        let start = Instant::now();
        let documents: Vec<ToolDocument> = catalog.documents();
        // Three independent builds, side by side: at 10k tools the keyword index takes ~0.7 s,
        // the names and vocabulary ~0.4 s, and the semantic half anything from a load of the
        // persisted index to a graph build of tens of seconds.
        let (keyword, words, semantic) = std::thread::scope(|scope| {
            let keyword = scope.spawn(|| KeywordIndex::build(&documents, KEYWORD_WEIGHTS));
            let words = scope.spawn(|| {
                let names =
                    NameIndex::build(catalog.tools().iter().enumerate().flat_map(|(i, t)| {
                        t.names()
                            .chain(std::iter::once(t.tool_id.as_str()))
                            .map(move |n| (n, i as u32))
                    }));
                (names, Vocabulary::build(&documents))
            });
            let semantic = semantic_half(&documents, embedder, cache, previous);
            (keyword.join(), words.join(), semantic)
        });
        let panicked = |what: &str| Error::Internal(format!("building the {what} panicked"));
        let keyword = keyword.map_err(|_| panicked("keyword index"))??;
        let (names, vocabulary) = words.map_err(|_| panicked("name index"))?;
        let (semantic, semantic_status) = semantic;
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

/// The semantic half of a snapshot and its status: keyword search only, and why, when there
/// is no model or embedding fails.
fn semantic_half(
    documents: &[ToolDocument],
    embedder: std::result::Result<Arc<dyn Embedder>, String>,
    cache: Option<&VectorCache>,
    previous: Option<&Semantic>,
) -> (Option<Semantic>, SemanticStatus) {
    let embedder = match embedder {
        Err(reason) => return (None, SemanticStatus::Unavailable { reason }),
        Ok(embedder) => embedder,
    };
    match Semantic::build(documents, embedder.clone(), cache, previous) {
        Ok(semantic) => {
            let status = SemanticStatus::Available {
                model_id: embedder.model_id().to_string(),
                vectors: semantic.len(),
            };
            (Some(semantic), status)
        }
        Err(e) => {
            tracing::error!(error = %e, "embedding the catalog failed; serving keyword search only");
            let reason = format!("embedding the catalog failed: {e}");
            (None, SemanticStatus::Unavailable { reason })
        }
    }
}

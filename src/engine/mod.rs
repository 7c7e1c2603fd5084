//! The engine: the one API every transport calls (search now; recommend and compare build on
//! it). It owns the current snapshot, the response cache and the query-embedding cache.
//! Requests reach it only as `Valid` ones (`valid`: parsed once, checked against the schema
//! and the catalog). Calls are synchronous and CPU-bound; async callers run them with
//! `spawn_blocking`.

mod compare;
mod evidence;
mod filters;
mod learned;
mod measured;
mod recommend;
mod request;
mod response;
mod retrieve;
mod search;
mod stages;
mod suggest;
mod texts;
mod valid;

use texts::{QueryTexts, WebTopics};

pub use crate::index::snapshot::SemanticStatus;
pub use compare::{
    ComparisonDetail, ComparisonMetadata, ComparisonRequest, ComparisonResponse, ComparisonSummary,
    Criterion, DimensionEvidence, DimensionScores, ToolComparison, ToolComparisonResult, TradeOff,
    COMPARE_ALGORITHM_VERSION, COMPARE_REQUEST_SCHEMA,
};
pub use learned::{LearnReport, PastFeedback, Verdict};
pub use measured::{MeasuredUse, MeasuredUses};
pub use recommend::{
    ComplexityPreference, ExperienceLevel, Part, RecommendationMetadata, RecommendationRequest,
    RecommendationResponse, ScoreBreakdown, TaskAnalysis, TaskComplexity, ToolRecommendation,
    UserPreferences, WorkflowStep, RECOMMEND_REQUEST_SCHEMA,
};
pub use request::{ComplexityRange, Filters, SearchRequest, SEARCH_REQUEST_SCHEMA};
pub use response::{
    ConfidenceLevel, ParameterInfo, PerformanceInfo, ScoreDetails, SearchMetadata, SearchMode,
    SearchResponse, ToolSearchResult,
};
pub use valid::{Request, Valid};

use crate::analysis::Affordances;
use crate::catalog::Catalog;
use crate::config::SearchConfig;
use crate::embed::cache::VectorCache;
use crate::embed::Embedder;
use crate::error::Result;
use crate::index::snapshot::{Semantic, Snapshot};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Version of the ranking algorithm, reported in every response; bump on any change that
/// can reorder results.
pub const ALGORITHM_VERSION: &str = "hybrid-ramp-4";

/// Query texts and their embeddings, computed together.
pub(crate) type QueryVectors = std::collections::HashMap<String, Arc<Vec<f32>>>;

pub struct Engine {
    snapshot: Arc<Snapshot>,
    /// What each tool's parameters take (by ordinal), for the affordance signal.
    affordances: Vec<Affordances>,
    /// Product names that a request pointing at the web looks up rather than asks for.
    web_topics: WebTopics,
    config: SearchConfig,
    /// The catalog's runnable and metadata-only twins, for `rank::prefer_runnable`.
    twins: crate::rank::Twins,
    responses: moka::sync::Cache<String, Arc<SearchResponse>>,
    query_vectors: moka::sync::Cache<String, Arc<Vec<f32>>>,
    cache_lookups: CacheLookups,
    /// Success measured by toolscout's own executions (see `measured`).
    measured: std::sync::RwLock<Arc<MeasuredUses>>,
    /// Changes of what ranking weighs of `measured` (see `Engine::set_measured`).
    measured_generation: AtomicU64,
    /// Past requests and their feedback (see `learned`).
    learned: std::sync::RwLock<Arc<learned::FeedbackIndex>>,
}

/// Response-cache lookups counted by [`Engine::search_counted`].
#[derive(Debug, Default)]
struct CacheLookups {
    hits: AtomicU64,
    misses: AtomicU64,
}

/// What the response cache holds and how often it answered, for operators (`/health`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CacheStats {
    pub enabled: bool,
    pub entries: u64,
    /// What the held responses weigh (their size as JSON), against half of
    /// `cache_max_bytes`.
    pub bytes: u64,
    pub hits: u64,
    pub misses: u64,
    /// hits / (hits + misses), or `None` before the first counted search.
    pub hit_rate: Option<f64>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("snapshot", &self.snapshot)
            .finish()
    }
}

impl Engine {
    /// Builds the snapshot of `catalog` and an engine over it. `embedder` is the loaded
    /// model, or why there is none.
    pub fn build(
        catalog: Arc<Catalog>,
        embedder: std::result::Result<Arc<dyn Embedder>, String>,
        config: SearchConfig,
    ) -> Result<Engine> {
        let snapshot = Snapshot::build(catalog, embedder)?;
        Ok(Engine::with_snapshot(Arc::new(snapshot), config))
    }

    /// [`Engine::build`] with the catalog's passage vectors cached on disk in `cache_dir`
    /// (see `embed::cache`): a restart re-embeds only passages it has not seen. The vectors
    /// and graphs are also persisted there (`index::persist`): a restart of an unchanged
    /// catalog loads them, and one after a small change updates them. A cache that cannot be
    /// written costs only the next start's time, so that failure is a warning.
    pub fn build_cached(
        catalog: Arc<Catalog>,
        embedder: std::result::Result<Arc<dyn Embedder>, String>,
        config: SearchConfig,
        cache_dir: Option<&std::path::Path>,
    ) -> Result<Engine> {
        let persisted = match (cache_dir, &embedder) {
            (Some(dir), Ok(e)) => {
                crate::index::persist::load(dir, catalog.version(), e, catalog.len())
            }
            _ => None,
        };
        Engine::rebuilt(catalog, embedder, config, cache_dir, persisted.as_ref())
    }

    /// [`Engine::build_cached`] updating `previous`'s vectors and graphs (a reload passes the
    /// serving snapshot's) instead of loading persisted ones.
    pub fn rebuilt(
        catalog: Arc<Catalog>,
        embedder: std::result::Result<Arc<dyn Embedder>, String>,
        config: SearchConfig,
        cache_dir: Option<&std::path::Path>,
        previous: Option<&Semantic>,
    ) -> Result<Engine> {
        let cache = match (cache_dir, &embedder) {
            (Some(dir), Ok(e)) => Some(VectorCache::open(dir, e.model_id(), e.dim())),
            _ => None,
        };
        let version = catalog.version().to_string();
        let snapshot = Snapshot::build_from(catalog, embedder, cache.as_ref(), previous)?;
        if let Some(cache) = &cache {
            if let Err(e) = cache.save() {
                tracing::warn!(error = %e, "could not save the vector cache");
            }
        }
        if let (Some(dir), Some(semantic)) = (cache_dir, &snapshot.semantic) {
            let reused = previous.is_some_and(|p| semantic.passages.shares_core_with(&p.passages));
            if !reused && !semantic.is_overlay() && crate::index::persist::worth_saving(semantic) {
                if let Err(e) = crate::index::persist::save(dir, &version, semantic) {
                    tracing::warn!(error = %e, "could not persist the index");
                }
            }
        }
        Ok(Engine::with_snapshot(Arc::new(snapshot), config))
    }

    pub fn with_snapshot(snapshot: Arc<Snapshot>, config: SearchConfig) -> Engine {
        // Bounded in bytes: a detailed answer weighs tens of kilobytes, so a count of entries
        // says little about memory.
        let responses = moka::sync::Cache::builder()
            .max_capacity(if config.cache_enabled {
                config.cache_max_bytes / 2
            } else {
                0
            })
            .weigher(|key: &String, response: &Arc<SearchResponse>| {
                weight(key.len() as u64 + response.approx_bytes())
            })
            .time_to_live(Duration::from_secs(config.cache_ttl.max(1)))
            .build();
        let query_vectors = moka::sync::Cache::builder()
            .max_capacity(if config.cache_enabled {
                config.cache_size
            } else {
                0
            })
            .build();
        let affordances: Vec<Affordances> = snapshot
            .catalog
            .tools()
            .iter()
            .map(Affordances::of)
            .collect();
        let web_topics = WebTopics::of(snapshot.catalog.tools(), &affordances);
        let twins = crate::rank::Twins::from_tools(snapshot.catalog.tools());
        Engine {
            snapshot,
            affordances,
            web_topics,
            config,
            twins,
            responses,
            query_vectors,
            cache_lookups: CacheLookups::default(),
            measured: std::sync::RwLock::default(),
            measured_generation: AtomicU64::new(0),
            learned: std::sync::RwLock::default(),
        }
    }

    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.snapshot
    }

    pub fn catalog(&self) -> &Catalog {
        &self.snapshot.catalog
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Counts a search answered from a cache in front of the engine (the service's rendered
    /// answers) as a response-cache hit, so `/health` reports every cached answer.
    pub fn count_cache_hit(&self) {
        self.cache_lookups.hits.fetch_add(1, Ordering::Relaxed);
    }

    /// Responses currently held in the response cache.
    pub fn cache_entries(&self) -> u64 {
        self.responses.entry_count()
    }

    /// `search`, counting whether the response cache answered. Transports call this; `search`
    /// itself stays uncounted so that evaluation and benchmarks do not skew the hit rate.
    pub fn search_counted(&self, req: &Valid<SearchRequest>) -> Result<SearchResponse> {
        let response = self.search(req)?;
        if self.config.cache_enabled {
            let counter = if response.metadata.cache_hit {
                &self.cache_lookups.hits
            } else {
                &self.cache_lookups.misses
            };
            counter.fetch_add(1, Ordering::Relaxed);
        }
        Ok(response)
    }

    /// The response cache's size and hit rate over the searches counted so far.
    pub fn cache_stats(&self) -> CacheStats {
        let hits = self.cache_lookups.hits.load(Ordering::Relaxed);
        let misses = self.cache_lookups.misses.load(Ordering::Relaxed);
        let total = hits + misses;
        // moka counts entries lazily; settle pending inserts so the figure is current.
        self.responses.run_pending_tasks();
        CacheStats {
            enabled: self.config.cache_enabled,
            entries: self.responses.entry_count(),
            bytes: self.responses.weighted_size(),
            hits,
            misses,
            hit_rate: (total > 0).then(|| hits as f64 / total as f64),
        }
    }

    /// Embeds many query texts in batches and caches them (eval and benchmarks).
    pub fn prime_query_vectors(&self, texts: &[&str]) -> Result<()> {
        let Some(semantic) = &self.snapshot.semantic else {
            return Ok(());
        };
        for chunk in texts.chunks(64) {
            let vectors = semantic.embedder.embed(chunk)?;
            for (t, v) in chunk.iter().zip(vectors) {
                self.query_vectors.insert(t.to_string(), Arc::new(v));
            }
        }
        Ok(())
    }

    /// Search without the response cache (the query-vector cache still applies).
    pub fn search_fresh(&self, req: &Valid<SearchRequest>) -> Result<SearchResponse> {
        let start = std::time::Instant::now();
        let mut response = self.search_uncached(req)?;
        response.execution_time = start.elapsed().as_secs_f64();
        Ok(response)
    }

    /// Embeds `texts` in one batch, without the cache: a caller that needs several vectors
    /// at once pays one forward pass instead of one per text.
    pub(crate) fn embed_batch(&self, texts: &[&str]) -> Result<QueryVectors> {
        let mut out = QueryVectors::new();
        let Some(semantic) = &self.snapshot.semantic else {
            return Ok(out);
        };
        let mut todo: Vec<&str> = Vec::new();
        for &t in texts {
            if out.contains_key(t) || todo.contains(&t) {
                continue;
            }
            match self.query_vectors.get(t) {
                Some(v) => {
                    out.insert(t.to_string(), v);
                }
                None => todo.push(t),
            }
        }
        if !todo.is_empty() {
            for (t, v) in todo.iter().zip(semantic.embedder.embed(&todo)?) {
                let v = Arc::new(v);
                if self.config.cache_enabled {
                    self.query_vectors.insert(t.to_string(), v.clone());
                }
                out.insert(t.to_string(), v);
            }
        }
        Ok(out)
    }

    /// A text's vector: from `pre` when it holds it, else [`Engine::embed_query`].
    fn query_vector(
        &self,
        text: &str,
        pre: Option<&QueryVectors>,
    ) -> Result<Option<Arc<Vec<f32>>>> {
        if self.snapshot.semantic.is_some() {
            if let Some(v) = pre.and_then(|m| m.get(text)) {
                return Ok(Some(v.clone()));
            }
        }
        self.embed_query(text)
    }

    /// The query's embedding, cached by text.
    fn embed_query(&self, text: &str) -> Result<Option<Arc<Vec<f32>>>> {
        let Some(semantic) = &self.snapshot.semantic else {
            return Ok(None);
        };
        if let Some(v) = self.query_vectors.get(text) {
            return Ok(Some(v));
        }
        let v =
            semantic.embedder.embed(&[text])?.pop().ok_or_else(|| {
                crate::error::Error::Internal("embedder returned no vector".into())
            })?;
        let v = Arc::new(v);
        if self.config.cache_enabled {
            self.query_vectors.insert(text.to_string(), v.clone());
        }
        Ok(Some(v))
    }
}

/// A cache weight in moka's 32 bits, saturating.
pub(crate) fn weight(bytes: u64) -> u32 {
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

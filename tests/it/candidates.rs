//! On catalogs above `exhaustive_limit`, each index proposes candidates and their union is
//! scored. This checks that path against scoring every tool, on a synthetic 1,000-tool catalog
//! (the search bench's generator; vectors from its clustered fake embedder, exact scans at
//! this size, so any loss would come from the candidate union itself).

#[path = "../../benches/search/catalog.rs"]
#[allow(dead_code)]
mod catalog;
#[path = "../../benches/search/embedder.rs"]
mod embedder;
use catalog as synthetic;

use std::sync::Arc;
use toolscout::catalog::Catalog;
use toolscout::config::SearchConfig;
use toolscout::embed::Embedder;
use toolscout::engine::{Engine, SearchMode, SearchRequest, Valid};

/// An engine over the synthetic 1,000-tool catalog with the bench's fake embedder.
fn synthetic_engine() -> Engine {
    let words = synthetic::Words::new();
    let catalog = Arc::new(Catalog::from_tools(
        "synthetic".into(),
        synthetic::synthetic_tools(&words, 1_000),
    ));
    let embedder: Arc<dyn Embedder> = Arc::new(embedder::FakeEmbedder::new());
    Engine::build(catalog, Ok(embedder), SearchConfig::default()).unwrap()
}

#[test]
fn the_candidate_path_returns_the_exhaustive_top_ten() {
    let engine = synthetic_engine();
    let exhaustive = Engine::with_snapshot(
        engine.snapshot().clone(),
        SearchConfig {
            exhaustive_limit: usize::MAX,
            ..SearchConfig::default()
        },
    );
    let (mut found, mut total) = (0, 0);
    for q in synthetic::QUERIES {
        let mut req = SearchRequest::new(q);
        req.search_mode = Some(SearchMode::Hybrid);
        let req = Valid::check(req, engine.catalog()).unwrap();
        let ids = |e: &Engine| -> Vec<String> {
            let r = e.search_fresh(&req).unwrap();
            r.results.iter().map(|h| h.tool_id.clone()).collect()
        };
        let (fast, full) = (ids(&engine), ids(&exhaustive));
        found += full.iter().filter(|id| fast.contains(id)).count();
        total += full.len();
    }
    assert!(total > 50, "the queries must find tools ({total})");
    let recall = found as f64 / total as f64;
    assert!(
        recall >= 0.99,
        "candidate path recall@10 {recall:.3} ({found} of {total})"
    );
}

/// A search called from a rayon pool thread takes the other schedule of the two stages (the
/// pool job does both vector walks instead of handing the query vector back to the caller);
/// the answer must not depend on it, nor may it block.
#[test]
fn a_search_from_a_pool_thread_answers_the_same() {
    let engine = synthetic_engine();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for q in synthetic::QUERIES {
        for mode in [
            SearchMode::Hybrid,
            SearchMode::Semantic,
            SearchMode::Keyword,
        ] {
            let mut req = SearchRequest::new(q);
            req.search_mode = Some(mode);
            let req = Valid::check(req, engine.catalog()).unwrap();
            let here = engine.search_fresh(&req).unwrap();
            let there = pool.install(|| engine.search_fresh(&req).unwrap());
            let json =
                |r: &toolscout::engine::SearchResponse| serde_json::to_string(&r.results).unwrap();
            assert_eq!(json(&here), json(&there), "{q:?} {mode:?}");
            assert_eq!(here.total_results, there.total_results);
        }
    }
}

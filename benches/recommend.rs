//! Recommend latency with the real model on the shipped catalog: the target is a p50
//! of 15 ms for a multi-step task, forward passes included.
//!
//! The caches are off (no response or query-vector cache), so every iteration pays one batched
//! forward pass for the task, its steps, its facets and the step context, then one hybrid
//! search per retrieval, the analysis and the workflow.
//!
//! Run: `cargo bench --bench recommend -- --warm-up-time 1 --measurement-time 8`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use toolscout::catalog::Catalog;
use toolscout::config::SearchConfig;
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::engine::{Engine, RecommendationRequest, Valid};

const TASKS: [&str; 4] = [
    "find where JWTs are validated in my repo, then read that function and list its callers",
    "list open pull requests of a GitHub repository and read the diff of one",
    "look up a python package and show its repository's file tree",
    "search the code of my project for a regular expression",
];

fn recommend(c: &mut Criterion) {
    let models = toolscout::config::default_dir("models");
    let embedder: Arc<dyn Embedder> =
        Arc::new(OnnxEmbedder::load(&models).unwrap_or_else(|e| {
            panic!("{e} (models dir {}; run `make models`)", models.display())
        }));
    let dir = toolscout::config::default_dir("catalog");
    let (catalog, _) = Catalog::load(&dir).expect("shipped catalog");
    let config = SearchConfig {
        cache_enabled: false,
        ..SearchConfig::default()
    };
    let engine = Engine::build(Arc::new(catalog), Ok(embedder), config).expect("engine");
    let requests: Vec<Valid<RecommendationRequest>> = TASKS
        .iter()
        .map(|t| Valid::check(RecommendationRequest::new(*t), engine.catalog()).expect("valid"))
        .collect();
    let mut g = c.benchmark_group("recommend_real_model");
    g.sample_size(30);
    g.measurement_time(Duration::from_secs(8));
    g.bench_function("jwt_three_steps", |b| {
        b.iter(|| black_box(engine.recommend(&requests[0]).expect("recommend")))
    });
    let mut i = 0;
    g.bench_function("four_tasks_rotating", |b| {
        b.iter(|| {
            i = (i + 1) % requests.len();
            black_box(engine.recommend(&requests[i]).expect("recommend"))
        })
    });
    g.finish();
}

criterion_group!(benches, recommend);
criterion_main!(benches);

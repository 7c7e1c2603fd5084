//! `Engine::compare` latency on the shipped catalog with the real embedding model: three tools
//! with a comparison context, at each detail level (issue target: p50 <= 2 ms).
//!
//! Run: `cargo bench --bench compare -- --warm-up-time 1 --measurement-time 3`.
//!
//! Benchmark ids:
//! 1. `compare/3_tools_context/{basic,standard,comprehensive}`: default configuration, so the
//!    context's vector is cached after the first call (as it is for a caller comparing tools
//!    for the same situation again); the cost is scoring, context fit over the indexes and
//!    explanations.
//! 2. `compare/3_tools_context_uncached/standard`: the query-vector cache off, so every call
//!    also runs the model's forward pass on the context.
//!
//! Besides criterion's figures it prints a p50 over 200 timed calls of each.

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolscout::catalog::Catalog;
use toolscout::config::SearchConfig;
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::engine::{ComparisonRequest, Engine, Valid};

const TOOLS: [&str; 3] = ["local_search_code", "github_search_code", "ripgrep"];
const CONTEXT: &str = "exploring an unfamiliar GitHub project";

fn p50(engine: &Engine, req: &Valid<ComparisonRequest>) -> Duration {
    let mut times: Vec<Duration> = (0..200)
        .map(|_| {
            let start = Instant::now();
            black_box(engine.compare(req).expect("compare"));
            start.elapsed()
        })
        .collect();
    times.sort();
    times[(times.len() - 1) / 2]
}

fn real_model(c: &mut Criterion) {
    let models = toolscout::config::default_dir("models");
    let embedder: Arc<dyn Embedder> =
        Arc::new(OnnxEmbedder::load(&models).unwrap_or_else(|e| {
            panic!("{e} (models dir {}; run `make models`)", models.display())
        }));
    let dir = toolscout::config::default_dir("catalog");
    let (catalog, _) = Catalog::load(&dir)
        .unwrap_or_else(|e| panic!("catalog {} does not load: {e:?}", dir.display()));
    let catalog = Arc::new(catalog);
    let engine = Engine::build(
        catalog.clone(),
        Ok(embedder.clone()),
        SearchConfig::default(),
    )
    .expect("engine build");
    let uncached = Engine::build(
        catalog,
        Ok(embedder),
        SearchConfig {
            cache_enabled: false,
            ..SearchConfig::default()
        },
    )
    .expect("engine build");
    let request = |detail: &str| {
        Valid::<ComparisonRequest>::parse(
            &json!({ "tool_ids": TOOLS, "comparison_context": CONTEXT, "detail_level": detail }),
            engine.catalog(),
        )
        .expect("valid request")
    };

    let mut g = c.benchmark_group("compare");
    g.sample_size(30);
    for detail in ["basic", "standard", "comprehensive"] {
        let req = request(detail);
        println!(
            "compare/3_tools_context/{detail}: p50 {:.3} ms over 200 calls",
            p50(&engine, &req).as_secs_f64() * 1e3
        );
        g.bench_function(format!("3_tools_context/{detail}"), |b| {
            b.iter(|| black_box(engine.compare(&req).expect("compare")))
        });
    }
    let req = request("standard");
    println!(
        "compare/3_tools_context_uncached/standard: p50 {:.3} ms over 200 calls",
        p50(&uncached, &req).as_secs_f64() * 1e3
    );
    g.bench_function("3_tools_context_uncached/standard", |b| {
        b.iter(|| black_box(uncached.compare(&req).expect("compare")))
    });
    g.finish();
}

criterion_group!(benches, real_model);
criterion_main!(benches);

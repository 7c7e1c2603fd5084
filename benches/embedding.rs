//! Embedding speed: the latency of one short query (what a search request pays) and the
//! throughput of embedding 200 catalog-like texts (what building the index pays), reported by
//! criterion in texts/s, for both model files (w8a8 and float products). Needs the model
//! files: `make models`.
//!
//! Run: `cargo bench --bench embedding -- --warm-up-time 1 --measurement-time 5`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::path::Path;
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;

const CATALOG_TEXTS: usize = 200;

/// 200 texts shaped like what the index embeds: the real catalog's tool descriptions, search
/// keywords and parameter descriptions, cycled if the catalog has fewer. Read straight from the
/// JSON files so the bench does not depend on the catalog module's API.
fn catalog_texts(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    // Sorted so every run embeds the same texts in the same order.
    files.sort();
    let mut texts = Vec::new();
    for file in files {
        let Ok(raw) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(tool) = serde_json::from_str::<serde_json::Value>(&raw) else {
            continue;
        };
        let field = |key: &str| tool[key].as_str().unwrap_or_default().to_string();
        texts.push(format!("{}: {}", field("name"), field("description")));
        if let Some(keywords) = tool["search_keywords"].as_array() {
            let words: Vec<&str> = keywords.iter().filter_map(|k| k.as_str()).collect();
            texts.push(words.join("; "));
        }
        for param in tool["parameters"].as_array().into_iter().flatten() {
            if let Some(d) = param["description"].as_str() {
                texts.push(d.to_string());
            }
        }
    }
    if texts.is_empty() {
        texts.push("search source files for lines matching a regular expression".into());
    }
    texts.iter().cycle().take(CATALOG_TEXTS).cloned().collect()
}

fn embedding(c: &mut Criterion) {
    use toolscout::embed::onnx::{default_sessions, Precision};
    let models = toolscout::config::default_dir("models");
    let texts = catalog_texts(&toolscout::config::default_dir("catalog"));
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // Both model files in one run, so their ratio is measured under the same conditions; the
    // product runs `Precision::preferred` (w8a8 where the CPU has VNNI).
    for precision in [Precision::W8A8, Precision::W8A32] {
        let embedder = OnnxEmbedder::load_precision(&models, default_sessions(), precision)
            .unwrap_or_else(|e| panic!("{e} (models dir {})", models.display()));
        let name = embedder.model_id().to_string();
        c.bench_function(&format!("embed/single_query/{name}"), |b| {
            b.iter(|| {
                embedder
                    .embed(black_box(&["search code for a regex"]))
                    .unwrap()
            })
        });
        let mut group = c.benchmark_group("embed/catalog_200_texts");
        group.throughput(Throughput::Elements(refs.len() as u64));
        // One iteration is about a second: criterion's minimum of 10 samples keeps it short.
        group.sample_size(10);
        group.bench_function(&name, |b| {
            b.iter(|| embedder.embed(black_box(&refs)).unwrap())
        });
        group.finish();
    }
}

/// Building the shipped catalog's engine with a warm vector cache (`embed::cache`): what a
/// restart or a reload with unchanged tools costs, in tools/s. The cold build is
/// `catalog_embedding_throughput/real_catalog` in `benches/search/main.rs`.
fn cached_catalog(c: &mut Criterion) {
    use std::sync::Arc;
    use toolscout::catalog::Catalog;
    use toolscout::config::SearchConfig;
    use toolscout::engine::Engine;

    let models = toolscout::config::default_dir("models");
    let embedder: Arc<dyn Embedder> = Arc::new(OnnxEmbedder::load(&models).unwrap());
    let (catalog, _) = Catalog::load(&toolscout::config::default_dir("catalog")).unwrap();
    let catalog = Arc::new(catalog);
    let dir = tempfile::tempdir().unwrap();
    let build = || {
        Engine::build_cached(
            catalog.clone(),
            Ok(embedder.clone()),
            SearchConfig::default(),
            Some(dir.path()),
        )
        .unwrap()
    };
    build(); // fills the cache
    let mut group = c.benchmark_group("catalog_embedding_throughput");
    group.throughput(Throughput::Elements(catalog.len() as u64));
    group.sample_size(20);
    group.bench_function("real_catalog_warm_cache", |b| b.iter(build));
    group.finish();
}

criterion_group!(benches, embedding, cached_catalog);
criterion_main!(benches);

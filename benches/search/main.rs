//! End-to-end search benchmarks of `Engine`: what one search request costs, from the request to
//! the explained response, at several catalog sizes, with and without the forward pass of the
//! embedding model, plus the cost of embedding a whole catalog when a snapshot is built.
//!
//! Run: `cargo bench --bench search -- --warm-up-time 1 --measurement-time 5`.
//!
//! Benchmark ids (each reported separately by criterion):
//! 1. `hybrid_excluding_embedding/{1k,10k,100k}`: `Engine::search_fresh` (no response cache),
//!    hybrid mode, 10 results, on synthetic catalogs of 1,000 / 10,000 / 100,000 tools. Every
//!    query's vector is primed first, so this is index + ranking + response cost only. The
//!    catalogs are embedded by [`FakeEmbedder`], which only stands in for the ONNX forward pass:
//!    the real model embeds ~25-35 catalog passages/s on the loaded 2-core reference machine
//!    (bench 4), so the ~450k passages of the 100k catalog would take hours. The real-model
//!    figures are benches 3-4 (and `benches/embedding.rs`).
//! 2. `cached/10k`: `Engine::search` repeating one request (a response-cache hit).
//! 3. `end_to_end_real_model/short_query`: the shipped catalog with the real model; the query's
//!    vector is never cached, so it is forward pass + search.
//! 4. `catalog_embedding_throughput/real_catalog`: `Engine::build` of the shipped catalog with
//!    the real model, reported in tools/s.
//!
//! Besides criterion's figures it prints, per synthetic size, the build time (once: the 100k
//! HNSW build takes minutes, it cannot be repeated) and a p50 profile of the stages of a search
//! (keyword index, vector walks, exact rescoring, query suggestions), measured through the
//! public index APIs the engine calls, so a dominant stage shows without a profiler.
//!
//! `SEARCH_BENCH_MAX_TOOLS=10000` skips the 100k catalog for a quick run.
//! Vector recall is not re-measured here: `benches/vector.rs` does that on the same kind of
//! clustered vectors.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolscout::catalog::Catalog;
use toolscout::config::SearchConfig;
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::engine::{Engine, PastFeedback, SearchMode, SearchRequest, Valid, Verdict};

mod catalog;
mod embedder;

use catalog::{synthetic_tools, Words, QUERIES};
use embedder::FakeEmbedder;

const MAX_RESULTS: usize = 10;

// ---- helpers ----------------------------------------------------------------------------

/// A hybrid search for `query`, checked against `engine`'s catalog as every request is.
fn hybrid_request(query: &str, engine: &Engine) -> Valid<SearchRequest> {
    let mut req = SearchRequest::new(query);
    req.search_mode = Some(SearchMode::Hybrid);
    req.max_results = MAX_RESULTS;
    Valid::check(req, engine.catalog()).expect("a valid request")
}

fn p50(times: &mut [Duration]) -> Duration {
    times.sort();
    times[(times.len() - 1) / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Prints the p50 of each stage of a hybrid search over `QUERIES` (4 rounds), split into
/// queries of at most three words and longer ones. The stages call the same public index
/// APIs with the same arguments as `search_uncached` (candidate count mirrored from its
/// `exhaustive_limit` / `CANDIDATES_PER_RESULT` / `MIN_CANDIDATES`); "no suggestions" is a
/// second engine over the same snapshot with `enable_query_suggestions` off.
fn stage_profile(label: &str, engine: &Engine, no_suggestions: &Engine, embedder: &FakeEmbedder) {
    let snap = engine.snapshot();
    let sem = snap.semantic.as_ref().expect("fake embedder is loaded");
    let n = snap.catalog.len();
    // Mirrors the engine's exhaustive_limit, CANDIDATES_PER_RESULT and MIN_CANDIDATES.
    let k = if n <= 500 {
        n
    } else {
        (MAX_RESULTS * 4).max(40)
    };
    for (kind, short) in [("<=3 words", true), (">3 words", false)] {
        let queries: Vec<&str> = QUERIES
            .iter()
            .copied()
            .filter(|q| (q.split_whitespace().count() <= 3) == short)
            .collect();
        // total, without suggestions, keyword, summaries walk, passages walk, the two walks
        // at k = MAX_RESULTS, exact rescoring. Each stage runs over every query in turn, so
        // consecutive calls see other queries' data in the caches, as rotating traffic does
        // (timing every stage of one query back to back measured the walks with hot caches,
        // at well under half their cost inside a search).
        let vectors: Vec<Vec<f32>> = queries.iter().map(|q| embedder.vector(q)).collect();
        let candidates: Vec<Vec<u32>> = queries
            .iter()
            .zip(&vectors)
            .map(|(q, v)| {
                let mut c: Vec<u32> = snap
                    .keyword
                    .search(*q, k, None)
                    .iter()
                    .map(|h| h.ordinal)
                    .collect();
                c.extend(
                    sem.summaries
                        .propose(v, k, None)
                        .expect("search")
                        .iter()
                        .map(|h| h.owner),
                );
                c.extend(
                    sem.passages
                        .propose(v, k, None)
                        .expect("search")
                        .iter()
                        .map(|h| h.owner),
                );
                c.sort_unstable();
                c.dedup();
                c
            })
            .collect();
        let mut stages: [Vec<Duration>; 8] = Default::default();
        for _ in 0..4 {
            for (stage, times) in stages.iter_mut().enumerate() {
                for (i, q) in queries.iter().enumerate() {
                    let req = hybrid_request(q, engine);
                    let v = &vectors[i];
                    let t = Instant::now();
                    match stage {
                        0 => drop(black_box(engine.search_fresh(&req).expect("search"))),
                        1 => drop(black_box(
                            no_suggestions.search_fresh(&req).expect("search"),
                        )),
                        2 => drop(black_box(snap.keyword.search(*q, k, None))),
                        3 => drop(black_box(
                            sem.summaries.propose(v, k, None).expect("search"),
                        )),
                        4 => drop(black_box(sem.passages.propose(v, k, None).expect("search"))),
                        // The same walks asked for the shown results only: how much of their
                        // cost comes from the candidate count k (the walk's ef is at least 2k).
                        5 => drop(black_box(
                            sem.summaries.search(v, MAX_RESULTS, None).expect("search"),
                        )),
                        6 => drop(black_box(
                            sem.passages.search(v, MAX_RESULTS, None).expect("search"),
                        )),
                        _ => drop(black_box((
                            sem.summaries
                                .score_owners(v, &candidates[i])
                                .expect("score"),
                            sem.passages.score_owners(v, &candidates[i]).expect("score"),
                        ))),
                    }
                    times.push(t.elapsed());
                }
            }
        }
        let mut candidate_counts: Vec<usize> = candidates.iter().map(Vec::len).collect();
        let [total, no_sugg, kw, walk_s, walk_p, walk_s10, walk_p10, rescore] =
            stages.each_mut().map(|s| p50(s));
        candidate_counts.sort_unstable();
        let cands = candidate_counts[(candidate_counts.len() - 1) / 2];
        println!(
            "  {label} profile, {kind} ({} queries), p50: search_fresh {}, without suggestions {}; \
             keyword search {}; vector walks k={k}: summaries {}, passages {} (k={MAX_RESULTS}: \
             {}, {}); exact rescoring {} of ~{cands} candidates",
            queries.len(),
            ms(total),
            ms(no_sugg),
            ms(kw),
            ms(walk_s),
            ms(walk_p),
            ms(walk_s10),
            ms(walk_p10),
            ms(rescore),
        );
    }
}

/// p50 and p90 of `Engine::search_fresh` over 3,000 requests rotating through `requests`: the
/// figure the targets are stated in (criterion's estimate is a mean, which the occasional
/// slow wake-up of the pool thread pulls up).
fn rotating_p50(label: &str, engine: &Engine, requests: &[Valid<SearchRequest>]) {
    let mut times: Vec<Duration> = (0..3_000)
        .map(|i| {
            let t = Instant::now();
            black_box(
                engine
                    .search_fresh(&requests[i % requests.len()])
                    .expect("search"),
            );
            t.elapsed()
        })
        .collect();
    times.sort_unstable();
    println!(
        "  {label} hybrid search excluding embedding over 3,000 rotating requests: p50 {}, p90 {}",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 9 / 10]),
    );
}

/// How much of the exhaustive top 10 (every tool scored) the candidate path (each index
/// proposes, the union is scored) returns, over `QUERIES`: the guard on any change that makes
/// the candidate path cheaper. Not run at 100k, where scoring everything walks the whole graph.
fn candidate_recall(label: &str, engine: &Engine) {
    let exhaustive = Engine::with_snapshot(
        engine.snapshot().clone(),
        SearchConfig {
            exhaustive_limit: usize::MAX,
            ..SearchConfig::default()
        },
    );
    exhaustive.prime_query_vectors(&QUERIES).expect("prime");
    let (mut found, mut total) = (0usize, 0usize);
    for q in QUERIES {
        let req = hybrid_request(q, engine);
        let ids = |e: &Engine| -> Vec<String> {
            let r = e.search_fresh(&req).expect("search");
            r.results.iter().map(|h| h.tool_id.clone()).collect()
        };
        let (fast, full) = (ids(engine), ids(&exhaustive));
        found += full.iter().filter(|id| fast.contains(id)).count();
        total += full.len();
    }
    println!(
        "  {label} candidate path: recall@{MAX_RESULTS} against scoring every tool {:.3} ({found} of {total})",
        found as f64 / total.max(1) as f64
    );
}

// ---- benchmarks -------------------------------------------------------------------------

/// Benches 1 and 2 on the synthetic catalogs, one size at a time (the 100k engine holds a few
/// GB; it is dropped before anything else is built).
fn synthetic(c: &mut Criterion) {
    let max_tools: usize = std::env::var("SEARCH_BENCH_MAX_TOOLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let words = Words::new();
    let embedder = Arc::new(FakeEmbedder::new());
    for (label, n) in [("1k", 1_000), ("10k", 10_000), ("100k", 100_000)] {
        if n > max_tools {
            continue;
        }
        let t = Instant::now();
        let tools = synthetic_tools(&words, n);
        let catalog = Arc::new(Catalog::from_tools("synthetic".into(), tools));
        let generated = t.elapsed();

        // Keyword-only build first: the difference to the full build is embedding + HNSW.
        let t = Instant::now();
        drop(
            Engine::build(
                catalog.clone(),
                Err("timing".into()),
                SearchConfig::default(),
            )
            .expect("keyword-only build"),
        );
        let keyword_only = t.elapsed();

        let t = Instant::now();
        let engine = Engine::build(
            catalog.clone(),
            Ok(embedder.clone() as Arc<dyn Embedder>),
            SearchConfig::default(),
        )
        .expect("engine build");
        let full = t.elapsed();

        let snap = engine.snapshot();
        let sem = snap.semantic.as_ref().expect("semantic index");
        let texts: Vec<&str> = snap
            .documents
            .iter()
            .flat_map(|d| d.passages.iter().map(|p| p.text.as_str()))
            .collect();
        let t = Instant::now();
        black_box(embedder.embed(&texts).expect("embed"));
        let embedding = t.elapsed();
        println!(
            "search {label}: {n} tools, {} summary + {} passage vectors ({} / {}); generate {:.1} s, \
             keyword-only build {:.1} s, full build {:.1} s (fake embedding alone {:.1} s, so HNSW \
             and the rest ~{:.1} s)",
            sem.summaries.len(),
            sem.passages.len(),
            if sem.summaries.uses_hnsw() { "hnsw" } else { "exact" },
            if sem.passages.uses_hnsw() { "hnsw" } else { "exact" },
            generated.as_secs_f64(),
            keyword_only.as_secs_f64(),
            full.as_secs_f64(),
            embedding.as_secs_f64(),
            (full.saturating_sub(keyword_only + embedding)).as_secs_f64(),
        );

        engine.prime_query_vectors(&QUERIES).expect("prime");
        let no_suggestions = Engine::with_snapshot(
            engine.snapshot().clone(),
            SearchConfig {
                enable_query_suggestions: false,
                ..SearchConfig::default()
            },
        );
        no_suggestions.prime_query_vectors(&QUERIES).expect("prime");
        stage_profile(label, &engine, &no_suggestions, &embedder);
        drop(no_suggestions);
        if n <= 10_000 {
            candidate_recall(label, &engine);
        }

        let requests: Vec<Valid<SearchRequest>> =
            QUERIES.iter().map(|q| hybrid_request(q, &engine)).collect();
        rotating_p50(label, &engine, &requests);
        let mut g = c.benchmark_group("hybrid_excluding_embedding");
        g.sample_size(30);
        g.measurement_time(Duration::from_secs(8));
        let mut i = 0usize;
        g.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter(|| {
                i = (i + 1) % requests.len();
                black_box(engine.search_fresh(&requests[i]).expect("search"))
            })
        });
        g.finish();

        if label == "10k" {
            let req = &requests[0];
            engine.search(req).expect("fill the response cache");
            assert!(
                engine.search(req).expect("search").metadata.cache_hit,
                "second identical request must hit the response cache"
            );
            let mut g = c.benchmark_group("cached");
            g.sample_size(50);
            g.bench_function(BenchmarkId::from_parameter(label), |b| {
                b.iter(|| black_box(engine.search(black_box(req)).expect("search")))
            });
            g.finish();
        }
    }
}

/// Benches 3 and 4: the shipped catalog with the real model.
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

    // Caches off: `embed_query` then neither finds nor keeps a query vector, so every
    // iteration pays the model's forward pass on top of the search (and the response cache
    // is off too). The query also rotates, as real traffic does.
    let uncached = SearchConfig {
        cache_enabled: false,
        ..SearchConfig::default()
    };
    let engine = Engine::build(catalog.clone(), Ok(embedder.clone()), uncached.clone())
        .expect("engine build");
    let requests: Vec<Valid<SearchRequest>> =
        QUERIES.iter().map(|q| hybrid_request(q, &engine)).collect();
    let mut g = c.benchmark_group("end_to_end_real_model");
    g.sample_size(30);
    g.measurement_time(Duration::from_secs(8));
    let mut i = 0usize;
    g.bench_function("short_query", |b| {
        b.iter(|| {
            i = (i + 1) % requests.len();
            black_box(engine.search_fresh(&requests[i]).expect("search"))
        })
    });
    // The same with a full feedback index (4,096 past requests, `engine::learned`'s bound),
    // each a variant of a benchmark query: what learning adds to every search at its most.
    let tools = catalog.tools();
    let feedback: Vec<PastFeedback> = (0..4096)
        .map(|i| PastFeedback {
            query: format!("{} (request {i})", QUERIES[i % QUERIES.len()]),
            tool_id: tools[i % tools.len()].tool_id.clone(),
            verdict: Verdict::Helped,
        })
        .collect();
    engine.learn(&feedback).expect("learn");
    g.bench_function("short_query_learned_4096", |b| {
        b.iter(|| {
            i = (i + 1) % requests.len();
            black_box(engine.search_fresh(&requests[i]).expect("search"))
        })
    });
    g.finish();
    drop(engine);

    // Two catalogs: the shipped one (rich metadata: summary, keywords, guidance and example
    // passages, ~350 tokens a tool) and MetaTool's tools (a description and a model-facing
    // description each), since tools per second depend on how much text a tool has.
    let mut tokenizer = tokenizers::Tokenizer::from_file(models.join("tokenizer.json"))
        .expect("tokenizer.json loads");
    // Counted as the embedder runs: unpadded (the file pads to 128), truncated at 256.
    tokenizer.with_padding(None);
    let metatool = toolscout::eval::read_jsonl::<toolscout::eval::EvalTool>(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/metatool/tools.jsonl"),
    )
    .expect("tests/fixtures/metatool/tools.jsonl reads");
    let metatool = Arc::new(Catalog::from_tools(
        "metatool".into(),
        toolscout::eval::to_records(&metatool),
    ));
    let mut g = c.benchmark_group("catalog_embedding_throughput");
    // One build embeds every passage (seconds): criterion's minimum of 10 samples.
    g.sample_size(10);
    for (label, catalog) in [("real_catalog", &catalog), ("metatool_catalog", &metatool)] {
        let docs = catalog.documents();
        let passages: Vec<&str> = docs
            .iter()
            .flat_map(|d| d.passages.iter().map(|p| p.text.as_str()))
            .collect();
        let tokens: usize = passages
            .iter()
            .map(|p| {
                tokenizer
                    .encode(*p, true)
                    .map(|e| e.len().min(256))
                    .unwrap_or(0)
            })
            .sum();
        println!(
            "catalog_embedding_throughput/{label}: {} tools, {} passages, {} tokens a tool",
            catalog.len(),
            passages.len(),
            tokens / catalog.len().max(1)
        );
        g.throughput(Throughput::Elements(catalog.len() as u64));
        g.bench_function(label, |b| {
            b.iter(|| {
                Engine::build((*catalog).clone(), Ok(embedder.clone()), uncached.clone())
                    .expect("engine build")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, synthetic, real_model);
criterion_main!(benches);

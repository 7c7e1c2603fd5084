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
use toolscout::catalog::{
    Catalog, ComplexityLevel, ParameterDefinition, PerformanceTier, ToolExample, ToolRecord,
    ToolType,
};
use toolscout::config::SearchConfig;
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::engine::{Engine, SearchMode, SearchRequest};
use toolscout::index::synthetic::{Clustered, SplitMix64};

const DIM: usize = 384;
const VOCABULARY: usize = 4_000;
const MAX_RESULTS: usize = 10;

/// Short agent-style queries. Some have at most three words on purpose: only those take the
/// near-miss-name path of query suggestions, which scans every tool name.
const QUERIES: [&str; 20] = [
    "search code for a regex",
    "read a file from github",
    "list open pull requests",
    "run sql query on postgres",
    "convert pdf to text",
    "find files by name",
    "git diff",
    "send http request",
    "parse json output",
    "resize an image",
    "kubernetes pod logs",
    "query a database table",
    "write text to a file",
    "search the web for news",
    "create a docker container",
    "summarize a csv file",
    "translate text",
    "fetch a web page",
    "schedule a cron job",
    "compress a directory",
];

/// Real words of the tool domain. They are spread over the frequent ranks of the Zipf
/// vocabulary, so the queries' words have realistic posting lists (a few percent to a few
/// tenths of the documents), and tool names start with them, so queries find clusters.
const REAL_WORDS: &[&str] = &[
    "search",
    "code",
    "regex",
    "pattern",
    "read",
    "file",
    "files",
    "github",
    "repository",
    "list",
    "open",
    "pull",
    "request",
    "requests",
    "issue",
    "run",
    "sql",
    "query",
    "postgres",
    "mysql",
    "database",
    "table",
    "convert",
    "pdf",
    "text",
    "document",
    "find",
    "name",
    "git",
    "diff",
    "commit",
    "branch",
    "merge",
    "send",
    "http",
    "api",
    "endpoint",
    "parse",
    "json",
    "yaml",
    "xml",
    "output",
    "input",
    "resize",
    "image",
    "photo",
    "video",
    "audio",
    "kubernetes",
    "pod",
    "cluster",
    "logs",
    "log",
    "container",
    "docker",
    "create",
    "delete",
    "update",
    "write",
    "web",
    "page",
    "news",
    "fetch",
    "download",
    "upload",
    "summarize",
    "csv",
    "spreadsheet",
    "translate",
    "language",
    "schedule",
    "cron",
    "job",
    "task",
    "compress",
    "archive",
    "zip",
    "directory",
    "folder",
    "path",
    "content",
    "line",
    "lines",
    "match",
    "replace",
    "edit",
    "format",
    "lint",
    "test",
    "build",
    "deploy",
    "server",
    "client",
    "cloud",
    "storage",
    "bucket",
    "email",
    "message",
    "slack",
    "chat",
    "calendar",
    "event",
    "user",
    "account",
    "auth",
    "token",
    "secret",
    "key",
    "config",
    "settings",
    "metric",
    "monitor",
    "alert",
    "trace",
    "error",
    "debug",
    "profile",
    "memory",
    "cpu",
    "process",
    "shell",
    "command",
    "terminal",
    "script",
    "python",
    "javascript",
    "rust",
    "package",
    "dependency",
    "install",
    "version",
    "release",
    "tag",
    "label",
    "comment",
    "review",
    "report",
    "chart",
    "graph",
    "plot",
    "data",
    "analysis",
    "statistics",
    "model",
    "embedding",
    "vector",
    "index",
    "cache",
    "queue",
    "stream",
    "socket",
    "network",
    "dns",
    "url",
    "link",
    "browser",
    "screenshot",
    "scrape",
    "crawl",
    "html",
    "markdown",
    "notebook",
    "backup",
    "restore",
    "sync",
    "copy",
    "move",
    "rename",
    "permission",
    "status",
    "health",
    "check",
    "validate",
    "schema",
    "transform",
    "filter",
    "sort",
    "aggregate",
    "join",
    "export",
    "import",
    "row",
    "column",
    "record",
    "field",
    "value",
    "date",
    "time",
    "timezone",
    "currency",
    "weather",
    "map",
    "location",
    "geocode",
    "symbol",
    "function",
    "class",
    "definition",
    "reference",
];

const CATEGORIES: [&str; 15] = [
    "cloud",
    "code_hosting",
    "code_intelligence",
    "code_search",
    "containers",
    "data_analysis",
    "database",
    "documents",
    "file_system",
    "media",
    "messaging",
    "monitoring",
    "networking",
    "security",
    "web",
];

/// Words the fake embedder skips when it looks for a text's leading content words: what a
/// sentence model also mostly ignores.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "of",
    "on", "or", "the", "to", "with",
];

// ---- synthetic catalog ------------------------------------------------------------------

/// Pseudo-English words drawn with a Zipf(1.0) law (as in `benches/keyword.rs`): a handful of
/// very common words, a long tail of rare ones. The first ten are real stop words, then every
/// third rank is a [`REAL_WORDS`] entry until they run out, the rest pseudo-words.
struct Words {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Words {
    fn new() -> Words {
        const ONSETS: [&str; 16] = [
            "b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "st", "tr", "gr",
        ];
        const VOWELS: [&str; 6] = ["a", "e", "i", "o", "u", "ea"];
        const CODAS: [&str; 8] = ["", "n", "r", "s", "t", "x", "ng", "ck"];
        let mut rng = SplitMix64::new(7);
        let mut words: Vec<String> = [
            "the", "a", "to", "of", "and", "in", "for", "is", "with", "on",
        ]
        .map(String::from)
        .to_vec();
        let mut seen: std::collections::HashSet<String> = words.iter().cloned().collect();
        seen.extend(REAL_WORDS.iter().map(|w| w.to_string()));
        let mut real = REAL_WORDS.iter();
        while words.len() < VOCABULARY {
            if words.len() % 3 == 1 {
                if let Some(w) = real.next() {
                    words.push(w.to_string());
                    continue;
                }
            }
            let mut w = String::new();
            for _ in 0..1 + rng.below(3) {
                w.push_str(ONSETS[rng.below(ONSETS.len())]);
                w.push_str(VOWELS[rng.below(VOWELS.len())]);
                w.push_str(CODAS[rng.below(CODAS.len())]);
            }
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let mut total = 0.0;
        let mut cumulative: Vec<f64> = (0..VOCABULARY)
            .map(|rank| {
                total += 1.0 / (rank + 1) as f64;
                total
            })
            .collect();
        for c in &mut cumulative {
            *c /= total;
        }
        Words { words, cumulative }
    }

    fn word(&self, rng: &mut SplitMix64) -> &str {
        let u = rng.next_f64();
        let rank = self.cumulative.partition_point(|&c| c < u);
        &self.words[rank.min(VOCABULARY - 1)]
    }

    /// A Zipf word that is not a stop word (for names and titles).
    fn content_word(&self, rng: &mut SplitMix64) -> &str {
        loop {
            let w = self.word(rng);
            if !STOP_WORDS.contains(&w) {
                return w;
            }
        }
    }

    fn sentence(&self, rng: &mut SplitMix64, lo: usize, hi: usize) -> String {
        let n = lo + rng.below(hi - lo + 1);
        (0..n).map(|_| self.word(rng)).collect::<Vec<_>>().join(" ")
    }
}

fn camel(words: &[&str]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i == 0 {
            out.push_str(w);
        } else {
            let mut chars = w.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        }
    }
    out
}

/// `n` deterministic tools, `tool_00001`..: a camelCase name led by a domain word (60%) or a
/// vocabulary word, a 20-60 word description, 3-5 keywords, 2 tags, 1-3 parameters and 2-3
/// examples whose titles start with the name's first word (so the fake embedder puts all of
/// a tool's passages in its cluster, as a real model puts a tool's passages near each other).
///
/// `when_to_use` is left empty: each guidance chunk is one more vector to embed and insert,
/// and the 100k catalog already has ~450k; the guidance field weighs 0.2 in BM25 anyway.
fn synthetic_tools(words: &Words, n: usize) -> Vec<ToolRecord> {
    let mut rng = SplitMix64::new(42);
    (1..=n)
        .map(|i| {
            let head = if rng.below(10) < 6 {
                REAL_WORDS[rng.below(REAL_WORDS.len())].to_string()
            } else {
                words.content_word(&mut rng).to_string()
            };
            let mut parts = vec![head.as_str()];
            let extra: Vec<String> = (0..1 + rng.below(2))
                .map(|_| words.content_word(&mut rng).to_string())
                .collect();
            parts.extend(extra.iter().map(String::as_str));
            let name = camel(&parts);
            let keywords = (0..3 + rng.below(3))
                .map(|_| REAL_WORDS[rng.below(REAL_WORDS.len())].to_string())
                .collect();
            let semantic_tags = (0..2)
                .map(|_| {
                    format!(
                        "{}-{}",
                        REAL_WORDS[rng.below(REAL_WORDS.len())],
                        words.content_word(&mut rng)
                    )
                })
                .collect();
            let parameters = (0..1 + rng.below(3))
                .map(|_| ParameterDefinition {
                    name: camel(&[words.content_word(&mut rng), words.content_word(&mut rng)]),
                    kind: "string".into(),
                    required: rng.below(2) == 0,
                    description: words.sentence(&mut rng, 5, 12),
                    default_value: None,
                    validation_rules: Vec::new(),
                    examples: Vec::new(),
                    constraints: None,
                    deprecated: false,
                    deprecation_message: None,
                })
                .collect();
            let examples = (0..2 + rng.below(2))
                .map(|j| ToolExample {
                    id: format!("ex{j}"),
                    title: format!("{head} {}", words.sentence(&mut rng, 2, 4)),
                    description: words.sentence(&mut rng, 8, 15),
                    use_case: words.sentence(&mut rng, 8, 15),
                    arguments: serde_json::json!({}),
                    code: None,
                    language: None,
                    expected_output: None,
                    complexity_level: ComplexityLevel::Simple,
                    tags: Vec::new(),
                    prerequisites: None,
                    notes: None,
                    related_examples: None,
                })
                .collect();
            ToolRecord {
                tool_id: format!("tool_{i:05}"),
                name,
                aliases: Vec::new(),
                description: words.sentence(&mut rng, 20, 60),
                category: CATEGORIES[rng.below(CATEGORIES.len())].into(),
                tool_type: [ToolType::System, ToolType::Custom, ToolType::ThirdParty][i % 3],
                version: "1.0.0".into(),
                author: None,
                license: None,
                repository_url: None,
                documentation_url: None,
                complexity_score: rng.next_f64(),
                popularity_score: rng.next_f64(),
                reliability_score: rng.next_f64(),
                performance_tier: [
                    PerformanceTier::Fast,
                    PerformanceTier::Balanced,
                    PerformanceTier::Comprehensive,
                ][i % 3],
                search_keywords: keywords,
                semantic_tags,
                parameters,
                input_schema: serde_json::json!({"type": "object", "properties": {}}),
                return_schema: None,
                execution: None,
                examples,
                when_to_use: String::new(),
                usage_patterns: Vec::new(),
                similar_tools: Vec::new(),
                complementary_tools: Vec::new(),
                prerequisite_tools: Vec::new(),
                usage_stats: None,
                created_at: "2024-01-01T00:00:00Z".into(),
                updated_at: "2024-01-01T00:00:00Z".into(),
            }
        })
        .collect()
}

// ---- fake embedder ----------------------------------------------------------------------

/// A deterministic stand-in for the ONNX model, for this bench only: it costs ~40 us per text
/// instead of ~10 ms (one query) to ~40 ms (batched catalog passages), and gives vectors with the geometry of real embeddings (see
/// `index::synthetic`), so the HNSW graphs and the ranking see realistic neighbourhoods.
///
/// A text's first content word picks its cluster, its first two its centre within the cluster
/// (`Clustered::owner_centre`), and the whole text the noise around that centre: texts that
/// start alike ("search code: ..." and "search code for a regex") land at cosine ~0.8, texts
/// sharing only the first word at ~0.65, unrelated texts at ~0.15.
struct FakeEmbedder {
    clusters: Clustered,
}

/// FNV-1a: a fixed hash, so the same text gets the same vector on every run and machine
/// (std's hasher is not promised to stay the same across releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl FakeEmbedder {
    fn new() -> FakeEmbedder {
        FakeEmbedder {
            clusters: Clustered::embedding_like(2024, DIM),
        }
    }

    fn vector(&self, text: &str) -> Vec<f32> {
        let lower = text.to_lowercase();
        let mut content = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && !STOP_WORDS.contains(w));
        let first = content.next().unwrap_or("");
        let second = content.next().unwrap_or("");
        let cluster = fnv1a(first.as_bytes()) as usize;
        let mut centre_rng = SplitMix64::new(fnv1a(format!("{first} {second}").as_bytes()));
        let centre = self.clusters.owner_centre(&mut centre_rng, cluster);
        let mut rng = SplitMix64::new(fnv1a(text.as_bytes()));
        self.clusters.vector_of(&mut rng, &centre)
    }
}

impl Embedder for FakeEmbedder {
    fn dim(&self) -> usize {
        DIM
    }

    fn model_id(&self) -> &str {
        "bench-fake-clustered-384"
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, toolscout::error::Error> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}

// ---- helpers ----------------------------------------------------------------------------

fn hybrid_request(query: &str) -> SearchRequest {
    let mut req = SearchRequest::new(query);
    req.search_mode = Some(SearchMode::Hybrid);
    req.max_results = MAX_RESULTS;
    req
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
/// `EXHAUSTIVE_LIMIT` / `CANDIDATES_PER_RESULT` / `MIN_CANDIDATES`); "no suggestions" is a
/// second engine over the same snapshot with `enable_query_suggestions` off.
fn stage_profile(label: &str, engine: &Engine, no_suggestions: &Engine, embedder: &FakeEmbedder) {
    let snap = engine.snapshot();
    let sem = snap.semantic.as_ref().expect("fake embedder is loaded");
    let n = snap.catalog.len();
    // Mirrors the engine's EXHAUSTIVE_LIMIT, CANDIDATES_PER_RESULT and MIN_CANDIDATES.
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
        // at k = MAX_RESULTS, exact rescoring.
        let mut stages: [Vec<Duration>; 8] = Default::default();
        let mut candidate_counts: Vec<usize> = Vec::new();
        for _ in 0..4 {
            for q in &queries {
                let req = hybrid_request(q);
                let v = embedder.vector(q);
                let (_, t) = timed(|| engine.search_fresh(&req).expect("search"));
                stages[0].push(t);
                let (_, t) = timed(|| no_suggestions.search_fresh(&req).expect("search"));
                stages[1].push(t);
                let (keyword, t) = timed(|| snap.keyword.search(q, k, None));
                stages[2].push(t);
                let (summaries, t) = timed(|| sem.summaries.propose(&v, k, None).expect("search"));
                stages[3].push(t);
                let (passages, t) = timed(|| sem.passages.propose(&v, k, None).expect("search"));
                stages[4].push(t);
                // The same walks asked for the shown results only: how much of their cost
                // comes from the candidate count k (the walk's ef is at least 2k).
                let (_, t) = timed(|| sem.summaries.search(&v, MAX_RESULTS, None).expect("search"));
                stages[5].push(t);
                let (_, t) = timed(|| sem.passages.search(&v, MAX_RESULTS, None).expect("search"));
                stages[6].push(t);
                let mut candidates: Vec<u32> = keyword.iter().map(|h| h.ordinal).collect();
                candidates.extend(summaries.iter().chain(&passages).map(|h| h.owner));
                candidates.sort_unstable();
                candidates.dedup();
                let (_, t) = timed(|| {
                    (
                        sem.summaries.score_owners(&v, &candidates).expect("score"),
                        sem.passages.score_owners(&v, &candidates).expect("score"),
                    )
                });
                stages[7].push(t);
                candidate_counts.push(candidates.len());
            }
        }
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

/// Runs `f` once: its result (kept alive past the clock) and its duration.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let out = black_box(f());
    (out, t.elapsed())
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

        let requests: Vec<SearchRequest> = QUERIES.iter().map(|q| hybrid_request(q)).collect();
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
    let requests: Vec<SearchRequest> = QUERIES.iter().map(|q| hybrid_request(q)).collect();
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
    g.finish();
    drop(engine);

    let passages: usize = catalog.documents().iter().map(|d| d.passages.len()).sum();
    println!(
        "catalog_embedding_throughput: {} tools, {passages} passages per build",
        catalog.len()
    );
    let mut g = c.benchmark_group("catalog_embedding_throughput");
    g.throughput(Throughput::Elements(catalog.len() as u64));
    // One build embeds every passage (seconds): criterion's minimum of 10 samples.
    g.sample_size(10);
    g.bench_function("real_catalog", |b| {
        b.iter(|| {
            Engine::build(catalog.clone(), Ok(embedder.clone()), uncached.clone())
                .expect("engine build")
        })
    });
    g.finish();
}

criterion_group!(benches, synthetic, real_model);
criterion_main!(benches);

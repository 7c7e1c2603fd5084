//! Tool execution: what a `localSearchCode` and a `localGetFileContent` query cost through
//! the whole executor (schema validation, sandbox, resilience, redaction), measured against
//! the ripgrep binary doing the same search on the same tree, so the in-process search is
//! judged by the tool it replaces.
//!
//! Run: `cargo bench --bench exec -- --warm-up-time 1 --measurement-time 5`.
//!
//! Benchmark ids (the tree is this repository's `src/`, about a hundred Rust files):
//! 1. `exec/localSearchCode/{literal,regex}`: one query through `Executor::call`.
//! 2. `rg/{literal,regex}`: `rg --json` on the same pattern and path, as a subprocess (what
//!    an agent without toolscout would run).
//! 3. `exec/localGetFileContent/matchString`: a match with context in a 500-line file.
//!
//! 4. `redact/{clean_code,sprinkled,secret_dense}`: secret redaction alone, in bytes per
//!    second: this repository's `src/` as one text; the same with a corpus sample (from
//!    `tests/fixtures/secrets/corpus.json`) after every 50 lines; and the corpus samples alone.
//!    `cargo bench --bench exec -- redact` runs these (criterion prints MiB/s; the bench
//!    also prints µs per MB).
//!
//! Besides criterion's figures it prints p50s over 50 timed runs and the ratio in one run.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Map, Value};
use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use toolscout::catalog::Catalog;
use toolscout::config::ExecConfig;
use toolscout::exec::redact::redact;
use toolscout::exec::{Executor, Status, Tool};

const PATTERNS: [(&str, &str, bool); 2] = [
    ("literal", "Error::Validation", true),
    ("regex", r"fn [a-z_]+\(&self", false),
];

fn query(extra: Value) -> Vec<Map<String, Value>> {
    let mut q = json!({"id": "b", "researchGoal": "bench", "reasoning": "bench"});
    q.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    vec![q.as_object().unwrap().clone()]
}

fn p50(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..50)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[(times.len() - 1) / 2]
}

fn rg(pattern: &str, fixed: bool, dir: &Path) -> usize {
    let mut cmd = Command::new("rg");
    cmd.arg("--json");
    if fixed {
        cmd.arg("-F");
    }
    let out = cmd
        .arg("--")
        .arg(pattern)
        .arg("src")
        .current_dir(dir)
        .output()
        .expect("rg runs (scripts/fetch-ripgrep installs it)");
    out.stdout.len()
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (catalog, _) = Catalog::load(&root.join("catalog")).expect("shipped catalog loads");
    let executor = Executor::new(ExecConfig::for_workspace(root), &catalog).expect("executor");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let run = |tool: Tool, q: Vec<Map<String, Value>>| {
        let result = runtime.block_on(executor.call(tool, q));
        assert_eq!(
            result.results[0].status,
            Status::HasResults,
            "{}",
            result.to_json()
        );
        black_box(result);
    };
    let mut group = c.benchmark_group("exec");
    for (name, pattern, fixed) in PATTERNS {
        let q = query(json!({"pattern": pattern, "path": "src", "fixedString": fixed}));
        group.bench_function(format!("localSearchCode/{name}"), |b| {
            b.iter(|| run(Tool::LocalSearchCode, q.clone()))
        });
        group.bench_function(format!("rg/{name}"), |b| {
            b.iter(|| black_box(rg(pattern, fixed, root)))
        });
        let ours = p50(|| run(Tool::LocalSearchCode, q.clone()));
        let theirs = p50(|| {
            black_box(rg(pattern, fixed, root));
        });
        println!(
            "{name}: localSearchCode p50 {:.2} ms, rg p50 {:.2} ms, ratio {:.2}",
            ours.as_secs_f64() * 1e3,
            theirs.as_secs_f64() * 1e3,
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    }
    let q = query(
        json!({"path": "src/engine/search.rs", "matchString": "fn ", "matchStringContextLines": 3}),
    );
    group.bench_function("localGetFileContent/matchString", |b| {
        b.iter(|| run(Tool::LocalGetFileContent, q.clone()))
    });
    group.finish();
}

/// Every `.rs` file under `dir`, concatenated.
fn rust_sources(dir: &Path, out: &mut String) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        if path.is_dir() {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The corpus's positive sample texts.
fn secret_samples(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("tests/fixtures/secrets/corpus.json")).unwrap();
    let corpus: Value = serde_json::from_str(&text).unwrap();
    corpus["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|k| k["positives"].as_array().unwrap())
        .map(|p| p["text"].as_str().unwrap().to_string())
        .collect()
}

fn bench_redact(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut clean = String::new();
    rust_sources(&root.join("src"), &mut clean);
    let samples = secret_samples(root);
    let mut sprinkled = String::new();
    for (i, line) in clean.lines().enumerate() {
        sprinkled.push_str(line);
        sprinkled.push('\n');
        if i % 50 == 49 {
            sprinkled.push_str(&samples[(i / 50) % samples.len()]);
        }
    }
    let dense: String = samples.concat();
    let mut group = c.benchmark_group("redact");
    for (name, text) in [
        ("clean_code", &clean),
        ("sprinkled", &sprinkled),
        ("secret_dense", &dense),
    ] {
        assert!(!redact(text).is_empty());
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| black_box(redact(black_box(text)))));
        let t = p50(|| {
            black_box(redact(text));
        });
        let mb = text.len() as f64 / 1e6;
        println!(
            "redact/{name}: {mb:.2} MB, p50 {:.2} ms, {:.0} µs per MB",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e6 / mb
        );
    }
    group.finish();
}

criterion_group!(benches, bench_redact, bench);
criterion_main!(benches);

//! Benchmarks of the vector index: search latency (k = 10) at 1k, 10k and 100k owners, the
//! exact-scan vs HNSW crossover that sets `exact_below`, filtered search, build time and
//! recall@10 against the exact scan. Data is the deterministic clustered generator of
//! `toolscout::index::synthetic` (dim 384), so runs compare.
//!
//! Run: `cargo bench --bench vector -- --warm-up-time 1 --measurement-time 5`.
//! Besides criterion's figures it prints, per size, the build time (one build: an HNSW build
//! takes seconds, too long to repeat ten times), recall@10 and a p50/p99 profile over single
//! searches. Every iteration uses the next of 256 queries: one query repeated would keep its
//! own graph neighbourhood in cache and flatter HNSW.
//!
//! 100k owners have 1 vector each (10k and 1k have 3): 300k vectors take minutes to insert on
//! the 2-core reference machine. `VECTOR_BENCH_100K_PER_OWNER=3` restores 3.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::{Duration, Instant};
use toolscout::index::synthetic::{Clustered, SplitMix64};
use toolscout::index::vector::{OwnerHit, VectorIndex, VectorParams};

const DIM: usize = 384;
const QUERIES: usize = 256;
const K: usize = 10;

fn exact_params() -> VectorParams {
    VectorParams {
        exact_below: usize::MAX,
        ..VectorParams::default()
    }
}

fn hnsw_params() -> VectorParams {
    VectorParams {
        exact_below: 0,
        ..VectorParams::default()
    }
}

struct Data {
    vectors: Vec<(u32, Vec<f32>)>,
    queries: Vec<Vec<f32>>,
}

fn data(owners: usize, per_owner: usize, seed: u64) -> Data {
    let gen = Clustered::embedding_like(seed, DIM);
    let mut rng = SplitMix64::new(seed + 1);
    let vectors = gen.owners(&mut rng, owners, per_owner);
    let queries = (0..QUERIES).map(|_| gen.random(&mut rng)).collect();
    Data { vectors, queries }
}

fn build(data: &Data, params: VectorParams) -> (VectorIndex, Duration) {
    let t = Instant::now();
    let index = VectorIndex::build_with(DIM, data.vectors.clone(), params).expect("valid vectors");
    (index, t.elapsed())
}

fn search_all(index: &VectorIndex, queries: &[Vec<f32>], k: usize) -> Vec<Vec<OwnerHit>> {
    queries
        .iter()
        .map(|q| index.search(q, k, None).expect("valid query"))
        .collect()
}

fn recall(truth: &[Vec<OwnerHit>], got: &[Vec<OwnerHit>]) -> f64 {
    let (mut found, mut total) = (0, 0);
    for (t, g) in truth.iter().zip(got) {
        found += g
            .iter()
            .filter(|h| t.iter().any(|x| x.owner == h.owner))
            .count();
        total += t.len();
    }
    found as f64 / total as f64
}

/// p50 / p99 of single searches, in microseconds.
fn profile(
    index: &VectorIndex,
    queries: &[Vec<f32>],
    allow: Option<&dyn Fn(u32) -> bool>,
) -> String {
    let mut times: Vec<f64> = Vec::new();
    for _ in 0..4 {
        for q in queries {
            let t = Instant::now();
            black_box(index.search(q, K, allow).expect("valid query"));
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    format!("p50 {:.0} us, p99 {:.0} us", at(0.5), at(0.99))
}

/// Criterion loop over the query set, one query per iteration.
fn bench_search(
    c: &mut Criterion,
    group: &str,
    id: &str,
    index: &VectorIndex,
    queries: &[Vec<f32>],
    allow: Option<&dyn Fn(u32) -> bool>,
) {
    let mut g = c.benchmark_group(group);
    let mut i = 0usize;
    g.bench_function(BenchmarkId::from_parameter(id), |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            black_box(index.search(&queries[i], K, allow).expect("valid query"))
        })
    });
    g.finish();
}

fn sizes(c: &mut Criterion) {
    let per_100k = std::env::var("VECTOR_BENCH_100K_PER_OWNER")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    for (label, owners, per_owner) in [
        ("1k", 1_000, 3),
        ("10k", 10_000, 3),
        ("100k", 100_000, per_100k),
    ] {
        let d = data(owners, per_owner, 42);
        let (index, took) = build(&d, VectorParams::default());
        let (exact, _) = build(&d, exact_params());
        let truth = search_all(&exact, &d.queries, K);
        let r = recall(&truth, &search_all(&index, &d.queries, K));
        println!(
            "vector {label}: {owners} owners x {per_owner} vectors, {} strategy, build {:.2} s, \
             recall@10 {r:.4}, {} (exact scan: {})",
            if index.uses_hnsw() { "hnsw" } else { "exact" },
            took.as_secs_f64(),
            profile(&index, &d.queries, None),
            profile(&exact, &d.queries, None),
        );
        bench_search(c, "vector_search_k10", label, &index, &d.queries, None);
        bench_search(
            c,
            "vector_search_k10_exact_scan",
            label,
            &exact,
            &d.queries,
            None,
        );

        // Recall and latency of the graph walk as ef_search varies (no rebuild needed).
        let mut sweep = index;
        if sweep.uses_hnsw() {
            for ef in [16, 24, 32, 40, 48, 64, 96] {
                sweep.set_ef_search(ef);
                let r = recall(&truth, &search_all(&sweep, &d.queries, K));
                println!(
                    "  ef_search {ef:3}: recall@10 {r:.4}, {}",
                    profile(&sweep, &d.queries, None)
                );
            }
            sweep.set_ef_search(VectorParams::default().ef_search);
        }
        if label == "10k" {
            filtered(c, &sweep, &exact, &d);
            let parallel = VectorParams {
                parallel_build: true,
                ..VectorParams::default()
            };
            let (par_index, par) = build(&d, parallel);
            let r = recall(&truth, &search_all(&par_index, &d.queries, K));
            println!(
                "  10k parallel_insert build {:.2} s (serial {:.2} s), recall@10 {r:.4}, {}",
                par.as_secs_f64(),
                took.as_secs_f64(),
                profile(&par_index, &d.queries, None)
            );
        }
    }
}

/// Filters of decreasing breadth on the 10k index: half and a fifth of the owners (around
/// the walk/scan crossover), 5% and 3 owners (scans of the allowed vectors).
fn filtered(c: &mut Criterion, index: &VectorIndex, exact: &VectorIndex, d: &Data) {
    let half = |o: u32| o & 1 == 0;
    let fifth = |o: u32| o % 5 == 1;
    let twentieth = |o: u32| o % 20 == 7;
    let three = |o: u32| o == 17 || o == 4_242 || o == 9_999;
    let filters: [(&str, &dyn Fn(u32) -> bool); 4] = [
        ("50pct", &half),
        ("20pct", &fifth),
        ("5pct", &twentieth),
        ("3owners", &three),
    ];
    for (label, allow) in filters {
        let truth: Vec<_> = d
            .queries
            .iter()
            .map(|q| exact.search(q, K, Some(allow)).unwrap())
            .collect();
        let got: Vec<_> = d
            .queries
            .iter()
            .map(|q| index.search(q, K, Some(allow)).unwrap())
            .collect();
        println!(
            "  10k filter {label}: recall@10 {:.4}, {}",
            recall(&truth, &got),
            profile(index, &d.queries, Some(allow))
        );
        bench_search(
            c,
            "vector_search_k10_filtered_10k",
            label,
            index,
            &d.queries,
            Some(allow),
        );
    }
}

/// Exact scan vs HNSW by number of vectors (1 per owner): where they cross sets `exact_below`.
fn crossover(c: &mut Criterion) {
    for n in [1_000, 2_000, 4_000, 8_000, 16_000] {
        let d = data(n, 1, 7);
        let (exact, _) = build(&d, exact_params());
        let (hnsw, took) = build(&d, hnsw_params());
        println!(
            "crossover {n} vectors: hnsw build {:.2} s",
            took.as_secs_f64()
        );
        bench_search(
            c,
            "vector_crossover_exact",
            &n.to_string(),
            &exact,
            &d.queries,
            None,
        );
        bench_search(
            c,
            "vector_crossover_hnsw",
            &n.to_string(),
            &hnsw,
            &d.queries,
            None,
        );
    }
}

/// Build of a catalog below the threshold (exact: validation, normalisation, grouping) and of
/// a small HNSW; larger HNSW builds are timed once in `sizes`.
fn build_time(c: &mut Criterion) {
    let d = data(1_000, 3, 42);
    let mut g = c.benchmark_group("vector_build");
    g.sample_size(10);
    g.bench_function("1k_x3_exact", |b| b.iter(|| build(&d, exact_params()).0));
    g.bench_function("1k_x3_hnsw", |b| b.iter(|| build(&d, hnsw_params()).0));
    g.finish();
}

criterion_group!(benches, sizes, crossover, build_time);
criterion_main!(benches);

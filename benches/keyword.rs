//! Benchmarks of the keyword (BM25) index: build time and search latency at 1k, 10k and 100k
//! synthetic tools. The text generator is deterministic (seeded splitmix64, Zipf-distributed
//! words from a fixed pseudo-word vocabulary, catalog-like field lengths) so runs compare.
//!
//! Run: `cargo bench --bench keyword -- --warm-up-time 1 --measurement-time 5`.
//! Besides criterion's figures, each size prints a per-query latency profile (p50/p90/p99
//! over a few thousand single searches), because criterion reports the mean of a mix.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};
use toolscout::catalog::ToolDocument;
use toolscout::index::keyword::{FieldWeights, KeywordIndex};

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
const VOCABULARY: usize = 4_000;

/// splitmix64: tiny, seedable, good enough for text generation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Pseudo-English words drawn with a Zipf(1.0) law, as words in real text are: a handful of
/// very common words, a long tail of rare ones.
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
        let mut rng = Rng(7);
        // The ten most frequent "words" are real stop words, as in real text: the analyzer
        // strips them from documents and queries alike.
        let mut words: Vec<String> = [
            "the", "a", "to", "of", "and", "in", "for", "is", "with", "on",
        ]
        .map(String::from)
        .to_vec();
        let mut seen: std::collections::HashSet<String> = words.iter().cloned().collect();
        while words.len() < VOCABULARY {
            let syllables = rng.range(1, 3);
            let mut w = String::new();
            for _ in 0..syllables {
                w.push_str(ONSETS[rng.range(0, ONSETS.len() - 1)]);
                w.push_str(VOWELS[rng.range(0, VOWELS.len() - 1)]);
                w.push_str(CODAS[rng.range(0, CODAS.len() - 1)]);
            }
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let mut total = 0.0;
        let cumulative = (0..VOCABULARY)
            .map(|rank| {
                total += 1.0 / (rank + 1) as f64;
                total
            })
            .collect::<Vec<_>>();
        let cumulative = cumulative.iter().map(|c| c / total).collect();
        Words { words, cumulative }
    }

    fn word(&self, rng: &mut Rng) -> &str {
        let u = rng.unit();
        let rank = self.cumulative.partition_point(|&c| c < u);
        &self.words[rank.min(VOCABULARY - 1)]
    }

    fn sentence(&self, rng: &mut Rng, lo: usize, hi: usize) -> String {
        let n = rng.range(lo, hi);
        (0..n).map(|_| self.word(rng)).collect::<Vec<_>>().join(" ")
    }

    /// A camelCase identifier, like tool and parameter names.
    fn identifier(&self, rng: &mut Rng, lo: usize, hi: usize) -> String {
        let n = rng.range(lo, hi);
        let mut out = String::new();
        for i in 0..n {
            let w = self.word(rng);
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
}

fn documents(words: &Words, n: usize) -> Vec<ToolDocument> {
    let mut rng = Rng(42);
    (0..n)
        .map(|i| {
            let name = words.identifier(&mut rng, 2, 4);
            let parameters = (0..rng.range(1, 5))
                .map(|_| {
                    format!(
                        "{}: {}",
                        words.sentence(&mut rng, 1, 2),
                        words.sentence(&mut rng, 5, 15)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            let examples = (0..3)
                .map(|_| words.sentence(&mut rng, 15, 25))
                .collect::<Vec<_>>()
                .join("\n");
            ToolDocument {
                ordinal: i as u32,
                tool_id: format!("tool_{i}"),
                names: name,
                keywords: words.sentence(&mut rng, 3, 8),
                description: words.sentence(&mut rng, 20, 60),
                guidance: words.sentence(&mut rng, 10, 30),
                parameters,
                examples,
                passages: Vec::new(),
            }
        })
        .collect()
}

/// Short agent-style queries (2 to 4 words) from the same vocabulary.
fn queries(words: &Words, n: usize) -> Vec<String> {
    let mut rng = Rng(1234);
    (0..n).map(|_| words.sentence(&mut rng, 2, 4)).collect()
}

fn latency_profile(index: &KeywordIndex, queries: &[String], size: usize) {
    let mut times: Vec<Duration> = Vec::with_capacity(queries.len() * 4);
    for _ in 0..4 {
        for q in queries {
            let start = Instant::now();
            black_box(index.search(q, 10, None));
            times.push(start.elapsed());
        }
    }
    times.sort();
    let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    eprintln!(
        "keyword search latency at {size} docs over {} searches: p50 {:?}, p90 {:?}, p99 {:?}",
        times.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99)
    );
}

fn bench_keyword(c: &mut Criterion) {
    let words = Words::new();
    let queries = queries(&words, 500);

    let mut build = c.benchmark_group("keyword_build");
    build.sample_size(10);
    for size in SIZES {
        let docs = documents(&words, size);
        build.throughput(Throughput::Elements(size as u64));
        build.bench_with_input(BenchmarkId::from_parameter(size), &docs, |b, docs| {
            b.iter(|| KeywordIndex::build(black_box(docs), FieldWeights::default()).unwrap())
        });
    }
    build.finish();

    let mut search = c.benchmark_group("keyword_search");
    for size in SIZES {
        let docs = documents(&words, size);
        let index = KeywordIndex::build(&docs, FieldWeights::default()).unwrap();
        latency_profile(&index, &queries, size);
        let mut i = 0;
        search.bench_function(BenchmarkId::new("short_k10", size), |b| {
            b.iter(|| {
                i = (i + 1) % queries.len();
                black_box(index.search(&queries[i], 10, None))
            })
        });
        // Half the catalog filtered out (e.g. by tool type): the filter runs before the cut.
        let allow = |ordinal: u32| ordinal.is_multiple_of(2);
        search.bench_function(BenchmarkId::new("short_k10_filtered", size), |b| {
            b.iter(|| {
                i = (i + 1) % queries.len();
                black_box(index.search(&queries[i], 10, Some(&allow)))
            })
        });
    }
    search.finish();
}

criterion_group!(benches, bench_keyword);
criterion_main!(benches);

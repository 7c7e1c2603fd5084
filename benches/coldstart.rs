//! Cold start of the real binary: from `toolscout serve` spawned to its "listening on" line,
//! on synthetic catalogs of 1,000 and 10,000 hand-written tools (one JSON file each), with the
//! real ONNX model loaded.
//!
//! Three kinds of start per size, in one run:
//! - `no persisted index`: the passage vectors are in the vector cache but the indexes (HNSW
//!   graphs, keyword index) are built (the start after a catalog change, or before there was a
//!   persisted index);
//! - `persisted index`: a restart of the unchanged catalog, which loads the snapshot saved by
//!   the start before (the targets: 1k tools in 1 s or less, 10k in 3 s or less);
//!
//! The catalog's vectors are primed into the vector cache under the real model's id by the
//! search bench's fake embedder (`search/embedder.rs`): embedding the 10k catalog with the
//! model would take ~20 minutes on two cores, and neither kind of start embeds anything, so
//! what the vectors hold does not change what a start costs.
//!
//! Run: `cargo bench --bench coldstart` (after `make models`). Prints medians over
//! `COLDSTART_ROUNDS` starts (default 3); `COLDSTART_SIZES=1000` runs one size.

#[path = "search/catalog.rs"]
#[allow(dead_code)]
mod catalog;
#[path = "search/embedder.rs"]
#[allow(dead_code)]
mod embedder;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use toolscout::embed::cache::VectorCache;
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;

/// The fake embedder's vectors under the real model's id, so the cache serves the real
/// binary.
struct Primer {
    fake: embedder::FakeEmbedder,
    model_id: String,
}

impl Embedder for Primer {
    fn dim(&self) -> usize {
        catalog::DIM
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, toolscout::error::Error> {
        Ok(texts.iter().map(|t| self.fake.vector(t)).collect())
    }
}

/// Writes `n` synthetic tools into `dir/catalog`, one file each, and primes the vector cache in
/// `dir/cache` with every passage of the catalog.
fn prepare(dir: &Path, n: usize, model_id: &str) {
    let catalog_dir = dir.join("catalog");
    std::fs::create_dir_all(&catalog_dir).unwrap();
    let words = catalog::Words::new();
    let mut names = std::collections::HashSet::new();
    for mut tool in catalog::synthetic_tools(&words, n) {
        if !names.insert(tool.name.to_lowercase()) {
            // Names are unique in a catalog; the generator repeats a few.
            tool.name = format!("{}{}", tool.name, tool.tool_id.trim_start_matches("tool_"));
        }
        // What `catalog validate` asks of a hand-written entry that the search bench's tools
        // leave out: guidance, distinct keywords, the file under its category.
        tool.when_to_use = format!("When you need this: {}", tool.description);
        let mut seen = std::collections::HashSet::new();
        tool.search_keywords.retain(|k| seen.insert(k.clone()));
        let mut seen = std::collections::HashSet::new();
        tool.parameters.retain(|p| seen.insert(p.name.clone()));
        let mut properties = serde_json::Map::new();
        for p in &mut tool.parameters {
            p.required = false;
            properties.insert(
                p.name.clone(),
                serde_json::json!({"type": "string", "description": p.description}),
            );
        }
        tool.input_schema = serde_json::json!({"type": "object", "properties": properties});
        let dir = catalog_dir.join(&tool.category);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}.json", tool.tool_id));
        std::fs::write(path, serde_json::to_vec_pretty(&tool).unwrap()).unwrap();
    }
    let (loaded, _) = toolscout::catalog::Catalog::load(&catalog_dir).unwrap_or_else(|e| match e {
        toolscout::catalog::LoadError::Invalid { validation, .. } => {
            let errors: Vec<_> = validation
                .diagnostics
                .iter()
                .filter(|d| d.severity == toolscout::catalog::Severity::Error)
                .take(3)
                .collect();
            panic!("{errors:?}")
        }
        e => panic!("{e:?}"),
    });
    let documents = loaded.documents();
    let texts: Vec<&str> = documents
        .iter()
        .flat_map(|d| d.passages.iter().map(|p| p.text.as_str()))
        .collect();
    let primer = Primer {
        fake: embedder::FakeEmbedder::new(),
        model_id: model_id.to_string(),
    };
    let cache = VectorCache::open(&dir.join("cache"), model_id, catalog::DIM);
    cache.embed(&primer, &texts).unwrap();
    cache.save().unwrap();
}

/// Spawns `serve` on `dir`'s catalog and cache and returns the time to its "listening on" line.
fn start(dir: &Path) -> Duration {
    let begun = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolscout"))
        .arg("serve")
        .args(["--addr", "127.0.0.1:0", "--no-watch"])
        .arg("--catalog")
        .arg(dir.join("catalog"))
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .arg("--log-dir")
        .arg(dir.join("logs"))
        .env(
            "TOOLSCOUT_LOG_LEVEL",
            std::env::var("TOOLSCOUT_LOG_LEVEL").unwrap_or_else(|_| "warn".into()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let ready = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .any(|line| line.starts_with("listening on"));
    let took = begun.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert!(ready, "serve exited before listening");
    took
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[(times.len() - 1) / 2].as_secs_f64()
}

fn main() {
    let models = toolscout::config::default_dir("models");
    let model = OnnxEmbedder::load(&models).unwrap_or_else(|e| panic!("{e} (run `make models`)"));
    let model_id = model.model_id().to_string();
    drop(model);
    let rounds: usize = std::env::var("COLDSTART_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let sizes: Vec<usize> = std::env::var("COLDSTART_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000]);
    for n in sizes {
        let dir = tempfile::tempdir().unwrap();
        let primed = Instant::now();
        prepare(dir.path(), n, &model_id);
        eprintln!(
            "{n} tools written and primed in {:.1} s",
            primed.elapsed().as_secs_f64()
        );
        let persisted_dir = dir.path().join("cache").join("index");
        let building: Vec<Duration> = (0..rounds)
            .map(|_| {
                let _ = std::fs::remove_dir_all(&persisted_dir);
                start(dir.path())
            })
            .collect();
        let persisted: Vec<Duration> = (0..rounds).map(|_| start(dir.path())).collect();
        let (b, p) = (median(building), median(persisted));
        println!(
            "{n} tools: start building the indexes {b:.2} s; start with the persisted index {p:.2} s ({:.1}x faster)",
            b / p
        );
    }
}

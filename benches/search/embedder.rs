//! The search bench's fake embedder: vectors clustered like real tool embeddings, standing in
//! for the ONNX forward pass only.

use super::catalog::{DIM, STOP_WORDS};
use toolscout::embed::Embedder;
use toolscout::index::synthetic::{Clustered, SplitMix64};

/// A deterministic stand-in for the ONNX model, for this bench only: it costs ~40 us per text
/// instead of ~10 ms (one query) to ~40 ms (batched catalog passages), and gives vectors with the geometry of real embeddings (see
/// `index::synthetic`), so the HNSW graphs and the ranking see realistic neighbourhoods.
///
/// A text's first content word picks its cluster, its first two its centre within the cluster
/// (`Clustered::owner_centre`), and the whole text the noise around that centre: texts that
/// start alike ("search code: ..." and "search code for a regex") land at cosine ~0.8, texts
/// sharing only the first word at ~0.65, unrelated texts at ~0.15.
pub struct FakeEmbedder {
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
    pub fn new() -> FakeEmbedder {
        FakeEmbedder {
            clusters: Clustered::embedding_like(2024, DIM),
        }
    }

    pub fn vector(&self, text: &str) -> Vec<f32> {
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

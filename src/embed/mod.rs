//! Sentence embeddings: the [`Embedder`] trait the index and ranker code against, the model
//! files that `scripts/fetch-models` installs ([`MODEL_FILES`], [`ModelStatus`]), and the ONNX
//! implementation in [`onnx`]. Callers depend on the trait so tests and future models can swap
//! the implementation without touching search code.

use serde::Serialize;
use std::path::{Path, PathBuf};

pub mod cache;
pub mod onnx;

/// Turns texts into fixed-size, L2-normalised vectors, so cosine similarity is a dot product.
///
/// `Send + Sync` because one embedder is shared by every request handler.
pub trait Embedder: Send + Sync {
    /// Length of every vector `embed` returns.
    fn dim(&self) -> usize;
    /// Names the model; stored next to vectors so an index built by another model is detected.
    fn model_id(&self) -> &str;
    /// One vector per text, in the order given, each with L2 norm 1 (an empty slice gives an
    /// empty result).
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, crate::error::Error>;
    /// Whether `word` (lowercase) is a whole word of the model's vocabulary. A sentence
    /// model's vocabulary is a dictionary of real words ("book", "paris"), which misspellings
    /// ("serch", "repositry") are not: query suggestions correct only the latter.
    fn knows_word(&self, _word: &str) -> bool {
        false
    }
}

/// The files a semantic-search setup needs, relative to the models directory.
pub const MODEL_FILES: [&str; 3] = ["model.onnx", "tokenizer.json", "libonnxruntime.so"];

/// What is on disk in the models directory.
#[derive(Debug, Clone, Serialize)]
pub struct ModelStatus {
    pub dir: PathBuf,
    pub present: bool,
    pub missing: Vec<String>,
}

impl ModelStatus {
    pub fn inspect(dir: &Path) -> ModelStatus {
        let missing: Vec<String> = MODEL_FILES
            .iter()
            .filter(|f| !dir.join(f).is_file())
            .map(|f| f.to_string())
            .collect();
        ModelStatus {
            dir: dir.to_path_buf(),
            present: missing.is_empty(),
            missing,
        }
    }
}

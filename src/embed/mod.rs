//! Sentence embeddings. For now: locating and checking the model files that
//! `scripts/fetch-models` installs; the ONNX embedder arrives with hybrid search.

use serde::Serialize;
use std::path::{Path, PathBuf};

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

//! Which of the model files runs: `model-w8a8.onnx` (matrix products in integers, on
//! CPUs with VNNI) or `model.onnx` (int8 weights widened to float32 for every product), or,
//! for the evaluation's naive baseline only, `model-stock.onnx`: all-MiniLM-L6-v2 as
//! published, before toolscout's fine-tuning (see `models/README.md`).
//!
//! The first two hold the same int8 weights; `scripts/w8a8-model.py` says how the first is
//! derived from the second, with its attention blocks and GELUs fused. The w8a8 model embeds
//! catalog passages about 2.6x and a short query 2.2x faster, and stays within cosine ~0.998
//! of the float one. It needs VNNI because ONNX Runtime multiplies its unsigned activations by
//! signed weights with `vpmaddubsw` on CPUs without it, whose 16-bit pair sums saturate for
//! large codes (ONNX Runtime's own quantization docs warn of this and ship a saturation
//! checker for it); VNNI's `vpdpbusd` accumulates in 32 bits and is exact.

use std::path::Path;

/// A model file and the numerics it runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `model-w8a8.onnx`: 8-bit weights and activations (one scale per token), int32 sums.
    W8A8,
    /// `model.onnx`: 8-bit weights, float32 activations and sums.
    W8A32,
    /// `model-stock.onnx`: the published model's 8-bit weights with float32 products, before
    /// fine-tuning. Never the product's: the evaluation's naive baseline embeds with it, so
    /// that the baseline stays what a developer would build from the published model.
    Stock,
}

impl Precision {
    /// The file in the models directory.
    pub fn file(self) -> &'static str {
        match self {
            Precision::W8A8 => "model-w8a8.onnx",
            Precision::W8A32 => "model.onnx",
            Precision::Stock => "model-stock.onnx",
        }
    }

    /// Stored next to vectors (the vector cache, `/health`, the persisted index): vectors of
    /// different models are never mixed. The product's ids name the fine-tuning (`tuned-1`)
    /// and the w8a8 derivation (`-2`: fused attention and per-token QuantizeLinear), whose
    /// vectors differ where a rounding tie flips an 8-bit code; `scripts/fetch-models`
    /// replaces an outdated file.
    pub fn model_id(self) -> &'static str {
        match self {
            Precision::W8A8 => "all-MiniLM-L6-v2-tuned-1-w8a8-2",
            Precision::W8A32 => "all-MiniLM-L6-v2-tuned-1-int8",
            Precision::Stock => "all-MiniLM-L6-v2-int8",
        }
    }

    /// The faster model when this CPU runs it exactly and its file is there; the float one
    /// otherwise (a models directory from before the w8a8 file existed still works).
    pub fn preferred(models_dir: &Path) -> Precision {
        let file = models_dir.join(Precision::W8A8.file());
        match (cpu_has_vnni(), file.is_file()) {
            (true, true) => Precision::W8A8,
            (false, _) => {
                tracing::info!("the CPU has no VNNI instructions: embedding with model.onnx (float32 products)");
                Precision::W8A32
            }
            (true, false) => {
                tracing::info!(
                    missing = %file.display(),
                    "embedding with model.onnx; `make models` adds the faster w8a8 model"
                );
                Precision::W8A32
            }
        }
    }
}

/// Whether integer products of unsigned by signed bytes run exactly: AVX-512 VNNI or AVX-VNNI
/// on x86-64. Other architectures' ONNX Runtime kernels do not use `vpmaddubsw`, but their
/// integer paths were not measured here, so they keep the float model.
pub fn cpu_has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512vnni")
            || std::arch::is_x86_feature_detected!("avxvnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

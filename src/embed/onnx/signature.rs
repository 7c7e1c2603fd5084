//! The model's signature, checked before the first run: the inputs this code feeds
//! (`input_ids`, `attention_mask`, optionally `token_type_ids`, int64 `[batch, sequence]`) and
//! the output it reads (`last_hidden_state`, float32 `[batch, sequence, 384]`). Ports are plain
//! data, so the check is testable without a model.

use super::{ATTENTION_MASK, DIM, HIDDEN_STATE, INPUT_IDS, TOKEN_TYPE_IDS};
use ort::value::{Outlet, TensorElementType};

/// A model input or output as the signature check sees it: plain data, so the check is
/// testable without a model.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Port {
    pub(super) name: String,
    /// `None` for a non-tensor value.
    pub(super) ty: Option<TensorElementType>,
    /// `-1` marks a dynamic dimension.
    pub(super) shape: Vec<i64>,
}

impl Port {
    pub(super) fn from_outlet(outlet: &Outlet) -> Port {
        let dtype = outlet.dtype();
        Port {
            name: outlet.name().to_string(),
            ty: dtype.tensor_type(),
            shape: dtype
                .tensor_shape()
                .map(|s| s.iter().copied().collect())
                .unwrap_or_default(),
        }
    }

    fn describe(&self) -> String {
        let ty = match self.ty {
            Some(TensorElementType::Int64) => "int64".to_string(),
            Some(TensorElementType::Float32) => "float32".to_string(),
            Some(other) => other.to_string(),
            None => "non-tensor".to_string(),
        };
        let dims: Vec<String> = self
            .shape
            .iter()
            .map(|d| if *d < 0 { "?".into() } else { d.to_string() })
            .collect();
        format!("{} {ty} [{}]", self.name, dims.join(", "))
    }
}

/// Checks the model's signature against what [`OnnxEmbedder`] feeds and reads: inputs
/// `input_ids` and `attention_mask` (and optionally `token_type_ids`), int64 `[batch, sequence]`,
/// nothing else; an output `last_hidden_state` float32 `[batch, sequence, 384]`. Returns
/// whether `token_type_ids` is an input; on a mismatch, says what was expected and found.
pub(super) fn check_signature(inputs: &[Port], outputs: &[Port]) -> Result<bool, String> {
    let expected = format!(
        "expected inputs {INPUT_IDS}, {ATTENTION_MASK} and optionally {TOKEN_TYPE_IDS} \
         (int64 [batch, sequence]) and an output {HIDDEN_STATE} (float32 [batch, sequence, {DIM}])"
    );
    let found = || {
        let list = |ports: &[Port]| {
            if ports.is_empty() {
                "none".to_string()
            } else {
                ports
                    .iter()
                    .map(Port::describe)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        format!("found inputs {}; outputs {}", list(inputs), list(outputs))
    };
    let mismatch = |problem: String| {
        format!(
            "is not the expected sentence-embedding model: {problem}; {expected}, {}",
            found()
        )
    };
    for port in inputs {
        if ![INPUT_IDS, ATTENTION_MASK, TOKEN_TYPE_IDS].contains(&port.name.as_str()) {
            return Err(mismatch(format!("unexpected input {}", port.name)));
        }
        if port.ty != Some(TensorElementType::Int64) || port.shape.len() != 2 {
            return Err(mismatch(format!("input {}", port.describe())));
        }
    }
    for required in [INPUT_IDS, ATTENTION_MASK] {
        if !inputs.iter().any(|p| p.name == required) {
            return Err(mismatch(format!("no input {required}")));
        }
    }
    let Some(hidden) = outputs.iter().find(|p| p.name == HIDDEN_STATE) else {
        return Err(mismatch(format!("no output {HIDDEN_STATE}")));
    };
    // A dynamic last dimension is accepted here; `embed_chunk` checks the real shape.
    let width_ok = matches!(hidden.shape.last(), Some(&d) if d == DIM as i64 || d < 0);
    if hidden.ty != Some(TensorElementType::Float32) || hidden.shape.len() != 3 || !width_ok {
        return Err(mismatch(format!("output {}", hidden.describe())));
    }
    Ok(inputs.iter().any(|p| p.name == TOKEN_TYPE_IDS))
}

//! The embedder's pure steps, in the style of fastembed-rs: batching texts by token count,
//! tokenizing into the model's input arrays, mean pooling and L2 normalisation. No session,
//! no I/O: each is tested alone.

use super::{failed, CHUNK_SIZE};
use crate::error::Error;
use ndarray::{s, Array2, ArrayView2, ArrayView3};
use tokenizers::{Encoding, Tokenizer};

/// Cost of one `Session::run` before any token, in tokens: about 1.5 ms, and a token in a
/// batch costs 0.07 ms (w8a8) to 0.13 ms (float) on two threads, so 12 to 20 tokens; a value
/// in between errs neither way by much.
const RUN_COST_TOKENS: usize = 16;

/// Splits texts of ascending `lengths` (tokens) into consecutive batches of at most
/// [`CHUNK_SIZE`] that minimise the modelled forward-pass cost: per batch [`RUN_COST_TOKENS`]
/// plus, per text, the longest text of the batch (everything is padded to it). A task and its
/// short steps in one batch padded every step to the task's length; a separate run for the
/// task costs less. Dynamic programming over the sorted lengths: batches of consecutive texts
/// are optimal for this cost.
pub(super) fn batches(lengths: &[usize]) -> Vec<std::ops::Range<usize>> {
    let n = lengths.len();
    // best[j]: least cost of the first j texts; from[j]: where its last batch starts.
    let mut best = vec![usize::MAX; n + 1];
    let mut from = vec![0usize; n + 1];
    best[0] = 0;
    for j in 1..=n {
        let longest = lengths[j - 1];
        for i in j.saturating_sub(CHUNK_SIZE)..j {
            let cost = best[i] + RUN_COST_TOKENS + (j - i) * longest;
            if cost < best[j] {
                best[j] = cost;
                from[j] = i;
            }
        }
    }
    let mut out = Vec::new();
    let mut j = n;
    while j > 0 {
        out.push(from[j]..j);
        j = from[j];
    }
    out.reverse();
    out
}

/// `(input_ids, attention_mask, token_type_ids)`, each `[batch, longest]`: the model's inputs.
pub type TokenArrays = (Array2<i64>, Array2<i64>, Array2<i64>);

/// Tokenizes a batch into `(input_ids, attention_mask, token_type_ids)`, each `[batch, longest]`.
pub fn tokenize(tokenizer: &Tokenizer, batch: &[&str]) -> Result<TokenArrays, Error> {
    let encodings = encode(tokenizer, batch)?;
    Ok(token_arrays(&encodings.iter().collect::<Vec<_>>()))
}

/// Each text's token count with [CLS] and [SEP], truncated at [`MAX_TOKENS`]. The texts are
/// tokenized again chunk by chunk when embedded (tokenizing costs ~1% of the model's time):
/// keeping every `Encoding` of a large catalog (hundreds of thousands of passages, each with
/// its ids, offsets and token strings) would hold gigabytes for the whole build.
pub(super) fn token_counts(tokenizer: &Tokenizer, texts: &[&str]) -> Result<Vec<usize>, Error> {
    let mut counts = Vec::with_capacity(texts.len());
    for window in texts.chunks(1024) {
        counts.extend(encode(tokenizer, window)?.iter().map(Encoding::len));
    }
    Ok(counts)
}

/// Each text's tokens with [CLS] and [SEP], truncated at [`MAX_TOKENS`], unpadded.
pub(super) fn encode(tokenizer: &Tokenizer, texts: &[&str]) -> Result<Vec<Encoding>, Error> {
    tokenizer
        .encode_batch(texts.to_vec(), true)
        .map_err(|e| failed("tokenizing failed", e))
}

/// The model's input arrays for a batch of encodings, padded to the longest: positions past a
/// row's own length are [PAD] (id 0) with mask 0.
pub(super) fn token_arrays(encodings: &[&Encoding]) -> TokenArrays {
    let rows = encodings.len();
    let cols = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
    let mut ids = Array2::<i64>::zeros((rows, cols));
    let mut mask = Array2::<i64>::zeros((rows, cols));
    let mut type_ids = Array2::<i64>::zeros((rows, cols));
    for (r, encoding) in encodings.iter().enumerate() {
        let columns = encoding
            .get_ids()
            .iter()
            .zip(encoding.get_attention_mask())
            .zip(encoding.get_type_ids());
        for (c, ((&id, &m), &t)) in columns.enumerate() {
            ids[[r, c]] = i64::from(id);
            mask[[r, c]] = i64::from(m);
            type_ids[[r, c]] = i64::from(t);
        }
    }
    (ids, mask, type_ids)
}

/// Averages `hidden` (`[batch, seq, dim]`) over the positions where `mask` (`[batch, seq]`) is
/// non-zero: the sentence-transformers pooling of this model. Padding never enters the mean,
/// which is why a text's embedding does not depend on what it is batched with.
pub fn mean_pool(hidden: ArrayView3<f32>, mask: ArrayView2<i64>) -> Array2<f32> {
    let (batch, seq, dim) = hidden.dim();
    assert_eq!(mask.dim(), (batch, seq), "mask shape must match hidden");
    let mut pooled = Array2::<f32>::zeros((batch, dim));
    for (b, mut row) in pooled.rows_mut().into_iter().enumerate() {
        let mut count = 0u32;
        for t in 0..seq {
            if mask[[b, t]] != 0 {
                row += &hidden.slice(s![b, t, ..]);
                count += 1;
            }
        }
        // An all-zero mask cannot come from the tokenizer ([CLS] and [SEP] are always there);
        // leaving the row zero beats dividing by zero.
        if count > 0 {
            row /= count as f32;
        }
    }
    pooled
}

/// Scales every row to unit L2 norm, so cosine similarity is a dot product. A zero row stays
/// zero rather than becoming NaN.
pub fn l2_normalize(mut rows: Array2<f32>) -> Array2<f32> {
    for mut row in rows.rows_mut() {
        let norm = row.dot(&row).sqrt();
        if norm > f32::MIN_POSITIVE {
            row /= norm;
        }
    }
    rows
}

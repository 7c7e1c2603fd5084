//! The ONNX Runtime sentence embedder: loads ONNX Runtime, all-MiniLM-L6-v2 (int8 weights; the
//! integer-product w8a8 file where the CPU runs it exactly, see [`precision`]) and its
//! tokenizer from the models directory, checks that the model has the inputs and output this code
//! feeds and reads, and turns texts into mean-pooled, L2-normalised 384-dimensional vectors.
//!
//! The numeric steps are small pure functions ([`tokenize`], [`mean_pool`], [`l2_normalize`]) in
//! the style of fastembed-rs, so each can be tested alone and the pipeline reads top to bottom in
//! [`OnnxEmbedder::embed`].
//!
//! `ndarray` crosses no API boundary here: `ort` rc.15 is built against ndarray 0.17 while this
//! crate uses 0.16, so tensors go in and out of ONNX Runtime as `(shape, slice)` pairs.

use self::pool::{run_split, Sessions};
pub use self::precision::Precision;
use self::pure::{batches, token_counts};
pub use self::pure::{l2_normalize, mean_pool, tokenize, TokenArrays};
use self::signature::{check_signature, Port};
use super::{Embedder, ModelStatus};
use crate::error::Error;
use ndarray::{Array2, ArrayView3};
use ort::environment::Environment;
use ort::session::builder::PrepackedWeights;
use ort::session::{RunOptions, Session, SessionInputValue, SessionOutputs};
use ort::value::TensorRef;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use tokenizers::{Tokenizer, TruncationParams};

/// Width of the model's hidden state, hence of every embedding.
pub const DIM: usize = 384;
/// Longer inputs are cut here. The model was trained on 128-token windows but handles up to 512;
/// 256 keeps whole tool descriptions while bounding the quadratic attention cost.
pub const MAX_TOKENS: usize = 256;

/// The fewest chunks a call must have to run on every session at once: fewer (a feedback
/// batch, a small reload) stay on one, so that queries meanwhile find a session idle.
const PARALLEL_CHUNKS: usize = 4;

/// Texts per `Session::run`. Larger batches gain little on 2 cores and hold a session
/// longer, so a short query waiting behind a bulk indexing call waits at most one chunk.
pub const CHUNK_SIZE: usize = 32;

const INPUT_IDS: &str = "input_ids";
const ATTENTION_MASK: &str = "attention_mask";
const TOKEN_TYPE_IDS: &str = "token_type_ids";
const HIDDEN_STATE: &str = "last_hidden_state";

/// ONNX Runtime allows one environment per process and loads its library once: the first
/// successful [`OnnxEmbedder::load`] creates it and every later one (tests load many times)
/// reuses it, whatever directory it names.
static RUNTIME: OnceLock<(PathBuf, Environment)> = OnceLock::new();
/// Serialises the first initialisation; unlike a bare `OnceLock::get_or_init` it lets a failed
/// attempt (say, a missing library) be retried later with another path.
static RUNTIME_INIT: Mutex<()> = Mutex::new(());

/// The number of sessions [`OnnxEmbedder::load`] opens: one a core, at most 4 (they share
/// one copy of the weights; each keeps its own arena of what its largest run needed).
pub fn default_sessions() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4))
}

/// all-MiniLM-L6-v2 through ONNX Runtime.
///
/// A few sessions (see [`pool`]): `Session::run` needs `&mut` in ort rc.15, so each sits
/// behind its own lock, taken per chunk. Each runs on its caller's thread alone; a query
/// takes whichever session is idle, and a bulk call of at least [`PARALLEL_CHUNKS`] chunks
/// runs them on every session at once. ONNX Runtime's memory arena keeps, per session, what
/// its largest run needed (~100 MB for 32 texts of 256 tokens), so bulk runs ask it to hand
/// that back when they end: splitting bulk calls over two sessions without that took the
/// server from 257 to 431 MB at start. With it, indexing the shipped catalog cold peaked at
/// 383-393 MB against 373-383 MB on one 2-thread session, in 5.9-6.4 s against 7.0-7.9 s.
pub struct OnnxEmbedder {
    tokenizer: Tokenizer,
    sessions: Sessions,
    /// Some exports of the model drop `token_type_ids` (it is all zeros for single sentences).
    feeds_token_type_ids: bool,
    precision: Precision,
    /// Told `(done, total)` texts before the first chunk of a call and after each one: a
    /// command line shows a progress bar from it (see `cli::progress`).
    progress: Option<Progress>,
}

/// What [`OnnxEmbedder::set_progress`] takes.
pub type Progress = Box<dyn Fn(usize, usize) + Send + Sync>;

impl std::fmt::Debug for OnnxEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxEmbedder")
            .field("model_id", &self.precision.model_id())
            .field("dim", &DIM)
            .finish_non_exhaustive()
    }
}

impl OnnxEmbedder {
    /// Loads the embedder from `models_dir` (see `models/README.md`) with
    /// [`default_sessions`] and the [preferred](Precision::preferred) model file.
    pub fn load(models_dir: &Path) -> Result<OnnxEmbedder, Error> {
        OnnxEmbedder::load_with_sessions(models_dir, default_sessions())
    }

    /// Loads the embedder with `sessions` sessions (0 is taken as 1), each on one intra-op
    /// thread (see `open_session`).
    pub fn load_with_sessions(models_dir: &Path, sessions: usize) -> Result<OnnxEmbedder, Error> {
        OnnxEmbedder::load_precision(models_dir, sessions, Precision::preferred(models_dir))
    }

    /// Loads the embedder running the model file of `precision`, whatever the CPU.
    pub fn load_precision(
        models_dir: &Path,
        sessions: usize,
        precision: Precision,
    ) -> Result<OnnxEmbedder, Error> {
        check_files(models_dir)?;
        // Absolute, because ort resolves a relative library path against the executable's
        // directory, not the working directory the user meant.
        let dir = std::path::absolute(models_dir).unwrap_or_else(|_| models_dir.to_path_buf());
        // The tokenizer first: it needs no process-wide state, so a broken tokenizer.json is
        // reported before ONNX Runtime is touched.
        let tokenizer = load_tokenizer(&dir.join("tokenizer.json"))?;
        let env = runtime(&dir.join("libonnxruntime.so"))?;
        let model_path = dir.join(precision.file());
        if !model_path.is_file() {
            return Err(Error::ModelUnavailable {
                reason: format!(
                    "{} is missing (`make models` fetches and derives it)",
                    model_path.display()
                ),
            });
        }
        // Opened side by side: each takes ~0.1 s of parsing and optimising the graph.
        let n = sessions.max(1);
        // One copy of the weights as the CPU kernels lay them out, shared by every session.
        let prepacked = std::panic::catch_unwind(PrepackedWeights::new).map_err(|_| {
            Error::ModelUnavailable {
                reason: "ONNX Runtime cannot create a prepacked-weights container".into(),
            }
        })?;
        let sessions = run_split(n, n, |_| open_session(env, &model_path, &prepacked))?;
        let first = &sessions[0];
        let inputs: Vec<Port> = first.inputs().iter().map(Port::from_outlet).collect();
        let outputs: Vec<Port> = first.outputs().iter().map(Port::from_outlet).collect();
        let feeds_token_type_ids =
            check_signature(&inputs, &outputs).map_err(|problem| Error::ModelUnavailable {
                reason: format!("{} {problem}", model_path.display()),
            })?;
        Ok(OnnxEmbedder {
            tokenizer,
            sessions: Sessions::new(sessions),
            feeds_token_type_ids,
            precision,
            progress: None,
        })
    }
}

/// One session over the model file, running on its caller's thread alone: a second
/// intra-op thread cost a short query ~0.9 ms more CPU (waking it and handing it half of
/// each small product), measured as the server's CPU per sequential search, 6.3 -> 5.3 and
/// 5.9 -> 4.9 ms in alternating runs; bulk calls get their parallelism from several
/// sessions instead (see `OnnxEmbedder::embed`).
fn open_session(
    env: &Environment,
    model_path: &Path,
    prepacked: &PrepackedWeights,
) -> Result<Session, Error> {
    Session::builder(env)
        .map_err(|e| unavailable("cannot configure an ONNX Runtime session", e))?
        .with_intra_threads(1)
        .map_err(|e| unavailable("cannot set the session's thread count", e))?
        .with_prepacked_weights(prepacked)
        .map_err(|e| unavailable("cannot share the model's prepacked weights", e))?
        // Idle pool threads spin-wait by default, burning the cores the HTTP server, the
        // lexical index and other processes need between runs. Measured on the loaded 2-core
        // machine: same batch throughput without spinning, and lower single-query latency
        // (9-10 ms against 12-17 ms), since spinners no longer compete for the cores.
        // Spinning only within a run (`session.force_spinning_stop`) was measured too: an
        // idle machine embeds a short query in 1.05 ms against 1.8, but with both cores
        // busy elsewhere in 3.3 ms against 1.6, the spinner holding a core the other
        // thread waits for. A server is busiest exactly when latency matters, so no.
        .with_intra_op_spinning(false)
        .map_err(|e| unavailable("cannot configure the session's thread pool", e))?
        // ONNX Runtime fuses each residual Add + LayerNormalization into one
        // SkipLayerNormalization, whose CPU kernel is slower than the two it replaces here:
        // measured with onnxruntime 1.31.1 on the 2-core machine, a batch of 32 x 40 tokens
        // 98 -> 86 ms (w8a8) and 174 -> 161 ms (float), one short query 2.0 -> 1.8 ms.
        .with_disabled_optimizers("SkipLayerNormFusion")
        .map_err(|e| unavailable("cannot configure the session's graph optimizers", e))?
        .commit_from_file(model_path)
        .map_err(|e| {
            damaged(
                format_args!("cannot load the model {}", model_path.display()),
                e,
            )
        })
}

impl OnnxEmbedder {
    /// Reports the texts done of each call to `progress`, chunk by chunk (the chunks are the
    /// same with or without it, so are the vectors).
    pub fn set_progress(&mut self, progress: Progress) {
        self.progress = Some(progress);
    }

    /// Embeds one chunk (all texts padded to the chunk's longest), one row per text, on the
    /// first session when `bulk`, else on any idle one.
    fn embed_chunk(&self, batch: &[&str], bulk: bool) -> Result<Array2<f32>, Error> {
        let (ids, mask, type_ids) = tokenize(&self.tokenizer, batch)?;
        let (rows, cols) = ids.dim();
        let mut inputs: Vec<(&str, SessionInputValue<'_>)> = vec![
            (INPUT_IDS, tensor(&ids)?.into()),
            (ATTENTION_MASK, tensor(&mask)?.into()),
        ];
        if self.feeds_token_type_ids {
            inputs.push((TOKEN_TYPE_IDS, tensor(&type_ids)?.into()));
        }
        let shape = (rows, cols);
        if bulk {
            // ONNX Runtime's arena keeps what a session's largest run needed; bulk runs hand
            // it back when they end (measured: a server 20 MB smaller after embedding the
            // shipped catalog, 345 -> 325 MB).
            let mut options =
                RunOptions::new().map_err(|e| failed("cannot create run options", e))?;
            options
                .set("memory.enable_memory_arena_shrinkage", "cpu:0")
                .map_err(|e| failed("cannot set the arena shrinkage", e))?;
            self.sessions.with(|session| {
                let outputs = session
                    .run_with_options(inputs, &options)
                    .map_err(|e| failed("ONNX Runtime failed to run the model", e))?;
                pool_output(&outputs, mask.view(), shape)
            })
        } else {
            self.sessions.with(|session| {
                let outputs = session
                    .run(inputs)
                    .map_err(|e| failed("ONNX Runtime failed to run the model", e))?;
                pool_output(&outputs, mask.view(), shape)
            })
        }
    }
}

/// A run's hidden state, mean-pooled over `mask` and normalised: one row per text.
fn pool_output(
    outputs: &SessionOutputs<'_>,
    mask: ndarray::ArrayView2<'_, i64>,
    (rows, cols): (usize, usize),
) -> Result<Array2<f32>, Error> {
    let hidden = outputs
        .get(HIDDEN_STATE)
        .ok_or_else(|| Error::EmbeddingFailed {
            reason: format!("the model returned no {HIDDEN_STATE}"),
        })?;
    let (shape, data) = hidden
        .try_extract_tensor::<f32>()
        .map_err(|e| failed(format_args!("cannot read {HIDDEN_STATE}"), e))?;
    let expected = [rows as i64, cols as i64, DIM as i64];
    if shape[..] != expected {
        return Err(Error::EmbeddingFailed {
            reason: format!("{HIDDEN_STATE} has shape {shape}, expected {expected:?}"),
        });
    }
    let hidden = ArrayView3::from_shape((rows, cols, DIM), data)
        .map_err(|e| failed(format_args!("cannot view {HIDDEN_STATE}"), e))?;
    Ok(l2_normalize(mean_pool(hidden, mask)))
}

impl Embedder for OnnxEmbedder {
    fn dim(&self) -> usize {
        DIM
    }

    fn model_id(&self) -> &str {
        self.precision.model_id()
    }

    fn knows_word(&self, word: &str) -> bool {
        self.tokenizer.token_to_id(word).is_some()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Error> {
        // Chunks are formed by token count: sorting by byte length instead left a quarter of
        // the shipped catalog's computed positions to padding, sorting by tokens 7%. The sort
        // is stable and results are written back by original index.
        // One text (a query) is one chunk whatever its length: no need to tokenize it twice.
        let counts = match texts {
            [_] => vec![0],
            _ => token_counts(&self.tokenizer, texts)?,
        };
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| counts[i]);
        let out = vec![Vec::new(); texts.len()];
        let lengths: Vec<usize> = order.iter().map(|&i| counts[i]).collect();
        let report = |done: usize| {
            if let Some(progress) = &self.progress {
                progress(done, texts.len());
            }
        };
        report(0);
        // Each chunk's rows go to their places as it ends (no second copy of a large call's
        // vectors), and the count done is reported under the same lock, so it only grows.
        let state = Mutex::new((0, out));
        let ranges = batches(&lengths);
        let bulk = ranges.len() > 1;
        // A large bulk call (a catalog's cold start, a big reload) runs its chunks on every
        // session at once, one thread each; a small one leaves the other sessions to queries.
        let workers = if ranges.len() >= PARALLEL_CHUNKS {
            self.sessions.len()
        } else {
            1
        };
        run_split(ranges.len(), workers, |j| {
            let chunk = &order[ranges[j].clone()];
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let vectors = self.embed_chunk(&batch, bulk)?;
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            let (done, out) = &mut *state;
            for (&i, row) in chunk.iter().zip(vectors.rows()) {
                out[i] = row.to_vec();
            }
            *done += chunk.len();
            report(*done);
            Ok::<_, Error>(())
        })?;
        Ok(state.into_inner().unwrap_or_else(PoisonError::into_inner).1)
    }
}

/// Names each missing file, and how to get it, before anything tries to open one.
fn check_files(models_dir: &Path) -> Result<(), Error> {
    if !models_dir.is_dir() {
        return Err(Error::ModelUnavailable {
            reason: format!(
                "the models directory {} does not exist; `make models` (scripts/fetch-models) \
                 fetches model.onnx, tokenizer.json and libonnxruntime.so into it",
                models_dir.display()
            ),
        });
    }
    let status = ModelStatus::inspect(models_dir);
    if status.present {
        return Ok(());
    }
    Err(Error::ModelUnavailable {
        reason: format!(
            "missing {} in {}; `make models` (scripts/fetch-models) fetches them",
            status.missing.join(", "),
            models_dir.display()
        ),
    })
}

/// Reads tokenizer.json and replaces its shipped `Fixed(128)` padding and 128-token truncation:
/// fixed padding would make every short query pay for 128 tokens. The tokenizer pads nothing:
/// texts are tokenized all at once and sorted by length before `pure::token_arrays` pads each
/// chunk to its own longest.
fn load_tokenizer(path: &Path) -> Result<Tokenizer, Error> {
    let mut tokenizer = Tokenizer::from_file(path).map_err(|e| {
        damaged(
            format_args!("cannot read the tokenizer {}", path.display()),
            e,
        )
    })?;
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: MAX_TOKENS,
            ..TruncationParams::default()
        }))
        .map_err(|e| unavailable("cannot set the tokenizer's truncation", e))?;
    Ok(tokenizer)
}

/// The process's ONNX Runtime environment, created from `library` on first use.
fn runtime(library: &Path) -> Result<&'static Environment, Error> {
    if let Some((_, env)) = RUNTIME.get() {
        return Ok(env);
    }
    let _guard = RUNTIME_INIT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, env)) = RUNTIME.get() {
        return Ok(env);
    }
    let builder = ort::init_from(library).map_err(|e| {
        unavailable(
            format_args!("cannot load ONNX Runtime from {}", library.display()),
            e,
        )
    })?;
    let env = builder
        .with_name("toolscout")
        // Microsoft's builds send usage telemetry unless told not to; a local tool should not.
        .with_telemetry(false)
        .build()
        .map_err(|e| unavailable("cannot create the ONNX Runtime environment", e))?;
    let _ = RUNTIME.set((library.to_path_buf(), env));
    match RUNTIME.get() {
        Some((loaded, env)) => {
            tracing::debug!(library = %loaded.display(), "ONNX Runtime initialised");
            Ok(env)
        }
        None => Err(Error::ModelUnavailable {
            reason: "the ONNX Runtime environment vanished after creation".into(),
        }),
    }
}

/// A borrowed `[rows, cols]` int64 tensor over an array's memory (no copy).
fn tensor(array: &Array2<i64>) -> Result<TensorRef<'_, i64>, Error> {
    let data = array.as_slice().ok_or_else(|| Error::EmbeddingFailed {
        reason: "input array is not contiguous".into(),
    })?;
    let (rows, cols) = array.dim();
    TensorRef::from_array_view(([rows, cols], data))
        .map_err(|e| failed("cannot build an input tensor", e))
}

fn unavailable(what: impl Display, cause: impl Display) -> Error {
    Error::ModelUnavailable {
        reason: format!("{what}: {cause}"),
    }
}

/// [`unavailable`] for a model file that is there but cannot be read as one (cut short by an
/// interrupted download, overwritten): says how to get it back.
fn damaged(what: impl Display, cause: impl Display) -> Error {
    Error::ModelUnavailable {
        reason: format!(
            "{what}: {cause}; `make models` (scripts/fetch-models) fetches the model files again, checked against their sha256"
        ),
    }
}

pub(super) fn failed(what: impl Display, cause: impl Display) -> Error {
    Error::EmbeddingFailed {
        reason: format!("{what}: {cause}"),
    }
}

#[cfg(test)]
mod model_files_tests;
mod pool;
mod precision;
mod pure;
mod signature;
#[cfg(test)]
mod tests;

//! Tests of `onnx`.

use super::model_files_tests::w8a8_runs_here;
use super::pure::{batches, encode};
use super::*;
use ndarray::{array, s, Array3};
use ort::value::TensorElementType;

/// One embedder for the whole test binary: loading takes a few hundred milliseconds. It runs
/// the model the product runs on this machine (the w8a8 one where the CPU has VNNI).
pub(super) fn embedder() -> &'static OnnxEmbedder {
    embedder_of(Precision::preferred(&crate::config::default_dir("models")))
}

/// An embedder running the model file of `precision`, one per precision.
pub(super) fn embedder_of(precision: Precision) -> &'static OnnxEmbedder {
    static W8A8: OnceLock<OnnxEmbedder> = OnceLock::new();
    static W8A32: OnceLock<OnnxEmbedder> = OnceLock::new();
    static STOCK: OnceLock<OnnxEmbedder> = OnceLock::new();
    let cell = match precision {
        Precision::W8A8 => &W8A8,
        Precision::W8A32 => &W8A32,
        Precision::Stock => &STOCK,
    };
    cell.get_or_init(|| {
        let dir = crate::config::default_dir("models");
        OnnxEmbedder::load_precision(&dir, default_sessions(), precision)
            .unwrap_or_else(|e| panic!("{e} (models dir {})", dir.display()))
    })
}

fn embed_one(text: &str) -> Vec<f32> {
    embedder().embed(&[text]).unwrap().remove(0)
}

pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn norm(v: &[f32]) -> f32 {
    dot(v, v).sqrt()
}

/// A text of well over 256 tokens.
pub(super) fn long_text() -> String {
    "the command line tool searches recursively through every source file for lines \
     matching a regular expression and prints them with their file names and numbers. "
        .repeat(20)
}

#[test]
fn vectors_have_unit_norm() {
    let texts = ["search code for a regex", "x", "", "Ünïcödé 文字 ✓"];
    for (text, v) in texts.iter().zip(embedder().embed(&texts).unwrap()) {
        assert!((norm(&v) - 1.0).abs() < 1e-5, "{text:?}: norm {}", norm(&v));
    }
}

#[test]
fn batching_and_padding_do_not_change_embeddings() {
    let long = long_text();
    // Mixed lengths in an unsorted order: the batch is reordered and padded internally.
    let texts = [
        "grep source files for a pattern",
        long.as_str(),
        "",
        "send a slack message",
        "convert a markdown document to HTML with syntax highlighting and a table of contents",
        "x",
    ];
    // Both models: the w8a8 one quantizes per token so that this holds for it too (a scale
    // per tensor, taken over the whole padded batch, moved vectors by up to 0.02).
    let mut precisions = vec![Precision::W8A32];
    if w8a8_runs_here() {
        precisions.push(Precision::W8A8);
    }
    for precision in precisions {
        let embedder = embedder_of(precision);
        let batch = embedder.embed(&texts).unwrap();
        assert_eq!(batch.len(), texts.len());
        for (text, from_batch) in texts.iter().zip(&batch) {
            let alone = embedder.embed(&[text]).unwrap().remove(0);
            let diff = max_diff(&alone, from_batch);
            assert!(
                diff < 1e-5,
                "{precision:?} {text:.40?}: batch differs from single by {diff}"
            );
        }
    }
}

#[test]
fn more_texts_than_one_chunk_keep_their_order() {
    let texts: Vec<String> = (0..CHUNK_SIZE * 2 + 5)
        .map(|i| format!("tool number {i} {}", "does things ".repeat(i % 7)))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let batch = embedder().embed(&refs).unwrap();
    for i in [0, 1, CHUNK_SIZE, CHUNK_SIZE * 2 + 4] {
        assert!(max_diff(&batch[i], &embed_one(refs[i])) < 1e-5, "text {i}");
    }
}

#[test]
fn a_large_call_runs_on_two_sessions_keeps_its_order_and_reports_growing_counts() {
    let dir = crate::config::default_dir("models");
    let mut embedder = OnnxEmbedder::load(&dir).unwrap();
    let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    embedder.set_progress(Box::new(move |done, total| {
        log.lock().unwrap().push((done, total));
    }));
    // More than `PARALLEL_CHUNKS` chunks whatever the lengths: a chunk holds at most
    // `CHUNK_SIZE` texts.
    let texts: Vec<String> = (0..CHUNK_SIZE * (PARALLEL_CHUNKS + 1) + 3)
        .map(|i| format!("tool number {i} {}", "does things ".repeat(i % 11)))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let batch = embedder.embed(&refs).unwrap();
    assert_eq!(batch.len(), refs.len());
    for i in (0..refs.len()).step_by(9) {
        assert!(max_diff(&batch[i], &embed_one(refs[i])) < 1e-5, "text {i}");
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.first(), Some(&(0, refs.len())));
    assert_eq!(seen.last(), Some(&(refs.len(), refs.len())));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
}

#[test]
fn similar_tasks_are_closer_than_unrelated_ones() {
    let regex = embed_one("search code for a regex");
    let grep = embed_one("grep source files for a pattern");
    let slack = embed_one("send a slack message");
    let (near, far) = (dot(&regex, &grep), dot(&regex, &slack));
    assert!(near > far + 0.2, "near {near}, far {far}");
}

#[test]
fn empty_input_and_empty_string() {
    assert!(embedder().embed(&[]).unwrap().is_empty());
    let v = embed_one("");
    assert_eq!(v.len(), DIM);
    assert!(v.iter().all(|x| x.is_finite()));
}

#[test]
fn long_text_is_truncated_at_256_tokens() {
    let long = long_text();
    let (ids, _, _) = tokenize(&embedder().tokenizer, &[&long]).unwrap();
    assert_eq!(ids.ncols(), MAX_TOKENS);
    // Anything past the cut cannot change the embedding.
    let tail = format!("{long} send an email to the whole team about the release");
    let (a, b) = (embed_one(&long), embed_one(&tail));
    assert!(max_diff(&a, &b) < 1e-6);
    assert!((norm(&a) - 1.0).abs() < 1e-5);
}

#[test]
fn tokenize_pads_to_the_longest_in_the_batch() {
    let (ids, mask, type_ids) =
        tokenize(&embedder().tokenizer, &["search code for a regex", "find"]).unwrap();
    // [CLS] search code for a reg ##ex [SEP]
    assert_eq!(ids.dim(), (2, 8));
    assert_eq!(mask.row(0).sum(), 8);
    assert_eq!(mask.row(1).to_vec(), [1, 1, 1, 0, 0, 0, 0, 0]);
    assert_eq!(ids.row(1).slice(s![3..]).sum(), 0, "[PAD] is id 0");
    assert_eq!(type_ids.sum(), 0);
    assert_eq!((ids[[0, 0]], ids[[0, 7]]), (101, 102), "[CLS] ... [SEP]");
}

/// Chunks are formed by token count, which only works if the tokenizer leaves each text its
/// own length (tokenizer.json ships with fixed padding to 128).
#[test]
fn texts_are_tokenized_unpadded() {
    let encodings = encode(&embedder().tokenizer, &["find", "search code for a regex"]).unwrap();
    let lengths: Vec<usize> = encodings.iter().map(|e| e.len()).collect();
    assert_eq!(lengths, [3, 8]);
}

#[test]
fn mean_pool_ignores_masked_positions() {
    let hidden = Array3::from_shape_vec((1, 3, 2), vec![1.0, 2.0, 3.0, 4.0, 100.0, 100.0]).unwrap();
    let mask = array![[1_i64, 1, 0]];
    assert_eq!(mean_pool(hidden.view(), mask.view()), array![[2.0, 3.0]]);
    let none = array![[0_i64, 0, 0]];
    assert_eq!(mean_pool(hidden.view(), none.view()), array![[0.0, 0.0]]);
}

#[test]
fn l2_normalize_scales_rows_and_keeps_zero_rows() {
    let rows = l2_normalize(array![[3.0_f32, 4.0], [0.0, 0.0]]);
    assert_eq!(rows, array![[0.6, 0.8], [0.0, 0.0]]);
}

#[test]
fn missing_models_dir_names_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("nowhere");
    let e = OnnxEmbedder::load(&gone).unwrap_err();
    assert_eq!(e.code(), "MODEL_UNAVAILABLE");
    assert_eq!(e.status(), 503);
    let msg = e.to_string();
    assert!(
        msg.contains("does not exist") && msg.contains("make models"),
        "{msg}"
    );
}

#[test]
fn missing_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tokenizer.json"), "{}").unwrap();
    let msg = OnnxEmbedder::load(dir.path()).unwrap_err().to_string();
    assert!(
        msg.contains("missing model.onnx, libonnxruntime.so") && msg.contains("make models"),
        "{msg}"
    );
    assert!(!msg.contains("tokenizer.json"), "{msg}");
}

/// A models dir with the real runtime and tokenizer linked in and `model` as model.onnx.
fn models_dir_with(model: &[u8], tokenizer: Option<&str>) -> tempfile::TempDir {
    let real = std::path::absolute(crate::config::default_dir("models")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("model.onnx"), model).unwrap();
    match tokenizer {
        Some(text) => std::fs::write(dir.path().join("tokenizer.json"), text).unwrap(),
        None => std::os::unix::fs::symlink(
            real.join("tokenizer.json"),
            dir.path().join("tokenizer.json"),
        )
        .unwrap(),
    }
    std::os::unix::fs::symlink(
        real.join("libonnxruntime.so"),
        dir.path().join("libonnxruntime.so"),
    )
    .unwrap();
    dir
}

#[test]
fn a_broken_tokenizer_is_named() {
    let dir = models_dir_with(b"", Some("not json"));
    let msg = OnnxEmbedder::load(dir.path()).unwrap_err().to_string();
    assert!(msg.contains("cannot read the tokenizer"), "{msg}");
}

#[test]
fn a_model_with_other_inputs_is_refused_with_what_was_found() {
    // A valid ONNX model `y = Identity(x)` with x, y float32 [n], written by the Python
    // `onnx` package (helper.make_model, opset 13, IR 8) and serialised to these bytes.
    const IDENTITY_ONNX: [u8; 69] = [
        8, 8, 18, 0, 58, 57, 10, 16, 10, 1, 120, 18, 1, 121, 34, 8, 73, 100, 101, 110, 116, 105,
        116, 121, 18, 1, 103, 90, 16, 10, 1, 120, 18, 11, 10, 9, 8, 1, 18, 5, 10, 3, 18, 1, 110,
        98, 16, 10, 1, 121, 18, 11, 10, 9, 8, 1, 18, 5, 10, 3, 18, 1, 110, 66, 4, 10, 0, 16, 13,
    ];
    let dir = models_dir_with(&IDENTITY_ONNX, None);
    let e = OnnxEmbedder::load(dir.path()).unwrap_err();
    assert_eq!(e.code(), "MODEL_UNAVAILABLE");
    let msg = e.to_string();
    assert!(msg.contains("unexpected input x"), "{msg}");
    assert!(msg.contains("expected inputs input_ids"), "{msg}");
    assert!(
        msg.contains("found inputs x float32 [?]; outputs y float32 [?]"),
        "{msg}"
    );
}

#[test]
fn a_file_that_is_not_a_model_is_refused() {
    let dir = models_dir_with(b"this is not an onnx model", None);
    let msg = OnnxEmbedder::load(dir.path()).unwrap_err().to_string();
    assert!(msg.contains("cannot load the model"), "{msg}");
}

fn port(name: &str, ty: TensorElementType, shape: &[i64]) -> Port {
    Port {
        name: name.into(),
        ty: Some(ty),
        shape: shape.to_vec(),
    }
}

#[test]
fn signature_check() {
    use TensorElementType::{Float32, Int32, Int64};
    let ids = port(INPUT_IDS, Int64, &[-1, -1]);
    let mask = port(ATTENTION_MASK, Int64, &[-1, -1]);
    let types = port(TOKEN_TYPE_IDS, Int64, &[-1, -1]);
    let hidden = port(HIDDEN_STATE, Float32, &[-1, -1, 384]);
    let pooler = port("pooler_output", Float32, &[-1, 384]);

    let full = [ids.clone(), mask.clone(), types.clone()];
    let only_hidden = std::slice::from_ref(&hidden);
    assert_eq!(check_signature(&full, only_hidden), Ok(true));
    let two = [ids.clone(), mask.clone()];
    assert_eq!(check_signature(&two, &[hidden.clone(), pooler]), Ok(false));

    let err = check_signature(std::slice::from_ref(&ids), only_hidden).unwrap_err();
    assert!(err.contains("no input attention_mask"), "{err}");
    assert!(err.contains("found inputs input_ids int64 [?, ?]"), "{err}");

    let int32 = [port(INPUT_IDS, Int32, &[-1, -1]), mask.clone()];
    let err = check_signature(&int32, only_hidden).unwrap_err();
    assert!(err.contains("input input_ids i32 [?, ?]"), "{err}");

    let wide = port(HIDDEN_STATE, Float32, &[-1, -1, 768]);
    let err = check_signature(&full, &[wide]).unwrap_err();
    assert!(
        err.contains("output last_hidden_state float32 [?, ?, 768]"),
        "{err}"
    );
    assert!(err.contains("float32 [batch, sequence, 384]"), "{err}");

    let err = check_signature(&full, &[]).unwrap_err();
    assert!(err.contains("no output last_hidden_state") && err.contains("outputs none"));
}

#[test]
fn batches_minimise_padding_and_runs() {
    assert_eq!(batches(&[]), Vec::<std::ops::Range<usize>>::new());
    assert_eq!(batches(&[10, 11, 12]), vec![0..3]);
    // Three steps and the long task they come from: the task goes alone.
    assert_eq!(batches(&[16, 18, 41, 88]), vec![0..2, 2..3, 3..4]);
    // Never more than CHUNK_SIZE texts per batch.
    let same = vec![40; CHUNK_SIZE * 2 + 1];
    let b = batches(&same);
    assert!(b.iter().all(|r| r.len() <= CHUNK_SIZE));
    // Every text is in exactly one batch, in order.
    let lengths: Vec<usize> = (1..200).map(|i| i * 3).collect();
    let b = batches(&lengths);
    assert_eq!(b.first().unwrap().start, 0);
    assert_eq!(b.last().unwrap().end, lengths.len());
    assert!(b.windows(2).all(|w| w[0].end == w[1].start));
}

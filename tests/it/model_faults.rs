//! Model files missing or damaged at start: the server starts anyway in keyword mode, and
//! `/health` says plainly which file is wrong and how to get it back; searches answer.

use crate::client::{get, post_json};
use crate::common::shipped_catalog;
use crate::server::Server;

/// A models directory holding the real runtime and `model.onnx` / `tokenizer.json` as given.
fn models(dir: &std::path::Path, model: &[u8], tokenizer: Option<&[u8]>) -> std::path::PathBuf {
    let real = toolscout::config::default_dir("models");
    let out = dir.join("models");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::copy(
        real.join("libonnxruntime.so"),
        out.join("libonnxruntime.so"),
    )
    .unwrap();
    std::fs::write(out.join("model.onnx"), model).unwrap();
    match tokenizer {
        Some(bytes) => std::fs::write(out.join("tokenizer.json"), bytes).unwrap(),
        None => {
            std::fs::copy(real.join("tokenizer.json"), out.join("tokenizer.json")).unwrap();
        }
    }
    out
}

async fn keyword_mode_says(server: &Server, expected: &[&str]) {
    let health = get(server, "/health").await;
    assert_eq!(health.status, 200);
    let semantic = &health.body["semantic_search"];
    assert_eq!(semantic["available"], false, "{}", health.body);
    let reason = semantic["reason"].as_str().unwrap_or("");
    for part in expected {
        assert!(reason.contains(part), "{part:?} not in {reason:?}");
    }
    assert_eq!(health.body["search_modes"], serde_json::json!(["keyword"]));
    let found = post_json(
        server,
        "/search",
        r#"{"query": "search code for a regex", "max_results": 3}"#,
    )
    .await;
    assert_eq!(found.status, 200, "{}", found.body);
    assert!(!found.body["results"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn a_damaged_model_or_tokenizer_starts_the_server_in_keyword_mode_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    // A model file cut short (as by an interrupted download).
    let real = std::fs::read(toolscout::config::default_dir("models").join("model.onnx")).unwrap();
    let cut = models(&dir.path().join("a"), &real[..real.len() / 3], None);
    let server = Server::start_with_model(&shipped_catalog(), &["--models", cut.to_str().unwrap()]);
    keyword_mode_says(&server, &["cannot load the model", "make models"]).await;
    drop(server);

    // A tokenizer that is not JSON.
    let bad = models(&dir.path().join("b"), &real, Some(b"{ not json"));
    let server = Server::start_with_model(&shipped_catalog(), &["--models", bad.to_str().unwrap()]);
    keyword_mode_says(&server, &["tokenizer.json", "make models"]).await;
    drop(server);

    // No model file at all.
    let missing = models(&dir.path().join("c"), b"", None);
    std::fs::remove_file(missing.join("model.onnx")).unwrap();
    let server =
        Server::start_with_model(&shipped_catalog(), &["--models", missing.to_str().unwrap()]);
    keyword_mode_says(&server, &["model.onnx", "make models"]).await;
}

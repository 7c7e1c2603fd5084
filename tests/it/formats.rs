//! Response formats (seed 004) through the real server with the real model: json | markdown x
//! concise | detailed on `POST /search` and `GET /search`, and the token saving of concise
//! responses measured with the embedding model's own tokenizer.

use crate::client::{client, post_json};
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::{json, Value};
use tokenizers::Tokenizer;

/// Agent-style needs of several kinds: local code, GitHub, packages, files, generic.
const QUERIES: [&str; 8] = [
    "find where a function is called",
    "read a file from a github repository",
    "search code for a regex in my checkout",
    "look up a python package",
    "list open pull requests",
    "show the directory tree of a project",
    "query a postgres database",
    "send a message to a slack channel",
];

fn tokenizer() -> Tokenizer {
    let path = toolscout::config::default_dir("models").join("tokenizer.json");
    let mut t =
        Tokenizer::from_file(&path).unwrap_or_else(|e| panic!("tokenizer {}: {e}", path.display()));
    // The model's file truncates at 256 tokens; a response must be counted whole.
    t.with_truncation(None).expect("truncation off");
    t
}

fn tokens(t: &Tokenizer, text: &str) -> usize {
    t.encode(text, false).expect("encode").len()
}

/// The body text and content type of one `POST /search`.
async fn search_text(server: &Server, body: Value) -> (String, String) {
    let resp = client()
        .post(server.url("/search"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200, "{body}");
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (resp.text().await.unwrap(), ct)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concise_uses_at_least_60_percent_fewer_tokens_and_markdown_is_markdown() {
    let server = Server::start_with_model(&shipped_catalog(), &[]);
    let tok = tokenizer();
    for format in ["json", "markdown"] {
        let (mut detailed, mut concise) = (0usize, 0usize);
        for q in QUERIES {
            let req = |detail: &str| json!({"query": q, "max_results": 5, "response_format": format, "detail_level": detail});
            let (d, d_type) = search_text(&server, req("detailed")).await;
            let (c, c_type) = search_text(&server, req("concise")).await;
            let expected = if format == "json" {
                "application/json"
            } else {
                "text/markdown; charset=utf-8"
            };
            assert_eq!(d_type, expected);
            assert_eq!(c_type, expected);
            if format == "markdown" {
                assert!(
                    d.contains("| # | tool |") && c.contains("| # | tool |"),
                    "tables"
                );
                assert!(d.contains("| parameter | type | required |"), "{d}");
            } else {
                let c: Value = serde_json::from_str(&c).unwrap();
                let d: Value = serde_json::from_str(&d).unwrap();
                // The same hits, in the same order, whatever the detail level.
                let ids = |v: &Value| -> Vec<String> {
                    v["results"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| r["tool_id"].as_str().unwrap().to_string())
                        .collect()
                };
                assert_eq!(ids(&c), ids(&d), "{q}");
                assert!(!ids(&c).is_empty(), "{q}");
            }
            detailed += tokens(&tok, &d);
            concise += tokens(&tok, &c);
        }
        let saving = 1.0 - concise as f64 / detailed as f64;
        eprintln!(
            "{format}: detailed {detailed} tokens, concise {concise} tokens over {} queries: {:.0}% fewer",
            QUERIES.len(),
            saving * 100.0
        );
        assert!(
            saving >= 0.60,
            "{format}: concise saves only {:.0}% ({concise} vs {detailed} tokens)",
            saving * 100.0
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn formats_through_get_and_examples_as_code_blocks() {
    let server = Server::start(&shipped_catalog(), &[]);
    let resp = client()
        .get(server.url(
            "/search?q=read%20a%20file%20from%20github&k=2&include_examples=true&response_format=markdown",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert!(
        text.starts_with("# Tools for \"read a file from github\""),
        "{text}"
    );
    assert!(
        text.contains("```json\n{"),
        "examples as JSON code blocks: {text}"
    );

    let a = crate::client::get(&server, "/search?q=git%20diff&detail_level=concise").await;
    assert_eq!(a.status, 200);
    let hit = &a.body["results"][0];
    let keys: Vec<&String> = hit.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["tool_id", "score", "confidence", "why", "summary"]);

    // A wrong value is a violation reported with the others, through either door.
    let bad = post_json(
        &server,
        "/search",
        r#"{"query": "", "response_format": "html", "detail_level": "short"}"#,
    )
    .await;
    assert_eq!(bad.status, 400);
    assert_eq!(
        bad.pointers(),
        ["/detail_level", "/query", "/response_format"]
    );
    let bad = crate::client::get(&server, "/search?q=x&response_format=html").await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.pointers(), ["/response_format"]);
}

//! `Engine::search` on the shipped catalog with the real embedding model: filters,
//! thresholds, explanations, caching, keyword fallback, request validation and the CLI door
//! (search by name is in `search_names.rs`).

use crate::common::{shipped_catalog, strip_ansi};
use serde_json::{json, Value};
use std::sync::{Arc, OnceLock};
use toolscout::catalog::Catalog;
use toolscout::config::SearchConfig;
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::engine::{
    ConfidenceLevel, Engine, SearchMode, SearchRequest, SearchResponse, Valid,
};
use toolscout::Error;

fn catalog() -> Arc<Catalog> {
    static C: OnceLock<Arc<Catalog>> = OnceLock::new();
    C.get_or_init(|| {
        Arc::new(
            Catalog::load(&shipped_catalog())
                .expect("shipped catalog loads")
                .0,
        )
    })
    .clone()
}

/// One engine with the real model, shared by every test (building it embeds the catalog).
pub fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let models = toolscout::config::default_dir("models");
        let embedder = OnnxEmbedder::load(&models).expect("models fetched by `make models`");
        Engine::build(
            catalog(),
            Ok(Arc::new(embedder) as Arc<dyn Embedder>),
            SearchConfig::default(),
        )
        .expect("engine builds")
    })
}

fn keyword_only_engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        Engine::build(
            catalog(),
            Err("no model in this test".into()),
            SearchConfig::default(),
        )
        .unwrap()
    })
}

pub(crate) fn search(body: Value) -> SearchResponse {
    let req = Valid::<SearchRequest>::parse(&body, engine().catalog()).expect("valid request");
    engine().search(&req).expect("search succeeds")
}

pub(crate) fn ids(r: &SearchResponse) -> Vec<&str> {
    r.results.iter().map(|h| h.tool_id.as_str()).collect()
}

fn violations(body: Value) -> Vec<(String, String)> {
    match Valid::<SearchRequest>::parse(&body, engine().catalog()) {
        Err(Error::Validation { violations, .. }) => violations
            .into_iter()
            .map(|v| (v.pointer, v.message))
            .collect(),
        other => panic!("expected a validation error for {body}, got {other:?}"),
    }
}

fn weak_hint(r: &SearchResponse) -> &str {
    r.metadata
        .hints
        .iter()
        .find(|h| h.starts_with("every match is weak"))
        .unwrap_or_else(|| panic!("no weak-match hint in {:?}", r.metadata.hints))
}

#[test]
fn weak_results_say_so_and_why() {
    // The catalog has no weather tool: the closest hits are shown as low confidence, and the
    // response says every match is weak and which words no tool mentions.
    let r = search(json!({ "query": "check the weather forecast" }));
    assert!(!r.results.is_empty());
    assert!(r
        .results
        .iter()
        .all(|h| h.confidence_level == ConfidenceLevel::Low));
    let hint = weak_hint(&r);
    assert!(
        hint.contains("the catalog may have no tool for this"),
        "{hint}"
    );
    assert!(
        hint.contains(r#"no tool mentions "weather", "forecast""#),
        "{hint}"
    );

    // Misspelt, and nothing shown: the hint names the corrections after `no_good_match`.
    let r = search(json!({ "query": "chek the wether" }));
    assert!(r.results.is_empty() && r.metadata.no_good_match.is_some());
    assert!(
        r.metadata.hints.iter().any(
            |h| h.starts_with("no tool matched well") && h.contains(r#""chek" may be "check""#)
        ),
        "{:?}",
        r.metadata.hints
    );

    // Nothing shown, nothing to correct: the words no tool mentions.
    let r = search(json!({ "query": "xyzzy plugh" }));
    assert!(r.results.is_empty() && r.metadata.no_good_match.is_some());
    assert!(
        r.metadata
            .hints
            .iter()
            .any(|h| h.contains(r#"no tool mentions "xyzzy", "plugh""#)),
        "{:?}",
        r.metadata.hints
    );

    // A good match carries no such hint.
    let r = search(json!({ "query": "search my local source code for a regex pattern" }));
    assert!(
        !r.metadata
            .hints
            .iter()
            .any(|h| h.starts_with("every match is weak") || h.starts_with("no tool matched")),
        "{:?}",
        r.metadata.hints
    );
}

#[test]
fn natural_language_needs_find_the_right_tools() {
    for (query, expected) in [
        (
            "search my local source code for a regex pattern",
            "local_search_code",
        ),
        ("jump to where a symbol is defined", "lsp_goto_definition"),
        ("who calls this function", "lsp_call_hierarchy"),
        ("look up a python package on pypi", "package_search"),
        ("post a message to a slack channel", "slack_post_message"),
        ("convert markdown to pdf", "pandoc_convert"),
        ("show the history of commits for a file", "git_log"),
        ("list pods in a kubernetes namespace", "kubectl_get"),
    ] {
        let r = search(json!({ "query": query, "max_results": 5 }));
        assert!(
            ids(&r).contains(&expected),
            "{query:?}: expected {expected} in top 5, got {:?}",
            ids(&r)
        );
    }
}

#[test]
fn every_hit_is_explained() {
    let r = search(
        json!({ "query": "read a file from a github repository", "include_examples": true }),
    );
    assert!(!r.results.is_empty());
    assert_eq!(r.metadata.search_mode_used, SearchMode::Hybrid);
    assert_eq!(r.metadata.total_catalog_size, catalog().len());
    assert_eq!(r.metadata.catalog_version, catalog().version());
    assert!(r.total_results >= r.results.len());
    let breakdown: usize = r.category_breakdown.values().sum();
    assert_eq!(breakdown, r.total_results);
    for (i, h) in r.results.iter().enumerate() {
        assert!((0.0..=1.0).contains(&h.similarity_score));
        assert_eq!(h.similarity_score, h.score_details.fused);
        if let Some(next) = r.results.get(i + 1) {
            assert!(h.similarity_score >= next.similarity_score);
        }
        assert!(!h.match_reasons.is_empty());
        assert!(
            h.score_details.cosine.is_some(),
            "hybrid hits carry their cosine"
        );
        assert!(h.examples.as_ref().is_some_and(|e| !e.is_empty()));
        assert!(!h.alternatives.contains(&h.tool_id));
        assert!(!h.parameters.is_empty());
    }
    assert_eq!(
        r.results[0].tool_id,
        "github_get_file_content",
        "{:?}",
        ids(&r)
    );
}

#[test]
fn filters_apply_before_the_cut() {
    // Every code-search tool comes back, even those the query barely matches.
    let r = search(json!({ "query": "find text", "category": "code_search", "max_results": 50 }));
    let in_category = catalog()
        .tools()
        .iter()
        .filter(|t| t.category == "code_search")
        .count();
    assert!(r.results.iter().all(|h| h.category == "code_search"));
    assert!(
        r.results.len() + r.metadata.below_threshold >= in_category.min(50) - 1,
        "{:?}",
        ids(&r)
    );

    let r = search(json!({ "query": "run a command", "tool_type": "system", "max_results": 50 }));
    assert!(r
        .results
        .iter()
        .all(|h| h.tool_type == toolscout::catalog::ToolType::System));

    let r = search(json!({
        "query": "search",
        "filters": { "complexity_range": { "min": 0.0, "max": 0.3 }, "performance_tier": "fast", "has_examples": true }
    }));
    for h in r.results.iter() {
        assert!(h.complexity_score <= 0.3, "{}", h.tool_id);
        assert_eq!(
            h.performance_characteristics.performance_tier,
            toolscout::catalog::PerformanceTier::Fast
        );
    }
}

#[test]
fn unrelated_queries_say_there_is_no_good_match() {
    let r = search(json!({ "query": "bake a chocolate cake with strawberries" }));
    assert!(r.results.len() <= 3, "{:?}", ids(&r));
    if r.results.is_empty() {
        let why = r
            .metadata
            .no_good_match
            .as_deref()
            .expect("an empty result says why");
        assert!(
            why.contains("below the similarity threshold") || why.contains("no tool matched"),
            "{why}"
        );
    }
    assert!(r
        .results
        .iter()
        .all(|h| h.confidence_level == ConfidenceLevel::Low));
}

#[test]
fn repeated_requests_hit_the_cache() {
    let body = json!({ "query": "grep for a pattern in many files", "max_results": 3 });
    let first = search(body.clone());
    let second = search(body);
    assert!(second.metadata.cache_hit);
    assert_eq!(ids(&first), ids(&second));
}

#[test]
fn context_shifts_the_ranking() {
    let plain = search(json!({ "query": "query a database", "max_results": 10 }));
    let with = search(
        json!({ "query": "query a database", "context": "a local sqlite file on my laptop", "max_results": 10 }),
    );
    let pos = |r: &SearchResponse| {
        ids(r)
            .iter()
            .position(|id| *id == "sqlite_query")
            .unwrap_or(99)
    };
    assert!(
        pos(&with) <= pos(&plain),
        "{:?} vs {:?}",
        ids(&with),
        ids(&plain)
    );
    assert_eq!(with.results[0].tool_id, "sqlite_query", "{:?}", ids(&with));
    assert!(with.results[0].score_details.context > 0.0);
}

#[test]
fn without_a_model_search_falls_back_to_keywords_and_says_so() {
    let e = keyword_only_engine();
    let req =
        Valid::<SearchRequest>::parse(&json!({ "query": "search code for a regex" }), e.catalog())
            .unwrap();
    let r = e.search(&req).unwrap();
    assert_eq!(r.metadata.search_mode_used, SearchMode::Keyword);
    assert!(
        r.metadata
            .hints
            .iter()
            .any(|h| h.contains("semantic search is unavailable")),
        "{:?}",
        r.metadata.hints
    );
    assert!(!r.results.is_empty());
    assert!(r.results.iter().all(|h| h.score_details.cosine.is_none()));

    let req = Valid::<SearchRequest>::parse(
        &json!({ "query": "x", "search_mode": "semantic" }),
        e.catalog(),
    )
    .unwrap();
    let err = e.search(&req).unwrap_err();
    assert_eq!(err.code(), "MODEL_UNAVAILABLE");
    assert!(err.to_string().contains("no model in this test"), "{err}");
}

#[test]
fn bad_requests_name_the_field() {
    let long = "x".repeat(501);
    for (body, pointer, needle) in [
        (json!({ "query": "" }), "/query", "at least 1 characters"),
        (json!({ "query": "   " }), "/query", "found only whitespace"),
        (json!({ "query": long }), "/query", "at most 500 characters"),
        (
            json!({ "query": "a", "max_results": 0 }),
            "/max_results",
            ">= 1",
        ),
        (
            json!({ "query": "a", "max_results": 51 }),
            "/max_results",
            "<= 50",
        ),
        (
            json!({ "query": "a", "search_mode": "fuzzy" }),
            "/search_mode",
            "one of",
        ),
        (
            json!({ "query": "a", "category": "code_serch" }),
            "/category",
            "did you mean \"code_search\"",
        ),
        (
            json!({ "query": "a", "filters": { "complexity_range": { "min": 0.8, "max": 0.2 } } }),
            "/filters/complexity_range",
            "min <= max",
        ),
        (
            json!({ "query": "a", "filters": { "fast": true } }),
            "/filters",
            "unknown property \"fast\"",
        ),
        (
            json!({ "query": 3 }),
            "/query",
            "expected string, found number 3",
        ),
        (json!({}), "", "required property \"query\""),
    ] {
        let v = violations(body.clone());
        assert!(
            v.iter().any(|(p, m)| p == pointer && m.contains(needle)),
            "{body}: expected {pointer} / {needle:?}, got {v:?}"
        );
    }
    // All violations at once.
    let v = violations(json!({ "query": "", "max_results": 99, "search_mode": "x" }));
    assert_eq!(v.len(), 3, "{v:?}");
}

/// A restart takes the catalog's passage vectors from the on-disk cache instead of the model,
/// and serves the same ranking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_serves_catalog_vectors_from_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().to_str().unwrap().to_string();
    let embedded = |lines: &[String]| -> (usize, usize) {
        let line = lines
            .iter()
            .map(|l| strip_ansi(l))
            .find(|l| l.contains("catalog passages embedded"))
            .unwrap_or_else(|| panic!("no embedding log line in {lines:?}"));
        let field = |name: &str| -> usize {
            let at = line.find(&format!("{name}=")).unwrap() + name.len() + 1;
            line[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        (field("cached"), field("embedded"))
    };
    let body = serde_json::json!({"query": "find where a function is called", "max_results": 3});
    let mut rankings = Vec::new();
    let mut counts = Vec::new();
    for _ in 0..2 {
        let server = crate::server::Server::start_with_model(
            &crate::common::shipped_catalog(),
            &["--cache-dir", &dir],
        );
        let a = crate::client::post_json(&server, "/search", body.to_string()).await;
        assert_eq!(a.status, 200);
        let ids: Vec<String> = a.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["tool_id"].as_str().unwrap().to_string())
            .collect();
        rankings.push(ids);
        let (_, lines) = server.terminate();
        counts.push(embedded(&lines));
    }
    let (first, second) = (counts[0], counts[1]);
    assert_eq!(first.0, 0, "a cold cache has nothing: {first:?}");
    assert!(first.1 > 0);
    assert_eq!(second, (first.1, 0), "the restart embeds nothing");
    assert_eq!(rankings[0], rankings[1]);
}

/// A reader that closes the pipe early (`toolscout search ... | head -1`) ends the output
/// quietly: no panic, exit 0.
#[test]
fn a_closed_pipe_ends_cli_output_quietly() {
    use std::io::Read;
    let mut child = crate::common::toolscout()
        .args(["--catalog"])
        .arg(crate::common::shipped_catalog())
        .args(["search", "read a file", "--mode", "keyword", "-k", "20"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(status.success(), "{status:?}: {stderr}");
}

/// A request with several bad fields names every one of them, with its pointer and the
/// recovery hints, through the CLI doors as through HTTP (the CLI once printed only the
/// first and "(and 1 more)").
#[test]
fn cli_requests_list_every_violation_with_hints() {
    let cases: [(&[&str], &[&str]); 2] = [
        (&["search", "", "-k", "99"], &["/max_results:", "/query:"]),
        (
            &["recommend", "", "-k", "0"],
            &["/max_recommendations:", "/task_description:"],
        ),
    ];
    for (args, pointers) in cases {
        let out = crate::common::toolscout()
            .arg("--catalog")
            .arg(crate::common::shipped_catalog())
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        for pointer in pointers {
            assert!(
                stderr.lines().any(|l| l.trim_start().starts_with(pointer)),
                "{args:?} does not list {pointer}: {stderr}"
            );
        }
        assert!(stderr.contains("  hint: "), "{args:?}: {stderr}");
    }
}

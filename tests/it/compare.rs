//! `POST /compare` and `toolscout compare` through the real binary: the comparison context
//! flips the recommendation (with the embedding model and in keyword mode), unknown tools are
//! all reported with suggestions, the 2..10 bounds, criteria subsets, the Markdown matrix,
//! the published response schema, and a snapshot of a comprehensive response.

use crate::client::{client, post_json};
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::{json, Value};

const LOCAL: &str = "local_search_code";
const GITHUB: &str = "github_search_code";
const LOCAL_CONTEXT: &str = "searching my local checkout";
const GITHUB_CONTEXT: &str = "exploring an unfamiliar GitHub project";

async fn compare(server: &Server, body: Value) -> Value {
    let a = post_json(server, "/compare", body.to_string()).await;
    assert_eq!(a.status, 200, "{body} -> {}", a.body);
    a.body
}

fn recommended(r: &Value) -> &str {
    r["comparison"]["summary"]["recommended_choice"]
        .as_str()
        .unwrap()
}

/// The same two tools for two situations: each context makes its own tool the choice, and the
/// reasoning names the context and the fit.
async fn assert_context_flips(server: &Server, mode: &str) {
    for (context, expected, other) in [
        (LOCAL_CONTEXT, LOCAL, GITHUB),
        (GITHUB_CONTEXT, GITHUB, LOCAL),
    ] {
        // Both orders of the ids: the input order must not decide.
        for ids in [[LOCAL, GITHUB], [GITHUB, LOCAL]] {
            let r = compare(
                server,
                json!({ "tool_ids": ids, "comparison_context": context }),
            )
            .await;
            assert_eq!(recommended(&r), expected, "{context} ({mode}): {r}");
            assert_eq!(r["metadata"]["context_mode"], mode);
            let tools = r["comparison"]["tools"].as_array().unwrap();
            assert_eq!(tools[0]["tool_id"], expected);
            assert_eq!(tools[0]["relative_ranking"], 1);
            let fit = |i: usize| tools[i]["context_relevance"].as_f64().unwrap();
            assert!(fit(0) > fit(1), "{context}: {} vs {}", fit(0), fit(1));
            let reasoning = r["comparison"]["summary"]["reasoning"].as_str().unwrap();
            assert!(
                reasoning.contains(context) && reasoning.contains(expected),
                "{reasoning}"
            );
            let avoid = tools[1]["avoid_when"].to_string();
            assert!(avoid.contains(expected), "{other} avoid_when: {avoid}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_flips_the_recommendation_with_the_model() {
    let server = Server::start_with_model(&shipped_catalog(), &[]);
    assert_context_flips(&server, "hybrid").await;
}

#[tokio::test]
async fn context_flips_the_recommendation_in_keyword_mode() {
    let server = Server::start(&shipped_catalog(), &[]);
    assert_context_flips(&server, "keyword").await;
    let r = compare(
        &server,
        json!({ "tool_ids": [LOCAL, GITHUB], "comparison_context": LOCAL_CONTEXT }),
    )
    .await;
    assert!(
        r["metadata"]["hints"]
            .to_string()
            .contains("keyword matching"),
        "{}",
        r["metadata"]
    );
}

#[tokio::test]
async fn unknown_tools_are_all_reported_with_suggestions_through_both_doors() {
    let server = Server::start(&shipped_catalog(), &[]);
    let ids = ["ripgrp", "localSearchCode", "lsp_goto_defintion", "qqqqqq"];
    let a = post_json(&server, "/compare", json!({ "tool_ids": ids }).to_string()).await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.code(), "VALIDATION_FAILED");
    assert_eq!(a.pointers(), ["/tool_ids/0", "/tool_ids/2", "/tool_ids/3"]);
    let violations = a.body["error"]["context"]["parameters"]["violations"]
        .as_array()
        .unwrap()
        .clone();
    let message = |i: usize| violations[i]["message"].as_str().unwrap().to_string();
    assert!(
        message(0).contains("did you mean ripgrep"),
        "{}",
        message(0)
    );
    assert!(
        message(1).contains("did you mean lsp_goto_definition"),
        "{}",
        message(1)
    );
    assert!(
        message(2).contains("unknown tool \"qqqqqq\""),
        "{}",
        message(2)
    );

    // The CLI reads the same body and says the same thing, every violation included.
    let out = crate::common::toolscout()
        .args(["--catalog", shipped_catalog().to_str().unwrap(), "compare"])
        .args(ids)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let http_message = a.body["error"]["message"].as_str().unwrap();
    assert!(
        stderr.starts_with(&format!("error: {http_message}\n")),
        "{stderr}"
    );
    for i in 0..3 {
        assert!(stderr.contains(&message(i)), "{stderr}");
    }
}

#[tokio::test]
async fn two_to_ten_tools() {
    let server = Server::start(&shipped_catalog(), &[]);
    let ten = [
        "ripgrep",
        "git_grep",
        "ast_grep",
        LOCAL,
        GITHUB,
        "gh_search_code",
        "sourcegraph_search",
        "semgrep_scan",
        "universal_ctags",
        "tree_sitter_query",
    ];
    for (ids, ok) in [(&ten[..1], false), (&ten[..2], true), (&ten[..], true)] {
        let a = post_json(&server, "/compare", json!({ "tool_ids": ids }).to_string()).await;
        if ok {
            assert_eq!(a.status, 200, "{}", a.body);
            let ranks: Vec<u64> = a.body["comparison"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["relative_ranking"].as_u64().unwrap())
                .collect();
            assert_eq!(ranks, (1..=ids.len() as u64).collect::<Vec<_>>());
        } else {
            assert_eq!(a.status, 400);
            assert_eq!(a.pointers(), ["/tool_ids"]);
        }
    }
    let mut eleven: Vec<&str> = ten.to_vec();
    eleven.push("gnu_find");
    let a = post_json(
        &server,
        "/compare",
        json!({ "tool_ids": eleven }).to_string(),
    )
    .await;
    assert_eq!(a.status, 400);
    assert_eq!(a.pointers(), ["/tool_ids"]);
    let message = a.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 10"), "{message}");
}

#[tokio::test]
async fn a_criteria_subset_is_all_that_is_scored_and_weighed() {
    let server = Server::start(&shipped_catalog(), &[]);
    let r = compare(
        &server,
        json!({
            "tool_ids": ["ripgrep", "git_grep", "ast_grep"],
            "comparison_criteria": ["reliability", "performance"],
            "comparison_context": "a fast search in CI",
            "detail_level": "comprehensive"
        }),
    )
    .await;
    let c = &r["comparison"];
    assert_eq!(c["criteria_used"], json!(["performance", "reliability"]));
    assert_eq!(
        r["metadata"]["criteria_weights"],
        json!({"performance": 2.0, "reliability": 1.0}),
        "\"fast\" weighs performance up"
    );
    let matrix = c["comparison_matrix"].as_object().unwrap();
    assert_eq!(
        matrix.keys().collect::<Vec<_>>(),
        ["performance", "reliability"]
    );
    for t in c["tools"].as_array().unwrap() {
        let scores = t["dimension_scores"].as_object().unwrap();
        assert_eq!(
            scores.keys().collect::<Vec<_>>(),
            ["performance", "reliability"]
        );
        let (p, rel) = (
            scores["performance"].as_f64().unwrap(),
            scores["reliability"].as_f64().unwrap(),
        );
        let overall = t["overall_score"].as_f64().unwrap();
        assert!((overall - (2.0 * p + rel) / 3.0).abs() < 1e-3, "{t}");
        let evidence = t["score_evidence"].as_object().unwrap();
        assert_eq!(evidence.len(), 2);
    }
}

#[tokio::test]
async fn markdown_renders_the_comparison_matrix() {
    let server = Server::start(&shipped_catalog(), &[]);
    for detail in ["basic", "standard", "comprehensive"] {
        let resp = client()
            .post(server.url("/compare"))
            .json(&json!({
                "tool_ids": [LOCAL, GITHUB, "ripgrep"],
                "response_format": "markdown",
                "detail_level": detail,
                "comparison_context": GITHUB_CONTEXT
            }))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        assert!(resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/markdown"));
        let text = resp.text().await.unwrap();
        let header = text
            .lines()
            .find(|l| l.starts_with("| criterion |"))
            .unwrap_or_else(|| panic!("no matrix table:\n{text}"));
        assert_eq!(header.matches('|').count(), 5, "{header}");
        for row in [
            "| functionality |",
            "| documentation |",
            "| **overall** |",
            "| context fit |",
            "| rank | 1 | 2 | 3 |",
        ] {
            assert!(text.contains(row), "{detail}: no row {row}:\n{text}");
        }
        assert!(text.contains(&format!("**Recommended: `{GITHUB}`.**")));
        assert_eq!(text.contains("## Trade-offs"), detail == "comprehensive");
        assert_eq!(text.contains("**Strengths**"), detail != "basic");
    }
}

#[tokio::test]
async fn a_comprehensive_comparison_fits_its_schema_and_snapshot() {
    let server = Server::start(&shipped_catalog(), &[]);
    let r = compare(
        &server,
        json!({
            "tool_ids": ["localSearchCode", GITHUB],
            "comparison_context": LOCAL_CONTEXT,
            "detail_level": "comprehensive"
        }),
    )
    .await;
    let doc = crate::client::get(&server, "/openapi.json").await.body;
    let mut schema = doc["components"]["schemas"]["ComparisonResponse"].clone();
    schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    let schema = toolscout::schema::Schema::compile(&schema).unwrap();
    assert_eq!(schema.violations(&r), vec![]);
    assert_eq!(
        r["metadata"]["resolved_names"],
        json!({"localSearchCode": LOCAL})
    );
    insta::assert_json_snapshot!("compare_comprehensive", r, {
        ".metadata.timestamp" => "[timestamp]",
        ".metadata.execution_time" => "[duration]",
        ".metadata.catalog_version" => "[version]",
        ".metadata.algorithm_version" => "[version]",
        ".metadata.hints" => "[hints]",
        ".metadata.total_catalog_size" => "[size]",
    });
}

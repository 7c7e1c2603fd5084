//! Retrieval-quality floor: `toolscout eval` on a fixed 1,000-query sample of the MetaTool
//! development set (tests/fixtures/metatool), with the real model. A regression floor, not
//! the goal: hybrid NDCG@5 must stay at or above 60 and within a point of the better of
//! keyword-only and semantic-only.

use crate::common::fixtures;
use serde_json::Value;

#[test]
fn hybrid_search_clears_the_quality_floor() {
    let dir = fixtures().join("metatool");
    let out = crate::common::toolscout()
        .args(["eval", "--mode", "all", "--json", "--tools"])
        .arg(dir.join("tools.jsonl"))
        .arg("--queries")
        .arg(dir.join("queries_sample.jsonl"))
        .env_remove("TOOLSCOUT_MODELS_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "eval failed: {stderr}");
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON report");
    let ndcg = |mode: &str| {
        reports
            .iter()
            .find(|r| r["mode"] == mode)
            .and_then(|r| r["ndcg_at_5"].as_f64())
            .unwrap_or_else(|| panic!("no {mode} report in {reports:?}"))
    };
    let (keyword, semantic, hybrid) = (ndcg("keyword"), ndcg("semantic"), ndcg("hybrid"));
    eprintln!("NDCG@5 keyword {keyword:.1}, semantic {semantic:.1}, hybrid {hybrid:.1}");
    for r in &reports {
        assert_eq!(r["queries"], 1000);
        for metric in ["recall_at_1", "recall_at_5", "ndcg_at_5", "mrr_at_10"] {
            let v = r[metric].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&v), "{metric} = {v}");
        }
    }
    assert!(hybrid >= 60.0, "hybrid NDCG@5 {hybrid:.1} < 60");
    assert!(
        hybrid >= keyword.max(semantic) - 1.0,
        "hybrid {hybrid:.1} falls more than a point below the better single mode ({keyword:.1} / {semantic:.1})"
    );
}

#[test]
fn eval_reports_malformed_input_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.jsonl");
    std::fs::write(
        &tools,
        "{\"id\": \"a\", \"name\": \"a\", \"description\": \"x\"}\n{\"id\": 3}\n",
    )
    .unwrap();
    let out = crate::common::toolscout()
        .args(["eval", "--mode", "keyword", "--tools"])
        .arg(&tools)
        .arg("--queries")
        .arg(&tools)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("tools.jsonl line 2"), "{stderr}");
}

/// Recommend must find both gold tools of two-tool queries more often than plain search.
#[test]
fn recommend_beats_search_on_two_tool_queries() {
    let dir = fixtures().join("metatool");
    let out = crate::common::toolscout()
        .args([
            "eval", "--mode", "multi", "--json", "--limit", "200", "--tools",
        ])
        .arg(dir.join("tools.jsonl"))
        .arg("--queries")
        .arg(dir.join("queries_multi.jsonl"))
        .env_remove("TOOLSCOUT_MODELS_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "eval failed: {stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let search = report["search_all_at_5"].as_f64().unwrap();
    let recommend = report["recommend_all_at_5"].as_f64().unwrap();
    eprintln!("both gold tools in 5: search {search:.1}%, recommend {recommend:.1}%");
    assert!(
        recommend > search,
        "recommend {recommend:.1}% must beat search {search:.1}% ({report})"
    );
}

//! The usage store through the MCP door: one MCP session is one session of the store, so a
//! `call_tool` of a tool that `search_tools` returned in it counts as choosing the tool;
//! `rate_tool` records feedback as `POST /feedback` does, and refuses what it refuses with
//! an error result; `describe_tool` shows what was measured; and measured failures lower a
//! tool in recommend once the service refreshes its figures, and in compare at once.

use crate::mcp::{call, connect_to, service_with};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use toolscout::mcp::Options;
use toolscout::usage::Signal;

#[tokio::test]
async fn a_session_searches_runs_and_rates_and_the_store_keeps_it() {
    let data = tempfile::tempdir().unwrap();
    let env = BTreeMap::from([(
        "TOOLSCOUT_DATA_DIR".to_string(),
        data.path().to_string_lossy().into_owned(),
    )]);
    let service = Arc::new(service_with(&env));
    let (client, _) = connect_to(service.clone(), Options::default()).await;

    let query = "search the code of my project for a regular expression";
    let found = call(&client, "search_tools", json!({"query": query})).await;
    assert_ne!(found.is_error, Some(true), "{found:?}");
    let run = call(
        &client,
        "call_tool",
        json!({"name": "localSearchCode", "queries": [{"id": "q",
            "researchGoal": "find the entry point", "reasoning": "a test",
            "pattern": "fn main", "path": "src"}]}),
    )
    .await;
    assert_ne!(run.is_error, Some(true), "{run:?}");
    let rated = call(
        &client,
        "rate_tool",
        json!({"query": query, "tool_id": "local_search_code", "signal": "helpful"}),
    )
    .await;
    assert_ne!(rated.is_error, Some(true), "{rated:?}");
    assert_eq!(
        rated.structured_content.as_ref().unwrap()["tool_id"],
        "local_search_code"
    );
    let bad = call(
        &client,
        "rate_tool",
        json!({"tool_id": "local_search_code"}),
    )
    .await;
    assert_eq!(bad.is_error, Some(true), "{bad:?}");

    assert!(service.usage().flush(Duration::from_secs(10)));
    let events = service.usage().feedback_events(10);
    let implicit: Vec<_> = events.iter().filter(|e| e.implicit).collect();
    assert_eq!(implicit.len(), 1, "{events:#?}");
    assert_eq!(implicit[0].tool_id, "local_search_code");
    assert_eq!(implicit[0].signal, Signal::Selected);
    let explicit: Vec<_> = events.iter().filter(|e| !e.implicit).collect();
    assert_eq!(explicit.len(), 1, "{events:#?}");
    assert_eq!(explicit[0].signal, Signal::Helpful);
    // Both from the same MCP session, which the run and the search shared.
    assert!(implicit[0].session_id.is_some());
    assert_eq!(implicit[0].session_id, explicit[0].session_id);
    let stats = service.usage().stats_for("local_search_code").unwrap();
    assert_eq!(stats.total_uses, 1);
    let described = call(&client, "describe_tool", json!({"name": "localSearchCode"})).await;
    let measured = &described.structured_content.as_ref().unwrap()["usage_stats"];
    assert_eq!(measured["total_uses"], 1, "{described:?}");
    client.cancel().await.unwrap();
}

/// A service with its store in `dir` that weighs measured figures from `min_calls` runs on
/// (through a config file, as a user sets it).
fn service_measuring_from(dir: &tempfile::TempDir, min_calls: u64) -> toolscout::service::Service {
    let file = dir.path().join("toolscout.toml");
    std::fs::write(&file, format!("[usage]\nmin_calls = {min_calls}\n")).unwrap();
    let env = BTreeMap::from([
        (
            "TOOLSCOUT_CONFIG".to_string(),
            file.to_string_lossy().into_owned(),
        ),
        (
            "TOOLSCOUT_DATA_DIR".to_string(),
            dir.path().join("data").to_string_lossy().into_owned(),
        ),
    ]);
    service_with(&env)
}

/// Runs `localSearchCode` on a path outside the workspace: the call runs and fails with
/// pathValidationFailed, which the store records as a failed use.
async fn run_and_fail(service: &toolscout::service::Service) {
    let outside = json!({"queries": [{"id": "q", "researchGoal": "g", "reasoning": "r",
        "pattern": "root", "path": "/etc"}]});
    let result = service
        .call_tool("localSearchCode", &outside)
        .await
        .unwrap();
    assert!(result.results[0].failure.is_some(), "{result:?}");
}

/// Failed runs measured here lower the tool's reliability in recommend once the service
/// refreshes its figures, and the reason says so (`min_calls` 1 through a config file).
#[tokio::test]
async fn measured_failures_lower_a_tool_in_recommend() {
    let dir = tempfile::tempdir().unwrap();
    let service = service_measuring_from(&dir, 1);
    assert_eq!(service.config().usage.min_calls, 1);
    for _ in 0..2 {
        run_and_fail(&service).await;
    }
    assert!(service.usage().flush(Duration::from_secs(10)));
    service.refresh_measured().await;
    let task = json!({"task_description": "search the code of my project for a regex"});
    let answer = service.recommend(&task).await.unwrap();
    let local = answer
        .response
        .recommendations
        .iter()
        .find(|r| r.tool.tool_id == "local_search_code")
        .expect("still recommended: reliability weighs 5% of the score");
    // Detailed search hits show what was measured.
    let found = service
        .search(&json!({"query": "search the code of my project for a regex"}))
        .await
        .unwrap();
    let hit = found
        .response
        .results
        .iter()
        .find(|r| r.tool_id == "local_search_code")
        .expect("found");
    let measured = hit.usage_stats.as_ref().expect("usage_stats on the hit");
    assert_eq!((measured.total_uses, measured.failed_uses), (2, 2));
    assert!(
        local
            .recommendation_reasons
            .iter()
            .any(|r| r.contains("0% of its 2 runs here")),
        "{:?}",
        local.recommendation_reasons
    );
}

/// Real runs that fail lower the tool's reliability in compare, which shows the measured
/// figure and names its source: compare reads the store itself, so no refresh is needed.
#[tokio::test]
async fn measured_failures_lower_a_tool_in_compare_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let service = service_measuring_from(&dir, 3);
    let body = json!({"tool_ids": ["local_search_code", "github_search_code"],
        "detail_level": "comprehensive"});
    let reliability = |answer: &toolscout::engine::ComparisonResponse| {
        let tool = answer
            .comparison
            .tools
            .iter()
            .find(|t| t.tool_id == "local_search_code")
            .cloned()
            .expect("compared");
        let evidence = tool.score_evidence.expect("comprehensive has evidence");
        let reliability = &evidence[&toolscout::engine::Criterion::Reliability];
        (
            tool.dimension_scores.reliability.expect("scored"),
            reliability.explanation.clone(),
        )
    };
    let (declared, why) = reliability(&service.compare(&body).await.unwrap().response);
    assert!(!why.contains("measured by toolscout"), "{why}");

    // Two runs below `min_calls` leave the declared figure; the third is measured.
    for run in 1..=3 {
        run_and_fail(&service).await;
        assert!(service.usage().flush(Duration::from_secs(10)));
        let (score, why) = reliability(&service.compare(&body).await.unwrap().response);
        if run < 3 {
            assert_eq!(score, declared, "{why}");
        } else {
            // Three runs weigh against the catalog's figure, not over it.
            assert!(score < declared - 0.1, "{declared} -> {score}: {why}");
            assert!(
                why.contains(
                    "success rate 0.00 over 3 uses measured by toolscout's own executions"
                ),
                "{why}"
            );
        }
    }
}

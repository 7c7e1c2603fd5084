//! The usage store through a real server: a search and a tool run in one session (the run
//! counts as choosing the tool), explicit feedback by request id, bad feedback refused with
//! the error envelope, and `GET /stats` and `/health` showing what was recorded. The store
//! lives in the test's own data directory (see `Server::start_env`).

use crate::client::{get, post_json, Answer};
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

async fn post_in_session(server: &Server, path: &str, session: &str, body: Value) -> Answer {
    let resp = reqwest::Client::new()
        .post(server.url(path))
        .header("content-type", "application/json")
        .header("x-session-id", session)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    Answer::from(resp).await
}

/// `/stats` once `ready` holds for it (the writer records in the background), or the last.
async fn stats_when(server: &Server, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stats = get(server, "/stats").await;
        assert_eq!(stats.status, 200, "{}", stats.body);
        if ready(&stats.body) || Instant::now() > deadline {
            return stats.body;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_search_then_a_run_in_one_session_is_recorded_with_its_feedback() {
    let server = Server::start(&shipped_catalog(), &[]);
    let search = post_in_session(
        &server,
        "/search",
        "session-1",
        json!({"query": "search the code of my project for a regular expression", "max_results": 10}),
    )
    .await;
    assert_eq!(search.status, 200, "{}", search.body);
    let request_id = search.headers["x-request-id"].to_str().unwrap().to_string();
    let ids: Vec<&str> = search.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tool_id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"local_search_code"), "{ids:?}");

    let run = post_in_session(
        &server,
        "/tools/call/localSearchCode",
        "session-1",
        json!({"queries": [{"id": "q1", "researchGoal": "find the entry point", "reasoning": "a test",
            "pattern": "fn main", "path": "src"}]}),
    )
    .await;
    assert_eq!(run.status, 200, "{}", run.body);

    let feedback = post_json(
        &server,
        "/feedback",
        json!({"request_id": request_id, "tool_id": "localSearchCode", "signal": "helpful"})
            .to_string(),
    )
    .await;
    assert_eq!(feedback.status, 200, "{}", feedback.body);
    assert_eq!(
        feedback.body["tool_id"], "local_search_code",
        "{}",
        feedback.body
    );

    let stats = stats_when(&server, |s| s["executions"] == 1 && s["feedback"] == 2).await;
    assert_eq!(stats["answers"], 1, "{stats:#}");
    assert_eq!(stats["executions"], 1, "{stats:#}");
    // The explicit feedback and the implicit selection by the run.
    assert_eq!(stats["feedback"], 2, "{stats:#}");
    assert_eq!(
        stats["top_tools"][0]["tool_id"], "local_search_code",
        "{stats:#}"
    );
    assert_eq!(stats["top_tools"][0]["total_uses"], 1, "{stats:#}");
    assert_eq!(stats["store"]["enabled"], true, "{stats:#}");

    // The entry now carries what was measured (the catalog declares nothing for it).
    let entry = get(&server, "/catalog/tools/local_search_code").await;
    let measured = &entry.body["data"]["usage_stats"];
    assert_eq!(measured["total_uses"], 1, "{}", entry.body);
    assert_eq!(measured["successful_uses"], 1, "{}", entry.body);
    assert_eq!(measured["success_rate"], 1.0, "{}", entry.body);

    let health = get(&server, "/health").await;
    assert_eq!(health.body["usage"]["enabled"], true, "{}", health.body);
    assert!(
        health.body["usage"]["written"].as_u64() >= Some(3),
        "{}",
        health.body
    );
}

#[tokio::test]
async fn bad_feedback_is_refused_with_where_and_what() {
    let server = Server::start(&shipped_catalog(), &[]);
    let cases = [
        (json!({}), 400, "VALIDATION_FAILED"),
        (
            json!({"tool_id": "local_search_code", "signal": "helpful"}),
            400,
            "VALIDATION_FAILED",
        ),
        (
            json!({"query": "q", "tool_id": "local_search_code", "signal": "great"}),
            400,
            "VALIDATION_FAILED",
        ),
        (
            json!({"query": "   ", "tool_id": "local_search_code", "signal": "helpful"}),
            400,
            "VALIDATION_FAILED",
        ),
        (
            json!({"query": "q", "tool_id": "no_such_tool_anywhere", "signal": "helpful"}),
            404,
            "TOOL_NOT_FOUND",
        ),
        (
            json!({"query": "q", "tool_id": "local_search_code", "signal": "helpful", "extra": 1}),
            400,
            "VALIDATION_FAILED",
        ),
    ];
    for (body, status, code) in cases {
        let answer = post_json(&server, "/feedback", body.to_string()).await;
        assert_eq!(answer.status, status, "{body} -> {}", answer.body);
        assert_eq!(
            answer.body["error"]["error_code"], code,
            "{body} -> {}",
            answer.body
        );
    }
    let stats = get(&server, "/stats").await;
    assert_eq!(stats.body["feedback"], 0, "{}", stats.body);
}

#[tokio::test]
async fn an_empty_data_dir_turns_the_store_off_and_says_why() {
    let server = Server::start_env(&shipped_catalog(), &[], &[("TOOLSCOUT_DATA_DIR", "")]);
    let health = get(&server, "/health").await;
    assert_eq!(health.body["usage"]["enabled"], false, "{}", health.body);
    assert!(
        health.body["usage"]["off_reason"].is_string(),
        "{}",
        health.body
    );
    let feedback = post_json(
        &server,
        "/feedback",
        json!({"query": "q", "tool_id": "local_search_code", "signal": "selected"}).to_string(),
    )
    .await;
    assert_eq!(feedback.status, 200, "{}", feedback.body);
}

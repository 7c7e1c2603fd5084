//! Load beyond the gates, on a real server with one worker and a short queue: every answer
//! is a 200 or a 503 `OVERLOADED` with `Retry-After` and the error envelope, `/health`
//! counts what was admitted and refused, local tool calls are refused the same way, and the
//! server answers normally once the burst has passed. Clients that leave while their request
//! waits leave nothing queued behind them.

use crate::client::{client, get, post_json};
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::{json, Value};
use std::time::Duration;

/// One worker, two places in the queue, a short wait: a burst of 40 must overflow.
fn tight(dir: &std::path::Path) -> String {
    let path = dir.join("toolscout.toml");
    std::fs::write(
        &path,
        "[limits]\nworkers = 1\nqueue = 2\nmax_wait_ms = 200\noverload_wait_ms = 5\n",
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

async fn burst(
    server: &Server,
    path: &str,
    bodies: Vec<Value>,
) -> Vec<(u16, Option<String>, Value)> {
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let url = server.url(path);
            tokio::spawn(async move {
                let resp = client().post(url).json(&body).send().await.unwrap();
                let status = resp.status().as_u16();
                let retry = resp
                    .headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap().to_string());
                (status, retry, resp.json::<Value>().await.unwrap())
            })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn searches_beyond_the_gate_are_refused_with_503_and_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", &tight(dir.path())]);
    let bodies = (0..40)
        .map(|i| json!({"query": format!("search code for pattern {i}"), "max_results": 50, "detail_level": "detailed"}))
        .collect();
    let answers = burst(&server, "/search", bodies).await;
    let ok = answers.iter().filter(|a| a.0 == 200).count();
    let refused: Vec<_> = answers.iter().filter(|a| a.0 == 503).collect();
    assert_eq!(
        ok + refused.len(),
        40,
        "only 200 and 503: {:?}",
        answers.iter().map(|a| a.0).collect::<Vec<_>>()
    );
    assert!(
        ok >= 1 && !refused.is_empty(),
        "{ok} answered, {} refused",
        refused.len()
    );
    for (_, retry, body) in &refused {
        assert_eq!(retry.as_deref(), Some("1"));
        assert_eq!(body["success"], false);
        let error = &body["error"];
        assert_eq!(error["error_code"], "OVERLOADED", "{body}");
        assert_eq!(error["error_type"], "service_unavailable");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("all 1 search workers are busy"),
            "{message}"
        );
        assert_eq!(error["context"]["parameters"]["retry_after_seconds"], 1);
    }
    let health = get(&server, "/health").await;
    let gate = &health.body["gates"]["search"];
    assert_eq!(gate["workers"], 1, "{}", health.body);
    assert_eq!(gate["queue"], 2);
    assert_eq!(gate["refused"], refused.len() as u64);
    assert_eq!(gate["admitted"], ok as u64);
    // The burst is over: the next request is served.
    assert_served(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn local_tool_queries_beyond_the_gate_are_refused_as_overloaded() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", &tight(dir.path())]);
    let query = |i: usize| {
        json!({"queries": [{"id": format!("q{i}"), "researchGoal": "load", "reasoning": "load",
            "pattern": format!("fn [a-z_]+{i}"), "path": "src"}]})
    };
    let answers = burst(
        &server,
        "/tools/call/localSearchCode",
        (0..30).map(query).collect(),
    )
    .await;
    let mut overloaded = 0;
    for (status, retry, body) in &answers {
        let results = body["results"]
            .as_array()
            .or(body["data"]["results"].as_array());
        let data = &results.unwrap_or_else(|| panic!("{body}"))[0]["data"];
        if data["errorCode"] == "overloaded" {
            overloaded += 1;
            assert_eq!(*status, 503, "{body}");
            assert_eq!(retry.as_deref(), Some("1"));
            assert_eq!(data["retryAfter"], 1);
            assert!(data["error"]
                .as_str()
                .unwrap()
                .contains("local-tool workers are busy"));
        } else {
            assert_eq!(*status, 200, "{body}");
        }
    }
    assert!(
        overloaded >= 1,
        "30 queries at once on one worker, none refused"
    );
    let health = get(&server, "/health").await;
    assert_eq!(health.body["gates"]["tools"]["refused"], overloaded as u64);
    // Refusals are the server protecting itself, not the tool failing: the circuit stays shut.
    assert_eq!(
        health.body["circuits"]["local"]["state"], "closed",
        "{}",
        health.body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn clients_that_leave_while_queued_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolscout.toml");
    std::fs::write(
        &path,
        "[limits]\nworkers = 1\nqueue = 64\nmax_wait_ms = 20000\n",
    )
    .unwrap();
    let server = Server::start(&shipped_catalog(), &["--config", path.to_str().unwrap()]);
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(2))
        .build()
        .unwrap();
    let tasks: Vec<_> = (0..32)
        .map(|i| {
            let (c, url) = (impatient.clone(), server.url("/search"));
            tokio::spawn(async move {
                let body = json!({"query": format!("find files named {i}"), "max_results": 50});
                c.post(url).json(&body).send().await.is_ok()
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    // Whatever had started finishes; nothing stays queued for clients that are gone.
    let mut gate = Value::Null;
    for _ in 0..200 {
        gate = get(&server, "/health").await.body["gates"]["search"].clone();
        if gate["waiting"] == 0 && gate["busy"] == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(
        (gate["waiting"].as_u64(), gate["busy"].as_u64()),
        (Some(0), Some(0)),
        "{gate}"
    );
    assert!(gate["admitted"].as_u64().unwrap() <= 32);
    assert_served(&server).await;
}

/// The server answers a search normally: the load has passed.
async fn assert_served(server: &Server) {
    let body = json!({"query": "read a file"}).to_string();
    let after = post_json(server, "/search", body).await;
    assert_eq!(after.status, 200, "{}", after.body);
}

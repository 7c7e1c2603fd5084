//! Ranking that learns from use (issue 19): feedback given to a real server, with the real
//! model, lifts the tool for a similar request in other words, explained in its score
//! details and match reasons; and `eval --feedback` on the MetaTool sample, where replaying
//! half of each tool's queries as feedback must gain at least 5 points of NDCG@5 on the
//! other half, and lose at most a point when a fifth of the feedback is wrong.

use crate::client::post_json;
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const ASKED: &str = "list the files and folders of a directory as a tree";
const PARAPHRASE: &str = "show me the folder tree of a directory with its files";

async fn search(server: &Server, query: &str) -> Vec<Value> {
    let body = json!({"query": query, "max_results": 10}).to_string();
    let answer = post_json(server, "/search", body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body["results"].as_array().unwrap().clone()
}

fn rank_of(hits: &[Value], id: &str) -> Option<usize> {
    hits.iter().position(|h| h["tool_id"] == id)
}

#[tokio::test]
async fn feedback_lifts_the_tool_for_similar_requests_and_says_why() {
    let server = Server::start_with_model(&shipped_catalog(), &[]);
    let before = search(&server, PARAPHRASE).await;
    let top = before[0]["similarity_score"].as_f64().unwrap();
    // The lowest hit within reach of the top, so that the lift can show.
    let (old_rank, target) = before
        .iter()
        .enumerate()
        .rev()
        .find(|(i, h)| *i > 0 && h["similarity_score"].as_f64().unwrap() > top - 0.1)
        .map(|(i, h)| (i, h["tool_id"].as_str().unwrap().to_string()))
        .unwrap_or((1, before[1]["tool_id"].as_str().unwrap().to_string()));
    for _ in 0..3 {
        let body = json!({"query": ASKED, "tool_id": target, "signal": "selected"});
        let receipt = post_json(&server, "/feedback", body.to_string()).await;
        assert_eq!(receipt.status, 200, "{}", receipt.body);
    }
    // The server learns in the background, at once after feedback.
    let deadline = Instant::now() + Duration::from_secs(20);
    let after = loop {
        let hits = search(&server, PARAPHRASE).await;
        let learned =
            rank_of(&hits, &target).is_some_and(|r| !hits[r]["score_details"]["learned"].is_null());
        if learned || Instant::now() > deadline {
            break hits;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let new_rank = rank_of(&after, &target).expect("still found");
    assert!(
        new_rank < old_rank,
        "{target} from {old_rank} to {new_rank}"
    );
    let hit = &after[new_rank];
    let learned = &hit["score_details"]["learned"];
    assert_eq!(learned["chosen_by"], 1, "{hit}");
    assert!(learned["prior"].as_f64().unwrap() > 0.0, "{hit}");
    let reasons: Vec<&str> = hit["match_reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        reasons.contains(&"chosen by 1 similar request"),
        "{reasons:?}"
    );
    // An unrelated request is not moved.
    let unrelated = search(&server, "convert a currency amount to euros").await;
    assert!(unrelated
        .iter()
        .all(|h| h["score_details"]["learned"].is_null()));
}

#[test]
fn learning_from_feedback_gains_five_points_on_the_metatool_sample() {
    let report = crate::eval::metatool_eval(&["--feedback", "--json"], "queries_sample.jsonl");
    let ndcg = |run: &str| report[run]["ndcg_at_5"].as_f64().unwrap();
    let (before, after, noisy) = (ndcg("before"), ndcg("after"), ndcg("noisy"));
    eprintln!(
        "NDCG@5 on the test half: baseline {:.1}, before {before:.1}, after {after:.1}, noisy {noisy:.1}",
        ndcg("baseline")
    );
    assert!(
        report["feedback_queries"].as_u64().unwrap() >= 450,
        "{report}"
    );
    assert!(report["test_queries"].as_u64().unwrap() >= 450, "{report}");
    assert!(
        after >= before + 5.0,
        "learning gained {:.1} < 5 NDCG@5",
        after - before
    );
    assert!(
        noisy >= before - 1.0,
        "noisy feedback lost {:.1} NDCG@5",
        before - noisy
    );
    assert_eq!(report["noise"], 0.2);
}

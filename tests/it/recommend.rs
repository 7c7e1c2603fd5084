//! Recommend through the real server and the real model: multi-step tasks get a tool per step
//! in a sensible order, preferences have visible effect, bad requests name their fields.

use crate::client::{client, post_json, Answer};
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::{json, Value};

async fn recommend(server: &Server, body: Value) -> Answer {
    post_json(server, "/recommend", body.to_string()).await
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["tool"]["tool_id"]
                .as_str()
                .or_else(|| r["tool_id"].as_str())
                .unwrap()
                .to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recommend_behaviour_with_the_real_model() {
    let server = Server::start_with_model(&shipped_catalog(), &[]);

    // The JWT task: three steps, a local search first, then reading and LSP navigation.
    let a = recommend(
        &server,
        json!({"task_description": "find where JWTs are validated in my repo, then read that function and list its callers", "explain_reasoning": true}),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let analysis = &a.body["task_analysis"];
    assert_eq!(analysis["steps"].as_array().unwrap().len(), 3, "{analysis}");
    assert!(analysis["inferred_context"]
        .as_str()
        .unwrap()
        .contains("local"));
    let flow = ids(&a.body["workflow"]);
    assert_eq!(flow.len(), 3, "a tool per step: {flow:?}");
    let search_at = flow
        .iter()
        .position(|t| t == "local_search_code")
        .unwrap_or_else(|| panic!("a local search tool in {flow:?}"));
    let later = flow
        .iter()
        .position(|t| t.starts_with("lsp_") || t == "local_get_file_content")
        .unwrap_or_else(|| panic!("a content or LSP tool in {flow:?}"));
    assert!(search_at < later, "search before content/LSP: {flow:?}");
    // The LSP step takes the search hit's position.
    let lsp = a.body["workflow"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["tool_id"].as_str().unwrap().starts_with("lsp_"))
        .expect("an LSP step");
    let inputs = lsp["inputs_from"].to_string();
    assert!(inputs.contains("local_search_code"), "{lsp}");
    assert!(a.body["explanations"].as_array().unwrap().len() >= 3);
    for r in a.body["recommendations"].as_array().unwrap() {
        assert!(!r["recommendation_reasons"].as_array().unwrap().is_empty());
        let s = r["recommendation_score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&s));
    }

    // Avoiding a category removes it.
    let task = "search the code of my project for a regular expression";
    let plain = recommend(&server, json!({"task_description": task})).await;
    assert!(plain.body["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["tool"]["category"] == "code_search"));
    let avoided = recommend(
        &server,
        json!({"task_description": task, "user_preferences": {"avoid_categories": ["code_search"]}}),
    )
    .await;
    assert_eq!(avoided.status, 200);
    let recs = avoided.body["recommendations"].as_array().unwrap();
    assert!(!recs.is_empty());
    assert!(
        recs.iter().all(|r| r["tool"]["category"] != "code_search"),
        "{recs:?}"
    );

    // simple ranks simpler tools higher than powerful does: the rank-weighted mean
    // complexity of the list (weight 1/rank) is lower.
    let weighted_complexity = |v: &Value| {
        let recs = v["recommendations"].as_array().unwrap();
        let (mut sum, mut weights) = (0.0, 0.0);
        for (i, r) in recs.iter().enumerate() {
            let w = 1.0 / (i + 1) as f64;
            sum += w * r["tool"]["complexity_score"].as_f64().unwrap();
            weights += w;
        }
        sum / weights
    };
    let by = |pref: &str| json!({"task_description": task, "complexity_preference": pref, "max_recommendations": 8});
    let simple = recommend(&server, by("simple")).await;
    let powerful = recommend(&server, by("powerful")).await;
    let (s, p) = (
        weighted_complexity(&simple.body),
        weighted_complexity(&powerful.body),
    );
    assert!(
        s < p,
        "simple {s:.3} should rank simpler tools higher than powerful {p:.3}"
    );

    // Concise markdown: the workflow and one table.
    let resp = client()
        .post(server.url("/recommend"))
        .json(&json!({"task_description": "list open pull requests of a GitHub repo and read one diff", "response_format": "markdown", "detail_level": "concise"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert!(
        text.contains("## Workflow") && text.contains("| # | tool | score |"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_recommend_requests_name_every_field() {
    let server = Server::start(&shipped_catalog(), &[]);
    let a = recommend(
        &server,
        json!({"task_description": "  ", "max_recommendations": 11,
               "user_preferences": {"avoid_categories": ["code_serch"], "performance_priority": 2}}),
    )
    .await;
    assert_eq!(a.status, 400, "{}", a.body);
    // Schema violations come first, all at once.
    assert_eq!(
        a.pointers(),
        [
            "/max_recommendations",
            "/user_preferences/performance_priority"
        ]
    );
    let a = recommend(
        &server,
        json!({"task_description": "  ", "user_preferences": {"avoid_categories": ["code_serch"], "preferred_categories": ["web"]}}),
    )
    .await;
    assert_eq!(a.status, 400);
    assert_eq!(
        a.pointers(),
        ["/task_description", "/user_preferences/avoid_categories/0"]
    );
    assert!(
        a.body
            .to_string()
            .contains("did you mean \\\"code_search\\\""),
        "{}",
        a.body
    );
    // Keyword mode still recommends, and says so; the body fits its OpenAPI schema.
    let task = "list the open pull requests of a GitHub repository, then read the diff of one";
    let a = recommend(
        &server,
        json!({"task_description": task, "explain_reasoning": true}),
    )
    .await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body["metadata"]["search_mode_used"], "keyword");
    assert!(!a.body["metadata"]["hints"].as_array().unwrap().is_empty());
    let doc = crate::client::get(&server, "/openapi.json").await.body;
    let mut schema = doc["components"]["schemas"]["RecommendationResponse"].clone();
    schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    let schema = toolscout::schema::Schema::compile(&schema).unwrap();
    assert_eq!(schema.violations(&a.body), vec![]);
    let concise = recommend(
        &server,
        json!({"task_description": task, "detail_level": "concise"}),
    )
    .await;
    insta::assert_json_snapshot!("recommend_concise_keyword", concise.body);
}

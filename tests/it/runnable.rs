//! Runnable tools: the `runnable_only` filter through every door (POST and GET /search,
//! POST /recommend, the CLI), its validation and hint, and runnable tools ranked above their
//! metadata-only twins with the real model.

use crate::client::{get, post_json, Answer};
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use toolscout::catalog::Catalog;

/// The ids of the shipped catalog's tools that toolscout runs.
fn executable() -> BTreeSet<String> {
    let (catalog, _) = Catalog::load(&shipped_catalog()).expect("shipped catalog loads");
    catalog.executable().map(|t| t.tool_id.clone()).collect()
}

fn result_ids(body: &Value) -> Vec<String> {
    body["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {body}"))
        .iter()
        .map(|r| r["tool_id"].as_str().unwrap().to_string())
        .collect()
}

/// Every hit of a search body is a tool toolscout runs, says so and has its call route, and
/// so are its alternatives.
fn assert_all_runnable(body: &Value, runnable: &BTreeSet<String>) {
    let hits = body["results"].as_array().unwrap();
    assert!(!hits.is_empty(), "{body}");
    for h in hits {
        let id = h["tool_id"].as_str().unwrap();
        assert!(runnable.contains(id), "{id} is not runnable");
        assert_eq!(h["performance_characteristics"]["executable"], true, "{h}");
        assert!(h["call"].is_string(), "{h}");
        for alt in h["alternatives"].as_array().unwrap() {
            assert!(
                runnable.contains(alt.as_str().unwrap()),
                "alternative {alt} of {id}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runnable_only_through_post_and_get_search() {
    let server = Server::start(&shipped_catalog(), &[]);
    let runnable = executable();
    let query = "search for a pattern in source code";

    let plain = post_json(
        &server,
        "/search",
        json!({ "query": query, "max_results": 50 }).to_string(),
    )
    .await;
    assert_eq!(plain.status, 200, "{}", plain.body);
    assert!(
        result_ids(&plain.body)
            .iter()
            .any(|id| !runnable.contains(id)),
        "without the filter metadata-only tools match too: {:?}",
        result_ids(&plain.body)
    );

    let body = json!({ "query": query, "max_results": 50, "runnable_only": true });
    let post = post_json(&server, "/search", body.to_string()).await;
    assert_eq!(post.status, 200, "{}", post.body);
    assert_all_runnable(&post.body, &runnable);
    assert!(result_ids(&post.body).contains(&"local_search_code".to_string()));

    let path = "/search?q=search+for+a+pattern+in+source+code&k=50&runnable_only=true";
    let get_answer = get(&server, path).await;
    assert_eq!(get_answer.status, 200, "{}", get_answer.body);
    assert_all_runnable(&get_answer.body, &runnable);
    assert_eq!(result_ids(&get_answer.body), result_ids(&post.body));

    // false is the default: the same answer as without it.
    let off = get(
        &server,
        "/search?q=search+for+a+pattern+in+source+code&k=50&runnable_only=false",
    )
    .await;
    assert_eq!(result_ids(&off.body), result_ids(&plain.body));

    // Concise answers keep their call routes.
    let concise = post_json(
        &server,
        "/search",
        json!({ "query": query, "runnable_only": true, "detail_level": "concise" }).to_string(),
    )
    .await;
    for h in concise.body["results"].as_array().unwrap() {
        assert!(h["call"].is_string(), "{h}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runnable_only_of_the_wrong_type_is_a_400_naming_it() {
    let server = Server::start(&shipped_catalog(), &[]);
    let check = |a: Answer, door: &str| {
        assert_eq!(a.status, 400, "{door}: {}", a.body);
        assert_eq!(a.code(), "VALIDATION_FAILED", "{door}");
        assert_eq!(a.pointers(), ["/runnable_only"], "{door}: {}", a.body);
        assert!(
            a.body.to_string().contains("expected boolean"),
            "{door}: {}",
            a.body
        );
    };
    let a = post_json(
        &server,
        "/search",
        json!({ "query": "read a file", "runnable_only": "true" }).to_string(),
    )
    .await;
    check(a, "POST /search");
    let a = get(&server, "/search?q=read+a+file&runnable_only=yes").await;
    check(a, "GET /search");
    let a = post_json(
        &server,
        "/recommend",
        json!({ "task_description": "read a file", "runnable_only": 1 }).to_string(),
    )
    .await;
    check(a, "POST /recommend");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn few_runnable_matches_say_the_filter_is_why() {
    let server = Server::start(&shipped_catalog(), &[]);
    let body = json!({ "query": "post a message to a slack channel", "runnable_only": true });
    let a = post_json(&server, "/search", body.to_string()).await;
    assert_eq!(a.status, 200, "{}", a.body);
    let hints: Vec<&str> = a.body["metadata"]["hints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    let catalog_size = a.body["metadata"]["total_catalog_size"].as_u64().unwrap();
    let expected = format!(
        "filters leave 13 of {catalog_size} tools; runnable_only keeps only the 13 tools toolscout runs"
    );
    assert!(hints.iter().any(|h| h.starts_with(&expected)), "{hints:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recommend_honours_runnable_only() {
    let server = Server::start_with_model(&shipped_catalog(), &[]);
    let runnable = executable();
    // Without the filter this task brings in git and GitHub CLI tools toolscout does not run.
    let task = "list the open pull requests of a GitHub repository, then show the commit history of a file";
    let plain = post_json(
        &server,
        "/recommend",
        json!({ "task_description": task }).to_string(),
    )
    .await;
    assert_eq!(plain.status, 200, "{}", plain.body);
    let tools = |body: &Value| -> Vec<String> {
        body["recommendations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["tool"]["tool_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        tools(&plain.body).iter().any(|id| !runnable.contains(id)),
        "{:?}",
        tools(&plain.body)
    );

    let body =
        json!({ "task_description": task, "runnable_only": true, "explain_reasoning": true });
    let a = post_json(&server, "/recommend", body.to_string()).await;
    assert_eq!(a.status, 200, "{}", a.body);
    let recs = a.body["recommendations"].as_array().unwrap();
    assert!(!recs.is_empty(), "{}", a.body);
    for r in recs {
        let id = r["tool"]["tool_id"].as_str().unwrap();
        assert!(runnable.contains(id), "{id} is not runnable");
        for alt in r["alternative_tools"].as_array().unwrap() {
            assert!(
                runnable.contains(alt.as_str().unwrap()),
                "alternative {alt} of {id}"
            );
        }
    }
    for step in a.body["workflow"].as_array().unwrap() {
        assert!(
            runnable.contains(step["tool_id"].as_str().unwrap()),
            "{step}"
        );
    }
}

/// With equal evidence a runnable tool ranks above its metadata-only twin: every lift names a
/// twin ranked directly below at the same score, and these queries, where a runnable tool and
/// its command-line twin describe one job, show at least one.
#[test]
fn runnable_tools_rank_above_their_metadata_only_twins() {
    let runnable = executable();
    let mut lifts = Vec::new();
    for query in [
        "search file contents for a regular expression",
        "find files by name pattern",
        "show the directory tree of a folder",
        "read the contents of a file",
        "find all references to a symbol",
        "look up a package on the npm registry",
        "search code across GitHub repositories",
        "jump to the definition of a symbol",
    ] {
        let r = crate::search::search(json!({ "query": query, "max_results": 10 }));
        let hits = &r.results;
        for (i, h) in hits.iter().enumerate() {
            let Some(twin) = &h.score_details.runnable_over else {
                continue;
            };
            assert!(
                runnable.contains(&h.tool_id),
                "{query}: {} lifted",
                h.tool_id
            );
            assert!(!runnable.contains(twin), "{query}: {twin} is runnable");
            let twin_at = hits.iter().position(|o| &o.tool_id == twin);
            if let Some(j) = twin_at {
                assert!(j > i, "{query}: {twin} above {}", h.tool_id);
                assert_eq!(hits[j].similarity_score, h.similarity_score, "{query}");
            }
            let reason = format!(
                "runnable here: ranked above its metadata-only twin {twin}, whose evidence is within 0.03"
            );
            assert!(
                h.match_reasons.contains(&reason),
                "{query}: {:?}",
                h.match_reasons
            );
            assert_eq!(h.similarity_score, h.score_details.fused);
            lifts.push((query, h.tool_id.clone(), twin.clone()));
        }
        for w in hits.windows(2) {
            assert!(w[0].similarity_score >= w[1].similarity_score, "{query}");
        }
    }
    assert!(!lifts.is_empty(), "no query lifted a runnable tool");
}

#[test]
fn the_cli_flag_keeps_only_runnable_tools() {
    let runnable = executable();
    let run = |args: &[&str]| -> Value {
        let out = crate::common::toolscout()
            .arg("--catalog")
            .arg(shipped_catalog())
            .args(args)
            .args(["--models", "/nonexistent-models-dir", "--format", "json"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    };
    let body = run(&[
        "search",
        "search code for a regex",
        "--mode",
        "keyword",
        "-k",
        "20",
        "--runnable-only",
    ]);
    assert_all_runnable(&body, &runnable);
    let body = run(&[
        "recommend",
        "find files named config then read one",
        "--runnable-only",
    ]);
    let recs = body["recommendations"].as_array().unwrap();
    assert!(!recs.is_empty(), "{body}");
    for r in recs {
        let id = r["tool"]["tool_id"].as_str().unwrap();
        assert!(runnable.contains(id), "{id} is not runnable");
    }
}

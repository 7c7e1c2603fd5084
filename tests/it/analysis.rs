//! Request analysis in search, with the real model on the shipped catalog: entities the
//! request carries fit the tools whose parameters take them (explained in the score details
//! and the match reasons), and a tool's name used as something else (a repository, a
//! negated phrase) is no evidence for that tool.

use crate::search::{ids, search};
use serde_json::json;

#[test]
fn owner_repo_and_a_path_fit_the_tool_that_takes_them() {
    let r = search(json!({"query": "read README.md in tokio-rs/axum", "max_results": 5}));
    let hit = r
        .results
        .iter()
        .find(|h| h.tool_id == "github_get_file_content")
        .unwrap_or_else(|| panic!("github_get_file_content in the first 5: {:?}", ids(&r)));
    assert!(
        hit.score_details.affordance > 0.9,
        "{:?}",
        hit.score_details
    );
    assert!(
        hit.match_reasons
            .iter()
            .any(|m| m == "mentions owner/repo, and this tool takes owner and repo"),
        "{:?}",
        hit.match_reasons
    );
    assert_eq!(ids(&r)[0], "github_get_file_content", "{:?}", ids(&r));
}

#[test]
fn a_repository_named_like_a_tool_does_not_ask_for_it() {
    let r = search(json!({"query": "list the open issues in rust-lang/cargo", "max_results": 3}));
    assert!(!ids(&r).contains(&"cargo_search"), "{:?}", ids(&r));
    assert!(ids(&r).contains(&"gh_issue_list"), "{:?}", ids(&r));
}

#[test]
fn a_plain_request_gets_no_affordance() {
    let r = search(json!({"query": "convert a word document to markdown", "max_results": 3}));
    for hit in r.results.iter() {
        assert_eq!(hit.score_details.affordance, 0.0, "{}", hit.tool_id);
    }
}

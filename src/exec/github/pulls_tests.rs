//! Tests of githubSearchPullRequests against the fake GitHub.

use super::*;
use crate::exec::github::fake::{
    assert_fits_return_schema, issue_pr_item, pull_body, search_body, Fake,
};
use crate::exec::outcome::{Failure, Status, ToolErrorCode};
use crate::exec::Tool;

const TOOL: Tool = Tool::GithubSearchPullRequests;

async fn call(fake: &Fake, fields: Value) -> Result<Outcome, QueryError> {
    fake.call(TOOL, Some("tok"), fields).await
}

#[tokio::test]
async fn every_qualifier_reaches_the_search_string() {
    let fake = Fake::start().await;
    fake.on(
        "/search/issues",
        search_body(
            1,
            vec![issue_pr_item(
                "denoland/deno",
                42,
                "Prompt rework",
                Some("why"),
                true,
            )],
        ),
    );
    let out = call(
        &fake,
        json!({
            "query": "permission prompt", "owner": "denoland", "repo": "deno", "state": "closed",
            "author": "dependabot[bot]", "assignee": "a", "commenter": "c", "involves": "i", "mentions": "m",
            "review-requested": "rr", "reviewed-by": "rb", "label": ["bug", "good first issue"],
            "no-label": false, "no-milestone": true, "no-project": true, "no-assignee": true,
            "head": "feature/x", "base": "main", "created": ">2024-01-01", "updated": "2024-01-01..2024-06-30",
            "closed": "<2025-01-01", "merged-at": ">=2024-02-01", "comments": 5, "reactions": ">=10", "interactions": "10..100",
            "merged": true, "draft": false, "match": ["title", "body"], "sort": "updated", "order": "asc", "limit": 1, "page": 2
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        fake.q("/search/issues"),
        "permission prompt is:pr repo:denoland/deno is:closed author:dependabot[bot] assignee:a commenter:c involves:i mentions:m \
         review-requested:rr reviewed-by:rb head:feature/x base:main label:bug label:\"good first issue\" no:milestone no:project no:assignee \
         created:>2024-01-01 updated:2024-01-01..2024-06-30 closed:<2025-01-01 merged:>=2024-02-01 is:merged draft:false \
         comments:5 reactions:>=10 interactions:10..100 in:title,body"
    );
    let req = fake.last("/search/issues").unwrap();
    assert_eq!(
        (
            req.param("sort").as_deref(),
            req.param("order").as_deref(),
            req.param("per_page").as_deref(),
            req.param("page").as_deref()
        ),
        (Some("updated"), Some("asc"), Some("1"), Some("2"))
    );
    assert_eq!(out.status, Status::HasResults);
    let pr = &out.data["pull_requests"][0];
    assert_eq!(
        (
            pr["number"].as_u64(),
            pr["merged"].as_bool(),
            pr["author"].as_str()
        ),
        (Some(42), Some(true), Some("octocat"))
    );
    assert_eq!(
        (pr["labels"].clone(), pr["repository"].as_str()),
        (json!(["bug"]), Some("denoland/deno"))
    );
    assert_eq!(out.data["total_count"], 1);
    assert_fits_return_schema(TOOL, &out.data);
}

#[tokio::test]
async fn bodies_are_shortened_by_batch_size() {
    let fake = Fake::start().await;
    let long = "b".repeat(3000);
    let items: Vec<Value> = (1..=4)
        .map(|n| issue_pr_item("o/r", n, "t", Some(&long), false))
        .collect();
    fake.on("/search/issues", search_body(4, items));
    let out = call(&fake, json!({"owner": "o", "repo": "r", "limit": 4}))
        .await
        .unwrap();
    let body = out.data["pull_requests"][0]["body"].as_str().unwrap();
    assert!(
        body.starts_with(&"b".repeat(800)) && body.contains("[2200 more characters]"),
        "{}",
        &body[790..]
    );
    assert!(out.data["hints"].to_string().contains("shortened to 800"));

    fake.on(
        "/search/issues",
        search_body(
            2,
            vec![
                issue_pr_item("o/r", 1, "t", Some(&long), false),
                issue_pr_item("o/r", 2, "t", None, false),
            ],
        ),
    );
    let out = call(&fake, json!({"owner": "o", "repo": "r"}))
        .await
        .unwrap();
    assert!(out.data["pull_requests"][0]["body"]
        .as_str()
        .unwrap()
        .contains("[1000 more characters]"));
    assert_eq!(out.data["pull_requests"][1]["body"], Value::Null);
    assert_fits_return_schema(TOOL, &out.data);
}

#[tokio::test]
async fn pr_number_fetches_one_with_its_parts_and_names_ignored_filters() {
    let fake = Fake::start().await;
    let long = "x".repeat(5000);
    fake.on(
        "/repos/acme/billing/pulls/482",
        pull_body("acme/billing", 482, "Fix rounding", &long),
    );
    fake.on("/repos/acme/billing/pulls/482/files", json!([
        {"filename": "src/money.rs", "status": "modified", "additions": 1, "deletions": 1, "patch": "@@ -1,2 +1,2 @@\n-let a = 1;\n+let a = 2;\n ctx"},
        {"filename": "src/other.rs", "status": "added", "additions": 1, "deletions": 0, "patch": "@@ -0,0 +1 @@\n+new"}
    ]));
    fake.on(
        "/repos/acme/billing/issues/482/comments",
        json!([{"user": {"login": "rev"}, "body": "LGTM", "created_at": "2024-01-02T00:00:00Z"}]),
    );
    fake.on("/repos/acme/billing/pulls/482/comments", json!([{"user": {"login": "rev2"}, "body": "nit", "path": "src/money.rs", "line": 1, "created_at": "2024-01-01T00:00:00Z"}]));
    fake.on("/repos/acme/billing/pulls/482/commits", json!([{"sha": "abc", "commit": {"message": "fix", "author": {"name": "A", "date": "2024-01-01T00:00:00Z"}}, "author": {"login": "alice"}}]));
    let out = call(
        &fake,
        json!({"owner": "acme", "repo": "billing", "prNumber": 482, "state": "open", "author": "x", "type": "fullContent", "withComments": true, "withCommits": true}),
    )
    .await
    .unwrap();
    assert!(fake.last("/search/issues").is_none());
    let pr = &out.data["pull_requests"][0];
    assert_eq!(
        pr["body"].as_str().unwrap().len(),
        5000,
        "one pull request keeps its whole body"
    );
    assert_eq!(
        (
            pr["head_ref"].as_str(),
            pr["base_ref"].as_str(),
            pr["changed_files"].as_u64()
        ),
        (Some("feature"), Some("main"), Some(2))
    );
    assert_eq!(pr["file_changes"].as_array().unwrap().len(), 2);
    assert_eq!(
        pr["comment_details"][0]["author"], "rev2",
        "comments come in time order"
    );
    assert_eq!(pr["comment_details"][1]["kind"], "comment");
    assert_eq!(pr["commit_details"][0]["author"], "alice");
    assert!(
        out.data["hints"]
            .to_string()
            .contains("ignored: state, author"),
        "{}",
        out.data["hints"]
    );
    assert_eq!(
        fake.last("/repos/acme/billing/pulls/482/files")
            .unwrap()
            .param("per_page")
            .as_deref(),
        Some("100")
    );
    assert_fits_return_schema(TOOL, &out.data);

    let out = call(
        &fake,
        json!({"owner": "acme", "repo": "billing", "prNumber": 482, "type": "partialContent", "partialContentMetadata": [{"file": "src/money.rs", "additions": [1]}]}),
    )
    .await
    .unwrap();
    let changes = out.data["pull_requests"][0]["file_changes"]
        .as_array()
        .unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0]["patch"], "@@ -1,2 +1,2 @@\n+1: let a = 2;");
    assert_fits_return_schema(TOOL, &out.data);
}

#[tokio::test]
async fn huge_diffs_are_windowed_by_parts() {
    let fake = Fake::start().await;
    fake.on("/repos/o/r/pulls/1", pull_body("o/r", 1, "Big", "body"));
    let files: Vec<Value> = (0..20)
        .map(|i| json!({"filename": format!("f{i}.rs"), "status": "modified", "additions": 50, "deletions": 0, "patch": format!("@@ -0,0 +1,50 @@\n{}", "+line\n".repeat(200))}))
        .collect();
    fake.on("/repos/o/r/pulls/1/files", json!(files));
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "prNumber": 1, "type": "fullContent"}),
    )
    .await
    .unwrap();
    let first = &out.data["pull_requests"][0];
    let shown = first["file_changes"].as_array().unwrap().len();
    assert!(shown > 0 && shown < 20, "{shown}");
    let next = out.data["outputPagination"]["nextCharOffset"]
        .as_u64()
        .unwrap();
    let more = call(&fake, json!({"owner": "o", "repo": "r", "prNumber": 1, "type": "fullContent", "charOffset": next})).await.unwrap();
    let cont = &more.data["pull_requests"][0];
    assert_eq!(
        (cont["number"].as_u64(), cont["continued"].as_bool()),
        (Some(1), Some(true))
    );
    assert_eq!(cont["file_changes"][0]["filename"], format!("f{shown}.rs"));
    assert_fits_return_schema(TOOL, &more.data);

    // A single patch longer than the window is cut, with a pointer to partialContent.
    fake.on("/repos/o/r/pulls/1/files", json!([{"filename": "gen.rs", "status": "added", "additions": 9000, "deletions": 0, "patch": "+x\n".repeat(9000)}]));
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "prNumber": 1, "type": "fullContent"}),
    )
    .await
    .unwrap();
    let patch = out.data["pull_requests"][0]["file_changes"][0]["patch"]
        .as_str()
        .unwrap();
    assert!(
        patch.len() < 8000 && patch.contains("patch cut"),
        "{}",
        patch.len()
    );
    assert!(out.data["hints"]
        .to_string()
        .contains("partialContentMetadata"));
}

#[tokio::test]
async fn invalid_combinations_and_missing_pull_requests() {
    let fake = Fake::start().await;
    let e = call(&fake, json!({"prNumber": 3})).await.unwrap_err();
    assert!(e.message.contains("needs owner and repo"), "{}", e.message);
    let e = call(
        &fake,
        json!({"owner": "o", "repo": "r", "type": "partialContent"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.failure, Failure::Invalid);
    let e = call(&fake, json!({})).await.unwrap_err();
    assert!(e.message.contains("found none"));
    let e = call(&fake, json!({"owner": "o", "created": "last week"}))
        .await
        .unwrap_err();
    assert!(e.message.contains("created"), "{}", e.message);
    assert!(fake.requests().is_empty());
    let e = call(&fake, json!({"owner": "o", "repo": "r", "prNumber": 99}))
        .await
        .unwrap_err();
    assert_eq!(
        (e.code, e.failure),
        (ToolErrorCode::PullRequestNotFound, Failure::NotFound)
    );
    fake.on("/search/issues", search_body(0, vec![]));
    let out = call(&fake, json!({"author": "nobody"})).await.unwrap();
    assert_eq!(out.status, Status::Empty);
    assert!(out.data["hints"].to_string().contains("Add owner and repo"));
    assert_eq!(fake.q("/search/issues"), "is:pr author:nobody");
    assert_fits_return_schema(TOOL, &out.data);
}

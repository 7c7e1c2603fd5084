//! Fuzzing of how the five GitHub tools read GitHub's answers: a loopback fake answers each
//! route a tool calls with GitHub's own shape, then one answer per case is replaced by that
//! shape with fields deleted, retyped or added, or by arbitrary JSON (a broken proxy, an
//! Enterprise server of another version). Each query must end as a result that still fits
//! the tool's `return_schema`, or an error with its code and a message; never a panic.

use super::fake::{
    code_item, file_body, issue_pr_item, query, repo_body, search_body, tree_body, Fake,
};
use super::Tool;
use crate::catalog::Catalog;
use crate::exec::testing::assert_fits_return_schema;
use crate::exec::{Executor, Status};
use crate::fuzz_json::{mutate, mutation, value};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{json, Value};

/// Each route the tools read, with GitHub's answer there.
fn routes() -> Vec<(&'static str, Value)> {
    vec![
        (
            "/search/code",
            search_body(1, vec![code_item("o/r", "src/lib.rs", &["fn main"])]),
        ),
        (
            "/repos/o/r/contents/src/lib.rs",
            file_body("o", "r", "src/lib.rs", "main", b"fn main() {}\n"),
        ),
        ("/repos/o/r", repo_body("o", "r", "main")),
        (
            "/repos/o/r/git/trees/main",
            tree_body(&[("src", "tree"), ("src/lib.rs", "blob")], false),
        ),
        (
            "/search/repositories",
            search_body(1, vec![repo_body("o", "r", "main")]),
        ),
        (
            "/search/issues",
            search_body(1, vec![issue_pr_item("o/r", 1, "t", Some("b"), false)]),
        ),
    ]
}

/// The five tools, each with a query that reads the routes above.
fn calls() -> Vec<(Tool, Value)> {
    vec![
        (
            Tool::GithubSearchCode,
            json!({"keywordsToSearch": ["main"], "owner": "o", "repo": "r"}),
        ),
        (
            Tool::GithubGetFileContent,
            json!({"owner": "o", "repo": "r", "path": "src/lib.rs"}),
        ),
        (
            Tool::GithubViewRepoStructure,
            json!({"owner": "o", "repo": "r"}),
        ),
        (
            Tool::GithubSearchRepositories,
            json!({"keywordsToSearch": ["r"]}),
        ),
        (
            Tool::GithubSearchPullRequests,
            json!({"owner": "o", "repo": "r", "query": "t"}),
        ),
    ]
}

#[test]
fn the_tools_read_any_github_answer_to_a_result_or_an_error() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let fake = runtime.block_on(Fake::start());
    let routes = routes();
    for (path, body) in &routes {
        fake.on(path, body.clone());
    }
    let mut config = crate::config::ExecConfig::for_workspace(fake.dir());
    config.github_api_url = fake.base.clone();
    let (catalog, _) = Catalog::load(&crate::config::default_dir("catalog")).expect("catalog");
    let broken = prop_oneof![
        3 => proptest::collection::vec(mutation(), 1..4).prop_map(Some),
        1 => Just(None),
    ];
    let cases = (0..calls().len(), 0..routes.len(), broken, value());
    let mut runner = TestRunner::new(crate::fuzz_json::config(128));
    let outcome = runner.run(&cases, |(call, route, mutations, arbitrary)| {
        let (path, body) = &routes[route];
        let answer = match &mutations {
            Some(m) => mutate(body.clone(), m),
            None => arbitrary.clone(),
        };
        fake.on(path, answer.clone());
        // A fresh executor: the circuit breaker of one case must not refuse the next.
        let executor = Executor::new(config.clone(), &catalog).unwrap();
        let (tool, fields) = calls()[call].clone();
        let result = runtime.block_on(executor.call(tool, vec![query(fields)]));
        fake.on(path, body.clone());
        let done = &result.results[0];
        if done.status == Status::Error {
            prop_assert!(done.data["errorCode"].is_string(), "{}", done.data);
            let message = done.data["error"].as_str().unwrap_or("");
            prop_assert!(!message.trim().is_empty(), "{}", done.data);
        } else {
            assert_fits_return_schema(tool, &done.data);
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// What the fuzzing above found: githubSearchRepositories passed GitHub's `topics` on as
/// they came, so a topic that was not text broke the answer's `return_schema`.
#[tokio::test]
async fn topics_that_are_not_text_are_left_out() {
    let fake = Fake::start().await;
    let mut repo = repo_body("o", "r", "main");
    repo["topics"] = json!([null, 0, "kept", ["nested"], {"a": 1}]);
    fake.on("/search/repositories", search_body(1, vec![repo]));
    let mut config = crate::config::ExecConfig::for_workspace(fake.dir());
    config.github_api_url = fake.base.clone();
    let (catalog, _) = Catalog::load(&crate::config::default_dir("catalog")).expect("catalog");
    let executor = Executor::new(config, &catalog).unwrap();
    let fields = json!({"keywordsToSearch": ["r"]});
    let result = executor
        .call(Tool::GithubSearchRepositories, vec![query(fields)])
        .await;
    let data = &result.results[0].data;
    assert_eq!(data["repositories"][0]["topics"], json!(["kept"]), "{data}");
    assert_fits_return_schema(Tool::GithubSearchRepositories, data);
}

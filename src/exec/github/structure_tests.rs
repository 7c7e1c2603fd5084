//! Tests of githubViewRepoStructure against the fake GitHub.

use super::*;
use crate::exec::github::fake::{assert_fits_return_schema, repo_body, tree_body, Fake};
use crate::exec::outcome::{Status, ToolErrorCode};
use crate::exec::Tool;

const TOOL: Tool = Tool::GithubViewRepoStructure;
const TREE: [(&str, &str); 12] = [
    ("README.md", "blob"),
    ("Cargo.toml", "blob"),
    ("src", "tree"),
    ("src/lib.rs", "blob"),
    ("src/exec", "tree"),
    ("src/exec/mod.rs", "blob"),
    ("node_modules", "tree"),
    ("node_modules/left-pad", "tree"),
    ("node_modules/left-pad/index.js", "blob"),
    ("docs", "tree"),
    ("docs/guide.md", "blob"),
    ("src/main.rs", "blob"),
];

async fn call(fake: &Fake, fields: Value) -> Result<Outcome, QueryError> {
    fake.call(TOOL, None, fields).await
}

fn serve(fake: &Fake, branch: &str) {
    fake.on("/repos/o/r", repo_body("o", "r", branch));
    fake.on(
        &format!("/repos/o/r/git/trees/{branch}"),
        tree_body(&TREE, false),
    );
}

#[tokio::test]
async fn lists_the_root_of_the_default_branch_without_noise() {
    let fake = Fake::start().await;
    serve(&fake, "trunk");
    let out = call(&fake, json!({"owner": "o", "repo": "r"}))
        .await
        .unwrap();
    assert_eq!(out.status, Status::HasResults);
    assert_eq!(
        fake.last("/repos/o/r/git/trees/trunk")
            .unwrap()
            .param("recursive")
            .as_deref(),
        Some("1")
    );
    assert_eq!(out.data["branch"], "trunk");
    assert_eq!(
        out.data["structure"],
        json!({".": {"files": ["Cargo.toml", "README.md"], "folders": ["docs", "src"]}})
    );
    assert_eq!(
        out.data["summary"],
        json!({"totalFiles": 2, "totalFolders": 2, "truncated": false, "filtered": true, "originalCount": 5})
    );
    assert!(out.data["hints"].to_string().contains("node_modules"));
    assert_fits_return_schema(TOOL, &out.data);
}

#[tokio::test]
async fn a_path_at_depth_two_and_pages_of_entries() {
    let fake = Fake::start().await;
    serve(&fake, "main");
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "branch": "main", "path": "src/", "depth": 2}),
    )
    .await
    .unwrap();
    assert!(
        fake.last("/repos/o/r").is_none(),
        "an explicit branch needs no repository lookup"
    );
    assert_eq!(
        out.data["structure"],
        json!({"src": {"files": ["lib.rs", "main.rs"], "folders": ["exec"]}, "src/exec": {"files": ["mod.rs"], "folders": []}})
    );
    assert_fits_return_schema(TOOL, &out.data);

    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "depth": 2, "entriesPerPage": 3, "entryPageNumber": 2}),
    )
    .await
    .unwrap();
    assert_eq!(out.data["pagination"]["currentPage"], 2);
    assert_eq!(out.data["pagination"]["totalPages"], 3);
    assert_eq!(
        out.data["structure"],
        json!({".": {"files": ["README.md"], "folders": []}, "docs": {"files": ["guide.md"], "folders": []}, "src": {"files": [], "folders": ["exec"]}})
    );
    assert!(out.data["hints"].to_string().contains("entryPageNumber=3"));
    let past = call(
        &fake,
        json!({"owner": "o", "repo": "r", "entryPageNumber": 9}),
    )
    .await
    .unwrap();
    assert_eq!(past.status, Status::Empty);

    // Asking for a noise directory by path lists it.
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "node_modules"}),
    )
    .await
    .unwrap();
    assert_eq!(
        out.data["structure"]["node_modules"]["folders"],
        json!(["left-pad"])
    );
}

#[tokio::test]
async fn missing_paths_files_branches_and_repositories() {
    let fake = Fake::start().await;
    serve(&fake, "main");
    let e = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "lib/exec"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        (e.code, e.failure),
        (ToolErrorCode::PathNotFound, Failure::NotFound)
    );
    assert!(e.hints[0].contains("src/exec"), "{:?}", e.hints);
    let e = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "src/lib.rs"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ToolErrorCode::PathIsFile);
    let e = call(&fake, json!({"owner": "o", "repo": "r", "branch": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, ToolErrorCode::BranchNotFound);
    assert!(e
        .hints
        .iter()
        .any(|h| h.contains("default branch of o/r is main")));
    let e = call(&fake, json!({"owner": "o", "repo": "missing"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, ToolErrorCode::RepositoryNotFound);
    fake.fail(
        "/repos/o/r/git/trees/main",
        409,
        &[],
        json!({"message": "Git Repository is empty."}),
    );
    let out = call(&fake, json!({"owner": "o", "repo": "r"}))
        .await
        .unwrap();
    assert_eq!(out.status, Status::Empty);
}

#[tokio::test]
async fn truncated_trees_fall_back_to_one_level_of_contents() {
    let fake = Fake::start().await;
    fake.on("/repos/o/r", repo_body("o", "r", "main"));
    fake.on(
        "/repos/o/r/git/trees/main",
        tree_body(&[("a", "tree")], true),
    );
    fake.on(
        "/repos/o/r/contents/deep/dir",
        json!([{"type": "file", "name": "x.rs", "path": "deep/dir/x.rs"}, {"type": "dir", "name": "sub", "path": "deep/dir/sub"}]),
    );
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "deep/dir"}),
    )
    .await
    .unwrap();
    assert_eq!(
        fake.last("/repos/o/r/contents/deep/dir")
            .unwrap()
            .param("ref")
            .as_deref(),
        Some("main")
    );
    assert_eq!(
        out.data["structure"],
        json!({"deep/dir": {"files": ["x.rs"], "folders": ["sub"]}})
    );
    assert_eq!(out.data["summary"]["truncated"], true);
    assert_fits_return_schema(TOOL, &out.data);
}

//! Tests of githubGetFileContent against the fake GitHub.

use super::*;
use crate::exec::github::fake::{assert_fits_return_schema, file_body, repo_body, Fake};
use crate::exec::outcome::{Status, ToolErrorCode};
use crate::exec::Tool;

const TOOL: Tool = Tool::GithubGetFileContent;
const FILE: &str = "/repos/o/r/contents/src/lib.rs";

async fn call(fake: &Fake, fields: Value) -> Result<Outcome, QueryError> {
    fake.call(TOOL, Some("tok"), fields).await
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn reads_the_whole_file_and_names_the_default_branch() {
    let fake = Fake::start().await;
    fake.on(
        FILE,
        file_body(
            "o",
            "r",
            "src/lib.rs",
            "main",
            "fn main() {}\n// é\n".as_bytes(),
        ),
    );
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "/src/lib.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(out.status, Status::HasResults);
    assert_eq!(out.data["content"], "fn main() {}\n// é\n");
    assert_eq!(
        (out.data["branch"].as_str(), out.data["totalLines"].as_u64()),
        (Some("main"), Some(2))
    );
    assert_eq!(out.data["isPartial"], false);
    assert_eq!(fake.last(FILE).unwrap().param("ref"), None);
    assert_fits_return_schema(TOOL, &out.data);
}

#[tokio::test]
async fn line_ranges_and_matches_extract_parts() {
    let fake = Fake::start().await;
    fake.on(
        FILE,
        file_body("o", "r", "src/lib.rs", "dev", numbered(40).as_bytes()),
    );
    let out = call(&fake, json!({"owner": "o", "repo": "r", "path": "src/lib.rs", "branch": "dev", "startLine": 3, "endLine": 5})).await.unwrap();
    assert_eq!(
        fake.last(FILE).unwrap().param("ref").as_deref(),
        Some("dev")
    );
    assert_eq!(out.data["content"], "line 3\nline 4\nline 5");
    assert_eq!(
        (out.data["startLine"].as_u64(), out.data["endLine"].as_u64()),
        (Some(3), Some(5))
    );
    assert_eq!(out.data["isPartial"], true);
    assert_fits_return_schema(TOOL, &out.data);

    let out = call(&fake, json!({"owner": "o", "repo": "r", "path": "src/lib.rs", "matchString": "line 20", "matchStringContextLines": 1})).await.unwrap();
    assert_eq!(out.data["content"], "line 19\nline 20\nline 21");
    assert_eq!(out.data["matchRanges"], json!([{"start": 19, "end": 21}]));
    assert_fits_return_schema(TOOL, &out.data);

    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "src/lib.rs", "matchString": "nowhere"}),
    )
    .await
    .unwrap();
    assert_eq!(
        (out.status, out.data["matchNotFound"].as_bool()),
        (Status::Empty, Some(true))
    );
    assert!(out.data["hints"].to_string().contains("githubSearchCode"));
    assert_fits_return_schema(TOOL, &out.data);

    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "src/lib.rs", "startLine": 39}),
    )
    .await
    .unwrap();
    assert_eq!(
        (out.data["content"].as_str(), out.data["endLine"].as_u64()),
        (Some("line 39\nline 40"), Some(40))
    );
    assert_eq!(
        out.data["hints"],
        json!([]),
        "an open range needs no clamping note"
    );
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "src/lib.rs", "startLine": 41, "endLine": 50}),
    )
    .await
    .unwrap();
    assert_eq!(out.status, Status::Empty);
    assert!(out.data["hints"].to_string().contains("40 lines"));
}

#[tokio::test]
async fn long_content_is_paginated_by_characters() {
    let fake = Fake::start().await;
    fake.on(
        FILE,
        file_body("o", "r", "src/lib.rs", "main", numbered(2000).as_bytes()),
    );
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "src/lib.rs", "fullContent": true}),
    )
    .await
    .unwrap();
    assert_eq!(out.data["content"].as_str().unwrap().chars().count(), 8000);
    assert_eq!(out.data["pagination"]["hasMore"], true);
    assert_eq!(out.data["isPartial"], true);
    let out = call(&fake, json!({"owner": "o", "repo": "r", "path": "src/lib.rs", "fullContent": true, "charOffset": 100, "charLength": 50})).await.unwrap();
    assert_eq!(out.data["pagination"]["charOffset"], 100);
    assert_eq!(out.data["content"].as_str().unwrap().chars().count(), 50);
    assert_fits_return_schema(TOOL, &out.data);
}

#[tokio::test]
async fn large_binary_and_oversized_files() {
    let fake = Fake::start().await;
    let big = numbered(20_000);
    fake.on(
        FILE,
        file_body("o", "r", "src/lib.rs", "main", big.as_bytes()),
    );
    let e = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "src/lib.rs"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        (e.code, e.failure),
        (ToolErrorCode::FileTooLarge, Failure::Unprocessable)
    );
    assert_eq!(e.details["totalLines"], 20_000);
    let ok = call(&fake, json!({"owner": "o", "repo": "r", "path": "src/lib.rs", "matchString": "line 19999", "matchStringContextLines": 1})).await.unwrap();
    assert_eq!(ok.data["content"], "line 19998\nline 19999\nline 20000");

    // Over 1 MB GitHub sends no content; the raw media type is asked for instead.
    let mut meta = file_body("o", "r", "big.txt", "main", b"");
    meta["content"] = json!("");
    meta["encoding"] = json!("none");
    meta["size"] = json!(1_500_000);
    fake.on("/repos/o/r/contents/big.txt", meta);
    fake.on_raw("/repos/o/r/contents/big.txt", "alpha\nbeta\n".as_bytes());
    let out = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "big.txt", "startLine": 2, "endLine": 2}),
    )
    .await
    .unwrap();
    assert_eq!(out.data["content"], "beta");
    assert_eq!(
        fake.last("/repos/o/r/contents/big.txt")
            .unwrap()
            .header("accept")
            .as_deref(),
        Some("application/vnd.github.raw+json")
    );

    fake.on(
        "/repos/o/r/contents/logo.png",
        file_body(
            "o",
            "r",
            "logo.png",
            "main",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
        ),
    );
    let e = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "logo.png"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ToolErrorCode::BinaryFileUnsupported);
}

#[tokio::test]
async fn modes_conflict_and_directories_are_refused() {
    let fake = Fake::start().await;
    for fields in [
        json!({"fullContent": true, "matchString": "x"}),
        json!({"fullContent": true, "startLine": 1, "endLine": 2}),
        json!({"matchString": "x", "startLine": 1}),
    ] {
        let mut q = json!({"owner": "o", "repo": "r", "path": "a"});
        q.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        let e = call(&fake, q).await.unwrap_err();
        assert_eq!(
            (e.code, e.failure),
            (ToolErrorCode::ConflictingModes, Failure::Invalid)
        );
    }
    let e = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "a", "startLine": 9, "endLine": 2}),
    )
    .await
    .unwrap_err();
    assert!(e.message.contains("startLine=9"));
    let e = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "src", "type": "directory"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        (e.code, e.failure),
        (ToolErrorCode::DirectoryNotSupported, Failure::Invalid)
    );
    assert!(e.hints[0].contains("githubViewRepoStructure"));
    fake.on(
        "/repos/o/r/contents/src",
        json!([{"type": "dir", "name": "a", "path": "src/a"}]),
    );
    let e = call(&fake, json!({"owner": "o", "repo": "r", "path": "src"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, ToolErrorCode::PathIsDirectory);
    assert!(
        fake.requests().len() == 1,
        "refused queries never reach GitHub"
    );
}

#[tokio::test]
async fn missing_files_repositories_and_branches_are_told_apart() {
    let fake = Fake::start().await;
    let e = call(&fake, json!({"owner": "o", "repo": "gone", "path": "a.rs"}))
        .await
        .unwrap_err();
    assert_eq!(
        (e.code, e.failure),
        (ToolErrorCode::RepositoryNotFound, Failure::NotFound)
    );
    fake.on("/repos/o/r", repo_body("o", "r", "main"));
    let e = call(
        &fake,
        json!({"owner": "o", "repo": "r", "path": "a.rs", "branch": "old"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ToolErrorCode::FileNotFound);
    assert!(
        e.hints.iter().any(|h| h.contains("default branch is main")),
        "{:?}",
        e.hints
    );
}

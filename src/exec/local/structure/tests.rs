//! localViewStructure on a real temporary tree with known sizes, modes and times, links,
//! hidden and protected entries and deep nesting; every query is checked against the
//! catalog's input schema and every answer against its return schema.

use super::run;
use crate::config::ExecConfig;
use crate::exec::outcome::{Failure, Outcome, QueryError, Status, ToolErrorCode};
use crate::exec::sandbox::Sandbox;
use crate::exec::Tool;
use serde_json::{json, Map, Value};
use std::fs::{File, FileTimes, Permissions};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

const DAY: u64 = 86_400;

fn ago(days: u64) -> SystemTime {
    SystemTime::now() - Duration::from_secs(days * DAY)
}

fn touch(path: &Path, modified: SystemTime) {
    File::open(path)
        .unwrap()
        .set_times(FileTimes::new().set_modified(modified))
        .unwrap();
}

fn file(root: &Path, rel: &str, bytes: u64, days: u64) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    File::create(&path).unwrap().set_len(bytes).unwrap();
    std::fs::set_permissions(&path, Permissions::from_mode(0o644)).unwrap();
    touch(&path, ago(days));
}

/// Top level: README.md (2 KiB, 1 day old), Cargo.toml (300 B, 5 days), build.sh (0755,
/// 10 B, 2 days), src/ (3 days) with main.rs, lib.rs and net/{http.rs, tcp.rs, deep/x/y/z.rs},
/// docs/ (4 days) with guide.md, assets/ (6 days) with logo.png (1 MiB), .github/ with ci.yml,
/// .hidden.txt, link -> src, and the protected .git/ and .env.
fn tree() -> (tempfile::TempDir, Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    file(&root, "README.md", 2048, 1);
    file(&root, "Cargo.toml", 300, 5);
    file(&root, "build.sh", 10, 2);
    std::fs::set_permissions(root.join("build.sh"), Permissions::from_mode(0o755)).unwrap();
    file(&root, "src/main.rs", 500, 3);
    file(&root, "src/lib.rs", 1500, 3);
    file(&root, "src/net/http.rs", 700, 3);
    file(&root, "src/net/tcp.rs", 100, 3);
    file(&root, "src/net/deep/x/y/z.rs", 1, 3);
    file(&root, "docs/guide.md", 4000, 4);
    file(&root, "assets/logo.png", 1 << 20, 6);
    file(&root, ".github/ci.yml", 50, 1);
    file(&root, ".hidden.txt", 5, 1);
    file(&root, ".git/config", 10, 1);
    file(&root, ".env", 10, 1);
    std::os::unix::fs::symlink(root.join("src"), root.join("link")).unwrap();
    std::fs::set_permissions(root.join("docs"), Permissions::from_mode(0o755)).unwrap();
    // Directory times last: adding files above touched them.
    for (d, days) in [
        ("src/net/deep/x/y", 3),
        ("src/net/deep/x", 3),
        ("src/net/deep", 3),
        ("src/net", 3),
        ("src", 3),
        ("docs", 4),
        ("assets", 6),
        (".github", 1),
    ] {
        touch(&root.join(d), ago(days));
    }
    let sandbox = Sandbox::new(&ExecConfig::for_workspace(&root));
    (dir, sandbox)
}

fn call_with(sandbox: &Sandbox, budget: usize, fields: Value) -> Result<Outcome, QueryError> {
    let mut q = json!({"id": "q", "researchGoal": "test", "reasoning": "test"});
    for (k, v) in fields.as_object().unwrap() {
        q[k] = v.clone();
    }
    crate::exec::testing::assert_fits_input_schema(Tool::LocalViewStructure, &q);
    let query: Map<String, Value> = q.as_object().unwrap().clone();
    let out = run(sandbox, budget, &query);
    if let Ok(o) = &out {
        crate::exec::testing::assert_fits_return_schema(Tool::LocalViewStructure, &o.data);
    }
    out
}

fn call(sandbox: &Sandbox, fields: Value) -> Result<Outcome, QueryError> {
    call_with(sandbox, 8000, fields)
}

fn names(sandbox: &Sandbox, fields: Value) -> Vec<String> {
    let out = call(sandbox, fields).unwrap();
    out.data["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

fn hints(o: &Outcome) -> String {
    o.data["hints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn one_level_newest_first_without_hidden_or_protected_entries() {
    let (_d, s) = tree();
    let out = call(&s, json!({"path": "."})).unwrap();
    assert_eq!(out.status, Status::HasResults);
    let listed: Vec<&str> = out.data["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    // link was made last, so it is the newest.
    assert_eq!(
        listed,
        [
            "link",
            "README.md",
            "build.sh",
            "src/",
            "docs/",
            "Cargo.toml",
            "assets/"
        ]
    );
    assert_eq!(
        out.data["summary"],
        "7 entries (3 files, 3 dirs, 1 symlink, 2.3KB)"
    );
    assert_eq!(out.data["path"], ".");
    let readme = &out.data["entries"][1];
    assert_eq!(readme["type"], "file");
    assert_eq!(readme["size"], "2.0KB");
    assert!(
        readme.get("permissions").is_none(),
        "permissions only with details"
    );
    assert!(crate::time::parse_rfc3339(readme["modified"].as_str().unwrap()).is_some());
    assert_eq!(out.data["entries"][3]["type"], "dir");
    assert_eq!(out.data["entries"][0]["type"], "symlink");
    let h = hints(&out);
    assert!(h.contains("2 hidden entries are not shown"), "{h}");
    assert!(h.contains("localGetFileContent path='README.md'"), "{h}");
}

#[test]
fn hidden_entries_on_request_but_protected_ones_never() {
    let (_d, s) = tree();
    let listed = names(&s, json!({"path": ".", "hidden": true, "sortBy": "name"}));
    assert_eq!(
        listed,
        [
            ".github/",
            ".hidden.txt",
            "Cargo.toml",
            "README.md",
            "assets/",
            "build.sh",
            "docs/",
            "link",
            "src/"
        ]
    );
    let deep = names(
        &s,
        json!({"path": ".", "hidden": true, "recursive": true, "entriesPerPage": 50}),
    );
    assert!(deep.contains(&".github/ci.yml".to_string()));
    assert!(
        !deep.iter().any(|n| n.contains(".git/") || n == ".env"),
        "{deep:?}"
    );
    // The link is listed, not followed.
    assert!(!deep.iter().any(|n| n.starts_with("link/")), "{deep:?}");
    let e = call(&s, json!({"path": ".git"})).unwrap_err();
    assert_eq!(
        (e.failure, e.code),
        (Failure::Denied, ToolErrorCode::PathValidationFailed)
    );
}

#[test]
fn depth_keeps_the_tree_shape_in_every_order() {
    let (_d, s) = tree();
    let by_name = names(&s, json!({"path": "src", "depth": 2, "sortBy": "name"}));
    assert_eq!(
        by_name,
        [
            "lib.rs",
            "main.rs",
            "net/",
            "net/deep/",
            "net/http.rs",
            "net/tcp.rs"
        ]
    );
    let by_size = names(&s, json!({"path": "src", "depth": 2, "sortBy": "size"}));
    // Directories (4096 bytes on most file systems) are compared by their own size too.
    // Directory sizes depend on the file system, so only the tree shape and the files'
    // order are certain: net/ is followed by exactly its children.
    let at = |name: &str| by_size.iter().position(|n| n == name).unwrap();
    let mut children = by_size[at("net/") + 1..at("net/") + 4].to_vec();
    children.sort();
    assert_eq!(children, ["net/deep/", "net/http.rs", "net/tcp.rs"]);
    assert!(at("lib.rs") < at("main.rs") && at("net/http.rs") < at("net/tcp.rs"));
    let reversed = names(
        &s,
        json!({"path": "src", "depth": 2, "sortBy": "name", "reverse": true}),
    );
    assert_eq!(
        reversed,
        [
            "net/",
            "net/tcp.rs",
            "net/http.rs",
            "net/deep/",
            "main.rs",
            "lib.rs"
        ]
    );
    let all = names(
        &s,
        json!({"path": "src", "recursive": true, "sortBy": "name"}),
    );
    assert_eq!(all.last().unwrap(), "net/tcp.rs");
    assert!(all.contains(&"net/deep/x/y/z.rs".to_string()));
    let three = names(&s, json!({"path": "src", "depth": 3, "sortBy": "name"}));
    assert!(
        three.contains(&"net/deep/x/".to_string()) && !three.contains(&"net/deep/x/y/".to_string())
    );
}

#[test]
fn sorting_by_time_size_and_extension() {
    let (_d, s) = tree();
    // filesOnly hides directories; the link (made last, so newest) is not one.
    let newest = names(&s, json!({"path": ".", "filesOnly": true}));
    assert_eq!(newest, ["link", "README.md", "build.sh", "Cargo.toml"]);
    assert_eq!(
        names(&s, json!({"path": ".", "filesOnly": true, "reverse": true})),
        ["Cargo.toml", "build.sh", "README.md", "link"]
    );
    assert_eq!(
        names(
            &s,
            json!({"path": ".", "filesOnly": true, "sortBy": "size", "pattern": "*.*"})
        ),
        ["README.md", "Cargo.toml", "build.sh"]
    );
    // No extension sorts first, as with ls -X.
    assert_eq!(
        names(
            &s,
            json!({"path": ".", "filesOnly": true, "sortBy": "extension"})
        ),
        ["link", "README.md", "build.sh", "Cargo.toml"]
    );
    // Only files listed: one order across the whole tree, the largest first.
    let largest = names(
        &s,
        json!({"path": ".", "filesOnly": true, "recursive": true, "sortBy": "size", "entriesPerPage": 3}),
    );
    assert_eq!(largest, ["assets/logo.png", "docs/guide.md", "README.md"]);
}

#[test]
fn filters_by_kind_pattern_and_extension() {
    let (_d, s) = tree();
    assert_eq!(
        names(
            &s,
            json!({"path": ".", "directoriesOnly": true, "sortBy": "name"})
        ),
        ["assets/", "docs/", "src/"]
    );
    assert_eq!(
        names(
            &s,
            json!({"path": ".", "depth": 3, "directoriesOnly": true, "sortBy": "name"})
        ),
        ["assets/", "docs/", "src/", "src/net/", "src/net/deep/"]
    );
    assert_eq!(
        names(
            &s,
            json!({"path": ".", "pattern": "*.MD", "recursive": true, "sortBy": "name"})
        ),
        ["README.md", "docs/guide.md"]
    );
    assert_eq!(
        names(&s, json!({"path": ".", "pattern": "read"})),
        ["README.md"]
    );
    assert_eq!(
        names(
            &s,
            json!({"path": "src", "recursive": true, "extension": "rs", "sortBy": "name"})
        ),
        [
            "lib.rs",
            "main.rs",
            "net/deep/x/y/z.rs",
            "net/http.rs",
            "net/tcp.rs"
        ]
    );
    assert_eq!(
        names(
            &s,
            json!({"path": ".", "recursive": true, "extensions": [".md", "png"], "sortBy": "name"})
        ),
        ["README.md", "assets/logo.png", "docs/guide.md"]
    );
    let none = call(&s, json!({"path": ".", "pattern": "nothing-like-this"})).unwrap();
    assert_eq!(none.status, Status::Empty);
    assert_eq!(none.data["summary"], "0 entries (0 files, 0 dirs, 0B)");
    assert!(
        hints(&none).contains("passed the filters"),
        "{}",
        hints(&none)
    );
    for clash in [
        json!({"path": ".", "filesOnly": true, "directoriesOnly": true}),
        json!({"path": ".", "directoriesOnly": true, "extension": "rs"}),
    ] {
        let e = call(&s, clash).unwrap_err();
        assert_eq!(e.failure, Failure::Invalid);
        assert!(e.message.contains("exclude each other"), "{}", e.message);
    }
    let bad = call(&s, json!({"path": ".", "pattern": "[z-a]*"})).unwrap_err();
    assert!(bad.message.contains("pattern '[z-a]*'"), "{}", bad.message);
}

#[test]
fn details_sizes_and_times_follow_the_switches() {
    let (_d, s) = tree();
    let out = call(&s, json!({"path": ".", "details": true, "humanReadable": false, "showFileLastModified": false, "pattern": "build"})).unwrap();
    assert_eq!(
        out.data["entries"][0],
        json!({"name": "build.sh", "type": "file", "size": "10", "permissions": "rwxr-xr-x"})
    );
    assert_eq!(out.data["summary"], "1 entry (1 file, 0 dirs, 10 bytes)");
    let dir = call(&s, json!({"path": ".", "details": true, "pattern": "docs"})).unwrap();
    assert_eq!(dir.data["entries"][0]["permissions"], "rwxr-xr-x");
}

#[test]
fn pages_name_what_comes_next() {
    let (_d, s) = tree();
    let first = call(
        &s,
        json!({"path": "src", "recursive": true, "sortBy": "name", "entriesPerPage": 3}),
    )
    .unwrap();
    assert_eq!(
        first.data["pagination"],
        json!({"currentPage": 1, "totalPages": 3, "entriesPerPage": 3, "totalEntries": 9, "hasMore": true})
    );
    let h = hints(&first);
    assert!(h.contains("Page 1/3 (showing 3 of 9)"), "{h}");
    assert!(
        h.contains(
            "Next: entryPageNumber=2 (starts with: net/deep/, net/deep/x/, net/deep/x/y/...)"
        ),
        "{h}"
    );
    let last = call(&s, json!({"path": "src", "recursive": true, "sortBy": "name", "entriesPerPage": 3, "entryPageNumber": 3})).unwrap();
    assert_eq!(last.data["pagination"]["hasMore"], false);
    assert_eq!(last.data["entries"].as_array().unwrap().len(), 3);
    let past = call(
        &s,
        json!({"path": "src", "entriesPerPage": 3, "entryPageNumber": 7}),
    )
    .unwrap();
    assert_eq!(past.status, Status::Empty);
    assert!(
        hints(&past).contains("past the last page"),
        "{}",
        hints(&past)
    );
}

#[test]
fn limit_stops_the_listing_and_says_so() {
    let (_d, s) = tree();
    let out = call(
        &s,
        json!({"path": ".", "recursive": true, "limit": 4, "sortBy": "name"}),
    )
    .unwrap();
    assert_eq!(out.data["pagination"]["totalEntries"], 4);
    assert!(
        hints(&out).contains("stopped at 4 entries"),
        "{}",
        hints(&out)
    );
    // A limit that everything fits in is not reported as a cut.
    let all = call(&s, json!({"path": ".", "limit": 7})).unwrap();
    assert_eq!(all.data["pagination"]["totalEntries"], 7);
    assert!(!hints(&all).contains("stopped"), "{}", hints(&all));
}

#[test]
fn character_windows_keep_whole_entries() {
    let (_d, s) = tree();
    let q = json!({"path": ".", "sortBy": "name", "charLength": 150});
    let first = call(&s, q.clone()).unwrap();
    let chars = first.data["charPagination"].clone();
    assert_eq!(chars["hasMore"], true);
    let next = chars["charLength"].as_u64().unwrap();
    assert!(
        hints(&first).contains(&format!("charOffset={next}")),
        "{}",
        hints(&first)
    );
    let mut q2 = q;
    q2["charOffset"] = json!(next);
    let second = call(&s, q2).unwrap();
    let shown = first.data["entries"].as_array().unwrap().len();
    assert_eq!(
        second.data["entries"][0]["name"],
        names(&s, json!({"path": ".", "sortBy": "name"}))[shown]
    );
    let tight = call_with(
        &s,
        120,
        json!({"path": ".", "recursive": true, "entriesPerPage": 50}),
    )
    .unwrap();
    assert!(tight.data["charPagination"].is_object());
}

#[test]
fn files_missing_paths_and_empty_directories() {
    let (d, s) = tree();
    let file = call(&s, json!({"path": "README.md"})).unwrap_err();
    assert_eq!(
        (file.failure, file.code),
        (Failure::Invalid, ToolErrorCode::NotADirectory)
    );
    assert!(
        file.hints.iter().any(|h| h.contains("localGetFileContent")),
        "{:?}",
        file.hints
    );
    let missing = call(&s, json!({"path": "nope/deeper"})).unwrap_err();
    assert_eq!(
        (missing.failure, missing.code),
        (Failure::NotFound, ToolErrorCode::PathNotFound)
    );
    let outside = call(&s, json!({"path": "/"})).unwrap_err();
    assert_eq!(outside.failure, Failure::Denied);
    std::fs::create_dir(d.path().join("void")).unwrap();
    let empty = call(&s, json!({"path": "void"})).unwrap();
    assert_eq!(empty.status, Status::Empty);
    assert!(
        hints(&empty).contains("'void' has no entries"),
        "{}",
        hints(&empty)
    );
}

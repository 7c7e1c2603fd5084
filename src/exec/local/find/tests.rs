//! localFindFiles on a real temporary tree with known sizes, modes, times, links, hidden and
//! protected entries; every query is checked against the catalog's input schema and every
//! answer against its return schema. This file holds the fixture and the filters; `output`
//! the sorting, paging and result fields.

mod output;

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

const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;

fn ago(secs: u64) -> SystemTime {
    SystemTime::now() - Duration::from_secs(secs)
}

fn file(root: &Path, rel: &str, bytes: u64, mode: u32, modified: SystemTime) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let f = File::create(&path).unwrap();
    f.set_len(bytes).unwrap();
    f.set_times(
        FileTimes::new()
            .set_modified(modified)
            .set_accessed(modified),
    )
    .unwrap();
    std::fs::set_permissions(&path, Permissions::from_mode(mode)).unwrap();
}

/// src/main.rs 100 B 1 h old; src/lib.rs 3000 B 3 d; src/util/helpers.RS empty 40 d;
/// src/util/deep/a/b/note.txt; scripts/run.sh 0755; docs/README.md 2 KiB 0666; big.bin 2 MiB+1;
/// empty_dir/; node_modules/pkg/index.js; link -> src; .git/config, .env and certs/x.pem
/// (protected).
fn tree() -> (tempfile::TempDir, Sandbox) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    file(&root, "src/main.rs", 100, 0o644, ago(HOUR));
    file(&root, "src/lib.rs", 3000, 0o644, ago(3 * DAY));
    file(&root, "src/util/helpers.RS", 0, 0o644, ago(40 * DAY));
    file(&root, "src/util/deep/a/b/note.txt", 10, 0o644, ago(5 * DAY));
    file(&root, "scripts/run.sh", 50, 0o755, ago(2 * DAY));
    file(&root, "docs/README.md", 2048, 0o666, ago(10 * DAY));
    file(&root, "big.bin", (2 << 20) + 1, 0o644, ago(20 * DAY));
    file(&root, "node_modules/pkg/index.js", 10, 0o644, ago(DAY));
    file(&root, ".git/config", 10, 0o644, ago(DAY));
    file(&root, ".env", 10, 0o600, ago(DAY));
    file(&root, "certs/x.pem", 10, 0o600, ago(DAY));
    std::fs::create_dir(root.join("empty_dir")).unwrap();
    std::os::unix::fs::symlink(root.join("src"), root.join("link")).unwrap();
    let sandbox = Sandbox::new(&ExecConfig::for_workspace(&root));
    (dir, sandbox)
}

fn query(fields: Value) -> Map<String, Value> {
    let mut q = json!({"id": "q", "researchGoal": "test", "reasoning": "test"});
    for (k, v) in fields.as_object().unwrap() {
        q[k] = v.clone();
    }
    crate::exec::testing::assert_fits_input_schema(Tool::LocalFindFiles, &q);
    q.as_object().unwrap().clone()
}

fn call(sandbox: &Sandbox, fields: Value) -> Result<Outcome, QueryError> {
    let out = run(sandbox, 8000, &query(fields));
    if let Ok(o) = &out {
        crate::exec::testing::assert_fits_return_schema(Tool::LocalFindFiles, &o.data);
    }
    out
}

/// The paths found, in order.
fn paths(sandbox: &Sandbox, fields: Value) -> Vec<String> {
    let out = call(sandbox, fields).unwrap();
    out.data["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
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
fn name_globs_with_newest_first_by_default() {
    let (_d, s) = tree();
    assert_eq!(
        paths(&s, json!({"path": ".", "name": "*.rs"})),
        ["src/main.rs", "src/lib.rs"]
    );
    assert_eq!(
        paths(&s, json!({"path": "src", "iname": "*.rs"})),
        ["src/main.rs", "src/lib.rs", "src/util/helpers.RS"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "names": ["*.md", "*.sh"], "sortBy": "path"})
        ),
        ["docs/README.md", "scripts/run.sh"]
    );
    // name, iname and names must all hold.
    assert!(paths(&s, json!({"path": ".", "name": "*.rs", "names": ["*.md"]})).is_empty());
    let bad = call(&s, json!({"path": ".", "name": "[abc"})).unwrap_err();
    assert!(bad.message.contains("name '[abc'"), "{}", bad.message);
}

#[test]
fn path_patterns_and_regexes_match_the_whole_path() {
    let (_d, s) = tree();
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "pathPattern": "*/util/*", "type": "f", "sortBy": "path"})
        ),
        ["src/util/deep/a/b/note.txt", "src/util/helpers.RS"]
    );
    assert_eq!(
        paths(&s, json!({"path": ".", "pathPattern": "./scripts/*"})),
        ["scripts/run.sh"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "regex": "\\.(rs|sh)$", "sortBy": "path"})
        ),
        ["scripts/run.sh", "src/lib.rs", "src/main.rs"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "regex": "^src/[a-z]+\\.rs", "sortBy": "path"})
        ),
        ["src/lib.rs", "src/main.rs"]
    );
    let basic = json!({"path": ".", "regex": ".*/\\(main\\|lib\\)\\.rs", "regexType": "posix-basic", "sortBy": "path"});
    assert_eq!(paths(&s, basic), ["src/lib.rs", "src/main.rs"]);
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "regex": ".*/[[:upper:]]+\\.md", "regexType": "posix-egrep"})
        ),
        ["docs/README.md"]
    );
    let backref = call(
        &s,
        json!({"path": ".", "regex": "\\(a\\)\\1", "regexType": "posix-basic"}),
    )
    .unwrap_err();
    assert_eq!(backref.failure, Failure::Invalid);
    assert!(
        backref.message.contains("back-reference") && backref.message.contains("posix-basic"),
        "{}",
        backref.message
    );
    let unclosed = call(&s, json!({"path": ".", "regex": "(a"})).unwrap_err();
    assert!(
        unclosed.message.contains("regex '(a'"),
        "{}",
        unclosed.message
    );
}

#[test]
fn types_depths_and_emptiness() {
    let (_d, s) = tree();
    let dirs = paths(&s, json!({"path": "src", "type": "d", "sortBy": "path"}));
    assert_eq!(
        dirs,
        [
            "src",
            "src/util",
            "src/util/deep",
            "src/util/deep/a",
            "src/util/deep/a/b"
        ]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": "src", "type": "d", "minDepth": 1, "maxDepth": 1})
        ),
        ["src/util"]
    );
    assert_eq!(paths(&s, json!({"path": ".", "type": "l"})), ["link"]);
    // The link is not followed: nothing is found through it.
    assert!(paths(&s, json!({"path": ".", "pathPattern": "link/*"})).is_empty());
    assert_eq!(
        paths(&s, json!({"path": ".", "empty": true, "sortBy": "path"})),
        ["empty_dir", "src/util/helpers.RS"]
    );
    assert_eq!(
        paths(&s, json!({"path": ".", "maxDepth": 1, "type": "f"})),
        ["big.bin"]
    );
    assert_eq!(
        paths(&s, json!({"path": ".", "minDepth": 5, "type": "f"})),
        ["src/util/deep/a/b/note.txt"]
    );
    let e = call(&s, json!({"path": ".", "minDepth": 3, "maxDepth": 2})).unwrap_err();
    assert!(
        e.message.contains("minDepth 3 is greater than maxDepth 2"),
        "{}",
        e.message
    );
}

#[test]
fn sockets_and_pipes_have_their_own_types() {
    let (d, s) = tree();
    let root = d.path().canonicalize().unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(root.join("app.sock")).unwrap();
    assert_eq!(paths(&s, json!({"path": ".", "type": "s"})), ["app.sock"]);
    let made = std::process::Command::new("mkfifo")
        .arg(root.join("queue"))
        .status();
    if made.is_ok_and(|st| st.success()) {
        let out = call(&s, json!({"path": ".", "type": "p"})).unwrap();
        assert_eq!(out.data["files"][0]["path"], "queue");
        assert_eq!(out.data["files"][0]["type"], "fifo");
    }
}

#[test]
fn times_filter_by_age_and_bad_ages_name_the_field() {
    let (_d, s) = tree();
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "type": "f", "modifiedWithin": "2h"})
        ),
        ["src/main.rs"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "type": "f", "modifiedWithin": "4d", "name": "*.rs"})
        ),
        ["src/main.rs", "src/lib.rs"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "type": "f", "modifiedBefore": "30d"})
        ),
        ["src/util/helpers.RS"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "type": "f", "modifiedBefore": "2w"})
        ),
        ["big.bin", "src/util/helpers.RS"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "type": "f", "accessedWithin": "1m", "modifiedBefore": "1m"})
        ),
        Vec::<String>::new()
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "type": "f", "accessedWithin": "3h"})
        ),
        ["src/main.rs"]
    );
    for field in ["modifiedWithin", "modifiedBefore", "accessedWithin"] {
        let mut q = json!({"path": "."});
        q[field] = json!("7 days");
        let e = call(&s, q).unwrap_err();
        assert_eq!(
            (e.failure, e.code),
            (Failure::Invalid, ToolErrorCode::ValidationFailed)
        );
        assert!(
            e.message.starts_with(field) && e.message.contains("'7 days'"),
            "{}",
            e.message
        );
    }
}

#[test]
fn sizes_use_find_units_and_rounding() {
    let (_d, s) = tree();
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "sizeGreater": "1k", "sortBy": "size"})
        ),
        ["big.bin", "src/lib.rs", "docs/README.md"]
    );
    // 2 MiB + 1 byte rounds up to 3 MiB, so it is "greater than 2M", as with find.
    assert_eq!(
        paths(&s, json!({"path": ".", "sizeGreater": "2M"})),
        ["big.bin"]
    );
    // Rounded up, every non-empty file is at least 1M: only the empty file is smaller.
    assert_eq!(
        paths(&s, json!({"path": ".", "sizeLess": "1M"})),
        ["src/util/helpers.RS"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "sizeGreater": "99c", "sizeLess": "101c"})
        ),
        ["src/main.rs"]
    );
    // No unit: 512-byte blocks, rounded up; 3000 bytes are 6 blocks, 2048 bytes only 4.
    let blocks = call(
        &s,
        json!({"path": ".", "sizeGreater": "5", "sortBy": "size"}),
    )
    .unwrap();
    let found: Vec<&str> = blocks.data["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(found, ["big.bin", "src/lib.rs"]);
    assert!(hints(&blocks).contains("512 bytes"), "{}", hints(&blocks));
    let e = call(&s, json!({"path": ".", "sizeLess": "10MB"})).unwrap_err();
    assert!(
        e.message.starts_with("sizeLess") && e.message.contains("'10MB'"),
        "{}",
        e.message
    );
}

#[test]
fn permissions_and_access_for_the_current_user() {
    let (d, s) = tree();
    assert_eq!(
        paths(&s, json!({"path": ".", "type": "f", "permissions": "755"})),
        ["scripts/run.sh"]
    );
    assert_eq!(
        paths(&s, json!({"path": ".", "type": "f", "permissions": "-u+x"})),
        ["scripts/run.sh"]
    );
    assert_eq!(
        paths(&s, json!({"path": ".", "type": "f", "permissions": "/022"})),
        ["docs/README.md"]
    );
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "type": "f", "permissions": "-444", "name": "*.md"})
        ),
        ["docs/README.md"]
    );
    let e = call(&s, json!({"path": ".", "permissions": "rwxr-xr-x"})).unwrap_err();
    assert!(e.message.contains("-perm"), "{}", e.message);
    assert_eq!(
        paths(&s, json!({"path": ".", "type": "f", "executable": true})),
        ["scripts/run.sh"]
    );
    // A mode-000 file: readable only for root, which reads everything.
    let root = d.path().canonicalize().unwrap();
    file(&root, "locked.txt", 1, 0o000, ago(DAY));
    let is_root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&root).unwrap()) == 0;
    let readable = paths(
        &s,
        json!({"path": ".", "name": "locked.txt", "readable": true}),
    );
    assert_eq!(readable.len(), usize::from(is_root));
    let writable = paths(
        &s,
        json!({"path": ".", "type": "f", "writable": true, "sortBy": "path"}),
    );
    assert_eq!(writable.contains(&"locked.txt".to_string()), is_root);
    assert!(writable.contains(&"src/main.rs".to_string()));
    // `readable: false` filters nothing, as an absent find flag.
    assert_eq!(
        paths(
            &s,
            json!({"path": ".", "name": "locked.txt", "readable": false})
        ),
        ["locked.txt"]
    );
}

#[test]
fn exclude_dir_prunes_by_name_or_path() {
    let (_d, s) = tree();
    let all = paths(&s, json!({"path": ".", "type": "f", "sortBy": "path"}));
    assert!(all.contains(&"node_modules/pkg/index.js".to_string()));
    let pruned = paths(
        &s,
        json!({"path": ".", "type": "f", "excludeDir": ["node_modules", "util/deep"], "sortBy": "path"}),
    );
    assert_eq!(
        pruned,
        [
            "big.bin",
            "docs/README.md",
            "scripts/run.sh",
            "src/lib.rs",
            "src/main.rs",
            "src/util/helpers.RS"
        ]
    );
    // Pruned directories are not listed themselves either.
    assert!(!paths(
        &s,
        json!({"path": ".", "type": "d", "excludeDir": ["node_modules/"]})
    )
    .iter()
    .any(|p| p.contains("node_modules")));
}

#[test]
fn protected_entries_are_never_listed() {
    let (_d, s) = tree();
    let all = paths(&s, json!({"path": ".", "limit": 10000, "filesPerPage": 50}));
    assert!(
        !all.iter()
            .any(|p| p.contains(".git") || p.contains(".env") || p.contains(".pem")),
        "{all:?}"
    );
    assert!(all.contains(&"certs".to_string()));
    let none = call(&s, json!({"path": ".", "name": ".env"})).unwrap();
    assert_eq!(none.status, Status::Empty);
    let h = hints(&none);
    assert!(
        h.contains("name='.env'") && h.contains("protected entries are never listed"),
        "{h}"
    );
    let denied = call(&s, json!({"path": ".git"})).unwrap_err();
    assert_eq!(denied.failure, Failure::Denied);
    let outside = call(&s, json!({"path": "../"})).unwrap_err();
    assert_eq!(
        (outside.failure, outside.code),
        (Failure::Denied, ToolErrorCode::PathValidationFailed)
    );
    let missing = call(&s, json!({"path": "nope"})).unwrap_err();
    assert_eq!(
        (missing.failure, missing.code),
        (Failure::NotFound, ToolErrorCode::PathNotFound)
    );
}

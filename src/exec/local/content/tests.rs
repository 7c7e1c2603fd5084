//! localGetFileContent on real files: each read mode, the checks in their order, pagination,
//! and conformance of every result to the catalog's return schema.

use super::run;
use crate::config::ExecConfig;
use crate::exec::outcome::{Failure, Outcome, QueryError, Status, ToolErrorCode};
use crate::exec::sandbox::Sandbox;
use serde_json::{json, Map, Value};
use std::path::Path;

/// A TypeScript file shaped like the upstream sample: 160 lines, a comment header, a
/// TIMEOUT_CONFIGS table near the top and a use of it near line 105.
fn resilience_ts() -> String {
    let mut lines: Vec<String> = vec![
        "/**".into(),
        " * Resilience utilities.".into(),
        " */".into(),
        String::new(),
        "import { withCircuitBreaker } from './circuitBreaker.js';".into(),
    ];
    while lines.len() < 13 {
        lines.push(String::new());
    }
    lines.push("/** Timeout configuration per category */".into()); // 14
    lines.push("const TIMEOUT_CONFIGS = {".into()); // 15
    lines.push("  github: 60000,   // 60s for GitHub API".into()); // 16
    lines.push("  local: 30000,".into()); // 17
    while lines.len() < 104 {
        lines.push(format!("// filler {}", lines.len() + 1));
    }
    lines.push("  const timeoutMs = TIMEOUT_CONFIGS[category];".into()); // 105
    while lines.len() < 160 {
        lines.push(format!("const v{} = {};", lines.len() + 1, lines.len() + 1));
    }
    lines.join("\n") + "\n"
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let w = |rel: &str, content: &[u8]| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    };
    w("src/resilience.ts", resilience_ts().as_bytes());
    w("small.txt", b"one\ntwo\nthree\n");
    w("empty.txt", b"");
    w("blob.bin", b"ab\x00cd");
    w("latin1.txt", b"caf\xe9\n");
    w("big.log", "x".repeat(150 * 1024).as_bytes());
    w(".env", b"SECRET=1\n");
    let mut wide = vec![0xFF, 0xFE];
    for u in "hello\nworld\n".encode_utf16() {
        wide.extend_from_slice(&u.to_le_bytes());
    }
    w("wide.txt", &wide);
    dir
}

fn call(root: &Path, budget: usize, extra: Value) -> Result<Outcome, QueryError> {
    let mut q = json!({"id": "q1", "researchGoal": "g", "reasoning": "r"});
    for (k, v) in extra.as_object().unwrap() {
        q[k] = v.clone();
    }
    let q: Map<String, Value> = q.as_object().unwrap().clone();
    run(&Sandbox::new(&ExecConfig::for_workspace(root)), budget, &q)
}

fn ok(root: &Path, extra: Value) -> Outcome {
    let out =
        call(root, 8000, extra.clone()).unwrap_or_else(|e| panic!("{extra}: {e} {:?}", e.hints));
    crate::exec::testing::assert_fits_return_schema(
        crate::exec::Tool::LocalGetFileContent,
        &out.data,
    );
    out
}

fn hints(out: &Outcome) -> String {
    out.data["hints"].to_string()
}

#[test]
fn whole_files_come_back_verbatim() {
    let dir = workspace();
    let out = ok(dir.path(), json!({"path": "small.txt"}));
    assert_eq!(out.status, Status::HasResults);
    assert_eq!(out.data["content"], "one\ntwo\nthree\n");
    assert_eq!(out.data["totalLines"], 3);
    assert_eq!(out.data["isPartial"], false);
    assert!(out.data.get("pagination").is_none());
    assert!(hints(&out).contains("Complete file: 3 lines"));
    let modified = out.data["modified"].as_str().unwrap();
    assert!(crate::time::parse_rfc3339(modified).is_some(), "{modified}");
    let full = ok(
        dir.path(),
        json!({"path": "src/resilience.ts", "fullContent": true}),
    );
    assert_eq!(full.data["content"], resilience_ts());
    assert_eq!(full.data["totalLines"], 160);
    let empty = ok(dir.path(), json!({"path": "empty.txt"}));
    assert_eq!(
        (
            empty.data["content"].as_str(),
            empty.data["totalLines"].as_u64()
        ),
        (Some(""), Some(0))
    );
    let wide = ok(dir.path(), json!({"path": "wide.txt"}));
    assert_eq!(wide.data["content"], "hello\nworld\n");
}

#[test]
fn line_ranges_are_exact_and_clamped() {
    let dir = workspace();
    let out = ok(
        dir.path(),
        json!({"path": "src/resilience.ts", "startLine": 14, "endLine": 16}),
    );
    assert_eq!(out.data["content"], "/** Timeout configuration per category */\nconst TIMEOUT_CONFIGS = {\n  github: 60000,   // 60s for GitHub API");
    assert_eq!(
        (out.data["startLine"].as_u64(), out.data["endLine"].as_u64()),
        (Some(14), Some(16))
    );
    assert_eq!(out.data["isPartial"], true);
    assert!(
        hints(&out).contains("startLine=17 endLine=19 to continue (144 lines remaining)"),
        "{}",
        hints(&out)
    );
    let clamped = ok(
        dir.path(),
        json!({"path": "small.txt", "startLine": 2, "endLine": 99}),
    );
    assert_eq!(clamped.data["content"], "two\nthree");
    assert_eq!(clamped.data["endLine"], 3);
    assert!(clamped.data["warnings"][0]
        .as_str()
        .unwrap()
        .contains("endLine 99 adjusted to 3"));
    let past = ok(
        dir.path(),
        json!({"path": "small.txt", "startLine": 7, "endLine": 9}),
    );
    assert_eq!(past.status, Status::Empty);
    assert!(hints(&past).contains("has 3 lines"));
}

#[test]
fn match_windows_merge_mark_gaps_and_drop_comments() {
    let dir = workspace();
    let out = ok(
        dir.path(),
        json!({"path": "src/resilience.ts", "matchString": "timeout_configs", "matchStringContextLines": 1}),
    );
    assert_eq!(out.status, Status::HasResults);
    assert_eq!(
        out.data["matchRanges"],
        json!([{"start": 14, "end": 16}, {"start": 104, "end": 106}])
    );
    assert_eq!(
        (out.data["startLine"].as_u64(), out.data["endLine"].as_u64()),
        (Some(14), Some(106))
    );
    assert_eq!(out.data["isPartial"], true);
    assert_eq!(
        out.data["content"],
        "const TIMEOUT_CONFIGS = {\n  github: 60000,   // 60s for GitHub API\n\n... [87 lines omitted] ...\n\n  const timeoutMs = TIMEOUT_CONFIGS[category];\nconst v106 = 106;"
    );
    let h = hints(&out);
    assert!(
        h.contains("Matches on lines: 15, 105")
            && h.contains("comments")
            && h.contains("startLine=107"),
        "{h}"
    );

    let exact = ok(
        dir.path(),
        json!({"path": "src/resilience.ts", "matchString": "timeout_configs", "matchStringCaseSensitive": true}),
    );
    assert_eq!(exact.status, Status::Empty);
    assert!(
        hints(&exact).contains("noMatches") && hints(&exact).contains("case-sensitive substring")
    );

    let regex = ok(
        dir.path(),
        json!({"path": "small.txt", "matchString": "^t(wo|hree)$", "matchStringIsRegex": true, "matchStringContextLines": 1}),
    );
    assert_eq!(regex.data["content"], "one\ntwo\nthree");
    assert_eq!(regex.data["isPartial"], false);

    let many = ok(
        dir.path(),
        json!({"path": "src/resilience.ts", "matchString": "filler", "matchStringContextLines": 1}),
    );
    assert!(
        many.data["warnings"][0]
            .as_str()
            .unwrap()
            .contains("first 50"),
        "{}",
        many.data
    );
}

#[test]
fn long_content_is_paginated_by_characters() {
    let dir = workspace();
    let text = resilience_ts();
    let first = ok(
        dir.path(),
        json!({"path": "src/resilience.ts", "charLength": 300}),
    );
    let p = &first.data["pagination"];
    assert_eq!(first.data["content"].as_str().unwrap(), &text[..300]);
    assert_eq!(
        (
            p["currentPage"].as_u64(),
            p["charOffset"].as_u64(),
            p["charLength"].as_u64()
        ),
        (Some(1), Some(0), Some(300))
    );
    assert_eq!(p["totalChars"].as_u64(), Some(text.len() as u64));
    assert_eq!(p["byteLength"], 300);
    assert!(hints(&first).contains("charOffset=300"));
    let second = ok(
        dir.path(),
        json!({"path": "src/resilience.ts", "charOffset": 300, "charLength": 300}),
    );
    assert_eq!(second.data["content"].as_str().unwrap(), &text[300..600]);
    assert_eq!(second.data["pagination"]["currentPage"], 2);
    let auto = call(dir.path(), 1000, json!({"path": "src/resilience.ts"})).unwrap();
    assert_eq!(auto.data["content"].as_str().unwrap().chars().count(), 1000);
    assert_eq!(auto.data["isPartial"], true);
    assert!(auto.data["warnings"].to_string().contains("budget"));
    let past = ok(
        dir.path(),
        json!({"path": "small.txt", "charOffset": 500, "charLength": 10}),
    );
    assert_eq!(past.status, Status::Empty);
    // Over 100 KB: refused whole, served in pages.
    let e = call(dir.path(), 8000, json!({"path": "big.log"})).unwrap_err();
    assert_eq!(
        (e.failure, e.code),
        (Failure::Unprocessable, ToolErrorCode::FileTooLarge)
    );
    assert!(e.hints.iter().any(|h| h.contains("startLine/endLine")));
    let paged = ok(dir.path(), json!({"path": "big.log", "charLength": 10000}));
    assert_eq!(paged.data["pagination"]["hasMore"], true);
}

#[test]
fn checks_run_in_order_with_clear_errors() {
    let dir = workspace();
    let root = dir.path();
    let err = |extra: Value| call(root, 8000, extra).unwrap_err();
    let e = err(json!({"path": "/etc/passwd"}));
    assert_eq!(
        (e.failure, e.code),
        (Failure::Denied, ToolErrorCode::PathValidationFailed)
    );
    assert_eq!(err(json!({"path": ".env"})).failure, Failure::Denied);
    let e = err(json!({"path": "small.txt", "fullContent": true, "startLine": 1, "endLine": 2}));
    assert!(
        e.message.contains("fullContent") && e.message.contains("startLine/endLine"),
        "{}",
        e.message
    );
    let e = err(json!({"path": "small.txt", "fullContent": true, "matchString": "x"}));
    assert!(e.message.contains("fullContent") && e.message.contains("matchString"));
    let e = err(json!({"path": "small.txt", "matchString": "x", "startLine": 1, "endLine": 2}));
    assert_eq!(e.failure, Failure::Invalid);
    let e = err(json!({"path": "small.txt", "startLine": 2}));
    assert!(e.message.contains("together"), "{}", e.message);
    assert!(
        err(json!({"path": "small.txt", "startLine": 3, "endLine": 2}))
            .message
            .contains("after endLine")
    );
    assert_eq!(
        err(json!({"path": "small.txt", "matchString": "(", "matchStringIsRegex": true})).code,
        ToolErrorCode::InvalidPattern
    );
    // Conflicts are reported before the file is even looked at.
    assert_eq!(
        err(json!({"path": "missing.txt", "fullContent": true, "matchString": "x"})).code,
        ToolErrorCode::ConflictingOptions
    );
    let e = err(json!({"path": "missing.txt"}));
    assert_eq!(
        (e.failure, e.code),
        (Failure::NotFound, ToolErrorCode::FileNotFound)
    );
    let e = err(json!({"path": "src"}));
    assert_eq!(
        (e.failure, e.code),
        (Failure::Invalid, ToolErrorCode::PathIsDirectory)
    );
    assert!(e.hints[0].contains("localViewStructure"));
    let e = err(json!({"path": "blob.bin"}));
    assert_eq!(
        (e.failure, e.code),
        (Failure::Unprocessable, ToolErrorCode::BinaryFileUnsupported)
    );
    assert_eq!(
        err(json!({"path": "latin1.txt"})).code,
        ToolErrorCode::BinaryFileUnsupported
    );
}

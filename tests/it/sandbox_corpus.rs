//! The path sandbox attack corpus (`tests/fixtures/sandbox/attacks.json`) run through every
//! local and LSP tool: each case goes into each tool field of its kind, and each answer must be
//! the case's expected outcome, with no canary marker and no absolute path of the layout that
//! the input did not contain. Then the walkers on their own: search, find and structure over
//! the whole root never descend into links out of it and never show a hard-linked file.

use crate::common::fixtures;
use crate::sandbox_layout::{code, run, Layout};
use serde_json::{json, Value};
use toolscout::exec::{Executor, Failure, Tool};

fn corpus() -> Value {
    let text = std::fs::read_to_string(fixtures().join("sandbox/attacks.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// One placement: (tool.field, tool, query).
type Placement = (String, Tool, Value);

/// The queries a value of `field` kind goes into.
fn placements(field: &str, v: &str) -> Vec<Placement> {
    match field {
        "path" => {
            let local = [
                (Tool::LocalGetFileContent, json!({"path": v})),
                (Tool::LocalSearchCode, search(json!({"path": v}))),
                (Tool::LocalFindFiles, json!({"path": v})),
                (
                    Tool::LocalViewStructure,
                    json!({"path": v, "hidden": true, "recursive": true, "details": true}),
                ),
            ];
            let mut out: Vec<Placement> = local
                .into_iter()
                .map(|(tool, q)| (format!("{}.path", tool.name()), tool, q))
                .collect();
            out.extend(lsp_placements(v));
            out
        }
        "uri" => lsp_placements(v),
        "glob" => glob_placements(v),
        other => panic!("unknown field kind {other}"),
    }
}

/// The widest search: hidden files, no ignore files, links followed; `extra` on top.
fn search(extra: Value) -> Value {
    let mut q = json!({"pattern": ".", "path": ".", "hidden": true, "noIgnore": true, "followSymlinks": true});
    q.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    q
}

fn lsp_placements(v: &str) -> Vec<Placement> {
    [
        Tool::LspGotoDefinition,
        Tool::LspFindReferences,
        Tool::LspCallHierarchy,
    ]
    .into_iter()
    .map(|tool| {
        let mut q = json!({"uri": v, "symbolName": "main", "lineHint": 1});
        if tool == Tool::LspCallHierarchy {
            q["direction"] = json!("incoming");
        }
        (format!("{}.uri", tool.name()), tool, q)
    })
    .collect()
}

fn glob_placements(v: &str) -> Vec<Placement> {
    let walk = |extra: Value| {
        let mut q = json!({"path": "."});
        q.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        q
    };
    [
        (
            "include",
            Tool::LocalSearchCode,
            search(json!({"include": [v]})),
        ),
        (
            "exclude",
            Tool::LocalSearchCode,
            search(json!({"exclude": [v]})),
        ),
        (
            "excludeDir",
            Tool::LocalSearchCode,
            search(json!({"excludeDir": [v]})),
        ),
        (
            "pathPattern",
            Tool::LocalFindFiles,
            walk(json!({"pathPattern": v})),
        ),
        ("name", Tool::LocalFindFiles, walk(json!({"name": v}))),
        (
            "excludeDir",
            Tool::LocalFindFiles,
            walk(json!({"excludeDir": [v]})),
        ),
        (
            "pattern",
            Tool::LocalViewStructure,
            walk(json!({"pattern": v, "recursive": true, "hidden": true})),
        ),
    ]
    .into_iter()
    .map(|(field, tool, q)| (format!("{}.{field}", tool.name()), tool, q))
    .collect()
}

/// Checks one answer against the case's `expect`; returns a description of the mismatch.
fn mismatch(expect: &Value, input: &str, r: &toolscout::exec::QueryResult) -> Option<String> {
    let code = code(r);
    let message = r.data["error"].as_str().unwrap_or("");
    if code == "internalError" || code == "validationFailed" {
        return Some(format!("{code}: {message}"));
    }
    match expect["outcome"].as_str().unwrap() {
        "refused" => {
            let failure = match expect["failure"].as_str().unwrap() {
                "denied" => Failure::Denied,
                "invalid" => Failure::Invalid,
                other => panic!("unknown failure {other}"),
            };
            if code != expect["errorCode"].as_str().unwrap() || r.failure != Some(failure) {
                return Some(format!("got {code} {:?}: {message}", r.failure));
            }
            if expect["quotesInput"] == json!(true) && !message.contains(input.trim()) {
                return Some(format!("the message does not quote the input: {message}"));
            }
            match expect["messageContains"].as_str() {
                Some(want) if !message.contains(want) => {
                    Some(format!("the message does not say {want:?}: {message}"))
                }
                _ => None,
            }
        }
        "notFound" => (!matches!(code, "fileNotFound" | "pathNotFound"))
            .then(|| format!("expected not found, got {code:?}: {}", r.data)),
        "allowed" => matches!(code, "pathValidationFailed" | "invalidGlob")
            .then(|| format!("a control was refused: {message}")),
        other => panic!("unknown outcome {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_local_and_lsp_tool_refuses_the_whole_corpus_with_zero_escapes() {
    let corpus = corpus();
    let cases = corpus["cases"].as_array().unwrap();
    let refusals = cases
        .iter()
        .filter(|c| c["expect"]["outcome"] == "refused")
        .count();
    assert!(refusals >= 100, "the corpus holds {refusals} refusals");
    assert_eq!(corpus["refusals"], json!(refusals));
    let layout = Layout::new();
    let executor: Executor = layout.executor();
    let mut failures = Vec::new();
    let mut runs = 0;
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let input = layout.fill(case["input"].as_str().unwrap());
        for field in case["fields"].as_array().unwrap() {
            for (what, tool, q) in placements(field.as_str().unwrap(), &input) {
                let r = run(&executor, tool, q).await;
                runs += 1;
                let output = serde_json::to_string(&r.data).unwrap();
                if let Some(why) = layout.escape(&input, &output) {
                    failures.push(format!("{id} {what} {input:?}: ESCAPE {why}: {output}"));
                }
                if let Some(why) = mismatch(&case["expect"], &input, &r) {
                    failures.push(format!("{id} {what} {input:?}: {why}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} answers differ from the corpus:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(runs >= 900, "only {runs} tool runs");
}

/// The whole root through the walkers: positive controls so the test can fail, then nothing
/// from behind a link, no hard-linked file, no protected file.
#[tokio::test]
async fn walkers_never_descend_into_links_out_of_the_root_or_show_hard_links() {
    let layout = Layout::new();
    let executor = layout.executor();
    let search = run(
        &executor,
        Tool::LocalSearchCode,
        json!({"pattern": ".", "path": ".", "hidden": true, "noIgnore": true, "followSymlinks": true}),
    )
    .await;
    // Ignore files honoured this time: one above the root and linked ones hold the marker.
    let ignoring = run(
        &executor,
        Tool::LocalSearchCode,
        json!({"pattern": ".", "path": "docs", "hidden": true}),
    )
    .await;
    let out = serde_json::to_string(&ignoring.data).unwrap();
    layout.assert_no_escape("search honouring ignore files", "docs", &out);
    assert!(out.contains("inside-ok"), "{out}");
    // The ignore file above the root was read; its error says so without its text or place.
    assert!(
        out.contains("an ignore file outside the allowed directories: a line is not a valid glob"),
        "{out}"
    );
    // Files only: an escape into a linked directory would list its canaries as files.
    let find = run(
        &executor,
        Tool::LocalFindFiles,
        json!({"path": ".", "type": "f", "filesPerPage": 50, "details": false}),
    )
    .await;
    let tree = run(
        &executor,
        Tool::LocalViewStructure,
        json!({"path": ".", "hidden": true, "recursive": true, "entriesPerPage": 50}),
    )
    .await;
    for (what, r) in [("search", &search), ("find", &find), ("structure", &tree)] {
        let out = serde_json::to_string(&r.data).unwrap();
        layout.assert_no_escape(what, ".", &out);
        assert!(
            out.contains("notes.txt"),
            "{what} lists nothing inside: {out}"
        );
        assert!(
            out.contains("keep.txt"),
            "{what} does not walk the tree: {out}"
        );
        // As JSON strings start (`"link_dir_abs/...`), so source text that merely mentions
        // a link (an import through it) does not count.
        for hidden in [
            "\"link_dir_abs/",
            "\"link_dir_rel/",
            "\"deep/a/b/c/link/",
            "\"src/up/",
            "inner_hard_a.txt",
            "id_rsa",
            ".env\"",
        ] {
            // A search may name a skipped hard-linked file in its problems; never its lines.
            if what == "search" && hidden == "inner_hard_a.txt" {
                continue;
            }
            assert!(!out.contains(hidden), "{what} shows {hidden}: {out}");
        }
    }
    let searched = serde_json::to_string(&search.data).unwrap();
    assert!(searched.contains("inside-ok deep"), "{searched}");
    assert!(
        !searched.contains("inside-ok twice"),
        "a hard-linked file was searched: {searched}"
    );
    // A followed link that stays inside is searched like its target.
    assert!(searched.contains("ok_link"), "{searched}");
}

/// The hard link policy, spelled out for the one tool that reads whole files.
#[tokio::test]
async fn a_hard_linked_file_is_refused_with_the_reason() {
    let layout = Layout::new();
    let executor = layout.executor();
    let r = run(
        &executor,
        Tool::LocalGetFileContent,
        json!({"path": "hardlink.txt"}),
    )
    .await;
    assert_eq!(code(&r), "pathValidationFailed", "{}", r.data);
    let message = r.data["error"].as_str().unwrap();
    assert!(
        message.contains("'hardlink.txt' has 2 hard links"),
        "{message}"
    );
    assert!(
        message.contains("outside the allowed directories"),
        "{message}"
    );
    let hints = r.data["hints"].to_string();
    assert!(hints.contains("cp, not ln"), "{hints}");
    layout.assert_no_escape("hard link", "hardlink.txt", &r.data.to_string());
    // The same file with one name is read.
    std::fs::remove_file(layout.outside.join("hard-canary.txt")).unwrap();
    let r = run(
        &executor,
        Tool::LocalGetFileContent,
        json!({"path": "hardlink.txt"}),
    )
    .await;
    assert_eq!(code(&r), "", "{}", r.data);
}

//! Fuzzing of what the LSP tools read from a language server's answers (the JSON-RPC
//! transport is `tests_framing`'s): `Location`, `Location[]` and `LocationLink[]` answers
//! of any shape, with URIs that climb out of the workspace, name other hosts or schemes, or
//! carry percent-encoded tricks, and ranges with any numbers. The server is not trusted: a
//! location the tools keep lies inside the workspace, and the snippets cut around its line
//! never index outside the file.

use super::text::{path_from_uri, snippet, uri_from_path};
use super::{locations, start_line, visible};
use crate::config::ExecConfig;
use crate::exec::Context;
use crate::fuzz_json::value;
use proptest::prelude::*;
use serde_json::{json, Value};

/// URIs a server might answer with, the workspace's own files among them.
fn uri(workspace: String) -> impl Strategy<Value = String> {
    let inside = vec![
        "src/lib.rs",
        "src/../src/lib.rs",
        "src/%2e%2e/%2e%2e/x",
        "nope.rs",
        ".env",
    ];
    let outside = vec![
        "file:///etc/passwd",
        "file://localhost/etc/passwd",
        "file://evil.example/etc/passwd",
        "file:///%2e%2e/etc/passwd",
        "untitled:Untitled-1",
        "jdt://contents/x.class",
        "file://",
        "file:///",
        "",
    ];
    prop_oneof![
        2 => proptest::sample::select(inside).prop_map(move |p| format!("file://{workspace}/{p}")),
        2 => proptest::sample::select(outside).prop_map(str::to_string),
        1 => crate::hostile_text::short_text().prop_map(|t| format!("file:///{t}")),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..40).prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(-1)),
        Just(json!(1.5)),
        Just(json!("3")),
    ]
}

fn range() -> impl Strategy<Value = Value> {
    let position = || (number(), number()).prop_map(|(l, c)| json!({"line": l, "character": c}));
    prop_oneof![
        4 => (position(), position()).prop_map(|(s, e)| json!({"start": s, "end": e})),
        1 => value(),
    ]
}

/// One item: a Location, a LocationLink, or anything at all.
fn item(workspace: String) -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (uri(workspace.clone()), range()).prop_map(|(u, r)| json!({"uri": u, "range": r})),
        2 => (uri(workspace), range(), proptest::option::of(range()))
            .prop_map(|(u, r, s)| json!({"targetUri": u, "targetRange": r, "targetSelectionRange": s})),
        1 => value(),
    ]
}

fn workspace() -> (tempfile::TempDir, String, Context) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "fn a() {}\nfn b() { a() }\n").unwrap();
    std::fs::write(root.join(".env"), "TOKEN=x\n").unwrap();
    let shown = root.to_string_lossy().into_owned();
    let ctx = Context::new(ExecConfig::for_workspace(&root));
    (dir, shown, ctx)
}

#[test]
fn server_locations_are_kept_only_inside_the_workspace() {
    let (_dir, root, ctx) = workspace();
    let answers = prop_oneof![
        proptest::collection::vec(item(root.clone()), 0..6).prop_map(Value::Array),
        item(root.clone()),
    ];
    let lines = ["fn a() {}", "fn b() { a() }"];
    let mut runner = proptest::test_runner::TestRunner::new(crate::fuzz_json::config(256));
    let outcome = runner.run(&(answers, 0usize..=20), |(answer, context)| {
        for (uri, range) in locations(&answer) {
            prop_assert!(range.get("start").is_some());
            if let Ok(path) = visible(&ctx, &uri) {
                prop_assert!(path.starts_with(&root), "{uri} -> {}", path.display());
                prop_assert!(!path.ends_with(".env"), "{uri}");
            }
            let _ = snippet(&lines, &[start_line(&range)], context);
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

proptest! {
    #![proptest_config(crate::fuzz_json::config(256))]

    /// Paths of any text survive the trip to a URI and back (the form the tools send and
    /// the form servers answer in).
    #[test]
    fn uris_round_trip_any_path(name in crate::hostile_text::short_text()) {
        let name: String = name.chars().filter(|c| *c != '\0' && *c != '/').collect();
        let path = std::path::PathBuf::from(format!("/w/{name}"));
        prop_assert_eq!(path_from_uri(&uri_from_path(&path)), Some(path));
    }
}

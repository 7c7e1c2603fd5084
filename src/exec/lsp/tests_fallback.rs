//! The three tools end to end through `run` where no language server is available (a
//! configured command that does not exist, or a language with none): text-based answers
//! labelled `lspMode: "fallback"`, with the hint that says what to install. Also the errors:
//! missing files, bad positions, paths outside the sandbox, bad globs.

use super::tests::{call, mini_ts, names, query, uris};
use super::*;
use crate::exec::ToolErrorCode;

/// A workspace whose Python server is configured to a program that does not exist.
fn python_without_server() -> (tempfile::TempDir, Context) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("util.py"), "\"\"\"Helpers.\"\"\"\n\n\ndef helper(values):\n    return normalize(values) + 1\n\n\ndef normalize(values):\n    return len(values)\n").unwrap();
    std::fs::write(dir.path().join("app.py"), "from util import helper\n\n\nclass App:\n    def run(self, data):\n        return helper(data)\n\n\ndef main():\n    app = App()\n    print(\"helper\", helper([1]))\n    return app.run([2])\n").unwrap();
    let mut config = ExecConfig::for_workspace(dir.path());
    config.lsp_servers.insert(
        "python".into(),
        vec!["toolscout-no-such-language-server".into()],
    );
    (dir, Context::new(config))
}

#[tokio::test]
async fn without_a_server_the_answers_come_from_text_and_say_so() {
    let (_dir, ctx) = python_without_server();
    let out = call(
        &ctx,
        Tool::LspGotoDefinition,
        json!({"uri": "app.py", "symbolName": "helper", "lineHint": 6, "contextLines": 1}),
    )
    .await;
    let d = &out.data;
    assert_eq!(d["lspMode"], "fallback");
    assert!(
        d["hints"][0]
            .as_str()
            .unwrap()
            .contains("tools.lsp_servers.python"),
        "{d:#}"
    );
    assert_eq!(d["locations"].as_array().unwrap().len(), 1, "{d:#}");
    assert_eq!(
        (
            d["locations"][0]["uri"].as_str(),
            d["locations"][0]["symbolKind"].as_str()
        ),
        (Some("util.py"), Some("function"))
    );
    assert_eq!(
        d["locations"][0]["content"],
        " 3| \n>4| def helper(values):\n 5|     return normalize(values) + 1"
    );
}

#[tokio::test]
async fn without_a_server_references_come_from_text() {
    let (_dir, ctx) = python_without_server();
    let out = call(
        &ctx,
        Tool::LspFindReferences,
        json!({"uri": "util.py", "symbolName": "helper", "lineHint": 4, "contextLines": 0}),
    )
    .await;
    let found: Vec<(String, u64, bool)> = out.data["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["uri"].as_str().unwrap().into(),
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["isDefinition"].as_bool().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("app.py", 0, false),
        ("app.py", 5, false),
        ("app.py", 10, false),
        ("util.py", 3, true),
    ];
    assert_eq!(
        found,
        expected.map(|(u, l, d)| (u.to_string(), l, d)),
        "{:#}",
        out.data
    );
    assert_eq!(out.data["lspMode"], "fallback");
}

#[tokio::test]
async fn without_a_server_call_hierarchies_come_from_text() {
    let (_dir, ctx) = python_without_server();
    let out = call(
        &ctx,
        Tool::LspCallHierarchy,
        json!({"uri": "util.py", "symbolName": "helper", "lineHint": 4, "direction": "incoming"}),
    )
    .await;
    assert_eq!(out.data["lspMode"], "fallback");
    assert_eq!(
        names(&out.data, "incomingCalls", "from"),
        ["run", "main"],
        "{:#}",
        out.data
    );
    assert_eq!(
        out.data["incomingCalls"][1]["fromRanges"][0]["start"]["line"],
        10
    );

    let out = call(
        &ctx,
        Tool::LspCallHierarchy,
        json!({"uri": "util.py", "symbolName": "helper", "lineHint": 4, "direction": "outgoing"}),
    )
    .await;
    let to = &out.data["outgoingCalls"][0]["to"];
    assert_eq!(
        (
            to["name"].as_str(),
            to["uri"].as_str(),
            to["range"]["start"]["line"].as_u64()
        ),
        (Some("normalize"), Some("util.py"), Some(7))
    );

    let out = call(&ctx, Tool::LspCallHierarchy, json!({"uri": "app.py", "symbolName": "main", "lineHint": 9, "direction": "outgoing", "depth": 2})).await;
    let calls = out.data["outgoingCalls"].as_array().unwrap();
    let level1: Vec<&str> = calls
        .iter()
        .filter(|c| c["level"] == 1)
        .map(|c| c["to"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(level1, ["App", "print", "helper", "run"], "{:#}", out.data);
    assert!(
        calls
            .iter()
            .any(|c| c["level"] == 2 && c["to"]["name"] == "normalize" && c["via"] == "helper"),
        "{:#}",
        out.data
    );
    assert!(
        out.data["hints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h.as_str().unwrap().contains("print")),
        "unresolved callees are named"
    );
}

#[tokio::test]
async fn typescript_fallback_is_text_search_with_its_look_alikes() {
    let (dir, _) = mini_ts();
    let mut config = ExecConfig::for_workspace(dir.path());
    config.lsp_servers.insert(
        "typescript".into(),
        vec![dir.path().join("no-server").to_string_lossy().into_owned()],
    );
    let ctx = Context::new(config);
    let out = call(&ctx, Tool::LspFindReferences, json!({"uri": "mini-ts/src/score.ts", "symbolName": "computeScore", "lineHint": 8, "referencesPerPage": 50})).await;
    assert_eq!(out.data["lspMode"], "fallback");
    assert!(
        uris(&out.data, "locations").contains(&"mini-ts/src/legacy.ts".to_string()),
        "text search cannot tell the look-alike apart"
    );
    let out = call(&ctx, Tool::LspCallHierarchy, json!({"uri": "mini-ts/src/ledger.ts", "symbolName": "total", "lineHint": 14, "direction": "incoming"})).await;
    assert_eq!(
        names(&out.data, "incomingCalls", "from"),
        ["summary"],
        "{:#}",
        out.data
    );
    let out = call(
        &ctx,
        Tool::LspGotoDefinition,
        json!({"uri": "mini-ts/src/cli.ts", "symbolName": "computeScore", "lineHint": 7}),
    )
    .await;
    assert_eq!(
        uris(&out.data, "locations"),
        ["mini-ts/src/legacy.ts", "mini-ts/src/score.ts"]
    );
}

#[tokio::test]
async fn bad_positions_paths_and_unknown_languages() {
    let (dir, ctx) = python_without_server();
    let err = |fields: Value| {
        let ctx = &ctx;
        async move {
            run(ctx, Tool::LspGotoDefinition, &query(fields))
                .await
                .unwrap_err()
        }
    };
    let e = err(json!({"uri": "missing.py", "symbolName": "x", "lineHint": 1})).await;
    assert_eq!(
        (e.failure, e.code),
        (Failure::NotFound, ToolErrorCode::FileNotFound)
    );
    let e = err(json!({"uri": "util.py", "symbolName": "helper", "lineHint": 99})).await;
    assert_eq!(
        (e.failure, e.message.as_str()),
        (
            Failure::Invalid,
            "Line 99 is out of range (file has 9 lines)"
        )
    );
    let e = err(json!({"uri": "util.py", "symbolName": "nothing", "lineHint": 4})).await;
    assert_eq!(
        (e.failure, e.code),
        (Failure::Invalid, ToolErrorCode::SymbolNotFound)
    );
    let e = err(json!({"uri": "../outside.py", "symbolName": "x", "lineHint": 1})).await;
    assert_eq!(e.failure, Failure::Denied);
    let e = run(&ctx, Tool::LspFindReferences, &query(json!({"uri": "util.py", "symbolName": "helper", "lineHint": 4, "includePattern": ["a/[b"]}))).await.unwrap_err();
    assert_eq!(e.failure, Failure::Invalid);

    let uri = text::uri_from_path(&dir.path().join("util.py"));
    let out = call(
        &ctx,
        Tool::LspGotoDefinition,
        json!({"uri": uri, "symbolName": "normalize", "lineHint": 5}),
    )
    .await;
    assert_eq!(
        out.data["locations"][0]["range"]["start"]["line"], 7,
        "file:// URIs are accepted"
    );

    std::fs::write(
        dir.path().join("notes.txt"),
        "see define_me below\n\nconst define_me = 1\n",
    )
    .unwrap();
    let out = call(
        &ctx,
        Tool::LspGotoDefinition,
        json!({"uri": "notes.txt", "symbolName": "define_me", "lineHint": 1}),
    )
    .await;
    assert_eq!(out.data["lspMode"], "fallback");
    assert!(out.data["hints"][0]
        .as_str()
        .unwrap()
        .contains("No language server is known for .txt files"));
    assert_eq!(out.data["locations"][0]["range"]["start"]["line"], 2);
}

#[tokio::test]
async fn a_server_that_keeps_failing_to_start_gives_way_to_text_search() {
    let (dir, _) = python_without_server();
    let broken = dir.path().join("broken-server");
    std::fs::write(
        &broken,
        "#!/bin/sh\necho 'error: no such component' >&2\nexit 1\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut config = ExecConfig::for_workspace(dir.path());
    config
        .lsp_servers
        .insert("python".into(), vec![broken.to_string_lossy().into_owned()]);
    let ctx = Context::new(config);
    let fields = json!({"uri": "app.py", "symbolName": "helper", "lineHint": 6});
    for _ in 0..2 {
        let e = run(&ctx, Tool::LspGotoDefinition, &query(fields.clone()))
            .await
            .unwrap_err();
        assert_eq!(
            (e.failure, e.code),
            (
                Failure::Upstream { transient: true },
                ToolErrorCode::LspStartFailed
            )
        );
        assert!(
            e.message.contains("error: no such component"),
            "{}",
            e.message
        );
    }
    let out = call(&ctx, Tool::LspGotoDefinition, fields).await;
    assert_eq!(out.data["lspMode"], "fallback");
    let why = out.data["hints"][0].as_str().unwrap();
    assert!(
        why.contains("failed to start 2 times") && why.contains("tools.lsp_servers.python"),
        "{why}"
    );
    assert_eq!(out.data["locations"][0]["uri"], "util.py");
}

//! The LSP tools in semantic mode over a workspace that imports through a directory link out
//! of the root: the real TypeScript language server follows the link and answers with
//! locations in the outside file; toolscout must show neither those locations nor their text,
//! and must still answer for what is inside (positive control). Needs the server from
//! `scripts/fetch-language-servers`, like the other LSP tests: it fails, never skips.

use crate::sandbox_layout::{code, run, Layout};
use serde_json::json;
use toolscout::exec::Tool;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn language_server_answers_behind_a_link_out_of_the_root_are_not_shown() {
    let layout = Layout::new();
    let executor = layout.executor();
    let inside = run(
        &executor,
        Tool::LspGotoDefinition,
        json!({"uri": "src/uses.ts", "symbolName": "helper2", "lineHint": 4}),
    )
    .await;
    let out = serde_json::to_string(&inside.data).unwrap();
    assert_eq!(
        inside.data["lspMode"], "semantic",
        "these tests need typescript-language-server: run scripts/fetch-language-servers ({out})"
    );
    assert!(
        out.contains("src/local.ts") && out.contains("inside-ok"),
        "{out}"
    );

    let asks = [
        (
            Tool::LspGotoDefinition,
            json!({"uri": "src/uses.ts", "symbolName": "leaky", "lineHint": 4}),
        ),
        (
            Tool::LspGotoDefinition,
            json!({"uri": "src/uses.ts", "symbolName": "leak", "lineHint": 1}),
        ),
        (
            Tool::LspFindReferences,
            json!({"uri": "src/uses.ts", "symbolName": "leak", "lineHint": 4}),
        ),
        (
            Tool::LspCallHierarchy,
            json!({"uri": "src/uses.ts", "symbolName": "useIt", "lineHint": 3, "direction": "outgoing"}),
        ),
        (
            Tool::LspCallHierarchy,
            json!({"uri": "src/uses.ts", "symbolName": "leaky", "lineHint": 4, "direction": "incoming"}),
        ),
    ];
    let mut hidden = 0;
    for (tool, q) in asks {
        let r = run(&executor, tool, q.clone()).await;
        let out = serde_json::to_string(&r.data).unwrap();
        layout.assert_no_escape(&format!("{} {q}", tool.name()), "src/uses.ts", &out);
        assert_ne!(code(&r), "internalError", "{out}");
        assert!(!out.contains("link_dir_abs/secret.ts"), "{out}");
        if out.contains("outside the allowed directories") {
            hidden += 1;
        }
    }
    // The server did answer with the outside file, and toolscout said it left it out.
    assert!(hidden > 0, "no answer mentioned a hidden outside location");
}

//! The three tools end to end through `run` against the real typescript-language-server on a
//! copy of `tests/fixtures/lsp/mini-ts` (semantic mode); `tests_fallback` covers fallback mode
//! and errors. Every answer is checked against the tool's `return_schema` in the catalog.
//! These tests fail, naming `scripts/fetch-language-servers`, when the server is not
//! installed: they are never skipped silently.

use super::*;
use crate::exec::Status;
use std::time::Duration;

pub(super) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// A workspace holding a copy of the fixture project in `mini-ts/`.
pub(super) fn mini_ts() -> (tempfile::TempDir, Context) {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lsp/mini-ts");
    copy_dir(&fixture, &dir.path().join("mini-ts"));
    let ctx = Context::new(ExecConfig::for_workspace(dir.path()));
    (dir, ctx)
}

fn require_typescript_server(ctx: &Context) {
    let lang = registry::language_for(Path::new("a.ts")).unwrap();
    if let Err(why) = ctx.lsp.registry.resolve(lang) {
        panic!("these tests need typescript-language-server: run scripts/fetch-language-servers first ({why})");
    }
}

pub(super) fn query(fields: Value) -> Map<String, Value> {
    let mut q = fields.as_object().unwrap().clone();
    q.insert("id".into(), json!("t1"));
    q.insert("researchGoal".into(), json!("test"));
    q.insert("reasoning".into(), json!("test"));
    q
}

pub(super) fn check_schema(tool: Tool, data: &Value) {
    crate::exec::testing::assert_fits_return_schema(tool, data);
}

pub(super) async fn call(ctx: &Context, tool: Tool, fields: Value) -> Outcome {
    match run(ctx, tool, &query(fields.clone())).await {
        Ok(outcome) => {
            check_schema(tool, &outcome.data);
            outcome
        }
        Err(e) => panic!("{} {fields} failed: {e} {:?}", tool.name(), e.hints),
    }
}

pub(super) fn uris(data: &Value, list: &str) -> Vec<String> {
    let mut out: Vec<String> = data[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["uri"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

pub(super) fn names(data: &Value, list: &str, peer: &str) -> Vec<String> {
    data[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[peer]["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn goto_definition_crosses_files_and_survives_a_server_crash() {
    let (_dir, ctx) = mini_ts();
    require_typescript_server(&ctx);
    let from_cli =
        json!({"uri": "mini-ts/src/cli.ts", "symbolName": "computeScore", "lineHint": 7});

    let cold = Instant::now();
    let out = call(&ctx, Tool::LspGotoDefinition, from_cli.clone()).await;
    let cold = cold.elapsed();
    let d = &out.data;
    assert_eq!(out.status, Status::HasResults, "{d:#}");
    assert_eq!(d["lspMode"], "semantic", "{d:#}");
    // The string mention on the line is skipped: the call is the first code occurrence.
    assert_eq!(d["resolvedPosition"], json!({"line": 6, "character": 35}));
    assert_eq!(d["locations"].as_array().unwrap().len(), 1, "{d:#}");
    let location = &d["locations"][0];
    assert_eq!(location["uri"], "mini-ts/src/score.ts");
    assert_eq!(location["range"]["start"]["line"], 7);
    let content = location["content"].as_str().unwrap();
    assert!(
        content
            .lines()
            .any(|l| l.starts_with("> 8| export function computeScore")),
        "{content}"
    );
    assert!(
        content.starts_with("  3| "),
        "5 lines of context by default: {content}"
    );

    let warm = Instant::now();
    let out = call(&ctx, Tool::LspGotoDefinition, json!({"uri": "mini-ts/src/report.ts", "symbolName": "computeScore", "lineHint": 4, "contextLines": 0})).await;
    let warm = warm.elapsed();
    assert_eq!(out.data["locations"][0]["uri"], "mini-ts/src/score.ts");
    assert_eq!(
        out.data["locations"][0]["content"],
        ">8| export function computeScore(entries: Entry[]): number {"
    );
    eprintln!("lspGotoDefinition on typescript-language-server: cold {cold:?}, warm {warm:?}");

    // A method called inside a template literal's `${...}`, resolved one line off.
    let out = call(
        &ctx,
        Tool::LspGotoDefinition,
        json!({"uri": "mini-ts/src/ledger.ts", "symbolName": "total", "lineHint": 18}),
    )
    .await;
    assert_eq!(out.data["resolvedPosition"]["line"], 18);
    assert_eq!(
        out.data["locations"][0]["range"]["start"],
        json!({"line": 13, "character": 2})
    );

    // The server dies; the next query starts a new one.
    let lang = registry::language_for(Path::new("a.ts")).unwrap();
    let root = ctx
        .lsp
        .project_root(&ctx.sandbox.resolve("mini-ts/src/cli.ts").unwrap());
    assert!(root.ends_with("mini-ts"), "{root:?}");
    let client = ctx.lsp.acquire(lang, &root).await.unwrap().unwrap();
    client.kill();
    let deadline = Instant::now() + Duration::from_secs(5);
    while client.is_alive() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!client.is_alive());
    let out = call(&ctx, Tool::LspGotoDefinition, from_cli).await;
    assert_eq!(
        (
            out.data["lspMode"].as_str(),
            out.data["locations"][0]["uri"].as_str()
        ),
        (Some("semantic"), Some("mini-ts/src/score.ts"))
    );
    let again = ctx.lsp.acquire(lang, &root).await.unwrap().unwrap();
    assert!(!Arc::ptr_eq(&client, &again) && again.is_alive());
}

#[tokio::test]
async fn references_find_every_call_site_across_files() {
    let (_dir, ctx) = mini_ts();
    require_typescript_server(&ctx);
    let at_definition =
        json!({"uri": "mini-ts/src/score.ts", "symbolName": "computeScore", "lineHint": 8});
    let out = call(&ctx, Tool::LspFindReferences, at_definition.clone()).await;
    let d = &out.data;
    assert_eq!(d["lspMode"], "semantic", "{d:#}");
    let files = uris(d, "locations");
    assert_eq!(
        files,
        [
            "mini-ts/src/cli.ts",
            "mini-ts/src/ledger.ts",
            "mini-ts/src/report.ts",
            "mini-ts/src/score.ts"
        ],
        "the look-alike in legacy.ts is not a reference: {d:#}"
    );
    // Declaration + (import + call) in each of the three using files.
    assert_eq!(d["pagination"]["totalResults"], 7, "{d:#}");
    assert_eq!(d["hasMultipleFiles"], true);
    let definitions: Vec<&Value> = d["locations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["isDefinition"] == true)
        .collect();
    assert_eq!(definitions.len(), 1, "{d:#}");
    assert_eq!(
        (
            definitions[0]["uri"].as_str(),
            definitions[0]["range"]["start"]["line"].as_u64()
        ),
        (Some("mini-ts/src/score.ts"), Some(7))
    );
    let calls: Vec<u64> = d["locations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["uri"] == "mini-ts/src/cli.ts")
        .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(calls, [0, 6]);

    let mut without = at_definition.clone();
    without["includeDeclaration"] = json!(false);
    let out = call(&ctx, Tool::LspFindReferences, without).await;
    assert!(
        out.data["locations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| !(l["uri"] == "mini-ts/src/score.ts" && l["range"]["start"]["line"] == 7)),
        "{:#}",
        out.data
    );

    let mut paged = at_definition.clone();
    paged["referencesPerPage"] = json!(2);
    paged["page"] = json!(2);
    let out = call(&ctx, Tool::LspFindReferences, paged).await;
    assert_eq!(out.data["locations"].as_array().unwrap().len(), 2);
    assert_eq!(
        out.data["pagination"],
        json!({"currentPage": 2, "totalPages": 4, "totalResults": 7, "hasMore": true, "resultsPerPage": 2})
    );
    assert!(out.data["hints"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h.as_str().unwrap().contains("page=3")));

    let mut filtered = at_definition;
    filtered["excludePattern"] = json!(["**/cli.ts"]);
    let out = call(&ctx, Tool::LspFindReferences, filtered).await;
    assert!(!uris(&out.data, "locations").contains(&"mini-ts/src/cli.ts".to_string()));
    assert_eq!(out.data["pagination"]["totalResults"], 5);
}

#[tokio::test]
async fn call_hierarchy_incoming_and_outgoing() {
    let (_dir, ctx) = mini_ts();
    require_typescript_server(&ctx);
    let out = call(&ctx, Tool::LspCallHierarchy, json!({"uri": "mini-ts/src/score.ts", "symbolName": "computeScore", "lineHint": 8, "direction": "incoming"})).await;
    let d = &out.data;
    assert_eq!(
        (
            d["lspMode"].as_str(),
            d["direction"].as_str(),
            d["depth"].as_u64()
        ),
        (Some("semantic"), Some("incoming"), Some(1)),
        "{d:#}"
    );
    assert_eq!(
        (d["item"]["name"].as_str(), d["item"]["kind"].as_str()),
        (Some("computeScore"), Some("function"))
    );
    let mut callers = names(d, "incomingCalls", "from");
    callers.sort();
    assert_eq!(callers, ["buildReport", "main", "sum"], "{d:#}");
    let sum = d["incomingCalls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["from"]["name"] == "sum")
        .unwrap();
    assert_eq!(sum["from"]["uri"], "mini-ts/src/ledger.ts");
    assert_eq!(sum["fromRanges"][0]["start"]["line"], 10);
    assert!(
        sum["from"]["content"]
            .as_str()
            .unwrap()
            .contains(">11|     return computeScore(this.entries);"),
        "{sum:#}"
    );

    let out = call(&ctx, Tool::LspCallHierarchy, json!({"uri": "mini-ts/src/ledger.ts", "symbolName": "total", "lineHint": 14, "direction": "outgoing"})).await;
    let callees = names(&out.data, "outgoingCalls", "to");
    assert_eq!(callees, ["sum"], "{:#}", out.data);
    assert!(
        out.data["outgoingCalls"][0]["callSites"]
            .as_str()
            .unwrap()
            .contains(">15|     return this.sum();"),
        "{:#}",
        out.data
    );

    let out = call(&ctx, Tool::LspCallHierarchy, json!({"uri": "mini-ts/src/ledger.ts", "symbolName": "sum", "lineHint": 10, "direction": "incoming", "depth": 2})).await;
    let levels: Vec<(String, u64, Option<String>)> = out.data["incomingCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["from"]["name"].as_str().unwrap().to_string(),
                c["level"].as_u64().unwrap(),
                c["via"].as_str().map(String::from),
            )
        })
        .collect();
    assert_eq!(
        levels,
        [
            ("total".to_string(), 1, None),
            ("summary".to_string(), 2, Some("total".to_string()))
        ],
        "{:#}",
        out.data
    );

    let out = call(&ctx, Tool::LspCallHierarchy, json!({"uri": "mini-ts/src/ledger.ts", "symbolName": "summary", "lineHint": 18, "direction": "incoming"})).await;
    assert_eq!(out.status, Status::Empty);
    assert_eq!(out.data["incomingCalls"], json!([]));
}

#[test]
fn project_roots_stop_at_markers_and_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("a/pkg/src/deep")).unwrap();
    std::fs::write(root.join("a/pkg/package.json"), "{}").unwrap();
    std::fs::create_dir_all(root.join("loose/dir")).unwrap();
    let servers = Servers::new(&ExecConfig::for_workspace(&root));
    assert_eq!(
        servers.project_root(&root.join("a/pkg/src/deep/x.ts")),
        root.join("a/pkg")
    );
    // No marker up to the workspace root: the root itself, never a directory above it.
    assert_eq!(servers.project_root(&root.join("loose/dir/x.ts")), root);
}

#[test]
fn location_answers_of_every_shape() {
    let range = json!({"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}});
    let name = json!({"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 5}});
    assert_eq!(
        locations(&json!({"uri": "file:///a.ts", "range": range})),
        [("file:///a.ts".to_string(), range.clone())]
    );
    let links = json!([{"targetUri": "file:///b.ts", "targetRange": range, "targetSelectionRange": name}, {"targetUri": "file:///b.ts", "targetRange": range, "targetSelectionRange": name}]);
    assert_eq!(locations(&links), [("file:///b.ts".to_string(), name)]);
    assert!(locations(&Value::Null).is_empty());
    assert!(locations(&json!([{"uri": "file:///c.ts"}])).is_empty());
}

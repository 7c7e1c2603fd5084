//! The secret corpus (`tests/fixtures/secrets/corpus.json`) written into workspace files and
//! read back through every tool that returns content: localGetFileContent (whole, in small
//! pages, by line range and by match), localSearchCode (a search for each secret, with
//! context lines), LSP snippets (goto definition and references over a TypeScript file of
//! secrets, against the real language server), githubGetFileContent and githubSearchCode
//! against a loopback GitHub, and an upstream MCP server's answer. Nothing may leak: no
//! secret appears in any string of any answer.

use crate::common::shipped_catalog;
use crate::gateway::{mcp_call, mcp_session, python};
use crate::server::Server;
use serde_json::{json, Map, Value};
use std::path::Path;
use tokio::io::AsyncWriteExt;
use toolscout::catalog::Catalog;
use toolscout::config::ExecConfig;
use toolscout::exec::{Executor, Tool};

/// One positive sample: its kind, the text it sits in and the part that must vanish.
pub(crate) struct Sample {
    pub kind: String,
    pub context: String,
    pub text: String,
    pub secret: String,
}

pub(crate) fn samples() -> Vec<Sample> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/secrets/corpus.json");
    let corpus: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for kind in corpus["kinds"].as_array().unwrap() {
        for p in kind["positives"].as_array().unwrap() {
            out.push(Sample {
                kind: kind["kind"].as_str().unwrap().to_string(),
                context: p["context"].as_str().unwrap().to_string(),
                text: p["text"].as_str().unwrap().to_string(),
                secret: p["secret"].as_str().unwrap().to_string(),
            });
        }
    }
    out
}

/// Every string in `v`, unescaped, one per line: what an agent could read.
fn strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push_str(k);
            out.push('\n');
            strings(x, out);
        }),
        _ => {}
    }
}

/// The secrets of `samples` that appear in `answer`, with where they came from.
pub(crate) fn leaks<'s>(
    answer: &Value,
    samples: impl IntoIterator<Item = &'s Sample>,
) -> Vec<String> {
    let mut text = String::new();
    strings(answer, &mut text);
    samples
        .into_iter()
        .filter(|s| text.contains(&s.secret))
        .map(|s| format!("{} / {}: {}", s.kind, s.context, s.secret))
        .collect()
}

fn query(fields: Value) -> Vec<Map<String, Value>> {
    let mut q = fields.as_object().unwrap().clone();
    q.insert("id".into(), json!("q1"));
    q.insert("mainResearchGoal".into(), json!("redaction"));
    q.insert("researchGoal".into(), json!("read the file back"));
    q.insert("reasoning".into(), json!("every secret must be redacted"));
    vec![q]
}

fn executor(config: ExecConfig) -> Executor {
    let (catalog, _) = Catalog::load(&shipped_catalog()).unwrap();
    Executor::new(config, &catalog).unwrap()
}

async fn call(ex: &Executor, tool: Tool, fields: Value) -> Value {
    let answer = ex.call(tool, query(fields.clone())).await.to_json();
    let status = &answer["data"]["results"][0]["status"];
    assert_ne!(status, "error", "{} {fields}: {answer:#}", tool.name());
    answer
}

/// One file per kind under `corpus/`, its samples one after another.
fn corpus_workspace(samples: &[Sample]) -> (tempfile::TempDir, Vec<(String, Vec<&Sample>)>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("corpus")).unwrap();
    let mut files: Vec<(String, Vec<&Sample>)> = Vec::new();
    for s in samples {
        let name = format!("corpus/{}.txt", s.kind.to_lowercase());
        match files.iter_mut().find(|(n, _)| *n == name) {
            Some((_, group)) => group.push(s),
            None => files.push((name, vec![s])),
        }
    }
    for (name, group) in &files {
        let text: String = group.iter().map(|s| format!("{}\n", s.text)).collect();
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    (dir, files)
}

fn assert_no_leaks(found: Vec<String>) {
    assert!(
        found.is_empty(),
        "{} leaks:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[tokio::test]
async fn local_file_content_leaks_nothing_whole_paged_or_by_range() {
    let samples = samples();
    let (dir, files) = corpus_workspace(&samples);
    let mut config = ExecConfig::for_workspace(dir.path());
    config.output_chars = 1_000_000;
    let ex = executor(config);
    let mut found = Vec::new();
    for (name, group) in &files {
        let whole = call(
            &ex,
            Tool::LocalGetFileContent,
            json!({"path": name, "fullContent": true}),
        )
        .await;
        found.extend(leaks(&whole, group.iter().copied()));
        // Pages of 37 characters, read one after another: no page boundary splits a secret.
        let mut pages = json!([]);
        for n in 0..400 {
            let page = call(
                &ex,
                Tool::LocalGetFileContent,
                json!({"path": name, "charOffset": n * 37, "charLength": 37}),
            )
            .await;
            let text = page["data"]["results"][0]["data"].to_string();
            pages.as_array_mut().unwrap().push(page);
            if !text.contains("hasMore\":true") {
                break;
            }
        }
        let mut joined = String::new();
        strings(&pages, &mut joined);
        found.extend(
            group
                .iter()
                .filter(|s| joined.contains(&s.secret[..s.secret.len().min(24)]))
                .map(|s| format!("paged {} / {}", s.kind, s.context)),
        );
        // Line ranges starting inside a sample (inside a key block), and a match.
        for (start, end) in [(2, 4), (3, 3), (5, 9)] {
            let part = call(
                &ex,
                Tool::LocalGetFileContent,
                json!({"path": name, "startLine": start, "endLine": end}),
            )
            .await;
            found.extend(leaks(&part, group.iter().copied()));
        }
        let matched = call(
            &ex,
            Tool::LocalGetFileContent,
            json!({"path": name, "matchString": "=", "matchStringContextLines": 2}),
        )
        .await;
        found.extend(leaks(&matched, group.iter().copied()));
    }
    assert_no_leaks(found);
}

#[tokio::test]
async fn local_search_leaks_nothing_in_matches_or_context() {
    let samples = samples();
    let (dir, files) = corpus_workspace(&samples);
    let ex = executor(ExecConfig::for_workspace(dir.path()));
    let mut found = Vec::new();
    for (name, group) in &files {
        // Each secret searched for by itself: the line that holds it is the match.
        for s in group {
            let pattern = regex::escape(&s.secret);
            for extra in [
                json!({}),
                json!({"contextLines": 3}),
                json!({"matchContentLength": 30}),
            ] {
                let mut fields = json!({"pattern": pattern, "path": name});
                fields
                    .as_object_mut()
                    .unwrap()
                    .extend(extra.as_object().unwrap().clone());
                let answer = call(&ex, Tool::LocalSearchCode, fields).await;
                found.extend(leaks(&answer, group.iter().copied()));
            }
        }
        // Every line of the file, in one search.
        let all = call(
            &ex,
            Tool::LocalSearchCode,
            json!({"pattern": ".", "path": name, "matchesPerPage": 100}),
        )
        .await;
        found.extend(leaks(&all, group.iter().copied()));
    }
    assert_no_leaks(found);
}

#[tokio::test]
async fn github_file_content_and_code_search_leak_nothing() {
    let samples = samples();
    let file: String = samples.iter().map(|s| format!("{}\n", s.text)).collect();
    let fragments: Vec<String> = samples.iter().map(|s| s.text.clone()).collect();
    let base = github_stand_in(file, fragments).await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = ExecConfig::for_workspace(dir.path());
    config.github_api_url = base;
    config.github_token = Some("test-token".into());
    config.output_chars = 2_000_000;
    let ex = executor(config);
    let path = json!({"owner": "o", "repo": "r", "path": "config/secrets.txt"});
    let mut found = Vec::new();
    let mut asks = vec![
        json!({"fullContent": true}),
        json!({"startLine": 3, "endLine": 40}),
        json!({"matchString": "KEY", "matchStringContextLines": 2}),
    ];
    asks.extend((0..20).map(|n| json!({"charOffset": n * 101, "charLength": 101})));
    for extra in asks {
        let mut fields = path.clone();
        fields
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let answer = call(&ex, Tool::GithubGetFileContent, fields).await;
        found.extend(leaks(&answer, &samples));
    }
    let code = call(
        &ex,
        Tool::GithubSearchCode,
        json!({"keywordsToSearch": ["token"], "owner": "o", "repo": "r"}),
    )
    .await;
    found.extend(leaks(&code, &samples));
    assert_no_leaks(found);
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            let c = if i <= chunk.len() {
                A[(n >> (18 - 6 * i) & 63) as usize]
            } else {
                b'='
            };
            out.push(c as char);
        }
    }
    out
}

/// A loopback GitHub: the contents API answers `file` for any path, code search answers
/// one item per fragment.
async fn github_stand_in(file: String, fragments: Vec<String>) -> String {
    let content = base64(file.as_bytes());
    let contents = json!({
        "type": "file", "encoding": "base64", "size": file.len(), "name": "secrets.txt",
        "path": "config/secrets.txt", "content": content, "sha": "3d21ec53a331a6f037a91c368710b99387d012c1",
        "url": "https://api.github.com/repos/o/r/contents/config/secrets.txt?ref=main",
        "html_url": "https://github.com/o/r/blob/main/config/secrets.txt",
    });
    let items: Vec<Value> = fragments.iter().enumerate().map(|(i, f)| json!({
        "name": format!("f{i}.txt"), "path": format!("src/f{i}.txt"), "sha": "9fb037999f264ba9a7fc6274d15fa3ae2ab98312",
        "url": "https://api.github.com/x", "html_url": format!("https://github.com/o/r/blob/main/src/f{i}.txt"),
        "repository": {"full_name": "o/r", "name": "r", "owner": {"login": "o"}},
        "text_matches": [{"object_type": "FileContent", "property": "content", "fragment": f, "matches": []}],
    })).collect();
    let search = json!({"total_count": items.len(), "incomplete_results": false, "items": items});
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (contents, search) = (contents.to_string(), search.to_string());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let (contents, search) = (contents.clone(), search.clone());
            tokio::spawn(async move {
                let Some(seen) = crate::common::request_head(&mut socket).await else {
                    return;
                };
                let head = String::from_utf8_lossy(&seen);
                let body = if head.contains("/search/code") {
                    search
                } else {
                    contents
                };
                let answer = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}", body.len());
                let _ = socket.write_all(answer.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    base
}

#[tokio::test]
async fn lsp_snippets_leak_nothing() {
    let samples = samples();
    let ts: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.context == "typescript")
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("app/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        dir.path().join("app/package.json"),
        r#"{"name": "app", "version": "1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("app/tsconfig.json"),
        r#"{"compilerOptions": {"strict": true, "module": "commonjs"}, "include": ["src"]}"#,
    )
    .unwrap();
    // The `const KEY = "...";` lines, exported (each name once), and a file that uses them.
    let mut names: Vec<(String, usize)> = Vec::new();
    let mut secrets_ts = String::new();
    for s in &ts {
        let Some((name, _)) = s.text.trim_start_matches("const ").split_once(" = ") else {
            continue;
        };
        if names.iter().any(|(n, _)| n == name) {
            continue;
        }
        names.push((name.to_string(), names.len()));
        secrets_ts.push_str("export ");
        secrets_ts.push_str(&s.text);
    }
    let uses: String = format!(
        "import {{ {} }} from \"./secrets\";\nexport const all = [{}];\n",
        names
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        names
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(",\n  ")
    );
    std::fs::write(src.join("secrets.ts"), &secrets_ts).unwrap();
    std::fs::write(src.join("use.ts"), uses).unwrap();
    let ex = executor(ExecConfig::for_workspace(dir.path()));
    let mut found = Vec::new();
    for (name, line) in names.iter().step_by(7) {
        let def = call(
            &ex,
            Tool::LspGotoDefinition,
            json!({"uri": "app/src/use.ts", "symbolName": name, "lineHint": 1, "contextLines": 5}),
        )
        .await;
        assert_eq!(def["data"]["results"][0]["status"], "hasResults", "{def:#}");
        found.extend(leaks(&def, ts.iter().copied()));
        let refs = call(&ex, Tool::LspFindReferences, json!({"uri": "app/src/secrets.ts", "symbolName": name, "lineHint": line + 1, "contextLines": 3, "includeDeclaration": true})).await;
        found.extend(leaks(&refs, ts.iter().copied()));
    }
    assert_no_leaks(found);
}

#[tokio::test]
async fn an_upstream_mcp_answer_leaks_nothing() {
    let samples = samples();
    let dir = tempfile::tempdir().unwrap();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-servers/schema_server.py");
    let config = dir.path().join("toolscout.toml");
    let text = format!(
        "[[sources]]\nname = \"schema\"\nkind = \"mcp\"\ncommand = {:?}\nargs = [{:?}]\n",
        python().to_string_lossy(),
        script.to_string_lossy()
    );
    std::fs::write(&config, text).unwrap();
    let server = Server::start(
        &shipped_catalog(),
        &["--config", config.to_str().unwrap(), "--expose-tools"],
    );
    let session = mcp_session(&server).await;
    // The fixture tool echoes `name`: the whole corpus goes up and must not come back.
    let mut found = Vec::new();
    for (i, chunk) in samples.chunks(200).enumerate() {
        let echo: String = chunk.iter().map(|s| format!("{}\n", s.text)).collect();
        let args = json!({"name": echo});
        let called = mcp_call(
            &server,
            &session,
            3 + i as u64,
            "tools/call",
            json!({"name": "schema.json_schema_2020_12_tool", "arguments": args}),
        )
        .await;
        assert!(
            called["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("hello")),
            "{called}"
        );
        found.extend(leaks(&called["result"], chunk));
    }
    assert_no_leaks(found);
}

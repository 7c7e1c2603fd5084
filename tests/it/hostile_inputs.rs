//! Hostile text in every text field of every HTTP route that takes text, through the real
//! server with the embedding model, and in the CLI's `search`, `recommend` and `compare`:
//! characters whose byte length changes with their case (the recommend task "Ⱥ then éé" once
//! panicked), NUL, right-to-left text, emoji, combining marks and 10k-character words. Every
//! answer must be a 2xx or a 4xx JSON error envelope; a panic is a 500 (the server catches
//! it) or a dropped connection, and the server must still be alive at the end.

use crate::common::{shipped_catalog, toolscout};
use crate::server::Server;
use reqwest::{Method, Url};
use serde_json::{json, Value};

/// The texts sent in each field: the reported panic, then one hostile kind each.
pub(crate) fn texts() -> Vec<String> {
    vec![
        "Ⱥ then éé".into(),
        "find\0files then\0read them, and then list\0".into(),
        "\u{202E}חפש קוד then اقرأ الملف and then list \u{200F}files".into(),
        "🔍👩\u{200D}💻 search 🏳\u{FE0F}\u{200D}🌈 code, then list 😀".into(),
        "e\u{301}\u{301}\u{301} then a\u{308}\u{308} after that o\u{20DD}".into(),
        "İİ ẞ ﬀ \u{212A} then without Ⱥ, and then ǅ first".into(),
        // Long words that fit the request schemas' length limits, so the engine reads them.
        format!("{} then read {}", "Ⱥ".repeat(200), "ẞ".repeat(200)),
        // 10k-character words: over every limit in a body; the schema answers.
        "x".repeat(10_000),
        format!("{} then {}", "Ⱥ".repeat(5_000), "é".repeat(5_000)),
    ]
}

/// What was wrong with one answer, if anything. A refusal is the error envelope, or for a
/// tool call octocode's result shape with every query failed, each with its `errorCode`.
/// GitHub and the package registries point at a closed port, so their tools' calls may fail
/// upstream (502/503/504); nothing else may be 5xx.
async fn problem(req: reqwest::RequestBuilder, what: &str, upstream_ok: bool) -> Option<String> {
    let resp = match req.send().await {
        Ok(r) => r,
        Err(e) => return Some(format!("{what}: no answer: {e}")),
    };
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let envelope = body["error"]["error_code"].is_string();
    let failed_queries = body["success"] == false
        && body["data"]["results"].as_array().is_some_and(|r| {
            r.iter()
                .all(|q| q["status"] == "error" && q["data"]["errorCode"].is_string())
        });
    let refused = envelope || failed_queries;
    let short: String = text.chars().take(300).collect();
    match status {
        200..=299 => None,
        400..=499 if refused => None,
        502..=504 if upstream_ok && refused => None,
        _ => Some(format!("{what}: {status} {short}")),
    }
}

/// At most this many bytes of percent-encoded text go in one URL field: a URL holds at most
/// 64 KB (the client refuses to build a longer one), so a long word sent in a URL is cut.
const URL_FIELD_BYTES: usize = 20_000;

/// `t` cut to [`URL_FIELD_BYTES`] once percent-encoded (3 bytes a byte, at worst).
fn for_url(t: &str) -> &str {
    let mut end = 0;
    for (i, c) in t.char_indices() {
        if 3 * (i + c.len_utf8()) > URL_FIELD_BYTES {
            break;
        }
        end = i + c.len_utf8();
    }
    &t[..end]
}

/// A URL of the server with `segments` appended as path segments and `params` as the query
/// string, both percent-encoded.
fn url(server: &Server, segments: &[&str], params: &[(&str, &str)]) -> Url {
    let mut u = Url::parse(&server.url("/")).unwrap();
    u.path_segments_mut()
        .unwrap()
        .pop_if_empty()
        .extend(segments);
    if !params.is_empty() {
        u.query_pairs_mut().extend_pairs(params);
    }
    u
}

/// The JSON bodies of the discovery routes with `t` in every text field.
pub(crate) fn discovery_bodies(t: &str) -> Vec<(&'static str, Value)> {
    let markdown = json!({"response_format": "markdown", "detail_level": "detailed"});
    let mut out = vec![
        ("/search", json!({"query": t})),
        ("/search", json!({"query": t, "search_mode": "keyword"})),
        ("/search", json!({"query": "grep code", "context": t})),
        ("/search", json!({"query": t, "context": t, "category": t})),
        ("/search", json!({"query": t, "exclude_categories": [t]})),
        ("/recommend", json!({"task_description": t})),
        (
            "/recommend",
            json!({"task_description": t, "context": t, "explain_reasoning": true}),
        ),
        (
            "/recommend",
            json!({"task_description": "search code then read it", "user_preferences": {"preferred_categories": [t], "avoid_categories": [t]}}),
        ),
        ("/compare", json!({"tool_ids": [t, "ripgrep"]})),
        (
            "/compare",
            json!({"tool_ids": ["ripgrep", "git_grep"], "comparison_context": t}),
        ),
    ];
    let with_markdown: Vec<(&'static str, Value)> = out
        .iter()
        .map(|(path, body)| {
            let mut b = body.clone();
            b.as_object_mut()
                .unwrap()
                .extend(markdown.as_object().unwrap().clone());
            (*path, b)
        })
        .collect();
    out.extend(with_markdown);
    out
}

/// A tool document of the good catalog fixture with `t` in its text fields.
fn tool_document(t: &str) -> Value {
    let path = crate::common::fixtures().join("good-catalog/notes/read_note.json");
    let mut tool: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for field in ["name", "description", "when_to_use"] {
        tool[field] = json!(t);
    }
    tool["search_keywords"] = json!([t]);
    tool["similar_tools"] = json!([t]);
    tool
}

/// A query for each runnable tool with `t` in every string field its input schema lists
/// (arrays of strings get `[t]`, the LSP tools' line a number), plus targeted queries of the
/// local tools at a real file with `t` as the text to find.
fn tool_queries(t: &str, tools: &[(String, Value)]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (name, schema) in tools {
        let mut q = serde_json::Map::new();
        for (field, prop) in schema["properties"].as_object().into_iter().flatten() {
            let value = match prop["type"].as_str() {
                Some("string") => json!(t),
                Some("array") if prop["items"]["type"] == "string" => json!([t]),
                Some("integer") => json!(1),
                _ => continue,
            };
            q.insert(field.clone(), value);
        }
        q.insert("id".into(), json!("q1"));
        out.push((name.clone(), Value::Object(q)));
    }
    let base = json!({"id": "q1", "mainResearchGoal": t, "researchGoal": t, "reasoning": t});
    let lsp = json!({"uri": "src/auth.ts", "symbolName": t, "lineHint": 1});
    for (name, extra) in [
        ("localSearchCode", json!({"pattern": t, "path": "src"})),
        (
            "localSearchCode",
            json!({"pattern": t, "path": "src", "fixedString": true}),
        ),
        (
            "localGetFileContent",
            json!({"path": "src/auth.ts", "matchString": t}),
        ),
        ("localFindFiles", json!({"path": "src", "name": t})),
        ("localViewStructure", json!({"path": "src", "pattern": t})),
        ("lspGotoDefinition", lsp.clone()),
        (
            "lspGotoDefinition",
            json!({"uri": "src/auth.ts", "symbolName": "  ", "lineHint": 2, "orderHint": 1}),
        ),
        ("lspFindReferences", lsp.clone()),
        ("lspCallHierarchy", {
            let mut l = lsp.clone();
            l["direction"] = json!("incoming");
            l
        }),
    ] {
        let mut q = base.clone();
        q.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        out.push((name.to_string(), q));
    }
    out
}

/// A workspace whose file mixes the hostile characters into code and strings. On line 2 the
/// string is blanked byte for byte while a symbol is looked for, and the second "  " there
/// once fell inside the first 'Ⱥ' (a panic; the line has a real "  " after the string).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("auth.ts"),
        "export function issueToken(user: string): string {\nconst s=\"ȺȺ\";  s;\n  return sign(user + s + \"Ⱥ then éé İ 😀 \u{202E}שלום\");\n}\n",
    )
    .unwrap();
    dir
}

/// The runnable tools and their input schemas, from `/tools/list` and `/tools/info`.
async fn runnable_tools(server: &Server) -> Vec<(String, Value)> {
    let list = crate::client::get(server, "/tools/list").await.body;
    let mut out = Vec::new();
    for tool in list["data"]["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap().to_string();
        let info = crate::client::get(server, &format!("/tools/info/{name}"))
            .await
            .body;
        out.push((name, info["data"]["inputSchema"].clone()));
    }
    assert_eq!(out.len(), 13, "{list}");
    out
}

/// The prompts and their argument names, from `/prompts/list`.
async fn prompts(server: &Server) -> Vec<(String, Vec<String>)> {
    let list = crate::client::get(server, "/prompts/list").await.body;
    let names = |p: &Value| -> Vec<String> {
        p["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["name"].as_str().map(str::to_string))
            .collect()
    };
    list["data"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), names(p)))
        .collect()
}

/// One request to send: what it is (for the report), the request, and whether its tool may
/// fail upstream.
type Request = (String, reqwest::RequestBuilder, bool);

/// Path segments and query parameters of a GET.
type Get<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>);

/// The routes that read text from the URL, with `t` (already cut to fit a URL) in each path
/// segment and query parameter that carries text, and in the names of parameters a route
/// does not know.
fn get_requests(
    server: &Server,
    client: &reqwest::Client,
    t: &str,
    prompts: &[(String, Vec<String>)],
) -> Vec<Request> {
    let mut gets: Vec<Get<'_>> = vec![
        (vec!["search"], vec![("q", t)]),
        (vec!["search"], vec![("q", "grep"), ("context", t)]),
        (vec!["search"], vec![("q", t), ("category", t)]),
        (vec!["catalog", "tools"], vec![("category", t)]),
        (vec!["catalog", "tools"], vec![("page", t), ("per_page", t)]),
        (vec!["catalog", "tools", t], vec![]),
        (vec!["catalog", "status"], vec![(t, t)]),
        (vec!["tools", "info", t], vec![]),
        (
            vec!["tools", "info", "localSearchCode"],
            vec![("schema", t)],
        ),
        (vec!["tools", "list"], vec![(t, t)]),
        (vec!["tools", "initContext"], vec![(t, t)]),
        (vec!["tools", "system"], vec![(t, t)]),
        (vec!["tools", "metadata"], vec![(t, t)]),
        (vec!["prompts", "list"], vec![(t, t)]),
        (vec!["prompts", "info", t], vec![]),
        (vec![t], vec![]),
    ];
    for (name, args) in prompts {
        let params = args.iter().map(|a| (a.as_str(), t)).collect();
        gets.push((vec!["prompts", "info", name], params));
        gets.push((vec!["prompts", "info", name], vec![(t, t)]));
    }
    let mut out: Vec<Request> = gets
        .into_iter()
        .map(|(segments, params)| {
            let u = url(server, &segments, &params);
            let what: String = format!("GET {}", u.as_str()).chars().take(160).collect();
            (what, client.get(u), false)
        })
        .collect();
    let u = url(server, &["search"], &[("q", t)]);
    out.push(("PUT /search".into(), client.request(Method::PUT, u), false));
    out
}

/// The routes that read text from a JSON body, with `t` in every text field.
fn post_requests(
    server: &Server,
    client: &reqwest::Client,
    t: &str,
    tools: &[(String, Value)],
) -> Vec<Request> {
    let mut out: Vec<Request> = Vec::new();
    for (path, body) in discovery_bodies(t) {
        let shown: String = body.to_string().chars().take(80).collect();
        let req = client.post(server.url(path)).json(&body);
        out.push((format!("POST {path} {shown}"), req, false));
    }
    for body in [json!(tool_document(t)), json!([tool_document(t)])] {
        let u = url(server, &["catalog", "validate"], &[("strict", "true")]);
        out.push((
            "POST /catalog/validate".into(),
            client.post(u).json(&body),
            false,
        ));
    }
    for (name, query) in tool_queries(t, tools) {
        let upstream = name.starts_with("github") || name == "packageSearch";
        let u = url(server, &["tools", "call", &name], &[]);
        let req = client.post(u).json(&json!({"queries": [query]}));
        out.push((format!("POST /tools/call/{name}"), req, upstream));
    }
    let u = url(server, &["tools", "call", for_url(t)], &[]);
    let body = json!({"queries": [{"id": "q1", "researchGoal": t, "reasoning": t}]});
    out.push((
        "POST /tools/call/<text>".into(),
        client.post(u).json(&body),
        false,
    ));
    out
}

#[tokio::test]
async fn hostile_text_in_every_route_gets_no_server_error() {
    let dir = workspace();
    let server = Server::start_env(
        &shipped_catalog(),
        &[],
        &[("TOOLSCOUT_WORKSPACE_ROOT", dir.path().to_str().unwrap())],
    );
    let client = crate::client::client();
    let tools = runnable_tools(&server).await;
    let prompts = prompts(&server).await;
    let mut problems = Vec::new();
    let mut sent = 0;
    for (n, t) in texts().iter().enumerate() {
        let mut requests = post_requests(&server, &client, t, &tools);
        requests.extend(get_requests(&server, &client, for_url(t), &prompts));
        for (what, req, upstream) in requests {
            sent += 1;
            if let Some(p) = problem(req, &format!("text {n}: {what}"), upstream).await {
                problems.push(p);
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {sent} answers:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let health = client.get(server.url("/health")).send().await.unwrap();
    assert_eq!(health.status(), 200, "the server is still alive");
    let mut server = server;
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server is still running"
    );
}

/// The CLI reads the same text: exit 0, or 2 for a request it refuses (compare's unknown
/// tool), never a panic (101).
#[test]
fn hostile_text_in_the_cli_exits_cleanly() {
    let cache = tempfile::tempdir().unwrap();
    let catalog = shipped_catalog();
    let task = "Ⱥ then éé";
    let long = format!("{} then read {}", "Ⱥ".repeat(100), "ẞ".repeat(100));
    let runs: Vec<(Vec<&str>, &[i32])> = vec![
        (vec!["search", task], &[0]),
        (
            vec!["search", task, "--context", task, "--format", "json"],
            &[0],
        ),
        (vec!["recommend", task], &[0]),
        (
            vec!["recommend", &long, "--context", task, "--explain"],
            &[0],
        ),
        (vec!["compare", task, "ripgrep"], &[2]),
        (
            vec!["compare", "ripgrep", "git_grep", "--context", task],
            &[0],
        ),
    ];
    for (args, codes) in runs {
        let out = toolscout()
            .env("TOOLSCOUT_CACHE_DIR", cache.path())
            .args(["--catalog", catalog.to_str().unwrap()])
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code().unwrap_or(-1);
        let shown: String = args.join(" ").chars().take(120).collect();
        assert!(
            codes.contains(&code) && !stderr.contains("panicked"),
            "{shown}: exit {code}\n{stderr}"
        );
    }
}

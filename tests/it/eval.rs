//! Retrieval-quality floor: `toolscout eval` on a fixed 1,000-query sample of the MetaTool
//! development set (tests/fixtures/metatool), with the real model. A regression floor, not
//! the goal: hybrid NDCG@5 must stay at or above 70, on the whole sample and on its requests
//! for tools the model was not fine-tuned on, and within a point of the better of
//! keyword-only and semantic-only on the suite's MetaTool test half. Also: the development
//! suite's table, tools read in the shape of an MCP `tools/list` result, the suite's copy of
//! the catalog in that shape, and two runs compared query by query.

use crate::common::fixtures;
use serde_json::Value;
use std::ffi::OsStr;

#[test]
fn hybrid_search_clears_the_quality_floor() {
    let reports = metatool_eval(&["--mode", "all", "--json"], "queries_sample.jsonl");
    let reports = reports.as_array().expect("one report a mode");
    let ndcg = |mode: &str| ndcg_of(reports, mode);
    let (keyword, semantic, hybrid) = (ndcg("keyword"), ndcg("semantic"), ndcg("hybrid"));
    eprintln!("NDCG@5 keyword {keyword:.1}, semantic {semantic:.1}, hybrid {hybrid:.1}");
    for r in reports {
        assert_eq!(r["queries"], 1000);
        for metric in ["recall_at_1", "recall_at_5", "ndcg_at_5", "mrr_at_10"] {
            let v = r[metric].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&v), "{metric} = {v}");
        }
    }
    assert!(hybrid >= 70.0, "hybrid NDCG@5 {hybrid:.1} < 70");
    let baseline = ndcg("baseline");
    assert!(
        hybrid >= baseline + 5.0,
        "hybrid {hybrid:.1} must lead the naive baseline {baseline:.1} by 5 points"
    );
    // Hybrid against the single modes is checked on tools the model never trained on
    // (below): 584 of this sample's requests are for tune-half tools, where the fine-tuned
    // model's semantic mode is inflated (78.3 here, 74.7 on the other 416).
}

/// Hybrid within a point of the better single mode, on the suite's MetaTool test half (the
/// 2,000 requests of the README's table; tools the model never saw a request for).
#[test]
fn hybrid_stays_within_a_point_of_the_better_single_mode() {
    let eval = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/metatool");
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("suite.json");
    let set = serde_json::json!({
        "seed": 14,
        "sets": [{
            "name": "metatool",
            "tools": eval.join("tools.jsonl"),
            "queries": eval.join("queries.jsonl"),
            "limit": 2000
        }]
    });
    std::fs::write(&manifest, set.to_string()).unwrap();
    let suite = ["eval".as_ref(), "--suite".as_ref(), manifest.as_os_str()];
    let sets = eval_json(
        suite
            .into_iter()
            .chain(["--half", "test", "--json"].map(OsStr::new)),
    );
    let modes = sets[0]["modes"].as_array().expect("the set's modes");
    let ndcg = |mode: &str| ndcg_of(modes, mode);
    let (keyword, semantic, hybrid) = (ndcg("keyword"), ndcg("semantic"), ndcg("hybrid"));
    eprintln!(
        "MetaTool test half: keyword {keyword:.1}, semantic {semantic:.1}, hybrid {hybrid:.1}"
    );
    assert!(
        hybrid >= keyword.max(semantic) - 1.0,
        "hybrid {hybrid:.1} falls more than a point below the better single mode ({keyword:.1} / {semantic:.1})"
    );
}

/// NDCG@5 of `mode` among one report a mode.
fn ndcg_of(reports: &[Value], mode: &str) -> f64 {
    reports
        .iter()
        .find(|r| r["mode"] == mode)
        .and_then(|r| r["ndcg_at_5"].as_f64())
        .unwrap_or_else(|| panic!("no {mode} report in {reports:?}"))
}

#[test]
fn eval_reports_malformed_input_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.jsonl");
    std::fs::write(
        &tools,
        "{\"id\": \"a\", \"name\": \"a\", \"description\": \"x\"}\n{\"id\": 3}\n",
    )
    .unwrap();
    let out = crate::common::toolscout()
        .args(["eval", "--mode", "keyword", "--tools"])
        .arg(&tools)
        .arg("--queries")
        .arg(&tools)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("tools.jsonl line 2"), "{stderr}");
}

/// `toolscout eval` with `args` on the MetaTool fixture's tools and its `queries` file (with
/// the real model), and its JSON report.
pub(crate) fn metatool_eval(args: &[&str], queries: &str) -> Value {
    let dir = fixtures().join("metatool");
    let (tools, queries) = (dir.join("tools.jsonl"), dir.join(queries));
    let files = [
        "--tools".as_ref(),
        tools.as_os_str(),
        "--queries".as_ref(),
        queries.as_os_str(),
    ];
    eval_json(
        std::iter::once(OsStr::new("eval"))
            .chain(args.iter().map(OsStr::new))
            .chain(files),
    )
}

/// The JSON that `toolscout` prints with `args` (with the installed models), which must
/// succeed.
fn eval_json<'a>(args: impl IntoIterator<Item = &'a OsStr>) -> Value {
    let out = crate::common::toolscout()
        .args(args)
        .env_remove("TOOLSCOUT_MODELS_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "eval failed: {stderr}");
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

/// The sample's requests whose gold tool is in the test half: the embedding model was
/// fine-tuned on tune-half tools' requests (scripts/finetune/), so these are the part of the
/// sample it never saw a request of (416 of 1,000). The floor and the lead hold there too.
#[test]
fn hybrid_search_clears_the_floor_on_tools_the_model_was_not_tuned_on() {
    let reports = metatool_eval(
        &["--mode", "all", "--json", "--half", "test"],
        "queries_sample.jsonl",
    );
    let reports = reports.as_array().expect("one report a mode");
    let ndcg = |mode: &str| ndcg_of(reports, mode);
    assert!(reports.iter().all(|r| r["queries"] == 416), "{reports:?}");
    let (baseline, hybrid) = (ndcg("baseline"), ndcg("hybrid"));
    eprintln!("test-half tools: baseline {baseline:.1}, hybrid {hybrid:.1}");
    assert!(hybrid >= 70.0, "hybrid NDCG@5 {hybrid:.1} < 70");
    assert!(
        hybrid >= baseline + 5.0,
        "hybrid {hybrid:.1} must lead the naive baseline {baseline:.1} by 5 points"
    );
}

/// Recommend must find both gold tools of two-tool queries more often than plain search.
#[test]
fn recommend_beats_search_on_two_tool_queries() {
    let report = metatool_eval(
        &["--mode", "multi", "--json", "--limit", "200"],
        "queries_multi.jsonl",
    );
    let search = report["search_all_at_5"].as_f64().unwrap();
    let recommend = report["recommend_all_at_5"].as_f64().unwrap();
    eprintln!("both gold tools in 5: search {search:.1}%, recommend {recommend:.1}%");
    assert!(
        recommend > search,
        "recommend {recommend:.1}% must beat search {search:.1}% ({report})"
    );
}

/// `--suite`: every set of the manifest, one half, every mode beside the naive baseline (and
/// the baseline with parameters where the set has any), hybrid's lead with its interval,
/// and search against recommend on multi-tool queries, in one report.
#[test]
fn the_suite_reports_every_set_and_mode() {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/suite.json");
    let out = crate::common::toolscout()
        .args(["eval", "--suite"])
        .arg(&manifest)
        .args(["--half", "test", "--limit", "30", "--json"])
        .env_remove("TOOLSCOUT_MODELS_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "suite failed: {stderr}");
    let sets: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON report");
    let names: Vec<&str> = sets.iter().filter_map(|s| s["set"].as_str()).collect();
    assert_eq!(
        names,
        [
            "metatool",
            "bfcl",
            "apibank",
            "agent",
            "agent2",
            "agent3",
            "agent-mcp",
            "agent2-mcp",
            "agent3-mcp"
        ]
    );
    for set in &sets {
        assert_eq!(set["half"], "test");
        let modes: Vec<&str> = set["modes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["mode"].as_str())
            .collect();
        // Every set of the suite has input schemas but MetaTool, so every other one is
        // also measured against the baseline whose documents carry the parameters.
        let expected: &[&str] = if set["set"] == "metatool" {
            &["baseline", "keyword", "semantic", "hybrid"]
        } else {
            &[
                "baseline",
                "baseline_parameters",
                "keyword",
                "semantic",
                "hybrid",
            ]
        };
        assert_eq!(modes, expected, "{set}");
        assert!(set["multi"]["queries"].as_u64().unwrap() > 0, "{set}");
        // The lead over the baseline comes with its interval by gold tool.
        let (low, high) = (
            set["lead_interval"]["low"].as_f64().unwrap(),
            set["lead_interval"]["high"].as_f64().unwrap(),
        );
        assert!(low <= high && low >= -100.0 && high <= 100.0, "{set}");
        let multi = &set["multi"]["recommend_lead_interval"];
        assert!(
            multi["low"].as_f64().unwrap() <= multi["high"].as_f64().unwrap(),
            "{set}"
        );
    }
}

/// Tools given as an MCP `tools/list` result (with the server's instructions) are indexed
/// like catalog records: their input schemas' parameters count, and ids are their names.
#[test]
fn eval_reads_a_tools_list_result() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(
        &tools,
        serde_json::json!({
            "serverInfo": {"name": "desk"},
            "instructions": "Office helpers: clocks, weather and files.",
            "tools": [
                {"name": "get_current_time", "description": "Current time in a timezone.",
                 "inputSchema": {"type": "object", "properties": {
                     "timezone": {"type": "string", "description": "IANA timezone name"}}}},
                {"name": "get_forecast", "description": "Weather forecast for a city.",
                 "inputSchema": {"type": "object", "properties": {
                     "city": {"type": "string"}, "date": {"type": "string", "format": "date"}}}},
                {"name": "read_file", "description": "Read a text file.",
                 "inputSchema": {"type": "object", "properties": {
                     "path": {"type": "string", "description": "Path to the file"}}},
                 "annotations": {"readOnlyHint": true}}
            ]
        })
        .to_string(),
    )
    .unwrap();
    let queries = dir.path().join("queries.jsonl");
    std::fs::write(
        &queries,
        "{\"qid\": \"1\", \"query\": \"what time is it in Tokyo\", \"relevant\": [\"get_current_time\"]}\n\
         {\"qid\": \"2\", \"query\": \"will it rain in Paris tomorrow\", \"relevant\": [\"get_forecast\"]}\n\
         {\"qid\": \"3\", \"query\": \"show me notes/todo.txt\", \"relevant\": [\"read_file\"]}\n",
    )
    .unwrap();
    let out = crate::common::toolscout()
        .args(["eval", "--mode", "all", "--json", "--tools"])
        .arg(&tools)
        .arg("--queries")
        .arg(&queries)
        .env_remove("TOOLSCOUT_MODELS_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "eval failed: {stderr}");
    assert!(stderr.contains("3 tools indexed"), "{stderr}");
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let hybrid = reports.iter().find(|r| r["mode"] == "hybrid").unwrap();
    assert_eq!(hybrid["recall_at_1"], 100.0, "{reports:?}");
}

/// `eval/mcp/tools.jsonl` is the shipped catalog in MCP shape (`eval/mcp/convert.py`): the
/// suite's `*-mcp` sets measure what the catalog's tools are worth when a server gives only
/// names, descriptions and input schemas. A catalog change without re-running the script
/// would quietly measure an older catalog.
#[test]
fn the_mcp_shaped_set_is_the_catalog_of_today() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("eval/mcp/tools.jsonl")).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut records = Vec::new();
    for category in std::fs::read_dir(root.join("catalog")).unwrap() {
        let category = category.unwrap().path();
        if !category.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&category).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "json") {
                let record: Value =
                    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
                records.push(record);
            }
        }
    }
    let stale = "re-run python3 eval/mcp/convert.py";
    assert_eq!(entries.len(), records.len(), "{stale}");
    for record in &records {
        let id = &record["tool_id"];
        let entry = entries
            .iter()
            .find(|e| &e["name"] == id)
            .unwrap_or_else(|| panic!("{id} missing: {stale}"));
        assert_eq!(entry["title"], record["name"], "{id}: {stale}");
        assert_eq!(entry["description"], record["description"], "{id}: {stale}");
        // A record without an input schema takes nothing, as the script writes it.
        let schema = match &record["input_schema"] {
            Value::Null => serde_json::json!({"type": "object", "properties": {}}),
            schema => schema.clone(),
        };
        assert_eq!(entry["inputSchema"], schema, "{id}: {stale}");
    }
}

/// `--per-query` keeps each query's outcome and `--compare` pairs two runs query by query:
/// a tool whose description stopped saying what it does loses its query, and the comparison
/// says which measure moved, how many queries each way and with what p-value.
#[test]
fn two_runs_compare_query_by_query() {
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("queries.jsonl");
    std::fs::write(
        &queries,
        [
            r#"{"qid": "w", "query": "weather forecast for Paris", "relevant": ["weather"]}"#,
            r#"{"qid": "s", "query": "what do ACME shares trade at", "relevant": ["stocks"]}"#,
            r#"{"qid": "n", "query": "latest news headlines", "relevant": ["news"]}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let tool = |id: &str, description: &str| {
        format!(r#"{{"id": "{id}", "name": "{id}", "description": "{description}"}}"#)
    };
    let run = |name: &str, stocks: &str| {
        let tools = dir.path().join(format!("{name}.tools.jsonl"));
        let lines = [
            tool("weather", "Weather forecast for a city"),
            tool("stocks", stocks),
            tool("news", "Latest news headlines"),
        ];
        std::fs::write(&tools, lines.join("\n")).unwrap();
        let per_query = dir.path().join(format!("{name}.jsonl"));
        let out = crate::common::toolscout()
            .args(["eval", "--mode", "keyword", "--tools"])
            .arg(&tools)
            .arg("--queries")
            .arg(&queries)
            .arg("--per-query")
            .arg(&per_query)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        per_query
    };
    let old = run("old", "Prices of shares on the market");
    let new = run("new", "Recipes for dinner");
    let rows = std::fs::read_to_string(&old).unwrap();
    assert_eq!(rows.lines().count(), 3, "{rows}");
    let row: Value = serde_json::from_str(rows.lines().nth(1).unwrap()).unwrap();
    assert_eq!(row["measure"], "keyword");
    assert_eq!(row["qid"], "s");
    assert_eq!(row["score"], 1.0);
    assert_eq!(row["top"][0], "stocks");
    assert_eq!(row["gold"], "stocks");

    let compare = |json: bool| {
        let mut cmd = crate::common::toolscout();
        cmd.args(["eval", "--compare"]).arg(&old).arg(&new);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let report: Value = serde_json::from_str(&compare(true)).unwrap();
    let delta = &report["deltas"][0];
    assert_eq!(delta["measure"], "keyword");
    assert_eq!(
        (delta["queries"].as_u64(), delta["down"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(
        (delta["up"].as_u64(), delta["tools"].as_u64()),
        (Some(0), Some(1))
    );
    assert!(delta["new"].as_f64() < delta["old"].as_f64(), "{delta}");
    // One query moved: chance moves one query as far, so nothing counts as worse.
    assert_eq!(delta["p_value"], 1.0);
    let text = compare(false);
    assert!(text.contains("worse at p < 0.05: none"), "{text}");

    // A malformed file is named with its line; one file is not a comparison.
    std::fs::write(&new, "{\"set\": 1}\n").unwrap();
    let out = crate::common::toolscout()
        .args(["eval", "--compare"])
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("new.jsonl line 1"), "{stderr}");
    let out = crate::common::toolscout()
        .args(["eval", "--compare"])
        .arg(&old)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

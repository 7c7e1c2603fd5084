//! Retrieval-quality floor: `toolscout eval` on a fixed 1,000-query sample of the MetaTool
//! development set (tests/fixtures/metatool), with the real model. A regression floor, not
//! the goal: hybrid NDCG@5 must stay at or above 70 and within a point of the better of
//! keyword-only and semantic-only. Also: the development suite's table, tools read in the
//! shape of an MCP `tools/list` result, the suite's copy of the catalog in that shape, and two
//! runs compared query by query.

use crate::common::fixtures;
use serde_json::Value;

#[test]
fn hybrid_search_clears_the_quality_floor() {
    let dir = fixtures().join("metatool");
    let out = crate::common::toolscout()
        .args(["eval", "--mode", "all", "--json", "--tools"])
        .arg(dir.join("tools.jsonl"))
        .arg("--queries")
        .arg(dir.join("queries_sample.jsonl"))
        .env_remove("TOOLSCOUT_MODELS_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "eval failed: {stderr}");
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON report");
    let ndcg = |mode: &str| {
        reports
            .iter()
            .find(|r| r["mode"] == mode)
            .and_then(|r| r["ndcg_at_5"].as_f64())
            .unwrap_or_else(|| panic!("no {mode} report in {reports:?}"))
    };
    let (keyword, semantic, hybrid) = (ndcg("keyword"), ndcg("semantic"), ndcg("hybrid"));
    eprintln!("NDCG@5 keyword {keyword:.1}, semantic {semantic:.1}, hybrid {hybrid:.1}");
    for r in &reports {
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
    assert!(
        hybrid >= keyword.max(semantic) - 1.0,
        "hybrid {hybrid:.1} falls more than a point below the better single mode ({keyword:.1} / {semantic:.1})"
    );
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
    let out = crate::common::toolscout()
        .arg("eval")
        .args(args)
        .arg("--tools")
        .arg(dir.join("tools.jsonl"))
        .arg("--queries")
        .arg(dir.join(queries))
        .env_remove("TOOLSCOUT_MODELS_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "eval failed: {stderr}");
    serde_json::from_slice(&out.stdout).expect("JSON report")
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

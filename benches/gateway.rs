//! The gateway's catalog at scale, with the real model: upstream tools (a `tools/list` file
//! source of synthetic MCP tools, each with a description and a two-parameter schema) beside
//! the shipped catalog.
//! 1. Search latency with 500 upstream tools beside the shipped 78, against the shipped
//!    catalog alone, in one run (the response cache off, so each search embeds its query).
//! 2. A reload after one upstream tool of 1,000 changed: reading the sources again, building
//!    the indexes (the vector cache spares the unchanged tools their embedding) and the swap.
//!
//! Run: `cargo bench --bench gateway` (after `make models`). Prints p50s.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolscout::config::{Config, Overrides};
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::mcp::gateway::{open_catalog, Loader};
use toolscout::service::{LoadReport, Service};

const VERBS: [&str; 12] = [
    "lists",
    "creates",
    "deletes",
    "updates",
    "searches",
    "exports",
    "imports",
    "validates",
    "summarises",
    "schedules",
    "archives",
    "translates",
];
const NOUNS: [&str; 16] = [
    "invoices",
    "calendar events",
    "support tickets",
    "container images",
    "dns records",
    "spreadsheet rows",
    "chat messages",
    "build artifacts",
    "customer accounts",
    "log streams",
    "feature flags",
    "payment refunds",
    "map routes",
    "weather alerts",
    "video captions",
    "database backups",
];
const QUERIES: [&str; 8] = [
    "find where a function is called",
    "read a file from a github repository",
    "refund a customer payment",
    "list the feature flags of a project",
    "translate the captions of a video",
    "search the support tickets",
    "back up the database",
    "what is in this directory",
];

/// `n` synthetic upstream tools; tool `changed` gets a different description when `edited`.
fn tools_list(n: usize, edited: bool) -> Value {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            let (verb, noun) = (
                VERBS[i % VERBS.len()],
                NOUNS[(i / VERBS.len()) % NOUNS.len()],
            );
            let mut description = format!(
                "{verb} {noun} of workspace {} through the service's API, with filters and paging",
                i % 7
            );
            if edited && i == 0 {
                description.push_str(", now also by owner");
            }
            json!({
                "name": format!("tool_{i}"),
                "description": description,
                "inputSchema": {"type": "object", "properties": {
                    "query": {"type": "string", "description": format!("What {noun} to {verb}")},
                    "limit": {"type": "integer", "description": "How many to return"}
                }, "required": ["query"]}
            })
        })
        .collect();
    json!({"serverInfo": {"name": "synthetic"}, "tools": tools})
}

/// A service over the shipped catalog and, with `upstream` tools, a file source of them.
fn service(dir: &Path, upstream: usize, embedder: &Arc<dyn Embedder>) -> Service {
    let catalog = toolscout::config::default_dir("catalog");
    let mut text = format!(
        "[search]\ncache_enabled = false\n\n[[sources]]\nname = \"shipped\"\nkind = \"dir\"\npath = {:?}\n",
        catalog.to_string_lossy()
    );
    if upstream > 0 {
        std::fs::write(
            dir.join("tools.json"),
            tools_list(upstream, false).to_string(),
        )
        .unwrap();
        text.push_str("\n[[sources]]\nname = \"up\"\nkind = \"file\"\npath = \"tools.json\"\n");
    }
    let file = dir.join("toolscout.toml");
    std::fs::write(&file, text).unwrap();
    let flags = Overrides {
        config_file: Some(file),
        cache_dir: Some(dir.join("cache")),
        log_dir: Some(Default::default()),
        ..Overrides::default()
    };
    let config = Config::from_sources(&flags, &BTreeMap::new(), dir).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (catalog, sources) = rt
        .block_on(open_catalog(&config, Some(embedder.as_ref()), &|_| {}))
        .unwrap();
    let load = LoadReport {
        sources,
        ..LoadReport::default()
    };
    let mut service = Service::new(
        config.clone(),
        Arc::new(catalog),
        Ok(embedder.clone()),
        load,
    )
    .unwrap();
    service.set_loader(Arc::new(Loader { config }));
    service
}

fn p50(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[(times.len() - 1) / 2].as_secs_f64() * 1e3
}

fn search_p50(service: &Service, rt: &tokio::runtime::Runtime) -> f64 {
    let times = (0..240)
        .map(|i| {
            let body = json!({"query": QUERIES[i % QUERIES.len()], "max_results": 10});
            let start = Instant::now();
            rt.block_on(service.search(&body)).unwrap();
            start.elapsed()
        })
        .collect();
    p50(times)
}

fn main() {
    let models = toolscout::config::default_dir("models");
    let embedder: Arc<dyn Embedder> =
        Arc::new(OnnxEmbedder::load(&models).unwrap_or_else(|e| panic!("{e} (run `make models`)")));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let shipped_dir = tempfile::tempdir().unwrap();
    let shipped = service(shipped_dir.path(), 0, &embedder);
    let with_dir = tempfile::tempdir().unwrap();
    let with = service(with_dir.path(), 500, &embedder);
    let (a, b) = (search_p50(&shipped, &rt), search_p50(&with, &rt));
    println!(
        "search p50: shipped catalog ({} tools) {a:.2} ms; with 500 upstream tools ({} tools) {b:.2} ms ({:.2}x)",
        shipped.catalog().len(),
        with.catalog().len(),
        b / a
    );

    let big_dir = tempfile::tempdir().unwrap();
    let big = service(big_dir.path(), 1000, &embedder);
    let mut times = Vec::new();
    let mut last = None;
    for round in 0..5 {
        let edited = round % 2 == 0;
        let file = big_dir.path().join("tools.json");
        std::fs::write(&file, tools_list(1000, edited).to_string()).unwrap();
        let start = Instant::now();
        let reloaded = rt.block_on(big.reload()).unwrap();
        times.push(start.elapsed());
        assert_eq!(reloaded.changed.len(), 1, "{reloaded:?}");
        last = Some(reloaded);
    }
    let last = last.unwrap();
    println!(
        "reload after one of 1,000 upstream tools changed ({} tools): p50 {:.0} ms over 5 (last: reading {:.0} ms, indexes {:.0} ms)",
        big.catalog().len(),
        p50(times),
        last.load_ms,
        last.index_ms
    );
}

//! What MCP discovery saves an agent's context: the tokens of `tools/list` with the five
//! meta-tools, against listing every executable tool directly (`--expose-tools` without the
//! meta-tools) and against every catalog tool with its input schema, counted with the
//! embedding model's own tokenizer. The figures are printed for the README.

use crate::common::shipped_catalog;
use crate::mcp::connect;
use serde_json::{json, Value};
use tokenizers::Tokenizer;
use toolscout::catalog::Catalog;
use toolscout::mcp::Options;

fn tokens(text: &str) -> usize {
    let path = toolscout::config::default_dir("models").join("tokenizer.json");
    let mut t =
        Tokenizer::from_file(&path).unwrap_or_else(|e| panic!("tokenizer {}: {e}", path.display()));
    // The model's file truncates at 256 tokens; a listing must be counted whole.
    t.with_truncation(None).expect("truncation off");
    t.encode(text, false).expect("encode").len()
}

/// The `tools/list` result's JSON text for these tools.
fn listing(tools: &[Value]) -> String {
    json!({ "tools": tools }).to_string()
}

#[tokio::test]
async fn meta_tools_cost_a_fraction_of_listing_every_tool() {
    let (client, _) = connect(Options::default()).await;
    let meta: Vec<Value> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    client.cancel().await.unwrap();
    let exposed = Options {
        expose_tools: true,
        ..Options::default()
    };
    let (client, _) = connect(exposed).await;
    let direct: Vec<Value> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .skip(meta.len())
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    client.cancel().await.unwrap();
    let (catalog, _) = Catalog::load(&shipped_catalog()).unwrap();
    let every: Vec<Value> = catalog
        .tools()
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
        .collect();
    let (m, d, e) = (
        tokens(&listing(&meta)),
        tokens(&listing(&direct)),
        tokens(&listing(&every)),
    );
    eprintln!(
        "tools/list tokens: {} meta-tools {m}; {} executable tools listed directly {d} ({:.1}x); \
         all {} catalog tools with schemas {e} ({:.1}x)",
        meta.len(),
        direct.len(),
        d as f64 / m as f64,
        every.len(),
        e as f64 / m as f64
    );
    assert_eq!(meta.len(), 6);
    assert!(m < d && d < e, "meta {m}, direct {d}, every {e}");
}

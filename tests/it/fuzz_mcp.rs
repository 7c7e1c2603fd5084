//! Fuzzing of the MCP door, in process: arbitrary arguments to each meta-tool through rmcp's
//! own client (every call answers, an unusable one with `isError` and a fixable message),
//! and malformed lines on the newline-delimited stdio transport (a 100,000-deep line, text
//! that is not JSON, JSON that is not JSON-RPC, unknown methods, a 4 MB line, a 17 MB line
//! over the transport's line limit), after which the same session must still answer a
//! request.

use crate::mcp::connect;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use rmcp::model::CallToolRequestParams;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolscout::mcp::{serve_io, Options};

const META_TOOLS: &[&str] = &[
    "search_tools",
    "recommend_tools",
    "compare_tools",
    "describe_tool",
    "call_tool",
];

/// Argument objects: each meta-tool's own argument names and others, any JSON values.
fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        Just(json!(-0.5)),
        "\\PC{0,16}".prop_map(Value::String),
        any::<String>().prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("\\PC{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    let name = prop_oneof![
        proptest::sample::select(vec![
            "query",
            "task_description",
            "tool_ids",
            "name",
            "tool",
            "queries",
            "max_results",
            "category",
            "response_format",
            "detail_level",
        ])
        .prop_map(str::to_string),
        "\\PC{0,8}",
    ];
    proptest::collection::btree_map(name, value, 0..5).prop_map(|m| m.into_iter().collect())
}

#[test]
fn meta_tools_answer_any_arguments() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (client, _) = runtime.block_on(connect(Options::default()));
    let mut runner = TestRunner::new(crate::fuzz_doors::cases(128));
    let cases = (proptest::sample::select(META_TOOLS), arguments());
    let outcome = runner.run(&cases, |(tool, args)| {
        let request = CallToolRequestParams::new(tool.to_string()).with_arguments(args.clone());
        let result = runtime
            .block_on(async {
                tokio::time::timeout(Duration::from_secs(60), client.call_tool(request)).await
            })
            .map_err(|_| TestCaseError::fail(format!("{tool} hung on {args:?}")))?;
        let result = result.map_err(|e| TestCaseError::fail(format!("{tool} {args:?}: {e}")))?;
        if result.is_error == Some(true) {
            let text = result.content[0]
                .as_text()
                .map(|t| t.text.clone())
                .unwrap_or_default();
            prop_assert!(
                !text.trim().is_empty(),
                "{tool}: an error without a message"
            );
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

type Lines = BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>;

/// Lines from `reader` until the answer to request `id`, and the ids of the messages before.
async fn answer_to(reader: &mut Lines, id: u64) -> (Value, Vec<Value>) {
    let mut before = Vec::new();
    loop {
        let mut line = String::new();
        let n = reader
            .read_line(&mut line)
            .await
            .expect("the server's output");
        assert!(n > 0, "the session ended before answering request {id}");
        let message: Value = serde_json::from_str(&line).expect("the server writes JSON lines");
        if message["id"] == id {
            return (message, before);
        }
        before.push(message["id"].clone());
    }
}

#[tokio::test]
async fn malformed_lines_leave_the_session_answering() {
    let service = Arc::new(crate::mcp::service_with(&Default::default()));
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        serve_io(
            service,
            Options::default(),
            (read, write),
            std::future::pending(),
        )
        .await
    });
    let (read, mut write) = tokio::io::split(client_io);
    let mut reader = BufReader::new(read);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "0"}}});
    write
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    let (answer, _) = tokio::time::timeout(Duration::from_secs(30), answer_to(&mut reader, 1))
        .await
        .unwrap();
    assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    write
        .write_all(format!("{initialized}\n").as_bytes())
        .await
        .unwrap();

    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let long = json!({"jsonrpc": "2.0", "method": "notifications/x", "params": {"t": "é".repeat(2 << 20)}});
    let bad_lines = [
        deep,
        "this is not JSON".to_string(),
        "[1, 2, 3]".to_string(),
        "{\"jsonrpc\": \"2.0\"}".to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search_tools", "arguments": 5}}).to_string(),
        json!({"jsonrpc": "2.0", "id": 4, "result": {}}).to_string(),
        long.to_string(),
        // Over rmcp's 16 MB line limit: dropped as it arrives, not buffered whole.
        format!("{{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"ping\", \"params\": {{\"pad\": \"{}\"}}}}", "x".repeat(17 << 20)),
    ];
    for line in bad_lines {
        write.write_all(line.as_bytes()).await.unwrap();
        write.write_all(b"\n").await.unwrap();
    }
    let list = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
    write
        .write_all(format!("{list}\n").as_bytes())
        .await
        .unwrap();
    let (answer, before) = tokio::time::timeout(Duration::from_secs(30), answer_to(&mut reader, 9))
        .await
        .expect("tools/list answered after the malformed lines");
    assert_eq!(
        answer["result"]["tools"].as_array().map(Vec::len),
        Some(6),
        "{answer}"
    );
    assert!(
        !before.contains(&json!(5)),
        "the over-long line was read: {before:?}"
    );
}

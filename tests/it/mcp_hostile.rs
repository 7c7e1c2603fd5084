//! Hostile text through every MCP meta-tool, prompt and resource: the texts and request
//! bodies `hostile_inputs.rs` sends through every HTTP route, here as tool arguments. Each
//! gets a result (an answer, or `isError` with the ErrorDetail) or, for prompts and
//! resources, a JSON-RPC error the client can fix: never an internal error, never a dead
//! session.

use crate::hostile_inputs::{discovery_bodies, texts};
use crate::mcp::connect;
use rmcp::model::{
    CallToolRequestParams, ErrorCode, GetPromptRequestParams, ReadResourceRequestParams,
};
use rmcp::ServiceError;
use serde_json::{json, Value};
use toolscout::mcp::Options;

/// The MCP meta-tool answering what an HTTP route answers.
fn meta_tool(route: &str) -> &'static str {
    match route {
        "/search" => "search_tools",
        "/recommend" => "recommend_tools",
        "/compare" => "compare_tools",
        other => panic!("no meta-tool for {other}"),
    }
}

fn calls(t: &str) -> Vec<(&'static str, Value)> {
    let mut out: Vec<(&'static str, Value)> = discovery_bodies(t)
        .into_iter()
        .map(|(route, body)| (meta_tool(route), body))
        .collect();
    let query =
        json!({"id": "h", "researchGoal": t, "reasoning": t, "pattern": t, "path": "src/mcp"});
    out.extend([
        ("describe_tool", json!({"name": t})),
        ("call_tool", json!({"name": t, "queries": [{"pattern": t}]})),
        ("call_tool", json!({"name": "localSearchCode", "queries": [query]})),
        ("call_tool", json!({"name": "localFindFiles", "queries": [{"id": "h", "researchGoal": t, "reasoning": t, "path": t, "name": t}]})),
    ]);
    out
}

/// A protocol error is fine when it is the client's to fix; an internal one is not.
fn fixable(e: &ServiceError, what: &str) {
    if let ServiceError::McpError(data) = e {
        assert_ne!(data.code, ErrorCode::INTERNAL_ERROR, "{what}: {data:?}");
    } else {
        panic!("{what}: the session failed: {e}");
    }
}

#[tokio::test]
async fn hostile_text_gets_an_answer_or_a_fixable_error_everywhere() {
    let (client, _) = connect(Options::default()).await;
    for t in texts() {
        let short: String = t.chars().take(40).collect();
        for (tool, args) in calls(&t) {
            let Value::Object(args) = args else {
                unreachable!()
            };
            let result = client
                .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
                .await
                .unwrap_or_else(|e| panic!("{tool} with {short:?}: {e}"));
            assert!(!result.content.is_empty(), "{tool} with {short:?}");
        }
        let Value::Object(args) = json!({"task": t}) else {
            unreachable!()
        };
        let mut prompt = GetPromptRequestParams::new("find-tool");
        prompt.arguments = Some(args);
        if let Err(e) = client.get_prompt(prompt).await {
            fixable(&e, &format!("prompt with {short:?}"));
        }
        if let Err(e) = client
            .get_prompt(GetPromptRequestParams::new(t.clone()))
            .await
        {
            fixable(&e, &format!("prompt named {short:?}"));
        }
        let uri = format!("toolscout://tools/{t}");
        if let Err(e) = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
        {
            fixable(&e, &format!("resource {short:?}"));
        }
    }
    // The session is still alive after all of it.
    assert_eq!(client.list_all_tools().await.unwrap().len(), 6);
    client.cancel().await.unwrap();
}

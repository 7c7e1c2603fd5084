//! Cancellation: a client that cancels a long tool call stops the work, not just the wait.
//! GitHub points at a local server that accepts a connection and never answers, so the call
//! would hang until the executor's timeout; after `notifications/cancelled` the server must
//! drop the request, which the fake sees as its connection closing.

use crate::mcp::connect_to;
use crate::mcp::service_with;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;
use toolscout::mcp::Options;

#[tokio::test]
async fn a_cancelled_call_stops_its_work() {
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let (accepted_tx, accepted) = tokio::sync::oneshot::channel();
    let (closed_tx, closed) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (mut socket, _) = silent.accept().await.unwrap();
        let _ = accepted_tx.send(());
        // Read (and ignore) the request until the client closes the connection.
        let mut buf = [0u8; 4096];
        while matches!(socket.read(&mut buf).await, Ok(n) if n > 0) {}
        let _ = closed_tx.send(Instant::now());
    });
    let env = BTreeMap::from([("TOOLSCOUT_GITHUB_API_URL".to_string(), url)]);
    let (client, _) = connect_to(std::sync::Arc::new(service_with(&env)), Options::default()).await;
    let Value::Object(args) = json!({"name": "githubSearchRepositories", "queries": [{
        "id": "c", "mainResearchGoal": "cancel a call", "researchGoal": "hang on GitHub",
        "reasoning": "the fake never answers", "keywordsToSearch": ["anything"]}]})
    else {
        unreachable!()
    };
    let params = CallToolRequestParams::new("call_tool").with_arguments(args);
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(20), accepted)
        .await
        .expect("the call reached the fake GitHub")
        .unwrap();
    let cancelled = Instant::now();
    handle
        .cancel(Some("the agent moved on".into()))
        .await
        .unwrap();
    let closed_at = tokio::time::timeout(Duration::from_secs(5), closed)
        .await
        .expect("the server dropped the GitHub request within 5 s of the cancellation")
        .unwrap();
    assert!(closed_at >= cancelled);
    // The session goes on.
    assert_eq!(client.list_all_tools().await.unwrap().len(), 6);
    client.cancel().await.unwrap();
}

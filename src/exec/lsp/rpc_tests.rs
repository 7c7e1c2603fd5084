//! Unit tests of `rpc.rs`: replies routed to their requests, server requests answered,
//! progress followed, closing and time limits.

use super::*;

#[tokio::test]
async fn responses_reach_their_requests_and_server_requests_are_answered() {
    let (tx, mut rx) = outgoing_queue();
    let shared = Arc::new(Shared::new(tx));
    shared.next_id.store(7, Ordering::Relaxed);
    let asking = {
        let shared = shared.clone();
        tokio::spawn(async move {
            shared
                .request("textDocument/definition", json!({}), Duration::from_secs(5))
                .await
        })
    };
    let sent = rx.recv().await.unwrap();
    let mut reader = BufReader::new(&sent[..]);
    let request = read_message(&mut reader).await.unwrap().unwrap();
    assert_eq!(
        (request["id"].as_u64(), request["method"].as_str()),
        (Some(7), Some("textDocument/definition"))
    );

    let folders = json!([{"uri": "file:///w", "name": "w"}]);
    route(
        &shared,
        json!({"jsonrpc": "2.0", "id": "s1", "method": "workspace/configuration", "params": {"items": [{}, {}]}}),
        &folders,
    );
    let reply = rx.recv().await.unwrap();
    let reply = read_message(&mut BufReader::new(&reply[..]))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (reply["id"].clone(), reply["result"].clone()),
        (json!("s1"), json!([null, null]))
    );
    route(
        &shared,
        json!({"jsonrpc": "2.0", "id": 3, "method": "made/up"}),
        &folders,
    );
    let reply = rx.recv().await.unwrap();
    let reply = read_message(&mut BufReader::new(&reply[..]))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reply["error"]["code"], -32601);

    let progress = |kind: &str| json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "load", "value": {"kind": kind}}});
    let readiness = || *shared.readiness.borrow();
    route(&shared, progress("begin"), &folders);
    assert_eq!((readiness().active, readiness().ready()), (1, false));
    route(&shared, progress("report"), &folders);
    route(&shared, progress("end"), &folders);
    assert_eq!((readiness().active, readiness().ready()), (0, true));
    let diagnostics = json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {"uri": "file:///w/a.ts", "diagnostics": []}});
    let fresh = Shared::new(outgoing_queue().0);
    route(&fresh, diagnostics, &folders);
    assert!(fresh.readiness.borrow().ready());

    route(
        &shared,
        json!({"jsonrpc": "2.0", "id": 7, "result": [1]}),
        &folders,
    );
    assert_eq!(asking.await.unwrap().unwrap(), json!([1]));
    assert!(lock(&shared.pending).is_empty());
}

#[tokio::test]
async fn closing_fails_the_pending_requests_and_every_later_one() {
    let (tx, mut rx) = outgoing_queue();
    let shared = Arc::new(Shared::new(tx));
    let failing = {
        let shared = shared.clone();
        tokio::spawn(async move {
            shared
                .request("x", Value::Null, Duration::from_secs(5))
                .await
        })
    };
    let _ = rx.recv().await.unwrap();
    shared.close("the language server exited".into());
    assert_eq!(
        failing.await.unwrap(),
        Err(RpcError::Closed("the language server exited".into()))
    );
    assert!(matches!(
        shared
            .request("y", Value::Null, Duration::from_secs(1))
            .await,
        Err(RpcError::Closed(_))
    ));
}

#[tokio::test]
async fn requests_time_out_and_cancel() {
    let (tx, mut rx) = outgoing_queue();
    let shared = Shared::new(tx);
    let e = shared
        .request("slow", Value::Null, Duration::from_millis(20))
        .await
        .unwrap_err();
    assert_eq!(
        e,
        RpcError::Timeout {
            method: "slow".into()
        }
    );
    assert!(lock(&shared.pending).is_empty());
    let _request = rx.recv().await.unwrap();
    let cancel = rx.recv().await.unwrap();
    let cancel = read_message(&mut BufReader::new(&cancel[..]))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (cancel["method"].as_str(), cancel["params"]["id"].as_u64()),
        (Some("$/cancelRequest"), Some(1))
    );
    assert!(RpcError::Server {
        code: -32801,
        message: "".into()
    }
    .not_ready());
    assert!(RpcError::Server {
        code: 1,
        message: "No Project.".into()
    }
    .not_ready());
    assert!(!RpcError::Server {
        code: -32603,
        message: "boom".into()
    }
    .not_ready());
}

//! The live catalog: `POST /catalog/reload` and SIGHUP read the catalog again and swap it in
//! without a restart; a catalog that cannot be read changes nothing, and the last good one
//! keeps serving.

use crate::client::{get, post_json};
use crate::common::fixtures;
use crate::server::Server;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

/// A copy of the good fixture catalog to edit.
fn catalog_copy(dir: &Path) {
    for entry in crate::common::files_under(&fixtures().join("good-catalog")) {
        let relative = entry.strip_prefix(fixtures().join("good-catalog")).unwrap();
        let target = dir.join(relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, target).unwrap();
    }
}

/// A minimal new tool: what a maintainer writes on day one.
fn new_tool() -> Value {
    json!({
        "tool_id": "stripe_counter",
        "name": "stripe-counter",
        "description": "Counts the stripes of a zebra in a photograph and reports how many there are, with a confidence for each stripe found.",
        "category": "notes"
    })
}

async fn top_hit(server: &Server, query: &str) -> String {
    let body = json!({"query": query, "max_results": 1, "search_mode": "keyword"}).to_string();
    let found = post_json(server, "/search", body).await;
    found.body["results"][0]["tool_id"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn a_changed_catalog_serves_after_a_reload_and_a_broken_one_never_does() {
    let dir = tempfile::tempdir().unwrap();
    catalog_copy(dir.path());
    // Without the watcher, so that only the reloads this test asks for happen.
    let server = Server::start(dir.path(), &["--no-watch"]);
    let before = get(&server, "/health").await.body["catalog"]["version"].clone();
    let file = dir.path().join("notes/stripe_counter.json");
    std::fs::write(&file, new_tool().to_string()).unwrap();
    let reloaded = post_json(&server, "/catalog/reload", "").await;
    assert_eq!(reloaded.status, 200, "{}", reloaded.body);
    let data = &reloaded.body["data"];
    assert_eq!(data["added"], json!(["stripe_counter"]), "{data}");
    assert_eq!(data["previous_version"], before);
    assert_ne!(data["version"], before);
    assert_eq!(
        top_hit(&server, "count zebra stripes").await,
        "stripe_counter"
    );

    // A broken file: the reload is refused with why, and the last good catalog serves on.
    std::fs::write(&file, "{ \"tool_id\": ").unwrap();
    let refused = post_json(&server, "/catalog/reload", "").await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert_eq!(refused.code(), "RELOAD_FAILED");
    assert!(
        refused.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid"),
        "{}",
        refused.body
    );
    assert_eq!(
        top_hit(&server, "count zebra stripes").await,
        "stripe_counter"
    );
    assert_eq!(
        get(&server, "/health").await.body["catalog"]["version"],
        data["version"]
    );

    // SIGHUP reloads too: the tool goes once its file does.
    std::fs::remove_file(&file).unwrap();
    let pid = server.child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-HUP", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let version = get(&server, "/health").await.body["catalog"]["version"].clone();
        if version == before {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "SIGHUP did not reload the catalog"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_ne!(
        top_hit(&server, "count zebra stripes").await,
        "stripe_counter"
    );
}

#[tokio::test]
async fn an_edited_catalog_file_is_served_within_two_seconds() {
    let dir = tempfile::tempdir().unwrap();
    catalog_copy(dir.path());
    let server = Server::start(dir.path(), &[]);
    let file = dir.path().join("notes/stripe_counter.json");
    std::fs::write(&file, new_tool().to_string()).unwrap();
    let written = Instant::now();
    while top_hit(&server, "count zebra stripes").await != "stripe_counter" {
        assert!(
            written.elapsed() < Duration::from_secs(2),
            "the new tool was not served within 2 s of its file"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A file saved half-way is not served; the last good catalog is.
    let version = get(&server, "/health").await.body["catalog"]["version"].clone();
    std::fs::write(&file, "{ \"tool_id\": ").unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        get(&server, "/health").await.body["catalog"]["version"],
        version
    );
    assert_eq!(
        top_hit(&server, "count zebra stripes").await,
        "stripe_counter"
    );
}

//! Hand-written entries that give no category: `catalog validate` warns and passes, and the
//! server places them in the nearest of the catalog's categories by meaning, marked inferred.

use crate::client::{get, post_json};
use crate::common::{files_under, shipped_catalog};
use crate::server::Server;
use serde_json::json;

/// `toolscout catalog validate <catalog>`: its exit code and all it printed.
fn validate(catalog: &std::path::Path) -> (Option<i32>, String) {
    let out = crate::common::toolscout()
        .args(["catalog", "validate"])
        .arg(catalog)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

#[tokio::test]
async fn an_entry_without_a_category_is_placed_in_the_nearest_by_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    for file in files_under(&shipped_catalog()) {
        let target = catalog.join(file.strip_prefix(shipped_catalog()).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&file, target).unwrap();
    }
    // What a maintainer knows on day one: an id, a name and what the tool does.
    let entry = json!({
        "tool_id": "pdf_page_text",
        "name": "pdf-page-text",
        "description": "Extracts the text of a PDF document page by page, keeping the reading order of columns and tables, so that reports and papers can be quoted or summarised."
    });
    std::fs::write(catalog.join("pdf_page_text.json"), entry.to_string()).unwrap();
    // The same entry inside a category directory must say its category.
    let misplaced =
        json!({"tool_id": "x_tool", "name": "x-tool", "description": entry["description"]});

    let (code, text) = validate(&catalog);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("category_inferred"), "{text}");

    let server = Server::start(&catalog, &[]);
    let tool = get(&server, "/catalog/tools/pdf_page_text").await;
    assert_eq!(tool.status, 200, "{}", tool.body);
    let data = &tool.body["data"];
    assert_eq!(data["category"], "documents", "{data}");
    assert_eq!(data["category_inferred"], true, "{data}");
    // Searchable at once: first by its name, and among the first hits for what it does
    // (next to the shipped tools that do the same with richer entries).
    let body = json!({"query": "pdf page text", "max_results": 3});
    let found = post_json(&server, "/search", body.to_string()).await;
    assert_eq!(
        found.body["results"][0]["tool_id"], "pdf_page_text",
        "{}",
        found.body
    );
    let body = json!({"query": "extract the text of a pdf page", "max_results": 3});
    let found = post_json(&server, "/search", body.to_string()).await;
    let ids: Vec<&str> = found.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["tool_id"].as_str())
        .collect();
    assert!(ids.contains(&"pdf_page_text"), "{}", found.body);
    // A tool with its own category says nothing of inference.
    let given = get(&server, "/catalog/tools/git_grep").await;
    assert!(
        given.body["data"].get("category_inferred").is_none(),
        "{}",
        given.body
    );

    std::fs::write(
        catalog.join("documents").join("x_tool.json"),
        misplaced.to_string(),
    )
    .unwrap();
    let (code, text) = validate(&catalog);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("expected category \"documents\" (the directory the file is in), found none"),
        "{text}"
    );
}

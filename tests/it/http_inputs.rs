//! Inputs the served OpenAPI document allows, which the server once refused or failed on:
//! found by running schemathesis against `/openapi.json`. Each test is the regression test of
//! one finding.

use crate::client::{get, post_json};
use crate::common::shipped_catalog;
use crate::server::Server;
use serde_json::Value;

/// JSON Schema counts 3.0 as an integer; serde's integer fields did not, and the request
/// failed after validation with a 500.
#[tokio::test]
async fn integral_floats_count_as_integers() {
    let server = Server::start(&shipped_catalog(), &[]);
    // (route, body, list that the limit bounds, its limit)
    for (path, body, list, limit) in [
        (
            "/search",
            r#"{"query": "grep", "max_results": 2.0}"#,
            "results",
            2,
        ),
        (
            "/recommend",
            r#"{"task_description": "search code in my repository", "max_recommendations": 3.0}"#,
            "recommendations",
            3,
        ),
    ] {
        let a = post_json(&server, path, body).await;
        assert_eq!(a.status, 200, "{path}: {}", a.body);
        assert!(
            a.body[list].as_array().unwrap().len() <= limit,
            "{}",
            a.body
        );
    }
    // Not a whole number: the schema's own error, naming the field.
    let body = r#"{"query": "grep", "max_results": 2.5}"#;
    let a = post_json(&server, "/search", body).await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.pointers(), ["/max_results"]);
}

/// Query-string values were typed by their looks: `q=404` became the number 404, which the
/// schema refused as "expected string".
#[tokio::test]
async fn numeric_looking_query_text_stays_text() {
    let server = Server::start(&shipped_catalog(), &[]);
    let a = get(&server, "/search?q=404&context=0&k=2").await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["query"], "404");
    let a = get(&server, "/search?q=true&include_examples=true").await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["query"], "true");
}

/// The document lists the categories the server accepts, so clients generating requests
/// from it send valid ones; its references all resolve from the document's root.
#[tokio::test]
async fn openapi_lists_the_served_catalogs_categories() {
    let server = Server::start(&shipped_catalog(), &[]);
    let status = get(&server, "/catalog/status").await;
    let categories: Vec<&str> = status.body["data"]["catalog"]["categories"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert!(categories.len() >= 12);
    let doc = get(&server, "/openapi.json").await.body;
    let param = |path: &str| -> Value {
        doc["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "category")
            .unwrap()["schema"]["enum"]
            .clone()
    };
    assert_eq!(param("/search"), serde_json::json!(categories));
    assert_eq!(param("/catalog/tools"), serde_json::json!(categories));
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["SearchRequest"]["properties"]["category"]["enum"],
        serde_json::json!(categories)
    );
    assert_eq!(
        schemas["ErrorResponse"]["properties"]["error"]["$ref"],
        "#/components/schemas/ErrorDetail"
    );
    assert!(schemas["ErrorDetail"].is_object());
}

/// Concise responses have their own, smaller shape; the document described only the detailed
/// one, so every concise body "violated" it. Each body here must match the document's 200
/// schema of its route, in both detail levels.
#[tokio::test]
async fn responses_match_the_documented_schemas_in_both_detail_levels() {
    let server = Server::start(&shipped_catalog(), &[]);
    let doc = get(&server, "/openapi.json").await.body;
    let schema_of = |path: &str| {
        let schema = serde_json::json!({
            "$ref": format!(
                "#/paths/{}/post/responses/200/content/application~1json/schema",
                path.replace('/', "~1")
            ),
            "paths": doc["paths"],
            "components": doc["components"],
        });
        toolscout::schema::Schema::compile(&schema).unwrap()
    };
    for (path, body) in [
        ("/search", r#"{"query": "search code in my repository"#),
        (
            "/recommend",
            r#"{"task_description": "find where JWTs are validated, then list callers"#,
        ),
    ] {
        let schema = schema_of(path);
        for detail in ["concise", "detailed"] {
            let a = post_json(
                &server,
                path,
                format!(r#"{body}", "detail_level": "{detail}"}}"#),
            )
            .await;
            assert_eq!(a.status, 200, "{}", a.body);
            let violations = schema.violations(&a.body);
            assert!(violations.is_empty(), "{path} {detail}: {violations:?}");
        }
    }
}

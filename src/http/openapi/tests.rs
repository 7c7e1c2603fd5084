//! Tests of `openapi`.

use super::*;

#[test]
fn documents_every_route_of_the_router_and_nothing_else() {
    let doc = document();
    let mut documented: Vec<(String, String)> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.push((method.to_uppercase(), path.clone()));
        }
    }
    documented.sort();
    let mut routes: Vec<(String, String)> = super::super::ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    routes.sort();
    assert_eq!(documented, routes);
}

#[test]
fn every_reference_resolves_and_embedded_schemas_compile() {
    let doc = document();
    let text = doc.to_string();
    let mut refs = 0;
    for part in text.split("\"$ref\":\"").skip(1) {
        let target = &part[..part.find('"').unwrap()];
        // Every reference resolves from the document's root: OpenAPI tools do not follow
        // references relative to an embedded schema's `$id`.
        let pointer = target
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("external {target}"));
        assert!(
            pointer.starts_with("/components/"),
            "not a component: {target}"
        );
        assert!(doc.pointer(pointer).is_some(), "dangling {target}");
        refs += 1;
    }
    assert!(
        refs > 10,
        "the embedded schemas' references are gone: {refs}"
    );
    assert!(!text.contains("\"$defs\"") && !text.contains("\"$id\""));
    for name in [
        "SearchRequest",
        "RecommendationRequest",
        "ComparisonRequest",
        "ToolMetadata",
        "CatalogValidateRequest",
        "ErrorResponse",
    ] {
        // Compiled as a reference into the document's components, as a client would.
        let schema = json!({
            "$ref": format!("#/components/schemas/{name}"),
            "components": doc["components"],
        });
        crate::schema::Schema::compile(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn hoisted_definitions_keep_validating_like_the_embedded_schemas() {
    // The document's ErrorResponse must accept a real error body and refuse a broken one,
    // through the hoisted ErrorDetail.
    let doc = document();
    let schema = crate::schema::Schema::compile(&json!({
        "$ref": "#/components/schemas/ErrorResponse",
        "components": doc["components"],
    }))
    .unwrap();
    let error = crate::error::Error::ToolNotFound {
        id: "ripgrp".into(),
        suggestions: vec!["ripgrep".into()],
    };
    let body = json!({ "success": false, "error": error.detail("catalog.get", Some("req-1")) });
    assert!(
        schema.violations(&body).is_empty(),
        "{:?}",
        schema.violations(&body)
    );
    let mut broken = body.clone();
    broken["error"]["error_code"] = json!(7);
    assert!(!schema.violations(&broken).is_empty());
}
#[test]
fn tool_error_codes_are_the_executors_list() {
    // The published enum is the executor's list, and a failed query's data fits it.
    let doc = document();
    let text = doc["components"]["schemas"]["ToolCallResult"].to_string();
    let names: Vec<&str> = crate::exec::ToolErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect();
    assert!(
        text.contains(&json!(names).to_string()),
        "ToolCallResult does not list the tool error codes"
    );
    let schema = crate::schema::Schema::compile(&json!({
        "$ref": "#/components/schemas/ToolCallResult",
        "components": doc["components"],
    }))
    .unwrap();
    let failed = crate::exec::QueryError::invalid("x").to_data();
    let body = json!({ "tool": "localSearchCode", "success": false, "hints": [], "research": {},
        "data": { "results": [{ "id": "q", "status": "error", "data": failed }] } });
    assert_eq!(schema.violations(&body), vec![]);
    let mut unknown = body.clone();
    unknown["data"]["results"][0]["data"]["errorCode"] = json!("noSuchCode");
    assert!(!schema.violations(&unknown).is_empty());
}

//! Unit tests of the MCP door's pure parts: the tool listing (schemas, descriptions), the
//! argument checks, and that every answer a meta-tool gives satisfies the output schema it
//! declares (clients such as the Python SDK reject one that does not).

use super::calls::required_name;
use super::listing;
use super::Options;
use crate::catalog::Catalog;
use crate::config::{Config, Overrides};
use crate::schema::Schema;
use crate::service::{LoadReport, Service};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn service() -> Service {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let flags = Overrides {
        catalog_dir: Some(root.join("catalog")),
        log_dir: Some(PathBuf::new()),
        cache_dir: Some(PathBuf::new()),
        ..Overrides::default()
    };
    let config = Config::from_sources(&flags, &BTreeMap::new(), root).unwrap();
    let (catalog, _) = Catalog::load(&config.catalog_dir).unwrap();
    let load = LoadReport::default();
    Service::new(config, Arc::new(catalog), Err("unit test".into()), load).unwrap()
}

fn output_schema(service: &Service, tool: &str) -> Schema {
    let tools = listing::tools(service, Options::default());
    let tool = tools.iter().find(|t| t.name == tool).unwrap();
    let schema = Value::Object((**tool.output_schema.as_ref().unwrap()).clone());
    Schema::compile(&schema).unwrap()
}

#[test]
fn every_input_schema_compiles_and_describes_an_object() {
    let service = service();
    let options = Options {
        expose_tools: true,
        require_discovery: false,
    };
    for tool in listing::tools(&service, options) {
        let schema = Value::Object((*tool.input_schema).clone());
        assert_eq!(schema["type"], "object", "{}", tool.name);
        Schema::compile(&schema).unwrap_or_else(|e| panic!("{}: {e}", tool.name));
    }
}

#[tokio::test]
async fn every_rendering_of_an_answer_satisfies_its_output_schema() {
    let service = service();
    for detail in ["concise", "detailed"] {
        let body = json!({"query": "search code", "max_results": 3, "detail_level": detail});
        let answer = service.search(&body).await.unwrap();
        let p = crate::format::Presentation::from_body(&body).unwrap();
        let crate::format::Rendered::Json(v) =
            crate::format::render_search(&answer.response, p).unwrap()
        else {
            panic!("json")
        };
        let violations = output_schema(&service, listing::SEARCH).violations(&v);
        assert!(violations.is_empty(), "{detail}: {violations:?}");

        let body = json!({"task_description": "grep then open the file", "detail_level": detail});
        let answer = service.recommend(&body).await.unwrap();
        let p = crate::format::Presentation::from_body(&body).unwrap();
        let crate::format::Rendered::Json(v) =
            crate::format::render_recommend(&answer.response, p).unwrap()
        else {
            panic!("json")
        };
        let violations = output_schema(&service, listing::RECOMMEND).violations(&v);
        assert!(violations.is_empty(), "{detail}: {violations:?}");
    }
    let body = json!({"tool_ids": ["ripgrep", "git_grep"]});
    let answer = service.compare(&body).await.unwrap();
    let v = serde_json::to_value(&answer.response).unwrap();
    assert!(output_schema(&service, listing::COMPARE)
        .violations(&v)
        .is_empty());
    let v = serde_json::to_value(service.describe_tool("ripgrep").unwrap()).unwrap();
    assert!(output_schema(&service, listing::DESCRIBE)
        .violations(&v)
        .is_empty());
}

#[test]
fn descriptions_name_the_catalog_and_the_runnable_tools() {
    let service = service();
    let tools = listing::tools(&service, Options::default());
    let call = tools.iter().find(|t| t.name == listing::CALL).unwrap();
    let description = call.description.as_deref().unwrap();
    for (name, _) in service.runnable_tools() {
        assert!(
            description.contains(name),
            "{name} missing from {description}"
        );
    }
    let n = service.catalog().len();
    assert!(listing::instructions(&service).contains(&format!("{n} tools")));
}

#[test]
fn a_name_argument_is_checked_with_every_violation() {
    assert_eq!(
        required_name(&json!({"name": "x"}), &["name"]).unwrap(),
        "x"
    );
    let e = required_name(&json!({"name": 3, "other": 1}), &["name"]).unwrap_err();
    let crate::error::Error::Validation { violations, .. } = e else {
        panic!("validation")
    };
    let pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
    assert_eq!(pointers, ["/other", "/name"]);
    assert!(required_name(&json!({"name": "  "}), &["name"]).is_err());
    assert!(required_name(&json!({}), &["name"]).is_err());
}

proptest! {
    // Any text as a tool name: a verdict, never a panic.
    #[test]
    fn any_name_gets_a_verdict(name in "\\PC{0,40}") {
        let args = json!({ "name": name.clone() });
        let verdict = required_name(&args, &["name"]);
        prop_assert_eq!(verdict.is_ok(), !name.trim().is_empty());
    }
}

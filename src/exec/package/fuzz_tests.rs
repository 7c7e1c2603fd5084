//! Fuzzing of how packageSearch reads the registries' answers: a loopback server answers
//! npm's and PyPI's routes with their own shapes, then one answer per case is replaced by
//! that shape with fields deleted, retyped or added, or by arbitrary JSON (a mirror of
//! another version, a broken proxy). Each query must end as a result that still fits the
//! tool's `return_schema`, or an error with its code and a message; never a panic.

use crate::catalog::Catalog;
use crate::exec::github::fake::{query, Fake};
use crate::exec::testing::assert_fits_return_schema;
use crate::exec::{Executor, Status, Tool};
use crate::fuzz_json::{mutate, mutation, value};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{json, Value};

fn manifest() -> Value {
    json!({
        "name": "express", "version": "5.1.0", "description": "Fast web framework", "license": "MIT",
        "repository": {"type": "git", "url": "git+https://github.com/expressjs/express.git"},
        "author": {"name": "TJ"}, "keywords": ["express", "web"], "homepage": "https://expressjs.test/",
        "engines": {"node": ">= 18"}, "dependencies": {"accepts": "^2.0.0"}, "types": "./index.d.ts",
    })
}

/// Each route packageSearch reads, with the registry's answer there.
fn routes() -> Vec<(&'static str, Value)> {
    let hit = |name: &str| {
        json!({"package": {"name": name, "version": "1.0.0", "description": "does things",
            "date": "2024-02-03T00:00:00.000Z", "keywords": ["web"],
            "links": {"npm": "https://npm.test/package/x", "repository": "https://github.com/o/r"}},
            "score": {"final": 0.9}})
    };
    vec![
        ("/express/latest", manifest()),
        (
            "/express",
            json!({"name": "express", "dist-tags": {"latest": "5.1.0"},
                "versions": {"4.0.0": {"name": "express", "version": "4.0.0"}, "5.1.0": manifest()},
                "time": {"modified": "2025-06-01T00:00:00.000Z", "5.1.0": "2025-03-31T14:00:00.000Z"}}),
        ),
        (
            "/-/v1/search",
            json!({"objects": [hit("express"), hit("koa")], "total": 2}),
        ),
        (
            "/pypi/requests/json",
            json!({"info": {"name": "requests", "version": "2.32.3", "summary": "HTTP for Humans.",
                "license": "Apache-2.0", "author": "K", "requires_python": ">=3.8",
                "requires_dist": ["idna<4,>=2.5"], "keywords": "http,client",
                "project_urls": {"Source": "https://github.com/psf/requests"}},
                "urls": [{"upload_time_iso_8601": "2024-05-29T15:37:47.000Z"}]}),
        ),
    ]
}

/// Queries that read the routes above: exact npm, npm with the full document, an npm
/// keyword search, exact PyPI.
fn calls() -> Vec<Value> {
    vec![
        json!({"name": "express", "ecosystem": "npm"}),
        json!({"name": "express", "ecosystem": "npm", "npmFetchMetadata": true}),
        json!({"name": "web framework", "ecosystem": "npm", "searchLimit": 3}),
        json!({"name": "requests", "ecosystem": "python"}),
    ]
}

fn executor(fake: &Fake, catalog: &Catalog) -> Executor {
    let mut config = crate::config::ExecConfig::for_workspace(fake.dir());
    config.npm_registry = Some(fake.base.clone());
    config.pypi_url = Some(format!("{}/", fake.base));
    Executor::new(config, catalog).unwrap()
}

#[test]
fn package_search_reads_any_registry_answer_to_a_result_or_an_error() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let fake = runtime.block_on(Fake::start());
    let routes = routes();
    for (path, body) in &routes {
        fake.on(path, body.clone());
    }
    let (catalog, _) = Catalog::load(&crate::config::default_dir("catalog")).expect("catalog");
    // The unbroken answers give results, so the cases below start from a working call.
    for fields in calls() {
        let executor = executor(&fake, &catalog);
        let call = executor.call(Tool::PackageSearch, vec![query(fields.clone())]);
        let result = runtime.block_on(call);
        let done = &result.results[0];
        assert_eq!(done.status, Status::HasResults, "{fields}: {}", done.data);
    }
    let broken = prop_oneof![
        3 => proptest::collection::vec(mutation(), 1..4).prop_map(Some),
        1 => Just(None),
    ];
    let cases = (0..calls().len(), 0..routes.len(), broken, value());
    let mut runner = TestRunner::new(crate::fuzz_json::config(128));
    let outcome = runner.run(&cases, |(call, route, mutations, arbitrary)| {
        let (path, body) = &routes[route];
        let answer = match &mutations {
            Some(m) => mutate(body.clone(), m),
            None => arbitrary.clone(),
        };
        fake.on(path, answer);
        // A fresh executor: the circuit breaker of one case must not refuse the next.
        let executor = executor(&fake, &catalog);
        let fields = query(calls()[call].clone());
        let result = runtime.block_on(executor.call(Tool::PackageSearch, vec![fields]));
        fake.on(path, body.clone());
        let done = &result.results[0];
        if done.status == Status::Error {
            prop_assert!(done.data["errorCode"].is_string(), "{}", done.data);
            let message = done.data["error"].as_str().unwrap_or("");
            prop_assert!(!message.trim().is_empty(), "{}", done.data);
        } else {
            assert_fits_return_schema(Tool::PackageSearch, &done.data);
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

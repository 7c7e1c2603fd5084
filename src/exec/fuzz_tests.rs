//! Fuzzing of every tool's argument parsing, through the executor as a call runs: the input
//! schema, then the tool's own parsing (paths through the sandbox, globs, regexes, sizes and
//! dates, line ranges, GitHub qualifiers, package names), then the run. Arguments are each
//! tool's catalog example (pointed at the fixture tree) with fields deleted, retyped or
//! added, the example with a few values swapped for hostile ones of the same JSON type (so
//! they pass the schema's type checks and reach the tool's parser), or objects of arbitrary
//! JSON. GitHub and the registries are a loopback fake that answers 404,
//! language servers are configured to a program that does not exist (the text fallback
//! answers), and the workspace is a small temporary tree.
//!
//! Every query must end as a result: a success whose data fits the tool's `return_schema`,
//! or an error with its `errorCode` and a message; never a panic, never a hang.

use super::github::fake::Fake;
use super::testing::assert_fits_return_schema;
use super::{Executor, Status, Tool};
use crate::catalog::Catalog;
use crate::config::ExecConfig;
use crate::fuzz_json::{mutate, mutation, value};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// Each tool's first catalog example.
fn seeds(catalog: &Catalog) -> BTreeMap<Tool, Map<String, Value>> {
    catalog
        .executable()
        .filter_map(|record| {
            let tool = Tool::from_name(&record.execution.as_ref()?.name)?;
            let mut args = record.examples.first()?.arguments.as_object()?.clone();
            localise(tool, &mut args);
            Some((tool, args))
        })
        .collect()
}

/// Replaces the `at`-th leaf (modulo the number of leaves) by a value of the same JSON type:
/// a hostile text for a string, an edge integer for an integer, the other boolean. The
/// schema's type checks still pass, so the tool's own parsing sees the value.
fn retype_leaf(doc: &mut Value, at: usize, text: &str, number: i64) {
    fn leaves<'a>(v: &'a mut Value, out: &mut Vec<&'a mut Value>) {
        match v {
            Value::Array(items) => items.iter_mut().for_each(|v| leaves(v, out)),
            Value::Object(map) => map.values_mut().for_each(|v| leaves(v, out)),
            leaf => out.push(leaf),
        }
    }
    let mut all = Vec::new();
    leaves(doc, &mut all);
    let count = all.len();
    let Some(leaf) = all.into_iter().nth(at % count.max(1)) else {
        return;
    };
    match leaf {
        Value::String(s) => *s = text.to_string(),
        Value::Number(n) if n.is_f64() => *leaf = Value::from(number as f64 / 7.0),
        Value::Number(_) => *leaf = Value::from(number),
        Value::Bool(b) => *b = !*b,
        _ => {}
    }
}

/// Integers at the edges of the ranges tools accept (line numbers, limits, depths, pages).
fn edge_integer() -> impl Strategy<Value = i64> {
    prop_oneof![
        proptest::sample::select(vec![0, 1, -1, 2, 3, 100, 1 << 31, i64::MAX, i64::MIN]),
        -5i64..5_000,
    ]
}

/// The tool's workspace-bound example fields pointed at the fixture tree, so that queries
/// get past "file not found" into the tool's own parsing.
fn localise(tool: Tool, args: &mut Map<String, Value>) {
    let set = |args: &mut Map<String, Value>, k: &str, v: Value| {
        if args.contains_key(k) {
            args.insert(k.into(), v);
        }
    };
    match tool {
        Tool::LocalGetFileContent => set(args, "path", "src/lib.rs".into()),
        Tool::LocalSearchCode | Tool::LocalFindFiles | Tool::LocalViewStructure => {
            set(args, "path", ".".into())
        }
        Tool::LspGotoDefinition | Tool::LspFindReferences | Tool::LspCallHierarchy => {
            set(args, "uri", "src/app.ts".into());
            set(args, "symbolName", "listen".into());
            set(args, "lineHint", 1.into());
        }
        _ => {}
    }
}

fn arguments(seed: Map<String, Value>) -> impl Strategy<Value = Map<String, Value>> {
    let keys: Vec<String> = seed.keys().cloned().collect();
    let doc = Value::Object(seed);
    let mutated = {
        let doc = doc.clone();
        proptest::collection::vec(mutation(), 1..4).prop_map(move |m| mutate(doc.clone(), &m))
    };
    let leaf = (
        any::<usize>(),
        crate::hostile_text::short_text(),
        edge_integer(),
    );
    let retyped = proptest::collection::vec(leaf, 1..3).prop_map(move |picks| {
        let mut doc = doc.clone();
        for (at, text, number) in picks {
            retype_leaf(&mut doc, at, &text, number);
        }
        doc
    });
    let key = prop_oneof![proptest::sample::select(keys), "[a-zA-Z]{1,12}"];
    let arbitrary = proptest::collection::btree_map(key, value(), 0..6)
        .prop_map(|m| Value::Object(m.into_iter().collect()));
    prop_oneof![2 => mutated, 4 => retyped, 1 => arbitrary].prop_map(|v| match v {
        Value::Object(map) => map,
        _ => Map::new(),
    })
}

/// A workspace with a few files of the languages the LSP tools know, and a config pointing
/// every upstream at `fake` and every language server at nothing.
fn config(fake: &Fake) -> ExecConfig {
    let root = fake.dir();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn verify(token: &str) -> bool {\n    !token.is_empty()\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/app.ts"),
        "export function listen(port: number) {\n  return port;\n}\nlisten(1);\n",
    )
    .unwrap();
    std::fs::write(root.join("README.md"), "# fixture\n\nverify tokens\n").unwrap();
    let mut config = ExecConfig::for_workspace(root);
    config.github_api_url = fake.base.clone();
    config.npm_registry = Some(fake.base.clone());
    config.pypi_url = Some(fake.base.clone());
    for lang in ["typescript", "rust", "python", "go"] {
        let missing = root.join("no-such-language-server").display().to_string();
        config.lsp_servers.insert(lang.into(), vec![missing]);
    }
    config
}

#[test]
fn every_tool_ends_each_query_with_a_result_or_an_explained_error() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let fake = runtime.block_on(Fake::start());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
    let (catalog, _) = Catalog::load(&dir).expect("the shipped catalog loads");
    let seeds = seeds(&catalog);
    assert_eq!(seeds.len(), Tool::ALL.len(), "every tool has an example");
    let executor = Executor::new(config(&fake), &catalog).unwrap();
    let cases = (0..Tool::ALL.len()).prop_flat_map(move |i| {
        let tool = Tool::ALL[i];
        arguments(seeds[&tool].clone()).prop_map(move |args| (tool, args))
    });
    let mut runner = TestRunner::new(crate::fuzz_json::config(256));
    let outcome = runner.run(&cases, |(tool, args)| {
        let call = executor.call(tool, vec![args.clone()]);
        let result = runtime
            .block_on(async { tokio::time::timeout(Duration::from_secs(60), call).await })
            .map_err(|_| TestCaseError::fail(format!("{} hung on {args:?}", tool.name())))?;
        prop_assert_eq!(result.results.len(), 1);
        let answer = &result.results[0];
        if answer.status == Status::Error {
            prop_assert!(answer.failure.is_some());
            prop_assert!(answer.data["errorCode"].is_string(), "{}", answer.data);
            let message = answer.data["error"].as_str().unwrap_or("");
            prop_assert!(!message.trim().is_empty(), "{}", answer.data);
        } else {
            assert_fits_return_schema(tool, &answer.data);
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

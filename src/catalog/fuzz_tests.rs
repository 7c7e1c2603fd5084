//! Fuzzing of the catalog loader: arbitrary bytes, near-valid entries (a valid fixture with
//! fields deleted, retyped or added, then perhaps cut short) and deep nesting go through
//! `validate` beside three good files. Nothing may panic; every finding says where (a JSON
//! pointer), what was expected and what was found; the good files stay parsed whatever their
//! neighbour holds (only the cross-file checks may name them, when the broken file was the
//! tool they refer to).

use super::mcp::{record_from_mcp, schema_from_listing, McpServer, McpTool};
use super::validate::{validate, Severity, Source, Validation};
use super::{Catalog, ToolDocument};
use crate::fuzz_json::{deep_text, mutate, mutation, value};
use proptest::prelude::*;
use serde_json::{json, Value};

const GOOD: [(&str, &str); 3] = [
    (
        "notes/read_note.json",
        include_str!("../../tests/fixtures/good-catalog/notes/read_note.json"),
    ),
    (
        "notes/search_notes.json",
        include_str!("../../tests/fixtures/good-catalog/notes/search_notes.json"),
    ),
    (
        "export/export_note.json",
        include_str!("../../tests/fixtures/good-catalog/export/export_note.json"),
    ),
];

/// Findings a good file may get from a broken neighbour: the checks across files.
const CROSS_FILE: &[&str] = &["unknown_reference", "duplicate_id", "duplicate_name"];

fn source(label: &str, bytes: Vec<u8>) -> Source {
    let (dir, file) = label.split_once('/').expect("category/file.json");
    Source {
        label: label.to_string(),
        dir_category: Some(dir.to_string()),
        stem: file.strip_suffix(".json").map(str::to_string),
        bytes,
    }
}

/// The good files but the one at `skip` (usize::MAX: all three), then `extra`.
fn with(skip: usize, extra: Source) -> Vec<Source> {
    let mut out: Vec<Source> = GOOD
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != skip)
        .map(|(_, (label, text))| source(label, text.as_bytes().to_vec()))
        .collect();
    out.push(extra);
    out
}

/// Every finding located and worded "expected ..., found ...": where, what was expected,
/// what was there.
fn assert_explained(v: &Validation) {
    for d in &v.diagnostics {
        assert!(
            d.pointer.is_empty() || d.pointer.starts_with('/'),
            "not a JSON pointer: {d:?}"
        );
        assert!(
            d.message.contains("expected") && d.message.contains("found") && !d.file.is_empty(),
            "a finding that does not say what was expected: {d:?}"
        );
    }
}

/// The good files (all but `skip`) are parsed and carry no finding of their own.
fn assert_good_kept(v: &Validation, skip: usize) {
    for (i, (label, _)) in GOOD.iter().enumerate().filter(|(i, _)| *i != skip) {
        assert!(
            v.tools.iter().any(|(file, _)| file == label),
            "good file {i} lost: {:?}",
            v.diagnostics
        );
        let own: Vec<_> = v
            .diagnostics
            .iter()
            .filter(|d| d.file == *label && d.severity == Severity::Error)
            .filter(|d| !CROSS_FILE.contains(&d.code))
            .collect();
        assert!(own.is_empty(), "good file {label} blamed: {own:?}");
    }
}

fn errors_of(v: &Validation, label: &str) -> usize {
    v.diagnostics
        .iter()
        .filter(|d| d.file == label && d.severity == Severity::Error)
        .count()
}

proptest! {
    #![proptest_config(crate::fuzz_json::config(128))]

    /// Any bytes at all as a catalog file (JSON-ish prefixes make them reach the parser's
    /// later states): an error for that file, the three good ones kept.
    #[test]
    fn arbitrary_bytes_are_diagnosed_beside_good_files(
        prefix in prop_oneof![Just(""), Just("{"), Just("{\"tool_id\":"), Just("\u{feff}[")],
        bytes in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let mut all = prefix.as_bytes().to_vec();
        all.extend(bytes);
        let v = validate(&with(usize::MAX, source("fuzz/broken.json", all)));
        assert_explained(&v);
        assert_good_kept(&v, usize::MAX);
        prop_assert!(errors_of(&v, "fuzz/broken.json") > 0);
    }

    /// Catalog records from what an upstream MCP server lists (any JSON in each field of a
    /// `tools/list` entry): a record or a refused entry, its indexed text built and its
    /// input schema compiled or refused, never a panic.
    #[test]
    fn mcp_listings_become_records_or_are_refused(
        entry in proptest::collection::btree_map(
            proptest::sample::select(vec!["name", "title", "description", "inputSchema", "outputSchema", "annotations"]),
            value(),
            0..6,
        ),
        name in "\\PC{1,20}",
        described in proptest::option::of(value()),
    ) {
        let mut entry: serde_json::Map<String, Value> =
            entry.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        if !entry.contains_key("name") {
            entry.insert("name".into(), Value::String(name));
        }
        let server = McpServer { name: "fuzz".into(), title: None, description: described.map(|d| d.to_string()) };
        let Ok(tool) = serde_json::from_value::<McpTool>(Value::Object(entry)) else {
            return Ok(());
        };
        let record = record_from_mcp(&tool, Some(&server), "fuzz__tool".into(), "web".into());
        let document = ToolDocument::from_record(0, &record);
        prop_assert_eq!(document.tool_id, "fuzz__tool");
        let _ = crate::schema::Schema::compile(&record.input_schema);
    }

    /// Parameter listings written as text ("Parameters: a (string, required): ...; ..."),
    /// well formed or not: a schema object whose required names are all properties, or
    /// `None` when the text is not a listing.
    #[test]
    fn parameter_listings_in_text_parse_to_consistent_schemas(
        entries in proptest::collection::vec(
            ("\\PC{0,10}", "\\PC{0,10}", proptest::bool::ANY, crate::hostile_text::short_text()),
            0..5,
        ),
        noise in crate::hostile_text::short_text(),
        returns in proptest::option::of(crate::hostile_text::short_text()),
    ) {
        let mut text = String::from("Parameters: ");
        for (name, ty, required, description) in &entries {
            let required = if *required { ", required" } else { "" };
            text.push_str(&format!("{name} ({ty}{required}): {description}; "));
        }
        text.push_str(&noise);
        if let Some(returns) = &returns {
            text.push_str(&format!(" Returns: {returns}"));
        }
        let (schema, _) = schema_from_listing(&text).expect("a text that starts so is a listing");
        let properties = schema["properties"].as_object().expect("properties");
        for name in schema["required"].as_array().expect("required") {
            prop_assert!(properties.contains_key(name.as_str().unwrap_or("")), "{}", schema);
        }
    }

    /// A good file changed by one to four mutations, then perhaps cut at a byte: no panic,
    /// every finding explained, the other two files kept; when no error names the changed
    /// file, it is parsed as well.
    #[test]
    fn near_valid_entries_are_diagnosed_field_by_field(
        which in 0usize..3,
        mutations in proptest::collection::vec(mutation(), 1..4),
        cut in proptest::option::weighted(0.2, any::<usize>()),
    ) {
        let (label, text) = GOOD[which];
        let doc = mutate(serde_json::from_str(text).unwrap(), &mutations);
        let mut bytes = serde_json::to_vec_pretty(&doc).unwrap();
        if let Some(cut) = cut {
            bytes.truncate(cut % (bytes.len() + 1));
        }
        let v = validate(&with(which, source(label, bytes)));
        assert_explained(&v);
        assert_good_kept(&v, which);
        if errors_of(&v, label) == 0 {
            prop_assert!(v.tools.iter().any(|(file, _)| file == label));
        }
    }
}

/// A file of 100,000 nested arrays or objects is refused by the parser's depth limit with a
/// located error (no stack overflow, in the parse or in dropping what was built).
#[test]
fn deeply_nested_files_are_refused_without_overflow() {
    for objects in [false, true] {
        let bytes = deep_text(100_000, objects).into_bytes();
        let v = validate(&with(usize::MAX, source("fuzz/deep.json", bytes)));
        assert_explained(&v);
        assert_good_kept(&v, usize::MAX);
        let d = v
            .diagnostics
            .iter()
            .find(|d| d.file == "fuzz/deep.json")
            .expect("a finding");
        assert_eq!(d.code, "invalid_json");
        assert!(d.message.contains("recursion limit"), "{}", d.message);
    }
}

/// The deepest entry the parser admits (nesting just under serde_json's limit of 128), in
/// the places a schema walks (`input_schema`, an example's arguments): checked to the end on
/// the validator's worker threads, whose stacks are the default size.
#[test]
fn entries_nested_to_the_parser_limit_are_checked() {
    let mut doc: Value = serde_json::from_str(GOOD[2].1).unwrap();
    // The document itself is depth 1, `input_schema` 2: 120 more levels of `items`.
    let mut schema = json!({"type": "string"});
    let mut argument = json!(1);
    for _ in 0..120 {
        schema = json!({"type": "array", "items": schema});
        argument = json!([argument]);
    }
    doc["input_schema"]["properties"]["deep"] = schema;
    doc["examples"][0]["arguments"]["deep"] = argument;
    let text = serde_json::to_string(&doc).unwrap();
    let v = validate(&with(2, source(GOOD[2].0, text.into_bytes())));
    assert_explained(&v);
    assert_good_kept(&v, 2);
    // The argument's innermost 1 is not the string the schema asks for: found at the bottom.
    let bottom = format!("/examples/0/arguments/deep{}", "/0".repeat(120));
    assert!(
        v.diagnostics.iter().any(|d| d.code == "example_invalid"
            && d.pointer == bottom
            && d.message.contains("expected string, found")),
        "{:?}",
        v.diagnostics
    );
}

/// The loader itself, from a directory: a broken file refuses the catalog with every finding,
/// and each good tool is still in the report.
#[test]
fn a_directory_with_a_broken_file_reports_it_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    for (label, text) in GOOD {
        let path = dir.path().join(label);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("fuzz")).unwrap();
    std::fs::write(dir.path().join("fuzz/broken.json"), b"{\"tool_id\": \0").unwrap();
    let Err(super::LoadError::Invalid { validation, .. }) = Catalog::load(dir.path()) else {
        panic!("a broken file must refuse the catalog");
    };
    assert_explained(&validation);
    assert_good_kept(&validation, usize::MAX);
    assert_eq!(validation.files_with_errors(), 1);
    assert_eq!(validation.valid_tools(), 3);
}

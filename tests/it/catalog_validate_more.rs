//! `catalog validate` on documents that fail the JSON schema: their ids, names and references
//! are still cross-checked (read from the raw JSON), so a maintainer sees a dangling
//! `similar_tools` id in the same run as the schema error instead of after fixing it.

use crate::common::fixtures;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;
use toolscout::catalog::{read_dir, validate, validate_values, Validation};

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `read_note` of the good catalog as `unread_note` (its file sorts after `read_note`'s):
/// outside the schema (a score of 1.5, a relation that is no string, usage patterns without
/// their fields) and with cross-file defects only the raw JSON still shows: misspelt
/// relations, a usage-pattern step naming no tool, and an alias that clashes with
/// `read_note`'s name.
fn unread_note() -> Value {
    let mut tool = read(&fixtures().join("good-catalog/notes/read_note.json"));
    tool["tool_id"] = json!("unread_note");
    tool["name"] = json!("unreadNote");
    tool["aliases"] = json!(["read-note"]);
    tool["popularity_score"] = json!(1.5);
    tool["similar_tools"] = json!(["read_notes"]);
    tool["complementary_tools"] = json!([42, "exprt_note"]);
    tool["usage_patterns"] = json!([{"tool_sequence": ["unread_note", "serch_notes"]}]);
    tool
}

/// (pointer, code) of the diagnostics of `file`.
fn found<'a>(v: &'a Validation, file: &str) -> Vec<(&'a str, &'a str)> {
    v.diagnostics
        .iter()
        .filter(|d| d.file == file)
        .map(|d| (d.pointer.as_str(), d.code))
        .collect()
}

fn message<'a>(v: &'a Validation, file: &str, pointer: &str) -> &'a str {
    v.diagnostics
        .iter()
        .find(|d| d.file == file && d.pointer == pointer)
        .map_or("", |d| d.message.as_str())
}

#[test]
fn a_file_that_fails_the_schema_still_gets_its_cross_references_checked() {
    let tmp = tempfile::tempdir().unwrap();
    for dir in ["notes", "export"] {
        let from = fixtures().join("good-catalog").join(dir);
        std::fs::create_dir(tmp.path().join(dir)).unwrap();
        for file in std::fs::read_dir(&from).unwrap() {
            let file = file.unwrap().path();
            let mut tool = read(&file);
            if tool["tool_id"] == "export_note" {
                // A reference to the broken tool: it is in the catalog, so it resolves.
                tool["similar_tools"] = json!(["unread_note"]);
            }
            let text = serde_json::to_string_pretty(&tool).unwrap();
            std::fs::write(tmp.path().join(dir).join(file.file_name().unwrap()), text).unwrap();
        }
    }
    let text = serde_json::to_string_pretty(&unread_note()).unwrap();
    std::fs::write(tmp.path().join("notes/unread_note.json"), text).unwrap();

    let v = validate(&read_dir(tmp.path()).unwrap());
    let file = "notes/unread_note.json";
    let got = found(&v, file);
    for expected in [
        ("/popularity_score", "schema"),
        ("/complementary_tools/0", "schema"),
        ("/similar_tools/0", "unknown_reference"),
        ("/complementary_tools/1", "unknown_reference"),
        ("/usage_patterns/0/tool_sequence/1", "unknown_reference"),
        ("/aliases/0", "duplicate_name"),
    ] {
        assert!(got.contains(&expected), "{expected:?} missing in {got:?}");
    }
    // The tool's own id in its usage pattern is no dangling reference.
    assert!(!got.contains(&("/usage_patterns/0/tool_sequence/0", "unknown_reference")));
    assert!(message(&v, file, "/similar_tools/0").contains("did you mean \"read_note\""));
    assert!(message(&v, file, "/complementary_tools/1").contains("did you mean \"export_note\""));
    assert!(message(&v, file, "/aliases/0").contains("of tool \"read_note\""));
    assert!(
        found(&v, "export/export_note.json").is_empty(),
        "a reference to a tool whose file fails the schema resolves: {:?}",
        found(&v, "export/export_note.json")
    );
    // The broken tool is no valid tool; the other three are.
    assert_eq!(v.valid_tools(), 2 + 1);
    assert_eq!(v.files_with_errors(), 1);
}

#[test]
fn a_posted_item_that_fails_the_schema_still_gets_its_references_checked() {
    let known: BTreeSet<&str> = ["read_note", "search_notes", "export_note"].into();
    let items = vec![("body".to_string(), unread_note())];
    let v = validate_values(&items, &known);
    let got = found(&v, "body");
    assert!(got.contains(&("/popularity_score", "schema")), "{got:?}");
    assert!(
        got.contains(&("/similar_tools/0", "unknown_reference")),
        "{got:?}"
    );
    assert!(
        got.contains(&("/usage_patterns/0/tool_sequence/1", "unknown_reference")),
        "{got:?}"
    );
    // Names are unique among the posted items only.
    assert!(
        !got.iter().any(|(_, code)| *code == "duplicate_name"),
        "{got:?}"
    );
}

#[test]
fn documents_without_ids_or_objects_are_cross_checked_as_far_as_they_go() {
    let items = vec![
        (
            "a".to_string(),
            json!({"name": "same", "similar_tools": ["nowhere"]}),
        ),
        ("b".to_string(), json!({"name": "SAME"})),
        ("c".to_string(), json!(["not", "an", "object"])),
        (
            "d".to_string(),
            json!({"tool_id": 7, "similar_tools": "nowhere"}),
        ),
    ];
    let v = validate_values(&items, &BTreeSet::new());
    assert!(found(&v, "a").contains(&("/similar_tools/0", "unknown_reference")));
    assert!(found(&v, "b").contains(&("/name", "duplicate_name")));
    // Beside the schema's errors, an object learns which recommended fields it lacks.
    for file in ["c", "d"] {
        assert!(
            found(&v, file)
                .iter()
                .all(|(_, code)| *code == "schema" || *code == "missing_recommended"),
            "{file}: {:?}",
            found(&v, file)
        );
    }
}

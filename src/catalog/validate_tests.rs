//! Unit tests of `validate.rs`: decoding, schema and layout findings, in-memory items and
//! the cross-document checks.

use super::*;

const READ_NOTE: &str = include_str!("../../tests/fixtures/good-catalog/notes/read_note.json");
const SEARCH_NOTES: &str =
    include_str!("../../tests/fixtures/good-catalog/notes/search_notes.json");
const EXPORT_NOTE: &str = include_str!("../../tests/fixtures/good-catalog/export/export_note.json");

fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn item(label: &str, text: &str) -> (String, Value) {
    (label.to_string(), value(text))
}

fn codes(v: &Validation) -> Vec<(&str, &str, &str)> {
    v.diagnostics
        .iter()
        .map(|d| (d.file.as_str(), d.pointer.as_str(), d.code))
        .collect()
}

#[test]
fn in_memory_items_get_the_same_checks_as_files() {
    let files: Vec<Source> = [
        ("notes/read_note.json", READ_NOTE),
        ("notes/search_notes.json", SEARCH_NOTES),
        ("export/export_note.json", EXPORT_NOTE),
    ]
    .iter()
    .map(|(label, text)| Source {
        label: label.to_string(),
        dir_category: label.split('/').next().map(str::to_string),
        stem: label
            .rsplit('/')
            .next()
            .and_then(|f| f.strip_suffix(".json"))
            .map(str::to_string),
        bytes: text.as_bytes().to_vec(),
    })
    .collect();
    let from_files = validate(&files);
    let items = vec![
        item("notes/read_note.json", READ_NOTE),
        item("notes/search_notes.json", SEARCH_NOTES),
        item("export/export_note.json", EXPORT_NOTE),
    ];
    let from_values = validate_values(&items, &BTreeSet::new());
    assert_eq!(from_files.errors(), 0, "{:?}", codes(&from_files));
    assert_eq!(from_files.diagnostics, from_values.diagnostics);
    assert_eq!(from_values.files_checked, 3);
    assert_eq!(from_values.valid_tools(), 3);
}

#[test]
fn schema_violations_and_duplicates_across_items() {
    let mut broken = value(READ_NOTE);
    broken["complexity_score"] = serde_json::json!("high");
    let items = vec![
        item("body[0]", READ_NOTE),
        item("body[1]", READ_NOTE),
        ("body[2]".to_string(), broken),
    ];
    let v = validate_values(&items, &BTreeSet::from(["search_notes", "export_note"]));
    let found = codes(&v);
    assert!(
        found.contains(&("body[1]", "/tool_id", "duplicate_id")),
        "{found:?}"
    );
    // The same id twice is one duplicate, not also a name clash.
    assert!(!found.iter().any(|f| f.2 == "duplicate_name"), "{found:?}");
    assert!(
        found.contains(&("body[2]", "/complexity_score", "schema")),
        "{found:?}"
    );
    let schema = v.diagnostics.iter().find(|d| d.code == "schema").unwrap();
    assert_eq!(schema.message, "expected number, found string \"high\"");
    assert!(!v.is_valid(false));
}

#[test]
fn relations_resolve_against_known_ids_only_when_given() {
    let items = vec![item("body", READ_NOTE)];
    let alone = validate_values(&items, &BTreeSet::new());
    let unknown: Vec<&str> = alone
        .diagnostics
        .iter()
        .filter(|d| d.code == "unknown_reference")
        .map(|d| d.pointer.as_str())
        .collect();
    assert_eq!(unknown, ["/complementary_tools/0", "/prerequisite_tools/0"]);
    let known = BTreeSet::from(["export_note", "search_notes"]);
    let with_catalog = validate_values(&items, &known);
    assert_eq!(with_catalog.errors(), 0, "{:?}", codes(&with_catalog));
    // Known ids are not taken for duplicates: an item may be a changed catalog tool.
    let with_itself = validate_values(
        &items,
        &BTreeSet::from(["read_note", "export_note", "search_notes"]),
    );
    assert_eq!(with_itself.errors(), 0);
}

#[test]
fn layout_checks_need_a_file() {
    let mut misfiled = value(READ_NOTE);
    misfiled["category"] = serde_json::json!("elsewhere");
    let items = vec![("body".to_string(), misfiled)];
    let v = validate_values(&items, &BTreeSet::from(["export_note", "search_notes"]));
    assert!(
        !v.diagnostics
            .iter()
            .any(|d| d.code.ends_with("_mismatch") || d.code == "misplaced_file"),
        "{:?}",
        codes(&v)
    );
}

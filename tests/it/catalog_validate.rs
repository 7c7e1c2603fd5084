//! `toolscout catalog validate`: the validator on the defect corpus (`tests/fixtures/bad-catalog`,
//! one file per kind of defect, see its README), on a good catalog, on the shipped catalog, and
//! the command line around it (output formats, exit codes).

use crate::catalog_expectations::{Expect, ALL_CODES, CLEAN, EXPECTED};
use crate::common::{fixtures, shipped_catalog};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use toolscout::catalog::{read_dir, render_human, validate, Diagnostic, Severity, Validation};

pub(crate) fn bad_catalog() -> PathBuf {
    fixtures().join("bad-catalog")
}

pub(crate) fn good_catalog() -> PathBuf {
    fixtures().join("good-catalog")
}

pub(crate) fn validate_dir(dir: &Path) -> Validation {
    let sources = read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    validate(&sources)
}

fn show(d: &Diagnostic) -> String {
    format!(
        "{:?} {}: {}: {} [{}]",
        d.severity, d.file, d.pointer, d.message, d.code
    )
}

fn matches(d: &Diagnostic, e: &Expect) -> bool {
    d.file == e.file
        && d.pointer == e.pointer
        && d.severity == e.severity
        && d.code == e.code
        && e.says.iter().all(|part| d.message.contains(part))
}

// ----- the library on the defect corpus -------------------------------------------------------

#[test]
fn each_fixture_file_gets_exactly_its_own_diagnostics() {
    let v = validate_dir(&bad_catalog());
    let mut problems = Vec::new();
    for e in EXPECTED {
        let found: Vec<&Diagnostic> = v.diagnostics.iter().filter(|d| d.file == e.file).collect();
        let expected_here = EXPECTED.iter().filter(|x| x.file == e.file).count();
        if !found.iter().any(|d| matches(d, e)) {
            problems.push(format!(
                "{}: expected {:?} at \"{}\" [{}] saying {:?}; got:\n    {}",
                e.file,
                e.severity,
                e.pointer,
                e.code,
                e.says,
                found
                    .iter()
                    .map(|d| show(d))
                    .collect::<Vec<_>>()
                    .join("\n    ")
            ));
        } else if found.len() != expected_here {
            problems.push(format!(
                "{}: expected {expected_here} diagnostic(s), got {}:\n    {}",
                e.file,
                found.len(),
                found
                    .iter()
                    .map(|d| show(d))
                    .collect::<Vec<_>>()
                    .join("\n    ")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_diagnostic_blames_any_other_file() {
    let v = validate_dir(&bad_catalog());
    let unexpected: Vec<String> = v
        .diagnostics
        .iter()
        .filter(|d| !EXPECTED.iter().any(|e| matches(d, e)))
        .map(show)
        .collect();
    assert!(
        unexpected.is_empty(),
        "unexpected diagnostics:\n{}",
        unexpected.join("\n")
    );
}

#[test]
fn corpus_and_expectations_list_the_same_files() {
    let sources = read_dir(&bad_catalog()).unwrap();
    let on_disk: BTreeSet<&str> = sources.iter().map(|s| s.label.as_str()).collect();
    let listed: BTreeSet<&str> = EXPECTED
        .iter()
        .map(|e| e.file)
        .chain(CLEAN.iter().copied())
        .collect();
    assert_eq!(
        on_disk, listed,
        "a fixture file without expectations, or the reverse"
    );
    assert_eq!(
        EXPECTED
            .iter()
            .map(|e| e.file)
            .collect::<BTreeSet<_>>()
            .len(),
        EXPECTED.len(),
        "one defect per file"
    );
}

#[test]
fn corpus_covers_every_diagnostic_code() {
    let v = validate_dir(&bad_catalog());
    let found: BTreeSet<&str> = v.diagnostics.iter().map(|d| d.code).collect();
    let all: BTreeSet<&str> = ALL_CODES.iter().copied().collect();
    assert_eq!(found, all);
}

#[test]
fn valid_tools_in_the_corpus_are_clean_and_loaded() {
    let v = validate_dir(&bad_catalog());
    let loaded: BTreeSet<&str> = v.tools.iter().map(|(file, _)| file.as_str()).collect();
    for file in CLEAN {
        let blamed: Vec<String> = v
            .diagnostics
            .iter()
            .filter(|d| d.file == *file)
            .map(show)
            .collect();
        assert!(
            blamed.is_empty(),
            "{file} should be clean:\n{}",
            blamed.join("\n")
        );
        assert!(
            loaded.contains(file),
            "{file} should be among the valid tools"
        );
    }
    // Files with only a warning are valid tools too.
    for e in EXPECTED.iter().filter(|e| e.severity == Severity::Warning) {
        assert!(
            loaded.contains(e.file),
            "{} should be among the valid tools",
            e.file
        );
        assert!(
            !v.diagnostics
                .iter()
                .any(|d| d.file == e.file && d.severity == Severity::Error),
            "{} should have no error",
            e.file
        );
    }
    // Files that fail before or in the schema never become tools.
    for e in EXPECTED.iter().filter(|e| {
        matches!(
            e.code,
            "empty_file" | "not_utf8" | "invalid_json" | "schema"
        )
    }) {
        assert!(!loaded.contains(e.file), "{} should not be loaded", e.file);
    }
}

#[test]
fn corpus_counts() {
    let v = validate_dir(&bad_catalog());
    let errors = EXPECTED
        .iter()
        .filter(|e| e.severity == Severity::Error)
        .count();
    let warnings = EXPECTED.len() - errors;
    assert_eq!(v.files_checked, EXPECTED.len() + CLEAN.len());
    assert_eq!(v.files_checked, 38);
    assert_eq!(v.errors(), errors);
    assert_eq!(v.errors(), 30);
    assert_eq!(v.warnings(), warnings);
    assert_eq!(v.warnings(), 4);
    assert_eq!(v.files_with_errors(), 30);
    assert!(!v.is_valid(false));
    assert!(!v.is_valid(true));
}

#[test]
fn not_utf8_message_points_at_the_bad_byte() {
    let bytes = std::fs::read(bad_catalog().join("files/not_utf8.json")).unwrap();
    let err = std::str::from_utf8(&bytes).unwrap_err();
    assert_eq!(err.valid_up_to(), 141);
    assert_eq!(bytes[141], 0xE9, "a Latin-1 é");
}

#[test]
fn invalid_input_schema_fixture_really_does_not_compile() {
    let text =
        std::fs::read_to_string(bad_catalog().join("semantics/invalid_input_schema.json")).unwrap();
    let tool: Value = serde_json::from_str(&text).unwrap();
    let schema = &tool["input_schema"];
    assert_eq!(schema["properties"]["query"]["type"], "nonsense");
    assert!(toolscout::schema::Schema::compile(schema).is_err());
}

#[test]
fn bad_catalog_human_report() {
    let v = validate_dir(&bad_catalog());
    insta::assert_snapshot!("bad_catalog_human_report", render_human(&v, false));
}

// ----- the library on good catalogs -----------------------------------------------------------

#[test]
fn good_catalog_is_clean() {
    let v = validate_dir(&good_catalog());
    assert!(
        v.diagnostics.is_empty(),
        "{}",
        v.diagnostics
            .iter()
            .map(show)
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(v.files_checked, 3);
    assert_eq!(v.tools.len(), 3);
    let categories: BTreeSet<&str> = v.tools.iter().map(|(_, t)| t.category.as_str()).collect();
    assert_eq!(categories.len(), 2);
    // The tools refer to each other, so the relation checks had something to resolve.
    for (file, t) in &v.tools {
        assert!(
            t.relations().next().is_some(),
            "{file} should reference another tool"
        );
    }
}

/// The catalog shipped with the crate must validate without errors. It fails while authors are
/// still adding the tools that other entries already reference (unknown_reference).
#[test]
fn shipped_catalog_has_no_errors() {
    let v = validate_dir(&shipped_catalog());
    assert!(v.files_checked > 0, "the shipped catalog is empty");
    let errors: Vec<String> = v
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(show)
        .collect();
    assert!(
        errors.is_empty(),
        "{} error(s) in the shipped catalog:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

// ----- the command line -----------------------------------------------------------------------

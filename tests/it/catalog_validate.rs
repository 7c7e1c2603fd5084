//! `toolscout catalog validate`: the validator on the defect corpus (`tests/fixtures/bad-catalog`,
//! one file per kind of defect, see its README), on a good catalog, on the shipped catalog, and
//! the command line around it (output formats, exit codes).

use crate::common::{fixtures, shipped_catalog, toolscout_bin};
use serde_json::Value;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use toolscout::catalog::{read_dir, render_human, validate, Diagnostic, Severity, Validation};

/// One diagnostic the corpus must produce: where, what kind, and the parts of the message that
/// say what was expected and what was found.
struct Expect {
    file: &'static str,
    pointer: &'static str,
    severity: Severity,
    code: &'static str,
    says: &'static [&'static str],
}

const fn error(
    file: &'static str,
    pointer: &'static str,
    code: &'static str,
    says: &'static [&'static str],
) -> Expect {
    Expect {
        file,
        pointer,
        severity: Severity::Error,
        code,
        says,
    }
}

const fn warning(
    file: &'static str,
    pointer: &'static str,
    code: &'static str,
    says: &'static [&'static str],
) -> Expect {
    Expect {
        file,
        pointer,
        severity: Severity::Warning,
        code,
        says,
    }
}

/// Files of the corpus that must produce no diagnostic at all: the valid tools the defective
/// ones refer to, the first of the two files sharing a tool_id (the second one is blamed), and a
/// tool that sets a score to exactly the default on purpose (only omitted scores are warned).
const CLEAN: &[&str] = &[
    "base/read_note.json",
    "base/search_notes.json",
    "cross_file/duplicate_id.json",
    "warnings/explicit_half_score.json",
];

/// Every diagnostic of the corpus. Each defective file has exactly one.
const EXPECTED: &[Expect] = &[
    // Files that are not JSON documents at all.
    error(
        "files/empty_file.json",
        "",
        "empty_file",
        &["expected a JSON object", "found an empty file"],
    ),
    error(
        "files/not_utf8.json",
        "",
        "not_utf8",
        &[
            "expected UTF-8 text",
            "found an invalid byte sequence at byte 141",
        ],
    ),
    error(
        "files/invalid_json.json",
        "",
        "invalid_json",
        &[
            "expected valid JSON",
            "found a syntax error at line 54 column 1",
            "trailing comma",
        ],
    ),
    // JSON that breaks the tool schema.
    error(
        "schema/missing_required_field.json",
        "",
        "schema",
        &[
            "expected required property \"when_to_use\"",
            "found it missing",
        ],
    ),
    error(
        "schema/wrong_type.json",
        "/version",
        "schema",
        &["expected string", "found number 2"],
    ),
    error(
        "schema/bad_score_range.json",
        "/popularity_score",
        "schema",
        &["expected a number <= 1", "found number 1.5"],
    ),
    error(
        "schema/bad_tool_type.json",
        "/tool_type",
        "schema",
        &[
            "expected one of [\"system\",\"custom\",\"third_party\",\"experimental\"]",
            "found string \"plugin\"",
        ],
    ),
    error(
        "schema/bad_date_time.json",
        "/updated_at",
        "schema",
        &[
            "expected a valid date-time",
            "found string \"2026-01-01 12:00\"",
        ],
    ),
    error(
        "schema/bad_uri.json",
        "/repository_url",
        "schema",
        &[
            "expected a valid uri",
            "found string \"github.com/example/notes\"",
        ],
    ),
    error(
        "schema/bad-tool-id-pattern.json",
        "/tool_id",
        "schema",
        &[
            "expected a string matching /^[a-z][a-z0-9_]{1,63}$/",
            "found string \"bad-tool-id-pattern\"",
        ],
    ),
    error(
        "schema/unknown_property.json",
        "",
        "schema",
        &[
            "expected no other properties",
            "found unknown property \"homepage\"",
        ],
    ),
    // Files in the wrong place or with the wrong name.
    error(
        "layout/id_filename_mismatch.json",
        "/tool_id",
        "id_filename_mismatch",
        &[
            "expected tool_id to equal the file name \"id_filename_mismatch\"",
            "found \"renamed_tool\"",
        ],
    ),
    error(
        "layout/category_dir_mismatch.json",
        "/category",
        "category_dir_mismatch",
        &[
            "expected category to equal the directory name \"layout\"",
            "found \"other_category\"",
        ],
    ),
    error(
        "misplaced_file.json",
        "",
        "misplaced_file",
        &[
            "expected the file at <category>/<tool_id>.json inside the catalog",
            "found it at misplaced_file.json",
        ],
    ),
    // Tools that pass the schema but contradict themselves.
    error(
        "semantics/self_reference.json",
        "/similar_tools/0",
        "self_reference",
        &[
            "expected other tools' ids",
            "found the tool's own id \"self_reference\"",
        ],
    ),
    error(
        "semantics/unknown_executor.json",
        "/execution/name",
        "unknown_executor",
        &[
            "expected one of the builtin executors (githubSearchCode, ",
            "found \"localSearchCod\"",
            "did you mean \"localSearchCode\"?",
        ],
    ),
    error(
        "semantics/duplicate_parameter.json",
        "/parameters/1/name",
        "duplicate_parameter",
        &[
            "expected unique parameter names",
            "found \"query\" again (first at /parameters/0)",
        ],
    ),
    error(
        "semantics/parameter_not_in_schema.json",
        "/parameters/1/name",
        "parameter_not_in_schema",
        &[
            "expected a property of input_schema",
            "found \"limit\" which input_schema.properties lacks",
        ],
    ),
    error(
        "semantics/undocumented_property.json",
        "/input_schema/properties/limit",
        "undocumented_property",
        &[
            "expected every input_schema property to be described in parameters",
            "found \"limit\" undescribed",
        ],
    ),
    error(
        "semantics/required_mismatch_parameter.json",
        "/parameters/0/required",
        "required_mismatch",
        &[
            "expected \"query\" in input_schema.required since the parameter is required",
            "found it missing",
        ],
    ),
    error(
        "semantics/required_mismatch_schema.json",
        "/parameters/0/required",
        "required_mismatch",
        &[
            "expected required: true since input_schema.required lists \"query\"",
            "found false",
        ],
    ),
    error(
        "semantics/required_not_a_property.json",
        "/input_schema/required",
        "required_mismatch",
        &[
            "expected required names to be properties",
            "found \"limit\" which input_schema.properties lacks",
        ],
    ),
    error(
        "semantics/example_invalid.json",
        "/examples/0/arguments/query",
        "example_invalid",
        &[
            "argument does not fit input_schema",
            "expected string, found number 42",
        ],
    ),
    error(
        "semantics/duplicate_example.json",
        "/examples/1/id",
        "duplicate_example",
        &[
            "expected unique example ids",
            "found \"basic\" again (first at /examples/0)",
        ],
    ),
    error(
        "semantics/default_invalid.json",
        "/parameters/1/default_value",
        "default_invalid",
        &[
            "default_value does not fit the property's schema",
            "expected integer, found string \"ten\"",
        ],
    ),
    error(
        "semantics/invalid_input_schema.json",
        "/input_schema",
        "invalid_input_schema",
        &[
            "expected a usable JSON Schema, found one that does not compile",
            "at /properties/query/type",
            "\"nonsense\"",
        ],
    ),
    // Defects only visible across files; the later file (in path order) is the one blamed.
    error(
        "cross_file_copy/duplicate_id.json",
        "/tool_id",
        "duplicate_id",
        &[
            "expected a unique tool_id",
            "found \"duplicate_id\" already used by cross_file/duplicate_id.json",
        ],
    ),
    error(
        "cross_file/duplicate_name.json",
        "/aliases/0",
        "duplicate_name",
        &[
            "expected a name unique across the catalog (ignoring case and separators)",
            "found \"search-notes\" clashing with \"searchNotes\" of tool \"search_notes\"",
        ],
    ),
    error(
        "cross_file/unknown_reference.json",
        "/complementary_tools/0",
        "unknown_reference",
        &[
            "expected the id of a tool in the catalog",
            "found unknown \"read_notes\"",
            "did you mean \"read_note\"?",
        ],
    ),
    error(
        "cross_file/unknown_reference_in_pattern.json",
        "/usage_patterns/0/tool_sequence/2",
        "unknown_reference",
        &[
            "expected the id of a tool in the catalog",
            "found unknown \"open_note\"",
        ],
    ),
    // Valid tools that deserve a warning.
    warning(
        "warnings/short_description.json",
        "/description",
        "short_description",
        &[
            "expected a description of at least 120 characters",
            "found 56",
        ],
    ),
    warning(
        "warnings/no_examples.json",
        "/examples",
        "no_examples",
        &["expected at least one example", "found none"],
    ),
    warning(
        "warnings/default_score_omitted.json",
        "/complexity_score",
        "default_score",
        &[
            "expected a considered score from 0 to 1",
            "found none (the default 0.5 applies)",
        ],
    ),
];

/// Every code the validator can emit, except `internal` (the schema and the record type
/// disagreeing: a bug of toolscout, not something a catalog file can provoke).
const ALL_CODES: &[&str] = &[
    "empty_file",
    "not_utf8",
    "invalid_json",
    "schema",
    "id_filename_mismatch",
    "category_dir_mismatch",
    "misplaced_file",
    "self_reference",
    "unknown_executor",
    "duplicate_parameter",
    "parameter_not_in_schema",
    "undocumented_property",
    "required_mismatch",
    "example_invalid",
    "duplicate_example",
    "default_invalid",
    "invalid_input_schema",
    "duplicate_id",
    "duplicate_name",
    "unknown_reference",
    "short_description",
    "no_examples",
    "default_score",
];

fn bad_catalog() -> PathBuf {
    fixtures().join("bad-catalog")
}

fn good_catalog() -> PathBuf {
    fixtures().join("good-catalog")
}

fn validate_dir(dir: &Path) -> Validation {
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
    assert_eq!(v.files_checked, 37);
    assert_eq!(v.errors(), errors);
    assert_eq!(v.errors(), 30);
    assert_eq!(v.warnings(), warnings);
    assert_eq!(v.warnings(), 3);
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

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `toolscout catalog validate <args>` with no TOOLSCOUT_* variables and no toolscout.toml
/// in the working directory, so only the arguments decide.
fn validate_cli<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(toolscout_bin());
    cmd.args(["catalog", "validate"])
        .args(args)
        .current_dir(fixtures());
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("TOOLSCOUT_") {
            cmd.env_remove(key);
        }
    }
    let out = cmd.output().expect("run toolscout");
    Run {
        code: out.status.code().expect("exit code"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

#[test]
fn cli_bad_catalog_exits_1_with_located_messages() {
    let run = validate_cli([bad_catalog()]);
    assert_eq!(run.code, 1, "stderr: {}", run.stderr);
    assert_eq!(run.stderr, "");
    for line in [
        "  error: schema/bad_score_range.json: /popularity_score: expected a number <= 1, found number 1.5 [schema]",
        "  error: files/empty_file.json: /: expected a JSON object, found an empty file [empty_file]",
        "  error: cross_file/unknown_reference.json: /complementary_tools/0: expected the id of a tool in the catalog, found unknown \"read_notes\"; did you mean \"read_note\"? [unknown_reference]",
        "  warning: warnings/no_examples.json: /examples: expected at least one example, found none [no_examples]",
    ] {
        assert!(run.stdout.lines().any(|l| l == line), "missing line {line:?} in:\n{}", run.stdout);
    }
    // Every expected finding appears as one `file: /pointer: ...` line.
    for e in EXPECTED {
        let pointer = if e.pointer.is_empty() { "/" } else { e.pointer };
        let prefix = format!("{}: {pointer}: ", e.file);
        assert!(
            run.stdout
                .lines()
                .any(|l| l.contains(&prefix) && l.ends_with(&format!("[{}]", e.code))),
            "no line for {prefix}... [{}]",
            e.code
        );
    }
    assert_eq!(
        run.stdout.lines().last(),
        Some("INVALID: 37 files checked, 7 tools valid, 30 errors in 30 files, 3 warnings")
    );
    // The binary prints exactly the library's report.
    assert_eq!(
        run.stdout,
        render_human(&validate_dir(&bad_catalog()), false)
    );
}

#[test]
fn cli_bad_catalog_json() {
    let run = validate_cli([
        bad_catalog().as_os_str(),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    assert_eq!(run.code, 1, "stderr: {}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert_eq!(report["valid"], false);
    assert_eq!(report["strict"], false);
    assert_eq!(report["files_checked"], 37);
    assert_eq!(report["errors"], 30);
    assert_eq!(report["warnings"], 3);
    assert_eq!(report["files_with_errors"], 30);
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics array");
    assert_eq!(diagnostics.len(), EXPECTED.len());
    for d in diagnostics {
        for key in ["file", "pointer", "severity", "code", "message"] {
            assert!(d[key].is_string(), "{key} missing in {d}");
        }
    }
    let codes: BTreeSet<&str> = diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ALL_CODES.iter().copied().collect::<BTreeSet<_>>());
    assert!(diagnostics.contains(&serde_json::json!({
        "file": "schema/bad_tool_type.json",
        "pointer": "/tool_type",
        "severity": "error",
        "code": "schema",
        "message": "expected one of [\"system\",\"custom\",\"third_party\",\"experimental\"], found string \"plugin\""
    })));
    assert!(diagnostics.contains(&serde_json::json!({
        "file": "warnings/short_description.json",
        "pointer": "/description",
        "severity": "warning",
        "code": "short_description",
        "message": "expected a description of at least 120 characters for good retrieval, found 56"
    })));
}

#[test]
fn cli_good_catalog_exits_0() {
    let run = validate_cli([good_catalog()]);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(
        run.stdout,
        "valid: 3 files checked, 3 tools valid, 0 errors in 0 files, 0 warnings\n"
    );

    let run = validate_cli([
        good_catalog().as_os_str(),
        OsStr::new("--strict"),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["valid"], true);
    assert_eq!(report["diagnostics"], serde_json::json!([]));
}

/// Copies the good catalog into a temporary directory, with the examples of `read_note`
/// removed: the result is valid but has exactly one warning.
fn catalog_with_only_a_warning() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for category in std::fs::read_dir(good_catalog()).unwrap() {
        let category = category.unwrap().path();
        let target = tmp.path().join(category.file_name().unwrap());
        std::fs::create_dir(&target).unwrap();
        for file in std::fs::read_dir(&category).unwrap() {
            let file = file.unwrap().path();
            let mut tool: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            if tool["tool_id"] == "read_note" {
                tool["examples"] = serde_json::json!([]);
            }
            let text = serde_json::to_string_pretty(&tool).unwrap();
            std::fs::write(target.join(file.file_name().unwrap()), text).unwrap();
        }
    }
    tmp
}

#[test]
fn cli_strict_fails_on_warnings_only() {
    let tmp = catalog_with_only_a_warning();

    let run = validate_cli([tmp.path()]);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(run.stdout.contains(
        "  warning: notes/read_note.json: /examples: expected at least one example, found none [no_examples]\n"
    ));
    assert!(run
        .stdout
        .ends_with("valid: 3 files checked, 3 tools valid, 0 errors in 0 files, 1 warning\n"));

    let run = validate_cli([tmp.path().as_os_str(), OsStr::new("--strict")]);
    assert_eq!(
        run.code, 1,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(run.stdout.ends_with(
        "INVALID: 3 files checked, 3 tools valid, 0 errors in 0 files, 1 warning (warnings fail with --strict)\n"
    ));

    let run = validate_cli([
        tmp.path().as_os_str(),
        OsStr::new("--strict"),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    assert_eq!(run.code, 1);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["valid"], false);
    assert_eq!(report["strict"], true);
    assert_eq!(report["errors"], 0);
    assert_eq!(report["warnings"], 1);
}

#[test]
fn cli_missing_dir_exits_2_naming_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-catalog");
    let run = validate_cli([&missing]);
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.stdout, "");
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(
        run.stderr.contains(&missing.display().to_string()),
        "{}",
        run.stderr
    );
}

#[test]
fn cli_file_instead_of_dir_exits_2() {
    let file = good_catalog().join("notes/read_note.json");
    let run = validate_cli([&file]);
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains(&file.display().to_string()),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("expected a directory, found a file"),
        "{}",
        run.stderr
    );
}

#[test]
fn cli_unknown_format_is_a_usage_error() {
    let run = validate_cli([
        good_catalog().as_os_str(),
        OsStr::new("--format"),
        OsStr::new("yaml"),
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("yaml"), "{}", run.stderr);
}

//! `toolscout catalog validate`: the validator on the defect corpus (`tests/fixtures/bad-catalog`,
//! one file per kind of defect, see its README), on a good catalog, on the shipped catalog, and
//! the command line around it (output formats, exit codes).

use crate::catalog_expectations::{Expect, ALL_CODES, CLEAN, EXPECTED};
use crate::common::{fixtures, shipped_catalog};
use serde_json::Value;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use toolscout::catalog::{read_dir, render_human, validate, Diagnostic, Severity, Validation};

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
    let mut cmd = crate::common::toolscout();
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

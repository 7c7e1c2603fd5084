//! `toolscout catalog validate` as a command: output formats, exit codes, and how a missing
//! or mistyped catalog path is reported.

use crate::catalog_expectations::{ALL_CODES, EXPECTED};
use crate::catalog_validate::{bad_catalog, good_catalog, validate_dir};
use crate::common::fixtures;
use serde_json::Value;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use toolscout::catalog::render_human;

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
        Some("INVALID: 38 files checked, 8 tools valid, 30 errors in 30 files, 4 warnings")
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
    assert_eq!(report["files_checked"], 38);
    assert_eq!(report["errors"], 30);
    assert_eq!(report["warnings"], 4);
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

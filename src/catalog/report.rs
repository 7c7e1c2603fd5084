//! Renders a `Validation` for people (grouped by file, one `file: /pointer: message` line per
//! finding, a summary line) and for machines (JSON).

use super::validate::{Severity, Validation};
use serde_json::{json, Value};

/// Human-readable report. Every finding reads `file: /pointer: message [code]`, so lines can be
/// grepped and pasted into an editor's jump-to-location.
pub fn render_human(v: &Validation, strict: bool) -> String {
    let mut out = String::new();
    let mut current: Option<&str> = None;
    for d in &v.diagnostics {
        if current != Some(d.file.as_str()) {
            if current.is_some() {
                out.push('\n');
            }
            out.push_str(&format!("{}\n", d.file));
            current = Some(d.file.as_str());
        }
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let pointer = if d.pointer.is_empty() {
            "/"
        } else {
            d.pointer.as_str()
        };
        out.push_str(&format!(
            "  {level}: {}: {pointer}: {} [{}]\n",
            d.file, d.message, d.code
        ));
    }
    if !v.diagnostics.is_empty() {
        out.push('\n');
    }
    out.push_str(&summary(v, strict));
    out.push('\n');
    out
}

/// One-line summary with counts.
pub fn summary(v: &Validation, strict: bool) -> String {
    let verdict = if v.is_valid(strict) {
        "valid"
    } else {
        "INVALID"
    };
    let strict_note = if strict && v.errors() == 0 && v.warnings() > 0 {
        " (warnings fail with --strict)"
    } else {
        ""
    };
    format!(
        "{verdict}: {} checked, {} valid, {} in {}, {}{strict_note}",
        plural(v.files_checked, "file"),
        plural(v.valid_tools(), "tool"),
        plural(v.errors(), "error"),
        plural(v.files_with_errors(), "file"),
        plural(v.warnings(), "warning")
    )
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Machine-readable report.
pub fn render_json(v: &Validation, strict: bool) -> Value {
    json!({
        "valid": v.is_valid(strict),
        "strict": strict,
        "files_checked": v.files_checked,
        "tools_parsed": v.tools.len(),
        "tools_valid": v.valid_tools(),
        "errors": v.errors(),
        "warnings": v.warnings(),
        "files_with_errors": v.files_with_errors(),
        "diagnostics": v.diagnostics,
    })
}

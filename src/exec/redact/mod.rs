//! Secret redaction over everything a tool returns. Each match of a known credential shape
//! becomes `[REDACTED-<NAME>]`, so the agent sees that something was there and what kind,
//! never the value. The kinds are data (`patterns.rs`, `vendors.rs`); keyword-anchored ones
//! pass a value check (`checks.rs`) so variable references and plain words stay. A literal
//! prefilter (`prefilter.rs`) finds in one pass which rows can occur and on which lines; only
//! those run, there.
//!
//! The corpus every kind is tested against is `tests/fixtures/secrets/corpus.json`.

mod checks;
mod patterns;
mod prefilter;
mod vendors;

#[cfg(test)]
mod tests;

use regex::{Captures, Regex};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::OnceLock;

/// Text longer than this is dropped whole rather than scanned.
const MAX_SCANNED_CHARS: usize = 10_000_000;

/// One compiled row.
struct Row {
    name: &'static str,
    label: String,
    regex: Regex,
    check: patterns::Check,
}

struct Compiled {
    prefilter: prefilter::Prefilter,
    rows: Vec<Row>,
    /// Rows that must see the whole text: their matches can span lines.
    whole: Vec<bool>,
}

/// `\b` as an ASCII word boundary: a Unicode one makes the lazy DFA give up on the first
/// non-ASCII byte and fall back to a far slower engine. Secrets are ASCII.
fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

fn compiled() -> &'static Compiled {
    static C: OnceLock<Compiled> = OnceLock::new();
    C.get_or_init(|| {
        // Constant patterns; `every_pattern_compiles` compiles each of them.
        let sources: Vec<String> = patterns::all()
            .map(|k| ascii_boundaries(k.pattern))
            .collect();
        let prefilter = prefilter::Prefilter::new(patterns::all().map(|k| (k.name, k.pattern)));
        let rows = patterns::all()
            .zip(&sources)
            .filter_map(|(kind, source)| {
                Regex::new(source).ok().map(|regex| Row {
                    name: kind.name,
                    label: format!("[REDACTED-{}]", kind.name),
                    regex,
                    check: kind.check,
                })
            })
            .collect();
        let whole = patterns::all().map(|k| k.multiline).collect();
        Compiled {
            prefilter,
            rows,
            whole,
        }
    })
}

/// Every kind's name, once each, in table order.
pub fn kinds() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for kind in patterns::all() {
        if !names.contains(&kind.name) {
            names.push(kind.name);
        }
    }
    names
}

/// `text` with every secret replaced; borrowed when nothing matched.
pub fn redact(text: &str) -> Cow<'_, str> {
    redact_reporting(text, |_, _| {})
}

/// [`redact`], telling `found` each replaced secret: its kind and the value (for review tools
/// such as `examples/redact_scan.rs`; never for output).
pub fn redact_reporting<'t>(
    text: &'t str,
    mut found: impl FnMut(&'static str, &str),
) -> Cow<'t, str> {
    if text.len() > MAX_SCANNED_CHARS {
        return Cow::Borrowed("[CONTENT-REDACTED-SIZE-LIMIT]");
    }
    let c = compiled();
    // Rows that can span lines (key blocks) and rows without anchors run over the whole
    // text; the rest run only on the lines where one of their anchors occurs, so a text
    // without secrets costs the prefilter's one pass and a few regex runs on short lines.
    let plan = c.prefilter.plan(text, &c.whole);
    let mut out: Option<String> = None;
    for (_, row) in c.rows.iter().enumerate().filter(|(i, _)| plan.whole[*i]) {
        if let Some(changed) = apply(row, out.as_deref().unwrap_or(text), &mut found) {
            out = Some(changed);
        }
    }
    let base = out.as_deref().unwrap_or(text);
    let lines = match &out {
        Some(changed) => c.prefilter.plan(changed, &c.whole).lines,
        None => plan.lines,
    };
    let mut rebuilt = String::new();
    let mut copied = 0;
    for (start, end, rows) in lines {
        let mut line: Option<String> = None;
        for &i in &rows {
            let current = line.as_deref().unwrap_or(&base[start..end]);
            if let Some(changed) = apply(&c.rows[i], current, &mut found) {
                line = Some(changed);
            }
        }
        if let Some(line) = line {
            rebuilt.push_str(&base[copied..start]);
            rebuilt.push_str(&line);
            copied = end;
        }
    }
    if copied == 0 {
        return out.map_or(Cow::Borrowed(text), Cow::Owned);
    }
    rebuilt.push_str(&base[copied..]);
    Cow::Owned(rebuilt)
}

/// `text` with `row`'s secrets replaced, or `None` when it had none.
fn apply(row: &Row, text: &str, found: &mut impl FnMut(&'static str, &str)) -> Option<String> {
    let mut changed = false;
    let replaced = row.regex.replace_all(text, |caps: &Captures| {
        let (whole, secret) = whole_and_secret(caps);
        if !checks::passes(row.check, secret.as_str()) {
            return whole.as_str().to_string();
        }
        changed = true;
        // Whitespace a key body's pattern took after the key stays as it was.
        let value = secret.as_str().trim_end();
        found(row.name, value);
        let from = secret.start() - whole.start();
        let to = from + value.len();
        // A secret over several lines leaves its line breaks, so line numbers (a search
        // hit, `startLine`, an LSP position) still point where they did, and each of
        // those lines shows the label, so a line read alone says what it held.
        let breaks = format!("\n{}", row.label).repeat(value.matches('\n').count());
        let (head, tail) = (&whole.as_str()[..from], &whole.as_str()[to..]);
        format!("{head}{}{breaks}{tail}", row.label)
    });
    changed.then(|| replaced.into_owned())
}

/// The match, and the part of it that is the secret (the group `s`, else all of it).
fn whole_and_secret<'h>(caps: &Captures<'h>) -> (regex::Match<'h>, regex::Match<'h>) {
    let whole = caps.get(0).expect("group 0 is the match");
    (whole, caps.name("s").unwrap_or(whole))
}

/// Redacts every string inside `value`, in place.
pub fn redact_value(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = redact(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(map) => map.values_mut().for_each(redact_value),
        _ => {}
    }
}

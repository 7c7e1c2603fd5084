//! Validation of catalog files and of tool metadata held in memory (a posted body): JSON Schema
//! first, then what a schema cannot say (file layout, unique ids and names, relations that
//! resolve, and the per-tool checks of `checks.rs`). Files and in-memory items go through one
//! path, so the CLI and `POST /catalog/validate` report alike. Every problem becomes a
//! `Diagnostic`; nothing panics and nothing stops at the first error, so one run shows a
//! maintainer everything to fix.

use super::checks::check_tool;
use super::record::ToolRecord;
use super::suggest::{normalize_name, suggest};
use crate::schema::Schema;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Descriptions shorter than this retrieve poorly; the validator warns.
pub const USEFUL_DESCRIPTION_CHARS: usize = 120;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One finding, located by file and JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub file: String,
    pub pointer: String,
    pub severity: Severity,
    /// Stable code of the kind of defect (see the README's table).
    pub code: &'static str,
    pub message: String,
}

/// One input file: its label (path relative to the catalog), where it sits, and its raw bytes.
#[derive(Debug, Clone)]
pub struct Source {
    pub label: String,
    /// The category directory the file sits in, when it comes from a catalog directory.
    pub dir_category: Option<String>,
    /// The file name without `.json`, when it comes from a file.
    pub stem: Option<String>,
    pub bytes: Vec<u8>,
}

/// The outcome of validating a set of sources.
#[derive(Debug, Clone, Default)]
pub struct Validation {
    pub files_checked: usize,
    /// Every tool that parsed after the schema check, with its file label; per-tool and
    /// cross-file errors may still name it (see `valid_tools`).
    pub tools: Vec<(String, ToolRecord)>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Validation {
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, s: Severity) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == s).count()
    }

    /// Tools whose file has no error (tools with errors still take part in cross-checks, so
    /// `tools` holds every parsed tool).
    pub fn valid_tools(&self) -> usize {
        let bad: BTreeSet<&str> = self
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.file.as_str())
            .collect();
        self.tools
            .iter()
            .filter(|(file, _)| !bad.contains(file.as_str()))
            .count()
    }

    /// Files with at least one error.
    pub fn files_with_errors(&self) -> usize {
        let files: BTreeSet<&str> = self
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.file.as_str())
            .collect();
        files.len()
    }

    /// Valid: no errors, and with `strict` no warnings either.
    pub fn is_valid(&self, strict: bool) -> bool {
        self.errors() == 0 && (!strict || self.warnings() == 0)
    }

    pub(crate) fn push(
        &mut self,
        file: &str,
        pointer: impl Into<String>,
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
    ) {
        self.diagnostics.push(Diagnostic {
            file: file.to_string(),
            pointer: pointer.into(),
            severity,
            code,
            message: message.into(),
        });
    }
}

/// Where a document came from: its label, and for catalog files the category directory and
/// file name that the layout checks compare with the content.
#[derive(Debug, Clone, Copy)]
struct Origin<'a> {
    label: &'a str,
    dir_category: Option<&'a str>,
    stem: Option<&'a str>,
}

/// Validates every source, then the cross-references between them.
pub fn validate(sources: &[Source]) -> Validation {
    let mut out = Validation {
        files_checked: sources.len(),
        ..Validation::default()
    };
    let documents: Vec<(Origin<'_>, Value)> = sources
        .iter()
        .filter_map(|source| {
            let value = decode(source, &mut out)?;
            let origin = Origin {
                label: &source.label,
                dir_category: source.dir_category.as_deref(),
                stem: source.stem.as_deref(),
            };
            Some((origin, value))
        })
        .collect();
    check_documents(
        documents.iter().map(|(o, v)| (*o, v)),
        &BTreeSet::new(),
        &mut out,
    );
    out
}

/// Validates tool metadata held in memory (a posted body, say): each `(label, value)` item
/// gets every check a catalog file gets except the file-layout ones, then the cross-item
/// checks. `known_ids` are ids outside the items that relations may name (the served
/// catalog), so a new tool may point at existing ones; they take no part in the uniqueness
/// checks, so posting a changed version of a catalog tool is not a duplicate.
pub fn validate_values(items: &[(String, Value)], known_ids: &BTreeSet<&str>) -> Validation {
    let mut out = Validation {
        files_checked: items.len(),
        ..Validation::default()
    };
    let documents = items.iter().map(|(label, value)| {
        let origin = Origin {
            label,
            dir_category: None,
            stem: None,
        };
        (origin, value)
    });
    check_documents(documents, known_ids, &mut out);
    out
}

/// The one validation path of files and in-memory items: per-document checks, then the
/// cross-document checks, then a stable order of the findings.
fn check_documents<'a>(
    documents: impl Iterator<Item = (Origin<'a>, &'a Value)>,
    known_ids: &BTreeSet<&str>,
    out: &mut Validation,
) {
    // Each document's own checks (the schema above all) on every core: at 10k files they are
    // most of a start. Diagnostics are merged in document order, then sorted.
    let documents: Vec<(Origin<'a>, &'a Value)> = documents.collect();
    let checked: Vec<(Validation, Option<ToolRecord>)> = documents
        .par_iter()
        .map(|(origin, value)| {
            let mut own = Validation::default();
            let tool = check_value(*origin, value, &mut own);
            (own, tool)
        })
        .collect();
    let mut all_refs = Vec::new();
    for ((origin, value), (own, tool)) in documents.iter().zip(checked) {
        out.diagnostics.extend(own.diagnostics);
        if let Some(tool) = tool {
            out.tools.push((origin.label.to_string(), tool));
        }
        // Read from the raw value, so a document that fails the schema still has its ids,
        // names and references checked: one run shows a maintainer everything to fix.
        all_refs.push(refs_of(origin.label, value));
    }
    cross_check(&all_refs, known_ids, out);
    out.diagnostics.sort_by(|a, b| {
        (a.file.as_str(), a.severity, a.pointer.as_str(), a.code).cmp(&(
            b.file.as_str(),
            b.severity,
            b.pointer.as_str(),
            b.code,
        ))
    });
}

/// Where the file sits against its category: at `<category>/<tool_id>.json`, or at the top of
/// the catalog for an entry that gives none (its category is inferred at load).
fn check_placement(source: Origin<'_>, value: &Value, out: &mut Validation) {
    let category = value.get("category").and_then(Value::as_str);
    let (pointer, severity, code, msg) = match (source.dir_category, category) {
        (Some(dir), Some(cat)) if dir != cat => (
            "/category",
            Severity::Error,
            "category_dir_mismatch",
            format!("expected category to equal the directory name \"{dir}\", found \"{cat}\""),
        ),
        (Some(dir), None) => (
            "/category",
            Severity::Error,
            "category_dir_mismatch",
            format!("expected category \"{dir}\" (the directory the file is in), found none; an entry without a category sits at the top of the catalog"),
        ),
        (None, Some(_)) if source.stem.is_some() => (
            "",
            Severity::Error,
            "misplaced_file",
            format!("expected the file at <category>/<tool_id>.json inside the catalog, found it at {}", source.label),
        ),
        (None, None) if source.stem.is_some() && value.is_object() => (
            "/category",
            Severity::Warning,
            "category_inferred",
            "expected category (the tool's primary category), found it missing: the tool is placed at load in the nearest of the catalog's categories".to_string(),
        ),
        _ => return,
    };
    out.push(source.label, pointer, severity, code, msg);
}

/// Decodes one file into a JSON value, or reports why it cannot be read as one.
fn decode(source: &Source, out: &mut Validation) -> Option<Value> {
    let file = source.label.as_str();
    let err = Severity::Error;
    if source.bytes.iter().all(u8::is_ascii_whitespace) {
        out.push(
            file,
            "",
            err,
            "empty_file",
            "expected a JSON object, found an empty file",
        );
        return None;
    }
    let text = match std::str::from_utf8(&source.bytes) {
        Ok(t) => t,
        Err(e) => {
            let msg = format!(
                "expected UTF-8 text, found an invalid byte sequence at byte {}",
                e.valid_up_to()
            );
            out.push(file, "", err, "not_utf8", msg);
            return None;
        }
    };
    match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
        Ok(v) => Some(v),
        Err(e) => {
            let msg = format!(
                "expected valid JSON, found a syntax error at line {} column {}: {}",
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            );
            out.push(file, "", err, "invalid_json", msg);
            None
        }
    }
}

/// Checks a parsed document: schema, then layout, then per-tool semantics.
fn check_value(source: Origin<'_>, value: &Value, out: &mut Validation) -> Option<ToolRecord> {
    let file = source.label;
    let violations = Schema::tool().violations(value);
    let schema_ok = violations.is_empty();
    for v in violations {
        out.push(file, v.pointer, Severity::Error, "schema", v.message);
    }
    // Layout checks use the raw value so they report even when the schema fails elsewhere.
    if let (Some(stem), Some(id)) = (source.stem, value.get("tool_id").and_then(Value::as_str)) {
        if stem != id {
            let msg = format!("expected tool_id to equal the file name \"{stem}\", found \"{id}\"");
            out.push(
                file,
                "/tool_id",
                Severity::Error,
                "id_filename_mismatch",
                msg,
            );
        }
    }
    check_placement(source, value, out);
    if value.is_object() {
        super::checks::check_recommended(file, value, out);
    }
    if !schema_ok {
        return None;
    }
    let tool: ToolRecord = match serde_json::from_value(value.clone()) {
        Ok(t) => t,
        Err(e) => {
            // The schema and the record type disagree: a bug of ours, reported, not hidden.
            let msg = format!("passed the schema but could not be read: {e}");
            out.push(file, "", Severity::Error, "internal", msg);
            return None;
        }
    };
    check_tool(file, &tool, value, out);
    Some(tool)
}

/// What the cross-document checks read of one document, taken from its raw JSON value
/// (strings where strings belong, anything else skipped) rather than from a parsed record.
struct Refs<'a> {
    file: &'a str,
    tool_id: Option<&'a str>,
    /// `(pointer, name)` of the name, then of each alias.
    names: Vec<(String, &'a str)>,
    /// `(pointer, id)` of each relation, then of each usage-pattern step.
    refs: Vec<(String, &'a str)>,
}

/// The fields of a tool document that name tools.
const RELATION_FIELDS: &[&str] = &["similar_tools", "complementary_tools", "prerequisite_tools"];

fn refs_of<'a>(file: &'a str, value: &'a Value) -> Refs<'a> {
    let strings = |v: Option<&'a Value>| -> Vec<(usize, &'a str)> {
        v.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, s)| s.as_str().map(|s| (i, s)))
            .collect()
    };
    let mut names: Vec<(String, &str)> = value
        .get("name")
        .and_then(Value::as_str)
        .map(|n| ("/name".to_string(), n))
        .into_iter()
        .collect();
    names.extend(
        strings(value.get("aliases"))
            .into_iter()
            .map(|(i, a)| (format!("/aliases/{i}"), a)),
    );
    let mut refs = Vec::new();
    for field in RELATION_FIELDS {
        refs.extend(
            strings(value.get(*field))
                .into_iter()
                .map(|(i, id)| (format!("/{field}/{i}"), id)),
        );
    }
    let patterns = value.get("usage_patterns").and_then(Value::as_array);
    for (i, p) in patterns.into_iter().flatten().enumerate() {
        refs.extend(
            strings(p.get("tool_sequence"))
                .into_iter()
                .map(|(j, id)| (format!("/usage_patterns/{i}/tool_sequence/{j}"), id)),
        );
    }
    Refs {
        file,
        tool_id: value.get("tool_id").and_then(Value::as_str),
        names,
        refs,
    }
}

/// Checks across documents: unique ids and names, relations that resolve (to another
/// document, or to one of `known_ids`).
fn cross_check(docs: &[Refs<'_>], known_ids: &BTreeSet<&str>, out: &mut Validation) {
    let mut by_id: BTreeMap<&str, &str> = BTreeMap::new();
    // A name's first holder: (file, tool_id, the name as written).
    let mut by_name: HashMap<String, (&str, Option<&str>, &str)> = HashMap::new();
    for doc in docs {
        if let Some(id) = doc.tool_id {
            if let Some(first) = by_id.get(id) {
                let msg =
                    format!("expected a unique tool_id, found \"{id}\" already used by {first}");
                out.push(doc.file, "/tool_id", Severity::Error, "duplicate_id", msg);
            } else {
                by_id.insert(id, doc.file);
            }
        }
        for (pointer, name) in &doc.names {
            let key = normalize_name(name);
            match by_name.get(&key) {
                // A tool's own name and aliases may agree; a document without a tool_id
                // is only itself.
                Some((other_file, other_id, other_name))
                    if *other_id != doc.tool_id
                        || (other_id.is_none() && *other_file != doc.file) =>
                {
                    let other = other_id.unwrap_or("(no tool_id)");
                    out.push(doc.file, pointer.as_str(), Severity::Error, "duplicate_name", format!(
                        "expected a name unique across the catalog (ignoring case and separators), found \"{name}\" clashing with \"{other_name}\" of tool \"{other}\""
                    ));
                }
                _ => {
                    by_name.insert(key, (doc.file, doc.tool_id, name));
                }
            }
        }
    }
    for doc in docs {
        for (pointer, id) in &doc.refs {
            if Some(*id) != doc.tool_id && !by_id.contains_key(id) && !known_ids.contains(id) {
                let mut msg =
                    format!("expected the id of a tool in the catalog, found unknown \"{id}\"");
                let candidates = by_id.keys().chain(known_ids.iter()).copied();
                if let Some(best) = suggest(id, candidates).first() {
                    msg.push_str(&format!("; did you mean \"{best}\"?"));
                }
                out.push(
                    doc.file,
                    pointer.as_str(),
                    Severity::Error,
                    "unknown_reference",
                    msg,
                );
            }
        }
    }
}

/// serde_json appends " at line L column C"; the diagnostic states the position itself.
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;

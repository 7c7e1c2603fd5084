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
    for (origin, value) in documents {
        if let Some(tool) = check_value(origin, value, out) {
            out.tools.push((origin.label.to_string(), tool));
        }
    }
    cross_check(out, known_ids);
    out.diagnostics.sort_by(|a, b| {
        (a.file.as_str(), a.severity, a.pointer.as_str(), a.code).cmp(&(
            b.file.as_str(),
            b.severity,
            b.pointer.as_str(),
            b.code,
        ))
    });
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
    if let (Some(dir), Some(cat)) = (
        source.dir_category,
        value.get("category").and_then(Value::as_str),
    ) {
        if dir != cat {
            let msg =
                format!("expected category to equal the directory name \"{dir}\", found \"{cat}\"");
            out.push(
                file,
                "/category",
                Severity::Error,
                "category_dir_mismatch",
                msg,
            );
        }
    }
    if source.stem.is_some() && source.dir_category.is_none() {
        let msg = format!(
            "expected the file at <category>/<tool_id>.json inside the catalog, found it at {file}"
        );
        out.push(file, "", Severity::Error, "misplaced_file", msg);
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

/// Checks across files: unique ids and names, relations that resolve (to another document,
/// or to one of `known_ids`).
fn cross_check(out: &mut Validation, known_ids: &BTreeSet<&str>) {
    let mut by_id: BTreeMap<&str, &str> = BTreeMap::new();
    let mut by_name: HashMap<String, (&str, &str)> = HashMap::new();
    let mut found = Vec::new();
    for (file, tool) in &out.tools {
        if let Some(first) = by_id.insert(tool.tool_id.as_str(), file.as_str()) {
            found.push((
                file.clone(),
                "/tool_id".to_string(),
                "duplicate_id",
                format!(
                    "expected a unique tool_id, found \"{}\" already used by {first}",
                    tool.tool_id
                ),
            ));
            by_id.insert(tool.tool_id.as_str(), first);
        }
        for (k, name) in tool.names().enumerate() {
            let key = normalize_name(name);
            let pointer = if k == 0 {
                "/name".to_string()
            } else {
                format!("/aliases/{}", k - 1)
            };
            match by_name.get(&key) {
                Some((other_id, other_name)) if *other_id != tool.tool_id => {
                    found.push((file.clone(), pointer, "duplicate_name", format!(
                        "expected a name unique across the catalog (ignoring case and separators), found \"{name}\" clashing with \"{other_name}\" of tool \"{other_id}\""
                    )));
                }
                _ => {
                    by_name.insert(key, (tool.tool_id.as_str(), name));
                }
            }
        }
    }
    for (file, tool) in &out.tools {
        let mut refs: Vec<(String, &str)> = tool
            .relations()
            .map(|(field, i, id)| (format!("/{field}/{i}"), id))
            .collect();
        for (i, p) in tool.usage_patterns.iter().enumerate() {
            refs.extend(p.tool_sequence.iter().enumerate().map(|(j, id)| {
                (
                    format!("/usage_patterns/{i}/tool_sequence/{j}"),
                    id.as_str(),
                )
            }));
        }
        for (pointer, id) in refs {
            if id != tool.tool_id && !by_id.contains_key(id) && !known_ids.contains(id) {
                let mut msg =
                    format!("expected the id of a tool in the catalog, found unknown \"{id}\"");
                let candidates = by_id.keys().chain(known_ids.iter()).copied();
                if let Some(best) = suggest(id, candidates).first() {
                    msg.push_str(&format!("; did you mean \"{best}\"?"));
                }
                found.push((file.clone(), pointer, "unknown_reference", msg));
            }
        }
    }
    for (file, pointer, code, msg) in found {
        out.push(&file, pointer, Severity::Error, code, msg);
    }
}

/// serde_json appends " at line L column C"; the diagnostic states the position itself.
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    const READ_NOTE: &str = include_str!("../../tests/fixtures/good-catalog/notes/read_note.json");
    const SEARCH_NOTES: &str =
        include_str!("../../tests/fixtures/good-catalog/notes/search_notes.json");
    const EXPORT_NOTE: &str =
        include_str!("../../tests/fixtures/good-catalog/export/export_note.json");

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
}

//! Validation of catalog files: JSON Schema first, then what a schema cannot say (file layout,
//! unique ids and names, relations that resolve, examples that fit the tool's own input schema,
//! parameters that agree with it). Every problem becomes a `Diagnostic`; nothing panics and
//! nothing stops at the first error, so one run shows a maintainer everything to fix.

use super::record::{ToolRecord, DEFAULT_SCORE};
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

/// One input document: its label (path relative to the catalog, or a position in a posted
/// array), where it sits, and its raw bytes.
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

/// Validates every source, then the cross-references between them.
pub fn validate(sources: &[Source]) -> Validation {
    let mut out = Validation {
        files_checked: sources.len(),
        ..Validation::default()
    };
    for source in sources {
        if let Some(tool) = check_file(source, &mut out) {
            out.tools.push((source.label.clone(), tool));
        }
    }
    cross_check(&mut out);
    out.diagnostics.sort_by(|a, b| {
        (a.file.as_str(), a.severity, a.pointer.as_str(), a.code).cmp(&(
            b.file.as_str(),
            b.severity,
            b.pointer.as_str(),
            b.code,
        ))
    });
    out
}

/// Decodes, schema-checks and parses one file; per-tool checks follow on success.
fn check_file(source: &Source, out: &mut Validation) -> Option<ToolRecord> {
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
    let value: Value = match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
        Ok(v) => v,
        Err(e) => {
            let msg = format!(
                "expected valid JSON, found a syntax error at line {} column {}: {}",
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            );
            out.push(file, "", err, "invalid_json", msg);
            return None;
        }
    };
    check_value(source, &value, out)
}

/// Checks a parsed document: schema, then layout, then per-tool semantics.
pub(crate) fn check_value(
    source: &Source,
    value: &Value,
    out: &mut Validation,
) -> Option<ToolRecord> {
    let file = source.label.as_str();
    let violations = Schema::tool().violations(value);
    let schema_ok = violations.is_empty();
    for v in violations {
        out.push(file, v.pointer, Severity::Error, "schema", v.message);
    }
    // Layout checks use the raw value so they report even when the schema fails elsewhere.
    if let (Some(stem), Some(id)) = (&source.stem, value.get("tool_id").and_then(Value::as_str)) {
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
        &source.dir_category,
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

/// Per-tool checks the schema cannot express.
fn check_tool(file: &str, tool: &ToolRecord, raw: &Value, out: &mut Validation) {
    let err = Severity::Error;
    let warn = Severity::Warning;
    for (field, i, id) in tool.relations() {
        if id == tool.tool_id {
            let msg = format!("expected other tools' ids, found the tool's own id \"{id}\"");
            out.push(file, format!("/{field}/{i}"), err, "self_reference", msg);
        }
    }
    if let Some(exec) = &tool.execution {
        if !crate::exec::is_builtin(&exec.name) {
            let mut msg = format!(
                "expected one of the builtin executors ({}), found \"{}\"",
                crate::exec::BUILTIN_TOOLS.join(", "),
                exec.name
            );
            if let Some(best) =
                suggest(&exec.name, crate::exec::BUILTIN_TOOLS.iter().copied()).first()
            {
                msg.push_str(&format!("; did you mean \"{best}\"?"));
            }
            out.push(file, "/execution/name", err, "unknown_executor", msg);
        }
    }
    check_parameters(file, tool, out);
    check_examples(file, tool, out);

    if tool.description.chars().count() < USEFUL_DESCRIPTION_CHARS {
        let msg = format!(
            "expected a description of at least {USEFUL_DESCRIPTION_CHARS} characters for good retrieval, found {}",
            tool.description.chars().count()
        );
        out.push(file, "/description", warn, "short_description", msg);
    }
    if tool.examples.is_empty() {
        out.push(
            file,
            "/examples",
            warn,
            "no_examples",
            "expected at least one example, found none",
        );
    }
    for field in ["complexity_score", "popularity_score", "reliability_score"] {
        if raw.get(field).is_none() {
            let msg = format!(
                "expected a considered score from 0 to 1, found none (the default {DEFAULT_SCORE} applies)"
            );
            out.push(file, format!("/{field}"), warn, "default_score", msg);
        }
    }
}

/// `parameters` and `input_schema` must describe the same fields with the same required set.
fn check_parameters(file: &str, tool: &ToolRecord, out: &mut Validation) {
    let err = Severity::Error;
    let props: BTreeSet<&str> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let required: BTreeSet<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut seen = HashMap::new();
    for (i, p) in tool.parameters.iter().enumerate() {
        let at = format!("/parameters/{i}");
        if let Some(first) = seen.insert(p.name.as_str(), i) {
            let msg = format!("expected unique parameter names, found \"{}\" again (first at /parameters/{first})", p.name);
            out.push(file, format!("{at}/name"), err, "duplicate_parameter", msg);
        }
        if !props.contains(p.name.as_str()) {
            let msg = format!("expected a property of input_schema, found \"{}\" which input_schema.properties lacks", p.name);
            out.push(
                file,
                format!("{at}/name"),
                err,
                "parameter_not_in_schema",
                msg,
            );
        }
        let in_required = required.contains(p.name.as_str());
        if p.required != in_required {
            let msg = if p.required {
                format!("expected \"{}\" in input_schema.required since the parameter is required, found it missing", p.name)
            } else {
                format!(
                    "expected required: true since input_schema.required lists \"{}\", found false",
                    p.name
                )
            };
            out.push(
                file,
                format!("{at}/required"),
                err,
                "required_mismatch",
                msg,
            );
        }
    }
    for name in &props {
        if !seen.contains_key(name) {
            let msg = format!("expected every input_schema property to be described in parameters, found \"{name}\" undescribed");
            out.push(
                file,
                format!("/input_schema/properties/{}", escape(name)),
                err,
                "undocumented_property",
                msg,
            );
        }
    }
    for name in &required {
        if !props.contains(name) {
            let msg = format!("expected required names to be properties, found \"{name}\" which input_schema.properties lacks");
            out.push(
                file,
                "/input_schema/required",
                err,
                "required_mismatch",
                msg,
            );
        } else if !seen.contains_key(name) {
            // Reported above as undocumented; nothing to add.
        }
    }
}

/// Every example's arguments must validate against the tool's own input schema.
fn check_examples(file: &str, tool: &ToolRecord, out: &mut Validation) {
    let schema = match Schema::compile(&tool.input_schema) {
        Ok(s) => s,
        Err(e) => {
            let msg =
                format!("expected a usable JSON Schema, found one that does not compile: {e}");
            out.push(
                file,
                "/input_schema",
                Severity::Error,
                "invalid_input_schema",
                msg,
            );
            return;
        }
    };
    let mut ids = HashMap::new();
    for (i, ex) in tool.examples.iter().enumerate() {
        if let Some(first) = ids.insert(ex.id.as_str(), i) {
            let msg = format!(
                "expected unique example ids, found \"{}\" again (first at /examples/{first})",
                ex.id
            );
            out.push(
                file,
                format!("/examples/{i}/id"),
                Severity::Error,
                "duplicate_example",
                msg,
            );
        }
        for v in schema.violations(&ex.arguments) {
            let msg = format!("argument does not fit input_schema: {}", v.message);
            out.push(
                file,
                format!("/examples/{i}/arguments{}", v.pointer),
                Severity::Error,
                "example_invalid",
                msg,
            );
        }
    }
    for (i, p) in tool.parameters.iter().enumerate() {
        let (Some(default), Some(prop)) = (
            &p.default_value,
            tool.input_schema
                .pointer(&format!("/properties/{}", escape(&p.name))),
        ) else {
            continue;
        };
        if let Ok(s) = Schema::compile(prop) {
            if let Some(v) = s.violations(default).first() {
                let msg = format!(
                    "default_value does not fit the property's schema: {}",
                    v.message
                );
                out.push(
                    file,
                    format!("/parameters/{i}/default_value"),
                    Severity::Error,
                    "default_invalid",
                    msg,
                );
            }
        }
    }
}

/// Checks across files: unique ids and names, relations that resolve.
fn cross_check(out: &mut Validation) {
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
            if id != tool.tool_id && !by_id.contains_key(id) {
                let mut msg =
                    format!("expected the id of a tool in the catalog, found unknown \"{id}\"");
                if let Some(best) = suggest(id, by_id.keys().copied()).first() {
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

/// Escapes a name for use as one JSON pointer segment.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// serde_json appends " at line L column C"; the diagnostic states the position itself.
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

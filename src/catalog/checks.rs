//! Per-tool checks that a JSON Schema cannot express: self-references, executor bindings,
//! `parameters` against `input_schema`, examples and defaults against the tool's own schema,
//! and the quality warnings. They run on every tool that passed the schema, whether it came
//! from a catalog file or a posted body.

use super::record::{ToolRecord, DEFAULT_SCORE};
use super::suggest::suggest;
use super::validate::{Severity, Validation, USEFUL_DESCRIPTION_CHARS};
use crate::schema::Schema;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// Per-tool checks the schema cannot express.
pub(super) fn check_tool(file: &str, tool: &ToolRecord, raw: &Value, out: &mut Validation) {
    let err = Severity::Error;
    let warn = Severity::Warning;
    for (field, i, id) in tool.relations() {
        if id == tool.tool_id {
            let msg = format!("expected other tools' ids, found the tool's own id \"{id}\"");
            out.push(file, format!("/{field}/{i}"), err, "self_reference", msg);
        }
    }
    if let Some(exec) = &tool.execution {
        if !crate::builtin::is_builtin(&exec.name) {
            let mut msg = format!(
                "expected one of the builtin executors ({}), found \"{}\"",
                crate::builtin::BUILTIN_TOOLS.join(", "),
                exec.name
            );
            if let Some(best) =
                suggest(&exec.name, crate::builtin::BUILTIN_TOOLS.iter().copied()).first()
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

/// Escapes a name for use as one JSON pointer segment.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Fields an entry may leave out on day one (only id, name, description and category are
/// required), each with what it gives; a missing one is a warning, an error with `--strict`.
const RECOMMENDED: &[(&str, &str)] = &[
    (
        "tool_type",
        "system, custom, third_party or experimental; custom when left out",
    ),
    ("version", "the tool's version, shown with results"),
    (
        "performance_tier",
        "fast, balanced or comprehensive; balanced when left out",
    ),
    ("search_keywords", "the phrases people search for it by"),
    ("semantic_tags", "tags that group it with related tools"),
    ("parameters", "its parameters, searched and shown to agents"),
    (
        "input_schema",
        "the JSON Schema of its arguments, so examples and calls can be checked",
    ),
    ("when_to_use", "when to pick it over its alternatives"),
    (
        "similar_tools",
        "its alternatives, for comparisons and suggestions",
    ),
    ("complementary_tools", "tools used with it, for workflows"),
    ("created_at", "when the entry was written, RFC 3339"),
    (
        "updated_at",
        "when the entry last changed, RFC 3339, for the recent_only filter",
    ),
];

/// Reads the raw document, so a file that fails the schema still learns what it lacks.
pub(super) fn check_recommended(file: &str, raw: &Value, out: &mut Validation) {
    for (field, gives) in RECOMMENDED {
        if raw.get(field).is_none() {
            let msg = format!("expected {field} ({gives}), found it missing");
            out.push(
                file,
                format!("/{field}"),
                Severity::Warning,
                "missing_recommended",
                msg,
            );
        }
    }
}

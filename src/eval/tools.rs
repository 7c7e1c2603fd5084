//! An eval set's tools, read in every shape toolscout accepts as a catalog, into the same
//! `ToolRecord`s the catalog holds, so eval measures the documents a user gets:
//! - a catalog directory (validated as `toolscout catalog validate` does);
//! - a JSON-lines file whose lines are, each on its own: the development sets' layout (`id`,
//!   `name`, `description`, optional `name_for_human`, `description_for_model`), a catalog
//!   record (`tool_id`, ...), or an MCP `tools/list` entry (`name`, `inputSchema`, ...; with
//!   its server as `server: {name, description}`);
//! - a JSON file holding a `tools/list` result (`{"tools": [...]}`, optionally with `server`
//!   or `serverInfo` and `instructions`), or an array of entries.

use crate::catalog::mcp::{
    blank_record, parameters_of, record_from_mcp, schema_from_listing, McpServer, McpTool,
};
use crate::catalog::{Catalog, ToolRecord};
use crate::error::{Error, Result, Violation};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One tool of a development set (the MetaTool layout).
#[derive(Debug, Clone, Deserialize)]
pub struct EvalTool {
    pub id: String,
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub name_for_human: Option<String>,
    #[serde(default)]
    pub description_for_model: Option<String>,
}

/// The category every eval tool without one of its own gets.
const EVAL_CATEGORY: &str = "eval";

/// Reads the tools at `path` (a catalog directory, a JSON-lines file or a JSON file).
pub fn read_tools(path: &Path) -> Result<Vec<ToolRecord>> {
    if path.is_dir() {
        let (catalog, _) = Catalog::load(path)?;
        return Ok(catalog.tools().to_vec());
    }
    let entries = read_tool_entries(path)?;
    Ok(unique_ids(entries.into_iter().map(|(r, _)| r).collect()))
}

/// The tools of a JSON-lines or JSON file, each with whether it was a hand-written catalog
/// record (the other shapes carry no id or category of a catalog's); ids as the file has them.
pub fn read_tool_entries(path: &Path) -> Result<Vec<(ToolRecord, bool)>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |what: String, message: String| Error::Validation {
        what,
        violations: vec![Violation {
            pointer: String::new(),
            message,
        }],
    };
    let trimmed = text.trim_start();
    let whole: Option<Value> = (trimmed.starts_with('{') || trimmed.starts_with('['))
        .then(|| serde_json::from_str(trimmed).ok())
        .flatten();
    let records = match whole {
        Some(Value::Object(o)) if o.contains_key("tools") => {
            let server = server_of(&Value::Object(o.clone()));
            let tools = o["tools"].as_array().cloned().unwrap_or_default();
            tools
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    entry_of(v, server.as_ref())
                        .map_err(|m| bad(format!("{} /tools/{i}", path.display()), m))
                })
                .collect::<Result<Vec<_>>>()?
        }
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| entry_of(v, None).map_err(|m| bad(format!("{} /{i}", path.display()), m)))
            .collect::<Result<Vec<_>>>()?,
        _ => text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, line)| {
                let what = || format!("{} line {}", path.display(), i + 1);
                let v: Value =
                    serde_json::from_str(line).map_err(|e| bad(what(), e.to_string()))?;
                entry_of(&v, None).map_err(|m| bad(what(), m))
            })
            .collect::<Result<Vec<_>>>()?,
    };
    Ok(records)
}

/// One tool and whether it is a catalog record.
fn entry_of(
    v: &Value,
    server: Option<&McpServer>,
) -> std::result::Result<(ToolRecord, bool), String> {
    let hand_written = v.get("tool_id").is_some();
    record_of(v, server).map(|r| (r, hand_written))
}

/// One tool in whichever shape it comes; the error says which shape was expected.
fn record_of(v: &Value, server: Option<&McpServer>) -> std::result::Result<ToolRecord, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("expected a tool object, found {}", crate::schema::show(v)))?;
    if obj.contains_key("tool_id") {
        return serde_json::from_value(v.clone()).map_err(|e| format!("catalog record: {e}"));
    }
    if obj.contains_key("id") && !obj.contains_key("inputSchema") {
        let t: EvalTool =
            serde_json::from_value(v.clone()).map_err(|e| format!("eval tool: {e}"))?;
        return Ok(record_of_eval(&t));
    }
    let tool: McpTool = serde_json::from_value(v.clone())
        .map_err(|e| format!("MCP tools/list entry (name, description, inputSchema): {e}"))?;
    let own_server = server_of(v);
    let server = own_server.as_ref().or(server);
    let id = obj
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| tool.name.clone(), str::to_string);
    let category = server.map_or(EVAL_CATEGORY.to_string(), |s| s.name.clone());
    Ok(record_from_mcp(&tool, server, id, category))
}

/// The server of an entry or of a `tools/list` document: `server` (an object or a name),
/// or `serverInfo` with `instructions`.
fn server_of(v: &Value) -> Option<McpServer> {
    match v.get("server") {
        Some(Value::String(name)) => Some(McpServer {
            name: name.clone(),
            title: None,
            description: v
                .get("server_description")
                .and_then(Value::as_str)
                .map(str::to_string),
        }),
        Some(s @ Value::Object(_)) => serde_json::from_value(s.clone()).ok(),
        _ => {
            let info = v.get("serverInfo")?;
            let mut server: McpServer = serde_json::from_value(info.clone()).ok()?;
            if let Some(i) = v.get("instructions").and_then(Value::as_str) {
                server.description = Some(i.to_string());
            }
            Some(server)
        }
    }
}

/// A development-set tool as a catalog record: the human name an alias; a model-facing
/// description that is a parameter listing becomes the input schema's parameters, any other
/// is the when-to-use guidance.
pub fn record_of_eval(t: &EvalTool) -> ToolRecord {
    let mut r = blank_record(t.id.clone(), t.name.clone(), EVAL_CATEGORY.into());
    r.aliases = t
        .name_for_human
        .iter()
        .filter(|h| **h != t.name)
        .cloned()
        .collect();
    r.description = t.description.clone();
    let model_text = t.description_for_model.clone().unwrap_or_default();
    match schema_from_listing(&model_text) {
        Some((schema, returns)) => {
            r.parameters = parameters_of(&schema);
            r.input_schema = schema;
            if let Some(returns) = returns {
                // "Returns: name (type): description; ..." reads as a listing too, so the
                // returned fields keep their names (what feeds another tool's parameters).
                let mut schema = schema_from_listing(&format!("Parameters: {returns}"))
                    .map_or_else(|| serde_json::json!({"type": "object"}), |(s, _)| s);
                if let Some(o) = schema.as_object_mut() {
                    o.remove("required");
                    o.insert("description".into(), returns.into());
                }
                r.return_schema = Some(schema);
            }
        }
        None => r.when_to_use = model_text,
    }
    r
}

/// Ids made unique: a second tool with an id already taken gets `<server>.<id>` or `<id>#2`,
/// so two servers' tools of one name both stay searchable.
fn unique_ids(records: Vec<ToolRecord>) -> Vec<ToolRecord> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    records
        .into_iter()
        .map(|mut r| {
            let n = seen.entry(r.tool_id.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                r.tool_id = match &r.source {
                    Some(s) => format!("{}.{}", s.name, r.tool_id),
                    None => format!("{}#{}", r.tool_id, n),
                };
            }
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let dir = tempfile::tempdir().unwrap().keep();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn every_line_shape_reads() {
        let p = write(
            "t.jsonl",
            r#"{"id": "a", "name": "a", "description": "A.", "description_for_model": "Parameters: x (int, required): X."}
{"name": "b", "description": "B.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}, "server": {"name": "srv", "description": "S."}}
{"name": "b", "description": "B again.", "server": "other"}
"#,
        );
        let r = read_tools(&p).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].parameters[0].name, "x");
        assert!(r[0].when_to_use.is_empty());
        assert_eq!(r[1].tool_id, "b");
        assert_eq!(
            r[1].source.as_ref().unwrap().description.as_deref(),
            Some("S.")
        );
        assert_eq!(r[2].tool_id, "other.b");
    }

    #[test]
    fn a_tools_list_result_reads_with_its_server() {
        let p = write(
            "t.json",
            r#"{"serverInfo": {"name": "time"}, "instructions": "Clocks.", "tools": [{"name": "now"}]}"#,
        );
        let r = read_tools(&p).unwrap();
        assert_eq!(r[0].tool_id, "now");
        assert_eq!(
            r[0].source.as_ref().unwrap().description.as_deref(),
            Some("Clocks.")
        );
    }

    #[test]
    fn a_bad_line_is_named() {
        let p = write(
            "t.jsonl",
            "{\"id\": \"a\", \"name\": \"a\", \"description\": \"A\"}\n[1]\n",
        );
        let e = read_tools(&p).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }
}

//! The octocode-compatible routes: `/tools/list`, `/tools/info/{toolName}`,
//! `/tools/initContext`, `/tools/system`, `/tools/metadata`, `/prompts/list` and
//! `/prompts/info/{name}`. Success bodies keep octocode's shapes and camelCase keys
//! (`{success, data, hints}`, `inputSchema`, `totalCount`; `initContext` without the `data`
//! wrapper), so clients written for octocode work unchanged. Errors use toolscout's one
//! envelope, as on every other route.
//!
//! Routes that take no parameters ignore the query string (cache busters are common);
//! routes that take parameters reject unknown ones.

use super::envelope::ApiError;
use super::query::{self, QueryPairs};
use super::AppState;
use crate::prompts::{self, SYSTEM_PROMPT};
use axum::extract::{Path, State};
use axum::Json;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The first clause of a description, for lists: up to the first sentence or colon, at
/// most about a hundred characters, cut at a word.
fn summary(description: &str) -> String {
    let end = [". ", ": "]
        .iter()
        .filter_map(|sep| description.find(sep))
        .min()
        .unwrap_or(description.len());
    let first = description[..end].trim_end_matches('.');
    if first.chars().count() <= 100 {
        return first.to_string();
    }
    let cut: String = first.chars().take(100).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}...", cut.trim_end_matches(','))
}

/// `GET /tools/list`: the tools `/tools/call` will run, with a one-line description each.
pub(crate) async fn tools_list(State(state): State<AppState>) -> Json<Value> {
    let tools: Vec<Value> = state
        .service
        .runnable_tools()
        .into_iter()
        .map(|(name, t)| {
            json!({
                "name": name,
                "description": summary(&t.description),
                "toolId": t.tool_id,
                "category": t.category,
            })
        })
        .collect();
    Json(json!({
        "success": true,
        "data": { "tools": tools },
        "hints": ["GET /tools/info/{name} for the full schema before calling a tool"],
    }))
}

/// `GET /tools/info/{toolName}[?schema=false][&hints=false]`: one tool with its JSON Schema.
/// `toolName` is a catalog id, an execution name (`localSearchCode`), or a name or alias;
/// any catalog tool can be described, runnable or not (`executable` says which).
pub(crate) async fn tools_info(
    State(state): State<AppState>,
    Path(tool_name): Path<String>,
    pairs: QueryPairs,
) -> Result<Json<Value>, ApiError> {
    let op = "tools.info";
    let mut violations = Vec::new();
    let params = pairs.single(Some(&["schema", "hints"]), &mut violations);
    let with_schema = query::boolean(&params, "schema", true, &mut violations);
    let with_hints = query::boolean(&params, "hints", true, &mut violations);
    if !violations.is_empty() {
        return Err(query::invalid(op, violations));
    }
    let tool = state
        .service
        .describe_tool(&tool_name)
        .map_err(|e| ApiError::new(op, e))?;
    let name = tool
        .execution
        .as_ref()
        .map_or(tool.name.as_str(), |e| e.name.as_str());
    let mut data = Map::new();
    data.insert("name".into(), json!(name));
    data.insert("toolId".into(), json!(tool.tool_id));
    data.insert("description".into(), json!(tool.description));
    data.insert("category".into(), json!(tool.category));
    data.insert("toolType".into(), json!(tool.tool_type));
    data.insert("executable".into(), json!(tool.is_executable()));
    if with_schema {
        data.insert("inputSchema".into(), tool.input_schema.clone());
        if let Some(returns) = &tool.return_schema {
            data.insert("returnSchema".into(), returns.clone());
        }
    }
    if with_hints {
        data.insert("whenToUse".into(), json!(tool.when_to_use));
    }
    let hint = if tool.is_executable() {
        "Review inputSchema carefully before calling this tool"
    } else {
        "toolscout describes this tool but does not run it; inputSchema is how the tool is called"
    };
    Ok(Json(
        json!({ "success": true, "data": data, "hints": [hint] }),
    ))
}

/// `GET /tools/initContext`: everything an agent loads once: the system prompt and the input
/// schema of every runnable tool.
pub(crate) async fn init_context(State(state): State<AppState>) -> Json<Value> {
    let schemas: Map<String, Value> = state
        .service
        .runnable_tools()
        .into_iter()
        .map(|(name, t)| (name.to_string(), t.input_schema.clone()))
        .collect();
    Json(json!({
        "success": true,
        "system_prompt": SYSTEM_PROMPT,
        "tools_schema": schemas,
        "_meta": {
            "promptCharCount": SYSTEM_PROMPT.chars().count(),
            "toolsCount": schemas.len(),
            "version": VERSION,
        },
    }))
}

/// `GET /tools/system`: the system prompt.
pub(crate) async fn system() -> Json<Value> {
    Json(json!({
        "success": true,
        "data": {
            "instructions": SYSTEM_PROMPT,
            "charCount": SYSTEM_PROMPT.chars().count(),
            "version": VERSION,
        },
        "hints": ["Load this system prompt first, before using the tools"],
    }))
}

/// `GET /tools/metadata`: the system prompt with the counts of what is served.
pub(crate) async fn metadata(State(state): State<AppState>) -> Json<Value> {
    Json(json!({
        "success": true,
        "data": {
            "instructions": SYSTEM_PROMPT,
            "toolCount": state.service.runnable_tools().len(),
            "promptCount": prompts::PROMPTS.len(),
            "catalogSize": state.service.catalog().len(),
            "catalogVersion": state.service.catalog().version(),
        },
        "hints": ["GET /tools/info/{name} for one tool's schema; GET /search to find a tool"],
    }))
}

/// `GET /prompts/list`: every prompt with its arguments.
pub(crate) async fn prompts_list() -> Json<Value> {
    Json(json!({
        "success": true,
        "data": {
            "prompts": prompts::PROMPTS,
            "totalCount": prompts::PROMPTS.len(),
            "version": VERSION,
        },
        "hints": ["GET /prompts/info/{name} for a prompt's text; add ?argument=value to fill it in"],
    }))
}

/// `GET /prompts/info/{name}[?argument=value...]`: the prompt's text. Without query
/// parameters the template comes back as is, with its `{{argument}}` placeholders; with any,
/// it is rendered, and missing required or unknown arguments are a validation error.
pub(crate) async fn prompts_info(
    Path(name): Path<String>,
    pairs: QueryPairs,
) -> Result<Json<Value>, ApiError> {
    let op = "prompts.info";
    let prompt = prompts::require(&name).map_err(|e| ApiError::new(op, e))?;
    let mut violations = Vec::new();
    let args: BTreeMap<String, String> = pairs.single(None, &mut violations);
    if !violations.is_empty() {
        return Err(query::invalid(op, violations));
    }
    let rendered = !args.is_empty();
    let content = if rendered {
        prompt.render(&args).map_err(|e| ApiError::new(op, e))?
    } else {
        prompt.template.to_string()
    };
    Ok(Json(json!({
        "success": true,
        "data": {
            "name": prompt.name,
            "description": prompt.description,
            "arguments": prompt.arguments,
            "content": content,
            "rendered": rendered,
        },
        "hints": ["Follow the prompt's steps in order, and report with the evidence it asks for"],
    })))
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summaries_are_the_first_clause() {
        assert_eq!(
            summary("Reads a text file from the local workspace: the whole file, or lines."),
            "Reads a text file from the local workspace"
        );
        assert_eq!(summary("Short. More."), "Short");
        assert_eq!(summary("No stop at all"), "No stop at all");
        let long = format!("{} end", "word ".repeat(40));
        let s = summary(&long);
        assert!(s.ends_with("...") && s.chars().count() <= 103, "{s}");
    }
}

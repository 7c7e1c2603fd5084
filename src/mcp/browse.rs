//! What an MCP client can browse: the prompts of `/prompts/*` (`prompts/list`, `prompts/get`
//! with arguments) and the catalog as resources, one `toolscout://tools/{id}` per tool with
//! its metadata as JSON, listed in pages and described by a resource template.
//!
//! Unlike tool calls, these answer a bad request with a JSON-RPC error, as the spec says
//! (-32602 for an unknown prompt or bad arguments, -32002 for an unknown resource); the
//! error's `data` is the same `ErrorDetail` HTTP sends.

use crate::error::Error;
use crate::prompts::{self, PROMPTS};
use crate::service::Service;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Role,
};
use rmcp::ErrorData;
use serde_json::Value;
use std::collections::BTreeMap;

/// Where a tool's metadata lives: `toolscout://tools/{id}`.
pub(super) const TOOL_URI: &str = "toolscout://tools/";

/// How many resources one `resources/list` page holds.
const PAGE: usize = 100;

pub(super) fn prompts() -> ListPromptsResult {
    ListPromptsResult::with_all_items(
        PROMPTS
            .iter()
            .map(|p| {
                let arguments = p
                    .arguments
                    .iter()
                    .map(|a| {
                        PromptArgument::new(a.name)
                            .with_description(a.description)
                            .with_required(a.required)
                    })
                    .collect();
                Prompt::new(p.name, Some(p.description), Some(arguments))
            })
            .collect(),
    )
}

/// One prompt with its arguments filled in (values must be strings, as the spec has them).
pub(super) fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    let op = "prompts.get";
    let prompt = prompts::require(&request.name).map_err(|e| protocol(op, &e))?;
    let mut args = BTreeMap::new();
    let mut violations = Vec::new();
    for (name, value) in request.arguments.iter().flatten() {
        match value {
            Value::String(s) => {
                args.insert(name.clone(), s.clone());
            }
            other => violations.push(crate::error::Violation {
                pointer: format!("/{name}"),
                message: format!(
                    "expected a string value, found {}",
                    crate::schema::show(other)
                ),
            }),
        }
    }
    if !violations.is_empty() {
        let e = Error::Validation {
            what: "prompt arguments".into(),
            violations,
        };
        return Err(protocol(op, &e));
    }
    let text = prompt.render(&args).map_err(|e| protocol(op, &e))?;
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(prompt.description),
    )
}

/// Page `cursor` (an offset, as this server hands it out) of the catalog's tools.
pub(super) fn resources(
    service: &Service,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, ErrorData> {
    let catalog = service.catalog();
    let tools = catalog.tools();
    let start = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= tools.len())
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("expected a cursor this server returned, found {c:?}"),
                    None,
                )
            })?,
    };
    let end = (start + PAGE).min(tools.len());
    let page = tools[start..end]
        .iter()
        .map(|t| {
            Resource::new(format!("{TOOL_URI}{}", t.tool_id), t.tool_id.clone())
                .with_title(t.name.clone())
                .with_description(crate::format::first_sentence(&t.description, 200))
                .with_mime_type("application/json")
        })
        .collect();
    let mut result = ListResourcesResult::with_all_items(page);
    result.next_cursor = (end < tools.len()).then(|| end.to_string());
    Ok(result)
}

pub(super) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![ResourceTemplate::new(
        format!("{TOOL_URI}{{id}}"),
        "tool",
    )
    .with_title("A catalog tool's metadata")
    .with_description(
        "One tool's full metadata (description, parameters, input schema, examples) by its \
         id, as search results name it",
    )
    .with_mime_type("application/json")])
}

/// `toolscout://tools/{id}`: the tool's metadata as `GET /catalog/tools/{id}` has it.
pub(super) fn read(service: &Service, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let op = "resources.read";
    let Some(id) = uri.strip_prefix(TOOL_URI) else {
        return Err(ErrorData::resource_not_found(
            format!("expected a resource URI {TOOL_URI}{{id}}, found {uri:?}"),
            None,
        ));
    };
    let tool = service
        .tool(id)
        .map_err(|e| ErrorData::resource_not_found(e.public_message(), Some(e.detail(op, None))))?;
    let text = serde_json::to_string_pretty(&tool).map_err(|e| {
        ErrorData::internal_error(format!("tool metadata did not serialise: {e}"), None)
    })?;
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        text, uri,
    )
    .with_mime_type("application/json")]))
}

/// A request the client must fix, as the JSON-RPC error the spec asks for.
fn protocol(op: &str, e: &Error) -> ErrorData {
    ErrorData::invalid_params(e.public_message(), Some(e.detail(op, None)))
}

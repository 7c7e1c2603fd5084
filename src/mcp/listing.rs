//! What `tools/list` shows: the five meta-tools, whose descriptions are written from the
//! live catalog (how many tools, which categories, how many run here) so an agent knows when
//! to reach for each, and with `--expose-tools` every executable tool under its own name.
//! Input schemas are the embedded request schemas of the HTTP twins, with the catalog's
//! categories listed where a category is asked for.

use super::Options;
use crate::builtin::{Family, Tool as Builtin};
use crate::catalog::Catalog;
use crate::schema::Embedded;
use crate::service::Service;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};
use std::sync::Arc;

pub(super) const SEARCH: &str = "search_tools";
pub(super) const RECOMMEND: &str = "recommend_tools";
pub(super) const COMPARE: &str = "compare_tools";
pub(super) const DESCRIBE: &str = "describe_tool";
pub(super) const CALL: &str = "call_tool";
pub(super) const RATE: &str = "rate_tool";

/// Every tool this server lists, meta-tools first.
pub(super) fn tools(service: &Service, options: Options) -> Vec<Tool> {
    let mut out = meta_tools(service);
    if options.expose_tools {
        out.extend(exposed_tools(service));
    }
    out
}

/// The server's `instructions`: what it is and the order to use it in.
pub(super) fn instructions(service: &Service) -> String {
    format!(
        "toolscout finds the right tool for a task in a catalog of {}, explains why, and runs \
         the executable ones. Call {SEARCH} (or {RECOMMEND} for a task that needs several \
         steps) before guessing a tool; {COMPARE} to choose between candidates; \
         {DESCRIBE} for a tool's input schema; {CALL} to run it; {RATE} to say how a tool \
         served. Results are concise \
         Markdown by default: pass detail_level \"detailed\" for the evidence and \
         response_format \"json\" for JSON text.",
        catalog_summary(&service.catalog())
    )
}

/// "N tools in K categories (a 12, b 9, ...)": what the descriptions say of the catalog.
fn catalog_summary(catalog: &Catalog) -> String {
    let mut categories: Vec<(&str, usize)> = catalog.categories().into_iter().collect();
    categories.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let listed: Vec<String> = categories
        .iter()
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    format!(
        "{} tools in {} categories ({})",
        catalog.len(),
        categories.len(),
        listed.join(", ")
    )
}

fn meta_tools(service: &Service) -> Vec<Tool> {
    let mut out = discovery_tools(service);
    out.push(call_tool(service));
    out.push(rate_tool());
    out
}

/// The meta-tools that find and explain tools: read-only, inside toolscout.
fn discovery_tools(service: &Service) -> Vec<Tool> {
    let catalog = service.catalog();
    let catalog = catalog.as_ref();
    let summary = catalog_summary(catalog);
    let discovery = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    vec![
        tool(
            SEARCH,
            "Search tools",
            format!(
                "Find tools for a need in plain words, ranked by a hybrid of keyword and \
                 semantic relevance, each with a confidence and the reason it matched. Reach \
                 for it first whenever you need a capability you do not have a tool for. The \
                 catalog holds {summary}. Runnable hits carry the `call` to make with {CALL}."
            ),
            with_categories(Embedded::SearchRequest, catalog),
            output_schema(
                "SearchResponse",
                &["success", "query", "total_results", "results"],
            ),
            discovery.clone(),
        ),
        tool(
            RECOMMEND,
            "Recommend tools for a task",
            format!(
                "For a task that takes several steps: what to use and in what order, with a \
                 task analysis, explained picks and a workflow. Use it instead of \
                 {SEARCH} when the task has more than one part or you want a plan; it \
                 draws on the same catalog."
            ),
            with_categories(Embedded::RecommendRequest, catalog),
            output_schema(
                "RecommendationResponse",
                &["success", "recommendations", "workflow"],
            ),
            discovery.clone(),
        ),
        tool(
            COMPARE,
            "Compare tools",
            format!(
                "Compare 2 to 10 catalog tools (by id) on evidence from the catalog for a \
                 stated situation: a criteria matrix, trade-offs and which to pick. Use it \
                 when {SEARCH} returns several close candidates."
            ),
            schema_object(Embedded::CompareRequest.text()),
            output_schema("ComparisonResponse", &["success", "comparison"]),
            discovery.clone(),
        ),
        tool(
            DESCRIBE,
            "Describe a tool",
            format!(
                "One tool's full metadata by id, name or alias: description, when to use \
                 it, parameters, its input schema and examples, and for a runnable tool how \
                 to call it with {CALL}. Read it before calling a tool you have not used."
            ),
            describe_input(),
            output_schema("ToolMetadata", &["tool_id", "name", "input_schema"]),
            discovery,
        ),
    ]
}

/// `rate_tool`: feedback on a tool of an answer, as `POST /feedback` takes it. It writes to
/// the usage store only, so it is not read-only but never destructive.
fn rate_tool() -> Tool {
    let annotations = ToolAnnotations::new()
        .read_only(false)
        .destructive(false)
        .idempotent(false)
        .open_world(false);
    tool(
        RATE,
        "Rate a tool of an answer",
        format!(
            "Say how a tool that {SEARCH} or {RECOMMEND} returned served you: selected (you \
             chose it), helpful or not_helpful. Name the answer by the query text you \
             searched with (or its request id); rankings learn from it. Running a returned \
             tool with {CALL} already counts as selecting it."
        ),
        schema_object(Embedded::FeedbackRequest.text()),
        output_schema("FeedbackReceipt", &["success", "tool_id", "signal"]),
        annotations,
    )
}

/// `call_tool`: what it runs, the builtin tools by name and upstream servers' tools by id.
fn call_tool(service: &Service) -> Tool {
    let upstream = service.upstream_tools();
    let runnable: Vec<&str> = service
        .runnable_tools()
        .iter()
        .map(|(n, _)| *n)
        .chain(upstream.iter().map(|t| t.tool_id.as_str()))
        .collect();
    tool(
        CALL,
        "Run a tool",
        format!(
            "Run one of the {} executable tools ({}) on 1 to 5 queries, each checked \
                 against the tool's input schema (see {DESCRIBE}); an upstream MCP server's \
                 tool (named by id) takes its own arguments as a query and is forwarded to \
                 its server. Local tools read files inside the configured workspace only; \
                 results are redacted of secrets.",
            runnable.len(),
            runnable.join(", ")
        ),
        call_input(&runnable),
        output_schema("ToolCallResult", &["success"]),
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(true),
    )
}

/// With `--expose-tools`: each builtin tool under its execution name, taking octocode's
/// `{queries: [...]}` with the tool's own input schema for each query; then each upstream
/// server's tool under its id, exactly as its server lists it (schema, output schema,
/// annotations), so toolscout is a transparent proxy for it.
fn exposed_tools(service: &Service) -> Vec<Tool> {
    let upstream = service.upstream_tools().into_iter().map(|t| {
        let mut listed = Tool::new_with_raw(
            t.tool_id.clone(),
            Some(t.description.clone().into()),
            object(t.input_schema.clone()),
        );
        if let Some(title) = t.aliases.first() {
            listed = listed.with_title(title.clone());
        }
        if let Some(output) = &t.return_schema {
            listed = listed.with_raw_output_schema(object(output.clone()));
        }
        if let Some(annotations) = t
            .annotations
            .as_ref()
            .and_then(|a| serde_json::from_value::<ToolAnnotations>(a.clone()).ok())
        {
            listed = listed.with_annotations(annotations);
        }
        listed
    });
    builtin_tools(service).into_iter().chain(upstream).collect()
}

fn builtin_tools(service: &Service) -> Vec<Tool> {
    service
        .runnable_tools()
        .into_iter()
        .map(|(name, record)| {
            let open_world = Builtin::from_name(name)
                .is_some_and(|t| matches!(t.family(), Family::Github | Family::Package));
            let input = json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["queries"],
                "properties": {
                    "queries": {
                        "description": "1 to 5 queries, run concurrently",
                        "type": "array", "minItems": 1, "maxItems": 5,
                        "items": record.input_schema,
                    },
                },
            });
            tool(
                name,
                &record.name,
                record.description.clone(),
                object(input),
                output_schema("ToolCallResult", &["success"]),
                ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(open_world),
            )
        })
        .collect()
}

fn tool(
    name: &str,
    title: &str,
    description: String,
    input: Arc<JsonObject>,
    output: Arc<JsonObject>,
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new_with_raw(name.to_string(), Some(description.into()), input)
        .with_title(title)
        .with_raw_output_schema(output)
        .with_annotations(annotations)
}

/// An embedded request schema with every category field listing the catalog's categories,
/// which is what the service accepts.
fn with_categories(schema: Embedded, catalog: &Catalog) -> Arc<JsonObject> {
    let mut value: Value = serde_json::from_str(schema.text()).unwrap_or_default();
    let categories: Vec<&str> = catalog.categories().into_keys().collect();
    for pointer in [
        "/properties/category",
        "/properties/user_preferences/properties/preferred_categories/items",
        "/properties/user_preferences/properties/avoid_categories/items",
    ] {
        if let Some(field) = value.pointer_mut(pointer) {
            field["enum"] = json!(categories);
        }
    }
    object(value)
}

fn schema_object(text: &str) -> Arc<JsonObject> {
    object(serde_json::from_str(text).unwrap_or_default())
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn describe_input() -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["name"],
        "properties": {
            "name": {
                "description": "The tool's id, name, execution name or an alias, as search results show it",
                "type": "string", "minLength": 1, "maxLength": 200,
            },
            "response_format": {
                "description": "markdown (default): a page to read; json: the metadata as JSON text",
                "type": "string", "enum": ["json", "markdown"],
            },
        },
    }))
}

fn call_input(runnable: &[&str]) -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "queries"],
        "properties": {
            "name": {
                "description": "The execution name of the tool to run",
                "type": "string",
                "enum": runnable,
            },
            "queries": {
                "description": "1 to 5 queries, each an object of the tool's parameters (its input schema, from describe_tool); they run concurrently",
                "type": "array", "minItems": 1, "maxItems": 5,
                "items": { "type": "object" },
            },
        },
    }))
}

/// An output schema that every rendering of the answer satisfies (concise and detailed
/// share the required keys named here).
fn output_schema(title: &str, required: &[&str]) -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "title": title,
        "required": required,
    }))
}

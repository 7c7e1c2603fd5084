//! `GET /openapi.json`: an OpenAPI 3.1 document of every route, built from code so it cannot
//! drift from the router unnoticed (a test compares it with `ROUTES` and the live server).
//! Operations are described here; their schemas are in `components`. The served document
//! also lists the catalog's categories (`document_for`), so that everything it allows, the
//! server accepts: schemathesis run against it is how that was checked.

mod components;

use super::AppState;
use crate::catalog::Catalog;
use axum::extract::State;
use components::{hoist_defs, schemas, usage_schemas};
use serde_json::{json, Map, Value};
use std::sync::OnceLock;

/// The document, built once.
pub(crate) fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(build)
}

/// The document for a server of `catalog`: every category parameter and property lists the
/// catalog's categories, which is what the server accepts (so a client or a fuzzer generating
/// requests from the document does not send ones it rejects).
pub(crate) fn document_for(catalog: &Catalog) -> Value {
    let mut doc = document().clone();
    let categories: Vec<&str> = catalog.categories().into_keys().collect();
    let listed = |schema: Option<&mut Value>| {
        if let Some(schema) = schema {
            schema["enum"] = json!(categories);
        }
    };
    for path in ["/search", "/catalog/tools"] {
        if let Some(params) = doc["paths"][path]["get"]["parameters"].as_array_mut() {
            for p in params.iter_mut().filter(|p| p["name"] == "category") {
                listed(p.get_mut("schema"));
            }
        }
    }
    let schemas = &mut doc["components"]["schemas"];
    listed(schemas.pointer_mut("/SearchRequest/properties/category"));
    for list in ["preferred_categories", "avoid_categories"] {
        let pointer =
            format!("/RecommendationRequest/properties/user_preferences/properties/{list}/items");
        listed(schemas.pointer_mut(&pointer));
    }
    doc
}

/// Serves the document of this server's catalog, serialised once.
pub(crate) async fn openapi(State(state): State<AppState>) -> impl axum::response::IntoResponse {
    // Bytes: each response shares the one serialisation instead of copying it.
    let catalog = state.service.catalog();
    let body = {
        let mut cached = state.openapi.lock().unwrap_or_else(|e| e.into_inner());
        match cached.as_ref() {
            Some((version, body)) if version == catalog.version() => body.clone(),
            _ => {
                let body: axum::body::Bytes = document_for(&catalog).to_string().into();
                *cached = Some((catalog.version().to_string(), body.clone()));
                body
            }
        }
    };
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
}

/// One documented operation.
struct Op {
    method: &'static str,
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
    ok: &'static str,
    params: Vec<Value>,
    body: Option<&'static str>,
    errors: Vec<u16>,
    public: bool,
    /// Also answers `text/markdown` (with `response_format: markdown`).
    markdown: bool,
    /// The component schema of the 200 body with `detail_level: concise`, if it has one.
    concise: Option<&'static str>,
    outcomes: Vec<u16>,
}

fn op(method: &'static str, path: &'static str, tag: &'static str, summary: &'static str) -> Op {
    Op {
        method,
        path,
        tag,
        summary,
        ok: "Object",
        params: Vec::new(),
        body: None,
        errors: Vec::new(),
        public: false,
        markdown: false,
        concise: None,
        outcomes: Vec::new(),
    }
}

impl Op {
    /// The component schema of the 200 body.
    fn ok(mut self, schema: &'static str) -> Op {
        self.ok = schema;
        self
    }

    fn path_param(mut self, name: &str, description: &str, example: &str) -> Op {
        self.params.push(json!({
            "name": name, "in": "path", "required": true, "description": description,
            "schema": { "type": "string" }, "example": example,
        }));
        self.errors.push(404);
        self
    }

    fn query(mut self, name: &str, description: &str, schema: Value) -> Op {
        self.params.push(json!({
            "name": name, "in": "query", "required": false, "description": description,
            "schema": schema,
        }));
        if !self.errors.contains(&400) {
            self.errors.push(400);
        }
        self
    }

    /// Marks the query parameter `name` (added before) as required.
    fn required(mut self, name: &str) -> Op {
        for p in self.params.iter_mut().filter(|p| p["name"] == name) {
            p["required"] = json!(true);
        }
        self
    }

    /// Free-form query parameters, each `name=value` (an exploded form object).
    fn query_object(mut self, name: &str, description: &str) -> Op {
        self.params.push(json!({
            "name": name, "in": "query", "required": false, "description": description,
            "style": "form", "explode": true,
            "schema": { "type": "object", "additionalProperties": { "type": "string" } },
        }));
        self.errors.push(400);
        self
    }

    /// A JSON request body of the given component schema.
    fn body(mut self, schema: &'static str) -> Op {
        self.body = Some(schema);
        self.errors.extend([400, 413, 415]);
        self
    }

    fn errors(mut self, statuses: &[u16]) -> Op {
        self.errors.extend_from_slice(statuses);
        self
    }

    /// Also served as Markdown when the request asks for `response_format: markdown`.
    fn markdown(mut self) -> Op {
        self.markdown = true;
        self
    }

    /// With `detail_level: concise` the 200 body has this other, smaller shape.
    fn concise(mut self, schema: &'static str) -> Op {
        self.concise = Some(schema);
        self
    }

    /// Statuses that may carry the 200 body's shape instead of an error envelope: a tool
    /// call whose every query failed answers with its results and the first failure's status.
    fn outcomes(mut self, statuses: &[u16]) -> Op {
        self.outcomes.extend_from_slice(statuses);
        self
    }

    /// Served without the bearer token.
    fn public(mut self) -> Op {
        self.public = true;
        self
    }

    fn to_json(&self) -> Value {
        let mut responses = Map::new();
        let component = |name: &str| json!({ "$ref": format!("#/components/schemas/{name}") });
        // anyOf, not oneOf: a detailed body also has every field a concise one requires.
        let schema = match self.concise {
            None => component(self.ok),
            Some(concise) => json!({ "anyOf": [component(self.ok), component(concise)] }),
        };
        responses.insert(
            "200".into(),
            json!({ "description": "Success", "content": { "application/json": { "schema": schema } } }),
        );
        if self.markdown {
            responses["200"]["content"]["text/markdown"] = json!({ "schema": { "type": "string",
                "description": "The same response as a Markdown document (response_format: markdown)" } });
        }
        let mut errors = self.errors.clone();
        errors.extend_from_slice(&self.outcomes);
        if !self.public {
            errors.push(401);
        }
        errors.extend([405, 500]);
        errors.sort_unstable();
        errors.dedup();
        for status in errors {
            let mut response = error_response(status);
            if self.outcomes.contains(&status) {
                response["content"]["application/json"]["schema"] = json!({ "anyOf": [
                    component("ErrorResponse"), component(self.ok)] });
                response["description"] = json!(format!(
                    "{} Or, when every query failed, the results with the first failure's status",
                    response["description"].as_str().unwrap_or_default()
                ));
            }
            responses.insert(status.to_string(), response);
        }
        let mut out = json!({
            "tags": [self.tag],
            "summary": self.summary,
            "operationId": format!("{}{}", self.method.to_lowercase(), camel(self.path)),
            "responses": responses,
        });
        if !self.params.is_empty() {
            out["parameters"] = Value::Array(self.params.clone());
        }
        if let Some(schema) = self.body {
            out["requestBody"] = json!({ "required": true, "content": { "application/json": {
                "schema": { "$ref": format!("#/components/schemas/{schema}") } } } });
        }
        if self.public {
            out["security"] = json!([]);
        }
        out
    }
}

fn error_response(status: u16) -> Value {
    let description = match status {
        400 => "VALIDATION_FAILED: malformed JSON or invalid parameters; every violation with its JSON pointer",
        401 => "UNAUTHORIZED: a token is configured and the bearer token is missing or wrong",
        403 => "A tool call's path is outside the sandbox or protected",
        404 => "TOOL_NOT_FOUND, TOOL_NOT_RUNNABLE or PROMPT_NOT_FOUND, with close names as suggestions",
        422 => "A tool call's file cannot be served (binary, too large)",
        502 => "A tool call's upstream service (GitHub, a package registry, a language server) failed",
        504 => "A tool call ran past its time limit",
        405 => "METHOD_NOT_ALLOWED: the route exists with other methods",
        413 => "PAYLOAD_TOO_LARGE: the body exceeds max_body_bytes",
        415 => "UNSUPPORTED_MEDIA_TYPE: the body is not sent as application/json",
        503 => "MODEL_UNAVAILABLE: semantic search was requested without the embedding model; OVERLOADED: every worker is busy and the queue is full (with Retry-After); SHUTTING_DOWN: the server is draining (with Retry-After)",
        _ => "INTERNAL_ERROR and other server-side failures; the cause is logged, not returned",
    };
    json!({ "description": description, "content": { "application/json": {
        "schema": { "$ref": "#/components/schemas/ErrorResponse" } } } })
}

/// `/tools/info/{toolName}` -> `ToolsInfoToolName`, for operation ids.
fn camel(path: &str) -> String {
    path.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut chars = s.chars();
            chars.next().map_or(String::new(), |c| {
                c.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// A string parameter with these values only.
fn one_of(values: &[&str]) -> Value {
    json!({ "type": "string", "enum": values })
}

/// A catalog category; `document_for` lists the served catalog's.
fn category() -> Value {
    json!({ "type": "string", "minLength": 1, "description": "GET /catalog/status lists the categories" })
}

fn operations() -> Vec<Op> {
    let boolean = || json!({ "type": "boolean" });
    vec![
        op("GET", "/health", "operations", "Liveness, uptime, catalog version, model status, cache hit rate")
            .ok("Health")
            .public(),
        op("GET", "/openapi.json", "operations", "This document").ok("Object"),
        op("POST", "/search", "discovery", "Rank the catalog's tools for a need, with explanations")
            .ok("SearchResponse")
            .concise("SearchResponseConcise")
            .body("SearchRequest")
            .markdown()
            .errors(&[503]),
        op("POST", "/recommend", "discovery", "What to use, in what order, for a task: analysis, explained recommendations, workflow")
            .ok("RecommendationResponse")
            .concise("RecommendationResponseConcise")
            .body("RecommendationRequest")
            .markdown()
            .errors(&[503]),
        op("GET", "/search", "discovery", "The same search from query parameters")
            .ok("SearchResponse")
            .concise("SearchResponseConcise")
            .query("q", "What the tool should do (the request's query)", json!({ "type": "string", "minLength": 1, "maxLength": 500, "pattern": "\\S" }))
            .required("q")
            .query("mode", "search_mode", one_of(&["hybrid", "semantic", "keyword"]))
            .query("k", "max_results (also accepted as max_results)", json!({ "type": "integer", "minimum": 1, "maximum": 50 }))
            .query("category", "Only tools of this category", category())
            .query("tool_type", "Only tools of this type", one_of(&["system", "custom", "third_party", "experimental"]))
            .query("runnable_only", "true: only the tools toolscout runs (GET /tools/list)", boolean())
            .query("include_examples", "Include usage examples", boolean())
            .query("context", "The caller's situation; shifts the ranking", json!({ "type": "string", "maxLength": 1000 }))
            .query("response_format", "json (default) or markdown", one_of(&["json", "markdown"]))
            .query("detail_level", "detailed (default) or concise", one_of(&["detailed", "concise"]))
            .markdown()
            .errors(&[503]),
        op("POST", "/compare", "discovery", "Compare 2 to 10 tools on evidence from the catalog, with a recommendation for the stated context")
            .ok("ComparisonResponse")
            .body("ComparisonRequest")
            .markdown()
            .errors(&[503]),
        op("GET", "/catalog/tools", "catalog", "Tools in id order, paged")
            .ok("ToolPage")
            .query("page", "Page number, from 1", json!({ "type": "integer", "minimum": 1 }))
            .query("per_page", "Tools per page", json!({ "type": "integer", "minimum": 1, "maximum": 100 }))
            .query("category", "Only tools of this category", category()),
        op("GET", "/catalog/tools/{id}", "catalog", "One full catalog entry")
            .ok("ToolEntry")
            .path_param("id", "The tool id", "local_search_code"),
        op("POST", "/catalog/validate", "catalog", "Validate tool metadata (one entry or an array) with the CLI's report")
            .ok("ValidationReport")
            .body("CatalogValidateRequest")
            .query("strict", "Warnings make the report invalid, as with --strict", boolean())
            .errors(&[503]),
        op("GET", "/catalog/status", "catalog", "Catalog version, counts, load time, model status, search modes")
            .ok("CatalogStatus"),
        op("POST", "/catalog/reload", "catalog", "Read every catalog source again and serve the result; what changed")
            .ok("CatalogReload")
            .errors(&[422]),
        op("POST", "/feedback", "usage", "Feedback on one tool of an answer, named by its request id or query")
            .ok("FeedbackReceipt")
            .body("FeedbackRequest")
            .errors(&[404]),
        op("GET", "/stats", "usage", "Measured use: the usage store, most used and most failing tools, queries that found nothing good")
            .ok("StatsReport"),
        op("GET", "/tools/list", "octocode", "The tools toolscout runs, with one-line descriptions")
            .ok("OctocodeToolList"),
        op("GET", "/tools/info/{toolName}", "octocode", "One tool with its input JSON Schema")
            .ok("OctocodeToolInfo")
            .path_param("toolName", "Catalog id, execution name (localSearchCode), name or alias", "localSearchCode")
            .query("schema", "Include inputSchema (default true)", boolean())
            .query("hints", "Include whenToUse (default true)", boolean()),
        op("POST", "/tools/call/{toolName}", "octocode", "Run one of the 13 research tools on 1 to 5 queries, in parallel")
            .ok("ToolCallResult")
            .body("ToolCallRequest")
            .path_param("toolName", "Execution name of a runnable tool (GET /tools/list)", "localSearchCode")
            .errors(&[404])
            .outcomes(&[400, 403, 404, 422, 502, 503, 504]),
        op("GET", "/tools/initContext", "octocode", "System prompt and every runnable tool's input schema")
            .ok("InitContext"),
        op("GET", "/tools/system", "octocode", "The system prompt").ok("SystemPrompt"),
        op("GET", "/tools/metadata", "octocode", "The system prompt with counts of what is served")
            .ok("ToolsMetadata"),
        op("GET", "/prompts/list", "octocode", "Every prompt with its arguments").ok("PromptList"),
        op("GET", "/prompts/info/{name}", "octocode", "One prompt's text; query parameters fill in its arguments")
            .ok("PromptInfo")
            .path_param("name", "Prompt name", "find-tool")
            .query_object("arguments", "The prompt's arguments by name (?task=...&context=...); with at least one, the text is rendered and required arguments must be present"),
    ]
}

fn build() -> Value {
    let mut paths = Map::new();
    for op in operations() {
        let entry = paths
            .entry(op.path.to_string())
            .or_insert_with(|| json!({}));
        entry[op.method.to_lowercase()] = op.to_json();
    }
    let mut components = Map::new();
    for part in [schemas(), usage_schemas()] {
        if let Value::Object(map) = part {
            components.extend(map);
        }
    }
    hoist_defs(&mut components);
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "toolscout",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Tells AI agents which tool fits a task: ranked, explained search over a tool catalog, evidence-based comparison of tools, and octocode-compatible tool and prompt discovery. Every error uses the ErrorResponse envelope; every response carries X-Request-Id.",
            "license": { "name": "MIT", "identifier": "MIT" },
        },
        "servers": [{ "url": "http://127.0.0.1:1987" }],
        "security": [{}, { "bearer": [] }],
        "tags": [
            { "name": "discovery", "description": "Finding the right tool" },
            { "name": "usage", "description": "What was run and chosen, and feedback on answers" },
            { "name": "catalog", "description": "The tool catalog: browsing, validation, status" },
            { "name": "octocode", "description": "Routes compatible with octocode-research" },
            { "name": "operations", "description": "Health and this document" },
        ],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer",
                "description": "Required on every route but /health when the server has an auth token" } },
        },
    })
}

#[cfg(test)]
mod tests;

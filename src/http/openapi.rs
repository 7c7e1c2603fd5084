//! `GET /openapi.json`: an OpenAPI 3.1 document of every route, built from code so it cannot
//! drift from the router unnoticed (a test compares it with `ROUTES` and the live server).
//! Request bodies and the error envelope reference the JSON Schemas of `schemas/`, embedded
//! as components; response bodies are described here, at the level a client needs.

use super::catalog::VALIDATE_REQUEST_SCHEMA;
use crate::engine::{COMPARE_REQUEST_SCHEMA, RECOMMEND_REQUEST_SCHEMA, SEARCH_REQUEST_SCHEMA};
use crate::schema::TOOL_SCHEMA;
use serde_json::{json, Map, Value};
use std::sync::OnceLock;

const ERROR_SCHEMA: &str = include_str!("../../schemas/error.json");

/// The document, built once.
pub(crate) fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(build)
}

/// Serves the document, serialised once.
pub(crate) async fn openapi() -> impl axum::response::IntoResponse {
    static TEXT: OnceLock<String> = OnceLock::new();
    let text = TEXT.get_or_init(|| document().to_string());
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        text.as_str(),
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

    /// Served without the bearer token.
    fn public(mut self) -> Op {
        self.public = true;
        self
    }

    fn to_json(&self) -> Value {
        let mut responses = Map::new();
        responses.insert(
            "200".into(),
            json!({ "description": "Success", "content": { "application/json": {
                "schema": { "$ref": format!("#/components/schemas/{}", self.ok) } } } }),
        );
        if self.markdown {
            responses["200"]["content"]["text/markdown"] = json!({ "schema": { "type": "string",
                "description": "The same response as a Markdown document (response_format: markdown)" } });
        }
        let mut errors = self.errors.clone();
        if !self.public {
            errors.push(401);
        }
        errors.extend([405, 500]);
        errors.sort_unstable();
        errors.dedup();
        for status in errors {
            responses.insert(status.to_string(), error_response(status));
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
        404 => "TOOL_NOT_FOUND or PROMPT_NOT_FOUND, with close names as suggestions",
        405 => "METHOD_NOT_ALLOWED: the route exists with other methods",
        413 => "PAYLOAD_TOO_LARGE: the body exceeds max_body_bytes",
        415 => "UNSUPPORTED_MEDIA_TYPE: the body is not sent as application/json",
        503 => "MODEL_UNAVAILABLE: semantic search was requested without the embedding model",
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

fn operations() -> Vec<Op> {
    let string = || json!({ "type": "string" });
    let boolean = || json!({ "type": "boolean" });
    vec![
        op("GET", "/health", "operations", "Liveness, uptime, catalog version, model status, cache hit rate")
            .ok("Health")
            .public(),
        op("GET", "/openapi.json", "operations", "This document").ok("Object"),
        op("POST", "/search", "discovery", "Rank the catalog's tools for a need, with explanations")
            .ok("SearchResponse")
            .body("SearchRequest")
            .markdown()
            .errors(&[503]),
        op("POST", "/recommend", "discovery", "What to use, in what order, for a task: analysis, explained recommendations, workflow")
            .ok("RecommendationResponse")
            .body("RecommendationRequest")
            .markdown(),
        op("GET", "/search", "discovery", "The same search from query parameters")
            .ok("SearchResponse")
            .query("q", "What the tool should do (the request's query); required", string())
            .query("mode", "search_mode: keyword, semantic or hybrid", string())
            .query("k", "max_results (also accepted as max_results)", json!({ "type": "integer", "minimum": 1, "maximum": 50 }))
            .query("category", "Only tools of this category", string())
            .query("tool_type", "Only tools of this type", string())
            .query("include_examples", "Include usage examples", boolean())
            .query("context", "The caller's situation; shifts the ranking", string())
            .query("response_format", "json (default) or markdown", string())
            .query("detail_level", "detailed (default) or concise", string())
            .markdown()
            .errors(&[503]),
        op("POST", "/compare", "discovery", "Compare 2 to 10 tools on evidence from the catalog, with a recommendation for the stated context")
            .ok("ComparisonResponse")
            .body("ComparisonRequest")
            .markdown(),
        op("GET", "/catalog/tools", "catalog", "Tools in id order, paged")
            .ok("ToolPage")
            .query("page", "Page number, from 1", json!({ "type": "integer", "minimum": 1 }))
            .query("per_page", "Tools per page", json!({ "type": "integer", "minimum": 1, "maximum": 100 }))
            .query("category", "Only tools of this category", string()),
        op("GET", "/catalog/tools/{id}", "catalog", "One full catalog entry")
            .ok("ToolEntry")
            .path_param("id", "The tool id", "local_search_code"),
        op("POST", "/catalog/validate", "catalog", "Validate tool metadata (one entry or an array) with the CLI's report")
            .ok("ValidationReport")
            .body("CatalogValidateRequest")
            .query("strict", "Warnings make the report invalid, as with --strict", boolean()),
        op("GET", "/catalog/status", "catalog", "Catalog version, counts, load time, model status, search modes")
            .ok("CatalogStatus"),
        op("GET", "/tools/list", "octocode", "The tools toolscout runs, with one-line descriptions")
            .ok("OctocodeToolList"),
        op("GET", "/tools/info/{toolName}", "octocode", "One tool with its input JSON Schema")
            .ok("OctocodeToolInfo")
            .path_param("toolName", "Catalog id, execution name (localSearchCode), name or alias", "localSearchCode")
            .query("schema", "Include inputSchema (default true)", boolean())
            .query("hints", "Include whenToUse (default true)", boolean()),
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

fn obj(required: &[&str], properties: Value) -> Value {
    json!({ "type": "object", "required": required, "properties": properties })
}

/// `{success: true, data, hints}`, the envelope of most routes.
fn envelope(data: Value) -> Value {
    obj(
        &["success", "data"],
        json!({ "success": { "const": true }, "data": data,
                "hints": { "type": "array", "items": { "type": "string" } } }),
    )
}

fn embedded(text: &str) -> Value {
    serde_json::from_str(text).expect("embedded schema is JSON")
}

fn schemas() -> Value {
    let s = json!({ "type": "string" });
    let n = json!({ "type": "number" });
    let i = json!({ "type": "integer" });
    let b = json!({ "type": "boolean" });
    let strings = json!({ "type": "array", "items": { "type": "string" } });
    let counts = json!({ "type": "object", "additionalProperties": { "type": "integer" } });
    let semantic = obj(
        &["available"],
        json!({ "available": b, "model": s, "vectors": i, "reason": s }),
    );
    let argument = obj(
        &["name", "description", "required"],
        json!({ "name": s, "description": s, "required": b }),
    );
    let prompt = obj(
        &["name", "description", "arguments"],
        json!({ "name": s, "description": s, "arguments": { "type": "array", "items": argument } }),
    );
    let result = obj(
        &[
            "tool_id",
            "name",
            "similarity_score",
            "confidence_level",
            "match_reasons",
            "score_details",
        ],
        json!({ "tool_id": s, "name": s, "description": s, "similarity_score": n,
                "confidence_level": { "enum": ["low", "medium", "high"] },
                "match_reasons": strings, "parameters": { "type": "array" }, "examples": { "type": "array" },
                "alternatives": strings, "complexity_score": n, "when_to_use": s,
                "performance_characteristics": { "type": "object" }, "category": s, "tool_type": s,
                "last_updated": s, "score_details": { "type": "object" } }),
    );
    json!({
        "SearchRequest": embedded(SEARCH_REQUEST_SCHEMA),
        "RecommendationRequest": embedded(RECOMMEND_REQUEST_SCHEMA),
        "RecommendationResponse": obj(&["success", "task_description", "recommendations", "task_analysis", "workflow", "metadata"], json!({
            "success": b, "task_description": s,
            "recommendations": { "type": "array", "items": obj(&["tool", "recommendation_score", "confidence_level", "task_alignment", "capability_match", "complexity_alignment", "recommendation_reasons", "usage_guidance", "when_to_use", "alternative_tools", "risk_factors", "prerequisites"], json!({
                "tool": result.clone(), "recommendation_score": n,
                "confidence_level": { "enum": ["low", "medium", "high"] }, "task_alignment": n,
                "capability_match": n, "complexity_alignment": n, "score_breakdown": { "type": "object" },
                "steps_served": { "type": "array", "items": i }, "recommendation_reasons": strings,
                "usage_guidance": strings, "when_to_use": s, "alternative_tools": strings,
                "risk_factors": strings, "prerequisites": strings })) },
            "task_analysis": obj(&["task_category", "complexity_level", "required_capabilities", "estimated_difficulty", "confidence", "inferred_context"], json!({
                "task_category": s, "complexity_level": { "enum": ["simple", "medium", "complex"] },
                "required_capabilities": strings, "optional_capabilities": strings, "estimated_difficulty": n,
                "confidence": n, "inferred_context": s, "steps": strings, "constraints": strings })),
            "workflow": { "type": "array", "items": obj(&["order", "tool_id", "purpose", "inputs_from"], json!({
                "order": i, "tool_id": s, "purpose": s, "inputs_from": strings, "note": s })) },
            "explanations": strings, "execution_time": n, "timestamp": s,
            "metadata": { "type": "object" },
        })),
        "ComparisonRequest": embedded(COMPARE_REQUEST_SCHEMA),
        "ComparisonResponse": comparison_response(),
        "ToolMetadata": embedded(TOOL_SCHEMA),
        "CatalogValidateRequest": embedded(VALIDATE_REQUEST_SCHEMA),
        "ErrorResponse": embedded(ERROR_SCHEMA),
        "Object": { "type": "object" },
        "Health": obj(&["status", "version", "uptime_seconds", "catalog", "models", "semantic_search", "search_modes", "cache"], json!({
            "status": { "const": "ok" }, "version": s, "uptime_seconds": i,
            "catalog": obj(&["size", "version", "categories"], json!({ "size": i, "version": s, "categories": i })),
            "models": obj(&["files_present", "missing"], json!({ "files_present": b, "missing": strings })),
            "semantic_search": semantic, "search_modes": strings,
            "cache": obj(&["enabled", "entries", "hits", "misses", "hit_rate"], json!({
                "enabled": b, "entries": i, "hits": i, "misses": i, "hit_rate": { "type": ["number", "null"] } })),
        })),
        "SearchResponse": obj(&["success", "query", "results", "total_results", "metadata"], json!({
            "success": b, "query": s, "results": { "type": "array", "items": result },
            "total_results": i, "execution_time": n, "query_suggestions": strings,
            "category_breakdown": counts, "timestamp": s,
            "metadata": obj(&["search_mode_used", "cache_hit", "catalog_version", "hints"], json!({
                "search_mode_used": s, "cache_hit": b, "algorithm_version": s, "total_catalog_size": i,
                "catalog_version": s, "similarity_threshold": n, "below_threshold": i,
                "no_good_match": s, "hints": strings })),
        })),
        "ToolPage": envelope(obj(&["tools", "pagination", "catalog_version"], json!({
            "tools": { "type": "array", "items": { "type": "object" } },
            "pagination": obj(&["page", "per_page", "total", "total_pages", "has_more"], json!({
                "page": i, "per_page": i, "total": i, "total_pages": i, "has_more": b })),
            "catalog_version": s,
        }))),
        "ToolEntry": envelope(json!({ "$ref": "#/components/schemas/ToolMetadata" })),
        "ValidationReport": envelope(obj(&["valid", "strict", "files_checked", "errors", "warnings", "diagnostics"], json!({
            "valid": b, "strict": b, "files_checked": i, "tools_parsed": i, "tools_valid": i,
            "errors": i, "warnings": i, "files_with_errors": i,
            "diagnostics": { "type": "array", "items": obj(&["file", "pointer", "severity", "code", "message"], json!({
                "file": { "description": "body, or body[i] for the i-th item of an array", "type": "string" },
                "pointer": s, "severity": { "enum": ["error", "warning"] }, "code": s, "message": s })) },
        }))),
        "CatalogStatus": envelope(obj(&["catalog", "load", "model", "search"], json!({
            "catalog": obj(&["version", "size", "executable", "categories", "tool_types"], json!({
                "version": s, "size": i, "executable": i, "categories": counts, "tool_types": counts })),
            "load": obj(&["loaded_at", "catalog_ms", "index_ms", "total_ms"], json!({
                "loaded_at": { "type": "string", "format": "date-time" }, "catalog_ms": n, "index_ms": n, "total_ms": n })),
            "model": obj(&["files_present", "missing", "semantic_search"], json!({
                "files_present": b, "missing": strings, "semantic_search": semantic })),
            "search": obj(&["modes_available", "default_mode"], json!({ "modes_available": strings, "default_mode": s })),
        }))),
        "OctocodeToolList": envelope(obj(&["tools"], json!({ "tools": { "type": "array", "items": obj(
            &["name", "description"], json!({ "name": s, "description": s, "toolId": s, "category": s })) } }))),
        "OctocodeToolInfo": envelope(obj(&["name", "toolId", "description", "executable"], json!({
            "name": s, "toolId": s, "description": s, "category": s, "toolType": s, "executable": b,
            "inputSchema": { "description": "The tool's arguments as a JSON Schema", "type": "object" },
            "returnSchema": { "type": "object" }, "whenToUse": s }))),
        "InitContext": obj(&["success", "system_prompt", "tools_schema", "_meta"], json!({
            "success": { "const": true }, "system_prompt": s,
            "tools_schema": { "type": "object", "additionalProperties": { "type": "object" } },
            "_meta": obj(&["promptCharCount", "toolsCount", "version"], json!({ "promptCharCount": i, "toolsCount": i, "version": s })),
        })),
        "SystemPrompt": envelope(obj(&["instructions", "charCount", "version"], json!({ "instructions": s, "charCount": i, "version": s }))),
        "ToolsMetadata": envelope(obj(&["instructions", "toolCount", "promptCount"], json!({
            "instructions": s, "toolCount": i, "promptCount": i, "catalogSize": i, "catalogVersion": s }))),
        "PromptList": envelope(obj(&["prompts", "totalCount", "version"], json!({
            "prompts": { "type": "array", "items": prompt }, "totalCount": i, "version": s }))),
        "PromptInfo": envelope(obj(&["name", "description", "arguments", "content", "rendered"], json!({
            "name": s, "description": s, "arguments": { "type": "array", "items": argument },
            "content": s, "rendered": { "description": "Whether arguments were filled in", "type": "boolean" } }))),
    })
}

/// `ComparisonResponse` (seed 002): the fields every detail level has, and the optional ones.
fn comparison_response() -> Value {
    let s = json!({ "type": "string" });
    let n = json!({ "type": "number" });
    let i = json!({ "type": "integer" });
    let strings = json!({ "type": "array", "items": { "type": "string" } });
    let criterion = json!({ "enum": ["functionality", "usability", "performance", "reliability", "complexity", "documentation"] });
    let scores = json!({ "type": "object", "description": "criterion -> score in 0..1 (requested criteria only; complexity: higher is simpler)",
        "additionalProperties": { "type": "number", "minimum": 0, "maximum": 1 } });
    let tool = obj(
        &[
            "tool_id",
            "tool_name",
            "overall_score",
            "dimension_scores",
            "ranking_score",
            "relative_ranking",
        ],
        json!({ "tool_id": s, "tool_name": s, "overall_score": n, "dimension_scores": scores,
                "context_relevance": n, "ranking_score": n, "relative_ranking": i,
                "strengths": strings, "weaknesses": strings, "best_for": strings, "avoid_when": strings,
                "score_evidence": { "type": "object", "description": "criterion -> {formula, inputs, explanation} (comprehensive)",
                    "additionalProperties": obj(&["formula", "inputs", "explanation"], json!({
                        "formula": s, "inputs": { "type": "object", "additionalProperties": n }, "explanation": s })) } }),
    );
    let trade_off = obj(
        &["factor", "description", "affects_tools"],
        json!({ "factor": s, "description": s, "affects_tools": strings, "choose": s, "over": s,
                "gains": { "type": "object", "additionalProperties": n },
                "loses": { "type": "object", "additionalProperties": n } }),
    );
    obj(
        &["success", "comparison", "metadata"],
        json!({
            "success": { "const": true },
            "comparison": obj(&["tools", "summary", "criteria_used"], json!({
                "tools": { "type": "array", "items": tool },
                "summary": obj(&["recommended_choice", "reasoning"], json!({
                    "recommended_choice": s, "reasoning": s,
                    "use_case_recommendations": { "type": "object", "additionalProperties": { "type": "string" } },
                    "decision_factors": strings,
                    "trade_offs": { "type": "array", "items": trade_off } })),
                "criteria_used": { "type": "array", "items": criterion },
                "comparison_matrix": { "type": "object", "description": "criterion -> tool id -> score (comprehensive)",
                    "additionalProperties": { "type": "object", "additionalProperties": n } },
            })),
            "metadata": obj(&["detail_level", "criteria_weights", "algorithm_version", "catalog_version", "hints"], json!({
                "detail_level": { "enum": ["basic", "standard", "comprehensive"] },
                "comparison_context": s, "context_mode": { "enum": ["hybrid", "keyword"] },
                "criteria_weights": { "type": "object", "additionalProperties": n },
                "weight_reasons": strings, "context_share": n,
                "resolved_names": { "type": "object", "additionalProperties": { "type": "string" } },
                "measured_tools": strings, "algorithm_version": s, "catalog_version": s,
                "total_catalog_size": i, "execution_time": n, "timestamp": s, "hints": strings })),
        }),
    )
}

fn build() -> Value {
    let mut paths = Map::new();
    for op in operations() {
        let entry = paths
            .entry(op.path.to_string())
            .or_insert_with(|| json!({}));
        entry[op.method.to_lowercase()] = op.to_json();
    }
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
            { "name": "catalog", "description": "The tool catalog: browsing, validation, status" },
            { "name": "octocode", "description": "Routes compatible with octocode-research" },
            { "name": "operations", "description": "Health and this document" },
        ],
        "paths": paths,
        "components": {
            "schemas": schemas(),
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer",
                "description": "Required on every route but /health when the server has an auth token" } },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_every_route_of_the_router_and_nothing_else() {
        let doc = document();
        let mut documented: Vec<(String, String)> = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                documented.push((method.to_uppercase(), path.clone()));
            }
        }
        documented.sort();
        let mut routes: Vec<(String, String)> = super::super::ROUTES
            .iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect();
        routes.sort();
        assert_eq!(documented, routes);
    }

    #[test]
    fn every_reference_resolves_and_embedded_schemas_compile() {
        let doc = document();
        let text = doc.to_string();
        for part in text.split("\"$ref\":\"").skip(1) {
            let target = &part[..part.find('"').unwrap()];
            if let Some(pointer) = target.strip_prefix('#') {
                // Component refs resolve in the document; `#/$defs/...` inside an embedded
                // schema resolves against that schema (its own `$id`).
                if pointer.starts_with("/components/") {
                    assert!(doc.pointer(pointer).is_some(), "dangling {target}");
                }
            }
        }
        for name in [
            "SearchRequest",
            "RecommendationRequest",
            "ComparisonRequest",
            "ToolMetadata",
            "CatalogValidateRequest",
            "ErrorResponse",
        ] {
            let schema = &doc["components"]["schemas"][name];
            crate::schema::Schema::compile(schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

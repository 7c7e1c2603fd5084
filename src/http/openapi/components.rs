//! The `components/schemas` of the OpenAPI document: the JSON Schemas of `schemas/` embedded
//! (their `$defs` hoisted so every reference resolves from the document's root) and the
//! response bodies, described at the level a client needs.

use super::super::catalog::VALIDATE_REQUEST_SCHEMA;
use crate::engine::{COMPARE_REQUEST_SCHEMA, RECOMMEND_REQUEST_SCHEMA, SEARCH_REQUEST_SCHEMA};
use crate::exec::ToolErrorCode;
use crate::schema::TOOL_SCHEMA;
use serde_json::{json, Map, Value};

const ERROR_SCHEMA: &str = include_str!("../../../schemas/error.json");

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

pub(super) fn schemas() -> Value {
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
                "call": { "description": "How to run the tool in toolscout (POST /tools/call/{name}); only for the tools it executes", "type": "string" },
                "performance_characteristics": { "type": "object" }, "category": s, "tool_type": s,
                "last_updated": s, "score_details": { "type": "object" },
                "usage_stats": { "type": "object", "description": "The tool's use as measured here (total_uses, successful_uses, failed_uses, success_rate, average_execution_time in ms, last_updated), when it ran here" } }),
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
                "order": i, "tool_id": s, "purpose": s, "inputs_from": strings, "call": s, "note": s })) },
            "explanations": strings, "execution_time": n, "timestamp": s,
            "metadata": { "type": "object" },
        })),
        "RecommendationResponseConcise": obj(&["success", "task_category", "workflow", "recommendations"], json!({
            "success": b, "task_category": s,
            "workflow": { "type": "array", "items": s, "description": "\"<order>. <tool_id>: <purpose>\" lines" },
            "recommendations": { "type": "array", "items": obj(&["tool_id", "score", "confidence", "steps", "why"], json!({
                "tool_id": s, "score": n, "confidence": { "enum": ["low", "medium", "high"] },
                "steps": { "type": "array", "items": i }, "why": s })) },
        })),
        "ComparisonRequest": embedded(COMPARE_REQUEST_SCHEMA),
        "ComparisonResponse": comparison_response(),
        "ToolMetadata": embedded(TOOL_SCHEMA),
        "CatalogValidateRequest": embedded(VALIDATE_REQUEST_SCHEMA),
        "ErrorResponse": embedded(ERROR_SCHEMA),
        "Object": { "type": "object" },
        "Health": obj(&["status", "version", "uptime_seconds", "catalog", "models", "semantic_search", "search_modes", "cache", "tools", "circuits", "gates", "usage"], json!({
            "usage": { "$ref": "#/components/schemas/UsageHealth" },
            "status": { "const": "ok" }, "version": s, "uptime_seconds": i,
            "catalog": obj(&["size", "version", "categories"], json!({ "size": i, "version": s, "categories": i })),
            "models": obj(&["files_present", "missing"], json!({ "files_present": b, "missing": strings })),
            "semantic_search": semantic, "search_modes": strings,
            "cache": obj(&["enabled", "entries", "bytes", "hits", "misses", "hit_rate"], json!({
                "enabled": b, "entries": i, "bytes": i, "hits": i, "misses": i, "hit_rate": { "type": ["number", "null"] } })),
            "tools": obj(&["runnable"], json!({ "runnable": i })),
            "circuits": { "type": "object", "description": "Every circuit breaker used so far, by name (github:search, local, ...)",
                "additionalProperties": obj(&["state", "failures", "isHealthy"], json!({
                    "state": { "enum": ["closed", "open", "half-open"] }, "failures": i, "isHealthy": b,
                    "calls": i, "rejected": i, "failureThreshold": i, "resetTimeoutSeconds": i })) },
            "gates": { "type": "object", "description": "The CPU gates (search, tools): workers, busy, waiting, queue size, admitted and refused with 503 OVERLOADED so far",
                "additionalProperties": obj(&["workers", "busy", "waiting", "queue", "admitted", "refused"], json!({
                    "workers": i, "busy": i, "waiting": i, "queue": i, "admitted": i, "refused": i })) },
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
        "SearchResponseConcise": obj(&["success", "query", "total_results", "results"], json!({
            "success": b, "query": s, "total_results": i,
            "results": { "type": "array", "items": obj(&["tool_id", "score", "confidence", "why", "summary"], json!({
                "tool_id": s, "score": n, "confidence": { "enum": ["low", "medium", "high"] },
                "why": s, "summary": s, "call": s })) },
            "query_suggestions": strings, "no_good_match": s, "hints": strings,
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
        "CatalogReload": envelope(obj(&["previous_version", "version", "tools", "added", "removed", "changed", "load_ms", "index_ms", "sources"], json!({
            "previous_version": s, "version": s, "tools": i, "added": strings, "removed": strings,
            "changed": strings, "load_ms": n, "index_ms": n,
            "sources": { "type": "array", "items": obj(&["name", "kind", "tools"], json!({
                "name": s, "kind": s, "tools": i, "error": s, "shared_names": strings })) },
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
        "ToolCallRequest": {
            "type": "object", "additionalProperties": false, "required": ["queries"],
            "properties": { "queries": { "type": "array", "minItems": 1, "maxItems": 5,
                "description": "1 to 5 queries, each with the tool's parameters (GET /tools/info/{toolName}) plus id, researchGoal and reasoning",
                "items": { "type": "object", "minProperties": 1 } } },
        },
        "ToolCallResult": tool_call_result(),
        "PromptInfo": envelope(obj(&["name", "description", "arguments", "content", "rendered"], json!({
            "name": s, "description": s, "arguments": { "type": "array", "items": argument },
            "content": s, "rendered": { "description": "Whether arguments were filled in", "type": "boolean" } }))),
    })
}

/// The usage store's schemas: its state in `/health`, `POST /feedback` and `GET /stats`.
pub(super) fn usage_schemas() -> Value {
    let (s, i, n, b) = (
        json!({ "type": "string" }),
        json!({ "type": "integer", "minimum": 0 }),
        json!({ "type": "number" }),
        json!({ "type": "boolean" }),
    );
    let signal = json!({ "enum": ["selected", "helpful", "not_helpful"] });
    let error = obj(
        &["error_type", "frequency"],
        json!({
        "error_type": s, "frequency": i, "common_causes": { "type": "array", "items": s },
        "resolution_suggestions": { "type": "array", "items": s } }),
    );
    let tool = obj(
        &[
            "tool_id",
            "total_uses",
            "failed_uses",
            "success_rate",
            "failure_rate",
            "average_execution_time",
            "last_used",
        ],
        json!({
        "tool_id": s, "total_uses": i, "failed_uses": i, "success_rate": n, "failure_rate": n,
        "average_execution_time": { "type": "number", "description": "Milliseconds" }, "last_used": s,
        "common_errors": { "type": "array", "items": error } }),
    );
    let unmet = obj(
        &[
            "query",
            "query_hash",
            "times",
            "empty_answers",
            "not_helpful",
            "last_seen",
        ],
        json!({
        "query": s, "query_hash": s, "times": i, "empty_answers": i, "not_helpful": i, "last_seen": s }),
    );
    json!({
        "UsageHealth": obj(&["enabled", "written", "dropped", "failed"], json!({
            "enabled": b, "path": s, "written": i,
            "dropped": { "type": "integer", "minimum": 0, "description": "Records dropped because the writer's queue was full" },
            "failed": i, "off_reason": s })),
        "FeedbackRequest": embedded(crate::schema::Embedded::FeedbackRequest.text()),
        "FeedbackReceipt": obj(&["success", "tool_id", "signal"], json!({
            "success": { "const": true }, "tool_id": s, "signal": signal, "request_id": s, "query": s })),
        "StatsReport": obj(&["store", "executions", "answers", "feedback", "top_tools", "failing_tools", "unmet_queries"], json!({
            "store": { "$ref": "#/components/schemas/UsageHealth" },
            "executions": i, "answers": i, "feedback": i,
            "top_tools": { "type": "array", "items": tool.clone() },
            "failing_tools": { "type": "array", "items": tool },
            "unmet_queries": { "type": "array", "items": unmet } })),
    })
}

/// The `errorCode` of a failed query: the enum comes from the one list in the executor, so
/// the published contract cannot drift from the codes the tools send.
pub(crate) fn tool_error_codes() -> Value {
    let names: Vec<&str> = ToolErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    json!({ "type": "string", "enum": names, "description": "Why the query failed; the README's table of tool error codes says what each means" })
}

/// The body of `POST /tools/call/{toolName}`: octocode's single-query shape, or its bulk
/// shape for several queries.
fn tool_call_result() -> Value {
    let s = json!({ "type": "string" });
    let b = json!({ "type": "boolean" });
    let strings = json!({ "type": "array", "items": { "type": "string" } });
    let result = obj(
        &["id", "status", "data"],
        json!({
        "id": s, "status": { "enum": ["hasResults", "empty", "error"] },
        "data": { "type": "object", "description": "The tool's result, or {error, errorCode, hints} for a failed query",
            "properties": { "errorCode": tool_error_codes() } },
        "research": { "type": "object" } }),
    );
    let single = obj(
        &["tool", "success", "data", "hints", "research"],
        json!({
        "tool": s, "success": b, "hints": strings, "research": { "type": "object" }, "meta": { "type": "object" },
        "data": obj(&["results"], json!({ "results": { "type": "array", "minItems": 1, "maxItems": 1, "items": result } })) }),
    );
    let counts = obj(
        &["total", "hasResults", "empty", "error"],
        json!({
        "total": { "type": "integer" }, "hasResults": { "type": "integer" }, "empty": { "type": "integer" }, "error": { "type": "integer" } }),
    );
    let bulk = obj(
        &[
            "tool",
            "bulk",
            "success",
            "instructions",
            "results",
            "hints",
            "counts",
        ],
        json!({
        "tool": s, "bulk": { "const": true }, "success": b, "instructions": s, "meta": { "type": "object" },
        "results": { "type": "array", "minItems": 2, "maxItems": 5, "items": result },
        "hints": obj(&["hasResults", "empty", "error"], json!({ "hasResults": strings, "empty": strings, "error": strings })),
        "counts": counts }),
    );
    json!({ "anyOf": [single, bulk] })
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

/// Moves the `$defs` of the embedded request and error schemas into `components/schemas` and
/// points their `#/$defs/...` references there, dropping their `$id` and `$schema`. Kept in
/// place, the references resolve only against the embedded schema's own `$id`, which OpenAPI
/// tools (code generators, schemathesis) do not follow: they reported every error response
/// as having an unresolvable schema.
pub(super) fn hoist_defs(components: &mut Map<String, Value>) {
    let names: Vec<String> = components.keys().cloned().collect();
    for name in names {
        let Some(schema) = components.get_mut(&name).and_then(Value::as_object_mut) else {
            continue;
        };
        let defs = schema.remove("$defs");
        if defs.is_none() && !schema.contains_key("$id") {
            continue;
        }
        schema.remove("$id");
        schema.remove("$schema");
        let defs: Vec<(String, Value)> = match defs {
            Some(Value::Object(defs)) => defs.into_iter().collect(),
            _ => Vec::new(),
        };
        // A definition keeps its own name unless a component already has it.
        let renamed: Vec<(String, String)> = defs
            .iter()
            .map(|(def, _)| {
                let target = if components.contains_key(def) {
                    format!("{name}_{def}")
                } else {
                    def.clone()
                };
                (def.clone(), target)
            })
            .collect();
        let retarget = |v: &mut Value| retarget_refs(v, &renamed);
        if let Some(schema) = components.get_mut(&name) {
            retarget(schema);
        }
        for ((_, mut def), (_, target)) in defs.into_iter().zip(&renamed) {
            retarget(&mut def);
            components.insert(target.clone(), def);
        }
    }
}

/// Rewrites every `"$ref": "#/$defs/X"` under `v` to `#/components/schemas/<renamed X>`.
fn retarget_refs(v: &mut Value, renamed: &[(String, String)]) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                if let Some(def) = target.strip_prefix("#/$defs/") {
                    if let Some((_, to)) = renamed.iter().find(|(d, _)| d == def) {
                        *target = format!("#/components/schemas/{to}");
                    }
                }
            }
            map.values_mut().for_each(|v| retarget_refs(v, renamed));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| retarget_refs(v, renamed)),
        _ => {}
    }
}

//! Comparison requests: parsed once from JSON (schema `schemas/compare.request.json` first,
//! then the catalog) into a validated `ComparisonRequest` whose tool ids are real catalog ids.
//! Every violation comes back at once: all unknown tools, each at its own `/tool_ids/N` with
//! close names, alongside any schema violations, so a caller fixes the request in one go.

use crate::catalog::Catalog;
use crate::error::{Error, Result, Violation};
use crate::schema::Schema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const COMPARE_REQUEST_SCHEMA: &str = crate::schema::Embedded::CompareRequest.text();

/// One dimension tools are compared on (seed 002 `ComparisonCriterion`). The declaration
/// order is the canonical order of every list and table in a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Criterion {
    Functionality,
    Usability,
    Performance,
    Reliability,
    Complexity,
    Documentation,
}

impl Criterion {
    pub const ALL: [Criterion; 6] = [
        Criterion::Functionality,
        Criterion::Usability,
        Criterion::Performance,
        Criterion::Reliability,
        Criterion::Complexity,
        Criterion::Documentation,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Criterion::Functionality => "functionality",
            Criterion::Usability => "usability",
            Criterion::Performance => "performance",
            Criterion::Reliability => "reliability",
            Criterion::Complexity => "complexity",
            Criterion::Documentation => "documentation",
        }
    }
}

impl std::fmt::Display for Criterion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much a comparison returns (seed 002 `DetailLevel` of comparisons; search's
/// concise | detailed is a different setting).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComparisonDetail {
    /// Scores, ranking and the recommended choice with its reasoning.
    Basic,
    /// Also strengths, weaknesses, best_for, avoid_when and the decision guidance.
    #[default]
    Standard,
    /// Also the comparison matrix, trade-offs and the evidence behind every score.
    Comprehensive,
}

impl ComparisonDetail {
    pub fn as_str(self) -> &'static str {
        match self {
            ComparisonDetail::Basic => "basic",
            ComparisonDetail::Standard => "standard",
            ComparisonDetail::Comprehensive => "comprehensive",
        }
    }
}

/// A validated comparison request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonRequest {
    /// Catalog ids in the order given; names, aliases and execution names already resolved.
    pub tool_ids: Vec<String>,
    /// The requested criteria in canonical order (all six when the request names none).
    pub comparison_criteria: Vec<Criterion>,
    pub include_decision_guidance: bool,
    /// Trimmed; `None` when absent or blank.
    pub comparison_context: Option<String>,
    pub detail_level: ComparisonDetail,
    /// Each input that was not already a catalog id, with the id it named.
    pub resolved_names: Vec<(String, String)>,
}

/// The body as the schema accepted it, before ids are resolved.
#[derive(Deserialize)]
struct Raw {
    tool_ids: Vec<String>,
    #[serde(default)]
    comparison_criteria: Option<Vec<Criterion>>,
    #[serde(default = "yes")]
    include_decision_guidance: bool,
    #[serde(default)]
    comparison_context: Option<String>,
    #[serde(default)]
    detail_level: ComparisonDetail,
}

fn yes() -> bool {
    true
}

impl ComparisonRequest {
    /// Parses and validates a JSON body against the schema and the catalog.
    pub fn from_json(body: &Value, catalog: &Catalog) -> Result<ComparisonRequest> {
        let mut violations = schema().violations(body);
        // Ids are resolved even when the schema found problems elsewhere: a caller with two
        // unknown ids and a misspelt criterion learns about all three at once.
        let (resolved, id_violations) = resolve_ids(body, catalog, &violations);
        violations.extend(id_violations);
        if !violations.is_empty() {
            violations.sort_by(|a, b| a.pointer.cmp(&b.pointer));
            return Err(invalid(violations));
        }
        let raw: Raw = crate::schema::deserialize_accepted(body, "comparison request")?;
        let mut criteria = raw
            .comparison_criteria
            .unwrap_or_else(|| Criterion::ALL.to_vec());
        criteria.sort();
        criteria.dedup();
        let resolved_names = raw
            .tool_ids
            .iter()
            .zip(&resolved)
            .filter(|(given, id)| given != id)
            .map(|(given, id)| (given.clone(), id.clone()))
            .collect();
        Ok(ComparisonRequest {
            tool_ids: resolved,
            comparison_criteria: criteria,
            include_decision_guidance: raw.include_decision_guidance,
            comparison_context: raw
                .comparison_context
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty()),
            detail_level: raw.detail_level,
            resolved_names,
        })
    }
}

/// Resolves every string of `tool_ids` the schema did not already reject: the catalog ids
/// found, and a violation per unknown name (with close ids) or per repeated tool.
fn resolve_ids(
    body: &Value,
    catalog: &Catalog,
    schema_violations: &[Violation],
) -> (Vec<String>, Vec<Violation>) {
    let mut ids: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let Some(items) = body.get("tool_ids").and_then(Value::as_array) else {
        return (ids, out);
    };
    let mut first_at: Vec<(String, usize)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let pointer = format!("/tool_ids/{i}");
        let Some(name) = item.as_str() else { continue };
        if schema_violations.iter().any(|v| v.pointer == pointer) {
            continue;
        }
        match catalog.find(name) {
            Some(tool) => {
                let id = tool.tool_id.clone();
                if let Some((_, j)) = first_at.iter().find(|(seen, _)| *seen == id) {
                    out.push(Violation {
                        pointer,
                        message: format!(
                            "expected a tool not already listed, found \"{name}\", which names {id} like /tool_ids/{j}"
                        ),
                    });
                } else {
                    first_at.push((id.clone(), i));
                }
                ids.push(id);
            }
            None => {
                let close = catalog.suggest_ids(name);
                let mut message = format!(
                    "expected a catalog tool id, name or alias, found unknown tool \"{name}\""
                );
                if !close.is_empty() {
                    message.push_str(&format!("; did you mean {}?", close.join(", ")));
                }
                out.push(Violation { pointer, message });
            }
        }
    }
    (ids, out)
}

fn invalid(violations: Vec<Violation>) -> Error {
    Error::Validation {
        what: "comparison request".into(),
        violations,
    }
}

fn schema() -> &'static Schema {
    crate::schema::Embedded::CompareRequest.compiled()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::compare::tests::catalog;
    use serde_json::json;

    fn violations(body: Value) -> Vec<(String, String)> {
        match ComparisonRequest::from_json(&body, &catalog()) {
            Err(Error::Validation { violations, .. }) => violations
                .into_iter()
                .map(|v| (v.pointer, v.message))
                .collect(),
            other => panic!("expected a validation error for {body}, got {other:?}"),
        }
    }

    #[test]
    fn defaults_and_name_resolution() {
        let r = ComparisonRequest::from_json(
            &json!({"tool_ids": ["localSearchCode", "rg", "git_grep"], "comparison_context": "  "}),
            &catalog(),
        )
        .unwrap();
        assert_eq!(r.tool_ids, ["local_search_code", "ripgrep", "git_grep"]);
        assert_eq!(r.comparison_criteria, Criterion::ALL);
        assert!(r.include_decision_guidance);
        assert_eq!(r.comparison_context, None);
        assert_eq!(r.detail_level, ComparisonDetail::Standard);
        assert_eq!(
            r.resolved_names,
            [
                (
                    "localSearchCode".to_string(),
                    "local_search_code".to_string()
                ),
                ("rg".to_string(), "ripgrep".to_string())
            ]
        );
    }

    #[test]
    fn criteria_come_back_in_canonical_order() {
        let r = ComparisonRequest::from_json(
            &json!({"tool_ids": ["ripgrep", "git_grep"], "comparison_criteria": ["reliability", "functionality"]}),
            &catalog(),
        )
        .unwrap();
        assert_eq!(
            r.comparison_criteria,
            [Criterion::Functionality, Criterion::Reliability]
        );
    }

    #[test]
    fn every_unknown_id_is_reported_with_suggestions() {
        let v = violations(json!({
            "tool_ids": ["ripgrp", "git_grep", "lsp_goto_defintion", "zzzz_nothing"],
            "detail_level": "everything"
        }));
        let pointers: Vec<&str> = v.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            pointers,
            ["/detail_level", "/tool_ids/0", "/tool_ids/2", "/tool_ids/3"]
        );
        assert!(v[1].1.contains("\"ripgrp\"") && v[1].1.contains("did you mean ripgrep"));
        assert!(v[2].1.contains("did you mean lsp_goto_definition"));
        assert!(!v[3].1.contains("did you mean"), "{}", v[3].1);
    }

    #[test]
    fn the_same_tool_twice_is_a_violation() {
        let v = violations(json!({"tool_ids": ["ripgrep", "rg"]}));
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].0, "/tool_ids/1");
        assert!(v[0].1.contains("like /tool_ids/0"), "{}", v[0].1);
    }

    #[test]
    fn bounds_and_shapes_come_from_the_schema() {
        let one = violations(json!({"tool_ids": ["ripgrep"]}));
        assert_eq!(one[0].0, "/tool_ids");
        assert!(one[0].1.contains("at least 2"), "{}", one[0].1);
        let ids: Vec<String> = (0..11).map(|i| format!("tool{i}")).collect();
        let many = violations(json!({ "tool_ids": ids }));
        assert!(many
            .iter()
            .any(|(p, m)| p == "/tool_ids" && m.contains("at most 10")));
        let v = violations(
            json!({"tool_ids": ["ripgrep", "git_grep"], "comparison_criteria": ["speed"], "colour": 1}),
        );
        let pointers: Vec<&str> = v.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(pointers, ["", "/comparison_criteria/0"]);
    }
}

//! Comparison requests: their fields and defaults, and what validating one means beyond its
//! schema (`schemas/compare.request.json`): every tool id names a catalog tool, once. Parsed
//! through `engine::valid::Valid`, every violation comes back at once: all unknown tools, each
//! at its own `/tool_ids/N` with close names, alongside any schema violations, so a caller
//! fixes the request in one go.

use crate::catalog::Catalog;
use crate::engine::valid::{trimmed, Request};
use crate::error::Violation;
use crate::schema::Embedded;
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

/// A comparison request (seed 002 `ComparisonRequest`). The engine takes it as a `Valid`
/// one, whose tool ids are catalog ids and whose criteria are in canonical order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRequest {
    /// The tools in the order given: catalog ids, names, aliases or execution names; catalog
    /// ids once valid.
    pub tool_ids: Vec<String>,
    /// The criteria to compare on (all six when the request names none); in canonical order
    /// once valid.
    #[serde(default = "all_criteria")]
    pub comparison_criteria: Vec<Criterion>,
    #[serde(default = "yes")]
    pub include_decision_guidance: bool,
    /// Trimmed once valid; `None` when absent or blank.
    #[serde(default)]
    pub comparison_context: Option<String>,
    #[serde(default)]
    pub detail_level: ComparisonDetail,
    /// Each input that was not already a catalog id, with the id it named: worked out when
    /// the request is validated, never part of a body.
    #[serde(skip)]
    pub resolved_names: Vec<(String, String)>,
}

fn all_criteria() -> Vec<Criterion> {
    Criterion::ALL.to_vec()
}

fn yes() -> bool {
    true
}

impl ComparisonRequest {
    /// A request with defaults, for code and tests.
    pub fn new<S: Into<String>>(tool_ids: impl IntoIterator<Item = S>) -> ComparisonRequest {
        ComparisonRequest {
            tool_ids: tool_ids.into_iter().map(Into::into).collect(),
            comparison_criteria: all_criteria(),
            include_decision_guidance: true,
            comparison_context: None,
            detail_level: ComparisonDetail::default(),
            resolved_names: Vec::new(),
        }
    }
}

impl Request for ComparisonRequest {
    const SCHEMA: Embedded = Embedded::CompareRequest;
    const WHAT: &'static str = "comparison request";

    /// Ids are resolved even when the schema found problems elsewhere: a caller with two
    /// unknown ids and a misspelt criterion learns about all three at once, in pointer order.
    fn check_body(body: &Value, catalog: &Catalog, violations: &mut Vec<Violation>) {
        let unknown = id_violations(body, catalog, violations);
        violations.extend(unknown);
        violations.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    }

    /// Names to catalog ids (remembering which were not ids), criteria in canonical order,
    /// the context trimmed.
    fn normalise(&mut self, catalog: &Catalog) {
        self.resolved_names.clear();
        for given in &mut self.tool_ids {
            // `check_body` has found every id; a name it could not find stays as given.
            let Some(tool) = catalog.find(given) else {
                continue;
            };
            if tool.tool_id != *given {
                let id = tool.tool_id.clone();
                self.resolved_names
                    .push((std::mem::replace(given, id.clone()), id));
            }
        }
        self.comparison_criteria.sort();
        self.comparison_criteria.dedup();
        self.comparison_context = trimmed(self.comparison_context.take());
    }

    /// None left: `check_body` checked the ids, the only thing the catalog decides.
    fn violations(&self, _catalog: &Catalog) -> Vec<Violation> {
        Vec::new()
    }
}

/// A violation per string of `tool_ids` the schema did not already reject that names no
/// catalog tool (with close ids) or a tool listed before.
fn id_violations(
    body: &Value,
    catalog: &Catalog,
    schema_violations: &[Violation],
) -> Vec<Violation> {
    let mut out = Vec::new();
    let Some(items) = body.get("tool_ids").and_then(Value::as_array) else {
        return out;
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
                    first_at.push((id, i));
                }
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::compare::tests::catalog;
    use crate::engine::Valid;
    use crate::error::Error;
    use serde_json::json;

    fn parse(body: Value) -> crate::Result<Valid<ComparisonRequest>> {
        Valid::parse(&body, &catalog())
    }

    fn violations(body: Value) -> Vec<(String, String)> {
        match parse(body.clone()) {
            Err(Error::Validation { violations, .. }) => violations
                .into_iter()
                .map(|v| (v.pointer, v.message))
                .collect(),
            other => panic!("expected a validation error for {body}, got {other:?}"),
        }
    }

    #[test]
    fn defaults_and_name_resolution() {
        let r = parse(
            json!({"tool_ids": ["localSearchCode", "rg", "git_grep"], "comparison_context": "  "}),
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
        let r = parse(
            json!({"tool_ids": ["ripgrep", "git_grep"], "comparison_criteria": ["reliability", "functionality"]}),
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

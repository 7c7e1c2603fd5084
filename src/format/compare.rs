//! Comparison responses as JSON or Markdown. Comparisons have their own `detail_level`
//! (basic | standard | comprehensive), which the engine applies; this module only reads
//! `response_format` and renders. The Markdown always opens with the comparison matrix as a
//! table (criteria x tools, the best score of each row in bold), then whatever the detail
//! level returned: per-tool notes, decision guidance, trade-offs, score evidence.

use super::{cell, Rendered, ResponseFormat};
use crate::engine::{ComparisonResponse, ComparisonSummary, ToolComparisonResult};
use crate::error::{Error, Result};
use serde_json::Value;
use std::fmt::Write;

/// The `response_format` of a comparison body its schema has already accepted (json when
/// absent).
pub fn compare_response_format(body: &Value) -> Result<ResponseFormat> {
    match body.get("response_format") {
        None | Some(Value::Null) => Ok(ResponseFormat::Json),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            Error::Internal(format!(
                "response_format passed the schema but not serde: {e}"
            ))
        }),
    }
}

/// A comparison response as asked.
pub fn render_compare(r: &ComparisonResponse, format: ResponseFormat) -> Result<Rendered> {
    Ok(match format {
        ResponseFormat::Json => {
            Rendered::Json(serde_json::to_value(r).map_err(|e| Error::Internal(e.to_string()))?)
        }
        ResponseFormat::Markdown => Rendered::Markdown(compare_markdown(r)),
    })
}

fn row(out: &mut String, label: &str, cells: impl IntoIterator<Item = String>) {
    let cells: Vec<String> = cells.into_iter().collect();
    let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
}

/// Scores of one row, the best in bold (all of them when tied).
fn scores_row(out: &mut String, label: &str, scores: &[f64]) {
    let best = scores.iter().copied().fold(f64::MIN, f64::max);
    let distinct = scores.iter().any(|&s| s != best);
    row(
        out,
        label,
        scores.iter().map(|&s| {
            if distinct && s == best {
                format!("**{s:.2}**")
            } else {
                format!("{s:.2}")
            }
        }),
    );
}

fn bullets(out: &mut String, title: &str, items: Option<&Vec<String>>) {
    if let Some(items) = items.filter(|i| !i.is_empty()) {
        let _ = writeln!(out, "**{title}**\n");
        for i in items {
            let _ = writeln!(out, "- {i}");
        }
        out.push('\n');
    }
}

/// A comparison as Markdown.
pub fn compare_markdown(r: &ComparisonResponse) -> String {
    let c = &r.comparison;
    let m = &r.metadata;
    let mut out = String::new();
    let ids: Vec<&str> = c.tools.iter().map(|t| t.tool_id.as_str()).collect();
    let _ = writeln!(out, "# Comparison: {}\n", ids.join(" vs "));
    if let Some(ctx) = &m.comparison_context {
        let _ = writeln!(out, "Context: \"{}\"\n", cell(ctx));
    }
    let _ = writeln!(
        out,
        "**Recommended: `{}`.** {}\n",
        c.summary.recommended_choice, c.summary.reasoning
    );
    for h in &m.hints {
        let _ = writeln!(out, "> {h}\n");
    }
    matrix(&mut out, r, &ids);
    for t in c.tools.iter() {
        tool_notes(&mut out, t);
    }
    guidance(&mut out, &c.summary);
    let weights = &m.weight_reasons;
    let _ = writeln!(
        out,
        "_{} detail; criteria: {}{}; catalog {}; {:.1} ms_",
        m.detail_level.as_str(),
        c.criteria_used
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        if weights.is_empty() {
            String::new()
        } else {
            format!(" ({})", weights.join("; "))
        },
        m.catalog_version,
        m.execution_time * 1000.0
    );
    out
}

/// The comparison matrix: every requested criterion, then the totals.
fn matrix(out: &mut String, r: &ComparisonResponse, ids: &[&str]) {
    let (c, m) = (&r.comparison, &r.metadata);
    let tools: &[ToolComparisonResult] = &c.tools;
    row(out, "criterion", ids.iter().map(|id| format!("`{id}`")));
    row(out, "---", ids.iter().map(|_| "---".to_string()));
    for crit in &c.criteria_used {
        let scores: Vec<f64> = tools
            .iter()
            .map(|t| t.dimension_scores.get(*crit).unwrap_or(0.0))
            .collect();
        let weight = m.criteria_weights.get(crit).copied().unwrap_or(1.0);
        let label = if weight != 1.0 {
            format!("{crit} (x{weight})")
        } else {
            crit.to_string()
        };
        scores_row(out, &label, &scores);
    }
    let overall: Vec<f64> = tools.iter().map(|t| t.overall_score).collect();
    scores_row(out, "**overall**", &overall);
    if tools.iter().any(|t| t.context_relevance.is_some()) {
        let fit: Vec<f64> = tools
            .iter()
            .map(|t| t.context_relevance.unwrap_or(0.0))
            .collect();
        scores_row(out, "context fit", &fit);
        let ranking: Vec<f64> = tools.iter().map(|t| t.ranking_score).collect();
        scores_row(out, "ranking score", &ranking);
    }
    row(
        out,
        "rank",
        tools.iter().map(|t| t.relative_ranking.to_string()),
    );
    out.push('\n');
}

/// One tool's notes and score evidence, when the detail level returned any.
fn tool_notes(out: &mut String, t: &ToolComparisonResult) {
    let detailed = t.strengths.is_some() || t.score_evidence.is_some();
    if !detailed {
        return;
    }
    let _ = writeln!(
        out,
        "## {}. `{}` ({})\n",
        t.relative_ranking,
        t.tool_id,
        cell(&t.tool_name)
    );
    bullets(out, "Strengths", t.strengths.as_ref());
    bullets(out, "Weaknesses", t.weaknesses.as_ref());
    bullets(out, "Best for", t.best_for.as_ref());
    bullets(out, "Avoid when", t.avoid_when.as_ref());
    if let Some(evidence) = &t.score_evidence {
        out.push_str("**Evidence**\n\n| criterion | score | from | formula |\n|---|---|---|---|\n");
        for (crit, e) in evidence {
            let _ = writeln!(
                out,
                "| {crit} | {:.2} | {} | `{}` |",
                t.dimension_scores.get(*crit).unwrap_or(0.0),
                cell(&e.explanation),
                cell(e.formula)
            );
        }
        out.push('\n');
    }
}

/// The decision guidance the detail level returned: factors, use cases, trade-offs.
fn guidance(out: &mut String, s: &ComparisonSummary) {
    if let Some(factors) = s.decision_factors.as_ref().filter(|f| !f.is_empty()) {
        out.push_str("## Decision factors\n\n");
        for f in factors {
            let _ = writeln!(out, "- {f}");
        }
        out.push('\n');
    }
    if let Some(cases) = s
        .use_case_recommendations
        .as_ref()
        .filter(|u| !u.is_empty())
    {
        out.push_str("## Use cases\n\n| use case | tool |\n|---|---|\n");
        for (case, id) in cases {
            let _ = writeln!(out, "| {} | `{id}` |", cell(case));
        }
        out.push('\n');
    }
    if let Some(trade_offs) = s.trade_offs.as_ref().filter(|t| !t.is_empty()) {
        out.push_str("## Trade-offs\n\n");
        for t in trade_offs {
            let _ = writeln!(out, "- **{}**: {}", t.factor, t.description);
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn format_defaults_to_json() {
        assert_eq!(
            compare_response_format(&json!({"tool_ids": []})).unwrap(),
            ResponseFormat::Json
        );
        assert_eq!(
            compare_response_format(&json!({"response_format": "markdown"})).unwrap(),
            ResponseFormat::Markdown
        );
    }
}

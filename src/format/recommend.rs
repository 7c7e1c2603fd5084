//! Recommendation responses as concise JSON and as Markdown: the workflow first (the order
//! of use), then the recommendations table, then (detailed) each tool's reasons, guidance,
//! risks and score breakdown.

use super::{cell, first_sentence};
use crate::engine::{RecommendationResponse, ToolRecommendation, WorkflowStep};
use serde_json::{json, Value};
use std::fmt::Write;

/// Per recommendation: id, score, confidence, steps served and the first reason; plus the
/// workflow as "tool: purpose" lines and the task category.
pub fn recommend_concise_json(r: &RecommendationResponse) -> Value {
    let recs: Vec<Value> = r
        .recommendations
        .iter()
        .map(|t| {
            json!({
                "tool_id": t.tool.tool_id,
                "score": (t.recommendation_score * 100.0).round() / 100.0,
                "confidence": t.confidence_level,
                "steps": t.steps_served,
                "why": t.recommendation_reasons.first().cloned().unwrap_or_default(),
            })
        })
        .collect();
    let workflow: Vec<String> = r
        .workflow
        .iter()
        .map(|w| format!("{}. {}: {}", w.order, w.tool_id, w.purpose))
        .collect();
    json!({
        "success": r.success,
        "task_category": r.task_analysis.task_category,
        "workflow": workflow,
        "recommendations": recs,
    })
}

/// A recommendation as Markdown: the task, the workflow, the recommendations table, and
/// (`detailed`) each tool's reasons, guidance, risks and score breakdown, then the reasoning.
pub fn recommend_markdown(r: &RecommendationResponse, detailed: bool) -> String {
    let mut out = String::new();
    let a = &r.task_analysis;
    let _ = writeln!(out, "# Tools for: {}\n", r.task_description);
    let _ = writeln!(
        out,
        "Category {}; {:?} task, difficulty {:.2}, confidence {:.2}; context: {}\n",
        a.task_category,
        a.complexity_level,
        a.estimated_difficulty,
        a.confidence,
        a.inferred_context
    );
    for h in &r.metadata.hints {
        let _ = writeln!(out, "> {h}\n");
    }
    workflow(&mut out, &r.workflow, detailed);
    table(&mut out, &r.recommendations);
    if !detailed {
        return out;
    }
    for t in &r.recommendations {
        details(&mut out, t);
    }
    if let Some(ex) = &r.explanations {
        out.push_str("## Reasoning\n\n");
        for e in ex {
            let _ = writeln!(out, "- {e}");
        }
    }
    out
}

/// The workflow, one numbered line per step; `detailed` adds its inputs and call.
fn workflow(out: &mut String, workflow: &[WorkflowStep], detailed: bool) {
    if workflow.is_empty() {
        return;
    }
    out.push_str("## Workflow\n\n");
    for w in workflow {
        let _ = write!(out, "{}. `{}`: {}", w.order, w.tool_id, w.purpose);
        if detailed && !w.inputs_from.is_empty() {
            let _ = write!(out, " (takes {})", w.inputs_from.join("; "));
        }
        if let (true, Some(call)) = (detailed, &w.call) {
            let _ = write!(out, "; run with `{call}`");
        }
        out.push('\n');
    }
    out.push('\n');
}

/// The recommendations table: one row per tool, best first.
fn table(out: &mut String, recommendations: &[ToolRecommendation]) {
    out.push_str("## Recommendations\n\n| # | tool | score | confidence | steps | why |\n|---|---|---|---|---|---|\n");
    for (i, t) in recommendations.iter().enumerate() {
        let steps: Vec<String> = t.steps_served.iter().map(|s| s.to_string()).collect();
        let _ = writeln!(
            out,
            "| {} | `{}` | {:.2} | {:?} | {} | {} |",
            i + 1,
            t.tool.tool_id,
            t.recommendation_score,
            t.confidence_level,
            if steps.is_empty() {
                "-".to_string()
            } else {
                steps.join(", ")
            },
            cell(t.recommendation_reasons.first().map_or("", String::as_str))
        );
    }
    out.push('\n');
}

/// One tool in detail: its summary, each non-empty list, and its score breakdown.
fn details(out: &mut String, t: &ToolRecommendation) {
    let _ = writeln!(out, "### `{}`\n", t.tool.tool_id);
    let _ = writeln!(out, "{}\n", first_sentence(&t.tool.description, 200));
    for (title, list) in [
        ("Why", &t.recommendation_reasons),
        ("How", &t.usage_guidance),
        ("Risks", &t.risk_factors),
        ("Prerequisites", &t.prerequisites),
        ("Alternatives", &t.alternative_tools),
    ] {
        if !list.is_empty() {
            let _ = writeln!(out, "**{title}:**\n");
            for item in list {
                let _ = writeln!(out, "- {item}");
            }
            out.push('\n');
        }
    }
    let b = &t.score_breakdown;
    let _ = writeln!(
        out,
        "| alignment | capabilities | complexity | reliability | popularity | speed |\n|---|---|---|---|---|---|\n| {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |\n",
        b.task_alignment.value,
        b.capability_match.value,
        b.complexity_alignment.value,
        b.reliability.value,
        b.popularity.value,
        b.performance.value
    );
}

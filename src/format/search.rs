//! Search responses as concise JSON and as Markdown (concise: one table; detailed: the table,
//! then each hit's evidence, score breakdown, parameters and examples).

use super::{cell, first_sentence};
use crate::engine::{SearchResponse, ToolSearchResult};
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// Summaries in concise responses stop at about this many characters.
const SUMMARY_CHARS: usize = 120;

/// The concise JSON form: per hit the id, score, confidence, the evidence in a line and a
/// one-sentence summary; per response the counts, suggestions and any "no good match".
pub fn search_concise_json(r: &SearchResponse) -> Value {
    let results: Vec<Value> = r
        .results
        .iter()
        .map(|t| {
            let mut hit = json!({
                "tool_id": t.tool_id,
                "score": round2(t.similarity_score),
                "confidence": t.confidence_level,
                "why": why(t),
                "summary": first_sentence(&t.description, SUMMARY_CHARS),
            });
            if let Some(call) = &t.call {
                hit["call"] = json!(call);
            }
            hit
        })
        .collect();
    let mut out = Map::new();
    out.insert("success".into(), json!(r.success));
    out.insert("query".into(), json!(r.query));
    out.insert("total_results".into(), json!(r.total_results));
    out.insert("results".into(), Value::Array(results));
    if !r.query_suggestions.is_empty() {
        out.insert("query_suggestions".into(), json!(r.query_suggestions));
    }
    if let Some(why) = &r.metadata.no_good_match {
        out.insert("no_good_match".into(), json!(why));
    }
    if !r.metadata.hints.is_empty() {
        out.insert("hints".into(), json!(r.metadata.hints));
    }
    Value::Object(out)
}

/// A search response as Markdown. Concise: a header line and one table. Detailed: also, per
/// hit, why it matched, its score breakdown, parameters, examples and alternatives.
pub fn search_markdown(r: &SearchResponse, detailed: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Tools for \"{}\"\n", r.query);
    let m = &r.metadata;
    if detailed {
        let _ = writeln!(
            out,
            "{} of {} matching tools shown; mode {}; catalog of {} tools; {:.1} ms{}\n",
            r.results.len(),
            r.total_results,
            m.search_mode_used.as_str(),
            m.total_catalog_size,
            r.execution_time * 1000.0,
            if m.cache_hit { " (cached)" } else { "" }
        );
    } else {
        let _ = writeln!(out, "{} of {} shown\n", r.results.len(), r.total_results);
    }
    for h in &m.hints {
        let _ = writeln!(out, "> {h}\n");
    }
    if let Some(why) = &m.no_good_match {
        let _ = writeln!(out, "**No good match:** {why}.\n");
    }
    if !r.results.is_empty() {
        if detailed {
            out.push_str("| # | tool | score | confidence | category | description |\n|---|---|---|---|---|---|\n");
        } else {
            out.push_str("| # | tool | score | why |\n|---|---|---|---|\n");
        }
        for (i, t) in r.results.iter().enumerate() {
            if detailed {
                let _ = writeln!(
                    out,
                    "| {} | `{}` ({}) | {:.2} | {} | {} | {} |",
                    i + 1,
                    t.tool_id,
                    cell(&t.name),
                    t.similarity_score,
                    confidence(t),
                    t.category,
                    cell(&first_sentence(&t.description, 160))
                );
            } else {
                let _ = writeln!(
                    out,
                    "| {} | `{}` | {:.2} {} | {} |",
                    i + 1,
                    t.tool_id,
                    t.similarity_score,
                    confidence(t),
                    cell(&why(t))
                );
            }
        }
        out.push('\n');
        if detailed {
            for t in r.results.iter() {
                hit_details(&mut out, t);
            }
        }
    }
    if !r.query_suggestions.is_empty() {
        let _ = writeln!(
            out,
            "Try also: {}",
            r.query_suggestions
                .iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    out
}

/// The evidence for a hit in a few words: exact name, matched terms, semantic strength, what
/// past use did, a lift over a metadata-only twin.
fn why(t: &ToolSearchResult) -> String {
    let d = &t.score_details;
    let mut parts = Vec::new();
    if d.exact_match {
        parts.push("names this tool".to_string());
    }
    if let Some(edits) = d.name_edits {
        let unit = if edits == 1 { "edit" } else { "edits" };
        parts.push(format!("name {edits} {unit} off"));
    }
    if !t.matched_terms.is_empty() {
        let terms: Vec<&str> = t.matched_terms.iter().take(4).map(String::as_str).collect();
        parts.push(format!("terms {}", terms.join(", ")));
    }
    if let Some(cos) = d.cosine {
        let passage = d.matched_passage.unwrap_or("description");
        parts.push(format!("meaning close to its {passage} ({cos:.2})"));
    }
    if d.context > 0.01 {
        parts.push("fits the context".to_string());
    }
    if let Some(learned) = &d.learned {
        if learned.chosen_by > 0 {
            parts.push(format!("chosen by {} similar requests", learned.chosen_by));
        }
        if learned.prior < 0.0 {
            parts.push(format!("past use lowered it ({:+.2})", learned.prior));
        }
    }
    if let Some(twin) = &d.runnable_over {
        parts.push(format!("runnable here, ranked above its twin {twin}"));
    }
    parts.join("; ")
}

fn confidence(t: &ToolSearchResult) -> &'static str {
    match t.confidence_level {
        crate::engine::ConfidenceLevel::High => "high",
        crate::engine::ConfidenceLevel::Medium => "medium",
        crate::engine::ConfidenceLevel::Low => "low",
    }
}

/// One hit's section of a detailed Markdown response.
fn hit_details(out: &mut String, t: &ToolSearchResult) {
    let _ = writeln!(out, "## `{}`: {}\n", t.tool_id, t.name);
    let _ = writeln!(out, "{}\n", t.description);
    if !t.when_to_use.is_empty() {
        let _ = writeln!(out, "**When to use:** {}\n", t.when_to_use);
    }
    for reason in &t.match_reasons {
        let _ = writeln!(out, "- {reason}");
    }
    if let Some(u) = &t.usage_stats {
        let _ = writeln!(
            out,
            "\n**Measured here:** {} runs, {:.0}% succeeded, {:.0} ms on average, last {}",
            u.total_uses,
            u.success_rate * 100.0,
            u.average_execution_time,
            u.last_updated
        );
    }
    let d = &t.score_details;
    let opt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    let rank = |x: Option<usize>| x.map_or("-".to_string(), |x| x.to_string());
    let _ = writeln!(
        out,
        "\n| bm25 | keyword | cosine | semantic | context | fused | keyword rank | semantic rank |\n|---|---|---|---|---|---|---|---|\n| {} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {} | {} |\n",
        opt(d.bm25),
        d.keyword,
        opt(d.cosine),
        d.semantic,
        d.context,
        d.fused,
        rank(d.keyword_rank),
        rank(d.semantic_rank)
    );
    if !t.parameters.is_empty() {
        out.push_str("| parameter | type | required | description |\n|---|---|---|---|\n");
        for p in &t.parameters {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                p.name,
                p.kind,
                if p.required { "yes" } else { "no" },
                cell(&p.description)
            );
        }
        out.push('\n');
    }
    for e in t.examples.iter().flatten() {
        let _ = writeln!(out, "**Example: {}**: {}\n", e.title, e.use_case);
        let args = serde_json::to_string_pretty(&e.arguments).unwrap_or_default();
        let _ = writeln!(out, "```json\n{args}\n```\n");
    }
    let perf = &t.performance_characteristics;
    let _ = writeln!(
        out,
        "complexity {:.2}; reliability {:.2}; popularity {:.2}; {}{}\n",
        t.complexity_score,
        perf.reliability_score,
        perf.popularity_score,
        if let Some(call) = &t.call {
            format!("runs in toolscout: `{call}`")
        } else if perf.executable {
            "runs in toolscout".to_string()
        } else {
            "catalog entry only".to_string()
        },
        if t.alternatives.is_empty() {
            String::new()
        } else {
            format!("; alternatives: {}", t.alternatives.join(", "))
        }
    );
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

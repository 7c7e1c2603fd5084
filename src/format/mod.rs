//! Rendering of engine responses for people and agents: Markdown with a results table and
//! the evidence behind each hit. JSON is the serde form of the response types.

use crate::engine::SearchResponse;
use std::fmt::Write;

/// A search response as Markdown: a table of hits, then why each one matched.
pub fn search_markdown(r: &SearchResponse) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Tools for \"{}\"\n", r.query);
    let m = &r.metadata;
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
    for h in &m.hints {
        let _ = writeln!(out, "> {h}");
    }
    if let Some(why) = &m.no_good_match {
        let _ = writeln!(out, "**No good match:** {why}.\n");
    }
    if !r.results.is_empty() {
        out.push_str("| # | tool | score | confidence | category | description |\n|---|---|---|---|---|---|\n");
        for (i, t) in r.results.iter().enumerate() {
            let _ = writeln!(
                out,
                "| {} | `{}` ({}) | {:.2} | {:?} | {} | {} |",
                i + 1,
                t.tool_id,
                cell(&t.name),
                t.similarity_score,
                t.confidence_level,
                t.category,
                cell(&first_sentence(&t.description))
            );
        }
        out.push('\n');
        for t in r.results.iter() {
            let _ = writeln!(out, "## `{}`\n", t.tool_id);
            for reason in &t.match_reasons {
                let _ = writeln!(out, "- {reason}");
            }
            let required: Vec<&str> = t
                .parameters
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name.as_str())
                .collect();
            if !required.is_empty() {
                let _ = writeln!(out, "- required arguments: {}", required.join(", "));
            }
            if !t.alternatives.is_empty() {
                let _ = writeln!(out, "- alternatives: {}", t.alternatives.join(", "));
            }
            out.push('\n');
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

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn first_sentence(s: &str) -> String {
    match s.find(". ") {
        Some(i) if i < 160 => s[..=i].to_string(),
        _ if s.chars().count() > 160 => format!("{}...", s.chars().take(157).collect::<String>()),
        _ => s.to_string(),
    }
}

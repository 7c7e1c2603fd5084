//! From retrievals to explained output: the task analysis (category, complexity, required
//! capabilities, difficulty, confidence, context), each recommendation's score, reasons,
//! guidance and risks, the workflow chain, and the explanations.

use super::request::RecommendationRequest;
use super::response::{TaskAnalysis, TaskComplexity, ToolRecommendation, WorkflowStep};
use super::{scoring, task, workflow, Candidate, Kind, Retrieval};
use crate::catalog::ToolRecord;
use crate::engine::{ConfidenceLevel, Engine};
use std::collections::BTreeMap;

/// Tags that describe how a tool behaves rather than what it can do; they feed risk factors,
/// not capabilities.
const PROPERTY_TAGS: &[&str] = &[
    "read-only",
    "needs-network",
    "local",
    "writes",
    "needs-auth",
    "cli",
    "json-output",
    "pagination",
    "mcp",
];

pub(super) struct Analysis {
    pub task: TaskAnalysis,
    /// Required capabilities per step (0-based; a one-step task has one entry).
    pub required_by_step: Vec<Vec<String>>,
}

/// Capability tags of a tool.
fn capabilities(t: &ToolRecord) -> impl Iterator<Item = &String> {
    t.semantic_tags
        .iter()
        .filter(|tag| !PROPERTY_TAGS.contains(&tag.as_str()))
}

pub(super) fn analyse(
    engine: &Engine,
    req: &RecommendationRequest,
    steps: &[String],
    retrievals: &[Retrieval],
) -> Analysis {
    let catalog = engine.catalog();
    let tool = |id: &str| catalog.get(id);
    // Per step: the retrieval that stands for it (its own, or the whole task's).
    let per_step: Vec<&Retrieval> = (0..steps.len())
        .map(|i| {
            retrievals
                .iter()
                .find(|r| r.kind == Kind::Step(i))
                .unwrap_or(&retrievals[0])
        })
        .collect();

    // Required: capability tags shared by at least two of a step's top three tools, or named
    // by the step's words; optional: the other capability tags of those tools.
    let mut required_by_step = Vec::new();
    let mut optional: Vec<String> = Vec::new();
    for (i, r) in per_step.iter().enumerate() {
        let words = crate::index::keyword::analyze(&steps[i]);
        let top: Vec<&ToolRecord> = r
            .response
            .results
            .iter()
            .take(3)
            .filter_map(|h| tool(&h.tool_id))
            .collect();
        let mut counts: BTreeMap<&String, usize> = BTreeMap::new();
        for t in &top {
            for c in capabilities(t) {
                *counts.entry(c).or_default() += 1;
            }
        }
        let mut required: Vec<String> = Vec::new();
        for (c, n) in &counts {
            let named = crate::index::keyword::analyze(&c.replace('-', " "))
                .iter()
                .any(|w| words.contains(w));
            if *n >= 2 || named {
                required.push((*c).clone());
            } else if !optional.contains(c) {
                optional.push((*c).clone());
            }
        }
        required_by_step.push(required);
    }
    let mut required: Vec<String> = Vec::new();
    for c in required_by_step.iter().flatten() {
        if !required.contains(c) {
            required.push(c.clone());
        }
    }
    optional.retain(|c| !required.contains(c));

    // Category: the one with the most score among the whole task's and the steps' hits.
    let mut mass: BTreeMap<&str, f64> = BTreeMap::new();
    for r in retrievals
        .iter()
        .filter(|r| !matches!(r.kind, Kind::Facet(_)))
    {
        for h in r.response.results.iter() {
            *mass.entry(h.category.as_str()).or_default() += h.similarity_score;
        }
    }
    let task_category = mass
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
        .map_or("unknown".to_string(), |(c, _)| c.to_string());

    let text = format!(
        "{} {}",
        req.task_description,
        req.context.as_deref().unwrap_or("")
    );
    let constraints: Vec<String> = task::constraints(&text)
        .into_iter()
        .map(str::to_string)
        .collect();
    let step_categories: Vec<&str> = per_step
        .iter()
        .filter_map(|r| r.response.results.first().map(|h| h.category.as_str()))
        .collect();
    let mut distinct = step_categories.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let best = retrievals[0]
        .response
        .results
        .first()
        .map_or(0.0, |h| h.similarity_score);
    // Difficulty grows with steps, constraints and breadth (categories the steps span), and
    // with how poorly the catalog matches the task.
    let estimated_difficulty = (0.15
        + 0.2 * (steps.len() as f64 - 1.0)
        + 0.08 * constraints.len() as f64
        + 0.1 * (distinct.len().max(1) as f64 - 1.0)
        + 0.2 * (1.0 - best))
        .clamp(0.0, 1.0);
    let complexity_level = match (steps.len(), constraints.len()) {
        (1, 0..=1) => TaskComplexity::Simple,
        (1..=2, 0..=2) => TaskComplexity::Medium,
        _ => TaskComplexity::Complex,
    };
    // Confidence: how well the steps are matched on average, less when a step's top two are
    // too close to tell apart.
    let confidence = per_step
        .iter()
        .map(|r| {
            let res = &r.response.results;
            let top = res.first().map_or(0.0, |h| h.similarity_score);
            let margin = match (res.first(), res.get(1)) {
                (Some(a), Some(b)) => a.similarity_score - b.similarity_score,
                _ => 1.0,
            };
            if margin < 0.03 {
                top * 0.85
            } else {
                top
            }
        })
        .sum::<f64>()
        / per_step.len().max(1) as f64;
    let context = task::inferred_context(&req.task_description, req.context.as_deref());
    Analysis {
        task: TaskAnalysis {
            task_category,
            complexity_level,
            required_capabilities: required,
            optional_capabilities: optional,
            estimated_difficulty: round3(estimated_difficulty),
            confidence: round3(confidence),
            inferred_context: if context.is_empty() {
                "none stated".to_string()
            } else {
                context.join("; ")
            },
            steps: steps.to_vec(),
            constraints,
        },
        required_by_step,
    }
}

/// Required capabilities of the steps a candidate serves (all of them for the whole task).
fn required_for(c: &Candidate, analysis: &Analysis) -> Vec<String> {
    if c.steps.is_empty() {
        return analysis.task.required_capabilities.clone();
    }
    let mut out: Vec<String> = Vec::new();
    for &s in &c.steps {
        for cap in analysis.required_by_step.get(s).into_iter().flatten() {
            if !out.contains(cap) {
                out.push(cap.clone());
            }
        }
    }
    out
}

pub(super) fn score_of(
    engine: &Engine,
    req: &RecommendationRequest,
    c: &Candidate,
    analysis: &Analysis,
) -> f64 {
    match engine.catalog().get(&c.hit.tool_id) {
        Some(t) => scoring::score(&scoring::breakdown(
            t,
            c.alignment,
            &required_for(c, analysis),
            req,
            None,
        )),
        None => 0.0,
    }
}

pub(super) fn recommendation(
    engine: &Engine,
    req: &RecommendationRequest,
    c: &Candidate,
    picks: &[String],
    analysis: &Analysis,
    steps: &[String],
    candidates: &BTreeMap<&str, Candidate>,
) -> ToolRecommendation {
    let catalog = engine.catalog();
    let t = catalog
        .get(&c.hit.tool_id)
        .expect("candidates come from the catalog");
    let required = required_for(c, analysis);
    let breakdown = scoring::breakdown(t, c.alignment, &required, req, None);
    let score = scoring::score(&breakdown);

    let mut reasons = Vec::new();
    for &s in &c.steps {
        reasons.push(format!("serves step {} (\"{}\")", s + 1, steps[s]));
    }
    reasons.push(format!(
        "matches the task with similarity {:.2}",
        c.alignment
    ));
    let covered: Vec<&String> = required
        .iter()
        .filter(|r| t.semantic_tags.contains(r))
        .collect();
    if !covered.is_empty() {
        reasons.push(format!(
            "has the capabilities the task needs: {}",
            covered
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for other in picks.iter().filter(|p| *p != &t.tool_id) {
        if let Some(o) = catalog.get(other) {
            if o.prerequisite_tools.contains(&t.tool_id) {
                reasons.push(format!("prepares the way for {other} (its prerequisite)"));
            } else if t.complementary_tools.contains(other) {
                reasons.push(format!("works together with {other}"));
            }
        }
    }
    if req
        .user_preferences
        .preferred_categories
        .contains(&t.category)
    {
        reasons.push(format!("in a preferred category ({})", t.category));
    }
    reasons.push(format!(
        "complexity {:.2} against the {:?} preference: alignment {:.2}",
        t.complexity_score, req.complexity_preference, breakdown.complexity_alignment.value
    ));

    let mut guidance = Vec::new();
    let required_params: Vec<&str> = t
        .parameters
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name.as_str())
        .collect();
    if !required_params.is_empty() {
        guidance.push(format!("pass {}", required_params.join(", ")));
    }
    if let Some(e) = t.examples.first() {
        guidance.push(format!(
            "start from the example \"{}\": {}",
            e.title,
            serde_json::to_string(&e.arguments).unwrap_or_default()
        ));
    }
    if let Some(p) = t.usage_patterns.first() {
        guidance.push(p.name.clone());
    }

    let mut risks = Vec::new();
    let tags = &t.semantic_tags;
    if tags.iter().any(|g| g == "needs-network") {
        risks.push("needs network access".to_string());
    }
    if tags.iter().any(|g| g == "needs-auth") {
        risks.push("needs credentials or a token".to_string());
    }
    if tags.iter().any(|g| g == "writes") {
        risks.push("changes files or remote state".to_string());
    }
    if t.reliability_score < 0.7 {
        risks.push(format!(
            "reliability score {:.2} is low",
            t.reliability_score
        ));
    }
    for p in &t.parameters {
        if p.description.to_lowercase().contains("deprecated") {
            risks.push(format!("parameter {} is deprecated", p.name));
        }
    }
    if !t.is_executable() {
        risks.push("toolscout cannot run it: install and call it yourself".to_string());
    }

    let prerequisites: Vec<String> = t
        .prerequisite_tools
        .iter()
        .map(|p| {
            if picks.contains(p) {
                format!("{p} (recommended here, earlier in the workflow)")
            } else {
                format!("{p} (not recommended here; run it first if you lack its output)")
            }
        })
        .collect();

    let alternatives: Vec<String> = if req.include_alternatives {
        let mut alts: Vec<String> = t
            .similar_tools
            .iter()
            .filter(|s| !picks.contains(s))
            // Asked for runnable tools only, an agent gets no alternative it cannot run here.
            .filter(|s| !req.runnable_only || catalog.get(s).is_some_and(|a| a.is_executable()))
            .take(3)
            .cloned()
            .collect();
        let mut others: Vec<(&f64, &str)> = candidates
            .iter()
            // Other candidates for the same steps that match nearly as well.
            .filter(|(id, o)| {
                !picks.iter().any(|p| p == *id)
                    && o.alignment >= 0.75 * c.alignment
                    && o.step_scores.keys().any(|s| c.step_scores.contains_key(s))
            })
            .map(|(id, o)| (&o.alignment, *id))
            .collect();
        others.sort_by(|a, b| b.0.total_cmp(a.0).then(a.1.cmp(b.1)));
        for (_, id) in others {
            if alts.len() >= 5 {
                break;
            }
            if !alts.iter().any(|a| a == id) {
                alts.push(id.to_string());
            }
        }
        alts
    } else {
        Vec::new()
    };

    let confidence_level = if score >= 0.6 && c.alignment >= 0.5 {
        ConfidenceLevel::High
    } else if score >= 0.4 {
        ConfidenceLevel::Medium
    } else {
        ConfidenceLevel::Low
    };
    ToolRecommendation {
        tool: c.hit.clone(),
        recommendation_score: round3(score),
        confidence_level,
        task_alignment: round3(breakdown.task_alignment.value),
        capability_match: round3(breakdown.capability_match.value),
        complexity_alignment: round3(breakdown.complexity_alignment.value),
        score_breakdown: breakdown,
        steps_served: c.steps.iter().map(|s| s + 1).collect(),
        recommendation_reasons: reasons,
        usage_guidance: guidance,
        when_to_use: t.when_to_use.clone(),
        alternative_tools: alternatives,
        risk_factors: risks,
        prerequisites,
    }
}

/// The chain: for each step in order, the recommended tool that its retrieval scored
/// highest (an unused one when there is one), then ordered by prerequisites; each with what
/// it takes from the tools before it.
pub(super) fn workflow(
    engine: &Engine,
    recs: &[ToolRecommendation],
    candidates: &BTreeMap<&str, Candidate>,
    steps: &[String],
) -> Vec<WorkflowStep> {
    let catalog = engine.catalog();
    let mut links: Vec<workflow::Link> = Vec::new();
    let mut used: Vec<&str> = Vec::new();
    for (s, purpose) in steps.iter().enumerate() {
        // The step's own similarity decides; a tenth of the recommendation score breaks
        // near-ties toward the tool that is better overall (in keyword mode "read the diff"
        // scores git_diff and fs_edit_file alike).
        let scored = |r: &&ToolRecommendation| {
            candidates
                .get(r.tool.tool_id.as_str())
                .and_then(|c| c.step_scores.get(&s).copied())
                .map(|v| v + 0.1 * r.recommendation_score)
        };
        let best = |fresh: bool| {
            recs.iter()
                .filter(|r| !fresh || !used.contains(&r.tool.tool_id.as_str()))
                .filter_map(|r| scored(&r).map(|v| (v, r)))
                .max_by(|a, b| {
                    a.0.total_cmp(&b.0)
                        .then(b.1.tool.tool_id.cmp(&a.1.tool.tool_id))
                })
                .map(|(_, r)| r)
        };
        let Some(r) = best(true).or_else(|| best(false)) else {
            continue;
        };
        let Some(t) = catalog.get(&r.tool.tool_id) else {
            continue;
        };
        if !used.contains(&t.tool_id.as_str()) {
            used.push(t.tool_id.as_str());
        }
        links.push(workflow::Link {
            tool: t,
            step: s,
            purpose: purpose.clone(),
        });
    }
    let ordered = workflow::order(links);
    let mut earlier: Vec<&ToolRecord> = Vec::new();
    let mut out = Vec::new();
    for (i, (link, note)) in ordered.into_iter().enumerate() {
        out.push(WorkflowStep {
            order: i + 1,
            tool_id: link.tool.tool_id.clone(),
            purpose: link.purpose,
            inputs_from: workflow::inputs_from(link.tool, &earlier),
            call: link.tool.call_route(),
            note,
        });
        earlier.push(link.tool);
    }
    out
}

pub(super) fn explanations(
    steps: &[String],
    retrievals: &[Retrieval],
    workflow: &[WorkflowStep],
    req: &RecommendationRequest,
) -> Vec<String> {
    let mut out = Vec::new();
    if steps.len() > 1 {
        out.push(format!(
            "The task reads as {} steps: {}.",
            steps.len(),
            steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("({}) {s}", i + 1))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    } else {
        out.push("The task reads as one step.".to_string());
    }
    out.push(format!(
        "{} retrievals ran (whole task, steps, facets): {}.",
        retrievals.len(),
        retrievals
            .iter()
            .map(|r| format!("\"{}\"", r.text))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out.push(format!(
        "Scores weigh task alignment {}, capabilities {}, complexity fit {}, reliability {:.2}, popularity {}, speed {:.2}{}.",
        scoring::W_ALIGNMENT,
        scoring::W_CAPABILITY,
        scoring::W_COMPLEXITY,
        scoring::W_RELIABILITY
            + scoring::W_PRIORITY * req.user_preferences.reliability_priority.unwrap_or(0.0),
        scoring::W_POPULARITY,
        scoring::W_PERFORMANCE
            + scoring::W_PRIORITY * req.user_preferences.performance_priority.unwrap_or(0.0),
        if req.user_preferences.preferred_categories.is_empty() {
            String::new()
        } else {
            format!(", preferred category {}", scoring::W_PREFERENCE)
        }
    ));
    if !req.user_preferences.avoid_categories.is_empty() {
        out.push(format!(
            "Tools of {} were left out, as asked.",
            req.user_preferences.avoid_categories.join(", ")
        ));
    }
    for w in workflow {
        if let Some(note) = &w.note {
            out.push(format!("{}: {note}.", w.tool_id));
        }
    }
    out
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

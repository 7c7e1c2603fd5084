//! From retrievals to explained output. This file owns the task analysis (category,
//! complexity, required capabilities, difficulty, confidence, context) and each candidate's
//! score; `advice` explains each recommendation (reasons, guidance, risks), `chain` orders the
//! picks into the workflow and writes the explanations.

mod advice;
mod chain;

pub(super) use advice::recommendation;
pub(super) use chain::{explanations, workflow};

use super::request::RecommendationRequest;
use super::response::{TaskAnalysis, TaskComplexity};
use super::{scoring, task, Candidate, Kind, Retrieval};
use crate::catalog::ToolRecord;
use crate::engine::{Engine, MeasuredUse};
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

/// Reads the task from its retrievals.
pub(super) fn analyse(
    engine: &Engine,
    req: &RecommendationRequest,
    steps: &[String],
    retrievals: &[Retrieval],
) -> Analysis {
    // Per step: the retrieval that stands for it (its own, or the whole task's).
    let per_step: Vec<&Retrieval> = (0..steps.len())
        .map(|i| {
            retrievals
                .iter()
                .find(|r| r.kind == Kind::Step(i))
                .unwrap_or(&retrievals[0])
        })
        .collect();
    let needs = Needs::of(engine, steps, &per_step);
    let text = format!(
        "{} {}",
        req.task_description,
        req.context.as_deref().unwrap_or("")
    );
    let constraints: Vec<String> = task::constraints(&text)
        .into_iter()
        .map(str::to_string)
        .collect();
    let estimated_difficulty = difficulty(steps.len(), constraints.len(), &per_step, retrievals);
    let complexity_level = match (steps.len(), constraints.len()) {
        (1, 0..=1) => TaskComplexity::Simple,
        (1..=2, 0..=2) => TaskComplexity::Medium,
        _ => TaskComplexity::Complex,
    };
    let context = task::inferred_context(&req.task_description, req.context.as_deref());
    Analysis {
        task: TaskAnalysis {
            task_category: task_category(retrievals),
            complexity_level,
            required_capabilities: needs.required,
            optional_capabilities: needs.optional,
            estimated_difficulty: round3(estimated_difficulty),
            confidence: round3(confidence(&per_step)),
            inferred_context: if context.is_empty() {
                "none stated".to_string()
            } else {
                context.join("; ")
            },
            steps: steps.to_vec(),
            constraints,
        },
        required_by_step: needs.by_step,
    }
}

/// The capabilities a task needs.
struct Needs {
    /// Required per step.
    by_step: Vec<Vec<String>>,
    /// Required by any step, once each.
    required: Vec<String>,
    optional: Vec<String>,
}

impl Needs {
    /// Required: capability tags shared by at least two of a step's top three tools, or
    /// named by the step's words; optional: the other capability tags of those tools.
    fn of(engine: &Engine, steps: &[String], per_step: &[&Retrieval]) -> Needs {
        let catalog = engine.catalog();
        let mut by_step = Vec::new();
        let mut optional: Vec<String> = Vec::new();
        for (i, r) in per_step.iter().enumerate() {
            let words = crate::index::keyword::analyze(&steps[i]);
            let top: Vec<&ToolRecord> = r
                .response
                .results
                .iter()
                .take(3)
                .filter_map(|h| catalog.get(&h.tool_id))
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
            by_step.push(required);
        }
        let mut required: Vec<String> = Vec::new();
        for c in by_step.iter().flatten() {
            if !required.contains(c) {
                required.push(c.clone());
            }
        }
        optional.retain(|c| !required.contains(c));
        Needs {
            by_step,
            required,
            optional,
        }
    }
}

/// Category: the one with the most score among the whole task's and the steps' hits.
fn task_category(retrievals: &[Retrieval]) -> String {
    let mut mass: BTreeMap<&str, f64> = BTreeMap::new();
    for r in retrievals
        .iter()
        .filter(|r| !matches!(r.kind, Kind::Facet(_) | Kind::Link))
    {
        for h in r.response.results.iter() {
            *mass.entry(h.category.as_str()).or_default() += h.similarity_score;
        }
    }
    mass.iter()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
        .map_or("unknown".to_string(), |(c, _)| c.to_string())
}

/// Difficulty grows with steps, constraints and breadth (categories the steps span), and
/// with how poorly the catalog matches the task.
fn difficulty(
    steps: usize,
    constraints: usize,
    per_step: &[&Retrieval],
    retrievals: &[Retrieval],
) -> f64 {
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
    (0.15
        + 0.2 * (steps as f64 - 1.0)
        + 0.08 * constraints as f64
        + 0.1 * (distinct.len().max(1) as f64 - 1.0)
        + 0.2 * (1.0 - best))
        .clamp(0.0, 1.0)
}

/// Confidence: how well the steps are matched on average, less when a step's top two are
/// too close to tell apart.
fn confidence(per_step: &[&Retrieval]) -> f64 {
    per_step
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
        / per_step.len().max(1) as f64
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
            engine
                .measured()
                .get(&t.tool_id)
                .and_then(MeasuredUse::weighed_success),
        )),
        None => 0.0,
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

//! The picks as a chain of use (the workflow) and the explanations of the whole
//! recommendation.

use super::super::links::Link;
use super::super::request::RecommendationRequest;
use super::super::response::{ToolRecommendation, WorkflowStep};
use super::super::{scoring, workflow, Candidate, Retrieval};
use crate::catalog::ToolRecord;
use crate::engine::Engine;
use std::collections::BTreeMap;

/// The chain: for each step in order, the recommended tool that its retrieval scored
/// highest (an unused one when there is one), then ordered by prerequisites; each with what
/// it takes from the tools before it.
pub(in crate::engine::recommend) fn workflow(
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
    // The first pick's follower comes after a one-step task's tool: it takes what that tool
    // returns. A task of several steps said what comes next itself.
    let follower = recs
        .iter()
        .filter_map(|r| candidates.get(r.tool.tool_id.as_str()))
        .find_map(|c| c.link.as_ref().map(|l| (c, l)))
        .filter(|_| steps.len() == 1);
    if let Some((c, link)) = follower {
        if let Some(t) = catalog.get(&c.hit.tool_id) {
            if !used.contains(&t.tool_id.as_str()) {
                links.push(workflow::Link {
                    tool: t,
                    step: usize::MAX,
                    purpose: format!("then use what {} returns", link.from),
                });
            }
        }
    }
    let ordered = workflow::order(links);
    let mut earlier: Vec<&ToolRecord> = Vec::new();
    let mut out = Vec::new();
    for (i, (link, note)) in ordered.into_iter().enumerate() {
        out.push(WorkflowStep {
            order: i + 1,
            tool_id: link.tool.tool_id.clone(),
            purpose: link.purpose,
            inputs_from: inputs_from(link.tool, &earlier, follower),
            call: link.tool.call_route(),
            note,
        });
        earlier.push(link.tool);
    }
    out
}

/// What `tool` takes from the tools before it, with the follower's link when `tool` is the
/// follower and the tool it follows is among them.
fn inputs_from(
    tool: &ToolRecord,
    earlier: &[&ToolRecord],
    follower: Option<(&Candidate, &Link)>,
) -> Vec<String> {
    let mut out = workflow::inputs_from(tool, earlier);
    if let Some((c, link)) = follower.filter(|(c, _)| c.hit.tool_id == tool.tool_id) {
        let follows = earlier.iter().any(|t| t.tool_id == link.from);
        let taken = out
            .iter()
            .any(|s| s.ends_with(&format!("-> {}", link.parameter)));
        if follows && !taken && c.link.is_some() {
            out.push(link.input());
        }
    }
    out
}

/// What the recommendation rests on, in sentences: the steps read, the retrievals run, the
/// weights, the categories left out, and each workflow note.
pub(in crate::engine::recommend) fn explanations(
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
        "{} retrievals ran (whole task, steps, facets, what the first pick returns): {}.",
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

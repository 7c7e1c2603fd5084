//! One recommendation explained: its score and confidence, why it was picked, how to call
//! it, what can go wrong, what must run first, and what could replace it.

use super::super::request::RecommendationRequest;
use super::super::response::{ScoreBreakdown, ToolRecommendation};
use super::super::{scoring, Candidate};
use super::{required_for, round3, Analysis};
use crate::catalog::{Catalog, ToolRecord};
use crate::engine::{ConfidenceLevel, Engine};
use std::collections::BTreeMap;

/// One pick as its explanation reads it.
struct Pick<'a> {
    tool: &'a ToolRecord,
    candidate: &'a Candidate,
    catalog: &'a Catalog,
    req: &'a RecommendationRequest,
    /// Every pick of the request, by id.
    picks: &'a [String],
}

/// The recommendation of candidate `c` among `picks`.
pub(in crate::engine::recommend) fn recommendation(
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
    let measured = engine
        .measured()
        .get(&t.tool_id)
        .filter(|m| m.weighed)
        .cloned();
    let breakdown = scoring::breakdown(
        t,
        c.alignment,
        &required,
        req,
        measured.as_ref().map(|m| m.success_rate),
    );
    let score = scoring::score(&breakdown);
    let pick = Pick {
        tool: t,
        candidate: c,
        catalog,
        req,
        picks,
    };
    let mut reasons = reasons(&pick, steps, &required, &breakdown);
    if let Some(m) = measured {
        reasons.push(format!(
            "succeeded in {:.0}% of its {} runs here (measured by toolscout, averaged with the catalog's reliability)",
            m.success_rate * 100.0,
            m.total_uses
        ));
    }
    let alternatives = if req.include_alternatives {
        alternatives(&pick, candidates)
    } else {
        Vec::new()
    };
    ToolRecommendation {
        tool: c.hit.clone(),
        recommendation_score: round3(score),
        confidence_level: confidence_level(score, c.alignment),
        task_alignment: round3(breakdown.task_alignment.value),
        capability_match: round3(breakdown.capability_match.value),
        complexity_alignment: round3(breakdown.complexity_alignment.value),
        score_breakdown: breakdown,
        steps_served: c.steps.iter().map(|s| s + 1).collect(),
        recommendation_reasons: reasons,
        usage_guidance: guidance(t),
        when_to_use: t.when_to_use.clone(),
        alternative_tools: alternatives,
        risk_factors: risks(t),
        prerequisites: prerequisites(t, picks),
    }
}

/// Why the tool was picked: the steps it serves, its similarity, the capabilities it
/// brings, how it works with the other picks, the preferences it meets.
fn reasons(
    pick: &Pick<'_>,
    steps: &[String],
    required: &[String],
    breakdown: &ScoreBreakdown,
) -> Vec<String> {
    let (t, c, req) = (pick.tool, pick.candidate, pick.req);
    let mut reasons = Vec::new();
    for &s in &c.steps {
        reasons.push(format!("serves step {} (\"{}\")", s + 1, steps[s]));
    }
    reasons.push(format!(
        "matches the task with similarity {:.2}",
        c.alignment
    ));
    if let Some(link) = &c.link {
        reasons.push(link.reason());
    }
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
    for other in pick.picks.iter().filter(|p| *p != &t.tool_id) {
        if let Some(o) = pick.catalog.get(other) {
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
    reasons
}

/// How to call it: the required parameters, the first example, the first usage pattern.
fn guidance(t: &ToolRecord) -> Vec<String> {
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
    guidance
}

/// What can go wrong: network, credentials, writes, low reliability, deprecated
/// parameters, and a tool toolscout cannot run.
fn risks(t: &ToolRecord) -> Vec<String> {
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
    risks
}

/// The tool's prerequisites, each saying whether it is among the picks.
fn prerequisites(t: &ToolRecord, picks: &[String]) -> Vec<String> {
    t.prerequisite_tools
        .iter()
        .map(|p| {
            if picks.contains(p) {
                format!("{p} (recommended here, earlier in the workflow)")
            } else {
                format!("{p} (not recommended here; run it first if you lack its output)")
            }
        })
        .collect()
}

/// Up to three of the tool's similar tools not picked, then other candidates for the same
/// steps that match nearly as well, five at most.
fn alternatives(pick: &Pick<'_>, candidates: &BTreeMap<&str, Candidate>) -> Vec<String> {
    let (t, c, req, picks) = (pick.tool, pick.candidate, pick.req, pick.picks);
    let mut alts: Vec<String> = t
        .similar_tools
        .iter()
        .filter(|s| !picks.contains(s))
        // Asked for runnable tools only, an agent gets no alternative it cannot run here.
        .filter(|s| !req.runnable_only || pick.catalog.get(s).is_some_and(|a| a.is_executable()))
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
}

/// High when both the score and the similarity are; medium on score alone.
fn confidence_level(score: f64, alignment: f64) -> ConfidenceLevel {
    if score >= 0.6 && alignment >= 0.5 {
        ConfidenceLevel::High
    } else if score >= 0.4 {
        ConfidenceLevel::Medium
    } else {
        ConfidenceLevel::Low
    }
}

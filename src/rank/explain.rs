//! Explanations of a ranked hit: confidence from the score and its margin over the next hit,
//! and match reasons citing the evidence (which query terms hit which fields, how close the
//! best passage is, an exact name, a lift over a metadata-only twin).

use super::{MatchedTerm, Ranked, TWIN_MARGIN};
use crate::rank::ConfidenceLevel;

/// Score at or above which a hit can be `high` confidence.
pub const HIGH_SCORE: f64 = 0.6;
/// Score at or above which a hit is at least `medium` confidence.
pub const MEDIUM_SCORE: f64 = 0.35;
/// A lead over the next hit smaller than this means the choice between them is a toss-up.
pub const CLEAR_MARGIN: f64 = 0.03;

/// Confidence of a hit, given the score of the hit ranked after it (if any).
pub fn confidence(hit: &Ranked, next_score: Option<f64>) -> ConfidenceLevel {
    if hit.details.exact_match {
        return ConfidenceLevel::High;
    }
    let margin = next_score.map_or(f64::INFINITY, |n| hit.score - n);
    if hit.score >= HIGH_SCORE && margin >= CLEAR_MARGIN {
        ConfidenceLevel::High
    } else if hit.score >= MEDIUM_SCORE {
        ConfidenceLevel::Medium
    } else {
        ConfidenceLevel::Low
    }
}

/// Confidence of each hit of a ranked list (best first): [`confidence`] against the next
/// hit, capped by the hit above, so that a hit never reads as surer than one ranked before it
/// (when the first two are a toss-up, the second is no more certain than the first).
pub fn confidences(ranked: &[&Ranked]) -> Vec<ConfidenceLevel> {
    let mut cap = ConfidenceLevel::High;
    ranked
        .iter()
        .enumerate()
        .map(|(i, hit)| {
            let level = confidence(hit, ranked.get(i + 1).map(|n| n.score)).min(cap);
            cap = level;
            level
        })
        .collect()
}

/// Human-readable evidence for a hit. `matched` lists (field, query term) pairs from the
/// keyword index; `context_given` says whether context took part.
pub fn match_reasons(
    hit: &Ranked,
    matched: &[MatchedTerm],
    context_given: bool,
    extra: &[String],
) -> Vec<String> {
    let d = &hit.details;
    let mut reasons = Vec::new();
    if d.exact_match {
        reasons.push("the query names this tool exactly (id, name or alias)".to_string());
    }
    if let Some(edits) = d.name_edits {
        let plural = if edits == 1 { "" } else { "s" };
        reasons.push(format!(
            "the query is {edits} edit{plural} from this tool's id, name or alias (a likely typo)"
        ));
    }
    // Group fields per term, keeping first-seen order, so each term reads once.
    let mut by_term: Vec<(&str, Vec<&str>)> = Vec::new();
    for (field, term) in matched {
        match by_term.iter_mut().find(|(t, _)| *t == &**term) {
            Some((_, fields)) => {
                if !fields.contains(field) {
                    fields.push(field);
                }
            }
            None => by_term.push((term, vec![field])),
        }
    }
    for (term, fields) in by_term.iter().take(5) {
        reasons.push(format!(
            "query term \"{term}\" matched {}",
            join_fields(fields)
        ));
    }
    if by_term.len() > 5 {
        reasons.push(format!("{} more query terms matched", by_term.len() - 5));
    }
    if let Some(cos) = d.cosine {
        let strength = if d.semantic >= 0.66 {
            "strong"
        } else if d.semantic >= 0.33 {
            "moderate"
        } else {
            "weak"
        };
        let passage = d.matched_passage.unwrap_or("description");
        reasons.push(format!(
            "{strength} semantic similarity to the tool's {passage} (cosine {cos:.2})"
        ));
    }
    reasons.extend(extra.iter().cloned());
    if context_given && d.context > 0.01 {
        reasons.push(format!("fits the given context (+{:.2})", d.context));
    }
    if let Some(twin) = &d.runnable_over {
        reasons.push(format!(
            "runnable here: ranked above its metadata-only twin {twin}, whose evidence is within {TWIN_MARGIN:.2}"
        ));
    }
    if reasons.is_empty() {
        reasons.push("no direct evidence; ranked on weak overall similarity".to_string());
    }
    reasons
}

fn join_fields(fields: &[&str]) -> String {
    match fields {
        [] => String::new(),
        [one] => format!("the {one}"),
        [init @ .., last] => format!("the {} and {last}", init.join(", ")),
    }
}

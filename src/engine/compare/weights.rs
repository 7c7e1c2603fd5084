//! From dimension scores to a ranking: the criteria weights a comparison context implies,
//! `overall_score` (weighted mean over the requested criteria), the `ranking_score` that
//! blends in context fit, and the deterministic order (score, then tool id). Pure functions.

use super::dimensions::round4;
use super::request::Criterion;
use super::response::DimensionScores;
use std::collections::BTreeMap;

/// Share of `ranking_score` given to context fit when a context separates the tools: the
/// caller said what the choice is for, so fit counts as much as all criteria together.
pub(crate) const CONTEXT_SHARE: f64 = 0.5;
/// Below this best relevance the context matches none of the tools, and ranking ignores it
/// (dividing by a near-zero maximum would turn noise into a verdict).
pub(crate) const MIN_CONTEXT_RELEVANCE: f64 = 0.05;
/// Weight of a criterion the context asks for (others weigh 1).
pub(crate) const EMPHASIS: f64 = 2.0;

/// Words in a context that ask for a criterion. A cue of five or more characters also
/// matches words it begins ("reliab" matches reliable, reliability); shorter cues match
/// whole words only ("fast" does not match "fasten").
const CUES: &[(Criterion, &[&str])] = &[
    (
        Criterion::Functionality,
        &[
            "advanced",
            "powerful",
            "feature",
            "flexib",
            "capabilit",
            "precise",
            "thorough",
            "complete",
            "versatil",
        ],
    ),
    (
        Criterion::Usability,
        &[
            "easy",
            "easier",
            "easiest",
            "simpl",
            "beginner",
            "novice",
            "friendly",
            "intuitiv",
            "convenien",
            "ergonomic",
        ],
    ),
    (
        Criterion::Performance,
        &[
            "fast",
            "faster",
            "fastest",
            "quick",
            "quickly",
            "speed",
            "latency",
            "perform",
            "slow",
            "large",
            "huge",
            "big",
            "scale",
            "million",
            "throughput",
            "efficien",
        ],
    ),
    (
        Criterion::Reliability,
        &[
            "reliab",
            "stable",
            "stabil",
            "robust",
            "production",
            "critical",
            "flaky",
            "dependab",
            "mission",
            "trustworth",
        ],
    ),
    (
        Criterion::Complexity,
        &[
            "learn",
            "beginner",
            "novice",
            "junior",
            "simpl",
            "straightforward",
            "complicat",
            "steep",
        ],
    ),
    (
        Criterion::Documentation,
        &[
            "document", "docs", "example", "tutorial", "guide", "guidance", "explain",
        ],
    ),
];

/// The weight of each requested criterion (1, or `EMPHASIS` when the context uses one of its
/// cue words) and a sentence per raised weight.
pub(crate) fn context_weights(
    context: Option<&str>,
    criteria: &[Criterion],
) -> (BTreeMap<Criterion, f64>, Vec<String>) {
    let words: Vec<String> = context
        .unwrap_or("")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut weights = BTreeMap::new();
    let mut reasons = Vec::new();
    for &c in criteria {
        let cues = CUES
            .iter()
            .find(|(k, _)| *k == c)
            .map_or(&[][..], |(_, v)| *v);
        let hit = words.iter().find(|w| {
            cues.iter()
                .any(|cue| *w == cue || (cue.len() >= 5 && w.starts_with(cue)))
        });
        match hit {
            Some(word) => {
                weights.insert(c, EMPHASIS);
                reasons.push(format!(
                    "the context says \"{word}\", so {c} weighs {EMPHASIS}x"
                ));
            }
            None => {
                weights.insert(c, 1.0);
            }
        }
    }
    (weights, reasons)
}

/// `overall_score`: `sum(weight_c x score_c) / sum(weight_c)` over the requested criteria
/// that have a score; 0 when none has.
pub(crate) fn overall(scores: &DimensionScores, weights: &BTreeMap<Criterion, f64>) -> f64 {
    let (mut sum, mut total) = (0.0, 0.0);
    for (&c, &w) in weights {
        if let Some(s) = scores.get(c) {
            sum += w * s;
            total += w;
        }
    }
    if total > 0.0 {
        round4(sum / total)
    } else {
        0.0
    }
}

/// `ranking_score`: `overall` alone when there is no context or the best relevance is below
/// `MIN_CONTEXT_RELEVANCE`; otherwise `(1 - CONTEXT_SHARE) x overall + CONTEXT_SHARE x
/// relevance / max_relevance`. Relevance is taken relative to the best-fitting tool, so the
/// scale of the relevance measure (cosine ramp or BM25) does not matter, and a context that
/// fits two tools almost equally moves them almost equally.
pub(crate) fn ranking_score(overall: f64, relevance: Option<f64>, max_relevance: f64) -> f64 {
    match relevance {
        Some(r) if max_relevance >= MIN_CONTEXT_RELEVANCE => round4(
            (1.0 - CONTEXT_SHARE) * overall + CONTEXT_SHARE * (r / max_relevance).clamp(0.0, 1.0),
        ),
        _ => overall,
    }
}

/// Positions of `items` (tool id, ranking score) best first: score descending, then tool id
/// ascending, so equal scores always come out in the same order.
pub(crate) fn order(items: &[(&str, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..items.len()).collect();
    idx.sort_by(|&a, &b| {
        items[b]
            .1
            .total_cmp(&items[a].1)
            .then_with(|| items[a].0.cmp(items[b].0))
    });
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_cues_raise_weights() {
        let (w, why) = context_weights(None, &Criterion::ALL);
        assert!(w.values().all(|&v| v == 1.0) && why.is_empty());
        let (w, why) = context_weights(
            Some("We need something FAST and reliable for production"),
            &Criterion::ALL,
        );
        assert_eq!(w[&Criterion::Performance], EMPHASIS);
        assert_eq!(w[&Criterion::Reliability], EMPHASIS);
        assert_eq!(w[&Criterion::Usability], 1.0);
        assert_eq!(why.len(), 2);
        assert!(why[0].contains("\"fast\""), "{why:?}");
        // Short cues match whole words only; unrequested criteria get no weight.
        let (w, _) = context_weights(Some("fasten the bigger bolt"), &[Criterion::Performance]);
        assert_eq!(w.len(), 1);
        assert_eq!(w[&Criterion::Performance], 1.0);
    }

    #[test]
    fn overall_is_the_weighted_mean_of_present_scores() {
        let mut s = DimensionScores::default();
        s.set(Criterion::Performance, 1.0);
        s.set(Criterion::Reliability, 0.4);
        let mut w = BTreeMap::new();
        w.insert(Criterion::Performance, 2.0);
        w.insert(Criterion::Reliability, 1.0);
        assert_eq!(overall(&s, &w), 0.8);
        w.insert(Criterion::Usability, 1.0); // requested but unscored: ignored
        assert_eq!(overall(&s, &w), 0.8);
        assert_eq!(overall(&DimensionScores::default(), &w), 0.0);
    }

    #[test]
    fn ranking_blends_relative_context_fit() {
        assert_eq!(ranking_score(0.7, None, 0.0), 0.7);
        assert_eq!(ranking_score(0.7, Some(0.01), 0.02), 0.7);
        assert_eq!(ranking_score(0.6, Some(0.5), 0.5), 0.8);
        assert_eq!(ranking_score(0.8, Some(0.25), 0.5), 0.65);
    }

    #[test]
    fn order_is_by_score_then_id() {
        let items = [("b", 0.5), ("a", 0.5), ("c", 0.9), ("a2", 0.1)];
        assert_eq!(order(&items), vec![2, 1, 0, 3]);
        // Deterministic whatever the input order.
        let reversed = [("a2", 0.1), ("c", 0.9), ("a", 0.5), ("b", 0.5)];
        let ids: Vec<&str> = order(&reversed).iter().map(|&i| reversed[i].0).collect();
        assert_eq!(ids, ["c", "a", "b", "a2"]);
    }
}

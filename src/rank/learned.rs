//! Learning from use, as ranking weighs it: a bounded prior added to a hit's score from what
//! past use says about the tool for requests like this one (feedback on similar past
//! requests, and the tool's measured success here). Pure, like the rest of ranking: the
//! engine gathers the per-tool [`Learned`] evidence (`engine::learned`), this step turns it
//! into score and order.
//!
//! The prior is `weight * clamp(tanh(support / SUPPORT_HALF) - FAILURE_SHARE * (1 - success))`,
//! so it never exceeds `learning_weight` either way, and a weight of 0 leaves every score as
//! it was. A tool the query names exactly keeps its place at the top: its score is not
//! moved, and `sort_ranked` puts exact names first whatever the scores.

use super::{sort_ranked, Ranked};
use serde::Serialize;
use std::collections::HashMap;

/// Support at which the feedback part of the prior reaches tanh(1) = 0.76 of its bound:
/// about one close past request whose every signal chose the tool. On the tune halves
/// (`eval --feedback`, weight 0.2) 0.5 gained 1 to 2 points more on MetaTool and lost 0.5 on
/// the agent requests, 2 gained 1 to 2 points less everywhere.
pub const SUPPORT_HALF: f64 = 1.0;
/// Share of the bound a tool that always fails here loses. No development set records
/// executions, so this is set by reasoning, not measured: a tool that never works should
/// lose half of what feedback can give, and one that works 90% of the time a twentieth.
pub const FAILURE_SHARE: f64 = 0.5;

/// What past use says about one tool for one request, and what it did to the score.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Learned {
    /// Feedback of similar past requests for this tool: each request's net share of signals
    /// (helped minus not helped, over all its signals), weighed by its similarity to this
    /// request, summed.
    pub support: f64,
    /// Similar past requests that chose the tool or found it helpful.
    pub chosen_by: u32,
    /// Similar past requests that found it not helpful.
    pub rejected_by: u32,
    /// Its success rate over its runs here, once it ran `[usage] min_calls` times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success_rate: Option<f64>,
    /// What was added to the score (negative: taken away); 0 for an exact name.
    pub prior: f64,
}

/// The prior of `learned` at `weight`, within `-weight..=weight`.
pub fn learned_prior(learned: &Learned, weight: f64) -> f64 {
    let weight = weight.clamp(0.0, 1.0);
    let feedback = (learned.support / SUPPORT_HALF).tanh();
    let failure = learned
        .success_rate
        .map_or(0.0, |s| FAILURE_SHARE * (1.0 - s.clamp(0.0, 1.0)));
    let prior = weight * (feedback - failure).clamp(-1.0, 1.0);
    if prior.is_finite() {
        prior
    } else {
        0.0
    }
}

/// Adds each tool's prior to its score (kept in 0..1), records it in the score details and
/// sorts again. A weight of 0, or no evidence, changes nothing.
pub fn apply_learning(ranked: &mut [Ranked], learned: &HashMap<u32, Learned>, weight: f64) {
    if weight <= 0.0 || learned.is_empty() {
        return;
    }
    for r in ranked.iter_mut() {
        let Some(evidence) = learned.get(&r.ordinal) else {
            continue;
        };
        let mut evidence = evidence.clone();
        evidence.prior = if r.details.exact_match {
            0.0
        } else {
            learned_prior(&evidence, weight)
        };
        r.score = (r.score + evidence.prior).clamp(0.0, 1.0);
        r.details.fused = r.score;
        r.details.learned = Some(evidence);
    }
    sort_ranked(ranked);
}

/// The match reasons the learned evidence gives ("chosen by 12 similar requests").
pub fn learned_reasons(learned: &Learned) -> Vec<String> {
    let mut reasons = Vec::new();
    let requests = |n: u32| {
        if n == 1 {
            "1 similar request".to_string()
        } else {
            format!("{n} similar requests")
        }
    };
    if learned.chosen_by > 0 {
        reasons.push(format!("chosen by {}", requests(learned.chosen_by)));
    }
    if learned.rejected_by > 0 {
        reasons.push(format!(
            "judged not helpful by {}",
            requests(learned.rejected_by)
        ));
    }
    if let Some(s) = learned.success_rate {
        if s < 1.0 {
            reasons.push(format!(
                "failed in {:.0}% of its runs here",
                100.0 * (1.0 - s)
            ));
        }
    }
    if learned.prior.abs() >= 0.005 {
        reasons.push(format!("past use moved its score by {:+.2}", learned.prior));
    }
    reasons
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::ScoreDetails;
    use proptest::prelude::*;

    fn hit(ordinal: u32, score: f64, exact: bool) -> Ranked {
        Ranked {
            ordinal,
            score,
            details: ScoreDetails {
                exact_match: exact,
                fused: score,
                ..ScoreDetails::default()
            },
        }
    }

    fn support(support: f64) -> Learned {
        Learned {
            support,
            chosen_by: u32::from(support > 0.0),
            rejected_by: u32::from(support < 0.0),
            ..Learned::default()
        }
    }

    #[test]
    fn helped_tools_rise_rejected_ones_fall_and_it_is_explained() {
        let mut ranked = vec![
            hit(0, 0.60, false),
            hit(1, 0.55, false),
            hit(2, 0.50, false),
        ];
        let learned = HashMap::from([(2, support(2.0)), (0, support(-1.0))]);
        apply_learning(&mut ranked, &learned, 0.2);
        let order: Vec<u32> = ranked.iter().map(|r| r.ordinal).collect();
        assert_eq!(order, [2, 1, 0]);
        let top = &ranked[0];
        assert_eq!(top.details.fused, top.score);
        let l = top.details.learned.as_ref().unwrap();
        assert!((l.prior - 0.2 * 2f64.tanh()).abs() < 1e-12);
        let reasons = learned_reasons(l);
        assert!(reasons.contains(&"chosen by 1 similar request".to_string()));
        assert!(reasons
            .iter()
            .any(|r| r.starts_with("past use moved its score by +0.19")));
        let last = ranked[2].details.learned.as_ref().unwrap();
        assert!(learned_reasons(last).contains(&"judged not helpful by 1 similar request".into()));
    }

    #[test]
    fn a_failing_tool_loses_up_to_half_the_weight() {
        let failing = Learned {
            success_rate: Some(0.0),
            ..Learned::default()
        };
        assert!((learned_prior(&failing, 0.2) + 0.1).abs() < 1e-12);
        let reliable = Learned {
            success_rate: Some(1.0),
            ..Learned::default()
        };
        assert_eq!(learned_prior(&reliable, 0.2), 0.0);
        assert!(learned_reasons(&failing).contains(&"failed in 100% of its runs here".into()));
    }

    #[test]
    fn weight_zero_changes_nothing() {
        let mut ranked = vec![hit(0, 0.6, false), hit(1, 0.5, false)];
        let before = ranked.clone();
        apply_learning(&mut ranked, &HashMap::from([(1, support(9.0))]), 0.0);
        assert_eq!(ranked, before);
    }

    fn arb_case() -> impl Strategy<Value = (Vec<Ranked>, HashMap<u32, Learned>, f64)> {
        let hits = prop::collection::vec((0.0f64..1.0, prop::bool::weighted(0.1)), 1..30);
        let votes = prop::collection::vec(
            (0u32..30, -50.0f64..50.0, prop::option::of(0.0f64..=1.0)),
            0..30,
        );
        (hits, votes, 0.0f64..=1.0).prop_map(|(hits, votes, weight)| {
            let mut seen_exact = false;
            let mut ranked: Vec<Ranked> = hits
                .into_iter()
                .enumerate()
                .map(|(i, (score, exact))| {
                    // At most one tool is named exactly, and it scores 1.
                    let exact = exact && !seen_exact;
                    seen_exact |= exact;
                    hit(i as u32, if exact { 1.0 } else { score }, exact)
                })
                .collect();
            sort_ranked(&mut ranked);
            let learned = votes
                .into_iter()
                .map(|(o, s, rate)| {
                    let mut l = support(s);
                    l.success_rate = rate;
                    (o, l)
                })
                .collect();
            (ranked, learned, weight)
        })
    }

    proptest! {
        #[test]
        fn the_prior_is_bounded_and_an_exact_name_stays_first((ranked, learned, weight) in arb_case()) {
            let mut after = ranked.clone();
            apply_learning(&mut after, &learned, weight);
            prop_assert_eq!(after.len(), ranked.len());
            for r in &after {
                let was = ranked.iter().find(|b| b.ordinal == r.ordinal).unwrap();
                prop_assert!((r.score - was.score).abs() <= weight + 1e-12);
                prop_assert!((0.0..=1.0).contains(&r.score));
                if let Some(l) = &r.details.learned {
                    prop_assert!(l.prior.abs() <= weight + 1e-12);
                }
            }
            if let Some(exact) = ranked.iter().find(|r| r.details.exact_match) {
                prop_assert_eq!(after[0].ordinal, exact.ordinal);
            }
            // Sorted: exact first, then score, then ordinal; and the same input, the same output.
            for pair in after.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                prop_assert!(
                    a.details.exact_match & !b.details.exact_match
                        || (a.details.exact_match == b.details.exact_match
                            && (a.score > b.score || (a.score == b.score && a.ordinal < b.ordinal)))
                );
            }
            let mut again = ranked.clone();
            apply_learning(&mut again, &learned, weight);
            prop_assert_eq!(again, after);
        }
    }
}

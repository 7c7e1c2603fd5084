//! The recommendation score: pure functions from a tool's evidence and the request's
//! preferences to a number in 0..1, each part documented and tested.
//!
//! `recommendation_score = sum(weight_i * value_i) / sum(weight_i)` over:
//!
//! | part | value | weight |
//! |---|---|---|
//! | task_alignment | best search similarity of the tool for the task, a step or a facet (facets x 0.9) | 0.55 |
//! | capability_match | share of the required capabilities (catalog tags) of the steps it serves that it has | 0.15 |
//! | complexity_alignment | `1 - |complexity - target| / max(target, 1 - target)` | 0.10 |
//! | reliability | catalog `reliability_score` (averaged with the measured success rate when one exists) | 0.05 + 0.15 x reliability_priority |
//! | popularity | catalog `popularity_score` | 0.05 |
//! | performance | tier: fast 1.0, balanced 0.6, comprehensive 0.3 | 0.05 + 0.15 x performance_priority |
//! | preference | 1 in a preferred category, else 0 (only when some are named) | 0.10 |
//!
//! The complexity target is 0.2 for `simple`, 0.5 for `balanced`, 0.85 for `powerful`, moved
//! 0.15 down for a beginner and 0.15 up for an expert. Alignment dominates on purpose: a
//! reliable, popular tool that does not do the task must not outrank one that does.

use super::request::{ComplexityPreference, ExperienceLevel, RecommendationRequest};
use super::response::{Part, ScoreBreakdown};
use crate::catalog::{PerformanceTier, ToolRecord};

pub const W_ALIGNMENT: f64 = 0.55;
pub const W_CAPABILITY: f64 = 0.15;
pub const W_COMPLEXITY: f64 = 0.10;
pub const W_RELIABILITY: f64 = 0.05;
pub const W_POPULARITY: f64 = 0.05;
pub const W_PERFORMANCE: f64 = 0.05;
/// Extra weight of reliability and performance at priority 1.
pub const W_PRIORITY: f64 = 0.15;
pub const W_PREFERENCE: f64 = 0.10;
/// Facet retrievals are narrower than the task: their similarity counts this much.
pub const FACET_DISCOUNT: f64 = 0.9;

/// The complexity a request aims at, 0..1.
pub fn complexity_target(pref: ComplexityPreference, experience: Option<ExperienceLevel>) -> f64 {
    let base: f64 = match pref {
        ComplexityPreference::Simple => 0.2,
        ComplexityPreference::Balanced => 0.5,
        ComplexityPreference::Powerful => 0.85,
    };
    let shift = match experience {
        Some(ExperienceLevel::Beginner) => -0.15,
        Some(ExperienceLevel::Expert) => 0.15,
        _ => 0.0,
    };
    (base + shift).clamp(0.0, 1.0)
}

/// 1 at the target, falling linearly to 0 at the farther end of 0..1.
pub fn complexity_alignment(complexity: f64, target: f64) -> f64 {
    let span = target.max(1.0 - target).max(f64::EPSILON);
    (1.0 - (complexity - target).abs() / span).clamp(0.0, 1.0)
}

/// Share of `required` capabilities the tool's tags cover; 0.5 (no evidence either way) when
/// nothing is required.
pub fn capability_match(tool: &ToolRecord, required: &[String]) -> f64 {
    if required.is_empty() {
        return 0.5;
    }
    let covered = required
        .iter()
        .filter(|c| tool.semantic_tags.contains(c))
        .count();
    covered as f64 / required.len() as f64
}

pub fn performance_value(tier: PerformanceTier) -> f64 {
    match tier {
        PerformanceTier::Fast => 1.0,
        PerformanceTier::Balanced => 0.6,
        PerformanceTier::Comprehensive => 0.3,
    }
}

/// Reliability from the catalog, averaged with a measured success rate when there is one.
pub fn reliability_value(catalog_score: f64, measured_success: Option<f64>) -> f64 {
    match measured_success {
        Some(m) => (catalog_score + m) / 2.0,
        None => catalog_score,
    }
}

/// Every part with its weight for one tool.
pub fn breakdown(
    tool: &ToolRecord,
    alignment: f64,
    required: &[String],
    req: &RecommendationRequest,
    measured_success: Option<f64>,
) -> ScoreBreakdown {
    let prefs = &req.user_preferences;
    let target = complexity_target(req.complexity_preference, prefs.experience_level);
    ScoreBreakdown {
        task_alignment: Part {
            value: alignment.clamp(0.0, 1.0),
            weight: W_ALIGNMENT,
        },
        capability_match: Part {
            value: capability_match(tool, required),
            weight: W_CAPABILITY,
        },
        complexity_alignment: Part {
            value: complexity_alignment(tool.complexity_score, target),
            weight: W_COMPLEXITY,
        },
        reliability: Part {
            value: reliability_value(tool.reliability_score, measured_success),
            weight: W_RELIABILITY + W_PRIORITY * prefs.reliability_priority.unwrap_or(0.0),
        },
        popularity: Part {
            value: tool.popularity_score,
            weight: W_POPULARITY,
        },
        performance: Part {
            value: performance_value(tool.performance_tier),
            weight: W_PERFORMANCE + W_PRIORITY * prefs.performance_priority.unwrap_or(0.0),
        },
        preference: (!prefs.preferred_categories.is_empty()).then(|| Part {
            value: f64::from(u8::from(
                prefs.preferred_categories.contains(&tool.category),
            )),
            weight: W_PREFERENCE,
        }),
    }
}

/// The weighted mean of a breakdown.
pub fn score(b: &ScoreBreakdown) -> f64 {
    let parts = [
        Some(b.task_alignment),
        Some(b.capability_match),
        Some(b.complexity_alignment),
        Some(b.reliability),
        Some(b.popularity),
        Some(b.performance),
        b.preference,
    ];
    let (sum, weights) = parts.iter().flatten().fold((0.0, 0.0), |(s, w), p| {
        (s + p.value * p.weight, w + p.weight)
    });
    if weights > 0.0 {
        sum / weights
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complexity_targets_and_alignment() {
        assert_eq!(complexity_target(ComplexityPreference::Simple, None), 0.2);
        assert!(
            (complexity_target(
                ComplexityPreference::Balanced,
                Some(ExperienceLevel::Expert)
            ) - 0.65)
                .abs()
                < 1e-12
        );
        assert_eq!(complexity_alignment(0.2, 0.2), 1.0);
        assert_eq!(complexity_alignment(1.0, 0.2), 0.0);
        assert!((complexity_alignment(0.5, 0.5) - 1.0).abs() < 1e-12);
        assert!((complexity_alignment(0.0, 0.5) - 0.0).abs() < 1e-12);
        // Simple prefers the simpler of two tools; powerful the other.
        let (easy, hard) = (0.25, 0.8);
        let simple = complexity_target(ComplexityPreference::Simple, None);
        let powerful = complexity_target(ComplexityPreference::Powerful, None);
        assert!(complexity_alignment(easy, simple) > complexity_alignment(hard, simple));
        assert!(complexity_alignment(hard, powerful) > complexity_alignment(easy, powerful));
    }

    #[test]
    fn score_is_the_weighted_mean() {
        let b = ScoreBreakdown {
            task_alignment: Part {
                value: 1.0,
                weight: 0.5,
            },
            capability_match: Part {
                value: 0.0,
                weight: 0.5,
            },
            ..ScoreBreakdown::default()
        };
        assert!((score(&b) - 0.5).abs() < 1e-12);
        assert_eq!(score(&ScoreBreakdown::default()), 0.0);
        assert_eq!(reliability_value(0.8, Some(0.6)), 0.7);
        assert_eq!(reliability_value(0.8, None), 0.8);
        assert!(
            performance_value(PerformanceTier::Fast)
                > performance_value(PerformanceTier::Comprehensive)
        );
    }
}

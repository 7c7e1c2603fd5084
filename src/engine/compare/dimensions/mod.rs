//! The six comparison dimensions as pure functions of stated evidence, each in 0..1 with
//! higher better, plus the gathering of that evidence from a catalog entry (`Facts`) and the
//! compared set (`SetStats`). Each formula is documented on its function and unit-tested; the
//! constants are round numbers chosen so that the shipped catalog's range of values spreads
//! over the scale, not fitted to any outcome. `evidence` states each score's formula and
//! inputs.

mod evidence;

use super::request::Criterion;
use super::response::DimensionEvidence;
use crate::catalog::{PerformanceTier, ToolRecord};
use crate::index::keyword::analyze;
use std::collections::BTreeSet;

/// Examples that count as a full set for usability (a few worked calls to copy from).
const USABILITY_EXAMPLES: f64 = 3.0;
/// Examples that count as a full set for documentation.
const DOC_EXAMPLES: f64 = 4.0;
/// A description this long (characters) counts as complete.
const DOC_DESCRIPTION_CHARS: f64 = 300.0;
/// `when_to_use` guidance this long counts as complete (it names alternatives and limits).
const DOC_GUIDANCE_CHARS: f64 = 400.0;
/// A parameter description of at least this many characters counts as documented (a
/// sentence, not a restated name).
const DOC_PARAMETER_CHARS: usize = 40;
/// Median latency (ms) at which the measured-latency part of performance is 0.5.
const LATENCY_HALF_MS: f64 = 500.0;
/// Measured uses that weigh as much as the catalog's reliability estimate.
const RELIABILITY_PRIOR_USES: f64 = 20.0;

/// What was measured about a tool's real executions: by toolscout's usage store once a tool
/// has run `[usage] min_calls` times here, else what its catalog entry's `usage_stats`
/// declare. They move performance and reliability as the formulas below say, and the
/// evidence says which of the two it was.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Measured {
    /// Median execution time in milliseconds.
    pub median_latency_ms: Option<f64>,
    /// Fraction of successful uses, with the number of uses it was measured over.
    pub success_rate: Option<(f64, u64)>,
    /// The figures come from toolscout's own executions, not the catalog.
    pub by_toolscout: bool,
}

impl Measured {
    /// Reads a catalog entry's `usage_stats` (already validated against the tool schema):
    /// `median_execution_time` (else `average_execution_time`), `success_rate` over
    /// `total_uses`.
    pub fn from_record(t: &ToolRecord) -> Measured {
        match &t.usage_stats {
            Some(stats) => Measured::from_stats(stats),
            None => Measured::default(),
        }
    }

    /// The same fields of a `UsageStatistics` object.
    fn from_stats(stats: &serde_json::Value) -> Measured {
        let num = |k: &str| stats.get(k).and_then(serde_json::Value::as_f64);
        let uses = stats
            .get("total_uses")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        Measured {
            median_latency_ms: num("median_execution_time").or(num("average_execution_time")),
            success_rate: num("success_rate").filter(|_| uses > 0).map(|r| (r, uses)),
            by_toolscout: false,
        }
    }

    pub fn any(&self) -> bool {
        self.median_latency_ms.is_some() || self.success_rate.is_some()
    }
}

/// The evidence one tool contributes, read once from its catalog entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Facts {
    /// Semantic tags and the analysed terms of the search keywords: what the tool can do.
    pub capabilities: BTreeSet<String>,
    /// Parameters that are not deprecated, and how many of them are required.
    pub parameters: usize,
    pub required: usize,
    /// Parameters described in at least `DOC_PARAMETER_CHARS` characters.
    pub documented_parameters: usize,
    pub examples: usize,
    pub examples_with_output: usize,
    pub description_chars: usize,
    pub guidance_chars: usize,
    pub complexity: f64,
    pub catalog_reliability: f64,
    pub tier: PerformanceTier,
    pub measured: Measured,
}

impl Facts {
    /// The facts of a catalog entry, with the usage statistics toolscout measured for it
    /// (when there are enough) in place of those it declares.
    pub fn from_record_measured(t: &ToolRecord, measured: Option<&serde_json::Value>) -> Facts {
        let mut facts = Facts::from_record(t);
        if let Some(stats) = measured {
            facts.measured = Measured {
                by_toolscout: true,
                ..Measured::from_stats(stats)
            };
        }
        facts
    }

    pub fn from_record(t: &ToolRecord) -> Facts {
        let params: Vec<_> = t.parameters.iter().filter(|p| !p.deprecated).collect();
        let mut capabilities: BTreeSet<String> =
            t.semantic_tags.iter().map(|s| s.to_lowercase()).collect();
        for k in &t.search_keywords {
            capabilities.extend(analyze(k));
        }
        Facts {
            capabilities,
            parameters: params.len(),
            required: params.iter().filter(|p| p.required).count(),
            documented_parameters: params
                .iter()
                .filter(|p| p.description.chars().count() >= DOC_PARAMETER_CHARS)
                .count(),
            examples: t.examples.len(),
            examples_with_output: t
                .examples
                .iter()
                .filter(|e| e.expected_output.as_deref().is_some_and(|o| !o.is_empty()))
                .count(),
            description_chars: t.description.chars().count(),
            guidance_chars: t.when_to_use.chars().count(),
            complexity: t.complexity_score,
            catalog_reliability: t.reliability_score,
            tier: t.performance_tier,
            measured: Measured::from_record(t),
        }
    }
}

/// What the compared set contributes to relative dimensions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SetStats {
    /// Distinct capabilities over all compared tools.
    pub capabilities: usize,
    /// Most parameters any compared tool has.
    pub max_parameters: usize,
}

impl SetStats {
    pub fn of(facts: &[Facts]) -> SetStats {
        let union: BTreeSet<&String> = facts.iter().flat_map(|f| &f.capabilities).collect();
        SetStats {
            capabilities: union.len(),
            max_parameters: facts.iter().map(|f| f.parameters).max().unwrap_or(0),
        }
    }
}

fn ratio(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        (part / whole).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Functionality: `0.6 x capabilities / capabilities_in_set + 0.4 x parameters /
/// max_parameters`. The first part is the share of all capabilities found across the
/// compared tools (tags and keyword terms) that this tool offers; the second, how many
/// options it exposes relative to the richest tool compared. Relative by design: the same
/// tool scores differently against different rivals.
pub(crate) fn functionality(
    capabilities: usize,
    capabilities_in_set: usize,
    parameters: usize,
    max_parameters: usize,
) -> f64 {
    0.6 * ratio(capabilities as f64, capabilities_in_set as f64)
        + 0.4 * ratio(parameters as f64, max_parameters as f64)
}

/// Usability: `0.4 x (1 - required / parameters) + 0.35 x (1 - complexity) + 0.25 x
/// min(examples, 3) / 3`. Few required arguments, a low catalog complexity and worked
/// examples make a tool easy to call correctly; a tool without parameters requires nothing.
pub(crate) fn usability(
    required: usize,
    parameters: usize,
    complexity: f64,
    examples: usize,
) -> f64 {
    let required_share = ratio(required as f64, parameters as f64);
    0.4 * (1.0 - required_share)
        + 0.35 * (1.0 - complexity.clamp(0.0, 1.0))
        + 0.25 * ratio(examples as f64, USABILITY_EXAMPLES)
}

/// The declared performance tier on 0..1: fast 1.0, balanced 0.6, comprehensive 0.3.
pub(crate) fn tier_score(tier: PerformanceTier) -> f64 {
    match tier {
        PerformanceTier::Fast => 1.0,
        PerformanceTier::Balanced => 0.6,
        PerformanceTier::Comprehensive => 0.3,
    }
}

/// Performance: the tier score (`tier_score`) alone while nothing is measured; with a
/// measured median latency `ms`, `0.4 x tier + 0.6 x 1 / (1 + ms / 500)`: measurements
/// outweigh the declaration, and a 500 ms median halves the latency part.
pub(crate) fn performance(tier: PerformanceTier, median_latency_ms: Option<f64>) -> f64 {
    let tier = tier_score(tier);
    match median_latency_ms {
        None => tier,
        Some(ms) => 0.4 * tier + 0.6 / (1.0 + ms.max(0.0) / LATENCY_HALF_MS),
    }
}

/// Reliability: the catalog's `reliability_score` while nothing is measured; with a measured
/// success rate over `n` uses, `(1 - w) x catalog + w x success_rate` where `w = n / (n +
/// 20)`: twenty uses weigh as much as the catalog estimate, and many uses dominate it.
pub(crate) fn reliability(catalog: f64, success_rate: Option<(f64, u64)>) -> f64 {
    match success_rate {
        None => catalog.clamp(0.0, 1.0),
        Some((rate, uses)) => {
            let n = uses as f64;
            let w = n / (n + RELIABILITY_PRIOR_USES);
            (1.0 - w) * catalog.clamp(0.0, 1.0) + w * rate.clamp(0.0, 1.0)
        }
    }
}

/// Complexity, scored so that LOWER complexity scores HIGHER (a gentler learning curve):
/// `0.75 x (1 - complexity_score) + 0.25 x (1 - parameters / max_parameters)`. The
/// catalog's complexity dominates; the parameters to learn, relative to the largest tool
/// compared, refine it (and make it pull against functionality, as it does in practice).
pub(crate) fn complexity(complexity_score: f64, parameters: usize, max_parameters: usize) -> f64 {
    0.75 * (1.0 - complexity_score.clamp(0.0, 1.0))
        + 0.25 * (1.0 - ratio(parameters as f64, max_parameters as f64))
}

/// Documentation: `0.2 x description + 0.2 x guidance + 0.3 x parameter_docs + 0.3 x
/// examples`, where description = min(chars / 300, 1), guidance = min(when_to_use chars /
/// 400, 1), parameter_docs = share of parameters described in 40+ characters (1 without
/// parameters), and examples = 0.5 x min(n / 4, 1) + 0.5 x (examples with expected output /
/// n) (0 without examples).
pub(crate) fn documentation(f: &Facts) -> f64 {
    let description = ratio(f.description_chars as f64, DOC_DESCRIPTION_CHARS);
    let guidance = ratio(f.guidance_chars as f64, DOC_GUIDANCE_CHARS);
    let parameter_docs = if f.parameters == 0 {
        1.0
    } else {
        ratio(f.documented_parameters as f64, f.parameters as f64)
    };
    let examples = if f.examples == 0 {
        0.0
    } else {
        0.5 * ratio(f.examples as f64, DOC_EXAMPLES)
            + 0.5 * ratio(f.examples_with_output as f64, f.examples as f64)
    };
    0.2 * description + 0.2 * guidance + 0.3 * parameter_docs + 0.3 * examples
}

pub(crate) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// One dimension's score (rounded to 4 places) with its evidence.
pub(crate) fn score(c: Criterion, f: &Facts, set: &SetStats) -> (f64, DimensionEvidence) {
    let (value, evidence) = match c {
        Criterion::Functionality => evidence::functionality(f, set),
        Criterion::Usability => evidence::usability(f),
        Criterion::Performance => evidence::performance(f),
        Criterion::Reliability => evidence::reliability(f),
        Criterion::Complexity => evidence::complexity(f, set),
        Criterion::Documentation => evidence::documentation(f),
    };
    (round4(value), evidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    fn facts() -> Facts {
        Facts {
            capabilities: ["local", "grep"].iter().map(|s| s.to_string()).collect(),
            parameters: 10,
            required: 2,
            documented_parameters: 5,
            examples: 2,
            examples_with_output: 1,
            description_chars: 150,
            guidance_chars: 400,
            complexity: 0.4,
            catalog_reliability: 0.9,
            tier: PerformanceTier::Balanced,
            measured: Measured::default(),
        }
    }

    #[test]
    fn functionality_is_capability_and_parameter_coverage_of_the_set() {
        close(functionality(10, 20, 5, 10), 0.6 * 0.5 + 0.4 * 0.5);
        close(functionality(20, 20, 10, 10), 1.0);
        close(functionality(0, 0, 0, 0), 0.0);
    }

    #[test]
    fn usability_rewards_few_required_low_complexity_and_examples() {
        close(
            usability(2, 10, 0.4, 2),
            0.4 * 0.8 + 0.35 * 0.6 + 0.25 * 2.0 / 3.0,
        );
        // No parameters: nothing is required. Examples saturate at three.
        close(usability(0, 0, 0.0, 7), 1.0);
        assert!(usability(5, 5, 0.4, 2) < usability(1, 5, 0.4, 2));
    }

    #[test]
    fn performance_is_the_tier_until_latency_is_measured() {
        close(performance(PerformanceTier::Fast, None), 1.0);
        close(performance(PerformanceTier::Balanced, None), 0.6);
        close(performance(PerformanceTier::Comprehensive, None), 0.3);
        close(
            performance(PerformanceTier::Fast, Some(500.0)),
            0.4 + 0.6 * 0.5,
        );
        // A slow measured tool falls below its declared tier.
        assert!(performance(PerformanceTier::Fast, Some(5000.0)) < 0.5);
    }

    #[test]
    fn reliability_blends_measured_success_by_sample_size() {
        close(reliability(0.9, None), 0.9);
        close(reliability(0.9, Some((0.5, 20))), 0.7);
        close(reliability(0.9, Some((0.5, 0))), 0.9);
        assert!(reliability(0.9, Some((0.5, 10_000))) < 0.51);
    }

    #[test]
    fn complexity_scores_simpler_tools_higher() {
        close(complexity(0.4, 5, 10), 0.75 * 0.6 + 0.25 * 0.5);
        close(complexity(0.0, 0, 0), 1.0);
        assert!(complexity(0.2, 5, 10) > complexity(0.8, 5, 10));
    }

    #[test]
    fn documentation_counts_description_guidance_parameters_and_examples() {
        let f = facts();
        close(
            documentation(&f),
            0.2 * 0.5 + 0.2 * 1.0 + 0.3 * 0.5 + 0.3 * (0.5 * 0.5 + 0.5 * 0.5),
        );
        let bare = Facts {
            examples: 0,
            examples_with_output: 0,
            parameters: 0,
            documented_parameters: 0,
            ..f
        };
        close(documentation(&bare), 0.2 * 0.5 + 0.2 + 0.3);
    }

    #[test]
    fn measured_stats_come_from_usage_stats() {
        let mut t = crate::engine::compare::tests::catalog()
            .get("ripgrep")
            .unwrap()
            .clone();
        assert_eq!(Measured::from_record(&t), Measured::default());
        t.usage_stats = Some(serde_json::json!({
            "total_uses": 40, "successful_uses": 38, "failed_uses": 2, "success_rate": 0.95,
            "average_execution_time": 90.0, "last_updated": "2026-01-01T00:00:00Z"
        }));
        let m = Measured::from_record(&t);
        assert_eq!(m.median_latency_ms, Some(90.0));
        assert_eq!(m.success_rate, Some((0.95, 40)));
        assert!(m.any());
    }

    #[test]
    fn every_score_is_in_range_with_evidence() {
        let f = facts();
        let set = SetStats {
            capabilities: 4,
            max_parameters: 20,
        };
        for c in Criterion::ALL {
            let (s, e) = score(c, &f, &set);
            assert!((0.0..=1.0).contains(&s), "{c}: {s}");
            assert!(!e.inputs.is_empty() && !e.explanation.is_empty());
        }
    }
}

//! The evidence behind each dimension score: the formula as text, its inputs by name, and
//! the inputs in words, for `comprehensive` comparisons.

use super::super::response::DimensionEvidence;
use super::{Facts, SetStats, DOC_PARAMETER_CHARS};
use std::collections::BTreeMap;

/// A score (before rounding) and its evidence.
pub(super) type Explained = (f64, DimensionEvidence);

/// `value` with its formula, its inputs by name, and the inputs in words.
fn evidence(
    value: f64,
    formula: &'static str,
    inputs: BTreeMap<&'static str, f64>,
    explanation: String,
) -> Explained {
    (
        value,
        DimensionEvidence {
            formula,
            inputs,
            explanation,
        },
    )
}

/// Functionality ([`super::functionality`]) with its evidence.
pub(super) fn functionality(f: &Facts, set: &SetStats) -> Explained {
    let inputs = BTreeMap::from([
        ("capabilities", f.capabilities.len() as f64),
        ("capabilities_in_set", set.capabilities as f64),
        ("parameters", f.parameters as f64),
        ("max_parameters", set.max_parameters as f64),
    ]);
    evidence(
        super::functionality(f.capabilities.len(), set.capabilities, f.parameters, set.max_parameters),
        "0.6 x capabilities / capabilities_in_set + 0.4 x parameters / max_parameters",
        inputs,
        format!(
            "offers {} of the {} capabilities (tags and keyword terms) found across the compared tools, and {} parameters (most among them: {})",
            f.capabilities.len(), set.capabilities, f.parameters, set.max_parameters
        ),
    )
}

/// Usability ([`super::usability`]) with its evidence.
pub(super) fn usability(f: &Facts) -> Explained {
    let inputs = BTreeMap::from([
        ("required", f.required as f64),
        ("parameters", f.parameters as f64),
        ("complexity_score", f.complexity),
        ("examples", f.examples as f64),
    ]);
    evidence(
        super::usability(f.required, f.parameters, f.complexity, f.examples),
        "0.4 x (1 - required / parameters) + 0.35 x (1 - complexity_score) + 0.25 x min(examples, 3) / 3",
        inputs,
        format!(
            "{} of {} parameters required, catalog complexity {:.2}, {} examples",
            f.required, f.parameters, f.complexity, f.examples
        ),
    )
}

/// Performance ([`super::performance`]) with its evidence.
pub(super) fn performance(f: &Facts) -> Explained {
    let mut inputs = BTreeMap::from([("tier_score", super::tier_score(f.tier))]);
    if let Some(ms) = f.measured.median_latency_ms {
        inputs.insert("median_latency_ms", ms);
    }
    let tier = serde_json::to_value(f.tier).ok();
    let tier = tier.as_ref().and_then(|v| v.as_str()).unwrap_or("unknown");
    evidence(
        super::performance(f.tier, f.measured.median_latency_ms),
        "tier_score (fast 1.0, balanced 0.6, comprehensive 0.3); with a measured median latency: 0.4 x tier_score + 0.6 / (1 + ms / 500)",
        inputs,
        match f.measured.median_latency_ms {
            Some(ms) => format!(
                "performance tier {tier}, median latency {ms:.0} ms {}",
                source(f)
            ),
            None => format!("performance tier {tier}; no latency measured yet"),
        },
    )
}

/// Where the measured figures come from, as the evidence says it.
fn source(f: &Facts) -> &'static str {
    if f.measured.by_toolscout {
        "measured by toolscout's own executions"
    } else {
        "declared in the catalog"
    }
}

/// Reliability ([`super::reliability`]) with its evidence.
pub(super) fn reliability(f: &Facts) -> Explained {
    let mut inputs = BTreeMap::from([("catalog_reliability", f.catalog_reliability)]);
    if let Some((rate, uses)) = f.measured.success_rate {
        inputs.insert("success_rate", rate);
        inputs.insert("uses", uses as f64);
    }
    evidence(
        super::reliability(f.catalog_reliability, f.measured.success_rate),
        "catalog_reliability; with a measured success rate over n uses: (1 - w) x catalog_reliability + w x success_rate, w = n / (n + 20)",
        inputs,
        match f.measured.success_rate {
            Some((rate, uses)) => format!(
                "catalog reliability {:.2}, success rate {rate:.2} over {uses} uses {}",
                f.catalog_reliability,
                source(f)
            ),
            None => format!(
                "catalog reliability {:.2}; no success rate measured yet",
                f.catalog_reliability
            ),
        },
    )
}

/// Complexity ([`super::complexity`]) with its evidence.
pub(super) fn complexity(f: &Facts, set: &SetStats) -> Explained {
    let inputs = BTreeMap::from([
        ("complexity_score", f.complexity),
        ("parameters", f.parameters as f64),
        ("max_parameters", set.max_parameters as f64),
    ]);
    evidence(
        super::complexity(f.complexity, f.parameters, set.max_parameters),
        "0.75 x (1 - complexity_score) + 0.25 x (1 - parameters / max_parameters); higher is simpler",
        inputs,
        format!(
            "catalog complexity {:.2} (lower is simpler) and {} parameters to learn (most among the compared tools: {})",
            f.complexity, f.parameters, set.max_parameters
        ),
    )
}

/// Documentation ([`super::documentation`]) with its evidence.
pub(super) fn documentation(f: &Facts) -> Explained {
    let inputs = BTreeMap::from([
        ("description_chars", f.description_chars as f64),
        ("when_to_use_chars", f.guidance_chars as f64),
        ("documented_parameters", f.documented_parameters as f64),
        ("parameters", f.parameters as f64),
        ("examples", f.examples as f64),
        ("examples_with_output", f.examples_with_output as f64),
    ]);
    evidence(
        super::documentation(f),
        "0.2 x min(description_chars / 300, 1) + 0.2 x min(when_to_use_chars / 400, 1) + 0.3 x documented_parameters / parameters + 0.3 x (0.5 x min(examples / 4, 1) + 0.5 x examples_with_output / examples)",
        inputs,
        format!(
            "description of {} characters, when_to_use of {}, {} of {} parameters described in {DOC_PARAMETER_CHARS}+ characters, {} examples ({} with expected output)",
            f.description_chars, f.guidance_chars, f.documented_parameters, f.parameters, f.examples, f.examples_with_output
        ),
    )
}

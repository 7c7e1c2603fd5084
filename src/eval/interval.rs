//! How far a set's lead over the naive baseline could move on other tools: a percentile
//! bootstrap over gold tools of hybrid's NDCG@5 minus the baseline's.
//!
//! The halves are split by gold tool, and a held-back catalog is other tools again, so the
//! unit that varies from one measurement to the next is a tool with all of its requests,
//! not a request: many requests of one tool rise or fall together (one near-twin ranked
//! above it moves them all). Each resample draws as many tools as the set has, with
//! replacement, and takes the mean difference over the requests of the tools drawn (a tool
//! drawn twice counts twice), so the interval is of the same per-request mean the table
//! reports. Pure and seeded: the same outcomes give the same interval.

use super::compare::by_gold_tool;
use super::Outcome;
use serde::Serialize;

/// Resamples drawn; the 5th and 95th percentiles of 2,000 means move by under 0.1 point
/// between seeds on the development sets.
const RESAMPLES: usize = 2000;
/// Share of the resampled leads left out below and above the interval (a 90% interval).
const TAIL: f64 = 0.05;
/// Seed of the resampling.
const SEED: u64 = 0xB007_5742_0014;

/// A two-sided interval of a lead, in NDCG@5 points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// The 90% interval of hybrid's lead over the baseline, by gold tool, from the two modes'
/// outcomes of the same queries, which both modes report in query order (a pair whose
/// query ids differ is left out). None without a paired query.
pub fn lead_interval(baseline: &[Outcome], hybrid: &[Outcome]) -> Option<Interval> {
    let differences = baseline
        .iter()
        .zip(hybrid)
        .filter(|(b, h)| b.qid == h.qid)
        .map(|(b, h)| (h.gold.as_str(), h.score - b.score));
    bootstrap(&by_gold_tool(differences), RESAMPLES, SEED)
}

/// Percentile interval of the per-request mean over units drawn with replacement.
fn bootstrap(units: &[(f64, usize)], resamples: usize, seed: u64) -> Option<Interval> {
    if units.is_empty() || resamples == 0 {
        return None;
    }
    let n = units.len() as u64;
    let mut state = seed;
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let (mut sum, mut count) = (0.0, 0usize);
            for _ in 0..units.len() {
                let (s, c) = units[(super::splitmix64(&mut state) % n) as usize];
                sum += s;
                count += c;
            }
            100.0 * sum / count.max(1) as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    Some(Interval {
        low: at(TAIL),
        high: at(1.0 - TAIL),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn outcome(qid: &str, gold: &str, score: f64) -> Outcome {
        Outcome {
            qid: qid.into(),
            score,
            top: Vec::new(),
            gold: gold.into(),
        }
    }

    /// Pairs (baseline, hybrid) for queries q0.. with the given gold tools and differences.
    fn runs(items: &[(&str, f64)]) -> (Vec<Outcome>, Vec<Outcome>) {
        let base = items
            .iter()
            .enumerate()
            .map(|(i, (g, _))| outcome(&format!("q{i}"), g, 0.5))
            .collect();
        let hybrid = items
            .iter()
            .enumerate()
            .map(|(i, (g, d))| outcome(&format!("q{i}"), g, 0.5 + d))
            .collect();
        (base, hybrid)
    }

    #[test]
    fn the_same_lead_everywhere_has_no_width() {
        let (b, h) = runs(&[("a", 0.1), ("b", 0.1), ("c", 0.1), ("c", 0.1)]);
        let i = lead_interval(&b, &h).unwrap();
        assert!(
            (i.low - 10.0).abs() < 1e-9 && (i.high - 10.0).abs() < 1e-9,
            "{i:?}"
        );
    }

    /// Ten requests of one tool are one draw: the interval spans the tools' leads, where ten
    /// tools of one request each with the same leads give a narrower one.
    #[test]
    fn a_tool_with_many_requests_counts_as_one_unit() {
        let mut clustered: Vec<(&str, f64)> = vec![("a", 0.3); 10];
        clustered.extend(vec![("b", -0.1); 10]);
        let names: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        let spread: Vec<(&str, f64)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), if i < 10 { 0.3 } else { -0.1 }))
            .collect();
        let (b, h) = runs(&clustered);
        let wide = lead_interval(&b, &h).unwrap();
        let (b, h) = runs(&spread);
        let narrow = lead_interval(&b, &h).unwrap();
        assert!(
            wide.high - wide.low > narrow.high - narrow.low,
            "{wide:?} {narrow:?}"
        );
        // Two tools: a resample holds a, b or both, so the interval reaches both leads.
        assert!(
            (wide.low + 10.0).abs() < 1e-9 && (wide.high - 30.0).abs() < 1e-9,
            "{wide:?}"
        );
    }

    #[test]
    fn unpaired_queries_are_left_out_and_nothing_paired_is_none() {
        let base = vec![outcome("q0", "a", 0.5)];
        let hybrid = vec![outcome("q0", "a", 0.7), outcome("q9", "b", 0.0)];
        let i = lead_interval(&base, &hybrid).unwrap();
        assert!(
            (i.low - 20.0).abs() < 1e-9 && (i.high - 20.0).abs() < 1e-9,
            "{i:?}"
        );
        assert_eq!(lead_interval(&base, &[outcome("q5", "a", 1.0)]), None);
        assert_eq!(lead_interval(&[], &[]), None);
    }

    #[test]
    fn the_same_outcomes_give_the_same_interval() {
        let (b, h) = runs(&[("a", 0.2), ("b", -0.1), ("c", 0.05), ("a", 0.0), ("d", 0.4)]);
        assert_eq!(lead_interval(&b, &h), lead_interval(&b, &h));
    }

    proptest! {
        /// The interval is ordered and lies within the least and the greatest tool's lead.
        #[test]
        fn the_interval_lies_within_the_tools_leads(
            items in proptest::collection::vec((0usize..6, -1.0f64..1.0), 1..40)
        ) {
            let names = ["a", "b", "c", "d", "e", "f"];
            let items: Vec<(&str, f64)> = items.iter().map(|&(g, d)| (names[g], d)).collect();
            let (b, h) = runs(&items);
            let i = lead_interval(&b, &h).unwrap();
            let mut per_tool: HashMap<&str, (f64, usize)> = HashMap::new();
            for (g, d) in &items {
                let e = per_tool.entry(g).or_default();
                e.0 += d;
                e.1 += 1;
            }
            let leads: Vec<f64> = per_tool.values().map(|(s, c)| 100.0 * s / *c as f64).collect();
            let lo = leads.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = leads.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            prop_assert!(i.low <= i.high);
            prop_assert!(i.low >= lo - 1e-9 && i.high <= hi + 1e-9, "{:?} {} {}", i, lo, hi);
        }
    }
}

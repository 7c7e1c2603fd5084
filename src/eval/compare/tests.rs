//! Tests of the per-query comparison: pairing, counts, the randomization test's p-values.

use super::*;
use proptest::prelude::*;

fn row(set: &str, measure: &str, qid: &str, score: f64) -> Row {
    Row {
        set: set.into(),
        half: "tune".into(),
        measure: measure.into(),
        outcome: Outcome {
            qid: qid.into(),
            score,
            top: vec!["a".into()],
            gold: String::new(),
        },
    }
}

fn rows(set: &str, measure: &str, scores: &[f64]) -> Vec<Row> {
    scores
        .iter()
        .enumerate()
        .map(|(i, s)| row(set, measure, &format!("q{i}"), *s))
        .collect()
}

#[test]
fn unchanged_runs_move_nothing() {
    let old = rows("bfcl", "hybrid", &[1.0, 0.5, 0.0, 0.63]);
    let c = compare(&old, &old).unwrap();
    assert_eq!(c.deltas.len(), 1);
    let d = &c.deltas[0];
    assert_eq!((d.queries, d.up, d.down), (4, 0, 0));
    assert_eq!(d.delta, 0.0);
    assert_eq!(d.p_value, 1.0);
    assert_eq!(d.verdict(), "");
    assert!(render(&c).contains("worse at p < 0.05: none"));
}

/// Forty queries up and none down is no chance; one up and one down of the same size is.
#[test]
fn a_consistent_gain_is_significant_and_a_swap_is_not() {
    let old = rows("agent", "hybrid", &[0.5; 60]);
    let mut better = old.clone();
    for r in better.iter_mut().take(40) {
        r.outcome.score = 1.0;
    }
    let c = compare(&old, &better).unwrap();
    let d = &c.deltas[0];
    assert_eq!((d.up, d.down), (40, 0));
    assert!((d.delta - 100.0 * 20.0 / 60.0).abs() < 1e-9, "{}", d.delta);
    assert!(d.p_value < 0.001, "{}", d.p_value);
    assert_eq!(d.verdict(), "better");
    let c = compare(&better, &old).unwrap();
    assert_eq!(c.deltas[0].verdict(), "worse");
    assert!(render(&c).contains("worse at p < 0.05: agent tune hybrid"));
    let mut swap = old.clone();
    swap[0].outcome.score = 1.0;
    swap[1].outcome.score = 0.0;
    let d = &compare(&old, &swap).unwrap().deltas[0];
    assert_eq!((d.up, d.down), (1, 1));
    assert!(d.p_value > 0.5, "{}", d.p_value);
}

/// The exact p-value of three equal gains is 2/8 (all three signs alike, either way).
#[test]
fn the_p_value_approaches_the_exact_one() {
    let p = p_value(&[0.1, 0.1, 0.1, 0.0, 0.0], SAMPLES, 7);
    assert!((p - 0.25).abs() < 0.02, "{p}");
    assert_eq!(p, p_value(&[0.1, 0.1, 0.1], SAMPLES, 7));
    assert_eq!(p_value(&[], SAMPLES, 7), 1.0);
}

/// Thirteen requests of one gold tool that move together are one unit of the test: as
/// likely under chance as any one request moving, while the same thirteen moves spread over
/// thirteen tools are no chance. An up and a down of one tool cancel.
#[test]
fn queries_of_one_gold_tool_move_as_one() {
    let with_gold = |scores: &[f64], gold: &dyn Fn(usize) -> String| -> Vec<Row> {
        let mut rows = rows("bfcl", "hybrid", scores);
        for (i, r) in rows.iter_mut().enumerate() {
            r.outcome.gold = gold(i);
        }
        rows
    };
    let old = [1.0; 20];
    let mut new = old;
    new[..13].fill(0.63);
    let one = |i: usize| {
        if i < 13 {
            "movies".to_string()
        } else {
            format!("t{i}")
        }
    };
    let d = &compare(&with_gold(&old, &one), &with_gold(&new, &one))
        .unwrap()
        .deltas[0];
    assert_eq!((d.down, d.tools), (13, 1));
    assert_eq!(d.p_value, 1.0);
    assert_eq!(d.verdict(), "");
    let own = |i: usize| format!("t{i}");
    let d = &compare(&with_gold(&old, &own), &with_gold(&new, &own))
        .unwrap()
        .deltas[0];
    assert_eq!((d.down, d.tools), (13, 13));
    assert!(d.p_value < 0.001, "{}", d.p_value);
    assert_eq!(d.verdict(), "worse");
    let mut swap = old;
    (swap[0], swap[1]) = (0.5, 1.5);
    let d = &compare(&with_gold(&old, &one), &with_gold(&swap, &one))
        .unwrap()
        .deltas[0];
    assert_eq!((d.up, d.down, d.tools), (1, 1, 0));
    assert_eq!(d.p_value, 1.0);
    // Files written before gold tools were kept: each query is its own unit, unless the
    // other run has the tools.
    let d = &compare(&rows("s", "hybrid", &old), &rows("s", "hybrid", &new))
        .unwrap()
        .deltas[0];
    assert_eq!(d.tools, 13);
    let d = &compare(&rows("bfcl", "hybrid", &old), &with_gold(&new, &one))
        .unwrap()
        .deltas[0];
    assert_eq!((d.tools, d.p_value), (1, 1.0));
}

#[test]
fn measures_keep_the_old_run_s_order_and_unpaired_rows_are_counted() {
    let mut old = rows("metatool", "hybrid", &[1.0, 0.0]);
    old.extend(rows("metatool", "multi_search", &[1.0]));
    old.extend(rows("bfcl", "hybrid", &[0.5]));
    let mut new = rows("bfcl", "hybrid", &[1.0]);
    new.extend(rows("metatool", "hybrid", &[1.0, 1.0, 0.0]));
    let c = compare(&old, &new).unwrap();
    let names: Vec<(&str, &str)> = c
        .deltas
        .iter()
        .map(|d| (d.set.as_str(), d.measure.as_str()))
        .collect();
    assert_eq!(names, [("metatool", "hybrid"), ("bfcl", "hybrid")]);
    assert_eq!((c.only_old, c.only_new), (1, 1));
    assert!(render(&c).contains("left out: 1 rows of the old run and 1 of the new one"));
    // Runs of other sets share nothing: an error that says what was expected.
    let e = compare(&rows("a", "hybrid", &[1.0]), &rows("b", "hybrid", &[1.0])).unwrap_err();
    assert!(e.to_string().contains("found no query in both"), "{e}");
}

/// A query set that repeats a qid: the n-th row pairs with the other run's n-th, and a
/// run with more repeats leaves the extra ones out.
#[test]
fn repeated_qids_pair_in_order() {
    let old = vec![row("s", "hybrid", "q", 0.0), row("s", "hybrid", "q", 1.0)];
    let new = vec![row("s", "hybrid", "q", 1.0)];
    let c = compare(&old, &new).unwrap();
    assert_eq!((c.deltas[0].queries, c.deltas[0].up), (1, 1));
    assert_eq!((c.only_old, c.only_new), (1, 0));
    let c = compare(&new, &old).unwrap();
    assert_eq!((c.only_old, c.only_new), (0, 1));
}

#[test]
fn rows_round_trip_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let written = rows("apibank", "multi_recommend", &[1.0, 0.0]);
    write_rows(&path, &written).unwrap();
    let read: Vec<Row> = super::super::read_jsonl(&path).unwrap();
    assert_eq!(read, written);
    let line = std::fs::read_to_string(&path).unwrap();
    assert!(line.starts_with("{\"set\":\"apibank\",\"half\":\"tune\",\"measure\":\"multi_recommend\",\"qid\":\"q0\",\"score\":1.0"), "{line}");
}

proptest! {
    /// Any two runs of the same queries: counts add up, the delta is the difference of the
    /// means, p is a probability, and swapping the runs flips the delta but not p.
    #[test]
    fn comparisons_are_consistent(pairs in prop::collection::vec((0u8..5, 0u8..5), 1..40)) {
        let old: Vec<f64> = pairs.iter().map(|p| f64::from(p.0) / 4.0).collect();
        let new: Vec<f64> = pairs.iter().map(|p| f64::from(p.1) / 4.0).collect();
        let (a, b) = (rows("s", "hybrid", &old), rows("s", "hybrid", &new));
        let d = compare(&a, &b).unwrap().deltas.remove(0);
        let r = compare(&b, &a).unwrap().deltas.remove(0);
        prop_assert!(d.up + d.down <= d.queries);
        prop_assert!((d.delta - (d.new - d.old)).abs() < 1e-9);
        prop_assert!(d.p_value > 0.0 && d.p_value <= 1.0);
        prop_assert!((d.delta + r.delta).abs() < 1e-9);
        prop_assert_eq!((d.up, d.down), (r.down, r.up));
        prop_assert_eq!(d.p_value, r.p_value);
    }
}

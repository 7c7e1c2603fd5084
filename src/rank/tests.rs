//! Property and example tests of the ranking functions.

use super::*;
use crate::rank::ConfidenceLevel;
use proptest::prelude::*;

fn ev(ordinal: u32, bm25: Option<f64>, cosine: Option<f64>) -> Evidence {
    Evidence {
        ordinal,
        bm25,
        cosine_summary: cosine,
        cosine_passage: cosine,
        ..Evidence::default()
    }
}

fn arb_evidence() -> impl Strategy<Value = Vec<Evidence>> {
    prop::collection::vec(
        (
            prop::option::of(0.0f64..40.0),
            prop::option::of(-1.0f64..1.0),
            prop::option::of(-1.0f64..1.0),
            prop::bool::weighted(0.05),
            prop::option::weighted(0.1, 1usize..=2),
        ),
        0..40,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (bm25, cosine, ctx, exact, edits))| Evidence {
                ordinal: i as u32,
                bm25,
                cosine_summary: cosine,
                cosine_passage: cosine.map(|c| (c * 0.7 + 0.1).min(1.0)),
                context_cosine: ctx,
                exact_match: exact,
                name_edits: edits,
                ..Evidence::default()
            })
            .collect()
    })
}

fn modes() -> impl Strategy<Value = SearchMode> {
    prop_oneof![
        Just(SearchMode::Keyword),
        Just(SearchMode::Semantic),
        Just(SearchMode::Hybrid)
    ]
}

proptest! {
    #[test]
    fn order_is_independent_of_input_order(mut e in arb_evidence(), mode in modes(), ctx: bool, seed: u64) {
        let a = rank(&e, mode, Weights::default(), ctx);
        // A deterministic shuffle from the seed.
        let n = e.len();
        for i in (1..n).rev() {
            let j = (seed.wrapping_mul(6364136223846793005).wrapping_add(i as u64) % (i as u64 + 1)) as usize;
            e.swap(i, j);
        }
        let b = rank(&e, mode, Weights::default(), ctx);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn scores_are_bounded_and_sorted(e in arb_evidence(), mode in modes(), ctx: bool) {
        let r = rank(&e, mode, Weights::default(), ctx);
        prop_assert_eq!(r.len(), e.len());
        for w in r.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            prop_assert!((0.0..=1.0).contains(&a.score));
            let ordered = (a.details.exact_match && !b.details.exact_match)
                || (a.details.exact_match == b.details.exact_match
                    && (a.score > b.score || (a.score == b.score && a.ordinal < b.ordinal)));
            prop_assert!(ordered, "{:?} before {:?}", a, b);
        }
    }

    #[test]
    fn more_evidence_never_lowers_a_score(bm25 in 0.0f64..30.0, cos in -1.0f64..1.0, extra in 0.0f64..5.0, mode in modes()) {
        let base = rank(&[ev(0, Some(bm25), Some(cos))], mode, Weights::default(), false)[0].score;
        let more_kw = rank(&[ev(0, Some(bm25 + extra), Some(cos))], mode, Weights::default(), false)[0].score;
        let more_sem = rank(&[ev(0, Some(bm25), Some((cos + extra / 5.0).min(1.0)))], mode, Weights::default(), false)[0].score;
        prop_assert!(more_kw >= base);
        prop_assert!(more_sem >= base);
    }
}

#[test]
fn modes_use_only_their_evidence() {
    let e = [ev(0, Some(20.0), None), ev(1, None, Some(0.7))];
    let kw = rank(&e, SearchMode::Keyword, Weights::default(), false);
    assert_eq!(kw[0].ordinal, 0);
    assert_eq!(kw[1].score, 0.0);
    let sem = rank(&e, SearchMode::Semantic, Weights::default(), false);
    assert_eq!(sem[0].ordinal, 1);
    assert_eq!(sem[1].score, 0.0);
}

#[test]
fn exact_match_comes_first_with_full_score() {
    let mut e = vec![ev(0, Some(30.0), Some(0.9)), ev(1, None, Some(0.2))];
    e[1].exact_match = true;
    let r = rank(&e, SearchMode::Hybrid, Weights::default(), false);
    assert_eq!(r[0].ordinal, 1);
    assert_eq!(r[0].score, 1.0);
    assert_eq!(confidence(&r[0], Some(r[1].score)), ConfidenceLevel::High);
}

proptest! {
    /// A typo of a tool's name lifts that tool to its floor, never lowers it, and never puts
    /// it above an exact name.
    #[test]
    fn a_near_name_lifts_a_tool_to_its_floor(bm25 in prop::option::of(0.0f64..40.0), cos in prop::option::of(-1.0f64..1.0), edits in 1usize..=2, mode in modes()) {
        let plain = ev(0, bm25, cos);
        let mut typo = plain.clone();
        typo.name_edits = Some(edits);
        let before = rank(std::slice::from_ref(&plain), mode, Weights::default(), false)[0].score;
        let after = rank(&[typo.clone()], mode, Weights::default(), false)[0].score;
        prop_assert_eq!(after, before.max(near_name_score(edits)));
        let mut exact = ev(1, None, None);
        exact.exact_match = true;
        let r = rank(&[typo, exact], mode, Weights::default(), false);
        prop_assert_eq!(r[0].ordinal, 1);
    }
}

#[test]
fn a_near_name_outranks_stronger_text_evidence_but_not_a_better_hit() {
    let mut typo = ev(0, None, Some(0.2));
    typo.name_edits = Some(2);
    let r = rank(
        &[ev(1, Some(20.0), Some(0.5)), typo.clone()],
        SearchMode::Hybrid,
        Weights::default(),
        false,
    );
    assert_eq!((r[0].ordinal, r[0].score), (0, near_name_score(2)));
    assert_eq!(r[0].details.name_edits, Some(2));
    let r = rank(
        &[ev(1, Some(40.0), Some(0.9)), typo],
        SearchMode::Hybrid,
        Weights::default(),
        false,
    );
    assert_eq!(
        r[0].ordinal, 1,
        "a near-paraphrase with strong terms still leads"
    );
    assert_eq!((near_name_score(1), near_name_score(2)), (0.9, 0.8));
}

#[test]
fn reasons_name_a_likely_typo() {
    let mut h = Ranked {
        ordinal: 0,
        score: 0.9,
        details: ScoreDetails::default(),
    };
    h.details.name_edits = Some(1);
    assert_eq!(
        match_reasons(&h, &[], false, &[])[0],
        "the query is 1 edit from this tool's id, name or alias (a likely typo)"
    );
}

proptest! {
    #[test]
    fn confidence_never_rises_down_the_list(e in arb_evidence(), mode in modes()) {
        let r = rank(&e, mode, Weights::default(), false);
        let hits: Vec<&Ranked> = r.iter().collect();
        let levels = confidences(&hits);
        prop_assert_eq!(levels.len(), hits.len());
        for w in levels.windows(2) {
            prop_assert!(w[0] >= w[1], "{:?}", levels);
        }
        if let Some(first) = levels.first() {
            prop_assert_eq!(*first, confidence(hits[0], hits.get(1).map(|h| h.score)));
        }
    }
}

#[test]
fn a_toss_up_at_the_top_is_not_high_further_down() {
    let hit = |ordinal: u32, score: f64| Ranked {
        ordinal,
        score,
        details: ScoreDetails::default(),
    };
    let (a, b, c) = (hit(0, 0.85), hit(1, 0.85), hit(2, 0.5));
    // Alone, the second hit's lead over the third would read as high.
    assert_eq!(confidence(&b, Some(c.score)), ConfidenceLevel::High);
    assert_eq!(
        confidences(&[&a, &b, &c]),
        [
            ConfidenceLevel::Medium,
            ConfidenceLevel::Medium,
            ConfidenceLevel::Medium
        ]
    );
}

#[test]
fn ties_break_by_ordinal() {
    let e = [
        ev(3, Some(5.0), Some(0.5)),
        ev(1, Some(5.0), Some(0.5)),
        ev(2, Some(5.0), Some(0.5)),
    ];
    let r = rank(&e, SearchMode::Hybrid, Weights::default(), false);
    let order: Vec<u32> = r.iter().map(|h| h.ordinal).collect();
    assert_eq!(order, [1, 2, 3]);
}

#[test]
fn cosine_blends_summary_and_best_passage() {
    assert_eq!(blend_cosine(None, None), None);
    assert_eq!(blend_cosine(Some(0.5), None), Some(0.5));
    let b = blend_cosine(Some(0.5), Some(0.8)).unwrap();
    assert!((b - (SUMMARY_SHARE * 0.5 + (1.0 - SUMMARY_SHARE) * 0.8)).abs() < 1e-12);
}

#[test]
fn score_parts_follow_their_documented_ramps() {
    assert_eq!(semantic_part(COS_FLOOR), 0.0);
    assert!((semantic_part((COS_FLOOR + COS_CEIL) / 2.0) - 0.5).abs() < 1e-12);
    // Past the knee the ramp bends: still rising, never reaching 1.
    let at = |r: f64| semantic_part(COS_FLOOR + r * (COS_CEIL - COS_FLOOR));
    assert!((at(SEMANTIC_KNEE) - SEMANTIC_KNEE).abs() < 1e-12);
    assert!(at(1.0) > at(0.9) && at(1.0) < 1.0);
    assert!(at(2.0) > at(1.0) && at(2.0) < 1.0);
    assert!((keyword_part(BM25_HALF) - 0.5).abs() < 1e-12);
    assert_eq!(keyword_part(0.0), 0.0);
    // Below the request's best BM25, keyword parts keep their proportions.
    assert_eq!(relative_keyword_part(24.0, 24.0), keyword_part(24.0));
    assert!((relative_keyword_part(12.0, 24.0) - keyword_part(24.0) / 2.0).abs() < 1e-12);
    assert_eq!(relative_keyword_part(5.0, 0.0), 0.0);
}

proptest! {
    #[test]
    fn the_semantic_ramp_never_falls(a in -1.0f64..1.0, b in -1.0f64..1.0) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        prop_assert!(semantic_part(lo) <= semantic_part(hi));
        prop_assert!((0.0..=1.0).contains(&semantic_part(hi)));
    }
}

#[test]
fn confidence_needs_score_and_margin() {
    let hit = |score: f64| Ranked {
        ordinal: 0,
        score,
        details: ScoreDetails::default(),
    };
    assert_eq!(confidence(&hit(0.8), Some(0.5)), ConfidenceLevel::High);
    assert_eq!(
        confidence(&hit(0.8), Some(0.79)),
        ConfidenceLevel::Medium,
        "a toss-up is not high"
    );
    assert_eq!(confidence(&hit(0.4), None), ConfidenceLevel::Medium);
    assert_eq!(confidence(&hit(0.1), None), ConfidenceLevel::Low);
}

#[test]
fn reasons_cite_terms_fields_and_similarity() {
    let mut h = Ranked {
        ordinal: 0,
        score: 0.7,
        details: ScoreDetails::default(),
    };
    h.details.cosine = Some(0.62);
    h.details.semantic = semantic_part(0.62);
    h.details.matched_passage = Some("summary");
    let matched = vec![
        ("names", "grep".into()),
        ("keywords", "grep".into()),
        ("description", "regex".into()),
    ];
    let r = match_reasons(&h, &matched, false, &[]);
    assert_eq!(r[0], "query term \"grep\" matched the names and keywords");
    assert_eq!(r[1], "query term \"regex\" matched the description");
    assert_eq!(
        r[2],
        "strong semantic similarity to the tool's summary (cosine 0.62)"
    );
}

// ---- runnable twins (`prefer_runnable`) -------------------------------------------------

fn hit(ordinal: u32, score: f64) -> Ranked {
    Ranked {
        ordinal,
        score,
        details: ScoreDetails {
            fused: score,
            ..ScoreDetails::default()
        },
    }
}

/// Tools `t0`, `t1`, ...: `runnable` lists the runnable ordinals, `similar` the (a, b) pairs
/// where a lists b as similar.
fn twins(n: usize, runnable: &[u32], similar: &[(u32, u32)]) -> Twins {
    let mut lists = vec![Vec::new(); n];
    for &(a, b) in similar {
        lists[a as usize].push(b);
    }
    Twins::new(
        (0..n).map(|i| format!("t{i}")).collect(),
        (0..n as u32).map(|i| runnable.contains(&i)).collect(),
        &lists,
    )
}

fn order(r: &[Ranked]) -> Vec<u32> {
    r.iter().map(|h| h.ordinal).collect()
}

#[test]
fn a_runnable_tool_passes_its_twin_within_the_margin_and_says_so() {
    // t1 (metadata-only) lists t2 (runnable) as similar; t0 leads clearly.
    let t = twins(3, &[2], &[(1, 2)]);
    let mut r = vec![hit(0, 0.9), hit(1, 0.72), hit(2, 0.70)];
    prefer_runnable(&mut r, &t);
    assert_eq!(order(&r), [0, 2, 1]);
    assert_eq!((r[1].score, r[1].details.fused), (0.72, 0.72));
    assert_eq!(r[1].details.runnable_over.as_deref(), Some("t1"));
    assert_eq!(
        (r[2].score, r[2].details.runnable_over.clone()),
        (0.72, None)
    );
    assert_eq!(
        match_reasons(&r[1], &[], false, &[]).last().unwrap(),
        "runnable here: ranked above its metadata-only twin t1, whose evidence is within 0.03"
    );
    // The same when the runnable tool is the one listing the other.
    let mut r = vec![hit(0, 0.9), hit(1, 0.72), hit(2, 0.70)];
    prefer_runnable(&mut r, &twins(3, &[2], &[(2, 1)]));
    assert_eq!(order(&r), [0, 2, 1]);
}

#[test]
fn what_is_not_a_lift_stays_put() {
    let t = twins(4, &[3], &[(1, 3), (2, 3)]);
    // A lead beyond the margin is a real difference.
    let mut r = vec![hit(1, 0.75), hit(3, 0.70)];
    prefer_runnable(&mut r, &t);
    assert_eq!(order(&r), [1, 3]);
    // A tool that is not a twin in between: passing it would reorder two non-twins.
    let mut r = vec![hit(1, 0.72), hit(0, 0.71), hit(3, 0.70)];
    prefer_runnable(&mut r, &t);
    assert_eq!(order(&r), [1, 0, 3]);
    // An exact name keeps its place, even as a twin.
    let mut r = vec![hit(1, 1.0), hit(3, 0.99)];
    r[0].details.exact_match = true;
    prefer_runnable(&mut r, &t);
    assert_eq!(order(&r), [1, 3]);
    // Two runnable tools, or two metadata-only ones, are never twins.
    let same = twins(2, &[0, 1], &[(0, 1)]);
    let mut r = vec![hit(0, 0.72), hit(1, 0.71)];
    prefer_runnable(&mut r, &same);
    assert_eq!(order(&r), [0, 1]);
    assert!(same.is_empty());
}

#[test]
fn a_runnable_tool_passes_every_adjacent_twin_and_takes_the_highest_score() {
    // t0 and t1 both metadata-only twins of t2; t3 a second runnable twin of t1.
    let t = twins(4, &[2, 3], &[(0, 2), (1, 2), (1, 3)]);
    let mut r = vec![hit(0, 0.72), hit(1, 0.71), hit(2, 0.70), hit(3, 0.69)];
    prefer_runnable(&mut r, &t);
    // t2 passes t1 and t0 and takes 0.72; t3 then passes t1 (its twin) but not t0 (not its
    // twin), and takes t1's 0.71.
    assert_eq!(order(&r), [2, 0, 3, 1]);
    let scores: Vec<f64> = r.iter().map(|h| h.score).collect();
    assert_eq!(scores, [0.72, 0.72, 0.71, 0.71]);
    assert_eq!(r[0].details.runnable_over.as_deref(), Some("t0"));
    assert_eq!(r[2].details.runnable_over.as_deref(), Some("t1"));
}

/// Evidence with random runnable flags and `similar_tools` pairs, for the properties below.
fn arb_twins() -> impl Strategy<Value = (Vec<Evidence>, Twins)> {
    arb_evidence().prop_flat_map(|e| {
        let n = e.len().max(1);
        (
            Just(e),
            prop::collection::vec(prop::bool::weighted(0.5), n),
            prop::collection::vec((0..n as u32, 0..n as u32), 0..n * 4),
        )
            .prop_map(|(e, runnable, pairs)| {
                let mut lists = vec![Vec::new(); runnable.len()];
                for (a, b) in pairs {
                    if a != b {
                        lists[a as usize].push(b);
                    }
                }
                let ids = (0..runnable.len()).map(|i| format!("t{i}")).collect();
                (e, Twins::new(ids, runnable, &lists))
            })
    })
}

proptest! {
    #[test]
    fn prefer_runnable_properties((e, t) in arb_twins(), mode in modes(), ctx: bool) {
        let before = rank(&e, mode, Weights::default(), ctx);
        let mut after = before.clone();
        prefer_runnable(&mut after, &t);
        // Deterministic: the same input gives the same output.
        let mut again = before.clone();
        prefer_runnable(&mut again, &t);
        prop_assert_eq!(&after, &again);
        prop_assert_eq!(after.len(), before.len());
        let pos = |list: &[Ranked], o: u32| list.iter().position(|h| h.ordinal == o).unwrap();
        for (i, h) in after.iter().enumerate() {
            // Never above an exact match: exact matches keep their places at the top.
            if h.details.exact_match {
                prop_assert_eq!(pos(&before, h.ordinal), i);
            }
            if let Some(next) = after.get(i + 1) {
                prop_assert!(h.details.exact_match || !next.details.exact_match);
                // Scores stay non-increasing down the list.
                prop_assert!(h.score >= next.score, "{:?} before {:?}", h, next);
            }
            // Only a lifted tool's score changes, to a twin's, within the margin.
            let old = &before[pos(&before, h.ordinal)];
            match &h.details.runnable_over {
                None => prop_assert_eq!(h, old),
                Some(id) => {
                    let twin: u32 = id[1..].parse().unwrap();
                    prop_assert!(t.is_runnable(h.ordinal) && t.are_twins(h.ordinal, twin));
                    prop_assert_eq!(h.score, before[pos(&before, twin)].score);
                    prop_assert!(h.score - old.score <= TWIN_MARGIN);
                    prop_assert!(pos(&after, h.ordinal) < pos(&after, twin));
                }
            }
        }
        // Only twins move: any two tools whose order changed are twins.
        for a in 0..before.len() {
            for b in a + 1..before.len() {
                let (x, y) = (before[a].ordinal, before[b].ordinal);
                if pos(&after, x) > pos(&after, y) {
                    prop_assert!(t.are_twins(x, y), "{} and {} swapped", x, y);
                }
            }
        }
    }

    #[test]
    fn prefer_runnable_is_independent_of_input_order((mut e, t) in arb_twins(), mode in modes(), seed: u64) {
        let mut a = rank(&e, mode, Weights::default(), false);
        prefer_runnable(&mut a, &t);
        let n = e.len();
        for i in (1..n).rev() {
            let j = (seed.wrapping_mul(6364136223846793005).wrapping_add(i as u64) % (i as u64 + 1)) as usize;
            e.swap(i, j);
        }
        let mut b = rank(&e, mode, Weights::default(), false);
        prefer_runnable(&mut b, &t);
        prop_assert_eq!(a, b);
    }
}

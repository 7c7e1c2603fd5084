//! Tests of learning from feedback on a real engine over the shipped catalog (keyword-only:
//! without a model a past request counts for a new one of the same text). The real model's
//! neighbours are tested through `eval --feedback` and the server (tests/it/learning.rs).

use super::*;
use crate::config::SearchConfig;
use crate::engine::{SearchRequest, SearchResponse, Valid};

const QUERY: &str = "find files by name pattern";

fn engine(learning_weight: f64) -> Engine {
    let catalog = crate::engine::compare::tests::engine_for_tests()
        .snapshot()
        .catalog
        .clone();
    let config = SearchConfig {
        learning_weight,
        ..SearchConfig::default()
    };
    Engine::build(catalog, Err("no model in unit tests".into()), config).unwrap()
}

fn search(engine: &Engine, query: &str) -> SearchResponse {
    let mut req = SearchRequest::new(query.to_string());
    req.max_results = 20;
    engine.search(&Valid::from_benchmark(req)).unwrap()
}

fn ids(r: &SearchResponse) -> Vec<String> {
    r.results.iter().map(|h| h.tool_id.clone()).collect()
}

fn helped(query: &str, tool: &str, times: usize) -> Vec<PastFeedback> {
    vec![
        PastFeedback {
            query: query.into(),
            tool_id: tool.into(),
            verdict: Verdict::Helped,
        };
        times
    ]
}

#[test]
fn feedback_lifts_the_tool_that_helped_and_says_so() {
    let engine = engine(0.2);
    let before = search(&engine, QUERY);
    // The lowest hit within reach of the top: trailing it by less than the prior.
    let (rank, target) = before
        .results
        .iter()
        .enumerate()
        .rev()
        .find(|(_, h)| h.similarity_score > before.results[0].similarity_score - 0.12)
        .map(|(i, h)| (i, h.tool_id.clone()))
        .unwrap();
    assert!(rank > 0, "{:?}", ids(&before));
    let report = engine.learn(&helped(QUERY, &target, 3)).unwrap();
    assert_eq!(
        (report.requests, report.signals, report.changed),
        (1, 3, true)
    );
    // The cached answer is of an older generation: not served.
    let after = search(&engine, QUERY);
    assert_eq!(after.results[0].tool_id, target, "{:?}", ids(&after));
    let top = &after.results[0];
    let learned = top.score_details.learned.as_ref().expect("learned details");
    assert_eq!(learned.chosen_by, 1);
    assert!(learned.prior > 0.1, "{learned:?}");
    assert!(top
        .match_reasons
        .contains(&"chosen by 1 similar request".to_string()));
    // Other requests are untouched.
    let other = "compare two json documents";
    let fresh = engine_without_learning();
    assert_eq!(ids(&search(&engine, other)), ids(&search(&fresh, other)));
}

fn engine_without_learning() -> Engine {
    engine(0.0)
}

#[test]
fn not_helpful_pushes_a_tool_down() {
    let engine = engine(0.2);
    let before = search(&engine, QUERY);
    let top = before.results[0].tool_id.clone();
    let rejected = vec![
        PastFeedback {
            query: QUERY.into(),
            tool_id: top.clone(),
            verdict: Verdict::NotHelped,
        };
        2
    ];
    engine.learn(&rejected).unwrap();
    let after = search(&engine, QUERY);
    let hit = after.results.iter().find(|h| h.tool_id == top);
    if let Some(hit) = hit {
        assert!(hit.similarity_score < before.results[0].similarity_score - 0.1);
        assert!(hit
            .match_reasons
            .contains(&"judged not helpful by 1 similar request".to_string()));
    }
    assert_ne!(after.results[0].tool_id, top);
}

#[test]
fn weight_zero_turns_learning_off() {
    let engine = engine_without_learning();
    let before = search(&engine, QUERY);
    let last = before.results.last().unwrap().tool_id.clone();
    engine.learn(&helped(QUERY, &last, 5)).unwrap();
    let after = search(&engine, QUERY);
    assert_eq!(ids(&after), ids(&before));
    assert!(after
        .results
        .iter()
        .all(|h| h.score_details.learned.is_none()));
}

#[test]
fn an_exact_name_stays_on_top_whatever_the_feedback() {
    let engine = engine(1.0);
    let named = engine.catalog().tools()[0].tool_id.clone();
    let other = engine.catalog().tools()[1].tool_id.clone();
    let mut feedback = helped(&named, &other, 10);
    feedback.extend(vec![
        PastFeedback {
            query: named.clone(),
            tool_id: named.clone(),
            verdict: Verdict::NotHelped,
        };
        10
    ]);
    engine.learn(&feedback).unwrap();
    let after = search(&engine, &named);
    assert_eq!(after.results[0].tool_id, named);
    assert!(after.results[0].score_details.exact_match);
}

#[test]
fn unknown_tools_are_skipped_and_the_same_feedback_is_not_relearned() {
    let engine = engine(0.2);
    let known = engine.catalog().tools()[0].tool_id.clone();
    let mut feedback = helped(QUERY, &known, 1);
    feedback.extend(helped(QUERY, "no-such-tool", 2));
    let first = engine.learn(&feedback).unwrap();
    assert_eq!((first.signals, first.unknown_tools), (1, 2));
    let generation = engine.learning_generation();
    let again = engine.learn(&feedback).unwrap();
    assert!(!again.changed);
    assert_eq!(engine.learning_generation(), generation);
}

#[test]
fn learning_nothing_keeps_what_was_cached() {
    // The service learns once at start; with no feedback yet, answers cached before that
    // pass must still be served after it.
    let engine = engine(0.2);
    search(&engine, QUERY);
    let report = engine.learn(&[]).unwrap();
    assert!(!report.changed);
    assert_eq!(engine.learning_generation(), 0);
    assert!(search(&engine, QUERY).metadata.cache_hit);
}

#[test]
fn the_index_keeps_the_newest_requests_within_its_bound() {
    let engine = engine(0.2);
    let tool = engine.catalog().tools()[0].tool_id.clone();
    let feedback: Vec<PastFeedback> = (0..MAX_REQUESTS + 50)
        .map(|i| PastFeedback {
            query: format!("request number {i}"),
            tool_id: tool.clone(),
            verdict: Verdict::Helped,
        })
        .collect();
    let report = engine.learn(&feedback).unwrap();
    assert_eq!(report.requests, MAX_REQUESTS);
    let index = engine.feedback_index();
    assert!(index.by_text.contains_key("request number 0"));
    assert!(!index
        .by_text
        .contains_key(&format!("request number {}", MAX_REQUESTS + 1)));
}

#[test]
fn a_tool_retrieval_missed_becomes_a_candidate_on_large_catalogs() {
    let catalog = engine(0.0).snapshot().catalog.clone();
    let config = SearchConfig {
        learning_weight: 1.0,
        // Every catalog is "large": each index proposes its top k only.
        exhaustive_limit: 1,
        ..SearchConfig::default()
    };
    let engine = Engine::build(catalog, Err("no model in unit tests".into()), config).unwrap();
    let before = search(&engine, QUERY);
    let missed = engine
        .catalog()
        .tools()
        .iter()
        .map(|t| t.tool_id.clone())
        .find(|id| !ids(&before).contains(id))
        .unwrap();
    engine.learn(&helped(QUERY, &missed, 1)).unwrap();
    let after = search(&engine, QUERY);
    let hit = after.results.iter().find(|h| h.tool_id == missed);
    let hit = hit.unwrap_or_else(|| panic!("{missed} not in {:?}", ids(&after)));
    assert!(hit.score_details.learned.as_ref().unwrap().prior > 0.5);
}

#[test]
fn a_reloaded_engine_learns_what_the_one_it_replaces_knew() {
    let old = engine(0.2);
    let before = search(&old, QUERY);
    let target = before.results.last().unwrap().tool_id.clone();
    let feedback = helped(QUERY, &target, 2);
    old.learn(&feedback).unwrap();
    let new = engine(0.2);
    let report = new.learn_after(&feedback, &old).unwrap();
    assert!(report.changed, "a new engine must build its own index");
    assert_eq!(ids(&search(&new, QUERY)), ids(&search(&old, QUERY)));
}

#[test]
fn a_tool_that_fails_here_loses_score_and_says_so() {
    let engine = engine(0.25);
    let before = search(&engine, QUERY);
    let top = before.results[0].clone();
    let failing = crate::engine::MeasuredUse {
        total_uses: 40,
        successful_uses: 4,
        failed_uses: 36,
        success_rate: 0.1,
        average_execution_time: 20.0,
        last_updated: "2026-11-26T12:00:00.000Z".into(),
        weighed: true,
    };
    engine.set_measured(std::collections::BTreeMap::from([(
        top.tool_id.clone(),
        failing,
    )]));
    // The answer cached before is of an older generation: not served.
    let after = search(&engine, QUERY);
    let hit = after
        .results
        .iter()
        .find(|h| h.tool_id == top.tool_id)
        .unwrap();
    let learned = hit.score_details.learned.as_ref().unwrap();
    assert_eq!(learned.success_rate, Some(0.1));
    assert!(
        (learned.prior + 0.25 * 0.5 * 0.9).abs() < 1e-3,
        "{learned:?}"
    );
    assert!(hit.similarity_score < top.similarity_score - 0.1);
    assert!(hit
        .match_reasons
        .contains(&"failed in 90% of its runs here".to_string()));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Feedback is caller text: any Unicode in queries and tool ids is learned from or
    /// skipped, never a panic, and a search of the same text still answers.
    #[test]
    fn any_text_in_feedback_is_learned_or_skipped(
        rows in proptest::collection::vec(
            (proptest::prelude::any::<String>(), 0usize..4, proptest::prelude::any::<bool>()),
            0..12,
        ),
    ) {
        let engine = shared_engine();
        let tools = engine.catalog().tools();
        let feedback: Vec<PastFeedback> = rows
            .iter()
            .map(|(query, tool, helped)| PastFeedback {
                query: query.clone(),
                tool_id: tools.get(*tool).map_or("unknown tool".into(), |t| t.tool_id.clone()),
                verdict: if *helped { Verdict::Helped } else { Verdict::NotHelped },
            })
            .collect();
        let report = engine.learn(&feedback).unwrap();
        proptest::prop_assert!(report.requests <= feedback.len());
        if let Some((query, _, _)) = rows.first().filter(|(q, _, _)| !q.trim().is_empty()) {
            let mut req = SearchRequest::new(query.clone());
            req.max_results = 5;
            proptest::prop_assert!(engine.search_fresh(&Valid::from_benchmark(req)).is_ok());
        }
    }
}

/// One engine for the property test's cases (building one per case would dominate).
fn shared_engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(|| engine(0.25))
}

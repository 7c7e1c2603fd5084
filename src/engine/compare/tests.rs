//! Unit tests of comparison over the shipped catalog, with a keyword-only engine; `catalog`
//! and `engine_for_tests` serve other modules' tests too.

use super::*;
use crate::catalog::Catalog;
use crate::config::SearchConfig;
use serde_json::json;
use std::sync::{Arc, OnceLock};

/// The shipped catalog, loaded once for the unit tests of this module.
pub(crate) fn catalog() -> Arc<Catalog> {
    static C: OnceLock<Arc<Catalog>> = OnceLock::new();
    C.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
        Arc::new(Catalog::load(&dir).expect("shipped catalog loads").0)
    })
    .clone()
}

/// A keyword-only engine of its own over the shipped catalog, for tests that change it.
pub(crate) fn engine_for_tests() -> Engine {
    Engine::build(
        catalog(),
        Err("no model in unit tests".into()),
        SearchConfig::default(),
    )
    .unwrap()
}

/// A keyword-only engine over the shipped catalog (no model in unit tests).
fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        Engine::build(
            catalog(),
            Err("no model in unit tests".into()),
            SearchConfig::default(),
        )
        .unwrap()
    })
}

fn compare(body: serde_json::Value) -> ComparisonResponse {
    let req = Valid::parse(&body, engine().catalog()).unwrap();
    engine().compare(&req).unwrap()
}

#[test]
fn figures_measured_by_toolscout_move_reliability_and_say_so() {
    let body = json!({"tool_ids": ["ripgrep", "git_grep"], "detail_level": "comprehensive"});
    let req = Valid::parse(&body, engine().catalog()).unwrap();
    let failing = json!({"total_uses": 60, "successful_uses": 6, "failed_uses": 54,
        "success_rate": 0.1, "median_execution_time": 4000.0});
    let measured = BTreeMap::from([("ripgrep".to_string(), failing)]);
    let plain = engine().compare(&req).unwrap();
    let with = engine().compare_measured(&req, &measured).unwrap();
    let ripgrep = |r: &ComparisonResponse| {
        r.comparison
            .tools
            .iter()
            .find(|t| t.tool_id == "ripgrep")
            .cloned()
            .unwrap()
    };
    let (before, after) = (ripgrep(&plain), ripgrep(&with));
    let score =
        |t: &ToolComparisonResult, c: Option<f64>| c.unwrap_or_else(|| panic!("{}", t.tool_id));
    assert!(
        score(&after, after.dimension_scores.reliability)
            < score(&before, before.dimension_scores.reliability) - 0.2
    );
    assert!(
        score(&after, after.dimension_scores.performance)
            < score(&before, before.dimension_scores.performance)
    );
    let evidence = after.score_evidence.as_ref().unwrap();
    let reliability = &evidence[&Criterion::Reliability].explanation;
    assert!(
        reliability.contains("over 60 uses measured by toolscout's own executions"),
        "{reliability}"
    );
    assert_eq!(with.metadata.measured_tools, vec!["ripgrep".to_string()]);
}

#[test]
fn ranking_is_deterministic_and_complete() {
    let body = json!({"tool_ids": ["ripgrep", "git_grep", "local_search_code", "ast_grep"]});
    let a = compare(body.clone());
    let b = compare(body);
    let ids = |r: &ComparisonResponse| -> Vec<String> {
        r.comparison
            .tools
            .iter()
            .map(|t| t.tool_id.clone())
            .collect()
    };
    assert_eq!(ids(&a), ids(&b));
    let ranks: Vec<usize> = a
        .comparison
        .tools
        .iter()
        .map(|t| t.relative_ranking)
        .collect();
    assert_eq!(ranks, [1, 2, 3, 4]);
    for w in a.comparison.tools.windows(2) {
        assert!(
            w[0].ranking_score > w[1].ranking_score
                || (w[0].ranking_score == w[1].ranking_score && w[0].tool_id < w[1].tool_id)
        );
    }
    assert_eq!(
        a.comparison.summary.recommended_choice,
        a.comparison.tools[0].tool_id
    );
}

#[test]
fn detail_levels_change_what_is_returned() {
    let ids = json!(["local_search_code", "github_search_code"]);
    let basic = compare(json!({"tool_ids": ids, "detail_level": "basic"}));
    let t = &basic.comparison.tools[0];
    assert!(t.strengths.is_none() && t.score_evidence.is_none());
    assert!(basic.comparison.summary.decision_factors.is_none());
    assert!(basic.comparison.comparison_matrix.is_none());
    let standard = compare(json!({"tool_ids": ids}));
    let t = &standard.comparison.tools[0];
    assert!(t.strengths.is_some() && t.avoid_when.is_some() && t.score_evidence.is_none());
    assert!(standard
        .comparison
        .summary
        .use_case_recommendations
        .is_some());
    assert!(standard.comparison.summary.trade_offs.is_none());
    let full = compare(json!({"tool_ids": ids, "detail_level": "comprehensive"}));
    assert!(full.comparison.tools[0].score_evidence.is_some());
    assert!(full.comparison.summary.trade_offs.is_some());
    let matrix = full.comparison.comparison_matrix.unwrap();
    assert_eq!(matrix.len(), 6);
    let quiet = compare(
        json!({"tool_ids": ids, "detail_level": "comprehensive", "include_decision_guidance": false}),
    );
    assert!(quiet.comparison.summary.trade_offs.is_none());
    assert!(quiet.comparison.summary.decision_factors.is_none());
}

#[test]
fn criteria_subset_is_respected() {
    let r = compare(json!({
        "tool_ids": ["ripgrep", "git_grep"],
        "comparison_criteria": ["performance", "reliability"],
        "detail_level": "comprehensive"
    }));
    assert_eq!(
        r.comparison.criteria_used,
        [Criterion::Performance, Criterion::Reliability]
    );
    for t in &r.comparison.tools {
        let s = &t.dimension_scores;
        assert!(s.performance.is_some() && s.reliability.is_some());
        assert!(s.functionality.is_none() && s.documentation.is_none());
        let mean = (s.performance.unwrap() + s.reliability.unwrap()) / 2.0;
        assert!((t.overall_score - mean).abs() < 1e-4);
    }
}

#[test]
fn context_flips_the_choice_in_keyword_mode() {
    let pick = |ctx: &str| {
        compare(json!({
            "tool_ids": ["local_search_code", "github_search_code"],
            "comparison_context": ctx
        }))
        .comparison
        .summary
        .recommended_choice
    };
    assert_eq!(pick("searching my local checkout"), "local_search_code");
    assert_eq!(
        pick("exploring an unfamiliar GitHub project"),
        "github_search_code"
    );
}

#[test]
fn code_built_requests_are_checked() {
    let check = |ids: &[&str], catalog: &Catalog| {
        Valid::check(ComparisonRequest::new(ids.iter().copied()), catalog)
    };
    let e = engine();
    let unknown = check(&["ripgrep", "nope"], e.catalog());
    assert!(matches!(unknown, Err(Error::Validation { .. })));
    let alone = check(&["ripgrep"], e.catalog());
    assert!(matches!(alone, Err(Error::Validation { .. })));
    // Valid against another catalog is not enough: the engine finds each tool in its own.
    let mut tools = e.catalog().tools()[..2].to_vec();
    tools[1].tool_id = "elsewhere".into();
    let id = tools[0].tool_id.clone();
    let other = Catalog::from_tools("other".into(), tools);
    let req = check(&[id.as_str(), "elsewhere"], &other).unwrap();
    assert!(matches!(e.compare(&req), Err(Error::ToolNotFound { .. })));
}

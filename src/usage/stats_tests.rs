//! Tests of the statistics on a hand-built history: figures worked out by hand, implicit
//! selection, the overview and the feedback events.

use super::stats::{median, percentile};
use super::tests::{execution, WAIT};
use super::*;
use serde_json::{json, Value};

const MINUTE: i64 = 60_000;
/// November 2023: the history's times are fixed, so the figures are.
const T0: i64 = 1_700_000_000_000;

/// A store that keeps the fixed history however old it gets.
fn options(dir: &Path) -> Options {
    Options {
        retention_days: 36_500,
        ..super::tests::options(dir)
    }
}

fn in_session(mut e: Execution, session: &str) -> Execution {
    e.session_id = Some(session.into());
    e
}

/// Ten executions of `local_search_code`, 10 to 100 ms, the last two failing; sessions s1
/// and s2 also run `local_fetch_content`, s1 `github_search_code`, s3 nothing else.
fn history(store: &dyn UsageStore) {
    for i in 0..10i64 {
        let mut e = execution("local_search_code", T0 + i * MINUTE);
        e.latency_ms = (10 * (i + 1)) as f64;
        e.parameters = vec!["pattern".into(), "path".into()];
        if i % 2 == 0 {
            e.parameters.push("limit".into());
        }
        e.outcome = match i {
            8 => OutcomeKind::Error,
            9 => OutcomeKind::Timeout,
            3 => OutcomeKind::Empty,
            _ => OutcomeKind::Ok,
        };
        if i == 8 {
            e.error_code = Some("pathValidationFailed".into());
        }
        store.record_execution(in_session(e, ["s1", "s2", "s3"][i as usize % 3]));
    }
    for (tool, session) in [
        ("local_fetch_content", "s1"),
        ("local_fetch_content", "s1"),
        ("local_fetch_content", "s2"),
        ("github_search_code", "s1"),
    ] {
        store.record_execution(in_session(execution(tool, T0 + 20 * MINUTE), session));
    }
}

#[test]
fn figures_of_a_hand_built_history() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    history(store.as_ref());
    assert!(store.flush(WAIT));
    let s = store.stats_for("local_search_code").unwrap();
    assert_eq!((s.total_uses, s.successful_uses, s.failed_uses), (10, 8, 2));
    assert_eq!(s.success_rate, 0.8);
    assert_eq!(s.average_execution_time, 55.0);
    assert_eq!(s.median_execution_time, 55.0);
    assert_eq!(s.p95_execution_time, 100.0);
    let params: Vec<(&str, u64)> = s
        .common_parameters
        .iter()
        .map(|p| (p.parameter_name.as_str(), p.usage_frequency))
        .collect();
    assert_eq!(params, [("path", 10), ("pattern", 10), ("limit", 5)]);
    let errors: Vec<(&str, u64)> = s
        .error_patterns
        .iter()
        .map(|e| (e.error_type.as_str(), e.frequency))
        .collect();
    assert_eq!(errors, [("pathValidationFailed", 1), ("timeout", 1)]);
    assert_eq!(
        s.often_used_with,
        ["local_fetch_content", "github_search_code"]
    );
    assert_eq!(s.last_updated, record::rfc3339(T0 + 9 * MINUTE));
    assert!((s.data_quality_score - 10.0 / 30.0).abs() < 1e-12);
    assert!(store.stats_for("never_run").is_none());
    // 10 uses are fewer than min_calls (20): not yet measured figures.
    assert!(store.measured_stats("local_search_code").is_none());
}

#[test]
fn statistics_are_valid_against_the_tool_schema() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    history(store.as_ref());
    assert!(store.flush(WAIT));
    let tool: Value = serde_json::from_str(crate::schema::TOOL_SCHEMA).unwrap();
    let schema = json!({
        "$schema": tool["$schema"],
        "$defs": tool["$defs"],
        "$ref": "#/$defs/UsageStatistics",
    });
    let schema = crate::schema::Schema::compile(&schema).unwrap();
    for id in ["local_search_code", "github_search_code"] {
        let stats = serde_json::to_value(store.stats_for(id).unwrap()).unwrap();
        assert_eq!(schema.violations(&stats), [], "{stats:#}");
    }
}

#[test]
fn measured_figures_wait_for_min_calls() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&Options {
        min_calls: 10,
        ..options(dir.path())
    });
    history(store.as_ref());
    assert!(store.flush(WAIT));
    assert_eq!(store.min_calls(), 10);
    assert!(store.measured_stats("local_search_code").is_some());
    assert!(store.measured_stats("local_fetch_content").is_none());
}

#[test]
fn an_execution_after_an_answer_in_the_same_session_selects_its_tool_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    store.record_answer(AnswerShown {
        request_id: "r1".into(),
        session_id: Some("s1".into()),
        kind: AnswerKind::Search,
        query: "read a file".into(),
        tool_ids: vec!["local_search_code".into(), "local_fetch_content".into()],
        time_ms: T0,
    });
    store.record_feedback(Feedback {
        request_id: Some("r1".into()),
        query: None,
        tool_id: "local_search_code".into(),
        signal: Signal::Selected,
        comment: None,
        session_id: Some("s1".into()),
        time_ms: T0 + 1,
    });
    let run = |tool: &str, session: &str, at: i64| {
        store.record_execution(in_session(execution(tool, at), session));
    };
    run("local_fetch_content", "s1", T0 + MINUTE); // selects it
    run("local_fetch_content", "s1", T0 + 2 * MINUTE); // already selected
    run("local_search_code", "s1", T0 + 3 * MINUTE); // selected explicitly already
    run("github_search_code", "s1", T0 + 4 * MINUTE); // not in the answer
    run("local_fetch_content", "s2", T0 + 5 * MINUTE); // another session
    assert!(store.flush(WAIT));
    let events = store.feedback_events(100);
    let implicit: Vec<&FeedbackEvent> = events.iter().filter(|e| e.implicit).collect();
    assert_eq!(implicit.len(), 1, "{events:#?}");
    let e = implicit[0];
    assert_eq!(e.request_id.as_deref(), Some("r1"));
    assert_eq!(e.tool_id, "local_fetch_content");
    assert_eq!(e.signal, Signal::Selected);
    assert_eq!((e.rank, e.time_ms), (Some(2), T0 + MINUTE));
    assert_eq!(e.query.as_deref(), Some("read a file"));
    assert_eq!(e.answer_kind, Some(AnswerKind::Search));
    assert_eq!(events.len(), 2);
    // Newest first.
    assert_eq!(events[0].time_ms, T0 + MINUTE);
}

#[test]
fn an_execution_after_the_window_selects_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    store.record_answer(AnswerShown {
        request_id: "r1".into(),
        session_id: Some("s1".into()),
        query: "q".into(),
        tool_ids: vec!["local_fetch_content".into()],
        time_ms: T0,
        ..AnswerShown::default()
    });
    store.record_execution(in_session(
        execution("local_fetch_content", T0 + 31 * MINUTE),
        "s1",
    ));
    assert!(store.flush(WAIT));
    assert!(store.feedback_events(10).is_empty());
}

#[test]
fn the_overview_lists_top_and_failing_tools_and_unmet_queries() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    history(store.as_ref());
    let answer = |id: &str, query: &str, ids: &[&str], at: i64| AnswerShown {
        request_id: id.into(),
        query: query.into(),
        tool_ids: ids.iter().map(|s| s.to_string()).collect(),
        time_ms: at,
        ..AnswerShown::default()
    };
    store.record_answer(answer("r1", "convert PDF to text", &[], T0));
    store.record_answer(answer("r2", "convert  pdf to text", &[], T0 + 1));
    store.record_answer(answer(
        "r3",
        "find callers",
        &["lsp_find_references"],
        T0 + 2,
    ));
    let unhelpful = |request: Option<&str>, query: Option<&str>, at: i64| Feedback {
        request_id: request.map(Into::into),
        query: query.map(Into::into),
        tool_id: "lsp_find_references".into(),
        signal: Signal::NotHelpful,
        comment: None,
        session_id: None,
        time_ms: at,
    };
    store.record_feedback(unhelpful(Some("r3"), None, T0 + 3));
    store.record_feedback(unhelpful(None, Some("rename a symbol"), T0 + 4));
    assert!(store.flush(WAIT));
    let o = store.overview(10);
    assert_eq!((o.executions, o.answers, o.feedback), (14, 3, 2));
    let top: Vec<(&str, u64)> = o
        .top_tools
        .iter()
        .map(|t| (t.tool_id.as_str(), t.total_uses))
        .collect();
    assert_eq!(
        top,
        [
            ("local_search_code", 10),
            ("local_fetch_content", 3),
            ("github_search_code", 1)
        ]
    );
    assert_eq!(o.failing_tools.len(), 1);
    let failing = &o.failing_tools[0];
    assert_eq!((failing.failed_uses, failing.failure_rate), (2, 0.2));
    assert_eq!(failing.common_errors.len(), 2);
    let unmet: Vec<(&str, u64, u64, u64)> = o
        .unmet_queries
        .iter()
        .map(|q| (q.query.as_str(), q.times, q.empty_answers, q.not_helpful))
        .collect();
    assert_eq!(
        unmet,
        [
            ("convert  pdf to text", 2, 2, 0),
            ("rename a symbol", 1, 0, 1),
            ("find callers", 1, 0, 1),
        ]
    );
    assert_eq!(store.overview(1).top_tools.len(), 1);
    // The per-tool lines alone, as the measured figures are refreshed from them.
    let mut uses: Vec<(String, u64, u64)> = store
        .tool_uses()
        .into_iter()
        .map(|t| (t.tool_id, t.total_uses, t.failed_uses))
        .collect();
    uses.sort();
    assert_eq!(
        uses,
        [
            ("github_search_code".to_string(), 1, 0),
            ("local_fetch_content".to_string(), 3, 0),
            ("local_search_code".to_string(), 10, 2)
        ]
    );
}

#[test]
fn median_and_nearest_rank_percentiles() {
    assert_eq!(median(&[]), 0.0);
    assert_eq!(median(&[3.0]), 3.0);
    assert_eq!(median(&[1.0, 2.0, 4.0, 8.0]), 3.0);
    let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(percentile(&hundred, 0.95), 95.0);
    assert_eq!(percentile(&hundred[..19], 0.95), 19.0);
    assert_eq!(percentile(&[7.0], 0.95), 7.0);
    assert_eq!(percentile(&[], 0.95), 0.0);
}

#[test]
fn the_sql_counts_as_successful_exactly_the_outcomes_that_are() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_with(&options(dir.path()));
    let kinds = [
        OutcomeKind::Ok,
        OutcomeKind::Empty,
        OutcomeKind::Error,
        OutcomeKind::Timeout,
    ];
    for kind in kinds {
        let mut e = execution("t", 0);
        e.outcome = kind;
        store.record_execution(e);
    }
    assert!(store.flush(WAIT));
    let stats = store.stats_for("t").unwrap();
    let successes = kinds.iter().filter(|k| k.is_success()).count() as u64;
    assert_eq!(stats.successful_uses, successes);
    // Time 0 is the time of writing, so nothing is pruned as 1970.
    let last = time::OffsetDateTime::parse(
        &stats.last_updated,
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert!(last.year() >= 2025, "{}", stats.last_updated);
}

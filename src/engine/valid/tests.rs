//! `Valid<R>` for every request kind: no invalid body (schema, blank text, unknown category
//! or tool, reversed range) yields one, and every problem of a body is listed at once, each
//! at its pointer. The properties combine independent faults: whichever subset a body has,
//! the violations name exactly those.

use super::*;
use crate::engine::compare::tests::catalog;
use crate::engine::{ComparisonRequest, RecommendationRequest, SearchRequest};
use proptest::prelude::*;
use serde_json::json;

/// The pointers and messages of a rejected body; panics when the body was accepted.
fn rejected<R: Request + std::fmt::Debug>(body: &Value) -> Vec<(String, String)> {
    match Valid::<R>::parse(body, &catalog()) {
        Err(Error::Validation { what, violations }) => {
            assert_eq!(what, R::WHAT);
            violations
                .into_iter()
                .map(|v| (v.pointer, v.message))
                .collect()
        }
        other => panic!("expected a validation error for {body}, got {other:?}"),
    }
}

fn pointers(violations: &[(String, String)]) -> Vec<&str> {
    violations.iter().map(|(p, _)| p.as_str()).collect()
}

/// The pointers a body is rejected with, `None` when it is accepted.
fn outcome<R: Request + std::fmt::Debug>(body: &Value) -> Option<Vec<String>> {
    Valid::<R>::parse(body, &catalog()).err()?;
    Some(rejected::<R>(body).into_iter().map(|(p, _)| p).collect())
}

/// `body` with the faults of `mask` set (bit i: `faults[i]`), and the pointers they should
/// give (`None` without a fault); `skip` leaves a fault's pointer out of that.
fn with_faults(
    mut body: Value,
    faults: &[(&str, Value)],
    mask: u8,
    skip: impl Fn(&str) -> bool,
) -> (Value, Option<Vec<String>>) {
    let mut expected = Vec::new();
    for (i, (pointer, value)) in faults.iter().enumerate() {
        if mask & (1 << i) != 0 {
            *body.pointer_mut(pointer).expect("the fault's field exists") = value.clone();
            if !skip(pointer) {
                expected.push(pointer.to_string());
            }
        }
    }
    (body, (mask != 0).then_some(expected))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A blank query, an unknown category and a reversed complexity range, in any
    /// combination: each is reported, nothing else is, and no `Valid` comes out.
    #[test]
    fn search_lists_every_problem(mask in 0u8..8, blank in "[ \t\n]{1,5}", max in 1u64..=50) {
        let body = json!({
            "query": "search code for a regex",
            "category": "code_search",
            "max_results": max,
            "filters": {"complexity_range": {"min": 0.2, "max": 0.8}}
        });
        let faults = [
            ("/query", json!(blank)),
            ("/category", json!("code_serch")),
            ("/filters/complexity_range", json!({"min": 0.9, "max": 0.1})),
        ];
        let (body, expected) = with_faults(body, &faults, mask, |_| false);
        prop_assert_eq!(outcome::<SearchRequest>(&body), expected);
    }

    /// A blank task, an unknown preferred category and a category both preferred and
    /// avoided, in any combination.
    #[test]
    fn recommend_lists_every_problem(mask in 0u8..8, blank in "[ \t\n]{1,5}") {
        let body = json!({
            "task_description": "find where a function is defined",
            "user_preferences": {
                "preferred_categories": ["code_intelligence", "code_search"],
                "avoid_categories": ["web"]
            }
        });
        let faults = [
            ("/task_description", json!(blank)),
            ("/user_preferences/preferred_categories/0", json!("code_inteligence")),
            ("/user_preferences/preferred_categories/1", json!("web")),
        ];
        let (body, expected) = with_faults(body, &faults, mask, |_| false);
        prop_assert_eq!(outcome::<RecommendationRequest>(&body), expected);
    }

    /// Unknown tools, a tool named twice and a schema violation elsewhere, in any
    /// combination: compare reports them together, in pointer order.
    #[test]
    fn compare_lists_every_problem(mask in 0u8..16) {
        let body = json!({"tool_ids": ["ripgrep", "git_grep", "ast_grep"], "detail_level": "basic"});
        let faults = [
            ("/detail_level", json!("everything")),
            ("/tool_ids/0", json!("ripgrp")),
            ("/tool_ids/1", json!("zzzz_nothing")),
            ("/tool_ids/2", json!("rg")),
        ];
        // "rg" names ripgrep: a repeat while /tool_ids/0 is ripgrep, the first otherwise.
        let first = |p: &str| p == "/tool_ids/2" && mask & 0b0010 != 0;
        let (body, expected) = with_faults(body, &faults, mask, first);
        prop_assert_eq!(outcome::<ComparisonRequest>(&body), expected);
    }
}

#[test]
fn a_valid_request_keeps_what_was_asked() {
    let body = json!({"query": " search code ", "max_results": 7, "context": " "});
    let valid = Valid::<SearchRequest>::parse(&body, &catalog()).unwrap();
    assert_eq!(valid.query, "search code");
    assert_eq!((valid.max_results, &valid.context), (7, &None));
}

#[test]
fn schema_violations_come_first_and_all_at_once() {
    let v = rejected::<SearchRequest>(
        &json!({"query": "", "max_results": 0, "tool_type": "robot", "colour": 1}),
    );
    assert_eq!(pointers(&v), ["", "/max_results", "/query", "/tool_type"]);
    let v = rejected::<RecommendationRequest>(&json!({"task_description": 3}));
    assert_eq!(pointers(&v), ["/task_description"]);
    let v = rejected::<ComparisonRequest>(&json!({"tool_ids": ["ripgrep"]}));
    assert!(v[0].1.contains("at least 2"), "{v:?}");
}

#[test]
fn messages_name_what_was_found_and_what_is_close() {
    let v = rejected::<SearchRequest>(&json!({
        "query": " ",
        "category": "code_serch",
        "filters": {"complexity_range": {"min": 0.9, "max": 0.1}}
    }));
    assert_eq!(
        v[0].1,
        "expected words to search for, found only whitespace"
    );
    assert!(v[1]
        .1
        .ends_with("found \"code_serch\"; did you mean \"code_search\"?"));
    assert_eq!(v[2].1, "expected min <= max, found min 0.9 > max 0.1");
    let v = rejected::<RecommendationRequest>(&json!({
        "task_description": "x",
        "user_preferences": {"preferred_categories": ["web"], "avoid_categories": ["web"]}
    }));
    assert_eq!(
        v[0].1,
        "expected a category not also in avoid_categories, found \"web\" in both"
    );
}

#[test]
fn code_built_requests_pass_the_same_checks() {
    let mut search = SearchRequest::new("  search code  ");
    search.context = Some(" ".into());
    let valid = Valid::check(search, &catalog()).unwrap();
    assert_eq!(
        (valid.query.as_str(), &valid.context),
        ("search code", &None)
    );
    let same = Valid::<SearchRequest>::parse(&json!({"query": "search code"}), &catalog());
    assert_eq!(valid, same.unwrap());
    // Only the engine may leave categories out: no caller can send it.
    let mut excluding = SearchRequest::new("search code");
    excluding.exclude_categories = vec!["web".into()];
    assert!(Valid::check(excluding, &catalog()).is_err());

    let mut rec = RecommendationRequest::new("\t");
    rec.user_preferences.avoid_categories = vec!["nope".into()];
    match Valid::check(rec, &catalog()) {
        Err(Error::Validation { violations, .. }) => assert_eq!(violations.len(), 2),
        other => panic!("{other:?}"),
    }

    let compare = Valid::check(ComparisonRequest::new(["rg", "git_grep"]), &catalog()).unwrap();
    assert_eq!(compare.tool_ids, ["ripgrep", "git_grep"]);
    assert_eq!(compare.resolved_names, [("rg".into(), "ripgrep".into())]);
    // What a valid request serialises to is a body that parses to the same request.
    let again = Valid::check(compare.clone().into_inner(), &catalog()).unwrap();
    assert_eq!(again.tool_ids, compare.tool_ids);
    assert!(Valid::check(ComparisonRequest::new(["ripgrep"]), &catalog()).is_err());
}

#[test]
fn a_valid_request_serialises_as_the_request() {
    let valid = Valid::<SearchRequest>::parse(&json!({"query": "x"}), &catalog()).unwrap();
    assert_eq!(
        serde_json::to_string(&valid).unwrap(),
        serde_json::to_string(&*valid).unwrap()
    );
}

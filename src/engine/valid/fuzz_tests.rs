//! Fuzzing of the three request parsers (`Valid::<R>::parse` for search, recommend and
//! compare): arbitrary JSON, and valid bodies with fields deleted, retyped or added. A body
//! is accepted or refused with violations, each at a JSON pointer and saying what was
//! expected; never a panic, and never an internal error (a body that passed the schema but
//! not serde would be a 500).

use super::*;
use crate::engine::compare::tests::catalog;
use crate::engine::{ComparisonRequest, RecommendationRequest, SearchRequest};
use crate::fuzz_json::{mutate, mutation, value, Mutation};
use proptest::prelude::*;
use serde_json::json;

fn bodies() -> [Value; 3] {
    [
        json!({
            "query": "search code for a regex",
            "category": "code_search",
            "max_results": 5,
            "search_mode": "keyword",
            "tool_type": "system",
            "filters": {"complexity_range": {"min": 0.2, "max": 0.8}, "has_examples": true},
            "context": "a rust project"
        }),
        json!({
            "task_description": "find where a function is defined, then read it",
            "max_recommendations": 3,
            "user_preferences": {
                "preferred_categories": ["code_intelligence"],
                "avoid_categories": ["web"],
                "performance_priority": 0.5
            },
            "explain_reasoning": true
        }),
        json!({
            "tool_ids": ["ripgrep", "git_grep", "ast_grep"],
            "detail_level": "basic",
            "comparison_criteria": ["usability"],
            "comparison_context": "large monorepo"
        }),
    ]
}

/// Accepted, or refused with located, explained violations.
fn check<R: Request + std::fmt::Debug>(body: &Value) -> Result<(), TestCaseError> {
    match Valid::<R>::parse(body, &catalog()) {
        Ok(_) => Ok(()),
        Err(Error::Validation { what, violations }) => {
            prop_assert_eq!(what, R::WHAT);
            prop_assert!(!violations.is_empty());
            for v in violations {
                prop_assert!(
                    v.pointer.is_empty() || v.pointer.starts_with('/'),
                    "{:?}",
                    v
                );
                prop_assert!(
                    v.message.contains("expected") && v.message.contains("found"),
                    "{:?}",
                    v
                );
            }
            Ok(())
        }
        Err(other) => Err(TestCaseError::fail(format!("{body}: {other:?}"))),
    }
}

fn check_all(body: &Value) -> Result<(), TestCaseError> {
    check::<SearchRequest>(body)?;
    check::<RecommendationRequest>(body)?;
    check::<ComparisonRequest>(body)
}

proptest! {
    #![proptest_config(crate::fuzz_json::config(128))]

    /// Any JSON at all, to each parser.
    #[test]
    fn arbitrary_json_is_accepted_or_explained(body in value()) {
        check_all(&body)?;
    }

    /// A valid body of each kind with one to three mutations, to its own parser.
    #[test]
    fn near_valid_bodies_are_accepted_or_explained(
        which in 0usize..3,
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let body = mutate(bodies()[which].clone(), &mutations);
        match which {
            0 => check::<SearchRequest>(&body)?,
            1 => check::<RecommendationRequest>(&body)?,
            _ => check::<ComparisonRequest>(&body)?,
        }
    }
}

/// The unmutated bodies are valid, so the mutations above start from an accepted body.
#[test]
fn the_seed_bodies_are_valid() {
    let [search, recommend, compare] = bodies();
    Valid::<SearchRequest>::parse(&search, &catalog()).unwrap();
    Valid::<RecommendationRequest>::parse(&recommend, &catalog()).unwrap();
    Valid::<ComparisonRequest>::parse(&compare, &catalog()).unwrap();
    // And a mutation that only retypes a member is refused at that member.
    let retyped = mutate(search, &[Mutation::Replace(0, json!(7))]);
    let Err(Error::Validation { violations, .. }) =
        Valid::<SearchRequest>::parse(&retyped, &catalog())
    else {
        panic!("a number for the query must be refused");
    };
    assert_eq!(violations[0].pointer, "/query");
}

/// Bodies nested to just under the parser's depth limit (127 levels) in a field the schema
/// walks: refused with a violation, no stack overflow on the test thread's default stack.
#[test]
fn bodies_nested_to_the_parser_limit_are_refused() {
    let mut deep = json!(1);
    for _ in 0..125 {
        deep = json!([deep]);
    }
    let text = serde_json::to_string(&json!({"query": deep, "tool_ids": deep})).unwrap();
    let body: Value = serde_json::from_str(&text).expect("within the depth limit");
    for result in [
        Valid::<SearchRequest>::parse(&body, &catalog()).map(|_| ()),
        Valid::<ComparisonRequest>::parse(&body, &catalog()).map(|_| ()),
    ] {
        assert!(
            matches!(result, Err(Error::Validation { .. })),
            "{result:?}"
        );
    }
}

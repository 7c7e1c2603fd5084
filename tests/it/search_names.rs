//! Search by name: exact names first, a typo of a name still finding its tool, and the
//! suggestions that correct a misspelt name or word (the shipped catalog, the real model).

use crate::search::{ids, search};
use serde_json::json;
use toolscout::engine::ConfidenceLevel;

#[test]
fn exact_names_come_first() {
    for (query, id) in [
        ("ripgrep", "ripgrep"),
        ("rg", "ripgrep"),
        ("localSearchCode", "local_search_code"),
        ("local search code", "local_search_code"),
        ("lsp_goto_definition", "lsp_goto_definition"),
        ("kubectl get", "kubectl_get"),
    ] {
        let r = search(json!({ "query": query }));
        let top = &r.results[0];
        assert_eq!(top.tool_id, id, "query {query:?}: {:?}", ids(&r));
        assert!(top.score_details.exact_match);
        assert_eq!(top.similarity_score, 1.0);
        assert_eq!(top.confidence_level, ConfidenceLevel::High);
        assert!(top.match_reasons[0].contains("names this tool exactly"));
    }
}

#[test]
fn near_miss_names_are_suggested() {
    let r = search(json!({ "query": "ripgrp" }));
    assert!(
        r.query_suggestions.contains(&"ripgrep".to_string()),
        "{:?}",
        r.query_suggestions
    );
    let r = search(json!({ "query": "kubectl gett" }));
    assert!(
        r.query_suggestions.iter().any(|s| s == "kubectl get"),
        "{:?}",
        r.query_suggestions
    );
}

/// A typo of a tool's name finds that tool first: the agent typed the name, so any other
/// tool on top would be a miss (before, "lspGotoDefinitoin" put lsp_goto_definition third,
/// under the tools whose text shared "lsp" and "goto"). A filter that excludes the tool still
/// excludes it.
#[test]
fn typos_of_a_name_find_the_tool_first() {
    for (query, id, edits) in [
        ("lspGotoDefinitoin", "lsp_goto_definition", 2),
        ("ripgrp", "ripgrep", 1),
        ("kubectl gett", "kubectl_get", 1),
        ("local serch code", "local_search_code", 1),
    ] {
        let r = search(json!({ "query": query }));
        let top = &r.results[0];
        assert_eq!(top.tool_id, id, "query {query:?}: {:?}", ids(&r));
        assert_eq!(top.score_details.name_edits, Some(edits), "{query:?}");
        assert!(!top.score_details.exact_match);
        assert!(top.similarity_score >= 0.8 && top.similarity_score < 1.0);
        assert!(
            top.match_reasons
                .iter()
                .any(|m| m.contains("a likely typo")),
            "{:?}",
            top.match_reasons
        );
    }
    let r = search(json!({ "query": "lspGotoDefinitoin", "category": "code_search" }));
    assert!(!ids(&r).contains(&"lsp_goto_definition"), "{:?}", ids(&r));
    // Sentences are not names: no tool gets a name floor from a request.
    let r = search(json!({ "query": "find where a function is defined" }));
    assert!(r
        .results
        .iter()
        .all(|t| t.score_details.name_edits.is_none()));
}

#[test]
fn misspelt_words_get_a_corrected_query() {
    // Plain Levenshtein would count the swapped letters of "funtcion" twice.
    for (query, corrected) in [
        ("serch code in my repositry", "search code in my repository"),
        (
            "find where a funtcion is defined",
            "find where a function is defined",
        ),
        (
            "grep for TODO in my projec?",
            "grep for TODO in my project?",
        ),
    ] {
        let r = search(json!({ "query": query }));
        assert_eq!(
            r.query_suggestions.first().map(String::as_str),
            Some(corrected),
            "{query:?}: {:?}",
            r.query_suggestions
        );
    }
    // A word nothing corrects is dropped for a broader query while most of the query is
    // left ("search" and "code" of three content words)...
    let r = search(json!({ "query": "sarch french code" }));
    assert_eq!(
        r.query_suggestions[..2],
        ["search french code".to_string(), "search code".to_string()]
    );
    // ...but not when what is left is another request: "text to" is not a broader
    // "translate text to french", nor "schedule a" a broader "schedule a meeting".
    for (query, not) in [
        ("translate text to french", "text to"),
        ("schedule a meeting", "schedule a"),
    ] {
        let r = search(json!({ "query": query }));
        assert!(
            !r.query_suggestions.iter().any(|s| s == not),
            "{query:?}: {:?}",
            r.query_suggestions
        );
    }
    // Real words the catalog lacks are not misspellings of catalog words: no "look a flight
    // to parts" for "book a flight to paris".
    let r = search(json!({ "query": "book a flight to paris" }));
    assert!(r.query_suggestions.is_empty(), "{:?}", r.query_suggestions);
    // A three-letter catalog word is a correction.
    let r = search(json!({ "query": "kubectl gett pods" }));
    assert_eq!(
        r.query_suggestions.first().map(String::as_str),
        Some("kubectl get pods")
    );
}

//! The error table's promises: codes, statuses, hints and bodies, one row per variant.

use super::*;

fn every_error() -> Vec<Error> {
    vec![
        Error::Validation {
            what: "x".into(),
            violations: vec![],
        },
        Error::ToolNotFound {
            id: "x".into(),
            suggestions: vec![],
        },
        Error::ToolNotRunnable {
            name: "x".into(),
            suggestions: vec![],
            runnable: vec![],
        },
        Error::PromptNotFound {
            name: "x".into(),
            suggestions: vec![],
            available: vec![],
        },
        Error::CatalogInvalid {
            dir: "c".into(),
            errors: 1,
            files: 1,
        },
        Error::Io {
            path: "p".into(),
            source: std::io::Error::other("x"),
        },
        Error::Config("x".into()),
        Error::ModelUnavailable { reason: "x".into() },
        Error::EmbeddingFailed { reason: "x".into() },
        Error::Upstream {
            source_name: "s".into(),
            message: "x".into(),
        },
        Error::ReloadFailed { reason: "x".into() },
        Error::Overloaded {
            work: "search",
            workers: 2,
            waiting: 64,
            retry_after: 1,
        },
        Error::Internal("x".into()),
    ]
}

#[test]
fn every_code_has_a_variant_and_a_row_in_the_readme() {
    let used: Vec<Code> = every_error().iter().map(Error::code_of).collect();
    let readme = include_str!("../../README.md");
    for code in Code::ALL {
        assert!(used.contains(code), "{code:?} has no Error variant");
        assert!(
            readme.contains(&format!("`{}`", code.as_str())),
            "{} is not in the README's error table",
            code.as_str()
        );
    }
}

#[test]
fn codes_are_unique() {
    let all = every_error();
    let mut codes: Vec<_> = all.iter().map(Error::code).collect();
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), all.len());
    for e in &all {
        assert!(
            !e.recovery_suggestions().is_empty(),
            "{} has no suggestion",
            e.code()
        );
    }
}

#[test]
fn every_detail_fits_the_published_error_schema() {
    let schema: Value = serde_json::from_str(include_str!("../../schemas/error.json")).unwrap();
    let schema = crate::schema::Schema::compile(&schema).unwrap();
    let documented = schema_codes();
    for e in every_error() {
        assert!(
            documented.iter().any(|c| c == e.code()),
            "{} is not in schemas/error.json",
            e.code()
        );
        let body = json!({ "success": false, "error": e.detail("test", Some("r1")) });
        assert_eq!(schema.violations(&body), vec![], "{}", e.code());
    }
    // The HTTP layer's own codes (routes, methods, sizes, auth) complete the list.
    let http: Vec<&str> = crate::http::HttpCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect();
    for code in &http {
        assert!(
            documented.iter().any(|c| c == code),
            "{code} is not in schemas/error.json"
        );
        let readme = include_str!("../../README.md");
        assert!(
            readme.contains(&format!("`{code}`")),
            "{code} is not in the README"
        );
    }
    assert_eq!(
        documented.len(),
        every_error().len() + http.len(),
        "schemas/error.json lists unknown codes"
    );
}

fn schema_codes() -> Vec<String> {
    let schema: Value = serde_json::from_str(include_str!("../../schemas/error.json")).unwrap();
    schema["$defs"]["ErrorDetail"]["properties"]["error_code"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

#[test]
fn not_found_names_suggestions() {
    let e = Error::ToolNotFound {
        id: "ripgrp".into(),
        suggestions: vec!["ripgrep".into()],
    };
    assert_eq!(
        e.to_string(),
        "no tool with id 'ripgrp'; did you mean ripgrep?"
    );
    assert_eq!(e.status(), 404);
    let d = e.detail("catalog.get", Some("r1"));
    assert_eq!(d["error_code"], "TOOL_NOT_FOUND");
    assert_eq!(d["error_type"], "not_found_error");
    assert_eq!(d["context"]["request_id"], "r1");
}

#[test]
fn internal_causes_are_not_shown() {
    let e = Error::Internal("secret path /x/y".into());
    assert!(!e.public_message().contains("/x/y"));
}

#[test]
fn an_overload_says_what_is_busy_and_when_to_come_back() {
    let refused = crate::admission::Refused::Overloaded {
        work: "search",
        workers: 2,
        waiting: 64,
        waited: std::time::Duration::from_millis(3),
    };
    let e = Error::from(refused);
    assert_eq!(
        (e.code(), e.status(), e.retry_after()),
        ("OVERLOADED", 503, Some(1))
    );
    assert_eq!(
        e.public_message(),
        "too busy: all 2 search workers are busy and 64 request(s) wait; retry after 1 s"
    );
    assert_eq!(e.parameters()["retry_after_seconds"], 1);
    let died = Error::from(crate::admission::Refused::Died("panicked".into()));
    assert_eq!(died.code(), "INTERNAL_ERROR");
    assert_eq!(Error::Internal("x".into()).retry_after(), None);
}

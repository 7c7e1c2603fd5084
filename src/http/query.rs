//! Query strings: decoded into name/value pairs with the error envelope (never axum's plain-text
//! rejection), plus the checks every GET route shares: unknown and repeated parameters, whole
//! numbers within a range, booleans. Each problem is a `Violation` at `/<parameter>`, and a
//! route reports all of them at once.

use super::envelope::ApiError;
use crate::error::{Error, Violation};
use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use std::collections::BTreeMap;

/// The query string as ordered name/value pairs (repeats kept, so they can be reported).
pub(crate) struct QueryPairs(pub Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for QueryPairs {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
            .map(|Query(pairs)| QueryPairs(pairs))
            .map_err(|e| {
                invalid("request", vec![Violation {
                    pointer: String::new(),
                    message: format!("expected a URL-encoded query string, found one that does not decode: {e}"),
                }])
            })
    }
}

/// The error for violations of query parameters, in `operation`, in pointer order.
pub(crate) fn invalid(operation: &'static str, mut violations: Vec<Violation>) -> ApiError {
    violations.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    ApiError::new(
        operation,
        Error::Validation {
            what: "query parameters".into(),
            violations,
        },
    )
}

impl QueryPairs {
    /// One value per name; a repeated name, or a name outside `allowed` (when given), is a
    /// violation.
    pub(crate) fn single(
        &self,
        allowed: Option<&[&str]>,
        violations: &mut Vec<Violation>,
    ) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for (name, value) in &self.0 {
            if let Some(allowed) = allowed {
                if !allowed.contains(&name.as_str()) {
                    let expected = if allowed.is_empty() {
                        "no parameters".to_string()
                    } else {
                        format!("one of {}", allowed.join(", "))
                    };
                    violations.push(Violation {
                        pointer: format!("/{name}"),
                        message: format!("expected {expected}, found unknown parameter \"{name}\""),
                    });
                    continue;
                }
            }
            if out.insert(name.clone(), value.clone()).is_some() {
                let count = self.0.iter().filter(|(n, _)| n == name).count();
                let message = format!("expected one value, found {count}");
                if !violations.iter().any(|v| v.pointer == format!("/{name}")) {
                    violations.push(Violation {
                        pointer: format!("/{name}"),
                        message,
                    });
                }
            }
        }
        out
    }
}

/// A whole number in `min..=max` (`max == usize::MAX` means unbounded), else `default`. With
/// no upper bound, a number too large for `usize` reads as `usize::MAX`: the OpenAPI document
/// promises any integer from `min` (a page past the end is an empty page, not an error).
pub(crate) fn number(
    params: &BTreeMap<String, String>,
    key: &str,
    default: usize,
    (min, max): (usize, usize),
    violations: &mut Vec<Violation>,
) -> usize {
    let Some(raw) = params.get(key) else {
        return default;
    };
    let parsed = match raw.parse::<usize>() {
        Err(e) if max == usize::MAX && *e.kind() == std::num::IntErrorKind::PosOverflow => {
            Ok(usize::MAX)
        }
        other => other,
    };
    match parsed {
        Ok(n) if (min..=max).contains(&n) => n,
        _ => {
            let range = if max == usize::MAX {
                format!(">= {min}")
            } else {
                format!("{min}..{max}")
            };
            violations.push(Violation {
                pointer: format!("/{key}"),
                message: format!("expected a whole number {range}, found \"{raw}\""),
            });
            default
        }
    }
}

/// `true` or `false`, else `default`.
pub(crate) fn boolean(
    params: &BTreeMap<String, String>,
    key: &str,
    default: bool,
    violations: &mut Vec<Violation>,
) -> bool {
    match params.get(key).map(String::as_str) {
        None => default,
        Some("true") => true,
        Some("false") => false,
        Some(other) => {
            violations.push(Violation {
                pointer: format!("/{key}"),
                message: format!("expected true or false, found \"{other}\""),
            });
            default
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> QueryPairs {
        QueryPairs(
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn repeats_and_unknown_names_are_violations() {
        let mut v = Vec::new();
        let map =
            pairs(&[("a", "1"), ("a", "2"), ("b", "x"), ("a", "3")]).single(Some(&["a"]), &mut v);
        assert_eq!(map["a"], "3");
        let text: Vec<String> = v
            .iter()
            .map(|v| format!("{}: {}", v.pointer, v.message))
            .collect();
        assert_eq!(
            text,
            [
                "/a: expected one value, found 3",
                "/b: expected one of a, found unknown parameter \"b\""
            ]
        );
    }

    #[test]
    fn numbers_and_booleans() {
        let mut v = Vec::new();
        let map =
            pairs(&[("n", "7"), ("m", "0"), ("t", "true"), ("f", "yes")]).single(None, &mut v);
        assert_eq!(number(&map, "n", 1, (1, 10), &mut v), 7);
        assert_eq!(number(&map, "m", 1, (1, usize::MAX), &mut v), 1);
        assert!(boolean(&map, "t", false, &mut v));
        assert!(!boolean(&map, "f", false, &mut v));
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].message, "expected a whole number >= 1, found \"0\"");
        assert_eq!(v[1].message, "expected true or false, found \"yes\"");
    }

    /// schemathesis' positive_data_acceptance sent `page=21392454143329048467459297570193408`,
    /// an integer >= 1 as the document allows, and got 400: unbounded numbers saturate.
    #[test]
    fn unbounded_numbers_beyond_usize_saturate_and_bounded_ones_are_refused() {
        let huge = "21392454143329048467459297570193408";
        let mut v = Vec::new();
        let map = pairs(&[("page", huge), ("per_page", huge), ("neg", "-5")]).single(None, &mut v);
        assert_eq!(number(&map, "page", 1, (1, usize::MAX), &mut v), usize::MAX);
        assert!(v.is_empty(), "{v:?}");
        assert_eq!(number(&map, "per_page", 24, (1, 100), &mut v), 24);
        assert_eq!(number(&map, "neg", 1, (1, usize::MAX), &mut v), 1);
        let pointers: Vec<&str> = v.iter().map(|v| v.pointer.as_str()).collect();
        assert_eq!(pointers, ["/per_page", "/neg"]);
    }
}

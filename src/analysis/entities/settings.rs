//! Settings a request passes: environment variable assignments (`POSTGRES_PASSWORD=test`,
//! `RUST_LOG=debug`). An upper-case name, `=`, and a value: a value for a tool's environment
//! parameter, and no topic word ("POSTGRES_PASSWORD" asks for no Postgres client).

use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

fn assignment_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(r#"(?:^|[\s(`'"])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*=[^\s`'",;)]*)"#)
            .expect("assignment pattern compiles")
    })
}

/// Spans of the environment variable assignments in `text`; a name of one or two letters
/// ("A=1", "x=2" in arithmetic) is none.
pub(super) fn assignments(text: &str) -> Vec<Range<usize>> {
    assignment_pattern()
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .filter(|m| m.as_str().find('=').is_some_and(|at| at > 2))
        .map(|m| m.range())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        assignments(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn upper_case_assignments_are_settings() {
        assert_eq!(
            found("run postgres on port 5433 with POSTGRES_PASSWORD=test and PGDATA=/tmp/pg"),
            vec!["POSTGRES_PASSWORD=test", "PGDATA=/tmp/pg"]
        );
        assert_eq!(
            found("start it with `RUST_LOG=debug`"),
            vec!["RUST_LOG=debug"]
        );
    }

    #[test]
    fn equations_and_lower_case_keys_are_not() {
        for text in [
            "if A=1 and B=2",
            "where id=42",
            "solve x=3y+2",
            "DEBUG = True",
        ] {
            assert_eq!(found(text), Vec::<&str>::new(), "{text}");
        }
    }
}

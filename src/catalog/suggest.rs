//! Name matching shared by validation and lookups: normalisation (case and separators ignored)
//! and close-name suggestions for typos.

/// Lowercase with every non-alphanumeric character removed: `local_search-Code` and
/// `localSearchCode` are the same name.
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Up to three candidates close to `query`, best first; ties break by candidate text.
/// "Close" is an edit distance of at most a third of the longer name (at least 2), or a
/// normalised containment of one name in the other.
pub fn suggest<'a>(query: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let q = normalize_name(query);
    if q.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, String)> = candidates
        .into_iter()
        .filter_map(|c| {
            let n = normalize_name(c);
            if n == q {
                return Some((0, c.to_string()));
            }
            let d = strsim::levenshtein(&q, &n);
            let allowed = (q.len().max(n.len()) / 3).max(2);
            if d <= allowed {
                Some((d, c.to_string()))
            } else if q.len() >= 4 && (n.contains(&q) || q.contains(&n)) {
                Some((allowed + 1, c.to_string()))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_case_and_separators() {
        assert_eq!(normalize_name("local_search-Code"), "localsearchcode");
        assert_eq!(normalize_name("localSearchCode"), "localsearchcode");
    }

    #[test]
    fn suggests_typos_best_first() {
        let c = ["ripgrep", "git_grep", "gnu_find", "jq_filter"];
        assert_eq!(suggest("ripgrp", c), vec!["ripgrep"]);
        assert_eq!(suggest("gitgrep", c)[0], "git_grep");
        assert!(suggest("kubernetes", c).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_names_normalise_and_suggest(name in crate::hostile_text::short_text()) {
            let _ = normalize_name(&name);
            let _ = suggest(&name, ["ripgrep", "github_search_code", "fd_find"]);
        }
    }
}

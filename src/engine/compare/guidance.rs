//! What the catalog's own text says about choosing between tools: the "Prefer X when ..."
//! sentences of `when_to_use` (who defers to whom, and when), and the semantic tags that
//! matter to a choice (network, credentials, writes). Comparisons turn these into
//! `best_for`, `avoid_when` and decision factors, so that advice cites the maintainers'
//! guidance rather than being invented.

use crate::catalog::{Catalog, ToolRecord};

/// "Tool `from` defers to tool `to` in this situation", read from `from`'s `when_to_use`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Preference {
    pub from: String,
    pub to: String,
    /// The situation, as written ("when the code is not checked out").
    pub condition: String,
}

/// Every preference in `t`'s "Prefer ..." sentences. A tool is recognised when the sentence
/// names it by id or execution name, or by a name or alias written as an identifier
/// (`localFindFiles`, `ast_grep`); plain words such as "find" or "tree" are never taken for
/// tools. Tools listed together ("ast_grep or semgrep_scan when ...") share the condition.
pub(crate) fn preferences(t: &ToolRecord, catalog: &Catalog) -> Vec<Preference> {
    let mut out = Vec::new();
    for sentence in sentences(&t.when_to_use) {
        let Some(body) = sentence.trim().strip_prefix("Prefer ") else {
            continue;
        };
        // (tool id, where the mention starts, where it ends) in sentence order.
        let mut mentions: Vec<(String, usize, usize)> = Vec::new();
        let mut offset = 0;
        for word in body.split_inclusive(char::is_whitespace) {
            let start = offset;
            offset += word.len();
            let token = word
                .trim()
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
            if let Some(id) = tool_mention(token, catalog) {
                if id != t.tool_id {
                    let at = start + word.find(token).unwrap_or(0);
                    mentions.push((id, at, at + token.len()));
                }
            }
        }
        let mut pending: Vec<String> = Vec::new();
        for (i, (id, _, end)) in mentions.iter().enumerate() {
            let until = mentions.get(i + 1).map_or(body.len(), |m| m.1);
            let condition = tidy(&body[*end..until]);
            pending.push(id.clone());
            if condition.is_empty() {
                continue;
            }
            for to in pending.drain(..) {
                out.push(Preference {
                    from: t.tool_id.clone(),
                    to,
                    condition: condition.clone(),
                });
            }
        }
    }
    out
}

/// The catalog id a token names, if it is written as a tool reference.
fn tool_mention(token: &str, catalog: &Catalog) -> Option<String> {
    if token.len() < 2 {
        return None;
    }
    if let Some(t) = catalog.get(token) {
        return Some(t.tool_id.clone());
    }
    let identifier = token.contains('_')
        || token
            .chars()
            .zip(token.chars().skip(1))
            .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
    if !identifier {
        return None;
    }
    catalog.find(token).map(|t| t.tool_id.clone())
}

/// Sentences of a guidance text (split after ". ", which the catalog's prose uses).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split(". ").map(|s| s.trim_end_matches('.'))
}

/// A condition clause without the glue around it: leading/trailing punctuation, "and", "or".
fn tidy(clause: &str) -> String {
    let mut s = clause.trim();
    loop {
        let before = s;
        s = s.trim_matches(|c: char| c == ',' || c == ';' || c == '.' || c.is_whitespace());
        for glue in ["and", "or"] {
            if let Some(rest) = s.strip_suffix(glue) {
                if rest.is_empty() || rest.ends_with(char::is_whitespace) || rest.ends_with(',') {
                    s = rest;
                }
            }
            if let Some(rest) = s.strip_prefix(glue) {
                if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                    s = rest;
                }
            }
        }
        if s == before {
            break;
        }
    }
    s.to_string()
}

/// A semantic tag that matters to a choice, and how to say it.
pub(crate) struct Trait {
    pub tag: &'static str,
    /// True when having the tag is a drawback.
    pub drawback: bool,
    /// "needs network access"
    pub has: &'static str,
    /// For `avoid_when` of tools with a drawback, or `best_for` of tools with an advantage.
    pub situation: &'static str,
}

/// The tags compared, drawbacks first. Only tags that some but not all compared tools carry
/// become strengths, weaknesses or decision factors: a trait everyone shares decides nothing.
pub(crate) const TRAITS: &[Trait] = &[
    Trait {
        tag: "needs-network",
        drawback: true,
        has: "needs network access",
        situation: "you are offline or in a sandbox without network access",
    },
    Trait {
        tag: "needs-auth",
        drawback: true,
        has: "needs credentials (a token or login)",
        situation: "no credentials for the service are available",
    },
    Trait {
        tag: "writes",
        drawback: true,
        has: "changes files or remote state",
        situation: "nothing may be modified",
    },
    Trait {
        tag: "local",
        drawback: false,
        has: "works on local files and directories",
        situation: "the files are on this machine",
    },
    Trait {
        tag: "read-only",
        drawback: false,
        has: "is read-only, so it cannot change anything",
        situation: "you must not change anything",
    },
    Trait {
        tag: "remote-repositories",
        drawback: false,
        has: "reaches repositories you have not cloned",
        situation: "the code is in a remote repository you have not cloned",
    },
    Trait {
        tag: "pagination",
        drawback: false,
        has: "pages through large result sets",
        situation: "results may be large",
    },
    Trait {
        tag: "json-output",
        drawback: false,
        has: "gives machine-readable JSON output",
        situation: "another program consumes the output",
    },
    Trait {
        tag: "respects-gitignore",
        drawback: false,
        has: "respects .gitignore",
        situation: "ignored build output should stay out of the results",
    },
    Trait {
        tag: "secret-redaction",
        drawback: false,
        has: "redacts secrets in what it returns",
        situation: "the content may hold secrets",
    },
];

/// The traits that tell the compared tools apart: (trait, which of them have it).
pub(crate) fn distinguishing_traits(tools: &[&ToolRecord]) -> Vec<(&'static Trait, Vec<bool>)> {
    TRAITS
        .iter()
        .filter_map(|tr| {
            let has: Vec<bool> = tools
                .iter()
                .map(|t| t.semantic_tags.iter().any(|g| g == tr.tag))
                .collect();
            let count = has.iter().filter(|h| **h).count();
            (count > 0 && count < tools.len()).then_some((tr, has))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::compare::tests::catalog;

    #[test]
    fn reads_who_defers_to_whom() {
        let c = catalog();
        let prefs = preferences(c.get("local_search_code").unwrap(), &c);
        let find = |to: &str| {
            prefs
                .iter()
                .find(|p| p.to == to)
                .map(|p| p.condition.as_str())
                .unwrap_or_else(|| panic!("no preference for {to}: {prefs:?}"))
        };
        assert_eq!(
            find("github_search_code"),
            "when the code is not checked out"
        );
        assert_eq!(
            find("local_find_files"),
            "when filtering by file name, size or date rather than content"
        );
        // Listed together, they share the condition.
        assert_eq!(find("ast_grep"), find("semgrep_scan"));
        assert_eq!(
            find("semgrep_scan"),
            "when the match has to follow syntax rather than text"
        );
        let back = preferences(c.get("github_search_code").unwrap(), &c);
        let local = back.iter().find(|p| p.to == "local_search_code").unwrap();
        assert_eq!(
            local.condition,
            "for checked-out code (regex, exact line numbers)"
        );
    }

    #[test]
    fn plain_words_are_not_tools() {
        let c = catalog();
        // "to find the right repository first": `find` is a tool's name, not a mention here.
        let prefs = preferences(c.get("github_search_code").unwrap(), &c);
        assert!(prefs.iter().all(|p| p.to != "gnu_find"), "{prefs:?}");
        assert!(prefs.iter().any(|p| p.to == "github_search_repositories"
            && p.condition == "to find the right repository first"));
    }

    #[test]
    fn tidy_strips_glue() {
        assert_eq!(tidy(" when x, and"), "when x");
        assert_eq!(tidy(" or "), "");
        assert_eq!(tidy("; once y;"), "once y");
        assert_eq!(tidy(" for order data"), "for order data");
    }

    #[test]
    fn only_traits_that_differ_distinguish() {
        let c = catalog();
        let tools = [
            c.get("local_search_code").unwrap(),
            c.get("github_search_code").unwrap(),
        ];
        let tags: Vec<&str> = distinguishing_traits(&tools)
            .iter()
            .map(|(t, _)| t.tag)
            .collect();
        assert!(tags.contains(&"needs-network") && tags.contains(&"local"));
        assert!(!tags.contains(&"read-only"), "both are read-only: {tags:?}");
    }
}

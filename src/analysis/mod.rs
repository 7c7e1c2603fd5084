//! Request analysis, pure text in and facts out: the entities a request mentions (paths,
//! `owner/repo`, URLs, packages, symbols, ...), the phrases it negates, and whether it asks
//! about local or remote things; and, for each tool, which of those its parameters take
//! (`affordance`). Ranking uses both as one bounded, explained signal, and leaves the words
//! of entity values and negated phrases out of name and keyword evidence: "issues in
//! rust-lang/cargo" is no request for a tool named cargo, "without cloning" none for git
//! clone. Nothing here knows a particular tool; every rule reads the request or a tool's own
//! input schema and annotations.

pub mod affordance;
pub mod entities;

pub use affordance::{Affordances, Locality, Match};
pub use entities::{ecosystem_named, entities, Entity, EntityKind};

use std::ops::Range;

/// What a request says beyond its words' topic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryAnalysis {
    pub entities: Vec<Entity>,
    /// Byte spans of negated phrases ("without cloning the repo").
    pub negated: Vec<Range<usize>>,
    /// Whether the request is about local things (my project) or remote ones (on GitHub).
    pub locality: Option<Locality>,
}

/// Words that negate what follows them, up to the end of the clause.
const NEGATIONS: &[&str] = &[
    "without",
    "not",
    "don't",
    "dont",
    "do not",
    "never",
    "no need to",
    "instead of",
    "rather than",
    "avoid",
    "avoiding",
    "except",
    "excluding",
    "isn't",
    "aren't",
    "doesn't",
    "shouldn't",
    "won't",
];

/// Words that end a negated phrase: a new clause starts.
const CLAUSE_ENDS: &[&str] = &[
    "and", "but", "then", "so", "just", "only", "instead", "because",
];

/// The longest a negated phrase runs, in words.
const NEGATION_WORDS: usize = 5;

/// Phrases that put a request on the user's machine or in their checkout.
const LOCAL_CUES: &[&str] = &[
    "my project",
    "this project",
    "the project",
    "my repo",
    "this repo",
    "my repository",
    "this repository",
    "my codebase",
    "this codebase",
    "the codebase",
    "across the codebase",
    "my machine",
    "this machine",
    "locally",
    "local",
    "on disk",
    "my checkout",
    "working tree",
    "working copy",
    "workspace",
    "my code",
    "our code",
    "current directory",
    "this directory",
    "here in",
];

/// Phrases that put a request on a remote service.
const REMOTE_CUES: &[&str] = &[
    "on github",
    "github",
    "upstream",
    "remote",
    "public repos",
    "public repositories",
    "open source",
    "on gitlab",
    "gitlab",
    "online",
    "on the web",
    "internet",
];

impl QueryAnalysis {
    pub fn of(text: &str) -> QueryAnalysis {
        let entities = entities(text);
        let negated = negated_spans(text);
        let locality = locality(text, &entities);
        QueryAnalysis {
            entities,
            negated,
            locality,
        }
    }

    /// Whether the request carries any value or says where it points: only then can a
    /// tool's affordances fit it.
    pub fn asks_anything(&self) -> bool {
        !self.entities.is_empty() || self.locality.is_some()
    }

    /// The distinct entity kinds, in order.
    pub fn kinds(&self) -> Vec<EntityKind> {
        let mut kinds: Vec<EntityKind> = self.entities.iter().map(|e| e.kind).collect();
        kinds.sort();
        kinds.dedup();
        kinds
    }

    /// The text with negated phrases left out and the values of `masked` kinds replaced by
    /// their placeholder word: what name and keyword evidence should read. Unchanged (and
    /// not copied) when there is nothing to leave out.
    pub fn masked(&self, text: &str, masked: &[EntityKind]) -> Option<String> {
        let mut cuts: Vec<(Range<usize>, &str)> = self
            .negated
            .iter()
            .map(|r| (r.clone(), ""))
            .chain(
                self.entities
                    .iter()
                    .filter(|e| masked.contains(&e.kind))
                    .map(|e| (e.span.clone(), e.kind.placeholder())),
            )
            .collect();
        if cuts.is_empty() {
            return None;
        }
        cuts.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (r, with) in cuts {
            if r.start < at {
                continue;
            }
            out.push_str(&text[at..r.start]);
            out.push(' ');
            out.push_str(with);
            out.push(' ');
            at = r.end;
        }
        out.push_str(&text[at..]);
        Some(out.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// Byte spans of the phrases a negation word opens, each to the end of its clause (a comma,
/// a sentence end or a clause word) and at most [`NEGATION_WORDS`] words long.
fn negated_spans(text: &str) -> Vec<Range<usize>> {
    let words = word_spans(text);
    let lower: Vec<String> = words
        .iter()
        .map(|r| text[r.clone()].to_lowercase())
        .collect();
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let cue_len = NEGATIONS
            .iter()
            .map(|n| n.split(' ').collect::<Vec<&str>>())
            .filter(|n| {
                lower.len() >= i + n.len() && n.iter().zip(&lower[i..]).all(|(a, b)| *a == b)
            })
            .map(|n| n.len())
            .max();
        let Some(cue_len) = cue_len else {
            i += 1;
            continue;
        };
        let start = words[i].start;
        let mut end = words[i + cue_len - 1].end;
        let mut j = i + cue_len;
        while j < words.len() && j < i + cue_len + NEGATION_WORDS {
            if CLAUSE_ENDS.contains(&lower[j].as_str()) || breaks_clause(&text[end..words[j].start])
            {
                break;
            }
            end = words[j].end;
            j += 1;
        }
        if j > i + cue_len {
            out.push(start..end);
        }
        i = j.max(i + 1);
    }
    out
}

/// Whether the text between two words ends a clause.
fn breaks_clause(between: &str) -> bool {
    between.contains([',', ';', '.', '?', '!', ':', '(', ')'])
}

/// Byte spans of the words of `text` (letters, digits, apostrophes, and the characters that
/// join names: `-_/.#@`).
fn word_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || matches!(c, '\'' | '-' | '_' | '/' | '#' | '@');
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// Local or remote, from the request's phrases and entities; None when it says neither or
/// both.
fn locality(text: &str, entities: &[Entity]) -> Option<Locality> {
    let lower = format!(" {} ", text.to_lowercase());
    let has = |cues: &[&str]| {
        cues.iter().any(|c| {
            lower.match_indices(c).any(|(i, _)| {
                let before = lower[..i]
                    .chars()
                    .next_back()
                    .is_none_or(|ch| !ch.is_alphanumeric());
                let after = lower[i + c.len()..]
                    .chars()
                    .next()
                    .is_none_or(|ch| !ch.is_alphanumeric());
                before && after
            })
        })
    };
    let remote = has(REMOTE_CUES) || entities.iter().any(|e| e.kind == EntityKind::Repository);
    let local = has(LOCAL_CUES)
        || entities.iter().any(|e| {
            e.kind == EntityKind::Path && {
                let s = &text[e.span.clone()];
                s.starts_with("./") || s.starts_with("../") || s.starts_with('~')
            }
        });
    match (local, remote) {
        (true, false) => Some(Locality::Local),
        (false, true) => Some(Locality::Remote),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negations_run_to_the_clause_end() {
        let text = "without cloning the repo, show me its README";
        let a = QueryAnalysis::of(text);
        assert_eq!(&text[a.negated[0].clone()], "without cloning the repo");
        let m = a.masked(text, &[]).unwrap();
        assert_eq!(m, ", show me its README");
        let text = "don't use regex and list the files";
        let a = QueryAnalysis::of(text);
        assert_eq!(&text[a.negated[0].clone()], "don't use regex");
    }

    #[test]
    fn masking_replaces_values_with_their_kind() {
        let text = "search issues in rust-lang/cargo";
        let a = QueryAnalysis::of(text);
        assert_eq!(
            a.masked(text, &[EntityKind::Repository]).as_deref(),
            Some("search issues in repository")
        );
        assert_eq!(a.locality, Some(Locality::Remote));
        assert_eq!(
            QueryAnalysis::of("grep my project for TODO").locality,
            Some(Locality::Local)
        );
        assert!(QueryAnalysis::of("plan a trip")
            .masked("plan a trip", &[])
            .is_none());
    }

    proptest::proptest! {
        #[test]
        fn any_text_analyses_without_panic(text in "\\PC{0,80}", tail in "[a-z/._#@ -]{0,40}") {
            let text = format!("{text} without {tail} in a/b.rs line 3 #4");
            let a = QueryAnalysis::of(&text);
            for e in &a.entities {
                proptest::prop_assert!(text.is_char_boundary(e.span.start));
                proptest::prop_assert!(text.is_char_boundary(e.span.end));
            }
            for r in &a.negated {
                proptest::prop_assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
            }
            let _ = a.masked(&text, &[EntityKind::Repository, EntityKind::Path, EntityKind::Issue]);
        }
    }

    #[test]
    fn any_text_is_safe() {
        for text in [
            "Ⱥ then éé",
            "",
            "no",
            "without",
            "ǅ/ǅ.rs :1 #1 `x",
            "İ without İİ, x",
        ] {
            let a = QueryAnalysis::of(text);
            let _ = a.masked(text, &[EntityKind::Repository, EntityKind::Path]);
        }
    }
}

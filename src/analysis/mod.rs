//! Request analysis, pure text in and facts out: the entities a request mentions (paths,
//! `owner/repo`, URLs, packages, symbols, ...), the phrases it negates, whether it asks
//! about local or remote things or the web (`locality`) and whether it asks to read or to
//! change (`action`); and, for each tool, which of those its parameters take and what it
//! does (`affordance`). Ranking uses both as bounded, explained signals, and leaves the words
//! of entity values and negated phrases out of name and keyword evidence: "issues in
//! rust-lang/cargo" is no request for a tool named cargo, "without cloning" none for git
//! clone. Nothing here knows a particular tool; every rule reads the request or a tool's own
//! input schema, annotations and name.

pub mod action;
pub mod affordance;
pub mod entities;
pub mod locality;
mod parameter;
mod purpose;
mod reported;

pub use affordance::{Affordances, Match};
pub use entities::{ecosystem_named, entities, Entity, EntityKind};
pub use locality::Locality;

use std::ops::Range;

/// What a request says beyond its words' topic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryAnalysis {
    pub entities: Vec<Entity>,
    /// Byte spans of negated phrases ("without cloning the repo").
    pub negated: Vec<Range<usize>>,
    /// Byte spans of purpose clauses ("so I can see why", "before I commit"): the user's
    /// own later step, not the task (see `purpose`).
    pub purposes: Vec<Range<usize>>,
    /// Byte spans of quoted text, quotes included: values to pass ("the word \"plethora\"",
    /// a message's subject), not the task's own words.
    pub quoted: Vec<Range<usize>>,
    /// Byte spans of messages the request asks to send ("tell the team that the deploy
    /// finished"): values too, though unquoted (see `reported`).
    pub reported: Vec<Range<usize>>,
    /// Whether the request is about local things (my project), remote ones (on GitHub) or
    /// the web (look it up online).
    pub locality: Option<Locality>,
    /// Whether the request asks to read something or to change it.
    pub action: Option<action::Action>,
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

impl QueryAnalysis {
    pub fn of(text: &str) -> QueryAnalysis {
        let entities = entities(text);
        let quoted = quoted_spans(text);
        let reported = reported::reported_spans(text);
        let negated = negated_spans(text)
            .into_iter()
            .filter(|n| !quoted.iter().chain(&reported).any(|q| q.contains(&n.start)))
            .collect();
        let purposes = purpose::purpose_spans(text)
            .into_iter()
            .filter(|n| !quoted.iter().chain(&reported).any(|q| q.contains(&n.start)))
            .collect();
        let locality = locality::of_request(text, &entities);
        let mut analysis = QueryAnalysis {
            entities,
            negated,
            purposes,
            quoted,
            reported,
            locality,
            action: None,
        };
        let kinds = analysis.kinds();
        let plain = analysis.masked(text, &kinds, true);
        analysis.action = action::request_action(plain.as_deref().unwrap_or(text));
        analysis
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

    /// The text with negated phrases left out, messages to send (and, with `quotes`, quoted
    /// text) read as "text", and the values of `masked` kinds replaced by their placeholder
    /// words: what name and keyword evidence should read. Unchanged (and not copied) when
    /// there is nothing to leave out.
    pub fn masked(&self, text: &str, masked: &[EntityKind], quotes: bool) -> Option<String> {
        let quotes = if quotes { &self.quoted[..] } else { &[] };
        let mut cuts: Vec<(Range<usize>, std::borrow::Cow<'_, str>)> = self
            .negated
            .iter()
            .chain(&self.purposes)
            .map(|r| (r.clone(), "".into()))
            .chain(
                quotes
                    .iter()
                    .chain(&self.reported)
                    .map(|r| (r.clone(), QUOTED_PLACEHOLDER.into())),
            )
            .chain(
                self.entities
                    .iter()
                    .filter(|e| masked.contains(&e.kind))
                    .map(|e| (e.span.clone(), e.placeholder_in(text))),
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
            out.push_str(&with);
            out.push(' ');
            at = r.end;
        }
        out.push_str(&text[at..]);
        Some(out.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// The word that stands for quoted text left out of a text.
const QUOTED_PLACEHOLDER: &str = "text";

/// Byte spans of quoted text: double quotes (straight or curly) anywhere, single quotes only
/// where they open after a space or bracket and close before one, so that apostrophes
/// ("don't", "the team's") never open a quote. Backticks are code, an entity of their own.
fn quoted_spans(text: &str) -> Vec<Range<usize>> {
    static QUOTED: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = QUOTED.get_or_init(|| {
        regex::Regex::new(
            r#""[^"\n]{1,200}"|“[^”\n]{1,200}”|(?:^|[\s(\[])('[^'\n]{1,200}')(?:$|[\s.,;:!?)\]])"#,
        )
        .expect("quote pattern compiles")
    });
    // A quote around most of the text is the request itself, quoted by whoever wrote it.
    let half = text.trim().len() / 2;
    re.captures_iter(text)
        .filter_map(|c| c.get(1).or_else(|| c.get(0)))
        .map(|m| m.range())
        .filter(|r| r.len() <= half)
        .collect()
}

/// Byte spans of the phrases a negation word opens, each to the end of its clause (a comma,
/// a sentence end or a clause word) and at most [`NEGATION_WORDS`] words long.
fn negated_spans(text: &str) -> Vec<Range<usize>> {
    let (words, lower) = lowercase_words(text);
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
        let (j, end) = clause_run(text, &words, &lower, i + cue_len, NEGATION_WORDS);
        if j > i + cue_len {
            out.push(start..end);
        }
        i = j.max(i + 1);
    }
    out
}

/// How far a phrase runs whose cue ends before word `from`: over at most `most` more words,
/// up to the end of its clause. Returns the index of the first word after it and the byte
/// where it ends (the cue's end when no word follows in the clause).
fn clause_run(
    text: &str,
    words: &[Range<usize>],
    lower: &[String],
    from: usize,
    most: usize,
) -> (usize, usize) {
    let mut end = words[from - 1].end;
    let mut j = from;
    while j < words.len() && j < from + most {
        if CLAUSE_ENDS.contains(&lower[j].as_str()) || breaks_clause(&text[end..words[j].start]) {
            break;
        }
        end = words[j].end;
        j += 1;
    }
    (j, end)
}

/// Whether the text between two words ends a clause.
fn breaks_clause(between: &str) -> bool {
    between.contains([',', ';', '.', '?', '!', ':', '(', ')'])
}

/// The words of `text` ([`word_spans`]) and each in lower case.
fn lowercase_words(text: &str) -> (Vec<Range<usize>>, Vec<String>) {
    let words = word_spans(text);
    let lower = words
        .iter()
        .map(|r| text[r.clone()].to_lowercase())
        .collect();
    (words, lower)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negations_run_to_the_clause_end() {
        let text = "without cloning the repo, show me its README";
        let a = QueryAnalysis::of(text);
        assert_eq!(&text[a.negated[0].clone()], "without cloning the repo");
        let m = a.masked(text, &[], false).unwrap();
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
            a.masked(text, &[EntityKind::Repository], false).as_deref(),
            Some("search issues in repository")
        );
        assert_eq!(a.locality, Some(Locality::Remote));
        assert_eq!(
            QueryAnalysis::of("grep my project for TODO").locality,
            Some(Locality::Local)
        );
        assert!(QueryAnalysis::of("plan a trip")
            .masked("plan a trip", &[], false)
            .is_none());
    }

    #[test]
    fn quoted_text_is_a_value_and_negates_nothing() {
        let text = r#"email bob with subject "Don't forget the demo" about the team's plan"#;
        let a = QueryAnalysis::of(text);
        assert!(a.negated.is_empty(), "{:?}", a.negated);
        assert_eq!(&text[a.quoted[0].clone()], r#""Don't forget the demo""#);
        assert_eq!(
            a.masked(text, &[], true).as_deref(),
            Some("email bob with subject text about the team's plan")
        );
        let text = "search for 'EnableLegacyAuth' in the v1.8.0 tag";
        let a = QueryAnalysis::of(text);
        assert_eq!(&text[a.quoted[0].clone()], "'EnableLegacyAuth'");
        // A quote around most of the request is the request, not a value in it.
        let text = r#""What is the weather in Paris tomorrow?""#;
        assert!(QueryAnalysis::of(text).quoted.is_empty());
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
            let _ = a.masked(&text, &[EntityKind::Repository, EntityKind::Path, EntityKind::Issue], true);
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_text_analyses_at_character_boundaries(text in crate::hostile_text::text()) {
            let a = QueryAnalysis::of(&text);
            let spans = a.entities.iter().map(|e| &e.span).chain(&a.negated).chain(&a.purposes).chain(&a.quoted).chain(&a.reported);
            for r in spans {
                proptest::prop_assert!(text.get(r.clone()).is_some(), "{r:?}");
            }
            let every = [EntityKind::Repository, EntityKind::Path, EntityKind::Issue, EntityKind::Url];
            let _ = a.masked(&text, &every, true);
            let _ = a.kinds();
            let _ = ecosystem_named(&text);
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
            let _ = a.masked(text, &[EntityKind::Repository, EntityKind::Path], true);
        }
    }
}

//! Purpose clauses: why the user wants something done, or what they will do next ("show
//! the last 100 lines so I can see why", "type-check the package before I commit", "list
//! the open issues in order to triage them"). The clause is the user's own later step, not
//! the tool's task: "before I file one" asks for no tool that files issues, "so I can grep
//! it" for no search tool. Like a negated phrase it is left out of what name, keyword and
//! action evidence read. Nothing here knows a tool; the cues are English conjunctions.
//!
//! A sentence in which the user says they will do something themselves ("I'll paste them
//! into the ticket myself", "I want to ask them on Slack afterwards") is such a step too.

use super::{clause_run, lowercase_words};
use std::ops::Range;

/// Subjects after "so" or "before" that make it open a clause of the user's own doing.
const SUBJECTS: &[&str] = &["i", "we", "you", "they", "i'll", "we'll", "i'm", "we're"];

/// Modal verbs after "so <subject>": "so I can", "so we could".
const MODALS: &[&str] = &[
    "can", "could", "may", "might", "will", "would", "need", "have",
];

/// The longest a purpose clause runs after its cue, in words. Longer than a negation: a
/// purpose names a whole later step ("so I can attach it to the bug report").
const PURPOSE_WORDS: usize = 8;

/// First-person subjects that open a sentence of the user's own doing.
const OWN_SUBJECTS: &[&str] = &["i", "we", "i'll", "we'll", "i'm", "we're", "i'd", "we'd"];

/// Words that mark what a first-person sentence says as done by the user, or after the
/// task: "myself", "afterwards".
const OWN_MARKERS: &[&str] = &["myself", "ourselves", "afterwards", "afterward"];

/// Byte spans of purpose clauses, cue included, to the clause end; then of the sentences of
/// the user's own doing (`own_doing`).
pub(super) fn purpose_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = cued_spans(text);
    let own: Vec<Range<usize>> = own_doing(text)
        .into_iter()
        .filter(|o| !out.iter().any(|c| c.start < o.end && o.start < c.end))
        .collect();
    out.extend(own);
    out.sort_by_key(|r| r.start);
    out
}

/// Sentences (split at `.;?!` and dashes) that open with a first-person subject and end by
/// saying the user will do it themselves or afterwards. A request that is one such sentence
/// states its own task ("I want to do it myself: which tool?"), so a lone sentence is never
/// one.
fn own_doing(text: &str) -> Vec<Range<usize>> {
    let mut sentences = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        // A full stop inside a name ("main.rs", "v1.2") ends nothing.
        let at_end = text[i + c.len_utf8()..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace);
        let ends = match c {
            '.' | '?' | '!' => at_end,
            ';' | '\n' | '—' | '–' => true,
            _ => false,
        };
        if ends {
            sentences.push(start..i);
            start = i + c.len_utf8();
        }
    }
    sentences.push(start..text.len());
    sentences.retain(|r| !text[r.clone()].trim().is_empty());
    if sentences.len() < 2 {
        return Vec::new();
    }
    sentences
        .into_iter()
        .filter_map(|r| {
            let (words, lower) = lowercase_words(&text[r.clone()]);
            let first = lower.first()?.replace('’', "'");
            // Last, the marker says who does it or when ("... into the ticket myself"); inside,
            // "myself" is often an object ("introduce myself and my work").
            let marked = lower
                .last()
                .is_some_and(|w| OWN_MARKERS.contains(&w.as_str()));
            (OWN_SUBJECTS.contains(&first.as_str()) && marked)
                .then(|| r.start + words[0].start..r.start + words[words.len() - 1].end)
        })
        .collect()
}

/// Byte spans of purpose clauses that open with a cue ("so I can", "before I").
fn cued_spans(text: &str) -> Vec<Range<usize>> {
    let (words, lower) = lowercase_words(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let Some(cue) = cue_len(&lower[i..]) else {
            i += 1;
            continue;
        };
        let start = words[i].start;
        // A cue that opens a sentence opens no side clause: "So I can read PDFs: which
        // tool?" states the task itself.
        let opens_sentence =
            i == 0 || text[words[i - 1].end..start].contains(['.', '?', '!', ';', '\n']);
        let (j, end) = clause_run(text, &words, &lower, i + cue, PURPOSE_WORDS);
        if j > i + cue && !opens_sentence {
            out.push(start..end);
        }
        i = j.max(i + 1);
    }
    out
}

/// How many words of `rest` (lowercase words from a position on) are a purpose cue: "in
/// order to", "so that", "so <subject> <modal>", "before <subject>".
fn cue_len(rest: &[String]) -> Option<usize> {
    let word = |k: usize| rest.get(k).map(String::as_str);
    let subject = |k: usize| word(k).is_some_and(|w| SUBJECTS.contains(&w));
    let modal = |k: usize| word(k).is_some_and(|w| MODALS.contains(&w));
    match word(0)? {
        "in" if word(1) == Some("order") && word(2) == Some("to") => Some(3),
        "so" if word(1) == Some("that") => Some(2),
        "so" if subject(1) && (modal(2) || word(1).is_some_and(|w| w.contains('\''))) => {
            Some(if modal(2) { 3 } else { 2 })
        }
        "before" if subject(1) => Some(2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn purposes(text: &str) -> Vec<&str> {
        purpose_spans(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn a_purpose_runs_from_its_cue_to_the_clause_end() {
        assert_eq!(
            purposes("show the last 100 lines it printed so I can see why"),
            ["so I can see why"]
        );
        assert_eq!(
            purposes("type-check the package before I commit and report any errors"),
            ["before I commit"]
        );
        assert_eq!(
            purposes("any bug reports mentioning it? check before I file one"),
            ["before I file one"]
        );
        assert_eq!(
            purposes("list open issues in order to triage them, then label them"),
            ["in order to triage them"]
        );
        assert_eq!(
            purposes("dump the text layer so that grep can read it"),
            ["so that grep can read it"]
        );
    }

    /// "I'll paste them into JIRA-4411 myself" had asked for the issue tracker's tools.
    #[test]
    fn a_sentence_of_the_users_own_doing_is_a_purpose() {
        assert_eq!(
            purposes(
                "last 200 lines from the api container. I'll paste them into JIRA-4411 myself"
            ),
            ["I'll paste them into JIRA-4411 myself"]
        );
        assert_eq!(
            purposes("find the line that raises it; I want to ask them on Slack afterwards"),
            ["I want to ask them on Slack afterwards"]
        );
        // A lone sentence states the task; one without a marker is context.
        assert!(purposes("I want to edit the config myself").is_empty());
        assert!(
            purposes("I need an email to introduce myself to a team. Can you help?").is_empty()
        );
        assert!(purposes("I'm visiting Tokyo. Find temples near Shibuya").is_empty());
        assert!(purposes("tail the log. then mail it to me afterwards").is_empty());
    }

    #[test]
    fn so_and_before_without_a_subject_open_nothing() {
        assert!(purposes("logs from before 5pm").is_empty());
        assert!(purposes("it failed, so rerun the job").is_empty());
        assert!(purposes("so I can read files: which tool?").is_empty());
        assert!(purposes("I have a PDF. So I can search it, convert it").is_empty());
        assert!(purposes("before merging, run the tests").is_empty());
        assert!(purposes("show it before I").is_empty());
    }
}

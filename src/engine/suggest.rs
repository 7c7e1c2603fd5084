//! Query suggestions: a correction when the query is a near-miss of a tool name, spelling
//! corrections of words the catalog does not have ("serch" -> "search"), a broader query
//! without the words nothing corrects (when enough of the query is left to mean the same),
//! and narrower queries when the top results are too close to call.

use super::request::SearchRequest;
use super::Engine;
use crate::catalog::normalize_name;
use crate::index::keyword::analyze;
use crate::rank::Ranked;

/// Names at most this many edits away from the query count as near-misses.
const NAME_EDITS: usize = 2;
/// Top results within this score of each other are "too close to call".
const CLOSE_SCORES: f64 = 0.05;
const MAX_SUGGESTIONS: usize = 5;

/// A query word whose terms the keyword index has never seen, and the catalog word it is
/// probably a misspelling of.
pub(super) struct UnknownWord<'q> {
    pub(super) word: &'q str,
    pub(super) correction: Option<String>,
}

/// A word without the punctuation around it: "repositry?" -> "repositry".
fn core(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric())
}

impl Engine {
    /// Tools whose id, name or alias the query misses by 1 or 2 edits (a typo: "ripgrp"),
    /// as `(edits, ordinal)`, closest first; none when the query names a tool exactly or is
    /// longer than a name (over three words). A name of n characters allows n / 3 edits, at
    /// least 1 and at most [`NAME_EDITS`], so short names do not match every short word.
    pub(super) fn near_names(&self, query: &str, exact: Option<u32>) -> Vec<(usize, u32)> {
        let q = normalize_name(query);
        if exact.is_some() || query.split_whitespace().count() > 3 || q.len() < 3 {
            return Vec::new();
        }
        self.snapshot()
            .names
            .near_misses(&q, NAME_EDITS, |len| NAME_EDITS.min(len / 3).max(1))
    }

    /// The words of `query` the catalog does not have (none of their analysed terms is in the
    /// keyword index), each with its spelling correction if one is close enough and the word
    /// is not a real word of the model's vocabulary. Stop words are never unknown. Empty when
    /// every word is known, the common case, which costs one term lookup per word.
    pub(super) fn unknown_words<'q>(&self, query: &'q str) -> Vec<UnknownWord<'q>> {
        let snap = self.snapshot();
        query
            .split_whitespace()
            .filter(|w| {
                let terms = analyze(w);
                !terms.is_empty() && terms.iter().all(|t| !snap.keyword.contains_term(t))
            })
            .map(|word| {
                let core = core(word);
                // A real word the catalog lacks ("book" in "book a flight") is not a typo of
                // a catalog word ("look"): the model's vocabulary tells them apart.
                let real = snap
                    .semantic
                    .as_ref()
                    .is_some_and(|s| s.embedder.knows_word(&core.to_lowercase()));
                UnknownWord {
                    word,
                    correction: if real {
                        None
                    } else {
                        snap.vocabulary.correct(core).map(str::to_string)
                    },
                }
            })
            .collect()
    }

    /// `lead`, then why the query's own words (`unknown`, from [`Engine::unknown_words`]) may
    /// be the reason: a misspelling (whose correction `query_suggestions` carries), or words no
    /// tool mentions.
    pub(super) fn words_hint(unknown: &[UnknownWord<'_>], lead: String) -> String {
        let quoted = |w: &str| format!("\"{w}\"");
        let misspelt: Vec<String> = unknown
            .iter()
            .filter_map(|u| {
                let c = u.correction.as_deref()?;
                Some(format!("{} may be {}", quoted(u.word), quoted(c)))
            })
            .collect();
        let missing: Vec<String> = unknown
            .iter()
            .filter(|u| u.correction.is_none())
            .map(|u| quoted(u.word))
            .collect();
        let mut hint = lead;
        if misspelt.is_empty() {
            hint.push_str(": the catalog may have no tool for this");
        } else {
            hint.push_str(&format!(
                ": {} (query_suggestions has the corrected query)",
                misspelt.join(", ")
            ));
        }
        if !missing.is_empty() {
            hint.push_str(&format!("; no tool mentions {}", missing.join(", ")));
        }
        hint
    }

    /// The query suggestions, in this order: near-misses of tool names, the corrected and
    /// the broader query, narrower queries when the top results are too close to call.
    pub(super) fn suggestions(
        &self,
        req: &SearchRequest,
        unknown: &[UnknownWord<'_>],
        near_names: &[(usize, u32)],
        ranked: &[Ranked],
        shown: usize,
    ) -> Vec<String> {
        let tools = self.snapshot().catalog.tools();
        let mut out = Suggestions {
            query: &req.query,
            list: Vec::new(),
        };
        // Near-miss of a tool name: "ripgrp" -> "ripgrep".
        for &(_, o) in near_names.iter().take(2) {
            out.push(tools[o as usize].name.clone());
        }
        out.push_reworded(unknown);
        self.push_narrower(&mut out, ranked, shown);
        let mut out = out.list;
        out.truncate(MAX_SUGGESTIONS);
        out
    }

    /// Too close to call: each leading tool's most telling keyword added to the query.
    fn push_narrower(&self, out: &mut Suggestions<'_>, ranked: &[Ranked], shown: usize) {
        let tools = self.snapshot().catalog.tools();
        let top: Vec<&Ranked> = ranked
            .iter()
            .filter(|r| r.score > 0.0)
            .take(shown.min(5))
            .collect();
        if top.len() >= 3 && top[0].score - top[top.len() - 1].score < CLOSE_SCORES {
            let query = out.query;
            let query_terms = analyze(query);
            for r in top.iter().take(3) {
                let t = &tools[r.ordinal as usize];
                if let Some(k) = t
                    .search_keywords
                    .iter()
                    .find(|k| analyze(k).iter().all(|w| !query_terms.contains(w)))
                {
                    out.push(format!("{query} {k}"));
                }
            }
        }
    }
}

/// The suggestions so far, each new one checked against them and the query.
struct Suggestions<'q> {
    query: &'q str,
    list: Vec<String>,
}

impl Suggestions<'_> {
    /// Adds `s` unless it is blank, the query itself or already suggested.
    fn push(&mut self, s: String) {
        if !s.trim().is_empty() && s != self.query && !self.list.contains(&s) {
            self.list.push(s);
        }
    }

    /// Words the catalog has never seen make a query weaker, not stronger: a misspelt
    /// catalog word is corrected, and without the words nothing corrects the query is
    /// broader. Broader only while it keeps most of the query's content terms: "translate
    /// text to french" without "translate" and "french" is "text to", and "schedule a
    /// meeting" without "meeting" is "schedule a": other requests, not broader ones.
    fn push_reworded(&mut self, unknown: &[UnknownWord<'_>]) {
        if unknown.is_empty() {
            return;
        }
        let words: Vec<&str> = self.query.split_whitespace().collect();
        let corrected: Vec<String> = words
            .iter()
            .map(|w| match unknown.iter().find(|u| u.word == *w) {
                Some(UnknownWord {
                    correction: Some(c),
                    ..
                }) => w.replacen(core(w), c, 1),
                _ => w.to_string(),
            })
            .collect();
        if unknown.iter().any(|u| u.correction.is_some()) {
            self.push(corrected.join(" "));
        }
        let kept: Vec<&str> = words
            .iter()
            .zip(&corrected)
            .filter(|(w, _)| {
                !unknown
                    .iter()
                    .any(|u| u.word == **w && u.correction.is_none())
            })
            .map(|(_, c)| c.as_str())
            .collect();
        let kept = kept.join(" ");
        let (kept_terms, all_terms) = (analyze(&kept).len(), analyze(self.query).len());
        if 2 * kept_terms > all_terms && kept != corrected.join(" ") {
            self.push(kept);
        }
    }
}

//! What the keyword index is asked: a query's text, and the terms of it that are no
//! evidence of a tool's name (the words of the paths and other values it carries).

use super::INDEXING_ANALYZER;
use std::ops::Range;
use tantivy::tokenizer::TokenStream;

/// A keyword query: its text, and the analysed terms of it that are no evidence of a tool's
/// name (`unnamed`): words met only inside a path or another value of the request
/// ("docker-compose.yml" asks for no tool named docker). Such a term scores in every field
/// of a tool but its names, and covers no part of a name (`coverage`).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeywordQuery<'a> {
    pub text: &'a str,
    pub unnamed: &'a [String],
}

impl<'a> From<&'a str> for KeywordQuery<'a> {
    fn from(text: &'a str) -> Self {
        KeywordQuery { text, unnamed: &[] }
    }
}

impl<'a> From<&'a String> for KeywordQuery<'a> {
    fn from(text: &'a String) -> Self {
        KeywordQuery::from(text.as_str())
    }
}

/// The analysed terms (pairs of words included) of `text` that occur inside `spans` (byte
/// ranges of `text`) and nowhere else but in `gone` (ranges the query leaves out): what a
/// [`KeywordQuery`] reads as unnamed, sorted.
pub fn terms_only_within(text: &str, spans: &[Range<usize>], gone: &[Range<usize>]) -> Vec<String> {
    if spans.is_empty() {
        return Vec::new();
    }
    let within = |ranges: &[Range<usize>], from: usize, to: usize| {
        ranges.iter().any(|s| s.start <= from && to <= s.end)
    };
    let mut analyzer = INDEXING_ANALYZER.clone();
    let mut stream = analyzer.token_stream(text);
    let mut inside: Vec<String> = Vec::new();
    let mut outside: Vec<String> = Vec::new();
    while let Some(token) = stream.next() {
        let (from, to) = (token.offset_from, token.offset_to);
        if within(spans, from, to) {
            inside.push(token.text.clone());
        } else if !within(gone, from, to) {
            outside.push(token.text.clone());
        }
    }
    inside.retain(|t| !outside.contains(t));
    inside.sort_unstable();
    inside.dedup();
    inside
}

/// The analysed terms (pairs of words included) of `text` outside `gone`, sorted: what a
/// request says in its own words.
pub fn terms_outside(text: &str, gone: &[Range<usize>]) -> Vec<String> {
    let mut analyzer = INDEXING_ANALYZER.clone();
    let mut stream = analyzer.token_stream(text);
    let mut out: Vec<String> = Vec::new();
    while let Some(token) = stream.next() {
        let (from, to) = (token.offset_from, token.offset_to);
        if !gone.iter().any(|s| s.start <= from && to <= s.end) {
            out.push(token.text.clone());
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{build, doc, ordinals};
    use super::*;

    /// "read the environment block in docker-compose.yml" had put a tool named docker first
    /// on the path's word: a word met only inside a value counts in a tool's text, not its
    /// names.
    #[test]
    fn an_unnamed_term_scores_everywhere_but_in_names() {
        let docs = [
            doc(0, "docker run", "containers", "runs a container"),
            doc(1, "file viewer", "", "shows docker compose files"),
            doc(2, "weather", "", "forecasts"),
        ];
        let index = build(&docs);
        let q = "read the environment block in docker-compose.yml";
        let path = q.find("docker").unwrap()..q.len();
        assert_eq!(ordinals(&index.search(q, 3, None)), [0, 1]);
        let unnamed = terms_only_within(q, std::slice::from_ref(&path), &[]);
        for word in ["docker", "compos", "yml"] {
            assert!(unnamed.iter().any(|t| t == word), "{unnamed:?}");
        }
        assert!(!unnamed.iter().any(|t| t == "read" || t == "environ"));
        let query = KeywordQuery {
            text: q,
            unnamed: &unnamed,
        };
        let hits = index.search(query, 3, None);
        assert_eq!(ordinals(&hits), [1]);
        // No name is reported as met either, and the exact scores agree with the search's.
        assert!(hits[0].matched.iter().all(|(f, _)| *f != "names"));
        let exact = index.score_ordinals(query, &[0, 1]);
        assert!(exact[0].is_none());
        assert_eq!(exact[1].as_ref().map(|h| h.bm25), Some(hits[0].bm25));
        // A word met outside the values too stays a name's word.
        let q = "docker: read docker-compose.yml";
        let path = q.rfind("docker").unwrap()..q.len();
        let unnamed = terms_only_within(q, std::slice::from_ref(&path), &[]);
        assert!(!unnamed.iter().any(|t| t == "docker"), "{unnamed:?}");
        assert!(unnamed.iter().any(|t| t == "compos"), "{unnamed:?}");
        // Unless the query leaves that other place out.
        let label = 0..7;
        let unnamed =
            terms_only_within(q, std::slice::from_ref(&path), std::slice::from_ref(&label));
        assert!(unnamed.iter().any(|t| t == "docker"), "{unnamed:?}");
        assert!(terms_only_within(q, &[], &[]).is_empty());
    }
}

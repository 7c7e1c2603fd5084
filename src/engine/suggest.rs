//! Query suggestions: a correction when the query is a near-miss of a tool name, a broader
//! query when some words are unknown to the catalog, and narrower queries when the top
//! results are too close to call.

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

impl Engine {
    pub(super) fn suggestions(
        &self,
        req: &SearchRequest,
        exact: Option<u32>,
        ranked: &[Ranked],
        shown: usize,
    ) -> Vec<String> {
        let snap = self.snapshot();
        let tools = snap.catalog.tools();
        let mut out: Vec<String> = Vec::new();
        let push = |s: String, out: &mut Vec<String>| {
            if !s.trim().is_empty() && s != req.query && !out.contains(&s) {
                out.push(s);
            }
        };

        // Near-miss of a tool name: "ripgrp" -> "ripgrep".
        let q = normalize_name(&req.query);
        if exact.is_none() && req.query.split_whitespace().count() <= 3 && q.len() >= 3 {
            let close = snap
                .names
                .near_misses(&q, NAME_EDITS, |len| NAME_EDITS.min(len / 3).max(1));
            for (_, o) in close.into_iter().take(2) {
                push(tools[o as usize].name.clone(), &mut out);
            }
        }

        // Words the catalog has never seen make a query weaker, not stronger.
        let words: Vec<&str> = req.query.split_whitespace().collect();
        let unknown: Vec<&str> = words
            .iter()
            .copied()
            .filter(|w| {
                let terms = analyze(w);
                !terms.is_empty() && terms.iter().all(|t| !snap.keyword.contains_term(t))
            })
            .collect();
        if !unknown.is_empty() && unknown.len() < words.len() {
            let kept: Vec<&str> = words
                .iter()
                .copied()
                .filter(|w| !unknown.contains(w))
                .collect();
            push(kept.join(" "), &mut out);
        }

        // Too close to call: add each leading tool's most telling keyword.
        let top: Vec<&Ranked> = ranked
            .iter()
            .filter(|r| r.score > 0.0)
            .take(shown.min(5))
            .collect();
        if top.len() >= 3 && top[0].score - top[top.len() - 1].score < CLOSE_SCORES {
            let query_terms = analyze(&req.query);
            for r in top.iter().take(3) {
                let t = &tools[r.ordinal as usize];
                if let Some(k) = t
                    .search_keywords
                    .iter()
                    .find(|k| analyze(k).iter().all(|w| !query_terms.contains(w)))
                {
                    push(format!("{} {k}", req.query), &mut out);
                }
            }
        }
        out.truncate(MAX_SUGGESTIONS);
        out
    }
}

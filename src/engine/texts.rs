//! The texts a search reads from a request: the request itself for exact names and
//! suggestions, and for keyword and vector retrieval the request with negated phrases left
//! out and the values of some entity kinds replaced by their kind's word (see
//! `analysis::QueryAnalysis::masked`), so that a repository named like a tool, or a tool the
//! request says not to use, is no evidence for that tool.

use crate::analysis::{EntityKind, QueryAnalysis};

/// What keyword and vector retrieval read.
pub(crate) struct QueryTexts {
    pub(crate) keyword: String,
    pub(crate) embed: String,
}

/// Entity kinds whose values name things, not tasks: masked at `level` 2 and above; level 3
/// also masks the values of every other kind but symbols and dates.
fn masked_kinds(level: f64) -> &'static [EntityKind] {
    use EntityKind::*;
    if level >= 3.0 {
        &[Repository, Package, Url, Email, Path, FileType, PullRequest, Issue, Line, Regex, Sql]
    } else if level >= 2.0 {
        &[Repository, Package, Url, Email]
    } else {
        &[]
    }
}

impl QueryTexts {
    pub(crate) fn of(query: &str, analysis: &QueryAnalysis) -> QueryTexts {
        let text = |level: f64| {
            if level < 1.0 {
                return query.to_string();
            }
            analysis
                .masked(query, masked_kinds(level))
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| query.to_string())
        };
        QueryTexts {
            keyword: text(crate::exp::knob("MASKKW", 0.0)),
            embed: text(crate::exp::knob("MASKEMB", 0.0)),
        }
    }
}

//! How responses are presented (seed 004): `response_format` json | markdown and
//! `detail_level` concise | detailed, for every discovery response and every door (HTTP, CLI,
//! MCP). The engine computes one full response; this module only chooses what of it to show
//! and how, so the same request gives the same answer whatever it is rendered as.
//!
//! Concise keeps what an agent needs to pick a tool (id, score, confidence, the reason in a
//! line, a one-sentence summary) and drops the evidence, parameters and per-hit metadata that
//! detailed responses carry; the test suite measures the saving in model tokens.

mod compare;
mod recommend;
mod search;

pub use compare::{compare_markdown, compare_response_format, render_compare};
pub use recommend::{recommend_concise_json, recommend_markdown};
pub use search::{search_concise_json, search_markdown};

use crate::engine::{RecommendationResponse, SearchResponse};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Seed 004 `response_format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseFormat {
    #[default]
    Json,
    Markdown,
}

/// Seed 004 `detail_level`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DetailLevel {
    Concise,
    #[default]
    Detailed,
}

/// What a caller asked to see; the default is JSON, detailed (the full response).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Presentation {
    #[serde(default)]
    pub response_format: ResponseFormat,
    #[serde(default)]
    pub detail_level: DetailLevel,
}

impl Presentation {
    /// Reads `response_format` and `detail_level` from a request body that its schema has
    /// already accepted (the schemas list both fields with their allowed values, so a wrong
    /// value is reported with every other violation of the body).
    pub fn from_body(body: &Value) -> Result<Presentation> {
        let pick = |key: &str| body.get(key).cloned().unwrap_or(Value::Null);
        let value = serde_json::json!({
            "response_format": pick("response_format"),
            "detail_level": pick("detail_level"),
        });
        let value = match value {
            Value::Object(map) => {
                Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
            }
            other => other,
        };
        serde_json::from_value(value).map_err(|e| {
            Error::Internal(format!("presentation passed the schema but not serde: {e}"))
        })
    }
}

/// A response ready for a transport: a JSON value or a Markdown document.
#[derive(Debug, Clone, PartialEq)]
pub enum Rendered {
    Json(Value),
    Markdown(String),
}

impl Rendered {
    /// The text a CLI prints or an MCP tool returns.
    pub fn to_text(&self) -> String {
        match self {
            Rendered::Json(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
            Rendered::Markdown(s) => s.clone(),
        }
    }
}

/// A search response as asked.
pub fn render_search(r: &SearchResponse, p: Presentation) -> Result<Rendered> {
    Ok(match (p.response_format, p.detail_level) {
        (ResponseFormat::Json, DetailLevel::Detailed) => {
            Rendered::Json(serde_json::to_value(r).map_err(|e| Error::Internal(e.to_string()))?)
        }
        (ResponseFormat::Json, DetailLevel::Concise) => Rendered::Json(search_concise_json(r)),
        (ResponseFormat::Markdown, detail) => {
            Rendered::Markdown(search_markdown(r, detail == DetailLevel::Detailed))
        }
    })
}

/// A recommendation response as asked.
pub fn render_recommend(r: &RecommendationResponse, p: Presentation) -> Result<Rendered> {
    Ok(match (p.response_format, p.detail_level) {
        (ResponseFormat::Json, DetailLevel::Detailed) => {
            Rendered::Json(serde_json::to_value(r).map_err(|e| Error::Internal(e.to_string()))?)
        }
        (ResponseFormat::Json, DetailLevel::Concise) => Rendered::Json(recommend_concise_json(r)),
        (ResponseFormat::Markdown, detail) => {
            Rendered::Markdown(recommend_markdown(r, detail == DetailLevel::Detailed))
        }
    })
}

/// Markdown table cell: no pipes or line breaks inside.
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The first sentence of `s`, cut to about `max` characters.
pub(crate) fn first_sentence(s: &str, max: usize) -> String {
    let sentence = match s.find(". ") {
        Some(i) => &s[..=i],
        None => s,
    };
    if sentence.chars().count() > max {
        let cut: String = sentence.chars().take(max.saturating_sub(3)).collect();
        format!("{}...", cut.trim_end())
    } else {
        sentence.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn presentation_defaults_and_values() {
        assert_eq!(
            Presentation::from_body(&json!({"query": "x"})).unwrap(),
            Presentation::default()
        );
        let p = Presentation::from_body(
            &json!({"query": "x", "response_format": "markdown", "detail_level": "concise"}),
        )
        .unwrap();
        assert_eq!(p.response_format, ResponseFormat::Markdown);
        assert_eq!(p.detail_level, DetailLevel::Concise);
    }

    #[test]
    fn first_sentence_cuts() {
        assert_eq!(first_sentence("One. Two.", 100), "One.");
        assert_eq!(first_sentence("abcdefghij", 8), "abcde...");
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_text_cuts_to_whole_characters(text in crate::hostile_text::text(), max in 0usize..300) {
            let s = first_sentence(&text, max);
            proptest::prop_assert!(s.chars().count() <= max.max(3), "{} > {max}", s.chars().count());
            proptest::prop_assert!(!cell(&text).contains('\n'));
        }
    }
}

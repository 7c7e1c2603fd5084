//! The naive baseline every quality table carries: documents "name. description", BM25 over
//! plain lowercase word tokens, the model's cosine, each min-max scaled over the catalog per
//! query and summed with weights 0.3 and 0.7. It is what an agent developer gets from an
//! afternoon with a sentence model and a BM25 library; a ranking change that does not beat it
//! on sets it was not tuned on is not a gain.
//!
//! Its second form puts every parameter ("name: description") in the document too: the
//! naive way to index a catalog with input schemas, against which the engine's own use of
//! parameters has to show its worth.

use super::Mode;
use crate::catalog::ToolRecord;
use crate::embed::Embedder;
use crate::error::Result;
use std::collections::HashMap;

/// Dense weight of the baseline's fusion (the BM25 weight is the rest).
const DENSE_WEIGHT: f64 = 0.7;
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Texts embedded in one call.
const BATCH: usize = 64;

/// The baseline's index of one catalog.
pub struct Baseline {
    /// `Mode::Baseline`, or `Mode::BaselineParameters` for documents with parameters.
    mode: Mode,
    ids: Vec<String>,
    /// Term frequencies of each document.
    docs: Vec<HashMap<String, u32>>,
    lengths: Vec<f64>,
    avg_length: f64,
    df: HashMap<String, u32>,
    vectors: Vec<Vec<f32>>,
}

/// Lowercase alphanumeric words.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Embeds texts in batches.
pub(crate) fn embed_all(embedder: &dyn Embedder, texts: &[String]) -> Result<Vec<Vec<f32>>> {
    let mut out = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(BATCH) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        out.extend(embedder.embed(&refs)?);
    }
    Ok(out)
}

/// The baseline's document of each tool: "name. description", and with `parameters` each
/// parameter's "name: description." after it.
pub(crate) fn documents(tools: &[ToolRecord], parameters: bool) -> Vec<String> {
    tools
        .iter()
        .map(|t| {
            let mut text = format!("{}. {}", t.name, t.description);
            if parameters {
                for p in &t.parameters {
                    text.push_str(&format!(" {}: {}.", p.name, p.description));
                }
            }
            text
        })
        .collect()
}

impl Baseline {
    /// The baseline of "name. description" documents.
    pub fn build(tools: &[ToolRecord], embedder: &dyn Embedder) -> Result<Baseline> {
        Baseline::of(tools, documents(tools, false), Mode::Baseline, embedder)
    }

    /// The baseline whose documents carry the parameters too.
    pub fn with_parameters(tools: &[ToolRecord], embedder: &dyn Embedder) -> Result<Baseline> {
        let texts = documents(tools, true);
        Baseline::of(tools, texts, Mode::BaselineParameters, embedder)
    }

    /// What produced this baseline's rankings.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    fn of(
        tools: &[ToolRecord],
        texts: Vec<String>,
        mode: Mode,
        embedder: &dyn Embedder,
    ) -> Result<Baseline> {
        let mut df: HashMap<String, u32> = HashMap::new();
        let mut docs = Vec::with_capacity(texts.len());
        let mut lengths = Vec::with_capacity(texts.len());
        for text in &texts {
            let ws = words(text);
            lengths.push(ws.len() as f64);
            let mut tf: HashMap<String, u32> = HashMap::new();
            for w in ws {
                *tf.entry(w).or_insert(0) += 1;
            }
            for w in tf.keys() {
                *df.entry(w.clone()).or_insert(0) += 1;
            }
            docs.push(tf);
        }
        let avg_length = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Ok(Baseline {
            mode,
            ids: tools.iter().map(|t| t.tool_id.clone()).collect(),
            docs,
            lengths,
            avg_length,
            df,
            vectors: embed_all(embedder, &texts)?,
        })
    }

    fn bm25(&self, query: &str) -> Vec<f64> {
        let n = self.docs.len() as f64;
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        (0..self.docs.len())
            .map(|d| {
                terms
                    .iter()
                    .filter_map(|t| {
                        let tf = f64::from(*self.docs[d].get(t)?);
                        let df = f64::from(self.df[t]);
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        let norm = K1 * (1.0 - B + B * self.lengths[d] / self.avg_length.max(1.0));
                        Some(idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .sum()
            })
            .collect()
    }

    /// Tool ids best first for a query whose vector is `qv`.
    pub fn rank(&self, query: &str, qv: &[f32], k: usize) -> Vec<&str> {
        let bm25 = min_max(self.bm25(query));
        let cos = min_max(
            self.vectors
                .iter()
                .map(|v| v.iter().zip(qv).map(|(a, b)| f64::from(a * b)).sum())
                .collect(),
        );
        let mut scored: Vec<(f64, usize)> = bm25
            .iter()
            .zip(&cos)
            .enumerate()
            .map(|(i, (b, c))| (DENSE_WEIGHT * c + (1.0 - DENSE_WEIGHT) * b, i))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(self.ids[a.1].cmp(&self.ids[b.1])));
        scored
            .into_iter()
            .take(k)
            .map(|(_, i)| self.ids[i].as_str())
            .collect()
    }
}

/// Scales values to 0..1 (all zero when they are all equal).
fn min_max(values: Vec<f64>) -> Vec<f64> {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi - lo <= f64::EPSILON {
        return vec![0.0; values.len()];
    }
    values.into_iter().map(|v| (v - lo) / (hi - lo)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bm25_prefers_the_rarer_matching_word() {
        let docs = ["weather forecast today", "stock prices today", "weather"];
        let mut b = Baseline {
            mode: Mode::Baseline,
            ids: vec!["a".into(), "b".into(), "c".into()],
            docs: Vec::new(),
            lengths: Vec::new(),
            avg_length: 0.0,
            df: HashMap::new(),
            vectors: vec![vec![0.0]; 3],
        };
        for d in docs {
            let ws = words(d);
            b.lengths.push(ws.len() as f64);
            let mut tf = HashMap::new();
            for w in ws {
                *tf.entry(w).or_insert(0) += 1;
            }
            for w in tf.keys() {
                *b.df.entry(w.clone()).or_insert(0) += 1;
            }
            b.docs.push(tf);
        }
        b.avg_length = 2.0;
        let s = b.bm25("Weather, today?");
        assert!(s[2] > s[1] && s[0] > s[1]);
        assert_eq!(b.rank("stock", &[0.0], 1), vec!["b"]);
    }

    #[test]
    fn the_second_form_puts_the_parameters_in_the_document() {
        let tool: crate::catalog::mcp::McpTool = serde_json::from_value(serde_json::json!({
            "name": "get_forecast",
            "description": "Weather ahead.",
            "inputSchema": {"type": "object", "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer"}}}
        }))
        .unwrap();
        let tools = [crate::catalog::mcp::record_from_mcp(
            &tool,
            None,
            "w.get_forecast".into(),
            "c".into(),
        )];
        assert_eq!(documents(&tools, false), ["get_forecast. Weather ahead."]);
        assert_eq!(
            documents(&tools, true),
            ["get_forecast. Weather ahead. city: City name. days: ."]
        );
    }

    #[test]
    fn min_max_handles_flat_input() {
        assert_eq!(min_max(vec![2.0, 2.0]), vec![0.0, 0.0]);
        assert_eq!(min_max(vec![1.0, 3.0]), vec![0.0, 1.0]);
    }
}

//! Retrieval-quality harness: builds an in-memory catalog from a tool set (any shape a catalog
//! comes in, `tools`), runs every query through `Engine::search` in each mode or through the
//! naive `baseline`, and reports Recall@1, Recall@5, NDCG@5 and MRR@10 (binary relevance).
//! `suite` runs every development set's tune or test half into one table; `learning` measures
//! ranking before and after replaying half of each tool's queries as feedback; `compare`
//! keeps each query's outcome and compares two runs query by query; `interval` bootstraps a
//! set's lead over the baseline by gold tool. Used by `toolscout eval` and by the
//! regression-floor tests.

mod baseline;
pub mod compare;
pub mod interval;
pub mod learning;
pub mod suite;
mod tools;

pub use baseline::Baseline;
pub use compare::Outcome;
pub use tools::{read_tool_entries, read_tools, record_of_eval, EvalTool};

use crate::catalog::{Catalog, ToolRecord};
use crate::config::SearchConfig;
use crate::embed::Embedder;
use crate::engine::{Engine, SearchMode, SearchRequest, Valid};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct EvalQuery {
    pub qid: String,
    pub query: String,
    pub relevant: Vec<String>,
}

/// Metrics of one mode, in percent.
#[derive(Debug, Clone, Serialize)]
pub struct ModeReport {
    pub mode: Mode,
    pub queries: usize,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub ndcg_at_5: f64,
    pub mrr_at_10: f64,
    pub queries_per_second: f64,
    /// Each query's NDCG@5, first five and gold tool (`compare`), in query order.
    #[serde(skip)]
    pub outcomes: Vec<Outcome>,
}

/// Reads a JSONL file, naming the line of any malformed record.
pub fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| Error::Validation {
                what: format!("{} line {}", path.display(), i + 1),
                violations: vec![crate::error::Violation {
                    pointer: String::new(),
                    message: e.to_string(),
                }],
            })
        })
        .collect()
}

/// Development-set tools as catalog records (see [`tools::record_of_eval`]).
pub fn to_records(tools: &[EvalTool]) -> Vec<ToolRecord> {
    tools.iter().map(record_of_eval).collect()
}

/// A deterministic sample of `limit` queries (all of them when `limit` is None).
pub fn sample(mut queries: Vec<EvalQuery>, limit: Option<usize>, seed: u64) -> Vec<EvalQuery> {
    let Some(limit) = limit else {
        return queries;
    };
    let mut state = seed;
    for i in (1..queries.len()).rev() {
        let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
        queries.swap(i, j);
    }
    queries.truncate(limit);
    queries
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The two models an evaluation runs: the product's (the engine embeds with it) and the
/// published one that the naive baseline embeds with (`Precision::Stock`), so the baseline
/// stays what a developer would build without toolscout.
pub struct Models {
    pub product: Arc<dyn Embedder>,
    pub baseline: Arc<dyn Embedder>,
}

/// Builds the engine for an eval set: no threshold, no response cache.
pub fn engine(
    tools: Vec<ToolRecord>,
    embedder: std::result::Result<Arc<dyn Embedder>, String>,
) -> Result<Engine> {
    engine_learning(tools, embedder, None)
}

/// [`engine`] with `learning_weight` in place of the default one, when given.
pub fn engine_learning(
    tools: Vec<ToolRecord>,
    embedder: std::result::Result<Arc<dyn Embedder>, String>,
    learning_weight: Option<f64>,
) -> Result<Engine> {
    let catalog = Catalog::from_tools("eval".into(), tools);
    let defaults = SearchConfig::default();
    let config = SearchConfig {
        similarity_threshold: 0.0,
        cache_size: 100_000,
        learning_weight: learning_weight.unwrap_or(defaults.learning_weight),
        ..defaults
    };
    let engine = Engine::build(Arc::new(catalog), embedder, config)?;
    Ok(engine)
}

/// Runs every query in `mode` and scores the rankings.
pub fn run(engine: &Engine, queries: &[EvalQuery], mode: SearchMode) -> Result<ModeReport> {
    if mode != SearchMode::Keyword {
        let texts: Vec<&str> = queries.iter().map(|q| q.query.as_str()).collect();
        engine.prime_query_vectors(&texts)?;
    }
    // Queries go in as their datasets give them, some longer than callers may send (see
    // `Valid::from_benchmark`).
    score(queries, Mode::Engine(mode), |q| {
        let mut req = SearchRequest::new(q.query.clone());
        req.search_mode = Some(mode);
        req.max_results = 10;
        let response = engine.search_fresh(&Valid::from_benchmark(req))?;
        Ok(response.results.iter().map(|r| r.tool_id.clone()).collect())
    })
}

/// Runs every query through the naive baseline and scores the rankings.
pub fn run_baseline(
    baseline: &Baseline,
    embedder: &dyn Embedder,
    queries: &[EvalQuery],
) -> Result<ModeReport> {
    let texts: Vec<String> = queries.iter().map(|q| q.query.clone()).collect();
    let vectors = baseline::embed_all(embedder, &texts)?;
    let mut next = vectors.iter();
    score(queries, baseline.mode(), |q| {
        let qv = next.next().map_or(&[][..], Vec::as_slice);
        Ok(baseline
            .rank(&q.query, qv, 10)
            .into_iter()
            .map(str::to_string)
            .collect())
    })
}

/// What produced a ranking: the engine in one of its modes, or the naive baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Baseline,
    /// The baseline whose documents carry each parameter's name and description too.
    BaselineParameters,
    #[serde(untagged)]
    Engine(SearchMode),
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Baseline => "baseline",
            Mode::BaselineParameters => "baseline_parameters",
            Mode::Engine(m) => m.as_str(),
        }
    }
}

/// Scores the ranking `rank` gives each query (in query order).
fn score(
    queries: &[EvalQuery],
    mode: Mode,
    mut rank: impl FnMut(&EvalQuery) -> Result<Vec<String>>,
) -> Result<ModeReport> {
    let start = Instant::now();
    let (mut r1, mut r5, mut ndcg, mut mrr) = (0.0, 0.0, 0.0, 0.0);
    let mut outcomes = Vec::with_capacity(queries.len());
    for q in queries {
        let ranking = rank(q)?;
        let ranked: Vec<&str> = ranking.iter().map(String::as_str).collect();
        let m = metrics(&ranked, &q.relevant);
        outcomes.push(Outcome::of(q, m.2, ranking));
        r1 += m.0;
        r5 += m.1;
        ndcg += m.2;
        mrr += m.3;
    }
    let secs = start.elapsed().as_secs_f64();
    let n = queries.len().max(1) as f64;
    Ok(ModeReport {
        mode,
        queries: queries.len(),
        recall_at_1: 100.0 * r1 / n,
        recall_at_5: 100.0 * r5 / n,
        ndcg_at_5: 100.0 * ndcg / n,
        mrr_at_10: 100.0 * mrr / n,
        queries_per_second: queries.len() as f64 / secs.max(1e-9),
        outcomes,
    })
}

/// Multi-tool queries (each needs all of its gold tools): how often search's and
/// recommend's first five hold every gold tool, and the mean share of gold tools they hold.
#[derive(Debug, Clone, Serialize)]
pub struct MultiReport {
    pub queries: usize,
    /// % of queries with every gold tool in hybrid search's first 5.
    pub search_all_at_5: f64,
    /// % of queries with every gold tool among recommend's 5 recommendations.
    pub recommend_all_at_5: f64,
    /// Mean % of gold tools in the first 5 (search) / the 5 recommendations.
    pub search_recall_at_5: f64,
    pub recommend_recall_at_5: f64,
    pub recommend_queries_per_second: f64,
    /// 90% interval, by first gold tool, of recommend's lead over search in queries with
    /// every gold tool in the first five (`interval`).
    pub recommend_lead_interval: Option<interval::Interval>,
    /// Each query's outcome (1 with every gold tool in the first five, else 0) in search
    /// and in recommend (`compare`), in query order.
    #[serde(skip)]
    pub search_outcomes: Vec<Outcome>,
    #[serde(skip)]
    pub recommend_outcomes: Vec<Outcome>,
}

/// Runs hybrid search and recommend on every query and compares their first five.
pub fn run_multi(engine: &Engine, queries: &[EvalQuery]) -> Result<MultiReport> {
    let (mut s_all, mut r_all, mut s_rec, mut r_rec) = (0.0, 0.0, 0.0, 0.0);
    let share = |ids: &[&str], q: &EvalQuery| {
        let found = q
            .relevant
            .iter()
            .filter(|g| ids.contains(&g.as_str()))
            .count();
        found as f64 / q.relevant.len().max(1) as f64
    };
    let mut recommend_secs = 0.0;
    let mut search_outcomes = Vec::with_capacity(queries.len());
    let mut recommend_outcomes = Vec::with_capacity(queries.len());
    let outcome = |q: &EvalQuery, share: f64, ids: &[&str]| {
        let all_gold = f64::from(u8::from(share >= 1.0));
        Outcome::of(q, all_gold, ids.iter().map(|id| id.to_string()))
    };
    for q in queries {
        let mut req = SearchRequest::new(q.query.clone());
        req.search_mode = Some(SearchMode::Hybrid);
        req.max_results = 5;
        let response = engine.search_fresh(&Valid::from_benchmark(req))?;
        let ids: Vec<&str> = response
            .results
            .iter()
            .map(|r| r.tool_id.as_str())
            .collect();
        let s = share(&ids, q);
        s_rec += s;
        s_all += f64::from(u8::from(s >= 1.0));
        search_outcomes.push(outcome(q, s, &ids));

        let mut rq = crate::engine::RecommendationRequest::new(q.query.clone());
        rq.max_recommendations = 5;
        let rq = Valid::from_benchmark(rq);
        let start = Instant::now();
        let rec = engine.recommend(&rq)?;
        recommend_secs += start.elapsed().as_secs_f64();
        let ids: Vec<&str> = rec
            .recommendations
            .iter()
            .map(|r| r.tool.tool_id.as_str())
            .collect();
        let r = share(&ids, q);
        r_rec += r;
        r_all += f64::from(u8::from(r >= 1.0));
        recommend_outcomes.push(outcome(q, r, &ids));
    }
    let n = queries.len().max(1) as f64;
    Ok(MultiReport {
        queries: queries.len(),
        search_all_at_5: 100.0 * s_all / n,
        recommend_all_at_5: 100.0 * r_all / n,
        search_recall_at_5: 100.0 * s_rec / n,
        recommend_recall_at_5: 100.0 * r_rec / n,
        recommend_queries_per_second: queries.len() as f64 / recommend_secs.max(1e-9),
        recommend_lead_interval: interval::lead_interval(&search_outcomes, &recommend_outcomes),
        search_outcomes,
        recommend_outcomes,
    })
}

/// The multi-tool report as text.
pub fn render_multi(r: &MultiReport) -> String {
    format!(
        "{} multi-tool queries
            all gold in 5   gold recall@5
search      {:>13.1} {:>15.1}
recommend   {:>13.1} {:>15.1}
recommend - search, all gold in 5, 90% interval by gold tool: {}
recommend: {:.0} queries/s
",
        r.queries,
        r.search_all_at_5,
        r.search_recall_at_5,
        r.recommend_all_at_5,
        r.recommend_recall_at_5,
        r.recommend_lead_interval.map_or_else(
            || "-".to_string(),
            |i| format!("{:+.1} to {:+.1}", i.low, i.high)
        ),
        r.recommend_queries_per_second
    )
}

/// (Recall@1, Recall@5, NDCG@5, MRR@10) of one ranking, binary relevance.
pub fn metrics(ranking: &[&str], relevant: &[String]) -> (f64, f64, f64, f64) {
    if relevant.is_empty() {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let is_rel = |id: &str| relevant.iter().any(|r| r == id);
    let hits_in = |k: usize| ranking.iter().take(k).filter(|id| is_rel(id)).count() as f64;
    let r1 = hits_in(1) / relevant.len().min(1) as f64;
    let r5 = hits_in(5) / relevant.len().min(5) as f64;
    let dcg: f64 = ranking
        .iter()
        .take(5)
        .enumerate()
        .filter(|(_, id)| is_rel(id))
        .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
        .sum();
    let idcg: f64 = (0..relevant.len().min(5))
        .map(|i| 1.0 / ((i + 2) as f64).log2())
        .sum();
    let mrr = ranking
        .iter()
        .take(10)
        .position(|id| is_rel(id))
        .map_or(0.0, |p| 1.0 / (p + 1) as f64);
    (r1, r5, dcg / idcg, mrr)
}

/// The report as an aligned text table.
pub fn render(reports: &[ModeReport]) -> String {
    let mut out = String::from("mode       queries    R@1    R@5  NDCG@5  MRR@10   queries/s\n");
    for r in reports {
        out.push_str(&format!(
            "{:<9} {:>8} {:>6.1} {:>6.1} {:>7.1} {:>7.1} {:>11.0}\n",
            r.mode.as_str(),
            r.queries,
            r.recall_at_1,
            r.recall_at_5,
            r.ndcg_at_5,
            r.mrr_at_10,
            r.queries_per_second
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_match_hand_computation() {
        let rel = vec!["b".to_string()];
        let (r1, r5, ndcg, mrr) = metrics(&["a", "b", "c"], &rel);
        assert_eq!(r1, 0.0);
        assert_eq!(r5, 1.0);
        assert!((ndcg - 1.0 / 3f64.log2()).abs() < 1e-12);
        assert_eq!(mrr, 0.5);
        let two = vec!["a".to_string(), "z".to_string()];
        let (_, r5, ndcg, _) = metrics(&["a", "b"], &two);
        assert_eq!(r5, 0.5);
        assert!((ndcg - 1.0 / (1.0 + 1.0 / 3f64.log2())).abs() < 1e-12);
    }

    #[test]
    fn sampling_is_deterministic() {
        let qs: Vec<EvalQuery> = (0..100)
            .map(|i| EvalQuery {
                qid: i.to_string(),
                query: format!("q{i}"),
                relevant: vec![],
            })
            .collect();
        let a: Vec<String> = sample(qs.clone(), Some(10), 7)
            .into_iter()
            .map(|q| q.qid)
            .collect();
        let b: Vec<String> = sample(qs.clone(), Some(10), 7)
            .into_iter()
            .map(|q| q.qid)
            .collect();
        let c: Vec<String> = sample(qs, Some(10), 8).into_iter().map(|q| q.qid).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}

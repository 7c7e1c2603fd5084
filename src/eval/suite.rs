//! The development suite: every set of a manifest (`eval/suite.json`), each split into tune
//! and test halves with a fixed seed, measured in every mode beside the naive baseline, plus
//! search against recommend on the multi-tool queries. Constants are chosen on tune halves;
//! the README reports test halves.
//!
//! Splits go by tool: a query belongs to the half of its first gold tool (in id order), and a
//! tool's half is a seeded hash of its id. A rule tuned on some tools' queries is then
//! measured on other tools' queries, as it will be on a user's catalog.

use super::interval::{lead_interval, Interval};
use super::{
    read_jsonl, read_tools, run, run_baseline, run_multi, sample, Baseline, EvalQuery, ModeReport,
    MultiReport,
};
use crate::engine::SearchMode;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The seed of the tune/test split, fixed so that every session measures the same halves.
pub const SPLIT_SEED: u64 = 14;

#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    #[serde(default = "default_seed")]
    pub seed: u64,
    pub sets: Vec<SetSpec>,
}

fn default_seed() -> u64 {
    SPLIT_SEED
}

/// One development set; paths are relative to the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct SetSpec {
    pub name: String,
    /// A tools file or a catalog directory (see `read_tools`).
    pub tools: PathBuf,
    pub queries: PathBuf,
    /// Multi-tool queries kept apart; without it, the queries with two gold tools or more.
    #[serde(default)]
    pub multi: Option<PathBuf>,
    /// At most this many queries a half (a seeded sample), for large sets.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Which half of a set to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Half {
    Tune,
    Test,
    All,
}

impl Half {
    pub fn as_str(self) -> &'static str {
        match self {
            Half::Tune => "tune",
            Half::Test => "test",
            Half::All => "all",
        }
    }

    /// Whether `q` falls in this half.
    pub fn holds(self, q: &EvalQuery, seed: u64) -> bool {
        match self {
            Half::All => true,
            Half::Tune => !in_test_half(q, seed),
            Half::Test => in_test_half(q, seed),
        }
    }
}

/// A query's half: that of its first gold tool in id order.
fn in_test_half(q: &EvalQuery, seed: u64) -> bool {
    let first = q.relevant.iter().min().map_or("", String::as_str);
    let mut state = seed ^ fnv1a(first);
    super::splitmix64(&mut state) & 1 == 1
}

pub(crate) fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The queries of `half`, sampled down to `limit`.
pub fn select(
    queries: Vec<EvalQuery>,
    half: Half,
    seed: u64,
    limit: Option<usize>,
) -> Vec<EvalQuery> {
    let kept = queries
        .into_iter()
        .filter(|q| half.holds(q, seed))
        .collect();
    sample(kept, limit, seed)
}

/// Runs the feedback protocol (`learning`) on one set of the manifest, on `half`'s queries.
pub fn run_set_feedback(
    spec: &SetSpec,
    base: &Path,
    seed: u64,
    half: Half,
    models: &super::Models,
    options: &super::learning::Options,
) -> Result<super::learning::FeedbackReport> {
    let tools = read_tools(&base.join(&spec.tools))?;
    let all: Vec<EvalQuery> = read_jsonl(&base.join(&spec.queries))?;
    let queries = select(all, half, seed, spec.limit);
    let baseline = Baseline::build(&tools, models.baseline.as_ref())?;
    let engine =
        super::engine_learning(tools, Ok(models.product.clone()), options.learning_weight)?;
    super::learning::run_protocol(&super::learning::Protocol {
        set: &spec.name,
        half,
        engine: &engine,
        baseline: &baseline,
        embedder: models.baseline.as_ref(),
        queries: &queries,
        noise: options.noise,
        seed,
    })
}

/// One set's figures.
#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    pub set: String,
    pub half: Half,
    pub tools: usize,
    pub modes: Vec<ModeReport>,
    /// 90% interval of hybrid's lead over the naive baseline, resampling gold tools
    /// (`interval`): how far the lead could move on other tools of the same kind.
    pub lead_interval: Option<Interval>,
    pub multi: Option<MultiReport>,
}

/// Reads the manifest at `path`.
pub fn read_manifest(path: &Path) -> Result<Manifest> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| Error::Validation {
        what: path.display().to_string(),
        violations: vec![crate::error::Violation {
            pointer: String::new(),
            message: format!("expected a suite manifest {{seed, sets: [{{name, tools, queries, multi?, limit?}}]}}: {e}"),
        }],
    })
}

/// Measures one set of the manifest (whose directory is `base`).
pub fn run_set(
    spec: &SetSpec,
    base: &Path,
    seed: u64,
    half: Half,
    models: &super::Models,
) -> Result<SetReport> {
    let tools = read_tools(&base.join(&spec.tools))?;
    let all: Vec<EvalQuery> = read_jsonl(&base.join(&spec.queries))?;
    let queries = select(all, half, seed, spec.limit);
    let multi: Vec<EvalQuery> = match &spec.multi {
        Some(p) => select(read_jsonl(&base.join(p))?, half, seed, spec.limit),
        None => queries
            .iter()
            .filter(|q| q.relevant.len() >= 2)
            .cloned()
            .collect(),
    };
    let stock = models.baseline.as_ref();
    let baseline = Baseline::build(&tools, stock)?;
    let mut modes = vec![run_baseline(&baseline, stock, &queries)?];
    // Only where the catalog has parameters: elsewhere its documents are the first form's.
    if tools.iter().any(|t| !t.parameters.is_empty()) {
        let with_parameters = Baseline::with_parameters(&tools, stock)?;
        modes.push(run_baseline(&with_parameters, stock, &queries)?);
    }
    let tool_count = tools.len();
    let engine = super::engine(tools, Ok(models.product.clone()))?;
    for mode in [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ] {
        modes.push(run(&engine, &queries, mode)?);
    }
    let multi = if multi.is_empty() {
        None
    } else {
        Some(run_multi(&engine, &multi)?)
    };
    let outcomes = |m: &str| {
        modes
            .iter()
            .find(|x| x.mode.as_str() == m)
            .map_or(&[][..], |x| &x.outcomes[..])
    };
    let lead_interval = lead_interval(outcomes("baseline"), outcomes("hybrid"));
    Ok(SetReport {
        set: spec.name.clone(),
        half,
        tools: tool_count,
        modes,
        lead_interval,
        multi,
    })
}

/// The suite's table: NDCG@5 of every mode a set (the baseline with parameters where the
/// catalog has any, "-" elsewhere), hybrid's lead over the baseline with its 90% interval
/// by gold tool and its lead over the better single mode, hybrid's R@1 and R@5; then search
/// against recommend on the multi-tool queries, with the interval of recommend's lead.
pub fn render(reports: &[SetReport]) -> String {
    let mut out = String::from(
        "NDCG@5 (%)   half  tools queries baseline +params keyword semantic  hybrid  vs base  90% by tool vs best    R@1    R@5\n",
    );
    for r in reports {
        let mode = |m: &str| r.modes.iter().find(|x| x.mode.as_str() == m);
        let ndcg = |m: &str| mode(m).map_or(0.0, |x| x.ndcg_at_5);
        let hybrid = mode("hybrid");
        let best_single = ndcg("keyword").max(ndcg("semantic"));
        let with_parameters = mode("baseline_parameters")
            .map_or_else(|| "-".to_string(), |m| format!("{:.1}", m.ndcg_at_5));
        out.push_str(&format!(
            "{:<12} {:<5} {:>5} {:>7} {:>8.1} {:>7} {:>7.1} {:>8.1} {:>7.1} {:>+8.1} {:>12} {:>+7.1} {:>6.1} {:>6.1}\n",
            r.set,
            r.half.as_str(),
            r.tools,
            r.modes.first().map_or(0, |m| m.queries),
            ndcg("baseline"),
            with_parameters,
            ndcg("keyword"),
            ndcg("semantic"),
            ndcg("hybrid"),
            ndcg("hybrid") - ndcg("baseline"),
            interval_text(r.lead_interval),
            ndcg("hybrid") - best_single,
            hybrid.map_or(0.0, |h| h.recall_at_1),
            hybrid.map_or(0.0, |h| h.recall_at_5),
        ));
    }
    out.push_str(
        "\nmulti-tool    queries  all gold in 5: search recommend  90% by tool   gold recall@5: search recommend\n",
    );
    for r in reports {
        if let Some(m) = &r.multi {
            out.push_str(&format!(
                "{:<12} {:>8} {:>22.1} {:>9.1} {:>12} {:>23.1} {:>9.1}\n",
                r.set,
                m.queries,
                m.search_all_at_5,
                m.recommend_all_at_5,
                interval_text(m.recommend_lead_interval),
                m.search_recall_at_5,
                m.recommend_recall_at_5
            ));
        }
    }
    out
}

/// An interval as "low..high" in signed points, "-" when there is none.
fn interval_text(interval: Option<Interval>) -> String {
    interval.map_or_else(
        || "-".to_string(),
        |i| format!("{:+.1}..{:+.1}", i.low, i.high),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Mode;

    fn q(id: &str, relevant: &[&str]) -> EvalQuery {
        EvalQuery {
            qid: id.into(),
            query: id.into(),
            relevant: relevant.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn report(set: &str, modes: &[(Mode, f64)]) -> SetReport {
        SetReport {
            set: set.into(),
            half: Half::Test,
            tools: 3,
            modes: modes
                .iter()
                .map(|&(mode, ndcg)| ModeReport {
                    mode,
                    queries: 10,
                    recall_at_1: 50.0,
                    recall_at_5: 90.0,
                    ndcg_at_5: ndcg,
                    mrr_at_10: 0.0,
                    queries_per_second: 0.0,
                    outcomes: Vec::new(),
                })
                .collect(),
            lead_interval: None,
            multi: None,
        }
    }

    /// The baseline with parameters has its own column, "-" for a set without parameters;
    /// "vs base" is the lead over the first form, with its interval beside it.
    #[test]
    fn the_table_shows_both_baselines() {
        use SearchMode::{Hybrid, Keyword, Semantic};
        let plain = [
            (Mode::Baseline, 60.0),
            (Mode::Engine(Keyword), 50.0),
            (Mode::Engine(Semantic), 55.0),
            (Mode::Engine(Hybrid), 70.0),
        ];
        let mut with = plain.to_vec();
        with.insert(1, (Mode::BaselineParameters, 66.5));
        let mut schemas = report("schemas", &with);
        schemas.lead_interval = Some(Interval {
            low: 5.0,
            high: 15.04,
        });
        let table = render(&[report("lean", &plain), schemas]);
        let rows: Vec<Vec<&str>> = table
            .lines()
            .skip(1)
            .take(2)
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(rows[0][4..7], ["60.0", "-", "50.0"], "{table}");
        assert_eq!(rows[1][4..7], ["60.0", "66.5", "50.0"], "{table}");
        assert_eq!(rows[1][9], "+10.0", "{table}");
        // The lead's interval by gold tool follows it, "-" where there is none.
        assert_eq!((rows[0][10], rows[1][10]), ("-", "+5.0..+15.0"), "{table}");
        assert_eq!(rows[1][11], "+15.0", "{table}");
    }

    /// The multi-tool table gives recommend's lead over search its interval by gold tool.
    #[test]
    fn the_multi_tool_table_shows_recommend_s_interval() {
        let mut r = report("tasks", &[(Mode::Baseline, 60.0)]);
        r.multi = Some(MultiReport {
            queries: 20,
            search_all_at_5: 50.0,
            recommend_all_at_5: 55.0,
            search_recall_at_5: 70.0,
            recommend_recall_at_5: 75.0,
            recommend_queries_per_second: 0.0,
            recommend_lead_interval: Some(Interval {
                low: -5.0,
                high: 15.0,
            }),
            search_outcomes: Vec::new(),
            recommend_outcomes: Vec::new(),
        });
        let table = render(&[r]);
        let row: Vec<&str> = table
            .lines()
            .find(|l| l.starts_with("tasks") && l.contains("55.0"))
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(row[1..5], ["20", "50.0", "55.0", "-5.0..+15.0"], "{table}");
    }

    #[test]
    fn halves_partition_by_first_gold_tool() {
        let qs: Vec<EvalQuery> = (0..200)
            .map(|i| q(&format!("q{i}"), &[&format!("tool{}", i % 40)]))
            .collect();
        let tune = select(qs.clone(), Half::Tune, SPLIT_SEED, None);
        let test = select(qs.clone(), Half::Test, SPLIT_SEED, None);
        assert_eq!(tune.len() + test.len(), 200);
        assert!(tune.len() > 50 && test.len() > 50);
        for t in &tune {
            assert!(!test.iter().any(|x| x.relevant == t.relevant));
        }
        // The half of a multi-tool query is its first gold tool's, in id order.
        let a = q("a", &["tool3", "tool1"]);
        let b = q("b", &["tool1"]);
        assert_eq!(
            Half::Test.holds(&a, SPLIT_SEED),
            Half::Test.holds(&b, SPLIT_SEED)
        );
    }
}

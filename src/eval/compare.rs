//! Per-query outcomes of an eval run (`toolscout eval --per-query FILE`) and the comparison
//! of two such runs query by query (`toolscout eval --compare OLD NEW`).
//!
//! Why: a set's mean moves by a few tenths whenever a handful of near-twin queries swap
//! places, and the development protocol reads a change on the test halves only once. A
//! comparison that pairs each query with itself says how many queries moved each way and
//! whether the mean moved by more than such swaps do: a paired randomization test (each
//! query's difference keeps its size and takes a random sign; the share of samples whose
//! mean is at least as far from 0 as the observed one is the p-value), the test that studies
//! of IR evaluation recommend in place of the sign and Wilcoxon tests. Samples come from a
//! fixed seed, so the same two files always give the same table.
//!
//! The signs are flipped per gold tool, not per query: a set holds many requests for each
//! tool, and a change that moves one tool (a near-twin ranked above it, a word of its name
//! read differently) moves all of them together. Flipped one by one, thirteen requests of
//! one tool read as thirteen independent gains and pass any threshold; flipped as one, they
//! weigh as one tool, which is what a catalog the change was not tuned on would see.

use super::{ModeReport, MultiReport};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Sign-flip samples of the randomization test.
pub const SAMPLES: usize = 10_000;
/// The p-value under which a measure counts as moved.
pub const SIGNIFICANT: f64 = 0.05;
/// Seed of the sign flips.
const SEED: u64 = 0x5EED_0FC0_FFEE;

/// One query's outcome under one measure: its NDCG@5 (single-tool modes) or 1 when every
/// gold tool is in the first five and 0 when not (multi-tool search and recommend), and the
/// first five tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub qid: String,
    pub score: f64,
    #[serde(default)]
    pub top: Vec<String>,
    /// The query's first gold tool: the unit the randomization test flips (empty in files
    /// written before it was kept, where each query is its own unit).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub gold: String,
}

impl Outcome {
    /// `query`'s outcome: its score and first five tools, under its id and first gold tool.
    pub fn of(query: &super::EvalQuery, score: f64, top: impl IntoIterator<Item = String>) -> Self {
        Outcome {
            qid: query.qid.clone(),
            score,
            top: top.into_iter().take(5).collect(),
            gold: query.relevant.first().cloned().unwrap_or_default(),
        }
    }
}

/// One line of a per-query file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub set: String,
    pub half: String,
    /// A mode (`hybrid`, `baseline`, ...) or `multi_search` / `multi_recommend`.
    pub measure: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// The rows of one set's report: every mode's outcomes, then the multi-tool ones.
pub fn report_rows(
    set: &str,
    half: &str,
    modes: &[ModeReport],
    multi: Option<&MultiReport>,
) -> Vec<Row> {
    let row = |measure: &str, o: &Outcome| Row {
        set: set.to_string(),
        half: half.to_string(),
        measure: measure.to_string(),
        outcome: o.clone(),
    };
    let mut out: Vec<Row> = Vec::new();
    for m in modes {
        out.extend(m.outcomes.iter().map(|o| row(m.mode.as_str(), o)));
    }
    if let Some(multi) = multi {
        out.extend(multi.search_outcomes.iter().map(|o| row("multi_search", o)));
        out.extend(
            multi
                .recommend_outcomes
                .iter()
                .map(|o| row("multi_recommend", o)),
        );
    }
    out
}

/// Writes `rows` to `path` as JSON lines, its directory created when missing.
pub fn write_rows(path: &Path, rows: &[Row]) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    for r in rows {
        let line = serde_json::to_string(r).map_err(|e| Error::Internal(e.to_string()))?;
        writeln!(file, "{line}").map_err(io)?;
    }
    file.flush().map_err(io)
}

/// One measure of one set in both runs, over the queries both hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delta {
    pub set: String,
    pub half: String,
    pub measure: String,
    pub queries: usize,
    /// Means in percent.
    pub old: f64,
    pub new: f64,
    pub delta: f64,
    /// Queries that scored higher / lower in the new run.
    pub up: usize,
    pub down: usize,
    /// Gold tools whose queries' differences do not cancel out: what the test flips.
    pub tools: usize,
    pub p_value: f64,
}

impl Delta {
    /// Whether the measure moved by more than chance would move it, and which way.
    pub fn verdict(&self) -> &'static str {
        match (self.p_value < SIGNIFICANT, self.delta) {
            (true, d) if d > 0.0 => "better",
            (true, d) if d < 0.0 => "worse",
            _ => "",
        }
    }
}

/// Two runs compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub deltas: Vec<Delta>,
    /// Rows of either run without a partner in the other (left out).
    pub only_old: usize,
    pub only_new: usize,
}

/// (set, half, measure, qid, occurrence): a query set may repeat a qid, and its n-th row
/// pairs with the other run's n-th.
type Key<'a> = (&'a str, &'a str, &'a str, &'a str, usize);
/// (set, half, measure).
type Measure<'a> = (&'a str, &'a str, &'a str);
/// A query's old and new scores and its gold tool.
type Pair<'a> = (f64, f64, &'a str);

fn keys(rows: &[Row]) -> Vec<Key<'_>> {
    let mut seen: HashMap<(&str, &str, &str, &str), usize> = HashMap::new();
    rows.iter()
        .map(|r| {
            let (set, half, measure, qid) = (&*r.set, &*r.half, &*r.measure, &*r.outcome.qid);
            let n = seen.entry((set, half, measure, qid)).or_default();
            *n += 1;
            (set, half, measure, qid, *n)
        })
        .collect()
}

/// Pairs every (set, half, measure, query) of `old` with the same in `new`; measures come in
/// the order `old` first has them.
pub fn compare(old: &[Row], new: &[Row]) -> Result<Comparison> {
    let partner: HashMap<Key<'_>, &Outcome> = keys(new)
        .into_iter()
        .zip(new)
        .map(|(k, r)| (k, &r.outcome))
        .collect();
    // Each measure's (old, new, gold tool) triples, in the order `old` first has the measure.
    let mut measures: Vec<(Measure<'_>, Vec<Pair<'_>>)> = Vec::new();
    let mut at: HashMap<Measure<'_>, usize> = HashMap::new();
    let mut paired = 0;
    for (k @ (set, half, measure, _, _), r) in keys(old).into_iter().zip(old) {
        let Some(&theirs) = partner.get(&k) else {
            continue;
        };
        // A file written before gold tools were kept has none; the other run's stands in.
        let gold = match &*r.outcome.gold {
            "" => &*theirs.gold,
            g => g,
        };
        paired += 1;
        let i = *at.entry((set, half, measure)).or_insert_with(|| {
            measures.push(((set, half, measure), Vec::new()));
            measures.len() - 1
        });
        measures[i].1.push((r.outcome.score, theirs.score, gold));
    }
    if paired == 0 {
        return Err(Error::Validation {
            what: "the two per-query files".into(),
            violations: vec![crate::error::Violation {
                pointer: String::new(),
                message: format!(
                    "expected runs of the same sets, halves and queries, found no query in both ({} and {} rows)",
                    old.len(),
                    new.len()
                ),
            }],
        });
    }
    let deltas = measures
        .into_iter()
        .map(|((set, half, measure), pairs)| delta(set, half, measure, &pairs))
        .collect();
    Ok(Comparison {
        deltas,
        only_old: old.len() - paired,
        only_new: new.len() - paired,
    })
}

fn delta(set: &str, half: &str, measure: &str, pairs: &[Pair<'_>]) -> Delta {
    let n = pairs.len().max(1) as f64;
    let old = 100.0 * pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let new = 100.0 * pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let diffs: Vec<f64> = pairs.iter().map(|(a, b, _)| b - a).collect();
    let units = tool_sums(pairs);
    Delta {
        set: set.to_string(),
        half: half.to_string(),
        measure: measure.to_string(),
        queries: pairs.len(),
        old,
        new,
        delta: new - old,
        up: diffs.iter().filter(|d| **d > 0.0).count(),
        down: diffs.iter().filter(|d| **d < 0.0).count(),
        tools: units.iter().filter(|d| **d != 0.0).count(),
        p_value: p_value(&units, SAMPLES, SEED),
    }
}

/// Each gold tool's summed difference, in the order the tools first come; a query without a
/// gold tool is a unit of its own. Sums within rounding of 0 are 0: an up and a down of the
/// same tool cancel.
fn tool_sums(pairs: &[Pair<'_>]) -> Vec<f64> {
    by_gold_tool(pairs.iter().map(|&(a, b, gold)| (gold, b - a)))
        .into_iter()
        .map(|(sum, _)| if sum.abs() < 1e-9 { 0.0 } else { sum })
        .collect()
}

/// The units of the tests over a set (this one's and `interval`'s): per gold tool, its
/// queries' summed values and how many there are, in the order the tools first come. A
/// query without a gold tool is a unit of its own.
pub(super) fn by_gold_tool<'a>(
    items: impl IntoIterator<Item = (&'a str, f64)>,
) -> Vec<(f64, usize)> {
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut units: Vec<(f64, usize)> = Vec::new();
    for (gold, value) in items {
        let i = if gold.is_empty() {
            units.push((0.0, 0));
            units.len() - 1
        } else {
            *at.entry(gold).or_insert_with(|| {
                units.push((0.0, 0));
                units.len() - 1
            })
        };
        units[i].0 += value;
        units[i].1 += 1;
    }
    units
}

/// Two-sided p-value of the paired randomization test on the mean of `diffs` (one per unit:
/// a gold tool's summed difference). Units that did not move weigh nothing under any sign,
/// so only the others are flipped; with none, 1.
pub fn p_value(diffs: &[f64], samples: usize, seed: u64) -> f64 {
    let moved: Vec<f64> = diffs.iter().copied().filter(|d| *d != 0.0).collect();
    if moved.is_empty() || samples == 0 {
        return 1.0;
    }
    let observed = moved.iter().sum::<f64>().abs();
    // A sum within rounding of the observed one counts as reaching it.
    let reach = observed - 1e-9 * (1.0 + observed);
    let mut state = seed;
    let mut bits = 0u64;
    let mut left = 0;
    let mut at_least = 0usize;
    for _ in 0..samples {
        let mut sum = 0.0;
        for d in &moved {
            if left == 0 {
                bits = super::splitmix64(&mut state);
                left = 64;
            }
            sum += if bits & 1 == 1 { *d } else { -*d };
            bits >>= 1;
            left -= 1;
        }
        if sum.abs() >= reach {
            at_least += 1;
        }
    }
    (at_least + 1) as f64 / (samples + 1) as f64
}

/// The comparison as an aligned text table, with the measures that moved named below it.
pub fn render(c: &Comparison) -> String {
    let mut out = String::from(
        "set           half  measure              queries     old     new   delta    up  down tools        p\n",
    );
    for d in &c.deltas {
        let line = format!(
            "{:<13} {:<5} {:<19} {:>8} {:>7.1} {:>7.1} {:>+7.1} {:>5} {:>5} {:>5} {:>8.4} {}",
            d.set,
            d.half,
            d.measure,
            d.queries,
            d.old,
            d.new,
            d.delta,
            d.up,
            d.down,
            d.tools,
            d.p_value,
            d.verdict()
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    for verdict in ["worse", "better"] {
        let named: Vec<String> = c
            .deltas
            .iter()
            .filter(|d| d.verdict() == verdict)
            .map(|d| format!("{} {} {}", d.set, d.half, d.measure))
            .collect();
        let list = if named.is_empty() {
            "none".to_string()
        } else {
            named.join(", ")
        };
        out.push_str(&format!("\n{verdict} at p < {SIGNIFICANT}: {list}"));
    }
    out.push('\n');
    if c.only_old + c.only_new > 0 {
        out.push_str(&format!(
            "left out: {} rows of the old run and {} of the new one had no partner\n",
            c.only_old, c.only_new
        ));
    }
    out
}

#[cfg(test)]
mod tests;

//! The feedback protocol of `toolscout eval --feedback`: does ranking get better with use?
//!
//! Each tool's queries (by first gold tool, in a seeded order) are dealt alternately into a
//! feedback half and a test half. The feedback half is replayed as `selected` feedback on
//! its gold tools through the same `Engine::learn` the server's refresh calls, and the test
//! half is measured in hybrid mode before and after, beside the naive baseline. A second run
//! points a share of the feedback (20% by default) at a wrong tool: the one hybrid search
//! ranked highest among the non-gold tools for that query, the plausible mistake an agent
//! makes, and so the most harmful kind of noise.

use super::suite::Half;
use super::{run, run_baseline, Baseline, EvalQuery, ModeReport};
use crate::embed::Embedder;
use crate::engine::{Engine, PastFeedback, SearchMode, SearchRequest, Valid, Verdict};
use crate::error::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// Share of the feedback that points at a wrong tool in the noisy run, unless told.
pub const DEFAULT_NOISE: f64 = 0.2;

/// The protocol's knobs.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Share of the feedback on a wrong tool in the noisy run.
    pub noise: f64,
    /// `learning_weight` in place of the configured default, when given.
    pub learning_weight: Option<f64>,
}

/// One set's before/after figures.
#[derive(Debug, Clone, Serialize)]
pub struct FeedbackReport {
    pub set: String,
    pub half: Half,
    /// Queries replayed as feedback, and queries measured.
    pub feedback_queries: usize,
    pub test_queries: usize,
    /// Share of the feedback pointed at a wrong tool in `noisy`.
    pub noise: f64,
    pub learning_weight: f64,
    /// On the test queries: the naive baseline, hybrid without feedback, with the feedback,
    /// and with the noisy feedback.
    pub baseline: ModeReport,
    pub before: ModeReport,
    pub after: ModeReport,
    pub noisy: ModeReport,
}

/// Deals each tool's queries into (feedback, test): a query's tool is its first gold tool in
/// id order, the order within a tool is seeded, and the first of each pair is feedback.
pub fn split_feedback(queries: &[EvalQuery], seed: u64) -> (Vec<EvalQuery>, Vec<EvalQuery>) {
    let mut by_tool: BTreeMap<&str, Vec<&EvalQuery>> = BTreeMap::new();
    for q in queries {
        let first = q.relevant.iter().min().map_or("", String::as_str);
        by_tool.entry(first).or_default().push(q);
    }
    let (mut feedback, mut test) = (Vec::new(), Vec::new());
    for (_, mut qs) in by_tool {
        qs.sort_by_key(|q| (seeded(&q.qid, seed), q.qid.clone()));
        for (i, q) in qs.into_iter().enumerate() {
            if i % 2 == 0 {
                feedback.push(q.clone());
            } else {
                test.push(q.clone());
            }
        }
    }
    (feedback, test)
}

fn seeded(text: &str, seed: u64) -> u64 {
    let mut state = seed ^ super::suite::fnv1a(text);
    super::splitmix64(&mut state)
}

/// The feedback of `queries`: `selected` on every gold tool.
pub fn clean_feedback(queries: &[EvalQuery]) -> Vec<PastFeedback> {
    queries
        .iter()
        .flat_map(|q| {
            q.relevant.iter().map(|tool| PastFeedback {
                query: q.query.clone(),
                tool_id: tool.clone(),
                verdict: Verdict::Helped,
            })
        })
        .collect()
}

/// The feedback with `noise` of the queries (a seeded choice) pointing at the non-gold tool
/// hybrid search ranks first for them instead of their gold tools.
pub fn noisy_feedback(
    engine: &Engine,
    queries: &[EvalQuery],
    noise: f64,
    seed: u64,
) -> Result<Vec<PastFeedback>> {
    let count = (noise.clamp(0.0, 1.0) * queries.len() as f64).round() as usize;
    let mut order: Vec<usize> = (0..queries.len()).collect();
    order.sort_by_key(|&i| (seeded(&queries[i].qid, seed ^ 0x006e_6f69_7365), i));
    let wrong: std::collections::HashSet<usize> = order.into_iter().take(count).collect();
    let mut out = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        if !wrong.contains(&i) {
            out.extend(clean_feedback(std::slice::from_ref(q)));
            continue;
        }
        let mut req = SearchRequest::new(q.query.clone());
        req.search_mode = Some(SearchMode::Hybrid);
        req.max_results = 10;
        let response = engine.search_fresh(&Valid::from_benchmark(req))?;
        if let Some(hit) = response
            .results
            .iter()
            .find(|r| !q.relevant.contains(&r.tool_id))
        {
            out.push(PastFeedback {
                query: q.query.clone(),
                tool_id: hit.tool_id.clone(),
                verdict: Verdict::Helped,
            });
        }
    }
    Ok(out)
}

/// What the protocol runs on: a set's name and half, its engine (learning nothing yet), its
/// baseline and queries.
pub struct Protocol<'a> {
    pub set: &'a str,
    pub half: Half,
    pub engine: &'a Engine,
    pub baseline: &'a Baseline,
    /// The baseline's model (`Models::baseline`).
    pub embedder: &'a dyn Embedder,
    pub queries: &'a [EvalQuery],
    pub noise: f64,
    pub seed: u64,
}

/// Runs the protocol and leaves the engine with nothing learned.
pub fn run_protocol(p: &Protocol<'_>) -> Result<FeedbackReport> {
    let (feedback, test) = split_feedback(p.queries, p.seed);
    p.engine.learn(&[])?;
    let baseline = run_baseline(p.baseline, p.embedder, &test)?;
    let before = run(p.engine, &test, SearchMode::Hybrid)?;
    let noisy_signals = noisy_feedback(p.engine, &feedback, p.noise, p.seed)?;
    p.engine.learn(&clean_feedback(&feedback))?;
    let after = run(p.engine, &test, SearchMode::Hybrid)?;
    p.engine.learn(&noisy_signals)?;
    let noisy = run(p.engine, &test, SearchMode::Hybrid)?;
    p.engine.learn(&[])?;
    Ok(FeedbackReport {
        set: p.set.to_string(),
        half: p.half,
        feedback_queries: feedback.len(),
        test_queries: test.len(),
        noise: p.noise,
        learning_weight: p.engine.config().learning_weight,
        baseline,
        before,
        after,
        noisy,
    })
}

/// The reports as a table: R@1 and NDCG@5 of each run on the test queries.
pub fn render(reports: &[FeedbackReport]) -> String {
    let mut out = String::from(
        "feedback protocol: hybrid on each tool's test queries, before and after replaying its other queries as feedback\n\
         set          half  feedback  test | baseline R@1 NDCG@5 | before R@1 NDCG@5 | after R@1 NDCG@5 | noisy R@1 NDCG@5\n",
    );
    for r in reports {
        let cell = |m: &ModeReport| format!("{:>6.1} {:>6.1}", m.recall_at_1, m.ndcg_at_5);
        out.push_str(&format!(
            "{:<12} {:<5} {:>8} {:>5} |      {} |    {} |   {} |   {}\n",
            r.set,
            r.half.as_str(),
            r.feedback_queries,
            r.test_queries,
            cell(&r.baseline),
            cell(&r.before),
            cell(&r.after),
            cell(&r.noisy),
        ));
    }
    if let Some(r) = reports.first() {
        out.push_str(&format!(
            "learning_weight {:.2}; noisy: {:.0}% of the feedback on the best-ranked wrong tool\n",
            r.learning_weight,
            100.0 * r.noise
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: &str, tool: &str) -> EvalQuery {
        EvalQuery {
            qid: id.into(),
            query: format!("query {id}"),
            relevant: vec![tool.into()],
        }
    }

    #[test]
    fn each_tool_deals_its_queries_into_both_halves() {
        let qs: Vec<EvalQuery> = (0..60)
            .map(|i| q(&i.to_string(), &format!("t{}", i % 6)))
            .collect();
        let (feedback, test) = split_feedback(&qs, 14);
        assert_eq!((feedback.len(), test.len()), (30, 30));
        for t in 0..6 {
            let tool = format!("t{t}");
            let n = |half: &[EvalQuery]| half.iter().filter(|q| q.relevant[0] == tool).count();
            assert_eq!((n(&feedback), n(&test)), (5, 5));
        }
        assert_eq!(split_feedback(&qs, 14).0[0].qid, feedback[0].qid);
        let one = [q("solo", "lonely")];
        assert_eq!(split_feedback(&one, 14).0.len(), 1);
    }

    #[test]
    fn clean_feedback_selects_every_gold_tool() {
        let mut two = q("a", "x");
        two.relevant.push("y".into());
        let f = clean_feedback(&[two]);
        assert_eq!(f.len(), 2);
        assert!(f.iter().all(|s| s.verdict == Verdict::Helped));
    }
}

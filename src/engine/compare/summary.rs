//! The comparison summary: the recommended choice's reasoning (which depends on the
//! comparison context: fit to it, or the criteria when it fits nothing), use-case
//! recommendations, decision factors ordered by how much they separate the tools, pairwise
//! trade-offs, and the comparison matrix.

use super::guidance::distinguishing_traits;
use super::insight::{phrases, MIN_SPREAD};
use super::request::Criterion;
use super::response::TradeOff;
use super::Set;
use std::collections::BTreeMap;

/// Trade-offs listed at most (those of the recommended choice first).
const MAX_TRADE_OFFS: usize = 10;

/// Criteria on which the tool at `i` is the best of the set by at least `MIN_SPREAD`.
fn leads(set: &Set, i: usize) -> Vec<(Criterion, f64)> {
    set.criteria
        .iter()
        .filter_map(|&c| {
            let col = set.column(c);
            let others = col
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, &s)| s)
                .fold(f64::MIN, f64::max);
            (col[i] - others >= MIN_SPREAD).then_some((c, col[i]))
        })
        .collect()
}

fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn leads_text(set: &Set, i: usize) -> String {
    let l: Vec<String> = leads(set, i)
        .iter()
        .map(|(c, s)| format!("{c} ({s:.2})"))
        .collect();
    if l.is_empty() {
        "without leading on any single criterion".into()
    } else {
        format!("leading on {}", list(&l))
    }
}

/// Why the first-ranked tool is recommended. With a context that matches some tool, the
/// reasoning is about fit to that context and what it outweighs; otherwise about the
/// criteria, saying that the context (if any) matched nothing.
pub(super) fn reasoning(set: &Set) -> String {
    let mut out = match (set.context, set.context_used) {
        (Some(ctx), true) => context_reasoning(set, ctx),
        (context, _) => criteria_reasoning(set, context),
    };
    if !set.weight_reasons.is_empty() {
        out.push_str(&format!(" Weights: {}.", set.weight_reasons.join("; ")));
    }
    out
}

/// The reasoning when the context matches some tool: the first-ranked tool fits it best
/// (and what that outweighs), or its scores outweigh another tool's better fit.
fn context_reasoning(set: &Set, ctx: &str) -> String {
    let top = &set.tools[0];
    let fit = set.best_fit().unwrap_or(0);
    let r = |i: usize| set.tools[i].relevance.unwrap_or(0.0);
    if fit != 0 {
        return format!(
            "{} ranks first although {} fits \"{ctx}\" more closely (relevance {:.2} vs {:.2}): its overall score on the criteria ({:.2} vs {:.2}) outweighs the difference in fit, {}.",
            top.id(), set.tools[fit].id(), r(fit), r(0), top.overall, set.tools[fit].overall, leads_text(set, 0)
        );
    }
    // The closest rival in fit, and the best tool on the criteria.
    let rival = (1..set.tools.len())
        .max_by(|&a, &b| r(a).total_cmp(&r(b)).then(b.cmp(&a)))
        .unwrap_or(1);
    let strongest = (0..set.tools.len())
        .max_by(|&a, &b| {
            set.tools[a]
                .overall
                .total_cmp(&set.tools[b].overall)
                .then(b.cmp(&a))
        })
        .unwrap_or(0);
    let mut out = format!(
        "For \"{ctx}\", {} fits best: the context is closest to it (relevance {:.2} vs {:.2} for {}",
        top.id(), r(0), r(rival), set.tools[rival].id()
    );
    if !top.matched_words.is_empty() {
        out.push_str(&format!(
            "; it shares the words {}",
            top.matched_words.join(", ")
        ));
    }
    out.push_str(").");
    if strongest == 0 {
        let second = &set.tools[1];
        out.push_str(&format!(
            " It also scores highest on the criteria ({:.2} overall vs {:.2} for {}), {}.",
            top.overall,
            second.overall,
            second.id(),
            leads_text(set, 0)
        ));
    } else {
        out.push_str(&format!(
            " That outweighs its lower overall score on the criteria ({:.2} vs {:.2} for {}, {}).",
            top.overall,
            set.tools[strongest].overall,
            set.tools[strongest].id(),
            leads_text(set, strongest)
        ));
    }
    out
}

/// The reasoning on the criteria alone, saying first that the context (if any) matched
/// nothing, or after it that a context would help.
fn criteria_reasoning(set: &Set, context: Option<&str>) -> String {
    let (top, second) = (&set.tools[0], &set.tools[1]);
    let mut out = String::new();
    if let Some(ctx) = context {
        let best = set
            .tools
            .iter()
            .filter_map(|t| t.relevance)
            .fold(0.0, f64::max);
        out.push_str(&format!(
            "The context \"{ctx}\" matches none of the compared tools closely (best relevance {best:.2}), so the choice rests on the criteria. "
        ));
    }
    if top.ranking == second.ranking {
        out.push_str(&format!(
            "{} and {} tie at {:.2} overall; {} comes first by id, {}.",
            top.id(),
            second.id(),
            top.overall,
            top.id(),
            leads_text(set, 0)
        ));
    } else {
        out.push_str(&format!(
            "{} scores highest overall ({:.2} vs {:.2} for {}), {}.",
            top.id(),
            top.overall,
            second.overall,
            second.id(),
            leads_text(set, 0)
        ));
    }
    if context.is_none() {
        out.push_str(" Give a comparison_context to weigh how well each tool fits your situation.");
    }
    out
}

/// The best tool per criterion (ties: the better ranked), if the criterion separates them.
fn criterion_leader(set: &Set, c: Criterion) -> Option<usize> {
    let col = set.column(c);
    let best = col.iter().copied().fold(f64::MIN, f64::max);
    let worst = col.iter().copied().fold(f64::MAX, f64::min);
    (best - worst >= MIN_SPREAD).then(|| col.iter().position(|&s| s == best).unwrap_or(0))
}

/// use case -> tool id: the stated context, situations the compared tools' guidance assigns
/// to one of them, traits only some have, and the leader of each separating criterion.
pub(super) fn use_cases(set: &Set) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let (Some(ctx), true) = (set.context, set.context_used) {
        out.insert(ctx.to_string(), set.tools[0].id().to_string());
    }
    for p in &set.preferences {
        if set.contains(&p.from) && set.contains(&p.to) {
            out.entry(p.condition.clone())
                .or_insert_with(|| p.to.clone());
        }
    }
    let tools: Vec<_> = set.tools.iter().map(|t| t.record).collect();
    for (tr, has) in distinguishing_traits(&tools) {
        // The best-ranked tool with the advantage, or without the drawback.
        if let Some(i) = has.iter().position(|&h| h != tr.drawback) {
            out.entry(tr.situation.to_string())
                .or_insert_with(|| set.tools[i].id().to_string());
        }
    }
    for &c in &set.criteria {
        if let Some(i) = criterion_leader(set, c) {
            let (_, _, matters) = phrases(c);
            out.insert(
                format!("{matters} matters most"),
                set.tools[i].id().to_string(),
            );
        }
    }
    out
}

/// What separates the tools, most decisive first: context fit, then each criterion by
/// weight x spread, then distinguishing traits, then the criteria that do not separate them.
pub(super) fn decision_factors(set: &Set) -> Vec<String> {
    let mut out: Vec<String> = set
        .context
        .map(|ctx| context_factor(set, ctx))
        .into_iter()
        .collect();
    let close = push_criterion_factors(set, &mut out);
    let tools: Vec<_> = set.tools.iter().map(|t| t.record).collect();
    for (tr, has) in distinguishing_traits(&tools) {
        let (with, without): (Vec<&str>, Vec<&str>) = {
            let mut w = Vec::new();
            let mut wo = Vec::new();
            for (t, h) in set.tools.iter().zip(&has) {
                if *h {
                    w.push(t.id())
                } else {
                    wo.push(t.id())
                }
            }
            (w, wo)
        };
        out.push(format!(
            "{}: {} (not {})",
            tr.has,
            with.join(", "),
            without.join(", ")
        ));
    }
    if !close.is_empty() {
        out.push(format!(
            "little difference in {} (within {MIN_SPREAD:.2})",
            list(&close)
        ));
    }
    out
}

/// Each tool's fit to the context, best first, and whether any tool matches it.
fn context_factor(set: &Set, ctx: &str) -> String {
    let mut fits: Vec<(&str, f64)> = set
        .tools
        .iter()
        .map(|t| (t.id(), t.relevance.unwrap_or(0.0)))
        .collect();
    fits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let fits: Vec<String> = fits.iter().map(|(id, r)| format!("{id} {r:.2}")).collect();
    if set.context_used {
        format!("fit to \"{ctx}\": {}", fits.join(", "))
    } else {
        format!(
            "fit to \"{ctx}\": no compared tool matches it ({})",
            fits.join(", ")
        )
    }
}

/// The criteria that separate the tools, by weight x spread, each with every tool's score
/// (pushed to `out`); returns the criteria that do not separate them.
fn push_criterion_factors(set: &Set, out: &mut Vec<String>) -> Vec<String> {
    let mut by_spread: Vec<(f64, Criterion, f64)> = set
        .criteria
        .iter()
        .map(|&c| {
            let col = set.column(c);
            let spread = col.iter().copied().fold(f64::MIN, f64::max)
                - col.iter().copied().fold(f64::MAX, f64::min);
            (
                set.weights.get(&c).copied().unwrap_or(1.0) * spread,
                c,
                spread,
            )
        })
        .collect();
    by_spread.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut close = Vec::new();
    for (_, c, spread) in &by_spread {
        if *spread < MIN_SPREAD {
            close.push(c.to_string());
            continue;
        }
        let mut col: Vec<(&str, f64)> = set
            .tools
            .iter()
            .map(|t| (t.id(), t.scores.get(*c).unwrap_or(0.0)))
            .collect();
        col.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        let weight = set.weights.get(c).copied().unwrap_or(1.0);
        let weighted = if weight != 1.0 {
            format!(" (weighted {weight}x)")
        } else {
            String::new()
        };
        let scores: Vec<String> = col.iter().map(|(id, s)| format!("{id} {s:.2}")).collect();
        out.push(format!("{c}{weighted}: {}", scores.join(", ")));
    }
    close
}

/// One trade-off between the tools at `a` and `b` of the set, if each leads somewhere.
fn trade_off(set: &Set, a: usize, b: usize) -> Option<(f64, TradeOff)> {
    let (ta, tb) = (&set.tools[a], &set.tools[b]);
    let mut gains = BTreeMap::new();
    let mut loses = BTreeMap::new();
    for &c in &set.criteria {
        let d = ta.scores.get(c).unwrap_or(0.0) - tb.scores.get(c).unwrap_or(0.0);
        let d = super::dimensions::round4(d);
        if d >= MIN_SPREAD {
            gains.insert(c, d);
        } else if d <= -MIN_SPREAD {
            loses.insert(c, -d);
        }
    }
    if gains.is_empty() || loses.is_empty() {
        return None;
    }
    let top = |m: &BTreeMap<Criterion, f64>| {
        m.iter()
            .max_by(|x, y| x.1.total_cmp(y.1).then(y.0.cmp(x.0)))
            .map(|(c, _)| *c)
    };
    let (g, l) = (top(&gains)?, top(&loses)?);
    let say = |m: &BTreeMap<Criterion, f64>, sign: char| {
        list(
            &m.iter()
                .map(|(c, d)| format!("{c} ({sign}{d:.2})"))
                .collect::<Vec<_>>(),
        )
    };
    let mut description = format!(
        "Choosing {} over {} gains {} but gives up {}",
        ta.id(),
        tb.id(),
        say(&gains, '+'),
        say(&loses, '-')
    );
    if let (Some(ra), Some(rb), true) = (ta.relevance, tb.relevance, set.context_used) {
        if (ra - rb).abs() >= MIN_SPREAD {
            description.push_str(&format!(
                "; it fits the context {} ({ra:.2} vs {rb:.2})",
                if ra > rb { "better" } else { "less well" }
            ));
        }
    }
    description.push('.');
    let magnitude = gains.values().sum::<f64>() + loses.values().sum::<f64>();
    Some((
        magnitude,
        TradeOff {
            factor: format!("{g} vs {l}"),
            description,
            affects_tools: vec![ta.id().to_string(), tb.id().to_string()],
            choose: ta.id().to_string(),
            over: tb.id().to_string(),
            gains,
            loses,
        },
    ))
}

/// Trade-offs of the recommended choice against each other tool, then between the others
/// (better ranked as `choose`), largest first; pairs where one tool is at least as good on
/// every criterion are no trade-off and are left out.
pub(super) fn trade_offs(set: &Set) -> Vec<TradeOff> {
    let n = set.tools.len();
    let mut out: Vec<TradeOff> = (1..n)
        .filter_map(|b| trade_off(set, 0, b))
        .map(|(_, t)| t)
        .collect();
    let mut rest: Vec<(f64, TradeOff)> = (1..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .filter_map(|(a, b)| trade_off(set, a, b))
        .collect();
    rest.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then(x.1.choose.cmp(&y.1.choose))
            .then(x.1.over.cmp(&y.1.over))
    });
    out.extend(rest.into_iter().map(|(_, t)| t));
    out.truncate(MAX_TRADE_OFFS);
    out
}

/// criterion -> tool id -> score.
pub(super) fn matrix(set: &Set) -> BTreeMap<Criterion, BTreeMap<String, f64>> {
    set.criteria
        .iter()
        .map(|&c| {
            let row = set
                .tools
                .iter()
                .map(|t| (t.id().to_string(), t.scores.get(c).unwrap_or(0.0)))
                .collect();
            (c, row)
        })
        .collect()
}

//! Per-tool `strengths`, `weaknesses`, `best_for` and `avoid_when`, each item derived from
//! the tool's dimension scores relative to the others (with the evidence behind the score),
//! from tags that tell the compared tools apart, and from the catalog's guidance text
//! (`when_to_use`, and who defers to whom in the "Prefer ..." sentences).

use super::guidance::distinguishing_traits;
use super::request::Criterion;
use super::Set;

/// Scores closer than this are a tie for strengths and weaknesses.
pub(super) const MIN_SPREAD: f64 = 0.05;
/// A score below this is a weakness whatever the others score.
const LOW_SCORE: f64 = 0.4;
/// A worst score this far behind the best makes "when X matters most" a reason to avoid.
const AVOID_GAP: f64 = 0.15;
/// Items per list at most (the most telling first).
const MAX_ITEMS: usize = 6;
/// `best_for` quotes guidance up to about this many characters.
const GUIDANCE_CHARS: usize = 200;

/// How to talk about a criterion: (best, worst, what matters).
pub(super) fn phrases(c: Criterion) -> (&'static str, &'static str, &'static str) {
    match c {
        Criterion::Functionality => ("most capable", "least capable", "breadth of features"),
        Criterion::Usability => ("easiest to call", "hardest to call", "ease of use"),
        Criterion::Performance => ("fastest", "slowest", "speed"),
        Criterion::Reliability => ("most reliable", "least reliable", "reliability"),
        Criterion::Complexity => (
            "simplest to learn",
            "steepest to learn",
            "a gentle learning curve",
        ),
        Criterion::Documentation => ("best documented", "least documented", "documentation"),
    }
}

#[derive(Default)]
pub(super) struct Insight {
    pub strengths: Vec<String>,
    pub weaknesses: Vec<String>,
    pub best_for: Vec<String>,
    pub avoid_when: Vec<String>,
}

/// The insight of the tool at position `i` of `set`.
pub(super) fn insight(set: &Set, i: usize) -> Insight {
    let mut insight = Insight::default();
    insight.add_scores(set, i);
    insight.add_traits(set, i);
    insight.add_uses(set, i);
    insight.add_deferrals(set, i);
    for list in [
        &mut insight.strengths,
        &mut insight.weaknesses,
        &mut insight.best_for,
        &mut insight.avoid_when,
    ] {
        dedup(list);
        list.truncate(MAX_ITEMS);
    }
    insight
}

impl Insight {
    /// Criteria where the tool leads or trails the others, or scores low whatever they
    /// score.
    fn add_scores(&mut self, set: &Set, i: usize) {
        let me = &set.tools[i];
        for &c in &set.criteria {
            let column = set.column(c);
            let mine = column[i];
            let best = column.iter().copied().fold(f64::MIN, f64::max);
            let worst = column.iter().copied().fold(f64::MAX, f64::min);
            let (good, bad, matters) = phrases(c);
            let explanation = me
                .evidence
                .get(&c)
                .map_or(String::new(), |e| format!(": {}", e.explanation));
            if best - worst >= MIN_SPREAD && mine == best {
                let tied = column.iter().filter(|&&s| s == best).count() > 1;
                let runner_up = column
                    .iter()
                    .copied()
                    .filter(|&s| s < best)
                    .fold(f64::MIN, f64::max);
                self.strengths.push(format!(
                    "{}{good} of the compared tools ({c} {mine:.2}, next {runner_up:.2}){explanation}",
                    if tied { "among the " } else { "" }
                ));
            } else if best - worst >= MIN_SPREAD && mine == worst {
                let leader = set.tools[column.iter().position(|&s| s == best).unwrap_or(0)].id();
                self.weaknesses.push(format!(
                    "{bad} of the compared tools ({c} {mine:.2} vs {best:.2} for {leader}){explanation}"
                ));
                if best - mine >= AVOID_GAP {
                    self.avoid_when.push(format!(
                        "{matters} matters most: {leader} scores {best:.2} on {c}, this tool {mine:.2}"
                    ));
                }
            } else if mine < LOW_SCORE {
                self.weaknesses
                    .push(format!("low {c} ({mine:.2}){explanation}"));
            }
        }
    }

    /// Tags that tell the compared tools apart: an advantage the tool has or a drawback it
    /// lacks, and the reverse.
    fn add_traits(&mut self, set: &Set, i: usize) {
        let id = set.tools[i].id();
        let tools: Vec<_> = set.tools.iter().map(|t| t.record).collect();
        for (tr, has) in distinguishing_traits(&tools) {
            let others: Vec<&str> = set
                .tools
                .iter()
                .zip(&has)
                .filter(|(t, h)| **h != has[i] && t.id() != id)
                .map(|(t, _)| t.id())
                .collect();
            match (has[i], tr.drawback) {
                (true, true) => {
                    self.weaknesses
                        .push(format!("{} (unlike {})", tr.has, others.join(", ")));
                    self.avoid_when.push(tr.situation.to_string());
                }
                (false, true) => self.strengths.push(format!(
                    "{} (unlike {})",
                    negate(tr.tag, tr.has),
                    others.join(", ")
                )),
                (true, false) => {
                    self.strengths
                        .push(format!("{} (unlike {})", tr.has, others.join(", ")));
                    self.best_for.push(tr.situation.to_string());
                }
                (false, false) => {}
            }
        }
    }

    /// What the tool is for: its own guidance first, the stated context when it fits it
    /// best, what the other compared tools' guidance says it is for, its examples.
    fn add_uses(&mut self, set: &Set, i: usize) {
        let me = &set.tools[i];
        let best_for = &mut self.best_for;
        // The maintainers' own guidance first: what the tool is for, in its own words.
        if let Some(first) = me.record.when_to_use.split(". ").next() {
            best_for.insert(0, clip(first.trim_end_matches('.'), GUIDANCE_CHARS));
        }
        if set.context_used && set.best_fit() == Some(i) {
            if let Some(ctx) = set.context {
                best_for.insert(
                    1.min(best_for.len()),
                    format!("the stated context: \"{ctx}\""),
                );
            }
        }
        // What the other compared tools' guidance says this one is for.
        for p in set
            .preferences
            .iter()
            .filter(|p| p.to == me.id() && set.contains(&p.from))
        {
            let condition = p.condition.strip_prefix("for ").unwrap_or(&p.condition);
            push_unique(best_for, format!("{condition}, per {}'s guidance", p.from));
        }
        for e in me.record.examples.iter().take(2) {
            push_unique(best_for, e.title.clone());
        }
    }

    /// When another tool fits better: this tool's guidance deferring to another (compared
    /// tools first, then the rest), and a context that another tool fits much better.
    fn add_deferrals(&mut self, set: &Set, i: usize) {
        let me = &set.tools[i];
        let avoid_when = &mut self.avoid_when;
        let mut own: Vec<_> = set
            .preferences
            .iter()
            .filter(|p| p.from == me.id())
            .collect();
        own.sort_by_key(|p| !set.contains(&p.to));
        for (n, p) in own.into_iter().enumerate() {
            let item = format!("{}: {} fits better", p.condition, p.to);
            if n < 3 || set.contains(&p.to) {
                avoid_when.insert(n.min(avoid_when.len()), item);
            }
        }
        if set.context_used {
            if let (Some(best), Some(ctx), Some(mine)) = (set.best_fit(), set.context, me.relevance)
            {
                let top = set.tools[best].relevance.unwrap_or(0.0);
                if best != i && top > 0.0 && mine / top < 0.75 {
                    avoid_when.push(format!(
                        "the situation is like \"{ctx}\": {} fits it better (relevance {top:.2} vs {mine:.2})",
                        set.tools[best].id()
                    ));
                }
            }
        }
    }
}

/// The advantage of lacking a drawback tag, said positively.
fn negate(tag: &str, has: &str) -> String {
    match tag {
        "needs-network" => "works without network access".into(),
        "needs-auth" => "needs no credentials".into(),
        "writes" => "never changes files or remote state".into(),
        _ => format!("lacks a drawback: it is not true that it {has}"),
    }
}

/// `s` cut to about `max` characters at a word boundary.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max.saturating_sub(3)).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}...", cut.trim_end_matches([',', ';', ' ']))
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn dedup(list: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    list.retain(|s| seen.insert(s.clone()));
}

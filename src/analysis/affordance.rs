//! What a tool's parameters take (each read by `parameter` from its name, description,
//! format and type) and where the tool works (its schema and MCP annotations), and how well
//! that fits a request's entities: a request that mentions `owner/repo` fits a tool that
//! takes `owner` and `repo`, one that names a file path fits a tool with a `path`. Computed
//! once per tool when an engine is built; matching is a few comparisons per candidate.

use super::entities::EntityKind;
use super::locality::{self, Locality, ToolPlace};
use super::parameter::{kinds_of, taker_of, type_holds, walked_directories};
use super::QueryAnalysis;
use crate::catalog::{split_identifier, ToolRecord};
use serde_json::Value;

/// The entity kinds a tool's parameters take, with the parameters that take each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Affordances {
    takes: Vec<(EntityKind, Vec<String>)>,
    pub locality: Option<Locality>,
    /// Whether the tool reads or changes what it is given.
    pub action: Option<super::action::Action>,
}

/// How a request's entities and locality fit one tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Match {
    /// Each entity kind of the request that the tool takes, with the parameters taking it.
    pub matched: Vec<(EntityKind, Vec<String>)>,
    /// Entity kinds the request mentions.
    pub asked: usize,
    /// The request's locality and whether the tool's agrees.
    pub locality: Option<(Locality, bool)>,
}

impl Match {
    /// 0..1: the share of the request's entity kinds (and its locality, when it states one)
    /// that the tool takes.
    pub fn score(&self) -> f64 {
        let (agree, said) = match self.locality {
            Some((_, agree)) => (u8::from(agree), 1),
            None => (0, 0),
        };
        let total = self.asked + said;
        if total == 0 {
            return 0.0;
        }
        (self.matched.len() + usize::from(agree)) as f64 / total as f64
    }

    /// The match as match reasons ("mentions owner/repo, and this tool takes owner and
    /// repo").
    pub fn reasons(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .matched
            .iter()
            .map(|(kind, params)| {
                format!(
                    "mentions {}, and this tool takes {}",
                    kind.label(),
                    join_and(params)
                )
            })
            .collect();
        if let Some((locality, true)) = self.locality {
            out.push(locality.reason());
        }
        out
    }
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl Affordances {
    /// What `tool`'s parameters take, and where it works (`locality::of_tool`).
    pub fn of(tool: &ToolRecord) -> Affordances {
        let said: Vec<Vec<EntityKind>> = tool.parameters.iter().map(kinds_of).collect();
        let mut takes: Vec<(EntityKind, Vec<String>)> = Vec::new();
        let mut walks_directories = false;
        for (p, kinds) in tool.parameters.iter().zip(&said) {
            let Some(taker) = taker_of(p, &tool.parameters) else {
                walks_directories |= kinds.contains(&EntityKind::Directory);
                continue;
            };
            for &kind in kinds.iter().filter(|k| type_holds(taker, **k)) {
                match takes.iter_mut().find(|(k, _)| *k == kind) {
                    Some((_, params)) if params.contains(&taker.name) => {}
                    Some((_, params)) => params.push(taker.name.clone()),
                    None => takes.push((kind, vec![taker.name.clone()])),
                }
            }
        }
        if walks_directories {
            walked_directories(&mut takes);
        }
        takes.sort_by_key(|(k, _)| *k);
        let has = |k: EntityKind| takes.iter().any(|(t, _)| *t == k);
        let open_world = tool
            .annotations
            .as_ref()
            .and_then(|a| a.get("openWorldHint"))
            .and_then(Value::as_bool);
        let opens_url = tool.parameters.iter().zip(&said).any(|(p, kinds)| {
            p.required
                && split_identifier(&p.name)
                    .iter()
                    .any(|w| locality::PAGE_URL_WORDS.contains(&w.as_str()))
                && kinds.contains(&EntityKind::Url)
        });
        let text = format!(
            "{} {}",
            split_identifier(&tool.name).join(" "),
            tool.description
        )
        .to_lowercase();
        let locality = locality::of_tool(&ToolPlace {
            takes_repository: has(EntityKind::Repository),
            takes_url: has(EntityKind::Url),
            opens_url,
            takes_path: has(EntityKind::Path),
            open_world,
            text: &text,
        });
        Affordances {
            takes,
            locality,
            action: super::action::tool_action(tool),
        }
    }

    /// How `analysis` fits this tool.
    pub fn fit(&self, analysis: &QueryAnalysis) -> Match {
        self.fit_kinds(&analysis.kinds(), analysis.locality)
    }

    /// How a request with these entity kinds (distinct, sorted) and locality fits this tool.
    pub fn fit_kinds(&self, kinds: &[EntityKind], locality: Option<Locality>) -> Match {
        let matched = kinds
            .iter()
            .filter_map(|k| self.takes.iter().find(|(t, _)| t == k).cloned())
            .collect();
        Match {
            matched,
            asked: kinds.len(),
            locality: locality.map(|l| (l, l.fits(self.locality))),
        }
    }
}

#[cfg(test)]
#[path = "affordance_tests.rs"]
mod tests;

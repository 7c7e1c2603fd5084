//! Runnable twins: with equal evidence, a tool toolscout runs ranks above the metadata-only
//! tool that does the same job, because an agent can call it at once. A pure step after
//! [`super::rank`], over facts taken once from the catalog (`Twins`).
//!
//! Twins come from the catalog's own cross-references, never from the query: a runnable tool
//! R and a metadata-only tool M are twins when either lists the other in `similar_tools`
//! (`local_search_code` and `ripgrep`).

use super::Ranked;
use crate::catalog::ToolRecord;
use std::collections::HashMap;

/// Largest lead of a metadata-only twin over its runnable twin that still counts as equal
/// evidence. 0.03 is the lead under which confidence already calls two hits a toss-up
/// (`explain::CLEAR_MARGIN`): a lift never overturns a lead the response would call clear.
/// At the default weights it is about 0.01 of cosine, or a few points of BM25: wording
/// noise between two descriptions of one job, not a difference in fit.
pub(crate) const TWIN_MARGIN: f64 = 0.03;

/// What the twin step knows of each tool, by ordinal: its id, whether toolscout runs it and
/// its twins (for a runnable tool its metadata-only twins, and the other way round).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Twins {
    ids: Vec<String>,
    runnable: Vec<bool>,
    /// Sorted ordinals.
    twins: Vec<Vec<u32>>,
}

impl Twins {
    /// From per-ordinal ids, runnable flags and the ordinals each tool lists as similar
    /// (entries out of range are ignored). Pairs of two runnable or two metadata-only tools
    /// are not twins.
    pub(crate) fn new(ids: Vec<String>, runnable: Vec<bool>, similar: &[Vec<u32>]) -> Twins {
        let n = ids.len().min(runnable.len());
        let mut twins = vec![Vec::new(); n];
        for (a, listed) in similar.iter().enumerate().take(n) {
            for &b in listed {
                let b = b as usize;
                if b < n && runnable[a] != runnable[b] {
                    twins[a].push(b as u32);
                    twins[b].push(a as u32);
                }
            }
        }
        for list in &mut twins {
            list.sort_unstable();
            list.dedup();
        }
        Twins {
            ids,
            runnable,
            twins,
        }
    }

    /// The twins of a catalog's tools (ordinals are positions in `tools`).
    pub(crate) fn from_tools(tools: &[ToolRecord]) -> Twins {
        let ordinal: HashMap<&str, u32> = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.tool_id.as_str(), i as u32))
            .collect();
        let similar: Vec<Vec<u32>> = tools
            .iter()
            .map(|t| {
                t.similar_tools
                    .iter()
                    .filter_map(|id| ordinal.get(id.as_str()).copied())
                    .collect()
            })
            .collect();
        Twins::new(
            tools.iter().map(|t| t.tool_id.clone()).collect(),
            tools.iter().map(ToolRecord::is_executable).collect(),
            &similar,
        )
    }

    /// Whether no tool has a twin (then the step has nothing to do).
    pub(crate) fn is_empty(&self) -> bool {
        self.twins.iter().all(Vec::is_empty)
    }

    pub(crate) fn is_runnable(&self, ordinal: u32) -> bool {
        self.runnable
            .get(ordinal as usize)
            .copied()
            .unwrap_or(false)
    }

    /// Whether `a` and `b` are twins (one runnable, one not, one listing the other).
    pub(crate) fn are_twins(&self, a: u32, b: u32) -> bool {
        self.twins
            .get(a as usize)
            .is_some_and(|t| t.binary_search(&b).is_ok())
    }

    fn id(&self, ordinal: u32) -> &str {
        self.ids.get(ordinal as usize).map_or("", String::as_str)
    }
}

/// Lifts each runnable tool over the metadata-only twins ranked directly above it whose
/// score leads its own by at most [`TWIN_MARGIN`]: it takes the score of the highest twin it
/// passes and sits directly before it (at equal scores the runnable tool goes first), and
/// `details.runnable_over` names that twin. It passes only its own twins, so no two tools
/// that are not twins change order, and never an exact-name match; scores stay
/// non-increasing down the list. `ranked` is in [`super::sort_ranked`] order.
pub(crate) fn prefer_runnable(ranked: &mut [Ranked], twins: &Twins) {
    if twins.is_empty() {
        return;
    }
    for j in 1..ranked.len() {
        let r = &ranked[j];
        if r.details.exact_match || !twins.is_runnable(r.ordinal) {
            continue;
        }
        let (own, ordinal) = (r.score, r.ordinal);
        let mut top = j;
        while let Some(m) = top.checked_sub(1).map(|i| &ranked[i]) {
            if m.details.exact_match
                || !twins.are_twins(ordinal, m.ordinal)
                || m.score - own > TWIN_MARGIN
            {
                break;
            }
            top -= 1;
        }
        if top == j {
            continue;
        }
        let score = ranked[top].score;
        let over = twins.id(ranked[top].ordinal).to_string();
        ranked[top..=j].rotate_right(1);
        let lifted = &mut ranked[top];
        lifted.score = score;
        lifted.details.fused = score;
        lifted.details.runnable_over = Some(over);
    }
}

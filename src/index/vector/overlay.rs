//! Updating a vector index for a changed catalog without building a new graph.
//!
//! A catalog change renumbers tools (ordinals follow the catalog's order) and changes a few of
//! them. Building the graph again costs seconds at a few thousand vectors (~1.3 s for 5.5k on
//! two cores, ~30 s for 65k), while the change touches a handful. So the update keeps the
//! core (vectors and graph, shared through an `Arc`), gives each surviving group its new
//! owner, retires the groups of tools that left or changed (the walk still moves through their
//! nodes, which keeps the graph connected, but never reports them), and scans the vectors of
//! new and changed tools exactly beside the graph. The caller rebuilds from scratch once the
//! overlay grows (see [`VectorIndex::overlay_share`]): the exact scan costs ~47 ns a vector per
//! query, and retired nodes make walks wider.

use super::math::top_k;
use super::{OwnerHit, VectorIndex, VectorParams, GONE};
use crate::error::Result;
use std::sync::Arc;

impl VectorIndex {
    /// The index after a catalog change: each current owner `o` becomes `renumber(o)` (None
    /// when it left, or changed and comes back in `added`), and `added` holds `(new owner,
    /// vector)` for new and changed owners. Owners of `added` must not keep vectors through
    /// `renumber`.
    ///
    /// Also returns where each delta vector of the new index came from: `Some(v)` for a vector
    /// of this index (its `OwnerHit::vector` number here), `None` for the next of `added`, in
    /// the new index's numbering after the core's. Callers keeping data per vector (passage
    /// kinds) rebuild theirs from it.
    pub fn updated(
        &self,
        renumber: impl Fn(u32) -> Option<u32>,
        added: Vec<(u32, Vec<f32>)>,
    ) -> Result<(VectorIndex, Vec<Option<u32>>)> {
        let owners: Vec<u32> = self
            .owners
            .iter()
            .map(|&o| {
                if o == GONE {
                    GONE
                } else {
                    renumber(o).unwrap_or(GONE)
                }
            })
            .collect();
        let offset = self.core.input.len() as u32;
        let mut vectors = Vec::new();
        let mut origins = Vec::new();
        if let Some(delta) = &self.delta {
            for (input, owner, row) in delta.rows_in_input_order() {
                if let Some(owner) = renumber(owner) {
                    vectors.push((owner, row.to_vec()));
                    origins.push(Some(offset + input));
                }
            }
        }
        origins.extend(added.iter().map(|_| None));
        vectors.extend(added);
        let delta = if vectors.is_empty() {
            None
        } else {
            let exact = VectorParams {
                exact_below: usize::MAX,
                ..self.params
            };
            Some(Box::new(VectorIndex::build_with(self.dim, vectors, exact)?))
        };
        let index = VectorIndex::over(self.dim, self.params, self.core.clone(), owners, delta);
        Ok((index, origins))
    }

    /// The share of the core's size that the overlay adds up to: retired core vectors plus
    /// delta vectors, over the core's vectors (0 for a fresh build).
    pub fn overlay_share(&self) -> f64 {
        let stored = self.core.input.len();
        let retired = stored - self.live_vectors;
        let delta = self.delta.as_ref().map_or(0, |d| d.len());
        (retired + delta) as f64 / stored.max(1) as f64
    }

    /// Every vector with its input number and owner, in input order (the delta of an index is
    /// built fresh, so all its groups have owners).
    fn rows_in_input_order(&self) -> Vec<(u32, u32, &[f32])> {
        let mut rows: Vec<(u32, u32, &[f32])> = (0..self.core.input.len())
            .filter_map(|pos| {
                let owner = self.owners[self.core.group_of[pos] as usize];
                (owner != GONE).then(|| (self.core.input[pos], owner, self.row(pos)))
            })
            .collect();
        rows.sort_unstable_by_key(|r| r.0);
        rows
    }

    /// Vectors of the core (live or retired); numbers at and past it are the delta's.
    pub fn core_len(&self) -> usize {
        self.core.input.len()
    }

    /// How many `OwnerHit::vector` numbers there are: the core's, then the delta's.
    pub fn vector_numbers(&self) -> usize {
        self.core.input.len() + self.delta.as_ref().map_or(0, |d| d.core.input.len())
    }

    /// The core shared with `other` (the same allocation): an update reused the graph.
    pub fn shares_core_with(&self, other: &VectorIndex) -> bool {
        Arc::ptr_eq(&self.core, &other.core)
    }
}

/// What [`VectorIndex::search`] and [`VectorIndex::propose`] have in common, for merging.
pub(super) type Search =
    fn(&VectorIndex, &[f32], usize, Option<&dyn Fn(u32) -> bool>) -> Result<Vec<OwnerHit>>;

impl VectorIndex {
    /// `hits` of the core merged with what `search` (or `propose`) finds in the delta.
    pub(super) fn with_delta(
        &self,
        query: &[f32],
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
        mut hits: Vec<OwnerHit>,
        search: Search,
    ) -> Result<Vec<OwnerHit>> {
        let Some(delta) = &self.delta else {
            return Ok(hits);
        };
        let offset = self.core.input.len() as u32;
        hits.extend(search(delta, query, k, allow)?.into_iter().map(|mut h| {
            h.vector += offset;
            h
        }));
        Ok(top_k(hits, k))
    }
}

#[cfg(test)]
#[path = "overlay_tests.rs"]
mod tests;

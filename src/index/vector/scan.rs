//! Exact scans of a vector index: every owner's best cosine, the best hits of given owners,
//! and the exact top k (the strategy below `exact_below` vectors, and every walk's fallback).

use super::math::{cosine, top_k};
use super::{OwnerHit, VectorIndex, GONE};
use crate::error::Result;

impl VectorIndex {
    /// Exact max cosine of every owner, indexed by owner (length = largest owner + 1); owners
    /// with no vector get `f32::NEG_INFINITY`. A full scan: cheap up to tens of thousands of
    /// vectors; for reranking a few candidates at scale prefer [`VectorIndex::score_owners`].
    pub fn cosine_all(&self, query: &[f32]) -> Result<Vec<f32>> {
        let q = self.prepare_query(query)?;
        let mut out = vec![f32::NEG_INFINITY; self.group_by_owner.len()];
        for (g, &owner) in self.owners.iter().enumerate() {
            if owner != GONE {
                out[owner as usize] = self.group_best(&q, g).0;
            }
        }
        if let Some(delta) = &self.delta {
            let more = delta.cosine_all(query)?;
            if more.len() > out.len() {
                out.resize(more.len(), f32::NEG_INFINITY);
            }
            for (o, c) in more.into_iter().enumerate() {
                out[o] = out[o].max(c);
            }
        }
        Ok(out)
    }

    /// Exact best hit of each given owner (None for an owner with no vector), in the given
    /// order: the reranking primitive, cost proportional to the owners' vectors only.
    pub fn score_owners(&self, query: &[f32], owners: &[u32]) -> Result<Vec<Option<OwnerHit>>> {
        let q = self.prepare_query(query)?;
        let mut hits: Vec<Option<OwnerHit>> = owners
            .iter()
            .map(|&o| {
                let g = *self.group_by_owner.get(o as usize)?;
                (g != GONE).then(|| self.hit(g as usize, self.group_best(&q, g as usize)))
            })
            .collect();
        if let Some(delta) = &self.delta {
            let offset = self.core.input.len() as u32;
            for (slot, more) in hits.iter_mut().zip(delta.score_owners(query, owners)?) {
                if let Some(mut h) = more {
                    h.vector += offset;
                    *slot = Some(h);
                }
            }
        }
        Ok(hits)
    }

    pub(super) fn row(&self, pos: usize) -> &[f32] {
        &self.core.data[pos * self.dim..(pos + 1) * self.dim]
    }

    pub(super) fn group_len(&self, g: usize) -> usize {
        (self.core.starts[g + 1] - self.core.starts[g]) as usize
    }

    /// Best (cosine, stored position) of group `g`; the first position wins exact ties.
    pub(super) fn group_best(&self, q: &[f32], g: usize) -> (f32, usize) {
        let (start, end) = (
            self.core.starts[g] as usize,
            self.core.starts[g + 1] as usize,
        );
        let mut best = (f32::NEG_INFINITY, start);
        for pos in start..end {
            let c = cosine(q, self.row(pos));
            if c > best.0 {
                best = (c, pos);
            }
        }
        best
    }

    pub(super) fn hit(&self, g: usize, (cosine, pos): (f32, usize)) -> OwnerHit {
        OwnerHit {
            owner: self.owners[g],
            cosine,
            vector: self.core.input[pos],
        }
    }

    pub(super) fn exact_top_k(
        &self,
        q: &[f32],
        k: usize,
        allowed: impl Fn(usize) -> bool,
    ) -> Vec<OwnerHit> {
        let hits = (0..self.owners.len())
            .filter(|&g| allowed(g))
            .map(|g| self.hit(g, self.group_best(q, g)))
            .collect();
        top_k(hits, k)
    }
}

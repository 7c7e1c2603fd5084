//! Graph walks of a vector index: the breadth of a walk (`walk_ef`), and the walk that
//! proposes candidates which are then rescored exactly over each owner's vectors.

use super::graph::Codes;
use super::math::top_k;
use super::{OwnerHit, VectorIndex, Walker, EF_REFERENCE_VECTORS};

impl VectorIndex {
    /// The ef of a walk for the top k with a fraction `fraction` of the vectors allowed:
    /// `ef_search` grown with (n / 32k)^0.75, at least 2k so that k distinct owners survive
    /// deduplication when an owner's vectors lie close together, and 1/f more under a filter,
    /// which is applied to the walk's output (all ef vectors reached are asked for: they are
    /// computed anyway).
    ///
    /// Not hnsw_rs's `search_filter`: with a filter its layer-0 walk never takes the early
    /// exit and goes on until the candidate heap drains, which measured ~5x slower than this
    /// over-fetch at half the owners allowed (as slow as scanning everything).
    pub(super) fn walk_ef(&self, k: usize, fraction: f64) -> usize {
        let base = self.scaled_ef().max(k.saturating_mul(2));
        (base as f64 / fraction).ceil() as usize
    }

    /// `ef_search` grown with (n / 32k)^0.75 for n vectors.
    pub(super) fn scaled_ef(&self) -> usize {
        let scale = (self.stored() as f64 / EF_REFERENCE_VECTORS)
            .powf(0.75)
            .max(1.0);
        (self.params.ef_search as f64 * scale) as usize
    }

    /// Top k by a graph walk of breadth `ef` plus exact rescoring of the owners found (over
    /// all their vectors, so a cosine never depends on which vector the walk reached). `mask`
    /// restricts to allowed groups. None when the walk found fewer than `want` distinct allowed
    /// owners even after one 4x wider walk.
    pub(super) fn hnsw_top_k(
        &self,
        hnsw: &Walker,
        q: &[f32],
        k: usize,
        want: usize,
        ef: usize,
        mask: Option<&[bool]>,
    ) -> Option<Vec<OwnerHit>> {
        self.hnsw_walk(hnsw, q, k, want, ef, mask, 2)
    }

    /// [`VectorIndex::hnsw_top_k`] with the number of walks (each 4x wider) as a parameter.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hnsw_walk(
        &self,
        hnsw: &Walker,
        q: &[f32],
        k: usize,
        want: usize,
        mut ef: usize,
        mask: Option<&[bool]>,
        attempts: usize,
    ) -> Option<Vec<OwnerHit>> {
        let qc = Codes::query(q);
        for _attempt in 0..attempts {
            let ef_now = ef.min(self.stored());
            let found = hnsw.graph.walk(&hnsw.codes, &qc, ef_now);
            let mut groups: Vec<u32> = found
                .iter()
                .map(|&p| self.core.group_of[p as usize])
                .collect();
            groups.sort_unstable();
            groups.dedup();
            if let Some(mask) = mask {
                groups.retain(|&g| mask[g as usize]);
            }
            if groups.len() >= want {
                let hits = groups
                    .into_iter()
                    .map(|g| self.hit(g as usize, self.group_best(q, g as usize)))
                    .collect();
                return Some(top_k(hits, k));
            }
            if ef_now >= self.stored() {
                break;
            }
            ef = ef.saturating_mul(4);
        }
        None
    }
}

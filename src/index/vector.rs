//! The vector index: nearest owners (tools) to a query embedding by cosine, where one owner may
//! have several vectors (a tool has several passages) and scores by its best one.
//!
//! Two strategies behind one API, chosen at build time by the number of vectors:
//! - exact: a brute-force scan of dot products (vectors are L2-normalised, so dot = cosine).
//!   Below [`VectorParams::exact_below`] vectors this is within ~60 us of a walk, exact, and
//!   trivially deterministic, and needs no graph build; catalogs of a few hundred tools live
//!   here.
//! - HNSW (built by hnsw_rs with `DistDot` = 1 - dot, walked in flat arrays over int8 codes,
//!   see `graph`): a graph walk proposes candidate vectors; their owners are then rescored
//!   exactly over all of their f32 vectors, so every reported cosine is exact and only
//!   membership of the top k is approximate.
//!
//! Filters (`allow`) act on owners before the top-k cut, and a filter never makes a result
//! shorter than `min(k, allowed owners)`: a selective filter is answered by an exact scan of the
//! allowed owners' vectors, a broad one by a graph walk that over-fetches and filters its
//! output, with the exact scan as the fallback whenever the walk comes back short.
//!
//! A catalog change does not rebuild the graph: `overlay` renumbers owners, retires the
//! changed ones' vectors and scans new vectors exactly beside it; `store` writes and reads an
//! index for the persisted snapshot. `scan` holds the exact scans, `walk` the graph walks.
//!
//! Memory: 1.5 KiB per vector at dim 384 (f32), plus under HNSW 384 bytes of codes and ~128
//! bytes of layer-0 links per vector (hnsw_rs's own copy is dropped after the build).

use crate::error::{Error, Result};
use graph::{build_hnsw, Codes, Graph};
use math::{check_vector, normalise_shrunk};
use std::sync::Arc;

/// One owner in a result: its best cosine to the query and which of its vectors gave it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnerHit {
    pub owner: u32,
    /// Max cosine over the owner's vectors, in [-1, 1].
    pub cosine: f32,
    /// Index, in the `vectors` given to [`VectorIndex::build`], of the vector that matched best
    /// (the lowest such index on an exact tie).
    pub vector: u32,
}

/// Tuning of the index. The defaults come from measurements on the clustered synthetic set
/// (`index::synthetic`, dim 384) on the 2-core reference machine; `benches/vector.rs` repeats
/// them. Tests and benches change them to force one strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorParams {
    /// Below this many vectors the index is an exact scan; at or above it, HNSW.
    ///
    /// 2048, from `benches/vector`'s crossover group with the flat int8 walk of `graph`: the
    /// exact scan costs ~47 ns a vector (1k 48 us, 2k 95 us, 4k 158 us, 8k 379 us) and a walk
    /// 31-49 us from 1k to 16k vectors, so the walk is faster from ~1k vectors on. The scan is
    /// kept up to 2k because below that it loses at most ~60 us, its results are exact, and the
    /// HNSW build it saves costs more than the searches of a short session (1k vectors 0.12 s,
    /// 4k 1.0 s, 16k 10 s on two cores). With walks inside hnsw_rs (~1 us per visited node)
    /// the crossover had been ~8k.
    pub exact_below: usize,
    /// HNSW `max_nb_connection` (M; layer 0 keeps 2*M links).
    ///
    /// 16: at equal recall, M = 8 and 12 were no faster at 10k owners and lost recall at 100k
    /// (M = 12: 0.95 at ef 192 where M = 16 had 0.99); larger M only adds visits per hop.
    pub max_nb_connection: usize,
    /// HNSW `ef_construction`.
    ///
    /// 100: at 100k vectors it bought the recall of ~2x the search ef over 64 (0.993 vs 0.971
    /// at ef 96) for 1.3x the build time; 200 doubled build time again (30k vectors already
    /// take ~25 s to insert).
    pub ef_construction: usize,
    /// HNSW `ef` at search time (breadth of the layer-0 walk) at up to 32k vectors; the walk
    /// uses `max(ef_search * (n / 32k)^0.75, 2k)` for n vectors, then 1/f more under a filter
    /// letting a fraction f of the vectors through.
    ///
    /// 40: recall@10 vs exact at 10k owners x 3 vectors (30k vectors) is 0.994 at ef 24 and
    /// 0.999 at 40. At 100k vectors ef 40 gave ~0.94 and 0.99 needed ~2.4x the ef, hence
    /// the growth with (n / 32k)^0.75 (ef 92 at 100k vectors).
    pub ef_search: usize,
    /// Insert with hnsw_rs's `parallel_insert` (rayon) instead of one point at a time.
    ///
    /// Off: on 2 cores parallel insertion was no faster (lock and refcount contention), and
    /// serial insertion makes the graph, hence every result, a pure function of the input.
    pub parallel_build: bool,
}

impl Default for VectorParams {
    fn default() -> Self {
        VectorParams {
            exact_below: 2048,
            max_nb_connection: 16,
            ef_construction: 100,
            ef_search: 40,
            parallel_build: false,
        }
    }
}

/// Vectors at which `ef_search` applies as given; it grows with (n / this)^0.75 above.
const EF_REFERENCE_VECTORS: f64 = 32_768.0;

/// Cost of a graph walk of breadth ef, in units of one vector of a filtered exact scan:
/// FIXED + PER_EF * ef. A filtered search scans the allowed vectors when there are fewer.
/// Measured with the flat walk of `graph` at 10k owners x 3 vectors, dim 384 (`benches/vector`):
/// a walk costs ~1.4 us per ef (ef 40: 55 us; ef 80 under a 50% filter: 112 us), a filtered
/// scan ~65 ns per allowed vector, so by speed alone a walk is worth ~20 vectors per ef. But a
/// walk's recall falls under selective filters: with 20% of the owners allowed, a walk of
/// ef 200 took 235 us against the scan's 407 us and found only 0.955 of the true top 10
/// (0.999 at 50%). These constants, higher than speed alone asks, keep walks to filters
/// letting about a third or more through, where their recall stays at 0.999; the scan, exact,
/// takes the rest.
const WALK_COST_FIXED: f64 = 2_000.0;
const WALK_COST_PER_EF: f64 = 60.0;

/// hnsw_rs caps the number of layers at 16 (`NB_LAYER_MAX`); asking for that keeps its default
/// level distribution (layers beyond ~log_M(n) stay empty anyway).
const HNSW_MAX_LAYER: usize = 16;

/// A read-only index of owner vectors. Build it once, share it (`Send + Sync`).
///
/// The vectors and the graph (the [`Core`]) are shared by every index updated from the one
/// built (see `overlay`): a catalog change renumbers owners and retires the changed ones'
/// vectors here, and scans the few vectors it adds exactly beside the graph, instead of
/// building a new graph.
pub struct VectorIndex {
    dim: usize,
    params: VectorParams,
    core: Arc<Core>,
    /// Current owner of each core group, or [`GONE`] for a group whose owner left or changed.
    owners: Vec<u32>,
    /// Core group of each current owner (indexed by owner), or [`GONE`].
    group_by_owner: Vec<u32>,
    /// Which core groups still have an owner; None when all do (no per-query mask needed).
    alive: Option<Vec<bool>>,
    /// Live core vectors (those of groups with an owner).
    live_vectors: usize,
    /// Vectors added since the core was built, scanned exactly; the `OwnerHit::vector` of
    /// their hits continues the core's input numbering (core inputs first).
    delta: Option<Box<VectorIndex>>,
}

/// An owner number that no owner has: a retired group, or an owner without a group.
const GONE: u32 = u32::MAX;

/// What a build computes once: vectors grouped by owner, and the graph over them.
struct Core {
    /// Vectors normalised to norm [`shrink`] (1 - ~1e-5), `dim` floats each, grouped by owner
    /// (owners ascending at build time, each owner's vectors in input order): a contiguous
    /// scan per owner and per index.
    data: Vec<f32>,
    /// Input index of each stored vector (what [`OwnerHit::vector`] reports).
    input: Vec<u32>,
    /// Stored vectors of group g are `starts[g]..starts[g + 1]`.
    starts: Vec<u32>,
    /// Group of each stored vector (to map an HNSW hit, a stored position, to its owner).
    group_of: Vec<u32>,
    /// The graph over stored positions and the int8 codes its walks compare, present when
    /// there are at least `exact_below` vectors (see `graph`).
    hnsw: Option<Walker>,
}

/// What a graph walk needs: the links and the quantised vectors.
struct Walker {
    graph: Graph,
    codes: Codes,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("dim", &self.dim)
            .field("vectors", &self.len())
            .field("owners", &self.owner_count())
            .field("hnsw", &self.core.hnsw.is_some())
            .field("delta", &self.delta.as_ref().map_or(0, |d| d.len()))
            .finish()
    }
}

impl VectorIndex {
    /// Builds the index with the default [`VectorParams`]. `vectors` are `(owner, embedding)`;
    /// an owner may appear any number of times. Embeddings are re-normalised here (so callers'
    /// rounding never reaches the distance), and must have `dim` finite, not all-zero values.
    pub fn build(dim: usize, vectors: Vec<(u32, Vec<f32>)>) -> Result<VectorIndex> {
        VectorIndex::build_with(dim, vectors, VectorParams::default())
    }

    /// [`VectorIndex::build`] with explicit tuning.
    ///
    /// Deterministic by default: the same input gives the same graph (hnsw_rs seeds its level
    /// generator with a constant and serial insertion fixes the order) and so the same
    /// results. With `parallel_build` the graph depends on thread timing, and on the rare query
    /// where the walk misses a true top-k owner two builds may disagree; cosines and tie order
    /// stay exact and deterministic either way.
    pub fn build_with(
        dim: usize,
        vectors: Vec<(u32, Vec<f32>)>,
        params: VectorParams,
    ) -> Result<VectorIndex> {
        if dim == 0 {
            return Err(Error::Internal(
                "vector index: dimension must be positive".into(),
            ));
        }
        if u32::try_from(vectors.len()).is_err() || vectors.iter().any(|(o, _)| *o == GONE) {
            return Err(Error::Internal(format!(
                "vector index: {} vectors, or an owner number, exceed the u32 range",
                vectors.len()
            )));
        }
        for (i, (owner, v)) in vectors.iter().enumerate() {
            check_vector(v, dim).map_err(|why| {
                Error::Internal(format!("vector index: vector {i} (owner {owner}) {why}"))
            })?;
        }

        // Group by owner; the stable sort keeps each owner's vectors in input order, which is
        // what makes "lowest input index on a tie" fall out of a forward scan.
        let mut order: Vec<u32> = (0..vectors.len() as u32).collect();
        order.sort_by_key(|&i| vectors[i as usize].0);
        let n = order.len();
        let mut data = Vec::with_capacity(n * dim);
        let mut owners = Vec::new();
        let mut starts = Vec::new();
        let mut group_of = Vec::with_capacity(n);
        for (pos, &i) in order.iter().enumerate() {
            let (owner, v) = &vectors[i as usize];
            if owners.last() != Some(owner) {
                owners.push(*owner);
                starts.push(pos as u32);
            }
            group_of.push((owners.len() - 1) as u32);
            let at = data.len();
            data.extend_from_slice(v);
            normalise_shrunk(&mut data[at..]);
        }
        starts.push(n as u32);
        drop(vectors);

        let hnsw = (n >= params.exact_below && n > 0).then(|| Walker {
            graph: Graph::from_hnsw(&build_hnsw(dim, &data, &params), n),
            codes: Codes::new(dim, &data),
        });
        let core = Core {
            data,
            input: order,
            starts,
            group_of,
            hnsw,
        };
        Ok(VectorIndex::over(dim, params, Arc::new(core), owners, None))
    }

    /// An index over `core` whose groups belong to `owners` (GONE: retired), with `delta`.
    fn over(
        dim: usize,
        params: VectorParams,
        core: Arc<Core>,
        owners: Vec<u32>,
        delta: Option<Box<VectorIndex>>,
    ) -> VectorIndex {
        let bound = owners
            .iter()
            .filter(|&&o| o != GONE)
            .max()
            .map_or(0, |&o| o as usize + 1);
        let mut group_by_owner = vec![GONE; bound];
        let mut live_vectors = 0;
        for (g, &o) in owners.iter().enumerate() {
            if o != GONE {
                group_by_owner[o as usize] = g as u32;
                live_vectors += (core.starts[g + 1] - core.starts[g]) as usize;
            }
        }
        let alive = owners
            .contains(&GONE)
            .then(|| owners.iter().map(|&o| o != GONE).collect());
        VectorIndex {
            dim,
            params,
            core,
            owners,
            group_by_owner,
            alive,
            live_vectors,
            delta,
        }
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of vectors of the current owners.
    pub fn len(&self) -> usize {
        self.live_vectors + self.delta.as_ref().map_or(0, |d| d.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first vector stored for `owner` in the index as built (not an overlay's),
    /// normalised and scaled by the index's shrink: for a caller that builds a new index
    /// from some of this one's vectors without embedding their texts again.
    pub fn owner_vector(&self, owner: u32) -> Option<&[f32]> {
        let g = *self.group_by_owner.get(owner as usize)?;
        if g == GONE {
            return None;
        }
        let pos = *self.core.starts.get(g as usize)? as usize;
        Some(self.row(pos))
    }

    /// Number of distinct owners with at least one vector.
    pub fn owner_count(&self) -> usize {
        let core = self.owners.iter().filter(|&&o| o != GONE).count();
        core + self.delta.as_ref().map_or(0, |d| d.owner_count())
    }

    /// Whether searches walk an HNSW graph (else they scan exactly).
    pub fn uses_hnsw(&self) -> bool {
        self.core.hnsw.is_some()
    }

    pub fn params(&self) -> VectorParams {
        self.params
    }

    /// Changes the search-time breadth of the graph walk (the only parameter that does not
    /// need a rebuild); benches sweep it to trade latency for recall.
    pub fn set_ef_search(&mut self, ef_search: usize) {
        self.params.ef_search = ef_search.max(1);
    }

    /// The best `k` owners by max cosine over their vectors, sorted by cosine descending then
    /// owner ascending. `allow`, when given, is asked once per owner that has vectors, before
    /// the top-k cut: the result has exactly `min(k, allowed owners)` hits. Errors only on a
    /// query of the wrong dimension, non-finite or all zero.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
    ) -> Result<Vec<OwnerHit>> {
        let q = self.prepare_query(query)?;
        let hits = self.core_search(&q, k, allow);
        self.with_delta(query, k, allow, hits, VectorIndex::search)
    }

    /// Candidate owners for a reranker that rescores them exactly: like [`VectorIndex::search`]
    /// but best effort. One graph walk of the usual breadth, and whatever distinct allowed
    /// owners it reached (at most `k`) are the answer; only a walk that reached fewer than a
    /// quarter of them falls back to the guaranteed path.
    ///
    /// Why: owners with several close vectors (a tool's passages) make the walk for k
    /// *distinct* owners retry 4x wider, which measured ~25x the cost of the first walk at 10k
    /// tools, while the caller unions these candidates with other sources and needs the best
    /// few, not exactly k.
    pub fn propose(
        &self,
        query: &[f32],
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
    ) -> Result<Vec<OwnerHit>> {
        let q = self.prepare_query(query)?;
        let hits = match &self.core.hnsw {
            Some(hnsw) if allow.is_none() && k > 0 && self.live_vectors > 0 => {
                let live = self.owners.iter().filter(|&&o| o != GONE).count();
                let want = (k.min(live) / 4).max(1);
                // `walk_ef` reaches 2k vectors so that k distinct owners survive
                // deduplication; an index with one vector per owner (summaries) needs k, and
                // the walk costs its ef.
                let per_owner = (self.stored() as f64 / self.owners.len() as f64).clamp(1.0, 2.0);
                let ef = self
                    .walk_ef(k, self.live_fraction())
                    .min(((k as f64 * per_owner).ceil() as usize).max(self.scaled_ef()));
                let mask = self.alive.as_deref();
                self.hnsw_walk(hnsw, &q, k, want, ef, mask, 1)
                    .unwrap_or_else(|| self.exact_top_k(&q, k, |g| self.is_alive(g)))
            }
            _ => self.core_search(&q, k, allow),
        };
        self.with_delta(query, k, allow, hits, VectorIndex::propose)
    }

    // ---- internals -----------------------------------------------------------------------

    /// [`VectorIndex::search`] over the core only.
    fn core_search(
        &self,
        q: &[f32],
        k: usize,
        allow: Option<&dyn Fn(u32) -> bool>,
    ) -> Vec<OwnerHit> {
        if k == 0 || self.live_vectors == 0 {
            return Vec::new();
        }
        let allowed = |g: usize| self.is_alive(g) && allow.is_none_or(|a| a(self.owners[g]));
        let Some(hnsw) = &self.core.hnsw else {
            return self.exact_top_k(q, k, allowed);
        };
        if allow.is_none() && self.alive.is_none() {
            let want = k.min(self.owners.len());
            let hits = self.hnsw_top_k(hnsw, q, k, want, self.walk_ef(k, 1.0), None);
            return hits.unwrap_or_else(|| self.exact_top_k(q, k, |_| true));
        }
        let mask: Vec<bool> = (0..self.owners.len()).map(allowed).collect();
        let allowed_owners = mask.iter().filter(|&&a| a).count();
        let allowed_vectors: usize = (0..self.owners.len())
            .filter(|&g| mask[g])
            .map(|g| self.group_len(g))
            .sum();
        if allowed_owners == 0 {
            return Vec::new();
        }
        // The walk over-fetches by 1/f for an allowed fraction f of the vectors; scan the
        // allowed vectors instead when that is cheaper or keeps recall (see `WALK_COST_*`).
        let fraction = allowed_vectors as f64 / self.stored() as f64;
        let ef = self.walk_ef(k, fraction);
        let walk_cost = WALK_COST_FIXED + WALK_COST_PER_EF * ef as f64;
        let hits = if allowed_vectors as f64 <= walk_cost {
            None
        } else {
            let want = k.min(allowed_owners);
            self.hnsw_top_k(hnsw, q, k, want, ef, Some(&mask))
        };
        // Also the fallback when the walk came back with fewer than `want` allowed owners
        // (a filter whose owners lie away from the query, or owners with many near-identical
        // vectors): the guarantee on the result's length is kept by scanning.
        hits.unwrap_or_else(|| self.exact_top_k(q, k, |g| mask[g]))
    }

    fn is_alive(&self, g: usize) -> bool {
        self.alive.as_ref().is_none_or(|a| a[g])
    }

    /// Vectors stored in the core, live or retired: what a graph walk moves through.
    fn stored(&self) -> usize {
        self.core.input.len()
    }

    fn live_fraction(&self) -> f64 {
        (self.live_vectors as f64 / self.stored().max(1) as f64).max(1e-3)
    }

    fn prepare_query(&self, query: &[f32]) -> Result<Vec<f32>> {
        check_vector(query, self.dim)
            .map_err(|why| Error::Internal(format!("vector index: query {why}")))?;
        let mut q = query.to_vec();
        normalise_shrunk(&mut q);
        Ok(q)
    }
}

mod graph;
mod math;
mod overlay;
mod scan;
mod store;
#[cfg(test)]
mod tests;
mod walk;

//! The HNSW graph in flat arrays, and the walk over it.
//!
//! hnsw_rs builds the graph (insertion order, level draws, neighbour selection); its links are
//! then copied here and the hnsw_rs structure is dropped. Why not search with hnsw_rs itself:
//! its points are `Arc`s behind `RwLock`s, its visited set a hash set and its distance a
//! dynamically dispatched call on 1.5 KiB f32 rows, so a walk at 10k tools cost ~0.25 ms of which
//! under half was distance arithmetic (profiled). Here a walk reads `u32` neighbour lists and
//! compares the query with [`Codes`], one byte per dimension (a quarter of the memory traffic
//! per visited vector), with a bitset for visited nodes. The walk only proposes: callers rescore
//! what it reaches with the exact f32 vectors, so the int8 rounding moves no reported cosine.
//!
//! Dropping hnsw_rs's copy of the data also halves the index's memory.

use super::{VectorParams, HNSW_MAX_LAYER};
use crate::index::bytes::{Read, Reader, Writer};
use hnsw_rs::prelude::{DistDot, Hnsw};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

/// Vectors quantised to one signed byte per dimension, with one scale per vector
/// (`x ~ code * scale`, symmetric, `scale = max |x| / 127`).
///
/// For the unit vectors of a sentence model the dot product of codes is within about 1% of the
/// true cosine, enough to steer a walk whose output is rescored exactly.
pub(super) struct Codes {
    dim: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl Codes {
    /// Codes of the `dim`-sized rows of `data`.
    pub(super) fn new(dim: usize, data: &[f32]) -> Codes {
        let n = data.len() / dim;
        let mut codes = Vec::with_capacity(n * dim);
        let mut scales = Vec::with_capacity(n);
        for row in data.chunks_exact(dim) {
            scales.push(quantise_into(row, &mut codes));
        }
        Codes { dim, codes, scales }
    }

    /// The query's codes (its scale is a positive constant for the walk, so it is dropped).
    pub(super) fn query(q: &[f32]) -> Vec<i8> {
        let mut out = Vec::with_capacity(q.len());
        quantise_into(q, &mut out);
        out
    }

    /// A distance (lower is nearer) between the quantised query and stored vector `pos`:
    /// minus their approximate dot product, up to the query's scale.
    #[inline]
    fn distance(&self, q: &[i8], pos: u32) -> f32 {
        let at = pos as usize * self.dim;
        -(dot_i8(q, &self.codes[at..at + self.dim]) as f32) * self.scales[pos as usize]
    }
}

/// Appends the codes of `v` to `out` and returns the scale.
fn quantise_into(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    out.extend(
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8),
    );
    scale
}

/// Integer dot product, compiled for AVX-512 / AVX2 / SSE4.1 besides the baseline and picked at
/// run time (the walk's hot loop: ~75% of a walk is these products). Written as 16 independent
/// lanes so every version vectorises; exact in i32 for any dimension below 2^17.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw", "x86_64+avx2", "x86_64+sse4.1",))]
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let (ac, ar) = a.split_at(a.len() - a.len() % 16);
    let (bc, br) = b.split_at(ac.len());
    for (x, y) in ac.chunks_exact(16).zip(bc.chunks_exact(16)) {
        for i in 0..16 {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let tail: i32 = ar
        .iter()
        .zip(br)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum();
    acc.iter().sum::<i32>() + tail
}

/// The links of one upper layer (few nodes: a fraction 1/M^l of them reach layer l).
#[derive(Default)]
struct UpperLayer {
    /// Node -> range of its links in `links`.
    ranges: HashMap<u32, (u32, u32)>,
    links: Vec<u32>,
}

/// An HNSW graph over stored positions `0..n`: layer-0 links in CSR form, upper layers sparse.
pub(super) struct Graph {
    /// Layer-0 links of node p are `links[offsets[p]..offsets[p + 1]]`, nearest first.
    offsets: Vec<u32>,
    links: Vec<u32>,
    /// Layers 1.. (index l - 1 holds layer l).
    upper: Vec<UpperLayer>,
    /// Where every walk starts: a node of the top layer.
    entry: u32,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("nodes", &(self.offsets.len() - 1))
            .field("links", &self.links.len())
            .field("layers", &(self.upper.len() + 1))
            .field("entry", &self.entry)
            .finish()
    }
}

impl Graph {
    /// Copies the links of `hnsw`, whose DataIds are the positions `0..n`.
    pub(super) fn from_hnsw(hnsw: &Hnsw<'static, f32, DistDot>, n: usize) -> Graph {
        let indexation = hnsw.get_point_indexation();
        let mut layer0: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut upper_lists: Vec<Vec<(u32, Vec<u32>)>> = Vec::new();
        let mut entry: Option<(u8, Reverse<u32>)> = None;
        for point in indexation {
            let pos = point.get_origin_id() as u32;
            let level = point.get_point_id().0;
            // The highest level wins, then the earliest position: with serial insertion that
            // is the point hnsw_rs itself enters by.
            let key = (level, Reverse(pos));
            if entry.is_none_or(|e| key > e) {
                entry = Some(key);
            }
            for (layer, list) in point.get_neighborhood_id().into_iter().enumerate() {
                let ids: Vec<u32> = list.iter().map(|nb| nb.d_id as u32).collect();
                if layer == 0 {
                    layer0[pos as usize] = ids;
                } else if !ids.is_empty() || layer <= level as usize {
                    if upper_lists.len() < layer {
                        upper_lists.resize_with(layer, Vec::new);
                    }
                    upper_lists[layer - 1].push((pos, ids));
                }
            }
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut links = Vec::with_capacity(layer0.iter().map(Vec::len).sum());
        offsets.push(0);
        for list in layer0 {
            links.extend(list);
            offsets.push(links.len() as u32);
        }
        let upper = upper_lists
            .into_iter()
            .map(|mut nodes| {
                nodes.sort_unstable_by_key(|(pos, _)| *pos);
                let mut layer = UpperLayer::default();
                for (pos, ids) in nodes {
                    let start = layer.links.len() as u32;
                    layer.links.extend(ids);
                    layer.ranges.insert(pos, (start, layer.links.len() as u32));
                }
                layer
            })
            .collect();
        Graph {
            offsets,
            links,
            upper,
            entry: entry.map_or(0, |(_, Reverse(pos))| pos),
        }
    }

    fn neighbours(&self, layer: usize, node: u32) -> &[u32] {
        if layer == 0 {
            let (a, b) = (
                self.offsets[node as usize] as usize,
                self.offsets[node as usize + 1] as usize,
            );
            &self.links[a..b]
        } else {
            let l = &self.upper[layer - 1];
            l.ranges
                .get(&node)
                .map_or(&[][..], |&(a, b)| &l.links[a as usize..b as usize])
        }
    }

    /// The (up to) `ef` nodes nearest to `q` that a walk of breadth `ef` reaches, nearest first
    /// (ties by position): greedy descent through the upper layers, then the layer-0 beam
    /// search of HNSW. A pure function of the graph, the codes and the query.
    pub(super) fn walk(&self, codes: &Codes, q: &[i8], ef: usize) -> Vec<u32> {
        let n = self.offsets.len() - 1;
        if n == 0 || ef == 0 {
            return Vec::new();
        }
        let dist = |p: u32| Near(codes.distance(q, p), p);
        let mut here = dist(self.entry);
        for layer in (1..=self.upper.len()).rev() {
            loop {
                let mut moved = false;
                for &nb in self.neighbours(layer, here.1) {
                    let d = dist(nb);
                    if d < here {
                        here = d;
                        moved = true;
                    }
                }
                if !moved {
                    break;
                }
            }
        }

        let mut visited = vec![0u64; n.div_ceil(64)];
        let mut visit = |p: u32| {
            let (w, b) = (p as usize / 64, 1u64 << (p % 64));
            let fresh = visited[w] & b == 0;
            visited[w] |= b;
            fresh
        };
        visit(here.1);
        // `frontier`: nodes to expand, nearest on top; `found`: the best ef, farthest on top.
        let mut frontier = BinaryHeap::with_capacity(ef * 2);
        let mut found = BinaryHeap::with_capacity(ef + 1);
        frontier.push(Reverse(here));
        found.push(here);
        while let Some(Reverse(next)) = frontier.pop() {
            if found.len() >= ef && found.peek().is_some_and(|far| next > *far) {
                break;
            }
            for &nb in self.neighbours(0, next.1) {
                if !visit(nb) {
                    continue;
                }
                let d = dist(nb);
                if found.len() < ef || found.peek().is_some_and(|far| d < *far) {
                    frontier.push(Reverse(d));
                    found.push(d);
                    if found.len() > ef {
                        found.pop();
                    }
                }
            }
        }
        found.into_sorted_vec().into_iter().map(|d| d.1).collect()
    }
}

/// A node at a distance, ordered by distance then position (a total, deterministic order).
#[derive(Debug, Clone, Copy)]
struct Near(f32, u32);

impl Ord for Near {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

impl PartialOrd for Near {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Near {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Near {}

/// hnsw_rs's graph over `data` (rows of `dim`), from which [`Graph`] copies the links.
pub(super) fn build_hnsw(
    dim: usize,
    data: &[f32],
    params: &VectorParams,
) -> Hnsw<'static, f32, DistDot> {
    let n = data.len() / dim;
    let hnsw = Hnsw::<f32, DistDot>::new(
        params.max_nb_connection,
        n,
        HNSW_MAX_LAYER,
        params.ef_construction,
        DistDot,
    );
    let items: Vec<(&[f32], usize)> = data.chunks_exact(dim).zip(0..n).collect();
    if params.parallel_build {
        hnsw.parallel_insert_slice(&items);
    } else {
        for &item in &items {
            hnsw.insert_slice(item);
        }
    }
    hnsw
}

/// Persistence (see `vector::store`): the graph and the codes as written by a build, read
/// back with every link and range checked against the node count, so a damaged file cannot
/// send a walk out of bounds.
impl Graph {
    pub(super) fn write(&self, w: &mut Writer) {
        w.u32s(&self.offsets);
        w.u32s(&self.links);
        w.u64(self.upper.len() as u64);
        for layer in &self.upper {
            let mut nodes: Vec<(&u32, &(u32, u32))> = layer.ranges.iter().collect();
            nodes.sort_unstable();
            let flat: Vec<u32> = nodes.iter().flat_map(|(&p, &(a, b))| [p, a, b]).collect();
            w.u32s(&flat);
            w.u32s(&layer.links);
        }
        w.u32(self.entry);
    }

    pub(super) fn read(r: &mut Reader, n: usize) -> Read<Graph> {
        let offsets = r.u32s("graph offsets")?;
        let links = r.u32s("graph links")?;
        let ordered = offsets.windows(2).all(|w| w[0] <= w[1]);
        if offsets.len() != n + 1 || offsets[0] != 0 || !ordered {
            return Err(format!(
                "graph offsets: expected {} ascending from 0",
                n + 1
            ));
        }
        if offsets[n] as usize != links.len() || links.iter().any(|&l| l as usize >= n) {
            return Err(format!(
                "graph links: expected {} links below {n}",
                offsets[n]
            ));
        }
        let layers = r.u64("graph layers")?;
        if layers > HNSW_MAX_LAYER as u64 {
            return Err(format!(
                "graph layers: expected at most {HNSW_MAX_LAYER}, found {layers}"
            ));
        }
        let mut upper = Vec::new();
        for l in 1..=layers {
            let flat = r.u32s("graph layer nodes")?;
            let links = r.u32s("graph layer links")?;
            let mut layer = UpperLayer::default();
            for node in flat.chunks(3) {
                let &[pos, a, b] = node else {
                    return Err(format!("graph layer {l}: expected node triples"));
                };
                if pos as usize >= n || a > b || b as usize > links.len() {
                    return Err(format!("graph layer {l}: node {pos} out of range"));
                }
                layer.ranges.insert(pos, (a, b));
            }
            if links.iter().any(|&x| x as usize >= n) {
                return Err(format!("graph layer {l}: expected links below {n}"));
            }
            layer.links = links;
            upper.push(layer);
        }
        let entry = r.u32("graph entry")?;
        if n > 0 && entry as usize >= n {
            return Err(format!(
                "graph entry: expected a node below {n}, found {entry}"
            ));
        }
        Ok(Graph {
            offsets,
            links,
            upper,
            entry,
        })
    }
}

impl Codes {
    pub(super) fn write(&self, w: &mut Writer) {
        w.i8s(&self.codes);
        w.f32s(&self.scales);
    }

    pub(super) fn read(r: &mut Reader, dim: usize, n: usize) -> Read<Codes> {
        let codes = r.i8s("codes")?;
        let scales = r.f32s("code scales")?;
        if codes.len() != n * dim || scales.len() != n || scales.iter().any(|s| !s.is_finite()) {
            return Err(format!(
                "codes: expected {n} vectors of {dim} with finite scales"
            ));
        }
        Ok(Codes { dim, codes, scales })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_dot_matches_a_plain_sum_at_every_length() {
        for len in [0, 1, 15, 16, 17, 384, 385] {
            let a: Vec<i8> = (0..len).map(|i| ((i * 37) % 255) as i8).collect();
            let b: Vec<i8> = (0..len).map(|i| ((i * 91 + 5) % 255) as i8).collect();
            let plain: i32 = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| i32::from(x) * i32::from(y))
                .sum();
            assert_eq!(dot_i8(&a, &b), plain, "length {len}");
        }
    }

    #[test]
    fn codes_keep_the_order_of_clearly_different_cosines() {
        let dim = 384;
        let unit = |seed: u64| crate::index::synthetic::SplitMix64::new(seed).unit_vector(dim);
        let q = unit(1);
        let other = unit(2);
        // near = q bent a little towards other; far = other.
        let near: Vec<f32> = q.iter().zip(&other).map(|(a, b)| a + 0.3 * b).collect();
        let data: Vec<f32> = near.iter().chain(&other).copied().collect();
        let codes = Codes::new(dim, &data);
        let qc = Codes::query(&q);
        assert!(codes.distance(&qc, 0) < codes.distance(&qc, 1));
        // The approximate dot is within 2% of the exact one for the near pair.
        let exact: f32 = q.iter().zip(&near).map(|(a, b)| a * b).sum();
        let qs = q.iter().fold(0.0f32, |m, x| m.max(x.abs())) / 127.0;
        let approx = -codes.distance(&qc, 0) * qs;
        assert!((approx - exact).abs() < 0.02 * exact, "{approx} vs {exact}");
    }
}

//! A vector index as bytes, for the persisted snapshot (`index::persist`): the core (vectors,
//! grouping, graph and codes) as built, the current owners, and the delta. Reading checks
//! every count and index against the others before anything uses them.

use super::graph::{Codes, Graph};
use super::math::shrink;
use super::{Core, VectorIndex, VectorParams, Walker, GONE};
use crate::index::bytes::{Read, Reader, Writer};
use std::sync::Arc;

impl VectorIndex {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.u32(self.dim as u32);
        let p = &self.params;
        for v in [
            p.exact_below,
            p.max_nb_connection,
            p.ef_construction,
            p.ef_search,
        ] {
            w.u64(v as u64);
        }
        w.u8(u8::from(p.parallel_build));
        let core = &self.core;
        w.f32s(&core.data);
        w.u32s(&core.input);
        w.u32s(&core.starts);
        w.u32s(&core.group_of);
        w.u32s(&self.owners);
        match &core.hnsw {
            None => w.u8(0),
            Some(walker) => {
                w.u8(1);
                walker.graph.write(w);
                walker.codes.write(w);
            }
        }
        match &self.delta {
            None => w.u8(0),
            Some(delta) => {
                w.u8(1);
                delta.write(w);
            }
        }
    }

    /// Reads what [`VectorIndex::write`] wrote; owners must be below `owner_bound`.
    pub(crate) fn read(r: &mut Reader, owner_bound: u32) -> Read<VectorIndex> {
        let dim = r.u32("dimension")? as usize;
        let mut numbers = [0usize; 4];
        for (slot, what) in numbers
            .iter_mut()
            .zip(["exact_below", "M", "ef_construction", "ef"])
        {
            *slot = usize::try_from(r.u64(what)?).map_err(|_| format!("{what}: out of range"))?;
        }
        let params = VectorParams {
            exact_below: numbers[0],
            max_nb_connection: numbers[1],
            ef_construction: numbers[2],
            ef_search: numbers[3].max(1),
            parallel_build: r.u8("parallel_build")? != 0,
        };
        let data = r.f32s("vectors")?;
        let input = r.u32s("input order")?;
        let starts = r.u32s("group starts")?;
        let group_of = r.u32s("group of vector")?;
        let owners = r.u32s("owners")?;
        let n = input.len();
        check_grouping(dim, &data, &input, &starts, &group_of, &owners, owner_bound)?;
        let hnsw = match r.u8("graph flag")? {
            0 => None,
            _ => Some(Walker {
                graph: Graph::read(r, n)?,
                codes: Codes::read(r, dim, n)?,
            }),
        };
        let delta = match r.u8("delta flag")? {
            0 => None,
            _ => Some(Box::new(VectorIndex::read(r, owner_bound)?)),
        };
        let core = Core {
            data,
            input,
            starts,
            group_of,
            hnsw,
        };
        Ok(VectorIndex::over(
            dim,
            params,
            Arc::new(core),
            owners,
            delta,
        ))
    }
}

/// Whether the grouping arrays describe `input.len()` vectors consistently.
fn check_grouping(
    dim: usize,
    data: &[f32],
    input: &[u32],
    starts: &[u32],
    group_of: &[u32],
    owners: &[u32],
    owner_bound: u32,
) -> Read<()> {
    let n = input.len();
    if dim == 0 || data.len() != n * dim || group_of.len() != n {
        return Err(format!("vectors: expected {n} of dimension {dim}"));
    }
    // Stored vectors have norm `shrink` (see `math`): a damaged one could push a dot
    // product past what the distance function asserts.
    let most = f64::from(shrink(dim)) * (1.0 + 1e-6);
    for (i, row) in data.chunks_exact(dim).enumerate() {
        let norm = row
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt();
        if !(0.5..=most).contains(&norm) {
            return Err(format!(
                "vectors: expected vector {i} of norm {most:.6} or just under, found {norm}"
            ));
        }
    }
    let mut seen = vec![false; n];
    for &i in input {
        let slot = seen
            .get_mut(i as usize)
            .ok_or("input order: index out of range")?;
        if std::mem::replace(slot, true) {
            return Err(format!("input order: index {i} twice"));
        }
    }
    let groups = owners.len();
    let ordered = starts.windows(2).all(|w| w[0] <= w[1]);
    if starts.len() != groups + 1 || starts.first() != Some(&0) || !ordered {
        return Err(format!(
            "group starts: expected {} ascending from 0",
            groups + 1
        ));
    }
    if starts[groups] as usize != n {
        return Err(format!("group starts: expected to end at {n}"));
    }
    for g in 0..groups {
        let (a, b) = (starts[g] as usize, starts[g + 1] as usize);
        if group_of[a..b].iter().any(|&x| x as usize != g) {
            return Err(format!(
                "group of vector: group {g} inconsistent with its starts"
            ));
        }
    }
    let mut owned = std::collections::HashSet::new();
    for &o in owners {
        if o != GONE && (o >= owner_bound || !owned.insert(o)) {
            return Err(format!("owners: {o} out of range or twice"));
        }
    }
    Ok(())
}

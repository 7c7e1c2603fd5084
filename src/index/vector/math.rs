//! The vector index's arithmetic: checking, normalising and comparing vectors (with the
//! shrink that keeps `DistDot` from panicking), and the deterministic order of results.

use super::OwnerHit;
use hnsw_rs::prelude::{DistDot, Distance};
use std::cmp::Ordering;

/// Why `v` cannot be indexed or queried, if it cannot.
pub(super) fn check_vector(v: &[f32], dim: usize) -> std::result::Result<(), String> {
    if v.len() != dim {
        return Err(format!("has {} dimensions, expected {dim}", v.len()));
    }
    if let Some(at) = v.iter().position(|x| !x.is_finite()) {
        return Err(format!("has a non-finite value at {at}"));
    }
    if v.iter().all(|&x| x == 0.0) {
        return Err("is all zeros (no direction to compare)".into());
    }
    Ok(())
}

/// The factor s every stored and query vector is scaled by after normalisation: anndists'
/// SIMD `DistDot` asserts `dot <= 1.000002` and its scalar path `1 - dot >= 0`, and an f32 dot
/// of two unit vectors can round above 1 by up to ~dim ulps (more than the SIMD slack at dim
/// 384, worst case). Shrinking both vectors by (dim + 4) ulps keeps every computed dot strictly
/// below 1, so no input can panic the distance. One factor for all vectors preserves every
/// ordering, and [`cosine`] divides it back out.
pub(super) fn shrink(dim: usize) -> f32 {
    (1.0 - (dim as f32 + 4.0) * f32::EPSILON).max(0.5)
}

/// Scales `v` to norm [`shrink`] (its unit norm computed in f64, so it is accurate to an ulp).
/// `v` has a non-zero finite value (checked by [`check_vector`]).
pub(super) fn normalise_shrunk(v: &mut [f32]) {
    let norm = v
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    let scale = f64::from(shrink(v.len())) / norm;
    for x in v {
        *x = (f64::from(*x) * scale) as f32;
    }
}

/// Cosine of two vectors stored by [`normalise_shrunk`], by the same `DistDot` the graph uses
/// (anndists picks AVX-512/AVX2/SSE at run time; in a measurement it beat a portable loop by
/// ~1.5x, which is the whole cost of an exact scan). `1 - d` undoes the distance, `/ s^2` the
/// shrink; the clamp absorbs rounding (|error| ~1e-7), and `+ 0.0` folds -0.0 into 0.0 so that
/// `total_cmp` ordering matches numeric ordering.
pub(super) fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let s = shrink(a.len());
    ((1.0 - DistDot.eval(a, b)) / (s * s)).clamp(-1.0, 1.0) + 0.0
}

/// Result order: cosine descending, then owner ascending (deterministic ties).
pub(super) fn rank(a: &OwnerHit, b: &OwnerHit) -> Ordering {
    b.cosine.total_cmp(&a.cosine).then(a.owner.cmp(&b.owner))
}

pub(super) fn top_k(mut hits: Vec<OwnerHit>, k: usize) -> Vec<OwnerHit> {
    if hits.len() > k {
        hits.select_nth_unstable_by(k - 1, rank);
        hits.truncate(k);
    }
    hits.sort_unstable_by(rank);
    hits
}

//! Tests of `overlay` and `store`: an updated index answers as a fresh build of the changed
//! set would, retired owners never come back, chained updates keep vector numbers meaningful,
//! and bytes read back give the same index (damaged bytes an error, never a panic).

use super::super::{OwnerHit, VectorIndex, VectorParams};
use crate::index::bytes::{Reader, Writer};
use crate::index::synthetic::{Clustered, SplitMix64};

const DIM: usize = 32;

fn params(exact: bool) -> VectorParams {
    VectorParams {
        exact_below: if exact { usize::MAX } else { 0 },
        ..VectorParams::default()
    }
}

/// 400 owners with 2 vectors each, and the change: every 20th owner leaves, every 15th
/// changes its vectors, 20 owners are new (420..440); survivors are renumbered (old + 7).
struct Change {
    before: Vec<(u32, Vec<f32>)>,
    renumber: Vec<Option<u32>>,
    added: Vec<(u32, Vec<f32>)>,
    after: Vec<(u32, Vec<f32>)>,
    queries: Vec<Vec<f32>>,
}

fn change() -> Change {
    let gen = Clustered::embedding_like(5, DIM);
    let mut rng = SplitMix64::new(6);
    let before = gen.owners(&mut rng, 400, 2);
    let renumber: Vec<Option<u32>> = (0..400u32)
        .map(|o| (o % 20 != 0 && o % 15 != 0).then_some(o + 7))
        .collect();
    let mut added: Vec<(u32, Vec<f32>)> = gen
        .owners(&mut rng, 20, 2)
        .into_iter()
        .map(|(o, v)| (420 + o, v))
        .collect();
    for (o, v) in gen.owners(&mut rng, 400, 1) {
        if o % 15 == 0 && o % 20 != 0 {
            added.push((o + 7, v));
        }
    }
    let mut after: Vec<(u32, Vec<f32>)> = before
        .iter()
        .filter_map(|(o, v)| Some((renumber[*o as usize]?, v.clone())))
        .collect();
    after.extend(added.iter().cloned());
    let queries = (0..40).map(|_| gen.random(&mut rng)).collect();
    Change {
        before,
        renumber,
        added,
        after,
        queries,
    }
}

fn scored(hits: &[OwnerHit]) -> Vec<(u32, f32)> {
    hits.iter().map(|h| (h.owner, h.cosine)).collect()
}

#[test]
fn an_update_of_an_exact_index_answers_as_a_fresh_build() {
    let c = change();
    let base = VectorIndex::build_with(DIM, c.before.clone(), params(true)).unwrap();
    let renumber = |o: u32| c.renumber[o as usize];
    let (updated, origins) = base.updated(renumber, c.added.clone()).unwrap();
    assert_eq!(origins.len(), c.added.len());
    let fresh = VectorIndex::build_with(DIM, c.after.clone(), params(true)).unwrap();
    assert_eq!(updated.len(), fresh.len());
    assert_eq!(updated.owner_count(), fresh.owner_count());
    assert!(updated.shares_core_with(&base) && updated.overlay_share() > 0.0);
    let odd = |o: u32| o % 2 == 1;
    for q in &c.queries {
        let (u, f) = (
            updated.search(q, 10, None).unwrap(),
            fresh.search(q, 10, None).unwrap(),
        );
        assert_eq!(scored(&u), scored(&f));
        let (u, f) = (
            updated.search(q, 10, Some(&odd)).unwrap(),
            fresh.search(q, 10, Some(&odd)).unwrap(),
        );
        assert_eq!(scored(&u), scored(&f));
        assert_eq!(updated.cosine_all(q).unwrap(), fresh.cosine_all(q).unwrap());
        let owners: Vec<u32> = (0..440).collect();
        let u: Vec<Option<(u32, f32)>> = updated
            .score_owners(q, &owners)
            .unwrap()
            .iter()
            .map(|h| h.map(|h| (h.owner, h.cosine)))
            .collect();
        let f: Vec<Option<(u32, f32)>> = fresh
            .score_owners(q, &owners)
            .unwrap()
            .iter()
            .map(|h| h.map(|h| (h.owner, h.cosine)))
            .collect();
        assert_eq!(u, f);
    }
}

#[test]
fn an_update_of_a_graph_keeps_recall_and_never_reports_a_retired_owner() {
    let c = change();
    let base = VectorIndex::build_with(DIM, c.before.clone(), params(false)).unwrap();
    let (updated, _) = base
        .updated(|o| c.renumber[o as usize], c.added.clone())
        .unwrap();
    let fresh = VectorIndex::build_with(DIM, c.after.clone(), params(true)).unwrap();
    let live: std::collections::HashSet<u32> = c.after.iter().map(|(o, _)| *o).collect();
    let (mut found, mut total) = (0, 0);
    for q in &c.queries {
        let truth: Vec<u32> = fresh
            .search(q, 10, None)
            .unwrap()
            .iter()
            .map(|h| h.owner)
            .collect();
        let got = updated.search(q, 10, None).unwrap();
        assert_eq!(got.len(), 10);
        assert!(got.iter().all(|h| live.contains(&h.owner)));
        found += got.iter().filter(|h| truth.contains(&h.owner)).count();
        total += truth.len();
        let proposed = updated.propose(q, 10, None).unwrap();
        assert!(proposed.iter().all(|h| live.contains(&h.owner)));
    }
    let recall = found as f64 / total as f64;
    assert!(recall >= 0.95, "recall@10 {recall}");
    // Retire all but three: exactly those come back, with the delta's.
    let (few, _) = base.updated(|o| (o < 3).then_some(o), Vec::new()).unwrap();
    let hits = few.search(&c.queries[0], 10, None).unwrap();
    let mut owners: Vec<u32> = hits.iter().map(|h| h.owner).collect();
    owners.sort_unstable();
    assert_eq!(owners, vec![0, 1, 2]);
}

#[test]
fn chained_updates_keep_every_vector_number_pointing_at_its_vector() {
    let c = change();
    // A label per vector number: the owner the vector was first given (and where it came
    // from); a hit's label must name the hit's own owner, before renumbering.
    let base = VectorIndex::build_with(DIM, c.before.clone(), params(false)).unwrap();
    let mut labels: Vec<u32> = c.before.iter().map(|(o, _)| *o).collect();
    let mut index = base;
    let mut original: std::collections::HashMap<u32, u32> = (0..400).map(|o| (o, o)).collect();
    let gen = Clustered::embedding_like(9, DIM);
    let mut rng = SplitMix64::new(10);
    for round in 0..3u32 {
        // Shift survivors by one and add one new owner with two vectors.
        let next_new = 5000 + 10 * round;
        let renumber = |o: u32| (o % 7 != round).then_some(o + 1);
        let added: Vec<(u32, Vec<f32>)> =
            (0..2).map(|_| (next_new, gen.random(&mut rng))).collect();
        let (updated, origins) = index.updated(renumber, added).unwrap();
        let core = updated.core_len();
        let mut next_labels = labels[..core].to_vec();
        for origin in origins {
            next_labels.push(match origin {
                Some(v) => labels[v as usize],
                None => next_new,
            });
        }
        let mut next_original = std::collections::HashMap::new();
        for (o, first) in &original {
            if let Some(n) = renumber(*o) {
                next_original.insert(n, *first);
            }
        }
        next_original.insert(next_new, next_new);
        (index, labels, original) = (updated, next_labels, next_original);
        assert_eq!(labels.len(), index.vector_numbers());
        for q in &c.queries {
            for h in index.search(q, 20, None).unwrap() {
                assert_eq!(
                    labels[h.vector as usize], original[&h.owner],
                    "round {round}"
                );
            }
        }
    }
}

#[test]
fn an_index_read_back_answers_the_same_and_damage_is_an_error() {
    let c = change();
    let base = VectorIndex::build_with(DIM, c.before.clone(), params(false)).unwrap();
    let (updated, _) = base
        .updated(|o| c.renumber[o as usize], c.added.clone())
        .unwrap();
    let mut w = Writer::default();
    updated.write(&mut w);
    let read = VectorIndex::read(&mut Reader::new(&w.bytes), 1000).unwrap();
    for q in &c.queries {
        assert_eq!(
            read.search(q, 10, None).unwrap(),
            updated.search(q, 10, None).unwrap()
        );
        assert_eq!(
            read.propose(q, 10, None).unwrap(),
            updated.propose(q, 10, None).unwrap()
        );
    }
    // Owners beyond the bound are refused.
    assert!(VectorIndex::read(&mut Reader::new(&w.bytes), 100).is_err());
    // Truncation anywhere is an error; a changed byte is an error or an index that still
    // answers (a damaged float is a different vector), never a panic.
    let mut rng = SplitMix64::new(3);
    for _ in 0..300 {
        let cut = rng.below(w.bytes.len());
        assert!(VectorIndex::read(&mut Reader::new(&w.bytes[..cut]), 1000).is_err());
        let mut bytes = w.bytes.clone();
        let at = rng.below(bytes.len());
        bytes[at] ^= 1 << rng.below(8);
        if let Ok(index) = VectorIndex::read(&mut Reader::new(&bytes), 1000) {
            let _ = index.search(&c.queries[0], 10, None);
            let _ = index.propose(&c.queries[1], 10, Some(&|o: u32| o.is_multiple_of(3)));
        }
    }
}

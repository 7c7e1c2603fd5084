//! The semantic half of a snapshot: passage vectors in two vector indexes, built from scratch
//! or updated from an earlier snapshot's (the serving one on a reload, the persisted one at
//! start) when only a few tools changed.
//!
//! One vector per tool for its summary, and one per other passage (keywords, guidance chunks,
//! examples, parameters). A tool's semantic evidence blends its summary cosine with its best
//! other passage (see `rank::SUMMARY_SHARE`): the summary says what the tool is, the best
//! passage catches the one use case a query describes.
//!
//! An update matches tools by id and by a fingerprint of their passages' texts: a tool whose
//! passages are the same keeps its vectors (under its new ordinal), the others are embedded
//! (through the vector cache) and scanned exactly beside the graphs (`vector::overlay`).

use super::vector::VectorIndex;
use crate::catalog::{PassageKind, ToolDocument};
use crate::embed::cache::VectorCache;
use crate::embed::Embedder;
use crate::error::Result;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Arc;

/// Past this share of the core (retired plus added vectors, see
/// [`VectorIndex::overlay_share`]) an update builds from scratch instead: each added vector
/// costs every query ~47 ns of exact scan, and retired nodes widen walks.
pub const MAX_OVERLAY_SHARE: f64 = 0.2;

/// A tool as the vectors know it: its id and a fingerprint of its passages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolKey {
    pub id: String,
    pub fingerprint: [u8; 16],
}

impl ToolKey {
    pub(crate) fn of(doc: &ToolDocument) -> ToolKey {
        let mut h = Sha256::new();
        for p in &doc.passages {
            h.update([p.kind as u8]);
            h.update((p.text.len() as u64).to_le_bytes());
            h.update(p.text.as_bytes());
        }
        let digest: [u8; 32] = h.finalize().into();
        let mut fingerprint = [0u8; 16];
        fingerprint.copy_from_slice(&digest[..16]);
        ToolKey {
            id: doc.tool_id.clone(),
            fingerprint,
        }
    }
}

pub struct Semantic {
    pub embedder: Arc<dyn Embedder>,
    pub summaries: VectorIndex,
    /// Every non-summary passage; a tool with none is represented by its summary again.
    pub passages: VectorIndex,
    /// Kind of each vector of `passages`, by its `OwnerHit::vector` number.
    pub passage_kinds: Vec<PassageKind>,
    /// The tool of each ordinal, for matching a later catalog's tools with these vectors.
    pub tools: Vec<ToolKey>,
}

/// Vectors of one catalog's passages, grouped for the two indexes.
struct Embedded {
    summaries: Vec<(u32, Vec<f32>)>,
    passages: Vec<(u32, Vec<f32>)>,
    kinds: Vec<PassageKind>,
}

impl Semantic {
    /// The semantic index of `docs`: updated from `previous` when it is of the same model and
    /// the change is small, built from scratch otherwise.
    pub fn build(
        docs: &[ToolDocument],
        embedder: Arc<dyn Embedder>,
        cache: Option<&VectorCache>,
        previous: Option<&Semantic>,
    ) -> Result<Semantic> {
        let same_model = |p: &&Semantic| {
            p.embedder.model_id() == embedder.model_id() && p.summaries.dim() == embedder.dim()
        };
        if let Some(previous) = previous.filter(same_model) {
            if let Some(updated) = previous.updated(docs, embedder.clone(), cache)? {
                return Ok(updated);
            }
        }
        let all: Vec<&ToolDocument> = docs.iter().collect();
        let e = embed(&all, embedder.as_ref(), cache)?;
        let dim = embedder.dim();
        Ok(Semantic {
            summaries: VectorIndex::build(dim, e.summaries)?,
            passages: VectorIndex::build(dim, e.passages)?,
            passage_kinds: e.kinds,
            tools: docs.iter().map(ToolKey::of).collect(),
            embedder,
        })
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.summaries.len() + self.passages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this index was updated rather than built (it carries an overlay).
    pub fn is_overlay(&self) -> bool {
        self.summaries.overlay_share() > 0.0 || self.passages.overlay_share() > 0.0
    }

    /// This index for `docs`, or None when the change is too large for an overlay.
    fn updated(
        &self,
        docs: &[ToolDocument],
        embedder: Arc<dyn Embedder>,
        cache: Option<&VectorCache>,
    ) -> Result<Option<Semantic>> {
        let keys: Vec<ToolKey> = docs.iter().map(ToolKey::of).collect();
        let by_id: HashMap<&str, usize> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.id.as_str(), i))
            .collect();
        let renumber = |old: u32| -> Option<u32> {
            let key = self.tools.get(old as usize)?;
            let new = *by_id.get(key.id.as_str())?;
            (keys[new].fingerprint == key.fingerprint).then_some(new as u32)
        };
        let mut kept = vec![false; docs.len()];
        (0..self.tools.len() as u32)
            .filter_map(renumber)
            .for_each(|n| kept[n as usize] = true);
        let fresh: Vec<&ToolDocument> = docs.iter().filter(|d| !kept[d.ordinal as usize]).collect();
        let changed = fresh.len() + self.tools.len() - kept.iter().filter(|&&k| k).count();
        if changed as f64 > MAX_OVERLAY_SHARE * docs.len().max(1) as f64 {
            return Ok(None);
        }
        let e = embed(&fresh, embedder.as_ref(), cache)?;
        if let Some(cache) = cache.filter(|_| !fresh.is_empty()) {
            // The cache keeps what the catalog uses when it saves (only after embedding
            // something new); unchanged tools were not looked up, so name their texts.
            cache.keep(
                docs.iter()
                    .flat_map(|d| d.passages.iter().map(|p| p.text.as_str())),
            );
        }
        let (summaries, _) = self.summaries.updated(renumber, e.summaries)?;
        let (passages, origins) = self.passages.updated(renumber, e.passages)?;
        if summaries.overlay_share() > MAX_OVERLAY_SHARE
            || passages.overlay_share() > MAX_OVERLAY_SHARE
        {
            return Ok(None);
        }
        let mut added = e.kinds.into_iter();
        let core = self.passages.core_len();
        let mut passage_kinds = self.passage_kinds[..core].to_vec();
        for origin in origins {
            let kind = match origin {
                Some(v) => self.passage_kinds.get(v as usize).copied(),
                None => added.next(),
            };
            passage_kinds.push(kind.unwrap_or(PassageKind::Summary));
        }
        Ok(Some(Semantic {
            embedder,
            summaries,
            passages,
            passage_kinds,
            tools: keys,
        }))
    }
}

/// Embeds every passage of `docs` (one call, through the cache when there is one): the
/// summary vectors, the other-passage vectors and the kinds of the latter, each vector under
/// its document's ordinal.
fn embed(
    docs: &[&ToolDocument],
    embedder: &dyn Embedder,
    cache: Option<&VectorCache>,
) -> Result<Embedded> {
    let mut texts: Vec<&str> = Vec::new();
    let mut owners: Vec<u32> = Vec::new();
    let mut kinds: Vec<PassageKind> = Vec::new();
    for d in docs {
        for p in &d.passages {
            texts.push(&p.text);
            owners.push(d.ordinal);
            kinds.push(p.kind);
        }
    }
    // One call with every text: the embedder orders them by length before batching, so
    // batches hold texts of similar length and little of each forward pass goes to padding.
    // Chunking here first (as this once did, 64 at a time) sorted only within each chunk.
    let vectors = match cache {
        Some(cache) => {
            let (vectors, usage) = cache.embed(embedder, &texts)?;
            tracing::info!(
                cached = usage.hits,
                embedded = usage.misses,
                "catalog passages embedded"
            );
            vectors
        }
        None => embedder.embed(&texts)?,
    };
    let mut out = Embedded {
        summaries: Vec::new(),
        passages: Vec::new(),
        kinds: Vec::new(),
    };
    let mut has_other: HashMap<u32, bool> = docs.iter().map(|d| (d.ordinal, false)).collect();
    for ((owner, kind), v) in owners.iter().zip(&kinds).zip(vectors) {
        if *kind == PassageKind::Summary {
            out.summaries.push((*owner, v));
        } else {
            has_other.insert(*owner, true);
            out.passages.push((*owner, v));
            out.kinds.push(*kind);
        }
    }
    for (owner, v) in &out.summaries {
        if !has_other[owner] {
            out.passages.push((*owner, v.clone()));
            out.kinds.push(PassageKind::Summary);
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "semantic_tests.rs"]
mod tests;

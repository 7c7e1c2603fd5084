//! The two retrieval stages of a search, run side by side: the keyword top k and the vector
//! proposals (query embedding included), split over the calling thread and one pool thread so
//! that a request waits for about half of their work.
//!
//! The calling thread runs the keyword search, then the walk over the summary vectors; a pool
//! thread embeds the query (or finds its vector cached), hands the vector over, and walks the
//! passage vectors. One hand-over each way per request: `rayon::join` called from outside the
//! pool hands both closures to the pool and parks the caller, three hand-overs that measured
//! ~0.1 ms at 10k tools. A caller that is itself a pool thread must not block waiting for
//! another pool job, so there the pool job does both walks.

use super::{Engine, QueryTexts, QueryVectors, SearchMode};
use crate::error::Result;
use crate::index::keyword::KeywordHit;
use crate::index::vector::OwnerHit;
use std::sync::Arc;

/// What the stages found.
pub(super) struct Stages {
    /// The keyword top k, best first (empty in semantic mode).
    pub(super) keyword: Vec<KeywordHit>,
    /// The vector side, when semantic search ran.
    pub(super) vectors: Option<Proposals>,
}

/// The query vector and the owners each vector index proposed for it, sorted by owner. Each
/// hit's cosine is exact for the index that proposed it (owners are rescored over all their
/// vectors).
pub(super) struct Proposals {
    pub(super) q: Arc<Vec<f32>>,
    pub(super) summaries: Vec<OwnerHit>,
    pub(super) passages: Vec<OwnerHit>,
}

/// The pool side's answer: the query vector, the summary proposals (when it walked them) and
/// the passage proposals.
type PoolSide = (Arc<Vec<f32>>, Vec<OwnerHit>, Vec<OwnerHit>);

impl Engine {
    /// Runs both stages for `req` in `mode`, asking each index for `k` candidates among the
    /// tools `allow` lets through (None: all).
    pub(super) fn stages(
        &self,
        texts: &QueryTexts,
        mode: SearchMode,
        k: usize,
        allow: Option<&(dyn Fn(u32) -> bool + Sync)>,
        vectors: Option<&QueryVectors>,
    ) -> Result<Stages> {
        let snap = &self.snapshot;
        let semantic = snap
            .semantic
            .as_ref()
            .filter(|_| mode != SearchMode::Keyword);
        let allow_fn = || allow.map(|a| a as &dyn Fn(u32) -> bool);
        let pipelined = rayon::current_thread_index().is_none();
        let (vector_tx, vector_rx) = std::sync::mpsc::sync_channel::<Arc<Vec<f32>>>(1);

        let pool_side = || -> Result<Option<PoolSide>> {
            // Owned here, so the sender is dropped (and the calling thread stops waiting)
            // however this side ends.
            let vector_tx = vector_tx;
            let Some(sem) = semantic else {
                return Ok(None);
            };
            let Some(q) = self.query_vector(&texts.embed, vectors)? else {
                return Ok(None);
            };
            if pipelined {
                // A closed receiver only means the other side has nothing more to do.
                let _ = vector_tx.send(q.clone());
            }
            let passages = sem.passages.propose(&q, k, allow_fn())?;
            let summaries = if pipelined {
                Vec::new()
            } else {
                sem.summaries.propose(&q, k, allow_fn())?
            };
            Ok(Some((q, summaries, passages)))
        };
        let calling_side = || -> (Vec<KeywordHit>, Result<Vec<OwnerHit>>) {
            let keyword = if mode == SearchMode::Semantic {
                Vec::new()
            } else {
                snap.keyword.search(texts.keyword_query(), k, allow_fn())
            };
            let summaries = match (semantic, pipelined) {
                // Err from recv: the pool side ended without a vector (its result says why).
                (Some(sem), true) => match vector_rx.recv() {
                    Ok(q) => sem.summaries.propose(&q, k, allow_fn()),
                    Err(_) => Ok(Vec::new()),
                },
                _ => Ok(Vec::new()),
            };
            (keyword, summaries)
        };

        let mut pool_result = Ok(None);
        let (keyword, calling_summaries) = rayon::in_place_scope(|scope| {
            scope.spawn(|_| pool_result = pool_side());
            calling_side()
        });
        let vectors = match pool_result? {
            None => None,
            Some((q, pool_summaries, mut passages)) => {
                let mut summaries = if pipelined {
                    calling_summaries?
                } else {
                    pool_summaries
                };
                summaries.sort_unstable_by_key(|h| h.owner);
                passages.sort_unstable_by_key(|h| h.owner);
                Some(Proposals {
                    q,
                    summaries,
                    passages,
                })
            }
        };
        Ok(Stages { keyword, vectors })
    }
}

/// The hit of `owner` in `hits` (sorted by owner), if it has one.
pub(super) fn find(hits: &[OwnerHit], owner: u32) -> Option<OwnerHit> {
    hits.binary_search_by_key(&owner, |h| h.owner)
        .ok()
        .map(|i| hits[i])
}

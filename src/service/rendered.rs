//! Search answers as the bytes a door sends, cached and bounded in bytes. A hit is one copy
//! of a `Bytes` handle: no search, no rendering, no serialisation. What is stored is the
//! answer as a hit reads (`cache_hit: true`, `execution_time` 0: answered without work,
//! `timestamp` when it was computed, as an HTTP cache keeps a response's `Date`). An answer
//! is kept from its second sighting on (see `search_rendered`).

use super::Service;
use crate::engine::{SearchRequest, SearchResponse, Valid};
use crate::error::{Error, Result};
use crate::format::{render_search, Presentation, Rendered};
use bytes::Bytes;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// A rendered answer: its media type and body.
#[derive(Debug, Clone)]
pub struct Rendition {
    pub content_type: &'static str,
    pub body: Bytes,
}

impl Rendition {
    fn of(rendered: Rendered) -> Result<Rendition> {
        Ok(match rendered {
            Rendered::Json(value) => Rendition {
                content_type: "application/json",
                body: serde_json::to_vec(&value)
                    .map_err(|e| Error::Internal(format!("cannot serialise an answer: {e}")))?
                    .into(),
            },
            Rendered::Markdown(text) => Rendition {
                content_type: "text/markdown; charset=utf-8",
                body: text.into(),
            },
        })
    }
}

pub(crate) type RenderedCache = moka::sync::Cache<String, Arc<Rendition>>;

/// A cache of `budget` bytes whose entries live `ttl`.
pub(crate) fn cache(budget: u64, ttl: Duration) -> RenderedCache {
    moka::sync::Cache::builder()
        .max_capacity(budget)
        .weigher(|key: &String, r: &Arc<Rendition>| {
            crate::engine::weight((key.len() + r.body.len()) as u64)
        })
        .time_to_live(ttl)
        .build()
}

impl Service {
    /// Search, rendered as the request asks (`response_format`, `detail_level`): the same
    /// answer as [`Service::search`] renders to, from the rendered cache when it holds it.
    pub async fn search_rendered(&self, body: &Value) -> Result<Arc<Rendition>> {
        let req = Valid::<SearchRequest>::parse(body, &self.catalog())?;
        let presentation = Presentation::from_body(body)?;
        let key = serde_json::to_string(&(self.catalog().version(), &req, presentation))
            .map_err(|e| Error::Internal(e.to_string()))?;
        if let Some(hit) = self.rendered.get(&key) {
            self.engine().count_cache_hit();
            return Ok(hit);
        }
        let engine = self.engine();
        let (rendition, keep) = self
            .gated(move || {
                let response = engine.search_counted(&req)?;
                // Bytes are kept from a query's second sighting on: the engine's response
                // cache remembers the first, so the answer then reads as a hit anyway and one
                // rendering serves both this request and the cache. A stream of distinct
                // queries renders each answer once (it was rendered twice before)
                // and leaves the byte budget to the answers that are asked again.
                let keep = engine.config().cache_enabled && response.metadata.cache_hit;
                let response = if keep { as_hit(response) } else { response };
                Ok((
                    Rendition::of(render_search(&response, presentation)?)?,
                    keep,
                ))
            })
            .await?;
        let rendition = Arc::new(rendition);
        if keep {
            self.rendered.insert(key, rendition.clone());
        }
        Ok(rendition)
    }
}

/// The response as a cache hit reads.
fn as_hit(mut response: SearchResponse) -> SearchResponse {
    response.metadata.cache_hit = true;
    response.execution_time = 0.0;
    response
}

//! Discovery answers as the bytes a door sends, rendered on the gate's workers (never on the
//! async runtime). Search answers are also cached, bounded in bytes: a hit is one copy of a
//! `Bytes` handle: no search, no rendering, no serialisation. What is stored is the
//! answer as a hit reads (`cache_hit: true`, `execution_time` 0: answered without work,
//! `timestamp` when it was computed, as an HTTP cache keeps a response's `Date`). An answer
//! is kept from its second sighting on (see `search_rendered`).
//!
//! The full JSON form (the default presentation) is serialised straight from the typed
//! response into one buffer sized up front: through a `serde_json::Value` tree, a 10-hit
//! detailed search (~60 KB) cost thousands of small allocations and a buffer regrown five
//! times, a fifth of a search's time in the allocator under load. The bytes are the same.

use super::Service;
use crate::engine::{
    ComparisonRequest, RecommendationRequest, SearchRequest, SearchResponse, Valid,
};
use crate::error::{Error, Result};
use crate::format::{
    compare_response_format, render_compare, render_recommend, render_search, Presentation,
    Rendered, ResponseFormat,
};
use crate::usage::AnswerKind;
use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// A rendered answer: its media type and body, and the query and tool ids it shows (what
/// the usage store records of it, even when it comes from the cache).
#[derive(Debug, Clone)]
pub struct Rendition {
    pub content_type: &'static str,
    pub body: Bytes,
    pub(crate) query: String,
    pub(crate) shown: Vec<String>,
}

/// Bytes reserved per hit of a full JSON answer before serialising (a detailed hit is 4-7 KB),
/// so the buffer is rarely regrown.
const BYTES_PER_HIT: usize = 8 * 1024;

impl Rendition {
    /// A typed response as JSON, into a buffer of about `hint` bytes.
    fn json(value: &impl Serialize, hint: usize) -> Result<Rendition> {
        let mut body = Vec::with_capacity(hint);
        serde_json::to_writer(&mut body, value)
            .map_err(|e| Error::Internal(format!("cannot serialise an answer: {e}")))?;
        Ok(Rendition {
            content_type: "application/json",
            body: body.into(),
            query: String::new(),
            shown: Vec::new(),
        })
    }

    /// The same rendition, saying what it shows.
    fn showing(self, query: &str, shown: Vec<String>) -> Rendition {
        Rendition {
            query: query.to_string(),
            shown,
            ..self
        }
    }

    fn of(rendered: Rendered) -> Result<Rendition> {
        Ok(match rendered {
            Rendered::Json(value) => Rendition::json(&value, 4 * 1024)?,
            Rendered::Markdown(text) => Rendition {
                content_type: "text/markdown; charset=utf-8",
                body: text.into(),
                query: String::new(),
                shown: Vec::new(),
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
        let key = serde_json::to_string(&(
            self.catalog().version(),
            self.engine().learning_generation(),
            &req,
            presentation,
        ))
        .map_err(|e| Error::Internal(e.to_string()))?;
        if let Some(hit) = self.rendered.get(&key) {
            self.engine().count_cache_hit();
            self.record_answer(AnswerKind::Search, &hit.query, hit.shown.clone());
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
                let rendition = if presentation == Presentation::default() {
                    Rendition::json(&response, response.results.len() * BYTES_PER_HIT)?
                } else {
                    Rendition::of(render_search(&response, presentation)?)?
                };
                let shown = response.results.iter().map(|r| r.tool_id.clone()).collect();
                Ok((rendition.showing(&response.query, shown), keep))
            })
            .await?;
        self.record_answer(
            AnswerKind::Search,
            &rendition.query,
            rendition.shown.clone(),
        );
        let rendition = Arc::new(rendition);
        if keep {
            self.rendered.insert(key, rendition.clone());
        }
        Ok(rendition)
    }

    /// Recommend, rendered as the request asks: the same answer as [`Service::recommend`]
    /// renders to.
    pub async fn recommend_rendered(&self, body: &Value) -> Result<Rendition> {
        let req = Valid::<RecommendationRequest>::parse(body, &self.catalog())?;
        let presentation = Presentation::from_body(body)?;
        let engine = self.engine();
        let rendition = self
            .gated(move || {
                let response = engine.recommend(&req)?;
                let rendition = if presentation == Presentation::default() {
                    let hits = response.recommendations.len() + response.workflow.len();
                    Rendition::json(&response, hits * BYTES_PER_HIT)?
                } else {
                    Rendition::of(render_recommend(&response, presentation)?)?
                };
                let shown = response.recommendations.iter();
                let shown = shown.map(|r| r.tool.tool_id.clone()).collect();
                Ok(rendition.showing(&response.task_description, shown))
            })
            .await?;
        self.record_answer(
            AnswerKind::Recommend,
            &rendition.query,
            rendition.shown.clone(),
        );
        Ok(rendition)
    }

    /// Compare, rendered as `response_format` asks: the same answer as [`Service::compare`]
    /// renders to.
    pub async fn compare_rendered(&self, body: &Value) -> Result<Rendition> {
        let req = Valid::<ComparisonRequest>::parse(body, &self.catalog())?;
        let format = compare_response_format(body)?;
        let engine = self.engine();
        let usage = self.usage.clone();
        self.gated(move || {
            let measured = super::usage::measured_of(usage.as_ref(), &req.tool_ids);
            let response = engine.compare_measured(&req, &measured)?;
            match format {
                ResponseFormat::Json => Rendition::json(&response, 16 * 1024),
                ResponseFormat::Markdown => Rendition::of(render_compare(&response, format)?),
            }
        })
        .await
    }
}

/// The response as a cache hit reads.
fn as_hit(mut response: SearchResponse) -> SearchResponse {
    response.metadata.cache_hit = true;
    response.execution_time = 0.0;
    response
}

//! The live catalog: `Service::reload` reads the catalog anew through the loader the binary
//! installs (the gateway's, which knows every source), builds the indexes off the serving
//! path (unchanged tools keep their vectors and graph nodes, see `index::semantic`), and swaps the engine in
//! whole. A request keeps the engine it started with; a reload that fails changes nothing, so
//! the last good catalog keeps serving. One reload runs at a time.

use super::{LoadReport, Service};
use crate::catalog::{Catalog, SourceReport};
use crate::embed::Embedder;
use crate::engine::Engine;
use crate::error::{Error, Result};
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

/// A future a [`CatalogLoader`] returns.
pub type LoadFuture<'a> =
    Pin<Box<dyn Future<Output = Result<(Catalog, Vec<SourceReport>)>> + Send + 'a>>;

/// Reads the configured sources again. `serving` is the catalog in use, whose tools of a
/// source that now fails are kept; `embedder` places new upstream tools in categories.
pub trait CatalogLoader: Send + Sync {
    fn load<'a>(
        &'a self,
        serving: &'a Catalog,
        embedder: Option<Arc<dyn Embedder>>,
    ) -> LoadFuture<'a>;
}

/// What a reload changed.
#[derive(Debug, Clone, Serialize)]
pub struct Reloaded {
    pub previous_version: String,
    pub version: String,
    pub tools: usize,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
    /// Reading the sources and building the indexes, in milliseconds.
    pub load_ms: f64,
    pub index_ms: f64,
    pub sources: Vec<SourceReport>,
}

impl Service {
    /// Follows the serving catalog's version: changes after each reload.
    pub fn catalog_changes(&self) -> tokio::sync::watch::Receiver<String> {
        self.changes.subscribe()
    }

    /// Installs how `reload` reads the catalog.
    pub fn set_loader(&mut self, loader: Arc<dyn CatalogLoader>) {
        self.loader = Some(loader);
    }

    /// Reads the catalog anew and serves it; on any failure the serving catalog stays.
    pub async fn reload(&self) -> Result<Reloaded> {
        let Some(loader) = self.loader.clone() else {
            return Err(Error::ReloadFailed {
                reason: "this process has no catalog loader (only `toolscout serve` reloads)"
                    .into(),
            });
        };
        let _one_at_a_time = self.reloading.lock().await;
        let serving = self.engine();
        let embedder = serving
            .snapshot()
            .semantic
            .as_ref()
            .map(|s| s.embedder.clone());
        let started = Instant::now();
        let (catalog, sources) = loader
            .load(serving.catalog(), embedder.clone())
            .await
            .map_err(|e| Error::ReloadFailed {
                reason: e.to_string(),
            })?;
        let load_ms = started.elapsed().as_secs_f64() * 1e3;
        let catalog = Arc::new(catalog);
        let embedder = embedder.ok_or_else(|| match &serving.snapshot().semantic_status {
            crate::index::snapshot::SemanticStatus::Unavailable { reason } => reason.clone(),
            other => format!("{other:?}"),
        });
        let (config, cache_dir) = (self.config.search.clone(), self.config.cache_dir.clone());
        let built = catalog.clone();
        let previous = serving.clone();
        let usage = self.usage.clone();
        let engine = super::off_runtime("reload", move || {
            let semantic = previous.snapshot().semantic.as_ref();
            let engine = Engine::rebuilt(built, embedder, config, cache_dir.as_deref(), semantic)?;
            // What ranking learned is the store's, not the catalog's: it carries over. A
            // failure costs only the learning, until the next refresh; the reload goes on.
            if engine.config().learning_weight > 0.0 {
                let feedback = super::usage::past_feedback(usage.as_ref());
                if let Err(e) = engine.learn_after(&feedback, &previous) {
                    tracing::warn!(error = %e, "the reloaded catalog starts without what ranking learned");
                }
            }
            Ok(engine)
        })
        .await?;
        let index_ms = engine.snapshot().build_time.as_secs_f64() * 1e3;
        let report = diff(
            serving.catalog(),
            &catalog,
            (load_ms, index_ms),
            sources.clone(),
        );
        self.executor.forget_upstream_schemas();
        // The measured figures are the store's, not the catalog's: they carry over.
        engine.set_measured(self.engine().measured().as_ref().clone());
        *self.engine.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(engine);
        *self.load.write().unwrap_or_else(|e| e.into_inner()) = LoadReport {
            finished_at: crate::time::now_rfc3339(),
            catalog: started.elapsed(),
            sources,
        };
        self.changes.send_replace(report.version.clone());
        tracing::info!(
            version = %report.version, tools = report.tools, added = report.added.len(),
            removed = report.removed.len(), changed = report.changed.len(), "catalog reloaded"
        );
        Ok(report)
    }
}

/// Which tools a reload added, removed or changed.
fn diff(
    before: &Catalog,
    after: &Catalog,
    (load_ms, index_ms): (f64, f64),
    sources: Vec<SourceReport>,
) -> Reloaded {
    let added = after
        .tools()
        .iter()
        .filter(|t| before.get(&t.tool_id).is_none())
        .map(|t| t.tool_id.clone())
        .collect();
    let removed = before
        .tools()
        .iter()
        .filter(|t| after.get(&t.tool_id).is_none())
        .map(|t| t.tool_id.clone())
        .collect();
    let changed = after
        .tools()
        .iter()
        .filter(|t| before.get(&t.tool_id).is_some_and(|b| b != *t))
        .map(|t| t.tool_id.clone())
        .collect();
    Reloaded {
        previous_version: before.version().to_string(),
        version: after.version().to_string(),
        tools: after.len(),
        added,
        removed,
        changed,
        load_ms: (load_ms * 10.0).round() / 10.0,
        index_ms: (index_ms * 10.0).round() / 10.0,
        sources,
    }
}

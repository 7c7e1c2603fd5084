//! What operators see: liveness and the state of the served catalog, search and tools
//! (`/health` and `/catalog/status` render these as they are).

use super::Service;
use crate::index::snapshot::SemanticStatus;
use serde_json::{json, Value};

fn semantic(service: &Service) -> Value {
    match &service.engine().snapshot().semantic_status {
        SemanticStatus::Available { model_id, vectors } => {
            json!({ "available": true, "model": model_id, "vectors": vectors })
        }
        SemanticStatus::Unavailable { reason } => json!({ "available": false, "reason": reason }),
    }
}

fn search_modes(service: &Service) -> Value {
    if service.engine().snapshot().semantic_status.is_available() {
        json!(["hybrid", "semantic", "keyword"])
    } else {
        json!(["keyword"])
    }
}

impl Service {
    /// Liveness plus what an operator needs to know at a glance (`/health`).
    pub fn health(&self) -> Value {
        let models = self.models();
        let mut health = json!({
            "status": "ok",
            "version": env!("CARGO_PKG_VERSION"),
            "uptime_seconds": self.started().elapsed().as_secs(),
            "catalog": {
                "size": self.catalog().len(),
                "version": self.catalog().version(),
                "categories": self.catalog().categories().len(),
                "sources": self.load().sources,
            },
            "models": {
                "files_present": models.present,
                "missing": models.missing,
            },
            "semantic_search": semantic(self),
            "search_modes": search_modes(self),
            "cache": self.engine().cache_stats(),
            "tools": { "runnable": self.executor().tools().len() },
            // octocode's key: every circuit used so far, with its state and failure count.
            "circuits": self.executor().circuits(),
            // The CPU gates: workers busy, requests waiting, admitted and refused (503) so far.
            "gates": self.gates().iter().map(|(name, stats)| (name.to_string(), json!(stats))).collect::<serde_json::Map<_, _>>(),
            // The usage store: on or off (and why), records written, dropped and failed.
            "usage": self.usage_health(),
        });
        // Sessions with upstream MCP servers (`mcp` sources), when there are any.
        if let Some(upstreams) = self.executor().upstream_status() {
            health["upstreams"] = upstreams;
        }
        health
    }

    /// The served catalog and the state of search over it (`GET /catalog/status`).
    pub fn catalog_status(&self) -> Value {
        let catalog = self.catalog();
        let index_ms = self.engine().snapshot().build_time.as_secs_f64() * 1000.0;
        let catalog_ms = self.load().catalog.as_secs_f64() * 1000.0;
        let ms = |x: f64| (x * 10.0).round() / 10.0;
        json!({
            "success": true,
            "data": {
                "catalog": {
                    "version": catalog.version(),
                    "size": catalog.len(),
                    "executable": catalog.executable().count(),
                    "categories": catalog.categories(),
                    "tool_types": catalog.tool_types(),
                },
                "load": {
                    "loaded_at": self.load().finished_at,
                    "catalog_ms": ms(catalog_ms),
                    "index_ms": ms(index_ms),
                    "total_ms": ms(catalog_ms + index_ms),
                },
                "model": {
                    "files_present": self.models().present,
                    "missing": self.models().missing,
                    "semantic_search": semantic(self),
                },
                "search": {
                    "modes_available": search_modes(self),
                    "default_mode": self.config().search.default_search_mode,
                },
            },
        })
    }
}

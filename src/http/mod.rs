//! The HTTP transport: an axum router over shared, read-only state. Handlers are thin: parse,
//! call the catalog or engine, render. `app()` builds the whole router so tests can serve it
//! on an ephemeral port exactly as `toolscout serve` does.

mod catalog;
mod discovery;
mod envelope;
mod json;
mod middleware;

pub use envelope::ApiError;

use crate::catalog::Catalog;
use crate::config::Config;
use crate::embed::ModelStatus;
use crate::engine::Engine;
use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;
use std::time::Instant;

/// What every handler can see; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub catalog: Arc<Catalog>,
    pub engine: Arc<Engine>,
    pub models: Arc<ModelStatus>,
    pub started: Instant,
}

impl AppState {
    pub fn new(config: Config, engine: Engine) -> AppState {
        let models = ModelStatus::inspect(&config.models_dir);
        let catalog = engine.snapshot().catalog.clone();
        AppState {
            config: Arc::new(config),
            catalog,
            engine: Arc::new(engine),
            models: Arc::new(models),
            started: Instant::now(),
        }
    }
}

/// Every route, documented in one place (also used for the 404 listing).
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/health"),
    ("GET", "/catalog/tools"),
    ("GET", "/catalog/tools/{id}"),
    ("POST", "/search"),
];

/// The complete router with its middleware.
pub fn app(state: AppState) -> Router {
    let max_body = state.config.max_body_bytes;
    Router::new()
        .route("/health", get(catalog::health))
        .route("/catalog/tools", get(catalog::list_tools))
        .route("/catalog/tools/{id}", get(catalog::get_tool))
        .route("/search", post(discovery::search))
        .fallback(envelope::route_not_found)
        .method_not_allowed_fallback(envelope::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::auth,
        ))
        .layer(axum::middleware::from_fn(middleware::request_id))
        .layer(axum::extract::DefaultBodyLimit::max(max_body))
        .with_state(state)
}

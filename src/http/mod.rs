//! The HTTP transport: an axum router over shared, read-only state. Handlers are thin: parse,
//! one call on the service, render. MCP's streamable HTTP service is mounted at `/mcp`, behind
//! the same middleware (request ids, auth). `app()` builds the whole router so tests can
//! serve it on an ephemeral port exactly as `toolscout serve` does.

mod access_log;
mod catalog;
mod compare;
mod discovery;
mod envelope;
mod json;
mod middleware;
mod octocode;
mod openapi;
mod problem;
mod query;
mod status;
mod tools_call;
mod usage;

pub use envelope::{ApiError, Problem};
pub use problem::{HttpCode, HttpError};

use crate::service::log::RequestLog;
use crate::service::Service;
use axum::routing::{get, post};
use axum::Router;
use std::path::Path;
use std::sync::Arc;

pub use crate::service::LoadReport;

/// What every handler can see; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// The one service behind every door: catalog, engine, executor.
    pub service: Arc<Service>,
    logs: Arc<RequestLog>,
    /// `GET /openapi.json`'s body and the catalog version it was made for (it lists the
    /// catalog's categories, which a reload may change).
    openapi: Arc<std::sync::Mutex<Option<(String, axum::body::Bytes)>>>,
    /// MCP's streamable HTTP endpoint, mounted at `/mcp`. Behind an `Arc` because axum clones
    /// the state for every extractor of every request: cloning the service itself (its
    /// session manager, config and cancellation tokens, one of which takes a lock) was ~13%
    /// of the server's CPU under cached searches.
    mcp: Arc<crate::mcp::HttpMount>,
    /// Set on SIGTERM: new requests get 503 `SHUTTING_DOWN` while in-flight ones finish.
    draining: Arc<std::sync::atomic::AtomicBool>,
}

impl AppState {
    /// The state of a server over `service`. Opens the request log in the configured log
    /// directory; if that fails the server still serves, and says so once on stderr.
    pub fn new(service: Service) -> AppState {
        AppState::with_mcp(service, crate::mcp::Options::default())
    }

    /// The state of a server whose `/mcp` endpoint behaves as `options` say.
    pub fn with_mcp(service: Service, options: crate::mcp::Options) -> AppState {
        let logs = Arc::new(RequestLog::open(service.config().log_dir.as_deref()));
        let service = Arc::new(service);
        service.start_measured_refresh();
        let config = service.config().clone();
        AppState {
            mcp: Arc::new(crate::mcp::http_service(
                service.clone(),
                options,
                &config,
                logs.clone(),
            )),
            service,
            logs,
            openapi: Arc::default(),
            draining: Arc::default(),
        }
    }

    /// Ends every MCP session (open event streams would hold a graceful shutdown forever).
    pub fn end_mcp_sessions(&self) {
        self.mcp.shutdown.cancel();
    }

    /// From now on, new requests are refused with 503 `SHUTTING_DOWN` (in-flight ones finish).
    pub fn begin_drain(&self) {
        self.draining
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn is_draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Where request logs go, if file logging is on.
    pub fn log_dir(&self) -> Option<&Path> {
        self.logs.dir()
    }
}

/// Every route, documented in one place (also used for the 404 listing, the request log's
/// route names and the OpenAPI coverage test).
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/health"),
    ("GET", "/openapi.json"),
    ("GET", "/search"),
    ("POST", "/search"),
    ("POST", "/recommend"),
    ("POST", "/compare"),
    ("GET", "/catalog/tools"),
    ("GET", "/catalog/tools/{id}"),
    ("POST", "/catalog/validate"),
    ("GET", "/catalog/status"),
    ("POST", "/catalog/reload"),
    ("POST", "/feedback"),
    ("GET", "/stats"),
    ("GET", "/tools/list"),
    ("GET", "/tools/info/{toolName}"),
    ("POST", "/tools/call/{toolName}"),
    ("GET", "/tools/initContext"),
    ("GET", "/tools/system"),
    ("GET", "/tools/metadata"),
    ("GET", "/prompts/list"),
    ("GET", "/prompts/info/{name}"),
];

/// The complete router with its middleware.
pub fn app(state: AppState) -> Router {
    let max_body = state.service.config().max_body_bytes;
    let router = Router::new()
        .route("/health", get(status::health))
        .route("/openapi.json", get(openapi::openapi))
        .route(
            "/search",
            get(discovery::search_get).post(discovery::search),
        )
        .route("/recommend", post(discovery::recommend))
        .route("/compare", post(compare::compare))
        .route("/catalog/tools", get(catalog::list_tools))
        .route("/catalog/tools/{id}", get(catalog::get_tool))
        .route("/catalog/validate", post(catalog::validate))
        .route("/catalog/status", get(status::catalog_status))
        .route("/catalog/reload", post(catalog::reload))
        .route("/feedback", post(usage::feedback))
        .route("/stats", get(usage::stats))
        .route("/tools/list", get(octocode::tools_list))
        .route("/tools/info/{toolName}", get(octocode::tools_info))
        .route("/tools/call/{toolName}", post(tools_call::call))
        .route("/tools/initContext", get(octocode::init_context))
        .route("/tools/system", get(octocode::system))
        .route("/tools/metadata", get(octocode::metadata))
        .route("/prompts/list", get(octocode::prompts_list))
        .route("/prompts/info/{name}", get(octocode::prompts_info))
        // MCP over streamable HTTP: POST messages, GET an event stream, DELETE the session.
        .nest_service("/mcp", state.mcp.service.clone())
        .fallback(envelope::route_not_found)
        .method_not_allowed_fallback(envelope::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::auth,
        ));
    // Outermost first: request id and log, then CORS (preflights carry no token, so they are
    // answered before auth), then auth.
    let router = match middleware::cors(&state.service.config().cors_origins) {
        Some(cors) => router.layer(cors),
        None => router,
    };
    router
        // A panicking handler becomes a 500 envelope (with the request id, cause logged)
        // instead of a dropped connection.
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            envelope::panic_response,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::drain,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::request_id,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(max_body))
        .with_state(state)
}

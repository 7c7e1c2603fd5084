//! `toolscout serve`: opens the service over the configured catalog and serves the HTTP API
//! until SIGINT or SIGTERM, finishing in-flight requests first.

use super::common::{open_service_with_pool, runtime, Model};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use toolscout::config::{Config, Overrides};
use toolscout::http::{app, AppState};
use toolscout::mcp::gateway::Pool;
use toolscout::Error;

#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on; a non-loopback address needs --auth-token (env TOOLSCOUT_ADDR)
    #[arg(long, value_name = "HOST:PORT")]
    pub(crate) addr: Option<String>,
    /// Directory with the embedding model and ONNX Runtime (env TOOLSCOUT_MODELS_DIR)
    #[arg(long, value_name = "DIR")]
    pub(crate) models: Option<PathBuf>,
    /// Bearer token required on every route but /health (env TOOLSCOUT_AUTH_TOKEN)
    #[arg(long, value_name = "TOKEN")]
    pub(crate) auth_token: Option<String>,
    /// Largest accepted request body in bytes (env TOOLSCOUT_MAX_BODY_BYTES)
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_body_bytes: Option<usize>,
    /// Directory for the JSON-lines request and error logs; "" turns them off
    /// (default ~/.toolscout/logs; env TOOLSCOUT_LOG_DIR)
    #[arg(long, value_name = "DIR", value_parser = dir_or_empty)]
    pub(crate) log_dir: Option<PathBuf>,
    /// Directory of the catalog vector cache; empty turns it off (env TOOLSCOUT_CACHE_DIR)
    #[arg(long, value_name = "DIR", value_parser = dir_or_empty)]
    pub(crate) cache_dir: Option<PathBuf>,
    /// Directory of the usage store (executions, answers shown, feedback); "" turns it off
    /// (default ~/.toolscout/data; env TOOLSCOUT_DATA_DIR)
    #[arg(long, value_name = "DIR", value_parser = dir_or_empty)]
    pub(crate) data_dir: Option<PathBuf>,
    /// Origins browsers may call the API from, comma-separated, or * for any (CORS is off
    /// by default; env TOOLSCOUT_CORS_ORIGINS)
    #[arg(long, value_name = "ORIGINS", value_delimiter = ',')]
    pub(crate) cors_origins: Option<Vec<String>>,
    /// Print the effective configuration, with where each value came from, and exit
    #[arg(long)]
    pub(crate) print_config: bool,
    /// How the MCP endpoint at /mcp behaves
    #[command(flatten)]
    pub(crate) mcp: super::mcp::McpFlags,
    /// Do not reload the catalog when its directories change on disk (POST /catalog/reload
    /// and SIGHUP still reload)
    #[arg(long)]
    pub(crate) no_watch: bool,
}

/// A directory flag's value, where "" is allowed: it turns the directory's use off (clap's
/// path parser refuses an empty value).
fn dir_or_empty(value: &str) -> Result<PathBuf, std::convert::Infallible> {
    Ok(PathBuf::from(value))
}

pub(crate) fn run(mut flags: Overrides, args: ServeArgs) -> Result<ExitCode, Error> {
    flags.addr = args.addr;
    flags.models_dir = args.models;
    flags.auth_token = args.auth_token;
    flags.max_body_bytes = args.max_body_bytes;
    flags.log_dir = args.log_dir;
    flags.data_dir = args.data_dir;
    flags.cache_dir = args.cache_dir;
    flags.cors_origins = args.cors_origins;
    let config = Config::load(&flags)?;
    if args.print_config {
        print!("{}", config.to_toml());
        return Ok(ExitCode::SUCCESS);
    }
    init_logging(&config.log_level);
    // The model is optional: without it the server answers keyword searches and says why.
    // What the watcher compares with: the files before the catalog is read from them.
    let files = (!args.no_watch).then(|| toolscout::mcp::gateway::dir_listing(&config));
    let (mut service, pool) = match open_service_with_pool(&config, Model::Load) {
        Err(e @ Error::CatalogInvalid { .. }) => {
            eprintln!("toolscout: refusing to start on an invalid catalog");
            return Err(e);
        }
        other => other?,
    };
    tracing::info!(
        build_ms = service.engine().snapshot().build_time.as_millis() as u64,
        semantic = ?service.engine().snapshot().semantic_status,
        "indexes built"
    );
    // POST /catalog/reload and SIGHUP read every source again through the gateway.
    service.set_loader(Arc::new(toolscout::mcp::gateway::Loader {
        config: config.clone(),
    }));
    runtime()?.block_on(listen(config, (service, pool), args.mcp.into(), files))
}

async fn listen(
    config: Config,
    (service, pool): (toolscout::service::Service, Option<Arc<Pool>>),
    mcp: toolscout::mcp::Options,
    files: Option<toolscout::mcp::gateway::DirListing>,
) -> Result<ExitCode, Error> {
    let addr = config.addr;
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        Error::Config(format!(
            "addr: cannot listen on {addr}: {e} (is another server using the port? try --addr)"
        ))
    })?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::Internal(format!("no local address: {e}")))?;
    let state = AppState::with_mcp(service, mcp);
    tracing::info!(
        addr = %local,
        tools = state.service.catalog().len(),
        catalog_version = state.service.catalog().version(),
        models_present = state.service.models().present,
        log_dir = ?state.log_dir(),
        cors = ?config.cors_origins,
        "toolscout listening"
    );
    // Ready for SIGHUP and changes before anyone learns the address.
    reload_on_hangup(state.service.clone());
    if let Some(files) = files {
        toolscout::mcp::gateway::watch_dirs(state.service.clone(), files);
    }
    if let Some(pool) = pool {
        toolscout::mcp::gateway::follow_upstreams(state.service.clone(), pool);
    }
    // Tests and scripts read this line to learn the port when binding to port 0.
    println!("listening on http://{local}");
    let draining = state.clone();
    // No Nagle: an event stream's frames are small writes in a row, and Nagle's wait for an
    // ACK the client delays cost every MCP call over HTTP 40 ms.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!("TCP_NODELAY not set: {e}");
        }
    });
    axum::serve(listener, app(state))
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            draining.begin_drain();
            draining.end_mcp_sessions();
            tokio::spawn(cut_short());
        })
        .await
        .map_err(|e| Error::Internal(format!("the server stopped: {e}")))?;
    // The runtime ends with this function's caller: its tasks, the last holders of the
    // service, drop the language servers and upstream sessions, whose processes go with
    // their handles.
    tracing::info!("shut down cleanly");
    Ok(ExitCode::SUCCESS)
}

/// How long in-flight requests may take to finish after SIGTERM before the process exits
/// anyway: a tool call's longest timeout, with some slack.
const DRAIN_LIMIT: Duration = Duration::from_secs(30);

/// After the first signal: a second one, or [`DRAIN_LIMIT`], ends the process at once, with
/// status 1 (the drain was cut short).
async fn cut_short() {
    tokio::select! {
        () = shutdown_signal() => {
            tracing::warn!("second shutdown signal: exiting without waiting for in-flight requests");
        }
        () = tokio::time::sleep(DRAIN_LIMIT) => {
            tracing::error!(limit_secs = DRAIN_LIMIT.as_secs(), "in-flight requests did not finish in time; exiting");
        }
    }
    std::process::exit(1);
}

/// Reloads the catalog on each SIGHUP, as daemons do; a failed reload is logged and the
/// last good catalog keeps serving.
fn reload_on_hangup(service: Arc<toolscout::service::Service>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        // Registered here, not in the task: a SIGHUP right after start must not end the
        // process (its default action).
        let Ok(mut hangups) = signal(SignalKind::hangup()) else {
            tracing::warn!("cannot listen for SIGHUP; POST /catalog/reload still reloads");
            return;
        };
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                if let Err(e) = service.reload().await {
                    tracing::warn!(error = %e, "SIGHUP: catalog not reloaded");
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = service;
}

/// Resolves on SIGINT or SIGTERM; in-flight requests then finish before the server exits.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutdown signal received; finishing in-flight requests");
}

pub(crate) fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour only for a person at a terminal; a log file or an MCP client's capture of
        // stderr gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

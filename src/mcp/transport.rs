//! The two MCP transports. Stdio (`toolscout mcp`): one session over the process's stdin and
//! stdout, which carries protocol bytes and nothing else. Streamable HTTP (`/mcp` of
//! `toolscout serve`): a session per client, ended by DELETE or by the server's shutdown,
//! with the Host and Origin checks the spec requires against DNS rebinding.

use super::{Handler, Options};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::service::log::RequestLog;
use crate::service::Service;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

/// Serves one MCP session over a byte stream pair (stdin and stdout, or an in-memory duplex
/// in tests) until the client closes it or `shutdown` resolves. Tool calls are logged to the
/// configured log directory.
pub async fn serve_io<R, W>(
    service: Arc<Service>,
    options: Options,
    (read, write): (R, W),
    shutdown: impl Future<Output = ()>,
) -> Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let log = Arc::new(RequestLog::open(service.config().log_dir.as_deref()));
    let handler = Handler::new(service, options, log);
    let running = rmcp::serve_server(handler, (read, write))
        .await
        .map_err(|e| Error::Internal(format!("the MCP session did not start: {e}")))?;
    let stop = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    let ended = tokio::select! {
        ended = &mut waiting => ended,
        () = shutdown => {
            stop.cancel();
            waiting.await
        }
    };
    ended
        .map(|reason| tracing::info!(?reason, "MCP session ended"))
        .map_err(|e| Error::Internal(format!("the MCP session failed: {e}")))
}

/// Serves MCP over this process's stdin and stdout.
pub async fn serve_stdio(
    service: Arc<Service>,
    options: Options,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    service.start_measured_refresh();
    serve_io(service, options, rmcp::transport::stdio(), shutdown).await
}

/// The `/mcp` endpoint of the HTTP server and the token that ends its sessions (open SSE
/// streams would otherwise hold a graceful shutdown forever).
#[derive(Clone)]
pub struct HttpMount {
    pub service: StreamableHttpService<Handler, LocalSessionManager>,
    pub shutdown: CancellationToken,
}

/// How long an HTTP session may sit idle before the server forgets it.
const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// The streamable HTTP service for `config`'s server. Hosts: on a loopback address only
/// loopback names are accepted (a rebinding page's Host is refused); on any other address
/// the auth token `serve` then requires guards the endpoint and every Host is accepted.
/// Origins: a browser's `Origin` must be a loopback one or one of `cors_origins` (all, with
/// `*`).
pub fn http_service(
    service: Arc<Service>,
    options: Options,
    config: &Config,
    log: Arc<RequestLog>,
) -> HttpMount {
    let shutdown = CancellationToken::new();
    let mut http = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown.child_token())
        .with_max_request_body_bytes(config.max_body_bytes);
    if !config.addr.ip().is_loopback() {
        http = http.disable_allowed_hosts();
    }
    http = if config.cors_origins.iter().any(|o| o == "*") {
        http.disable_allowed_origins()
    } else {
        let mut origins: Vec<String> =
            ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
                .into_iter()
                .map(String::from)
                .collect();
        origins.extend(config.cors_origins.iter().cloned());
        http.with_allowed_origins(origins)
            .enforce_origin_validation()
    };
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(SESSION_IDLE);
    let service = StreamableHttpService::new(
        move || Ok(Handler::new(service.clone(), options, log.clone())),
        Arc::new(sessions),
        http,
    );
    HttpMount { service, shutdown }
}

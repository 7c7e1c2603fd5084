//! An upstream MCP server as an MCP client sees it: started from its configured command and
//! initialized over stdio, or reached at its URL over streamable HTTP (`connect`, which the
//! session pool keeps), or asked once for every tool (following `tools/list` pages) and shut
//! down (`list`).
//! A stdio child gets a minimal environment (as the official SDKs give theirs) plus what the
//! source configures, and an HTTP server only the headers the source configures: toolscout's
//! own credentials are not an upstream's business. The whole exchange is bounded by the
//! source's timeout.

use super::http_client::HttpClient;
use crate::catalog::mcp::{McpServer, McpTool};
use crate::config::{CatalogSource, HttpHeader, McpEndpoint, SourceKind};
use crate::error::{with_causes, Error, Result};
use rmcp::service::RunningService;
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

/// What an upstream says about itself and its tools.
#[derive(Debug, Clone)]
pub(crate) struct Listing {
    pub(crate) server: McpServer,
    pub(crate) tools: Vec<McpTool>,
}

/// Variables a child keeps from toolscout's environment: what a program needs to run.
const INHERITED_ENV: &[&str] = &[
    "HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ",
];

/// The failure of `source`, named.
pub(crate) fn failed(source: &CatalogSource, message: String) -> Error {
    Error::Upstream {
        source_name: source.name.clone(),
        message,
    }
}

/// A session with `source`'s server: started from its command and initialized, or connected
/// to over HTTP; `handler` hears what the server sends on its own (a changed tool list, say).
pub(crate) async fn connect<H: ClientHandler>(
    source: &CatalogSource,
    handler: H,
) -> Result<RunningService<RoleClient, H>> {
    match &source.kind {
        SourceKind::Mcp(McpEndpoint::Http { url, headers }) => {
            connect_http(source, url, headers, handler).await
        }
        SourceKind::Mcp(endpoint @ McpEndpoint::Stdio { .. }) => {
            connect_stdio(source, endpoint, handler).await
        }
        _ => Err(failed(source, "not an MCP server".into())),
    }
}

async fn connect_stdio<H: ClientHandler>(
    source: &CatalogSource,
    endpoint: &McpEndpoint,
    handler: H,
) -> Result<RunningService<RoleClient, H>> {
    let McpEndpoint::Stdio {
        command,
        args,
        env,
        cwd,
    } = endpoint
    else {
        return Err(failed(source, "not a stdio server".into()));
    };
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args).env_clear();
    for key in INHERITED_ENV {
        if let Ok(value) = std::env::var(key) {
            cmd.env(key, value);
        }
    }
    cmd.envs(env);
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| failed(source, format!("cannot start {command:?}: {e}")))?;
    handler
        .serve(transport)
        .await
        .map_err(|e| failed(source, format!("did not initialize: {}", init_error(&e))))
}

/// A session over streamable HTTP. A lost SSE stream is resumed a few times within seconds
/// (rmcp's worker does it); past that the session fails its calls and the pool reconnects
/// with its own backoff, so the two never wait on each other for long.
async fn connect_http<H: ClientHandler>(
    source: &CatalogSource,
    url: &str,
    headers: &[HttpHeader],
    handler: H,
) -> Result<RunningService<RoleClient, H>> {
    let client = HttpClient::new(source.timeout)
        .map_err(|e| failed(source, format!("cannot make an HTTP client: {e}")))?;
    let mut custom = std::collections::HashMap::new();
    for h in headers {
        let (Ok(name), Ok(value)) = (h.name.parse(), h.value().parse()) else {
            return Err(failed(
                source,
                format!("header {} (from ${}) is not valid HTTP", h.name, h.variable),
            ));
        };
        custom.insert(name, value);
    }
    let mut retry = ExponentialBackoff::default();
    retry.max_times = Some(3);
    retry.base_duration = Duration::from_millis(250);
    retry.max_delay = Some(Duration::from_secs(2));
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    config.retry_config = Arc::new(retry);
    let transport = StreamableHttpClientTransport::with_client(client, config);
    handler.serve(transport).await.map_err(|e| {
        failed(
            source,
            format!("did not initialize at {url}: {}", init_error(&e)),
        )
    })
}

/// Why a session did not start, without the transport's type name rmcp puts in.
fn init_error(e: &rmcp::service::ClientInitializeError) -> String {
    match e {
        rmcp::service::ClientInitializeError::TransportError { error, context } => {
            format!("{} ({context})", with_causes(error.error.as_ref()))
        }
        other => with_causes(other),
    }
}

/// Starts `source`'s server and lists its tools; any failure names the source.
pub(crate) async fn list(source: &CatalogSource) -> Result<Listing> {
    let work = async {
        let client = connect(source, ()).await?;
        let server = client.peer_info().map(|info| McpServer {
            name: info
                .server_info
                .as_ref()
                .map_or_else(|| source.name.clone(), |s| s.name.clone()),
            title: info.server_info.as_ref().and_then(|s| s.title.clone()),
            description: info.instructions.clone(),
        });
        let tools = client
            .list_all_tools()
            .await
            .map_err(|e| failed(source, format!("tools/list failed: {e}")))?;
        let _ = client.cancel().await;
        let tools = tools
            .into_iter()
            .map(|t| {
                let wire = serde_json::to_value(&t).map_err(|e| failed(source, e.to_string()))?;
                serde_json::from_value::<McpTool>(wire)
                    .map_err(|e| failed(source, format!("a tool of tools/list is malformed: {e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Listing {
            server: server.unwrap_or_else(|| McpServer {
                name: source.name.clone(),
                ..McpServer::default()
            }),
            tools,
        })
    };
    tokio::time::timeout(source.timeout, work)
        .await
        .map_err(|_| {
            failed(
                source,
                format!(
                    "did not list its tools within {} s",
                    source.timeout.as_secs()
                ),
            )
        })?
}

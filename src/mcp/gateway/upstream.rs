//! An upstream MCP server over stdio, as an MCP client sees it: started from its configured
//! command and initialized (`connect`, which the session pool keeps), or asked once for every
//! tool (following `tools/list` pages) and shut down (`list`).
//! The child gets a minimal environment (as the official SDKs give theirs) plus what the
//! source configures: toolscout's own credentials are not an upstream's business. The whole
//! exchange is bounded by the source's timeout.

use crate::catalog::mcp::{McpServer, McpTool};
use crate::config::{CatalogSource, SourceKind};
use crate::error::{Error, Result};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use std::process::Stdio;

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

/// A session with `source`'s server: started from its command and initialized; `handler`
/// hears what the server sends on its own (a changed tool list, say).
pub(crate) async fn connect<H: ClientHandler>(
    source: &CatalogSource,
    handler: H,
) -> Result<RunningService<RoleClient, H>> {
    let SourceKind::Mcp {
        command,
        args,
        env,
        cwd,
    } = &source.kind
    else {
        return Err(failed(source, "not an MCP server".into()));
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
        .map_err(|e| failed(source, format!("did not initialize: {e}")))
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

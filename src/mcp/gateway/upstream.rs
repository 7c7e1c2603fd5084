//! An upstream MCP server over stdio, as an MCP client sees it: started from its configured
//! command, initialized, asked for every tool (following `tools/list` pages), then shut down.
//! The child gets a minimal environment (as the official SDKs give theirs) plus what the
//! source configures: toolscout's own credentials are not an upstream's business. The whole
//! exchange is bounded by the source's timeout.

use crate::catalog::mcp::{McpServer, McpTool};
use crate::config::{CatalogSource, SourceKind};
use crate::error::{Error, Result};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
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

/// Starts `source`'s server and lists its tools; any failure names the source.
pub(crate) async fn list(source: &CatalogSource) -> Result<Listing> {
    let SourceKind::Mcp {
        command,
        args,
        env,
        cwd,
    } = &source.kind
    else {
        return Err(Error::Internal(format!(
            "source {} is not an MCP server",
            source.name
        )));
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
    let failed = |what: String| Error::Upstream {
        source_name: source.name.clone(),
        message: what,
    };
    let work = async {
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| failed(format!("cannot start {command:?}: {e}")))?;
        let client =
            ().serve(transport)
                .await
                .map_err(|e| failed(format!("did not initialize: {e}")))?;
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
            .map_err(|e| failed(format!("tools/list failed: {e}")))?;
        let _ = client.cancel().await;
        let tools = tools
            .into_iter()
            .map(|t| {
                let wire = serde_json::to_value(&t).map_err(|e| failed(e.to_string()))?;
                serde_json::from_value::<McpTool>(wire)
                    .map_err(|e| failed(format!("a tool of tools/list is malformed: {e}")))
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
            failed(format!(
                "did not list its tools within {} s",
                source.timeout.as_secs()
            ))
        })?
}

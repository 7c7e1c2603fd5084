//! `toolscout mcp`: serves MCP over stdin and stdout until the client closes the stream or
//! SIGINT/SIGTERM. Stdout carries protocol bytes only; logs go to stderr.

use super::common::{open_service, runtime, Model};
use super::serve::{init_logging, shutdown_signal};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use toolscout::config::{Config, Overrides};
use toolscout::mcp::{serve_stdio, Options};
use toolscout::Error;

/// How the MCP door behaves; `serve` takes the same flags for its `/mcp` endpoint.
#[derive(Args, Clone, Copy)]
pub(crate) struct McpFlags {
    /// Also list every executable catalog tool as an MCP tool under its own name
    #[arg(long)]
    pub(crate) expose_tools: bool,
    /// Refuse `call_tool` for a tool no search_tools, recommend_tools or describe_tool of
    /// the same session returned
    #[arg(long)]
    pub(crate) require_discovery: bool,
}

impl From<McpFlags> for Options {
    fn from(f: McpFlags) -> Options {
        Options {
            expose_tools: f.expose_tools,
            require_discovery: f.require_discovery,
        }
    }
}

#[derive(Args)]
pub(crate) struct McpArgs {
    /// Directory with the embedding model and ONNX Runtime (env TOOLSCOUT_MODELS_DIR)
    #[arg(long, value_name = "DIR")]
    pub(crate) models: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) flags: McpFlags,
}

pub(crate) fn run(mut overrides: Overrides, args: McpArgs) -> Result<ExitCode, Error> {
    overrides.models_dir = args.models;
    let config = Config::load(&overrides)?;
    init_logging(&config.log_level);
    let service = Arc::new(open_service(&config, Model::Load)?);
    runtime()?.block_on(serve_stdio(service, args.flags.into(), shutdown_signal()))?;
    Ok(ExitCode::SUCCESS)
}

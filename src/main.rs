//! The `toolscout` command line: parses arguments into a `Config`, then hands off to the
//! library (server, catalog validation). The only place that uses `anyhow` and decides exit
//! codes: 0 success, 1 invalid input (an invalid catalog), 2 usage or I/O error.

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::catalog::{self, Catalog, LoadError};
use toolscout::config::{Config, Overrides};
use toolscout::http::{app, AppState};

#[derive(Parser)]
#[command(
    name = "toolscout",
    version,
    about = "Finds the right tool for an agent's task, explains why, and runs it",
    long_about = "toolscout ranks the tools of a catalog for a natural-language need and serves \
                  the results over HTTP and MCP.\n\nConfiguration comes from defaults, then \
                  toolscout.toml (or --config), then TOOLSCOUT_* environment variables, then \
                  flags. `toolscout serve --print-config` shows the result."
)]
struct Cli {
    /// Configuration file (default: ./toolscout.toml when present; env TOOLSCOUT_CONFIG)
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Catalog directory (default: the installed catalog; env TOOLSCOUT_CATALOG_DIR)
    #[arg(long, global = true, value_name = "DIR")]
    catalog: Option<PathBuf>,
    /// Log filter, e.g. info or toolscout=debug (env TOOLSCOUT_LOG_LEVEL)
    #[arg(long, global = true, value_name = "FILTER")]
    log_level: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the HTTP API (default 127.0.0.1:1987)
    Serve(ServeArgs),
    /// Work with the tool catalog
    Catalog {
        #[command(subcommand)]
        command: CatalogCommand,
    },
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on; a non-loopback address needs --auth-token (env TOOLSCOUT_ADDR)
    #[arg(long, value_name = "HOST:PORT")]
    addr: Option<String>,
    /// Directory with the embedding model and ONNX Runtime (env TOOLSCOUT_MODELS_DIR)
    #[arg(long, value_name = "DIR")]
    models: Option<PathBuf>,
    /// Bearer token required on every route but /health (env TOOLSCOUT_AUTH_TOKEN)
    #[arg(long, value_name = "TOKEN")]
    auth_token: Option<String>,
    /// Largest accepted request body in bytes (env TOOLSCOUT_MAX_BODY_BYTES)
    #[arg(long, value_name = "BYTES")]
    max_body_bytes: Option<usize>,
    /// Print the effective configuration, with where each value came from, and exit
    #[arg(long)]
    print_config: bool,
}

#[derive(Subcommand)]
enum CatalogCommand {
    /// Check every tool file: schema, layout, ids, relations, examples, parameters
    #[command(
        long_about = "Checks every <category>/<tool_id>.json file under DIR against the tool \
                      schema and the cross-file rules, and reports every problem as \
                      `file: /json/pointer: expected X, found Y`.\n\nExit codes: 0 valid, 1 \
                      invalid (or warnings with --strict), 2 usage or I/O error."
    )]
    Validate {
        /// Catalog directory (default: --catalog, else the configured or installed catalog)
        dir: Option<PathBuf>,
        /// Treat warnings as errors
        #[arg(long)]
        strict: bool,
        /// Output format
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let mut flags = Overrides {
        config_file: cli.config,
        catalog_dir: cli.catalog,
        log_level: cli.log_level,
        ..Overrides::default()
    };
    match cli.command {
        Command::Serve(args) => {
            flags.addr = args.addr;
            flags.models_dir = args.models;
            flags.auth_token = args.auth_token;
            flags.max_body_bytes = args.max_body_bytes;
            let config = Config::load(&flags)?;
            if args.print_config {
                print!("{}", config.to_toml());
                return Ok(ExitCode::SUCCESS);
            }
            serve(config)
        }
        Command::Catalog {
            command:
                CatalogCommand::Validate {
                    dir,
                    strict,
                    format,
                },
        } => {
            if dir.is_some() {
                flags.catalog_dir = dir;
            }
            let config = Config::load(&flags)?;
            validate(&config, strict, format)
        }
    }
}

fn validate(config: &Config, strict: bool, format: Format) -> anyhow::Result<ExitCode> {
    let sources = catalog::read_dir(&config.catalog_dir)?;
    let validation = catalog::validate(&sources);
    match format {
        Format::Human => print!("{}", catalog::render_human(&validation, strict)),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&catalog::render_json(&validation, strict))?
        ),
    }
    Ok(if validation.is_valid(strict) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn serve(config: Config) -> anyhow::Result<ExitCode> {
    init_logging(&config.log_level);
    let catalog = match Catalog::load(&config.catalog_dir) {
        Ok((catalog, _)) => catalog,
        Err(LoadError::Invalid { validation, dir }) => {
            eprint!("{}", catalog::render_human(&validation, false));
            eprintln!(
                "error: refusing to start: the catalog at {} is invalid",
                dir.display()
            );
            return Ok(ExitCode::from(1));
        }
        Err(LoadError::Io(e)) => return Err(e.into()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let addr = config.addr;
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
            format!("cannot listen on {addr} (is another server using the port? try --addr)")
        })?;
        let local = listener.local_addr()?;
        let state = AppState::new(config, catalog);
        tracing::info!(
            addr = %local,
            tools = state.catalog.len(),
            catalog_version = state.catalog.version(),
            models_present = state.models.present,
            "toolscout listening"
        );
        // Tests and scripts read this line to learn the port when binding to port 0.
        println!("listening on http://{local}");
        axum::serve(listener, app(state))
            .with_graceful_shutdown(shutdown_signal())
            .await?;
        tracing::info!("shut down cleanly");
        Ok(ExitCode::SUCCESS)
    })
}

/// Resolves on SIGINT or SIGTERM; in-flight requests then finish before the server exits.
async fn shutdown_signal() {
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

fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

//! The `toolscout` command line: parses arguments into a `Config`, then hands off to the
//! library (server, catalog validation). The only place that uses `anyhow` and decides exit
//! codes: 0 success, 1 invalid input (an invalid catalog), 2 usage or I/O error.

mod call_cli;
mod compare_cli;
mod eval_cli;
mod recommend_cli;
mod search_cli;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use toolscout::catalog::{self, Catalog, LoadError};
use toolscout::config::{Config, Overrides};
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::engine::Engine;
use toolscout::http::{app, AppState, LoadReport};

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
    /// Find tools for a need, ranked and explained
    Search(search_cli::SearchArgs),
    /// What to use, in what order, for a task: analysis, explained picks and a workflow
    Recommend(recommend_cli::RecommendArgs),
    /// Measure retrieval quality on a JSONL tool set and query set
    Eval(eval_cli::EvalArgs),
    /// Compare 2 to 10 tools on evidence from the catalog, for a stated situation
    Compare(compare_cli::CompareArgs),
    /// Run one of the 13 research tools on 1 to 5 queries and print the JSON result
    Call(call_cli::CallArgs),
}

/// How `search` and `recommend` print their answer.
#[derive(Args)]
pub(crate) struct PresentationArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = OutputFormat::Markdown)]
    format: OutputFormat,
    /// How much to show: concise (what picking a tool needs) or detailed (all evidence)
    #[arg(long, value_enum, default_value_t = DetailArg::Detailed)]
    detail: DetailArg,
}

impl From<&PresentationArgs> for toolscout::format::Presentation {
    fn from(p: &PresentationArgs) -> Self {
        toolscout::format::Presentation {
            response_format: p.format.into(),
            detail_level: p.detail.into(),
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum OutputFormat {
    Json,
    Markdown,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum DetailArg {
    Concise,
    Detailed,
}

impl From<DetailArg> for toolscout::format::DetailLevel {
    fn from(d: DetailArg) -> Self {
        match d {
            DetailArg::Concise => toolscout::format::DetailLevel::Concise,
            DetailArg::Detailed => toolscout::format::DetailLevel::Detailed,
        }
    }
}

impl From<OutputFormat> for toolscout::format::ResponseFormat {
    fn from(f: OutputFormat) -> Self {
        match f {
            OutputFormat::Json => toolscout::format::ResponseFormat::Json,
            OutputFormat::Markdown => toolscout::format::ResponseFormat::Markdown,
        }
    }
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
    /// Directory for the JSON-lines request and error logs; "" turns them off
    /// (default ~/.toolscout/logs; env TOOLSCOUT_LOG_DIR)
    #[arg(long, value_name = "DIR")]
    log_dir: Option<PathBuf>,
    /// Directory of the catalog vector cache; empty turns it off (env TOOLSCOUT_CACHE_DIR)
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Origins browsers may call the API from, comma-separated, or * for any (CORS is off
    /// by default; env TOOLSCOUT_CORS_ORIGINS)
    #[arg(long, value_name = "ORIGINS", value_delimiter = ',')]
    cors_origins: Option<Vec<String>>,
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
            flags.log_dir = args.log_dir;
            flags.cache_dir = args.cache_dir;
            flags.cors_origins = args.cors_origins;
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
        Command::Recommend(args) => {
            flags.models_dir = args.models.clone();
            let config = Config::load(&flags)?;
            recommend_cli::recommend(&config, args)
        }
        Command::Search(args) => {
            flags.models_dir = args.models.clone();
            let config = Config::load(&flags)?;
            search_cli::search(&config, args)
        }
        Command::Eval(args) => {
            flags.models_dir = args.models.clone();
            let config = Config::load(&flags)?;
            eval_cli::eval(&config, args)
        }
        Command::Compare(args) => {
            flags.models_dir = args.models.clone();
            let config = Config::load(&flags)?;
            compare_cli::compare(&config, args)
        }
        Command::Call(args) => {
            let config = Config::load(&flags)?;
            call_cli::call(&config, args)
        }
    }
}

/// The engine over `catalog` as the configuration asks (search settings, vector cache).
pub(crate) fn build_engine(
    config: &Config,
    catalog: Arc<Catalog>,
    embedder: Result<Arc<dyn Embedder>, String>,
) -> anyhow::Result<Engine> {
    Ok(Engine::build_cached(
        catalog,
        embedder,
        config.search.clone(),
        config.cache_dir.as_deref(),
    )?)
}

/// Loads the embedding model, or says why there is none.
pub(crate) fn load_embedder(config: &Config) -> Result<Arc<dyn Embedder>, String> {
    OnnxEmbedder::load(&config.models_dir)
        .map(|e| Arc::new(e) as Arc<dyn Embedder>)
        .map_err(|e| e.to_string())
}

/// Prints an error with every violation's pointer and the recovery suggestions.
pub(crate) fn print_error(e: &toolscout::Error) {
    eprintln!("error: {e}");
    if let toolscout::Error::Validation { violations, .. } = e {
        for v in violations {
            let at = if v.pointer.is_empty() {
                "(root)"
            } else {
                &v.pointer
            };
            eprintln!("  {at}: {}", v.message);
        }
    }
    for s in e.recovery_suggestions() {
        eprintln!("  hint: {s}");
    }
}

/// Prints an error the engine returned, like [`print_error`]; exit code 1.
pub(crate) fn engine_error(e: &toolscout::Error) -> ExitCode {
    print_error(e);
    ExitCode::from(1)
}

/// Prints a rendered response, ending with a newline.
///
/// A reader that stops early (`toolscout search ... | head`) closes the pipe: that ends the
/// output quietly instead of panicking as `print!` would.
pub(crate) fn emit(rendered: &toolscout::format::Rendered) {
    use std::io::Write;
    let mut text = rendered.to_text();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write the output: {e}");
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
    let load_started = std::time::Instant::now();
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
    let catalog_time = load_started.elapsed();
    // The model is optional: without it the server answers keyword searches and says why.
    let embedder = load_embedder(&config);
    if let Err(reason) = &embedder {
        tracing::warn!(%reason, "semantic search unavailable; serving keyword search only");
    }
    let engine = build_engine(&config, Arc::new(catalog), embedder)?;
    tracing::info!(
        build_ms = engine.snapshot().build_time.as_millis() as u64,
        semantic = ?engine.snapshot().semantic_status,
        "indexes built"
    );
    let load = LoadReport {
        finished_at: toolscout::time::now_rfc3339(),
        catalog: catalog_time,
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
        let state = AppState::new(config, engine, load)?;
        tracing::info!(
            addr = %local,
            tools = state.catalog.len(),
            catalog_version = state.catalog.version(),
            models_present = state.models.present,
            log_dir = ?state.log_dir(),
            cors = ?state.config.cors_origins,
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

//! What every command shares: the one way a command opens the catalog and the service, the
//! one mapping from an error to an exit code, and how answers and errors are printed.
//!
//! Exit codes, the same for every command:
//! - 0: done;
//! - 1: the input was read and found invalid: a catalog with errors (every command refuses
//!   one, `catalog validate` reports one), or a tool call whose every query failed;
//! - 2: the request could not be served: bad arguments or request, an unknown tool, invalid
//!   configuration, an unreadable file, the model missing where it is needed, an internal
//!   fault.

use clap::{Args, ValueEnum};
use std::process::ExitCode;
use std::sync::Arc;
use toolscout::catalog::{self, Catalog, LoadError, SourceReport};
use toolscout::config::{Config, SourceKind};
use toolscout::embed::onnx::OnnxEmbedder;
use toolscout::embed::Embedder;
use toolscout::format::{DetailLevel, Rendered, ResponseFormat};
use toolscout::mcp::gateway::Pool;
use toolscout::service::{LoadReport, Service};
use toolscout::Error;

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

impl PresentationArgs {
    /// Adds `response_format` and `detail_level` to a request body, as HTTP callers send them.
    pub(crate) fn add_to(&self, body: &mut serde_json::Value) {
        body["response_format"] = serde_json::to_value(ResponseFormat::from(self.format))
            .unwrap_or(serde_json::Value::Null);
        let detail = match self.detail {
            DetailArg::Concise => DetailLevel::Concise,
            DetailArg::Detailed => DetailLevel::Detailed,
        };
        body["detail_level"] = serde_json::to_value(detail).unwrap_or(serde_json::Value::Null);
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

impl From<OutputFormat> for ResponseFormat {
    fn from(f: OutputFormat) -> Self {
        match f {
            OutputFormat::Json => ResponseFormat::Json,
            OutputFormat::Markdown => ResponseFormat::Markdown,
        }
    }
}

/// Whether a command needs the embedding model; without it, it is not loaded at all.
pub(crate) enum Model {
    Load,
    Skip(&'static str),
}

/// The catalog directory `dir`. An invalid one is printed file by file, the same for every
/// command, and becomes `Error::CatalogInvalid` (exit 1).
pub(crate) fn load_catalog_dir(dir: &std::path::Path) -> Result<Catalog, Error> {
    match Catalog::load(dir) {
        Ok((catalog, _)) => Ok(catalog),
        Err(LoadError::Invalid { validation, dir }) => {
            eprint!("{}", catalog::render_human(&validation, false));
            Err(Error::from(LoadError::Invalid { validation, dir }))
        }
        Err(e) => Err(Error::from(e)),
    }
}

/// The service over the configured catalog: the one way every command opens it.
pub(crate) fn open_service(config: &Config, model: Model) -> Result<Service, Error> {
    open_service_with_pool(config, model).map(|(service, _)| service)
}

/// [`open_service`], and the sessions with the `mcp` sources' servers when there are any
/// (`serve` starts them at once and follows their announcements).
pub(crate) fn open_service_with_pool(
    config: &Config,
    model: Model,
) -> Result<(Service, Option<Arc<Pool>>), Error> {
    let embedder = match model {
        Model::Load => load_embedder(config),
        Model::Skip(why) => Err(why.to_string()),
    };
    if let Err(reason) = &embedder {
        tracing::warn!(%reason, "semantic search unavailable; keyword search only");
    }
    let started = std::time::Instant::now();
    let (catalog, sources) = open_catalog(config, embedder.as_ref().ok())?;
    // A source that failed is left out, not fatal: say so where a person will see it.
    for failed in sources.iter().filter(|s| s.error.is_some()) {
        eprintln!(
            "toolscout: catalog source '{}' left out: {}",
            failed.name,
            failed.error.as_deref().unwrap_or_default()
        );
    }
    let load = LoadReport {
        finished_at: toolscout::time::now_rfc3339(),
        catalog: started.elapsed(),
        sources,
    };
    let mut service = Service::new(config.clone(), Arc::new(catalog), embedder, load)?;
    let upstreams = config
        .catalog_sources
        .iter()
        .any(|s| matches!(s.kind, SourceKind::Mcp { .. }));
    // Also when every upstream failed at start: a reload may bring their tools.
    let pool = upstreams.then(|| Arc::new(Pool::new(&config.catalog_sources)));
    if let Some(pool) = &pool {
        service.set_upstream(pool.clone());
    }
    Ok((service, pool))
}

/// The catalog of the configured sources: the one directory as ever, or every `[[sources]]`
/// entry through the gateway (which starts and asks the MCP servers among them).
fn open_catalog(
    config: &Config,
    embedder: Option<&Arc<dyn Embedder>>,
) -> Result<(Catalog, Vec<SourceReport>), Error> {
    if let [only] = config.catalog_sources.as_slice() {
        if let SourceKind::Dir(path) = &only.kind {
            let catalog = load_catalog_dir(path)?;
            // Entries without a category are placed by the gateway, which reads it again.
            let uncategorized = catalog.tools().iter().any(|t| t.category.is_empty());
            let report = SourceReport {
                name: only.name.clone(),
                kind: only.kind_name().into(),
                tools: catalog.len(),
                ..SourceReport::default()
            };
            if !uncategorized {
                return Ok((catalog, vec![report]));
            }
        }
    }
    let print = |e: &LoadError| {
        if let LoadError::Invalid { validation, .. } = e {
            eprint!("{}", catalog::render_human(validation, false));
        }
    };
    let embedder = embedder.map(|e| e.as_ref());
    runtime()?.block_on(toolscout::mcp::gateway::open_catalog(
        config, embedder, &print,
    ))
}

/// Loads the embedding model (with a progress bar for long work on a terminal), or says why
/// there is none.
pub(crate) fn load_embedder(config: &Config) -> Result<Arc<dyn Embedder>, String> {
    let mut embedder = OnnxEmbedder::load(&config.models_dir).map_err(|e| e.to_string())?;
    super::progress::attach(&mut embedder);
    Ok(Arc::new(embedder))
}

/// Loads the published model the evaluation's naive baseline embeds with
/// (`Precision::Stock`), or says why there is none.
pub(crate) fn load_stock_embedder(config: &Config) -> Result<Arc<dyn Embedder>, String> {
    let embedder = OnnxEmbedder::load_precision(
        &config.models_dir,
        toolscout::embed::onnx::default_sessions(),
        toolscout::embed::onnx::Precision::Stock,
    )
    .map_err(|e| e.to_string())?;
    Ok(Arc::new(embedder))
}

/// The exit code of a command that failed with `e` (see the module comment).
pub(crate) fn exit_code(e: &Error) -> ExitCode {
    match e {
        Error::CatalogInvalid { .. } => ExitCode::from(1),
        _ => ExitCode::from(2),
    }
}

/// Prints an error with every violation's pointer and the recovery suggestions, and gives
/// its exit code.
pub(crate) fn fail(e: &Error) -> ExitCode {
    // The whole chain: "cannot read x.json: expected a directory, found a file".
    let mut line = format!("error: {e}");
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        line.push_str(&format!(": {s}"));
        source = s.source();
    }
    eprintln!("{line}");
    if let Error::Validation { violations, .. } = e {
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
    exit_code(e)
}

/// Prints a rendered response, ending with a newline.
///
/// A reader that stops early (`toolscout search ... | head`) closes the pipe: that ends the
/// output quietly instead of panicking as `print!` would.
pub(crate) fn emit(rendered: &Rendered) {
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

/// A runtime for one command's async service calls.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("cannot start the async runtime: {e}")))
}

/// An argument error, reported like a request's violations.
pub(crate) fn bad_argument(pointer: &str, message: String) -> Error {
    Error::Validation {
        what: "arguments".into(),
        violations: vec![toolscout::error::Violation {
            pointer: pointer.into(),
            message,
        }],
    }
}

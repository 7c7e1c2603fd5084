//! `toolscout search "<query>"`: the CLI door to `Engine::search`, with the same validation
//! and rendering as `POST /search`.

use crate::{build_engine, emit, engine_error, load_embedder, print_error, PresentationArgs};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use toolscout::catalog::Catalog;
use toolscout::config::Config;
use toolscout::engine::{SearchMode, SearchRequest};

#[derive(Args)]
pub(crate) struct SearchArgs {
    /// What the tool should do, in plain words, or a tool's name
    pub query: String,
    /// keyword (BM25), semantic (embeddings) or hybrid (both, fused; the default)
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// How many results at most (1..50)
    #[arg(long, short = 'k', default_value_t = 10)]
    k: usize,
    /// Only tools of this category
    #[arg(long)]
    category: Option<String>,
    /// Only the tools toolscout runs itself (`toolscout call`)
    #[arg(long)]
    runnable_only: bool,
    /// The caller's situation (language, environment); shifts the ranking toward it
    #[arg(long)]
    context: Option<String>,
    /// Include each tool's usage examples
    #[arg(long)]
    examples: bool,
    #[command(flatten)]
    presentation: PresentationArgs,
    /// Directory with the embedding model (env TOOLSCOUT_MODELS_DIR)
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    Keyword,
    Semantic,
    Hybrid,
}

impl From<ModeArg> for SearchMode {
    fn from(m: ModeArg) -> SearchMode {
        match m {
            ModeArg::Keyword => SearchMode::Keyword,
            ModeArg::Semantic => SearchMode::Semantic,
            ModeArg::Hybrid => SearchMode::Hybrid,
        }
    }
}

pub(crate) fn search(config: &Config, args: SearchArgs) -> anyhow::Result<ExitCode> {
    let catalog = match Catalog::load(&config.catalog_dir) {
        Ok((catalog, _)) => catalog,
        Err(e) => return Err(toolscout::Error::from(e).into()),
    };
    let catalog = Arc::new(catalog);
    let mut req = SearchRequest::new(args.query);
    req.search_mode = args.mode.map(Into::into);
    req.max_results = args.k;
    req.category = args.category;
    req.runnable_only = args.runnable_only;
    req.context = args.context;
    req.include_examples = args.examples;
    let req = match req.validated(&catalog) {
        Ok(r) => r,
        Err(e) => {
            print_error(&e);
            return Ok(ExitCode::from(2));
        }
    };
    // Keyword mode needs no model; do not pay for loading one.
    let embedder = if req.search_mode == Some(SearchMode::Keyword) {
        Err("keyword mode requested".to_string())
    } else {
        load_embedder(config)
    };
    let engine = build_engine(config, catalog, embedder)?;
    let response = match engine.search(&req) {
        Ok(r) => r,
        Err(e) => return Ok(engine_error(&e)),
    };
    let presentation = (&args.presentation).into();
    emit(&toolscout::format::render_search(&response, presentation)?);
    Ok(ExitCode::SUCCESS)
}

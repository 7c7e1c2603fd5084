//! `toolscout search "<query>"`: the CLI door to `Service::search`. The flags become the body
//! `POST /search` takes, so validation, answer and rendering are the same.

use super::common::{emit, open_service, runtime, Model, PresentationArgs};
use clap::{Args, ValueEnum};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::config::Config;
use toolscout::engine::SearchMode;
use toolscout::format::render_search;
use toolscout::Error;

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

pub(crate) fn search(config: &Config, args: SearchArgs) -> Result<ExitCode, Error> {
    // The same JSON body `POST /search` takes, so a mistake reads the same through both.
    let mut body = json!({ "query": args.query, "max_results": args.k });
    if let Some(mode) = args.mode {
        body["search_mode"] = json!(SearchMode::from(mode));
    }
    if let Some(category) = args.category {
        body["category"] = json!(category);
    }
    if let Some(context) = args.context {
        body["context"] = json!(context);
    }
    if args.runnable_only {
        body["runnable_only"] = json!(true);
    }
    if args.examples {
        body["include_examples"] = json!(true);
    }
    args.presentation.add_to(&mut body);
    // Keyword mode needs no model; do not pay for loading one.
    let model = match args.mode {
        Some(ModeArg::Keyword) => Model::Skip("keyword mode requested"),
        _ => Model::Load,
    };
    let service = open_service(config, model)?;
    let answer = runtime()?.block_on(service.search(&body))?;
    emit(&render_search(&answer.response, answer.presentation)?);
    Ok(ExitCode::SUCCESS)
}

//! `toolscout compare <tool> <tool>...`: the CLI door to `Engine::compare`; it builds the same
//! JSON body as `POST /compare`, so errors read the same through both.

use crate::{build_engine, emit, load_embedder, print_error, OutputFormat};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use toolscout::catalog::Catalog;
use toolscout::config::Config;
use toolscout::engine::ComparisonRequest;

#[derive(Args)]
pub(crate) struct CompareArgs {
    /// The tools (2 to 10): catalog ids, names, aliases or execution names
    #[arg(required = true, num_args = 1..)]
    tools: Vec<String>,
    /// Criteria to score, comma-separated (default all six): functionality, usability,
    /// performance, reliability, complexity, documentation
    #[arg(long, value_delimiter = ',')]
    criteria: Option<Vec<String>>,
    /// The situation the choice is for; the recommendation weighs each tool's fit to it
    #[arg(long)]
    context: Option<String>,
    /// How much to show: basic (scores and the pick), standard (also strengths, weaknesses
    /// and guidance) or comprehensive (also the matrix, trade-offs and score evidence)
    #[arg(long, value_enum, default_value_t = CompareDetailArg::Standard)]
    detail: CompareDetailArg,
    /// Output format
    #[arg(long, value_enum, default_value_t = OutputFormat::Markdown)]
    format: OutputFormat,
    /// Leave out use cases, decision factors and trade-offs
    #[arg(long)]
    no_guidance: bool,
    /// Directory with the embedding model (env TOOLSCOUT_MODELS_DIR)
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum CompareDetailArg {
    Basic,
    Standard,
    Comprehensive,
}

impl CompareDetailArg {
    fn as_str(self) -> &'static str {
        match self {
            CompareDetailArg::Basic => "basic",
            CompareDetailArg::Standard => "standard",
            CompareDetailArg::Comprehensive => "comprehensive",
        }
    }
}

pub(crate) fn compare(config: &Config, args: CompareArgs) -> anyhow::Result<ExitCode> {
    let catalog = match Catalog::load(&config.catalog_dir) {
        Ok((catalog, _)) => Arc::new(catalog),
        Err(e) => return Err(toolscout::Error::from(e).into()),
    };
    // The same JSON body POST /compare takes, so a mistake reads the same through both doors.
    let mut body = serde_json::json!({
        "tool_ids": args.tools,
        "detail_level": args.detail.as_str(),
    });
    if let Some(criteria) = args.criteria {
        body["comparison_criteria"] = serde_json::json!(criteria);
    }
    if let Some(context) = args.context {
        body["comparison_context"] = serde_json::json!(context);
    }
    if args.no_guidance {
        body["include_decision_guidance"] = serde_json::json!(false);
    }
    let req = match ComparisonRequest::from_json(&body, &catalog) {
        Ok(r) => r,
        Err(e) => {
            print_error(&e);
            return Ok(ExitCode::from(2));
        }
    };
    // The model only measures fit to a context; without one, do not pay for loading it.
    let embedder = if req.comparison_context.is_some() {
        load_embedder(config)
    } else {
        Err("no comparison context".to_string())
    };
    let engine = build_engine(config, catalog, embedder)?;
    let response = match engine.compare(&req) {
        Ok(r) => r,
        Err(e) => {
            print_error(&e);
            return Ok(ExitCode::from(1));
        }
    };
    emit(&toolscout::format::render_compare(
        &response,
        args.format.into(),
    )?);
    Ok(ExitCode::SUCCESS)
}

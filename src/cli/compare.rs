//! `toolscout compare <tool> <tool>...`: the CLI door to `Service::compare`; it builds the
//! same JSON body as `POST /compare`, so answers and errors read the same through both.

use super::common::{emit, open_service, runtime, Model, OutputFormat};
use clap::{Args, ValueEnum};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::config::Config;
use toolscout::format::{render_compare, ResponseFormat};
use toolscout::Error;

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

pub(crate) fn compare(config: &Config, args: CompareArgs) -> Result<ExitCode, Error> {
    // The same JSON body `POST /compare` takes, so a mistake reads the same through both doors.
    let mut body = json!({
        "tool_ids": args.tools,
        "detail_level": args.detail.as_str(),
        "response_format": ResponseFormat::from(args.format),
    });
    if let Some(criteria) = args.criteria {
        body["comparison_criteria"] = json!(criteria);
    }
    let model = match &args.context {
        Some(context) => {
            body["comparison_context"] = json!(context);
            Model::Load
        }
        // The model only measures fit to a context; without one, do not pay for loading it.
        None => Model::Skip("no comparison context"),
    };
    if args.no_guidance {
        body["include_decision_guidance"] = json!(false);
    }
    let service = open_service(config, model)?;
    let answer = runtime()?.block_on(service.compare(&body))?;
    emit(&render_compare(&answer.response, answer.presentation)?);
    Ok(ExitCode::SUCCESS)
}

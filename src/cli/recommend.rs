//! `toolscout recommend "<task>"`: the CLI door to `Service::recommend`. The flags become the
//! body `POST /recommend` takes, so validation, answer and rendering are the same.

use super::common::{emit, open_service, runtime, Model, PresentationArgs};
use clap::{Args, ValueEnum};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::config::Config;
use toolscout::format::render_recommend;
use toolscout::Error;

#[derive(Args)]
pub(crate) struct RecommendArgs {
    /// The task in plain words; steps may be given in order ("find X, then read it")
    pub task: String,
    /// The caller's environment and constraints
    #[arg(long)]
    context: Option<String>,
    /// How many tools at most (1..10)
    #[arg(long, short = 'k', default_value_t = 5)]
    k: usize,
    /// simple, balanced or powerful tools
    #[arg(long, value_enum, default_value_t = ComplexityArg::Balanced)]
    complexity: ComplexityArg,
    /// Categories to favour (repeatable)
    #[arg(long = "prefer", value_name = "CATEGORY")]
    prefer: Vec<String>,
    /// Categories to leave out (repeatable)
    #[arg(long = "avoid", value_name = "CATEGORY")]
    avoid: Vec<String>,
    /// beginner, intermediate or expert
    #[arg(long, value_enum)]
    experience: Option<ExperienceArg>,
    /// Weight of speed, 0..1
    #[arg(long)]
    performance_priority: Option<f64>,
    /// Weight of reliability, 0..1
    #[arg(long)]
    reliability_priority: Option<f64>,
    /// Leave out alternatives
    #[arg(long)]
    no_alternatives: bool,
    /// Only the tools toolscout runs itself (`toolscout call`)
    #[arg(long)]
    runnable_only: bool,
    /// Add the reasoning behind the analysis and scores
    #[arg(long)]
    explain: bool,
    #[command(flatten)]
    presentation: PresentationArgs,
    /// Directory with the embedding model (env TOOLSCOUT_MODELS_DIR)
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ComplexityArg {
    Simple,
    Balanced,
    Powerful,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExperienceArg {
    Beginner,
    Intermediate,
    Expert,
}

impl ComplexityArg {
    fn as_str(self) -> &'static str {
        match self {
            ComplexityArg::Simple => "simple",
            ComplexityArg::Balanced => "balanced",
            ComplexityArg::Powerful => "powerful",
        }
    }
}

impl ExperienceArg {
    fn as_str(self) -> &'static str {
        match self {
            ExperienceArg::Beginner => "beginner",
            ExperienceArg::Intermediate => "intermediate",
            ExperienceArg::Expert => "expert",
        }
    }
}

pub(crate) fn recommend(config: &Config, args: RecommendArgs) -> Result<ExitCode, Error> {
    // The same JSON body `POST /recommend` takes.
    let mut preferences = json!({
        "preferred_categories": args.prefer,
        "avoid_categories": args.avoid,
    });
    if let Some(level) = args.experience {
        preferences["experience_level"] = json!(level.as_str());
    }
    if let Some(p) = args.performance_priority {
        preferences["performance_priority"] = json!(p);
    }
    if let Some(p) = args.reliability_priority {
        preferences["reliability_priority"] = json!(p);
    }
    let mut body = json!({
        "task_description": args.task,
        "max_recommendations": args.k,
        "include_alternatives": !args.no_alternatives,
        "explain_reasoning": args.explain,
        "runnable_only": args.runnable_only,
        "complexity_preference": args.complexity.as_str(),
        "user_preferences": preferences,
    });
    if let Some(context) = args.context {
        body["context"] = json!(context);
    }
    args.presentation.add_to(&mut body);
    let service = open_service(config, Model::Load)?;
    let answer = runtime()?.block_on(service.recommend(&body))?;
    emit(&render_recommend(&answer.response, answer.presentation)?);
    Ok(ExitCode::SUCCESS)
}

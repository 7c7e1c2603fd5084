//! `toolscout recommend "<task>"`: the CLI door to `Engine::recommend`, with the same
//! validation and rendering as `POST /recommend`.

use crate::{build_engine, emit, engine_error, load_embedder, print_error, PresentationArgs};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use toolscout::catalog::Catalog;
use toolscout::config::Config;
use toolscout::engine::{
    ComplexityPreference, ExperienceLevel, RecommendationRequest, UserPreferences,
};

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

pub(crate) fn recommend(config: &Config, args: RecommendArgs) -> anyhow::Result<ExitCode> {
    let catalog = match Catalog::load(&config.catalog_dir) {
        Ok((catalog, _)) => Arc::new(catalog),
        Err(e) => return Err(toolscout::Error::from(e).into()),
    };
    let mut req = RecommendationRequest::new(args.task);
    req.context = args.context;
    req.max_recommendations = args.k;
    req.include_alternatives = !args.no_alternatives;
    req.explain_reasoning = args.explain;
    req.runnable_only = args.runnable_only;
    req.complexity_preference = match args.complexity {
        ComplexityArg::Simple => ComplexityPreference::Simple,
        ComplexityArg::Balanced => ComplexityPreference::Balanced,
        ComplexityArg::Powerful => ComplexityPreference::Powerful,
    };
    req.user_preferences = UserPreferences {
        preferred_categories: args.prefer,
        avoid_categories: args.avoid,
        experience_level: args.experience.map(|e| match e {
            ExperienceArg::Beginner => ExperienceLevel::Beginner,
            ExperienceArg::Intermediate => ExperienceLevel::Intermediate,
            ExperienceArg::Expert => ExperienceLevel::Expert,
        }),
        performance_priority: args.performance_priority,
        reliability_priority: args.reliability_priority,
    };
    let req = match req.validated(&catalog) {
        Ok(r) => r,
        Err(e) => {
            print_error(&e);
            return Ok(ExitCode::from(2));
        }
    };
    let engine = build_engine(config, catalog, load_embedder(config))?;
    let response = match engine.recommend(&req) {
        Ok(r) => r,
        Err(e) => return Ok(engine_error(&e)),
    };
    let presentation = (&args.presentation).into();
    emit(&toolscout::format::render_recommend(
        &response,
        presentation,
    )?);
    Ok(ExitCode::SUCCESS)
}

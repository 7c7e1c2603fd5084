//! `toolscout eval`: retrieval quality of the engine on a JSONL tool set and query set
//! (Recall@1, Recall@5, NDCG@5, MRR@10 per mode, or search against recommend on multi-tool
//! queries).

use crate::load_embedder;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::config::Config;
use toolscout::engine::SearchMode;

#[derive(Args)]
pub(crate) struct EvalArgs {
    /// Tools, one JSON object a line: id, name, description[, name_for_human, description_for_model]
    #[arg(long, value_name = "FILE")]
    tools: PathBuf,
    /// Queries, one JSON object a line: qid, query, relevant (tool ids)
    #[arg(long, value_name = "FILE")]
    queries: PathBuf,
    /// Which modes to measure
    #[arg(long, value_enum, default_value_t = EvalMode::All)]
    mode: EvalMode,
    /// Measure a seeded random sample of this many queries
    #[arg(long)]
    limit: Option<usize>,
    /// Seed of the sample
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
    /// Directory with the embedding model (env TOOLSCOUT_MODELS_DIR)
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum EvalMode {
    Keyword,
    Semantic,
    Hybrid,
    All,
    /// Multi-tool queries: hybrid search's first 5 against recommend's 5, for all gold tools
    Multi,
}

pub(crate) fn eval(config: &Config, args: EvalArgs) -> anyhow::Result<ExitCode> {
    let tools: Vec<toolscout::eval::EvalTool> = toolscout::eval::read_jsonl(&args.tools)?;
    let queries: Vec<toolscout::eval::EvalQuery> = toolscout::eval::read_jsonl(&args.queries)?;
    let queries = toolscout::eval::sample(queries, args.limit, args.seed);
    if let EvalMode::Multi = args.mode {
        let embedder = load_embedder(config);
        let engine = toolscout::eval::engine(&tools, embedder)?;
        let report = toolscout::eval::run_multi(&engine, &queries)?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", toolscout::eval::render_multi(&report));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let modes: Vec<SearchMode> = match args.mode {
        EvalMode::Multi => unreachable!("handled above"),
        EvalMode::Keyword => vec![SearchMode::Keyword],
        EvalMode::Semantic => vec![SearchMode::Semantic],
        EvalMode::Hybrid => vec![SearchMode::Hybrid],
        EvalMode::All => vec![
            SearchMode::Keyword,
            SearchMode::Semantic,
            SearchMode::Hybrid,
        ],
    };
    let needs_model = modes.iter().any(|m| *m != SearchMode::Keyword);
    let embedder = if needs_model {
        load_embedder(config)
    } else {
        Err("keyword only".into())
    };
    if let (true, Err(reason)) = (needs_model, &embedder) {
        anyhow::bail!("semantic modes need the embedding model: {reason}");
    }
    let build = std::time::Instant::now();
    let engine = toolscout::eval::engine(&tools, embedder)?;
    eprintln!(
        "{} tools indexed in {:.2}s; {} queries",
        tools.len(),
        build.elapsed().as_secs_f64(),
        queries.len()
    );
    let mut reports = Vec::new();
    for mode in modes {
        reports.push(toolscout::eval::run(&engine, &queries, mode)?);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        print!("{}", toolscout::eval::render(&reports));
    }
    Ok(ExitCode::SUCCESS)
}

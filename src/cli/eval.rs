//! `toolscout eval`: retrieval quality of the engine on a tool set and query set (Recall@1,
//! Recall@5, NDCG@5, MRR@10 per mode beside the naive baseline, or search against recommend
//! on multi-tool queries), or on the whole development suite (`--suite`), tune or test halves.

use super::common::{bad_argument, load_embedder};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::config::Config;
use toolscout::engine::SearchMode;
use toolscout::eval::suite::{self, Half};
use toolscout::eval::{self as ev, EvalQuery, ModeReport};
use toolscout::Error;

#[derive(Args)]
pub(crate) struct EvalArgs {
    /// Tools: a catalog directory, a JSON-lines file (development-set tools, catalog records or
    /// MCP tools/list entries) or a JSON tools/list result
    #[arg(long, value_name = "PATH", required_unless_present = "suite")]
    tools: Option<PathBuf>,
    /// Queries, one JSON object a line: qid, query, relevant (tool ids)
    #[arg(long, value_name = "FILE", required_unless_present = "suite")]
    queries: Option<PathBuf>,
    /// Run every set of a suite manifest (eval/suite.json) into one table
    #[arg(long, value_name = "MANIFEST", conflicts_with_all = ["tools", "queries"])]
    suite: Option<PathBuf>,
    /// Which half of each set to measure (split by gold tool with a fixed seed)
    #[arg(long, value_enum, default_value_t = HalfArg::All)]
    half: HalfArg,
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
enum HalfArg {
    Tune,
    Test,
    All,
}

impl From<HalfArg> for Half {
    fn from(h: HalfArg) -> Half {
        match h {
            HalfArg::Tune => Half::Tune,
            HalfArg::Test => Half::Test,
            HalfArg::All => Half::All,
        }
    }
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum EvalMode {
    /// The naive baseline: "name. description", BM25 and cosine, min-max fused
    Baseline,
    Keyword,
    Semantic,
    Hybrid,
    /// The baseline and every mode
    All,
    /// Multi-tool queries: hybrid search's first 5 against recommend's 5, for all gold tools
    Multi,
}

pub(crate) fn eval(config: &Config, args: EvalArgs) -> Result<ExitCode, Error> {
    if let Some(manifest) = &args.suite {
        return eval_suite(config, manifest, &args);
    }
    let (Some(tools_path), Some(queries_path)) = (&args.tools, &args.queries) else {
        return Err(bad_argument(
            "/--tools",
            "expected --tools and --queries, or --suite".into(),
        ));
    };
    let tools = ev::read_tools(tools_path)?;
    let queries: Vec<EvalQuery> = ev::read_jsonl(queries_path)?;
    let queries = suite::select(queries, args.half.into(), suite::SPLIT_SEED, None);
    let queries = ev::sample(queries, args.limit, args.seed);
    let needs_model = args.mode != EvalMode::Keyword;
    let embedder = if needs_model {
        load_embedder(config)
    } else {
        Err("keyword only".into())
    };
    if let (true, Err(reason)) = (needs_model, &embedder) {
        return Err(Error::ModelUnavailable {
            reason: format!("semantic modes and the baseline need it: {reason}"),
        });
    }
    let build = std::time::Instant::now();
    let baseline = match (&embedder, args.mode) {
        (Ok(e), EvalMode::Baseline | EvalMode::All) => {
            Some(ev::Baseline::build(&tools, e.as_ref())?)
        }
        _ => None,
    };
    let tool_count = tools.len();
    let engine = ev::engine(tools, embedder.clone())?;
    eprintln!(
        "{tool_count} tools indexed in {:.2}s; {} queries",
        build.elapsed().as_secs_f64(),
        queries.len()
    );
    if args.mode == EvalMode::Multi {
        let report = ev::run_multi(&engine, &queries)?;
        if args.json {
            println!("{}", pretty(&report)?);
        } else {
            print!("{}", ev::render_multi(&report));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut reports: Vec<ModeReport> = Vec::new();
    if let (Some(b), Ok(e)) = (&baseline, &embedder) {
        reports.push(ev::run_baseline(b, e.as_ref(), &queries)?);
    }
    let modes: &[SearchMode] = match args.mode {
        EvalMode::Keyword => &[SearchMode::Keyword],
        EvalMode::Semantic => &[SearchMode::Semantic],
        EvalMode::Hybrid => &[SearchMode::Hybrid],
        EvalMode::All => &[
            SearchMode::Keyword,
            SearchMode::Semantic,
            SearchMode::Hybrid,
        ],
        EvalMode::Baseline | EvalMode::Multi => &[],
    };
    for mode in modes {
        reports.push(ev::run(&engine, &queries, *mode)?);
    }
    if args.json {
        println!("{}", pretty(&reports)?);
    } else {
        print!("{}", ev::render(&reports));
    }
    Ok(ExitCode::SUCCESS)
}

/// Every set of the manifest, one half, into one table.
fn eval_suite(
    config: &Config,
    manifest_path: &std::path::Path,
    args: &EvalArgs,
) -> Result<ExitCode, Error> {
    let manifest = suite::read_manifest(manifest_path)?;
    let base = manifest_path
        .parent()
        .unwrap_or_else(|| std::path::Path::new("."));
    let embedder = load_embedder(config).map_err(|reason| Error::ModelUnavailable {
        reason: format!("the suite needs it: {reason}"),
    })?;
    let mut reports = Vec::new();
    for spec in &manifest.sets {
        let mut spec = spec.clone();
        if args.limit.is_some() {
            spec.limit = args.limit;
        }
        let start = std::time::Instant::now();
        reports.push(suite::run_set(
            &spec,
            base,
            manifest.seed,
            args.half.into(),
            &embedder,
        )?);
        eprintln!("{}: {:.1}s", spec.name, start.elapsed().as_secs_f64());
    }
    if args.json {
        println!("{}", pretty(&reports)?);
    } else {
        print!("{}", suite::render(&reports));
    }
    Ok(ExitCode::SUCCESS)
}

/// A report as indented JSON.
fn pretty<T: serde::Serialize>(report: &T) -> Result<String, Error> {
    serde_json::to_string_pretty(report).map_err(|e| Error::Internal(e.to_string()))
}

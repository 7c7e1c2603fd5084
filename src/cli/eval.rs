//! `toolscout eval`: retrieval quality of the engine on a tool set and query set (Recall@1,
//! Recall@5, NDCG@5, MRR@10 per mode beside the naive baseline, or search against recommend
//! on multi-tool queries), or on the whole development suite (`--suite`), tune or test halves;
//! `--feedback` runs the learning protocol instead (`eval::learning`). `--per-query` keeps
//! every query's outcome, and `--compare` reads two such files query by query
//! (`eval::compare`).

use super::common::{bad_argument, load_embedder, load_stock_embedder};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::config::Config;
use toolscout::engine::SearchMode;
use toolscout::eval::suite::{self, Half};
use toolscout::eval::{self as ev, compare, EvalQuery, ModeReport};
use toolscout::Error;

#[derive(Args)]
pub(crate) struct EvalArgs {
    /// Tools: a catalog directory, a JSON-lines file (development-set tools, catalog records or
    /// MCP tools/list entries) or a JSON tools/list result
    #[arg(long, value_name = "PATH", required_unless_present_any = ["suite", "compare"])]
    tools: Option<PathBuf>,
    /// Queries, one JSON object a line: qid, query, relevant (tool ids)
    #[arg(long, value_name = "FILE", required_unless_present_any = ["suite", "compare"])]
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
    /// Run the feedback protocol: replay half of each tool's queries as feedback and measure
    /// the other half before and after (and with noisy feedback)
    #[arg(long, conflicts_with = "mode")]
    feedback: bool,
    /// Share of the feedback pointed at a wrong tool in the protocol's noisy run (0 to 1)
    #[arg(long, default_value_t = ev::learning::DEFAULT_NOISE, value_parser = share, requires = "feedback")]
    noise: f64,
    /// learning_weight for the protocol, in place of the configured default (0 to 1)
    #[arg(long, value_parser = share, requires = "feedback")]
    learning_weight: Option<f64>,
    /// Write every query's outcome to FILE as JSON lines (its NDCG@5, first five tools and
    /// first gold tool in each mode; for multi-tool queries, 1 when every gold tool is in the
    /// first five), for --compare
    #[arg(long, value_name = "FILE", conflicts_with = "feedback")]
    per_query: Option<PathBuf>,
    /// Compare two --per-query files query by query: each measure's old and new means, the
    /// queries that moved up and down, the gold tools they belong to, and the p-value of a
    /// paired randomization test that flips each gold tool's queries together
    #[arg(
        long,
        num_args = 2,
        value_names = ["OLD", "NEW"],
        conflicts_with_all = ["tools", "queries", "suite", "feedback", "per_query"]
    )]
    compare: Option<Vec<PathBuf>>,
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

/// A share from 0 to 1.
fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("expected a number from 0 to 1, found {text:?}")),
    }
}

pub(crate) fn eval(config: &Config, args: EvalArgs) -> Result<ExitCode, Error> {
    if let Some(files) = &args.compare {
        return eval_compare(files, args.json);
    }
    if let Some(path) = &args.per_query {
        // Created before the run, so a path that cannot be written fails in a second, not
        // after minutes of measuring.
        compare::write_rows(path, &[])?;
    }
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
    if args.feedback {
        return eval_feedback(config, tools, &queries, &args);
    }
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
    let stock = match (&embedder, args.mode) {
        (Ok(_), EvalMode::Baseline | EvalMode::All) => Some(load_stock_embedder(config).map_err(
            |reason| Error::ModelUnavailable {
                reason: format!("the baseline needs it: {reason}"),
            },
        )?),
        _ => None,
    };
    let baseline = match &stock {
        Some(e) => Some(ev::Baseline::build(&tools, e.as_ref())?),
        None => None,
    };
    let tool_count = tools.len();
    let engine = ev::engine(tools, embedder.clone())?;
    eprintln!(
        "{tool_count} tools indexed in {:.2}s; {} queries",
        build.elapsed().as_secs_f64(),
        queries.len()
    );
    let set = queries_path.display().to_string();
    let half = Half::from(args.half).as_str();
    if args.mode == EvalMode::Multi {
        let report = ev::run_multi(&engine, &queries)?;
        if let Some(path) = &args.per_query {
            compare::write_rows(path, &compare::report_rows(&set, half, &[], Some(&report)))?;
        }
        if args.json {
            println!("{}", pretty(&report)?);
        } else {
            print!("{}", ev::render_multi(&report));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut reports: Vec<ModeReport> = Vec::new();
    if let (Some(b), Some(e)) = (&baseline, &stock) {
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
    if let Some(path) = &args.per_query {
        compare::write_rows(path, &compare::report_rows(&set, half, &reports, None))?;
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
    let models = models(config)?;
    let mut reports = Vec::new();
    let mut learning = Vec::new();
    for spec in &manifest.sets {
        let mut spec = spec.clone();
        if args.limit.is_some() {
            spec.limit = args.limit;
        }
        let start = std::time::Instant::now();
        let half = args.half.into();
        if args.feedback {
            let options = learning_options(args);
            learning.push(suite::run_set_feedback(
                &spec,
                base,
                manifest.seed,
                half,
                &models,
                &options,
            )?);
        } else {
            reports.push(suite::run_set(&spec, base, manifest.seed, half, &models)?);
        }
        eprintln!("{}: {:.1}s", spec.name, start.elapsed().as_secs_f64());
    }
    if let Some(path) = &args.per_query {
        let rows: Vec<compare::Row> = reports
            .iter()
            .flat_map(|r| compare::report_rows(&r.set, r.half.as_str(), &r.modes, r.multi.as_ref()))
            .collect();
        compare::write_rows(path, &rows)?;
    }
    if args.feedback {
        if args.json {
            println!("{}", pretty(&learning)?);
        } else {
            print!("{}", ev::learning::render(&learning));
        }
    } else if args.json {
        println!("{}", pretty(&reports)?);
    } else {
        print!("{}", suite::render(&reports));
    }
    Ok(ExitCode::SUCCESS)
}

/// Two per-query files compared query by query.
fn eval_compare(files: &[PathBuf], json: bool) -> Result<ExitCode, Error> {
    let [old, new] = files else {
        return Err(bad_argument(
            "/--compare",
            format!("expected two files, OLD and NEW, found {}", files.len()),
        ));
    };
    let old: Vec<compare::Row> = ev::read_jsonl(old)?;
    let new: Vec<compare::Row> = ev::read_jsonl(new)?;
    let comparison = compare::compare(&old, &new)?;
    if json {
        println!("{}", pretty(&comparison)?);
    } else {
        print!("{}", compare::render(&comparison));
    }
    Ok(ExitCode::SUCCESS)
}

fn learning_options(args: &EvalArgs) -> ev::learning::Options {
    ev::learning::Options {
        noise: args.noise,
        learning_weight: args.learning_weight,
    }
}

/// The feedback protocol on one tool set and query set.
fn eval_feedback(
    config: &Config,
    tools: Vec<toolscout::catalog::ToolRecord>,
    queries: &[EvalQuery],
    args: &EvalArgs,
) -> Result<ExitCode, Error> {
    let models = models(config)?;
    let baseline = ev::Baseline::build(&tools, models.baseline.as_ref())?;
    let engine = ev::engine_learning(tools, Ok(models.product.clone()), args.learning_weight)?;
    let report = ev::learning::run_protocol(&ev::learning::Protocol {
        set: "set",
        half: args.half.into(),
        engine: &engine,
        baseline: &baseline,
        embedder: models.baseline.as_ref(),
        queries,
        noise: args.noise,
        seed: args.seed,
    })?;
    if args.json {
        println!("{}", pretty(&report)?);
    } else {
        print!("{}", ev::learning::render(std::slice::from_ref(&report)));
    }
    Ok(ExitCode::SUCCESS)
}

/// A report as indented JSON.
fn pretty<T: serde::Serialize>(report: &T) -> Result<String, Error> {
    serde_json::to_string_pretty(report).map_err(|e| Error::Internal(e.to_string()))
}

/// The product's model and the published one the naive baseline embeds with, or why the
/// evaluation cannot have them.
fn models(config: &Config) -> Result<ev::Models, Error> {
    let unavailable = |reason: String| Error::ModelUnavailable {
        reason: format!("the evaluation needs it: {reason}"),
    };
    Ok(ev::Models {
        product: load_embedder(config).map_err(unavailable)?,
        baseline: load_stock_embedder(config).map_err(unavailable)?,
    })
}

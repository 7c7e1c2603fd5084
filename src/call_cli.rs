//! `toolscout call <toolName> '<query JSON>'...`: the CLI door to the executor. It builds the
//! same `{queries: [...]}` body as `POST /tools/call/{toolName}` and goes through the same
//! checks, so errors read the same. For people at a terminal it fills in the bookkeeping
//! fields a query lacks (`id`, and the research fields the tool's schema asks for), and it
//! prints the same JSON the HTTP route returns.

use anyhow::Context as _;
use clap::Args;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::catalog::Catalog;
use toolscout::config::Config;
use toolscout::exec::Executor;

#[derive(Args)]
pub(crate) struct CallArgs {
    /// The tool's execution name, e.g. localSearchCode (see GET /tools/list)
    tool: String,
    /// One JSON object per query (1 to 5), e.g. '{"pattern":"fn main","path":"src"}'
    #[arg(num_args = 0..)]
    queries: Vec<String>,
    /// Read the whole body `{"queries": [...]}` from a file, or `-` for standard input
    #[arg(long, value_name = "FILE", conflicts_with = "queries")]
    body: Option<PathBuf>,
}

const FILLED: &str = "toolscout call from the command line";

pub(crate) fn call(config: &Config, args: CallArgs) -> anyhow::Result<ExitCode> {
    let catalog = match Catalog::load(&config.catalog_dir) {
        Ok((catalog, _)) => catalog,
        Err(e) => return Err(toolscout::Error::from(e).into()),
    };
    let body: Value = match &args.body {
        Some(path) => {
            let text = if path.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin()).context("cannot read standard input")?
            } else {
                std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?
            };
            serde_json::from_str(&text)
                .with_context(|| format!("the body in {} is not valid JSON", path.display()))?
        }
        None => {
            let mut queries = Vec::new();
            for (i, raw) in args.queries.iter().enumerate() {
                let v: Value = serde_json::from_str(raw)
                    .with_context(|| format!("query {} is not valid JSON: {raw}", i + 1))?;
                queries.push(v);
            }
            json!({ "queries": queries })
        }
    };
    let executor = Executor::new(config.exec.clone(), &catalog)?;
    let outcome = (|| {
        let tool = executor.resolve(&args.tool)?;
        let mut queries = Executor::queries(&body)?;
        let schema = catalog
            .executable()
            .find(|t| t.execution.as_ref().is_some_and(|e| e.name == tool.name()))
            .map(|t| t.input_schema.clone())
            .unwrap_or(Value::Null);
        for (i, q) in queries.iter_mut().enumerate() {
            fill_bookkeeping(q, i, &schema);
        }
        Ok::<_, toolscout::Error>((tool, queries))
    })();
    let (tool, queries) = match outcome {
        Ok(ok) => ok,
        Err(e) => {
            crate::print_error(&e);
            return Ok(ExitCode::from(2));
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(executor.call(tool, queries));
    let rendered = toolscout::format::Rendered::Json(result.to_json());
    crate::emit(&rendered);
    Ok(if result.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Adds `id` (q1, q2, ...) and the research fields the schema lists, where missing.
fn fill_bookkeeping(query: &mut Map<String, Value>, index: usize, schema: &Value) {
    query
        .entry("id")
        .or_insert_with(|| json!(format!("q{}", index + 1)));
    for field in ["mainResearchGoal", "researchGoal", "reasoning"] {
        if schema["properties"].get(field).is_some() {
            query.entry(field).or_insert_with(|| json!(FILLED));
        }
    }
}

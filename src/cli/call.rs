//! `toolscout call <toolName> '<query JSON>'...`: the CLI door to `Service::call_tool`. It builds the
//! same `{queries: [...]}` body as `POST /tools/call/{toolName}` and goes through the same
//! checks, so errors read the same. For people at a terminal it fills in the bookkeeping
//! fields a query lacks (`id`, and the research fields the tool's schema asks for), and it
//! prints the same JSON the HTTP route returns.

use super::common::{bad_argument, emit, open_service, runtime, Model};
use clap::Args;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::config::Config;
use toolscout::format::Rendered;
use toolscout::Error;

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

pub(crate) fn call(config: &Config, args: CallArgs) -> Result<ExitCode, Error> {
    let mut body = read_body(&args)?;
    let service = open_service(config, Model::Skip("tool calls need no model"))?;
    // For people at a terminal: the bookkeeping fields a query lacks, where the tool's schema
    // lists them. Anything else about the body is the service's to judge.
    let schema = service
        .runnable_tools()
        .into_iter()
        .find(|(name, _)| *name == args.tool)
        .map(|(_, t)| t.input_schema.clone())
        .unwrap_or(Value::Null);
    if let Some(queries) = body.get_mut("queries").and_then(Value::as_array_mut) {
        for (i, q) in queries.iter_mut().enumerate() {
            if let Some(q) = q.as_object_mut() {
                fill_bookkeeping(q, i, &schema);
            }
        }
    }
    let result = runtime()?.block_on(service.call_tool(&args.tool, &body))?;
    emit(&Rendered::Json(result.to_json()));
    Ok(if result.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The body `{"queries": [...]}`: from `--body` (a file or `-`), or one argument a query.
fn read_body(args: &CallArgs) -> Result<Value, Error> {
    let Some(path) = &args.body else {
        let mut queries = Vec::new();
        for (i, raw) in args.queries.iter().enumerate() {
            let v: Value = serde_json::from_str(raw).map_err(|e| {
                bad_argument(
                    &format!("/queries/{i}"),
                    format!("expected a JSON object, found {raw} ({e})"),
                )
            })?;
            queries.push(v);
        }
        return Ok(json!({ "queries": queries }));
    };
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(path)
    }
    .map_err(|source| Error::Io {
        path: path.clone(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| {
        bad_argument(
            "/--body",
            format!(
                "expected JSON in {}, found invalid JSON ({e})",
                path.display()
            ),
        )
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

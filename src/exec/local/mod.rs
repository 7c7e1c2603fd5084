//! The local tools: code search, file content, file finding and directory structure, all
//! confined to the sandbox. File-system work is blocking, so each query runs on the blocking
//! pool, never on the async runtime's workers, behind the context's gate: at most one query
//! per worker, a bounded queue, and `overloaded` beyond it.

mod content;
mod find;
mod search;
mod structure;

use super::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use super::{Context, Tool};
use crate::admission::Refused;
use serde_json::{Map, Value};

pub(crate) async fn run(
    ctx: &Context,
    tool: Tool,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    let sandbox = ctx.sandbox.clone();
    let budget = ctx.config.output_chars;
    let query = query.clone();
    let work = move || match tool {
        Tool::LocalSearchCode => search::run(&sandbox, budget, &query),
        Tool::LocalGetFileContent => content::run(&sandbox, budget, &query),
        Tool::LocalFindFiles => find::run(&sandbox, budget, &query),
        Tool::LocalViewStructure => structure::run(&sandbox, budget, &query),
        other => Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::WrongFamily,
            format!("{} is not a local tool", other.name()),
        )),
    };
    ctx.gate
        .run(work)
        .await
        .unwrap_or_else(|refused| Err(refusal(tool, refused)))
}

/// A query the gate did not run, as the agent sees it.
fn refusal(tool: Tool, refused: Refused) -> QueryError {
    match refused {
        Refused::Overloaded {
            workers, waiting, ..
        } => QueryError::new(
            Failure::Unavailable,
            ToolErrorCode::Overloaded,
            format!("{} was not run: all {workers} local-tool workers are busy and {waiting} queries wait", tool.name()),
        )
        .detail("retryAfter", 1)
        .hint("Retry after 1 second, with backoff")
        .hint("GET /health shows the gates' workers and queues"),
        Refused::Died(why) => QueryError::new(
            Failure::Unavailable,
            ToolErrorCode::InternalError,
            format!("{} stopped unexpectedly: {why}", tool.name()),
        ),
    }
}

//! The local tools: code search, file content, file finding and directory structure, all
//! confined to the sandbox. File-system work is blocking, so each query runs on the blocking
//! pool, never on the async runtime's workers.

mod content;
mod find;
mod search;
mod structure;

use super::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use super::{Context, Tool};
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
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(QueryError::new(
            Failure::Unavailable,
            ToolErrorCode::InternalError,
            format!("{} stopped unexpectedly: {e}", tool.name()),
        ))
    })
}

//! localSearchCode: content search under a sandboxed path, run in-process with ripgrep's own
//! library crates (walker, regex matcher, searcher) rather than by spawning `rg`, so there is
//! no binary to find, no argument escaping and no output parsing. Every input field of the
//! catalog's schema is honoured; octocode's three contradictory combinations are refused.
//!
//! Submodules: `options` (query, presets, conflicts), `matcher` (pattern compilation),
//! `engine` (walk), `sink` (one file's search), `text` (line clipping), `output` (paging and
//! hints), `window` (character windows over a page).

mod engine;
mod matcher;
mod options;
mod output;
mod pieces;
mod sink;
mod text;
mod window;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_output;

use crate::exec::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use crate::exec::parse_query;
use crate::exec::sandbox::Sandbox;
use options::{Options, Query};
use serde_json::{Map, Value};
use std::time::Instant;

pub(crate) fn run(
    sandbox: &Sandbox,
    budget: usize,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    let started = Instant::now();
    let query: Query = parse_query(query)?;
    let (o, warnings) = Options::resolve(query)?;
    let root = sandbox.resolve(&o.path)?;
    if !root.exists() {
        return Err(QueryError::new(
            Failure::NotFound,
            ToolErrorCode::PathNotFound,
            format!("Path '{}' does not exist", o.path),
        )
        .hint("Relative paths start at the workspace root; localViewStructure shows what is there")
        .hint("localFindFiles finds a file by name when its location is unknown"));
    }
    let matcher = matcher::build(&o)?;
    engine::check_encoding(&o)?;
    let searched = engine::run(&root, sandbox, &o, &matcher)?;
    let run = output::Run {
        o: &o,
        sandbox,
        engine: matcher.engine(),
        budget: budget.max(1),
        elapsed: started.elapsed(),
        warnings,
    };
    Ok(run.render(searched))
}

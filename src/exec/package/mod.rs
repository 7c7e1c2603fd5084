//! packageSearch: npm and PyPI lookups against the registries the machine's own npm and pip
//! are configured with (or the configured `npm_registry` / `pypi_url`). This module owns the
//! query, the shape of the answer (`packages`, `totalFound`, `hints`) and its pagination;
//! `npm` (with `npm_record`) and `python` own each registry's protocol, `registry` where the
//! registries are (asking npm and pip through `probe`), `trust` which CAs reach them, `http`
//! what a registry's failures mean and `repo` how a source repository is recognised.
//!
//! A package that does not exist is an empty result with hints, not an error: the agent
//! asked a fair question and the answer is "no". Errors are for registries that failed.

#[cfg(test)]
mod fuzz_tests;
mod http;
mod npm;
mod npm_record;
mod probe;
mod python;
mod registry;
mod repo;
#[cfg(test)]
mod tests;
mod trust;

pub use registry::Registries;

use super::outcome::{Outcome, QueryError};
use super::page::paginate;
use super::{parse_query, Context};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// A packageSearch query (already validated against the catalog's input schema).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    name: String,
    ecosystem: Ecosystem,
    #[serde(default = "one")]
    search_limit: usize,
    char_offset: Option<usize>,
    char_length: Option<usize>,
    #[serde(default)]
    npm_fetch_metadata: bool,
    #[serde(default)]
    python_fetch_metadata: bool,
}

fn one() -> usize {
    1
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Ecosystem {
    Npm,
    Python,
}

/// What one ecosystem found: the packages (each already in the return schema's shape), how
/// many the registry knows of, and hints for the agent.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub(crate) packages: Vec<Value>,
    pub(crate) total_found: usize,
    pub(crate) hints: Vec<String>,
}

pub(crate) async fn run(ctx: &Context, query: &Map<String, Value>) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    let name = q.name.trim();
    if name.is_empty() {
        return Err(QueryError::invalid("name: expected a package name or search keywords, found only whitespace")
            .hint("Give a package name such as 'express' or 'requests', or keywords with searchLimit above 1 (npm)"));
    }
    let limit = q.search_limit.clamp(1, 10);
    let report = match q.ecosystem {
        Ecosystem::Npm => {
            let registry = ctx.registries.npm().await?;
            npm::search(
                registry.http(&ctx.http),
                registry,
                name,
                limit,
                q.npm_fetch_metadata,
            )
            .await?
        }
        Ecosystem::Python => {
            let registry = ctx.registries.pypi().await?;
            python::search(
                registry.http(&ctx.http),
                registry,
                name,
                limit,
                q.python_fetch_metadata,
            )
            .await?
        }
    };
    Ok(render(
        report,
        q.char_offset,
        q.char_length,
        ctx.config.output_chars,
    ))
}

/// The result object, paginated as text when the agent asked for a window and the whole
/// does not fit in it; a result that fits stays structured.
fn render(report: Report, offset: Option<usize>, length: Option<usize>, budget: usize) -> Outcome {
    let found = !report.packages.is_empty();
    let mut hints = report.hints;
    let packages = Value::Array(report.packages);
    let text = serde_json::to_string_pretty(&packages).unwrap_or_default();
    let size = text.chars().count();
    let mut data = Map::new();
    if offset.is_some() || length.is_some() {
        let page = paginate(&text, offset, length, budget.max(1));
        if let Some(pagination) = page.pagination {
            data.insert("totalFound".into(), json!(report.total_found));
            // The packages array, serialized as pretty JSON and cut to the requested window.
            data.insert("content".into(), json!(page.text));
            data.insert("pagination".into(), pagination);
            hints.extend(page.hints);
            data.insert("hints".into(), json!(hints));
            return outcome(found, data);
        }
    } else if size > budget {
        hints.push(format!(
            "This answer is {size} characters; pass charLength (and charOffset) to read it in windows, or drop the FetchMetadata flag for a shorter one"
        ));
    }
    data.insert("packages".into(), packages);
    data.insert("totalFound".into(), json!(report.total_found));
    data.insert("hints".into(), json!(hints));
    outcome(found, data)
}

fn outcome(found: bool, data: Map<String, Value>) -> Outcome {
    if found {
        Outcome::found(Value::Object(data))
    } else {
        Outcome::empty(Value::Object(data))
    }
}

/// Hints shared by both ecosystems for a found package: where its source is and what to do
/// with it next.
pub(crate) fn repository_hints(
    name: &str,
    repo: Option<&repo::RepoRef>,
    path: Option<&str>,
    hints: &mut Vec<String>,
) {
    match repo {
        Some(r) if r.is_github() => {
            let at = path.map(|p| format!(", path=\"{p}\"")).unwrap_or_default();
            hints.push(format!("Next: githubViewRepoStructure with owner=\"{}\", repo=\"{}\"{at} to see the source layout", r.owner, r.repo));
            hints.push("Then: githubSearchCode in that repository to find the implementation".to_string());
        }
        Some(r) => hints.push(format!(
            "The source of {name} is on {} ({}), which the GitHub tools cannot read",
            r.host,
            r.web_url()
        )),
        None => hints.push(format!(
            "{name} names no source repository; githubSearchRepositories with keywordsToSearch=[\"{name}\"] may find it"
        )),
    }
}

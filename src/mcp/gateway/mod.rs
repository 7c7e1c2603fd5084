//! The gateway's catalog: the tools of every configured source (`[[sources]]`), in order, as
//! one `Catalog`. A `dir` source is a catalog directory, validated as ever (an invalid one
//! stops the start, as it always has). A `file` source is a `tools/list` result or a tools
//! JSON-lines file; an `mcp` source is a server toolscout starts (or reaches over streamable
//! HTTP) and asks. Their tools get the id `<source>.<tool>` (slugged, stable), keep what the
//! upstream gives and nothing invented, and a category inferred from the catalog's own (see `category`). A source that fails
//! leaves its tools out and says why in the report (and `/health`), so one broken upstream
//! never keeps the others from serving.

mod category;
mod http_client;
mod import;
mod pool;
mod upstream;
mod watch;

pub use import::{import, Imported};
pub use pool::Pool;
pub use watch::{dir_listing, follow_upstreams, watch_dirs, DirListing};

use crate::catalog::mcp::record_from_mcp;
use crate::catalog::{Catalog, Execution, LoadError, SourceReport, ToolRecord, ToolSource};
use crate::config::{CatalogSource, Config, SourceKind};
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::service::{CatalogLoader, LoadFuture};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The catalog of `config`'s sources. `embedder` places upstream tools in the catalog's
/// categories by meaning; without it, by shared words.
/// An invalid `dir` source stops the load: `on_invalid` sees its whole validation first (the
/// CLI prints it file by file).
pub async fn open_catalog(
    config: &Config,
    embedder: Option<&dyn Embedder>,
    on_invalid: &(dyn Fn(&LoadError) + Sync),
) -> Result<(Catalog, Vec<SourceReport>)> {
    placed(config, embedder, gather(config, on_invalid).await?)
}

/// Every source's tools: the hand-written ones, the gathered ones (not yet placed in a
/// category) and each source's report.
async fn gather(
    config: &Config,
    on_invalid: &(dyn Fn(&LoadError) + Sync),
) -> Result<(Vec<ToolRecord>, Vec<ToolRecord>, Vec<SourceReport>)> {
    let mut hand_written: Vec<ToolRecord> = Vec::new();
    let mut gathered: Vec<(usize, Vec<ToolRecord>)> = Vec::new();
    let mut reports = Vec::new();
    // Every upstream is asked at once: a slow one costs its own timeout, not everybody's.
    let mut listed = crate::exec::join_all(
        config
            .catalog_sources
            .iter()
            .map(|s| async move {
                match s.kind {
                    SourceKind::Mcp { .. } => Some(upstream_tools(s).await),
                    _ => None,
                }
            })
            .collect(),
    )
    .await;
    for (i, source) in config.catalog_sources.iter().enumerate() {
        let outcome = match &source.kind {
            SourceKind::Dir(path) => {
                let (catalog, _) = Catalog::load(path).map_err(|e| {
                    on_invalid(&e);
                    Error::from(e)
                })?;
                hand_written.extend(catalog.tools().iter().cloned());
                Ok(catalog.len())
            }
            SourceKind::File(path) => file_tools(source, path).map(|t| {
                let n = t.len();
                gathered.push((i, t));
                n
            }),
            SourceKind::Mcp { .. } => listed[i]
                .take()
                .unwrap_or_else(|| Err(Error::Internal("an upstream was not listed".into())))
                .map(|t| {
                    let n = t.len();
                    gathered.push((i, t));
                    n
                }),
        };
        if let Err(e) = &outcome {
            tracing::warn!(source = %source.name, error = %e, "catalog source left out");
        }
        reports.push(SourceReport {
            name: source.name.clone(),
            kind: source.kind_name().to_string(),
            tools: *outcome.as_ref().unwrap_or(&0),
            error: outcome.err().map(|e| e.to_string()),
            shared_names: Vec::new(),
        });
    }
    let mut gathered_tools: Vec<ToolRecord> = Vec::new();
    for (i, tools) in gathered {
        reports[i].shared_names = shared_names(&hand_written, &gathered_tools, &tools);
        gathered_tools.extend(tools);
    }
    Ok((hand_written, gathered_tools, reports))
}

/// [`open_catalog`] for a reload: a tool the serving catalog already placed, unchanged
/// (same id, name and description), keeps its category, so only new and changed tools are
/// embedded for it.
async fn reopen_catalog(
    config: &Config,
    embedder: Option<&dyn Embedder>,
    serving: &Catalog,
) -> Result<(Catalog, Vec<SourceReport>)> {
    let (hand_written, mut gathered_tools, reports) = gather(config, &|_| {}).await?;
    for tool in gathered_tools.iter_mut() {
        let placed = serving.get(&tool.tool_id).filter(|t| {
            t.name == tool.name
                && t.description == tool.description
                && t.source.as_ref().is_some_and(|s| s.category_inferred)
        });
        if let (Some(placed), Some(source)) = (placed, tool.source.as_mut()) {
            tool.category = placed.category.clone();
            source.category_inferred = true;
        }
    }
    placed(config, embedder, (hand_written, gathered_tools, reports))
}

/// The catalog of what `gather` found, the gathered tools without a category placed in the
/// hand-written ones' categories.
fn placed(
    config: &Config,
    embedder: Option<&dyn Embedder>,
    (hand_written, mut gathered, reports): (Vec<ToolRecord>, Vec<ToolRecord>, Vec<SourceReport>),
) -> Result<(Catalog, Vec<SourceReport>)> {
    let cache_dir = config.cache_dir.as_deref();
    let mut hand_written = hand_written;
    if hand_written.iter().any(|t| t.category.is_empty()) {
        // Hand-written entries without a category, placed among the others' categories.
        let reference = hand_written.clone();
        category::infer(&mut hand_written, &reference, embedder, cache_dir)?;
    }
    category::infer(&mut gathered, &hand_written, embedder, cache_dir)?;
    Ok(assemble(config, hand_written, gathered, reports))
}

/// One catalog of the hand-written tools and the gathered ones, under the first directory.
fn assemble(
    config: &Config,
    mut hand_written: Vec<ToolRecord>,
    gathered_tools: Vec<ToolRecord>,
    reports: Vec<SourceReport>,
) -> (Catalog, Vec<SourceReport>) {
    let dir = config
        .catalog_sources
        .iter()
        .find_map(|s| match &s.kind {
            SourceKind::Dir(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap_or_else(PathBuf::new);
    hand_written.extend(gathered_tools);
    (Catalog::from_tools(dir, unique_ids(hand_written)), reports)
}

/// Reads the configured sources again for `Service::reload`. A source that fails now keeps
/// the tools it had in the serving catalog, so an upstream that is down for a moment does not
/// take its tools out of search; its report says so.
pub struct Loader {
    pub config: Config,
}

impl CatalogLoader for Loader {
    fn load<'a>(
        &'a self,
        serving: &'a Catalog,
        embedder: Option<std::sync::Arc<dyn Embedder>>,
    ) -> LoadFuture<'a> {
        Box::pin(async move {
            let (fresh, mut reports) =
                reopen_catalog(&self.config, embedder.as_deref(), serving).await?;
            let failed: Vec<usize> = (0..reports.len())
                .filter(|&i| reports[i].error.is_some())
                .collect();
            if failed.is_empty() {
                return Ok((fresh, reports));
            }
            let mut tools = fresh.tools().to_vec();
            for i in failed {
                let kept: Vec<ToolRecord> = serving
                    .tools()
                    .iter()
                    .filter(|t| t.source.as_ref().is_some_and(|s| s.name == reports[i].name))
                    .cloned()
                    .collect();
                let report = &mut reports[i];
                report.tools = kept.len();
                if let Some(error) = report.error.as_mut() {
                    error.push_str(&format!(
                        "; kept its {} tools of the last good listing",
                        kept.len()
                    ));
                }
                tools.extend(kept);
            }
            Ok((
                Catalog::from_tools(fresh.dir().to_path_buf(), tools),
                reports,
            ))
        })
    }
}

/// An upstream's tools as records of the source.
async fn upstream_tools(source: &CatalogSource) -> Result<Vec<ToolRecord>> {
    let listing = upstream::list(source).await?;
    Ok(listing
        .tools
        .iter()
        .map(|tool| {
            let id = format!("{}.{}", source.name, slug(&tool.name));
            let mut record = record_from_mcp(tool, Some(&listing.server), id, String::new());
            // toolscout runs it by forwarding the call to the server (`exec::upstream`).
            record.execution = Some(Execution {
                kind: "mcp".into(),
                name: tool.name.clone(),
            });
            if let Some(s) = record.source.as_mut() {
                s.name = source.name.clone();
                s.title = s
                    .title
                    .clone()
                    .or_else(|| Some(listing.server.name.clone()));
            }
            record
        })
        .collect())
}

/// A tools file's tools: hand-written records keep their ids and categories; every other
/// shape gets the source's id prefix and an inferred category.
fn file_tools(source: &CatalogSource, path: &std::path::Path) -> Result<Vec<ToolRecord>> {
    let entries = crate::eval::read_tool_entries(path)?;
    Ok(entries
        .into_iter()
        .map(|(mut record, hand_written)| {
            if !hand_written {
                record.tool_id = format!("{}.{}", source.name, slug(&record.name));
                record.category = String::new();
                let upstream = record.source.take();
                record.source = Some(ToolSource {
                    name: source.name.clone(),
                    kind: "file".into(),
                    title: upstream.as_ref().map(|s| s.name.clone()),
                    description: upstream.and_then(|s| s.description),
                    category_inferred: false,
                });
            }
            record
        })
        .collect())
}

/// A tool name as an id part: lowercase ASCII letters, digits, `_` and `-`, other runs as one
/// `_`; the same name always gives the same part.
pub(crate) fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_');
    if trimmed.is_empty() {
        "tool".into()
    } else {
        trimmed.chars().take(120).collect()
    }
}

/// Names of `tools` an earlier source already has.
fn shared_names(
    hand_written: &[ToolRecord],
    earlier: &[ToolRecord],
    tools: &[ToolRecord],
) -> Vec<String> {
    let taken: std::collections::BTreeSet<&str> = hand_written
        .iter()
        .chain(earlier)
        .map(|t| t.name.as_str())
        .collect();
    tools
        .iter()
        .filter(|t| taken.contains(t.name.as_str()))
        .map(|t| t.name.clone())
        .collect()
}

/// Ids made unique: a later tool whose id is taken (two names with one slug) gets `-2`, `-3`.
fn unique_ids(records: Vec<ToolRecord>) -> Vec<ToolRecord> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    records
        .into_iter()
        .map(|mut r| {
            let n = seen.entry(r.tool_id.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                tracing::warn!(id = %r.tool_id, "two tools with one id; the later one renamed");
                r.tool_id = format!("{}-{}", r.tool_id, n);
            }
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_stable_id_parts() {
        assert_eq!(slug("get_current_time"), "get_current_time");
        assert_eq!(slug("Get Current Time!"), "get_current_time");
        assert_eq!(slug("ÉTÉ/été"), "t_t");
        assert_eq!(slug("   "), "tool");
        assert_eq!(slug(&"x".repeat(500)).len(), 120);
    }

    #[test]
    fn a_taken_id_is_suffixed_not_dropped() {
        let r = |id: &str| crate::catalog::mcp::blank_record(id.into(), id.into(), "c".into());
        let out = unique_ids(vec![r("a.x"), r("a.x"), r("a.y")]);
        let ids: Vec<&str> = out.iter().map(|t| t.tool_id.as_str()).collect();
        assert_eq!(ids, ["a.x", "a.x-2", "a.y"]);
    }
}

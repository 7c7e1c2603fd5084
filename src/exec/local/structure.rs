//! localViewStructure: a paginated ls / tree of one directory inside the sandbox, walked
//! natively (no `ls`), symlinks shown but never followed, protected entries never shown,
//! dotfiles only with `hidden`. One level by default; `depth` or `recursive` go deeper, and the
//! listing then keeps the tree's shape: a directory is followed by its contents, siblings in
//! the chosen order. When only files are listed there is no tree to keep, so the order is over
//! all files at once (the largest files anywhere below, for instance).

mod answer;
mod order;
#[cfg(test)]
mod tests;

use super::find::format;
use super::find::walk::{self, Cut, Limits, Visit};
use crate::exec::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use crate::exec::parse_query;
use crate::exec::sandbox::{check_glob, Sandbox};
use globset::{GlobBuilder, GlobMatcher};
use order::{Key, SortBy};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fs::Metadata;
use std::path::Path;

const DEFAULT_PER_PAGE: usize = 20;
/// Entries collected when the query sets no limit (the schema's largest limit).
const DEFAULT_LIMIT: usize = 10_000;

/// The tool's parameters (validated against the catalog schema before they get here).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    path: String,
    #[serde(default)]
    details: bool,
    #[serde(default)]
    hidden: bool,
    human_readable: Option<bool>,
    #[serde(default)]
    sort_by: SortBy,
    #[serde(default)]
    reverse: bool,
    entries_per_page: Option<usize>,
    entry_page_number: Option<usize>,
    pattern: Option<String>,
    #[serde(default)]
    directories_only: bool,
    #[serde(default)]
    files_only: bool,
    extension: Option<String>,
    #[serde(default)]
    extensions: Vec<String>,
    depth: Option<usize>,
    #[serde(default)]
    recursive: bool,
    limit: Option<usize>,
    char_offset: Option<usize>,
    char_length: Option<usize>,
    show_file_last_modified: Option<bool>,
}

/// What an entry is, in the listing's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
    Link,
    Other,
}

impl Kind {
    fn of(meta: &Metadata) -> Kind {
        let ft = meta.file_type();
        if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else if ft.is_symlink() {
            Kind::Link
        } else {
            Kind::Other
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "dir",
            Kind::Link => "symlink",
            Kind::Other => "other",
        }
    }
}

/// One listed entry.
struct Item {
    /// Path below the listed directory, `/`-separated, no trailing slash.
    rel: String,
    kind: Kind,
    meta: Metadata,
    /// Sort keys of the entry's ancestors below the listed directory, then its own.
    chain: Vec<Key>,
}

/// The name filters: `pattern` and the extensions.
struct NameFilter {
    glob: Option<GlobMatcher>,
    substring: Option<String>,
    extensions: Vec<String>,
}

impl NameFilter {
    fn new(q: &Query) -> Result<NameFilter, QueryError> {
        let pattern = q.pattern.as_deref().filter(|p| !p.is_empty());
        let is_glob = pattern.is_some_and(|p| p.contains(['*', '?', '[']));
        if let Some(p) = pattern {
            check_glob("pattern", p)?;
        }
        let glob = match pattern.filter(|_| is_glob) {
            Some(p) => Some(
                GlobBuilder::new(p)
                    .case_insensitive(true)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| {
                        QueryError::invalid(format!("pattern '{p}' is not a valid glob: {}", e.kind()))
                            .detail("field", "pattern")
                            .hint("Use * and ? wildcards, e.g. '*.config.*', or plain text to match part of a name")
                    })?
                    .compile_matcher(),
            ),
            None => None,
        };
        let extensions = q
            .extension
            .iter()
            .chain(&q.extensions)
            .map(|e| e.trim().trim_start_matches('.').to_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        Ok(NameFilter {
            glob,
            substring: pattern.filter(|_| !is_glob).map(str::to_lowercase),
            extensions,
        })
    }

    fn passes(&self, name: &str, kind: Kind) -> bool {
        if let Some(g) = &self.glob {
            if !g.is_match(name) {
                return false;
            }
        }
        if let Some(s) = &self.substring {
            if !name.to_lowercase().contains(s.as_str()) {
                return false;
            }
        }
        self.extensions.is_empty()
            || (kind != Kind::Dir
                && order::extension(name)
                    .is_some_and(|e| self.extensions.contains(&e.to_lowercase())))
    }
}

pub(crate) fn run(
    sandbox: &Sandbox,
    budget: usize,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    check_conflicts(&q)?;
    let names = NameFilter::new(&q)?;
    let root = sandbox.resolve(&q.path)?;
    check_directory(&root, &q)?;
    let max_depth = match (q.depth, q.recursive) {
        (Some(d), _) => Some(d),
        (None, true) => None,
        (None, false) => Some(1),
    };
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let (mut items, notes) = collect(sandbox, &root, &q, &names, max_depth, limit)?;
    // With only files listed there is no tree shape to keep.
    let flat = q.files_only || !names.extensions.is_empty();
    order::sort(&mut items, q.sort_by, q.reverse, flat);
    let listing = answer::Listing {
        display: sandbox.display(&root),
        filtered: q.pattern.is_some()
            || !names.extensions.is_empty()
            || q.files_only
            || q.directories_only,
        items,
        notes,
        max_depth,
    };
    Ok(listing.answer(&q, budget))
}

/// Refuses a path that exists and is not a directory, pointing to the tool that reads it.
fn check_directory(root: &Path, q: &Query) -> Result<(), QueryError> {
    match std::fs::metadata(root) {
        Ok(meta) if !meta.is_dir() => Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::NotADirectory,
            format!("Path '{}' is not a directory", q.path.trim()),
        )
        .hint(format!(
            "Read it with localGetFileContent path='{}'",
            q.path.trim()
        ))
        .hint("To list the folder that holds it, pass the parent directory as path")),
        _ => Ok(()),
    }
}

/// Walks the directory and keeps the entries the query wants, up to `limit`; returns them
/// with the notes on what the walk left out.
fn collect(
    sandbox: &Sandbox,
    root: &Path,
    q: &Query,
    names: &NameFilter,
    max_depth: Option<usize>,
    limit: usize,
) -> Result<(Vec<Item>, Vec<String>), QueryError> {
    let mut items: Vec<Item> = Vec::new();
    let mut dir_keys: HashMap<String, Key> = HashMap::new();
    let mut hidden_skipped = 0usize;
    let report = walk::walk(sandbox, root, &q.path, Limits::depth(max_depth), |entry| {
        if entry.depth == 0 {
            return Visit::Descend;
        }
        let name = entry.name();
        if !q.hidden && name.starts_with('.') {
            hidden_skipped += 1;
            return Visit::Prune;
        }
        let rel = entry
            .path
            .strip_prefix(root)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| name.clone());
        let kind = Kind::of(&entry.meta);
        let key = Key::new(&name, &entry.meta);
        if kind == Kind::Dir {
            dir_keys.insert(rel.clone(), key.clone());
        }
        let wanted = match kind {
            Kind::Dir => !q.files_only,
            _ => !q.directories_only,
        } && names.passes(&name, kind);
        if wanted {
            // Stop only on an entry beyond the limit, so "stopped" means more was there.
            if items.len() >= limit {
                return Visit::Stop;
            }
            let mut chain: Vec<Key> = ancestors(&rel)
                .filter_map(|a| dir_keys.get(a).cloned())
                .collect();
            chain.push(key);
            items.push(Item {
                rel,
                kind,
                meta: entry.meta.clone(),
                chain,
            });
        }
        Visit::Descend
    })?;
    Ok((items, walk_notes(&report, hidden_skipped, limit)))
}

/// What the walk left out: a limit or time cut, unreadable entries, hidden ones.
fn walk_notes(report: &walk::Report, hidden_skipped: usize, limit: usize) -> Vec<String> {
    let mut notes = Vec::new();
    if report.cut == Some(Cut::Visitor) {
        notes.push(format!(
            "The listing stopped at {limit} entries (limit) with more to show; narrow it with pattern, extension or a smaller depth, or list a subdirectory"
        ));
    } else if report.cut.is_some() {
        notes.push(format!(
            "The walk stopped after {} entries to stay within time, so the listing is partial; use a smaller depth or a subdirectory",
            report.visited
        ));
    }
    if report.denied > 0 {
        notes.push(format!(
            "{} could not be read (permission denied) and were skipped",
            format::plural(report.denied, "entry", "entries")
        ));
    }
    if hidden_skipped > 0 {
        notes.push(format!(
            "{} not shown (names starting with '.'); hidden=true includes them",
            format::plural(hidden_skipped, "hidden entry is", "hidden entries are")
        ));
    }
    notes
}

fn check_conflicts(q: &Query) -> Result<(), QueryError> {
    let has_ext = q.extension.is_some() || !q.extensions.is_empty();
    let clash = if q.files_only && q.directories_only {
        Some("filesOnly and directoriesOnly")
    } else if q.directories_only && has_ext {
        Some("directoriesOnly and extension/extensions (which keep only files)")
    } else {
        None
    };
    match clash {
        Some(what) => Err(QueryError::invalid(format!(
            "{what} exclude each other, so nothing could be listed"
        ))
        .hint("Keep one of them; without either, files and directories are both listed")),
        None => Ok(()),
    }
}

/// `a/b/c` -> `a`, `a/b` (the directories above it, below the listed directory).
fn ancestors(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(move |(i, _)| &rel[..i])
}

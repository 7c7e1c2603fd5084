//! localViewStructure: a paginated ls / tree of one directory inside the sandbox, walked
//! natively (no `ls`), symlinks shown but never followed, protected entries never shown,
//! dotfiles only with `hidden`. One level by default; `depth` or `recursive` go deeper, and the
//! listing then keeps the tree's shape: a directory is followed by its contents, siblings in
//! the chosen order. When only files are listed there is no tree to keep, so the order is over
//! all files at once (the largest files anywhere below, for instance).

mod order;
#[cfg(test)]
mod tests;

use super::find::format;
use super::find::walk::{self, Cut, Limits, Visit};
use crate::exec::outcome::{Failure, Outcome, QueryError, ToolErrorCode};
use crate::exec::page::ListPage;
use crate::exec::parse_query;
use crate::exec::sandbox::Sandbox;
use globset::{GlobBuilder, GlobMatcher};
use order::{Key, SortBy};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;

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
    if let Ok(meta) = std::fs::metadata(&root) {
        if !meta.is_dir() {
            return Err(QueryError::new(
                Failure::Invalid,
                ToolErrorCode::NotADirectory,
                format!("Path '{}' is not a directory", q.path.trim()),
            )
            .hint(format!(
                "Read it with localGetFileContent path='{}'",
                q.path.trim()
            ))
            .hint("To list the folder that holds it, pass the parent directory as path"));
        }
    }
    let max_depth = match (q.depth, q.recursive) {
        (Some(d), _) => Some(d),
        (None, true) => None,
        (None, false) => Some(1),
    };
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let mut items: Vec<Item> = Vec::new();
    let mut dir_keys: HashMap<String, Key> = HashMap::new();
    let mut hidden_skipped = 0usize;
    let report = walk::walk(sandbox, &root, &q.path, Limits::depth(max_depth), |entry| {
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
            .strip_prefix(&root)
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
    // With only files listed there is no tree shape to keep.
    let flat = q.files_only || !names.extensions.is_empty();
    order::sort(&mut items, q.sort_by, q.reverse, flat);

    let display = sandbox.display(&root);
    let summary = summary(&items, q.human_readable.unwrap_or(true));
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
    if items.is_empty() {
        let mut hints = vec![if q.pattern.is_some()
            || !names.extensions.is_empty()
            || q.files_only
            || q.directories_only
        {
            format!("No entry of '{display}' passed the filters (pattern, extension, filesOnly, directoriesOnly); loosen them")
        } else {
            format!("'{display}' has no entries to show")
        }];
        hints.extend(notes);
        if max_depth == Some(1) {
            hints.push("depth=2 or recursive=true also looks inside subdirectories".into());
        }
        return Ok(Outcome::empty(
            json!({"path": display, "entries": [], "summary": summary, "hints": hints}),
        ));
    }

    let list = ListPage::new(
        items.len(),
        q.entry_page_number.unwrap_or(1),
        q.entries_per_page.unwrap_or(DEFAULT_PER_PAGE),
    );
    let (page, per_page, total, total_pages) = (list.number, list.size, list.total, list.pages);
    let pagination = list.to_json("entriesPerPage", "totalEntries");
    if list.is_past_end() {
        let mut hints = vec![format!(
            "entryPageNumber={page} is past the last page: {total} entries make {total_pages} page(s) of {per_page}"
        )];
        hints.extend(notes);
        return Ok(Outcome::empty(
            json!({"path": display, "entries": [], "summary": summary, "pagination": pagination, "hints": hints}),
        ));
    }
    let slice = &items[list.range()];
    let human = q.human_readable.unwrap_or(true);
    let show_modified = q.show_file_last_modified.unwrap_or(true);
    let values = slice
        .iter()
        .map(|i| entry(i, q.details, human, show_modified))
        .collect();
    let window = format::window(
        values,
        q.char_offset,
        q.char_length,
        budget,
        "entriesPerPage",
    );

    let mut hints = Vec::new();
    if total_pages > 1 {
        hints.push(format!(
            "Page {page}/{total_pages} (showing {} of {total})",
            slice.len()
        ));
    }
    if list.has_more() {
        let next: Vec<String> = items[list.range().end..]
            .iter()
            .take(3)
            .map(shown_name)
            .collect();
        hints.push(format!(
            "Next: entryPageNumber={} (starts with: {}...)",
            page + 1,
            next.join(", ")
        ));
    }
    hints.extend(window.hints);
    hints.extend(notes);
    hints.extend(follow_ups(slice, &display, max_depth));
    let mut data = Map::new();
    data.insert("path".into(), json!(display));
    data.insert("entries".into(), Value::Array(window.items));
    data.insert("summary".into(), json!(summary));
    data.insert("pagination".into(), pagination);
    if let Some(chars) = window.pagination {
        data.insert("charPagination".into(), chars);
    }
    data.insert("hints".into(), json!(hints));
    Ok(Outcome::found(Value::Object(data)))
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

/// The name as listed: relative path, with a trailing `/` for directories.
fn shown_name(item: &Item) -> String {
    if item.kind == Kind::Dir {
        format!("{}/", item.rel)
    } else {
        item.rel.clone()
    }
}

fn entry(item: &Item, details: bool, human: bool, show_modified: bool) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(shown_name(item)));
    m.insert("type".into(), json!(item.kind.name()));
    let size = item.meta.len();
    m.insert(
        "size".into(),
        json!(if human {
            format::human_size(size)
        } else {
            size.to_string()
        }),
    );
    if show_modified {
        if let Ok(t) = item.meta.modified() {
            m.insert("modified".into(), json!(format::iso_time(t)));
        }
    }
    if details {
        m.insert(
            "permissions".into(),
            json!(format::rwx_mode(item.meta.mode())),
        );
    }
    Value::Object(m)
}

/// "37 entries (27 files, 10 dirs, 3.1MB)"; links and other kinds are named only when present.
fn summary(items: &[Item], human: bool) -> String {
    let count = |k: Kind| items.iter().filter(|i| i.kind == k).count();
    let bytes: u64 = items
        .iter()
        .filter(|i| i.kind == Kind::File)
        .map(|i| i.meta.len())
        .sum();
    let mut parts = vec![
        format::plural(count(Kind::File), "file", "files"),
        format::plural(count(Kind::Dir), "dir", "dirs"),
    ];
    if count(Kind::Link) > 0 {
        parts.push(format::plural(count(Kind::Link), "symlink", "symlinks"));
    }
    if count(Kind::Other) > 0 {
        parts.push(format::plural(count(Kind::Other), "other", "others"));
    }
    parts.push(if human {
        format::human_size(bytes)
    } else {
        format!("{bytes} bytes")
    });
    format!(
        "{} ({})",
        format::plural(items.len(), "entry", "entries"),
        parts.join(", ")
    )
}

/// How to use what was listed: paths for the other tools and where to look next.
fn follow_ups(slice: &[Item], display: &str, max_depth: Option<usize>) -> Vec<String> {
    let join = |rel: &str| {
        if display == "." {
            rel.to_string()
        } else {
            format!("{}/{rel}", display.trim_end_matches('/'))
        }
    };
    let mut hints = Vec::new();
    if display != "." {
        hints.push(format!(
            "Entry names are relative to '{display}'; join them to it for other tools' path"
        ));
    }
    if let Some(file) = slice.iter().find(|i| i.kind == Kind::File) {
        hints.push(format!(
            "Read a file with localGetFileContent path='{}'",
            join(&file.rel)
        ));
    }
    if let Some(dir) = slice.iter().find(|i| i.kind == Kind::Dir) {
        let deeper = if max_depth == Some(1) {
            " or depth=2 here"
        } else {
            ""
        };
        hints.push(format!(
            "Drill into a directory with path='{}'{deeper}",
            join(&dir.rel)
        ));
    }
    hints.push(format!("Search contents with localSearchCode path='{display}'; find files anywhere below by name, size or date with localFindFiles"));
    hints
}

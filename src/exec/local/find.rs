//! localFindFiles: find(1) semantics over the sandbox, implemented natively (upstream shelled
//! out to a `find` command line that GNU find rejects). Walks from `path` without following
//! links or honouring .gitignore, prunes `excludeDir`, keeps the entries that pass every
//! filter, sorts all of them, keeps the best `limit`, and pages the rest with file pages and,
//! when a page is still too long, character windows.
//!
//! Submodules: `walk` (the shared walker), `filters` and `parse` (the find tests and their
//! syntax), `format` (sizes, times, modes and windows shared with localViewStructure).

mod filters;
pub(super) mod format;
#[cfg(test)]
mod fuzz_tests;
mod parse;
#[cfg(test)]
mod tests;
pub(super) mod walk;

use crate::exec::outcome::{Outcome, QueryError};
use crate::exec::page::ListPage;
use crate::exec::parse_query;
use crate::exec::sandbox::Sandbox;
use filters::{type_letter, Filters};
use parse::RegexType;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::cmp::Ordering;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use walk::{Cut, Limits, Visit};

/// Entries kept when the query sets no limit.
const DEFAULT_LIMIT: usize = 1000;
const DEFAULT_PER_PAGE: usize = 20;
/// Matches held for sorting; past this the walk stops and says the result is partial.
const MAX_MATCHES: usize = 100_000;

/// The tool's parameters (validated against the catalog schema before they get here).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Query {
    path: String,
    max_depth: Option<usize>,
    min_depth: Option<usize>,
    name: Option<String>,
    iname: Option<String>,
    #[serde(default)]
    names: Vec<String>,
    path_pattern: Option<String>,
    regex: Option<String>,
    regex_type: Option<RegexType>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    empty: bool,
    modified_within: Option<String>,
    modified_before: Option<String>,
    accessed_within: Option<String>,
    size_greater: Option<String>,
    size_less: Option<String>,
    permissions: Option<String>,
    #[serde(default)]
    executable: bool,
    #[serde(default)]
    readable: bool,
    #[serde(default)]
    writable: bool,
    #[serde(default)]
    exclude_dir: Vec<String>,
    #[serde(default)]
    sort_by: SortBy,
    limit: Option<usize>,
    details: Option<bool>,
    files_per_page: Option<usize>,
    file_page_number: Option<usize>,
    char_offset: Option<usize>,
    char_length: Option<usize>,
    show_file_last_modified: Option<bool>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum SortBy {
    #[default]
    Modified,
    Size,
    Name,
    Path,
}

impl SortBy {
    fn describe(self) -> &'static str {
        match self {
            SortBy::Modified => "modification time, newest first",
            SortBy::Size => "size, largest first",
            SortBy::Name => "file name",
            SortBy::Path => "path",
        }
    }
}

/// One matching entry.
struct Found {
    display: String,
    name: String,
    meta: Metadata,
}

pub(crate) fn run(
    sandbox: &Sandbox,
    budget: usize,
    query: &Map<String, Value>,
) -> Result<Outcome, QueryError> {
    let q: Query = parse_query(query)?;
    let filters = Filters::compile(&q)?;
    let root = sandbox.resolve(&q.path)?;
    let mut found: Vec<Found> = Vec::new();
    let report = walk::walk(
        sandbox,
        &root,
        &q.path,
        Limits::depth(q.max_depth),
        |entry| {
            let rel = entry
                .path
                .strip_prefix(&root)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            if filters.excluded(entry, &rel) {
                return Visit::Prune;
            }
            let display = sandbox.display(&entry.path);
            if filters.matches(entry, &display, sandbox) {
                if found.len() >= MAX_MATCHES {
                    return Visit::Stop;
                }
                found.push(Found {
                    name: entry.name(),
                    display,
                    meta: entry.meta.clone(),
                });
            }
            Visit::Descend
        },
    )?;
    sort(&mut found, q.sort_by);
    let matched = found.len();
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    found.truncate(limit);
    let notes = walk_notes(filters.notes.clone(), &report);
    if found.is_empty() {
        return Ok(Outcome::empty(
            json!({"files": [], "hints": empty_hints(&q, report.protected, notes)}),
        ));
    }
    let kept = Kept {
        found,
        matched,
        limit,
        notes,
    };
    Ok(kept.answer(&q, budget))
}

/// What the walk left out: a cut for the match cap or for time, unreadable entries.
fn walk_notes(mut notes: Vec<String>, report: &walk::Report) -> Vec<String> {
    match report.cut {
        Some(Cut::Visitor) => notes.push(format!(
            "The walk stopped at {MAX_MATCHES} matches, so the results are partial; narrow path, maxDepth or the filters"
        )),
        Some(Cut::Deadline) | Some(Cut::TooMany) => notes.push(format!(
            "The walk stopped after {} entries to stay within time, so the results are partial; narrow path, set maxDepth or excludeDir",
            report.visited
        )),
        None => {}
    }
    if report.denied > 0 {
        notes.push(format!(
            "{} could not be read (permission denied) and were skipped",
            format::plural(report.denied, "entry", "entries")
        ));
    }
    notes
}

/// The sorted matches that were kept, out of `matched`, and the notes on what was left out.
struct Kept {
    found: Vec<Found>,
    matched: usize,
    limit: usize,
    notes: Vec<String>,
}

impl Kept {
    /// One page of matches, windowed to the budget, with where to go next.
    fn answer(self, q: &Query, budget: usize) -> Outcome {
        let list = ListPage::new(
            self.found.len(),
            q.file_page_number.unwrap_or(1),
            q.files_per_page.unwrap_or(DEFAULT_PER_PAGE),
        );
        let (page, per_page, total, total_pages) = (list.number, list.size, list.total, list.pages);
        let pagination = list.to_json("filesPerPage", "totalFiles");
        if list.is_past_end() {
            let mut hints = vec![format!(
                "filePageNumber={page} is past the last page: {total} entries make {total_pages} page(s) of {per_page}; use filePageNumber=1 to {total_pages}"
            )];
            hints.extend(self.notes);
            return Outcome::empty(json!({"files": [], "pagination": pagination, "hints": hints}));
        }
        let details = q.details.unwrap_or(true);
        let show_modified = q.show_file_last_modified.unwrap_or(true);
        let slice = &self.found[list.range()];
        let items: Vec<Value> = slice
            .iter()
            .map(|f| item(f, details, show_modified))
            .collect();
        let window = format::window(items, q.char_offset, q.char_length, budget, "filesPerPage");
        let mut hints = Vec::new();
        if total_pages > 1 {
            hints.push(format!(
                "Page {page}/{total_pages} (showing {} of {total})",
                slice.len()
            ));
            if page < total_pages {
                hints.push(format!("Next: filePageNumber={}", page + 1));
            }
        }
        hints.extend(window.hints);
        let (matched, limit) = (self.matched, self.limit);
        if matched > limit {
            hints.push(format!(
                "{matched} entries matched; the first {limit} by {} were kept (limit={limit}); narrow the filters or raise limit",
                q.sort_by.describe()
            ));
        }
        hints.extend(self.notes.iter().cloned());
        hints.extend(follow_ups(slice, q));
        let mut data = Map::new();
        data.insert("files".into(), Value::Array(window.items));
        data.insert("pagination".into(), pagination);
        if let Some(chars) = window.pagination {
            data.insert("charPagination".into(), chars);
        }
        data.insert("hints".into(), json!(hints));
        Outcome::found(Value::Object(data))
    }
}

/// Sorts by the chosen key; ties fall back to the path so pages are stable.
fn sort(found: &mut [Found], by: SortBy) {
    let by_path = |a: &Found, b: &Found| a.display.cmp(&b.display);
    found.sort_by(|a, b| {
        let key = match by {
            SortBy::Modified => b
                .meta
                .mtime()
                .cmp(&a.meta.mtime())
                .then(b.meta.mtime_nsec().cmp(&a.meta.mtime_nsec())),
            SortBy::Size => b.meta.len().cmp(&a.meta.len()),
            SortBy::Name => a.name.cmp(&b.name),
            SortBy::Path => Ordering::Equal,
        };
        key.then_with(|| by_path(a, b))
    });
}

/// The entry type in words, from find's letter.
fn type_name(meta: &Metadata) -> &'static str {
    match type_letter(meta) {
        'f' => "file",
        'd' => "directory",
        'l' => "symlink",
        'b' => "blockDevice",
        'c' => "charDevice",
        'p' => "fifo",
        's' => "socket",
        _ => "other",
    }
}

fn item(f: &Found, details: bool, show_modified: bool) -> Value {
    let mut m = Map::new();
    m.insert("path".into(), json!(f.display));
    m.insert("type".into(), json!(type_name(&f.meta)));
    if details {
        m.insert("size".into(), json!(f.meta.len()));
        m.insert(
            "sizeFormatted".into(),
            json!(format::human_size(f.meta.len())),
        );
        m.insert(
            "permissions".into(),
            json!(format::octal_mode(f.meta.mode())),
        );
    }
    if show_modified {
        if let Ok(t) = f.meta.modified() {
            m.insert("modified".into(), json!(format::iso_time(t)));
        }
    }
    Value::Object(m)
}

/// What to do with the entries just shown.
fn follow_ups(slice: &[Found], q: &Query) -> Vec<String> {
    let mut hints = Vec::new();
    if let Some(file) = slice.iter().find(|f| f.meta.is_file()) {
        hints.push(format!(
            "Read a match with localGetFileContent path='{}'",
            file.display
        ));
        hints.push(format!(
            "Search inside the files with localSearchCode path='{}'",
            q.path.trim()
        ));
    }
    if let Some(dir) = slice.iter().find(|f| f.meta.is_dir()) {
        hints.push(format!(
            "List a directory with localViewStructure path='{}'",
            dir.display
        ));
    }
    hints
}
/// The filters a query set, named as the agent wrote them, and the tips on each.
#[derive(Default)]
struct ActiveFilters {
    active: Vec<String>,
    tips: Vec<String>,
}

impl ActiveFilters {
    fn note(&mut self, set: bool, label: String, tip: &str) {
        if set {
            self.active.push(label);
            if !tip.is_empty() {
                self.tips.push(tip.to_string());
            }
        }
    }

    /// The filters on names and paths.
    fn note_names(&mut self, q: &Query) {
        let show = |v: &Option<String>| v.clone().unwrap_or_default();
        self.note(q.name.is_some(), format!("name='{}'", show(&q.name)), "name is case-sensitive; iname ignores case, and '*' is needed for partial names ('*config*')");
        self.note(q.iname.is_some(), format!("iname='{}'", show(&q.iname)), "");
        self.note(!q.names.is_empty(), format!("names={:?}", q.names), "");
        self.note(
            q.path_pattern.is_some(),
            format!("pathPattern='{}'", show(&q.path_pattern)),
            "pathPattern must match the whole path; start it with '*/' to match at any depth",
        );
        self.note(q.regex.is_some(), format!("regex='{}'", show(&q.regex)), "regex must match the whole path (a leading '.*' is added unless it starts with .*, / or ^)");
        self.note(q.kind.is_some(), format!("type={}", show(&q.kind)), "");
    }

    /// The filters on depth, times, sizes, permissions and excluded directories.
    fn note_limits(&mut self, q: &Query) {
        let show = |v: &Option<String>| v.clone().unwrap_or_default();
        let widen = "Widen the time window (modifiedWithin/modifiedBefore/accessedWithin)";
        let sizes = "Size filters round up to whole units as find does: sizeLess='1M' keeps only empty files; use '1024k'";
        self.note(
            q.max_depth.is_some(),
            format!("maxDepth={}", q.max_depth.unwrap_or(0)),
            "Raise maxDepth to look deeper",
        );
        self.note(
            q.min_depth.is_some(),
            format!("minDepth={}", q.min_depth.unwrap_or(0)),
            "",
        );
        self.note(q.empty, "empty=true".into(), "");
        self.note(
            q.modified_within.is_some(),
            format!("modifiedWithin={}", show(&q.modified_within)),
            widen,
        );
        self.note(
            q.modified_before.is_some(),
            format!("modifiedBefore={}", show(&q.modified_before)),
            widen,
        );
        self.note(
            q.accessed_within.is_some(),
            format!("accessedWithin={}", show(&q.accessed_within)),
            widen,
        );
        self.note(
            q.size_greater.is_some(),
            format!("sizeGreater={}", show(&q.size_greater)),
            sizes,
        );
        self.note(
            q.size_less.is_some(),
            format!("sizeLess={}", show(&q.size_less)),
            sizes,
        );
        self.note(q.permissions.is_some(), format!("permissions={}", show(&q.permissions)), "permissions without a prefix means exactly these bits; '-' means at least these, '/' any of these");
        self.note(
            q.executable || q.readable || q.writable,
            "executable/readable/writable".into(),
            "",
        );
        self.note(
            !q.exclude_dir.is_empty(),
            format!("excludeDir={:?}", q.exclude_dir),
            "",
        );
    }
}

/// Why nothing came back, and which filter to loosen first.
fn empty_hints(q: &Query, protected: usize, notes: Vec<String>) -> Vec<String> {
    let mut set = ActiveFilters::default();
    set.note_names(q);
    set.note_limits(q);
    let ActiveFilters { active, mut tips } = set;
    let mut hints = vec![if active.is_empty() {
        format!("Nothing was found under '{}'", q.path.trim())
    } else {
        format!(
            "Nothing under '{}' passed all of: {}",
            q.path.trim(),
            active.join(", ")
        )
    }];
    tips.dedup();
    hints.extend(tips);
    if active.len() > 1 {
        hints.push("Remove filters one at a time to see which one excludes everything".into());
    }
    if protected > 0 {
        hints.push(format!(
            "{} never listed (.git, .env, keys and other credentials)",
            format::plural(protected, "protected entry is", "protected entries are")
        ));
    }
    hints.extend(notes);
    hints.push("localViewStructure shows what the directory holds; localSearchCode finds files by their contents".into());
    hints
}

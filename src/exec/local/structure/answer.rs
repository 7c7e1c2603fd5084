//! The answer of localViewStructure once the entries are collected and sorted: the page of
//! entries (then a character window over it), the summary line, and the hints on what was
//! left out and where to look next.

use super::{Item, Kind, Query, DEFAULT_PER_PAGE};
use crate::exec::local::find::format;
use crate::exec::outcome::Outcome;
use crate::exec::page::ListPage;
use serde_json::{json, Map, Value};
use std::os::unix::fs::MetadataExt;

/// What the walk found, sorted, and how it was asked for.
pub(super) struct Listing {
    /// The listed directory as the agent named it.
    pub display: String,
    /// A name filter or a kind filter was set, so an empty listing may be the filters' doing.
    pub filtered: bool,
    pub items: Vec<Item>,
    /// What the walk left out.
    pub notes: Vec<String>,
    pub max_depth: Option<usize>,
}

impl Listing {
    pub(super) fn answer(self, q: &Query, budget: usize) -> Outcome {
        let summary = summary(&self.items, q.human_readable.unwrap_or(true));
        if self.items.is_empty() {
            return self.nothing_listed(summary);
        }
        let list = ListPage::new(
            self.items.len(),
            q.entry_page_number.unwrap_or(1),
            q.entries_per_page.unwrap_or(DEFAULT_PER_PAGE),
        );
        let pagination = list.to_json("entriesPerPage", "totalEntries");
        if list.is_past_end() {
            let mut hints = vec![format!(
                "entryPageNumber={} is past the last page: {} entries make {} page(s) of {}",
                list.number, list.total, list.pages, list.size
            )];
            hints.extend(self.notes);
            return Outcome::empty(
                json!({"path": self.display, "entries": [], "summary": summary, "pagination": pagination, "hints": hints}),
            );
        }
        self.page(q, budget, list, summary, pagination)
    }

    fn nothing_listed(self, summary: String) -> Outcome {
        let display = &self.display;
        let mut hints = vec![if self.filtered {
            format!("No entry of '{display}' passed the filters (pattern, extension, filesOnly, directoriesOnly); loosen them")
        } else {
            format!("'{display}' has no entries to show")
        }];
        hints.extend(self.notes);
        if self.max_depth == Some(1) {
            hints.push("depth=2 or recursive=true also looks inside subdirectories".into());
        }
        Outcome::empty(json!({"path": display, "entries": [], "summary": summary, "hints": hints}))
    }

    /// One page of entries, windowed to the budget, with where to go next.
    fn page(
        self,
        q: &Query,
        budget: usize,
        list: ListPage,
        summary: String,
        pagination: Value,
    ) -> Outcome {
        let slice = &self.items[list.range()];
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
        if list.pages > 1 {
            hints.push(format!(
                "Page {}/{} (showing {} of {})",
                list.number,
                list.pages,
                slice.len(),
                list.total
            ));
        }
        if list.has_more() {
            let next: Vec<String> = self.items[list.range().end..]
                .iter()
                .take(3)
                .map(shown_name)
                .collect();
            hints.push(format!(
                "Next: entryPageNumber={} (starts with: {}...)",
                list.number + 1,
                next.join(", ")
            ));
        }
        hints.extend(window.hints);
        hints.extend(self.notes.iter().cloned());
        hints.extend(follow_ups(slice, &self.display, self.max_depth));
        let mut data = Map::new();
        data.insert("path".into(), json!(self.display));
        data.insert("entries".into(), Value::Array(window.items));
        data.insert("summary".into(), json!(summary));
        data.insert("pagination".into(), pagination);
        if let Some(chars) = window.pagination {
            data.insert("charPagination".into(), chars);
        }
        data.insert("hints".into(), json!(hints));
        Outcome::found(Value::Object(data))
    }
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

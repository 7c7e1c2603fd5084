//! The order of a localViewStructure listing. Siblings compare by the chosen key (name; time,
//! newest first, like ls -t; size, largest first; extension, like ls -X), ties by name, and
//! `reverse` flips that comparison. In a tree listing a directory always precedes its own
//! contents, whatever the order of siblings; a flat listing compares entries directly.

use super::Item;
use serde::Deserialize;
use std::cmp::Ordering;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum SortBy {
    Name,
    Size,
    #[default]
    Time,
    Extension,
}

/// What one path component is sorted by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key {
    name: String,
    mtime: (i64, i64),
    size: u64,
    ext: String,
}

impl Key {
    pub(super) fn new(name: &str, meta: &Metadata) -> Key {
        Key {
            name: name.to_string(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            size: meta.len(),
            ext: extension(name).unwrap_or("").to_lowercase(),
        }
    }
}

/// The text after the last dot, if the name has one that does not start it (`.bashrc` has
/// none, `archive.tar.gz` has `gz`).
pub(super) fn extension(name: &str) -> Option<&str> {
    match name.rfind('.') {
        Some(i) if i > 0 && i + 1 < name.len() => Some(&name[i + 1..]),
        _ => None,
    }
}

fn siblings(a: &Key, b: &Key, by: SortBy, reverse: bool) -> Ordering {
    let by_name = a.name.as_bytes().cmp(b.name.as_bytes());
    let order = match by {
        SortBy::Name => by_name,
        SortBy::Time => b.mtime.cmp(&a.mtime).then(by_name),
        SortBy::Size => b.size.cmp(&a.size).then(by_name),
        SortBy::Extension => a.ext.cmp(&b.ext).then(by_name),
    };
    if reverse {
        order.reverse()
    } else {
        order
    }
}

/// Sorts the listing in place; see the module comment for tree versus flat order.
pub(super) fn sort(items: &mut [Item], by: SortBy, reverse: bool, flat: bool) {
    if flat {
        // Names shown in a flat listing are paths, so "name" orders by the path.
        items.sort_by(|a, b| {
            let order = match (by, a.chain.last(), b.chain.last()) {
                (SortBy::Name, _, _) | (_, None, _) | (_, _, None) => {
                    a.rel.as_bytes().cmp(b.rel.as_bytes())
                }
                (_, Some(ka), Some(kb)) => {
                    siblings(ka, kb, by, false).then_with(|| a.rel.cmp(&b.rel))
                }
            };
            if reverse {
                order.reverse()
            } else {
                order
            }
        });
        return;
    }
    items.sort_by(|a, b| {
        for (ka, kb) in a.chain.iter().zip(&b.chain) {
            if ka.name != kb.name {
                return siblings(ka, kb, by, reverse);
            }
        }
        // One is an ancestor of the other (or they are the same): the directory first.
        a.chain
            .len()
            .cmp(&b.chain.len())
            .then_with(|| a.rel.cmp(&b.rel))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_ignore_leading_dots() {
        assert_eq!(extension("main.rs"), Some("rs"));
        assert_eq!(extension("archive.tar.gz"), Some("gz"));
        assert_eq!(extension(".bashrc"), None);
        assert_eq!(extension("Makefile"), None);
        assert_eq!(extension("odd."), None);
    }
}

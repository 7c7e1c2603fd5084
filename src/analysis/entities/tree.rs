//! Where in a file tree a request points and how far down: a path it calls a directory
//! ("api/proto/", "the .github folder") is a directory, not a file, and "two levels deep",
//! "-L 2" or "depth 3" is a depth. A tool that lists or walks directories takes both; one
//! that reads a file takes neither, though it takes a path.

use super::{ends_value, trim_start, Entity, EntityKind};
use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// Words that call the path next to them a directory.
const DIRECTORY_WORDS: &[&str] = &["folder", "directory", "dir", "subfolder", "subdirectory"];

/// Number words a depth is said with.
const NUMBER_WORDS: &str = "one|two|three|four|five|six|seven|eight|nine|ten";

fn depth_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(&format!(
            r"(?i)\b(?:\d+|{NUMBER_WORDS})\s+(?:levels?|layers?)(?:\s+deep)?\b|\b(?:max(?:imum)?\s+)?depth\s+(?:of\s+)?\d+\b|(?:^|\s)(?:-L\s*\d+|-maxdepth\s+\d+|--max-depth[=\s]\d+)\b"
        ))
        .expect("depth pattern compiles")
    })
}

fn directory_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(r#"(?:^|[\s(`'"])(\.?[\w@+-][\w@.+-]*/)"#).expect("directory pattern compiles")
    })
}

/// One-segment directories ("docs/", ".github/"): a word with a trailing slash names a
/// directory (longer paths are found with the other paths).
pub(super) fn directories(text: &str) -> Vec<Range<usize>> {
    directory_pattern()
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .filter(|m| ends_value(text, m.end(), ")`'\",;:!?"))
        .filter(|m| m.as_str().chars().any(char::is_alphabetic))
        .map(|m| m.range())
        .collect()
}

/// Depths in `text`, as spans.
pub(super) fn depths(text: &str) -> Vec<Range<usize>> {
    depth_pattern()
        .find_iter(text)
        .map(|m| trim_start(text, m.range()))
        .collect()
}

/// Paths the text calls directories become directories: one that ends with a slash, or
/// that a directory word follows or precedes ("the docs/api folder", "in directory src").
pub(super) fn mark_directories(text: &str, entities: &mut [Entity]) {
    for e in entities.iter_mut().filter(|e| e.kind == EntityKind::Path) {
        let value = &text[e.span.clone()];
        let next = text[e.span.end..].split_whitespace().next();
        let previous = text[..e.span.start].split_whitespace().next_back();
        let called = |w: Option<&str>| {
            w.map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .is_some_and(|w| DIRECTORY_WORDS.contains(&w.as_str()))
        };
        if value.ends_with('/') || value.ends_with('\\') || called(next) || called(previous) {
            e.kind = EntityKind::Directory;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::entities;
    use super::*;

    fn found(text: &str, kind: EntityKind) -> Vec<&str> {
        entities(text)
            .into_iter()
            .filter(|e| e.kind == kind)
            .map(|e| &text[e.span])
            .collect()
    }

    #[test]
    fn a_path_called_a_directory_is_one() {
        let text = "list the .proto files directly inside api/proto/";
        assert_eq!(found(text, EntityKind::Directory), vec!["api/proto/"]);
        let text = "what's inside the .github/ folder of my project?";
        assert_eq!(found(text, EntityKind::Directory), vec![".github/"]);
        let text = "tree -L 2 of docs/ for the README";
        assert_eq!(found(text, EntityKind::Directory), vec!["docs/"]);
        let text = "compare docs/ src/, not api/proto/x";
        assert_eq!(found(text, EntityKind::Directory), vec!["docs/", "src/"]);
        let text = "tree of the docs/api folder";
        assert_eq!(found(text, EntityKind::Directory), vec!["docs/api"]);
    }

    #[test]
    fn a_file_path_stays_a_path() {
        let text = "open src/config.ts and docs/api.md";
        assert_eq!(found(text, EntityKind::Directory), Vec::<&str>::new());
        assert_eq!(
            found(text, EntityKind::Path),
            vec!["src/config.ts", "docs/api.md"]
        );
    }

    #[test]
    fn depths_are_said_several_ways() {
        for (text, depth) in [
            ("show terraform/modules/ two levels deep", "two levels deep"),
            ("tree -L 2 of docs/", "-L 2"),
            ("list it to a depth of 3", "depth of 3"),
            ("find -maxdepth 1 in here", "-maxdepth 1"),
            ("3 levels of the tree", "3 levels"),
        ] {
            assert_eq!(found(text, EntityKind::Depth), vec![depth], "{text}");
        }
        for text in [
            "the depth of the ocean",
            "level up my skills",
            "a 3-level cache",
        ] {
            assert_eq!(found(text, EntityKind::Depth), Vec::<&str>::new(), "{text}");
        }
    }
}

//! Package ecosystems: the words that name them, the words after "package" that do not
//! name a package, and the registries a request names as the place to look ("an npm library
//! for parsing cron", "on PyPI"). A registry named without a package is a value too: tools
//! that take an ecosystem or registry to query fit it.

use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// Package ecosystems and the words that name them.
const ECOSYSTEMS: &[(&str, &[&str])] = &[
    (
        "npm",
        &["npm", "node", "yarn", "pnpm", "javascript", "typescript"],
    ),
    ("pypi", &["pypi", "pip", "python", "poetry", "conda"]),
    ("crates", &["crate", "crates", "cargo", "rust"]),
    ("go", &["go", "golang"]),
    ("maven", &["maven", "gradle", "java"]),
    ("rubygems", &["gem", "rubygems", "ruby", "bundler"]),
    ("nuget", &["nuget", ".net", "dotnet"]),
];

/// Words that follow "package" or "library" without naming one ("a library for parsing
/// cron", "the package that exports it", "a package to upload files").
const NOT_PACKAGE_NAMES: &[&str] = &[
    "for", "to", "that", "which", "with", "in", "on", "of", "from", "the", "a", "an", "and", "or",
    "is", "are", "was", "this", "these", "those", "it", "its", "by", "as", "at", "into", "like",
    "than", "but", "if", "when", "where", "who", "whose", "i", "we", "you", "my", "our", "manager",
    "managers", "registry", "version", "versions", "name", "names", "json", "lock", "file",
    "files", "instead", "so", "has", "have", "does", "do", "can", "could", "should", "would",
    "will", "used", "using", "exports", "level",
];

/// Whether the word after "package" or "library" names one.
pub(super) fn is_package_name(word: &str) -> bool {
    !NOT_PACKAGE_NAMES.contains(&word.to_ascii_lowercase().as_str())
}

/// The ecosystem a word names ("npm", "python", "crates").
pub(super) fn ecosystem_of(word: &str) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    ECOSYSTEMS
        .iter()
        .find(|(_, words)| words.contains(&w.as_str()))
        .map(|(name, _)| *name)
}

/// The ecosystem the text names anywhere ("on PyPI", "my Rust crate"), if exactly one.
pub fn ecosystem_named(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '.')
        .collect();
    let named: Vec<&'static str> = ECOSYSTEMS
        .iter()
        .filter(|(_, ws)| ws.iter().any(|w| words.contains(w)))
        .map(|(name, _)| *name)
        .collect();
    (named.len() == 1).then(|| named[0])
}

/// Names of package registries, not of languages: "a Python script" names no registry, "a
/// PyPI package" does.
fn registry_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| {
        Regex::new(
            r"(?i)\b(?:npm|pypi|crates\.io|rubygems|nuget|packagist|hex\.pm|cran|maven central)\b",
        )
        .expect("registry pattern compiles")
    })
}

/// Spans of the registries `text` names.
pub(super) fn registries(text: &str) -> Vec<Range<usize>> {
    registry_pattern()
        .find_iter(text)
        .map(|m| m.range())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registries_are_named_languages_are_not() {
        let text = "is there an npm library for this, or a PyPI one? not a Python script";
        let found: Vec<&str> = registries(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, vec!["npm", "PyPI"]);
        assert_eq!(ecosystem_of("Rust"), Some("crates"));
        assert!(!is_package_name("for"));
        assert!(is_package_name("left-pad"));
    }
}

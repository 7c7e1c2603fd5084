//! Declaration-looking lines, the heart of the text fallback: whether a line declares a name
//! (`function X`, `class X`, `def X`, `fn X`, `func (r *T) X`, `const X =`, `X = () =>`, a
//! method header `X(...) {`) and of what kind. Language-agnostic regular expressions over a
//! line whose strings and comments are blanked (`resolve::mask`).

use regex::Regex;
use std::sync::OnceLock;

/// A constant pattern, compiled once.
pub(crate) fn regex(
    cell: &'static OnceLock<Option<Regex>>,
    pattern: &str,
) -> Option<&'static Regex> {
    // The patterns are constants; one that failed to compile is a bug the unit tests catch.
    cell.get_or_init(|| Regex::new(pattern).ok()).as_ref()
}

/// A declaration keyword right before the name: `function X`, `class X`, `def X`, `fn X`,
/// `func (r *T) X`, `const X`, `#define X` ...
fn keyword_before() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    regex(
        &R,
        r"(?:^|[^\w$])(function\*?|class|interface|type|enum|namespace|module|mod|def|defp|defmodule|defn|defmacro|fn|fun|func|sub|proc|struct|trait|union|typealias|protocol|object|record|val|var|let|const|static|local|define|macro_rules!)\s+(?:\([^)]*\)\s*)?$",
    )
}

/// Modifiers and at most one type word before a method name at the start of a line.
fn method_prefix() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    regex(
        &R,
        r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:export|default|public|private|protected|internal|static|async|override|abstract|readonly|final|virtual|get|set|synchronized|inline|suspend|open|unsafe|extern|pub(?:\([^)]*\))?)\s+)*(?:([\w$.<>\[\],?]+)[*&]*\s+[*&]*)?$",
    )
}

/// Parameters then a body brace (optionally a return type or `throws`): a method header.
fn method_suffix() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    regex(
        &R,
        r"^\s*(?:<[^>]*>)?\s*\([^;]*\)\s*(?:->\s*[^{;]+|:\s*[^{;=]+)?\s*(?:throws\s+[\w.,\s]+)?\{",
    )
}

/// `X = function`, `X = (a) =>`, `X: async (a) =>`, `X = a =>`: a function assigned to a name.
fn assigned_function() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    regex(
        &R,
        r"^\s*(?::\s*[^=]+)?[:=]\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::\s*[^=]+)?=>|[\w$]+\s*=>)",
    )
}

/// Words that start statements, never a return type before a method name.
const NOT_A_TYPE: &[&str] = &[
    "return", "await", "new", "yield", "throw", "case", "else", "typeof", "delete", "in", "of",
    "echo", "print", "do", "go", "defer",
];

/// The kind of declaration `masked` (a line with strings and comments blanked) makes of the
/// name at `byte..byte+len`, if it looks like one.
pub(crate) fn declaration_kind(masked: &str, byte: usize, len: usize) -> Option<&'static str> {
    let (before, after) = (&masked[..byte], &masked[byte + len..]);
    if let Some(caps) = keyword_before().and_then(|r| r.captures(before)) {
        let keyword = caps.get(1).map_or("", |m| m.as_str());
        return Some(match keyword.trim_end_matches('*') {
            "function" | "def" | "defp" | "defn" | "fn" | "fun" | "func" | "sub" | "proc"
            | "defmacro" | "macro_rules!" => "function",
            "class" | "object" => "class",
            "interface" | "protocol" | "trait" => "interface",
            "type" | "typealias" => "type",
            "enum" => "enum",
            "struct" | "record" | "union" => "struct",
            "namespace" | "module" | "mod" | "defmodule" => "module",
            // `const f = () => ...` declares a function.
            _ if assigned_function().is_some_and(|r| r.is_match(after)) => "function",
            _ => "variable",
        });
    }
    if assigned_function().is_some_and(|r| r.is_match(after)) {
        return Some("function");
    }
    if let Some(caps) = method_prefix().and_then(|r| r.captures(before)) {
        let type_word = caps.get(1).map_or("", |m| m.as_str());
        if !NOT_A_TYPE.contains(&type_word) && method_suffix().is_some_and(|r| r.is_match(after)) {
            return Some("method");
        }
    }
    // `X = ...` at the start of a line: a module-level variable (Python, shell, JS globals).
    let after = after.trim_start();
    if before.is_empty() && after.starts_with('=') && !after.starts_with("==") {
        return Some("variable");
    }
    None
}

/// The function-like declaration on a masked line: its name's byte offset and the name.
pub(crate) fn declared_function(masked: &str) -> Option<(usize, &str)> {
    static NAMES: OnceLock<Option<Regex>> = OnceLock::new();
    let names = regex(&NAMES, r"[A-Za-z_$][\w$]*")?;
    names
        .find_iter(masked)
        .filter(|m| {
            !matches!(
                m.as_str(),
                "if" | "for"
                    | "while"
                    | "switch"
                    | "catch"
                    | "with"
                    | "foreach"
                    | "elif"
                    | "function"
            )
        })
        .find(|m| {
            matches!(
                declaration_kind(masked, m.start(), m.len()),
                Some("function" | "method")
            )
        })
        .map(|m| (m.start(), m.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::lsp::resolve::{self, Syntax, C_LIKE, HASH, RUST};

    fn kind(line: &str, name: &str, syntax: &Syntax) -> Option<&'static str> {
        let byte = resolve::occurrences(line, name, syntax)[0];
        declaration_kind(&resolve::mask(line, syntax), byte, name.len())
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(
            keyword_before().is_some() && method_prefix().is_some() && method_suffix().is_some()
        );
        assert!(assigned_function().is_some());
    }

    #[test]
    fn declarations_are_told_from_uses() {
        let c = &C_LIKE;
        assert_eq!(
            kind(
                "export function computeScore(e: E[]): number {",
                "computeScore",
                c
            ),
            Some("function")
        );
        assert_eq!(
            kind("export async function* gen() {", "gen", c),
            Some("function")
        );
        assert_eq!(
            kind("export default class Ledger {", "Ledger", c),
            Some("class")
        );
        assert_eq!(
            kind("export const total = 3;", "total", c),
            Some("variable")
        );
        assert_eq!(
            kind("const handler = async (req) => {", "handler", c),
            Some("function")
        );
        assert_eq!(kind("  total(): number {", "total", c), Some("method"));
        assert_eq!(
            kind(
                "  public static int total(int a) throws IOException {",
                "total",
                c
            ),
            Some("method")
        );
        assert_eq!(
            kind("func (l *Ledger) Total() int {", "Total", c),
            Some("function")
        );
        assert_eq!(kind("type Entry struct {", "Entry", c), Some("type"));
        assert_eq!(
            kind("pub(crate) fn resolve<T>(x: T) -> u8 {", "resolve", &RUST),
            Some("function")
        );
        assert_eq!(kind("def helper(x):", "helper", &HASH), Some("function"));
        assert_eq!(kind("LIMIT = 10", "LIMIT", &HASH), Some("variable"));
        assert_eq!(kind("#define LIMIT 10", "LIMIT", c), Some("variable"));
        for use_ in [
            "  const s = computeScore(entries);",
            "  return computeScore(x) {",
            "if (computeScore(a) == 1) {",
            "computeScore(a);",
        ] {
            assert_eq!(kind(use_, "computeScore", c), None, "{use_}");
        }
        assert_eq!(kind("x == LIMIT", "LIMIT", &HASH), None);
    }
}

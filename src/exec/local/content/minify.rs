//! Conservative shrinking of matchString extracts: whole-line comments go (c-style `//` and
//! `/* ... */` blocks, or `#` lines, by file type) and runs of blank lines become one. Nothing
//! that shares a line with code is touched, a comment block is removed only when it opens and
//! closes inside the extract, and a line that matched is always kept, even if it is a comment.

use std::path::Path;

/// How a file type writes comments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `/* */` blocks, and `//` lines when `line` is set.
    CFamily { line: bool },
    /// `#` lines.
    Hash,
    /// Unknown or comment-free: only blank runs are collapsed.
    Plain,
}

/// The comment style of a file, from its extension or well-known name.
pub(crate) fn style_for(path: &Path) -> Style {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if matches!(
        name.as_str(),
        "dockerfile" | "makefile" | "gnumakefile" | "rakefile" | "gemfile" | "procfile"
    ) {
        return Style::Hash;
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" | "cs" | "java" | "js" | "jsx"
        | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "go" | "rs" | "swift" | "kt" | "kts"
        | "scala" | "sc" | "dart" | "php" | "groovy" | "gradle" | "scss" | "less" | "proto"
        | "zig" | "sol" | "m" | "mm" | "vue" | "svelte" => Style::CFamily { line: true },
        "css" => Style::CFamily { line: false },
        "py" | "pyi" | "rb" | "sh" | "bash" | "zsh" | "fish" | "yaml" | "yml" | "toml" | "pl"
        | "pm" | "r" | "cmake" | "conf" | "cfg" | "tf" | "hcl" | "nix" | "ex" | "exs" | "cr"
        | "jl" | "ps1" | "mk" | "dockerfile" => Style::Hash,
        _ => Style::Plain,
    }
}

/// One line of an extract: its 1-based number, its text, and whether it matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    pub number: usize,
    pub text: &'a str,
    pub matched: bool,
}

/// The lines of one contiguous range with comment lines and repeated blank lines dropped.
pub(crate) fn shrink<'a>(lines: &[Line<'a>], style: Style) -> Vec<Line<'a>> {
    let mut keep = vec![true; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].text.trim();
        match style {
            Style::CFamily { line } => {
                if line && t.starts_with("//") && !lines[i].matched {
                    keep[i] = false;
                } else if t.starts_with("/*") {
                    if let Some(end) = block_end(lines, i) {
                        if !lines[i..=end].iter().any(|l| l.matched) {
                            keep[i..=end].iter_mut().for_each(|k| *k = false);
                        }
                        i = end;
                    }
                }
            }
            Style::Hash => {
                let shebang = lines[i].number == 1 && t.starts_with("#!");
                if t.starts_with('#') && !shebang && !lines[i].matched {
                    keep[i] = false;
                }
            }
            Style::Plain => {}
        }
        i += 1;
    }
    let mut out: Vec<Line<'a>> = Vec::with_capacity(lines.len());
    for (l, k) in lines.iter().zip(keep) {
        let blank = l.text.trim().is_empty();
        let after_blank = out.last().is_some_and(|p| p.text.trim().is_empty());
        if k && !(blank && after_blank && !l.matched) {
            out.push(l.clone());
        }
    }
    out
}

/// The index of the line that closes the block comment opened on line `start`, when the
/// comment ends its line (no code after `*/`) inside the extract.
fn block_end(lines: &[Line<'_>], start: usize) -> Option<usize> {
    // Skip the opening "/*" so "/*/" is not read as open-and-close.
    let first = lines[start].text.trim_start();
    let mut rest = &first[2..];
    let mut i = start;
    loop {
        if let Some(pos) = rest.find("*/") {
            return rest[pos + 2..].trim().is_empty().then_some(i);
        }
        i += 1;
        rest = lines.get(i)?.text;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines<'a>(text: &'a str, matched: &[usize]) -> Vec<Line<'a>> {
        text.lines()
            .enumerate()
            .map(|(i, t)| Line {
                number: i + 1,
                text: t,
                matched: matched.contains(&(i + 1)),
            })
            .collect()
    }

    fn texts(ls: &[Line<'_>]) -> Vec<String> {
        ls.iter().map(|l| l.text.to_string()).collect()
    }

    #[test]
    fn c_style_comment_lines_and_blocks_go_code_stays() {
        let src = "/** Doc\n * more\n */\nconst a = 1; // trailing stays\n// gone\n\n\n\nlet b = '/* not a comment start';\n/* open */ code();\nx = 1; /* tail\n  still */\n";
        let out = shrink(&lines(src, &[]), Style::CFamily { line: true });
        assert_eq!(
            texts(&out),
            [
                "const a = 1; // trailing stays",
                "",
                "let b = '/* not a comment start';",
                "/* open */ code();",
                "x = 1; /* tail",
                "  still */"
            ]
        );
    }

    #[test]
    fn matched_lines_and_unclosed_blocks_are_kept() {
        let src = "// TODO: keep me\n/* TODO inside\n  block */\n/* never closed\nstill comment";
        let out = shrink(&lines(src, &[1, 2]), Style::CFamily { line: true });
        assert_eq!(
            texts(&out),
            [
                "// TODO: keep me",
                "/* TODO inside",
                "  block */",
                "/* never closed",
                "still comment"
            ]
        );
    }

    #[test]
    fn hash_comments_go_but_not_the_shebang() {
        let src = "#!/usr/bin/env python\n# comment\nx = 1  # trailing\n    # indented\ny = '#'\n";
        assert_eq!(
            texts(&shrink(&lines(src, &[]), Style::Hash)),
            ["#!/usr/bin/env python", "x = 1  # trailing", "y = '#'"]
        );
        assert_eq!(shrink(&lines(src, &[]), Style::Plain).len(), 5);
    }

    #[test]
    fn styles_follow_the_file_type() {
        assert_eq!(
            style_for(Path::new("a/b.ts")),
            Style::CFamily { line: true }
        );
        assert_eq!(
            style_for(Path::new("site.CSS")),
            Style::CFamily { line: false }
        );
        assert_eq!(style_for(Path::new("conf/app.yaml")), Style::Hash);
        assert_eq!(style_for(Path::new("Dockerfile")), Style::Hash);
        assert_eq!(style_for(Path::new("README.md")), Style::Plain);
    }
}

//! Symbol position resolution: turns the agent's `symbolName` + 1-based `lineHint` (+
//! `orderHint`) into the exact 0-based position a language server needs. Agents take line
//! numbers from search results that may be a line or two off, so after the exact line the
//! nearby lines are tried, ±1 up to ±5, alternating above and below. Occurrences inside string
//! literals and line comments never count: a name mentioned in a log message is not the symbol.

use crate::exec::outcome::{Failure, QueryError, ToolErrorCode};
use crate::exec::text::split_lines;

/// How far from `lineHint` a symbol is looked for.
pub(crate) const SEARCH_RADIUS: usize = 5;

/// What hides code on a line: line-comment openers and string quotes of one language.
/// Block comments are not tracked (a line does not know it is inside one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Syntax {
    pub(crate) line_comments: &'static [&'static str],
    pub(crate) quotes: &'static [char],
}

/// JavaScript, TypeScript, Go, Java, C and most other brace languages.
pub(crate) const C_LIKE: Syntax = Syntax {
    line_comments: &["//"],
    quotes: &['"', '\'', '`'],
};
/// Rust: `'` opens lifetimes far more often than char literals, so it is not a quote.
pub(crate) const RUST: Syntax = Syntax {
    line_comments: &["//"],
    quotes: &['"'],
};
/// Python, Ruby, shell, YAML, TOML, Elixir and other `#`-comment languages.
pub(crate) const HASH: Syntax = Syntax {
    line_comments: &["#"],
    quotes: &['"', '\''],
};
/// Lua, SQL, Haskell.
pub(crate) const DASH: Syntax = Syntax {
    line_comments: &["--"],
    quotes: &['"', '\''],
};
/// Clojure and other Lisps.
pub(crate) const LISP: Syntax = Syntax {
    line_comments: &[";"],
    quotes: &['"'],
};

/// A resolved position. `line` is 0-based; `character` and `end_character` count UTF-16 code
/// units (the LSP default encoding); `byte` is the byte offset in the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub(crate) line: usize,
    pub(crate) byte: usize,
    pub(crate) character: usize,
    pub(crate) end_character: usize,
}

/// Characters that continue an identifier (`$` for JavaScript and PHP).
pub(crate) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// `line` with string-literal contents and comments replaced by spaces of the same byte
/// length, so offsets found in the result are offsets in `line`. An unclosed string runs to
/// the end of the line. `${...}` inside a backquoted template is code.
pub(crate) fn mask(line: &str, syntax: &Syntax) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    // Brace depth inside `${...}` of a template literal; 0 outside one.
    let mut template_code = 0usize;
    let mut opening = false;
    for (i, c) in line.char_indices() {
        let blank = |out: &mut String| out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        match quote {
            Some('`') if template_code > 0 => {
                match c {
                    '{' => template_code += 1,
                    '}' => template_code -= 1,
                    _ => {}
                }
                if template_code == 0 {
                    blank(&mut out);
                } else {
                    out.push(c);
                }
            }
            Some(_) if opening => {
                // The `{` of `${`.
                opening = false;
                template_code = 1;
                out.push(' ');
            }
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                } else if q == '`' && c == '$' && line[i + 1..].starts_with('{') {
                    opening = true;
                }
                blank(&mut out);
            }
            None => {
                if syntax
                    .line_comments
                    .iter()
                    .any(|m| line[i..].starts_with(m))
                {
                    out.extend(std::iter::repeat_n(' ', line.len() - i));
                    return out;
                }
                if syntax.quotes.contains(&c) {
                    quote = Some(c);
                    blank(&mut out);
                } else {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// Byte offsets of the whole-word occurrences of `symbol` in `line` that are code, not
/// string or comment.
pub(crate) fn occurrences(line: &str, symbol: &str, syntax: &Syntax) -> Vec<usize> {
    if symbol.is_empty() || !line.contains(symbol) {
        return Vec::new();
    }
    let code = mask(line, syntax);
    let starts_word = symbol.chars().next().is_some_and(is_word);
    let ends_word = symbol.chars().next_back().is_some_and(is_word);
    code.match_indices(symbol)
        .map(|(i, _)| i)
        // A symbol with spaces can match the spaces that blank a string's multi-byte
        // characters, in the middle of one of them: only where the line itself holds the
        // symbol is it an occurrence (and its offsets are the line's character boundaries).
        .filter(|&i| line.get(i..i + symbol.len()) == Some(symbol))
        .filter(|&i| {
            let before = code[..i].chars().next_back();
            let after = code[i + symbol.len()..].chars().next();
            let joined_before = starts_word && before.is_some_and(is_word);
            let joined_after = ends_word && after.is_some_and(is_word);
            !(joined_before || joined_after)
        })
        .collect()
}

/// UTF-16 length of `s`, the unit of LSP columns.
pub(crate) fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Byte offset in `line` of UTF-16 column `col` (clamped to the line).
pub(crate) fn byte_of_utf16(line: &str, col: usize) -> usize {
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= col {
            return i;
        }
        units += c.len_utf16();
    }
    line.len()
}

fn at(lines: &[&str], line: usize, byte: usize, symbol: &str) -> Resolved {
    let text = lines[line];
    let character = utf16_len(&text[..byte]);
    Resolved {
        line,
        byte,
        character,
        end_character: character + utf16_len(symbol),
    }
}

/// Finds `symbol` at or near 1-based `line_hint`: the `order_hint`-th code occurrence on that
/// line, else the first one on the nearest line within ±5 (above first at each distance).
pub(crate) fn resolve(
    text: &str,
    symbol: &str,
    line_hint: usize,
    order_hint: usize,
    syntax: &Syntax,
) -> Result<Resolved, QueryError> {
    let lines = split_lines(text);
    if line_hint == 0 || line_hint > lines.len() {
        return Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::LineOutOfRange,
            format!(
                "Line {line_hint} is out of range (file has {} lines)",
                lines.len()
            ),
        )
        .hint(format!(
            "lineHint is 1-based and must be between 1 and {}",
            lines.len().max(1)
        ))
        .hint("Take lineHint from a localSearchCode match in this same file"));
    }
    let target = line_hint - 1;
    let here = occurrences(lines[target], symbol, syntax);
    if let Some(&byte) = here.get(order_hint) {
        return Ok(at(&lines, target, byte, symbol));
    }
    if !here.is_empty() {
        // Looking elsewhere would silently answer about a different occurrence.
        return Err(QueryError::new(
            Failure::Invalid,
            ToolErrorCode::OrderHintOutOfRange,
            format!(
                "Symbol '{symbol}' occurs {} time(s) on line {line_hint}, so orderHint {order_hint} does not exist",
                here.len()
            ),
        )
        .hint(format!(
            "orderHint counts occurrences on the line from 0; use 0 to {}",
            here.len() - 1
        )));
    }
    for distance in 1..=SEARCH_RADIUS {
        let above = target.checked_sub(distance);
        let below = Some(target + distance).filter(|&l| l < lines.len());
        for line in [above, below].into_iter().flatten() {
            if let Some(&byte) = occurrences(lines[line], symbol, syntax).first() {
                return Ok(at(&lines, line, byte, symbol));
            }
        }
    }
    Err(not_found(&lines, symbol, line_hint, syntax))
}

/// The error for a symbol not at or near its line, pointing to the lines where it does occur.
fn not_found(lines: &[&str], symbol: &str, line_hint: usize, syntax: &Syntax) -> QueryError {
    let target = line_hint - 1;
    let mut elsewhere: Vec<usize> = (0..lines.len())
        .filter(|&l| !occurrences(lines[l], symbol, syntax).is_empty())
        .collect();
    elsewhere.sort_by_key(|&l| l.abs_diff(target));
    let mut error = QueryError::new(
        Failure::Invalid,
        ToolErrorCode::SymbolNotFound,
        format!(
            "Could not find symbol '{symbol}' at or near line {line_hint}: it is not on that line or within ±{SEARCH_RADIUS} lines of it (mentions inside strings and comments do not count)"
        ),
    );
    if elsewhere.is_empty() {
        error = error
            .hint(format!(
                "'{symbol}' does not occur as code anywhere in this file; check the spelling and case"
            ))
            .hint("Pass the bare name only: no parentheses, arguments or qualifying prefix")
            .hint("Search for the name with localSearchCode to find the right file and line");
    } else {
        let shown: Vec<String> = elsewhere
            .iter()
            .take(5)
            .map(|l| (l + 1).to_string())
            .collect();
        error = error.hint(format!(
            "'{symbol}' occurs in this file on line(s) {}; use one of them as lineHint",
            shown.join(", ")
        ));
    }
    error
        .detail("symbolName", symbol)
        .detail("lineHint", line_hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "import { total } from './total';\n\
        // total is computed below\n\
        const label = \"total\";\n\
        const t = total(total(1));\n\
        \n\
        function subtotal() { return totalize(); }\n";

    #[test]
    fn exact_line_and_order_hint() {
        let r = resolve(TEXT, "total", 4, 0, &C_LIKE).unwrap();
        assert_eq!((r.line, r.character, r.end_character), (3, 10, 15));
        let r = resolve(TEXT, "total", 4, 1, &C_LIKE).unwrap();
        assert_eq!((r.line, r.character), (3, 16));
        let e = resolve(TEXT, "total", 4, 2, &C_LIKE).unwrap_err();
        assert_eq!(e.code, ToolErrorCode::OrderHintOutOfRange);
        assert_eq!(e.failure, Failure::Invalid);
        assert!(e.message.contains("2 time(s)"), "{}", e.message);
    }

    #[test]
    fn strings_comments_and_partial_words_do_not_count() {
        assert!(occurrences("// total here", "total", &C_LIKE).is_empty());
        assert!(occurrences("x = 'total' + `total`", "total", &C_LIKE).is_empty());
        assert!(occurrences("subtotal(totalize)", "total", &C_LIKE).is_empty());
        assert_eq!(
            occurrences("a = \"it's\" + total // total", "total", &C_LIKE),
            vec![13]
        );
        assert_eq!(
            occurrences("s = \"\\\"total\" + total", "total", &C_LIKE),
            vec![16]
        );
        assert!(occurrences("# total", "total", &HASH).is_empty());
        // A Rust lifetime is not a quote.
        assert_eq!(
            occurrences("fn f<'a>(x: &'a Total)", "Total", &RUST),
            vec![16]
        );
        assert_eq!(occurrences("$total = 1", "$total", &C_LIKE), vec![0]);
        // Template literals: text is string, `${...}` is code.
        assert_eq!(
            occurrences("`total ${this.total()} {total}`", "total", &C_LIKE),
            vec![14]
        );
        assert_eq!(
            occurrences("`${ {a: total}.a }` + total", "total", &C_LIKE),
            vec![8, 22]
        );
    }

    #[test]
    fn nearby_lines_alternate_above_then_below() {
        // Line 2 (the comment) and line 3 (a string) do not have it as code: line 1 is one
        // above line 2 and line 4 one below, and above wins at equal distance.
        let r = resolve(TEXT, "total", 2, 0, &C_LIKE).unwrap();
        assert_eq!(r.line, 0);
        let r = resolve(TEXT, "total", 3, 0, &C_LIKE).unwrap();
        assert_eq!(
            r.line, 3,
            "line 2 (comment) is skipped; line 4 is one below"
        );
        let r = resolve(TEXT, "subtotal", 1, 0, &C_LIKE).unwrap();
        assert_eq!((r.line, r.character), (5, 9));
    }

    #[test]
    fn out_of_range_and_not_found_messages() {
        let e = resolve(TEXT, "total", 7, 0, &C_LIKE).unwrap_err();
        assert_eq!(e.message, "Line 7 is out of range (file has 6 lines)");
        assert_eq!(e.code, ToolErrorCode::LineOutOfRange);
        let e = resolve("a\n", "a", 0, 0, &C_LIKE).unwrap_err();
        assert_eq!(e.code, ToolErrorCode::LineOutOfRange);
        let far = format!("{}target()\n", "x\n".repeat(20));
        let e = resolve(&far, "target", 1, 0, &C_LIKE).unwrap_err();
        assert!(
            e.message
                .starts_with("Could not find symbol 'target' at or near line 1"),
            "{}",
            e.message
        );
        assert!(
            e.hints.iter().any(|h| h.contains("line(s) 21")),
            "{:?}",
            e.hints
        );
        let e = resolve(TEXT, "missing", 1, 0, &C_LIKE).unwrap_err();
        assert_eq!(e.code, ToolErrorCode::SymbolNotFound);
        assert!(e.hints[0].contains("does not occur"), "{:?}", e.hints);
    }

    #[test]
    fn utf16_columns_and_crlf() {
        let text = "const é𝄞 = 1; let x = foo;\r\nfoo();\r\n";
        let r = resolve(text, "foo", 1, 0, &C_LIKE).unwrap();
        // 'é' is one UTF-16 unit, '𝄞' two.
        assert_eq!(
            r.character,
            "const é𝄞 = 1; let x = "
                .chars()
                .map(char::len_utf16)
                .sum::<usize>()
        );
        assert_eq!(byte_of_utf16(split_lines(text)[0], r.character), r.byte);
        assert_eq!(
            split_lines(text),
            vec!["const é𝄞 = 1; let x = foo;", "foo();"]
        );
    }

    /// A symbol with a space matched the spaces that blank a string's "é", inside the
    /// character, and slicing the line there panicked.
    #[test]
    fn symbols_never_match_inside_blanked_characters() {
        let line = "let s = \"é\" + x;";
        for symbol in [" ", "  ", " \" "] {
            for at in occurrences(line, symbol, &C_LIKE) {
                assert_eq!(&line[at..at + symbol.len()], symbol);
            }
        }
        let text = "a = \"ééé ööö\"\nb = a\n";
        for line_hint in 1..=2 {
            let _ = resolve(text, " ", line_hint, 0, &C_LIKE);
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::hostile_text::config())]

        #[test]
        fn hostile_symbols_resolve_at_character_boundaries(
            text in crate::hostile_text::text(),
            symbol in crate::hostile_text::short_text(),
            line_hint in 1usize..4,
        ) {
            for syntax in [&C_LIKE, &RUST, &HASH] {
                for line in split_lines(&text) {
                    let masked = mask(line, syntax);
                    proptest::prop_assert_eq!(masked.len(), line.len());
                    for at in occurrences(line, &symbol, syntax) {
                        proptest::prop_assert_eq!(line.get(at..at + symbol.len()), Some(symbol.as_str()));
                    }
                }
                let _ = resolve(&text, &symbol, line_hint, 0, syntax);
            }
        }
    }
}
